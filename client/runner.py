"""Run a :class:`client.bot.Bot` at a table: the ``shithead-bot`` command and its library form.

Library use::

    stats = await play(GreedyBot(), "127.0.0.1", 7433, name="greedy-1", games=3)

or, with a client of your own (this is what a host of in-process bots uses)::

    runner = BotRunner(bot, client, games=None)
    seat = await runner.join(table)          # seated: the caller may report it now
    stats = await runner.run()               # plays until the games are done or the client closes

**What the runner does with each message of its table** (``docs/PROTOCOL.md`` §9 "A robust bot
loop"):

* ``state``: the first state of a new game id calls ``bot.on_game_start(view)``; every state
  calls ``bot.observe(view, events)``. When ``view["legal"]`` is not empty, the state is the
  newest one received for the table, and it already shows the runner's last applied action,
  ``bot.choose(view)`` picks an action, sent in an ``act`` with the state's ``seq``; the runner
  waits for the answer before reading on, so at most one ``act`` is unanswered. ``STALE_SEQ``
  is normal (a newer state is on its way) and only counted. ``ILLEGAL_ACTION``, an exception
  in ``choose`` or a text not in ``legal`` is logged, counted, and replaced by the first legal
  action. ``RATE_LIMITED`` (after the SDK's own retries) and ``STORAGE_FAILED`` (the server
  cannot write its database for now) wait ``retry_after`` and decide again on the newest state.
* ``game_over``: ``bot.on_game_over(result, tally)``; when ``games`` games have ended the
  runner leaves the table and returns.
* ``table_update``: a runner that starts games (it created the table) sends ``start`` when every
  seat is taken and no game runs, until it has started ``games`` games.
* ``reconnected``: the newest state is decided on, if it was not yet (states that came while
  the connection was down could not be answered). A snapshot of a game that ended while the
  runner was away counts as that game's end (its ``game_over`` is not sent again).
* A seat lost for good (taken over by another connection, or not given back after a
  reconnect) or a closed client ends the run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import logging
import random
import sys
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from client.bot import Bot
from client.sdk import Client, ConnectionLost, ServerError
from protocol.errors import ErrorCode

__all__ = ["BotRunner", "RunStats", "find_table", "main", "play", "play_tournament"]

log = logging.getLogger(__name__)

DEFAULT_PORT = 7433
DEFAULT_HOST = "127.0.0.1"
#: Refusals of ``join`` that mean "this table is no longer free": try another one.
_TAKEN = frozenset(
    {
        ErrorCode.TABLE_FULL,
        ErrorCode.SEAT_TAKEN,
        ErrorCode.ALREADY_STARTED,
        ErrorCode.UNKNOWN_TABLE,
        ErrorCode.WRONG_PASSWORD,
    }
)


@dataclass
class RunStats:
    """What happened during a run (returned by :meth:`BotRunner.run` and :func:`play`)."""

    table: int | None = None
    seat: int | None = None
    games: int = 0
    """Games that ended at the table while the runner sat there."""
    started: int = 0
    """Games this runner started (as the table's creator)."""
    places: list[int] = field(default_factory=list)
    """The runner's place (1 = first out) in each finished game."""
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
    """

    def __init__(
        self,
        bot: Bot,
        client: Client,
        *,
        games: int | None = None,
        start_games: bool = False,
        think_in_thread: bool = False,
    ) -> None:
        self.bot = bot
        self.client = client
        self.games = games
        self.start_games = start_games
        self.think_in_thread = think_in_thread
        self.stats = RunStats()
        self.table: int | None = None
        self._game: int | None = None  # the game id whose states we are reading
        self._barrier = -1  # states up to this seq do not show our last applied action yet
        self._finished: set[int] = set()  # game ids whose end was handled
        self._running = False  # a game is running at the table, as far as we know
        self._done = False

    async def join(self, table: int, seat: int | None = None, password: str | None = None) -> int:
        """Take a seat at ``table``; returns the seat. Raises :class:`~client.sdk.ServerError`."""
        held = await self.client.join(table, seat, password)
        self.attach(table, held.seat)
        return held.seat

    def attach(self, table: int, seat: int) -> None:
        """Play ``seat`` at ``table``, which the client already holds (found by
        :func:`find_table`, or given by the server, as in a tournament)."""
        self.table = table
        self.stats.table, self.stats.seat = table, seat

    async def run(self, source: AsyncIterable[dict[str, Any]] | None = None) -> RunStats:
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
        if self.games is not None and self.stats.games >= self.games:
            try:
                await self.client.leave(table)
            except (ServerError, ConnectionLost) as exc:
                log.debug("leaving table %d: %s", table, exc)
        return self.stats

    async def _read(self, messages: AsyncIterator[dict[str, Any]], table: int) -> None:
        async for msg in messages:
            kind = msg["type"]
            if kind == "state" and msg["table"] == table:
                await self._on_state(msg)
            elif kind == "game_over" and msg["table"] == table:
                self._game_ended(msg["game"], msg["result"], msg["tally"])
            elif kind == "table_update" and msg["table"] == table:
                await self._maybe_start(msg["summary"])
            elif kind == "error":
                self._on_error(msg)
            elif kind == "reconnected":
                self._on_reconnected(msg)
                latest = self.client.states.get(table)
                if latest is not None and not self._done:
                    # States read while the connection was down could not be answered: the
                    # newest one (the snapshot of the resumed seat) is decided on now, unless
                    # that was done already (then its seq is within the barrier).
                    await self._decide(latest)
            elif kind == "closed":
                self._stop(f"client closed: {msg['reason']}")
            if self._done:
                return
        self._stop("the messages ended")

    def _stop(self, reason: str) -> None:
        if not self._done:
            self._done = True
            self.stats.end_reason = reason
            log.info("bot %s stops: %s", self.bot.name, reason)

    # ------------------------------------------------------------------ messages

    async def _on_state(self, msg: dict[str, Any]) -> None:
        view, game = msg["view"], msg["game"]
        if game != self._game:
            self._game = game
            self._running = view.get("phase") != "over"
            self.bot.on_game_start(view)
        self.bot.observe(view, list(msg["events"]))
        if view.get("phase") == "over" and game not in self._finished and self._missed_game_over(msg):
            # The game ended while we were away: its game_over message will not come.
            self._game_ended(game, dict(view.get("result") or {}), {})
            return
        await self._decide(msg)

    @staticmethod
    def _missed_game_over(msg: dict[str, Any]) -> bool:
        """A snapshot after a resume (``back`` event) of a finished game."""
        return any(e.get("kind") == "back" for e in msg["events"])

    async def _decide(self, msg: dict[str, Any]) -> None:
        """Act on ``msg`` if it asks us to and is the newest word on the table."""
        table = msg["table"]
        while True:
            view = msg["view"]
            legal = view.get("legal") or []
            latest = self.client.states.get(table)
            if not legal or latest is None or latest["seq"] != msg["seq"] or msg["seq"] <= self._barrier:
                return  # nothing to do, or a newer state is already queued (we act on that one)
            action = await self._choose(view)
            try:
                self._barrier = await self.client.act(table, msg["seq"], action)
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
                        await self._fallback(table, msg["seq"], legal[0])
                    return
                log.warning("bot %s: act refused: %s", self.bot.name, exc)
                return
            except ConnectionLost as exc:
                log.info("bot %s: act not answered: %s (the snapshot after reconnecting decides)", self.bot.name, exc)
                return

    async def _fallback(self, table: int, seq: int, action: str) -> None:
        try:
            self._barrier = await self.client.act(table, seq, action)
            self.stats.acts += 1
        except (ServerError, ConnectionLost) as exc:
            log.warning("bot %s: the fallback action was refused too: %s", self.bot.name, exc)

    async def _choose(self, view: dict[str, Any]) -> str:
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
            return str(legal[0])
        if action not in legal:
            log.warning("bot %s chose %r, which is not legal; playing %r", self.bot.name, action, legal[0])
            self.stats.bot_errors += 1
            return str(legal[0])
        return action

    def _game_ended(self, game: int, result: dict[str, Any], tally: dict[str, Any]) -> None:
        if game in self._finished:
            return
        self._finished.add(game)
        self._running = False
        self.stats.games += 1
        places = list(result.get("places") or [])
        seat = self.stats.seat
        if seat is not None and seat in places:
            self.stats.places.append(places.index(seat) + 1)
            if result.get("loser") == seat:
                self.stats.losses += 1
        try:
            self.bot.on_game_over(result, tally)
        except Exception:
            log.exception("bot %s: on_game_over() failed", self.bot.name)
        log.info("bot %s: game %d over (%d played)", self.bot.name, game, self.stats.games)
        if self.games is not None and self.stats.games >= self.games:
            self._stop(f"{self.games} games played")

    async def _maybe_start(self, summary: dict[str, Any]) -> None:
        """As the table's starter: deal when every seat is taken and no game runs."""
        if not self.start_games or self._running or summary.get("free") != 0 or summary.get("status") != "waiting":
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

    def _on_error(self, msg: dict[str, Any]) -> None:
        """An error that answers no request: about the connection, or our seat."""
        if msg.get("code") == ErrorCode.BAD_TOKEN and self.table not in self.client.seats:
            self._stop(f"seat lost: {msg.get('message')}")
        else:
            log.warning("bot %s: server error: %s %s", self.bot.name, msg.get("code"), msg.get("message"))

    def _on_reconnected(self, msg: dict[str, Any]) -> None:
        # The snapshot state of a resumed seat is acted on like any state. The barrier needs
        # no reset: it comes from an applied act, after which the table's seq is higher.
        self.stats.reconnects += 1
        for item in msg["lost"]:
            if item["table"] == self.table:
                self._stop(f"seat not given back after reconnecting: {item['code']}")


# ---------------------------------------------------------------------- play()


async def find_table(
    client: Client, *, seat: int | None = None, password: str | None = None, poll_seconds: float = 2.0
) -> tuple[int, int]:
    """Join the first waiting table with a free seat (polling until one appears); returns
    ``(table, seat)``. Tables with a password are skipped unless ``password`` is given."""
    while True:
        for summary in await client.list_tables():
            if summary.get("status") != "waiting" or not summary.get("free"):
                continue
            if summary.get("password") and password is None:
                continue
            if seat is not None and (seat >= len(summary["seats"]) or summary["seats"][seat] is not None):
                continue
            try:
                held = await client.join(summary["table"], seat, password)
            except ServerError as exc:
                if exc.code in _TAKEN:
                    continue  # taken meanwhile: look at the next one
                raise
            return int(summary["table"]), held.seat
        log.debug("no free table yet; looking again in %.1f s", poll_seconds)
        await asyncio.sleep(poll_seconds)


async def play(
    bot: Bot,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    name: str,
    password: str | None = None,
    guest: bool | None = None,
    table: int | None = None,
    seat: int | None = None,
    games: int | None = None,
    create: bool = False,
    preset: str = "classic",
    seats: int = 2,
    options: dict[str, Any] | None = None,
    table_name: str | None = None,
    table_password: str | None = None,
    action_seconds: float | None = None,
    seed: int | None = None,
    server_password: str | None = None,
    mode: str = "msgpack",
    poll_seconds: float = 2.0,
    reconnect: bool = True,
    think_in_thread: bool = False,
    client_options: dict[str, Any] | None = None,
) -> RunStats:
    """Connect, log in as a bot, sit down, and run ``bot`` (see :class:`BotRunner`).

    Where to sit: with ``create``, a new table (``preset``, ``seats``, ``options``...) that this
    runner joins and starts games at; with ``table``, that table; otherwise the first waiting
    table with a free seat, polling every ``poll_seconds`` until one appears. ``guest`` defaults
    to "no password given". Returns the run's :class:`RunStats`; the client is closed at the
    end, also on cancellation (Ctrl-C). Raises :class:`~client.sdk.ServerError` when login,
    create or join is refused, ``OSError`` when the server cannot be reached.
    """
    if guest is None:
        guest = password is None
    client = await Client.connect(
        host, port, mode=mode, client_name=f"shithead-bot {bot.name}", reconnect=reconnect, **(client_options or {})
    )
    try:
        await client.login(name, password, guest=guest, bot=True, server_password=server_password)
        runner = BotRunner(bot, client, games=games, start_games=create, think_in_thread=think_in_thread)
        if create:
            table = await client.create_table(
                table_name or f"{client.name}'s table",
                preset,
                seats,
                options=options,
                password=table_password,
                action_seconds=action_seconds,
                seed=seed,
            )
            log.info("created table %d (%s, %d seats)", table, preset, seats)
        if table is not None:
            got = await runner.join(table, seat, table_password)
        else:
            table, got = await find_table(client, seat=seat, password=table_password, poll_seconds=poll_seconds)
            runner.attach(table, got)
        log.info("%s sits at table %d, seat %d", client.name, table, got)
        return await runner.run()
    finally:
        await client.close()


async def play_tournament(
    make: Callable[[int], Bot],
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    name: str,
    tournament: int,
    password: str | None = None,
    guest: bool | None = None,
    server_password: str | None = None,
    mode: str = "msgpack",
    think_in_thread: bool = False,
) -> Any:
    """Connect, log in as a bot and play every table of ``tournament`` the server seats this
    player at, with a fresh bot ``make(game)`` per table (``game``: its number in the tournament; see
    :class:`client.tournament_player.TournamentPlayer`, whose ``PlayerStats`` this returns).
    The client is closed at the end. Raises like :func:`play`."""
    from client.tournament_player import TournamentPlayer  # it imports this module

    if guest is None:
        guest = password is None
    client = await Client.connect(host, port, mode=mode, client_name="shithead-bot tournament")
    try:
        await client.login(name, password, guest=guest, bot=True, server_password=server_password)
        return await TournamentPlayer(client, make, tournament, think_in_thread=think_in_thread).run()
    finally:
        await client.close()


# ---------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None, *, bot_given: bool = False) -> argparse.Namespace:
    from client.bots import bot_names

    p = argparse.ArgumentParser(prog="shithead-bot", description="Run a bot on a Shithead server.")
    p.add_argument(
        "--bot", required=not bot_given, choices=None if bot_given else bot_names(), help="which bundled bot to run"
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"server address (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"server port (default {DEFAULT_PORT})")
    p.add_argument("--table", type=int, help="table id to join (default: the first with a free seat)")
    p.add_argument("--seat", type=int, help="seat to take (default: the first free one)")
    p.add_argument("--name", help="player name (default: the bot's name and a number)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--password", help="account password (the first login registers the name)")
    who.add_argument("--guest", action="store_true", help="log in as a guest (the default without --password)")
    p.add_argument("--server-password", help="the server's own password, if it has one")
    p.add_argument("--table-password", help="the table's password, if it has one")
    p.add_argument("--games", type=int, help="stop after this many games (default: play on)")
    p.add_argument("--tournament", type=int, help="enter this tournament and play the tables it seats us at")
    p.add_argument("--create", action="store_true", help="create a table, join it and start its games")
    p.add_argument("--preset", default="classic", help="rules preset of a created table (default classic)")
    p.add_argument("--seats", type=int, default=2, help="seats of a created table (default 2)")
    p.add_argument("--seed", type=int, help="shuffle seed of a created table")
    p.add_argument("--json", action="store_true", help="use JSON lines instead of msgpack frames")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None, *, bot: Bot | None = None) -> int:
    """``shithead-bot``: run a bundled bot (``--bot``), or ``bot`` when given (the starter bot
    calls ``main(bot=MyBot())`` to get the same flags). Returns the exit status."""
    from client.bots import make_bot

    args = parse_args(argv, bot_given=bot is not None)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    bot_given = bot
    if bot is None:
        bot = make_bot(args.bot)
    name = args.name or f"{bot.name}-{random.randrange(1000, 10000)}"
    mode = "json" if args.json else "msgpack"
    try:
        if args.tournament is not None:
            # One fresh bot per tournament table: bots keep memory per game.
            def make(game: int) -> Bot:
                return make_bot(args.bot) if bot_given is None else copy.deepcopy(bot_given)

            result = asyncio.run(
                play_tournament(
                    make,
                    args.host,
                    args.port,
                    name=name,
                    tournament=args.tournament,
                    password=args.password,
                    server_password=args.server_password,
                    mode=mode,
                    think_in_thread=args.bot == "search",
                )
            )
            print(
                f"{name}: tournament {args.tournament}: {result.tables} tables, {result.acts} actions, "
                f"{result.illegal} illegal ({result.end_reason})"
            )
            return 0
        stats = asyncio.run(
            play(
                bot,
                args.host,
                args.port,
                name=name,
                password=args.password,
                guest=not args.password,
                table=args.table,
                seat=args.seat,
                games=args.games,
                create=args.create,
                preset=args.preset,
                seats=args.seats,
                seed=args.seed,
                table_password=args.table_password,
                server_password=args.server_password,
                mode=mode,
            )
        )
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130
    except ServerError as exc:
        print(f"refused by the server: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cannot talk to {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(
        f"{name}: {stats.games} games at table {stats.table}, places {stats.places}, "
        f"{stats.acts} actions, {stats.illegal} illegal, {stats.stale} stale ({stats.end_reason})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
