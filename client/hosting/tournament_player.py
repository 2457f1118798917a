"""Play in a tournament: register, then play every table the server seats this client at.

A tournament may seat one participant at several tables at once (its ``concurrency``), so the
player reads the client's messages and hands each table's messages to a
:class:`~client.hosting.bot_runner.BotRunner` of its own, with a fresh bot per table (bots keep per-game
memory). ``seated`` announces a table; its game's ``game_over`` ends that table's runner;
``tournament_over`` ends the run. After a reconnect the player registers again, and the server
answers with ``seated`` for each running game, whose runners carry on.

    player = TournamentPlayer(client, lambda game: make_bot("greedy"), tournament=3)
    stats = await player.run()
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from client.bot import Bot
from client.hosting.bot_runner import BotRunner, RunStats
from client.sdk import Client, ConnectionLost, ServerError
from client.sdk.events import Closed, Item, Reconnected
from protocol.messages import GameOver, Register, Seated, State, TableUpdate, TournamentOver
from protocol.payloads import TournamentDetails

__all__ = ["PlayerStats", "TournamentPlayer"]

log = logging.getLogger(__name__)


@dataclass
class PlayerStats:
    """What a participant did in a tournament: totals over its tables (kept as sums, not per
    table, so that a player of a long tournament holds no more after its 100,000th game than
    after its first)."""

    tables: int = 0
    acts: int = 0
    illegal: int = 0
    info: TournamentDetails | None = None
    """The final tournament info from ``tournament_over`` (None if the run ended otherwise)."""
    end_reason: str = ""

    def add(self, run: RunStats) -> None:
        """Count a table's run once it is over."""
        self.acts += run.acts
        self.illegal += run.illegal


class _Feed:
    """The messages of one table, as an async iterator for its runner."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue()

    async def __aiter__(self) -> AsyncIterator[Item]:
        while True:
            item = await self.queue.get()
            if item is None:
                return
            yield item


class TournamentPlayer:
    """Plays for one participant (the logged-in ``client``) in ``tournament``.

    Args:
        client: connected and logged in with the participant's bot account (or as one of the
            server's bundled bots); the player is the only reader of its messages.
        make_bot: builds the bot for one table, given the game's number in the tournament
            (so that a seeded bot can be seeded per game, making a tournament reproducible).
        tournament: the tournament id.
        think_in_thread: let each bot think in a worker thread (see :class:`BotRunner`).
        on_registered: called after each registration (the first, and again after a reconnect),
            for a host that reports "entered" while the player plays on.
    """

    def __init__(
        self,
        client: Client,
        make_bot: Callable[[int], Bot],
        tournament: int,
        *,
        think_in_thread: bool = False,
        on_registered: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.make_bot = make_bot
        self.tournament = tournament
        self.think_in_thread = think_in_thread
        self.on_registered = on_registered
        self.stats = PlayerStats()
        self._feeds: dict[int, _Feed] = {}
        self._tasks: dict[int, asyncio.Task[RunStats]] = {}
        self.registered = asyncio.Event()

    async def register(self) -> None:
        """Enter the tournament (again, after a reconnect). Raises :class:`ServerError`."""
        await self.client.request(Register, tournament=self.tournament)
        self.registered.set()
        if self.on_registered is not None:
            self.on_registered()

    async def run(self) -> PlayerStats:
        """Register and play until the tournament is over or the client closes. A table is
        forgotten once its runner ends (its game is over), its figures added to :attr:`stats`."""
        await self.register()
        try:
            async for msg in self.client.messages():
                match msg:
                    case Seated() if msg.tournament == self.tournament:
                        self._seated(msg)
                    case State() | GameOver() | TableUpdate() if msg.table in self._feeds:
                        feed = self._feeds[msg.table]
                        feed.queue.put_nowait(msg)
                        if isinstance(msg, GameOver):
                            feed.queue.put_nowait(None)
                    case TournamentOver() if msg.tournament == self.tournament:
                        self.stats.info = msg.info
                        self.stats.end_reason = "tournament over"
                        break
                    case Reconnected():
                        for feed in self._feeds.values():
                            feed.queue.put_nowait(msg)  # each runner resets what it waits for
                        await self._register_again()
                    case Closed():
                        self.stats.end_reason = f"client closed: {msg.reason}"
                        break
        finally:
            for feed in self._feeds.values():
                feed.queue.put_nowait(None)
            for task in self._tasks.values():
                if not task.done():
                    task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        return self.stats

    def _seated(self, msg: Seated) -> None:
        table = msg.table
        if table in self._tasks and not self._tasks[table].done():
            return  # seated again after a reconnect: its runner carries on
        self.stats.tables += 1
        feed = self._feeds[table] = _Feed()
        # The server closes a tournament's table when its game ends: nothing to leave.
        runner = BotRunner(
            self.make_bot(msg.game),
            self.client,
            table=table,
            seat=msg.seat,
            games=1,
            think_in_thread=self.think_in_thread,
            leave_at_end=False,
        )
        task = self._tasks[table] = asyncio.create_task(runner.run(source=feed), name=f"table-{table}")
        task.add_done_callback(lambda t: self._table_done(table, t))

    def _table_done(self, table: int, task: asyncio.Task[RunStats]) -> None:
        if self._tasks.get(table) is task:
            del self._tasks[table]
            self._feeds.pop(table, None)
            # The server closed the table with its game: nothing to leave, only to forget.
            self.client.forget(table)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.warning("table %d: the bot runner failed: %r", table, exc)
        else:
            self.stats.add(task.result())

    async def _register_again(self) -> None:
        try:
            await self.register()
        except (ServerError, ConnectionLost) as exc:
            log.warning("could not register again in tournament %d: %s", self.tournament, exc)
