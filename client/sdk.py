"""An asyncio client for the Shithead server, built on the sans-I/O :class:`protocol.Connection`.

Typical use::

    client = await Client.connect("127.0.0.1", 7433)
    await client.login("alice", guest=True)
    table = await client.create_table("friday", preset="classic", seats=2)
    seat, token = await client.join(table)
    async for msg in client.messages():
        if msg["type"] == "state" and msg["view"]["legal"]:
            await client.act(table, msg["seq"], msg["view"]["legal"][0])

**Requests.** Each request method sends one message with a fresh id and awaits the answer
with that id (``docs/PROTOCOL.md`` §4). An ``error`` answer raises :class:`ServerError`
(``.code``: the wire code), except ``RATE_LIMITED``, which is first retried after its
``retry_after`` up to ``rate_limit_retries`` times (the server did not carry it out, so
resending is safe). A request the protocol layer refuses before sending (a bad name, a text too
long) raises :class:`protocol.LocalProtocolError` and sends nothing. A request whose connection
drops before the answer, or made while disconnected, raises :class:`ConnectionLost`; after
:meth:`Client.close`, :class:`ClientClosed` (a subclass).

**Pushed messages.** Everything that answers no request (``state``, ``table_update``,
``chat_message``, ``game_over``, an ``error`` without a pending id) is queued in the order
received, as its wire dict (PROTOCOL.md §14), for :meth:`Client.messages` (one consumer; the
queue is unbounded, so a long-lived client must read it). :attr:`Client.states` keeps the latest
``state`` and :attr:`Client.summaries` the latest summary per table. **Pseudo-events**, dicts
whose ``type`` is not a wire type, tell a UI what happens to the connection:

* ``{"type": "disconnected", "reason": str, "code": str | None, "reconnecting": bool}``:
  the connection dropped (``code``: the fatal error the server sent first, if any).
* ``{"type": "reconnected", "attempt": int, "resumed": [{"table": int, "seat": int}],
  "watching": [int], "lost": [{"table": int, "code": str, "message": str}]}``: logged in
  again; ``resumed``: the seats taken back, ``watching``: the tables watched again, ``lost``:
  those refused. Requests flow again once the resumes are sent, so the snapshot ``state`` of a
  resumed seat may come, and be acted on, before this event.
* ``{"type": "reconnecting", "attempt": int, "retry_in": float, "gives_up_in": float}``: the
  client waits ``retry_in`` seconds before its next attempt, and gives up ``gives_up_in``
  seconds from now (a UI shows it as a countdown).
* ``{"type": "closed", "reason": str}``: the last item; :meth:`Client.messages` then ends.

**Reconnecting.** When the connection drops (not by :meth:`Client.close`, not after a fatal
error saying that this client is broken) and ``reconnect`` is true, the client retries with
back-off (``backoff_initial`` doubling up to ``backoff_max``, with jitter) for as long as the
server keeps a seat: ``reconnect_for`` seconds from the drop, by default the server's
``reconnect_grace`` plus its ``restart_grace`` (``welcome.limits``) plus a margin, so that a
restart of the server is a pause, not the end (``reconnect_attempts``, if given, also caps the
number of attempts). Each attempt is ``hello``, ``login`` with the same credentials (and the
token of a held seat, which the server's failed-login throttle lets through), ``resume`` of every
seat held (with its token) and ``watch`` of every table watched. A ``going_away`` from the
server is passed on like any pushed message; reconnecting goes on. A refusal that says "not
now" (``LOGIN_THROTTLED`` of the login, ``RATE_LIMITED`` or ``STORAGE_FAILED`` of a resume)
fails that attempt only: the next one waits at least its ``retry_after`` and the seat is kept. A
resume refused otherwise (``BAD_TOKEN``, ``UNKNOWN_TABLE``) forgets that seat (``lost``). A
refused login (``AUTH_FAILED``, ``GUESTS_NOT_ALLOWED``, ``SERVER_PASSWORD_REQUIRED``) or the end
of the window closes the client.

**Refusals that pass.** ``STORAGE_FAILED`` (the server cannot write its database and takes no
actions) answers ``act`` and the other requests that change a table with a plain
:class:`ServerError` carrying ``retry_after``: nothing was done; decide again on the newest state
after that many seconds (the bot runner does).

**Keep-alive.** The server drops a connection silent for ``idle_timeout`` (``welcome.limits``);
the client pings whenever it has sent nothing for a third of that (at most a minute).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from protocol.connection import Connection, Mode, Role
from protocol.errors import FATAL, ErrorCode, RemoteProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Act,
    AddBot,
    Chat,
    CreateTable,
    Error,
    GetRecord,
    Hello,
    Join,
    Joined,
    Leave,
    ListTables,
    Login,
    Message,
    Ping,
    Resume,
    Start,
    State,
    TableUpdate,
    Watch,
    encode_message,
)

__all__ = ["PSEUDO_EVENTS", "Client", "ClientClosed", "ConnectionLost", "Seat", "ServerError"]

log = logging.getLogger(__name__)

#: The ``type`` of the items :meth:`Client.messages` adds besides the server's messages.
PSEUDO_EVENTS = ("disconnected", "reconnecting", "reconnected", "closed")

#: Seconds added to the server's graces in the default reconnect window: the seat's grace
#: starts when the server notices the drop (or restarts), a little after the client does.
RECONNECT_MARGIN = 30.0

#: Fatal codes that mean this client itself is broken: reconnecting would fail the same way.
_NO_RECONNECT = frozenset(
    {
        ErrorCode.BAD_FRAME,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.HANDSHAKE_REQUIRED,
    }
)
#: Login refusals that end reconnecting: retrying would be refused again.
_AUTH_FATAL = frozenset({ErrorCode.AUTH_FAILED, ErrorCode.GUESTS_NOT_ALLOWED, ErrorCode.SERVER_PASSWORD_REQUIRED})
#: Refusals of a resume that say "not now": the attempt is tried again (after retry_after), the
#: seat is not given up.
_TRANSIENT = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.STORAGE_FAILED, ErrorCode.LOGIN_THROTTLED})
_END: dict[str, Any] = {"type": "<end>"}


class ServerError(Exception):
    """The server answered a request with ``error``.

    ``code`` is the wire code (a :class:`protocol.ErrorCode`, which compares equal to its
    string), ``message`` the text for people, ``reason`` the engine's code for
    ``ILLEGAL_ACTION``, ``retry_after`` the seconds to wait for ``RATE_LIMITED``."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        reason: str | None = None,
        retry_after: float | None = None,
        request_id: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.request_id = code, message, request_id
        self.reason, self.retry_after = reason, retry_after

    @property
    def fatal(self) -> bool:
        """Whether the server closes the connection after this error."""
        return self.code in FATAL


