"""A bot's rating history on the ladder, for the plot of its page (issue 34): pure, bounded.

Ratings are folded from the finished games at every start (:mod:`server.ladder.ratings`), so
their history is too: it needs no rows of its own and survives a restart as the games do. To
keep memory flat however long a bot plays, a :class:`History` holds at most ``2 * limit``
points spread evenly over all of its games: every ``stride``-th rating change is kept, and when
the points reach ``2 * limit`` every other one is dropped and the stride doubles. The latest
change is always shown (:meth:`History.points` adds it when the stride skipped it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.payloads import LadderRatingPoint
from server.tournament.standings import Z95, round_rating

__all__ = ["HISTORY_POINTS", "History", "Point", "rating_points"]

HISTORY_POINTS = 100
"""A history keeps between this many and twice this many points once it has that many games."""


@dataclass(frozen=True)
class Point:
    """A bot's rating after one of its games: ``games`` is how many it had played then."""

    games: int
    game: int
    finished: float
    mu: float
    sigma: float


@dataclass
class History:
    limit: int = HISTORY_POINTS
    stride: int = 1
    kept: list[Point] = field(default_factory=list)
    last: Point | None = None

    def add(self, p: Point) -> None:
        """The rating after the bot's ``p.games``-th game."""
        self.last = p
        if p.games % self.stride:
            return
        self.kept.append(p)
        if len(self.kept) >= 2 * self.limit:
            self.stride *= 2
            self.kept = [q for q in self.kept if q.games % self.stride == 0]

    def points(self) -> list[Point]:
        """Oldest first, the latest change last."""
        if self.last is not None and (not self.kept or self.kept[-1] is not self.last):
            return [*self.kept, self.last]
        return list(self.kept)


def rating_points(found: History | None) -> list[LadderRatingPoint]:
    """``ladder_history.ratings`` from a bot's history: its overall rating after its games,
    oldest first (empty for a bot without ladder games: None)."""
    return [
        {
            "games": p.games,
            "game": p.game,
            "finished": p.finished,
            "rating": round_rating(p.mu),
            "rating_95": round_rating(Z95 * p.sigma),
        }
        for p in (found.points() if found is not None else [])
    ]
