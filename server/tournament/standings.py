"""Ratings and standings from finishing orders.

Ratings use openskill's Plackett-Luce model (a Bayesian rating for games of many players
that are ranked, which is what a game of Shithead produces: a full finishing order). Each
rating is a mean ``mu`` and an uncertainty ``sigma``; the 95 % interval shown is
``mu ± 1.96 sigma``. Games are rated in the order of their game numbers, not in the order
they finished, so a tournament run with any concurrency, or interrupted and resumed, ends
with the same ratings.

Mean place and loss rate come with 95 % intervals too (normal approximation over the games
a participant played; duplicate deals make neighbouring games correlated, so read them as
indicative, and compare ratings and head-to-head differences first).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from .ranges import Range, contains

Z95 = 1.959963984540054


@dataclass(frozen=True)
class RatedGame:
    """What a finished tournament game says about its participants, as the ratings take it.
    ``seats[i]`` played seat ``i``; ``places`` lists seats from first out to the loser (the
    shithead); per-seat counters of timeouts, illegal actions and disconnects. (On the wire the
    organiser receives it as ``tournament_game.result``; a table's own ``game_over.result`` is
    another thing.)"""

    number: int
    deal: int
    seats: tuple[str, ...]
    places: tuple[int, ...]
    capped: bool = False
    timeouts: tuple[int, ...] = ()
    illegal: tuple[int, ...] = ()
    disconnects: tuple[int, ...] = ()

    def place_of(self, seat: int) -> int:
        """1 for the first out ... n for the loser."""
        return self.places.index(seat) + 1


@dataclass
class Row:
    """One participant's line of the standings. Places are kept as a count, a sum and a sum of
    squares (enough for the mean and its interval), not one entry per game."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    place_sum: int = 0
    place_squares: int = 0
    firsts: int = 0
    losses: int = 0
    timeouts: int = 0
    illegal: int = 0
    disconnects: int = 0

    @property
    def rating_interval(self) -> float:
        return Z95 * self.sigma

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.games if self.games else math.nan

    @property
    def mean_place_interval(self) -> float:
        n = self.games
        if n < 2:
            return math.nan
        var = max(0.0, (self.place_squares - self.place_sum * self.place_sum / n) / (n - 1))
        return Z95 * math.sqrt(var / n)

    @property
    def loss_rate(self) -> float:
        return self.losses / self.games if self.games else math.nan

    @property
    def loss_rate_interval(self) -> float:
        if not self.games:
            return math.nan
        p = self.loss_rate
        return Z95 * math.sqrt(p * (1 - p) / self.games)

    def to_dict(self) -> dict[str, Any]:
        """The row as standings.json writes it (rounded by :func:`round_rating` and :func:`round_stat`,
        like the wire's ``StandingRow``)."""
        return {
            "name": self.name,
            "rating": round_rating(self.mu),
            "rating_95": round_rating(self.rating_interval),
            "sigma": round_rating(self.sigma),
            "games": self.games,
            "mean_place": round_stat(self.mean_place),
            "mean_place_95": round_stat(self.mean_place_interval),
            "loss_rate": round_stat(self.loss_rate),
            "loss_rate_95": round_stat(self.loss_rate_interval),
            "firsts": self.firsts,
            "timeouts": self.timeouts,
            "illegal": self.illegal,
            "disconnects": self.disconnects,
        }


# The one rounding rule of reported standings, used by standings.json (Row.to_dict, the client's
# organiser) and by the wire (server.tournament.payloads): ratings, their intervals and sigma to 3
# decimals; means, rates, their intervals and head-to-head differences to 4, null when undefined.


def round_rating(x: float) -> float:
    """A rating, its 95 % half-width or its sigma as reported: 3 decimals."""
    return round(x, 3)


def round_stat(x: float) -> float | None:
    """A statistic as reported: ``None`` when undefined (NaN: too few games), else 4 decimals."""
    return None if math.isnan(x) else round(x, 4)


