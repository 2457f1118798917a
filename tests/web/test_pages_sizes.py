"""The read-only pages (issue 34) at the sizes people open them at: a phone in landscape
(844x390), a phone (360x640), a TV seen from a sofa (1920x1080) and 200 % zoom of a desktop
(640x400 CSS pixels at two device pixels each).

One server for the module holds a finished game of four greedy bots, a ladder played by two
ladder bots and a finished tournament of three bundled bots. Each check reads the page's boxes
(getBoundingClientRect) and computed styles: what must be seen is inside the viewport without
scrolling, and no page is wider than the screen (a table too wide scrolls in its own box)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_ladder_pages import ladder_with_two_bots
from tests.web.test_play import css, tap, until
from tests.web.test_replay import at_step, finished_game
from tests.web.test_tv import Owner

# (The README's test command runs each file whole on one worker: this module's shared server,
# a minute to set up with a game, a tournament and two ladder bots, is made once.)

# The boxes of the replay's controls, pile, seats and hands, with the viewport and the scroll.
REPLAY_BOXES = """
const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const one = (sel) => { const el = document.querySelector(sel); return el ? box(el) : null; };
return {
  W: innerWidth, H: innerHeight, scrollWidth: document.documentElement.scrollWidth, scrollY: scrollY,
  first: one('#r-first'), prev: one('#r-prev'), next: one('#r-next'), last: one('#r-last'), slider: one('#r-slider'),
  action: one('#r-action'), pile: one('.r-pile'),
  seats: [...document.querySelectorAll('.r-seat')].map(box),
  hands: [...document.querySelectorAll('.r-hand')].map(box),
  cards: [...document.querySelectorAll('.r-hand [data-card]')].map(box),
};
"""

# Every element that shows text of its own (a text node with more than blanks), visible, with
# its computed font size; SVG text is left out (its px are the plot's units, scaled with it).
FONT_SIZES = """
const out = [];
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('svg')) continue;
  const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own || !el.getClientRects().length || el.closest('.sr-only, [hidden]')) continue;
  const s = getComputedStyle(el);
  if (s.visibility === 'hidden' || s.display === 'none' || el.getBoundingClientRect().width < 1) continue;
  const name = el.tagName + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : '');
  out.push([name, parseFloat(s.fontSize)]);
}
return out;
"""


def inside(box: list[float] | None, w: float, h: float) -> bool:
    return box is not None and box[0] >= -0.5 and box[1] >= -0.5 and box[2] <= w + 0.5 and box[3] <= h + 0.5


def not_wider(driver: WebDriver, where: str) -> None:
    width = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], f"{where}: the page is wider than the screen {width}"


class Pages:
    """The module's server and what it holds."""

    def __init__(self, server: LiveServer, game: int, total: int, tournament: int, big: tuple[int, int, int]) -> None:
        self.server, self.url, self.game, self.total, self.tournament = server, server.url, game, total, tournament
        self.big = big  # (game, step, cards): the largest hand of any finished game, where
        self.paths = {
            "replay": (f"replay?game={game}&step={total // 2}", "#r-count"),
            "ladder": ("ladder", "#l-table tbody tr"),
            "bot": ("bot?name=beta", "#b-games li"),
            "tournament": (f"tournament?id={tournament}", "#t-cross tbody tr"),
        }

    def open(self, driver: WebDriver, page: str) -> None:
        path, ready = self.paths[page]
        driver.get(self.url + path)
        until(driver, lambda d: css(d, ready))


def largest_hand(owner: Owner) -> tuple[int, int, int]:
    """(game, step, cards) of the largest hand in any finished game (the ladder's weak bot picks
    up the pile whenever it may: its hands grow past 30 cards)."""
    best = (0, 0, 0)
    games = {
        g["game"]
        for name in ("alpha", "beta")
        for g in owner.request({"type": "ladder_games", "name": name, "limit": 50})["games"]
    }
    for game in sorted(games):
        start = 0
        while True:
            answer = owner.request({"type": "get_replay", "game": game, "start": start, "count": 100})
            for s in answer["steps"]:
                cards = max(len(seat["hand"]) for seat in s["seats"])
                if cards > best[2]:
                    best = (game, s["step"], cards)
            start += 100
            if start > answer["actions"]:
                break
    return best


