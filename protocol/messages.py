"""Every message of the protocol, and dict <-> message validation.

The message classes are frozen dataclasses, one per message type: the client-to-server ones in
:mod:`protocol.client_messages`, the server-to-client ones in :mod:`protocol.server_messages`,
both made with the machinery of :mod:`protocol.message_base`; the shapes of their nested maps
(the view, events, summaries, results...) are the TypedDicts of :mod:`protocol.payloads`. This
module gathers them all (``from protocol.messages import State`` works for every class) and
holds the codec.

Each class has ``TYPE`` (its wire name, the ``type`` field), ``DIRECTION`` (``c2s``: client to
server, ``s2c``: server to client) and ``FIELDS`` (its :class:`~protocol.fields.FieldSpec`
tuple, in wire order). Fields are keyword-only. List fields accept any list or tuple and
are held as tuples (so equal messages compare equal); maps are held as dicts.

* :func:`decode_message` turns a decoded frame into a message, or raises
  :class:`~protocol.errors.RemoteProtocolError` (``UNKNOWN_TYPE`` or ``BAD_MESSAGE``, the text
  naming the field and what was expected; ``request_id`` set when the frame had a valid ``id``).
* :func:`encode_message` turns a message into a dict for the framing layer, checking it by the
  same specs; an invalid message raises :class:`~protocol.errors.LocalProtocolError`.

Every client-to-server request carries ``id`` (0..2**31-1, chosen by the client); the answer
(one of ``logged_in``, ``tables``, ``table_created``, ``joined``, ``watching``, ``ok``,
``record``, ``pong``, ``welcome`` or ``error``) echoes it. ``state``, ``table_update``,
``chat_message`` and ``game_over`` are pushed by the server and carry no id.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from .challenge_messages import Challenge, ChallengeOver, ChallengeStatus, GetChallenge
from .client_messages import (
    TURN_STATES_MAX_EVENTS,
    Act,
    AddBot,
    CancelTournament,
    Chat,
    CreateTable,
    CreateTournament,
    GetLadder,
    GetRecord,
    GetTournament,
    Hello,
    Join,
    LadderGames,
    LadderJoin,
    LadderLeave,
    Leave,
    ListTables,
    ListTournaments,
    Login,
    Logout,
    Ping,
    Register,
    RemoveBot,
    Resume,
    SetSeats,
    Start,
    StartTournament,
    StateMode,
    UnwatchLobby,
    Watch,
    WatchLobby,
)
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .examples import EXAMPLES
from .fields import Invalid, check
from .message_base import (
    C2S,
    MAX_ID,
    MAX_SEATS,
    MAX_WIRE_NAME,
    MESSAGE_CLASSES,
    PROTOCOL_VERSION,
    REGISTRY,
    S2C,
    SUPPORTED_VERSIONS,
    Direction,
    Message,
    wire_message,
)
from .replay_messages import GetReplay, Replay
from .server_messages import (
    ChatMessage,
    Error,
    GameOver,
    GoingAway,
    Joined,
    LadderHistory,
    LadderStandings,
    LobbyUpdate,
    LoggedIn,
    Ok,
    Pong,
    Presence,
    PresenceEvent,
    Record,
    Seated,
    State,
    TableCreated,
    Tables,
    TableUpdate,
    TournamentCreated,
    TournamentGame,
    TournamentInfo,
    TournamentOver,
    Tournaments,
    Watching,
    Welcome,
)

__all__ = [
    "C2S",
    "EXAMPLES",
    "MAX_ID",
    "MAX_SEATS",
    "MAX_WIRE_NAME",
    "MESSAGE_CLASSES",
    "PROTOCOL_VERSION",
    "S2C",
    "SUPPORTED_VERSIONS",
    "TURN_STATES_MAX_EVENTS",
    "Act",
    "AddBot",
    "CancelTournament",
    "Challenge",
    "ChallengeOver",
    "ChallengeStatus",
    "Chat",
    "ChatMessage",
    "CreateTable",
    "CreateTournament",
    "Direction",
    "Error",
    "GameOver",
    "GetChallenge",
    "GetLadder",
    "GetRecord",
    "GetReplay",
    "GetTournament",
    "GoingAway",
    "Hello",
    "Join",
    "Joined",
    "LadderGames",
    "LadderHistory",
    "LadderJoin",
    "LadderLeave",
    "LadderStandings",
    "Leave",
    "ListTables",
    "ListTournaments",
    "LobbyUpdate",
    "LoggedIn",
    "Login",
    "Logout",
    "Message",
    "Ok",
    "Ping",
    "Pong",
    "Presence",
    "PresenceEvent",
    "Record",
    "Register",
    "RemoveBot",
    "Replay",
    "Resume",
    "Seated",
    "SetSeats",
    "Start",
    "StartTournament",
    "State",
    "StateMode",
    "TableCreated",
    "TableUpdate",
    "Tables",
    "TournamentCreated",
    "TournamentGame",
    "TournamentInfo",
    "TournamentOver",
    "Tournaments",
    "UnwatchLobby",
    "Watch",
    "WatchLobby",
    "Watching",
    "Welcome",
    "decode_message",
    "encode_message",
    "error_from",
    "wire_message",
]


def _peek_id(d: Mapping[str, Any]) -> int | None:
    value = d.get("id")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
        return value
    return None


def decode_message(d: Mapping[str, Any], direction: Direction | str) -> Message:
    """Validate a decoded frame sent in ``direction`` and build its message.

    Raises ``RemoteProtocolError``: ``UNKNOWN_TYPE`` when ``type`` is missing, not a string,
    or not a message of that direction; ``BAD_MESSAGE`` for a missing, unknown, mistyped or
    out-of-range field. ``request_id`` is the frame's ``id`` when it was a valid id.
    """
    direction = Direction(direction)
    if not isinstance(d, Mapping):
        raise RemoteProtocolError(ErrorCode.BAD_FRAME, "a message must be a map")
    rid = _peek_id(d)
    kind = d.get("type")
    if not isinstance(kind, str):
        raise RemoteProtocolError(ErrorCode.UNKNOWN_TYPE, "message has no 'type' string", request_id=rid)
    cls = REGISTRY[direction].get(kind)
    if cls is None:
        if kind in C2S or kind in S2C:
            other = "server-to-client" if direction is Direction.C2S else "client-to-server"
            text = f"{kind!r} is a {other} message"
        else:
            text = f"unknown message type {kind[:40]!r}"
        raise RemoteProtocolError(ErrorCode.UNKNOWN_TYPE, text, request_id=rid)
    names = cls._FIELD_NAMES
    for key in d:
        if key != "type" and key not in names:
            raise RemoteProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"{kind}: unknown field {str(key)[:40]!r}",
                request_id=rid,
            )
    values: dict[str, Any] = {}
    for spec in cls.FIELDS:
        value = d.get(spec.name)
        if value is None:
            if spec.required:
                what = "missing field" if spec.name not in d else "null for field"
                raise RemoteProtocolError(
                    ErrorCode.BAD_MESSAGE,
                    f"{kind}: {what} {spec.name!r} ({spec.describe()})",
                    request_id=rid,
                )
            continue
        try:
            values[spec.name] = check(spec, value)
        except Invalid as exc:
            raise RemoteProtocolError(
                ErrorCode.BAD_MESSAGE, f"{kind}: field {spec.name!r} {exc}", request_id=rid
            ) from None
    return cls(**values)


def encode_message(msg: Message, *, validate: bool = True) -> dict[str, Any]:
    """The wire dict of ``msg``: ``type`` first, then its fields; None optionals omitted.

    Raises ``LocalProtocolError(BAD_MESSAGE)`` if a field breaks its spec (our bug).
    ``validate=False`` skips the field checks: for messages a sender builds on a hot path
    from data it trusts (the server's ``state``); the receiver validates anyway.
    """
    if not isinstance(msg, Message):
        raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"not a message: {type(msg).__name__}")
    out: dict[str, Any] = {"type": msg.TYPE}
    for spec in msg.FIELDS:
        value = getattr(msg, spec.name)
        if value is None:
            if spec.required:
                raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE}: required field {spec.name!r} is None")
            continue
        if validate:
            try:
                value = check(spec, value)
            except Invalid as exc:
                raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE}: field {spec.name!r} {exc}") from None
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Enum):
            value = value.value
        out[spec.name] = value
    return out


def error_from(exc: RemoteProtocolError) -> Error:
    """The ``error`` message that reports ``exc`` to the peer (id, code, text, extras)."""
    return Error(
        id=exc.request_id,
        code=exc.code,
        message=exc.message,
        retry_after=exc.retry_after,
        reason=exc.reason,
    )
