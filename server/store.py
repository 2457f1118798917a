"""SQLite storage in one file: accounts and the records of finished games.

The embedded default: no other service is needed. :class:`Store` is synchronous and not
thread-safe by itself; the asyncio shell drives it from one dedicated writer thread, so
writes never block the event loop and all of them are finished before shutdown.

Passwords are stored as ``hashlib.scrypt`` hashes with a per-account random salt; hashing is
done by the caller (see :mod:`server.auth`), which runs it in an executor.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name     TEXT PRIMARY KEY COLLATE NOCASE,
    salt     BLOB NOT NULL,
    hash     BLOB NOT NULL,
    bot      INTEGER NOT NULL DEFAULT 0,
    created  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name  TEXT NOT NULL,
    preset      TEXT NOT NULL,
    players     TEXT NOT NULL,      -- JSON list of names, by seat
    record      TEXT NOT NULL,      -- JSON: server.engine.Record.to_dict() plus action times
    result      TEXT NOT NULL,      -- JSON: places, loser, capped
    started     REAL NOT NULL,
    ended       REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    salt: bytes
    hash: bytes
    bot: bool


class Store:
    """Accounts and game records in the SQLite file at ``path`` (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        # The writer thread is the only user; check_same_thread is off because it is not
        # the thread that opened the file.
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    # --- accounts

    def account(self, name: str) -> Account | None:
        row = self.db.execute("SELECT name, salt, hash, bot FROM accounts WHERE name = ?", (name,)).fetchone()
        return Account(row[0], row[1], row[2], bool(row[3])) if row else None

    def create_account(self, name: str, salt: bytes, pw_hash: bytes, *, bot: bool) -> bool:
        """Register ``name``; False if it exists already (names are case-insensitive)."""
        try:
            self.db.execute("INSERT INTO accounts (name, salt, hash, bot, created) VALUES (?, ?, ?, ?, ?)",
                            (name, salt, pw_hash, int(bot), time.time()))
        except sqlite3.IntegrityError:
            return False
        return True

    # --- games

    def save_game(self, *, game_id: int, table_name: str, preset: str, players: list[str],
                  record: dict[str, Any], result: dict[str, Any], started: float, ended: float) -> None:
        """Store a finished game under ``game_id`` (allocated by the server at the deal)."""
        self.db.execute(
            "INSERT INTO games (id, table_name, preset, players, record, result, started, ended) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, table_name, preset, json.dumps(players), json.dumps(record), json.dumps(result),
             started, ended))
        log.debug("stored game %d of table %r", game_id, table_name)

    def last_game_id(self) -> int:
        """The highest stored game id (0 if none): new games are numbered after it."""
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])

    def game(self, game_id: int) -> dict[str, Any] | None:
        """The stored game: id, table, preset, players, record, result, started, ended."""
        row = self.db.execute(
            "SELECT id, table_name, preset, players, record, result, started, ended FROM games WHERE id = ?",
            (game_id,)).fetchone()
        if row is None:
            return None
        return {"id": row[0], "table_name": row[1], "preset": row[2], "players": json.loads(row[3]),
                "record": json.loads(row[4]), "result": json.loads(row[5]), "started": row[6], "ended": row[7]}

    def game_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
