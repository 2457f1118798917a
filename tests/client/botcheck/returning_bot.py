"""A tournament bot written as a stranger would, from docs/PROTOCOL.md only: the standard
library, JSON lines, the first legal action. What it tests is how it comes back after its
connection drops: it connects again and sends ``hello``, ``login``, ``register`` and, for each
table it holds, ``resume`` with the token of its last ``seated`` (or ``joined``), all at once.

``--report FILE``: when the tournament is over, it writes there (JSON) the answers its resumes
got and the error codes it was sent, so a test can see what the server said.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import sys
import time
from collections import Counter
from typing import Any


class Conn:
    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.file = self.sock.makefile("rb")
        self.ids = itertools.count(1)

    def send(self, msg: dict[str, Any]) -> int:
        msg["id"] = next(self.ids)
        self.sock.sendall(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        return int(msg["id"])

    def recv(self) -> dict[str, Any] | None:
        try:
            line = self.file.readline()
        except OSError:
            return None
        return json.loads(line) if line else None


class Bot:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tokens: dict[int, str] = {}  # table -> the token of its last seated (or joined)
        self.resumes: list[dict[str, Any]] = []  # the answers to resume
        self.errors: Counter[str] = Counter()

    def session(self) -> bool:
        """One connection: come in (or back), play. True when the tournament is over."""
        a = self.args
        conn = Conn(a.host, a.port)
        conn.send({"type": "hello", "version": 1, "client": "returning bot"})
        conn.send({"type": "login", "name": a.name, "password": a.password, "bot": True})
        conn.send({"type": "register", "tournament": a.tournament})
        resumes = {conn.send({"type": "resume", "table": t, "token": tok}): t for t, tok in self.tokens.items()}
        while (msg := conn.recv()) is not None:
            kind = msg.get("type")
            if msg.get("id") in resumes:
                table = resumes.pop(msg["id"])
                self.resumes.append({"table": table, "answer": kind, "code": msg.get("code")})
                if kind == "joined":
                    self.tokens[table] = msg["token"]
                elif msg.get("code") == "UNKNOWN_TABLE":
                    self.tokens.pop(table, None)  # that game ended while we were away
            if kind == "tournament_over":
                return True
            if kind == "seated":
                self.tokens[msg["table"]] = msg["token"]
            elif kind == "game_over":
                self.tokens.pop(msg["table"], None)
            elif kind == "error":
                self.errors[msg["code"]] += 1
            elif kind == "state" and msg["view"].get("legal"):
                conn.send({"type": "act", "table": msg["table"], "seq": msg["seq"], "action": msg["view"]["legal"][0]})
        return False


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tournament", type=int, required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--report", required=True)
    bot = Bot(p.parse_args())
    while True:
        try:
            if bot.session():
                break
        except OSError:
            time.sleep(0.1)  # the server is not there (yet): a bot's back-off before it tries again
    with open(bot.args.report, "w") as fh:
        json.dump({"resumes": bot.resumes, "errors": bot.errors}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
