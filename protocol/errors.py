"""Wire error codes and the exceptions of the protocol layer.

Whose fault (the h11 convention):

* :class:`RemoteProtocolError`: the *peer* sent something bad. It carries a stable wire
  :class:`ErrorCode`; the server answers it with an ``error`` message of that code, and closes
  the connection afterwards when :attr:`ProtocolError.fatal` is true.
* :class:`LocalProtocolError`: *we* tried to send something invalid (or used the connection
  after it closed). That is a bug in our own code: nothing has been written, the connection
  state is unchanged, and nothing should go on the wire about it except, at most, a generic
  ``INTERNAL_ERROR``.

The codes and their help texts are data (:data:`ERROR_HELP`, :data:`FATAL`) so that
``docs/PROTOCOL.md`` can be generated from them and checked against them. Codes are part of the
wire protocol: never rename one. New codes may be added within a version: clients handle a code
they do not know as "the request failed" (PROTOCOL.md §12).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "ERROR_HELP",
    "FATAL",
    "WRONG_SERVER_PASSWORD",
    "ErrorCode",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
]

#: The ``reason`` of an ``AUTH_FAILED`` that refused the server password, not the login's own
#: credentials: a client asks its user for the server password again and keeps its login token.
WRONG_SERVER_PASSWORD = "SERVER_PASSWORD"


class ErrorCode(StrEnum):
    """Stable wire error codes (the ``code`` field of an ``error`` message)."""

    # Framing and validation (all fatal).
    BAD_FRAME = "BAD_FRAME"
    FRAME_TOO_LARGE = "FRAME_TOO_LARGE"
    BAD_MESSAGE = "BAD_MESSAGE"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    # Handshake and login.
    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    HANDSHAKE_REQUIRED = "HANDSHAKE_REQUIRED"
    NOT_LOGGED_IN = "NOT_LOGGED_IN"
    ALREADY_LOGGED_IN = "ALREADY_LOGGED_IN"
    AUTH_FAILED = "AUTH_FAILED"
    SERVER_PASSWORD_REQUIRED = "SERVER_PASSWORD_REQUIRED"
    GUESTS_NOT_ALLOWED = "GUESTS_NOT_ALLOWED"
    LOGIN_THROTTLED = "LOGIN_THROTTLED"
    BAD_NAME = "BAD_NAME"
    NAME_TAKEN = "NAME_TAKEN"
    VIEWER_READ_ONLY = "VIEWER_READ_ONLY"
    # Connection limits.
    RATE_LIMITED = "RATE_LIMITED"
    TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS"
    IDLE_TIMEOUT = "IDLE_TIMEOUT"
    HANDSHAKE_TIMEOUT = "HANDSHAKE_TIMEOUT"
    SLOW_READER = "SLOW_READER"
    # Tables and games.
    UNKNOWN_TABLE = "UNKNOWN_TABLE"
    TABLE_FULL = "TABLE_FULL"
    WRONG_PASSWORD = "WRONG_PASSWORD"
    SEAT_TAKEN = "SEAT_TAKEN"
    NOT_SEATED = "NOT_SEATED"
    NOT_AT_TABLE = "NOT_AT_TABLE"
    ALREADY_STARTED = "ALREADY_STARTED"
    NOT_STARTED = "NOT_STARTED"
    NOT_ENOUGH_PLAYERS = "NOT_ENOUGH_PLAYERS"
    NOT_OWNER = "NOT_OWNER"
    BAD_RULES = "BAD_RULES"
    STALE_SEQ = "STALE_SEQ"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    BAD_TOKEN = "BAD_TOKEN"
    UNKNOWN_GAME = "UNKNOWN_GAME"
    UNKNOWN_BOT = "UNKNOWN_BOT"
    NOT_A_BOT = "NOT_A_BOT"
    UNKNOWN_TOURNAMENT = "UNKNOWN_TOURNAMENT"
    BAD_TOURNAMENT = "BAD_TOURNAMENT"
    NOT_INVITED = "NOT_INVITED"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    # Server side.
    SHUTTING_DOWN = "SHUTTING_DOWN"
    STORAGE_FAILED = "STORAGE_FAILED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


#: Codes after which the server closes the connection (the error message is its last frame).
FATAL: frozenset[ErrorCode] = frozenset(
    {
        ErrorCode.BAD_FRAME,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.HANDSHAKE_REQUIRED,
        ErrorCode.TOO_MANY_CONNECTIONS,
        ErrorCode.IDLE_TIMEOUT,
        ErrorCode.HANDSHAKE_TIMEOUT,
        ErrorCode.SLOW_READER,
        ErrorCode.SHUTTING_DOWN,
    }
)

#: One line per code: what it means, then what a client should do about it.
ERROR_HELP: dict[ErrorCode, str] = {
    ErrorCode.BAD_FRAME: (
        "The bytes are not a valid frame: zero length, not msgpack, not a map with string keys,"
        " trailing bytes, an extension type, or a line that is not one JSON object."
        " Fix the encoder; the connection is closed."
    ),
    ErrorCode.FRAME_TOO_LARGE: (
        "A frame or JSON line is longer than the limit in welcome.limits (smaller before"
        " login). Send smaller messages; the connection is closed."
    ),
    ErrorCode.BAD_MESSAGE: (
        "A field is missing, unknown, of the wrong type or out of range (the message names it)."
        " Fix the client; the connection is closed."
    ),
    ErrorCode.UNKNOWN_TYPE: (
        "'type' is missing or not a client-to-server message of this protocol version."
        " Fix the client; the connection is closed."
    ),
    ErrorCode.UNSUPPORTED_VERSION: (
        "hello asked for a protocol version this server does not speak; the message lists the"
        " supported ones. Reconnect with one of them; the connection is closed."
    ),
    ErrorCode.HANDSHAKE_REQUIRED: (
        "A message other than hello came first. Send hello as the very first message; the connection is closed."
    ),
    ErrorCode.NOT_LOGGED_IN: ("This request needs a logged-in connection. Send login, wait for logged_in, retry."),
    ErrorCode.ALREADY_LOGGED_IN: (
        "login on a connection that is already logged in. Nothing changed; open a new connection to use another name."
    ),
    ErrorCode.AUTH_FAILED: (
        "The name and password do not match (or the name is taken by an account)."
        " Check the credentials; do not retry in a loop."
    ),
    ErrorCode.SERVER_PASSWORD_REQUIRED: (
        "This server needs the right server_password in login (welcome.password_required)."
        " Ask the operator for it and log in again."
    ),
    ErrorCode.GUESTS_NOT_ALLOWED: ("Guest logins are switched off on this server. Log in with a name and password."),
    ErrorCode.LOGIN_THROTTLED: (
        "Too many failed logins for this name or from this address: no password is checked until"
        " retry_after seconds have passed (the delay doubles with each failure, up to a few"
        " minutes). A login that carries a seat token of this name (login.token) is not delayed."
    ),
    ErrorCode.BAD_NAME: (
        "The name does not follow the name rule (section 3: 1 to 24 letters, digits, spaces,"
        " apostrophes, hyphens, underscores, full stops or emoji); the message says which character"
        " or length is wrong. Choose another name; the connection stays open."
    ),
    ErrorCode.NAME_TAKEN: (
        "Somebody else uses this name now (a connected player, a held seat, a table's owner or a"
        " registered account; names that differ only in case or width are the same name)."
        " suggestion holds a free name to offer instead. Log in with another name, or come back"
        " with your own login token or seat token."
    ),
    ErrorCode.VIEWER_READ_ONLY: (
        "This connection logged in as a viewer (login.viewer), which only reads: it may send ping,"
        " logout and the requests that read (section 3, Viewers), nothing that plays, chats or"
        " registers. Log in as a player, on a new connection, to do this."
    ),
    ErrorCode.RATE_LIMITED: ("Too many requests or login attempts. Wait retry_after seconds, then retry."),
    ErrorCode.TOO_MANY_CONNECTIONS: (
        "The server, or your address, has too many connections open. Retry later with"
        " back-off; the connection is closed."
    ),
    ErrorCode.IDLE_TIMEOUT: (
        "Nothing was received for too long. Send ping regularly while idle; the connection"
        " is closed (reconnect and resume)."
    ),
    ErrorCode.HANDSHAKE_TIMEOUT: (
        "hello and a successful login did not both happen in time after connecting. Send hello"
        " and login at once; the connection is closed."
    ),
    ErrorCode.SLOW_READER: (
        "Reserved: a client that does not read fast enough is disconnected without this message"
        " (its output buffer is full): the connection is closed. Read continuously; reconnect and resume."
    ),
    ErrorCode.UNKNOWN_TABLE: ("No open table has this id. Refresh the list with list_tables."),
    ErrorCode.TABLE_FULL: (
        "No free seat at the table, too many spectators, or the server has as many tables as it"
        " allows. Watch it, join another table, or try later."
    ),
    ErrorCode.WRONG_PASSWORD: ("The table's password is missing or wrong. Ask the table's creator for it."),
    ErrorCode.SEAT_TAKEN: ("The requested seat is occupied. Pick a free seat, or omit seat to get any."),
    ErrorCode.NOT_SEATED: ("The request needs a seat at this table (watchers cannot act). Join first."),
    ErrorCode.NOT_AT_TABLE: ("The request needs you at this table as a player or watcher. Join or watch first."),
    ErrorCode.ALREADY_STARTED: (
        "The game at this table has already started, so seats cannot change now. Watch, or wait for the game to end."
    ),
    ErrorCode.NOT_STARTED: ("No game is running at this table yet. Wait for the owner to start it."),
    ErrorCode.NOT_ENOUGH_PLAYERS: ("Every seat must be taken before start. Wait for more players to join."),
    ErrorCode.NOT_OWNER: (
        "Only the table's owner (its creator; a seated player once the creator leaves) may do this. Ask them."
    ),
    ErrorCode.BAD_RULES: (
        "The preset or an option was refused; the message is the rules engine's explanation"
        " naming the option and its allowed values. Fix the request."
    ),
    ErrorCode.STALE_SEQ: (
        "What this seat may do changed (or it acted) after the state whose seq act carried, or"
        " that seq is newer than any state sent. Wait for the newest state (or resume) and decide again."
    ),
    ErrorCode.ILLEGAL_ACTION: (
        "The rules refused the action; reason is the engine's stable code (NOT_YOUR_TURN,"
        " CARD_NOT_HELD, DOES_NOT_BEAT, ...). Nothing changed: choose from view.legal."
    ),
    ErrorCode.BAD_TOKEN: (
        "No seat at this table has that token for you (or a newer connection took the seat"
        " over). Use the token from joined, logged in as the same player (the same account, or"
        " the guest who holds the seat: login with the seat token or the login token)."
    ),
    ErrorCode.UNKNOWN_GAME: ("No finished game with this id is available. Check the id from game_over."),
    ErrorCode.UNKNOWN_BOT: (
        "No bundled bot has that name, or this server runs no bots; the message lists the names "
        "it knows. Pick one of those."
    ),
    ErrorCode.NOT_A_BOT: (
        "remove_bot named a seat that holds no bot (it is free, or a person sits there). "
        "The table's summary shows who sits where."
    ),
    ErrorCode.UNKNOWN_TOURNAMENT: ("No tournament has this id. list_tournaments shows them."),
    ErrorCode.BAD_TOURNAMENT: (
        "create_tournament's settings do not make a tournament: an unknown schedule, participant "
        "names given twice, a done_ranges pair whose first number is above its last, or more games, "
        "tables at once or bundled bots than this server allows (welcome.limits). The message "
        "says which. Fix the request."
    ),
    ErrorCode.NOT_INVITED: (
        "You may not register for this tournament: it names its participants and you are not "
        "one of them, or you are a guest (log in to an account: a bot account for a program)."
    ),
    ErrorCode.QUOTA_EXCEEDED: (
        "You (or your address) have as many tables or unfinished tournaments open as this server"
        " allows one player (welcome.limits: tables_per_player, tournaments_per_player) or one"
        " address. Close one (leave a table nobody else is at, cancel_tournament), or retry after"
        " retry_after seconds."
    ),
    ErrorCode.SHUTTING_DOWN: ("The server is shutting down. Reconnect later and resume; the connection is closed."),
    ErrorCode.STORAGE_FAILED: (
        "The server cannot write to its database (the disk is full or failing), so it takes no"
        " actions: nothing acknowledged is lost, and play goes on by itself once it can write"
        " again. Retry after retry_after seconds."
    ),
    ErrorCode.INTERNAL_ERROR: (
        "A bug in the server; the request was not carried out. Report it; the connection stays open."
    ),
}

assert set(ERROR_HELP) == set(ErrorCode), "every ErrorCode needs an ERROR_HELP entry"


class ProtocolError(Exception):
    """Base of every error raised by this package.

    Attributes:
        code: the :class:`ErrorCode` (what goes on the wire for a remote error).
        message: a short human-readable explanation. It never holds a stack trace or any
            hidden game information, so it may be sent to the peer as it is.
        fatal: whether the connection must be closed after reporting this error.
        request_id: the ``id`` of the offending request when it could be read, else None;
            echo it in the ``error`` answer.
        received: messages (or frames, from a decoder) that were decoded successfully from
            the same chunk of bytes *before* the bad one, in order. The caller may still
            process them before reporting the error and closing.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        fatal: bool | None = None,
        request_id: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = ErrorCode(code)
        self.message = message
        self.fatal = self.code in FATAL if fatal is None else fatal
        self.request_id = request_id
        self.received: list[Any] = []


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol. Answer with ``error`` of :attr:`code`; close if fatal.

    ``retry_after`` (seconds, for ``RATE_LIMITED``) and ``reason`` (the rules engine's code, for
    ``ILLEGAL_ACTION``) are copied into the ``error`` message when set.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        fatal: bool | None = None,
        request_id: int | None = None,
        retry_after: float | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(code, message, fatal=fatal, request_id=request_id)
        self.retry_after = retry_after
        self.reason = reason


class LocalProtocolError(ProtocolError):
    """We tried to send something invalid, or used a closed connection: a bug on our side.

    Nothing was encoded or sent and the connection state is unchanged, so :attr:`fatal` is
    False. ``code`` says what kind of problem (``INTERNAL_ERROR`` unless more specific, e.g.
    ``FRAME_TOO_LARGE`` for an outgoing frame over the limit, ``BAD_MESSAGE`` for an invalid
    outgoing message); it is not meant for the wire.
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code, message, fatal=False)
