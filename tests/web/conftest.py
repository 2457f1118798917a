"""Browser tests of the web client: the real server in a child process, driven by Debian's chromium.

``live_server()`` starts ``python -m server`` on 127.0.0.1 and a free port; ``browser(width, height)``
opens a headless chromium through chromedriver at exactly that many CSS pixels. Every server and
browser a test started is stopped at its end. Nothing listens or is opened but on 127.0.0.1.

Without /usr/bin/chromium or /usr/bin/chromedriver these tests skip with one line; with the
environment variable SHITHEAD_REQUIRE_BROWSER=1 (CI sets it, see .ci/run) they fail instead.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "127.0.0.1"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NO_BROWSER = "no browser: install Debian's chromium and chromium-driver to run the browser tests"
START_TIMEOUT = 60.0  # seconds for the server's first line (a busy 2-core machine is slow to import)
STOP_TIMEOUT = 30.0  # seconds for a SIGTERM'd server to save and exit

# Headless chromium as root in a container, with no network but the loopback: no sandbox (root),
# no GPU, /tmp instead of a small /dev/shm, and none of the background calls home.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


Browser = Callable[..., webdriver.Chrome]  # the browser fixture: browser(width, height, *, mobile=False)


def _require_browser() -> None:
    if all(os.access(path, os.X_OK) for path in (CHROMIUM, CHROMEDRIVER)):
        return
    if os.environ.get("SHITHEAD_REQUIRE_BROWSER") == "1":
        pytest.fail(NO_BROWSER, pytrace=False)
    pytest.skip(NO_BROWSER)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """``driver = browser(width, height, mobile=False)``: a headless chromium, viewport width x height.

    ``mobile=True`` also emulates a phone: device metrics with the mobile flag (the page's
    viewport meta applies) and touch events.
    """
    _require_browser()
    drivers: list[webdriver.Chrome] = []
    profiles: list[str] = []

    def make(width: int, height: int, *, mobile: bool = False) -> webdriver.Chrome:
        profile = tempfile.mkdtemp(prefix="shithead-chromium-")
        profiles.append(profile)
        options = Options()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--window-size={width},{height}")
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        drivers.append(driver)
        driver.set_page_load_timeout(30)
        # --window-size is the window's outer size: headless chromium still takes room for its
        # toolbars (1280x720 gives a 1280x577 viewport). The device metrics make the viewport
        # exactly width x height, for a desktop too.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )
        if mobile:
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
            # The first document loaded after this still has navigator.maxTouchPoints == 0: let
            # that be a blank page, so that the test's own pages see a touch screen.
            driver.get("about:blank")
        return driver

    try:
        yield make
    finally:
        for driver in drivers:
            try:
                driver.quit()
            except Exception:  # a crashed browser must not hide the test's own result
                pass
        for profile in profiles:
            shutil.rmtree(profile, ignore_errors=True)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """The real server (``python -m server``) in a child process on 127.0.0.1:port."""

    def __init__(self, port: int, db: Path, stderr_path: Path) -> None:
        self.port = port
        self.db = db
        self.url = f"http://{HOST}:{port}/"
        self.output: list[str] = []  # every stdout line of every start, the first ones included
        self._stderr_path = stderr_path
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def __call__(self) -> LiveServer:
        """Start the server (see start()) and return it: ``server = live_server()``."""
        self.start()
        return self

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server and return once it has printed its first line (it is then listening)."""
        assert not self.running, "the server is already running"
        cmd = [
            sys.executable,
            "-m",
            "server",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--db",
            str(self.db),
            "--no-advertise",
            "--log-level",
            "WARNING",
        ]
        with open(self._stderr_path, "a", encoding="utf-8") as stderr:
            proc = subprocess.Popen(
                cmd,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"},  # it prints a QR code
            )
        self._proc = proc
        assert proc.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(proc.stdout, lines), daemon=True)
        self._reader.start()
        try:
            first = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            self._kill()
            raise RuntimeError(f"the server printed nothing in {START_TIMEOUT:g} s{self._stderr_tail()}") from None
        if first is None:
            code = proc.wait()
            raise RuntimeError(f"the server exited ({code}) before listening{self._stderr_tail()}")
        expected = f"Shithead server listening on {HOST}:{self.port} "
        if not first.startswith(expected):
            self._kill()
            raise RuntimeError(f"unexpected first line from the server: {first!r}{self._stderr_tail()}")

    def _read(self, stdout: IO[str], lines: queue.Queue[str | None]) -> None:
        # Reads every line until the child exits, so that its stdout pipe never fills up.
        for line in stdout:
            self.output.append(line)
            lines.put(line)
        stdout.close()
        lines.put(None)

    def _stderr_tail(self) -> str:
        text = self._stderr_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        return f"; its stderr:\n{text}" if text else ""

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._proc is not None:
            self._proc.wait()

    def kill(self) -> None:
        """SIGKILL: a crash, nothing saved beyond what the server had committed."""
        assert self.running, "the server is not running"
        self._kill()

    def stop(self) -> int:
        """SIGTERM and wait for the server to save and exit; returns its exit code."""
        assert self._proc is not None, "the server was never started"
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self._kill()
                raise RuntimeError(f"the server did not stop within {STOP_TIMEOUT:g} s of SIGTERM") from None
        if self._reader is not None:
            self._reader.join(STOP_TIMEOUT)  # every line it printed is in output now
        return self._proc.returncode

    def restart(self) -> None:
        """Start again on the same port and database (after kill() or stop(); a running server is stopped)."""
        if self.running:
            self.stop()
        self.start()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """``live_server()`` starts the real server and returns it; ``live_server.url`` is its address.

    Its port is chosen once per test and kept by every restart, as is its database,
    tmp_path/"web.sqlite3"; its stderr goes to tmp_path/"server.stderr". It is stopped at teardown.
    """
    server = LiveServer(_free_port(), tmp_path / "web.sqlite3", tmp_path / "server.stderr")
    try:
        yield server
    finally:
        if server.running:
            try:
                server.stop()
            except RuntimeError:
                pass  # stop() killed it; the test's own result matters more
