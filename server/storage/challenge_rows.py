"""Challenges in the server's SQLite file (schema version 6 of :mod:`server.storage.store`): each
challenge as asked, and each of its finished games, so that a challenge survives a restart like
the rest (docs/PROTOCOL.md, "Challenges").

A challenge's row is written in the batch of the request (``challenge`` is answered once it is
committed) and again when its status changes; a game's row in the batch of the game's last
action and its record. At start :func:`load` reads them back; the challenge service
(:mod:`server.ladder.challenge_desk`) queues the unfinished ones again, which go on from their
next game (a game that was running at the stop is played again from its deal)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from server.ladder.challenges import Challenge

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_challenges (
    id      INTEGER PRIMARY KEY,
    spec    TEXT NOT NULL,              -- JSON: by, identity, preset, bots, layout, deals, seed
    status  TEXT NOT NULL               -- waiting, running, finished, cancelled
);
CREATE TABLE IF NOT EXISTS ladder_challenge_games (
    challenge  INTEGER NOT NULL,
    n          INTEGER NOT NULL,        -- 0, 1, 2 ... the game's number in the challenge
    game       INTEGER NOT NULL,        -- the server's game id
    places     TEXT NOT NULL,           -- JSON: each seat's place (1 = first out)
    PRIMARY KEY (challenge, n)
) WITHOUT ROWID;
"""

Op = tuple[str, Sequence[Any]]


def challenge_op(c: Challenge) -> Op:
    spec = {
        "by": c.by,
        "identity": c.identity,
        "preset": c.preset,
        "bots": list(c.bots),
        "layout": c.layout,
        "deals": c.deals,
        "seed": c.seed,
    }
    return (
        "INSERT OR REPLACE INTO ladder_challenges (id, spec, status) VALUES (?, ?, ?)",
        (c.id, json.dumps(spec, separators=(",", ":")), c.status),
    )


def game_op(c: Challenge) -> Op:
    """The row of ``c``'s latest finished game."""
    n = len(c.games) - 1
    return (
        "INSERT OR REPLACE INTO ladder_challenge_games (challenge, n, game, places) VALUES (?, ?, ?, ?)",
        (c.id, n, c.games[n], json.dumps(list(c.places[n]))),
    )


def load(db: sqlite3.Connection) -> list[Challenge]:
    """Every stored challenge with its finished games, by id (on the database thread)."""
    out: dict[int, Challenge] = {}
    for cid, spec_text, status in db.execute("SELECT id, spec, status FROM ladder_challenges ORDER BY id"):
        s = json.loads(spec_text)
        c = Challenge(
            cid, s["by"], s["identity"], s["preset"], tuple(s["bots"]), s["layout"], s["deals"], s["seed"], status
        )
        out[cid] = c
    rows = db.execute("SELECT challenge, game, places FROM ladder_challenge_games ORDER BY challenge, n")
    for cid, game, places in rows:
        known = out.get(cid)
        if known is not None:
            known.games.append(game)
            known.places.append(tuple(json.loads(places)))
    return list(out.values())
