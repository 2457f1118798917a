"""A server started again on the same database brings back its tables, series and games.

In process: :func:`crash` stops a server the way a crash would (no final write, no goodbye),
after which a new :class:`App` on the same file must show every seat the same position, the
same ``seq`` and the same cards, and the game goes on to a record that replays exactly. The
subprocess tests with a real ``kill -9`` are in ``tests/durability``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from server.engine import ReplayRecord
from server.shell.app import App
from tests.server.client import TestClient, make_table, play_until_over
from tests.server.helpers import crash, ready_all, step, sync
from tests.server.waiting import until_loop

SEED = 11


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state's view without what a restart changes on purpose (presence, clocks)."""
    view = {k: v for k, v in state["view"].items() if k not in ("players", "clocks")}
    view["players"] = [{k: v for k, v in p.items() if k not in ("away",)} for p in state["view"]["players"]]
    view["clocks"] = [k["seat"] for k in state["view"]["clocks"]]  # whose clocks, not their seconds
    return {"table": state["table"], "seq": state["seq"], "game": state["game"], "view": view}


async def back(app: App, clients: list[TestClient], table: int) -> list[TestClient]:
    """New connections for the same guests (each proves it is that guest with its seat token at
    login), resumed with their tokens."""
    again = []
    for c in clients:
        n = await TestClient.connect(app.port, name=c.name)
        await n.login(c.name, token=c.token)  # type: ignore[attr-defined]
        joined = await n.ok({"type": "resume", "table": table, "token": c.token}, "joined")  # type: ignore[attr-defined]
        n.token, n.seat = joined["token"], joined["seat"]  # type: ignore[attr-defined]
        await n.wait_for(lambda n=n: table in n.states)
        again.append(n)
    return again


async def test_a_game_comes_back_after_a_crash(tmp_path: Any, make_app: Any, players: Any) -> None:
    db = str(tmp_path / "live.sqlite3")
    first = await make_app(db=db, restart_grace=30.0)
    a, b = await players(first, ["ann", "bea"])
    t = await make_table([a, b], seed=SEED)
    await ready_all(first, [a, b], t)
    for _ in range(6):
        seat = first.tables[t].game.to_act()[0]  # type: ignore[union-attr]
        await step(first, [a, b], t, seat)
    before = [comparable(c.states[t]) for c in (a, b)]
    history = list(first.tables[t].game.history)  # type: ignore[union-attr]
    crashed_at = time.time()
    await crash(first)

    second = await make_app(db=db, restart_grace=30.0)
    assert t in second.tables and second.tables[t].running
    again = await back(second, [a, b], t)
    after = [comparable(c.states[t]) for c in again]
    assert after == before
    assert list(second.tables[t].game.history) == history  # type: ignore[union-attr]
    # The seat to act got its time back plus the grace.
    to_act = second.tables[t].game.to_act()[0]  # type: ignore[union-attr]
    assert again[to_act].states[t]["deadline"] > 30.0

    over = await play_until_over(again, t)
    assert not over["errors"]
    game_id = over["game_over"][0]["game"]
    rec = (await again[0].ok({"type": "get_record", "game": game_id}, "record"))["record"]
    assert rec["started"] < crashed_at  # dealt before the crash, whatever the time the server was down
    record = ReplayRecord.from_dict(rec["record"])
    assert list(record.actions[: len(history)]) == history
    assert list(record.replay().outcome().places) == over["game_over"][0]["result"]["places"]


