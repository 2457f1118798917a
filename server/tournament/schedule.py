"""Which games a tournament plays: seat groups, duplicate deals, and the seed of every deal.

Everything here follows from the participants, the table size, the number of games and one
**master seed**; nothing is random at run time, so a tournament can be replayed, resumed or
compared with another run game by game.

Duplicate deals
    Every deal is played ``table_size`` times with the same seed (a table seed fixes the
    shuffle and the first dealer, so each seat position gets the same cards each time), with
    the participants rotated one seat further each time: every participant plays every
    position of the same cards, and the luck of the deal cancels out. With ``permute`` every
    ordering of the group is played instead (``table_size!`` games per deal).

Schedules
    ``round-robin``: every group of ``table_size`` participants in turn (all of them when
    there are exactly ``table_size``). ``gauntlet``: one participant (the hero) with every
    group of ``table_size - 1`` others. Across the deals of a group its cyclic seating order
    changes too, so nobody always sits to the left of the same opponent.

The number of games is rounded up to whole deals (a deal is never played only partly).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
SCHEDULES = (ROUND_ROBIN, GAUNTLET)


class ScheduleError(ValueError):
    """The tournament cannot be scheduled as asked (the message says why)."""


@dataclass(frozen=True)
class GameSpec:
    """One game of a tournament: the ``number``-th (from 0), the ``rotation``-th replay of
    deal ``deal``, whose table ``seed`` fixes the cards; ``seats[i]`` plays seat ``i``."""

    number: int
    deal: int
    seed: int
    rotation: int
    seats: tuple[str, ...]


def deal_seed(master_seed: int, deal: int) -> int:
    """The table seed of deal ``deal``: a stable hash of the master seed and the deal number
    (the same on every machine and Python version), in 0..2**63-1."""
    digest = hashlib.sha256(f"shithead-tournament:{master_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _cyclic_orders(group: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every seating order of ``group`` up to rotation (the first member stays first)."""
    first, rest = group[0], group[1:]
    return [(first, *p) for p in itertools.permutations(rest)]


def seat_groups(
    participants: Sequence[str], table_size: int, kind: str, hero: str | None = None
) -> list[tuple[str, ...]]:
    """The groups that play together, in schedule order."""
    if kind == ROUND_ROBIN:
        return list(itertools.combinations(participants, table_size))
    if kind == GAUNTLET:
        if hero is None or hero not in participants:
            raise ScheduleError(f"a gauntlet needs a hero among the participants, got {hero!r}")
        field = [p for p in participants if p != hero]
        return [(hero, *others) for others in itertools.combinations(field, table_size - 1)]
    raise ScheduleError(f"unknown schedule {kind!r}; schedules: {', '.join(SCHEDULES)}")


def schedule(
    participants: Sequence[str],
    *,
    table_size: int,
    games: int,
    master_seed: int,
    kind: str = ROUND_ROBIN,
    hero: str | None = None,
    permute: bool = False,
) -> list[GameSpec]:
    """Every game of the tournament, in order (see the module docstring).

    Raises :class:`ScheduleError` for fewer participants than seats, duplicate names, a
    table size below 2, no games, or a gauntlet without its hero.
    """
    names = list(participants)
    if len(set(names)) != len(names):
        raise ScheduleError("participant names must be distinct")
    if table_size < 2:
        raise ScheduleError("a table needs at least 2 seats")
    if len(names) < table_size:
        raise ScheduleError(f"{len(names)} participants cannot fill a table of {table_size}")
    if games < 1:
        raise ScheduleError("a tournament needs at least one game")
    groups = seat_groups(names, table_size, kind, hero)
    per_deal = math.factorial(table_size) if permute else table_size
    deals = -(-games // per_deal)
    specs: list[GameSpec] = []
    for deal in range(deals):
        group = groups[deal % len(groups)]
        orders = _cyclic_orders(group)
        base = orders[(deal // len(groups)) % len(orders)]
        if permute:
            seatings = list(itertools.permutations(base))
        else:
            seatings = [base[r:] + base[:r] for r in range(table_size)]
        seed = deal_seed(master_seed, deal)
        for rotation, seats in enumerate(seatings):
            specs.append(GameSpec(len(specs), deal, seed, rotation, tuple(seats)))
    return specs
