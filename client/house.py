"""The server's own bots: bundled bots run inside the server process for ``add_bot`` and for
tournaments' ``bots``, through exactly the protocol a remote bot speaks.

:class:`HouseBots` is the bot host that ``server.__main__`` gives the server (the server
package does not import the client; it only knows the host's interface). Each bot opens a
TCP connection to the server it belongs to, logs in with the one-time login the server made
for it, and plays with :class:`~client.runner.BotRunner` (a table) or
:class:`~client.tournament_player.TournamentPlayer` (a tournament), so it sees only its own
view, like any other client.

Resource handling: every bot is an asyncio task of the server's loop, with its client;
:meth:`HouseBots.stop` closes them all. A slow bot (``search``) thinks in a worker thread so
that the server's loop keeps serving while it thinks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from client.bots import bot_names, make_bot
from client.runner import BotRunner
from client.sdk import Client
from client.tournament_player import TournamentPlayer

__all__ = ["HouseBots"]

log = logging.getLogger(__name__)

#: Bots that think long enough to need a thread of their own.
_SLOW = frozenset({"search"})


class HouseBots:
    """Runs bundled bots for one server (see the module docstring)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._clients: list[Client] = []

    def names(self) -> Sequence[str]:
        return bot_names()

    async def _login(self, bot: str, host: str, port: int, name: str, password: str) -> Client:
        # No reconnecting: the login is good once, and the server is in this very process.
        client = await Client.connect(host, port, client_name=f"house-{bot}", reconnect=False)
        self._clients.append(client)
        try:
            await client.login(name, password, bot=True)
        except BaseException:
            await client.close()
            raise
        return client

    def _spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("house bot %s failed: %s", task.get_name(), task.exception())

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
    ) -> int:
        """Log ``bot`` in as ``name``, seat it at ``table`` (with ``token``: take back the seat
        it held before the server restarted) and let it play there (for ever: it stays for every
        game of the table's series). Returns its seat."""
        client = await self._login(bot, host, port, name, password)
        runner = BotRunner(make_bot(bot), client, think_in_thread=bot in _SLOW)
        try:
            if token is not None:
                taken = (await client.resume(table, token)).seat
                runner.attach(table, taken)
            else:
                taken = await runner.join(table, seat)
        except BaseException:
            await client.close()
            raise

        async def play() -> None:
            try:
                await runner.run()
            finally:
                await client.close()

        self._spawn(play(), name)
        return taken

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        """Log ``bot`` in as participant ``name`` of ``tournament`` and play its games until the
        tournament is over. Returns once it has registered."""
        client = await self._login(bot, host, port, name, password)
        player = TournamentPlayer(client, lambda game: make_bot(bot), tournament, think_in_thread=bot in _SLOW)

        async def play() -> None:
            try:
                await player.run()
            finally:
                await client.close()

        task = self._spawn(play(), name)
        registered = asyncio.ensure_future(player.registered.wait())
        await asyncio.wait({task, registered}, return_when=asyncio.FIRST_COMPLETED)
        if not player.registered.is_set():
            registered.cancel()
            task.result()  # raises why it could not register
            raise RuntimeError(f"{name} stopped before registering")

    async def stop(self) -> None:
        """Stop every bot and close its connection."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for client in self._clients:
            await client.close()
        self._clients.clear()
