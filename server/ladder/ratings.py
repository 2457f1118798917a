"""The ladder's ratings and matchmaking: pure, no I/O, randomness injected.

Ratings use the tournaments' openskill model (:mod:`server.tournament.standings`): every finished
ladder game is rated twice, in the table of its preset and in the overall table, so a bot has
one rating per preset it plays and one over all of them, each a mean ``mu`` and an uncertainty
``sigma`` (95 % interval ``mu ± 1.96 sigma``). Per table a bot's games are counted, and its
timeouts, illegal answers and disconnects (the bot check's vocabulary: a crash of a bot program
is a disconnect the server sees).

Ratings are folded in the order games finish. They are not stored: the finished games are, and
:meth:`Ratings.fold` rebuilds every table from them in the same order after a restart.

Matchmaking (:func:`pick_match`) seats an idle member whose rating is the least certain (the
widest interval, then the fewest games) with the opponents whose ratings are closest to its own,
counting their uncertainty; a little injected randomness keeps the same groups from repeating.
Each match is one deal played once per seat rotation (:func:`server.tournament.schedule.schedule`,
the tournaments' duplicate deals), so the luck of the cards cancels out.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.tournament.schedule import GameSpec, schedule
from server.tournament.standings import _MODEL, Z95, round_rating

from .history import History, Point

OVERALL = "overall"
"""The name of the table that rates every ladder game, whatever its preset."""

RECENT_GAMES = 50
"""Finished games kept in memory per bot for ``ladder_games`` (the database keeps them all)."""


@dataclass(frozen=True)
class LadderGame:
    """A finished ladder game: ``seats[i]`` played seat ``i``; ``places`` lists seats from the
    first out to the loser; per-seat counts of timeouts, illegal actions and disconnects;
    ``game`` is the server's game id (``get_record`` reads it), ``finished`` a Unix time."""

    game: int
    preset: str
    seats: tuple[str, ...]
    places: tuple[int, ...]
    finished: float
    timeouts: tuple[int, ...] = ()
    illegal: tuple[int, ...] = ()
    disconnects: tuple[int, ...] = ()

    def place_of(self, seat: int) -> int:
        """1 for the first out ... n for the loser."""
        return self.places.index(seat) + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "preset": self.preset,
            "seats": list(self.seats),
            "places": list(self.places),
            "finished": self.finished,
            "timeouts": list(self.timeouts),
            "illegal": list(self.illegal),
            "disconnects": list(self.disconnects),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LadderGame:
        return cls(
            game=int(d["game"]),
            preset=str(d["preset"]),
            seats=tuple(d["seats"]),
            places=tuple(d["places"]),
            finished=float(d["finished"]),
            timeouts=tuple(d.get("timeouts", ())),
            illegal=tuple(d.get("illegal", ())),
            disconnects=tuple(d.get("disconnects", ())),
        )


@dataclass
class LadderRow:
    """One bot's line in one table (a preset's, or the overall one)."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    timeouts: int = 0
    illegal: int = 0
    disconnects: int = 0

    @property
    def interval(self) -> float:
        """The half-width of the 95 % interval of the rating."""
        return Z95 * self.sigma

    def to_wire(self, rank: int) -> dict[str, Any]:
        return {
            "rank": rank,
            "name": self.name,
            "rating": round_rating(self.mu),
            "rating_95": round_rating(self.interval),
            "games": self.games,
            "timeouts": self.timeouts,
            "illegal": self.illegal,
            "disconnects": self.disconnects,
        }


@dataclass
class Ratings:
    """Every table of the ladder (``OVERALL`` and one per preset played), and each bot's recent
    games; a size that grows with the bots, not with the games."""

    tables: dict[str, dict[str, LadderRow]] = field(default_factory=dict)
    recent: dict[str, deque[LadderGame]] = field(default_factory=dict)
    history: dict[str, History] = field(default_factory=dict)
    """Each bot's overall rating after its games (bounded, :mod:`server.ladder.history`)."""
    games: int = 0

    def row(self, table: str, name: str) -> LadderRow:
        """``name``'s row in ``table`` (a fresh rating if it has not played there)."""
        rows = self.tables.setdefault(table, {})
        r = rows.get(name)
        if r is None:
            fresh = _MODEL.rating(name=name)
            r = rows[name] = LadderRow(name, fresh.mu, fresh.sigma)
        return r

    def peek(self, table: str, name: str) -> LadderRow:
        """``name``'s row in ``table``, or a fresh rating not kept (reading adds no row)."""
        r = self.tables.get(table, {}).get(name)
        if r is None:
            fresh = _MODEL.rating(name=name)
            return LadderRow(name, fresh.mu, fresh.sigma)
        return r

    def fold(self, game: LadderGame) -> None:
        """Rate ``game`` in its preset's table and in the overall one; count it."""
        ranks: list[float] = [game.place_of(seat) for seat in range(len(game.seats))]
        for table in (game.preset, OVERALL):
            rows = [self.row(table, name) for name in game.seats]
            teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma, name=r.name)] for r in rows]
            for seat, ((new,), r) in enumerate(zip(_MODEL.rate(teams, ranks=ranks), rows, strict=True)):
                r.mu, r.sigma = new.mu, new.sigma
                r.games += 1
                r.timeouts += game.timeouts[seat] if game.timeouts else 0
                r.illegal += game.illegal[seat] if game.illegal else 0
                r.disconnects += game.disconnects[seat] if game.disconnects else 0
                if table == OVERALL:
                    point = Point(r.games, game.game, game.finished, r.mu, r.sigma)
                    self.history.setdefault(r.name, History()).add(point)
        for name in game.seats:
            self.recent.setdefault(name, deque(maxlen=RECENT_GAMES)).appendleft(game)
        self.games += 1

    def standings(self, table: str = OVERALL) -> list[LadderRow]:
        """``table``'s rows, best rating first (ties by name); empty for a table never played."""
        return sorted(self.tables.get(table, {}).values(), key=lambda r: (-r.mu, r.name))

    def games_of(self, name: str, limit: int) -> list[LadderGame]:
        """``name``'s last ``limit`` finished games, the latest first."""
        return list(self.recent.get(name, ()))[:limit]


