"""What a tournament is: its participants and settings (:class:`Plan`), as the organiser saves
them in ``tournament.json`` and hands them to the workers that play its deal sets.

A plan fixes every game (numbers, deals, seatings: :func:`server.tournament.schedule.schedule`
of its participants, table size, games and master seed) and the seeds of the bundled bots, so
any server that plays game ``n`` of the plan plays the same game: that is what lets a
tournament be resumed, and be spread over worker processes or a Ray cluster.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from client.bots import bot_names
from client.programs import program_password
from server.tournament.schedule import GameSpec, schedule

__all__ = ["NAME_RE", "Entrant", "Plan", "parse_entrant", "unique_names"]


@dataclass
class Entrant:
    """A participant as the organiser knows it: ``kind`` is ``bundled`` (``bot`` says which),
    ``engine`` (``command``) or ``account``."""

    name: str
    kind: str
    bot: str | None = None
    command: str | None = None
    password: str = field(default_factory=program_password)


@dataclass
class Plan:
    """Everything a run needs; saved as ``tournament.json`` for ``--resume``."""

    entrants: list[Entrant]
    preset: str = "classic"
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 4
    games: int = 100
    schedule: str = "round-robin"
    hero: str | None = None
    permute: bool = False
    master_seed: int = 0
    action_seconds: float = 5.0
    concurrency: int = 2
    every: int = 50

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON values (passwords included); :meth:`from_dict` reads it back."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Plan:
        data = dict(data)
        data["entrants"] = [Entrant(**e) for e in data["entrants"]]
        return cls(**data)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        path.chmod(0o600)  # it holds the participants' passwords

    @classmethod
    def load(cls, path: Path) -> Plan:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    @property
    def games_per_deal(self) -> int:
        """Each deal is played once per rotation of the seats, or per seating with ``permute``."""
        return math.factorial(self.seats) if self.permute else self.seats

    @property
    def total_games(self) -> int:
        """The games the tournament plays: ``games`` rounded up to whole deals."""
        return -(-self.games // self.games_per_deal) * self.games_per_deal

    def game_specs(self) -> list[GameSpec]:
        """Every game, as the server's director schedules them (same function, same order of
        participants). Raises :class:`server.tournament.schedule.ScheduleError` when the plan
        cannot be played."""
        return schedule(
            self.names,
            table_size=self.seats,
            games=self.games,
            master_seed=self.master_seed,
            kind=self.schedule,
            hero=self.hero,
            permute=self.permute,
        )

    def meta(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("entrants", "every")} | {
            "participants": [
                {"name": e.name, "kind": e.kind, "bot": e.bot, "command": e.command} for e in self.entrants
            ]
        }


def parse_entrant(text: str) -> Entrant:
    """``greedy`` or ``me=greedy``: a bundled bot. Raises ValueError for an unknown bot."""
    name, _, bot = text.partition("=")
    bot = bot or name
    if bot not in bot_names():
        raise ValueError(
            f"unknown bundled bot {bot!r} (bundled: {', '.join(bot_names())}); "
            "use --engine NAME=COMMAND for a program, --account NAME for a bot account"
        )
    return Entrant(name, "bundled", bot=bot)


def unique_names(entrants: list[Entrant]) -> list[Entrant]:
    """Repeated names get -2, -3 ... (``greedy greedy`` plays two greedy bots)."""
    seen: dict[str, int] = {}
    for e in entrants:
        seen[e.name] = seen.get(e.name, 0) + 1
        if seen[e.name] > 1:
            e.name = f"{e.name}-{seen[e.name]}"
    return entrants


NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
