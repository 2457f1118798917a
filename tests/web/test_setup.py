"""Issue 31, points 4, 6 and 7 in the browser, with two people at one table: the lobby offers a
preset's description and its range of players; Start is disabled, saying why, until every seat
is taken; the table's invitation link seats a second player who only opened it and typed a
name; a chat line shows as a badge on the other's "Chat"; a 24-character name is cut with an
ellipsis and never widens a 360-pixel page; while the server is down the clocks stop and say
"paused: reconnecting", and count again once it is back, and nobody is left marked away."""

from __future__ import annotations

from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, until

LONG = "Bartholomew-Fitzgerald_X"  # 24 characters, no space to break at


def enter(driver: WebDriver, url: str, name: str) -> None:
    driver.get(url)
    until(driver, lambda d: css(d, "#name"))
    css(driver, "#name")[0].send_keys(name)
    tap(driver, "#enter")


def page_width(driver: WebDriver) -> int:
    width: int = driver.execute_script("return document.documentElement.scrollWidth")
    return width


def test_two_people_set_up_a_table_and_play(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    alice = browser(360, 640, mobile=True)
    enter(alice, server.url, LONG)
    until(alice, lambda d: css(d, "#create"))

    # The catalogue: each preset with what it is and how many may play; the seats follow it.
    Select(css(alice, "#preset")[0]).select_by_value("west_kent")
    about = css(alice, "#preset-about")[0].text
    assert "2 to 3 players" in about and len(about) > len("2 to 3 players.")
    assert [o.get_attribute("value") for o in css(alice, "#seats option")] == ["2", "3"]
    Select(css(alice, "#seats")[0]).select_by_value("3")
    tap(alice, "#create")
    until(alice, lambda d: css(d, "#start"))
    assert not css(alice, "#start")[0].is_enabled()
    assert "2 seats are free" in css(alice, "#start-why")[0].text
    assert page_width(alice) <= 360  # the long name does not widen the page

    # The invitation: a link (and its QR code) that seats whoever opens it.
    invite = css(alice, "#invite-link")[0].get_attribute("href")
    assert invite.startswith(server.url) and "table=" in invite
    assert css(alice, ".invite .qr svg")
    bob = browser(390, 844, mobile=True)
    enter(bob, invite, "bob")
    until(bob, lambda d: any(li.text == "bob (you)" for li in css(d, ".seats li")))
    until(alice, lambda d: any(li.text == "bob" for li in css(d, ".seats li")))
    assert "1 seat is free" in css(alice, "#start-why")[0].text
    tap(alice, ".add-bot button")
    until(alice, lambda d: css(d, "#start")[0].is_enabled())

    # Chat: a line from bob is a badge on alice's "Chat" until she opens it.
    tap(bob, "#chat-toggle")
    css(bob, "#chat-text")[0].send_keys("hello")
    tap(bob, "#chat button[type=submit]")
    until(bob, lambda d: "bob: hello" in css(d, "#chat")[0].text)
    tap(bob, "#chat-close")  # (the chat lies over the table while open)
    until(alice, lambda d: css(d, "#chat-badge") and css(d, "#chat-badge")[0].text == "1")
    tap(alice, "#chat-toggle")
    until(alice, lambda d: "bob: hello" in css(d, "#chat")[0].text and not css(d, "#chat-badge"))
    tap(alice, "#chat-toggle")  # closed again

    tap(alice, "#start")
    for driver in (alice, bob):
        tap(driver, '[data-action="ready"]')
    for driver in (alice, bob):
        until(driver, lambda d: css(d, '.mine[data-phase="play"]'))
    # On bob's page alice's tile cuts her name with an ellipsis; the title keeps it whole.
    tile = next(el for el in css(bob, ".seat .name") if el.get_attribute("title") == LONG)
    assert bob.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", tile)
    assert page_width(alice) <= 360 and page_width(bob) <= 390

    # The server goes down: the clocks stop and say so (no count to a red 0:00) ...
    until(alice, lambda d: css(d, "#turn-banner .clock"))
    server.kill()
    until(alice, lambda d: "paused: reconnecting" in css(d, "#turn-banner .clock")[0].text)
    assert "reconnecting" in css(alice, "#status")[0].text
    # ... and count again once it is back.
    server.restart()
    until(
        alice,
        lambda d: (
            css(d, "#turn-banner .clock")
            and ":" in css(d, "#turn-banner .clock")[0].text.replace("paused: reconnecting", "")
        ),
    )
    until(alice, lambda d: not css(d, ".clock.paused"))
    # After the restart every seat is away until its player is back: bob's page shows alice's
    # tile away, then not, as her page takes her seat back (no stale "away" beside her return).
    until(bob, lambda d: not css(d, ".seat.away"))
