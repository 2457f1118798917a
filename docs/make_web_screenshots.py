#!/usr/bin/env python3
"""Screenshots of the browser client for docs/screenshots/, taken from a real run.

    .venv/bin/python docs/make_web_screenshots.py

Starts ``python -m server`` on 127.0.0.1 and a free port with a temporary database, opens
Debian's headless chromium (``/usr/bin/chromium`` with ``/usr/bin/chromedriver``, through
Selenium from the ``test`` extra) as a 360x640 phone, sits down at a classic table with three
bots, plays the first moves by tapping, and opens the table screen at 1280x720. Writes
``phone-lobby.png``, ``phone-table.png`` and ``tv-table.png``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync --disable-dev-shm-usage"
).split()


def browser(width: int, height: int, mobile: bool) -> webdriver.Chrome:
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={tempfile.mkdtemp()}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    return driver


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    db = Path(tempfile.mkdtemp()) / "shots.sqlite3"
    server = subprocess.Popen(
        [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port), "--db", str(db), "--no-advertise"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    assert server.stdout is not None
    server.stdout.readline()  # listening
    url = f"http://127.0.0.1:{port}/"
    # Another table in the lobby, opened by a guest over JSON lines.
    with socket.create_connection(("127.0.0.1", port)) as other:
        lines = other.makefile("rb")
        for i, msg in enumerate(
            [
                {"type": "hello", "version": 1},
                {"type": "login", "name": "bob", "guest": True},
                {"type": "create_table", "name": "kitchen", "preset": "karma", "seats": 3},
            ]
        ):
            other.sendall(json.dumps({**msg, "id": i + 1}).encode() + b"\n")
            json.loads(lines.readline())
        phone = browser(360, 640, mobile=True)
        tv = browser(1280, 720, mobile=False)
        try:
            wait = WebDriverWait(phone, 30)

            def css(selector: str) -> list[object]:
                return phone.find_elements(By.CSS_SELECTOR, selector)

            phone.get(url)
            wait.until(lambda d: css("#name"))
            phone.find_element(By.ID, "name").send_keys("alice")
            phone.find_element(By.ID, "enter").click()
            wait.until(lambda d: css(".table-row"))
            phone.save_screenshot(str(OUT / "phone-lobby.png"))
            phone.find_element(By.ID, "create").click()
            for left in (2, 1, 0):
                wait.until(lambda d: css(".add-bot button"))
                phone.find_element(By.CSS_SELECTOR, ".add-bot button").click()
                wait.until(lambda d, n=left: len(css(".add-bot button")) == n)
            phone.find_element(By.ID, "start").click()
            wait.until(lambda d: css('[data-action="ready"]'))
            phone.find_element(By.CSS_SELECTOR, '[data-action="ready"]').click()
            wait.until(lambda d: css(".mine.turn .your-move") and css('.mine[data-phase="play"]'))
            phone.save_screenshot(str(OUT / "phone-table.png"))
            table = json.loads(phone.execute_script("return localStorage.getItem('shithead.current')"))
            tv.get(f"{url}tv?table={table}")
            WebDriverWait(tv, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".seat"))
            tv.save_screenshot(str(OUT / "tv-table.png"))
        finally:
            phone.quit()
            tv.quit()
    server.terminate()
    server.wait(30)
    for name in ("phone-lobby.png", "phone-table.png", "tv-table.png"):
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