class ConnectionLost(ConnectionError):
    """The connection dropped before the answer came, or there is no connection right now
    (the client is reconnecting). Whether the request was carried out is unknown."""


class ClientClosed(ConnectionLost):
    """The client was closed (by :meth:`Client.close`, or after reconnecting failed)."""


class Seat(NamedTuple):
    """A seat held at a table: its number and the secret token that takes it back."""

    seat: int
    token: str


@dataclass(slots=True)
class _Pending:
    """A request waiting for its answer (``seq_at_answer``: see :meth:`Client.act`)."""

    future: asyncio.Future[Message]
    table: int | None
    seq_at_answer: int = -1


class _Wire(asyncio.Protocol):
    """One TCP connection; forwards everything to its client (which ignores stale wires)."""

    def __init__(self, client: Client, conn: Connection) -> None:
        self.client, self.conn = client, conn
        self.transport: asyncio.Transport | None = None
        self.fatal: ErrorCode | None = None  # the fatal error code the server sent, if any
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Rely on the transport's interface, not its class: uvloop's transports do not
        # subclass asyncio.Transport. (asyncio and uvloop set TCP_NODELAY themselves.)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.client._on_data(self, data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)
        self.client._on_lost(self, exc)


class Client:
    """A connection to a server, with requests, pushed messages and automatic reconnects.

    Build it with :meth:`connect`; end it with :meth:`close` (or ``async with``). See the
    module docstring for the contract of requests, pushed messages and reconnecting.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        mode: Mode | str = Mode.MSGPACK,
        client_name: str = "shithead-sdk 0.1",
        reconnect: bool = True,
        reconnect_for: float | None = None,
        reconnect_attempts: int | None = None,
        backoff_initial: float = 0.2,
        backoff_max: float = 5.0,
        rate_limit_retries: int = 5,
        keepalive: float | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.host, self.port, self.mode, self.client_name = host, port, Mode(mode), client_name
        self.reconnect, self.reconnect_for, self.reconnect_attempts = reconnect, reconnect_for, reconnect_attempts
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.rate_limit_retries, self.keepalive, self.timeout = rate_limit_retries, keepalive, timeout
        self.welcome: dict[str, Any] = {}  #: The last ``welcome``; ``welcome["limits"]``: the server's limits.
        self.logged_in: dict[str, Any] | None = None  #: The last ``logged_in``, or None before login.
        self.states: dict[int, dict[str, Any]] = {}  #: The latest ``state`` per table id.
        self.summaries: dict[int, dict[str, Any]] = {}  #: The latest summary per table id.
        self.seats: dict[int, Seat] = {}  #: Seats held by table id (resumed after a reconnect).
        self.watching: dict[int, str | None] = {}  #: Tables watched, with their passwords.
        self.reconnects = 0  #: How many times the connection was re-established.
        #: Whether requests may be sent now (not before the handshake, while reconnecting,
        #: after close). Read-only, like :attr:`closed` (closed for good).
        self.connected = False
        self.closed = False
        self._wire: _Wire | None = None
        self._credentials: dict[str, Any] | None = None
        self._pending: dict[int, _Pending] = {}
        self._next_id = 1
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._last_sent = time.monotonic()
        self._reconnect_task: asyncio.Task[None] | None = None
        self._keepalive_task: asyncio.Task[None] | None = None
        self._connected_event = asyncio.Event()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def connect(
        cls,
        host: str,
        port: int,
        *,
        mode: Mode | str = Mode.MSGPACK,
        client_name: str = "shithead-sdk 0.1",
        reconnect: bool = True,
        **options: Any,
    ) -> Client:
        """Open the connection and complete ``hello``/``welcome``; return the client.

        ``mode`` is ``"msgpack"`` (default) or ``"json"`` (JSON lines). ``options`` are the
        constructor's keyword arguments (``reconnect_for``: seconds to keep reconnecting after
        a drop, default from ``welcome.limits``; ``reconnect_attempts``: a cap on the attempts,
        default none; ``backoff_initial``, ``backoff_max``, ``rate_limit_retries``,
        ``keepalive``, ``timeout``). Raises
        ``OSError`` when the server cannot be reached (no retry: reconnecting only applies
        once a connection has been made), :class:`ServerError` when it refuses the handshake,
        ``TimeoutError`` after ``timeout`` seconds."""
        client = cls(host, port, mode=mode, client_name=client_name, reconnect=reconnect, **options)
        try:
            await client._open()
        except BaseException:
            await client.close()
            raise
        client._set_connected()
        return client

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def name(self) -> str | None:
        """The name in use (as the server spells it), or None before login."""
        return None if self.logged_in is None else self.logged_in["name"]

    @property
    def transport(self) -> asyncio.Transport | None:
        """The current socket's transport, None while disconnected (tests abort it)."""
        return None if self._wire is None else self._wire.transport

    async def wait_connected(self, timeout: float | None = None) -> None:
        """Wait until a connection is up (returns at once when it is). Raises
        :class:`ClientClosed` if the client closes first, ``TimeoutError`` after ``timeout``."""
        async with asyncio.timeout(timeout):
            while not self.connected:
                if self.closed:
                    raise ClientClosed("the client is closed")
                self._connected_event.clear()
                await self._connected_event.wait()

    async def close(self) -> None:
        """Close the connection for good (idempotent). Pending requests raise
        :class:`ClientClosed`; :meth:`messages` yields ``closed`` and ends."""
        if self.closed:
            return
        self._finish("closed by the client")
        wire, self._wire = self._wire, None
        if wire is not None and wire.transport is not None:
            wire.transport.close()  # flushes what is buffered, then closes
            try:
                async with asyncio.timeout(2.0):
                    await asyncio.shield(wire.lost)
            except TimeoutError:
                wire.transport.abort()
        for task in (self._reconnect_task, self._keepalive_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    def _finish(self, reason: str) -> None:
        """Mark the client closed: fail pending requests, end the message stream."""
        self.closed = True
        self.connected = False
        self._connected_event.set()
        self._fail_pending(ClientClosed(reason))
        self._queue.put_nowait({"type": "closed", "reason": reason})
        self._queue.put_nowait(_END)

    # ------------------------------------------------------------------ pushed messages

    async def messages(self) -> AsyncGenerator[dict[str, Any], None]:
        """Every pushed message and pseudo-event, in order, as wire dicts; ends after the
        ``closed`` pseudo-event. Meant for a single consumer."""
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later readers end too
                return
            yield item

    def pending_messages(self) -> list[dict[str, Any]]:
        """Take every message queued now, without waiting (:meth:`messages` still ends after)."""
        out = [self._queue.get_nowait() for _ in range(self._queue.qsize())]
        if out and out[-1] is _END:
            self._queue.put_nowait(out.pop())  # nothing follows the end marker
        return out

    # ------------------------------------------------------------------ requests

    async def login(
        self,
        name: str,
        password: str | None = None,
        *,
        guest: bool = False,
        bot: bool = False,
        server_password: str | None = None,
    ) -> dict[str, Any]:
        """Log in (PROTOCOL.md §3); returns ``logged_in``. The credentials are kept to log in
        again after a reconnect. Raises :class:`ServerError` (``AUTH_FAILED``...)."""
        creds = {"name": name, "password": password, "guest": guest, "bot": bot, "server_password": server_password}
        answer = await self.request(Login, **creds)
        self._credentials = creds
        self.logged_in = answer
        self._limit_output()  # the larger limit after login
        return answer

    async def list_tables(self) -> list[dict[str, Any]]:
        """The summaries of every open table."""
        return list((await self.request(ListTables))["tables"])

    async def create_table(
        self,
        name: str,
        preset: str = "classic",
        seats: int = 4,
        *,
        options: dict[str, Any] | None = None,
        password: str | None = None,
        action_seconds: float | None = None,
        bank_seconds: float | None = None,
        seed: int | None = None,
        deck: list[str] | None = None,
    ) -> int:
        """Open a table; returns its id. The creator owns it but must still :meth:`join`."""
        answer = await self.request(
            CreateTable,
            name=name,
            preset=preset,
            seats=seats,
            options=options,
            password=password,
            action_seconds=action_seconds,
            bank_seconds=bank_seconds,
            seed=seed,
            deck=deck,
        )
        return int(answer["table"])

    async def join(self, table: int, seat: int | None = None, password: str | None = None) -> Seat:
        """Take a seat (``seat`` or the first free one); returns ``Seat(seat, token)``, which
        the client also keeps in :attr:`seats` to resume after a reconnect."""
        answer = await self.request(Join, table=table, seat=seat, password=password)
        held = self.seats[table] = Seat(int(answer["seat"]), answer["token"])
        self.watching.pop(table, None)
        return held

    async def resume(self, table: int, token: str | None = None) -> Seat:
        """Take a seat back with its token (a registered account may leave it out)."""
        answer = await self.request(Resume, table=table, token=token)
        self.seats[table] = Seat(int(answer["seat"]), answer["token"])
        return self.seats[table]

    async def watch(self, table: int, password: str | None = None) -> None:
        """Watch a table as a spectator (watched again after a reconnect)."""
        await self.request(Watch, table=table, password=password)
        self.watching[table] = password

    async def leave(self, table: int) -> None:
        """Give up the seat (between games) or stop watching."""
        await self.request(Leave, table=table)
        self.seats.pop(table, None)
        self.watching.pop(table, None)

    async def start(self, table: int) -> None:
        """Deal the next game (the owner only, every seat taken)."""
        await self.request(Start, table=table)

    async def act(self, table: int, seq: int, action: str) -> int:
        """Play ``action`` on the state numbered ``seq``.

        Returns the newest ``seq`` of this table received before the ``ok``: the server sends
        the states an action causes after its ``ok``, so states up to that number do not show
        this action yet (a bot should not act on them). Raises :class:`ServerError` with
        ``STALE_SEQ`` (decide again on the newest state) or ``ILLEGAL_ACTION`` (``reason``)."""
        pending = await self._request_pending(Act, {"table": table, "seq": seq, "action": action}, table)
        return pending.seq_at_answer

    async def chat(self, table: int, text: str) -> None:
        """Say ``text`` at a table where this client sits or watches."""
        await self.request(Chat, table=table, text=text)

    async def add_bot(self, table: int, bot: str, seat: int | None = None) -> None:
        """Seat one of the server's bundled bots (the owner only, between games)."""
        await self.request(AddBot, table=table, bot=bot, seat=seat)

    async def get_record(self, game: int) -> dict[str, Any]:
        """The stored record of a finished game (PROTOCOL.md, ``record``)."""
        return dict((await self.request(GetRecord, game=game))["record"])

    async def ping(self) -> float:
        """Send ``ping``; returns the round trip in seconds."""
        began = time.monotonic()
        await self.request(Ping)
        return time.monotonic() - began

    async def request(self, cls: type[Message], **fields: Any) -> dict[str, Any]:
        """Send a request of any message class with ``fields`` (the id is added; None fields
        are left out) and return its answer as a wire dict. The methods above are this plus
        bookkeeping."""
        pending = await self._request_pending(cls, fields, fields.get("table"))
        return encode_message(pending.future.result(), validate=False)

    async def _request_pending(
        self, cls: type[Message], fields: dict[str, Any], table: int | None, *, internal: bool = False
    ) -> _Pending:
        """Send and await, retrying RATE_LIMITED; return the resolved pending entry."""
        attempt = 0
        while True:
            pending = self._send(cls, fields, table, internal=internal)
            try:
                await pending.future
                return pending
            except ServerError as exc:
                if exc.code != ErrorCode.RATE_LIMITED or attempt >= self.rate_limit_retries:
                    raise
                attempt += 1
                wait = exc.retry_after if exc.retry_after is not None else 0.05
                log.debug("%s rate limited: retrying in %.3f s", cls.TYPE, wait)
                await asyncio.sleep(wait)

    def _send(
        self, cls: type[Message], fields: dict[str, Any], table: int | None, *, internal: bool = False
    ) -> _Pending:
        """Encode and write one request; its answer resolves the returned entry's future."""
        if self.closed:
            raise ClientClosed("the client is closed")
        wire = self._wire
        if (
            wire is None
            or wire.transport is None
            or wire.transport.is_closing()
            or wire.conn.closed
            or not (self.connected or internal)
        ):
            raise ConnectionLost("not connected (the client is reconnecting)")
        rid, self._next_id = self._next_id, self._next_id % (2**31 - 1) + 1  # ids stay within int32
        build: Callable[..., Message] = cls  # every request class takes id and its own fields
        data = wire.conn.send(build(id=rid, **{k: v for k, v in fields.items() if v is not None}))
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        pending = self._pending[rid] = _Pending(future, table)
        wire.transport.write(data)
        self._last_sent = time.monotonic()
        return pending

    def _fail_pending(self, exc: Exception) -> None:
        pending, self._pending = self._pending, {}
        for p in pending.values():
            if not p.future.done():
                p.future.set_exception(exc)
                p.future.exception()  # retrieved: an abandoned request must not log a warning

    # ------------------------------------------------------------------ receiving

    def _on_data(self, wire: _Wire, data: bytes) -> None:
        if wire is not self._wire or wire.conn.closed:
            return  # a stale connection, or one the server has ended: nothing more counts
        try:
            messages = wire.conn.receive_data(data)
        except RemoteProtocolError as exc:
            # The server sent something we cannot read: handle what came before it, then drop
            # the connection (a reconnect starts afresh).
            log.warning("protocol error from the server: %s", exc)
            for msg in exc.received:
                self._dispatch(wire, msg)
            if wire.transport is not None:
                wire.transport.abort()
            return
        for msg in messages:
            self._dispatch(wire, msg)

    def _dispatch(self, wire: _Wire, msg: Message) -> None:
        if isinstance(msg, Error) and msg.code in FATAL:
            wire.fatal = msg.code
        rid = getattr(msg, "id", None)
        pending = self._pending.pop(rid, None) if rid is not None else None
        if pending is not None:
            if pending.table is not None and pending.table in self.states:
                pending.seq_at_answer = self.states[pending.table]["seq"]
            if not pending.future.done():
                if isinstance(msg, Error):
                    pending.future.set_exception(
                        ServerError(
                            msg.code, msg.message, reason=msg.reason, retry_after=msg.retry_after, request_id=msg.id
                        )
                    )
                else:
                    pending.future.set_result(msg)
            return
        if rid is not None and not isinstance(msg, Error):
            log.debug("dropping an answer to no pending request: %s", msg.TYPE)
            return
        item = encode_message(msg, validate=False)
        if isinstance(msg, State):
            self.states[msg.table] = item
        elif isinstance(msg, TableUpdate):
            self.summaries[msg.table] = item["summary"]
        elif isinstance(msg, Error) and msg.code == ErrorCode.BAD_TOKEN:
            # Our seat was taken over by a newer connection: it is no longer ours to resume.
            # The error names the table (older servers did not: then every seat is in doubt).
            log.warning("a seat was taken over by another connection: %s", msg.message)
            if msg.table is not None:
                self.seats.pop(msg.table, None)
            else:
                self.seats.clear()
        self._queue.put_nowait(item)

    def _on_lost(self, wire: _Wire, exc: Exception | None) -> None:
        if wire is not self._wire:
            return
        self._wire = None
        self.connected = False
        self._fail_pending(ConnectionLost(f"connection lost{f': {exc}' if exc else ''}"))
        if self.closed or self._reconnect_task is not None:
            return  # closed by us, or a reconnect attempt failed: its loop carries on
        code = wire.fatal
        reason = f"the server closed the connection ({code})" if code else f"connection lost ({exc or 'EOF'})"
        retry = self.reconnect and code not in _NO_RECONNECT
        log.info("%s; %s", reason, "reconnecting" if retry else "not reconnecting")
        self._queue.put_nowait(
            {"type": "disconnected", "reason": reason, "code": code and str(code), "reconnecting": retry}
        )
        if retry:
            self._reconnect_task = asyncio.get_running_loop().create_task(self._reconnect_loop())
        else:
            self._finish(reason)

    # ------------------------------------------------------------------ connecting

    async def _open(self) -> None:
        """Connect and complete the handshake (hello/welcome) within ``timeout``. The client is
        not yet :attr:`connected` afterwards: the caller decides when user requests may flow."""
        loop = asyncio.get_running_loop()
        conn = Connection(Role.CLIENT, mode=self.mode)
        async with asyncio.timeout(self.timeout):
            _, wire = await loop.create_connection(lambda: _Wire(self, conn), self.host, self.port)
            self._wire = wire
            pending = self._send(Hello, {"version": PROTOCOL_VERSION, "client": self.client_name}, None, internal=True)
            welcome = await pending.future
        self.welcome = encode_message(welcome, validate=False)
        self._limit_output()
        if self._keepalive_task is None:
            self._keepalive_task = loop.create_task(self._keepalive_loop())

    def _set_connected(self) -> None:
        self.connected = True
        self._connected_event.set()

    def _limit_output(self) -> None:
        """Refuse locally what the server would refuse fatally: frames over its input limit."""
        wire, limits = self._wire, self.welcome.get("limits") or {}
        key = "max_frame_in" if wire is not None and wire.conn.logged_in else "max_frame_in_before_login"
        if wire is not None and isinstance(limits.get(key), int) and limits[key] > 0:
            wire.conn.max_out = limits[key]

    def reconnect_window(self) -> float:
        """Seconds to keep trying after a drop (see the module docstring)."""
        if self.reconnect_for is not None:
            return self.reconnect_for
        limits = self.welcome.get("limits") or {}
        return float(limits.get("reconnect_grace", 120.0)) + float(limits.get("restart_grace", 30.0)) + RECONNECT_MARGIN

    async def _reconnect_loop(self) -> None:
        """Retry with back-off until the connection, the login and the seats are back, or the
        window (:meth:`reconnect_window`, from the drop) is over."""
        delay = self.backoff_initial
        give_up_at = time.monotonic() + self.reconnect_window()
        floor = 0.0  # the server's retry_after of the last refusal: no attempt before it
        attempt = 0
        try:
            while self.reconnect_attempts is None or attempt < self.reconnect_attempts:
                left = give_up_at - time.monotonic()
                if left <= 0.001:
                    break
                # Jitter (bots do not stampede), never below what the server asked for; the
                # last attempt is made at the end of the window, not skipped.
                wait = min(max(delay * random.uniform(0.5, 1.0), floor), left)
                if floor > left:
                    break  # the server will not take us back within the window
                attempt += 1
                self._queue.put_nowait(
                    {
                        "type": "reconnecting",
                        "attempt": attempt,
                        "retry_in": round(wait, 3),
                        "gives_up_in": round(left, 3),
                    }
                )
                await asyncio.sleep(wait)
                delay, floor = min(delay * 2, self.backoff_max), 0.0
                try:
                    event = await self._reestablish(attempt)
                except ServerError as exc:
                    if exc.code in _AUTH_FATAL:
                        self._give_up(f"login refused after reconnecting: {exc}")
                        return
                    if exc.retry_after is not None:  # LOGIN_THROTTLED, RATE_LIMITED, STORAGE_FAILED
                        floor = exc.retry_after
                    log.info("reconnect attempt %d refused: %s", attempt, exc)
                except (OSError, TimeoutError) as exc:  # ConnectionLost is an OSError too
                    log.info("reconnect attempt %d failed: %s", attempt, exc)
                else:
                    self.reconnects += 1
                    self._queue.put_nowait(event)
                    self._set_connected()
                    return
                self._drop_wire()
            self._give_up(f"could not reconnect after {attempt} attempts in {self.reconnect_window():g} s")
        finally:
            self._reconnect_task = None
            if not self.connected:
                self._drop_wire()

    def _drop_wire(self) -> None:
        wire, self._wire = self._wire, None
        self.connected = False
        if wire is not None and wire.transport is not None:
            wire.transport.abort()

    def _give_up(self, reason: str) -> None:
        log.warning("%s", reason)
        self._drop_wire()
        self._finish(reason)

    async def _reestablish(self, attempt: int) -> dict[str, Any]:
        """One reconnect: handshake, login, resume seats, watch again. Returns the
        ``reconnected`` pseudo-event; raises as the requests do."""
        await self._open()
        if self._credentials is not None:
            creds = dict(self._credentials)
            if self.seats:  # proves the name to the server's failed-login throttle
                creds["token"] = next(iter(self.seats.values())).token
            pending = await self._request_pending(Login, creds, None, internal=True)
            self.logged_in = encode_message(pending.future.result(), validate=False)
            self._limit_output()
        # Every resume and watch is written at once (answered in order, each resume followed by
        # its snapshot); then user requests may flow: a bot acts on the snapshot as it arrives.
        asks = [
            (t, self._send(Resume, {"table": t, "token": s.token}, t, internal=True)) for t, s in self.seats.items()
        ]
        asks += [
            (t, self._send(Watch, {"table": t, "password": pw}, t, internal=True)) for t, pw in self.watching.items()
        ]
        self._set_connected()
        await asyncio.gather(*(p.future for _, p in asks), return_exceptions=True)
        resumed: list[dict[str, Any]] = []
        watching: list[int] = []
        lost: list[dict[str, Any]] = []
        for table, p in asks:
            exc = p.future.exception()
            if isinstance(exc, ServerError) and exc.code not in _TRANSIENT:
                lost.append({"table": table, "code": str(exc.code), "message": exc.message})
                self.seats.pop(table, None)
                self.watching.pop(table, None)
            elif exc is not None:
                # Connection lost, rate limited, or the server cannot write its database (it takes
                # no resume then): this attempt failed, the seat is still ours to try again.
                raise exc
            elif isinstance(answer := p.future.result(), Joined):
                self.seats[table] = Seat(answer.seat, answer.token)
                resumed.append({"table": table, "seat": answer.seat})
            else:
                watching.append(table)
        log.info("reconnected (attempt %d): resumed %s, lost %s", attempt, resumed, lost)
        return {"type": "reconnected", "attempt": attempt, "resumed": resumed, "watching": watching, "lost": lost}

    async def _keepalive_loop(self) -> None:
        """Ping whenever nothing was sent for a while, so the server's idle timeout never hits."""
        while not self.closed:
            idle = float((self.welcome.get("limits") or {}).get("idle_timeout") or 300.0)
            interval = min(60.0, idle / 3) if self.keepalive is None else self.keepalive
            wait = self._last_sent + interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self._last_sent = time.monotonic()
            if self.connected:
                try:
                    await self.ping()
                except (ConnectionLost, ServerError) as exc:
                    log.debug("keep-alive ping failed: %s", exc)
