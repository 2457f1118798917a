"""Bot strength: duplicate 4-player classic games through the pure engine (no server).

    python benchmarks/strength.py                          # both matchups, 400 games each
    python benchmarks/strength.py --matchup search:greedy --games 400 --budget 0.1 --procs 2
    python benchmarks/strength.py --matchup greedy:random --layout 1v3

Duplicate deals. Deal ``d`` (deck order and dealer) is derived from ``--seed`` and ``d`` and is
played four times with the seat assignment rotated by one seat each time, so each bot plays
every seat of the same cards and luck of the deal cancels out. Layouts (``--layout``):

* ``2v2`` (default): seats A A B B, rotated (A A B B, B A A B, B B A A, A B B A). Both bots
  are measured in every game, with equal numbers of seats, and each sits at every seat of
  every deal twice; the two means of place add up to 5.
* ``1v3``: one A against three Bs (A at seat 0, 1, 2, 3 in turn): how A does at a table of
  Bs. Equal strength means a mean place of 2.5 and a loss rate of 25 %.

What a bot gets is exactly what it would get over the wire: ``on_game_start`` with its first
view, then, whenever it must act, ``observe(view_for(game, seat), events)`` with the events
(``event_to_dict``) since its previous observation, and ``choose(view)``; the text it returns
goes through ``parse_action`` (a text not in ``view["legal"]`` is counted as an error and
replaced by the first legal action, as a server's runner would). At the end it observes the
final view and gets ``on_game_over``.

Statistics. The games of one deal are correlated (same cards, same opponents), so each deal is
one cluster: per deal and bot, the mean place and the loss rate (loss = last place, the
shithead) over that bot's seats in the four games; the figure is the mean over deals and the
95 % interval is the normal approximation ``mean ± 1.96 · sd / sqrt(deals)`` of the deal means.
First places are counted. Work is spread over ``--procs`` processes by deal.

Cost. The default search budget is 0.1 s per decision (``--budget``; about 100-200 playouts
on this 2-core machine, fewer when it is busy). With it, 400 games of search against greedy
took 9.5 min (2v2) and 4.5 min (1v3) with ``--procs 2``; greedy against random takes seconds.

The bots come from ``client.bots.make_bot`` when that registry exists; until then ``random``
and ``greedy`` are small stand-ins defined here (view-based, the same logic as the engine's
policies) and ``search`` is :class:`client.bots.search.SearchBot`.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.bot import Bot  # noqa: E402
from client.bots.search import SearchBot  # noqa: E402
from protocol.payloads import GameResult, Tally  # noqa: E402
from server.engine import (  # noqa: E402
    Game,
    GameOutcome,
    SeriesTally,
    build_deck,
    event_to_dict,
    make_rules,
    parse_action,
    view_for,
)

SEATS = 4
LAYOUTS = {"2v2": (0, 0, 1, 1), "1v3": (0, 1, 1, 1)}
"""Which of the two bots of a matchup sits at seats 0..3 before rotation."""


class _RandomStandIn(Bot):
    """A uniformly random legal action (stand-in until ``client/bots/random.py`` exists)."""

    name = "random"

    def choose(self, view: dict[str, Any]) -> str:
        return self.rng.choice(view["legal"])


class _GreedyStandIn(SearchBot):
    """SearchBot's view-based greedy heuristic alone, never searching (stand-in until
    ``client/bots/greedy.py`` exists; it makes the choices of the engine's greedy policy)."""

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng, budget=0.0)

    def _search(self, view: dict[str, Any], actions: list[Any], reps: dict[Any, int]) -> int:
        return self.heuristic(view, actions, self._powers(view))


def make(name: str, rng: random.Random, budget: float, max_sims: int | None) -> Bot:
    """A fresh bot called ``name``; ``search`` gets ``budget`` seconds and ``max_sims`` per move."""
    if name == "search":
        return SearchBot(rng, budget=budget, max_sims=max_sims)
    try:
        from client.bots import make_bot  # type: ignore[attr-defined]
    except ImportError:
        make_bot = None
    if make_bot is not None:
        return make_bot(name, rng=rng)
    stand_ins: dict[str, type[Bot]] = {"random": _RandomStandIn, "greedy": _GreedyStandIn}
    return stand_ins[name](rng)


def play(game: Game, bots: list[Bot]) -> tuple[tuple[int, ...], int]:
    """Play ``game`` to the end with one bot per seat, as over the wire. Returns the places
    (seats, first to last) and the number of illegal answers replaced."""
    n = game.n
    pending: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for s, bot in enumerate(bots):
        bot.on_game_start(view_for(game, s))
    errors = 0
    while game.phase != "over":
        seat = game.current if game.phase != "setup" else game.to_act()[0]
        view = view_for(game, seat)
        bots[seat].observe(view, pending[seat])
        pending[seat] = []
        text = bots[seat].choose(view)
        if text not in view["legal"]:
            errors += 1
            text = view["legal"][0]
        events = [event_to_dict(e) for e in game.apply(seat, parse_action(text))]
        for p in pending:
            p.extend(events)
    outcome = game.outcome()
    assert outcome is not None
    result, tally = game_over(outcome, [bot.name for bot in bots])
    for s, bot in enumerate(bots):
        bot.observe(view_for(game, s), pending[s])
        bot.on_game_over(result, tally)
    return outcome.places, errors


