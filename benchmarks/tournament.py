"""Tournament speed: games/s over the real server against the same bots in-process.

A round-robin of 4-player classic games among the bundled random and greedy bots (two of
each), with duplicate deals, played twice:

* **over the server**: ``shithead-tournament``'s own machinery (a server child process, the
  bots as protocol clients in this process, ``--concurrency`` tables at once);
* **in-process**: the same schedule (same deals, same seatings) through the pure engine, each
  bot given exactly the view and events it would get over the wire (``view_for`` and
  ``event_to_dict``), one game after another in one process.

It prints games/s and actions/s of both and the ratio (target: the server path reaches at
least 0.6 of the in-process rate, issue 14). Then the same tournament as ``shithead-tournament`` plays it
by default, in deal sets on one worker process per core (each with a server of its own), and
its ratio to in-process (``benchmarks/cluster.py`` compares the ways of spreading the games).
Nothing is asserted: the machine is shared and noisy.

    .venv/bin/python benchmarks/tournament.py [--games 2000] [--concurrency 8] [--workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.bots import make_bot  # noqa: E402
from client.eventloop import use_uvloop_if_installed  # noqa: E402
from client.tournament.organiser import Entrant, Plan, Progress, run  # noqa: E402
from server.engine import Series, event_to_dict, make_rules, parse_action  # noqa: E402
from server.engine.view import view_for  # noqa: E402
from server.tournament.schedule import schedule  # noqa: E402

PARTICIPANTS = [("random", "random"), ("greedy", "greedy"), ("random-2", "random"), ("greedy-2", "greedy")]


def in_process(games: int, seed: int) -> tuple[float, int, int]:
    """Play the tournament's schedule through the engine; returns (seconds, games, actions).

    Each bot is given what its client gets over the wire with turn states (PROTOCOL.md §6, as
    the organiser's bots ask for): a view at the game's first state, whenever it must act and
    at the end, each with every event since its previous one."""
    rules = make_rules("classic", {})
    kinds = dict(PARTICIPANTS)
    specs = schedule([n for n, _ in PARTICIPANTS], table_size=4, games=games, master_seed=seed)
    actions = 0
    began = time.perf_counter()
    for spec in specs:
        game = Series(rules, 4, seed=spec.seed).start_game()  # dealt exactly as a table with that seed
        bots = [make_bot(kinds[name], random.Random(f"{seed}:{name}:{spec.number}")) for name in spec.seats]
        waiting: list[list[dict]] = [[] for _ in bots]
        for s, bot in enumerate(bots):
            view = view_for(game, s)
            bot.on_game_start(view)
            bot.observe(view, [])
        while not game.is_over():
            seat = game.to_act()[0]
            view = view_for(game, seat)
            bots[seat].observe(view, waiting[seat])
            waiting[seat] = []
            text = bots[seat].choose(view)
            events = [event_to_dict(e) for e in game.apply(seat, parse_action(text))]
            for w in waiting:
                w.extend(events)
            actions += 1
        for s, bot in enumerate(bots):
            bot.observe(view_for(game, s), waiting[s])
    return time.perf_counter() - began, len(specs), actions


def plan_of(games: int, seed: int, concurrency: int) -> Plan:
    """The benchmark's tournament: the four PARTICIPANTS, 4 seats, ``games`` games."""
    return Plan(
        entrants=[Entrant(n, "bundled", bot=b) for n, b in PARTICIPANTS],
        seats=4,
        games=games,
        master_seed=seed,
        concurrency=concurrency,
        action_seconds=60.0,
        every=0,
    )


async def over_server(games: int, seed: int, concurrency: int, out: Path, workers: int = 1) -> tuple[float, int, int]:
    plan = plan_of(games, seed, concurrency)
    done = {"n": 0}

    def tick(n: int, total: int) -> None:
        done["n"] = n
        if n % max(1, total // 10) == 0:
            print(f"  ... {n}/{total} games", flush=True)

    began = time.perf_counter()
    me0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    results = await run(plan, out, server=None, progress=Progress(tick, lambda t: None), workers=workers)
    seconds = time.perf_counter() - began
    me1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (
        me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime,
        kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime,
    )
    if workers == 1:
        print(
            f"  CPU: bots and organiser {cpu[0]:.1f} s ({cpu[0] / seconds:.0%} of a core), "
            f"server {cpu[1]:.1f} s ({cpu[1] / seconds:.0%} of a core)"
        )
    else:
        print(
            f"  CPU: organiser {cpu[0]:.1f} s ({cpu[0] / seconds:.0%} of a core), "
            f"workers with their servers and bots {cpu[1]:.1f} s ({cpu[1] / seconds:.0%} of a core)"
        )
    import csv

    with (out / "results.csv").open() as fh:
        actions = sum(int(r["actions"]) for r in csv.DictReader(fh) if r["seat"] == "0")
    return seconds, results.games, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes of the second run (default: one per core, as shithead-tournament; 1: skip it)",
    )
    args = ap.parse_args()
    print(
        f"Tournament benchmark: {args.games} classic 4-player games, 2 random + 2 greedy bots, "
        f"duplicate deals, master seed {args.seed}"
    )
    secs_i, games_i, acts_i = in_process(args.games, args.seed)
    use_uvloop_if_installed()  # as shithead-tournament does for its organiser's bots
    print(
        f"in-process (engine only):  {games_i / secs_i:8.1f} games/s  {acts_i / secs_i:9,.0f} actions/s  "
        f"({games_i} games, {acts_i:,} actions in {secs_i:.1f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        secs_s, games_s, acts_s = asyncio.run(over_server(args.games, args.seed, args.concurrency, Path(tmp) / "bench"))
    print(
        f"over the server:           {games_s / secs_s:8.1f} games/s  {acts_s / secs_s:9,.0f} actions/s  "
        f"({games_s} games, {acts_s:,} actions in {secs_s:.1f} s; concurrency {args.concurrency})"
    )
    ratio = (games_s / secs_s) / (games_i / secs_i)
    print(f"ratio server / in-process: {ratio:.3f}   (target >= 0.6: {'met' if ratio >= 0.6 else 'NOT met'})")
    if args.workers > 1:
        with tempfile.TemporaryDirectory() as tmp:
            secs_w, games_w, acts_w = asyncio.run(
                over_server(args.games, args.seed, args.concurrency, Path(tmp) / "bench", workers=args.workers)
            )
        print(
            f"{f'{args.workers} worker processes:':<26} {games_w / secs_w:8.1f} games/s  "
            f"{acts_w / secs_w:9,.0f} actions/s  "
            f"({games_w} games, {acts_w:,} actions in {secs_w:.1f} s; concurrency {args.concurrency} per worker)"
        )
        ratio_w = (games_w / secs_w) / (games_i / secs_i)
        print(f"ratio workers / in-process: {ratio_w:.3f}   (workers / one server: {ratio_w / ratio:.2f})")
        if acts_w != acts_i:
            print(f"note: the workers played {acts_w:,} actions, in-process {acts_i:,}: some clock ran out")
    if acts_s != acts_i:
        print(
            f"note: the two runs played {acts_i:,} and {acts_s:,} actions; the same deals and seeded bots "
            "give the same games, so some clock must have run out over the server"
        )


if __name__ == "__main__":
    main()
