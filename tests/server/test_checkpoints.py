"""The server's commits never checkpoint the WAL: the store is opened with
``autocheckpoint=False`` and :meth:`Store.checkpoint` copies the WAL back on a connection of its
own (issue 32: SQLite's automatic checkpoint ran inside the commit that crossed 1,000 WAL pages,
and the messages held for that batch waited for its syncs)."""

from __future__ import annotations

import threading
from pathlib import Path

from server.storage.store import Store
from tests.server.waiting import GUARD


def commit_many(store: Store, n: int) -> None:
    for i in range(n):
        store.write_batch([Store.meta_op("k", i)])


def test_commits_leave_the_wal_to_checkpoint(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3", autocheckpoint=False)
    try:
        commit_many(store, 1200)  # past SQLite's automatic mark (1,000 pages)
        in_wal, copied = store.checkpoint()
        assert in_wal >= 1200 and copied == in_wal  # nothing was checkpointed before
        commit_many(store, 10)  # the WAL starts again from its beginning after a full checkpoint
        in_wal, copied = store.checkpoint()
        assert 10 <= in_wal < 1200 and copied == in_wal
    finally:
        store.close()
    again = Store(tmp_path / "db.sqlite3")
    try:
        assert again.db.execute("SELECT value FROM meta WHERE key = 'k'").fetchone()[0] == "9"
    finally:
        again.close()


def test_by_default_commits_checkpoint_as_sqlite_does(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    try:
        commit_many(store, 1200)
        in_wal, _ = store.checkpoint()
        assert in_wal < 1200  # checkpointed at 1,000 pages, and the WAL started again
    finally:
        store.close()


def test_a_memory_store_has_no_wal() -> None:
    store = Store(":memory:", autocheckpoint=False)
    try:
        assert store.checkpoint() == (0, 0)
    finally:
        store.close()


def test_close_waits_for_a_checkpoint_and_later_ones_do_nothing(tmp_path: Path) -> None:
    """close() takes the checkpointer's lock (closing a connection another thread is inside
    crashed the interpreter: a test's crash() closed the store under a running checkpoint), so it
    returns only once a checkpoint under way is done; a checkpoint after close does nothing."""
    store = Store(tmp_path / "db.sqlite3", autocheckpoint=False)
    commit_many(store, 5)
    assert store.checkpoint()[1] >= 5
    closing = threading.Thread(target=store.close)
    with store._checkpoint_lock:  # as a checkpoint under way holds it
        closing.start()
        closing.join(timeout=0.2)  # (a bound: the assertion is that it is still waiting)
        assert closing.is_alive(), "close() went ahead of a checkpoint under way"
    closing.join(timeout=GUARD)
    assert not closing.is_alive()
    assert store.checkpoint() == (0, 0)
