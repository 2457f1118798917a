"""Every message of the protocol as a frozen dataclass, and dict <-> message validation.

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

import dataclasses
from collections.abc import Mapping, Sequence
from enum import Enum, StrEnum
from typing import Any, ClassVar, TypeVar, cast, dataclass_transform

from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .fields import _CONTROL, INT64_MAX, FieldSpec, Invalid, Kind, check, fld, item
from .fields import SPEC_KEY as _SPEC_KEY

__all__ = [
    "C2S",
    "EXAMPLES",
    "MAX_ID",
    "MAX_SEATS",
    "MESSAGE_CLASSES",
    "NAME_PATTERN",
    "PROTOCOL_VERSION",
    "PresenceEvent",
    "S2C",
    "SUPPORTED_VERSIONS",
    "Direction",
    "Message",
    "decode_message",
    "encode_message",
    "error_from",
    "wire_message",
]

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)

#: Largest request, table and game id (ids fit a signed 32-bit integer in every language).
MAX_ID = 2**31 - 1
#: Seats are numbered 0..MAX_SEATS-1.
MAX_SEATS = 16
#: Player names: 1..24 ASCII letters, digits, "_" and "-".
NAME_PATTERN = "[A-Za-z0-9_-]+"


class Direction(StrEnum):
    """Who sends a message."""

    C2S = "c2s"
    S2C = "s2c"


class Message:
    """Base of every message class. Subclasses are made with :func:`wire_message`."""

    __slots__ = ()
    TYPE: ClassVar[str]
    DIRECTION: ClassVar[Direction]
    FIELDS: ClassVar[tuple[FieldSpec, ...]]
    _FIELD_NAMES: ClassVar[frozenset[str]]
    _LIST_FIELDS: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        # Hold lists as tuples, so that equal messages compare equal however they were built.
        for name in self._LIST_FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))


C2S: dict[str, type[Message]] = {}
S2C: dict[str, type[Message]] = {}
_REGISTRY: dict[Direction, dict[str, type[Message]]] = {Direction.C2S: C2S, Direction.S2C: S2C}
MESSAGE_CLASSES: list[type[Message]] = []

_M = TypeVar("_M", bound=Message)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(fld,))
def wire_message(cls: type[_M]) -> type[_M]:
    """Make ``cls`` a frozen, slotted, keyword-only dataclass and register it by TYPE."""
    made = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    specs = []
    for f in dataclasses.fields(cast(Any, made)):
        spec = f.metadata.get(_SPEC_KEY)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{f.name} must be declared with fld()")
        specs.append(dataclasses.replace(spec, name=f.name))
    made.FIELDS = tuple(specs)
    made._FIELD_NAMES = frozenset(s.name for s in specs)
    made._LIST_FIELDS = tuple(s.name for s in specs if s.kind is Kind.LIST)
    registry = _REGISTRY[made.DIRECTION]
    if made.TYPE in C2S or made.TYPE in S2C or made.TYPE == "type":
        raise TypeError(f"message type {made.TYPE!r} defined twice")
    registry[made.TYPE] = made
    MESSAGE_CLASSES.append(made)
    return made


# Field declarations shared by many messages.


def _request_id() -> Any:
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc="Request id chosen by the client; the answer echoes it.")


def _reply_id() -> Any:
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc="The id of the request this answers.")


def _table(doc: str = "Table id.") -> Any:
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc=doc)


def _password(doc: str) -> Any:
    return fld(Kind.STR, default=None, max_len=128, doc=doc)


# --------------------------------------------------------------------------- client to server


@wire_message
class Hello(Message):
    """First message of every connection: the protocol version the client speaks."""

    TYPE = "hello"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    version: int = fld(Kind.INT, lo=1, hi=1000, doc="Protocol version; this server speaks 1.")
    client: str | None = fld(Kind.STR, default=None, max_len=64, plain=True, doc="Client name and version, for logs.")


@wire_message
class Login(Message):
    """Log in as an account (name + password), a new guest, or a bot."""

    TYPE = "login"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=24, pattern=NAME_PATTERN, doc="Player name (ASCII).")
    password: str | None = _password("Account password; omitted for guests.")
    guest: bool = fld(Kind.BOOL, default=False, doc="Play as a guest under this name.")
    bot: bool = fld(Kind.BOOL, default=False, doc="This client is a program, not a person.")
    server_password: str | None = _password("The server's own password, when welcome.password_required is true.")
    token: str | None = fld(
        Kind.STR,
        default=None,
        max_len=128,
        doc="A seat token held by this name: the login is then not delayed by the failed-login"
        " throttle (LOGIN_THROTTLED), so a stranger's guesses never keep a player from a seat.",
    )


@wire_message
class ListTables(Message):
    """Ask for the open tables; answered by ``tables``."""

    TYPE = "list_tables"
    DIRECTION = Direction.C2S
    id: int = _request_id()


@wire_message
class CreateTable(Message):
    """Open a new table with a rules preset and options; answered by ``table_created``."""

    TYPE = "create_table"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=40, plain=True, doc="Table name shown in lists.")
    preset: str = fld(Kind.STR, min_len=1, max_len=32, plain=True, doc="Rules preset, e.g. classic.")
    options: dict[str, Any] | None = fld(Kind.MAP, default=None, max_len=64, deep=True, doc="Rule option overrides.")
    seats: int = fld(Kind.INT, lo=2, hi=MAX_SEATS, doc="Number of seats.")
    password: str | None = _password("Password needed to join or watch.")
    action_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0.5, hi=3600, doc="Time per action, in seconds.")
    bank_seconds: float | None = fld(
        Kind.FLOAT, default=None, lo=0, hi=36000, doc="Extra time bank per seat, in seconds."
    )
    seed: int | None = fld(Kind.INT, default=None, lo=0, hi=INT64_MAX, doc="Shuffle seed, for reproducible games.")
    deck: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=400,
        item=item(Kind.STR, min_len=1, max_len=3),
        doc="Explicit deck order, top card first (e.g. 7h, Td, Xr).",
    )


@wire_message
class Join(Message):
    """Take a seat at a table; answered by ``joined``."""

    TYPE = "join"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    seat: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Wanted seat; omitted: any free seat.")
    password: str | None = _password("The table's password, if it has one.")


@wire_message
class Leave(Message):
    """Leave a table (as player or watcher); answered by ``ok``."""

    TYPE = "leave"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()


@wire_message
class Watch(Message):
    """Watch a table as a spectator; answered by ``watching``."""

    TYPE = "watch"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    password: str | None = _password("The table's password, if it has one.")


@wire_message
class Start(Message):
    """Start the game at a table (its creator only); answered by ``ok``."""

    TYPE = "start"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()


@wire_message
class AddBot(Message):
    """Seat one of the server's bundled bots at a free seat (the table's owner only, before a
    game starts); answered by ``ok``. The bot runs in the server process and plays through the
    same protocol as any client; it is marked as a bot."""

    TYPE = "add_bot"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    bot: str = fld(Kind.STR, min_len=1, max_len=24, plain=True, doc="Bundled bot: random, greedy or search.")
    seat: int | None = fld(
        Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Wanted seat; omitted: the first free seat."
    )


@wire_message
class Act(Message):
    """Play an action, in the engine's text form (``play 7h 7d``, ``take``, ``ready``...)."""

    TYPE = "act"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    seq: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="The seq of the latest state the client has seen.")
    action: str = fld(Kind.STR, min_len=1, max_len=200, plain=True, doc="The action text.")


