"""A sans-I/O protocol connection: bytes in, messages out; messages in, bytes out.

No sockets, no clock, no asyncio: the server and client shells own the I/O and call

* :meth:`Connection.receive_data` with every chunk read from the socket; it returns the
  validated messages, in order;
* :meth:`Connection.send` (or :meth:`~Connection.send_error`, :meth:`~Connection.report`)
  for every message to write; it returns the bytes to write.

**Modes.** A server connection learns the client's mode from the first byte it receives:
``{`` means JSON lines, anything else msgpack frames (a msgpack frame under 16 MiB starts
with 0x00, so the two cannot be confused). Before that byte arrives, :attr:`Connection.mode`
is None and :meth:`~Connection.send` encodes msgpack. A client connection is given its mode.

**Handshake.** Every state change is one entry of :data:`TRANSITIONS`, keyed by
(state, sender, event), where the event is the message type, except that an ``error`` with a
fatal code is the event ``fatal_error``::

    AWAIT_HELLO --client sends hello--> GREETING --server sends welcome--> OPEN
    any state   --server sends a fatal error---------------------------> CLOSED
    any state   --peer breaks the protocol (receive_data raises)-------> CLOSING

In GREETING the client may already pipeline requests (``login``...): a server returns them
from ``receive_data`` after the ``hello``, and must answer the hello (``welcome`` or a fatal
``UNSUPPORTED_VERSION`` error, see :func:`check_version`) before handling them. Anything but
hello first is ``HANDSHAKE_REQUIRED``. In CLOSING the only thing left is to send the error
report (server) and close the socket; in CLOSED, to close the socket.

**Login.** Input frames are limited to ``max_in_before_login`` bytes until
:meth:`~Connection.set_logged_in` (called automatically when a ``logged_in`` message is sent
by a server or received by a client), then to ``max_in``. The limit applies to a frame when
its length prefix is read, so a client should wait for ``logged_in`` before sending large
requests.

Error handling: ``receive_data`` raises :class:`~protocol.errors.RemoteProtocolError` when
the peer sent a bad frame, a bad message or a message out of order. Messages decoded from
the same chunk before the bad one are in the exception's ``received`` list. The connection
is then CLOSING (every such error is fatal: bytes after the bad frame are lost), so report
it with :meth:`~Connection.report` and close. ``send`` raises
:class:`~protocol.errors.LocalProtocolError` (our bug) and then changes nothing. Using a
connection in a state that does not allow it raises ``LocalProtocolError`` too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import msgpack

from .errors import FATAL, ErrorCode, LocalProtocolError, RemoteProtocolError
from .framing import FrameDecoder, LineDecoder, encode_frame, encode_line
from .messages import (
    S2C,
    SUPPORTED_VERSIONS,
    Direction,
    Error,
    Hello,
    LoggedIn,
    Message,
    decode_message,
    encode_message,
    error_from,
)
from .splice import PackedEntries, SharedEncoding

__all__ = [
    "DEFAULT_MAX_IN",
    "DEFAULT_MAX_IN_BEFORE_LOGIN",
    "DEFAULT_MAX_OUT",
    "TRANSITIONS",
    "Connection",
    "ConnectionState",
    "Mode",
    "Role",
    "check_version",
]

log = logging.getLogger(__name__)

#: Client-to-server frame limit after login: a play is ~40 bytes, a create_table with a
#: full explicit deck ~2 KiB.
DEFAULT_MAX_IN = 16 * 1024
#: Client-to-server frame limit before login: hello and login, with room for long passwords.
DEFAULT_MAX_IN_BEFORE_LOGIN = 4 * 1024
#: Server-to-client frame limit: views, table lists and game records.
DEFAULT_MAX_OUT = 1024 * 1024


class Role(StrEnum):
    """Which end of the connection we are."""

    SERVER = "server"
    CLIENT = "client"


class Mode(StrEnum):
    """Wire mode: length-prefixed msgpack frames or JSON lines."""

    MSGPACK = "msgpack"
    JSON = "json"


class ConnectionState(StrEnum):
    """Where the conversation stands (the same for both ends)."""

    AWAIT_HELLO = "AWAIT_HELLO"
    """Nothing sent yet: the client's first message must be hello."""
    GREETING = "GREETING"
    """hello received (server) or sent (client); the welcome has not yet gone (or come)."""
    OPEN = "OPEN"
    """Handshake done: requests and answers flow."""
    CLOSING = "CLOSING"
    """The peer broke the protocol: answers to the requests received before the bad frame,
    then the error report, may still be sent; then close."""
    CLOSED = "CLOSED"
    """A fatal error was sent (or received): close the socket."""


