"""Tournament speed: games/s over the real server against the same bots in-process.

A round-robin of 4-player classic games among bundled bots (``--bots``, default two random and
two greedy), with duplicate deals, played these ways (``benchmarks/tournament_runs.py``):

* **in-process, 1 process**: the schedule (same deals, same seatings, bots seeded as the
  organiser seeds them) through the pure engine, each bot given exactly the view and events it
  would get over the wire (``view_for`` and ``event_to_dict``), one game after another;
* **over the server, 1 worker**: ``shithead-tournament``'s own machinery (a server child
  process, the bots as protocol clients in the organiser's process, ``--concurrency`` tables
  at once). Their ratio is issue 14's (target >= 0.6 for the fast bots);
* **in-process, N workers**: the same games cut into the deal sets ``shithead-tournament
  --workers N`` cuts them, each set played as above, N sets at once in a process pool;
* **over the server, N workers**: ``shithead-tournament --workers N`` (default: one per core),
  each deal set in a worker process with a server of its own. Their ratio is issue 32's
  "overhead a bot author feels" (target >= 0.9 for thinking bots): like against like, the same
  deal sets on the same number of processes.

The thinking scenario is four ismcts bots at the 0.1 s a decision they think with in a
tournament (``--bots ismcts,ismcts,ismcts,ismcts --budget 0.1``); four of them make a game last
several seconds, so it is run with few games and only the N-worker rows. A time budget is wall
time, so thinking bots play one table at a time per worker by default (``--concurrency 1``):
tables at once would think in threads side by side, each decision still 0.1 s, and the games/s
would grow with the concurrency for weaker play, comparing nothing. For the same reason two
runs of thinking bots play different games of different lengths, so their summary gives the
ratio of actions/s beside the ratio of games/s: the same work compared. ``--budget`` can only be
the bots' own default: the organiser makes bundled bots with ``make_bot(kind, rng)``, which
passes no budget.

Every run is a fresh process (``python benchmarks/tournament.py --measure ...``) with
``SHITHEAD_BUILD`` set for ``--build`` (``pure`` or ``compiled``: the build of
tools/mypyc_build.py), which its servers, worker processes and process pool inherit, so a
run's bots, engine and servers are all of one build. ``--builds`` alternates pure and compiled;
``--rounds R`` repeats every run R times, alternating, and the summary gives the best and the
median games/s of each and the ratios of medians. (The in-process runs are this benchmark's
floor: no server at all.) ``--no-uvloop`` sets ``SHITHEAD_NO_UVLOOP=1`` in every run (the
fast bots' figures of docs/PERFORMANCE.md were taken so, when the compiled server did not yet
start under uvloop). Nothing is asserted: the machine is shared and noisy.

    # the fast bots, pure and compiled alternating (about 20 minutes on a busy 2-core machine)
    .venv/bin/python benchmarks/tournament.py --games 200 --rounds 3 --builds --no-uvloop --no-one-server
    # the thinking bots: 16 games are 4 deal sets, 2 for each of 2 workers (about 11 minutes)
    .venv/bin/python benchmarks/tournament.py --bots ismcts,ismcts,ismcts,ismcts --budget 0.1 \\
        --games 16 --rounds 3 --build pure
    options: [--games 2000] [--concurrency C] [--workers N] [--seed S] [--no-uvloop]
             [--single/--no-single] [--no-one-server]  (the 1-process rows / the 1-server row)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournament_runs import default_budget, in_process, in_process_workers, over_server, plan_of

from client.bots import bot_names
from client.eventloop import use_uvloop_if_installed

ROWS = {"in-process": "in-process", "server": "over the server"}


def label(way: str, workers: int) -> str:
    unit = "process" if way == "in-process" else "worker"
    return f"{ROWS[way]}, {workers} {unit}{('es' if unit == 'process' else 's') * (workers > 1)}"


def measure(args: argparse.Namespace) -> None:
    """One run (``--measure WAY:WORKERS``), in this fresh process: its figures as a JSON line."""
    from server.engine.buildinfo import describe_build

    way, _, n = args.measure.partition(":")
    plan = plan_of(args.bots, args.games, args.seed, args.concurrency)
    if way == "in-process":
        got = in_process(plan, args.budget) if n == "1" else in_process_workers(plan, int(n), args.budget)
    else:
        use_uvloop_if_installed()  # as shithead-tournament does for its organiser's bots
        got = over_server(plan, int(n))
    print(json.dumps(got.to_dict() | {"build": describe_build()}))


def run_fresh(args: argparse.Namespace, way: str, workers: int, build: str | None) -> dict:
    """One run in a fresh process, with ``SHITHEAD_BUILD=build`` (None: this environment's)."""
    env = dict(os.environ) if build is None else dict(os.environ, SHITHEAD_BUILD=build)
    if args.no_uvloop:
        env["SHITHEAD_NO_UVLOOP"] = "1"
    cmd = [sys.executable, __file__, "--measure", f"{way}:{workers}", "--bots", ",".join(args.bots)]
    cmd += ["--games", str(args.games), "--seed", str(args.seed), "--concurrency", str(args.concurrency)]
    if args.budget is not None:
        cmd += ["--budget", str(args.budget)]
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    if build == "compiled" and not got["build"].startswith("compiled"):
        raise SystemExit(f"no compiled build in use ({got['build']}): see tools/mypyc_build.py status")
    return got


def summary(args: argparse.Namespace, runs: dict, thinking: bool) -> None:
    """Best and median games/s of every row, the ratios of medians, the builds compared."""
    print("\nSummary: games/s, best and median of the runs (how many: in brackets)")
    medians: dict[tuple, float] = {}
    action_medians: dict[tuple, float] = {}
    for (build, way, workers), got in runs.items():
        rates = [g["games"] / g["seconds"] for g in got]
        medians[build, way, workers] = median = statistics.median(rates)
        action_medians[build, way, workers] = acts = statistics.median(g["actions"] / g["seconds"] for g in got)
        print(
            f"  {build or 'as is':9} {label(way, workers):32} {max(rates):8.2f} best {median:8.2f} median"
            f"  ({acts:9,.0f} actions/s median) [{len(rates)}]"
        )
    print("Ratios of medians, server / in-process:")
    for build, way, workers in medians:
        if way != "server":
            continue
        if (build, "in-process", workers) not in medians:
            continue
        ratio = medians[build, way, workers] / medians[build, "in-process", workers]
        target = 0.9 if workers > 1 and thinking else 0.6 if workers == 1 and not thinking else None
        verdict = "" if target is None else f"   (target >= {target}: {'met' if ratio >= target else 'NOT met'})"
        per_action = ""
        if thinking:
            # A time budget makes the bots' games differ from run to run, and their lengths with
            # them (4 games of four ismcts bots: 582 actions in one run, 689 in another): the
            # games/s ratio carries that chance, the actions/s ratio compares the same work.
            a = action_medians[build, way, workers] / action_medians[build, "in-process", workers]
            per_action = f"   actions/s: {a:6.3f}"
        print(
            f"  {build or 'as is':9} {workers} {'worker ' if workers == 1 else 'workers'}: {ratio:6.3f}{verdict}"
            f"{per_action}"
        )
    if "pure" in args.builds and "compiled" in args.builds:
        print("Compiled / pure, medians:")
        for build, way, workers in medians:
            if build == "compiled" and ("pure", way, workers) in medians:
                print(f"  {label(way, workers):32} {medians[build, way, workers] / medians['pure', way, workers]:.2f}x")
    actions = {(way, w): {g["actions"] for g in got} for (_, way, w), got in runs.items()}
    if not thinking and len({a for s in actions.values() for a in s}) > 1:
        print(f"note: the runs played different numbers of actions ({actions}): some clock ran out")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", default="random,greedy,random,greedy", help="bundled bots, comma-separated")
    ap.add_argument("--budget", type=float, help="seconds a decision for the searching bots (their default)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, help="tables at once per server (8; 1 with thinking bots)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="N (default one per core; 1: skip)")
    ap.add_argument(
        "--single",
        action=argparse.BooleanOptionalAction,
        help="the 1-process rows too (default: with fast bots only)",
    )
    ap.add_argument(
        "--one-server",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the 1-worker server row (with --single)",
    )
    ap.add_argument("--rounds", type=int, default=1, help="every run this many times, alternating")
    ap.add_argument("--build", choices=["pure", "compiled"], help="SHITHEAD_BUILD of every run")
    ap.add_argument("--builds", action="store_true", help="alternate pure and compiled")
    ap.add_argument("--no-uvloop", action="store_true", help="SHITHEAD_NO_UVLOOP=1 in every run (servers too)")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # one run, in a fresh process
    args = ap.parse_args()
    args.bots = args.bots.split(",")
    for kind in args.bots:
        if kind not in bot_names():
            ap.error(f"unknown bot {kind!r} (bundled: {', '.join(bot_names())})")
    budgets = {default_budget(k) for k in args.bots} - {None}
    thinking = bool(budgets)
    if args.budget is not None and budgets != {args.budget}:
        ap.error(
            f"--budget {args.budget}: over the server the bots think with their default ({budgets or 'none'}); "
            "shithead-tournament passes no budget to bundled bots"
        )
    if args.concurrency is None:
        args.concurrency = 1 if thinking else 8
    if args.measure:
        return measure(args)
    args.builds = ["pure", "compiled"] if args.builds else [args.build]
    single = not thinking if args.single is None else args.single
    rows = [(way, 1) for way in ROWS if single and (way == "in-process" or args.one_server)]
    rows += [(way, args.workers) for way in ROWS if args.workers > 1]
    print(
        f"Tournament benchmark: {args.games} classic 4-player games of {', '.join(args.bots)}"
        f"{f' (budget {budgets.pop()} s a decision)' if thinking else ''}, duplicate deals, master seed {args.seed}, "
        f"concurrency {args.concurrency} per server; {args.rounds} round(s) of "
        f"{' / '.join(b or 'this environment' for b in args.builds)}{', without uvloop' * args.no_uvloop}"
    )
    runs: dict[tuple, list[dict]] = {}
    try:
        for r in range(args.rounds):
            for build in args.builds:
                for way, workers in rows:
                    got = run_fresh(args, way, workers, build)
                    runs.setdefault((build, way, workers), []).append(got)
                    print(f"round {r + 1} {build or '':8} {label(way, workers):32} {described(got)}", flush=True)
    except KeyboardInterrupt:
        print("interrupted: the summary of the runs finished")
    summary(args, runs, thinking)


def described(got: dict) -> str:
    """One run's figures on one line."""
    return (
        f"{got['games'] / got['seconds']:8.2f} games/s  {got['actions'] / got['seconds']:9,.0f} actions/s "
        f"({got['games']} games, {got['actions']:,} actions in {got['seconds']:.1f} s; "
        f"CPU {got['cpu_self']:.1f} s here, {got['cpu_children']:.1f} s children; {got['build']})"
    )


if __name__ == "__main__":
    main()
