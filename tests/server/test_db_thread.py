"""server.storage.db_thread.DbThread: one thread, work in the order handed over, two doors back."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.storage.db_thread import DbThread


async def test_call_and_submit_run_in_order_on_one_thread() -> None:
    loop = asyncio.get_running_loop()
    db = DbThread("t")
    ran: list[tuple[str, str]] = []
    outcomes: list[BaseException | None] = []
    all_done = asyncio.Event()

    def note(tag: str) -> str:
        ran.append((tag, threading.current_thread().name))
        return tag

    def failing(_: object) -> None:
        raise ValueError("disk full")

    def done(error: BaseException | None) -> None:
        outcomes.append(error)
        if len(outcomes) == 2:
            all_done.set()

    db.call(note, "first", done, loop)
    db.call(failing, None, done, loop)
    assert await loop.run_in_executor(db, note, "then") == "then"
    await all_done.wait()
    assert [tag for tag, _ in ran] == ["first", "then"]
    assert {name for _, name in ran} == {"t_0"}
    assert outcomes[0] is None and isinstance(outcomes[1], ValueError)
    with pytest.raises(KeyError):
        await loop.run_in_executor(db, {}.__getitem__, "missing")
    db.shutdown()


async def test_shutdown_waits_for_work_handed_over_then_refuses_more() -> None:
    loop = asyncio.get_running_loop()
    db = DbThread()
    release = threading.Event()
    finished: list[str] = []
    blocker = db.submit(release.wait)
    later = db.submit(finished.append, "later")
    release.set()
    db.shutdown(wait=True)
    assert blocker.result() is True and later.done() and finished == ["later"]
    with pytest.raises(RuntimeError):
        db.submit(print)
    with pytest.raises(RuntimeError):
        db.call(print, "x", lambda e: None, loop)


async def test_cancel_futures_drops_what_has_not_started() -> None:
    loop = asyncio.get_running_loop()
    db = DbThread()
    started, release = threading.Event(), threading.Event()

    def block() -> None:
        started.set()
        release.wait()

    running = db.submit(block)
    started.wait()
    pending = db.submit(print, "never")
    called: list[BaseException | None] = []
    db.call(print, "never", called.append, loop)
    db.shutdown(wait=False, cancel_futures=True)
    release.set()
    await loop.run_in_executor(None, running.result)
    assert pending.cancelled()
    db.shutdown(wait=True)
    # A callback the thread had scheduled would be in the loop's queue, ahead of this marker.
    marker = loop.create_future()
    loop.call_soon(marker.set_result, None)
    await marker
    assert called == []


def test_no_thread_until_the_first_call() -> None:
    """A server object that never starts (as many tests build) leaves no thread behind."""
    db = DbThread("lazy")
    assert "lazy_0" not in {t.name for t in threading.enumerate()}
    db.submit(int).result()
    assert "lazy_0" in {t.name for t in threading.enumerate()}
    db.shutdown()
    assert "lazy_0" not in {t.name for t in threading.enumerate()}