_ANY = "*"
_FATAL_ERROR = "fatal_error"

_S = ConnectionState
_C = Role.CLIENT
_V = Role.SERVER

#: (state, sender, event) -> next state, or the error code that refuses the event. An event
#: is a message type, or "fatal_error"; "*" matches any event not listed for that state and
#: sender. A missing entry refuses the event with BAD_MESSAGE.
TRANSITIONS: dict[tuple[ConnectionState, Role, str], ConnectionState | ErrorCode] = {
    (_S.AWAIT_HELLO, _C, "hello"): _S.GREETING,
    (_S.AWAIT_HELLO, _C, _ANY): ErrorCode.HANDSHAKE_REQUIRED,
    (_S.AWAIT_HELLO, _V, "error"): _S.AWAIT_HELLO,
    (_S.AWAIT_HELLO, _V, _FATAL_ERROR): _S.CLOSED,
    (_S.AWAIT_HELLO, _V, _ANY): ErrorCode.HANDSHAKE_REQUIRED,
    (_S.GREETING, _C, "hello"): ErrorCode.BAD_MESSAGE,
    (_S.GREETING, _C, _ANY): _S.GREETING,
    (_S.GREETING, _V, "welcome"): _S.OPEN,
    (_S.GREETING, _V, "error"): _S.GREETING,
    (_S.GREETING, _V, _FATAL_ERROR): _S.CLOSED,
    (_S.GREETING, _V, _ANY): ErrorCode.HANDSHAKE_REQUIRED,
    (_S.OPEN, _C, "hello"): ErrorCode.BAD_MESSAGE,
    (_S.OPEN, _C, _ANY): _S.OPEN,
    (_S.OPEN, _V, "welcome"): ErrorCode.BAD_MESSAGE,
    (_S.OPEN, _V, _FATAL_ERROR): _S.CLOSED,
    (_S.OPEN, _V, _ANY): _S.OPEN,
    (_S.CLOSING, _V, "error"): _S.CLOSING,
    (_S.CLOSING, _V, _FATAL_ERROR): _S.CLOSED,
    # Answers to the requests that arrived before the bad frame (RemoteProtocolError.received)
    # may still go out, before the error report.
    (_S.CLOSING, _V, _ANY): _S.CLOSING,
}


#: Server messages that may be sent shared (:meth:`Connection.send_shared`): pushed ones, which
#: leave OPEN and CLOSING unchanged (checked against TRANSITIONS below).
_SHAREABLE = frozenset({"state"})
_PACK: Callable[[object], bytes] = msgpack.Packer(use_bin_type=True).pack
assert all(
    TRANSITIONS.get((st, Role.SERVER, t), TRANSITIONS.get((st, Role.SERVER, _ANY))) is st
    for st in (ConnectionState.OPEN, ConnectionState.CLOSING)
    for t in _SHAREABLE
)


def _event(msg: Message) -> str:
    if isinstance(msg, Error) and msg.code in FATAL:
        return _FATAL_ERROR
    return msg.TYPE


def _next_state(state: ConnectionState, sender: Role, event: str) -> ConnectionState | ErrorCode:
    found = TRANSITIONS.get((state, sender, event))
    if found is None:
        found = TRANSITIONS.get((state, sender, _ANY), ErrorCode.BAD_MESSAGE)
    return found


def check_version(hello: Hello) -> None:
    """Raise ``RemoteProtocolError(UNSUPPORTED_VERSION)`` unless hello's version is supported.

    The server calls this on every hello; on error it answers with :meth:`Connection.report`
    (a fatal error: the connection is then CLOSED) instead of ``welcome``.
    """
    if hello.version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise RemoteProtocolError(
            ErrorCode.UNSUPPORTED_VERSION,
            f"protocol version {hello.version} is not supported; supported versions: {supported}",
            request_id=hello.id,
        )


