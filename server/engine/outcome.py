"""The result of a finished game.

:class:`GameOutcome` is the engine's value; its :meth:`~GameOutcome.to_dict` is the wire's
``Outcome`` map (:class:`protocol.payloads.Outcome`), which the engine does not import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """Places in finishing order (seat numbers, first out first), the loser, and whether the
    game was stopped by ``max_actions`` (C18). ``flush`` is the first seat to burn the pile
    when the rules name a flush player (``smeghead``), else ``None``."""

    places: tuple[int, ...]
    loser: int
    capped: bool
    flush: int | None = None

    def place_of(self, seat: int) -> int:
        """1-based place of ``seat``."""
        return self.places.index(seat) + 1

    def to_dict(self) -> dict[str, Any]:
        return {"places": list(self.places), "loser": self.loser, "capped": self.capped, "flush": self.flush}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameOutcome:
        return cls(tuple(d["places"]), d["loser"], d["capped"], d.get("flush"))
