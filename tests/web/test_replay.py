"""The replay viewer (issue 34, part 2): a finished game of four bots stepped through from the
deal to the end on a phone (360x640) with the Next button, and back from the end to the deal on
a desktop (1280x800) with the arrow keys; at every step the page shows what the terminal's
``shithead replay`` prints for it (client/cli/replay.py's render_step, read back from its
lines): the action, whose turn, every seat's hand, face-up and face-down cards, who is out, the
pile's top and size, the stock, the burned cards and the result. A shared link opens its
position; a game still being played shows nothing but a refusal (no card of it)."""

from __future__ import annotations

import re
from typing import Any

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from client.cli.draw import Theme, plain_lines
from client.cli.replay import Replay, render_step
from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, play_to_the_end, sit_down_with_bots, tap, until
from tests.web.test_tv import Owner, seat_bots

# What the page shows of the step it is at, read from its DOM.
PAGE_STEP = """
const cards = (el) => [...el.querySelectorAll('[data-card]')].map((c) => c.dataset.card);
const text = (sel) => document.querySelector(sel)?.textContent ?? null;
return {
  count: text('#r-count'),
  action: text('#r-action'),
  over: text('#r-over'),
  pile: cards(document.getElementById('r-pile-cards')),
  pileHeading: text('#pile-heading'),
  facts: text('#r-facts'),
  url: location.search,
  seats: [...document.querySelectorAll('.r-seat')].map((s) => ({
    name: s.querySelector('h2 .name').textContent,
    marks: s.querySelector('.r-mark')?.textContent ?? '',
    turn: s.classList.contains('turn'),
    hand: cards(s.querySelector('.r-hand')),
    up: cards(s.querySelector('.r-up')),
    down: cards(s.querySelector('.r-down')),
  })),
};
"""

ASCII = Theme(color=False, symbols=False)


def terminal_step(replay: Replay, step: int) -> dict[str, Any]:
    """What ``shithead replay --ascii`` prints for ``step``, parsed (no line wrapped)."""
    lines = plain_lines(render_step(replay, step, ASCII, width=10_000))
    out: dict[str, Any] = {"seats": [], "over": None}
    head = re.search(r"action (\d+)/(\d+)$", lines[0])
    assert head, lines[0]
    out["count"] = f"{head[1]} / {head[2]}"
    out["action"] = lines[2].strip()
    cards = lambda s: [] if s.strip() == "-" else s.split()  # noqa: E731
    for i, line in enumerate(lines):
        if line.startswith("    hand  "):
            top = lines[i - 1]
            up, down = lines[i + 1][len("    up    ") :].split("   down  ")
            status = re.search(r"  out( (\d+)\w\w)?$", top)
            out["seats"].append(
                {
                    "turn": top.startswith("> "),
                    "name": top[2:16].rstrip(),
                    "out": (int(status[2]) if status[2] else True) if status else None,
                    "hand": cards(line[len("    hand  ") :]),
                    "up": cards(up),
                    "down": cards(down),
                }
            )
        elif line.startswith(" Pile ("):
            n, _, shown = line[len(" Pile (") :].partition("): ")
            out["pile_count"], out["pile"] = int(n), cards(shown)
        elif line.startswith(" Stock "):
            stock, burned = re.findall(r"\d+", line)
            out["stock"], out["burned"] = int(stock), int(burned)
        elif line.startswith(" Over: "):
            out["over"] = line.strip()
    return out


def agree(page: dict[str, Any], term: dict[str, Any], where: str) -> None:
    """The page shows what the terminal prints (step, action, seats, pile, stock, result)."""
    assert page["count"] == term["count"], where
    assert page["action"] == term["action"], where
    assert page["over"] == term["over"], where
    assert len(page["seats"]) == len(term["seats"]), where
    for p, t in zip(page["seats"], term["seats"], strict=True):
        assert p["name"].startswith(t["name"]), (where, p, t)
        assert (p["turn"], p["hand"], p["up"], p["down"]) == (t["turn"], t["hand"], t["up"], t["down"]), (where, p, t)
        if isinstance(t["out"], int) and t["out"] is not True:
            assert re.search(rf"out {t['out']}\w\w", p["marks"]), (where, p, t)
    assert page["pile"] == term["pile"] and page["pileHeading"] == f"Pile ({term['pile_count']})", where
    assert page["facts"].startswith(f"Stock {term['stock']} · burned {term['burned']}"), where


def at_step(driver: WebDriver, step: int, total: int) -> dict[str, Any]:
    shown = f"{step} / {total}"
    until(driver, lambda d: d.execute_script("return document.getElementById('r-count')?.textContent") == shown)
    page: dict[str, Any] = driver.execute_script(PAGE_STEP)
    assert page["count"] == f"{step} / {total}"
    return page


