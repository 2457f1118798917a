"""A bot's rating history (issue 34, the bot's page's plot): folded with the ratings, so the
same after a restart's fold as when built game by game; bounded however many games; spread
evenly; the latest change always last and equal to the standings' rating."""

from __future__ import annotations

import itertools

from server.ladder.history import History, Point, rating_points
from server.ladder.ratings import OVERALL, LadderGame, Ratings, fold_all
from server.tournament.standings import round_rating


def _game(n: int, places: tuple[int, ...], preset: str = "classic") -> LadderGame:
    return LadderGame(game=n, preset=preset, seats=("a", "b"), places=places, finished=1.0e9 + n)


def test_the_history_follows_the_overall_rating_and_comes_back_from_the_games() -> None:
    """One point per game while few, over every preset (overall), each the row's rating then;
    the last point is the standings' rating; fold_all (a restart) gives the same points."""
    games = [_game(i, (i % 2, 1 - i % 2), "classic" if i % 3 else "west_kent") for i in range(1, 31)]
    r = Ratings()
    for g in games:
        r.fold(g)
        row = r.peek(OVERALL, "a")
        last = r.history["a"].points()[-1]
        assert (last.game, last.games, last.mu, last.sigma) == (g.game, row.games, row.mu, row.sigma)
    points = rating_points(r.history["a"])
    assert [p["games"] for p in points] == list(range(1, 31))
    assert points[-1]["rating"] == round_rating(r.peek(OVERALL, "a").mu)
    assert points[0]["rating_95"] > points[-1]["rating_95"]
    assert rating_points(fold_all(games).history["a"]) == points
    assert rating_points(None) == []


def test_a_long_history_stays_bounded_and_even() -> None:
    """10,000 games keep fewer than 2 * limit points, spread at one stride from the first to the
    last kept, and the 10,000th game last."""
    h = History(limit=50)
    for n in range(1, 10_001):
        h.add(Point(n, n, float(n), 25.0, 8.0))
        assert len(h.points()) <= 2 * h.limit
    points = h.points()
    games = [p.games for p in points]
    assert games[-1] == 10_000 and len(points) >= h.limit
    steps = {b - a for a, b in itertools.pairwise(games[:-1])}
    assert steps == {h.stride}
    assert games[0] == h.stride  # (from the start: the early games are in the plot too)
