"""The ladder's pure parts: ratings per preset and overall, counts, and matchmaking."""

from __future__ import annotations

import random

from server.ladder.ratings import OVERALL, Candidate, LadderGame, Ratings, fold_all, pick_match


def _game(n: int, seats: tuple[str, ...], places: tuple[int, ...], preset: str = "classic") -> LadderGame:
    return LadderGame(
        game=n,
        preset=preset,
        seats=seats,
        places=places,
        finished=1.0e9 + n,
        timeouts=tuple(int(s == "slow") for s in seats),
        illegal=(0,) * len(seats),
        disconnects=(0,) * len(seats),
    )


def test_a_game_is_rated_in_its_preset_and_overall_and_counted() -> None:
    """A game moves the winner up and the loser down in its preset's table and the overall one,
    and counts games and timeouts in both; other presets' tables are untouched."""
    r = Ratings()
    r.fold(_game(1, ("a", "slow"), (0, 1)))
    for table in ("classic", OVERALL):
        rows = {row.name: row for row in r.standings(table)}
        assert rows["a"].mu > rows["slow"].mu
        assert rows["a"].games == rows["slow"].games == 1
        assert (rows["a"].timeouts, rows["slow"].timeouts) == (0, 1)
    assert r.standings("west_kent") == []
    assert [g.game for g in r.games_of("a", 5)] == [1]


def test_intervals_shrink_and_rebuilding_gives_the_same_ratings() -> None:
    """More games narrow the interval; folding the same games again gives the same table."""
    games = [_game(i, ("a", "b", "c"), (i % 3, (i + 1) % 3, (i + 2) % 3)) for i in range(30)]
    r = fold_all(games[:3])
    before = {row.name: row.interval for row in r.standings()}
    for g in games[3:]:
        r.fold(g)
    after = {row.name: row.interval for row in r.standings()}
    assert all(after[n] < before[n] for n in before)
    assert fold_all(games).standings() == r.standings()
    assert [g.game for g in r.games_of("b", 3)] == [29, 28, 27]


def test_the_match_seats_the_least_certain_member_with_close_ratings() -> None:
    """The anchor is the member with the widest interval; its opponents the closest ratings;
    the match is one deal played once per seat rotation on a preset the anchor declared."""
    r = Ratings()
    for i in range(20):  # strong > mid > weak, well measured
        r.fold(_game(i, ("strong", "mid", "weak"), (0, 1, 2)))
    cands = [
        Candidate("new", frozenset({"classic"})),
        Candidate("strong", frozenset({"classic"})),
        Candidate("mid", None, member=False),
        Candidate("weak", None, member=False),
    ]
    m = pick_match(r, cands, seats={"classic": 2, "west_kent": 2}, rng=random.Random(1))
    assert m is not None
    assert m.preset == "classic" and m.group[0] == "new"
    assert len(m.games) == 2 and {s.seed for s in m.games} == {m.games[0].seed}
    assert sorted(s.seats for s in m.games) == sorted([m.group, m.group[::-1]])


def test_no_match_without_a_member_or_enough_opponents() -> None:
    """Baselines alone are never matched, nor a member without enough opponents for its preset."""
    r = Ratings()
    base = [Candidate("random", None, member=False), Candidate("greedy", None, member=False)]
    assert pick_match(r, base, seats={"classic": 2}, rng=random.Random(0)) is None
    lone = [Candidate("me", frozenset({"classic"})), base[0]]
    assert pick_match(r, lone, seats={"classic": 3}, rng=random.Random(0)) is None