@pytest.fixture(scope="module")
def pages() -> Iterator[Pages]:
    tmp = Path(tempfile.mkdtemp(prefix="shithead-pages-"))
    server = LiveServer(tmp / "web.sqlite3", tmp / "server.stderr", ["--log-level", "WARNING"])
    server.start()
    try:
        owner = Owner(server.port)
        try:
            owner.request({"type": "hello", "version": 1})
            owner.request({"type": "login", "name": "organiser", "guest": True})
            game, record = finished_game(owner)
            cup = {"name": "Small cup", "preset": "classic", "seats": 2, "games": 6, "concurrency": 1}
            tid = owner.request({"type": "create_tournament", **cup, "bots": ["greedy", "random", "search"]})
            owner.request({"type": "start_tournament", "tournament": tid["tournament"]})
            owner.until(lambda m: m["type"] == "tournament_over")
        finally:
            owner.close()
        ladder_with_two_bots(server, games=3)
        owner = Owner(server.port)
        try:
            owner.request({"type": "hello", "version": 1})
            owner.request({"type": "login", "name": "reader", "guest": True})
            big = largest_hand(owner)
        finally:
            owner.close()
        yield Pages(server, game, len(record["record"]["actions"]), tid["tournament"], big)
    finally:
        if server.running:
            server.stop()


def check_replay_fits(driver: WebDriver, where: str) -> dict[str, Any]:
    """At scroll 0: the steps' buttons and slider, the action, the pile, every seat and every
    hand (each of its cards) inside the viewport; nothing wider than the screen."""
    m: dict[str, Any] = driver.execute_script(REPLAY_BOXES)
    w, h = m["W"], m["H"]
    assert m["scrollY"] == 0 and m["scrollWidth"] <= w, (where, m["scrollY"], m["scrollWidth"])
    for name in ("first", "prev", "next", "last", "slider", "action", "pile"):
        assert inside(m[name], w, h), f"{where}: {name} at {m[name]} outside {w}x{h}"
    assert m["hands"] and len(m["hands"]) == len(m["seats"]), where
    for i, (seat, hand) in enumerate(zip(m["seats"], m["hands"], strict=True)):
        assert inside(seat, w, h), f"{where}: seat {i} at {seat} outside {w}x{h}"
        assert inside(hand, w, h), f"{where}: hand {i} at {hand} outside {w}x{h}"
    for card in m["cards"]:
        assert inside(card, w, h), f"{where}: a hand card at {card}"
    return m


@pytest.mark.parametrize(
    "size", [(844, 390, 1, True), (640, 400, 2, False)], ids=["landscape 844x390", "200 % zoom 640x400"]
)
def test_the_replay_fits_a_short_screen_at_every_step(
    pages: Pages, browser: Browser, size: tuple[int, int, float, bool]
) -> None:
    """A phone in landscape and a desktop at 200 % zoom: from the deal to the end with Next, the
    steps, the pile and every hand are on the screen at once; so is the largest hand of any
    game on the server (the fan keeps it to a row or two)."""
    width, height, scale, mobile = size
    driver = browser(width, height, mobile=mobile, scale=scale)
    driver.get(f"{pages.url}replay?game={pages.game}")
    for step in range(pages.total + 1):
        if step:
            tap(driver, "#r-next")
        at_step(driver, step, pages.total)
        check_replay_fits(driver, f"{width}x{height}, step {step}")
    game, step, cards = pages.big
    assert cards >= 20, pages.big  # (a hand that must fan out, or wrap, to fit)
    driver.get(f"{pages.url}replay?game={game}&step={step}")
    at_count(driver, f"{step} / ")
    m = check_replay_fits(driver, f"{width}x{height}, a hand of {cards}")
    assert len(m["cards"]) >= cards


def at_count(driver: WebDriver, shown: str) -> None:
    until(driver, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text.startswith(shown))


def scrolled_to(driver: WebDriver, y: int) -> None:
    until(driver, lambda d: d.execute_script("return Math.round(scrollY)") == y)


def test_the_replay_on_a_phone_keeps_the_steps_and_the_pile_in_view(pages: Pages, browser: Browser) -> None:
    """360x640: scrolled to the last seat, the steps, the action and the pile are still on the
    screen (they stick to its top), and no step makes the page wider than the phone."""
    driver = browser(360, 640, mobile=True)
    game, step, cards = pages.big
    for where, path, shown in (
        ("the middle of the game", f"replay?game={pages.game}&step={pages.total // 2}", f"{pages.total // 2} / "),
        (f"a hand of {cards}", f"replay?game={game}&step={step}", f"{step} / "),
    ):
        driver.get(pages.url + path)
        at_count(driver, shown)
        not_wider(driver, where)
        for part, scroll in (("half-way down", 0.5), ("at the bottom", 1)):
            y = driver.execute_script(
                "const y = Math.round((document.documentElement.scrollHeight - innerHeight) * arguments[0]);"
                "window.scrollTo(0, y); return y;",
                scroll,
            )
            scrolled_to(driver, y)
            m = driver.execute_script(REPLAY_BOXES)
            for name in ("prev", "next", "slider", "action", "pile"):
                assert inside(m[name], 360, 640), f"{where}, {part} ({y} px): {name} at {m[name]}"
        last = m["seats"][-1]
        assert inside(last, 360, 640), f"{where}: the last seat at {last}"
        for card in m["cards"]:
            assert card[0] >= -0.5 and card[2] <= 360.5, f"{where}: a hand card at {card}"


