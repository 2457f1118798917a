"""``shithead-tournament`` (also ``python -m client.tournament``): a tournament of bots.

    shithead-tournament greedy random search --games 200
    shithead-tournament greedy greedy random --seats 3 --schedule gauntlet --hero greedy
    shithead-tournament greedy --engine "mine=python mybot.py {host} {port} {tournament} {name} {password}"
    shithead-tournament greedy random --games 20000 --workers 2
    shithead-tournament greedy random --games 100000 --ray auto
    shithead-tournament --resume tournament-20261121-190000

See :mod:`client.tournament.organiser` for what it writes, where the games are played and how
resuming works. The organiser starts its servers as child processes (``python -m server``), so
even this entry point imports nothing of the server but the pure tournament modules.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from client.bots import bot_names
from client.eventloop import use_uvloop_if_installed
from client.programs import PLACEHOLDERS, command_argv
from client.tournament.organiser import (
    NAME_RE,
    Entrant,
    Plan,
    Progress,
    default_out,
    final_report,
    parse_entrant,
    run,
    unique_names,
)
from client.tournament.ray_jobs import require_ray
from protocol.errors import ProtocolError
from server.engine.buildinfo import describe_build
from server.tournament.standings import Row


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="shithead-tournament",
        description="Run a tournament of Shithead bots.",
        epilog="Results go to OUT/results.csv, OUT/standings.json and OUT/records/.",
    )
    p.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help=f"bundled bots as participants: {', '.join(bot_names())} (NAME=BOT to name one; repeats are numbered)",
    )
    p.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a bot program to start as participant NAME (placeholders {host} {port} {tournament} {name} {password})",
    )
    p.add_argument(
        "--account",
        action="append",
        default=[],
        metavar="NAME",
        help="a bot account that connects and registers by itself (use with --server)",
    )
    p.add_argument("--games", type=int, default=100, help="games to play, rounded up to whole deals (default 100)")
    p.add_argument("--seats", type=int, default=4, help="players per table (default 4)")
    p.add_argument("--schedule", choices=["round-robin", "gauntlet"], default="round-robin")
    p.add_argument("--hero", help="the participant who plays every game of a gauntlet")
    p.add_argument("--permute", action="store_true", help="replay each deal in every seating, not only rotations")
    p.add_argument("--concurrency", type=int, default=2, help="tables at once (default 2)")
    p.add_argument("--preset", default="classic", help="rules preset (default classic)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option (VALUE as JSON, e.g. jokers=2)",
    )
    p.add_argument("--seconds", type=float, default=5.0, help="time per action before the default action (5)")
    p.add_argument("--seed", type=int, help="master seed of every deal (default: random, printed)")
    p.add_argument("--every", type=int, default=50, help="print the standings every K games (default 50)")
    p.add_argument("--out", type=Path, help="output directory (default ./tournament-DATE-TIME)")
    p.add_argument("--resume", type=Path, metavar="OUT", help="continue the tournament in OUT")
    p.add_argument("--server", metavar="HOST:PORT", help="use a running server instead of starting one")
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="play in N worker processes, each with a server of its own (default: one per core; "
        "1: one server); with --ray: Ray tasks at once (default: one per CPU of the cluster)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the deal sets as tasks of the Ray cluster at ADDRESS (auto: the one ray start "
        "set up here; local: a new Ray instance on this machine); needs the cluster extra",
    )
    p.add_argument("-v", "--verbose", action="count", default=0)
    return p.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    """The plan from the command line. Raises ValueError with a message for the user."""
    entrants = [parse_entrant(b) for b in args.bots]
    for spec in args.engine:
        name, sep, command = spec.partition("=")
        if not sep or not command.strip():
            raise ValueError(f"--engine needs NAME=COMMAND, got {spec!r}")
        command_argv(command, dict.fromkeys(PLACEHOLDERS, ""))  # its placeholders, checked before anything starts
        entrants.append(Entrant(name.strip(), "engine", command=command.strip()))
    entrants += [Entrant(name, "account") for name in args.account]
    entrants = unique_names(entrants)
    bad = [e.name for e in entrants if not NAME_RE.match(e.name)]
    if bad:
        raise ValueError(f"participant names are 1-24 letters, digits, '_' or '-': {', '.join(bad)}")
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two participants")
    if any(e.kind == "account" for e in entrants) and not args.server:
        raise ValueError("--account participants connect to a running server: give --server HOST:PORT")
    options: dict[str, Any] = {}
    for opt in args.option:
        key, sep, value = opt.partition("=")
        if not sep:
            raise ValueError(f"--option needs NAME=VALUE, got {opt!r}")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return Plan(
        entrants=entrants,
        preset=args.preset,
        options=options,
        seats=args.seats,
        games=args.games,
        schedule=args.schedule,
        hero=args.hero,
        permute=args.permute,
        master_seed=args.seed if args.seed is not None else secrets.randbits(63),
        action_seconds=args.seconds,
        concurrency=args.concurrency,
        every=args.every,
    )


def check_placement(args: argparse.Namespace) -> None:
    """Where the games are played (``--server``, ``--workers``, ``--ray``): raises ValueError for
    a combination that cannot be, and RuntimeError when ``--ray`` is given without Ray."""
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    if args.server and args.ray:
        raise ValueError("--server plays on one running server, --ray on a Ray cluster: give one of them")
    if args.server and args.workers not in (None, 1):
        raise ValueError("--workers starts servers of its own: it cannot be used with --server")
    if args.ray:
        require_ray()  # imports ray only now: the cluster extra is optional


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    print(f"shithead-tournament: running {describe_build()}", file=sys.stderr)
    try:
        check_placement(args)
        if args.resume is not None:
            out = args.resume
            plan = Plan.load(out / "tournament.json")
        else:
            plan = make_plan(args)
            out = args.out or default_out()
            out.mkdir(parents=True, exist_ok=True)
            if (out / "tournament.json").exists():
                raise ValueError(f"{out} holds a tournament already: use --resume {out}")
            # The schedule's own checks (table size, participants, the gauntlet's hero) before
            # anything starts; on one game, so that a long tournament is not scheduled twice.
            replace(plan, games=min(plan.games, 1)).game_specs()
            plan.save(out / "tournament.json")
    except (ValueError, OSError, KeyError, RuntimeError) as exc:
        print(f"shithead-tournament: {exc}", file=sys.stderr)
        return 2
    print(f"output in {out}/  (resume with: shithead-tournament --resume {out})", flush=True)
    with ExitStack() as stack:
        progress = _progress(stack, plan)
        use_uvloop_if_installed()  # the organiser's bots read states all the time
        try:
            results = asyncio.run(
                run(
                    plan,
                    out,
                    server=args.server,
                    progress=progress,
                    workers=args.workers,
                    ray_address=args.ray,
                )
            )
        except KeyboardInterrupt:
            print(
                f"\ninterrupted: finished games are in {out}/results.csv; "
                f"continue with: shithead-tournament --resume {out}",
                file=sys.stderr,
            )
            return 130
        except (OSError, ConnectionError, TimeoutError, RuntimeError, ProtocolError) as exc:
            print(f"shithead-tournament: {exc}", file=sys.stderr)
            return 1
    for line in final_report(plan, results):
        print(line)
    print(f"\nresults: {out}/results.csv   standings: {out}/standings.json   records: {out}/records/")
    return 0


def _progress(stack: ExitStack, plan: Plan) -> Progress:
    """A prompt-toolkit progress bar on a terminal; plain lines otherwise."""
    if sys.stdout.isatty():
        from prompt_toolkit.shortcuts import ProgressBar
        from prompt_toolkit.shortcuts.progress_bar import formatters as f
        from prompt_toolkit.shortcuts.progress_bar.base import ProgressBarCounter

        # Games done of the total, the rate, and the time left (the rate includes the games of
        # an earlier run when resuming, so the estimate starts high and settles).
        shown = [
            f.Label(),
            f.Text(" "),
            f.Percentage(),
            f.Text(" "),
            f.Bar(),
            f.Text(" "),
            f.Progress(),
            f.Text(" games, "),
            f.IterationsPerSecond(),
            f.Text(" games/s, left "),
            f.TimeLeft(),
        ]
        bar = stack.enter_context(ProgressBar(title="shithead-tournament", formatters=shown))
        counter: ProgressBarCounter[object] = bar(label="games", total=1)
        state = {"done": 0}

        def on_game(done: int, total: int) -> None:
            counter.total = total
            while state["done"] < done:
                counter.item_completed()
                state["done"] += 1

        def say(text: str) -> None:
            bar.title = text  # one line above the bar
            bar.invalidate()

        def leaders(rows: list[Row], done: int) -> None:
            # The bar has room for one line: the ranking with ratings; the full table comes at the end.
            say(
                f"after {done} games: "
                + "  ".join(f"{i}. {r.name} {r.mu:.1f}±{r.rating_interval:.1f}" for i, r in enumerate(rows, 1))
            )

        return Progress(on_game, say, leaders)

    def on_game_plain(done: int, total: int) -> None:
        if done == total or done % max(1, min(plan.every, 10)) == 0:
            print(f"{done}/{total} games", flush=True)

    return Progress(on_game_plain, lambda text: print(text, flush=True))


if __name__ == "__main__":
    sys.exit(main())
