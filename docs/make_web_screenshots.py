#!/usr/bin/env python3
"""Screenshots of every screen of the browser client for docs/screenshots/, from a real run.

    .venv/bin/python docs/make_web_screenshots.py

Starts ``python -m server`` on 127.0.0.1 and a free port with a temporary database (the tests'
LiveServer), opens Debian's headless chromium (``/usr/bin/chromium`` with
``/usr/bin/chromedriver``, through Selenium from the ``test`` extra) as a 360x640 phone, and
plays a classic game with three bots by tapping, as the browser tests do; the same moments are
shot at 390x844, in landscape (844x390) and at 200 % zoom (180x320 CSS pixels), and the table
screen at 1280x720 and 1920x1080. Then the read-only pages (issue 34) on a 360x640 phone, in
landscape (844x390), on a 1280x800 desktop and on a 1920x1080 TV: the replay viewer of a
finished game of four bots, the ladder and a bot's page after two ladder bots played it, and a
tournament's page while a tournament of bundled bots runs. Writes the PNG files listed in
SHOTS; ``--pages`` takes only the read-only pages' shots.
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live_server import LiveServer  # noqa: E402
from tests.web.conftest import CHROMIUM_FLAGS  # noqa: E402
from tests.web.test_ladder_pages import ladder_with_two_bots  # noqa: E402
from tests.web.test_play import css, my_turn, one_move, tap, until  # noqa: E402
from tests.web.test_replay import finished_game  # noqa: E402
from tests.web.test_tv import Owner  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SHOTS = {
    "phone-name.png": "the name screen (360x640)",
    "phone-lobby.png": "the lobby: tables with who sits where, a new table from the catalogue",
    "phone-house-rules.png": "the new table's house rules: a control per option, set to the preset's values",
    "phone-waiting.png": "the waiting room: Start disabled with the reason, bots, the invitation",
    "phone-chat.png": "the chat, open over the waiting room",
    "phone-setup.png": "setup: swap cards, then Ready",
    "phone-table.png": "the player's turn on a 360x640 phone",
    "phone-refused.png": "a card that does not beat the pile: Play disabled, the reason beside it",
    "phone-390-table.png": "the player's turn on a 390x844 phone",
    "landscape-table.png": "the player's turn in landscape (844x390)",
    "zoom-table.png": "the player's turn at 200 % zoom (180x320 CSS pixels)",
    "phone-big-hand.png": "a large hand fanned out after picking up the pile",
    "landscape-big-hand.png": "the same in landscape",
    "zoom-big-hand.png": "the same at 200 % zoom: the rows overlap too",
    "phone-game-over.png": "the game's end: the result in the second person and the tally",
    "phone-final-board.png": "the final board below it",
    "tv-table.png": "the table screen at 1280x720 during play",
    "tv-1080-table.png": "the table screen at 1920x1080 during play",
    "tv-game-over.png": "the table screen at 1280x720 at the game's end",
    "tv-1080-game-over.png": "the table screen at 1920x1080 at the game's end",
    "tv-pick.png": "the table screen opened without a table: which one to show",
}
PAGE_SHOTS = {
    "phone-replay.png": "the replay viewer on a phone, in the middle of a game: every hand open",
    "replay.png": "the replay viewer at 1280x800 at the game's end",
    "phone-ladder.png": "the ladder on a phone: rank, rating ± 95 %, games, health",
    "ladder.png": "the ladder at 1280x800",
    "phone-bot.png": "a bot's page on a phone: its ratings and the plot of its rating history",
    "bot.png": "a bot's page at 1280x800, its recent games below the plot",
    "phone-tournament.png": "a tournament's page on a phone while it runs: standings ± error",
    "tournament.png": "a tournament's page at 1280x800: standings, crosstable, games in progress, downloads",
    "landscape-replay.png": "the replay viewer on a phone in landscape (844x390): the steps, the pile and every hand",
    "landscape-ladder.png": "the ladder on a phone in landscape",
    "landscape-bot.png": "a bot's page on a phone in landscape",
    "landscape-tournament.png": "a tournament's page on a phone in landscape",
    "tv-1080-replay.png": "the replay viewer on a TV (1920x1080): full-size cards, type for a sofa",
    "tv-1080-ladder.png": "the ladder on a TV (1920x1080)",
    "tv-1080-bot.png": "a bot's page on a TV: the plot beside its games",
    "tv-1080-tournament.png": "a tournament's page on a TV: the standings across the width, the crosstable beside",
}
SHOTS.update(PAGE_SHOTS)


def browser(width: int, height: int, *, mobile: bool) -> webdriver.Chrome:
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tempfile.mkdtemp()}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    size(driver, width, height, mobile=mobile)
    # (no motion: a card sliding onto the pile would be caught half-way)
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
    )
    if mobile:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        driver.get("about:blank")
    return driver


def size(driver: webdriver.Chrome, width: int, height: int, *, mobile: bool = True, scale: float = 1) -> None:
    """The viewport as width x height CSS pixels of ``scale`` device pixels each (200 % zoom of
    a 360x640 phone is 180x320 at 2)."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    # (a page of the client has its viewport meta: its layout is then exactly width wide)
    wide = "return !document.querySelector('meta[name=viewport]') || innerWidth === arguments[0]"
    until(driver, lambda d: d.execute_script(wide, width))


