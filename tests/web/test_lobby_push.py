"""Issue 31, point 4 ("the lobby shows who sits where, pushed, not polled every 3 s") in the
browser: the player's lobby and the TV's table choice follow the lobby (``watch_lobby``) and show
a table opened and who sits there by another client, without asking again; each page's own
requests are read off its WebSocket (a wrapper installed before the page's scripts run), and
``list_tables`` is never among them. A page that leaves the lobby says so (``unwatch_lobby``)."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, until
from tests.web.test_setup import enter
from tests.web.test_tv import Owner

# Keeps the type of every message the page sends, in window.sentTypes.
SENT = """
window.sentTypes = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  try { window.sentTypes.push(JSON.parse(data).type); } catch (e) { window.sentTypes.push('?'); }
  return send.call(this, data);
};
"""


def record_sent(driver: WebDriver) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SENT})


def sent(driver: WebDriver) -> list[str]:
    types: list[str] = driver.execute_script("return window.sentTypes")
    return types


def login(owner: Owner, name: str) -> None:
    owner.request({"type": "hello", "version": 1})
    owner.request({"type": "login", "name": name, "guest": True})


def row_text(driver: WebDriver, table: int) -> str:
    rows = css(driver, f'.table-row[data-table="{table}"]')
    return str(rows[0].text) if rows else ""


def open_table(owner: Owner, name: str, seat: int) -> int:
    table: int = owner.request({"type": "create_table", "name": name, "preset": "classic", "seats": 2})["table"]
    owner.request({"type": "join", "table": table, "seat": seat})
    return table


def test_the_players_lobby_is_pushed(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    alice = browser(390, 844, mobile=True)
    record_sent(alice)
    enter(alice, server.url, "alice")
    until(alice, lambda d: css(d, "#create") and "watch_lobby" in sent(d))
    olga, pat = Owner(server.port), Owner(server.port)
    try:
        login(olga, "olga")
        login(pat, "pat")
        table = open_table(olga, "pushed here", 0)
        until(alice, lambda d: "pushed here" in row_text(d, table) and "olga" in row_text(d, table))
        pat.request({"type": "join", "table": table, "seat": 1})
        until(alice, lambda d: "olga, pat" in row_text(d, table) and "2/2 seated" in row_text(d, table))
        pat.request({"type": "leave", "table": table})
        until(alice, lambda d: "pat" not in row_text(d, table) and "1/2 seated" in row_text(d, table))
    finally:
        olga.close()
        pat.close()
    assert "list_tables" not in sent(alice), sent(alice)

    # Watching a table leaves the lobby (no more lists); back in the lobby it follows again.
    tap(alice, f'.table-row[data-table="{table}"] button:last-child')  # Watch
    until(alice, lambda d: "unwatch_lobby" in sent(d))
    tap(alice, "button.back")
    until(alice, lambda d: sent(d).count("watch_lobby") == 2)
    assert "list_tables" not in sent(alice), sent(alice)


def test_the_tvs_table_choice_is_pushed(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    tv = browser(1280, 720)
    record_sent(tv)
    tv.get(f"{server.url}tv")
    until(tv, lambda d: "No table yet." in d.page_source and "watch_lobby" in sent(d))
    olga = Owner(server.port)
    try:
        login(olga, "olga")
        table = open_table(olga, "sofa", 0)
        until(tv, lambda d: "sofa" in row_text(d, table) and "olga" in row_text(d, table))
        olga.request({"type": "add_bot", "table": table, "bot": "greedy"})
        until(tv, lambda d: "olga, greedy-1 (bot)" in row_text(d, table))
        tap(tv, f'.table-row[data-table="{table}"] button')
        until(tv, lambda d: "sofa" in css(d, "#who")[0].text)
    finally:
        olga.close()
    types: Any = sent(tv)
    assert "list_tables" not in types and types.index("unwatch_lobby") < types.index("watch"), types
