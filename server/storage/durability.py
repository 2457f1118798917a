"""The server's live state in its database: written as it happens, read back at start.

:class:`Durability` sits between the pure coordinators and the storage:

* the tables report what changed as journal facts (:class:`server.tables.table.Applied`,
  :class:`~server.tables.table.Dealt`, :class:`~server.tables.table.Changed`) in their outbox; the shell hands
  them to :meth:`Durability.save`, which turns actions and deals into writes at once and marks
  changed tables (and tournaments, through :meth:`tournament_changed`) so that their snapshots are
  taken when the batch is sealed (:mod:`server.storage.journal`);
* :meth:`Durability.load` reads the live state back and rebuilds tables and tournaments with
  :mod:`server.storage.persist`; a table whose rows do not replay is logged and left out (the server
  still starts), never silently changed.

A heartbeat (:meth:`heartbeat`, from the sweeper) records when the server last ran, so that
clocks resume after a crash with what they had left.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from server.engine import format_action
from server.storage.db_thread import DbThread
from server.storage.journal import Journal
from server.storage.persist import (
    RestoreError,
    deal_of,
    finished_game,
    restore_table,
    restore_tournament,
    rng_state,
    table_snapshot,
    tournament_snapshot,
)
from server.storage.store import Op, Store
from server.tables.table import Applied, Changed, Dealt, FinishedGame, Table
from server.tournament.director import Finished, Tournament

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class StoreCalls:
    """Runs store calls on the writer thread, the one thread that uses SQLite, so that the
    event loop never waits on the disk: ``await db(store.account, name)``."""

    def __init__(self, thread: DbThread) -> None:
        self.thread = thread

    async def __call__(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.thread, lambda: fn(*args, **kwargs))


@dataclass
class Restored:
    """What :meth:`Durability.load` brings back."""

    tables: list[Table] = field(default_factory=list)
    tournaments: list[Tournament] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)
    """One line per table or tournament that could not be rebuilt."""


def wall_of(monotonic: float) -> float:
    """The wall-clock time of a monotonic time (both clocks read now)."""
    return monotonic + (time.time() - time.monotonic())


class Durability:
    """Writes the live state through a :class:`Journal` (see the module docstring).

    ``tables`` and ``tournaments`` are the server's live dicts (read at sealing to tell a
    changed table from one that is gone); ``counters`` returns the id counters to keep."""

    def __init__(
        self,
        store: Store,
        thread: DbThread,
        *,
        tables: dict[int, Table],
        tournaments: dict[int, Tournament],
        counters: Callable[[], dict[str, int]],
        on_commit: Callable[[int], None],
        on_recovery: Callable[[float], None],
    ) -> None:
        self.store = store
        self.tables = tables
        self.tournaments = tournaments
        self.counters = counters
        self.journal = Journal(store, thread, collect=self._collect, on_commit=on_commit, on_recovery=on_recovery)
        self._changed: dict[int, Table | None] = {}
        self._changed_tournaments: set[int] = set()
        self._counters_written: dict[str, int] = {}

    # ------------------------------------------------------------------ writing

    def save(self, facts: list[Applied | Dealt | Changed]) -> None:
        """Journal the facts of one outbox, in order."""
        journal = self.journal
        for f in facts:
            if type(f) is Applied:
                journal.write(Store.action_op(f.table.id, f.n, f.seat, format_action(f.action), f.t, f.timeout, f.bank))
            elif type(f) is Changed:
                self._changed[f.table.id] = f.table
                journal.touch()
            else:
                t = f.table
                journal.write(*Store.deal_ops(t.id, deal_of(t, wall_of(t.started_at)), rng_state(t.series.rng)))
                self._changed[t.id] = t
        # (the hot path: most outboxes hold one Applied and no Changed)

    def table_changed(self, t: Table) -> None:
        self._changed[t.id] = t
        self.journal.touch()

    def table_gone(self, table_id: int) -> None:
        """The table was closed: its rows go when the batch is sealed."""
        self._changed[table_id] = None
        self.journal.touch()

    def game_finished(self, g: FinishedGame) -> None:
        """Store the finished game's record (in the batch of its last action)."""
        self.journal.write(
            Store.save_game_op(
                game_id=g.game_id,
                table_name=g.table_name,
                preset=g.preset,
                players=g.players,
                record=g.record,
                result=g.result,
                started=g.started_wall if g.started_wall is not None else wall_of(g.started),
                ended=wall_of(g.ended),
            )
        )

    def tournament_changed(self, tid: int) -> None:
        self._changed_tournaments.add(tid)
        self.journal.touch()

    def tournament_game(self, tid: int, fin: Finished) -> None:
        """Keep a finished tournament game (once: the snapshot does not repeat it)."""
        self.journal.write(Store.tournament_game_op(tid, fin.result.number, finished_game(fin)))

    def heartbeat(self) -> None:
        """Record that the server runs now (clocks resume from the last heartbeat after a crash)."""
        self.journal.write(Store.meta_op("alive", time.time()))

    def _collect(self) -> list[Op]:
        """At sealing: the snapshots of what changed in this batch, and the id counters."""
        ops: list[Op] = []
        for tid, t in self._changed.items():
            if t is None or self.tables.get(tid) is not t:
                ops.extend(Store.table_gone_ops(tid))
            else:
                ops.append(Store.table_op(tid, table_snapshot(t)))
        self._changed.clear()
        for tid in self._changed_tournaments:
            tour = self.tournaments.get(tid)
            if tour is not None:
                ops.append(Store.tournament_op(tid, tournament_snapshot(tour)))
        self._changed_tournaments.clear()
        counters = self.counters()
        if counters != self._counters_written:
            ops.append(Store.meta_op("counters", counters))
            self._counters_written = dict(counters)
        return ops

    # ------------------------------------------------------------------ reading back

    def load(self, *, grace: float) -> Restored:
        """Rebuild the live state (runs on the writer thread: it reads the store)."""
        live = self.store.load_live()
        now = time.monotonic()
        alive = float(live.meta.get("alive", 0.0))
        out = Restored(counters=dict(live.meta.get("counters", {})))
        self._counters_written = dict(out.counters)
        for snap in live.tables:
            tid = snap.get("id")
            found = live.deals.get(tid) if isinstance(tid, int) else None
            deal, rng = found if found is not None else (None, None)
            actions = live.actions.get(tid, []) if isinstance(tid, int) else []
            crashed = alive
            if deal is not None and actions:
                crashed = max(crashed, deal["started"] + actions[-1][3])
            try:
                out.tables.append(restore_table(snap, deal, rng, actions, now=now, crashed_wall=crashed, grace=grace))
            except RestoreError as exc:
                out.lost.append(str(exc))
        for snap in live.tournaments:
            try:
                tid = snap.get("id")
                finished = live.tournament_games.get(tid, []) if isinstance(tid, int) else []
                out.tournaments.append(restore_tournament(snap, finished))
            except RestoreError as exc:
                out.lost.append(str(exc))
        for line in out.lost:
            log.error("could not restore %s; it is left out", line)
        return out
