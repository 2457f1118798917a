"""A tournament's finished games are kept one row per game, not in its snapshot (issue 15: the
snapshot rewritten after every game must not grow with the games), and a database of schema 2,
whose snapshots held the list, is migrated."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from server.storage.persist import finished_game, restore_tournament, tournament_snapshot
from server.storage.store import _SCHEMA_V1, _SCHEMA_V2, SCHEMA_VERSION, Store
from server.tournament.director import Finished, Settings, Tournament
from server.tournament.payloads import tournament_info


def played(games: int) -> tuple[Tournament, list[Finished]]:
    """A tournament of three with ``games`` games played (the first player first, and so on)."""
    t = Tournament(1, "org", Settings("t", "classic", {}, seats=3, games=12, concurrency=2, master_seed=9))
    for name in ("a", "b", "c"):
        t.register(name, bot=True)
    t.start()
    finished = []
    table = 100
    while len(finished) < games:
        for spec in t.next_games():
            t.game_started(table, spec)
            table += 1
        first = min(t.running)
        finished.append(
            t.game_finished(
                first,
                [0, 1, 2],
                capped=False,
                timeouts=[0, 0, 0],
                illegal=[0, 0, 0],
                disconnects=[0, 0, 0],
                actions=50,
                server_game=first,
            )
        )
    return t, finished


def same_but_connections(back: Tournament, t: Tournament) -> bool:
    """The same public facts (standings, head-to-head, progress...), but that nobody is
    connected to a tournament just read back."""
    a, b = dict(tournament_info(back)), dict(tournament_info(t))
    names_a = [p["name"] for p in a.pop("participants")]
    names_b = [p["name"] for p in b.pop("participants")]
    return names_a == names_b and a == b and b["standings"][0]["games"] > 0


def test_the_snapshot_does_not_grow_with_the_games() -> None:
    early, _ = played(1)
    late, _ = played(9)
    assert len(json.dumps(tournament_snapshot(late))) == len(json.dumps(tournament_snapshot(early)))


def test_a_tournament_comes_back_from_its_snapshot_and_its_rows() -> None:
    t, finished = played(5)
    back = restore_tournament(tournament_snapshot(t), [finished_game(f) for f in reversed(finished)])
    assert back.games_finished == 5
    assert same_but_connections(back, t)


def test_a_schema_2_database_is_migrated(tmp_path: Path) -> None:
    t, finished = played(4)
    old = tournament_snapshot(t) | {"finished": [finished_game(f) for f in finished]}  # as version 2 wrote it
    db = tmp_path / "v2.sqlite3"
    with sqlite3.connect(db) as c:
        c.executescript(_SCHEMA_V1 + _SCHEMA_V2)
        c.execute("INSERT INTO live_tournaments (id, snapshot) VALUES (1, ?)", (json.dumps(old),))
        c.execute("PRAGMA user_version=2")
    store = Store(db)
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        live = store.load_live()
        (snap,) = live.tournaments
        assert "finished" not in snap
        assert [f["number"] for f in live.tournament_games[1]] == [f.result.number for f in finished]
        back = restore_tournament(snap, live.tournament_games[1])
        assert back.games_finished == 4 and same_but_connections(back, t)
    finally:
        store.close()
