"""A deliberately broken tournament bot, written as a stranger would: the standard library,
JSON lines, docs/PROTOCOL.md. Each ``--fault`` breaks it one way:

* ``none``: plays the first legal action (the control);
* ``crash``: raises at its third decision, once (``--once FILE`` remembers it has);
* ``hang``: stops reading and answering at its first decision, socket left open;
* ``garbage``: at the third decision of each game sends a line that is not JSON (the server
  closes the connection), then reconnects and registers again;
* ``illegal``: answers every decision first with a play of a card it does not hold, and with
  the first legal action once that is refused;
* ``stale``: answers every decision with the ``seq`` of the previous one, never the current one;
* ``disconnect``: at the third decision of each game closes its connection, then reconnects
  and registers again;
* ``flood``: at its third decision sends 1,000 pings at once, then plays on.

It prints one line ``faults: {...}`` (the error codes it was answered with, counted) when the
tournament is over, so a test can see what the server said.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import sys
import time
from collections import Counter
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "cdhs"


class Conn:
    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.file = self.sock.makefile("rb")
        self.ids = itertools.count(1)

    def send(self, msg: dict[str, Any]) -> int:
        msg.setdefault("id", next(self.ids))
        self.sock.sendall(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        return int(msg["id"])

    def recv(self) -> dict[str, Any] | None:
        line = self.file.readline()
        return json.loads(line) if line else None

    def close(self) -> None:
        self.sock.close()


def not_held(view: dict[str, Any]) -> str:
    """A card this seat does not hold in its hand: playing it is illegal."""
    hand = set(view.get("hand") or ())
    return next(r + s for r in RANKS for s in SUITS if r + s not in hand)


def session(args: argparse.Namespace, errors: Counter[str], decisions: Counter[int]) -> bool:
    """One connection: log in, register, play. True when the tournament is over."""
    conn = Conn(args.host, args.port)
    conn.send({"type": "hello", "version": 1, "client": f"brokenbot {args.fault}"})
    conn.send({"type": "login", "name": args.name, "password": args.password, "bot": True})
    conn.send({"type": "register", "tournament": args.tournament})
    pending: dict[int, tuple[int, str]] = {}  # act id -> (table, first legal action)
    asked: dict[int, tuple[int, list[str]]] = {}  # table -> (seq, legal) of the latest question
    earlier: dict[int, tuple[int, list[str]]] = {}  # table -> the question before it
    flooded = False
    while (msg := conn.recv()) is not None:
        kind = msg.get("type")
        if kind == "tournament_over":
            return True
        if kind == "error":
            errors[msg["code"]] += 1
            answered = pending.pop(msg.get("id", -1), None)
            if answered is not None and msg["code"] == "ILLEGAL_ACTION":
                table, seq_action = answered
                seq, action = seq_action.split(" ", 1)
                conn.send({"type": "act", "table": table, "seq": int(seq), "action": action})
            continue
        if kind != "state" or not msg["view"].get("legal"):
            continue
        table, seq, legal = msg["table"], msg["seq"], msg["view"]["legal"]
        decisions[msg["game"]] += 1
        n = decisions[msg["game"]]
        total = sum(decisions.values())
        if args.fault == "crash" and total == 3 and not (args.once and os.path.exists(args.once)):
            if args.once:
                open(args.once, "w").close()  # the restarted program plays on
            raise RuntimeError("brokenbot: crashing on purpose")
        if args.fault == "hang":
            time.sleep(3600)  # neither reading nor answering; the socket stays open
        if args.fault in ("garbage", "disconnect") and n == 3:
            if args.fault == "garbage":
                conn.sock.sendall(b"this is not a message\n")
                while (answer := conn.recv()) is not None:  # the server's error, then its close
                    if answer.get("type") == "error":
                        errors[answer["code"]] += 1
            conn.close()
            return False
        if args.fault == "flood" and total == 3 and not flooded:
            flooded = True
            conn.sock.sendall(
                b"".join(json.dumps({"type": "ping", "id": 100000 + i}).encode() + b"\n" for i in range(1000))
            )
        if args.fault == "stale":
            # Answer the previous question, asked before what this seat may do last changed:
            # that seq is stale for certain (a seq whose options still hold would be accepted).
            current = asked.get(table)
            if current is not None and current[1] != legal:
                earlier[table] = current
            if current is None or current[1] != legal:
                asked[table] = (seq, legal)
            if table in earlier:
                old_seq, old_legal = earlier[table]
                conn.send({"type": "act", "table": table, "seq": old_seq, "action": old_legal[0]})
            continue
        if args.fault == "illegal":
            rid = conn.send({"type": "act", "table": table, "seq": seq, "action": f"play {not_held(msg['view'])}"})
            pending[rid] = (table, f"{seq} {legal[0]}")
            continue
        conn.send({"type": "act", "table": table, "seq": seq, "action": legal[0]})
    return False


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--fault", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tournament", type=int, required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--once", default="")
    args = p.parse_args()
    errors: Counter[str] = Counter()
    decisions: Counter[int] = Counter()
    while not session(args, errors, decisions):
        time.sleep(0.2)  # reconnect after the drop
    print("faults:", json.dumps(dict(errors)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
