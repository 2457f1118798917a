"""Challenges (issue 34, point 4): N duplicate deals of bot A against bot B on a preset, played
on the ladder's tables and counted against ``ladder_tables``, not rated.

A challenge is a :class:`~server.ladder.ratings.Match` whose games are every deal played once per
seat rotation (deal ``d``'s cards fixed by its seed, so each rotation deals the same cards and
the luck of the deal cancels out, as in ``benchmarks/strength.py``), with the layout ``AvB``: A
at the first A seats and B at the rest before rotating. The ladder service plays it like a match
(one game at a time on a table of its own) when a table is free and its ladder bots are idle.

Figures (:meth:`Challenge.info`): per bot its mean place, with a 95 % interval in which each
complete deal is one sample (the mean over the deal's games of its seats' places), and how often
one of its seats was last; and A's mean place minus B's with its interval, from the same per-deal
samples (``benchmarks/strength.py`` computes them so).

Kept across a restart by :mod:`server.storage.challenge_rows`. This module is pure.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from protocol.challenge_messages import ChallengeInfo, ChallengeScore
from server.tournament.schedule import GameSpec, deal_seed

from .ratings import Match

__all__ = ["Challenge", "layout_roles", "mean_ci"]


def layout_roles(layout: str) -> tuple[int, ...]:
    """``"1v3"`` -> ``(0, 1, 1, 1)``: the role (0: bot A, 1: bot B) of each seat before rotating.
    Raises ValueError for a text that is not ``AvB`` with A, B from 1 to 9."""
    a, sep, b = layout.partition("v")
    if sep != "v" or not (a.isdigit() and b.isdigit()) or not ("1" <= a <= "9" and "1" <= b <= "9"):
        raise ValueError(f"a layout is AvB, like 1v1 or 1v3, not {layout!r}")
    return (0,) * int(a) + (1,) * int(b)


def mean_ci(xs: list[float]) -> tuple[float | None, float | None]:
    """Mean and half-width of its 95 % normal-approximation interval (None when too few)."""
    k = len(xs)
    if k == 0:
        return None, None
    m = sum(xs) / k
    if k < 2:
        return m, None
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (k - 1))
    return m, 1.96 * sd / math.sqrt(k)


@dataclass
class Challenge:
    """One challenge: who asked (``by``, ``identity``), what, and the places of its games."""

    id: int
    by: str
    identity: str
    preset: str
    bots: tuple[str, str]
    layout: str
    deals: int
    seed: int
    status: str = "waiting"
    games: list[int] = field(default_factory=list)
    places: list[tuple[int, ...]] = field(default_factory=list)
    """Per finished game (in order): the place (1 = first out) of each seat."""
    specs: tuple[GameSpec, ...] = ()

    def __post_init__(self) -> None:
        roles = layout_roles(self.layout)
        n = len(roles)
        specs = []
        for d in range(self.deals):
            seed = deal_seed(self.seed, d)
            for rot in range(n):
                seats = tuple(self.bots[roles[(s - rot) % n]] for s in range(n))
                specs.append(GameSpec(number=d * n + rot, deal=d, seed=seed, rotation=rot, seats=seats))
        self.specs = tuple(specs)

    @classmethod
    def new(
        cls,
        id: int,
        by: str,
        identity: str,
        preset: str,
        bots: tuple[str, str],
        layout: str,
        deals: int,
        rng: random.Random,
    ) -> Challenge:
        return cls(id, by, identity, preset, bots, layout, deals, seed=rng.getrandbits(63))

    @property
    def roles(self) -> tuple[int, ...]:
        return layout_roles(self.layout)

    @property
    def finished(self) -> bool:
        return self.status in ("finished", "cancelled")

    def match(self) -> Match:
        """The games to play, as a ladder match (its group: the two bots)."""
        return Match(self.preset, self.bots, self.specs)

    def add(self, game: int, places: tuple[int, ...]) -> None:
        """Game ``game`` ended; ``places`` lists its seats from the first out to the loser."""
        n = len(places)
        self.games.append(game)
        self.places.append(tuple(places.index(seat) + 1 for seat in range(n)))
        if len(self.games) == len(self.specs):
            self.status = "finished"

    def info(self) -> ChallengeInfo:
        """The challenge and its figures so far (the wire's ``ChallengeInfo``)."""
        roles = self.roles
        n = len(roles)
        per_deal: list[list[float]] = [[], []]
        seat_places: list[list[int]] = [[], []]
        for d in range(len(self.places) // n):
            sums = [0.0, 0.0]
            counts = [0, 0]
            for g in range(d * n, d * n + n):
                rot = g - d * n
                for seat, place in enumerate(self.places[g]):
                    role = roles[(seat - rot) % n]
                    sums[role] += place
                    counts[role] += 1
            for role in (0, 1):
                per_deal[role].append(sums[role] / counts[role])
        for g, places in enumerate(self.places):
            rot = g % n
            for seat, place in enumerate(places):
                seat_places[roles[(seat - rot) % n]].append(place)
        scores: list[ChallengeScore] = []
        for role in (0, 1):
            mine = seat_places[role]
            _, half = mean_ci(per_deal[role])
            scores.append(
                {
                    "name": self.bots[role],
                    "mean_place": _round(sum(mine) / len(mine)) if mine else None,
                    "mean_place_95": _round(half),
                    "loss_rate": _round(sum(p == n for p in mine) / len(mine)) if mine else None,
                    "seats": roles.count(role),
                }
            )
        diff, diff_half = mean_ci([a - b for a, b in zip(per_deal[0], per_deal[1], strict=True)])
        return {
            "challenge": self.id,
            "by": self.by,
            "preset": self.preset,
            "bots": list(self.bots),
            "layout": self.layout,
            "deals": self.deals,
            "games_total": len(self.specs),
            "games_played": len(self.games),
            "status": self.status,
            "scores": scores,
            "difference": _round(diff),
            "difference_95": _round(diff_half),
            "games": list(self.games),
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