@wire_message
class Chat(Message):
    """Say something at a table; answered by ``ok``, relayed as ``chat_message``."""

    TYPE = "chat"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    text: str = fld(Kind.STR, min_len=1, max_len=280, plain=True, doc="One line of text.")


@wire_message
class Resume(Message):
    """Take back a seat after reconnecting, with the token from ``joined`` (a registered
    account, logged in with its password, may leave the token out)."""

    TYPE = "resume"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    table: int = _table()
    token: str | None = fld(
        Kind.STR,
        default=None,
        min_len=1,
        max_len=128,
        doc="The token from joined; may be omitted by a registered (non-guest) account.",
    )


@wire_message
class CreateTournament(Message):
    """Open a tournament of bots; answered by ``tournament_created``. Its creator is the
    organiser: it starts it and receives ``tournament_game`` for every finished game."""

    TYPE = "create_tournament"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=40, plain=True, doc="Tournament name.")
    preset: str = fld(Kind.STR, min_len=1, max_len=32, plain=True, doc="Rules preset, e.g. classic.")
    options: dict[str, Any] | None = fld(Kind.MAP, default=None, max_len=64, deep=True, doc="Rule option overrides.")
    seats: int = fld(Kind.INT, lo=2, hi=MAX_SEATS, doc="Seats per table.")
    games: int = fld(Kind.INT, lo=1, hi=1_000_000, doc="Number of games (rounded up to whole deals).")
    schedule: str = fld(
        Kind.STR,
        default="round-robin",
        max_len=16,
        plain=True,
        doc="round-robin (every group of participants) or gauntlet (hero against the field).",
    )
    hero: str | None = fld(Kind.STR, default=None, max_len=24, pattern=NAME_PATTERN, doc="The gauntlet's hero.")
    permute: bool = fld(Kind.BOOL, default=False, doc="Play every seating of each deal, not only its rotations.")
    master_seed: int | None = fld(
        Kind.INT,
        default=None,
        lo=0,
        hi=INT64_MAX,
        doc="Seed of every deal; omitted: a random one (shown in tournament info).",
    )
    action_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0.05, hi=3600, doc="Time per action, seconds.")
    bank_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0, hi=36000, doc="Time bank per seat, seconds.")
    concurrency: int = fld(Kind.INT, default=1, lo=1, hi=256, doc="Tables played at once.")
    participants: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=64,
        item=item(Kind.STR, min_len=1, max_len=24, pattern=NAME_PATTERN),
        doc="Accounts that will register (and the bundled bots' names); omitted: any bot account may register.",
    )
    bots: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=64,
        item=item(Kind.STR, min_len=1, max_len=24, pattern=NAME_PATTERN),
        doc="Bundled bots the server runs as participants (random, greedy, search); repeats get names like greedy-2.",
    )
    done: Sequence[int] | None = fld(
        Kind.LIST,
        default=None,
        max_len=1_000_000,
        item=item(Kind.INT, lo=0, hi=INT64_MAX),
        doc="Game numbers already played (resuming an interrupted tournament): skipped.",
    )


