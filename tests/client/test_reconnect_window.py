"""Reconnecting for as long as the server keeps the seat, against real in-process servers on
127.0.0.1: across a stop and a restart of the server on the same database and port (many more
attempts than the old cap of 8), past the server's failed-login throttle (the login carries a
seat token; without one it waits the throttle's retry_after), and through a database that
cannot be written (STORAGE_FAILED is "not now": the seat is kept, and a bot runner decides
again after retry_after). Small windows and back-offs; every wait is on a condition.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

import server.shell.dispatch as server_dispatch
from client.bots.greedy import GreedyBot
from client.hosting.bot_runner import BotRunner
from client.sdk import Client, ServerError
from client.sdk.events import Closed, Disconnected, Item, Reconnected, Reconnecting
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode
from protocol.messages import (
    GoingAway,
    Hello,
    Join,
    Joined,
    LoggedIn,
    Login,
    Message,
    Presence,
    Resume,
    State,
    TableUpdate,
    Welcome,
)
from server.config import Limits, ServerConfig
from server.login.throttle import LoginThrottle
from server.shell.app import App
from tests.client.helpers import WAIT, check_places, run_all

_I = TypeVar("_I")


class Stream:
    """Every message and pseudo-event of a client, collected by a task as they come."""

    def __init__(self, client: Client) -> None:
        self.items: list[Item] = []
        self._changed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._read(client))

    async def _read(self, client: Client) -> None:
        async for item in client.messages():
            self.items.append(item)
            self._changed.set()
        self._changed.set()

    def of(self, cls: type[_I]) -> list[_I]:
        """The items of class ``cls``, in the order received."""
        return [m for m in self.items if isinstance(m, cls)]

    async def until(self, predicate: Callable[[], Any], timeout: float = WAIT) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def registered(app: App, name: str, password: str = "pw", **options: Any) -> Client:
    c = await Client.connect("127.0.0.1", app.port, **options)
    await c.login(name, password)
    return c


async def test_reconnecting_outlasts_many_attempts_and_resumes_after_a_restart(make_app: Any, tmp_path: Any) -> None:
    """The server stops (going_away), stays down for many more attempts than the old cap of 8,
    and starts again on the same database and port: the client is still trying (counting down
    each wait), logs in again and is back in its seat, without a closed event."""
    db = str(tmp_path / "live.sqlite3")
    first: App = await make_app(db=db)
    port = first.port
    alice = await Client.connect("127.0.0.1", port, reconnect_for=30.0, backoff_initial=0.01, backoff_max=0.02)
    bob = await Client.connect("127.0.0.1", port, reconnect=False)
    stream = Stream(alice)
    second: App | None = None
    try:
        await alice.login("alice", "pw")
        await bob.login("bob", "pw")
        table = await alice.create_table("evening", "classic", 2, action_seconds=600)
        held = await alice.join(table, 0)
        await bob.join(table, 1)
        await bob.close()
        await first.stop()
        await stream.until(lambda: len(stream.of(Reconnecting)) >= 12)
        waits = stream.of(Reconnecting)
        assert [m.attempt for m in waits] == list(range(1, len(waits) + 1))
        assert all(0 < m.retry_in <= 0.02 and 0 < m.gives_up_in <= 30.0 for m in waits)
        assert not stream.of(Closed) and not stream.of(Reconnected)
        kinds = [type(m) for m in stream.items if not isinstance(m, (TableUpdate, Presence, State))]
        assert kinds[:2] == [GoingAway, Disconnected]

        second = App(ServerConfig(host="127.0.0.1", port=port, db=db, limits=Limits()))
        await second.start()
        await stream.until(lambda: stream.of(Reconnected))
        back = stream.of(Reconnected)[0]
        assert back.resumed == [{"table": table, "seat": held.seat}] and back.lost == []
        assert back.attempt >= 12 and not stream.of(Closed)
        assert alice.connected and alice.seats[table].seat == held.seat
        seat = second.tables[table].seats[0]
        assert seat is not None and seat.name == "alice" and seat.session is not None
    finally:
        await stream.close()
        await alice.close()
        if second is not None:
            await second.stop()


async def test_the_login_after_a_drop_carries_a_seat_token_past_the_throttle(make_app: Any) -> None:
    """A stranger's wrong passwords throttle alice's name for a minute: a new login with the
    right password is refused (LOGIN_THROTTLED), but alice's client, which holds a seat, logs in
    again with that seat's token at its first attempt and resumes."""
    app: App = await make_app()
    app.throttle = LoginThrottle(free_per_name=0, base=60.0)
    alice = await registered(app, "alice", backoff_initial=0.01, backoff_max=0.02)
    stream = Stream(alice)
    try:
        table = await alice.create_table("t", "classic", 2)
        held = await alice.join(table)
        stranger = await Client.connect("127.0.0.1", app.port, reconnect=False)
        with pytest.raises(ServerError) as wrong:
            await stranger.login("alice", "guess")
        assert wrong.value.code == "AUTH_FAILED"
        with pytest.raises(ServerError) as throttled:
            await stranger.login("alice", "pw")
        assert throttled.value.code == "LOGIN_THROTTLED" and throttled.value.retry_after
        await stranger.close()

        assert alice.transport is not None
        alice.transport.abort()
        await stream.until(lambda: stream.of(Reconnected) or stream.of(Closed))
        back = stream.of(Reconnected)[0]
        assert back.attempt == 1 and back.resumed == [{"table": table, "seat": held.seat}]
        assert alice.connected and alice.name == "alice"
    finally:
        await stream.close()
        await alice.close()


