"""A seat at a table: who holds it, their clock and counters, and what was last sent to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.payloads import Event
from server.engine.actions import Action
from server.tables.coordination import SeatPart, Session


@dataclass
class Seat:
    name: str
    bot: bool
    guest: bool
    token_hash: bytes
    session: Session | None
    identity: str = ""
    """Who holds the seat (:mod:`server.login.identity`): a resume must come from the same identity."""
    away_since: float | None = None
    house: str | None = None
    """The bundled bot's kind when the server runs this player (it seats it again after a restart)."""
    stand_in: str | None = None
    """The bundled bot that plays for this absent player (the owner handed it the seat)."""
    stand_in_kind: str | None = None
    stand_in_hash: bytes | None = None
    """The hash of the stand-in's own seat token."""

    @property
    def person_here(self) -> bool:
        """A person (not a bot) is connected to this seat and plays it."""
        return self.session is not None and not self.bot and self.stand_in is None

    timeouts: int = 0
    illegal: int = 0
    """Actions refused as illegal (tournaments report them)."""
    drops: int = 0
    """Times this seat's connection went away."""
    bank: float = 0.0
    acted_seq: int = 0
    """Seq of the latest state that changed what this seat may do, or followed its own act."""
    legal: tuple[Action, ...] = ()
    # The seat's own part of the view (seat, hand, legal) built once and reused while neither
    # the hand nor the legal actions change (most states change neither).
    part_key: tuple[Any, ...] | None = None
    part: SeatPart | None = None
    sent: tuple[list[str], tuple[Action, ...]] = ([], ())
    """The legal actions last sent to this seat: their texts, and the tuples in the same order."""
    waiting: list[Event] = field(default_factory=list)
    """Events not yet sent to a seat whose connection asked for turn states (they go out, in
    order, with its next state); empty for any other seat."""