@wire_message
class Register(Message):
    """Enter a tournament as a participant (a bot account, or again after a reconnect: your
    seats in its running games come back); answered by ``ok``."""

    TYPE = "register"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class StartTournament(Message):
    """Start a tournament (its organiser only); answered by ``ok``."""

    TYPE = "start_tournament"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class GetTournament(Message):
    """Ask for a tournament's settings, progress and standings; answered by ``tournament``."""

    TYPE = "get_tournament"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class ListTournaments(Message):
    """Ask for every tournament on the server; answered by ``tournaments``."""

    TYPE = "list_tournaments"
    DIRECTION = Direction.C2S
    id: int = _request_id()


@wire_message
class GetRecord(Message):
    """Ask for the record of a finished game; answered by ``record``."""

    TYPE = "get_record"
    DIRECTION = Direction.C2S
    id: int = _request_id()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id from state or game_over.")


@wire_message
class Ping(Message):
    """Keep the connection alive; answered by ``pong``."""

    TYPE = "ping"
    DIRECTION = Direction.C2S
    id: int = _request_id()


# --------------------------------------------------------------------------- server to client


@wire_message
class Welcome(Message):
    """Answer to ``hello``: the handshake is complete."""

    TYPE = "welcome"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    version: int = fld(Kind.INT, lo=1, hi=1000, doc="Protocol version in use.")
    server: str = fld(Kind.STR, doc="Server name and version.")
    limits: dict[str, Any] = fld(Kind.MAP, doc="The server's limits (frame sizes, timeouts...).")
    capabilities: Sequence[str] = fld(Kind.LIST, item=item(Kind.STR), doc="Optional features this server offers.")
    password_required: bool = fld(Kind.BOOL, doc="Whether login needs server_password.")


@wire_message
class LoggedIn(Message):
    """Answer to ``login``."""

    TYPE = "logged_in"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    name: str = fld(Kind.STR, doc="The name now in use.")
    guest: bool = fld(Kind.BOOL, doc="Logged in as a guest.")
    bot: bool = fld(Kind.BOOL, doc="Logged in as a bot.")


@wire_message
class Tables(Message):
    """Answer to ``list_tables``: one summary map per open table."""

    TYPE = "tables"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    tables: Sequence[dict[str, Any]] = fld(Kind.LIST, item=item(Kind.MAP), doc="Table summaries.")