def game_over(outcome: GameOutcome, players: list[str]) -> tuple[GameResult, Tally]:
    """The ``result`` and ``tally`` a ``game_over`` message would carry for this one game (a
    series of one: the benchmark deals every game afresh; no clock, so no timeouts)."""
    one = SeriesTally(len(players))
    one.add(outcome.places, outcome.capped)
    result: GameResult = {
        "places": list(outcome.places),
        "loser": outcome.loser,
        "capped": outcome.capped,
        "flush": outcome.flush,
        "players": players,
    }
    tally: Tally = {
        "places": one.places,
        "losses": one.losses,
        "capped": one.capped,
        "players": players,
        "timeouts": [0] * len(players),
    }
    return result, tally


@dataclass
class DealResult:
    """One deal's four games: per bot name, its places over its seats; plus counters."""

    places: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    errors: int = 0
    capped: int = 0
    search: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    search_seconds: float = 0.0


def run_deal(job: tuple[tuple[str, str], str, int, int, float, int | None]) -> DealResult:
    """Play the four rotated games of deal ``d`` (a worker function: arguments in one tuple)."""
    (a, b), layout, seed, d, budget, max_sims = job
    rules = make_rules("classic")
    deal_rng = random.Random(f"strength:{seed}:{d}")
    deck = build_deck(rules.decks, rules.jokers)
    deal_rng.shuffle(deck)
    dealer = deal_rng.randrange(SEATS)
    out = DealResult()
    for rot in range(SEATS):
        names = [(a, b)[LAYOUTS[layout][(s - rot) % SEATS]] for s in range(SEATS)]
        bots = [
            make(name, random.Random(f"bot:{seed}:{d}:{rot}:{s}"), budget, max_sims) for s, name in enumerate(names)
        ]
        game = Game(rules, SEATS, dealer, list(deck))
        start = time.perf_counter()
        places, errors = play(game, bots)
        elapsed = time.perf_counter() - start
        out.errors += errors
        out.capped += bool(game.capped)
        for s, name in enumerate(names):
            out.places[name].append(places.index(s) + 1)
        for bot in bots:
            if isinstance(bot, SearchBot) and not isinstance(bot, _GreedyStandIn):
                for k, v in bot.stats.items():
                    out.search[k] += v
        if any(isinstance(bot, SearchBot) and not isinstance(bot, _GreedyStandIn) for bot in bots):
            out.search_seconds += elapsed
    return out


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % normal-approximation interval."""
    k = len(xs)
    m = sum(xs) / k
    if k < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (k - 1))
    return m, 1.96 * sd / math.sqrt(k)


def summarise(matchup: tuple[str, str], layout: str, results: list[DealResult], seconds: float) -> str:
    """The report of one matchup as text."""
    deals = len(results)
    lines = [
        f"matchup {matchup[0]} vs {matchup[1]}, layout {layout}: {deals} deals x 4 rotations = "
        f"{4 * deals} games, {seconds:.0f} s wall"
    ]
    lines.append(f"  {'bot':8} {'games':>6} {'seats':>6} {'mean place':>17} {'loss rate':>17} {'firsts':>7}")
    for name in dict.fromkeys(matchup):
        per_deal = [r.places[name] for r in results]
        seats = sum(len(p) for p in per_deal)
        mp, mp_ci = mean_ci([sum(p) / len(p) for p in per_deal])
        lr, lr_ci = mean_ci([sum(x == SEATS for x in p) / len(p) for p in per_deal])
        firsts = sum(x == 1 for p in per_deal for x in p)
        lines.append(
            f"  {name:8} {4 * deals:>6} {seats:>6} {mp:>9.3f} ± {mp_ci:.3f} "
            f"{100 * lr:>8.1f} ± {100 * lr_ci:.1f}% {firsts:>7}"
        )
    errors = sum(r.errors for r in results)
    capped = sum(r.capped for r in results)
    lines.append(f"  illegal answers replaced: {errors}; capped games: {capped}")
    search: dict[str, int] = defaultdict(int)
    for r in results:
        for k, v in r.search.items():
            search[k] += v
    if search["searched"]:
        lines.append(
            f"  search: {search['decisions']} decisions, {search['searched']} searched, "
            f"{search['playouts'] / search['searched']:.0f} playouts per searched decision, "
            f"{search['fallbacks']} fallbacks"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--matchup", default="all", help="A:B (e.g. search:greedy), or 'all' for greedy:random and search:greedy"
    )
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="2v2")
    parser.add_argument("--games", type=int, default=400, help="games per matchup (rounded up to 4s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=0.1, help="search seconds per decision")
    parser.add_argument("--max-sims", type=int, default=None, help="search playouts per decision cap")
    parser.add_argument("--procs", type=int, default=2)
    args = parser.parse_args(argv)
    matchups = (
        [("greedy", "random"), ("search", "greedy")] if args.matchup == "all" else [tuple(args.matchup.split(":", 1))]
    )
    deals = max(1, math.ceil(args.games / SEATS))
    print(
        f"seed {args.seed}, search budget {args.budget} s/decision, max sims {args.max_sims}, {args.procs} processes",
        flush=True,
    )
    for matchup in matchups:
        if len(matchup) != 2:
            parser.error(f"--matchup must be A:B, not {args.matchup!r}")
        jobs = [(matchup, args.layout, args.seed, d, args.budget, args.max_sims) for d in range(deals)]
        start = time.perf_counter()
        if args.procs > 1:
            with multiprocessing.Pool(args.procs) as pool:
                results = list(pool.imap_unordered(run_deal, jobs, chunksize=1))
        else:
            results = [run_deal(j) for j in jobs]
        print(summarise(matchup, args.layout, results, time.perf_counter() - start), flush=True)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
