"""A seat at a table: who holds it, their clock and counters, and what was last sent to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.payloads import Event
from server.engine.actions import Action, parse_action
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
    # What this seat may do, as of the states sent to it: written by note_legal and note_sent
    # (the states' builder), read by is_stale and action_of (the table's act). The staleness
    # rule lives in those four methods and nowhere else.
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

    def note_legal(self, seq: int, legal: tuple[Action, ...], acted: bool) -> None:
        """State ``seq`` says this seat may do ``legal`` (``acted``: it follows the seat's own
        act). An act naming an older seq than such a state is stale (:meth:`is_stale`)."""
        if legal != self.legal or acted:
            self.legal = legal
            self.acted_seq = seq

    def note_sent(self, texts: list[str], legal: tuple[Action, ...]) -> None:
        """The seat's own part of a state went out with ``texts``, the texts of ``legal``."""
        self.sent = (texts, legal)

    def is_stale(self, seq: int, latest: int) -> bool:
        """Whether an act naming state ``seq`` is stale (the table's latest is ``latest``): it
        predates the last change of what this seat may do, or is from the future."""
        return not self.acted_seq <= seq <= latest

    def action_of(self, text: str) -> Action:
        """The action ``text`` names. Nearly always one of the legal texts last sent: its tuple
        is taken as is (the engine's fast path); anything else is parsed (the engine checks it
        in full either way). Raises ``IllegalAction`` for a text that names no action."""
        texts, tuples = self.sent
        return tuples[texts.index(text)] if text in texts else parse_action(text)