@wire_message
class TableCreated(Message):
    """Answer to ``create_table``. The creator is not seated: it joins like everyone else."""

    TYPE = "table_created"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    table: int = _table("Id of the new table.")


@wire_message
class Joined(Message):
    """Answer to ``join`` or ``resume``: the seat, and the token that takes it back."""

    TYPE = "joined"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    table: int = _table()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="Your seat.")
    token: str = fld(Kind.STR, doc="Secret for resume after a reconnect; keep it.")


@wire_message
class Watching(Message):
    """Answer to ``watch``."""

    TYPE = "watching"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    table: int = _table()


@wire_message
class Ok(Message):
    """Answer to a request that succeeded and has nothing else to say."""

    TYPE = "ok"
    DIRECTION = Direction.S2C
    id: int = _reply_id()


@wire_message
class Error(Message):
    """A request failed (``id`` set) or the connection has a problem (no ``id``)."""

    TYPE = "error"
    DIRECTION = Direction.S2C
    id: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_ID, doc="The failed request's id, if known.")
    code: ErrorCode = fld(Kind.STR, enum=ErrorCode, doc="Stable error code.")
    message: str = fld(Kind.STR, doc="Explanation for people.")
    retry_after: float | None = fld(
        Kind.FLOAT,
        default=None,
        lo=0,
        doc="RATE_LIMITED, LOGIN_THROTTLED, STORAGE_FAILED: seconds to wait before retrying.",
    )
    reason: str | None = fld(Kind.STR, default=None, max_len=64, doc="ILLEGAL_ACTION: the engine's code.")
    table: int | None = fld(
        Kind.INT,
        default=None,
        lo=0,
        hi=MAX_ID,
        doc="The table it is about, when it answers no request (a seat taken over).",
    )


@wire_message
class State(Message):
    """The table's game state as this connection may see it, after every change."""

    TYPE = "state"
    DIRECTION = Direction.S2C
    table: int = _table()
    seq: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="Increases with every change; echo it in act.")
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id (for get_record).")
    view: dict[str, Any] = fld(Kind.MAP, doc="The game as this seat (or a watcher) sees it.")
    events: Sequence[dict[str, Any]] = fld(
        Kind.LIST, item=item(Kind.MAP), doc="What happened since the previous state."
    )
    deadline: float | None = fld(Kind.FLOAT, default=None, lo=0, doc="Seconds left for this seat to act, if it must.")


@wire_message
class TableUpdate(Message):
    """A table's summary changed (players, status); sent to those at the table."""

    TYPE = "table_update"
    DIRECTION = Direction.S2C
    table: int = _table()
    summary: dict[str, Any] = fld(Kind.MAP, doc="Same shape as the items of tables.")


@wire_message
class ChatMessage(Message):
    """A chat line at a table (``seat`` omitted for watchers and the server)."""

    TYPE = "chat_message"
    DIRECTION = Direction.S2C
    table: int = _table()
    seat: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Speaker's seat, if seated.")
    name: str = fld(Kind.STR, doc="Speaker's name.")
    text: str = fld(Kind.STR, doc="The text.")


@wire_message
class GameOver(Message):
    """A game ended: its result and the table's running tally."""

    TYPE = "game_over"
    DIRECTION = Direction.S2C
    table: int = _table()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id (for get_record).")
    result: dict[str, Any] = fld(Kind.MAP, doc="Places, loser, and whether the move cap ended it.")
    tally: dict[str, Any] = fld(Kind.MAP, doc="Places and losses over the games at this table.")


@wire_message
class Record(Message):
    """Answer to ``get_record``: rules, deck order and actions, enough to replay the game."""

    TYPE = "record"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    record: dict[str, Any] = fld(Kind.MAP, doc="The game record.")


@wire_message
class TournamentCreated(Message):
    """Answer to ``create_tournament``."""

    TYPE = "tournament_created"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="The new tournament's id.")


@wire_message
class TournamentInfo(Message):
    """Answer to ``get_tournament``: settings, participants, progress, standings."""

    TYPE = "tournament"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    info: dict[str, Any] = fld(Kind.MAP, doc="The tournament (see Tournaments).")


@wire_message
class Tournaments(Message):
    """Answer to ``list_tournaments``."""

    TYPE = "tournaments"
    DIRECTION = Direction.S2C
    id: int = _reply_id()
    tournaments: Sequence[dict[str, Any]] = fld(Kind.LIST, item=item(Kind.MAP), doc="Tournament infos.")


