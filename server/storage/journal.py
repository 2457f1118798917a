"""Group commit: the writes of one pass of the event loop are committed together.

The server changes its state on the event loop and tells players about it; what it tells must
survive a crash. So every change is written here first, as SQL operations
(:data:`server.storage.store.Op`), and every message sent while a change is not yet committed is held
back until it is (:class:`server.shell.app.ClientSession` asks :attr:`Journal.barrier`).

* :meth:`Journal.write` adds operations to the **open batch** and, once per pass of the event
  loop, schedules its sealing (``call_soon``: after every callback of this pass).
* Sealing adds what ``collect`` returns (snapshots of the tables that changed, taken now) and
  hands the batch to the writer thread, which commits it in one transaction. At most one batch
  is in flight: what is written meanwhile waits in the next open batch, so under load one
  commit carries the actions of many passes.
* When a batch is committed, ``on_commit(number)`` releases the messages held for it.
* When a commit fails (a full disk), the batch is kept, :attr:`failed` is set (the server refuses
  requests that write and stops the clocks while it is), ``on_failure`` is called once, and the
  batch (with everything written since) is tried again every ``retry_interval`` seconds;
  ``on_recovery(seconds stalled)`` is called when it goes through. Nothing is lost meanwhile,
  and nothing that depends on it has been sent.

Batches are numbered from 1; :attr:`committed` is the last committed number.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial

from server.storage.db_thread import DbThread
from server.storage.store import Op, Store

log = logging.getLogger(__name__)


STORAGE_RETRY = 1.0
"""Seconds a client is told to wait (``retry_after``) before retrying while the database cannot
be written."""


class Journal:
    """The group-commit writer of one server (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        thread: DbThread,
        *,
        collect: Callable[[], list[Op]],
        on_commit: Callable[[int], None],
        on_recovery: Callable[[float], None],
        retry_interval: float = 1.0,
    ) -> None:
        self.store = store
        self.thread = thread
        self.collect = collect
        self.on_commit = on_commit
        self.on_failure: Callable[[BaseException], None] = lambda exc: None
        """Called once when commits start failing (tests watch it; the journal logs it and the
        server reads :attr:`failed`: requests that write are refused, the clocks wait)."""
        self.on_recovery = on_recovery
        self.retry_interval = retry_interval
        self.committed = 0
        """Number of the last committed batch."""
        self.failed: BaseException | None = None
        """The error of the failing commit while the database cannot be written, else None."""
        self.failed_since = 0.0
        self.commits = 0
        self.ops_written = 0
        self._ops: list[Op] = []
        self._open_no = 1
        self._open = False  # the open batch has something (operations, or things to collect)
        self._scheduled = False
        self._flight: tuple[int, list[Op]] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    # ------------------------------------------------------------------ the loop's side

    @property
    def barrier(self) -> int:
        """The batch a message sent now must wait for: 0 when nothing is uncommitted."""
        if self._open:
            return self._open_no
        if self._flight is not None:
            return self._flight[0]
        return 0

    def write(self, *ops: Op) -> None:
        """Add ``ops`` to the open batch."""
        self._ops.extend(ops)
        self.touch()

    def touch(self) -> None:
        """Open a batch even with no operation yet: ``collect`` will add them at sealing."""
        if not self._open:
            self._open = True
            self._idle.clear()
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._seal)

    async def drain(self) -> None:
        """Wait until everything written so far is committed (for ever while the database
        cannot be written: the caller bounds the wait with ``asyncio.timeout``)."""
        if self._open and self._flight is None:
            self._seal()
        await self._idle.wait()

    def _take(self) -> list[Op]:
        ops = self._ops + self.collect()
        self._ops = []
        self._open = False
        return ops

    def _seal(self) -> None:
        self._scheduled = False
        if self._flight is not None or not self._open:
            return  # sealed when the batch in flight is done
        no = self._open_no
        self._open_no += 1
        self._submit(no, self._take())

    def _submit(self, no: int, ops: list[Op]) -> None:
        self._flight = (no, ops)
        began = time.perf_counter()
        try:
            self.thread.call(
                self.store.write_batch, ops, partial(self._done, no, ops, began), asyncio.get_running_loop()
            )
        except RuntimeError as exc:  # the thread is shut down: only during a failed shutdown
            log.error("cannot commit batch %d: %s", no, exc)

    def _done(self, no: int, ops: list[Op], began: float, exc: BaseException | None) -> None:
        if exc is not None:
            if self.failed is None:
                self.failed = exc
                self.failed_since = time.monotonic()
                log.error("cannot write to the database %s: %s; play is paused until it can", self.store.path, exc)
                self.on_failure(exc)
            asyncio.get_running_loop().call_later(self.retry_interval, self._retry)
            return
        self._flight = None
        self.committed = no
        self.commits += 1
        self.ops_written += len(ops)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("batch %d: %d writes committed in %.2f ms", no, len(ops), (time.perf_counter() - began) * 1e3)
        stalled = self.failed is not None
        stalled_for = time.monotonic() - self.failed_since
        self.failed = None
        self.on_commit(no)
        if stalled:
            log.warning(
                "the database %s can be written again (after %.1f s); play goes on", self.store.path, stalled_for
            )
            self.on_recovery(stalled_for)
        if self._open:
            self._seal()
        else:
            self._idle.set()

    def _retry(self) -> None:
        assert self._flight is not None
        no, ops = self._flight
        if self._open:
            # One batch with everything since, in order, under the newest number: what waits
            # for either is released together.
            ops = ops + self._take()
            no = self._open_no
            self._open_no += 1
        self._submit(no, ops)
