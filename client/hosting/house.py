"""The server's own bots: bundled bots that the server hosts for ``add_bot``, stand-ins and
tournaments' ``bots``, playing through exactly the protocol a remote bot speaks.

:class:`HouseBots` runs them as tasks of the event loop it is called on. The server does not
call it directly: ``server.__main__`` gives the server a
:class:`~client.hosting.house_process.HouseProcesses`, whose child processes each run a
``HouseBots`` (so the bots think on a core of their own, not in the server's process). The
server package does not import the client; it only knows the host's interface,
``server.tables.hosted.BotHost``, which :class:`HouseHost` implements once for both: the
keyword arguments of ``seat`` and ``enter`` become one :class:`~client.hosting.options.HouseSeat`
or :class:`~client.hosting.options.HouseEntry`, and that object is what is passed along.

Each bot is hosted as ``shithead-bot`` hosts one, with :mod:`client.hosting.host`: it opens a
TCP connection to the server it belongs to, logs in with the one-time login the server made
for it, and plays with :func:`client.hosting.host.play` (a table) or
:func:`client.hosting.host.play_tournament` (a tournament), so it sees only its own view, like
any other client. Which bots exist, and which think in a worker thread (so that the loop keeps
serving the other bots while one thinks), is the catalogue's (:mod:`client.bots`).

Resource handling: every bot is an asyncio task, which closes its client when it ends;
:meth:`HouseBots.stop` cancels them all and waits for them. A bot whose start fails (no seat,
no registration) raises to the caller of :meth:`~HouseHost.seat` or :meth:`~HouseHost.enter`;
a bot that fails later is logged.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from client.bots import bot_names, make_bot, thinks_in_thread
from client.hosting.host import play, play_tournament
from client.hosting.options import HouseEntry, HouseSeat, LoginOptions, PlayOptions, Seating

__all__ = ["HouseBots", "HouseHost"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class HouseHost(ABC):
    """The server's ``BotHost`` interface (``server.tables.hosted``), written once: its ``seat``
    and ``enter`` keyword arguments become a :class:`HouseSeat` or :class:`HouseEntry` for
    :meth:`seat_bot` and :meth:`enter_bot`, which each host implements."""

    def names(self) -> Sequence[str]:
        """The bots this host runs: every bundled bot."""
        return bot_names()

    async def seat(
        self,
        bot: str,
        *,
        host: str,
        port: int,
        table: int,
        seat: int | None,
        name: str,
        password: str,
        token: str | None = None,
        delay: float = 0.0,
    ) -> int:
        """``BotHost.seat``: :meth:`seat_bot` of bot kind ``bot`` (``bot`` is the interface's
        word for the kind)."""
        request = HouseSeat(
            kind=bot,
            host=host,
            port=port,
            table=table,
            seat=seat,
            name=name,
            password=password,
            token=token,
            delay=delay,
        )
        return await self.seat_bot(request)

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        """``BotHost.enter``: :meth:`enter_bot` of bot kind ``bot``."""
        await self.enter_bot(
            HouseEntry(kind=bot, host=host, port=port, tournament=tournament, name=name, password=password)
        )

    @abstractmethod
    async def seat_bot(self, request: HouseSeat) -> int:
        """Log the bot in, seat it at ``request.table`` (with ``request.token``: take back the
        seat it held before the server restarted, or the seat it stands in for) and let it play
        there (for ever: it stays for every game of the table's series, until the table or its
        seat goes), waiting ``request.delay`` seconds before each play while a person sits at the
        table (:attr:`client.hosting.options.PlayOptions.pace`). Returns its seat; raises why it
        could not sit."""

    @abstractmethod
    async def enter_bot(self, request: HouseEntry) -> None:
        """Log the bot in as participant ``request.name`` of ``request.tournament`` and play its
        games until the tournament is over. Returns once it has registered; raises why it could not."""

    @abstractmethod
    def on_lost(self, callback: Callable[[], None]) -> None:
        """``BotHost.on_lost``."""

    @abstractmethod
    async def stop(self) -> None:
        """Stop every bot."""


class HouseBots(HouseHost):
    """Runs bundled bots as tasks of the running event loop (see the module docstring)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        # Tasks whose caller still waits for them to sit or register: a failure is the caller's.
        self._starting: set[asyncio.Task[Any]] = set()

    @staticmethod
    def _login(kind: str, host: str, port: int, name: str, password: str) -> LoginOptions:
        # No reconnecting: the login is good once (if the server goes, a new one is made for
        # each of its bots when it comes back).
        return LoginOptions(
            name=name,
            password=password,
            guest=False,
            host=host,
            port=port,
            reconnect=False,
            client_name=f"house-{kind}",
        )

    async def seat_bot(self, request: HouseSeat) -> int:
        options = PlayOptions(
            login=self._login(request.kind, request.host, request.port, request.name, request.password),
            seating=Seating(table=request.table, seat=request.seat, token=request.token),
            think_in_thread=thinks_in_thread(request.kind),
            pace=request.delay,
        )
        seated: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def on_seated(table: int, seat: int) -> None:
            if not seated.done():
                seated.set_result(seat)

        task = self._spawn(play(make_bot(request.kind), options, on_seated=on_seated), request.name)
        return await self._until(task, seated, f"{request.name} stopped before taking its seat")

    async def enter_bot(self, request: HouseEntry) -> None:
        registered: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_registered() -> None:
            if not registered.done():
                registered.set_result(None)

        kind = request.kind
        coro = play_tournament(
            lambda game: make_bot(kind),
            self._login(kind, request.host, request.port, request.name, request.password),
            request.tournament,
            think_in_thread=thinks_in_thread(kind),
            on_registered=on_registered,
        )
        task = self._spawn(coro, request.name)
        await self._until(task, registered, f"{request.name} stopped before registering")

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Never called: these bots live in this process and go only with it (the child's
        death is :class:`~client.hosting.house_process.HouseProcess`'s to report)."""

    async def stop(self) -> None:
        """Stop every bot; each closes its connection as it ends."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # ------------------------------------------------------------------ tasks

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task in self._starting or task.cancelled():
            return  # (a start that failed raises to its caller)
        exc = task.exception()
        if exc is not None:
            log.error("house bot %s failed: %s", task.get_name(), exc)

    async def _until(self, task: asyncio.Task[Any], milestone: asyncio.Future[T], what: str) -> T:
        """Wait until ``milestone`` (the bot sat or registered) while ``task`` plays on; raise
        what stopped ``task`` if it ended first. A caller that gives up waiting (cancelled)
        stops the bot too."""
        self._starting.add(task)
        try:
            await asyncio.wait({task, milestone}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            self._starting.discard(task)
        if milestone.done():
            if task.done():
                self._done(task)  # it sat, then ended at once: log a failure as any later one
            return milestone.result()
        task.result()  # raises why the bot could not start
        raise RuntimeError(what)