@wire_message
class Seated(Message):
    """Pushed to a registered participant: the tournament put you at a table. States for it
    follow; ``token`` takes the seat back like ``joined``'s."""

    TYPE = "seated"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    game: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="The game's number in the tournament.")
    table: int = _table()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="Your seat.")
    token: str = fld(Kind.STR, doc="Secret for resume after a reconnect.")


@wire_message
class TournamentGame(Message):
    """Pushed to the organiser when a tournament game ends: who sat where and how it went."""

    TYPE = "tournament_game"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    result: dict[str, Any] = fld(
        Kind.MAP,
        doc="number, deal, seed, rotation, seats, places, capped, "
        "timeouts, illegal, disconnects, actions, server_game.",
    )


@wire_message
class TournamentOver(Message):
    """Pushed to the organiser and the participants when the last game of a tournament ends."""

    TYPE = "tournament_over"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    info: dict[str, Any] = fld(Kind.MAP, doc="The final tournament info (as in tournament).")


class PresenceEvent(StrEnum):
    """What happened to a seat's player (the ``event`` of ``presence``)."""

    DROPPED = "dropped"
    RETURNED = "returned"
    REPLACED = "replaced"


@wire_message
class Presence(Message):
    """Pushed to everyone at a table, spectators included: a seated player's connection dropped,
    the player came back, or the owner handed the absent player's seat to a bot."""

    TYPE = "presence"
    DIRECTION = Direction.S2C
    table: int = _table()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="The seat.")
    name: str = fld(Kind.STR, doc="The seat's player.")
    event: PresenceEvent = fld(Kind.STR, enum=PresenceEvent, doc="dropped, returned or replaced.")
    bot: str | None = fld(
        Kind.STR,
        default=None,
        doc="replaced: the bot now playing the seat; returned: the bot that gave it back.",
    )


@wire_message
class GoingAway(Message):
    """Pushed to every connection when the server stops (Ctrl-C, SIGTERM): it takes no more
    actions, has saved everything it acknowledged, and closes the connection after this."""

    TYPE = "going_away"
    DIRECTION = Direction.S2C
    reason: str = fld(Kind.STR, doc="Why, for people.")
    returning: bool = fld(
        Kind.BOOL,
        doc="Tables and games are saved and come back when the server is started again on the"
        " same database: keep reconnecting (with back-off) to take your seats back.",
    )


@wire_message
class Pong(Message):
    """Answer to ``ping``."""

    TYPE = "pong"
    DIRECTION = Direction.S2C
    id: int = _reply_id()


# --------------------------------------------------------------------------- dict <-> message


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
    if type(d) is dict and d.get("type") == "act" and direction == "c2s":
        fast = _fast_act(d)
        if fast is not None:
            return fast
    direction = Direction(direction)
    if not isinstance(d, Mapping):
        raise RemoteProtocolError(ErrorCode.BAD_FRAME, "a message must be a map")
    rid = _peek_id(d)
    kind = d.get("type")
    if not isinstance(kind, str):
        raise RemoteProtocolError(ErrorCode.UNKNOWN_TYPE, "message has no 'type' string", request_id=rid)
    cls = _REGISTRY[direction].get(kind)
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


_ACT_KEYS = frozenset({"type", "id", "table", "seq", "action"})


def _fast_act(d: dict[str, Any]) -> Act | None:
    """A well-formed ``act`` (the message a busy server receives most), checked inline to the
    same specs; None for anything unusual, which the generic path then decides and explains."""
    rid, table, seq, action = d.get("id"), d.get("table"), d.get("seq"), d.get("action")
    if (
        len(d) == 5
        and type(rid) is int
        and type(table) is int
        and type(seq) is int
        and type(action) is str
        and 0 <= rid <= MAX_ID
        and 0 <= table <= MAX_ID
        and 0 <= seq <= INT64_MAX
        and 1 <= len(action) <= 200
        and not _CONTROL.search(action)
        and d.keys() == _ACT_KEYS
    ):
        return Act(id=rid, table=table, seq=seq, action=action)
    return None


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


# --------------------------------------------------------------------------- examples