async def test_a_throttled_login_waits_retry_after_and_tries_again(make_app: Any) -> None:
    """Without a seat there is no token to show: the reconnect's login is refused with
    LOGIN_THROTTLED, the next attempt waits at least its retry_after (whatever the back-off
    says), and then logs in."""
    app: App = await make_app()
    app.throttle = LoginThrottle(free_per_name=0, base=1.0)
    alice = await registered(app, "alice", backoff_initial=0.01, backoff_max=0.02)
    stream = Stream(alice)
    try:
        stranger = await Client.connect("127.0.0.1", app.port, reconnect=False)
        with pytest.raises(ServerError):
            await stranger.login("alice", "guess")
        await stranger.close()
        assert alice.transport is not None
        alice.transport.abort()
        await stream.until(lambda: stream.of(Reconnected) or stream.of(Closed))
        assert not stream.of(Closed)
        waits = stream.of(Reconnecting)
        assert len(waits) >= 2 and waits[0].retry_in <= 0.01
        assert max(m.retry_in for m in waits[1:]) >= 0.5  # the throttle's wait, not the back-off's
        assert alice.connected
    finally:
        await stream.close()
        await alice.close()


class FullDisk:
    """Makes ``app``'s database unwritable (like a full disk) until :meth:`fix`; ``failed`` is
    set when the server has noticed."""

    def __init__(self, app: App, monkeypatch: pytest.MonkeyPatch) -> None:
        assert app.journal is not None and app.store is not None
        self.full = False
        self.failed = asyncio.Event()
        app.journal.retry_interval = 0.05
        monkeypatch.setattr(server_dispatch, "STORAGE_RETRY", 0.2)
        write_batch = app.store.write_batch

        def failing(ops: Any) -> None:
            if self.full:
                raise sqlite3.OperationalError("database or disk is full")
            write_batch(ops)

        app.store.write_batch = failing  # type: ignore[method-assign]
        on_failure = app.journal.on_failure

        def noticed(exc: BaseException) -> None:
            on_failure(exc)
            self.failed.set()

        app.journal.on_failure = noticed

    def fix(self) -> None:
        self.full = False


