"""Exactly one answer per request (issue 35, item 4): every request type declares once whether
it writes; a fatal error comes after the answers of the requests read before it; while the
database cannot be written, the requests that only read are answered and those that write are
refused, however they arrive."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import C2S
from server.shell.app import App
from tests.server.client import encode, make_table, play_until_over
from tests.server.helpers import raw_frame, ready_all

ROOT = Path(__file__).resolve().parents[2]
BAD = {"msgpack": raw_frame(b"\xc1"), "json": b"{not json\n"}
"""A frame that does not decode, in each wire mode."""


def test_every_request_type_has_one_handler_that_says_whether_it_writes(app: App) -> None:
    """Each client-to-server message has a handler, registered with its own declaration."""
    assert set(app.handlers.by_type) == set(C2S.values())
    reads = {cls.TYPE for cls, h in app.handlers.by_type.items() if not h.writes}
    assert {"hello", "ping", "login", "list_tables", "watch", "get_record"} <= reads
    assert {"act", "join", "create_table", "start", "resume"}.isdisjoint(reads)
    with pytest.raises(TypeError):
        app.handlers.add(C2S["ping"], lambda s, m: None)  # type: ignore[call-arg, arg-type, return-value]


def test_the_document_says_which_requests_write_and_which_viewers_send_as_the_server_declares(app: App) -> None:
    """The writes and viewers columns of PROTOCOL.md section 4 name every request, as registered."""
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    table = doc.split("| request | answer on success | writes | viewers |", 1)[1].split("\n\n", 1)[0]
    said: dict[str, tuple[bool, bool]] = {}
    yes_no = {"yes": True, "no": False}
    for row in table.strip().splitlines()[1:]:
        requests, _, writes, viewers = (cell.strip() for cell in row.strip("|").split("|"))
        for name in re.findall(r"`(\w+)`", requests):
            said[name] = (yes_no[writes], yes_no[viewers])
    assert said == {cls.TYPE: (h.writes, h.viewers) for cls, h in app.handlers.by_type.items()}


@pytest.mark.parametrize("mode", ["msgpack", "json"])
async def test_a_fatal_error_comes_after_the_answer_to_a_login_read_before_it(
    app: App, connect: Any, mode: str
) -> None:
    """hello, a first login (registering the name) and a bad frame in one write: welcome, then
    logged_in, then the fatal error; the account exists with that password."""
    c = await connect(app, mode)
    hello = {"type": "hello", "id": 1, "version": 1}
    login = {"type": "login", "id": 2, "name": "newcomer", "password": "first-secret"}
    c.send_raw(encode(hello, mode) + encode(login, mode) + BAD[mode])
    await c.wait_closed()
    assert [(f["type"], f.get("id")) for f in c.frames] == [("welcome", 1), ("logged_in", 2), ("error", None)]
    assert c.frames[1]["name"] == "newcomer" and c.frames[1]["guest"] is False
    assert c.frames[2]["code"] == "BAD_FRAME"

    again = await connect(app, mode)
    back = await again.login("newcomer", guest=False, password="first-secret")
    assert back["name"] == "newcomer"


async def test_a_login_being_checked_when_the_handshake_time_is_up_is_answered(
    app: App, connect: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first login read in time but still being checked (its password hashed) when the
    sweeper finds the handshake time up: it is answered, and the connection goes on."""
    hashing, go_on = asyncio.Event(), asyncio.Event()
    real = app.accounts.hasher.hash

    async def slow(password: str, salt: bytes) -> bytes:
        hashing.set()
        await go_on.wait()
        return await real(password, salt)

    monkeypatch.setattr(app.accounts.hasher, "hash", slow)
    c = await connect(app)
    c.send({"type": "hello", "version": 1})
    c.send({"type": "login", "name": "slowpoke", "password": "first-secret"})
    await asyncio.wait_for(hashing.wait(), 10)
    app.sweeper.sweep(time.monotonic() + app.config.limits.handshake_timeout + 1, paused=False)
    go_on.set()
    assert (await c.recv_until("logged_in"))["name"] == "slowpoke"
    await c.ok({"type": "ping"}, "pong")


class FullDisk:
    """Makes ``app``'s database unwritable (what SQLite says of a full disk) while ``full``."""

    def __init__(self, app: App) -> None:
        assert app.journal is not None and app.store is not None
        self.full = False
        self.failed = asyncio.Event()
        app.journal.retry_interval = 0.05
        app.journal.on_failure = lambda exc: self.failed.set()
        write_batch = app.store.write_batch

        def failing(ops: Any) -> None:
            if self.full:
                raise sqlite3.OperationalError("database or disk is full")
            write_batch(ops)

        app.store.write_batch = failing  # type: ignore[method-assign]


