"""A finished game's open positions, step by step (``get_replay``, issue 34's replay viewer).

The game is over, so every card may be shown: the server serves records of finished games only
(``get_record``'s ``UNKNOWN_GAME`` for one in progress), and this module works from those
records alone. Pure: a stored record in, positions out; :class:`ReplayCache` keeps the last few
games' replays with checkpoints, so that stepping through a long game one page of positions at
a time costs a few dozen actions per page, not the whole game again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.replay_payloads import ReplaySeat, ReplayStep
from server.engine import Game, Positions, ReplayRecord, format_action
from server.engine.cards import format_card
from server.engine.game import OVER

__all__ = ["GameReplay", "ReplayCache", "step_of"]

"""A copy of the game is kept every this many actions."""


def _cards(cards: Sequence[int]) -> list[str]:
    return [format_card(c) for c in cards]


def step_of(game: Game, players: Sequence[str], step: int, actor: tuple[int, Any] | None) -> ReplayStep:
    """The open position of ``game`` after ``step`` actions, the last of them ``actor``
    (``(seat, action)``; None at the deal)."""
    over = game.phase == OVER
    outcome = game.outcome() if over else None
    order = list(outcome.places) if outcome is not None else game.finish  # (the loser once over)
    seats: list[ReplaySeat] = []
    for s in range(game.n):
        place = order.index(s) + 1 if s in order else None
        seats.append(
            {
                "name": players[s] if s < len(players) else f"seat {s}",
                "hand": _cards(game.hand(s)),
                "face_up": [_cards(stack) for stack in game.face_up[s]],
                "face_down": [None if c is None else format_card(c) for c in game.face_down[s]],
                "out": bool(game.out[s]),
                "place": place,
            }
        )
    return {
        "step": step,
        "seat": None if actor is None else actor[0],
        "action": None if actor is None else format_action(actor[1]),
        "phase": game.phase,
        "turn": game.current if game.phase != OVER and game.current >= 0 else None,
        "seats": seats,
        "pile": _cards(game.pile),
        "stock": len(game.stock),
        "burned": len(game.burned),
        "places": None if outcome is None else list(outcome.places),
    }


class GameReplay:
    """One stored game (the ``record`` message's map), replayable at any step."""

    def __init__(self, stored: Mapping[str, Any]) -> None:
        inner = stored["record"]
        self.record = ReplayRecord.from_dict(inner)
        self.players: list[str] = list(inner.get("players") or stored.get("players") or [])
        self.table_name = str(stored.get("table_name", ""))
        self.actions = len(self.record.actions)
        self.positions = Positions(self.record)

    def steps(self, start: int, count: int) -> list[ReplayStep]:
        """The positions ``start`` .. ``start + count - 1`` that exist (none past the end)."""
        if start > self.actions:
            return []
        game, _ = self.positions.at(start)
        out = [step_of(game, self.players, start, self.record.actions[start - 1] if start else None)]
        for i in range(start, min(start + count - 1, self.actions)):
            self.positions.advance(game, i)
            out.append(step_of(game, self.players, i + 1, self.record.actions[i]))
        return out


class ReplayCache:
    """The last ``size`` games asked for, by game id (a stored game never changes)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._games: OrderedDict[int, GameReplay] = OrderedDict()

    def get(self, game: int) -> GameReplay | None:
        found = self._games.get(game)
        if found is not None:
            self._games.move_to_end(game)
        return found

    def put(self, game: int, replay: GameReplay) -> None:
        self._games[game] = replay
        self._games.move_to_end(game)
        while len(self._games) > self.size:
            self._games.popitem(last=False)
