"""Issue 31, point 4 in the browser: the owner of a table removes a bot and changes the number of
seats from the waiting room (the server's ``remove_bot`` and ``set_seats``), and a second person
at the table sees each change without doing anything; the second person, who does not own the
table, has neither control."""

from __future__ import annotations

from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, until
from tests.web.test_setup import enter


def seat_texts(driver: WebDriver) -> list[str]:
    return [li.find_element("css selector", ":scope > span").text for li in css(driver, ".seats li")]


def seat_count_options(driver: WebDriver) -> dict[str, bool]:
    """The seat counts offered: value -> whether it may be chosen."""
    return {o.get_attribute("value"): o.is_enabled() for o in css(driver, "#seat-count option")}


def test_the_owner_removes_a_bot_and_changes_the_seats(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    alice = browser(390, 844, mobile=True)
    enter(alice, server.url, "alice")
    until(alice, lambda d: css(d, "#create"))
    Select(css(alice, "#preset")[0]).select_by_value("classic")
    Select(css(alice, "#seats")[0]).select_by_value("3")
    tap(alice, "#create")
    until(alice, lambda d: css(d, "#seat-count"))
    # The classic preset is for 2 to 5 players; alice sits in the first seat: every count may be chosen.
    assert seat_count_options(alice) == {"2": True, "3": True, "4": True, "5": True}
    assert Select(css(alice, "#seat-count")[0]).first_selected_option.get_attribute("value") == "3"

    bob = browser(360, 640, mobile=True)
    enter(bob, css(alice, "#invite-link")[0].get_attribute("href"), "bob")
    until(bob, lambda d: "bob (you)" in seat_texts(d))
    assert not css(bob, "#seat-count")  # not his table

    # A bot in the last seat: a Remove button beside it (for alice only); 2 seats would leave it out.
    tap(alice, ".add-bot button")
    until(alice, lambda d: css(d, "#remove-bot-2"))
    until(bob, lambda d: seat_texts(d)[2].endswith("(bot)"))
    assert not css(bob, ".remove-bot")
    until(alice, lambda d: seat_count_options(d)["2"] is False)
    # Asked anyway (as a page drawn before the bot sat would): refused in words, and the menu
    # shows the table's count again.
    alice.execute_script("document.querySelector('#seat-count option[value=\"2\"]').disabled = false")
    Select(css(alice, "#seat-count")[0]).select_by_value("2")
    until(alice, lambda d: "leave out" in css(d, "#toast")[0].text)
    until(alice, lambda d: Select(css(d, "#seat-count")[0]).first_selected_option.get_attribute("value") == "3")
    assert len(css(alice, ".seats li")) == 3

    # Four seats: both pages show a fourth, free seat.
    Select(css(alice, "#seat-count")[0]).select_by_value("4")
    for driver in (alice, bob):
        until(driver, lambda d: len(css(d, ".seats li")) == 4 and seat_texts(d)[3] == "free seat")
    assert "4 seats" in css(bob, ".waiting h2")[0].text

    # The bot removed: its seat is free on both pages, and 2 seats may be chosen again.
    tap(alice, "#remove-bot-2")
    for driver in (alice, bob):
        until(driver, lambda d: seat_texts(d)[2] == "free seat")
    until(alice, lambda d: seat_count_options(d)["2"] is True)
    Select(css(alice, "#seat-count")[0]).select_by_value("2")
    for driver in (alice, bob):
        until(driver, lambda d: len(css(d, ".seats li")) == 2)
    until(alice, lambda d: css(d, "#start")[0].is_enabled())

    # Once the game is dealt the seats are fixed: no control is left.
    tap(alice, "#start")
    until(alice, lambda d: css(d, '[data-action="ready"]'))
    assert not css(alice, "#seat-count") and not css(alice, ".remove-bot")
