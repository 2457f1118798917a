"""Browser tests of the web client: the real server in a child process, driven by Debian's chromium.

``live_server()`` starts ``python -m server`` on 127.0.0.1 and a free port; ``browser(width, height)``
opens a headless chromium through chromedriver at exactly that many CSS pixels. Every server and
browser a test started is stopped at its end. Nothing listens or is opened but on 127.0.0.1.

Without /usr/bin/chromium or /usr/bin/chromedriver these tests skip with one line; with the
environment variable SHITHEAD_REQUIRE_BROWSER=1 (CI sets it, see .ci/run) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from tests.live_server import LiveServer

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NO_BROWSER = "no browser: install Debian's chromium and chromium-driver to run the browser tests"

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


Browser = Callable[..., webdriver.Chrome]  # the browser fixture: browser(width, height, *, mobile=False, scale=1)


def _require_browser() -> None:
    if all(os.access(path, os.X_OK) for path in (CHROMIUM, CHROMEDRIVER)):
        return
    if os.environ.get("SHITHEAD_REQUIRE_BROWSER") == "1":
        pytest.fail(NO_BROWSER, pytrace=False)
    pytest.skip(NO_BROWSER)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """``driver = browser(width, height, mobile=False, scale=1)``: a headless chromium, viewport
    width x height CSS pixels, ``scale`` device pixels each.

    ``mobile=True`` also emulates a phone: device metrics with the mobile flag (the page's
    viewport meta applies) and touch events. Browser zoom is a smaller viewport at a larger
    scale: a 360x640 phone at 200 % is ``browser(180, 320, mobile=True, scale=2)``.
    """
    _require_browser()
    drivers: list[webdriver.Chrome] = []
    profiles: list[str] = []

    def make(width: int, height: int, *, mobile: bool = False, scale: float = 1) -> webdriver.Chrome:
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
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
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


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """``live_server()`` starts the real server (a :class:`tests.live_server.LiveServer`) and
    returns it; ``live_server.url`` is its address.

    Its port is chosen once per test and kept by every restart, as is its database,
    tmp_path/"web.sqlite3"; its stderr goes to tmp_path/"server.stderr". It is stopped at teardown.
    """
    server = LiveServer(tmp_path / "web.sqlite3", tmp_path / "server.stderr", ["--log-level", "WARNING"])
    try:
        yield server
    finally:
        if server.running:
            try:
                server.stop()
            except RuntimeError:
                pass  # stop() killed it; the test's own result matters more
