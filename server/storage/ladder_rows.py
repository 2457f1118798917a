"""The ladder's rows in the server's SQLite file (schema version 5 of :mod:`server.storage.store`):
who is on the ladder, and every finished ladder game in the order it finished. Ratings are not
stored; they are folded again from the games at start (:func:`server.ladder.ratings.fold_all`).

The writes are operations for the journal (a finished game's row goes in the batch of the
game's last action and its record); the reading runs on the database thread at start."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.ladder.ratings import LadderGame

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_members (
    key       TEXT PRIMARY KEY,         -- protocol.names.name_key of the name
    name      TEXT NOT NULL,
    identity  TEXT NOT NULL,            -- server.login.identity: account:<key>
    presets   TEXT NOT NULL             -- JSON list
);
CREATE TABLE IF NOT EXISTS ladder_games (
    n       INTEGER PRIMARY KEY,        -- 0, 1, 2 ... in the order the games finished
    game    INTEGER NOT NULL UNIQUE,    -- the server's game id (games.id)
    result  TEXT NOT NULL               -- JSON: server.ladder.ratings.LadderGame.to_json()
);
"""

Op = tuple[str, Sequence[Any]]


@dataclass(frozen=True)
class MemberRow:
    name: str
    identity: str
    presets: tuple[str, ...]


@dataclass
class LadderState:
    """What :func:`load` reads back."""

    members: dict[str, MemberRow] = field(default_factory=dict)
    """By name key."""
    games: list[LadderGame] = field(default_factory=list)
    """In the order they finished."""


def member_op(key: str, m: MemberRow) -> Op:
    return (
        "INSERT OR REPLACE INTO ladder_members (key, name, identity, presets) VALUES (?, ?, ?, ?)",
        (key, m.name, m.identity, json.dumps(list(m.presets))),
    )


def member_gone_op(key: str) -> Op:
    return ("DELETE FROM ladder_members WHERE key = ?", (key,))


def game_op(n: int, g: LadderGame) -> Op:
    return (
        "INSERT OR REPLACE INTO ladder_games (n, game, result) VALUES (?, ?, ?)",
        (n, g.game, json.dumps(g.to_json(), separators=(",", ":"))),
    )


def load(db: sqlite3.Connection) -> LadderState:
    """The ladder as written (on the database thread)."""
    state = LadderState()
    for key, name, identity, presets in db.execute("SELECT key, name, identity, presets FROM ladder_members"):
        state.members[key] = MemberRow(name, identity, tuple(json.loads(presets)))
    state.games = [
        LadderGame.from_json(json.loads(r)) for (r,) in db.execute("SELECT result FROM ladder_games ORDER BY n")
    ]
    return state
