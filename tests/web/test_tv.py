"""The table screen at TV size follows a table of bots through two games, as a spectator."""

from __future__ import annotations

import json
import socket
from typing import Any

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

    def until(self, want: Any) -> dict[str, Any]:
        while True:
            line = self.file.readline()
            assert line, "the server closed the connection"
            msg: dict[str, Any] = json.loads(line)
            if want(msg):
                return msg

    def close(self) -> None:
        self.sock.close()


def test_tv_follows_a_table_through_two_games(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    owner = Owner(server.port)
    try:
        owner.request({"type": "hello", "version": 1})
        owner.request({"type": "login", "name": "host", "guest": True})
        table = owner.request({"type": "create_table", "name": "living room", "preset": "classic", "seats": 4})["table"]
        for _ in range(4):
            owner.request({"type": "add_bot", "table": table, "bot": "greedy"})
        owner.request({"type": "watch", "table": table})  # (to hear of each game_over)

        tv = browser(1280, 720)
        tv.get(f"{server.url}tv?table={table}")
        until(tv, lambda d: "living room" in css(d, "#who")[0].text)
        for game in (1, 2):
            owner.request({"type": "start", "table": table})
            owner.until(lambda m: m["type"] == "game_over")
            # The screen shows that game's end and the series so far, with no touch.
            until(tv, lambda d, n=game: css(d, ".tally") and css(d, ".tally")[0].get_attribute("data-games") == str(n))
            assert "is the shithead" in css(tv, ".game-over")[0].text
            assert len(css(tv, ".seat")) == 4
            assert css(tv, ".history li")  # the last plays
        # A spectator's page holds no hand: the server sends a watcher none.
        assert not css(tv, ".hand")
        assert tv.execute_script("return [window.innerWidth, window.innerHeight]") == [1280, 720]
    finally:
        owner.close()
