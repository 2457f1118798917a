"""The sans-I/O connection: mode detection, the handshake table, login limits, closing."""

from __future__ import annotations

import pytest

from protocol.connection import TRANSITIONS, Connection, ConnectionState, Mode, check_version
from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.framing import encode_frame, encode_line
from protocol.messages import (
    EXAMPLES,
    Chat,
    Error,
    Hello,
    LoggedIn,
    Login,
    Ok,
    Ping,
    Pong,
    Welcome,
)

from .helpers import encode

WELCOME = EXAMPLES["welcome"]
HELLO = Hello(id=1, version=1)
MODES = ["msgpack", "json"]


def server_after_handshake(
    mode: str = "msgpack",
    *,
    max_in: int | None = None,
    max_out: int | None = None,
    max_in_before_login: int | None = None,
) -> Connection:
    """A server connection that has received hello and sent welcome."""
    server = Connection("server", max_in=max_in, max_out=max_out, max_in_before_login=max_in_before_login)
    assert server.receive_data(encode({"type": "hello", "id": 1, "version": 1}, mode)) == [HELLO]
    server.send(WELCOME)
    assert server.state is ConnectionState.OPEN
    return server


def remote_error(conn: Connection, data: bytes, code: ErrorCode) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        conn.receive_data(data)
    assert info.value.code is code
    assert conn.closed
    return info.value


# --------------------------------------------------------------------------- modes


@pytest.mark.parametrize(("first", "mode"), [(b"{", Mode.JSON), (b"\x00", Mode.MSGPACK), (b" ", Mode.MSGPACK)])
def test_mode_detected_from_first_byte(first: bytes, mode: Mode) -> None:
    """The server picks JSON lines when the first byte is '{', msgpack otherwise."""
    server = Connection("server")
    assert server.mode is None
    assert server.receive_data(b"") == [] and server.mode is None
    server.receive_data(first)
    assert server.mode is mode


@pytest.mark.parametrize("mode", MODES)
def test_server_answers_in_the_clients_mode(mode: str) -> None:
    """After detection, the server encodes its messages in the client's mode."""
    server = server_after_handshake(mode)
    data = server.send(Pong(id=4))
    expected = {"type": "pong", "id": 4}
    assert data == (encode_line(expected) if mode == "json" else encode_frame(expected, max_size=None))


def test_server_sends_msgpack_before_mode_is_known() -> None:
    """An error sent before any byte arrived uses msgpack framing and does not fix the mode."""
    server = Connection("server")
    data = server.send_error(ErrorCode.TOO_MANY_CONNECTIONS, "try later")
    assert data[:4] == len(data[4:]).to_bytes(4, "big")
    assert server.mode is None and server.state is ConnectionState.CLOSED


# --------------------------------------------------------------------------- handshake


@pytest.mark.parametrize("mode", MODES)
def test_hello_welcome_flow_between_client_and_server(mode: str) -> None:
    """A client and a server connection complete the handshake and a request in either mode."""
    client, server = Connection("client", mode=mode), Connection("server")
    assert server.receive_data(client.send(HELLO)) == [HELLO]
    assert client.state is server.state is ConnectionState.GREETING
    check_version(HELLO)
    assert client.receive_data(server.send(WELCOME)) == [WELCOME]
    assert client.state is server.state is ConnectionState.OPEN
    assert server.receive_data(client.send(Ping(id=2))) == [Ping(id=2)]
    assert client.receive_data(server.send(Pong(id=2))) == [Pong(id=2)]
    assert server.mode == client.mode == mode


@pytest.mark.parametrize("mode", MODES)
def test_handshake_required(mode: str) -> None:
    """Anything before hello is HANDSHAKE_REQUIRED; the server may still report it, then CLOSED."""
    server = Connection("server")
    exc = remote_error(server, encode({"type": "ping", "id": 3}, mode), ErrorCode.HANDSHAKE_REQUIRED)
    assert exc.request_id == 3 and exc.fatal
    assert server.state is ConnectionState.CLOSING
    server.report(exc)
    assert server.state is ConnectionState.CLOSED
    with pytest.raises(LocalProtocolError):
        server.send(Pong(id=3))


