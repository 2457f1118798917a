"""A server-hosted tournament survives a crash of the server: after the restart it goes on where
it stopped, finished games are not played again, and every game is reported once."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from server.shell.app import App
from tests.server.helpers import crash
from tests.server.tournament.test_service import participant, play_tournament


async def test_a_tournament_goes_on_after_a_crash(tmp_path: Any, make_app: Any) -> None:
    db = str(tmp_path / "tour.sqlite3")
    app: App = await make_app(db=db)
    org = await participant(app, "org")
    tid = (
        await org.ok(
            {
                "type": "create_tournament",
                "name": "rr",
                "preset": "classic",
                "seats": 2,
                "games": 6,
                "concurrency": 2,
                "master_seed": 5,
                "action_seconds": 30,
                "participants": ["p_a", "p_b", "p_c"],
            },
            "tournament_created",
        )
    )["tournament"]
    players = [await participant(app, n) for n in ("p_a", "p_b", "p_c")]
    for p in players:
        await p.ok({"type": "register", "tournament": tid}, "ok")
    tasks = [asyncio.create_task(play_tournament(p, [])) for p in players]
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    reported = []
    while len(reported) < 2:
        f = await org.recv(timeout=30)
        assert f is not None
        if f["type"] == "tournament_game":
            reported.append(f["result"]["number"])
    await crash(app)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    done_before = app.tournaments.tournaments[tid].games_finished
    assert done_before >= 2

    again: App = await make_app(db=db)
    tour = again.tournaments.tournaments[tid]
    assert tour.status == "running" and tour.games_finished == done_before
    assert all(again.tables[table].running for table in tour.running)  # the games in progress are back
    org2 = await participant(again, "org")
    players2 = [await participant(again, n) for n in ("p_a", "p_b", "p_c")]
    for p in players2:
        await p.ok({"type": "register", "tournament": tid}, "ok")  # their seats are handed back
    tasks = [asyncio.create_task(play_tournament(p, [])) for p in players2]
    over = await org2.recv_until("tournament_over", timeout=60)
    await asyncio.gather(*tasks)
    later = [f["result"]["number"] for f in org2.frames if f.get("type") == "tournament_game"]
    with sqlite3.connect(db) as c:  # one row per finished game, kept before the organiser heard of it
        rows = c.execute("SELECT number FROM live_tournament_games WHERE tournament = ? ORDER BY number", (tid,))
        numbers = [n for (n,) in rows]
    assert numbers == list(range(6))  # each game once: none lost, none played twice
    assert again.tournaments.tournaments[tid].games_finished == 6
    assert not set(later) & set(reported)  # a game reported before the crash is not played again
    assert over["info"]["games_finished"] == 6 and over["info"]["status"] == "finished"
