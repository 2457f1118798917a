"""The vocabulary that the pure coordinator of a table (:mod:`server.tables.table`) shares with
the request modules (the lobby, tournaments, the ladder) and the asyncio shell: the session it
sees, refusals, broadcast states and finished games (its outbox is
:class:`server.tables.table.Outbox`).

Nothing here encodes, awaits or reads a clock. A broadcast ``state`` is described once per
change (:class:`StateChange`) and once per recipient (:class:`StateOut`); the shell
(:mod:`server.shell.broadcast`) encodes the change's shared part once for all recipients, and a
:class:`SeatPart` is encoded in the part itself (a :class:`protocol.splice.PackedEntries`,
which encodes nothing until the shell first sends it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, cast

from protocol.errors import ErrorCode
from protocol.messages import State
from protocol.payloads import View
from protocol.splice import PackedEntries, SharedEncoding


class Session(Protocol):
    """What a coordinator knows of a connection."""

    name: str
    identity: str
    """Who this is (:mod:`server.login.identity`); permissions compare this, never ``name``."""
    address: str
    """The peer's IP address (quotas count per address too: :mod:`server.tables.quotas`)."""
    bot: bool
    guest: bool
    house: str | None
    """The kind of bundled bot (``greedy``...) when the server itself runs this player."""
    turn_states: bool
    """Its seats get a state only when they must act, at a game's first and last state, or when
    ``TURN_STATES_MAX_EVENTS`` events wait (``hello.states: turns``)."""


class TableError(Exception):
    """A refused request: a wire error code and a message (never a hidden card)."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        reason: str | None = None,
        retry_after: float | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.retry_after = retry_after
        self.suggestion = suggestion


class PlayerEntry:
    """One player's entry in the view's ``players``, built once and sent in every state until
    it changes (``key``: what it was built from; the builder builds it again when that differs)."""

    __slots__ = ("key", "value")

    def __init__(self, key: object, value: dict[str, Any]) -> None:
        self.key = key
        self.value = value


class SeatPart(PackedEntries):
    """One recipient's own entries of the view (``seat``, ``hand``, ``legal``: the map in
    ``source``), built once and sent until they change. Building it encodes nothing: the
    shell's :mod:`protocol.splice` encodes it the first time it is sent and keeps the bytes."""

    __slots__ = ()


class StateChange:
    """The part of one change's ``state`` broadcast that every recipient shares: the header
    (``type``, ``table``, ``seq``, ``game``, ``events``), the public view and the players.

    ``wire`` is the shell's: the shared encoding, made once for all recipients."""

    __slots__ = ("common", "players", "public", "wire")

    def __init__(self, common: dict[str, Any], public: dict[str, Any], players: list[PlayerEntry]) -> None:
        self.common = common
        self.public = public
        self.players = players
        self.wire: SharedEncoding | None = None

    def view(self) -> dict[str, Any]:
        """The shared part of the view as plain values."""
        return {**self.public, "players": [p.value for p in self.players]}


class StateOut:
    """One seat's (or a watcher's) ``state`` in a broadcast: the change's shared part, this
    recipient's top-level entries (``own``: its deadline) and its part of the view (``part``).
    :meth:`message` gives the same content as a :class:`~protocol.messages.State`."""

    __slots__ = ("change", "own", "part")
    TYPE = State.TYPE

    def __init__(self, change: StateChange, own: dict[str, Any], part: SeatPart) -> None:
        self.change = change
        self.own = own
        self.part = part

    def message(self) -> State:
        c = self.change.common
        return State(
            table=c["table"],
            seq=c["seq"],
            game=c["game"],
            events=c["events"],
            view=cast(View, {**self.change.view(), **self.part.source}),
            deadline=self.own.get("deadline"),
        )


@dataclass
class FinishedGame:
    """A game to store: the shell writes it to SQLite."""

    game_id: int
    table_name: str
    preset: str
    players: list[str]
    record: dict[str, Any]
    result: dict[str, Any]
    started: float
    ended: float
    started_wall: float | None = None
    """When it was dealt (wall clock), if known better than from ``started`` (a restored game)."""
