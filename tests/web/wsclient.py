"""A protocol client over the server's WebSocket, as a browser's page speaks it (one JSON message a
text frame), with the ``websockets`` library's synchronous client: for the tests in tests/web,
which are synchronous (the server is a :class:`tests.live_server.LiveServer` child process).
It sends no Origin header, as a program (not a page) does. Loopback only."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from websockets.sync.client import ClientConnection, connect

WAIT = 30.0  # seconds: only against a hang


class WsClient:
    """One WebSocket connection to ``ws://127.0.0.1:PORT/ws``, after ``hello``."""

    def __init__(self, port: int) -> None:
        self._stack = ExitStack()
        self.ws: ClientConnection = self._stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT))
        self.next_id = 1
        self.request({"type": "hello", "version": 1, "client": "tests/web"})

    def send(self, msg: dict[str, Any]) -> int:
        rid = self.next_id
        self.next_id += 1
        self.ws.send(json.dumps({**msg, "id": rid}))
        return rid

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg``; return its answer (an ``error`` too; pushed messages on the way are dropped)."""
        rid = self.send(msg)
        return self.until(lambda m: m.get("id") == rid)

    def ok(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg``; return its answer, which must not be an error."""
        answer = self.request(msg)
        assert answer["type"] != "error", (msg, answer)
        return answer

    def until(self, want: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=WAIT))
            if want(msg):
                return msg

    def close(self) -> None:
        self._stack.close()