def round_head_to_head(h2h: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
    """:func:`head_to_head` as reported: every difference through :func:`round_stat`."""
    return {a: {b: round_stat(v) for b, v in cols.items()} for a, cols in h2h.items()}


_MODEL = PlackettLuce()


@dataclass
class _Folded:
    """Ratings, rows and head-to-head sums after some games, folded in one at a time."""

    ratings: dict[str, Any]
    rows: dict[str, Row]
    pairs: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """``(a, b)``: [sum of a's place minus b's, games together]."""

    @classmethod
    def empty(cls, participants: Sequence[str]) -> _Folded:
        ratings = {name: _MODEL.rating(name=name) for name in participants}
        return cls(ratings, {name: Row(name, r.mu, r.sigma) for name, r in ratings.items()})

    def copy(self) -> _Folded:
        # Rating objects are not changed by rating (openskill returns new ones): a shallow copy.
        return _Folded(
            dict(self.ratings),
            {name: dataclasses.replace(row) for name, row in self.rows.items()},
            {pair: list(sums) for pair, sums in self.pairs.items()},
        )

    def fold(self, res: RatedGame) -> None:
        ranks: list[float] = [res.place_of(seat) for seat in range(len(res.seats))]
        teams = [[self.ratings[name]] for name in res.seats]
        for seat, (new,) in enumerate(_MODEL.rate(teams, ranks=ranks)):
            self.ratings[res.seats[seat]] = new
        for seat, name in enumerate(res.seats):
            row = self.rows[name]
            place = res.place_of(seat)
            row.mu, row.sigma = self.ratings[name].mu, self.ratings[name].sigma
            row.games += 1
            row.place_sum += place
            row.place_squares += place * place
            row.firsts += place == 1
            row.losses += place == len(res.seats)
            row.timeouts += res.timeouts[seat] if res.timeouts else 0
            row.illegal += res.illegal[seat] if res.illegal else 0
            row.disconnects += res.disconnects[seat] if res.disconnects else 0
        for i, a in enumerate(res.seats):
            for j, b in enumerate(res.seats):
                if i != j:
                    sums = self.pairs.setdefault((a, b), [0, 0])
                    sums[0] += res.place_of(i) - res.place_of(j)
                    sums[1] += 1


class Standings:
    """Standings and head-to-head kept up to date game by game, in a size that does not grow
    with the games: a tournament of 100,000 games holds per participant one row and per pair
    two numbers, not its results.

    Games are rated in game-number order (ratings depend on the order): the numbers expected
    run from ``first`` up, less those in ``skip`` (merged ranges, :mod:`.ranges`: games an
    interrupted run played, which this one does not report). A game reported before a smaller
    number waits until the gap is filled; with ``concurrency`` tables at once that is a few
    games. Reading (:meth:`rows`, :meth:`head_to_head`) counts the waiting games too, rated on a
    copy after the others: the figures are always those of every game reported so far, rated in
    number order.
    """

    def __init__(self, participants: Sequence[str], *, first: int = 0, skip: Sequence[Range] = ()) -> None:
        self.participants = list(participants)
        self.games = 0
        """Games reported."""
        self._folded = _Folded.empty(self.participants)
        self._next = first
        self._skip = skip
        self._waiting: dict[int, RatedGame] = {}

    def add(self, res: RatedGame) -> None:
        """Count a finished game (in any order; each number once: ValueError otherwise)."""
        if res.number < self._next or res.number in self._waiting or contains(self._skip, res.number):
            raise ValueError(f"game {res.number} is counted already or was not expected")
        self._waiting[res.number] = res
        self.games += 1
        while True:
            if contains(self._skip, self._next):
                pass
            elif (ready := self._waiting.pop(self._next, None)) is not None:
                self._folded.fold(ready)
            else:
                break
            self._next += 1

    def _now(self) -> _Folded:
        if not self._waiting:
            return self._folded
        folded = self._folded.copy()
        for number in sorted(self._waiting):
            folded.fold(self._waiting[number])
        return folded

    def rows(self) -> list[Row]:
        """The standings, best rating first (ties by name)."""
        return sorted(self._now().rows.values(), key=lambda r: (-r.mu, r.name))

    def head_to_head(self) -> dict[str, dict[str, float]]:
        """``h2h[a][b]``: the mean of (place of a - place of b) over the games both played
        (negative: a finished ahead of b on average); NaN where they never met."""
        pairs = self._now().pairs
        return {
            a: {b: (s[0] / s[1] if (s := pairs.get((a, b))) else math.nan) for b in self.participants if b != a}
            for a in self.participants
        }


def standings(participants: Sequence[str], results: Iterable[RatedGame]) -> list[Row]:
    """The standings after ``results`` (rated in game-number order), best rating first."""
    return _of(participants, results).rows()


def head_to_head(participants: Sequence[str], results: Iterable[RatedGame]) -> dict[str, dict[str, float]]:
    """:meth:`Standings.head_to_head` of ``results``."""
    return _of(participants, results).head_to_head()


def _of(participants: Sequence[str], results: Iterable[RatedGame]) -> Standings:
    ordered = sorted(results, key=lambda r: r.number)
    acc = Standings(participants, first=ordered[0].number if ordered else 0)
    for res in ordered:
        acc.add(res)
    return acc


def format_standings(rows: Sequence[Row], *, title: str = "") -> list[str]:
    """The standings as text lines of at most 80 columns (names cut to 13 characters)."""
    lines = [title] if title else []
    lines.append(
        f"{'#':>3} {'name':<13} {'rating':>11} {'games':>6} {'mean place':>10} {'loss rate':>11} "
        f"{'1st':>5} {'t/o':>3} {'ill':>3} {'disc':>4}"
    )
    for i, r in enumerate(rows, 1):
        mp = "-" if math.isnan(r.mean_place) else f"{r.mean_place:.2f}±{_fmt(r.mean_place_interval)}"
        lr = "-" if math.isnan(r.loss_rate) else f"{r.loss_rate:.3f}±{_fmt(r.loss_rate_interval, 3)}"
        rating = f"{r.mu:.2f}±{r.rating_interval:.2f}"
        lines.append(
            f"{i:>3} {r.name[:13]:<13} {rating:>11} {r.games:>6} {mp:>10} {lr:>11} "
            f"{r.firsts:>5} {r.timeouts:>3} {r.illegal:>3} {r.disconnects:>4}"
        )
    return lines


def format_head_to_head(participants: Sequence[str], h2h: dict[str, dict[str, float]]) -> list[str]:
    """The head-to-head table: row minus column, mean place difference."""
    width = max(8, *(min(len(p), 12) for p in participants))
    lines = [" " * width + "".join(f" {p[:12]:>{width}}" for p in participants)]
    for a in participants:
        cells = "".join(
            f" {'':>{width}}" if a == b else f" {_fmt(h2h[a][b], 2, signed=True):>{width}}" for b in participants
        )
        lines.append(f"{a[:12]:<{width}}{cells}")
    return lines


def _fmt(x: float, digits: int = 2, *, signed: bool = False) -> str:
    if math.isnan(x):
        return "-"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
