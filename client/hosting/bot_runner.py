"""Play one seat of a table for a :class:`client.bot.Bot`: the loop every hosted bot runs.

:func:`client.hosting.host.play` (``shithead-bot``, the server's own bots) seats its client,
then plays the seat with a :class:`BotRunner`; the tournament and ladder players
(:mod:`client.hosting.tournament_player`) run one per table the server seats them at. The
runner only plays: it is given a client that is connected, logged in and seated::

    runner = BotRunner(bot, client, table=table, seat=seat, games=None)
    stats = await runner.run()               # plays until the games are done or the client closes

(:meth:`BotRunner.join` sits and attaches in one step, for a caller that has no
:mod:`client.hosting.host` around it, such as a test.)

**What the runner does with each message of its table** (``docs/PROTOCOL.md`` §9 "A robust bot
loop"):

The runner reads :class:`~protocol.messages.Message` objects and the SDK's connection events by
class and attribute (``match`` on the class, then ``msg.view``, ``msg.result``...).

* ``state``: the first state of a new game id calls ``bot.on_game_start(view)``; every state
  calls ``bot.observe(view, events)``. When ``view["legal"]`` is not empty, the state is the
  newest one received for the table, and it already shows the runner's last applied action,
  ``bot.choose(view)`` picks an action, sent in an ``act`` with the state's ``seq``; the runner
  waits for the answer before reading on, so at most one ``act`` is unanswered. With a
  ``pace`` (the server's own bots: its ``bot_delay``), a turn's action at a table where a person
  sits is sent no earlier than ``pace`` seconds after its state was read. ``STALE_SEQ``
  is normal (a newer state is on its way) and only counted. ``ILLEGAL_ACTION``, an exception
  in ``choose`` or a text not in ``legal`` is logged, counted, and replaced by the first legal
  action. ``RATE_LIMITED`` (after the SDK's own retries) and ``STORAGE_FAILED`` (the server
  cannot write its database for now) wait ``retry_after`` and decide again on the newest state.
* ``game_over``: ``bot.on_game_over(result, tally)``; when ``games`` games have ended the
  runner leaves the table (unless told not to: a tournament's table closes by itself) and returns.
* ``table_update``: a runner that starts games (it created the table) sends ``start`` when every
  seat is taken and no game runs, until it has started ``games`` games.
* ``reconnected``: the newest state is decided on, if it was not yet (states that came while
  the connection was down could not be answered). A snapshot of a game that ended while the
  runner was away counts as that game's end (its ``game_over`` is not sent again): the bot's
  ``on_game_over`` gets the view's outcome with the players' names, and no tally (None).
* A seat lost for good (taken over by another connection, or not given back after a
  reconnect) or a closed client ends the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator
from dataclasses import dataclass, field

from client.bot import Bot
from client.sdk import Client, ConnectionLost, ServerError
from client.sdk.events import Closed, Item, Reconnected
from protocol.errors import ErrorCode
from protocol.messages import Error, GameOver, State, TableUpdate
from protocol.payloads import GameResult, TableSummary, Tally, View

__all__ = ["BotRunner", "RunStats"]

log = logging.getLogger(__name__)


@dataclass
class RunStats:
    """What happened during a run (returned by :meth:`BotRunner.run` and :func:`client.hosting.host.play`)."""

    table: int | None = None
    seat: int | None = None
    games: int = 0
    """Games that ended at the table while the runner sat there."""
    started: int = 0
    """Games this runner started (as the table's creator)."""
    places: Counter[int] = field(default_factory=Counter)
    """How many finished games the runner ended in each place (1 = first out): counts, not a
    list per game, so a runner of a long series stays the same size."""
    acts: int = 0
    """Actions the server applied."""
    stale: int = 0
    """``STALE_SEQ`` answers (normal when states overtake a decision)."""
    illegal: int = 0
    """``ILLEGAL_ACTION`` answers (the bot then fell back to the first legal action)."""
    bot_errors: int = 0
    """``choose`` raised or returned a text not in ``legal``."""
    losses: int = 0
    """Games in which this seat came last."""
    rate_limited: int = 0
    storage_failed: int = 0
    """``STORAGE_FAILED`` answers (the server could not write its database; tried again later)."""
    reconnects: int = 0
    end_reason: str = ""


class BotRunner:
    """Plays ``bot`` for one seat over ``client`` (already logged in). See the module docstring.

    Args:
        bot: the bot to run.
        client: a connected, logged-in :class:`~client.sdk.Client`; the runner is the only
            reader of its :meth:`~client.sdk.Client.messages`.
        games: stop after this many games have ended at the table (None: play on for ever).
        start_games: send ``start`` whenever every seat is taken and no game runs (for the
            table's owner; at most ``games`` times).
        think_in_thread: call ``bot.choose`` in a worker thread, so a slow bot does not block
            the event loop (needed when the loop also runs a server).
        pace: seconds from reading a state that asks for a turn's action (not a setup swap) to
            sending it, while a seat of the table is held by a person (not a bot), so that people
            can follow the play (:meth:`pause`); 0: at once. The server's own bots get the
            server's ``bot_delay``; a table of bots only plays at full speed.
        table, seat: the seat the client holds (as :meth:`attach`); else call :meth:`join` or
            :meth:`attach` before :meth:`run`.
    """

    def __init__(
        self,
        bot: Bot,
        client: Client,
        *,
        games: int | None = None,
        start_games: bool = False,
        think_in_thread: bool = False,
        leave_at_end: bool = True,
        pace: float = 0.0,
        table: int | None = None,
        seat: int | None = None,
    ) -> None:
        self.bot = bot
        self.pace = pace
        #: Leave the table when ``games`` have ended. False at a tournament's table, which the
        #: server closes itself when its one game ends (a ``leave`` then finds no table).
        self.leave_at_end = leave_at_end
        self.client = client
        self.games = games
        self.start_games = start_games
        self.think_in_thread = think_in_thread
        self.stats = RunStats()
        self.table: int | None = None
        self._game: int | None = None  # the game id whose states we are reading
        self._barrier = -1  # states up to this seq do not show our last applied action yet
        # The newest game whose end was handled: a table's game numbers only grow, so one
        # number (not a set that grows with every game of a long series) tells a repeat.
        self._last_finished = -1
        self._running = False  # a game is running at the table, as far as we know
        self._done = False
        if table is not None and seat is not None:
            self.attach(table, seat)

    async def join(self, table: int, seat: int | None = None, password: str | None = None) -> int:
        """Take a seat at ``table``; returns the seat. Raises :class:`~client.sdk.ServerError`."""
        held = await self.client.join(table, seat, password)
        self.attach(table, held.seat)
        return held.seat

    def attach(self, table: int, seat: int) -> None:
        """Play ``seat`` at ``table``, which the client already holds (taken by
        :func:`client.hosting.host.take_seat`, or given by the server, as in a tournament)."""
        self.table = table
        self.stats.table, self.stats.seat = table, seat

    async def run(self, source: AsyncIterable[Item] | None = None) -> RunStats:
        """Play until ``games`` games have ended, the seat is lost or the messages end.

        Call :meth:`join` (or :meth:`attach`) first. ``source``: the messages to read instead
        of ``client.messages()``, for a caller that shares one client between several runners
        and hands each the messages of its table (it should pass on ``reconnected`` too). Leaves
        the table at the end when ``games`` was reached; does not close the client."""
        if self.table is None:
            raise RuntimeError("join a table before run()")
        table = self.table
        summary = self.client.summaries.get(table)
        if summary is not None:
            await self._maybe_start(summary)
        stream = self.client.messages() if source is None else aiter(source)
        if isinstance(stream, AsyncGenerator):
            async with contextlib.aclosing(stream):
                await self._read(stream, table)
        else:
            await self._read(stream, table)
        if self.leave_at_end and self.games is not None and self.stats.games >= self.games:
            try:
                await self.client.leave(table)
            except (ServerError, ConnectionLost) as exc:
                log.debug("leaving table %d: %s", table, exc)
        return self.stats

    async def _read(self, messages: AsyncIterator[Item], table: int) -> None:
        async for msg in messages:
            match msg:
                case State() if msg.table == table:
                    await self._on_state(msg)
                case GameOver() if msg.table == table:
                    self._game_ended(msg.game, msg.result, msg.tally)
                case TableUpdate() if msg.table == table:
                    await self._maybe_start(msg.summary)
                case Error():
                    self._on_error(msg)
                case Reconnected():
                    self._on_reconnected(msg)
                    latest = self.client.states.get(table)
                    if latest is not None and not self._done:
                        # States read while the connection was down could not be answered: the
                        # newest one (the snapshot of the resumed seat) is decided on now, unless
                        # that was done already (then its seq is within the barrier).
                        await self._decide(latest)
                case Closed():
                    self._stop(f"client closed: {msg.reason}")
            if self._done:
                return
        self._stop("the messages ended")

    def _stop(self, reason: str) -> None:
        if not self._done:
            self._done = True
            self.stats.end_reason = reason
            log.info("bot %s stops: %s", self.bot.name, reason)

    # ------------------------------------------------------------------ messages

    async def _on_state(self, msg: State) -> None:
        view, game = msg.view, msg.game
        if game != self._game:
            self._game = game
            self._running = view["phase"] != "over"
            self.bot.on_game_start(view)
        self.bot.observe(view, msg.events)
        outcome = view["result"]
        if (
            view["phase"] == "over"
            and outcome is not None
            and game > self._last_finished
            and self._missed_game_over(msg)
        ):
            # The game ended while we were away: its game_over message will not come. The
            # view's outcome and player names make its result; the table's tally is unknown.
            players = [p["name"] or "" for p in view["players"]]
            self._game_ended(game, GameResult(**outcome, players=players), None)
            return
        await self._decide(msg)

    @staticmethod
    def _missed_game_over(msg: State) -> bool:
        """A snapshot after a resume (``back`` event) of a finished game."""
        return any(e["kind"] == "back" for e in msg.events)

    async def _decide(self, msg: State) -> None:
        """Act on ``msg`` if it asks us to and is the newest word on the table."""
        table, seq = msg.table, msg.seq
        while True:
            view = msg.view
            legal = view["legal"]
            latest = self.client.states.get(table)
            if not legal or latest is None or latest.seq != seq or seq <= self._barrier:
                return  # nothing to do, or a newer state is already queued (we act on that one)
            loop = asyncio.get_running_loop()
            read = loop.time()
            action = await self._choose(view)
            pause = self.pause(view)
            if pause > 0:
                # From reading the state, thinking included (a slow bot waits no longer).
                await asyncio.sleep(max(0.0, read + pause - loop.time()))
            try:
                self._barrier = await self.client.act(table, seq, action)
                self.stats.acts += 1
                return
            except ServerError as exc:
                if exc.code == ErrorCode.STALE_SEQ:
                    self.stats.stale += 1
                    return
                if exc.code in (ErrorCode.RATE_LIMITED, ErrorCode.STORAGE_FAILED):
                    # Nothing was done: wait as told, then decide again on the newest state (the
                    # loop returns if a newer one came meanwhile: the runner acts on that one).
                    self._count_pause(exc)
                    await asyncio.sleep(exc.retry_after or 0.1)
                    continue
                if exc.code == ErrorCode.ILLEGAL_ACTION:
                    self.stats.illegal += 1
                    log.warning(
                        "bot %s: %r refused (%s); playing %r instead", self.bot.name, action, exc.reason, legal[0]
                    )
                    if action != legal[0]:
                        await self._fallback(table, seq, legal[0])
                    return
                log.warning("bot %s: act refused: %s", self.bot.name, exc)
                return
            except ConnectionLost as exc:
                log.info("bot %s: act not answered: %s (the snapshot after reconnecting decides)", self.bot.name, exc)
                return

    def pause(self, view: View) -> float:
        """Seconds to wait before acting on ``view``: :attr:`pace` for a turn's action (the
        ``announce`` and ``play`` phases) while a person holds a seat at the table (by its latest
        summary), 0 otherwise (setup swaps, a table of bots only)."""
        if self.pace <= 0 or view["phase"] not in ("announce", "play") or self.table is None:
            return 0.0
        summary = self.client.summaries.get(self.table)
        if summary is None:
            return 0.0
        return self.pace if any(s is not None and not s["bot"] for s in summary["seats"]) else 0.0

    async def _fallback(self, table: int, seq: int, action: str) -> None:
        try:
            self._barrier = await self.client.act(table, seq, action)
            self.stats.acts += 1
        except (ServerError, ConnectionLost) as exc:
            log.warning("bot %s: the fallback action was refused too: %s", self.bot.name, exc)

    async def _choose(self, view: View) -> str:
        """The bot's choice; the first legal action when it fails or answers nonsense."""
        legal = view["legal"]
        try:
            if self.think_in_thread:
                action = await asyncio.to_thread(self.bot.choose, view)
            else:
                action = self.bot.choose(view)
        except Exception:
            log.exception("bot %s: choose() failed; playing %r", self.bot.name, legal[0])
            self.stats.bot_errors += 1
            return legal[0]
        if action not in legal:
            log.warning("bot %s chose %r, which is not legal; playing %r", self.bot.name, action, legal[0])
            self.stats.bot_errors += 1
            return legal[0]
        return action

    def _game_ended(self, game: int, result: GameResult, tally: Tally | None) -> None:
        if game <= self._last_finished:
            return
        self._last_finished = game
        self._running = False
        self.stats.games += 1
        places = result["places"]
        seat = self.stats.seat
        if seat is not None and seat in places:
            self.stats.places[places.index(seat) + 1] += 1
            if result["loser"] == seat:
                self.stats.losses += 1
        try:
            self.bot.on_game_over(result, tally)
        except Exception:
            log.exception("bot %s: on_game_over() failed", self.bot.name)
        log.info("bot %s: game %d over (%d played)", self.bot.name, game, self.stats.games)
        if self.games is not None and self.stats.games >= self.games:
            self._stop(f"{self.games} games played")

    async def _maybe_start(self, summary: TableSummary) -> None:
        """As the table's starter: deal when every seat is taken and no game runs."""
        if not self.start_games or self._running or summary["free"] != 0 or summary["status"] != "waiting":
            return
        if self.games is not None and self.stats.started >= self.games:
            return
        while True:
            try:
                await self.client.start(summary["table"])
                break
            except ServerError as exc:
                if exc.code in (ErrorCode.RATE_LIMITED, ErrorCode.STORAGE_FAILED):
                    # No table_update may come to prompt another try: wait, then try again.
                    self._count_pause(exc)
                    await asyncio.sleep(exc.retry_after or 0.1)
                    continue
                # Someone left again, or a game already runs: the next table_update tells.
                log.debug("start refused: %s", exc)
                return
            except ConnectionLost:
                return
        self._running = True
        self.stats.started += 1

    def _count_pause(self, exc: ServerError) -> None:
        if exc.code == ErrorCode.STORAGE_FAILED:
            self.stats.storage_failed += 1
            log.info(
                "bot %s: the server cannot save right now (%s); trying again in %s s",
                self.bot.name,
                exc.message,
                exc.retry_after,
            )
        else:
            self.stats.rate_limited += 1

    def _on_error(self, msg: Error) -> None:
        """An error that answers no request: about the connection, or our seat."""
        if msg.code == ErrorCode.BAD_TOKEN and self.table not in self.client.seats:
            self._stop(f"seat lost: {msg.message}")
        else:
            log.warning("bot %s: server error: %s %s", self.bot.name, msg.code, msg.message)

    def _on_reconnected(self, msg: Reconnected) -> None:
        # The snapshot state of a resumed seat is acted on like any state. The barrier needs
        # no reset: it comes from an applied act, after which the table's seq is higher.
        self.stats.reconnects += 1
        for item in msg.lost:
            if item["table"] == self.table:
                self._stop(f"seat not given back after reconnecting: {item['code']}")
