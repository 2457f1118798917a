"""``shithead-bot``: run a bot at a table or in a tournament, from the command line.

    shithead-bot --bot greedy --create --games 3
    shithead-bot --bot search --tournament 4 --name mine --password secret
    shithead-bot --bot greedy --ladder classic --name mybot --password secret

The bot is a bundled one (``--bot``, from the catalogue in :mod:`client.bots`) or the caller's
(``main(bot=MyBot())``, as the starter bot does). The work is :mod:`client.hosting.host`'s (connect,
log in, sit, play) and :class:`~client.hosting.bot_runner.BotRunner`'s (the seat's loop); this module
only turns the command line into their options.

Words: ``--bot`` (``args.bot``) names a bot *kind* of the catalogue; ``bot`` is a
:class:`~client.bot.Bot` object; a bot's ``name`` is the player name it logs in with.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import logging
import random
import sys
from collections.abc import Mapping

from client.bot import Bot
from client.bots import bot_class, bot_names, make_bot, thinks_in_thread
from client.eventloop import use_uvloop_if_installed
from client.hosting.host import play, play_ladder, play_tournament
from client.hosting.options import DEFAULT_HOST, DEFAULT_PORT, LoginOptions, NewTable, PlayOptions, Seating
from client.sdk import ServerError

__all__ = ["main", "make_named_bot", "options_from_args", "parse_args"]


def parse_args(argv: list[str] | None, *, bot_given: bool = False) -> argparse.Namespace:
    """The command line; with ``bot_given`` (the caller brings its bot), ``--bot`` is optional."""
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
    p.add_argument(
        "--ladder",
        metavar="PRESET[,PRESET...]",
        help="join the server's ladder on these presets and play every ladder game it seats us at, "
        "until stopped (Ctrl-C); needs an account (--name and --password): the ladder rates accounts",
    )
    p.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="seconds of search per decision for the searching bots (search, ismcts; default 0.1)",
    )
    p.add_argument("--create", action="store_true", help="create a table, join it and start its games")
    p.add_argument("--preset", default="classic", help="rules preset of a created table (default classic)")
    p.add_argument("--seats", type=int, default=2, help="seats of a created table (default 2)")
    p.add_argument("--seed", type=int, help="shuffle seed of a created table")
    p.add_argument("--json", action="store_true", help="use JSON lines instead of msgpack frames")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    args = p.parse_args(argv)
    if args.ladder is not None:
        args.ladder = [x.strip() for x in args.ladder.split(",") if x.strip()]
        if not args.ladder:
            p.error("--ladder needs at least one preset")
        if not args.password:
            p.error("--ladder needs an account: give --name and --password (the ladder rates accounts, not guests)")
        if args.tournament is not None:
            p.error("--ladder and --tournament do not go together")
    if args.budget is not None and (args.budget <= 0 or args.bot not in SEARCHING):
        p.error(f"--budget takes seconds above 0 and goes with --bot {' or '.join(SEARCHING)}")
    return args


SEARCHING = ("search", "ismcts")
"""The bundled bots that take a time budget (``--budget``)."""


def make_named_bot(kind: str, budget: float | None = None) -> Bot:
    """A fresh bundled bot of ``kind``; ``budget``: its seconds per decision (searching bots only)."""
    if budget is None:
        return make_bot(kind)
    return bot_class(kind)(None, budget=budget)  # type: ignore[call-arg]


def options_from_args(args: argparse.Namespace, *, name: str, bot_name: str) -> PlayOptions:
    """What :func:`~client.hosting.host.play` needs for the table the command line asks for,
    playing as ``name`` with the bot called ``bot_name``."""
    mode = "json" if args.json else "msgpack"
    login = LoginOptions(
        name=name,
        host=args.host,
        port=args.port,
        password=args.password,
        guest=not args.password,
        server_password=args.server_password,
        mode=mode,
        client_name=f"shithead-bot {bot_name}",
    )
    create = NewTable(preset=args.preset, seats=args.seats, seed=args.seed) if args.create else None
    seating = Seating(table=args.table, seat=args.seat, password=args.table_password, create=create)
    # A bot alone on its event loop needs no thread to think in (nothing else waits on the loop).
    return PlayOptions(login=login, seating=seating, games=args.games)


def main(argv: list[str] | None = None, *, bot: Bot | None = None) -> int:
    """``shithead-bot``: run a bundled bot (``--bot``), or ``bot`` when given (the starter bot
    calls ``main(bot=MyBot())`` to get the same flags). Returns the exit status."""
    args = parse_args(argv, bot_given=bot is not None)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    own_bot, kind = bot, args.bot  # the caller's Bot, or the kind of bundled bot to make
    if bot is None:
        bot = make_named_bot(kind, args.budget)
    name = args.name or f"{bot.name}-{random.randrange(1000, 10000)}"
    use_uvloop_if_installed()

    # One fresh bot per tournament or ladder table: bots keep memory per game.
    def make(game: int) -> Bot:
        return make_named_bot(kind, args.budget) if own_bot is None else copy.deepcopy(own_bot)

    def login_as(client_name: str) -> LoginOptions:
        mode = "json" if args.json else "msgpack"
        return LoginOptions(
            name=name,
            host=args.host,
            port=args.port,
            password=args.password,
            server_password=args.server_password,
            mode=mode,
            client_name=client_name,
        )

    # Tables of a tournament or the ladder may run at once, on this one loop: a slow bot thinks in a thread.
    think = kind is not None and thinks_in_thread(kind)
    try:
        if args.ladder is not None:
            print(
                f"{name}: on the ladder ({', '.join(args.ladder)}) at {args.host}:{args.port}; Ctrl-C stops", flush=True
            )
            ladder = asyncio.run(play_ladder(make, login_as("shithead-bot ladder"), args.ladder, think_in_thread=think))
            print(
                f"{name}: ladder: {ladder.tables} games, {ladder.acts} actions, {ladder.illegal} illegal "
                f"({ladder.end_reason})"
            )
            return 0
        if args.tournament is not None:
            login = login_as("shithead-bot tournament")
            result = asyncio.run(play_tournament(make, login, args.tournament, think_in_thread=think))
            print(
                f"{name}: tournament {args.tournament}: {result.tables} tables, {result.acts} actions, "
                f"{result.illegal} illegal ({result.end_reason})"
            )
            return 0
        stats = asyncio.run(play(bot, options_from_args(args, name=name, bot_name=bot.name)))
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
        f"{name}: {stats.games} games at table {stats.table}, places {_places(stats.places)}, "
        f"{stats.acts} actions, {stats.illegal} illegal, {stats.stale} stale ({stats.end_reason})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())


def _places(counts: Mapping[int, int]) -> str:
    """``1:3 2:5``: how many games the bot finished in each place (1 = first out)."""
    return " ".join(f"{p}:{n}" for p, n in sorted(counts.items())) or "-"
