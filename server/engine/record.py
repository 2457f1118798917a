"""Game records: rules, seats, dealer, deck order and every action; they replay exactly.

A :class:`ReplayRecord` is plain data (``to_dict``/``from_dict`` give JSON- and msgpack-friendly
maps with cards and actions in text form). :meth:`ReplayRecord.replay` rebuilds the game by
dealing the same deck and applying the same actions, so it reaches the identical state.

Its ``to_dict`` is the engine's part of a stored game record (the wire's
:class:`protocol.payloads.GameRecord`, to which the server adds the players and action times).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .actions import Action, format_action, parse_action
from .cards import format_card, parse_card
from .events import Event
from .game import Game
from .outcome import GameOutcome
from .rules import Rules, make_rules


@dataclass(frozen=True, slots=True)
class ReplayRecord:
    """Everything needed to replay a game. ``actions`` are ``(seat, action tuple)`` pairs."""

    preset: str
    options: dict[str, Any]
    seats: int
    dealer: int
    deck: tuple[int, ...]
    actions: tuple[tuple[int, Action], ...]
    outcome: GameOutcome | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, game: Game) -> ReplayRecord:
        """The record of ``game`` so far."""
        return cls(
            preset=game.rules.preset,
            options=game.rules.overrides(),
            seats=game.n,
            dealer=game.dealer,
            deck=game.deck,
            actions=tuple(game.history),
            outcome=game.outcome(),
        )

    def rules(self) -> Rules:
        return make_rules(self.preset, self.options)

    def replay(self, upto: int | None = None) -> Game:
        """A new game with the first ``upto`` actions (all by default) applied again."""
        game = Game(self.rules(), self.seats, self.dealer, list(self.deck))
        for seat, action in self.actions[:upto]:
            game.apply(seat, action)
        return game

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "options": self.options,
            "seats": self.seats,
            "dealer": self.dealer,
            "deck": [format_card(c) for c in self.deck],
            "actions": [[seat, format_action(a)] for seat, a in self.actions],
            "outcome": self.outcome.to_dict() if self.outcome else None,
            **({"extra": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReplayRecord:
        return cls(
            preset=d["preset"],
            options=dict(d.get("options") or {}),
            seats=d["seats"],
            dealer=d["dealer"],
            deck=tuple(parse_card(c) for c in d["deck"]),
            actions=tuple((seat, parse_action(a)) for seat, a in d["actions"]),
            outcome=GameOutcome.from_dict(d["outcome"]) if d.get("outcome") else None,
            extra=dict(d.get("extra") or {}),
        )


class Positions:
    """The positions of a record's game, at any step (0: dealt; ``len(actions)``: over), for
    the replay viewers (the server's ``replay`` and the terminal's ``shithead replay``).

    A copy of the game is kept every :attr:`EVERY` actions, so that reaching a step applies
    at most that many actions, in whatever order the steps are asked for."""

    EVERY = 64

    def __init__(self, record: ReplayRecord) -> None:
        self.record = record
        self.count = len(record.actions)
        self._kept: dict[int, Game] = {0: record.replay(0)}

    def at(self, step: int) -> tuple[Game, list[Event]]:
        """A new game after ``step`` actions (clamped to 0..``count``), and the events of the
        last of them (none at step 0)."""
        step = max(0, min(step, self.count))
        base = max(k for k in self._kept if k <= step)
        game = self._kept[base].clone()
        events: list[Event] = []
        for i in range(base, step):
            events = self.advance(game, i)
        return game, events

    def advance(self, game: Game, i: int) -> list[Event]:
        """Apply action ``i`` (0-based) to ``game``, which stands at step ``i``; its events."""
        seat, action = self.record.actions[i]
        events = game.apply(seat, action)
        if (i + 1) % self.EVERY == 0 and i + 1 not in self._kept:
            self._kept[i + 1] = game.clone()
        return events
