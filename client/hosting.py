"""Host a bot: connect to a server, log in as a bot, take a seat (or enter a tournament), play.

This is the one way a bot is hosted, whoever hosts it: ``shithead-bot`` (:mod:`client.runner`),
the server's own bots (:mod:`client.house`) and ``shithead-tournament``'s bundled participants
(:mod:`client.tournament.organiser`) all connect with :func:`connect_bot`, sit with
:func:`take_seat`, and play with :class:`~client.bot_runner.BotRunner` (one table) or
:class:`~client.tournament_player.TournamentPlayer` (a tournament), or
:class:`~client.ladder_player.LadderPlayer` (the ladder, :func:`play_ladder`). Reconnecting is the SDK's
(``LoginOptions.reconnect``); what a bot does after a reconnect is the runner's.

Library use::

    stats = await play(GreedyBot(), PlayOptions(login=LoginOptions(name="greedy-1"), games=3))

The options are frozen dataclasses: :class:`LoginOptions` (where and as whom), :class:`Seating` (where
to sit, with :class:`NewTable` for a table the bot creates) and :class:`PlayOptions` (the
three, plus how many games and where the bot thinks).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from client.bot import Bot
from client.bot_runner import BotRunner, RunStats
from client.ladder_player import LadderPlayer
from client.sdk import Client, ServerError
from client.tournament_player import PlayerStats, TournamentPlayer
from protocol.errors import ErrorCode

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "LoginOptions",
    "NewTable",
    "PlayOptions",
    "Seating",
    "connect_bot",
    "find_table",
    "play",
    "play_tournament",
    "take_seat",
]

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


@dataclass(frozen=True, kw_only=True)
class LoginOptions:
    """Where a bot connects and as whom it logs in (always as a bot).

    Attributes:
        name: the player name.
        host, port: the server.
        password: the account's password (the first login registers the name); None for a guest.
        guest: log in as a guest; None means "when no password is given".
        server_password: the server's own password, if it has one.
        mode: ``"msgpack"`` (frames) or ``"json"`` (JSON lines).
        reconnect: let the SDK reconnect and take the seats back after a lost connection (a
            one-time login, as the server gives its own bots, cannot reconnect).
        client_name: the name the client gives in ``hello`` (it appears in the server's log).
        states: ``"turns"`` (the default): the seat gets only the states it must act on, plus
            its games' first and last, each with every event since the one before (PROTOCOL.md
            §6), which is all :class:`~client.bot_runner.BotRunner` and the bots need, at a
            quarter of the reading in a 4-seat game; ``"all"``: a state after every change.
        client_options: further keyword arguments of :meth:`client.sdk.Client.connect`.
    """

    name: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    password: str | None = None
    guest: bool | None = None
    server_password: str | None = None
    mode: str = "msgpack"
    reconnect: bool = True
    client_name: str = "shithead-bot"
    states: str = "turns"
    # (Mappings are left out of the hash, so that the frozen options stay hashable.)
    client_options: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, kw_only=True)
class NewTable:
    """A table the bot creates (the bot then sits there and starts its games).

    ``name`` None means "<player>'s table"; the table's password is :attr:`Seating.password`.
    """

    preset: str = "classic"
    seats: int = 2
    options: Mapping[str, Any] | None = field(default=None, hash=False)
    name: str | None = None
    action_seconds: float | None = None
    seed: int | None = None


@dataclass(frozen=True, kw_only=True)
class Seating:
    """Where a bot sits; the first that applies:

    * ``create``: a new table (see :class:`NewTable`);
    * ``token`` (with ``table``): the seat this token holds at ``table`` (a resume);
    * ``table``: that table, at ``seat`` (None: the first free one);
    * otherwise the first waiting table with a free seat (``seat`` if given), looking again every
      ``poll_seconds`` until one appears.

    ``password`` is the table's password (to join it, or set on a created table).
    """

    table: int | None = None
    seat: int | None = None
    password: str | None = None
    token: str | None = None
    create: NewTable | None = None
    poll_seconds: float = 2.0

    def __post_init__(self) -> None:
        if self.token is not None and self.table is None:
            raise ValueError("a seat token needs its table")


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """Everything :func:`play` needs besides the bot.

    Attributes:
        login: where and as whom.
        seating: where to sit (default: the first free seat anywhere).
        games: stop after this many games have ended at the table (None: play on).
        think_in_thread: call ``bot.choose`` in a worker thread (see
            :class:`~client.bot_runner.BotRunner`).
        pace: seconds to wait from a state that asks for a play to the play, while a person
            (a seat that is not a bot) sits at the table, so that people can follow; 0: none
            (see :class:`~client.bot_runner.BotRunner`; the server's own bots get its
            ``bot_delay``).
    """

    login: LoginOptions
    seating: Seating = field(default_factory=Seating)
    games: int | None = None
    think_in_thread: bool = False
    pace: float = 0.0


async def connect_bot(login: LoginOptions) -> Client:
    """A connected client, logged in as a bot. Closes the client again if the login fails.
    Raises :class:`~client.sdk.ServerError` when the login is refused, ``OSError`` when the
    server cannot be reached."""
    client = await Client.connect(
        login.host,
        login.port,
        mode=login.mode,
        client_name=login.client_name,
        reconnect=login.reconnect,
        states=login.states,
        **login.client_options,
    )
    guest = login.password is None if login.guest is None else login.guest
    try:
        await client.login(login.name, login.password, guest=guest, bot=True, server_password=login.server_password)
    except BaseException:
        await client.close()
        raise
    return client


async def take_seat(runner: BotRunner, seating: Seating) -> tuple[int, int]:
    """Seat ``runner`` (its client logged in) as ``seating`` says; returns ``(table, seat)``.
    Raises :class:`~client.sdk.ServerError` when create, resume or join is refused."""
    client = runner.client
    if seating.create is not None:
        new = seating.create
        table = await client.create_table(
            new.name or f"{client.name}'s table",
            new.preset,
            new.seats,
            options=None if new.options is None else dict(new.options),
            password=seating.password,
            action_seconds=new.action_seconds,
            seed=new.seed,
        )
        log.info("created table %d (%s, %d seats)", table, new.preset, new.seats)
        seat = await runner.join(table, seating.seat, seating.password)
    elif seating.token is not None:
        assert seating.table is not None  # (checked by Seating)
        table = seating.table
        seat = (await client.resume(table, seating.token)).seat
        runner.attach(table, seat)
    elif seating.table is not None:
        table = seating.table
        seat = await runner.join(table, seating.seat, seating.password)
    else:
        table, seat = await find_table(
            client, seat=seating.seat, password=seating.password, poll_seconds=seating.poll_seconds
        )
        runner.attach(table, seat)
    log.info("%s sits at table %d, seat %d", client.name, table, seat)
    return table, seat


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
        # (watch_lobby would push the list as it changes; a bot that waits for a free seat
        # once in a while asks again instead, which keeps this loop simple.)
        await asyncio.sleep(poll_seconds)


async def play(bot: Bot, options: PlayOptions, *, on_seated: Callable[[int, int], None] | None = None) -> RunStats:
    """Connect, log in as a bot, sit down, and run ``bot`` (see
    :class:`~client.bot_runner.BotRunner`); a runner that created its table starts its games.

    ``on_seated(table, seat)`` is called once the bot sits (a host that reports the seat while
    the bot plays on). Returns the run's :class:`~client.bot_runner.RunStats`; the client is
    closed at the end, also on cancellation (Ctrl-C). Raises :class:`~client.sdk.ServerError`
    when login, create, resume or join is refused, ``OSError`` when the server cannot be reached.
    """
    client = await connect_bot(options.login)
    try:
        runner = BotRunner(
            bot,
            client,
            games=options.games,
            start_games=options.seating.create is not None,
            think_in_thread=options.think_in_thread,
            pace=options.pace,
        )
        table, seat = await take_seat(runner, options.seating)
        if on_seated is not None:
            on_seated(table, seat)
        return await runner.run()
    finally:
        await client.close()


async def play_tournament(
    make: Callable[[int], Bot],
    login: LoginOptions,
    tournament: int,
    *,
    think_in_thread: bool = False,
    on_registered: Callable[[], None] | None = None,
) -> PlayerStats:
    """Connect, log in as a bot and play every table of ``tournament`` the server seats this
    player at, with a fresh bot ``make(game)`` per table (``game``: its number in the
    tournament; see :class:`~client.tournament_player.TournamentPlayer`).

    ``on_registered()`` is called after each registration (the first, and again after a
    reconnect). The client is closed at the end. Raises like :func:`play`."""
    client = await connect_bot(login)
    try:
        player = TournamentPlayer(
            client, make, tournament, think_in_thread=think_in_thread, on_registered=on_registered
        )
        return await player.run()
    finally:
        await client.close()


async def play_ladder(
    make: Callable[[int], Bot],
    login: LoginOptions,
    presets: Sequence[str],
    *,
    think_in_thread: bool = False,
    on_registered: Callable[[], None] | None = None,
) -> PlayerStats:
    """Connect, log in as a bot account, join the ladder on ``presets`` and play every ladder
    game the server seats this bot at, with a fresh bot ``make(game)`` per table, reconnecting
    (and joining again) when the connection drops, until the client closes or the caller
    cancels (see :class:`~client.ladder_player.LadderPlayer`). The client is closed at the end.
    Raises like :func:`play`; a guest login is refused by the server at ``ladder_join``."""
    client = await connect_bot(login)
    try:
        player = LadderPlayer(client, make, presets, think_in_thread=think_in_thread, on_registered=on_registered)
        return await player.run()
    finally:
        await client.close()
