"""A series of games at one table (docs/RULES.md §5): dealer changes, the tally, each game's record.

:class:`SeriesTally` counts places and losses; the server adds names and timeouts to its
:meth:`~SeriesTally.to_dict` to make ``game_over.tally`` (:class:`protocol.payloads.Tally`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .game import Game
from .record import ReplayRecord
from .rules import Rules, check_seats


@dataclass
class SeriesTally:
    """Per seat: how often it finished in each place, and how often it lost."""

    seats: int
    places: list[list[int]] = field(default_factory=list)
    losses: list[int] = field(default_factory=list)
    capped: int = 0

    def __post_init__(self) -> None:
        if not self.places:
            self.places = [[0] * self.seats for _ in range(self.seats)]
            self.losses = [0] * self.seats

    def add(self, places: tuple[int, ...], capped: bool) -> None:
        for i, s in enumerate(places):
            self.places[s][i] += 1
        self.losses[places[-1]] += 1
        self.capped += capped

    def to_dict(self) -> dict[str, Any]:
        return {"places": [list(p) for p in self.places], "losses": list(self.losses), "capped": self.capped}


class Series:
    """Plays games one after another with the same seats.

    The first dealer is drawn from ``rng`` (C2) unless given; after each game the deal
    passes clockwise (``next_dealer: rotate``) or to the loser (``next_dealer: loser``).
    """

    def __init__(
        self, rules: Rules, seats: int, *, rng: Any = None, seed: int | None = None, first_dealer: int | None = None
    ) -> None:
        check_seats(rules, seats)
        self.rules = rules
        self.seats = seats
        self.rng = rng if rng is not None else random.Random(seed)
        self.dealer = first_dealer if first_dealer is not None else self.rng.randrange(seats)
        self.tally = SeriesTally(seats)
        self.game: Game | None = None

    def start_game(self, deck: list[int] | None = None) -> Game:
        """Deal the next game (from ``deck`` if given, else shuffled by the series' rng)."""
        if self.game is not None and not self.game.is_over():
            raise RuntimeError("the current game is not over")
        self.game = Game.new(self.rules, self.seats, dealer=self.dealer, deck=deck, rng=self.rng)
        return self.game

    def finish_game(self) -> ReplayRecord:
        """Record the finished game, update the tally and pick the next dealer."""
        game = self.game
        if game is None or not game.is_over():
            raise RuntimeError("no finished game to record")
        outcome = game.outcome()
        assert outcome is not None
        # The record goes to the caller (the server stores it); the series keeps none, so its
        # memory does not grow with the number of games played.
        record = ReplayRecord.of(game)
        self.tally.add(outcome.places, outcome.capped)
        if self.rules.next_dealer == "loser":
            self.dealer = outcome.loser
        else:
            self.dealer = (self.dealer + 1) % self.seats
        self.game = None
        return record
