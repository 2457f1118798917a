"""cancel_tournament, the pause of a tournament whose organiser has gone, and the server-wide
share of the bundled bots' tables (issue 37, item 3), over TCP with the server's own bots."""

from __future__ import annotations

from typing import Any

import pytest

from client.hosting.house import HouseBots
from server.config import Limits
from server.shell.app import App
from tests.server.client import TestClient
from tests.server.waiting import until_loop

BOTS_CUP = {
    "type": "create_tournament",
    "name": "cup",
    "preset": "classic",
    "seats": 2,
    "games": 1000,
    "concurrency": 2,
    "action_seconds": 30,
    "bots": ["greedy", "greedy", "greedy"],
}


async def account(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}-pw")
    return c


async def test_cancel_stops_the_tournament_and_its_tables_and_a_restart_keeps_it_cancelled(
    make_app: Any, tmp_path: Any
) -> None:
    """The organiser cancels a running tournament of bundled bots (another player may not):
    ok, then tournament_over with cancelled and the games so far; its tables are gone, its
    bots' connections closed; after a restart it is still cancelled and nothing of it runs."""
    db = str(tmp_path / "cancel.sqlite3")
    app: App = await make_app(db=db, bots=HouseBots())
    org = await account(app, "olga")
    tid = (await org.ok(BOTS_CUP, "tournament_created"))["tournament"]
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    await org.recv_until("tournament_game", timeout=30)
    t = app.tournaments.tournaments[tid]
    playing = list(t.running)
    assert playing and all(x in app.tables for x in playing)

    sam = await account(app, "sam")
    refused = await sam.request({"type": "cancel_tournament", "tournament": tid})
    assert refused["type"] == "error" and refused["code"] == "NOT_OWNER", refused
    await org.ok({"type": "cancel_tournament", "tournament": tid}, "ok")
    over = await org.recv_until("tournament_over", timeout=30)
    info = over["info"]
    assert info["cancelled"] is True and info["status"] == "finished" and info["tables"] == []
    assert info["games_finished"] >= 1 and info["standings"] and info["games_total"] >= 1000
    assert not t.pending  # (nothing left to play: the schedule is not kept)
    assert not any(x in app.tables for x in playing)
    assert not any(table.tournament is not None for table in app.tables.values())
    await until_loop(lambda: not any(s.house is not None for s in app.sessions))
    again = await org.request({"type": "cancel_tournament", "tournament": tid})
    assert again["type"] == "ok"  # (finished: nothing to do)
    await org.close()
    await sam.close()
    await app.stop()

    restarted: App = await make_app(db=db, bots=HouseBots())
    back = restarted.tournaments.tournaments[tid]
    assert back.status == "finished" and back.cancelled and not back.running and not back.pending
    assert not restarted.tables and not restarted.hosted.logins  # no table, no bot started for it
    viewer = await account(restarted, "viewer")
    seen = (await viewer.ok({"type": "get_tournament", "tournament": tid}, "tournament"))["info"]
    assert seen["cancelled"] is True and seen["status"] == "finished"
    await viewer.close()


async def test_an_operator_may_cancel_anyones_tournament(make_app: Any) -> None:
    """An account of the server's operators cancels a tournament still registering; its
    organiser is told (tournament_over), and it can no longer start."""
    app: App = await make_app(operators=["Boss"])
    org = await account(app, "olga")
    tid = (await org.ok({"type": "create_tournament", "name": "c", "preset": "classic", "seats": 2, "games": 2}))[
        "tournament"
    ]
    boss = await account(app, "boss")
    await boss.ok({"type": "cancel_tournament", "tournament": tid}, "ok")
    over = await org.recv_until("tournament_over")
    assert over["tournament"] == tid and over["info"]["cancelled"] is True
    late = await org.request({"type": "start_tournament", "tournament": tid})
    assert late["type"] == "error" and late["code"] == "ALREADY_STARTED"
    for c in (org, boss):
        await c.close()


async def test_a_tournament_whose_organiser_has_gone_pauses_and_goes_on_when_they_return(
    make_app: Any, tmp_path: Any
) -> None:
    """The organiser leaves: after reconnect_grace the tournament is paused (the game running
    finishes, no next one starts), a restart keeps it paused; the organiser logs in again and
    it goes on (the next tournament_game reaches them)."""
    db = str(tmp_path / "pause.sqlite3")
    app: App = await make_app(db=db, bots=HouseBots(), reconnect_grace=0.2)
    org = await account(app, "olga")
    tid = (await org.ok({**BOTS_CUP, "concurrency": 1}, "tournament_created"))["tournament"]
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    await org.recv_until("tournament_game", timeout=30)
    t = app.tournaments.tournaments[tid]
    assert not t.paused
    await org.close()
    await until_loop(lambda: t.paused)
    # The game running then finishes; the next one, which would start as it ends, does not.
    await until_loop(lambda: not t.running)
    assert t.pending and t.status == "running"
    done = t.games_finished
    viewer = await account(app, "viewer")
    info = (await viewer.ok({"type": "get_tournament", "tournament": tid}, "tournament"))["info"]
    assert info["paused"] is True and info["tables"] == [] and info["status"] == "running"
    await viewer.close()
    await app.stop()

    restarted: App = await make_app(db=db, bots=HouseBots(), reconnect_grace=0.2)
    back = restarted.tournaments.tournaments[tid]
    assert back.paused and not back.running
    await until_loop(lambda: all(p.connected for p in back.participants.values()))  # its bots are back
    assert not back.running and back.games_finished == done
    org = await account(restarted, "olga")
    game = await org.recv_until("tournament_game", timeout=30)
    assert game["tournament"] == tid and not back.paused and back.games_finished > done
    await org.ok({"type": "cancel_tournament", "tournament": tid}, "ok")
    await org.close()


async def test_the_bundled_bots_tables_are_shared_fairly_server_wide(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bot_tables 2: two tournaments of bundled bots, each asking for 2 tables at once, never
    have more than 2 between them, and the second (started while the first holds both) gets its
    turn while the first still runs; both play to their end."""
    app: App = await make_app(bots=HouseBots(), limits=Limits(bot_tables=2))
    service = app.tournaments
    totals: list[int] = []
    together = []
    real = service._start_game

    def counted(t: Any, spec: Any) -> None:
        real(t, spec)
        running = [len(x.running) for x in service.tournaments.values()]
        totals.append(sum(running))
        together.append(all(running))

    monkeypatch.setattr(service, "_start_game", counted)
    ann, ben = await account(app, "ann"), await account(app, "ben")
    # (bots of different kinds: two tournaments' bundled bots of one kind would share names)
    cups = [{**BOTS_CUP, "games": n, "bots": [kind, kind]} for n, kind in ((6, "greedy"), (2, "random"))]
    tids = [(await c.ok(cup, "tournament_created"))["tournament"] for c, cup in zip((ann, ben), cups, strict=True)]
    for c, tid in zip((ann, ben), tids, strict=True):
        await c.ok({"type": "start_tournament", "tournament": tid}, "ok")
    for c, n in ((ann, 6), (ben, 2)):
        over = await c.recv_until("tournament_over", timeout=60)
        assert over["info"]["games_finished"] == n and not over["info"]["cancelled"]
    assert len(totals) == 8 and max(totals) == 2
    assert any(together), "the second tournament never played while the first did"
    for c in (ann, ben):
        await c.close()