_VIEW_EXAMPLE: dict[str, Any] = {
    "seat": 0,
    "phase": "play",
    "preset": "classic",
    "dealer": 1,
    "turn": 0,
    "direction": 1,
    "players": [
        {
            "seat": 0,
            "hand_count": 3,
            "face_up": [["4s"], ["3d"], ["As"]],
            "face_down": [True, True, True],
            "out": False,
            "place": None,
            "ready": True,
        },
        {
            "seat": 1,
            "hand_count": 3,
            "face_up": [["6s"], ["Ts"], ["9d"]],
            "face_down": [True, True, True],
            "out": False,
            "place": None,
            "ready": True,
        },
    ],
    "hand": ["5s", "7d", "Kh"],
    "pile": ["6h"],
    "stock_count": 33,
    "legal": ["play 7d", "play Kh", "take"],
}

#: One canonical instance per message type, keyed by TYPE (for the document and the tests).
_SUMMARY_EXAMPLE: dict[str, Any] = {
    "table": 7,
    "name": "Friday night",
    "owner": "alice",
    "preset": "classic",
    "options": {},
    "seats": [
        {"name": "alice", "bot": False, "guest": False, "away": False, "timeouts": 0, "stand_in": None},
        {"name": "greedy-1", "bot": True, "guest": True, "away": False, "timeouts": 0, "stand_in": None},
        None,
    ],
    "free": 1,
    "bots": 1,
    "spectators": 0,
    "status": "waiting",
    "games_played": 0,
    "password": False,
    "action_seconds": 60.0,
    "bank_seconds": 0.0,
    "fixed_seed": None,
    "fixed_deck": False,
}

_TOURNAMENT_EXAMPLE: dict[str, Any] = {
    "tournament": 3,
    "name": "Friday bots",
    "organiser": "olga",
    "status": "running",
    "preset": "classic",
    "options": {},
    "seats": 4,
    "games": 400,
    "schedule": "round-robin",
    "hero": None,
    "permute": False,
    "master_seed": 12345,
    "concurrency": 4,
    "action_seconds": 10.0,
    "participants": [
        {"name": "greedy", "bot": True, "house": True, "connected": True},
        {"name": "mybot", "bot": True, "house": False, "connected": True},
    ],
    "games_total": 400,
    "games_finished": 8,
    "tables": [21, 22, 23, 24],
    "standings": [
        {
            "rank": 1,
            "name": "mybot",
            "rating": 27.1,
            "rating_95": 3.2,
            "sigma": 1.63,
            "games": 8,
            "mean_place": 2.1,
            "mean_place_95": 0.7,
            "loss_rate": 0.125,
            "loss_rate_95": 0.229,
            "firsts": 3,
            "timeouts": 0,
            "illegal": 0,
            "disconnects": 0,
        }
    ],
    "head_to_head": {"mybot": {"greedy": -0.5}, "greedy": {"mybot": 0.5}},
}
_TOURNAMENT_GAME_EXAMPLE: dict[str, Any] = {
    "number": 7,
    "deal": 1,
    "seed": 8312001933361812121,
    "rotation": 3,
    "seats": ["greedy", "mybot", "random", "greedy-2"],
    "places": [1, 0, 3, 2],
    "capped": False,
    "timeouts": [0, 0, 0, 0],
    "illegal": [0, 0, 0, 0],
    "disconnects": [0, 0, 0, 0],
    "actions": 112,
    "server_game": 57,
}