@dataclass(frozen=True)
class Candidate:
    """Who may be seated at a ladder match: a member (idle now) or a baseline (a bundled bot,
    always available), with the presets it plays (a baseline plays every preset)."""

    name: str
    presets: frozenset[str] | None = None
    """None: every preset."""
    member: bool = True

    def plays(self, preset: str) -> bool:
        return self.presets is None or preset in self.presets


@dataclass(frozen=True)
class Match:
    """A ladder match: one deal of ``preset`` played by ``group`` once per seat rotation."""

    preset: str
    group: tuple[str, ...]
    games: tuple[GameSpec, ...]


def closeness(a: LadderRow, b: LadderRow) -> float:
    """How far apart two ratings are, in units of their joint uncertainty (0: equal)."""
    return abs(a.mu - b.mu) / math.sqrt(a.sigma * a.sigma + b.sigma * b.sigma)


def pick_match(
    ratings: Ratings,
    candidates: Sequence[Candidate],
    *,
    seats: Mapping[str, int],
    rng: random.Random,
) -> Match | None:
    """The next match, or None if no member can be seated with enough opponents.

    The anchor is the member with the widest interval in the tables it plays (then the fewest
    games, then a random draw); its preset is the one of its presets where its rating is least
    certain; its opponents are the candidates that play that preset whose ratings are closest to
    its own (:func:`closeness`, less a random jitter of up to half a unit, so that near ties
    change from match to match), members and baselines alike. ``seats[preset]``: the table size
    of each preset the ladder plays (presets missing there are not played)."""
    members = [c for c in candidates if c.member]
    if not members:
        return None

    def uncertainty(c: Candidate) -> tuple[float, int, float]:
        mine = [ratings.peek(p, c.name) for p in seats if c.plays(p)]
        if not mine:
            return (-math.inf, 0, 0.0)
        widest = max(mine, key=lambda r: r.sigma)
        return (widest.sigma, -widest.games, rng.random())

    for anchor in sorted(members, key=uncertainty, reverse=True):
        presets = sorted((p for p in seats if anchor.plays(p)), key=lambda p: -ratings.peek(p, anchor.name).sigma)
        for preset in presets:
            n = seats[preset]
            others = [c for c in candidates if c.name != anchor.name and c.plays(preset)]
            if len(others) < n - 1:
                continue
            mine = ratings.peek(preset, anchor.name)
            others.sort(key=lambda c: closeness(mine, ratings.peek(preset, c.name)) + rng.uniform(-0.5, 0.5))
            group = (anchor.name, *(c.name for c in others[: n - 1]))
            specs = schedule(group, table_size=n, games=n, master_seed=rng.getrandbits(63))
            return Match(preset, group, tuple(specs))
    return None


def fold_all(games: Iterable[LadderGame]) -> Ratings:
    """The ratings after ``games``, in the order given (the order they finished)."""
    r = Ratings()
    for g in games:
        r.fold(g)
    return r
