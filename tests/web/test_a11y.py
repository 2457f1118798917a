"""Issue 31, point 8: an axe-core audit (the npm package, injected by the test) of the lobby, the
waiting room, the table in play, the game's end and the TV finds no serious or critical
violation; and the keyboard: the arrow keys move between one's cards, "P" asks before picking
up the pile, and the focus stays where it was when the page is drawn again; the optional turn
alert (a vibration) comes at the player's turns once asked for.

axe-core is fetched once with npm (``npm pack axe-core@AXE_VERSION``) into a cache directory
(``$XDG_CACHE_HOME/shithead-tests``, else ``~/.cache/shithead-tests``): nothing of it is in the
repository or served by the server. Without npm (or with no registry) these tests skip with
one line; with SHITHEAD_REQUIRE_BROWSER=1 (CI) they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, my_turn, one_move, play_to_the_end, seq, sit_down_with_bots, tap, until
from tests.web.test_tv import Owner, seat_bots

AXE_VERSION = "4.14.1"
SERIOUS = ("serious", "critical")


def _axe_source() -> str:
    cache = (
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shithead-tests" / f"axe-core-{AXE_VERSION}"
    )
    script = cache / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        why = "no npm" if npm is None else ""
        if npm is not None:
            with tempfile.TemporaryDirectory() as tmp:
                run = subprocess.run(
                    [npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp],
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
                packed = list(Path(tmp).glob("axe-core-*.tgz"))
                if run.returncode == 0 and packed:
                    with tarfile.open(packed[0]) as tar:
                        member = tar.extractfile("package/axe.min.js")
                        assert member is not None
                        cache.mkdir(parents=True, exist_ok=True)
                        script.write_bytes(member.read())
                else:
                    why = f"npm pack axe-core failed: {run.stderr.strip()[-300:]}"
        if not script.is_file():
            message = f"no axe-core ({why}): the accessibility audit needs npm and the npm registry"
            if os.environ.get("SHITHEAD_REQUIRE_BROWSER") == "1":
                pytest.fail(message, pytrace=False)
            pytest.skip(message)
    return script.read_text(encoding="utf-8")


def audit(driver: WebDriver, axe: str, where: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA
    rules and best practices)."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(axe)  # (the DevTools protocol runs it: the page's CSP does not apply)
    result: dict[str, Any] = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations.map((v) => ("
        "{id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),"
        " (e) => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));"
    )
    serious = [v for v in result if v["impact"] in SERIOUS]
    assert serious == [], f"{where}: {serious}"
    return serious


def test_the_pages_pass_an_accessibility_audit(live_server: LiveServer, browser: Browser) -> None:
    axe = _axe_source()
    server = live_server()
    driver = browser(360, 640, mobile=True)
    driver.set_script_timeout(60)
    driver.get(server.url)
    until(driver, lambda d: css(d, "#name"))
    audit(driver, axe, "the name screen")
    sit_down_with_bots(driver, server.url, "alice")
    # The turn alert (vibration and beep), off until asked for: a toggle that says its state.
    assert css(driver, "#alert-toggle")[0].get_attribute("aria-pressed") == "false"
    tap(driver, "#alert-toggle")
    until(driver, lambda d: css(d, "#alert-toggle")[0].get_attribute("aria-pressed") == "true")
    driver.execute_script("window.vibrated = []; navigator.vibrate = (p) => (window.vibrated.push(p), true);")
    until(driver, lambda d: my_turn(d))
    audit(driver, axe, "the table at the player's turn")
    # The keyboard: arrows move between one's cards; P asks before picking up the pile.
    css(driver, ".hand button.card")[0].click()  # (selects it, and takes the focus)
    driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert driver.switch_to.active_element.get_attribute("id") == "card-hand-1"
    driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    assert driver.switch_to.active_element.get_attribute("id") == "card-hand-0"
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    until(driver, lambda d: not css(d, ".hand button.card.selected"))
    if css(driver, '[data-action^="take"]') and css(driver, ".hand button.card.playable"):
        css(driver, "body")[0].send_keys("p")
        until(driver, lambda d: css(d, "#take-confirm"))  # asked, not done
        audit(driver, axe, "the question before a pick-up")
        tap(driver, "#take-cancel")
    # The focus stays on its card while the page is drawn again for the others' moves.
    before = seq(driver)
    one_move(driver)
    if not css(driver, ".game-over") and css(driver, "#card-hand-0"):
        driver.execute_script("document.getElementById('card-hand-0').focus()")
        after = seq(driver)
        until(driver, lambda d: seq(d) > after or my_turn(d) or css(d, ".game-over"))
        if seq(driver) > after and not css(driver, ".game-over") and css(driver, "#card-hand-0"):
            assert driver.switch_to.active_element.get_attribute("id") == "card-hand-0"
    assert seq(driver) > before or css(driver, ".game-over")
    play_to_the_end(driver)
    assert driver.execute_script("return window.vibrated.length") >= 1  # a turn came after the first
    audit(driver, axe, "the game's end")
    tap(driver, ".table-head .back")
    until(driver, lambda d: css(d, "#create"))
    audit(driver, axe, "the lobby")

    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        table = seat_bots(owner, "living room")
        tv = browser(1280, 720)
        tv.set_script_timeout(60)
        tv.get(f"{server.url}tv?table={table}")
        until(tv, lambda d: css(d, ".tv-tally .tally"))
        owner.request({"type": "start", "table": table})
        owner.until(lambda m: m["type"] == "game_over")
        until(tv, lambda d: "SHITHEAD" in css(d, "#tv-banner")[0].text)
        audit(tv, axe, "the TV at the game's end")
    finally:
        owner.close()
