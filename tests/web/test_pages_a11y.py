"""Issue 34, part 2: the read-only pages pass the axe-core audit of tests/web/test_a11y.py (no
serious or critical violation): the replay viewer at the deal, in play and at the end, and the
form that asks for a game number, on a phone; the ladder, a bot's page with its plot and the
page of a bot without games, on a phone and a desktop."""

from __future__ import annotations

from selenium.webdriver.common.keys import Keys

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_a11y import _axe_source, audit
from tests.web.test_ladder_pages import ladder_with_two_bots
from tests.web.test_play import css, until
from tests.web.test_replay import finished_game
from tests.web.test_tv import Owner


def test_the_replay_viewer_passes_an_accessibility_audit(live_server: LiveServer, browser: Browser) -> None:
    axe = _axe_source()
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        game, record = finished_game(owner)
    finally:
        owner.close()
    total = len(record["record"]["actions"])
    driver = browser(360, 640, mobile=True)
    driver.set_script_timeout(60)
    driver.get(f"{server.url}replay")
    until(driver, lambda d: css(d, "#r-game"))
    audit(driver, axe, "the replay's game number form")
    css(driver, "#r-game")[0].send_keys(str(game), Keys.ENTER)
    until(driver, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text == f"0 / {total}")
    audit(driver, axe, "the replay at the deal")
    driver.get(f"{server.url}replay?game={game}&step={total // 2}")
    until(driver, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text == f"{total // 2} / {total}")
    audit(driver, axe, "the replay in play")
    css(driver, "body")[0].send_keys(Keys.END)
    until(driver, lambda d: css(d, "#r-over"))
    audit(driver, axe, "the replay at the end")


def test_the_ladder_and_a_bots_page_pass_an_accessibility_audit(live_server: LiveServer, browser: Browser) -> None:
    axe = _axe_source()
    server = live_server()
    ladder_with_two_bots(server, games=2)
    for driver in (browser(360, 640, mobile=True), browser(1280, 800)):
        driver.set_script_timeout(60)
        driver.get(f"{server.url}ladder")
        until(driver, lambda d: css(d, "#l-table tbody tr"))
        audit(driver, axe, "the ladder")
        driver.get(f"{server.url}bot?name=alpha")
        until(driver, lambda d: css(d, "#b-plot"))
        audit(driver, axe, "a bot's page")
        driver.get(f"{server.url}bot?name=nobody")
        until(driver, lambda d: "No ladder game yet." in css(d, "#screen")[0].text)
        audit(driver, axe, "the page of a bot without games")


def test_a_tournaments_page_passes_an_accessibility_audit(live_server: LiveServer, browser: Browser) -> None:
    axe = _axe_source()
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "organiser", "guest": True})
        cup = {"name": "Small cup", "preset": "classic", "seats": 2, "games": 6, "concurrency": 1}
        tid = owner.request({"type": "create_tournament", **cup, "bots": ["greedy", "random", "greedy"]})["tournament"]
        owner.request({"type": "start_tournament", "tournament": tid})
        owner.until(lambda m: m["type"] == "tournament_over")
    finally:
        owner.close()
    for driver in (browser(360, 640, mobile=True), browser(1280, 800)):
        driver.set_script_timeout(60)
        driver.get(f"{server.url}tournament?id={tid}")
        until(driver, lambda d: css(d, "#t-cross tbody tr"))
        audit(driver, axe, "a finished tournament's page")
        driver.get(f"{server.url}tournament")
        until(driver, lambda d: css(d, "#t-list li"))
        audit(driver, axe, "the list of tournaments")