class Connection:
    """One end of one protocol connection. See the module docstring for the whole contract.

    Args:
        role: ``"server"`` or ``"client"``.
        mode: a client's wire mode (``"msgpack"`` or ``"json"``, default msgpack). For a
            server, None (the default) detects it from the first byte received.
        max_in: largest incoming frame/line after login, in bytes.
        max_out: largest outgoing frame/line, in bytes.
        max_in_before_login: largest incoming frame/line before login.

    The limits default to :data:`DEFAULT_MAX_IN`, :data:`DEFAULT_MAX_OUT` and
    :data:`DEFAULT_MAX_IN_BEFORE_LOGIN` for a server; for a client, incoming and outgoing
    swap (a client's ``max_in`` is the server's ``max_out``) and its limit before login is
    ``max_in``.
    """

    def __init__(
        self,
        role: Role | str,
        *,
        mode: Mode | str | None = None,
        max_in: int | None = None,
        max_out: int | None = None,
        max_in_before_login: int | None = None,
    ) -> None:
        self.role = Role(role)
        if self.role is Role.SERVER:
            self.max_in = DEFAULT_MAX_IN if max_in is None else max_in
            self.max_out = DEFAULT_MAX_OUT if max_out is None else max_out
            before = DEFAULT_MAX_IN_BEFORE_LOGIN
            self._peer, self._in_dir, self._out_dir = Role.CLIENT, Direction.C2S, Direction.S2C
        else:
            self.max_in = DEFAULT_MAX_OUT if max_in is None else max_in
            self.max_out = DEFAULT_MAX_IN if max_out is None else max_out
            before = self.max_in
            self._peer, self._in_dir, self._out_dir = Role.SERVER, Direction.S2C, Direction.C2S
            if mode is None:
                mode = Mode.MSGPACK
        self.max_in_before_login = before if max_in_before_login is None else max_in_before_login
        for name in ("max_in", "max_out", "max_in_before_login"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self.state = ConnectionState.AWAIT_HELLO
        self.logged_in = False
        self.mode: Mode | None = None
        self._decoder: FrameDecoder | LineDecoder | None = None
        if mode is not None:
            self._set_mode(Mode(mode))

    # ------------------------------------------------------------------ properties

    @property
    def closed(self) -> bool:
        """True once the connection is CLOSING or CLOSED: stop reading, close the socket."""
        return self.state in (ConnectionState.CLOSING, ConnectionState.CLOSED)

    @property
    def input_limit(self) -> int:
        """The frame size limit that applies to incoming frames now."""
        return self.max_in if self.logged_in else self.max_in_before_login

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete incoming frame held by the decoder."""
        return 0 if self._decoder is None else self._decoder.buffered

    # ------------------------------------------------------------------ state changes

    def set_logged_in(self) -> None:
        """Mark the connection logged in: incoming frames may now be up to ``max_in``."""
        self.logged_in = True
        if self._decoder is not None:
            self._decoder.max_size = self.max_in

    def set_mode(self, mode: Mode | str) -> None:
        """Fix a server connection's mode before the first byte, when its transport tells it
        (a WebSocket carries JSON). Raises ``LocalProtocolError`` once the mode is known."""
        if self._decoder is not None:
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"the mode is {self.mode} already")
        self._set_mode(Mode(mode))

    def _set_mode(self, mode: Mode) -> None:
        self.mode = mode
        limit = self.input_limit
        # A client trusts its server's nesting (see _Decoder.check_nesting); a server checks.
        nesting = self.role is Role.SERVER
        self._decoder = (
            FrameDecoder(limit, check_nesting=nesting)
            if mode is Mode.MSGPACK
            else LineDecoder(limit, check_nesting=nesting)
        )

    def _transition(self, sender: Role, msg: Message) -> ConnectionState:
        """The state after ``msg`` from ``sender``; raise (remote or local) if not allowed."""
        found = _next_state(self.state, sender, _event(msg))
        if isinstance(found, ConnectionState):
            return found
        text = f"{msg.TYPE!r} is not allowed now (state {self.state})"
        if found is ErrorCode.HANDSHAKE_REQUIRED:
            text = f"the first message must be hello, not {msg.TYPE!r}"
            if sender is Role.SERVER:
                text = f"the server must answer hello with welcome, not {msg.TYPE!r}"
        if sender is self.role:
            raise LocalProtocolError(found, text)
        raise RemoteProtocolError(found, text, request_id=getattr(msg, "id", None))

    # ------------------------------------------------------------------ receiving

    def receive_data(self, data: bytes) -> list[Message]:
        """Feed bytes read from the socket; return the complete messages they finish.

        Raises ``RemoteProtocolError`` if the peer broke the protocol (the connection is then
        CLOSING), ``LocalProtocolError`` if the connection is already CLOSING or CLOSED.
        An empty ``data`` returns ``[]`` (end of input is the shell's business).
        """
        if self.closed:
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"receive_data on a connection in state {self.state}")
        if not data:
            return []
        if self._decoder is None:
            self._set_mode(Mode.JSON if data[0] == 0x7B else Mode.MSGPACK)
            log.debug("connection mode detected: %s", self.mode)
        decoder = self._decoder
        assert decoder is not None
        error: RemoteProtocolError | None = None
        try:
            frames = decoder.feed(data)
        except RemoteProtocolError as exc:
            frames, error = exc.received, exc
        messages: list[Message] = []
        for frame in frames:
            try:
                msg = decode_message(frame, self._in_dir)
                self.state = self._transition(self._peer, msg)
            except RemoteProtocolError as exc:
                error = exc
                break
            messages.append(msg)
            if isinstance(msg, LoggedIn):
                self.set_logged_in()
        if error is not None:
            error.received = messages
            if not self.closed:
                self.state = ConnectionState.CLOSING
            log.debug("protocol error from peer: %s", error)
            raise error
        return messages

    # ------------------------------------------------------------------ sending

    def send(self, msg: Message, *, validate: bool = True) -> bytes:
        """Encode ``msg`` for the wire in this connection's mode; return the bytes to write.

        Raises ``LocalProtocolError`` if the message is invalid, too large, of the wrong
        direction or not allowed in this state; nothing changes then. ``validate=False``
        skips the per-field checks (see :func:`~protocol.messages.encode_message`); the
        direction, state and size checks remain.
        """
        if not isinstance(msg, Message) or msg.DIRECTION is not self._out_dir:
            what = getattr(msg, "TYPE", type(msg).__name__)
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"a {self.role} cannot send {what!r}")
        new_state = self._transition(self.role, msg)
        payload = encode_message(msg, validate=validate)
        if self.mode is Mode.JSON:
            data = encode_line(payload, max_size=self.max_out)
        else:
            data = encode_frame(payload, max_size=self.max_out)
        self.state = new_state
        if isinstance(msg, LoggedIn):
            self.set_logged_in()
        return data

    def send_shared(
        self, msg_type: str, shared: SharedEncoding, own: dict[str, Any], inner_own: dict[str, Any] | PackedEntries
    ) -> bytes:
        """Encode one message of a family that shares most content (see :mod:`protocol.splice`).

        ``msg_type`` must be the ``type`` in ``shared.common``; the state machine advances as
        for :meth:`send`, and the output limit applies. The caller vouches for the fields
        (this is the trusted fast path for the server's ``state`` broadcasts).
        """
        state = self.state
        if (
            (state is ConnectionState.OPEN or state is ConnectionState.CLOSING)
            and msg_type in _SHAREABLE
            and self.role is Role.SERVER
        ):
            found: ConnectionState = state  # pushed messages keep OPEN and CLOSING as they are
        else:
            if msg_type not in S2C or self.role is not Role.SERVER:
                raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"a {self.role} cannot send shared {msg_type!r}")
            nxt = _next_state(state, self.role, msg_type)
            if not isinstance(nxt, ConnectionState):
                raise LocalProtocolError(nxt, f"{msg_type!r} is not allowed now (state {state})")
            found = nxt
        if shared.common.get("type") != msg_type:
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"shared encoding is not of type {msg_type!r}")
        if self.mode is Mode.JSON:
            data = shared.line(own, inner_own, max_size=self.max_out)
        else:
            data = shared.frame(own, inner_own, max_size=self.max_out)
        self.state = found
        return data

    def send_error(
        self,
        code: ErrorCode | str,
        message: str,
        id: int | None = None,
        *,
        retry_after: float | None = None,
        reason: str | None = None,
        table: int | None = None,
        suggestion: str | None = None,
    ) -> bytes:
        """Send an ``error`` message (server role); a fatal code moves the state to CLOSED."""
        try:
            code = ErrorCode(code)
        except ValueError:
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, f"unknown error code {code!r}") from None
        msg = Error(
            id=id,
            code=code,
            message=message,
            retry_after=retry_after,
            reason=reason,
            table=table,
            suggestion=suggestion,
        )
        return self.send(msg)

    def report(self, exc: RemoteProtocolError) -> bytes:
        """Send the ``error`` message that reports ``exc`` (its code, text, id and extras)."""
        return self.send(error_from(exc))

    def __repr__(self) -> str:
        return f"<Connection {self.role} mode={self.mode} state={self.state} logged_in={self.logged_in}>"
