"""Engine speed: actions/s and games/s for random and greedy play, per preset and player count.

    python benchmarks/engine.py                 # every preset and player count (about a minute)
    python benchmarks/engine.py --preset classic --players 4
    python benchmarks/engine.py --headline      # only classic, 4 players, random play

The loop is what a simulation does: ask for the legal actions, let the policy choose, apply.
Random play uses ``random.Random.choice``. Each figure is the best of ``--repeats`` runs, with
the median beside it, because this machine is shared and timings are noisy; nothing here is
asserted, it only prints.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine import Game, Rules, make_rules, preset_names  # noqa: E402
from server.engine.policies import greedy_policy  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="all")
    parser.add_argument("--players", default="all")
    parser.add_argument("--games", type=int, default=0, help="games per run (default: by policy)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--headline", action="store_true", help="only classic 4-player random play")
    args = parser.parse_args()

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