def test_pipelined_requests_after_hello() -> None:
    """hello and login in one read are both returned; the server answers hello first."""
    server = Connection("server")
    data = encode({"type": "hello", "id": 1, "version": 1}, "msgpack") + encode(
        {"type": "login", "id": 2, "name": "al", "guest": True}, "msgpack"
    )
    assert server.receive_data(data) == [HELLO, Login(id=2, name="al", guest=True)]
    with pytest.raises(LocalProtocolError):
        server.send(LoggedIn(id=2, name="al", guest=True, bot=False))  # welcome must go first
    server.send(WELCOME)
    server.send(LoggedIn(id=2, name="al", guest=True, bot=False))
    assert server.logged_in


def test_hello_twice_is_refused() -> None:
    """A second hello, before or after the welcome, is a BAD_MESSAGE."""
    server = Connection("server")
    hello = encode({"type": "hello", "id": 1, "version": 1}, "msgpack")
    remote_error(server, hello + hello, ErrorCode.BAD_MESSAGE)
    remote_error(server_after_handshake(), hello, ErrorCode.BAD_MESSAGE)


def test_unsupported_version() -> None:
    """check_version refuses other versions, naming the supported ones; reporting it closes."""
    server = Connection("server")
    [hello] = server.receive_data(encode({"type": "hello", "id": 5, "version": 2}, "json"))
    assert isinstance(hello, Hello)
    with pytest.raises(RemoteProtocolError) as info:
        check_version(hello)
    assert info.value.code is ErrorCode.UNSUPPORTED_VERSION and info.value.request_id == 5
    assert "1" in info.value.message
    data = server.report(info.value)
    assert data.startswith(b'{"type":"error","id":5,"code":"UNSUPPORTED_VERSION"')
    assert server.state is ConnectionState.CLOSED


def test_server_cannot_send_out_of_order() -> None:
    """welcome before hello, a second welcome, or a request-type message are our bugs."""
    server = Connection("server")
    with pytest.raises(LocalProtocolError):
        server.send(WELCOME)
    server = server_after_handshake()
    with pytest.raises(LocalProtocolError):
        server.send(WELCOME)
    with pytest.raises(LocalProtocolError):
        server.send(Ping(id=1))  # type: ignore[arg-type]
    assert server.state is ConnectionState.OPEN


def test_client_mirror() -> None:
    """A client must send hello first and expects welcome (or an error) first."""
    client = Connection("client")
    with pytest.raises(LocalProtocolError):
        client.send(Login(id=1, name="al"))
    with pytest.raises(LocalProtocolError):
        client.send(WELCOME)  # type: ignore[arg-type]
    client.send(HELLO)
    client.send(Login(id=2, name="al"))  # pipelining is allowed
    exc = remote_error(client, encode({"type": "ok", "id": 2}, "msgpack"), ErrorCode.HANDSHAKE_REQUIRED)
    assert exc.request_id == 2


def test_non_fatal_error_keeps_connection_open() -> None:
    """A non-fatal error leaves both ends OPEN; its id and extras go on the wire."""
    client, server = Connection("client"), Connection("server")
    server.receive_data(client.send(HELLO))
    client.receive_data(server.send(WELCOME))
    data = server.send_error(ErrorCode.RATE_LIMITED, "slow down", 9, retry_after=1.5)
    [msg] = client.receive_data(data)
    assert msg == Error(id=9, code=ErrorCode.RATE_LIMITED, message="slow down", retry_after=1.5)
    assert client.state is server.state is ConnectionState.OPEN
    with pytest.raises(LocalProtocolError):
        server.send_error("NO_SUCH_CODE", "x")


def test_client_closed_after_fatal_error_received() -> None:
    """A client that receives a fatal error is CLOSED and reads nothing more."""
    client = Connection("client", mode="json")
    client.send(HELLO)
    [msg] = client.receive_data(encode({"type": "error", "code": "SHUTTING_DOWN", "message": "bye"}, "json"))
    assert isinstance(msg, Error) and client.state is ConnectionState.CLOSED
    with pytest.raises(LocalProtocolError):
        client.receive_data(b"{}\n")


