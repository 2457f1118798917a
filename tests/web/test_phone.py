"""Issue 31, "a phone at a card table": the page keeps the screen awake while a game is played
(the Screen Wake Lock API, stubbed in the page before it loads so the calls can be read), lets
it go at game over, and the TV page keeps it while it shows a table; a web app manifest (name,
standalone display, colours, an icon) is linked and served, so the page can be added to the
home screen."""

from __future__ import annotations

import json
import urllib.request

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, my_turn, one_move, sit_down_with_bots, until

# A navigator.wakeLock that records each request and release in window.wakeCalls.
STUB = """
window.wakeCalls = [];
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  async request(kind) {
    window.wakeCalls.push("request " + kind);
    const lock = { released: false, addEventListener() {},
      async release() { lock.released = true; window.wakeCalls.push("release"); } };
    return lock;
  },
} });
"""


def stub_wake_lock(driver: WebDriver) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})


def calls(driver: WebDriver) -> list[str]:
    found: list[str] = driver.execute_script("return window.wakeCalls")
    return found


def test_the_screen_stays_on_during_a_game_and_is_let_go_at_its_end(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    driver = browser(360, 640, mobile=True)
    stub_wake_lock(driver)
    sit_down_with_bots(driver, server.url, "alice")
    assert calls(driver) == ["request screen"]  # (once, however often the page redraws)
    while True:
        until(driver, lambda d: my_turn(d) or css(d, ".game-over"))
        if css(driver, ".game-over"):
            break
        one_move(driver)
    until(driver, lambda d: calls(d) == ["request screen", "release"])


def test_the_tv_page_keeps_the_screen_on_while_it_shows_a_table(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    phone = browser(360, 640, mobile=True)
    sit_down_with_bots(phone, server.url, "alice")
    table = json.loads(phone.execute_script("return localStorage.getItem('shithead.current')"))
    tv = browser(1280, 720)
    stub_wake_lock(tv)
    tv.get(f"{server.url}tv")
    until(tv, lambda d: css(d, ".tv-pick"))
    assert calls(tv) == []  # (choosing a table: nothing to keep on yet)
    tv.get(f"{server.url}tv?table={table}")
    until(tv, lambda d: css(d, "#tv-banner"))
    assert calls(tv) == ["request screen"]


def test_the_manifest_is_linked_and_served(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    driver = browser(360, 640, mobile=True)
    driver.get(server.url)
    until(driver, lambda d: css(d, "#name"))
    href = driver.execute_script("return document.querySelector('link[rel=manifest]').href")
    with urllib.request.urlopen(href, timeout=30) as res:
        assert res.headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.load(res)
    assert manifest["name"] == "Shithead" and manifest["short_name"] and manifest["display"] == "standalone"
    assert manifest["start_url"] == "./" and manifest["theme_color"] == manifest["background_color"] == "#14532d"
    [icon] = {i["src"] for i in manifest["icons"]}
    with urllib.request.urlopen(server.url + icon, timeout=30) as res:
        assert res.headers["Content-Type"].startswith("image/svg+xml")
        assert res.read().lstrip().startswith(b"<svg")
