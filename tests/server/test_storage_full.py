"""A database that cannot be written (a full disk) pauses play with a clear error; nothing
acknowledged is lost, the waiting answers go out once it can be written, and play goes on."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from server.shell.app import App
from tests.server.client import make_table
from tests.server.helpers import act, ready_all


async def test_a_full_disk_pauses_play_and_loses_nothing(tmp_path: Any, make_app: Any, players: Any) -> None:
    db = str(tmp_path / "full.sqlite3")
    app: App = await make_app(db=db)
    journal, store = app.journal, app.store
    assert journal is not None and store is not None
    journal.retry_interval = 0.05
    a, b = await players(app, ["ann", "bea"])
    t = await make_table([a, b])
    await ready_all(app, [a, b], t)

    full = True
    write_batch = store.write_batch

    def failing(ops: Any) -> None:
        if full:
            raise sqlite3.OperationalError("database or disk is full")  # what SQLite says
        write_batch(ops)

    store.write_batch = failing  # type: ignore[method-assign]
    failed = asyncio.Event()
    journal.on_failure = lambda exc: failed.set()

    seat = app.tables[t].game.to_act()[0]  # type: ignore[union-attr]
    player, other = (a, b)[seat], (a, b)[1 - seat]
    seq = app.tables[t].seq
    action = player.states[t]["view"]["legal"][0]
    rid = player.send({"type": "act", "table": t, "seq": seq, "action": action})
    await asyncio.wait_for(failed.wait(), 5)
    # Play stops with a clear error, at once; the act that is waiting for the disk has no answer yet.
    refused = await act(other, t, "take")
    assert refused["code"] == "STORAGE_FAILED" and refused["retry_after"] > 0
    assert "database" in refused["message"]
    assert not [f for f in player.frames if f.get("id") == rid]

    full = False  # space returns: the same batch goes through, the answer and the states follow
    answer = await player.recv_until("ok")
    assert answer["id"] == rid
    await player.wait_for(lambda: player.states[t]["seq"] == seq + 1)
    await other.wait_for(lambda: other.states[t]["seq"] == seq + 1)
    assert journal.failed is None
    await app.stop()

    again: App = await make_app(db=db)
    history = again.tables[t].game.history  # type: ignore[union-attr]
    assert len(history) == 3 and history[-1][0] == seat  # two readies and the act


async def test_a_client_can_connect_and_log_in_while_the_disk_is_full(make_app: Any, players: Any) -> None:
    """A player who reconnects during a storage failure is not stuck in the handshake: welcome
    and logged_in go out at once, and the seat's resume is refused with STORAGE_FAILED."""
    app: App = await make_app()
    journal, store = app.journal, app.store
    assert journal is not None and store is not None
    journal.retry_interval = 0.05
    a, b = await players(app, ["ann", "bea"])
    t = await make_table([a, b])
    await ready_all(app, [a, b], t)

    full = True
    write_batch = store.write_batch

    def failing(ops: Any) -> None:
        if full:
            raise sqlite3.OperationalError("database or disk is full")
        write_batch(ops)

    store.write_batch = failing  # type: ignore[method-assign]
    failed = asyncio.Event()
    journal.on_failure = lambda exc: failed.set()
    seat = app.tables[t].game.to_act()[0]  # type: ignore[union-attr]
    player = (a, b)[seat]
    player.send({"type": "act", "table": t, "seq": app.tables[t].seq, "action": player.states[t]["view"]["legal"][0]})
    await asyncio.wait_for(failed.wait(), 5)
    assert app.held, "the act's answer waits for the disk"

    # The players fixture completes hello/welcome and login/logged_in, or times out.
    (late,) = await players(app, ["cid"])
    late.send({"type": "ping", "id": 77})
    pong = await late.recv_until("pong")
    assert pong["id"] == 77
    refused = await late.request({"type": "resume", "table": t, "token": "not-a-seat"})
    assert refused["code"] == "STORAGE_FAILED" and refused["retry_after"] > 0
    full = False
    await player.recv_until("ok")
    assert journal.failed is None
