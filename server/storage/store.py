"""SQLite storage in one file: accounts, finished games, and the live state of the server.

The embedded default: no other service is needed. :class:`Store` is synchronous and not
thread-safe by itself; the asyncio shell drives it from one dedicated writer thread, so
writes never block the event loop and all of them are finished before shutdown.

What is kept (schema version 5):

* ``accounts`` and ``games`` (finished games' records), as in version 1; version 4 gives each
  account the key of its name (:func:`protocol.names.name_key`), unique, which is how a name is
  looked up, and adds ``logins``: the hashes of the login tokens given out at login (who they
  stand for: an account's or a guest's identity and name), until ``logout``; a guest's token
  unused for :data:`GUEST_LOGIN_DAYS` days is dropped when the server opens the file;
* the **live state**, written as it happens by :mod:`server.storage.journal`: ``live_tables`` (one
  JSON snapshot per open table: settings, seats with token hashes, series, clocks), ``live_games``
  (the latest deal of each table: deck, dealer, the series' random state after dealing) and
  ``live_actions`` (every action applied in the game in progress), ``live_tournaments`` (one
  snapshot per tournament), ``live_tournament_games`` (one row per finished tournament game,
  written once as it ends: version 3; version 2 kept them in the snapshot, rewritten after
  every game) and ``meta`` (id counters, the last heartbeat). :mod:`server.storage.persist` turns these rows back into
  tables and tournaments;
* the **ladder** (version 5, :mod:`server.storage.ladder_rows`): ``ladder_members`` (who is on it and
  on which presets) and ``ladder_games`` (every finished ladder game, in the order it finished;
  the ratings are folded again from them at start);
* **challenges** (version 6, :mod:`server.storage.challenge_rows`): ``ladder_challenges`` (each
  as asked, with its status) and ``ladder_challenge_games`` (each finished game of one).

Durability: WAL with ``synchronous=NORMAL`` (a commit is in the operating system's hands when
it returns: a crash or ``kill -9`` of the server loses nothing committed; a power cut or an
operating-system crash can lose the last commits before the WAL's next checkpoint, never
leaving the file inconsistent). ``synchronous = "full"`` in the configuration syncs every
commit to the disk as well.

Checkpoints (copying the WAL back into the file, with its syncs) are SQLite's automatic ones
(every 1,000 WAL pages, inside the commit that crosses the mark) unless the store is opened with
``autocheckpoint=False``: then no commit checkpoints, and the owner calls :meth:`Store.checkpoint`
from another thread, which checkpoints on a connection of its own while commits go on (the
server does, every sweeper round: see :class:`server.shell.app.App`).

Opening checks the file: a file that is not a database, a database of a newer schema, one that
another server holds, or one that cannot be written raises :class:`StoreError` with one line
naming the file and the problem. Version 1 to 5 databases are migrated in place (versions 5 and 6 only add tables).

Passwords are stored as ``hashlib.scrypt`` hashes with a per-account random salt; hashing is
done by the caller (see :mod:`server.login.auth`), which runs it in an executor.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.names import name_key
from server.storage.challenge_rows import SCHEMA as CHALLENGE_SCHEMA
from server.storage.ladder_rows import SCHEMA as LADDER_SCHEMA
from server.storage.record_codec import pack_record, unpack_record

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6
GUEST_LOGIN_DAYS = 30
"""A guest's login token unused this many days is forgotten (its name is long free anyway)."""

_SCHEMA_V1 = """
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
    record      TEXT NOT NULL,      -- JSON: server.engine.ReplayRecord.to_dict() plus action times
                                    -- (a compressed BLOB: server.storage.record_codec)
    result      TEXT NOT NULL,      -- JSON: places, loser, capped
    started     REAL NOT NULL,
    ended       REAL NOT NULL
);
"""

