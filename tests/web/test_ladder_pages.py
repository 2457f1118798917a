"""The ladder's pages (issue 34, part 2): two ladder bots play the server's ladder against its
baselines, then leave it; at phone (360x640) and desktop (1280x800) sizes the ladder page shows
every table of the `ladder` answer (rank, rating ± interval, games, health) with no page wider
than the screen, a preset's table on its tab, and each bot's name opens its page: its ratings,
the plot of its rating history (one point per rating change of `ladder_games`, the 95 % band)
and its recent games, each opening in the replay viewer."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.ladder_bots import LadderBot
from tests.web.test_play import css, tap, until
from tests.web.test_tv import Owner

GAMES = 6
"""Games each ladder bot plays before it leaves."""

LADDER_ROWS = """
return [...document.querySelectorAll('#l-table tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
"""


def ladder_with_two_bots(server: Any, games: int = GAMES) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Two ladder bots play ``games`` games each and leave; the `ladder` answer and each bot's
    `ladder_games` answer, read once the ladder is still."""
    bots = [
        LadderBot(server.port, "alpha", strong=True, games=games),
        LadderBot(server.port, "beta", strong=False, games=games),
    ]
    for b in bots:
        b.start()
    try:
        for b in bots:
            assert b.done.wait(300), f"{b.bot} did not finish its games"
            assert b.failure is None, b.failure
    finally:
        for b in bots:
            b.close()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "reader", "guest": True})
        standings = owner.request({"type": "ladder"})
        games = {b.bot: owner.request({"type": "ladder_games", "name": b.bot, "limit": 50}) for b in bots}
    finally:
        owner.close()
    return standings, games


def health(r: dict[str, Any]) -> str:
    """A row's health as the pages say it."""
    counts = ((r["timeouts"], "timeout", "timeouts"), (r["illegal"], "illegal", "illegal"))
    counts += ((r["disconnects"], "disconnect", "disconnects"),)
    return ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts if n) or "clean"


def expected_rows(table: dict[str, Any], members: list[str]) -> list[list[str]]:
    return [
        [
            str(r["rank"]),
            r["name"] + (" ● on" if r["name"] in members else ""),
            f"{r['rating']:.1f} ± {r['rating_95']:.1f}",
            str(r["games"]),
            health(r),
        ]
        for r in table["rows"]
    ]


def not_wider(driver: WebDriver, where: str) -> None:
    width = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], f"{where}: the page is wider than the screen {width}"


def test_ladder_and_bot_pages(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    standings, games = ladder_with_two_bots(server)
    tables = {t["table"]: t for t in standings["tables"]}
    assert set(tables) == {"overall", "classic"}
    names = {r["name"] for r in tables["overall"]["rows"]}
    assert {"alpha", "beta"} <= names and any(n.startswith("[") for n in names)

    for driver, where in ((browser(360, 640, mobile=True), "phone"), (browser(1280, 800), "desktop")):
        driver.get(f"{server.url}ladder")
        until(driver, lambda d: css(d, "#l-table tbody tr"))
        assert driver.execute_script(LADDER_ROWS) == expected_rows(tables["overall"], standings["members"]), where
        not_wider(driver, f"{where}, the ladder")
        tap(driver, '.l-tabs button[data-table="classic"]')
        until(driver, lambda d: "classic" in css(d, "#l-caption")[0].text)
        assert driver.execute_script(LADDER_ROWS) == expected_rows(tables["classic"], standings["members"]), where
        assert driver.execute_script("return location.search") == "?table=classic"

        for bot in ("alpha", "beta"):
            driver.get(f"{server.url}ladder")
            until(driver, lambda d: css(d, "#l-table tbody tr"))
            tap(driver, f'#l-table tr[data-name="{bot}"] a')
            until(driver, lambda d: css(d, "#b-games li"))
            history = games[bot]
            shown = [int(li.get_attribute("data-game")) for li in css(driver, "#b-games li")]
            assert shown == [g["game"] for g in history["games"]], (where, bot)
            row = next(r for r in tables["overall"]["rows"] if r["name"] == bot)
            assert len(history["ratings"]) == row["games"] >= GAMES  # (a point per game, while under 100)
            dots = css(driver, "#b-plot circle")
            assert len(dots) == len(history["ratings"]), (where, bot)
            # The plot is drawn from the ratings: higher ratings sit higher (SVG y grows down).
            ys = [float(d.get_attribute("cy")) for d in dots]
            rs = [p["rating"] for p in history["ratings"]]
            for i in range(len(rs) - 1):
                if rs[i + 1] > rs[i]:
                    assert ys[i + 1] < ys[i], (where, bot, i)
                elif rs[i + 1] < rs[i]:
                    assert ys[i + 1] > ys[i], (where, bot, i)
            last = history["ratings"][-1]
            assert f"{last['rating']:.1f} ± {last['rating_95']:.1f} now" in css(driver, "#b-plot")[0].get_attribute(
                "aria-label"
            )
            rows = {tr.get_attribute("data-table"): tr.text for tr in css(driver, "#b-rows tbody tr")}
            assert set(rows) == {"overall", "classic"}, (where, bot)
            not_wider(driver, f"{where}, {bot}'s page")
        # The latest game opens in the replay viewer, at its deal.
        latest = games["beta"]["games"][0]["game"]
        tap(driver, f'#b-games li[data-game="{latest}"] a')
        until(driver, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text.startswith("0 / "))
        assert driver.execute_script("return location.search") == f"?game={latest}&step=0"