def test_the_tables_fit_a_phone(pages: Pages, browser: Browser) -> None:
    """360x640: the ladder, a bot's page and a tournament's page are no wider than the phone,
    and their tables fit their boxes (the standings drop games, loss rate and firsts); "All
    columns" brings those back, the table then scrolling in its own box, the page still not."""
    driver = browser(360, 640, mobile=True)
    fits = (
        "return [...document.querySelectorAll('.l-scroll')]"
        ".map((b) => [b.querySelector('table').id, b.scrollWidth, b.clientWidth])"
    )
    for page in ("ladder", "bot", "tournament"):
        pages.open(driver, page)
        not_wider(driver, page)
        for table, wide, box in driver.execute_script(fits):
            assert wide <= box, f"{page}: #{table} is {wide} px wide in a box of {box}"
    shown = (
        "return [...document.querySelectorAll('#t-standings thead th')]"
        ".filter((th) => th.getClientRects().length).map((th) => th.textContent)"
    )
    assert driver.execute_script(shown) == ["Rank", "Participant", "Rating ± 95 %", "Mean place"]
    tap(driver, "#t-all")
    until(driver, lambda d: css(d, "#t-all")[0].get_attribute("aria-pressed") == "true")
    assert driver.execute_script(shown) == [
        "Rank",
        "Participant",
        "Rating ± 95 %",
        "Games",
        "Mean place",
        "Loss rate",
        "Firsts",
        "Health",
    ]
    box = driver.execute_script(
        "const b = document.querySelector('#t-standings').parentElement;"
        "return [b.scrollWidth, b.clientWidth, getComputedStyle(b).overflowX]"
    )
    assert box[0] > box[1] and box[2] == "auto", box  # (it scrolls in its box...)
    not_wider(driver, "the tournament with all columns")  # (...not the page)


def test_a_tv_shows_the_pages_large_across_the_screen(pages: Pages, browser: Browser) -> None:
    """1920x1080: every text of the four pages is at least 24 px, the content spans at least
    nine tenths of the width, the replay's cards are full size (at least 60 px wide) and its
    steps, pile and hands are all on the screen."""
    driver = browser(1920, 1080)
    for page in ("replay", "ladder", "bot", "tournament"):
        pages.open(driver, page)
        small = [(el, size) for el, size in driver.execute_script(FONT_SIZES) if size < 24]
        assert not small, f"{page}: text under 24 px: {small[:8]}"
        width = driver.execute_script("return document.querySelector('#screen > *').getBoundingClientRect().width")
        assert width >= 0.9 * 1920 - 20, f"{page}: the content is {width} px wide"  # (20: a scroll bar)
        not_wider(driver, page)
    pages.open(driver, "replay")
    m = check_replay_fits(driver, "1920x1080")
    assert min(c[2] - c[0] for c in m["cards"]) >= 60, m["cards"][:3]


@pytest.mark.parametrize("page", ["replay", "ladder", "bot", "tournament"])
def test_200_percent_zoom_keeps_each_page_within_the_width(pages: Pages, browser: Browser, page: str) -> None:
    """A 1280x800 desktop at 200 % zoom (640x400 CSS pixels at two device pixels each): no page
    is wider than the screen, and each control of the page (buttons, links, the slider) lies
    within the width, where scrolling down reaches it."""
    driver = browser(640, 400, scale=2)
    pages.open(driver, page)
    not_wider(driver, page)
    controls = driver.execute_script(
        "return [...document.querySelectorAll('#screen button, #screen a, #screen input')]"
        ".filter((e) => e.getClientRects().length && !e.closest('.l-scroll'))"
        ".map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.textContent, r.left, r.right]; })"
    )
    assert controls, page
    for name, left, right in controls:
        assert left >= -0.5 and right <= 640.5, f"{page}: {name} spans {left}..{right}"