async def test_the_series_goes_on_after_a_restart(tmp_path: Any, make_app: Any, players: Any) -> None:
    """Between games: the tally, the dealer and the next deal are those of an uninterrupted series."""
    db = str(tmp_path / "series.sqlite3")
    plain = await make_app(db=str(tmp_path / "plain.sqlite3"))
    p = await players(plain, ["ann", "bea"])
    tp = await make_table(p, seed=SEED)
    await play_until_over(p, tp)
    await p[0].ok({"type": "start", "table": tp}, "ok")
    await sync(plain, p, tp)
    uninterrupted = comparable(p[0].states[tp])

    first = await make_app(db=db)
    c = await players(first, ["ann", "bea"])
    t = await make_table(c, seed=SEED)
    over = await play_until_over(c, t)
    await first.stop()
    second = await make_app(db=db)
    again = await back(second, c, t)
    assert second.tables[t].games_played == 1
    assert second.tables[t].series.tally.to_dict() == plain.tables[tp].series.tally.to_dict()
    await again[0].ok({"type": "start", "table": t}, "ok")
    await sync(second, again, t)
    resumed = comparable(again[0].states[t])
    assert resumed["view"] == uninterrupted["view"]
    assert resumed["game"] > over["game_over"][0]["game"]


async def test_unacknowledged_actions_are_not_kept(tmp_path: Any, make_app: Any, players: Any) -> None:
    """An act whose commit did not happen before the crash got no ok, and is not there after."""
    db = str(tmp_path / "lost.sqlite3")
    first = await make_app(db=db)
    a, b = await players(first, ["ann", "bea"])
    t = await make_table([a, b], seed=SEED)
    await ready_all(first, [a, b], t)
    seq = first.tables[t].seq
    seat = first.tables[t].game.to_act()[0]  # type: ignore[union-attr]
    journal = first.journal
    assert journal is not None
    # Hold the writer thread so that the next commit cannot happen before the crash.
    gate = await WriterGate.hold(first)
    c = (a, b)[seat]
    c.send({"type": "act", "table": t, "seq": seq, "action": c.states[t]["view"]["legal"][0]})
    await until_loop(lambda: first.tables[t].seq > seq)  # (no answer comes: it is held)
    assert not [f for f in c.drain_inbox() if f.get("type") == "ok"]  # held: not committed
    first.stopping = True
    for s in list(first.sessions):
        s.held.clear()
        if s.transport is not None:
            s.transport.abort()
    first.server.close()  # type: ignore[union-attr]
    first._sweeper.cancel()  # type: ignore[union-attr]
    # The crash happens before the writer gets to the batch: it is dropped with the process.
    first.db_thread.shutdown(wait=False, cancel_futures=True)
    await gate.release()
    first.store.close()  # type: ignore[union-attr]

    second = await make_app(db=db)
    assert second.tables[t].seq == seq
    assert len(second.tables[t].game.history) == 2  # type: ignore[union-attr]  (the two readies)


class WriterGate:
    """Keeps the server's writer thread busy (no commit can happen) until released."""

    def __init__(self, app: App) -> None:
        self.started, self.gate = threading.Event(), threading.Event()

        def block() -> None:
            self.started.set()
            self.gate.wait(10)

        self.job = app.db_thread.submit(block)

    @classmethod
    async def hold(cls, app: App) -> WriterGate:
        held = cls(app)
        assert await asyncio.to_thread(held.started.wait, 5)
        return held

    async def release(self) -> None:
        self.gate.set()
        await asyncio.wrap_future(self.job)


async def test_answers_that_report_a_change_wait_for_its_commit(make_app: Any, players: Any) -> None:
    """joined, table_created and ok (start) are only sent once what they report is written."""
    app = await make_app()
    a, b = await players(app, ["ann", "bea"])
    t = (await a.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))["table"]
    await a.ok({"type": "join", "table": t}, "joined")
    gate = await WriterGate.hold(app)
    rid = b.send({"type": "join", "table": t})
    pong = b.send({"type": "ping"})
    await until_loop(lambda: app.tables[t].seats[1] is not None)  # (its answer is held)
    assert not [f for f in b.frames if f.get("id") in (rid, pong)]  # neither overtakes the commit
    await gate.release()
    await b.wait_for(lambda: any(f.get("id") == pong for f in b.frames))
    answers = [f for f in b.frames if f.get("id") in (rid, pong)]
    assert [f["type"] for f in answers] == ["joined", "pong"]  # in the order of the requests