class ScriptedServer:
    """A minimal server speaking the real protocol (the sans-I/O :class:`Connection`) on
    127.0.0.1: welcome, logged_in, joined; it refuses the first ``refusals`` resumes with
    STORAGE_FAILED. (The real server, while it cannot write, holds even a new connection's
    welcome until it can, so a client never gets that far there.) It records every login."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.logins: list[Login] = []
        self.resumes = 0
        self.transports: list[asyncio.Transport] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(Role.SERVER)
        self.transports.append(writer.transport)  # type: ignore[arg-type]
        try:
            while data := await reader.read(65536):
                for msg in conn.receive_data(data):
                    writer.write(self._answer(conn, msg))
        finally:
            writer.close()

    def _answer(self, conn: Connection, msg: Message) -> bytes:
        if isinstance(msg, Hello):
            return conn.send(
                Welcome(id=msg.id, version=1, server="scripted", limits={}, capabilities=[], password_required=False)
            )
        if isinstance(msg, Login):
            self.logins.append(msg)
            return conn.send(LoggedIn(id=msg.id, name=msg.name, guest=msg.guest, bot=msg.bot))
        if isinstance(msg, Join):
            return conn.send(Joined(id=msg.id, table=msg.table, seat=1, token="the-token"))
        if isinstance(msg, Resume):
            self.resumes += 1
            if self.resumes <= self.refusals:
                return conn.send_error(ErrorCode.STORAGE_FAILED, "cannot write", msg.id, retry_after=0.2)
            return conn.send(Joined(id=msg.id, table=msg.table, seat=1, token=msg.token or "new"))
        return conn.send_error(ErrorCode.BAD_MESSAGE, "not scripted", msg.id)

    def drop_everyone(self) -> None:
        for t in self.transports:
            t.abort()

    async def stop(self) -> None:
        self.server.close()
        self.drop_everyone()


async def test_a_resume_refused_with_storage_failed_keeps_the_seat() -> None:
    """A server that cannot write its database refuses resume with STORAGE_FAILED: that attempt
    fails, the seat is kept, the next attempts wait at least retry_after, and the seat comes back.
    Every login after the drop carries the seat's token."""
    scripted = ScriptedServer(refusals=2)
    port = await scripted.start()
    alice = await Client.connect("127.0.0.1", port, backoff_initial=0.01, backoff_max=0.02)
    stream = Stream(alice)
    try:
        await alice.login("alice", "pw")
        held = await alice.join(7)
        scripted.drop_everyone()
        await stream.until(lambda: stream.of(Reconnected) or stream.of(Closed))
        back = stream.of(Reconnected)[0]
        assert back.resumed == [{"table": 7, "seat": 1}] and back.lost == [] and alice.seats[7] == held
        assert back.attempt == 3 and scripted.resumes == 3
        waits = stream.of(Reconnecting)
        assert waits[0].retry_in <= 0.01 and all(m.retry_in >= 0.2 for m in waits[1:])
        assert [m.token for m in scripted.logins] == [None, "the-token", "the-token", "the-token"]
    finally:
        await stream.close()
        await alice.close()
        await scripted.stop()


class Stalling(GreedyBot):
    """A greedy bot that, at its ``at``-th choice, waits in its thread until the test lets it go;
    ``asked_again`` is set at its ``at + again``-th choice."""

    def __init__(self, at: int, again: int) -> None:
        super().__init__()
        self.at, self.again, self.choices = at, again, 0
        self.reached, self.go, self.asked_again = threading.Event(), threading.Event(), threading.Event()

    def choose(self, view: dict[str, Any]) -> str:
        self.choices += 1
        if self.choices == self.at:
            self.reached.set()
            assert self.go.wait(WAIT)
        if self.choices == self.at + self.again:
            self.asked_again.set()
        return super().choose(view)


async def test_a_bot_runner_waits_out_storage_failed_and_finishes_its_game(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database stops being writable while a bot decides: its act is refused with
    STORAGE_FAILED; the runner does not stop, it waits retry_after and decides again on the
    newest state, and the game finishes once the server can write again."""
    app: App = await make_app()
    disk = FullDisk(app, monkeypatch)
    clients = [await Client.connect("127.0.0.1", app.port, backoff_initial=0.01) for _ in range(3)]
    try:
        for c, name in zip(clients, ("stall", "greedy", "other"), strict=True):
            await c.login(name, guest=True, bot=True)
        staller = Stalling(at=8, again=2)
        table = await clients[0].create_table("bots", "classic", 2, seed=3)
        runners = [
            BotRunner(staller, clients[0], games=1, start_games=True, think_in_thread=True),
            BotRunner(GreedyBot(), clients[1], games=1),
        ]
        for i, r in enumerate(runners):
            await r.join(table, i)
        done = asyncio.get_running_loop().create_task(run_all(runners))
        await asyncio.to_thread(staller.reached.wait, WAIT)
        assert staller.reached.is_set()
        disk.full = True
        waiting = asyncio.get_running_loop().create_task(clients[2].create_table("u", "classic", 2))
        await asyncio.wait_for(disk.failed.wait(), WAIT)
        staller.go.set()  # its act now meets a server that takes none

        # Nothing changes at the table while the server cannot write (play and clocks pause),
        # so the bot is asked again only after a refusal: twice means two STORAGE_FAILED.
        assert await asyncio.to_thread(staller.asked_again.wait, WAIT)
        assert runners[0].stats.storage_failed >= 2  # counted before deciding again
        disk.fix()
        stats = await asyncio.wait_for(done, 60)
        check_places(stats, 1)
        assert stats[0].storage_failed >= 2 and stats[0].illegal == 0 and stats[0].bot_errors == 0
        assert stats[0].end_reason == "1 games played"
        await asyncio.wait_for(waiting, WAIT)
    finally:
        staller.go.set()
        for c in clients:
            await c.close()
