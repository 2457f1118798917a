"""Reconnects (resume with the seat token), seat takeover, and the table clocks."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server.engine import ReplayRecord, format_action
from server.tables.table import default_action
from tests.server.client import TestClient, make_table, play_until_over, short_seeds
from tests.server.helpers import current, ready_all, step, sync
from tests.server.waiting import until_server

SEED = short_seeds("classic", 2, 1, max_len=200)[0]


async def relogin(connect: Any, app: Any, old: TestClient, mode: str = "json") -> TestClient:
    """``old``'s guest back on a new connection: its name is held by its seat, so it logs in
    with that seat's token (PROTOCOL.md §11), which makes it the same guest again."""
    c = await connect(app, mode, old.name)
    await c.login(old.name, token=old.token)  # type: ignore[attr-defined]
    return c


async def away_flags(c: TestClient, table: int, seat: int, away: bool) -> dict[str, Any]:
    """Wait for a table_update whose summary shows ``seat`` away (or back)."""
    return await c.recv_until(
        "table_update",
        where=lambda f: (
            f["table"] == table
            and f["summary"]["seats"][seat] is not None
            and f["summary"]["seats"][seat]["away"] is away
        ),
    )


async def start_playing(
    app: Any, players: Any, names: list[str], moves: int = 3, **opts: Any
) -> tuple[list[TestClient], int]:
    clients = await players(app, names, ["msgpack", "json"])
    t = await make_table(clients, seed=SEED, **opts)
    await ready_all(app, clients, t)
    for _ in range(moves):
        await step(app, clients, t, current(clients, t))
    return clients, t


async def test_resume_after_disconnect_restores_the_view(app: Any, players: Any, connect: Any) -> None:
    """Drop and resume: others see away, the snapshot equals the last view, the game finishes."""
    clients, t = await start_playing(app, players, ["ra", "rb"])
    seat = current(clients, t)
    gone, other = clients[seat], clients[1 - seat]
    last = gone.states[t]
    token = gone.token  # type: ignore[attr-defined]
    await gone.close()
    update = await away_flags(other, t, seat, True)
    assert update["summary"]["seats"][1 - seat]["away"] is False

    back = await relogin(connect, app, gone)
    joined = await back.ok({"type": "resume", "table": t, "token": token}, "joined")
    assert joined["seat"] == seat and joined["table"] == t
    snap = await back.recv_until("state")
    assert snap["seq"] == last["seq"] and snap["game"] == last["game"]
    clocks = snap["view"].pop("clocks")
    last_clocks = last["view"].pop("clocks")
    assert snap["view"] == last["view"]
    # The same seats' clocks, counted again from now: less time left, the same bank.
    assert [(k["seat"], k["bank"]) for k in clocks] == [(k["seat"], k["bank"]) for k in last_clocks]
    assert all(k["left"] <= was["left"] for k, was in zip(clocks, last_clocks, strict=True))
    assert snap["events"] == [{"kind": "back", "seat": seat}]
    assert snap.get("deadline") is not None
    await away_flags(other, t, seat, False)

    clients[seat] = back
    out = await play_until_over(clients, t)
    assert out["errors"] == []
    assert sorted(out["game_over"][0]["result"]["places"]) == [0, 1]


async def test_others_see_the_player_away_in_the_view(app: Any, players: Any, connect: Any) -> None:
    """A dropped player is away in the others' views; after resume it sees what it missed."""
    clients, t = await start_playing(app, players, ["va", "vb"])
    seat = 1 - current(clients, t)  # drops while the other is to play
    gone, other = clients[seat], clients[1 - seat]
    token = gone.token  # type: ignore[attr-defined]
    await gone.close()
    await away_flags(other, t, seat, True)
    before = other.states[t]["seq"]
    reply = await other.request(
        {"type": "act", "table": t, "seq": other.states[t]["seq"], "action": other.states[t]["view"]["legal"][0]}
    )
    assert reply["type"] == "ok"
    await other.wait_for(lambda: other.states[t]["seq"] > before)
    st = other.states[t]
    assert st["view"]["players"][seat]["away"] is True
    assert st["view"]["players"][1 - seat]["away"] is False

    back = await relogin(connect, app, gone, "msgpack")
    await back.ok({"type": "resume", "table": t, "token": token}, "joined")
    snap = await back.recv_until("state")
    assert snap["seq"] == st["seq"]
    assert snap["view"]["players"] == [{**p, "away": False} for p in st["view"]["players"]]
    assert snap["view"]["pile"] == st["view"]["pile"]
    clients[seat] = back
    out = await play_until_over(clients, t)
    assert out["errors"] == []


