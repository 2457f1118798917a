"""The stages a checked bot plays: every preset, 2 to 6 seats, a forced disconnect, a short
clock, and the bundled bots as opponents.

Each stage is one tournament on the checker's private server: one deal played in every
rotation (the bot sits at every seat of the same cards), the bot against bundled bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.engine import PRESETS

__all__ = ["Stage", "gauntlet"]

#: Seconds per action in the ordinary stages: generous for a bot, short enough that a bot that
#: never answers is found out in seconds.
CLOCK = 3.0
#: The short clock stage's seconds per action.
SHORT_CLOCK = 1.0
#: The disconnect stage cuts the bot's connection when it is asked to act for this time.
CUT_AT = 6
#: The disconnect stage's clock: time to reconnect and resume without a timeout.
RESUME_CLOCK = 15.0


@dataclass(frozen=True)
class Stage:
    """One tournament of the gauntlet: ``preset`` at ``len(opponents) + 1`` seats against the
    bundled ``opponents``, ``seconds`` per action; ``cut_at``: cut the bot's connection when it is
    asked to act for the ``cut_at``-th time."""

    title: str
    preset: str
    opponents: tuple[str, ...]
    seconds: float = CLOCK
    cut_at: int | None = None

    @property
    def seats(self) -> int:
        return len(self.opponents) + 1


def _field(seats: int, index: int) -> tuple[str, ...]:
    """``seats - 1`` opponents, greedy and random alternating (greedy first on even stages)."""
    pair = ("greedy", "random") if index % 2 == 0 else ("random", "greedy")
    return tuple(pair[i % 2] for i in range(seats - 1))


def gauntlet(presets: Sequence[str] | None = None) -> list[Stage]:
    """The stages: one per preset (``presets``, default every preset of the engine) with the
    seat counts cycling through 2 to 6 within what each preset allows, then a forced disconnect
    and resume mid-game, a short clock at six seats, and a table of search bots. Raises
    ``ValueError`` for an unknown preset."""
    names = list(PRESETS) if presets is None else list(presets)
    unknown = [p for p in names if p not in PRESETS]
    if unknown:
        raise ValueError(f"unknown preset {unknown[0]!r}; known: {', '.join(PRESETS)}")
    stages = []
    for i, preset in enumerate(names):
        _, lo, hi, _ = PRESETS[preset]
        seats = max(lo, min(hi, 2 + i % 5))
        stages.append(Stage(f"{preset}, {seats} seats", preset, _field(seats, i)))
    stages.append(
        Stage(
            "classic, 4 seats, cut mid-game",
            "classic",
            _field(4, 0),
            seconds=RESUME_CLOCK,
            cut_at=CUT_AT,
        )
    )
    six = "six_players" if "six_players" in PRESETS else next(p for p, v in PRESETS.items() if v[2] >= 6)
    stages.append(Stage(f"{six}, 6 seats, {SHORT_CLOCK:g} s clock", six, _field(6, 1), seconds=SHORT_CLOCK))
    stages.append(Stage("classic, 3 seats, against search", "classic", ("search", "search")))
    return stages
