"""An asyncio client for the Shithead server, built on the sans-I/O :class:`protocol.Connection`.

Typical use::

    client = await Client.connect("127.0.0.1", 7433)
    await client.login("alice", guest=True)
    table = await client.create_table("friday", preset="classic", seats=2)
    seat, token = await client.join(table)
    async for msg in client.messages():
        if isinstance(msg, State) and msg.view["legal"]:
            await client.act(table, msg.seq, msg.view["legal"][0])

**Requests.** Each request method sends one message with a fresh id and awaits the answer
with that id (``docs/PROTOCOL.md`` §4). An ``error`` answer raises :class:`ServerError`
(``.code``: the wire code), except ``RATE_LIMITED``, which is first retried after its
``retry_after`` up to ``rate_limit_retries`` times (the server did not carry it out, so
resending is safe). A request the protocol layer refuses before sending (a text too long, a
name with a control character) raises :class:`protocol.LocalProtocolError` and sends nothing. A request whose connection
drops before the answer, or made while disconnected, raises :class:`ConnectionLost`; after
:meth:`Client.close`, :class:`ClientClosed` (a subclass).

**Typed, as decoded.** Every message the client hands out is the
:class:`protocol.messages.Message` the connection decoded (``State``, ``TableUpdate``...), its
nested maps typed by :mod:`protocol.payloads` (``State.view`` is a ``View``): nothing is
re-encoded on the way to the caller. Answers come back the same way (:meth:`Client.request`),
or as their useful part (:meth:`Client.list_tables`: the summaries). Read a message by its
class and attributes (``isinstance(msg, State)``, ``msg.deadline``); an optional field absent
on the wire is None.

**Pushed messages.** Everything that answers no request (``state``, ``table_update``,
``chat_message``, ``game_over``, an ``error`` without a pending id) is queued in the order
received for :meth:`Client.messages` (one consumer; the queue is unbounded, so a long-lived
client must read it). :attr:`Client.states` keeps the latest ``State`` and
:attr:`Client.summaries` the latest summary per table the client is at: :meth:`Client.leave`
forgets the table (also when the server answers that the client is not there, as at a
tournament's table, which closes after its one game), so a client that plays for days holds no
more than the tables it is at. **Connection events** (:mod:`client.sdk.events`, which
describes each) tell a UI what happens to the connection: ``Disconnected``, ``Reconnecting``,
``Reconnected`` and, last, ``Closed``.

**Reconnecting.** When the connection drops (not by :meth:`Client.close`, not after a fatal
error saying that this client is broken) and ``reconnect`` is true, the client retries with
back-off for as long as the server keeps a seat (:mod:`client.sdk.reconnect`: ``reconnect_for``
seconds, by default from ``welcome.limits``; ``reconnect_attempts``, ``backoff_initial``,
``backoff_max``). Each attempt is ``hello``, ``login`` with the login token of the first login
(so a guest comes back as the same guest) and the token of a held seat (which the server's
failed-login throttle lets through), ``resume`` of
every seat held (with its token) and ``watch`` of every table watched. A ``going_away`` from
the server is passed on like any pushed message; reconnecting goes on. A refusal that says "not
now" (``LOGIN_THROTTLED`` of the login, ``RATE_LIMITED`` or ``STORAGE_FAILED`` of a resume)
fails that attempt only and the seat is kept. A resume refused otherwise (``BAD_TOKEN``,
``UNKNOWN_TABLE``) forgets that seat (``lost``). A refused login (``AUTH_FAILED``,
``GUESTS_NOT_ALLOWED``, ``SERVER_PASSWORD_REQUIRED``) or the end of the window closes the
client.

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
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, TypeVar

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
    LoggedIn,
    Login,
    Logout,
    Message,
    Ping,
    Record,
    Resume,
    Start,
    State,
    StateMode,
    TableCreated,
    Tables,
    TableUpdate,
    Watch,
    Welcome,
)
from protocol.payloads import RuleOptions, StoredGame, TableSummary, WelcomeLimits

from .events import (
    PSEUDO_EVENTS,
    ClientClosed,
    Closed,
    ConnectionLost,
    Disconnected,
    HeldSeat,
    Item,
    LostSeat,
    Reconnected,
    ResumedSeat,
    ServerError,
)
from .link import Link, Pending
from .reconnect import NO_RECONNECT, TRANSIENT, default_window, retry_until_back, seconds

__all__ = ["PSEUDO_EVENTS", "Client", "ClientClosed", "ConnectionLost", "HeldSeat", "Item", "ServerError"]

log = logging.getLogger(__name__)

_A = TypeVar("_A", bound=Message)


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
        states: StateMode | str = StateMode.ALL,
    ) -> None:
        self.host, self.port, self.mode, self.client_name = host, port, Mode(mode), client_name
        self.reconnect, self.reconnect_for, self.reconnect_attempts = reconnect, reconnect_for, reconnect_attempts
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.rate_limit_retries, self.keepalive, self.timeout = rate_limit_retries, keepalive, timeout
        #: Which states the seats of this client get (``hello.states``, PROTOCOL.md §6): every
        #: one, or with ``turns`` only those it must act on (with the events in between).
        self.state_mode = StateMode(states)
        self.welcome: Welcome | None = None  #: The last ``welcome`` (None before the handshake).
        self.logged_in: LoggedIn | None = None  #: The last ``logged_in``, or None before login.
        self.states: dict[int, State] = {}  #: The latest ``state`` per table id.
        self.summaries: dict[int, TableSummary] = {}  #: The latest summary per table id.
        self.seats: dict[int, HeldSeat] = {}  #: Seats held by table id (resumed after a reconnect).
        self.watching: dict[int, str | None] = {}  #: Tables watched, with their passwords.
        self.reconnects = 0  #: How many times the connection was re-established.
        #: Whether requests may be sent now (not before the handshake, while reconnecting,
        #: after close). Read-only, like :attr:`closed` (closed for good).
        self.connected = False
        self.closed = False
        self._link: Link | None = None
        self._credentials: dict[str, object] | None = None  # the login's fields, for reconnecting
        self._pending: dict[int, Pending] = {}
        self._next_id = 1
        self._queue: asyncio.Queue[Item | None] = asyncio.Queue()  # None: the end
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
        **options: Any,  # the constructor's keyword arguments, of several types
    ) -> Client:
        """Open the connection and complete ``hello``/``welcome``; return the client.

        ``mode`` is ``"msgpack"`` (default) or ``"json"`` (JSON lines). ``options`` are the
        constructor's keyword arguments (``reconnect_for``: seconds to keep reconnecting after
        a drop, default from ``welcome.limits``; ``reconnect_attempts``: a cap on the attempts,
        default none; ``backoff_initial``, ``backoff_max``, ``rate_limit_retries``,
        ``keepalive``, ``timeout``, ``states``: ``"turns"`` for turn states). Raises
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
        return None if self.logged_in is None else self.logged_in.name

    @property
    def transport(self) -> asyncio.Transport | None:
        """The current socket's transport, None while disconnected (tests abort it)."""
        return None if self._link is None else self._link.transport

    async def wait_connected(self, timeout: float | None = None) -> None:  # noqa: ASYNC109 (the SDK's public API)
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
        link, self._link = self._link, None
        if link is not None and link.transport is not None:
            link.transport.close()  # flushes what is buffered, then closes
            try:
                async with asyncio.timeout(2.0):
                    await asyncio.shield(link.lost)
            except TimeoutError:
                link.transport.abort()
        for task in (self._reconnect_task, self._keepalive_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    def _finish(self, reason: str) -> None:
        """Mark the client closed: fail pending requests, end the message stream."""
        self.closed = True
        self.connected = False
        self._connected_event.set()
        self._fail_pending(ClientClosed(reason))
        self._queue.put_nowait(Closed(reason))
        self._queue.put_nowait(None)

    # ------------------------------------------------------------------ pushed messages

    async def messages(self) -> AsyncGenerator[Item, None]:
        """Every pushed message and connection event, in order; ends after
        :class:`~client.sdk.events.Closed`. Meant for a single consumer."""
        while True:
            item = await self._queue.get()
            if item is None:
                self._queue.put_nowait(None)  # later readers end too
                return
            yield item

    def pending_messages(self) -> list[Item]:
        """Take every message queued now, without waiting (:meth:`messages` still ends after)."""
        out = [self._queue.get_nowait() for _ in range(self._queue.qsize())]
        if out and out[-1] is None:
            self._queue.put_nowait(out.pop())  # nothing follows the end marker
        return [item for item in out if item is not None]

    # ------------------------------------------------------------------ requests

    async def login(
        self,
        name: str,
        password: str | None = None,
        *,
        guest: bool = False,
        bot: bool = False,
        viewer: bool = False,
        server_password: str | None = None,
        login_token: str | None = None,
        seat_token: str | None = None,
    ) -> LoggedIn:
        """Log in (PROTOCOL.md §3); returns ``logged_in``. The credentials are kept, with its login
        token, to log in again after a reconnect. ``seat_token`` (``login.token``): a seat's token
        kept from an earlier run. ``viewer``: a viewer, which only reads, named by the server
        (PROTOCOL.md §3, "Viewers"). Raises :class:`ServerError` (``AUTH_FAILED``, ``NAME_TAKEN``...)."""
        creds: dict[str, object] = {"name": name, "password": password, "guest": guest, "bot": bot, "viewer": viewer}
        creds |= {"server_password": server_password, "login_token": login_token, "token": seat_token}
        answer = _expect(await self.request(Login, **creds), LoggedIn)
        creds["name"] = answer.name  # (as the server keeps it: trimmed, NFC)
        if answer.token is not None:
            creds["login_token"] = answer.token
        self._credentials = creds
        self.logged_in = answer
        self._limit_output()  # the larger limit after login
        return answer

    async def logout(self) -> None:
        """End this login (its login token stops working); the server then closes the
        connection, and this client does not reconnect. Seats stay held by their tokens."""
        self._credentials = None
        await self.request(Logout)
        await self.close()

    async def list_tables(self) -> list[TableSummary]:
        """The summaries of every open table."""
        return list(_expect(await self.request(ListTables), Tables).tables)

    async def create_table(
        self,
        name: str,
        preset: str = "classic",
        seats: int = 4,
        *,
        options: RuleOptions | None = None,
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
        return _expect(answer, TableCreated).table

    async def join(self, table: int, seat: int | None = None, password: str | None = None) -> HeldSeat:
        """Take a seat (``seat`` or the first free one); returns ``HeldSeat(seat, token)``, which
        the client also keeps in :attr:`seats` to resume after a reconnect."""
        answer = _expect(await self.request(Join, table=table, seat=seat, password=password), Joined)
        held = self.seats[table] = HeldSeat(answer.seat, answer.token)
        self.watching.pop(table, None)
        return held

    async def resume(self, table: int, token: str | None = None) -> HeldSeat:
        """Take a seat back with its token (a registered account may leave it out)."""
        answer = _expect(await self.request(Resume, table=table, token=token), Joined)
        self.seats[table] = HeldSeat(answer.seat, answer.token)
        return self.seats[table]

    async def watch(self, table: int, password: str | None = None) -> None:
        """Watch a table as a spectator (watched again after a reconnect)."""
        await self.request(Watch, table=table, password=password)
        self.watching[table] = password

    async def leave(self, table: int) -> None:
        """Give up the seat (between games) or stop watching, and forget the table. Raises
        :class:`ServerError`: ``ALREADY_STARTED`` (a game runs: still seated), or
        ``NOT_AT_TABLE`` / ``UNKNOWN_TABLE`` (not there, or the table closed: forgotten too)."""
        try:
            await self.request(Leave, table=table)
        except ServerError as exc:
            if exc.code in (ErrorCode.NOT_AT_TABLE, ErrorCode.UNKNOWN_TABLE):
                self.forget(table)
            raise
        self.forget(table)

    def forget(self, table: int) -> None:
        """Drop what the client keeps of a table it is no longer at: after :meth:`leave`
        (done there), or when the table closed by itself (a tournament's table, when its one
        game ends), so that a client playing game after game holds only its current tables."""
        self.seats.pop(table, None)
        self.watching.pop(table, None)
        self.states.pop(table, None)
        self.summaries.pop(table, None)

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

    async def get_record(self, game: int) -> StoredGame:
        """The stored record of a finished game (PROTOCOL.md, ``record``)."""
        return _expect(await self.request(GetRecord, game=game), Record).record

    async def ping(self) -> float:
        """Send ``ping``; returns the round trip in seconds."""
        began = time.monotonic()
        await self.request(Ping)
        return time.monotonic() - began

    async def request(self, cls: type[Message], **fields: object) -> Message:
        """Send a request of any message class with ``fields`` (the id is added; None fields
        are left out) and return its answer, the message as decoded. The methods above are
        this plus bookkeeping."""
        table = fields.get("table")
        pending = await self._request_pending(cls, fields, table if isinstance(table, int) else None)
        return pending.future.result()

    async def ask(self, cls: type[Message], answer: type[_A], **fields: object) -> _A:
        """:meth:`request`, with its answer checked to be an ``answer``: anything else is the
        server's fault, raised as ``RemoteProtocolError`` (``BAD_MESSAGE``)."""
        return _expect(await self.request(cls, **fields), answer)

    async def _request_pending(
        self, cls: type[Message], fields: Mapping[str, object], table: int | None, *, internal: bool = False
    ) -> Pending:
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
        self, cls: type[Message], fields: Mapping[str, object], table: int | None, *, internal: bool = False
    ) -> Pending:
        """Encode and write one request; its answer resolves the returned entry's future."""
        if self.closed:
            raise ClientClosed("the client is closed")
        link = self._link
        if (
            link is None
            or link.transport is None
            or link.transport.is_closing()
            or link.conn.closed
            or not (self.connected or internal)
        ):
            raise ConnectionLost("not connected (the client is reconnecting)")
        rid, self._next_id = self._next_id, self._next_id % (2**31 - 1) + 1  # ids stay within int32
        build: Callable[..., Message] = cls  # every request class takes id and its own fields
        data = link.conn.send(build(id=rid, **{k: v for k, v in fields.items() if v is not None}))
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        pending = self._pending[rid] = Pending(future, table)
        link.transport.write(data)
        self._last_sent = time.monotonic()
        return pending

    def _fail_pending(self, exc: Exception) -> None:
        pending, self._pending = self._pending, {}
        for p in pending.values():
            if not p.future.done():
                p.future.set_exception(exc)
                p.future.exception()  # retrieved: an abandoned request must not log a warning

    # ------------------------------------------------------------------ receiving

    def _on_data(self, link: Link, data: bytes) -> None:
        if link is not self._link or link.conn.closed:
            return  # a stale connection, or one the server has ended: nothing more counts
        try:
            messages = link.conn.receive_data(data)
        except RemoteProtocolError as exc:
            # The server sent something we cannot read: handle what came before it, then drop
            # the connection (a reconnect starts afresh).
            log.warning("protocol error from the server: %s", exc)
            for msg in exc.received:
                self._dispatch(link, msg)
            if link.transport is not None:
                link.transport.abort()
            return
        for msg in messages:
            self._dispatch(link, msg)

    def _dispatch(self, link: Link, msg: Message) -> None:
        if isinstance(msg, Error) and msg.code in FATAL:
            link.fatal = msg.code
        rid = getattr(msg, "id", None)
        pending = self._pending.pop(rid, None) if rid is not None else None
        if pending is not None:
            if pending.table is not None and pending.table in self.states:
                pending.seq_at_answer = self.states[pending.table].seq
            if not pending.future.done():
                if isinstance(msg, Error):
                    pending.future.set_exception(ServerError.of(msg))
                else:
                    pending.future.set_result(msg)
            return
        if rid is not None and not isinstance(msg, Error):
            log.debug("dropping an answer to no pending request: %s", msg.TYPE)
            return
        if isinstance(msg, State):
            self.states[msg.table] = msg
        elif isinstance(msg, TableUpdate):
            self.summaries[msg.table] = msg.summary
        elif isinstance(msg, Error) and msg.code == ErrorCode.BAD_TOKEN:
            # Our seat was taken over by a newer connection: it is no longer ours to resume.
            # The error names the table (older servers did not: then every seat is in doubt).
            log.warning("a seat was taken over by another connection: %s", msg.message)
            if msg.table is not None:
                self.seats.pop(msg.table, None)
            else:
                self.seats.clear()
        self._queue.put_nowait(msg)

    def _on_lost(self, link: Link, exc: Exception | None) -> None:
        if link is not self._link:
            return
        self._link = None
        self.connected = False
        self._fail_pending(ConnectionLost(f"connection lost{f': {exc}' if exc else ''}"))
        if self.closed or self._reconnect_task is not None:
            return  # closed by us, or a reconnect attempt failed: its loop carries on
        code = link.fatal
        reason = f"the server closed the connection ({code})" if code else f"connection lost ({exc or 'EOF'})"
        retry = self.reconnect and code not in NO_RECONNECT
        log.info("%s; %s", reason, "reconnecting" if retry else "not reconnecting")
        self._queue.put_nowait(Disconnected(reason, None if code is None else str(code), retry))
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
            _, link = await loop.create_connection(
                lambda: Link(conn, self._on_data, self._on_lost), self.host, self.port
            )
            self._link = link
            hello = {"version": PROTOCOL_VERSION, "client": self.client_name}
            if self.state_mode != StateMode.ALL:  # (a field older servers do not know: only when asked)
                hello["states"] = self.state_mode
            pending = self._send(Hello, hello, None, internal=True)
            self.welcome = _expect(await pending.future, Welcome)
        self._limit_output()
        if self._keepalive_task is None:
            self._keepalive_task = loop.create_task(self._keepalive_loop())

    def _set_connected(self) -> None:
        self.connected = True
        self._connected_event.set()

    def _limit_output(self) -> None:
        """Refuse locally what the server would refuse fatally: frames over its input limit."""
        link, limits = self._link, self._limits()
        limit = limits.get("max_frame_in" if link is not None and link.conn.logged_in else "max_frame_in_before_login")
        if link is not None and isinstance(limit, int) and limit > 0:
            link.conn.max_out = limit

    def _limits(self) -> WelcomeLimits | dict[str, object]:
        """The server's limits from ``welcome`` (nothing before the handshake)."""
        return {} if self.welcome is None else self.welcome.limits

    def reconnect_window(self) -> float:
        """Seconds to keep trying after a drop (see the module docstring)."""
        if self.reconnect_for is not None:
            return self.reconnect_for
        return default_window(self._limits())

    async def _reconnect_loop(self) -> None:
        """Retry until the connection, the login and the seats are back, or the policy of
        :mod:`client.sdk.reconnect` gives up (then the client closes)."""
        try:
            back = await retry_until_back(
                self._reestablish,
                announce=self._queue.put_nowait,
                failed=self._drop_link,
                window=self.reconnect_window(),
                attempts=self.reconnect_attempts,
                backoff_initial=self.backoff_initial,
                backoff_max=self.backoff_max,
            )
            if isinstance(back, Reconnected):
                self.reconnects += 1
                self._queue.put_nowait(back)
                self._set_connected()
            else:
                self._give_up(back)
        finally:
            self._reconnect_task = None
            if not self.connected:
                self._drop_link()

    def _drop_link(self) -> None:
        link, self._link = self._link, None
        self.connected = False
        if link is not None and link.transport is not None:
            link.transport.abort()

    def _give_up(self, reason: str) -> None:
        log.warning("%s", reason)
        self._drop_link()
        self._finish(reason)

    async def _reestablish(self, attempt: int) -> Reconnected:
        """One reconnect: handshake, login, resume seats, watch again. Returns the
        ``reconnected`` pseudo-event; raises as the requests do."""
        await self._open()
        if self._credentials is not None:
            creds = dict(self._credentials)
            if self.seats:  # proves the name to the server's failed-login throttle
                creds["token"] = next(iter(self.seats.values())).token
            pending = await self._request_pending(Login, creds, None, internal=True)
            self.logged_in = _expect(pending.future.result(), LoggedIn)
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
        resumed: list[ResumedSeat] = []
        watching: list[int] = []
        lost: list[LostSeat] = []
        for table, p in asks:
            exc = p.future.exception()
            if isinstance(exc, ServerError) and exc.code not in TRANSIENT:
                lost.append({"table": table, "code": str(exc.code), "message": exc.message})
                self.seats.pop(table, None)
                self.watching.pop(table, None)
            elif exc is not None:
                # Connection lost, rate limited, or the server cannot write its database (it takes
                # no resume then): this attempt failed, the seat is still ours to try again.
                raise exc
            elif isinstance(answer := p.future.result(), Joined):
                self.seats[table] = HeldSeat(answer.seat, answer.token)
                resumed.append({"table": table, "seat": answer.seat})
            else:
                watching.append(table)
        log.info("reconnected (attempt %d): resumed %s, lost %s", attempt, resumed, lost)
        return Reconnected(attempt, resumed, watching, lost)

    async def _keepalive_loop(self) -> None:
        """Ping whenever nothing was sent for a while, so the server's idle timeout never hits."""
        while not self.closed:
            idle = seconds(self._limits().get("idle_timeout"), 300.0)
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


def _expect(answer: Message, cls: type[_A]) -> _A:
    """``answer`` as the answer class its request must get; anything else is the server's fault."""
    if not isinstance(answer, cls):
        raise RemoteProtocolError(ErrorCode.BAD_MESSAGE, f"expected {cls.TYPE}, the server answered {answer.TYPE}")
    return answer
