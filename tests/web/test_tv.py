"""The table screen at TV size (issue 31, point 5): it follows a table of bots through two games
as a spectator, sized by the screen, with the banner, the pile, the tally and the last plays in
view and readable from a sofa (text at least 3 % of the viewport's height)."""

from __future__ import annotations

import json
import socket
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, until


class Owner:
    """A table's owner over raw JSON lines (a plain socket: these tests are synchronous)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.sock.makefile("rb")
        self.next_id = 1

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg``; return its answer (pushed messages on the way are dropped)."""
        rid = self.next_id
        self.next_id += 1
        self.sock.sendall(json.dumps({**msg, "id": rid}).encode() + b"\n")
        answer = self.until(lambda m: m.get("id") == rid)
        assert answer["type"] != "error", answer
        return answer

    def until(self, want: Any, *, timeout: float = 30.0) -> dict[str, Any]:
        """The next message ``want`` accepts; ``timeout``: seconds any one read may wait (a
        bound against a hang, not an expectation)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                line = self.file.readline()
                assert line, "the server closed the connection"
                msg: dict[str, Any] = json.loads(line)
                if want(msg):
                    return msg
        finally:
            self.sock.settimeout(30.0)

    def close(self) -> None:
        self.sock.close()


# What must be readable from a sofa: where each lies in the viewport and its smallest text.
READABLE = """
const H = innerHeight, W = innerWidth;
const parts = {banner: '#tv-banner', pile: '.tv-pile', tally: '.tv-tally', plays: '.tv-plays'};
const out = {W, H, scrollWidth: document.documentElement.scrollWidth};
for (const [name, sel] of Object.entries(parts)) {
  const el = document.querySelector(sel);
  if (!el) { out[name] = null; continue; }
  const r = el.getBoundingClientRect();
  const hasText = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const texts = [...el.querySelectorAll('*')].filter(hasText)
    .filter((e) => e.getClientRects().length && !e.closest('.sr-only'));
  const visible = texts.filter((e) => e.getBoundingClientRect().bottom <= r.bottom + 1);
  out[name] = {box: [r.left, r.top, r.right, r.bottom], texts: visible.length,
               smallest: Math.min(...visible.map((e) => parseFloat(getComputedStyle(e).fontSize)))};
}
out.plays = {...out.plays, lines: [...document.querySelectorAll('.tv-plays #feed li')].map((li) => li.textContent)};
return out;
"""


def check_readable(tv: WebDriver, where: str) -> dict[str, Any]:
    """The banner, the pile, the tally and the last plays are inside the viewport, each with
    text, none of it smaller than 3 % of the viewport's height; the page is not wider."""
    m: dict[str, Any] = tv.execute_script(READABLE)
    assert m["scrollWidth"] <= m["W"], where
    for name in ("banner", "pile", "tally", "plays"):
        part = m[name]
        assert part is not None, f"{where}: no {name}"
        left, top, right, bottom = part["box"]
        assert left >= 0 and top >= 0 and right <= m["W"] + 0.5 and bottom <= m["H"] + 0.5, f"{where}: {name} {part}"
        assert part["texts"] > 0, f"{where}: {name} shows no text"
        assert part["smallest"] >= 0.03 * m["H"], f"{where}: {name} has text of {part['smallest']} px"
    return m


def seat_bots(owner: Owner, name: str, **settings: Any) -> int:
    table: int = owner.request({"type": "create_table", "name": name, "preset": "classic", "seats": 4, **settings})[
        "table"
    ]
    for _ in range(4):
        owner.request({"type": "add_bot", "table": table, "bot": "greedy"})
    owner.request({"type": "watch", "table": table})  # (to hear of each game_over)
    return table


def test_tv_follows_a_table_through_two_games(live_server: LiveServer, browser: Browser) -> None:
    """At 1280x720 and 1920x1080: during play the banner names who plays, with the clock; at
    the end it says who is the shithead, in the largest type; the tally is always there; the
    last plays are newest first; everything that matters is in the viewport and readable."""
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        table = seat_bots(owner, "living room")
        tvs = [browser(1280, 720), browser(1920, 1080)]
        for tv in tvs:
            tv.get(f"{server.url}tv?table={table}")
            until(tv, lambda d: "living room" in css(d, "#who")[0].text)
            until(tv, lambda d: css(d, ".tv-tally .tally"))  # the tally before any game: all zero
            assert css(tv, ".tv-tally .tally")[0].get_attribute("data-games") == "0"
        for game in (1, 2):
            owner.request({"type": "start", "table": table})
            owner.until(lambda m: m["type"] == "game_over")
            for tv in tvs:
                size = tv.execute_script("return `${innerWidth}x${innerHeight}`")
                # The screen shows that game's end and the series so far, with no touch.
                until(tv, lambda d, n=game: css(d, ".tally")[0].get_attribute("data-games") == str(n))
                banner = css(tv, "#tv-banner")[0].text
                assert "IS THE SHITHEAD" in banner, banner
                assert len(css(tv, ".seat")) == 4
                m = check_readable(tv, f"game {game} over at {size}")
                assert m["plays"]["lines"][0].startswith("Game over"), m["plays"]["lines"][:2]  # newest first
                sizes = tv.execute_script(
                    "return [...document.querySelectorAll('#tv-banner, #tv-banner *, .tv-side *, .tv-table *')]"
                    ".map((e) => parseFloat(getComputedStyle(e).fontSize))"
                )
                banner_size = float(
                    tv.execute_script(
                        "return parseFloat(getComputedStyle(arguments[0]).fontSize)", css(tv, "#tv-banner")[0]
                    )
                )
                assert banner_size == max(sizes)  # game over in the largest type
        # A spectator's page holds no hand: the server sends a watcher none.
        assert not css(tvs[0], ".hand")
        assert tvs[0].execute_script("return [window.innerWidth, window.innerHeight]") == [1280, 720]
    finally:
        owner.close()


def test_tv_during_play_and_joining_mid_game(live_server: LiveServer, browser: Browser) -> None:
    """A table where one seat is a person who never acts (the clock plays for them after a
    second): the TV shows "... TO PLAY" with the clock, readable; a second TV that joins in the
    middle of the game shows last plays at once (what lies on the pile), then every play."""
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        table: int = owner.request(
            {"type": "create_table", "name": "den", "preset": "classic", "seats": 4, "action_seconds": 1}
        )["table"]
        owner.request({"type": "join", "table": table})
        for _ in range(3):
            owner.request({"type": "add_bot", "table": table, "bot": "greedy"})
        tv = browser(1280, 720)
        tv.get(f"{server.url}tv?table={table}")
        until(tv, lambda d: "den" in css(d, "#who")[0].text)
        owner.request({"type": "start", "table": table})
        owner.until(lambda m: m["type"] == "state" and len(m["view"]["pile"]) >= 2 and m["view"]["phase"] == "play")
        late = browser(1920, 1080)
        late.get(f"{server.url}tv?table={table}")
        until(late, lambda d: css(d, ".tv-plays #feed li"))
        first = css(late, ".tv-plays #feed li")[-1].text
        assert first.startswith("On the pile") or "played" in first, first
        for screen in (tv, late):
            until(screen, lambda d: "TO PLAY" in css(d, "#tv-banner")[0].text and css(d, "#tv-banner .clock"))
            check_readable(screen, "in play")
        until(late, lambda d: len(css(d, ".tv-plays #feed li")) > 1)  # the plays since it joined
    finally:
        owner.close()