def finished_game(owner: Owner) -> tuple[int, dict[str, Any]]:
    """A game of four greedy bots, played to its end; its id and its record."""
    table = seat_bots(owner, "replayed")
    owner.request({"type": "start", "table": table})
    over = owner.until(lambda m: m["type"] == "game_over")
    return over["game"], owner.request({"type": "get_record", "game": over["game"]})["record"]


def test_replay_viewer_agrees_with_the_terminal_at_every_step(live_server: LiveServer, browser: Browser) -> None:
    """Phone: Next from the deal to the end; desktop: a shared link's position, then the arrow
    keys back to the deal; every step as the terminal prints it, the address following it."""
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        game, record = finished_game(owner)
    finally:
        owner.close()
    replay = Replay(record)
    total = replay.steps
    assert total > 20

    phone = browser(360, 640, mobile=True)
    phone.get(f"{server.url}replay?game={game}")
    for step in range(total + 1):
        if step:
            tap(phone, "#r-next")
        page = at_step(phone, step, total)
        agree(page, terminal_step(replay, step), f"phone, step {step}")
        assert page["url"] == f"?game={game}&step={step}"
        width = phone.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"phone, step {step}: the page is wider than the screen {width}"
    assert css(phone, "#r-next")[0].get_attribute("disabled") is not None  # (the end)

    desktop = browser(1280, 800)
    middle = total // 2
    link = css(phone, "#r-link")[0].get_attribute("href")
    assert link == f"{server.url}replay?game={game}&step={total}"
    desktop.get(f"{server.url}replay?game={game}&step={middle}")
    agree(at_step(desktop, middle, total), terminal_step(replay, middle), "desktop, the shared link")
    body = css(desktop, "body")[0]
    body.send_keys(Keys.END)
    agree(at_step(desktop, total, total), terminal_step(replay, total), "desktop, End")
    for step in range(total - 1, -1, -1):
        body.send_keys(Keys.ARROW_LEFT)
        agree(at_step(desktop, step, total), terminal_step(replay, step), f"desktop, step {step}")
    body.send_keys(Keys.PAGE_DOWN)
    agree(at_step(desktop, 10, total), terminal_step(replay, 10), "desktop, PgDn")


def test_a_game_in_progress_shows_no_card(live_server: LiveServer, browser: Browser) -> None:
    """The replay of a game still being played (a person's turn keeps it going) is refused
    in words, and the page holds no card."""
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        table = owner.request({"type": "create_table", "name": "running", "preset": "classic", "seats": 2})["table"]
        owner.request({"type": "join", "table": table})
        owner.request({"type": "add_bot", "table": table, "bot": "greedy"})
        owner.request({"type": "start", "table": table})
        state = owner.until(lambda m: m["type"] == "state")
        phone = browser(360, 640, mobile=True)
        phone.get(f"{server.url}replay?game={state['game']}")
        until(phone, lambda d: css(d, ".refusal"))
        assert f"no finished game {state['game']}" in css(phone, ".refusal")[0].text
        assert css(phone, ".card") == []
    finally:
        owner.close()


def test_the_players_page_leads_to_the_replay_and_the_other_pages(live_server: LiveServer, browser: Browser) -> None:
    """A player's game over offers the replay of that game (in a new tab), which opens at the
    deal and ends with the same result; the lobby links the ladder, the tournaments and the
    replay viewer."""
    server = live_server()
    phone = browser(360, 640, mobile=True)
    sit_down_with_bots(phone, server.url, "alice")
    play_to_the_end(phone)
    until(phone, lambda d: css(d, ".replay-link a"))
    link = css(phone, ".replay-link a")[0]
    assert link.get_attribute("target") == "_blank"
    loser = css(phone, ".game-over .places li.loser")[0].text.removesuffix(" (you)")
    phone.get(link.get_attribute("href"))
    until(phone, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text.startswith("0 / "))
    css(phone, "body")[0].send_keys(Keys.END)
    until(phone, lambda d: css(d, "#r-over"))
    assert css(phone, "#r-over")[0].text.endswith(f"{loser} is the shithead.")
    phone.get(server.url)  # (back at the table the player sits at: then to the lobby)
    until(phone, lambda d: css(d, ".table-head .back, .pages a"))
    if not css(phone, ".pages a"):
        tap(phone, ".table-head .back")
    until(phone, lambda d: css(d, ".pages a"))
    assert [a.get_attribute("href") for a in css(phone, ".pages a")] == [
        f"{server.url}ladder",
        f"{server.url}tournament",
        f"{server.url}replay",
    ]
