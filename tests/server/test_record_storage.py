"""Finished games' records are stored compressed, and records stored as JSON text by earlier
versions still load (issue 15: compact records, old databases keep working)."""

from __future__ import annotations

import json
import random
import sqlite3
import zlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from server.engine import Game, ReplayRecord, make_rules
from server.engine.policies import random_policy
from server.storage.record_codec import pack_record, unpack_record
from server.storage.store import Store


def finished_record(seed: int) -> dict[str, object]:
    """A finished game's record as the server stores it: with players and action times."""
    rng = random.Random(seed)
    game = Game.new(make_rules("classic"), 4, rng=rng)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, random_policy(game, seat, rng))
    record = ReplayRecord.of(game).to_dict()
    record["players"] = ["a", "b", "c", "d"]
    # As Table._after takes them: seconds from the deal, to the millisecond.
    clock = 0.0
    times = []
    for _ in record["actions"]:
        clock += rng.uniform(0.0005, 2.5)
        times.append(round(clock, 3))
    record["times"] = times
    return record


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
        assert isinstance(stored, bytes) and len(stored) * 5 < len(text), (len(stored), len(text))
        # The times are kept as millisecond steps and the actions as one character per word;
        # both come back as they were.
        packed = json.loads(zlib.decompress(stored))
        assert "times" not in packed and all(isinstance(d, int) for d in packed["dt"])
        assert "actions" not in packed and len(packed["moves"]) < 4 * len(record["actions"])
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


def test_a_compressed_record_with_times_as_written_before_dt_still_loads(tmp_path: Path) -> None:
    db = tmp_path / "v703.sqlite3"
    Store(db).close()
    record = finished_record(3)
    with sqlite3.connect(db) as c:  # compressed, but with "times" (the first compressed form)
        c.execute(
            "INSERT INTO games (id, table_name, preset, players, record, result, started, ended) "
            "VALUES (6, 't', 'classic', '[]', ?, '{}', 1.0, 2.0)",
            (zlib.compress(json.dumps(record).encode()),),
        )
    store = Store(db)
    try:
        game = store.game(6)
        assert game is not None and game["record"] == record
    finally:
        store.close()


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False)))
def test_action_times_round_trip_exactly_whatever_their_precision(raw: list[float]) -> None:
    """Millisecond times are stored as steps; any others are kept as they are. Either way the
    record loads with the very same floats."""
    for times in (raw, [round(t, 3) for t in raw]):
        record = {"preset": "classic", "times": times}
        assert unpack_record(pack_record(record)) == record


ACTIONS = st.lists(
    st.tuples(st.integers(-2, 12), st.text(max_size=12)).map(list)
    | st.sampled_from([[0, "play 7h 7d"], [1, "take"], [2, "swap Jh 1"], [3, "flip 2"], [0, "ready"], [1, ""]])
)


@given(ACTIONS)
def test_actions_round_trip_exactly_whatever_they_hold(actions: list[list[object]]) -> None:
    """Actions in the compact form when it gives them back exactly (any seat, any text: the
    fallback keeps the others as they are)."""
    record = {"preset": "classic", "actions": actions}
    assert unpack_record(pack_record(record)) == record
