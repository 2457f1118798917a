"""Ladder bots for the browser tests of the ladder's pages (issue 34): each a thread with a plain
socket (JSON lines) that logs in to a bot account, joins the ladder on classic and plays every
table it is seated at (the strong one sends the first legal action, the weak one picks up the
pile whenever it may) until it has seen ``games`` of its games end; then it leaves the ladder,
finishes the game it is in, and says so (:attr:`LadderBot.done`): the ladder is then still."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any


class LadderBot(threading.Thread):
    def __init__(self, port: int, name: str, *, strong: bool, games: int) -> None:
        super().__init__(name=f"ladder-bot-{name}", daemon=True)
        self.port, self.bot, self.strong, self.games = port, name, strong, games
        self.done = threading.Event()
        self.over: list[int] = []
        self.failure: str | None = None
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def run(self) -> None:
        try:
            self._play()
        except Exception as exc:  # the test reads it: a thread's exception is otherwise lost
            self.failure = repr(exc)
        finally:
            self.done.set()

    def _play(self) -> None:
        file = self.sock.makefile("rb")
        self.send({"type": "hello", "id": 1, "version": 1})
        self.send({"type": "login", "id": 2, "name": self.bot, "password": f"pw-{self.bot}", "bot": True})
        self.send({"type": "ladder_join", "id": 3, "presets": ["classic"]})
        playing: set[int] = set()
        leaving = left = False
        for line in file:
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "error" and msg.get("code") not in ("STALE_SEQ", "UNKNOWN_TABLE"):
                raise AssertionError(f"{self.bot}: {msg}")
            if kind == "seated":
                playing.add(msg["table"])
            elif kind == "state" and msg["view"]["legal"]:
                legal = msg["view"]["legal"]
                action = legal[0] if self.strong or "take" not in legal else "take"
                self.send({"type": "act", "id": 9, "table": msg["table"], "seq": msg["seq"], "action": action})
            elif kind == "game_over":
                playing.discard(msg["table"])
                self.over.append(msg["game"])
                if len(self.over) >= self.games and not leaving:
                    leaving = True
                    self.send({"type": "ladder_leave", "id": 4})
            elif kind == "ok" and msg.get("id") == 4:
                left = True  # (no new game seats it now; one it was seated at before plays out)
            if left and not playing:
                return

    def close(self) -> None:
        self.sock.close()