_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL                -- JSON
);
CREATE TABLE IF NOT EXISTS live_tables (
    id        INTEGER PRIMARY KEY,
    snapshot  TEXT NOT NULL             -- JSON: server.storage.persist.table_snapshot()
);
CREATE TABLE IF NOT EXISTS live_games (
    table_id  INTEGER PRIMARY KEY,
    deal      TEXT NOT NULL,            -- JSON: server.storage.persist.deal_of()
    rng       BLOB                      -- the series' random state after this deal
);
CREATE TABLE IF NOT EXISTS live_actions (
    table_id  INTEGER NOT NULL,
    n         INTEGER NOT NULL,         -- 0-based index in the game's history
    seat      INTEGER NOT NULL,
    action    TEXT NOT NULL,
    t         REAL NOT NULL,            -- seconds since the deal
    timeout   INTEGER NOT NULL,         -- played by the clock
    bank      REAL NOT NULL,            -- the acting seat's bank after it
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_tournaments (
    id        INTEGER PRIMARY KEY,
    snapshot  TEXT NOT NULL             -- JSON: server.storage.persist.tournament_snapshot()
);
"""

_SCHEMA_V3 = """
CREATE TABLE IF NOT EXISTS live_tournament_games (
    tournament  INTEGER NOT NULL,
    number      INTEGER NOT NULL,
    result      TEXT NOT NULL,          -- JSON: server.storage.persist.finished_game()
    PRIMARY KEY (tournament, number)
);
"""

_SCHEMA_V4 = """
CREATE TABLE IF NOT EXISTS logins (
    token_hash  BLOB PRIMARY KEY,       -- SHA-256 of the login token
    identity    TEXT NOT NULL,          -- server.login.identity: account:<key> or guest:<random>
    name        TEXT NOT NULL,
    bot         INTEGER NOT NULL,
    created     REAL NOT NULL,
    used        REAL NOT NULL
) WITHOUT ROWID;
"""

_SCHEMA_V5 = LADDER_SCHEMA  # the ladder's members and finished games (server.storage.ladder_rows)

_SCHEMA_V6 = CHALLENGE_SCHEMA  # challenges and their finished games (server.storage.challenge_rows)

#: A write for :meth:`Store.write_batch`: SQL and its parameters.
Op = tuple[str, Sequence[Any]]


class StoreError(Exception):
    """The database cannot be used; ``str()`` is one line naming the file and the problem."""


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    salt: bytes
    hash: bytes
    bot: bool


@dataclass(frozen=True, slots=True)
class Login:
    """What a login token stands for."""

    identity: str
    name: str
    bot: bool


@dataclass
class LiveState:
    """Everything :meth:`Store.load_live` reads back: rows in id order."""

    meta: dict[str, Any] = field(default_factory=dict)
    tables: list[dict[str, Any]] = field(default_factory=list)
    deals: dict[int, tuple[dict[str, Any], bytes | None]] = field(default_factory=dict)
    actions: dict[int, list[tuple[int, int, str, float, bool, float]]] = field(default_factory=dict)
    """Per table id: ``(n, seat, action, t, timeout, bank)`` in order."""
    tournaments: list[dict[str, Any]] = field(default_factory=list)
    tournament_games: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Per tournament id: its finished games in number order."""


def _describe(path: str, exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
        text += " (the file is damaged or is not a shithead-server database)"
    elif "readonly" in text or "read-only" in text or isinstance(exc, PermissionError):
        text += " (the server needs to write it: check its permissions and the directory's)"
    elif "locked" in text:
        text += " (another program holds a lock on it)"
    return f"database {path}: {text}"


def _key_accounts(db: sqlite3.Connection) -> None:
    """Version 4: every account gets the key of its name (older ones are ASCII, where the key
    is the lower case that ``COLLATE NOCASE`` compared, so no two can collide)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(accounts)")}
    if "key" not in columns:
        db.execute("ALTER TABLE accounts ADD COLUMN key TEXT")
        for (name,) in db.execute("SELECT name FROM accounts").fetchall():
            db.execute("UPDATE accounts SET key = ? WHERE name = ?", (name_key(name), name))
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS accounts_key ON accounts (key)")


def _move_finished_tournament_games(db: sqlite3.Connection) -> None:
    """Version 2 -> 3: a tournament snapshot's list of finished games becomes one row per game."""
    for tid, text in db.execute("SELECT id, snapshot FROM live_tournaments").fetchall():
        snap = json.loads(text)
        finished = snap.pop("finished", None)
        if finished is None:
            continue
        db.executemany(
            "INSERT OR REPLACE INTO live_tournament_games (tournament, number, result) VALUES (?, ?, ?)",
            [(tid, f["number"], json.dumps(f, separators=(",", ":"))) for f in finished],
        )
        db.execute(
            "UPDATE live_tournaments SET snapshot = ? WHERE id = ?", (json.dumps(snap, separators=(",", ":")), tid)
        )


class Store:
    """Accounts, game records and live state in the SQLite file at ``path`` (``":memory:"``
    for tests). Raises :class:`StoreError` if the file cannot be used (module docstring)."""

    def __init__(
        self, path: str | Path, *, synchronous: str = "normal", busy_timeout: float = 2.0, autocheckpoint: bool = True
    ) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        self._checkpointer: sqlite3.Connection | None = None
        # Held while the checkpointer's connection is used or closed: closing a connection that
        # another thread is inside crashes the interpreter (sqlite3 does not guard it).
        self._checkpoint_lock = threading.Lock()
        self._closed = False
        self._busy_timeout = busy_timeout
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._lock()
            # The writer thread is the only user; check_same_thread is off because it is not
            # the thread that opened the file.
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=busy_timeout)
        except (OSError, sqlite3.Error) as exc:
            self._unlock()
            raise StoreError(_describe(self.path, exc)) from None
        try:
            self._open(synchronous)
            if not autocheckpoint:
                self.db.execute("PRAGMA wal_autocheckpoint=0")
        except (OSError, sqlite3.Error, StoreError) as exc:
            self.db.close()
            self._unlock()
            raise exc if isinstance(exc, StoreError) else StoreError(_describe(self.path, exc)) from None

    def _lock(self) -> None:
        """One server per database file: an exclusive lock on ``FILE.lock`` for our lifetime."""
        if fcntl is None:  # not on POSIX: SQLite's own locks still keep the file consistent
            return
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(
                f"database {self.path}: another shithead-server is using it (its lock file {self.path}.lock is held)"
            ) from None
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _open(self, synchronous: str) -> None:
        db = self.db
        # Reading the header first turns a damaged file into an error here, not later.
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"database {self.path}: schema version {version} is newer than this server's "
                f"({SCHEMA_VERSION}): use a newer shithead-server"
            )
        # A new file gets 1 KiB pages (before WAL: its page size is fixed from then on). A game's
        # record is a few KiB; on 4 KiB pages each left a quarter of its page empty (3.85 KiB
        # of file per 2.9 KiB record), on 1 KiB pages a record's tail goes to full overflow
        # pages (3.25 KiB). Existing files keep their page size: this is a no-op for them.
        db.execute("PRAGMA page_size=1024")
        if str(db.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower() != "wal" and self.path != ":memory:":
            raise StoreError(f"database {self.path}: cannot switch to WAL journaling (is the file read-only?)")
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise StoreError(f"synchronous must be normal or full, not {synchronous!r}")
        db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        db.execute("BEGIN IMMEDIATE")  # fails at once on a read-only or locked file
        try:
            for stmt in (_SCHEMA_V1 + _SCHEMA_V2 + _SCHEMA_V3 + _SCHEMA_V4 + _SCHEMA_V5 + _SCHEMA_V6).split(";"):
                if stmt.strip():
                    db.execute(stmt)
            if version == 2:
                _move_finished_tournament_games(db)
            _key_accounts(db)
            db.execute(
                "DELETE FROM logins WHERE identity LIKE 'guest:%' AND used < ?",
                (time.time() - GUEST_LOGIN_DAYS * 86400,),
            )
            if version != SCHEMA_VERSION:
                if version:
                    log.info("database %s: migrated schema %d -> %d", self.path, version, SCHEMA_VERSION)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            # A real write now: a file that cannot be written fails here, not at the first action.
            db.execute(*self.meta_op("opened", time.time()))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("PRAGMA integrity_check(1)").fetchone()

    def checkpoint(self) -> tuple[int, int]:
        """Copy what the WAL holds back into the database file (a ``PASSIVE`` checkpoint: it
        never waits for the writer, nor makes it wait), on a connection of its own, opened at
        the first call; returns SQLite's (pages in the WAL, pages copied). Call it from one
        thread, never the writer's. :meth:`close` waits for a checkpoint under way; after it,
        this does nothing and returns (0, 0), as for a ``":memory:"`` store, which has no WAL.
        For a store opened with ``autocheckpoint=False`` (module docstring)."""
        if self.path == ":memory:":
            return (0, 0)
        with self._checkpoint_lock:
            if self._closed:
                return (0, 0)
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self.path, check_same_thread=False, isolation_level=None, timeout=self._busy_timeout
                )
            row = self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            return (int(row[1]), int(row[2]))

    def close(self) -> None:
        """Close the file (after a checkpoint under way on another thread has finished)."""
        try:
            with self._checkpoint_lock:
                self._closed = True
                if self._checkpointer is not None:
                    self._checkpointer.close()
            self.db.close()
        finally:
            self._unlock()

    # --- batches (the journal's group commit)

    def write_batch(self, ops: Iterable[Op]) -> None:
        """Execute ``ops`` in one transaction and commit; on any error roll back and raise
        (nothing of the batch is then written)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            # Runs of the same statement (a pass's actions) go to SQLite in one executemany.
            for sql, run in itertools.groupby(ops, key=lambda op: op[0]):
                db.executemany(sql, [params for _, params in run])
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    # --- accounts

    def account(self, name: str) -> Account | None:
        """The account whose name is ``name`` by key (case and width do not matter)."""
        row = self.db.execute("SELECT name, salt, hash, bot FROM accounts WHERE key = ?", (name_key(name),)).fetchone()
        return Account(row[0], row[1], row[2], bool(row[3])) if row else None

    def create_account(self, name: str, salt: bytes, pw_hash: bytes, *, bot: bool) -> bool:
        """Register ``name``; False if an account of that name (by key) exists already."""
        try:
            self.db.execute(
                "INSERT INTO accounts (name, key, salt, hash, bot, created) VALUES (?, ?, ?, ?, ?, ?)",
                (name, name_key(name), salt, pw_hash, int(bot), time.time()),
            )
        except sqlite3.IntegrityError:
            return False
        return True

    # --- login tokens

    def add_login(self, token_hash: bytes, identity: str, name: str, *, bot: bool) -> None:
        """Keep a login token (its hash) given to ``identity`` logged in as ``name``."""
        now = time.time()
        self.db.execute(
            "INSERT INTO logins (token_hash, identity, name, bot, created, used) VALUES (?, ?, ?, ?, ?, ?)",
            (token_hash, identity, name, int(bot), now, now),
        )

    def login(self, token_hash: bytes) -> Login | None:
        """Whom the login token with this hash stands for (and mark it used now), if anyone."""
        row = self.db.execute("SELECT identity, name, bot FROM logins WHERE token_hash = ?", (token_hash,)).fetchone()
        if row is None:
            return None
        try:
            self.db.execute("UPDATE logins SET used = ? WHERE token_hash = ?", (time.time(), token_hash))
        except sqlite3.Error as exc:  # (a full disk: the login goes on; only the date is not kept)
            log.warning("could not note the use of a login token: %s", exc)
        return Login(row[0], row[1], bool(row[2]))

    def drop_login(self, token_hash: bytes) -> None:
        """End a login token (``logout``)."""
        self.db.execute("DELETE FROM logins WHERE token_hash = ?", (token_hash,))

    # --- games

    @staticmethod
    def save_game_op(
        *,
        game_id: int,
        table_name: str,
        preset: str,
        players: list[str],
        record: dict[str, Any],
        result: dict[str, Any],
        started: float,
        ended: float,
    ) -> Op:
        """The write that stores a finished game under ``game_id`` (allocated at the deal)."""
        return (
            "INSERT OR REPLACE INTO games (id, table_name, preset, players, record, result, started, ended) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game_id,
                table_name,
                preset,
                json.dumps(players),
                pack_record(record),
                json.dumps(result),
                started,
                ended,
            ),
        )

    def save_game(self, **game: Any) -> None:
        """Store a finished game at once (see :meth:`save_game_op`)."""
        self.write_batch([self.save_game_op(**game)])

    def last_game_id(self) -> int:
        """The highest stored game id (0 if none): new games are numbered after it."""
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])

    def game(self, game_id: int) -> dict[str, Any] | None:
        """The stored game: id, table, preset, players, record, result, started, ended."""
        row = self.db.execute(
            "SELECT id, table_name, preset, players, record, result, started, ended FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0],
            "table_name": row[1],
            "preset": row[2],
            "players": json.loads(row[3]),
            "record": unpack_record(row[4]),
            "result": json.loads(row[5]),
            "started": row[6],
            "ended": row[7],
        }

    def game_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # --- live state: the writes

    @staticmethod
    def action_op(table_id: int, n: int, seat: int, action: str, t: float, timeout: bool, bank: float) -> Op:
        return (
            "INSERT OR REPLACE INTO live_actions (table_id, n, seat, action, t, timeout, bank) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_id, n, seat, action, t, int(timeout), bank),
        )

    @staticmethod
    def deal_ops(table_id: int, deal: dict[str, Any], rng: bytes | None) -> list[Op]:
        """A new game at the table: its deal replaces the last one, whose actions go. (The last
        game's deal and actions stay until then, even once it is over: the series' random state,
        and the final position for players who come back to it.)"""
        return [
            ("DELETE FROM live_actions WHERE table_id = ?", (table_id,)),
            (
                "INSERT OR REPLACE INTO live_games (table_id, deal, rng) VALUES (?, ?, ?)",
                (table_id, json.dumps(deal), rng),
            ),
        ]

    @staticmethod
    def table_op(table_id: int, snapshot: dict[str, Any]) -> Op:
        return (
            "INSERT OR REPLACE INTO live_tables (id, snapshot) VALUES (?, ?)",
            (table_id, json.dumps(snapshot, separators=(",", ":"))),
        )

    @staticmethod
    def table_gone_ops(table_id: int) -> list[Op]:
        return [
            ("DELETE FROM live_tables WHERE id = ?", (table_id,)),
            ("DELETE FROM live_games WHERE table_id = ?", (table_id,)),
            ("DELETE FROM live_actions WHERE table_id = ?", (table_id,)),
        ]

    @staticmethod
    def tournament_op(tid: int, snapshot: dict[str, Any]) -> Op:
        return (
            "INSERT OR REPLACE INTO live_tournaments (id, snapshot) VALUES (?, ?)",
            (tid, json.dumps(snapshot, separators=(",", ":"))),
        )

    @staticmethod
    def tournament_game_op(tid: int, number: int, result: dict[str, Any]) -> Op:
        return (
            "INSERT OR REPLACE INTO live_tournament_games (tournament, number, result) VALUES (?, ?, ?)",
            (tid, number, json.dumps(result, separators=(",", ":"))),
        )

    @staticmethod
    def meta_op(key: str, value: Any) -> Op:
        return ("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # --- live state: reading it back

    def load_live(self) -> LiveState:
        """The live state as written (see :class:`LiveState`)."""
        db = self.db
        live = LiveState()
        live.meta = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
        live.tables = [json.loads(s) for (s,) in db.execute("SELECT snapshot FROM live_tables ORDER BY id")]
        live.deals = {
            tid: (json.loads(d), rng) for tid, d, rng in db.execute("SELECT table_id, deal, rng FROM live_games")
        }
        for tid, n, seat, action, t, timeout, bank in db.execute(
            "SELECT table_id, n, seat, action, t, timeout, bank FROM live_actions ORDER BY table_id, n"
        ):
            live.actions.setdefault(tid, []).append((n, seat, action, t, bool(timeout), bank))
        live.tournaments = [json.loads(s) for (s,) in db.execute("SELECT snapshot FROM live_tournaments ORDER BY id")]
        for tid, result in db.execute(
            "SELECT tournament, result FROM live_tournament_games ORDER BY tournament, number"
        ):
            live.tournament_games.setdefault(tid, []).append(json.loads(result))
        return live
