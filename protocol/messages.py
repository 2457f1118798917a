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
from .codec import decode_message, encode_message
from .errors import RemoteProtocolError
from .examples import EXAMPLES
from .message_base import (
    C2S,
    MAX_ID,
    MAX_SEATS,
    MAX_WIRE_NAME,
    MESSAGE_CLASSES,
    PROTOCOL_VERSION,
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


def error_from(exc: RemoteProtocolError) -> Error:
    """The ``error`` message that reports ``exc`` to the peer (id, code, text, extras)."""
    return Error(
        id=exc.request_id,
        code=exc.code,
        message=exc.message,
        retry_after=exc.retry_after,
        reason=exc.reason,
    )
