"""A tournament's page (issue 34, part 2) follows a live tournament of bundled bots (ismcts,
search and greedy, round-robin at two seats) to its end without a reload, on a phone (360x640)
and a desktop (1280x800) at once: while it runs it links each game in progress to the TV page
(a spectator's view: no hidden card on this page, which shows no card at all); at the end it
shows the final standings and crosstable of `tournament_over`, and its downloads are those
results (CSV: the standings; JSON: the whole info); no page is wider than the screen;
/tournament lists the server's tournaments."""

from __future__ import annotations

import json
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_ladder_pages import health, not_wider
from tests.web.test_play import css, tap, until
from tests.web.test_tv import Owner

STANDINGS = """
return [...document.querySelectorAll('#t-standings tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
"""
CROSS = """
return [...document.querySelectorAll('#t-cross tbody tr')]
  .map((tr) => [...tr.children].slice(1).map((c) => c.textContent));
"""
# Downloads are Blobs given to URL.createObjectURL: keep them, to read what the file holds.
CATCH_DOWNLOADS = """
window.downloads = [];
const make = URL.createObjectURL.bind(URL);
URL.createObjectURL = (blob) => { window.downloads.push(blob); return make(blob); };
"""
READ_DOWNLOAD = """
const done = arguments[arguments.length - 1];
window.downloads.at(-1).text().then(done, (e) => done('failed: ' + e));
"""
COLUMNS = [
    "rank",
    "name",
    "rating",
    "rating_95",
    "games",
    "mean_place",
    "mean_place_95",
    "loss_rate",
    "loss_rate_95",
    "firsts",
    "timeouts",
    "illegal",
    "disconnects",
]


def num(v: Any) -> str:
    """A number as JavaScript's String() writes it."""
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else repr(v)


def expected_standings(info: dict[str, Any]) -> list[list[str]]:
    def pm(v: float | None, i: float | None) -> str:
        return "–" if v is None else f"{v:.2f} ± {i:.2f}"  # noqa: RUF001 (the page writes an en dash)

    return [
        [
            str(r["rank"]),
            r["name"],
            f"{r['rating']:.1f} ± {r['rating_95']:.1f}",
            str(r["games"]),
            pm(r["mean_place"], r["mean_place_95"]),
            pm(r["loss_rate"], r["loss_rate_95"]),
            str(r["firsts"]),
            health(r),
        ]
        for r in info["standings"]
    ]


def expected_cross(info: dict[str, Any]) -> list[list[str]]:
    names = [r["name"] for r in info["standings"]]

    def cell(a: str, b: str) -> str:
        v = info["head_to_head"].get(a, {}).get(b)
        if a == b or v is None:
            return "·"
        return f"+{v:.2f}" if v > 0 else f"−{-v:.2f}" if v < 0 else "0.00"  # noqa: RUF001 (a minus sign, as the page writes it)

    return [[cell(a, b) for b in names] for a in names]


def check_final(driver: WebDriver, info: dict[str, Any], where: str) -> None:
    until(
        driver, lambda d: css(d, "#t-progress") and css(d, "#t-progress")[0].get_attribute("data-status") == "finished"
    )
    assert css(driver, "#t-progress")[0].text.startswith(f"finished · {info['games_total']} of {info['games_total']}")
    assert driver.execute_script(STANDINGS) == expected_standings(info), where
    assert driver.execute_script(CROSS) == expected_cross(info), where
    assert css(driver, "#t-running") == [], where  # (nothing runs any more)
    not_wider(driver, where)


def test_a_tournament_page_follows_a_tournament_to_its_end(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "organiser", "guest": True})
        cup = {"name": "Bots' cup", "preset": "classic", "seats": 2, "games": 6, "concurrency": 2}
        tid = owner.request({"type": "create_tournament", **cup, "bots": ["ismcts", "search", "greedy"]})["tournament"]
        phone, desktop = browser(360, 640, mobile=True), browser(1280, 800)
        for driver in (phone, desktop):
            driver.get(f"{server.url}tournament?id={tid}")
            until(driver, lambda d: css(d, "#t-progress"))
            assert css(driver, "#t-progress")[0].get_attribute("data-status") == "registering"
        owner.request({"type": "start_tournament", "tournament": tid})
        # Live: a game in progress appears as a link to the TV page, without a reload.
        for driver in (phone, desktop):
            until(driver, lambda d: css(d, '#t-running a[href^="tv?table="]'), timeout=120)
            table = int(css(driver, "#t-running a")[0].get_attribute("href").rsplit("=", 1)[1])
            assert table > 0
            assert css(driver, ".card") == []
        # (searching bots on a loaded machine: minutes may pass without a message to the owner)
        over = owner.until(lambda m: m["type"] == "tournament_over", timeout=600)
    finally:
        owner.close()
    info = over["info"]
    assert info["games_finished"] == info["games_total"] == 6 and len(info["standings"]) == 3
    check_final(phone, info, "phone")

    phone.execute_script(CATCH_DOWNLOADS)
    tap(phone, "#t-csv")
    csv = phone.execute_async_script(READ_DOWNLOAD)
    lines = csv.split("\r\n")
    assert lines[0] == ",".join(COLUMNS)
    assert lines[1:-1] == [",".join(num(r[k]) if k != "name" else r[k] for k in COLUMNS) for r in info["standings"]]
    tap(phone, "#t-json")
    whole = json.loads(phone.execute_async_script(READ_DOWNLOAD))
    assert whole["tournament"] == tid and whole["standings"] == info["standings"]
    assert whole["head_to_head"] == info["head_to_head"]

    check_final(desktop, info, "desktop")
    desktop.get(f"{server.url}tournament")
    until(desktop, lambda d: css(d, "#t-list li"))
    assert "finished · 6 of 6 games" in css(desktop, "#t-list li")[0].text
    tap(desktop, "#t-list a")
    check_final(desktop, info, "desktop, from the list")