EXAMPLES: dict[str, Message] = {
    "hello": Hello(id=1, version=1, client="shithead-cli 0.1"),
    "login": Login(id=2, name="alice", password="correct horse"),
    "list_tables": ListTables(id=3),
    "add_bot": AddBot(id=9, table=7, bot="greedy"),
    "create_table": CreateTable(
        id=4,
        name="Friday night",
        preset="classic",
        options={"goal": "winner"},
        seats=4,
        action_seconds=30.0,
        bank_seconds=120.0,
    ),
    "join": Join(id=5, table=7, seat=0),
    "leave": Leave(id=6, table=7),
    "watch": Watch(id=7, table=7),
    "start": Start(id=8, table=7),
    "act": Act(id=9, table=7, seq=12, action="play 7d"),
    "chat": Chat(id=10, table=7, text="good luck!"),
    "resume": Resume(id=11, table=7, token="q8N3v0cX1kTz"),
    "get_record": GetRecord(id=12, game=42),
    "create_tournament": CreateTournament(
        id=14,
        name="Friday bots",
        preset="classic",
        seats=4,
        games=400,
        concurrency=4,
        master_seed=12345,
        participants=("mybot",),
        bots=("greedy", "greedy", "random"),
    ),
    "register": Register(id=15, tournament=3),
    "start_tournament": StartTournament(id=16, tournament=3),
    "get_tournament": GetTournament(id=17, tournament=3),
    "list_tournaments": ListTournaments(id=18),
    "tournament_created": TournamentCreated(id=14, tournament=3),
    "tournament": TournamentInfo(id=17, info=_TOURNAMENT_EXAMPLE),
    "tournaments": Tournaments(id=18, tournaments=(_TOURNAMENT_EXAMPLE,)),
    "seated": Seated(tournament=3, game=7, table=24, seat=1, token="q8N3v0cX1kTz"),
    "tournament_game": TournamentGame(tournament=3, result=_TOURNAMENT_GAME_EXAMPLE),
    "tournament_over": TournamentOver(tournament=3, info=_TOURNAMENT_EXAMPLE),
    "ping": Ping(id=13),
    "welcome": Welcome(
        id=1,
        version=1,
        server="shithead-server 0.1",
        limits={
            "max_frame_in": 4096,
            "max_frame_in_before_login": 1024,
            "max_frame_out": 1048576,
            "rate_per_second": 100.0,
            "rate_burst": 200,
            "handshake_timeout": 10.0,
            "idle_timeout": 300.0,
            "reconnect_grace": 120.0,
            "restart_grace": 30.0,
            "max_output_buffer": 4194304,
        },
        capabilities=("json_lines", "resume", "clocks", "spectators", "records"),
        password_required=False,
    ),
    "logged_in": LoggedIn(id=2, name="alice", guest=False, bot=False),
    "tables": Tables(
        id=3,
        tables=(_SUMMARY_EXAMPLE,),
    ),
    "table_created": TableCreated(id=4, table=7),
    "joined": Joined(id=5, table=7, seat=0, token="q8N3v0cX1kTz"),
    "watching": Watching(id=7, table=7),
    "ok": Ok(id=8),
    "error": Error(
        id=9,
        code=ErrorCode.ILLEGAL_ACTION,
        message="7d does not beat the 8 on the pile",
        reason="DOES_NOT_BEAT",
    ),
    "state": State(
        table=7,
        seq=12,
        game=42,
        view=_VIEW_EXAMPLE,
        events=({"kind": "played", "seat": 1, "cards": ["6h"], "source": "hand"},),
        deadline=29.5,
    ),
    "table_update": TableUpdate(table=7, summary=_SUMMARY_EXAMPLE),
    "chat_message": ChatMessage(table=7, seat=1, name="bob", text="good luck!"),
    "game_over": GameOver(
        table=7,
        game=42,
        result={
            "places": [0, 2, 1],
            "loser": 1,
            "capped": False,
            "flush": None,
            "players": ["alice", "greedy-1", "carol"],
        },
        tally={
            "places": [[1, 2, 0], [0, 0, 3], [2, 1, 0]],
            "losses": [0, 3, 0],
            "capped": 0,
            "players": ["alice", "greedy-1", "carol"],
            "timeouts": [0, 0, 1],
        },
    ),
    "record": Record(
        id=12,
        record={
            "id": 42,
            "table_name": "Friday night",
            "preset": "classic",
            "players": ["alice", "bob"],
            "started": 1795000000.0,
            "ended": 1795000120.5,
            "result": {"places": [1, 0], "loser": 0, "capped": False, "flush": None},
            "record": {
                "preset": "classic",
                "options": {},
                "seats": 2,
                "dealer": 1,
                "deck": ["7d", "5h", "9c", "4s"],
                "actions": [[0, "ready"], [1, "ready"]],
                "outcome": {"places": [1, 0], "loser": 0, "capped": False, "flush": None},
                "players": ["alice", "bob"],
                "times": [1.5, 2.25],
            },
        },
    ),
    "pong": Pong(id=13),
    "presence": Presence(table=7, seat=2, name="carol", event=PresenceEvent.REPLACED, bot="greedy-4"),
    "going_away": GoingAway(reason="the server is stopping (SIGTERM)", returning=True),
}

assert set(EXAMPLES) == set(C2S) | set(S2C), "every message type needs one example"
