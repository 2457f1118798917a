"""Standings kept game by game (issue 15: a long tournament keeps no per-game list) give the
figures of rating every result in game-number order, whatever order the results come in."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from server.tournament.ranges import merge
from server.tournament.standings import Z95, RatedGame, Standings

from .test_standings import NAMES, simulated


def reference(results: list[RatedGame]) -> dict[str, tuple[float, float, int, float, float, int]]:
    """The figures computed the plain way, from the whole list: ratings over the games sorted
    by number, the mean place and its interval from every place (two passes)."""
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in NAMES}
    places: dict[str, list[int]] = {n: [] for n in NAMES}
    for res in sorted(results, key=lambda r: r.number):
        new = model.rate([[ratings[n]] for n in res.seats], ranks=[res.place_of(s) for s in range(len(res.seats))])
        for seat, (r,) in enumerate(new):
            ratings[res.seats[seat]] = r
            places[res.seats[seat]].append(res.place_of(seat))
    out = {}
    for n in NAMES:
        p = places[n]
        mean = sum(p) / len(p) if p else math.nan
        interval = Z95 * math.sqrt(sum((x - mean) ** 2 for x in p) / (len(p) - 1) / len(p)) if len(p) > 1 else math.nan
        out[n] = (ratings[n].mu, ratings[n].sigma, len(p), mean, interval, sum(x == 1 for x in p))
    return out


def figures(acc: Standings) -> dict[str, tuple[float, float, int, float, float, int]]:
    return {r.name: (r.mu, r.sigma, r.games, r.mean_place, r.mean_place_interval, r.firsts) for r in acc.rows()}


def same(a: dict[str, tuple[float, ...]], b: dict[str, tuple[float, ...]]) -> bool:
    return a.keys() == b.keys() and all(
        (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
        for k in a
        for x, y in zip(a[k], b[k], strict=True)
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.randoms(use_true_random=False))
def test_any_arrival_order_gives_the_figures_of_number_order(n: int, rnd: random.Random) -> None:
    results = simulated(n, seed=n)
    arrival = list(results)
    rnd.shuffle(arrival)
    acc = Standings(NAMES)
    for i, res in enumerate(arrival, 1):
        acc.add(res)
        # At every step: the figures of the games reported so far.
        assert acc.games == i
        assert same(figures(acc), reference(arrival[:i]))


def test_games_of_an_earlier_run_are_skipped_and_nothing_waits_at_the_end() -> None:
    results = simulated(30, seed=3)
    done = {r.number for r in results if r.number % 4 == 1}
    acc = Standings(NAMES, skip=merge(done))
    for res in reversed(results):
        if res.number not in done:
            acc.add(res)
    assert acc._waiting == {}  # every expected game came: all are rated, none held on a copy
    assert same(figures(acc), reference([r for r in results if r.number not in done]))


def test_head_to_head_and_counts_match_the_whole_list() -> None:
    results = simulated(24, seed=5)
    acc = Standings(NAMES)
    for res in results:
        acc.add(res)
    h2h = acc.head_to_head()
    for a in NAMES:
        for b in NAMES:
            if a != b:
                diffs = [
                    r.place_of(r.seats.index(a)) - r.place_of(r.seats.index(b))
                    for r in results
                    if a in r.seats and b in r.seats
                ]
                assert h2h[a][b] == pytest.approx(sum(diffs) / len(diffs))
    row = {r.name: r for r in acc.rows()}
    assert sum(r.timeouts for r in row.values()) == 24  # simulated: seat 1 times out once a game


def test_a_game_counted_twice_is_refused() -> None:
    results = simulated(3)
    acc = Standings(NAMES)
    acc.add(results[1])
    with pytest.raises(ValueError):
        acc.add(results[1])
    acc.add(results[0])
    with pytest.raises(ValueError):
        acc.add(results[0])
