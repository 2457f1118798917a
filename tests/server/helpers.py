"""Helpers for step-by-step games: act for one seat, then wait until everyone saw the result."""

from __future__ import annotations

import re
import struct
from typing import Any

import msgpack

from server.engine import parse_card
from server.engine.cards import CardError
from server.shell.app import App
from tests.server.client import TestClient

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKAX])[cdhsrb](?![A-Za-z0-9])")


def raw_frame(body: bytes) -> bytes:
    """A frame around arbitrary body bytes (the length prefix is right)."""
    return struct.pack(">I", len(body)) + body


def packed(obj: Any) -> bytes:
    """A frame holding ``obj`` packed as msgpack, whatever it is."""
    return raw_frame(msgpack.packb(obj, use_bin_type=True))


def cards_in_text(text: str) -> list[str]:
    """Card tokens (canonical or ``10h``) found in a text, in canonical form."""
    from server.engine import format_card

    out = []
    for tok in CARD_TOKEN.finditer(text):
        word = tok.group(0)
        try:
            out.append(format_card(parse_card(word)))
        except CardError:
            pass
    return out


def cards_in(obj: Any) -> set[str]:
    """Every card named anywhere in a decoded frame: in every string (keys too), including
    inside action texts and messages. A seat ``token`` is skipped: it is an opaque random
    secret, and random text sometimes contains something shaped like ``-7h_``."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            found.update(cards_in_text(v))
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(val for key, val in v.items() if key != "token")
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return found


async def sync(app: App, clients: list[TestClient], table: int, timeout: float = 5.0) -> None:
    """Wait until every seated client holds the table's latest state."""
    seq = app.tables[table].seq
    for c in clients:
        await c.wait_for(lambda c=c: table in c.states and c.states[table]["seq"] >= seq, timeout)


async def act(c: TestClient, table: int, action: str, seq: int | None = None) -> dict[str, Any]:
    """Send one act with the client's latest seq (or ``seq``); return the answer."""
    if seq is None:
        seq = c.states[table]["seq"]
    return await c.request({"type": "act", "table": table, "seq": seq, "action": action})


async def step(app: App, clients: list[TestClient], table: int, seat: int, action: str | None = None) -> None:
    """``seat`` plays ``action`` (default: its first legal action); everyone syncs."""
    c = clients[seat]
    if action is None:
        action = c.states[table]["view"]["legal"][0]
    reply = await act(c, table, action)
    assert reply["type"] == "ok", reply
    await sync(app, clients, table)


async def ready_all(app: App, clients: list[TestClient], table: int) -> None:
    """Every seat sends ready: the game leaves setup."""
    await sync(app, clients, table)
    for i in range(len(clients)):
        await step(app, clients, table, i, "ready")
    assert clients[0].states[table]["view"]["phase"] != "setup"


def current(clients: list[TestClient], table: int) -> int:
    return clients[0].states[table]["view"]["turn"]


async def crash(app: App) -> None:
    """Stop ``app`` like a crash: connections cut, nothing more written, no goodbye."""
    app.stopping = True
    assert app.server is not None and app._sweeper is not None
    app.server.close()
    app._sweeper.cancel()
    for s in list(app.sessions):
        s.held.clear()  # whatever waited for a commit is never sent
        if s.transport is not None:
            s.transport.abort()
    app.db_thread.shutdown(wait=True)  # a commit under way finishes, as the OS would finish the write
    app.checkpoint_thread.shutdown(wait=True)  # (so does a checkpoint)
    assert app.store is not None
    app.store.close()
