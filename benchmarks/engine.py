"""Engine speed: actions/s and games/s for random and greedy play, per preset and player count.

    python benchmarks/engine.py                 # every preset and player count (about a minute)
    python benchmarks/engine.py --preset classic --players 4
    python benchmarks/engine.py --headline      # only classic, 4 players, random play
    python benchmarks/engine.py --builds 5      # the headline, pure vs compiled, alternating

The loop is what a simulation does: ask for the legal actions, let the policy choose, apply.
Random play uses ``random.Random.choice``. Each figure is the best of ``--repeats`` runs, with
the median beside it, because this machine is shared and timings are noisy; nothing here is
asserted, it only prints.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine import Game, Rules, make_rules, preset_names
from server.engine.policies import greedy_policy

Runner = Callable[[Rules, int, int, int], tuple[int, float]]
"""A benchmark loop: ``(rules, players, games, seed) -> (actions, seconds)``."""

TARGET = 250_000  # actions/s, classic 4 players, random play (issue: engine)


def run_random(rules: Rules, players: int, games: int, seed: int) -> tuple[int, float]:
    """Play ``games`` random games; return (actions, seconds)."""
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(seed * 100_003 + i)
        game = Game.new(rules, players, rng=rng)
        choice, legal, apply = rng.choice, game.legal_actions, game.apply
        while game.phase != "over":
            seat = game.current if game.phase != "setup" else game.to_act()[0]
            apply(seat, choice(legal(seat)))
        actions += len(game.history)
    return actions, time.perf_counter() - start


def run_greedy(rules: Rules, players: int, games: int, seed: int) -> tuple[int, float]:
    """Play ``games`` greedy games; return (actions, seconds)."""
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(seed * 100_003 + i)
        game = Game.new(rules, players, rng=rng)
        apply = game.apply
        while game.phase != "over":
            seat = game.current if game.phase != "setup" else game.to_act()[0]
            apply(seat, greedy_policy(game, seat, rng))
        actions += len(game.history)
    return actions, time.perf_counter() - start


def measure(fn: Runner, rules: Rules, players: int, games: int, repeats: int) -> dict[str, float]:
    rates, game_rates = [], []
    for rep in range(repeats):
        actions, secs = fn(rules, players, games, rep + 1)
        rates.append(actions / secs)
        game_rates.append(games / secs)
    return {
        "best": max(rates),
        "median": statistics.median(rates),
        "games_best": max(game_rates),
        "games_median": statistics.median(game_rates),
    }


def compare_builds(rounds: int) -> None:
    """The headline in fresh processes, pure (``SHITHEAD_BUILD=pure``) and compiled (the build of
    tools/mypyc_build.py) alternating, ``rounds`` of each: best, median and their ratio."""
    rates: dict[str, list[float]] = {"pure": [], "compiled": []}
    for _ in range(rounds):
        for build in rates:
            env = dict(os.environ, SHITHEAD_BUILD=build)
            out = subprocess.run(
                [sys.executable, __file__, "--one-headline"], env=env, capture_output=True, text=True, check=True
            ).stdout.split("\t")
            if build == "compiled" and not out[1].startswith("compiled"):
                raise SystemExit(f"no compiled build in use ({out[1].strip()}): run tools/mypyc_build.py build")
            rates[build].append(float(out[0]))
    for build, got in rates.items():
        best, median = max(got), statistics.median(got)
        print(f"{build:9} classic 4 players random: {best:>9,.0f} actions/s best, {median:>9,.0f} median")
    p, c = rates["pure"], rates["compiled"]
    print(
        f"compiled / pure: {max(c) / max(p):.2f}x best, {statistics.median(c) / statistics.median(p):.2f}x median "
        f"({rounds} alternating runs each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="all")
    parser.add_argument("--players", default="all")
    parser.add_argument("--games", type=int, default=0, help="games per run (default: by policy)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--headline", action="store_true", help="only classic 4-player random play")
    parser.add_argument("--builds", type=int, default=0, help="the headline pure vs compiled, this many rounds")
    parser.add_argument("--one-headline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.builds:
        compare_builds(args.builds)
        return
    if args.one_headline:  # one run of --builds: the rate and the build, tab-separated
        from server.engine.buildinfo import describe_build

        h = measure(run_random, make_rules("classic"), 4, args.games or 200, 3)
        print(f"{h['best']}\t{describe_build()}")
        return

    print(f"python {sys.version.split()[0]}; best (median) of {args.repeats} runs\n")
    head = make_rules("classic")
    h = measure(run_random, head, 4, args.games or 200, max(args.repeats, 5))
    print(
        f"HEADLINE classic 4 players random play: {h['best']:,.0f} actions/s best, "
        f"{h['median']:,.0f} median; target {TARGET:,} -> {h['best'] / TARGET:.2f}x the target\n"
    )
    if args.headline:
        return

    print(
        f"{'preset':14} {'pl':>2} | {'random actions/s':>22} {'games/s':>8} | {'greedy actions/s':>22} {'games/s':>8}"
    )
    presets = list(preset_names()) if args.preset == "all" else [args.preset]
    for preset in presets:
        rules = make_rules(preset)
        counts = range(rules.min_players, rules.max_players + 1) if args.players == "all" else [int(args.players)]
        for players in counts:
            r = measure(run_random, rules, players, args.games or 20, args.repeats)
            g = measure(run_greedy, rules, players, args.games or 100, args.repeats)
            print(
                f"{preset:14} {players:>2} | {r['best']:>10,.0f} ({r['median']:>9,.0f}) "
                f"{r['games_best']:>8.1f} | {g['best']:>10,.0f} ({g['median']:>9,.0f}) {g['games_best']:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
