"""The read-only pages on a server that refuses guests (``--no-guests``, issue 34): each logs in
as a viewer (client/web/js/viewer.js), so the ladder, a bot's page, the tournaments, the replay of
a finished game and the TV all show what they read, and none says it was refused."""

from __future__ import annotations

import json
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, until
from tests.web.test_tv import Owner, seat_bots


def answer(owner: Owner, msg: dict[str, Any]) -> dict[str, Any]:
    """The answer to ``msg``, an error too (id 0: the Owner's own requests count from 1)."""
    owner.sock.sendall(json.dumps({**msg, "id": 0}).encode() + b"\n")
    return owner.until(lambda m: m.get("id") == 0)


def screen(driver: WebDriver) -> str:
    return str(css(driver, "#screen")[0].text)


def test_the_read_only_pages_work_on_a_server_without_guests(live_server: LiveServer, browser: Browser) -> None:
    """A table of four bots plays one game while the TV watches it (the tally counts the game,
    no hand is shown); then the replay of that game opens at its deal, the empty ladder, a bot's
    page and the list of tournaments say they are empty rather than refused."""
    live_server.options = (*live_server.options, "--no-guests")
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        guest = answer(owner, {"type": "login", "name": "host", "guest": True})
        assert guest["code"] == "GUESTS_NOT_ALLOWED"  # (the server is as the test says)
        owner.request({"type": "login", "name": "host", "password": "host's password"})
        table = seat_bots(owner, "no guests here")
        driver = browser(1280, 720)
        driver.get(f"{server.url}tv?table={table}")
        until(driver, lambda d: "no guests here" in css(d, "#who")[0].text)
        owner.request({"type": "start", "table": table})
        game = owner.until(lambda m: m["type"] == "game_over")["game"]
        until(driver, lambda d: css(d, ".tally") and css(d, ".tally")[0].get_attribute("data-games") == "1")
        assert not css(driver, ".hand") and not css(driver, ".refusal")
    finally:
        owner.close()

    driver.get(f"{server.url}replay?game={game}")
    until(driver, lambda d: css(d, "#r-count") and css(d, "#r-count")[0].text.startswith("0 / "))
    for page, says in (
        ("ladder", "No ladder game has been played yet."),
        ("bot?name=nobody", "No ladder game yet."),
        ("tournament", "No tournament on this server."),
    ):
        driver.get(f"{server.url}{page}")
        until(driver, lambda d, says=says: says in screen(d))
        assert not css(driver, ".refusal"), page
