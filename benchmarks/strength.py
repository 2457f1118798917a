"""Bot strength: duplicate 4-player classic games through the pure engine (no server).

    python benchmarks/strength.py                          # both matchups, 400 games each
    python benchmarks/strength.py --matchup search:greedy --games 400 --budget 0.1 --procs 2
    python benchmarks/strength.py --matchup greedy:random --layout 1v3
    python benchmarks/strength.py --ladder --games 200     # docs/STRENGTH.md: each bot 1v3 vs greedy
    python benchmarks/strength.py --matchup ismcts:search  # the head-to-head of docs/STRENGTH.md

Duplicate deals. Deal ``d`` (deck order and dealer) is derived from ``--seed`` and ``d`` and is
played four times with the seat assignment rotated by one seat each time, so each bot plays
every seat of the same cards and luck of the deal cancels out. Layouts (``--layout``):

* ``2v2`` (default): seats A A B B, rotated (A A B B, B A A B, B B A A, A B B A). Both bots
  are measured in every game, with equal numbers of seats, and each sits at every seat of
  every deal twice; the two means of place add up to 5.
* ``1v3``: one A against three Bs (A at seat 0, 1, 2, 3 in turn): how A does at a table of
  Bs. Equal strength means a mean place of 2.5 and a loss rate of 25 %.

The ladder (``--ladder``) is one 1v3 row per bot against three ``greedy`` bots, on the same
deals: ``random``, ``greedy`` (against itself: 2.5 and 25 % by construction), ``search``,
``ismcts``, ``hands`` and ``perfect``, the ceiling: :class:`benchmarks.perfect.PerfectBot`, the
ismcts search run on the true game (it sees every card; it is handed the game here and exists
nowhere else), and below it :class:`benchmarks.perfect.HandsBot`, the same search seeing the
opponents' hands but not the stock or the face-down cards. Each row prints the command that
reproduces it.

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
First places are counted. In 2v2 the difference of the two bots' mean places (A - B) gets the
same treatment, per deal, so its interval says whether one bot is better. Work is spread over
``--procs`` processes by deal.

Cost. The default search budget is 0.1 s per decision (``--budget``, for ``search``,
``ismcts``, ``hands`` and ``perfect`` alike; about 100-200 playouts on this 2-core machine, fewer when it
is busy). With it, 400 games of search against greedy took 9.5 min (2v2) and 4.5 min (1v3)
with ``--procs 2``; greedy against random takes seconds; a 2v2 game of two searching bots
costs four times a 1v3 game. ``--ismcts key=value,...`` passes options to ``ismcts`` and
``hands`` and ``perfect`` (the tuning runs of docs/STRENGTH.md).

The bots are the catalogue's (:func:`client.bots.make_bot`), except that ``search`` and
``ismcts`` get the budget, and ``hands`` and ``perfect``, which are not in the catalogue.
"""

from __future__ import annotations

import argparse
import contextlib
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