async def test_requests_that_read_are_answered_while_the_disk_is_full(app: App, players: Any) -> None:
    """While play is paused for a full disk, list_tables, watch (with its state), ping,
    get_record, get_tournament and list_tournaments are answered at once; the answers of the
    player whose act waits for the disk stay behind its ok; chat is answered too."""
    a, b, looker = await players(app, ["ann", "bea", "lou"])
    t = await make_table([a, b], seed=3)
    game = (await a.recv_until("state"))["game"]
    assert (await play_until_over([a, b], t))["errors"] == []
    tour = (
        await a.ok(
            {"type": "create_tournament", "name": "cup", "preset": "classic", "seats": 2, "games": 1},
            "tournament_created",
        )
    )["tournament"]
    await a.ok({"type": "start", "table": t}, "ok")
    await ready_all(app, [a, b], t)

    disk = FullDisk(app)
    disk.full = True
    seat = app.tables[t].game.to_act()[0]  # type: ignore[union-attr]
    player = (a, b)[seat]
    seq = app.tables[t].seq
    rid = player.send({"type": "act", "table": t, "seq": seq, "action": player.states[t]["view"]["legal"][0]})
    await asyncio.wait_for(disk.failed.wait(), 10)
    behind = player.send({"type": "list_tables"})  # read, but behind the held ok

    tables = await looker.ok({"type": "list_tables"}, "tables")
    assert [x["table"] for x in tables["tables"]] == [t]
    assert (await looker.ok({"type": "ping"}, "pong"))["type"] == "pong"
    record = await looker.ok({"type": "get_record", "game": game}, "record")
    assert record["record"]["id"] == game
    info = (await looker.ok({"type": "get_tournament", "tournament": tour}, "tournament"))["info"]
    assert info["tournament"] == tour
    listed = (await looker.ok({"type": "list_tournaments"}, "tournaments"))["tournaments"]
    assert [x["tournament"] for x in listed] == [tour]
    await looker.ok({"type": "watch", "table": t}, "watching")
    await looker.wait_for(lambda: t in looker.states)  # the watcher's state, with the answer
    await looker.ok({"type": "chat", "table": t, "text": "paused?"}, "ok")
    refused = await looker.request({"type": "join", "table": t})
    assert refused["code"] == "STORAGE_FAILED" and refused["retry_after"] > 0
    assert not [f for f in player.frames if f.get("id") in (rid, behind)], "the act waits for the disk"
    assert app.journal is not None and app.journal.failed is not None

    disk.full = False
    await player.wait_for(lambda: any(f.get("id") == behind for f in player.frames))
    ids = [f.get("id") for f in player.frames]
    assert ids.index(rid) < ids.index(behind)
    assert player.frames[ids.index(rid)]["type"] == "ok" and player.frames[ids.index(behind)]["type"] == "tables"
    await looker.wait_for(lambda: looker.states[t]["seq"] >= seq + 1)  # the watcher sees play go on


async def test_a_request_that_waited_behind_a_login_is_refused_while_the_disk_is_full(
    app: App, players: Any, connect: Any
) -> None:
    """hello, login and join in one write while the disk is full: welcome, logged_in, then
    STORAGE_FAILED for the join, at once (it waited for the login, and is refused like any other)."""
    (a,) = await players(app, ["owner"])
    free = (await a.ok({"type": "create_table", "name": "free", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    disk = FullDisk(app)
    disk.full = True
    a.send({"type": "create_table", "name": "more", "preset": "classic", "seats": 2})  # its commit fails
    await asyncio.wait_for(disk.failed.wait(), 10)

    c = await connect(app)
    hello = {"type": "hello", "id": 1, "version": 1}
    login = {"type": "login", "id": 2, "name": "late", "guest": True}
    join = {"type": "join", "id": 3, "table": free}
    c.send_raw(encode(hello, "msgpack") + encode(login, "msgpack") + encode(join, "msgpack"))
    await c.wait_for(lambda: len(c.frames) >= 3)
    assert [(f["type"], f.get("id")) for f in c.frames[:3]] == [("welcome", 1), ("logged_in", 2), ("error", 3)]
    assert c.frames[2]["code"] == "STORAGE_FAILED"
    assert not any(app.tables[free].seats)
    disk.full = False
    await a.recv_until("table_created")
