"""The SDK's vocabulary besides the protocol's messages: the connection events that
:meth:`client.sdk.Client.messages` yields between the server's messages, the errors its
requests raise, and :class:`HeldSeat`.

A connection event is a frozen dataclass with a ``TYPE`` that is no wire type (see
:data:`PSEUDO_EVENTS`), so a log line can name any item by its ``TYPE``. Read an item as a
message is read: test its class (``isinstance(item, Disconnected)``, or ``match``) and read
its attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple, TypeAlias, TypedDict

from protocol.errors import FATAL
from protocol.messages import Error, Message

__all__ = [
    "PSEUDO_EVENTS",
    "ClientClosed",
    "Closed",
    "ConnectionEvent",
    "ConnectionLost",
    "Disconnected",
    "HeldSeat",
    "Item",
    "LostSeat",
    "Reconnected",
    "Reconnecting",
    "ResumedSeat",
    "ServerError",
]


class ServerError(Exception):
    """The server answered a request with ``error``.

    ``code`` is the wire code (a :class:`protocol.ErrorCode`, which compares equal to its
    string), ``message`` the text for people, ``reason`` the engine's code for
    ``ILLEGAL_ACTION``, ``retry_after`` the seconds to wait for ``RATE_LIMITED``, ``suggestion``
    a free name to offer instead for ``NAME_TAKEN``."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        reason: str | None = None,
        retry_after: float | None = None,
        request_id: int | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.request_id = code, message, request_id
        self.reason, self.retry_after, self.suggestion = reason, retry_after, suggestion

    @classmethod
    def of(cls, msg: Error) -> ServerError:
        """The error a request raises for the server's ``error`` answer ``msg``."""
        return cls(
            msg.code,
            msg.message,
            reason=msg.reason,
            retry_after=msg.retry_after,
            request_id=msg.id,
            suggestion=msg.suggestion,
        )

    @property
    def fatal(self) -> bool:
        """Whether the server closes the connection after this error."""
        return self.code in FATAL


class ConnectionLost(ConnectionError):
    """The connection dropped before the answer came, or there is no connection right now
    (the client is reconnecting). Whether the request was carried out is unknown."""


class ClientClosed(ConnectionLost):
    """The client was closed (by :meth:`Client.close`, or after reconnecting failed)."""


class HeldSeat(NamedTuple):
    """A seat this client holds at a table: its number and the secret token that takes it back
    (what :meth:`client.sdk.Client.join` and ``resume`` return, and ``Client.seats`` holds)."""

    seat: int
    token: str


class ResumedSeat(TypedDict):
    """A seat taken back after a reconnect."""

    table: int
    seat: int


class LostSeat(TypedDict):
    """A seat (or a watched table) the server would not give back after a reconnect."""

    table: int
    code: str
    message: str


@dataclass(frozen=True)
class Disconnected:
    """The connection dropped. ``code``: the fatal error the server sent first, if any;
    ``reconnecting``: whether the client tries again."""

    TYPE: ClassVar[str] = "disconnected"
    reason: str
    code: str | None
    reconnecting: bool


@dataclass(frozen=True)
class Reconnecting:
    """The client waits ``retry_in`` seconds before its next attempt and gives up
    ``gives_up_in`` seconds from now (a UI shows it as a countdown)."""

    TYPE: ClassVar[str] = "reconnecting"
    attempt: int
    retry_in: float
    gives_up_in: float


@dataclass(frozen=True)
class Reconnected:
    """Logged in again: ``resumed``, the seats taken back; ``watching``, the tables watched
    again; ``lost``, those refused. Requests flow again once the resumes are sent, so the
    snapshot ``state`` of a resumed seat may come, and be acted on, before this event."""

    TYPE: ClassVar[str] = "reconnected"
    attempt: int
    resumed: list[ResumedSeat] = field(default_factory=list)
    watching: list[int] = field(default_factory=list)
    lost: list[LostSeat] = field(default_factory=list)


@dataclass(frozen=True)
class Closed:
    """The client is closed for good: the last item of :meth:`Client.messages`."""

    TYPE: ClassVar[str] = "closed"
    reason: str


#: What :meth:`Client.messages` yields besides the server's messages.
ConnectionEvent: TypeAlias = Disconnected | Reconnecting | Reconnected | Closed
#: One item of :meth:`Client.messages`.
Item: TypeAlias = Message | ConnectionEvent

#: The ``type`` of the connection events (none is a wire type).
PSEUDO_EVENTS = tuple(cls.TYPE for cls in (Disconnected, Reconnecting, Reconnected, Closed))