def test_transition_table_covers_every_live_state() -> None:
    """Every state but CLOSED has entries, and CLOSED has none (nothing may happen after it)."""
    states = {key[0] for key in TRANSITIONS}
    assert states == set(ConnectionState) - {ConnectionState.CLOSED}


# --------------------------------------------------------------------------- limits and errors


@pytest.mark.parametrize("mode", MODES)
def test_limit_switches_after_login(mode: str) -> None:
    """Before login frames are held to max_in_before_login; after logged_in, to max_in."""
    big = {"type": "chat", "id": 3, "table": 1, "text": "x" * 250}
    server = server_after_handshake(mode, max_in=400, max_in_before_login=200)
    assert server.input_limit == 200
    remote_error(server, encode(big, mode), ErrorCode.FRAME_TOO_LARGE)

    server = server_after_handshake(mode, max_in=400, max_in_before_login=200)
    server.send(LoggedIn(id=2, name="al", guest=False, bot=False))
    assert server.logged_in and server.input_limit == 400
    assert server.receive_data(encode(big, mode)) == [Chat(id=3, table=1, text="x" * 250)]


def test_explicit_set_logged_in() -> None:
    """set_logged_in raises the input limit even before the mode is known."""
    server = Connection("server", max_in=300, max_in_before_login=100)
    server.set_logged_in()
    server.receive_data(encode({"type": "hello", "id": 1, "version": 1}, "json"))
    assert server.input_limit == 300


@pytest.mark.parametrize("mode", MODES)
def test_closed_after_fatal_error(mode: str) -> None:
    """After a bad frame receive_data raises for ever; answers to earlier requests and then one
    error report may still be sent, and nothing after the report."""
    server = server_after_handshake(mode)
    garbage = b"\x00\x00\x00\x01\xc1" if mode == "msgpack" else b"{nope}\n"
    exc = remote_error(server, garbage, ErrorCode.BAD_FRAME)
    with pytest.raises(LocalProtocolError):
        server.receive_data(encode({"type": "ping", "id": 1}, mode))
    assert server.send(Ok(id=1))  # the answer to a request received before the bad frame
    assert server.state is ConnectionState.CLOSING
    server.report(exc)
    assert server.state is ConnectionState.CLOSED
    with pytest.raises(LocalProtocolError):
        server.send(Ok(id=1))
    with pytest.raises(LocalProtocolError):
        server.report(exc)


def test_messages_before_a_bad_one_are_reported() -> None:
    """Messages decoded from the chunk before a bad frame or bad message ride on the exception."""
    ping = encode({"type": "ping", "id": 1}, "msgpack")
    server = server_after_handshake()
    exc = remote_error(server, ping + b"\x00\x00\x00\x00", ErrorCode.BAD_FRAME)
    assert exc.received == [Ping(id=1)]
    server = server_after_handshake()
    exc = remote_error(server, ping + ping + encode({"type": "ping"}, "msgpack"), ErrorCode.BAD_MESSAGE)
    assert exc.received == [Ping(id=1), Ping(id=1)]


def test_send_too_large_changes_nothing() -> None:
    """An outgoing frame over max_out is refused locally and the state is unchanged."""
    server = server_after_handshake(max_out=500)  # (the welcome fits: 474 bytes)
    with pytest.raises(LocalProtocolError) as info:
        server.send(LoggedIn(id=2, name="x" * 500, guest=False, bot=False))
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    assert not server.logged_in and server.state is ConnectionState.OPEN


def test_welcome_is_a_valid_welcome() -> None:
    """The example welcome is a Welcome, so the helpers above exercise the real message."""
    assert isinstance(WELCOME, Welcome)


def test_bad_limits_refused() -> None:
    """Limits must be positive integers."""
    with pytest.raises(ValueError):
        Connection("server", max_in=0)
    with pytest.raises(ValueError):
        Connection("peer")