from benchmarks.perfect import HandsBot, Oracle, PerfectBot
from client.bot import Bot
from client.bots import make_bot
from client.bots.determinize import DeterminizingBot
from client.bots.ismcts import ISMCTSBot
from client.bots.search import SearchBot
from protocol.payloads import GameResult, Tally
from server.engine import (
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


FAIR_SEARCHERS = ("search", "ismcts")
"""Bundled bots that take ``--budget`` (and ``--max-sims``, as their iteration cap)."""


ISMCTS_OPTIONS: dict[str, Any] = {}
"""Keyword options for ``ismcts``, ``hands`` and ``perfect`` (``--ismcts``), set once per process."""


def parse_options(text: str) -> dict[str, Any]:
    """``key=value,key=value`` as keyword options: numbers, ``true``/``false``, else text."""
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if value.lower() in ("true", "false"):
            out[key.strip()] = value.lower() == "true"
        else:
            try:
                out[key.strip()] = float(value) if "." in value else int(value)
            except ValueError:
                out[key.strip()] = value
    return out


ORACLES: dict[str, type[Oracle]] = {"perfect": PerfectBot, "hands": HandsBot}
"""The benchmark-only bots that are handed the live game (:meth:`Oracle.watch`)."""


def make(name: str, rng: random.Random, budget: float, max_sims: int | None) -> Bot:
    """A fresh bot called ``name``: ``search`` and ``ismcts`` get ``budget`` seconds and at most
    ``max_sims`` playouts (iterations) per decision; ``perfect`` and ``hands``
    (:mod:`benchmarks.perfect`: the ceiling, which sees every card, and the oracle that sees the
    hands) the same as ``ismcts``; any other name comes from the catalogue
    (:func:`client.bots.make_bot`)."""
    if name == "search":
        return SearchBot(rng, budget=budget, max_sims=max_sims)
    if name == "ismcts":
        return ISMCTSBot(rng, budget=budget, max_iterations=max_sims, **ISMCTS_OPTIONS)
    if name in ORACLES:
        return ORACLES[name](rng, budget=budget, max_iterations=max_sims, **ISMCTS_OPTIONS)
    return make_bot(name, rng)


def play(game: Game, bots: list[Bot]) -> tuple[tuple[int, ...], int]:
    """Play ``game`` to the end with one bot per seat, as over the wire. Returns the places
    (seats, first to last) and the number of illegal answers replaced."""
    n = game.n
    pending: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for s, bot in enumerate(bots):
        if isinstance(bot, Oracle):
            bot.watch(game)  # the oracles see the game; no fair bot gets it
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
    """One deal's four games: per role (0 for bot A, 1 for bot B), its places over its seats;
    per bot name, the search counters (``stats``) summed over its seats; plus counters."""

    places: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    errors: int = 0
    capped: int = 0
    stats: dict[str, dict[str, int]] = field(default_factory=dict)


def run_deal(job: tuple[tuple[str, str], str, int, int, float, int | None, dict[str, Any]]) -> DealResult:
    """Play the four rotated games of deal ``d`` (a worker function: arguments in one tuple)."""
    (a, b), layout, seed, d, budget, max_sims, ismcts_options = job
    ISMCTS_OPTIONS.clear()
    ISMCTS_OPTIONS.update(ismcts_options)
    rules = make_rules("classic")
    deal_rng = random.Random(f"strength:{seed}:{d}")
    deck = build_deck(rules.decks, rules.jokers)
    deal_rng.shuffle(deck)
    dealer = deal_rng.randrange(SEATS)
    out = DealResult()
    for rot in range(SEATS):
        roles = [LAYOUTS[layout][(s - rot) % SEATS] for s in range(SEATS)]
        bots = [
            make((a, b)[role], random.Random(f"bot:{seed}:{d}:{rot}:{s}"), budget, max_sims)
            for s, role in enumerate(roles)
        ]
        game = Game(rules, SEATS, dealer, list(deck))
        places, errors = play(game, bots)
        out.errors += errors
        out.capped += bool(game.capped)
        for s, role in enumerate(roles):
            out.places[role].append(places.index(s) + 1)
        for role, bot in zip(roles, bots, strict=True):
            if isinstance(bot, DeterminizingBot):
                counters = out.stats.setdefault((a, b)[role], defaultdict(int))
                for k, v in bot.stats.items():
                    counters[k] += v
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
    """The report of one matchup as text: per bot, mean place and loss rate with their 95 %
    intervals over per-deal means; in 2v2 the difference of mean places (A - B) too."""
    deals = len(results)
    lines = [
        f"matchup {matchup[0]} vs {matchup[1]}, layout {layout}: {deals} deals x 4 rotations = "
        f"{4 * deals} games, {seconds:.0f} s wall"
    ]
    lines.append(f"  {'bot':10} {'games':>6} {'seats':>6} {'mean place':>17} {'loss rate':>17} {'firsts':>7}")
    roles = (0, 1) if matchup[0] != matchup[1] or layout == "1v3" else (0,)
    for role in roles:
        name = matchup[role] + (" (A)" if matchup[0] == matchup[1] and role == 0 else "")
        per_deal = [r.places[role] for r in results]
        seats = sum(len(p) for p in per_deal)
        mp, mp_ci = mean_ci([sum(p) / len(p) for p in per_deal])
        lr, lr_ci = mean_ci([sum(x == SEATS for x in p) / len(p) for p in per_deal])
        firsts = sum(x == 1 for p in per_deal for x in p)
        lines.append(
            f"  {name:10} {4 * deals:>6} {seats:>6} {mp:>9.3f} ± {mp_ci:.3f} "
            f"{100 * lr:>8.1f} ± {100 * lr_ci:.1f}% {firsts:>7}"
        )
    if layout == "2v2" and len(roles) == 2:
        diff, diff_ci = mean_ci(
            [sum(r.places[0]) / len(r.places[0]) - sum(r.places[1]) / len(r.places[1]) for r in results]
        )
        verdict = "excludes 0" if abs(diff) > diff_ci else "includes 0"
        lines.append(
            f"  mean place {matchup[0]} - {matchup[1]}: {diff:+.3f} ± {diff_ci:.3f} "
            f"(95 % interval [{diff - diff_ci:+.3f}, {diff + diff_ci:+.3f}], {verdict})"
        )
    errors = sum(r.errors for r in results)
    capped = sum(r.capped for r in results)
    lines.append(f"  illegal answers replaced: {errors}; capped games: {capped}")
    totals: dict[str, dict[str, int]] = {}
    for r in results:
        for name, counters in r.stats.items():
            t = totals.setdefault(name, defaultdict(int))
            for k, v in counters.items():
                t[k] += v
    for name, t in totals.items():
        if t["searched"]:
            work = "playouts" if "playouts" in t else "iterations"
            lines.append(
                f"  {name}: {t['decisions']} decisions, {t['searched']} searched, "
                f"{t[work] / t['searched']:.0f} {work} per searched decision, "
                f"{t['deviations']} deviations from greedy, {t['fallbacks']} fallbacks"
            )
    return "\n".join(lines)


LADDER = ("random", "greedy", "search", "ismcts", "hands", "perfect")
"""The rows of ``--ladder``: each bot seated 1v3 against three ``greedy`` bots."""


def run_matchup(matchup: tuple[str, str], layout: str, args: argparse.Namespace) -> str:
    """Play one matchup over ``args.games`` games (whole deals) and return its report."""
    deals = max(1, math.ceil(args.games / SEATS))
    options = parse_options(args.ismcts)
    jobs = [(matchup, layout, args.seed, d, args.budget, args.max_sims, options) for d in range(deals)]
    start = time.perf_counter()
    results: list[DealResult] = []
    with multiprocessing.Pool(args.procs) if args.procs > 1 else contextlib.nullcontext() as pool:
        for r in pool.imap_unordered(run_deal, jobs, chunksize=1) if pool else map(run_deal, jobs):
            results.append(r)
            if args.progress and len(results) % args.progress == 0 and len(results) < deals:
                print("(so far) " + summarise(matchup, layout, results, time.perf_counter() - start), flush=True)
    return summarise(matchup, layout, results, time.perf_counter() - start)


def command(matchup: tuple[str, str], layout: str, args: argparse.Namespace) -> str:
    """The command line that reproduces one matchup's figures."""
    line = f"python benchmarks/strength.py --matchup {matchup[0]}:{matchup[1]} --layout {layout} --games {args.games}"
    line += f" --seed {args.seed} --budget {args.budget}"
    if args.max_sims is not None:
        line += f" --max-sims {args.max_sims}"
    if args.ismcts:
        line += f" --ismcts {args.ismcts}"
    return line + f" --procs {args.procs}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--matchup", default="all", help="A:B (e.g. search:greedy), or 'all' for greedy:random and search:greedy"
    )
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="2v2")
    parser.add_argument(
        "--ladder",
        action="store_true",
        help=f"the ladder: each of {', '.join(LADDER)} 1v3 against three greedy bots (--rows: some of them)",
    )
    parser.add_argument("--progress", type=int, default=0, help="print the figures so far every N deals")
    parser.add_argument("--rows", default="", help="with --ladder: a comma-separated subset of the rows")
    parser.add_argument("--games", type=int, default=400, help="games per matchup (rounded up to 4s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget", type=float, default=0.1, help="search seconds per decision (search, ismcts, hands, perfect)"
    )
    parser.add_argument("--max-sims", type=int, default=None, help="playouts (iterations) per decision cap")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument(
        "--ismcts",
        default="",
        help="options of ismcts, hands and perfect, e.g. exploration=0.5,bias=1.0 (default: the bot's)",
    )
    args = parser.parse_args(argv)
    runs: list[tuple[tuple[str, str], str]]
    if args.ladder:
        rows = args.rows.split(",") if args.rows else list(LADDER)
        runs = [((name, "greedy"), "1v3") for name in rows]
    elif args.matchup == "all":
        runs = [(("greedy", "random"), args.layout), (("search", "greedy"), args.layout)]
    else:
        pair = tuple(args.matchup.split(":", 1))
        if len(pair) != 2:
            parser.error(f"--matchup must be A:B, not {args.matchup!r}")
        runs = [((pair[0], pair[1]), args.layout)]
    print(
        f"seed {args.seed}, search budget {args.budget} s/decision, max sims {args.max_sims}, {args.procs} processes",
        flush=True,
    )
    for matchup, layout in runs:
        print(f"$ {command(matchup, layout, args)}", flush=True)
        print(run_matchup(matchup, layout, args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
