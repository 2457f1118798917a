"""``shithead-sim`` / ``python -m server.engine``: play many games and print what happened.

Examples::

    shithead-sim --preset classic --players 4 --games 1000
    shithead-sim --preset all --games 1000 --policy greedy
    shithead-sim --preset linz --players 3 --policy greedy,random,random -o goal=winner

Per preset and player count it prints the games played, mean actions per game, mean burns
and pick-ups per game, how many games hit ``max_actions`` (C18), and how often each seat
lost. Deals are derived from ``--seed``, so a run can be repeated exactly.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesError
from .events import BURNED, TOOK
from .game import Game
from .policies import POLICIES, Policy
from .rules import make_rules, preset_names


@dataclass
class SimStats:
    """Totals over a batch of games."""

    games: int = 0
    actions: int = 0
    burns: int = 0
    pickups: int = 0
    capped: int = 0
    losses: list[int] = field(default_factory=list)
    seconds: float = 0.0


def play_game(game: Game, policies: list[Policy], rng: random.Random, stats: SimStats) -> None:
    """Play ``game`` to the end with one policy per seat, adding to ``stats``."""
    while game.phase != "over":
        seat = game.current if game.phase != "setup" else game.to_act()[0]
        for event in game.apply(seat, policies[seat](game, seat, rng)):
            if event[0] == BURNED:
                stats.burns += 1
            elif event[0] == TOOK:
                stats.pickups += 1
    outcome = game.outcome()
    assert outcome is not None
    stats.games += 1
    stats.actions += len(game.history)
    stats.capped += outcome.capped
    stats.losses[outcome.loser] += 1


def simulate(
    preset: str, players: int, games: int, policies: list[Policy], seed: int, options: dict[str, Any] | None = None
) -> SimStats:
    """Play ``games`` games; game ``i`` is dealt from ``seed`` and ``i`` (repeatable)."""
    rules = make_rules(preset, options)
    stats = SimStats(losses=[0] * players)
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(f"{seed}:{preset}:{players}:{i}")
        game = Game.new(rules, players, rng=rng)
        play_game(game, policies, rng, stats)
    stats.seconds = time.perf_counter() - start
    return stats


def _option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"options are name=value, not {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value  # a bare word such as winner or choose


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="shithead-sim", description="Play many games of bots in-process and print what happened."
    )
    parser.add_argument("--preset", default="classic", help="a preset name, or 'all' (default classic)")
    parser.add_argument(
        "--players",
        default="4",
        help="number of players, or 'all' for every count the preset allows (default 4, "
        "or the preset's maximum if smaller)",
    )
    parser.add_argument("--games", type=int, default=100, help="games per preset and player count")
    parser.add_argument("--policy", default="random", help="random or greedy, or a comma list with one policy per seat")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "-o",
        "--option",
        type=_option,
        action="append",
        default=[],
        help="rule option override name=value (JSON value), repeatable",
    )
    args = parser.parse_args(argv)

    presets = list(preset_names()) if args.preset == "all" else [args.preset]
    options = dict(args.option)
    names = args.policy.split(",")
    for n in names:
        if n not in POLICIES:
            parser.error(f"unknown policy {n!r}; choose from {', '.join(POLICIES)}")
    print(
        f"{'preset':14} {'pl':>2} {'games':>6} {'actions':>8} {'burns':>6} {'pickups':>7} "
        f"{'capped':>6} {'games/s':>8}  losses by seat"
    )
    failed = False
    for preset in presets:
        try:
            rules = make_rules(preset, options)
        except RulesError as exc:
            print(f"{preset}: {exc}", file=sys.stderr)
            failed = True
            continue
        if args.players == "all":
            counts = list(range(rules.min_players, rules.max_players + 1))
        else:
            counts = [min(int(args.players), rules.max_players)] if args.preset == "all" else [int(args.players)]
        for players in counts:
            policies = [POLICIES[names[i % len(names)]] for i in range(players)]
            try:
                st = simulate(preset, players, args.games, policies, args.seed, options)
            except RulesError as exc:
                print(f"{preset} with {players} players: {exc}", file=sys.stderr)
                failed = True
                continue
            g = max(st.games, 1)
            print(
                f"{preset:14} {players:>2} {st.games:>6} {st.actions / g:>8.1f} {st.burns / g:>6.1f} "
                f"{st.pickups / g:>7.1f} {st.capped:>6} {st.games / max(st.seconds, 1e-9):>8.1f}  "
                f"{' '.join(str(x) for x in st.losses)}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
