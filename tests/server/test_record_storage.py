"""Finished games' records are stored compressed, and records stored as JSON text by earlier
versions still load (issue 15: compact records, old databases keep working)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from server.engine import Game, ReplayRecord, make_rules
from server.engine.policies import random_policy
from server.store import Store


def finished_record(seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    game = Game.new(make_rules("classic"), 4, rng=rng)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, random_policy(game, seat, rng))
    return ReplayRecord.of(game).to_dict()


def save(store: Store, game_id: int, record: dict[str, object]) -> None:
    store.save_game(
        game_id=game_id,
        table_name="t",
        preset="classic",
        players=["a", "b", "c", "d"],
        record=record,
        result={"places": [0, 1, 2, 3], "loser": 3, "capped": False},
        started=1.0,
        ended=2.0,
    )


def test_records_are_stored_compressed_and_load_unchanged(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    try:
        record = finished_record(1)
        save(store, 1, record)
        stored = store.db.execute("SELECT record FROM games WHERE id = 1").fetchone()[0]
        text = json.dumps(record)
        assert isinstance(stored, bytes) and len(stored) * 3 < len(text), (len(stored), len(text))
        game = store.game(1)
        assert game is not None and game["record"] == record
        # ... and the record replays to the same finished game.
        assert ReplayRecord.from_dict(game["record"]).replay().is_over()
    finally:
        store.close()


def test_a_record_stored_as_json_text_still_loads(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    Store(db).close()
    record = finished_record(2)
    with sqlite3.connect(db) as c:  # a row as earlier versions wrote it
        c.execute(
            "INSERT INTO games (id, table_name, preset, players, record, result, started, ended) "
            "VALUES (5, 't', 'classic', ?, ?, '{}', 1.0, 2.0)",
            (json.dumps(["a", "b", "c", "d"]), json.dumps(record)),
        )
    store = Store(db)
    try:
        game = store.game(5)
        assert game is not None and game["record"] == record and game["players"] == ["a", "b", "c", "d"]
    finally:
        store.close()
