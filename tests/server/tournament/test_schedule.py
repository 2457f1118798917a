"""Tournament schedules: duplicate deals, seat groups, seeds."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from server.tournament.schedule import GAUNTLET, ScheduleError, deal_seed, schedule

FOUR = ["ann", "bob", "cid", "dot"]
SIX = ["ann", "bob", "cid", "dot", "eve", "fay"]


def test_every_participant_plays_every_seat_of_every_deal() -> None:
    """Rotations: each deal is played once per seat, each participant at each seat once, with
    the same seed each time."""
    games = schedule(FOUR, table_size=4, games=40, master_seed=1)
    assert len(games) == 40
    by_deal: dict[int, list] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g)
    assert len(by_deal) == 10
    for deal, gs in by_deal.items():
        assert len(gs) == 4 and len({g.seed for g in gs}) == 1
        for seat in range(4):
            assert sorted(g.seats[seat] for g in gs) == sorted(FOUR), (deal, seat)


def test_games_round_up_to_whole_deals_and_numbers_are_in_order() -> None:
    """Asking for 10 games at 4 seats plays 3 whole deals (12 games), numbered 0..11."""
    games = schedule(FOUR, table_size=4, games=10, master_seed=1)
    assert [g.number for g in games] == list(range(12))


def test_same_master_seed_same_deals_other_seed_other_deals() -> None:
    """The master seed alone decides the deals; seeds differ between deals."""
    a = schedule(SIX, table_size=4, games=60, master_seed=7)
    b = schedule(SIX, table_size=4, games=60, master_seed=7)
    c = schedule(SIX, table_size=4, games=60, master_seed=8)
    assert a == b
    assert [g.seed for g in a] != [g.seed for g in c]
    assert len({g.seed for g in a}) == len({g.deal for g in a})
    assert deal_seed(7, 0) == deal_seed(7, 0) and 0 <= deal_seed(7, 0) < 2**63


def test_round_robin_covers_every_group_evenly() -> None:
    """Six participants at tables of four: all 15 groups in turn, each as often."""
    games = schedule(SIX, table_size=4, games=15 * 4 * 2, master_seed=3)
    groups = Counter(frozenset(g.seats) for g in games)
    assert set(groups) == {frozenset(c) for c in itertools.combinations(SIX, 4)}
    assert set(groups.values()) == {8}
    assert Counter(name for g in games for name in g.seats) == {name: 80 for name in SIX}


def test_cyclic_order_changes_between_deals_of_a_group() -> None:
    """With four players, the six cyclic seatings are used in turn: ann does not always have
    the same left-hand neighbour."""
    games = schedule(FOUR, table_size=4, games=24, master_seed=3)
    left_of_ann = {g.seats[(g.seats.index("ann") + 1) % 4] for g in games}
    assert left_of_ann == {"bob", "cid", "dot"}


def test_gauntlet_puts_the_hero_in_every_game() -> None:
    """A gauntlet: the hero plays every game, the others share the rest of the seats."""
    games = schedule(SIX, table_size=3, games=60, master_seed=2, kind=GAUNTLET, hero="ann")
    assert all("ann" in g.seats for g in games)
    assert Counter(n for g in games for n in g.seats if n != "ann") == {n: 24 for n in SIX[1:]}


def test_permute_plays_every_ordering() -> None:
    """permute: each deal is played in all 3! orders of a three-player group."""
    games = schedule(["a", "b", "c"], table_size=3, games=6, master_seed=1, permute=True)
    assert len({g.seats for g in games}) == 6 and len({g.deal for g in games}) == 1


@pytest.mark.parametrize(
    ("names", "size", "games", "kwargs", "words"),
    [
        (["a", "b"], 3, 10, {}, "cannot fill"),
        (["a", "a", "b"], 2, 10, {}, "distinct"),
        (["a", "b"], 1, 10, {}, "at least 2"),
        (["a", "b"], 2, 0, {}, "at least one game"),
        (["a", "b", "c"], 2, 4, {"kind": GAUNTLET, "hero": "z"}, "hero"),
        (["a", "b", "c"], 2, 4, {"kind": "swiss"}, "unknown schedule"),
    ],
)
def test_bad_tournaments_are_refused(names: list[str], size: int, games: int, kwargs: dict, words: str) -> None:
    """Each impossible request raises ScheduleError with a message saying why."""
    with pytest.raises(ScheduleError, match=words):
        schedule(names, table_size=size, games=games, master_seed=1, **kwargs)
