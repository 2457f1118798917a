"""The one thread that uses SQLite.

The store is synchronous and its connection belongs to one thread, and the event loop must
never wait on the disk: so every store call runs on this thread, in the order it was handed
over. :class:`DbThread` is a :class:`concurrent.futures.Executor` (``loop.run_in_executor``
and the tests use :meth:`DbThread.submit`) with one cheaper door for the journal's commits,
:meth:`DbThread.call`: no futures, one ``call_soon_threadsafe`` back to the loop. Under bot
load the journal commits about a thousand times a second, and an executor's round trip (a
concurrent future, an asyncio future chained to it, their locks and callbacks) costs the
loop about three times what :meth:`~DbThread.call` does (about 40 against 13 us of the loop's
CPU on this project's machine).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from contextlib import suppress
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_Item = tuple[
    Callable[..., Any],
    tuple[Any, ...],
    dict[str, Any],
    "Future[Any] | None",
    "Callable[[BaseException | None], None] | None",
    "asyncio.AbstractEventLoop | None",
]


class DbThread(Executor):
    """One worker thread that runs what it is given in order (see the module docstring).

    The thread starts with the first call and is a daemon: the server stops it with
    :meth:`shutdown`, which lets what was handed over finish (``cancel_futures`` drops what
    has not started: its futures are cancelled and its :meth:`call` callbacks never run)."""

    def __init__(self, name: str = "sqlite") -> None:
        self.name = name
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._closed = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` on the thread; its future holds the result."""
        fut: Future[T] = Future()
        self._put((fn, args, kwargs, fut, None, None))
        return fut

    def call(
        self,
        fn: Callable[[T], object],
        arg: T,
        done: Callable[[BaseException | None], None],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        """Run ``fn(arg)`` on the thread, then ``done(error)`` on ``loop`` (``None`` when it
        returned). Raises ``RuntimeError`` after :meth:`shutdown`, as :meth:`submit` does."""
        self._put((fn, (arg,), {}, None, done, loop))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; with ``wait``, return once the work handed over is done."""
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is not None and item[3] is not None:
                        item[3].cancel()
            thread = self._worker
            if thread is not None:
                self._queue.put(None)
        if wait and thread is not None:
            thread.join()

    def _put(self, item: _Item) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name=f"{self.name}_0", daemon=True)
                self._worker.start()
            self._queue.put(item)

    def _work(self) -> None:
        get = self._queue.get
        while (item := get()) is not None:
            fn, args, kwargs, fut, done, loop = item
            if fut is not None:
                if not fut.set_running_or_notify_cancel():
                    continue
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # handed to the waiter, as an executor does
                    fut.set_exception(exc)
                else:
                    fut.set_result(result)
                continue
            assert done is not None and loop is not None
            error: BaseException | None = None
            try:
                fn(*args)
            except BaseException as exc:  # handed to ``done``
                error = exc
            with suppress(RuntimeError):  # the loop is closed: nobody waits for it any more
                loop.call_soon_threadsafe(done, error)