def shot(driver: webdriver.Chrome, name: str, *, top: bool = True) -> None:
    assert name in SHOTS, name
    if top:
        driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(OUT / name))


def request(sock: socket.socket, lines: object, msg: dict[str, object], rid: int) -> None:
    sock.sendall(json.dumps({**msg, "id": rid}).encode() + b"\n")
    while json.loads(lines.readline()).get("id") != rid:  # type: ignore[attr-defined]
        pass


# The read-only pages at each size: (prefix of the file, width, height, a phone's emulation).
PAGE_VIEWS = (
    ("phone-", 360, 640, True),
    ("landscape-", 844, 390, True),
    ("", 1280, 800, False),
    ("tv-1080-", 1920, 1080, False),
)


def read_only_pages(server: LiveServer) -> None:
    """The shots of PAGE_SHOTS: the replay viewer, the ladder, a bot's page, a tournament's page,
    each at the sizes of PAGE_VIEWS."""
    owner = Owner(server.port)
    phone = desk = None
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "organiser", "guest": True})
        game, record = finished_game(owner)
        ladder_with_two_bots(server)
        cup = {"name": "Friday bots", "preset": "classic", "seats": 2, "games": 24, "concurrency": 2}
        cup_id = owner.request({"type": "create_tournament", **cup, "bots": ["ismcts", "search", "greedy", "random"]})
        owner.request({"type": "start_tournament", "tournament": cup_id["tournament"]})
        phone, desk = browser(360, 640, mobile=True), browser(1280, 800, mobile=False)
        total = len(record["record"]["actions"])

        for prefix, width, height, mobile in PAGE_VIEWS:
            driver = phone if mobile else desk
            assert driver is not None
            size(driver, width, height, mobile=mobile)
            step = total if prefix == "" else total // 2
            driver.get(f"{server.url}replay?game={game}&step={step}")
            until(driver, lambda d, s=step: css(d, "#r-count") and css(d, "#r-count")[0].text == f"{s} / {total}")
            shot(driver, f"{prefix}replay.png")
            driver.get(f"{server.url}ladder")
            until(driver, lambda d: css(d, "#l-table tbody tr"))
            shot(driver, f"{prefix}ladder.png")
            driver.get(f"{server.url}bot?name=alpha")
            until(driver, lambda d: css(d, "#b-plot") and css(d, "#b-games li"))
            shot(driver, f"{prefix}bot.png")
        for _ in range(6):
            owner.until(lambda m: m["type"] == "tournament_game")
        for prefix, width, height, mobile in PAGE_VIEWS:
            driver = phone if mobile else desk
            assert driver is not None
            size(driver, width, height, mobile=mobile)
            driver.get(f"{server.url}tournament?id={cup_id['tournament']}")
            until(driver, lambda d: css(d, "#t-standings tbody tr") and css(d, "#t-running a"))
            shot(driver, f"{prefix}tournament.png")
    finally:
        owner.close()
        for driver in (phone, desk):
            if driver is not None:
                driver.quit()


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    server = LiveServer(tmp / "shots.sqlite3", tmp / "server.stderr", ["--log-level", "WARNING"])
    server.start()
    if sys.argv[1:] == ["--pages"]:
        try:
            read_only_pages(server)
        finally:
            server.stop()
        for name, what in PAGE_SHOTS.items():
            print(f"{OUT / name}: {what}")
        return 0
    phone = tv = None
    try:
        # Another table in the lobby, opened by a guest over JSON lines.
        other = socket.create_connection(("127.0.0.1", server.port))
        lines = other.makefile("rb")
        for i, msg in enumerate(
            [
                {"type": "hello", "version": 1},
                {"type": "login", "name": "bob", "guest": True},
                {"type": "create_table", "name": "kitchen", "preset": "karma", "seats": 3},
                {"type": "join", "table": 1},
            ]
        ):
            request(other, lines, msg, i + 1)

        phone = browser(360, 640, mobile=True)
        phone.get(server.url)
        until(phone, lambda d: css(d, "#name"))
        shot(phone, "phone-name.png")
        css(phone, "#name")[0].send_keys("alice")
        tap(phone, "#enter")
        until(phone, lambda d: css(d, ".table-row"))
        shot(phone, "phone-lobby.png")
        tap(phone, "#house-rules summary")
        phone.execute_script("document.querySelector('#house-rules').scrollIntoView()")
        shot(phone, "phone-house-rules.png", top=False)
        tap(phone, "#house-rules summary")
        tap(phone, "#create")
        for left in (2, 1):
            tap(phone, ".add-bot button")
            until(phone, lambda d, n=left: len(css(d, ".add-bot button")) == n)
        shot(phone, "phone-waiting.png")
        tap(phone, ".add-bot button")
        until(phone, lambda d: css(d, "#start")[0].is_enabled())
        tap(phone, "#chat-toggle")
        css(phone, "#chat-text")[0].send_keys("Ready when you are")
        tap(phone, "#chat button[type=submit]")
        until(phone, lambda d: "Ready when you are" in css(d, "#chat")[0].text)
        shot(phone, "phone-chat.png")
        tap(phone, "#chat-toggle")
        table = json.loads(phone.execute_script("return localStorage.getItem('shithead.current')"))

        tv = browser(1280, 720, mobile=False)
        tv.get(f"{server.url}tv?table={table}")
        until(tv, lambda d: css(d, ".tv-tally"))

        tap(phone, "#start")
        until(phone, lambda d: css(d, '[data-action="ready"]'))
        shot(phone, "phone-setup.png")
        tap(phone, '[data-action="ready"]')
        until(phone, lambda d: my_turn(d) and css(d, '.mine[data-phase="play"]'))
        shot(phone, "phone-table.png")
        sizes = (
            (390, 844, 1, "phone-390-table.png"),
            (844, 390, 1, "landscape-table.png"),
            (180, 320, 2, "zoom-table.png"),
        )
        for w, h, scale, name in sizes:
            size(phone, w, h, scale=scale)
            shot(phone, name)
        size(phone, 360, 640)
        until(tv, lambda d: "TO PLAY" in css(d, "#tv-banner")[0].text)
        shot(tv, "tv-table.png")
        size(tv, 1920, 1080, mobile=False)
        shot(tv, "tv-1080-table.png")

        refused = False
        for _ in range(3):  # pick up the pile a few times: a large hand
            until(phone, lambda d: my_turn(d) or css(d, ".game-over"))
            if not refused and css(phone, ".hand button.card:not(.playable)") and css(phone, ".pile .card.top"):
                tap(phone, ".hand button.card:not(.playable)")
                until(phone, lambda d: "does not beat" in css(d, "#play-reason")[0].text)
                shot(phone, "phone-refused.png")
                tap(phone, ".hand button.card.selected")
                refused = True
            one_move(phone, take=True)
        until(phone, lambda d: my_turn(d) or css(d, ".game-over"))
        shot(phone, "phone-big-hand.png")
        size(phone, 844, 390)
        shot(phone, "landscape-big-hand.png")
        size(phone, 180, 320, scale=2)
        shot(phone, "zoom-big-hand.png")
        size(phone, 360, 640)

        while not css(phone, ".game-over"):
            until(phone, lambda d: my_turn(d) or css(d, ".game-over"))
            if not css(phone, ".game-over"):
                one_move(phone)
        shot(phone, "phone-game-over.png")
        phone.execute_script("document.querySelector('.final-board').scrollIntoView()")
        shot(phone, "phone-final-board.png", top=False)
        until(tv, lambda d: "SHITHEAD" in css(d, "#tv-banner")[0].text and css(d, ".tally[data-games='1']"))
        shot(tv, "tv-1080-game-over.png")
        size(tv, 1280, 720, mobile=False)
        shot(tv, "tv-game-over.png")
        tv.get(f"{server.url}tv")
        until(tv, lambda d: len(css(d, ".tv-pick .table-row")) == 2)
        shot(tv, "tv-pick.png")
        other.close()
        read_only_pages(server)
    finally:
        for driver in (phone, tv):
            if driver is not None:
                driver.quit()
        server.stop()
    for name, what in SHOTS.items():
        print(f"{OUT / name}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