async def test_second_connection_takes_the_seat_over(app: Any, players: Any, connect: Any) -> None:
    """Resuming on a second connection moves the seat: the first gets BAD_TOKEN and no more states."""
    clients, t = await start_playing(app, players, ["ta", "tb"], moves=2)
    seat = 0
    first = clients[seat]
    token = first.token  # type: ignore[attr-defined]
    second = await relogin(connect, app, first, "msgpack")
    await second.ok({"type": "resume", "table": t, "token": token}, "joined")
    await second.recv_until("state")
    err = await first.recv_until("error")
    assert err["code"] == "BAD_TOKEN" and err["table"] == t and "id" not in err
    n_first = sum(f["type"] == "state" for f in first.frames)
    clients[seat] = second
    await step(app, clients, t, current(clients, t))
    await step(app, clients, t, current(clients, t))
    reply = await first.request({"type": "act", "table": t, "seq": clients[1].states[t]["seq"], "action": "take"})
    assert reply["type"] == "error" and reply["code"] == "NOT_SEATED"
    # Answers keep their order behind what was sent before them: a state of those two moves
    # sent to the first connection would have come before this answer.
    assert sum(f["type"] == "state" for f in first.frames) == n_first
    sessions = len(app.sessions)
    await first.close()
    await until_server(clients[1], lambda: len(app.sessions) == sessions - 1)  # the server saw it close
    assert app.tables[t].seats[seat].session is not None
    summary = (await clients[1].ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["seats"][seat]["away"] is False
    out = await play_until_over(clients, t)
    assert out["errors"] == []


async def test_bad_token(app: Any, players: Any, connect: Any) -> None:
    """A wrong token, another seat's token or another table's token: BAD_TOKEN, nothing changes."""
    clients, t = await start_playing(app, players, ["ba", "bb"], moves=0)
    other_t = (
        await clients[0].ok({"type": "create_table", "name": "o", "preset": "classic", "seats": 2}, "table_created")
    )["table"]
    intruder = await connect(app, "msgpack", "intruder")
    await intruder.login("intruder")
    for table, token in ((t, "not-a-token"), (t, clients[1].token), (other_t, clients[0].token)):  # type: ignore[attr-defined]
        reply = await intruder.request({"type": "resume", "table": table, "token": token})
        assert reply["type"] == "error" and reply["code"] == "BAD_TOKEN", reply
    assert app.tables[t].seats[0].session is not None and app.tables[t].seats[1].session is not None
    assert (await intruder.request({"type": "ping"}))["type"] == "pong"


async def test_clock_applies_default_action_and_counts_timeouts(app: Any, players: Any, connect: Any) -> None:
    """action_seconds=0.5: default_action is applied and every client sees timeout counts 1, 2, 3."""
    clients = await players(app, ["ca", "cb"], ["msgpack", "json"])
    lazy, busy = clients
    w = await connect(app, "json", "cw")
    await w.login()
    t = await make_table(clients, seed=SEED, start=False, action_seconds=0.5)
    await w.ok({"type": "watch", "table": t}, "watching")
    await lazy.ok({"type": "start", "table": t}, "ok")

    def only_busy(c: TestClient, f: dict[str, Any]) -> str | None:
        return f["view"]["legal"][0] if c is busy else None

    driver = asyncio.create_task(play_until_over([busy], t, timeout=30, choose=only_busy))
    try:

        def timeouts(c: TestClient) -> list[dict[str, Any]]:
            return [e for f in c.frames if f["type"] == "state" for e in f["events"] if e["kind"] == "timeout"]

        for c in (lazy, busy, w):
            await c.wait_for(lambda c=c: {e["count"] for e in timeouts(c)} >= {1, 2, 3}, 15)
    finally:
        driver.cancel()
    for c in (lazy, busy, w):
        events = [e for e in timeouts(c) if e["count"] <= 3]
        assert all(e["seat"] == 0 for e in events)
        # Setup ran out once: the clock played the seat's whole setup (swaps, then ready) as timeout 1.
        setup = [e["action"] for e in events if e["count"] == 1]
        assert setup[-1] == "ready" and all(a.startswith("swap ") for a in setup[:-1])
        # Then one action per timeout, counted on.
        assert [e["count"] for e in events] == [1] * len(setup) + [2, 3]
    assert timeouts(lazy)[:5] == timeouts(busy)[:5] == timeouts(w)[:5]
    # Each timeout applied exactly the default action of its position.
    game = app.tables[t].game
    record = ReplayRecord.of(game)
    for f in busy.frames:
        if f["type"] != "state":
            continue
        for e in f["events"]:
            if e["kind"] == "timeout":
                n = f["view"]["action_count"]
                before = record.replay(n - 1)
                assert format_action(default_action(before, 0)) == e["action"]
                assert record.actions[n - 1][0] == 0
                assert format_action(record.actions[n - 1][1]) == e["action"]
    summary = (await busy.ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["seats"][0]["timeouts"] >= 3 and summary["seats"][1]["timeouts"] == 0
    # The seat to act is told its deadline, within the clock.
    dls = [f.get("deadline") for f in lazy.frames if f["type"] == "state" and f["view"]["legal"]]
    assert dls and all(d is not None and 0 <= d <= 0.5 for d in dls)


async def test_gone_player_gets_default_actions_at_once(make_app: Any, players: Any) -> None:
    """Past reconnect_grace a gone player's turns get the default action at once, not after 60 s."""
    app = await make_app(reconnect_grace=0.2)
    clients, t = await start_playing(app, players, ["ga", "gb"], moves=0, action_seconds=60)
    gone, busy = clients
    await sync(app, clients, t)
    await gone.close()
    started = time.monotonic()

    def only_busy(c: TestClient, f: dict[str, Any]) -> str | None:
        return f["view"]["legal"][0]

    driver = asyncio.create_task(play_until_over([busy], t, timeout=30, choose=only_busy))
    try:

        def gone_timeouts() -> list[dict[str, Any]]:
            return [
                e
                for f in busy.frames
                if f["type"] == "state"
                for e in f["events"]
                if e["kind"] == "timeout" and e["seat"] == 0
            ]

        await busy.wait_for(lambda: len(gone_timeouts()) >= 3, 20)
    finally:
        driver.cancel()
    assert time.monotonic() - started < 30  # far less than the 60 s clock
    assert [e["count"] for e in gone_timeouts()[:3]] == [1, 2, 3]
    assert all(
        f["view"]["players"][0]["away"]
        for f in busy.frames
        if f["type"] == "state" and any(e["kind"] == "timeout" for e in f["events"])
    )


async def test_a_registered_account_resumes_without_its_token(app: Any, connect: Any) -> None:
    """A registered player who lost the token gets the seat back by logging in with its
    password; the answer carries a new token and the old one stops working."""
    clients = []
    for name in ("reg_a", "reg_b"):
        c = await connect(app, "msgpack", name)
        await c.login(name, guest=False, password=f"pw-{name}")
        clients.append(c)
    t = await make_table(clients, seed=SEED)
    await ready_all(app, clients, t)
    old_token = clients[0].token  # type: ignore[attr-defined]
    await clients[0].close()
    await away_flags(clients[1], t, 0, True)

    back = await connect(app, "msgpack", "reg_a")
    await back.login("reg_a", guest=False, password="pw-reg_a")
    joined = await back.ok({"type": "resume", "table": t}, "joined")
    assert joined["seat"] == 0 and joined["token"] != old_token
    await back.recv_until("state")
    again = await connect(app, "msgpack", "reg_a")
    await again.login("reg_a", guest=False, password="pw-reg_a")
    stale = await again.request({"type": "resume", "table": t, "token": old_token})
    assert stale["type"] == "error" and stale["code"] == "BAD_TOKEN"


async def test_a_guest_must_show_the_token(app: Any, players: Any, connect: Any) -> None:
    """A guest's held seat keeps its name: logging in again without a credential is refused
    (NAME_TAKEN); with the seat token at login it is that guest again, and its resume still
    needs the token."""
    clients, t = await start_playing(app, players, ["ga", "gb"], moves=0)
    await clients[0].close()
    bare = await connect(app, "json", "ga")
    await bare.ok({"type": "hello", "version": 1}, "welcome")
    taken = await bare.request({"type": "login", "name": "ga", "guest": True})
    assert taken["type"] == "error" and taken["code"] == "NAME_TAKEN" and taken["suggestion"] == "ga 2"
    back = await relogin(connect, app, clients[0])
    refused = await back.request({"type": "resume", "table": t})
    assert refused["type"] == "error" and refused["code"] == "BAD_TOKEN" and "token" in refused["message"]
    await back.ok({"type": "resume", "table": t, "token": clients[0].token}, "joined")  # type: ignore[attr-defined]


async def test_resuming_after_the_game_ended_gives_the_game_over(
    app: Any, players: Any, connect: Any, monkeypatch: Any
) -> None:
    """A player away while the game ended gets the final snapshot and then its game_over."""
    import server.shell.app

    monkeypatch.setattr(server.shell.app, "SWEEP_INTERVAL", 0.02)  # the clock plays the absent seat sooner
    clients, t = await start_playing(app, players, ["ga1", "gb1"], moves=1)
    gone, other = clients[0], clients[1]
    token = gone.token  # type: ignore[attr-defined]
    await gone.close()
    await away_flags(other, t, 0, True)
    # The other plays on; the absent seat is played by its clock after the grace period.
    app.config.reconnect_grace = 0.0
    over = await play_until_over([other], t)
    assert over["game_over"][0]["table"] == t
    back = await relogin(connect, app, gone)
    await back.ok({"type": "resume", "table": t, "token": token}, "joined")
    snap = await back.recv_until("state")
    assert snap["view"]["phase"] == "over"
    again = await back.recv_until("game_over")
    assert again["game"] == over["game_over"][0]["game"] and again["result"] == over["game_over"][0]["result"]
