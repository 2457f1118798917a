"""Host one bot: its whole life, read top to bottom in :func:`play` (a table),
:func:`play_tournament` and :func:`play_ladder`:

1. **connect and log in** as a bot (:func:`connect_bot`);
2. **take the seat** (:func:`take_seat`: create a table, resume a seat with its token, join a
   table, or find a free seat with :func:`find_table`), or **enter** the tournament or the
   ladder (the player's registration, the first thing its ``run`` does);
3. **play the loop**: :class:`~client.hosting.bot_runner.BotRunner` at one table, or
   :class:`~client.hosting.tournament_player.TournamentPlayer` /
   :class:`~client.hosting.ladder_player.LadderPlayer`, which run one ``BotRunner`` per table
   the server seats the bot at;
4. **report**: the run's stats are returned, and the client is closed (also on cancellation).

Every host of a bot calls these and nothing calls back: ``shithead-bot``
(:mod:`client.hosting.command`), the server's own bots (:mod:`client.hosting.house`, in
:mod:`client.hosting.house_process`'s child) and ``shithead-tournament``'s bundled participants
(:mod:`client.tournament.play`, which logs them in with :func:`connect_bot` before the start so
that a refused login stops the run at once). What they are told is in
:mod:`client.hosting.options`. Reconnecting is the SDK's (``LoginOptions.reconnect``); what a
bot does after a reconnect is the loop's.

Library use::

    stats = await play(GreedyBot(), PlayOptions(login=LoginOptions(name="greedy-1"), games=3))
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from client.bot import Bot
from client.hosting.bot_runner import BotRunner, RunStats
from client.hosting.ladder_player import LadderPlayer
from client.hosting.options import LoginOptions, PlayOptions, Seating
from client.hosting.tournament_player import PlayerStats, TournamentPlayer
from client.sdk import Client, ServerError
from protocol.errors import ErrorCode

__all__ = ["connect_bot", "find_table", "play", "play_ladder", "play_tournament", "take_seat"]

log = logging.getLogger(__name__)

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


# ------------------------------------------------------------------ a bot's life, at one table


async def play(bot: Bot, options: PlayOptions, *, on_seated: Callable[[int, int], None] | None = None) -> RunStats:
    """Connect, log in as a bot, sit down, and run ``bot`` (see
    :class:`~client.hosting.bot_runner.BotRunner`); a bot that created its table starts its games.

    ``on_seated(table, seat)`` is called once the bot sits (a host that reports the seat while
    the bot plays on). Returns the run's :class:`~client.hosting.bot_runner.RunStats`; the client
    is closed at the end, also on cancellation (Ctrl-C). Raises :class:`~client.sdk.ServerError`
    when login, create, resume or join is refused, ``OSError`` when the server cannot be reached.
    """
    client = await connect_bot(options.login)
    try:
        table, seat = await take_seat(client, options.seating)
        if on_seated is not None:
            on_seated(table, seat)
        runner = BotRunner(
            bot,
            client,
            table=table,
            seat=seat,
            games=options.games,
            start_games=options.seating.create is not None,
            think_in_thread=options.think_in_thread,
            pace=options.pace,
        )
        return await runner.run()
    finally:
        await client.close()


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


async def take_seat(client: Client, seating: Seating) -> tuple[int, int]:
    """Seat ``client`` (logged in) as ``seating`` says; returns ``(table, seat)``.
    Raises :class:`~client.sdk.ServerError` when create, resume or join is refused."""
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
        seat = (await client.join(table, seating.seat, seating.password)).seat
    elif seating.token is not None:
        assert seating.table is not None  # (checked by Seating)
        table = seating.table
        seat = (await client.resume(table, seating.token)).seat
    elif seating.table is not None:
        table = seating.table
        seat = (await client.join(table, seating.seat, seating.password)).seat
    else:
        table, seat = await find_table(
            client, seat=seating.seat, password=seating.password, poll_seconds=seating.poll_seconds
        )
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


# ------------------------------------------------------------------ a bot's life, table after table


async def play_tournament(
    make: Callable[[int], Bot],
    login: LoginOptions,
    tournament: int,
    *,
    think_in_thread: bool = False,
    on_registered: Callable[[], None] | None = None,
) -> PlayerStats:
    """Connect, log in as a bot, register in ``tournament`` and play every table the server
    seats this player at, with a fresh bot ``make(game)`` per table (``game``: its number in the
    tournament; see :class:`~client.hosting.tournament_player.TournamentPlayer`).

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
    cancels (see :class:`~client.hosting.ladder_player.LadderPlayer`). The client is closed at
    the end. Raises like :func:`play`; a guest login is refused by the server at ``ladder_join``."""
    client = await connect_bot(login)
    try:
        player = LadderPlayer(client, make, presets, think_in_thread=think_in_thread, on_registered=on_registered)
        return await player.run()
    finally:
        await client.close()
