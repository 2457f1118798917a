"""The server's own bots: bundled bots run inside the server process for ``add_bot`` and for
tournaments' ``bots``, through exactly the protocol a remote bot speaks.

:class:`HouseBots` is the bot host that ``server.__main__`` gives the server (the server
package does not import the client; it only knows the host's interface, ``server.shell.app.BotHost``).
It hosts bots the way ``shithead-bot`` does, with :mod:`client.hosting`: each bot opens a TCP
connection to the server it belongs to, logs in with the one-time login the server made for
it, and plays with :func:`client.hosting.play` (a table) or
:func:`client.hosting.play_tournament` (a tournament), so it sees only its own view, like any
other client. Which bots exist, and which think in a worker thread (so that the server's loop
keeps serving while they think), is the catalogue's (:mod:`client.bots`).

Resource handling: every bot is an asyncio task of the server's loop, which closes its client
when it ends; :meth:`HouseBots.stop` cancels them all and waits for them. A bot whose start
fails (no seat, no registration) raises to the caller of :meth:`~HouseBots.seat` or
:meth:`~HouseBots.enter`; a bot that fails later is logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from client.bots import bot_names, make_bot, thinks_in_thread
from client.hosting import LoginOptions, PlayOptions, Seating, play, play_tournament

__all__ = ["HouseBots"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class HouseBots:
    """Runs bundled bots for one server (see the module docstring)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        # Tasks whose caller still waits for them to sit or register: a failure is the caller's.
        self._starting: set[asyncio.Task[Any]] = set()

    def names(self) -> Sequence[str]:
        """The bots this host runs: every bundled bot."""
        return bot_names()

    @staticmethod
    def _login(bot: str, host: str, port: int, name: str, password: str) -> LoginOptions:
        # No reconnecting: the login is good once, and the server is in this very process (if
        # it goes, so do its bots).
        return LoginOptions(
            name=name, password=password, guest=False, host=host, port=port, reconnect=False, client_name=f"house-{bot}"
        )

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
        """Log ``bot`` in as ``name``, seat it at ``table`` (with ``token``: take back the seat
        it held before the server restarted, or the seat it stands in for) and let it play there
        (for ever: it stays for every game of the table's series, until the table or its seat
        goes), waiting ``delay`` seconds before each play while a person sits at the table
        (:attr:`client.hosting.PlayOptions.pace`). Returns its seat; raises why it could not sit."""
        options = PlayOptions(
            login=self._login(bot, host, port, name, password),
            seating=Seating(table=table, seat=seat, token=token),
            think_in_thread=thinks_in_thread(bot),
            pace=delay,
        )
        seated: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def on_seated(table: int, seat: int) -> None:
            if not seated.done():
                seated.set_result(seat)

        task = self._spawn(play(make_bot(bot), options, on_seated=on_seated), name)
        return await self._until(task, seated, f"{name} stopped before taking its seat")

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        """Log ``bot`` in as participant ``name`` of ``tournament`` and play its games until the
        tournament is over. Returns once it has registered; raises why it could not."""
        registered: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_registered() -> None:
            if not registered.done():
                registered.set_result(None)

        login = self._login(bot, host, port, name, password)
        coro = play_tournament(
            lambda game: make_bot(bot),
            login,
            tournament,
            think_in_thread=thinks_in_thread(bot),
            on_registered=on_registered,
        )
        task = self._spawn(coro, name)
        await self._until(task, registered, f"{name} stopped before registering")

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Never called: these bots live in the server's own process and go only with it."""

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
