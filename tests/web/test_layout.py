"""Issue 31, point 1 in the browser: at each of the player's turns, on a 360x640 phone, a
390x844 phone, a phone in landscape (844x390) and a 360x640 phone at 200 % zoom (180x320 CSS
pixels at two device pixels each), the turn banner with its clock, the pile, "to beat" and every
card of the hand are inside the viewport without scrolling (getBoundingClientRect), and each hand
card shows its top-left corner (its rank and suit) to a tap, however large the hand (once the
hand is empty: every card on the table that can be tapped). The player picks up the pile on
the first turns until the hand holds 12 cards, so that it fans out (and wraps at 200 %).

The feed (point 2): at each turn after the first, the lines since the player's last action are
marked new, newest first, and the player's own last action is in the feed below them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, my_turn, one_move, sit_down_with_bots, tap, until

SIZES = {
    "phone 360x640": (360, 640, 1),
    "phone 390x844": (390, 844, 1),
    "landscape 844x390": (844, 390, 1),
    "200 % zoom (180x320)": (180, 320, 2),
}
TAKE_TURNS = 10  # first turns on which the player picks up the pile (if allowed) while the hand is under 12

# Each element the player needs when acting, with where its box lies in the viewport at scroll 0.
MEASURE = """
window.scrollTo(0, 0);
const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const one = (sel) => { const el = document.querySelector(sel); return el ? box(el) : null; };
// The cards to play from: the hand, or once it is empty the cards on the table.
const own = document.querySelectorAll('.hand button.card').length ? '.hand button.card' : '.my-table button.card';
const hand = [...document.querySelectorAll(own)].map((el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + 6, r.top + 10);
  return { card: el.dataset.card, box: box(el), corner: hit !== null && el.contains(hit) };
});
return {
  W, H, scrollWidth: document.documentElement.scrollWidth,
  banner: one('#turn-banner'), clock: one('#turn-banner .clock'),
  bannerText: document.querySelector('#turn-banner')?.textContent,
  pile: one('.centre .pile'), toBeat: one('.centre .to-beat'), hand,
  feed: [...document.querySelectorAll('#feed li')].map((li) => ({
    text: li.textContent, n: Number(li.dataset.n),
    isNew: li.classList.contains('new'), you: li.classList.contains('you'),
  })),
};
"""


def inside(box: list[float] | None, w: int, h: int) -> bool:
    return box is not None and box[0] >= -0.5 and box[1] >= -0.5 and box[2] <= w + 0.5 and box[3] <= h + 0.5


def check_turn(driver: WebDriver, width: int, height: int, turn: int) -> dict[str, Any]:
    m: dict[str, Any] = driver.execute_script(MEASURE)
    where = f"turn {turn} at {width}x{height}"
    assert (m["W"], m["H"]) == (width, height), where  # nothing widened the page
    assert m["scrollWidth"] <= width, f"{where}: the page is {m['scrollWidth']} px wide"
    assert "Your turn" in m["bannerText"], where
    for name in ("banner", "clock", "pile", "toBeat"):
        assert inside(m[name], width, height), f"{where}: {name} at {m[name]}"
    assert m["hand"], where
    for c in m["hand"]:
        assert inside(c["box"], width, height), f"{where}: hand card {c['card']} at {c['box']} of {len(m['hand'])}"
        assert c["corner"], f"{where}: the corner of {c['card']} is covered ({len(m['hand'])} cards)"
    return m


def check_feed(m: dict[str, Any], turn: int) -> None:
    """Newest first; what happened since the player's last action is marked new, above it."""
    feed = m["feed"]
    numbers = [line["n"] for line in feed]
    assert numbers == sorted(numbers, reverse=True), numbers
    if turn == 1:
        return
    mine = next(i for i, line in enumerate(feed) if line["you"])
    assert [line["isNew"] for line in feed] == [True] * mine + [False] * (len(feed) - mine), feed[: mine + 2]
    assert mine >= 1 or "burned" in feed[0]["text"], feed[:3]  # (after a burn the player plays again at once)


def play_checking_each_turn(
    live_server: LiveServer, browser: Browser, size: str, *, take: Callable[[int, int], bool], feed: bool
) -> tuple[int, int]:
    """Sit down with three bots at ``size`` and play the whole game, checking at each of the
    player's turns that everything needed is in view (and the feed, with ``feed``); the player
    picks up the pile when ``take(turn, hand size)``. Returns (turns, the largest hand)."""
    width, height, scale = SIZES[size]
    server = live_server()
    driver = browser(width, height, mobile=True, scale=scale)
    sit_down_with_bots(driver, server.url, "alice")
    turn, biggest = 0, 0
    while True:
        until(driver, lambda d: my_turn(d) or css(d, ".game-over"))
        if css(driver, ".game-over"):
            return turn, biggest
        turn += 1
        m = check_turn(driver, width, height, turn)
        if feed:
            check_feed(m, turn)
        biggest = max(biggest, len(m["hand"]))
        one_move(driver, take=take(turn, len(m["hand"])))


@pytest.mark.parametrize("size", list(SIZES))
def test_the_game_stays_in_view_at_every_turn(live_server: LiveServer, browser: Browser, size: str) -> None:
    turns, biggest = play_checking_each_turn(
        live_server, browser, size, take=lambda turn, hand: turn <= TAKE_TURNS and hand < 12, feed=True
    )
    assert turns >= 4, f"only {turns} turns"
    assert biggest >= 8, f"the hand never grew past {biggest} cards"


@pytest.mark.parametrize("size", list(SIZES))
def test_a_hand_of_any_size_stays_in_view(live_server: LiveServer, browser: Browser, size: str) -> None:
    """The player picks up the pile whenever allowed, the whole game: the hand grows to a wide
    fan (at 200 % zoom several rows; past 30 cards in trials), and at every turn each card is
    still inside the viewport with its corner free to tap."""
    _, biggest = play_checking_each_turn(live_server, browser, size, take=lambda turn, hand: True, feed=False)
    assert biggest >= 20, f"the hand never grew past {biggest} cards"


def test_the_name_screen_lobby_and_waiting_room_fit_at_200_percent(live_server: LiveServer, browser: Browser) -> None:
    """At 200 % zoom (180 CSS pixels) nothing is wider than the screen: the name screen, the
    lobby with a table in it, the new table form, the waiting room with its invitation."""
    server = live_server()
    driver = browser(180, 320, mobile=True, scale=2)
    width = "return document.documentElement.scrollWidth"
    wide = (
        "return [...document.querySelectorAll('body *')]"
        ".filter((e) => e.getBoundingClientRect().right > 180.5 || e.scrollWidth > e.clientWidth + 1)"
        ".map((e) => `${e.tagName}.${e.className}`)"
    )
    driver.get(server.url)
    until(driver, lambda d: css(d, "#name"))
    assert driver.execute_script(width) <= 180, driver.execute_script(wide)
    css(driver, "#name")[0].send_keys("Bartholomew-Fitzgerald_X")
    tap(driver, "#enter")
    until(driver, lambda d: css(d, "#create"))
    assert driver.execute_script(width) <= 180, driver.execute_script(wide)
    tap(driver, "#create")
    until(driver, lambda d: css(d, ".add-bot button") and css(d, ".invite .qr svg"))
    assert driver.execute_script(width) <= 180, driver.execute_script(wide)
    tap(driver, ".table-head .back")
    until(driver, lambda d: css(d, ".table-row"))  # the lobby with the table, who sits there
    assert driver.execute_script(width) <= 180, driver.execute_script(wide)
