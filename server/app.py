"""The asyncio shell: sockets, timers, storage threads, shutdown. The only place with await.

Per connection one :class:`ClientSession` (an ``asyncio.Protocol``: callbacks measured
faster than streams, DESIGN.md §4) drives a sans-I/O :class:`protocol.connection.Connection`
and hands validated messages to :class:`App`, which routes them to the pure coordinators
(:mod:`server.table`) and flushes what they want sent.

Resource handling
    * One sweeper task, twice a second, enforces the handshake and idle timeouts and runs the
      table clocks; no read is wrapped in a timeout.
    * SQLite is used from one writer thread only, so the event loop never waits on disk. Every
      change to a table or tournament is journaled (:mod:`server.durability`,
      :mod:`server.journal`): the writes of one pass of the loop are committed together, and
      what a client is told about a change is held back by its session until the commit
      (:meth:`ClientSession._write`). Shutdown waits for every pending write.
    * At start the live state is read back: tables, games in progress and tournaments come
      back, and the bundled bots that held seats are started again.
    * Password hashes run in a thread pool, a bounded number at a time.
    * A connection whose unsent output passes ``max_output_buffer`` is closed: it reads too
      slowly; its seat waits for a reconnect or its clock.

Error handling
    A malformed frame or message gets one ``error`` and the connection is closed; a
    well-formed request that cannot be granted gets an ``error`` with its code and the
    connection stays open. An unexpected exception while handling one request is logged
    and answered with ``INTERNAL_ERROR``; it never reaches other connections or tables.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, cast

from protocol.connection import Connection, ConnectionState, check_version
from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Act,
    AddBot,
    Chat,
    CreateTable,
    CreateTournament,
    GetRecord,
    GetTournament,
    Hello,
    Join,
    GoingAway,
    Joined,
    Leave,
    ListTables,
    ListTournaments,
    LoggedIn,
    Login,
    Message,
    Ok,
    Ping,
    Pong,
    Record,
    Register,
    Resume,
    Start,
    StartTournament,
    TableCreated,
    Tables,
    Watch,
    Watching,
    Welcome,
)
from server.auth import PasswordHasher, new_salt, new_token, token_hash, token_matches
from server.config import ServerConfig
from server.engine import RulesError, check_seats, make_rules, parse_cards
from server.engine.cards import CardError
from server.engine.deal import check_deck
from server.durability import Durability, Restored
from server.journal import Journal
from server.store import Store
from server.throttle import LoginThrottle
from server.table import FinishedGame, Outbox, StateOut, Table, TableError
from server.tournament.service import TournamentService

log = logging.getLogger(__name__)

SERVER_NAME = "shithead-server 0.1"
SWEEP_INTERVAL = 0.5
HEARTBEAT_EVERY = 4
"""Sweeps between heartbeats (2 s): after a crash, clocks resume from the last one."""
STORAGE_RETRY = 1.0
"""Seconds a client waits before retrying while the database cannot be written."""


#: Requests refused with STORAGE_FAILED while the database cannot be written.
_WRITES = frozenset({Act, Join, Leave, Start, Resume, CreateTable, AddBot, CreateTournament, Register, StartTournament})


class ClientSession(asyncio.Protocol):
    """One client connection: bytes in and out, rate limit, and who is logged in."""

    def __init__(self, app: App) -> None:
        lim = app.config.limits
        self.app = app
        self.conn = Connection(
            "server",
            max_in=lim.max_frame_in,
            max_out=lim.max_frame_out,
            max_in_before_login=lim.max_frame_in_before_login,
        )
        self.transport: asyncio.Transport | None = None
        self.address = "?"
        self.name = ""
        self.bot = False
        self.guest = False
        self.house: str | None = None
        """The bot's kind when logged in as one of this server's bundled bots."""
        self.logged_in = False
        # While an answer is prepared off the event loop's turn (login, a record from disk, a
        # bot taking its seat), later requests wait here so that answers keep their order.
        self.waiting = False
        self.backlog: list[Message] = []
        now = time.monotonic()
        self.connected_at = now
        self.last_active = now
        self.tokens = float(lim.rate_burst)
        self.refilled = now
        self.closing = False
        # Output that waits for a commit (see server.journal): (batch number, bytes), in order.
        self.held: list[tuple[int, bytes]] = []
        self.close_when_released = False

    def __repr__(self) -> str:
        return f"<session {self.name or '-'} {self.address}>"

    # --- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports have the same interface without subclassing asyncio.Transport.
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if peer else "?"
        self.app.connected(self)

    def data_received(self, data: bytes) -> None:
        self.last_active = time.monotonic()
        try:
            messages = self.conn.receive_data(data)
        except RemoteProtocolError as exc:
            for msg in exc.received:
                self.app.handle(self, msg)
            if not self.closing and self.conn.state is ConnectionState.CLOSING:
                self._write(self.conn.report(exc))
            self.close()
            return
        for msg in messages:
            if self.closing:
                return
            if not self._allow(getattr(msg, "id", None)):
                continue
            if self.waiting:
                # Answered in order once the pending answer is out; the rate limit bounds the list.
                self.backlog.append(msg)
            else:
                self.app.handle(self, msg)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.app.disconnected(self)

    # --- sending

    def send(self, msg: Message) -> None:
        self.send_many([msg])

    def send_many(self, msgs: list[Message | StateOut]) -> None:
        """Encode ``msgs`` and write them with one call (one system call, not one each).

        A broadcast :class:`~server.table.StateOut` is spliced from its change's shared
        encoding; other messages are validated and encoded whole.
        """
        if self.closing or self.transport is None:
            return
        chunks = []
        conn = self.conn
        for msg in msgs:
            try:
                if type(msg) is StateOut:
                    chunks.append(conn.send_shared("state", msg.shared, msg.own, msg.part))
                elif type(msg) is Ok:
                    chunks.append(conn.send_ok(msg.id))
                else:
                    chunks.append(conn.send(msg))  # type: ignore[arg-type]
            except LocalProtocolError:
                log.exception("refusing to send an invalid message to %r", self)
        if chunks:
            self._write(chunks[0] if len(chunks) == 1 else b"".join(chunks))

    def send_unheld(self, msg: Message) -> None:
        """Send ``msg``, which depends on no change to the game state (``welcome``,
        ``logged_in``, ``pong``), without waiting for the journal: at once, unless something is
        held for this session already, then behind it (order is kept).

        This is what lets a client connect and log in while the database cannot be written;
        its requests that change state are then refused with ``STORAGE_FAILED``.
        """
        if self.closing or self.transport is None:
            return
        if self.held:
            self.send(msg)
            return
        try:
            self._put(self.conn.send(msg))
        except LocalProtocolError:
            log.exception("refusing to send an invalid message to %r", self)

    def send_now(self, msg: Message) -> None:
        """Send ``msg`` ahead of anything held for a commit (it must reveal no uncommitted state)."""
        if self.closing or self.transport is None:
            return
        try:
            self._put(self.conn.send(msg))
        except LocalProtocolError:
            log.debug("not sending %s to %r: connection is %s", msg.TYPE, self, self.conn.state)

    def error(
        self,
        code: ErrorCode,
        message: str,
        request_id: int | None = None,
        *,
        retry_after: float | None = None,
        reason: str | None = None,
        table: int | None = None,
        now: bool = False,
    ) -> None:
        if self.closing or self.transport is None:
            return
        try:
            data = self.conn.send_error(code, message, request_id, retry_after=retry_after, reason=reason, table=table)
        except LocalProtocolError:
            # The connection is past the point of sending (e.g. it already sent a fatal error).
            log.debug("not sending %s to %r: connection is %s", code, self, self.conn.state)
            self.close()
            return
        if now:
            self._put(data)
        else:
            self._write(data)
        if self.conn.closed:
            self.close()

    def _write(self, data: bytes) -> None:
        """Write ``data``, or hold it while what it may tell is not committed yet."""
        if self.transport is None or self.closing:
            return
        need = self.app.journal.barrier if self.app.journal is not None else 0
        if need or self.held:
            if self.held and self.held[-1][0] > need:
                need = self.held[-1][0]  # never overtake what waits already
            if need > self.app.journal.committed:  # type: ignore[union-attr]
                self.held.append((need, data))
                self.app.held.add(self)
                return
        self._put(data)

    def release(self, committed: int) -> bool:
        """Write what was held for batches up to ``committed``; True when nothing is held."""
        held = self.held
        i = 0
        while i < len(held) and held[i][0] <= committed:
            i += 1
        if i:
            data = b"".join(d for _, d in held[:i])
            del held[:i]
            self._put(data)
        if not held and self.close_when_released:
            self.close()
        return not held

    def _put(self, data: bytes) -> None:
        transport = self.transport
        if transport is None or self.closing:
            return
        transport.write(data)
        if transport.get_write_buffer_size() > self.app.config.limits.max_output_buffer:
            log.warning("%r reads too slowly (%d bytes waiting): closing", self, transport.get_write_buffer_size())
            self.closing = True
            transport.abort()

    def close(self) -> None:
        if self.held and not self.closing:
            self.close_when_released = True  # after what it was told is committed and sent
            return
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()
        self.closing = True

    # --- limits

    def _allow(self, request_id: int | None) -> bool:
        """Token bucket: ``rate_per_second`` sustained, ``rate_burst`` at once."""
        lim = self.app.config.limits
        now = time.monotonic()
        self.tokens = min(float(lim.rate_burst), self.tokens + (now - self.refilled) * lim.rate_per_second)
        self.refilled = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        wait = max(0.001, math.ceil((1.0 - self.tokens) / lim.rate_per_second * 1000) / 1000)
        self.error(ErrorCode.RATE_LIMITED, f"too many messages: wait {wait} s", request_id, retry_after=wait)
        return False


class BotHost(Protocol):
    """Runs bundled bots for ``add_bot`` (injected by the composition root, ``server.__main__``,
    so that ``server`` does not import ``client``). A bot connects to this server like any
    client and logs in with the one-time ``name`` and ``password`` it is given."""

    def names(self) -> Sequence[str]:
        """The bots it can run."""
        ...

    async def seat(
        self,
        bot: str,
        *,
        host: str,
        port: int,
        table: int,
        seat: int | None,
        name: str,
        password: str,
        token: str | None = None,
    ) -> int:
        """Start ``bot``, seat it at ``table`` (``seat`` or the first free one; with ``token``, it
        resumes the seat that token holds) and return its seat once it sits there; it then plays
        until its table goes away. Raises on failure."""
        ...

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        """Start ``bot`` as participant ``name`` of ``tournament``: it registers and plays the
        tables it is seated at until the tournament is over. Returns once it has registered."""
        ...

    async def stop(self) -> None:
        """Stop every bot it runs."""
        ...


class App:
    """The server: sessions, tables, storage. See the module docstring."""

    def __init__(self, config: ServerConfig, *, bots: BotHost | None = None) -> None:
        self.config = config
        self.bots = bots
        # One-time logins for the bundled bots add_bot starts: name -> password, and their kinds.
        self.house_logins: dict[str, str] = {}
        self.house_kinds: dict[str, str] = {}
        self.next_house_bot = 1
        self.tournaments = TournamentService(self)
        self.sessions: set[ClientSession] = set()
        self.per_address: dict[str, int] = defaultdict(int)
        self.tables: dict[int, Table] = {}
        self.next_table_id = 1
        self.next_game_id = 1
        self.db_thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite")
        self.hasher = PasswordHasher(limit=config.limits.scrypt_concurrency)
        self.throttle = LoginThrottle()
        self.store: Store | None = None
        self.durable: Durability | None = None
        self.journal: Journal | None = None
        self.held: set[ClientSession] = set()
        """Sessions with output waiting for a commit."""
        self.server: asyncio.Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.stopping = False

    # --- lifecycle

    async def start(self) -> None:
        """Open the database (raises :class:`server.store.StoreError`), bring back the tables and
        tournaments it holds, listen, and seat the bundled bots of restored tables again."""
        loop = asyncio.get_running_loop()
        try:
            self.store = await loop.run_in_executor(
                self.db_thread, lambda: Store(self.config.db, synchronous=self.config.synchronous)
            )
        except BaseException:
            self.db_thread.shutdown(wait=False)
            raise
        self.durable = Durability(
            self.store,
            self.db_thread,
            tables=self.tables,
            tournaments=self.tournaments.tournaments,
            counters=self._counters,
            on_commit=self._committed,
            on_failure=self._storage_failed,
            on_recovery=self._storage_recovered,
        )
        self.journal = self.durable.journal
        restored = await self.db(self.durable.load, grace=self.config.restart_grace)
        last_game = await self.db(self.store.last_game_id)
        self._restore(restored, last_game)
        self.server = await loop.create_server(
            lambda: ClientSession(self), self.config.host, self.config.port, reuse_address=True
        )
        self._sweeper = asyncio.create_task(self._sweep())
        self._seat_house_bots()

    def _counters(self) -> dict[str, int]:
        return {
            "table": self.next_table_id,
            "game": self.next_game_id,
            "house_bot": self.next_house_bot,
            "tournament": self.tournaments.next_id,
        }

    def _restore(self, r: Restored, last_game: int) -> None:
        for t in r.tables:
            self.tables[t.id] = t
        for tour in r.tournaments:
            self.tournaments.restored(tour)
        for t in r.tables:
            if t.tournament is not None:
                self.tournaments.table_restored(t)
        c = r.counters
        self.next_table_id = max([c.get("table", 1), *(t.id + 1 for t in r.tables)])
        self.next_game_id = max([c.get("game", 1), last_game + 1, *(t.game_id + 1 for t in r.tables)])
        self.next_house_bot = c.get("house_bot", 1)
        self.tournaments.next_id = max([c.get("tournament", 1), *(t.id + 1 for t in r.tournaments)])
        running = sum(t.running for t in r.tables)
        if r.tables or r.tournaments:
            log.info(
                "restored %d tables (%d games in progress) and %d tournaments from %s; players have %g s "
                "more on their clocks to come back",
                len(r.tables),
                running,
                len(r.tournaments),
                self.config.db,
                self.config.restart_grace,
            )

    def _seat_house_bots(self) -> None:
        """Restart the bundled bots that held seats (or tournament places) before a restart."""
        if self.bots is None:
            return
        for t in self.tables.values():
            if t.tournament is not None:
                continue  # a tournament's bots register again and get their seats back
            for i, st in enumerate(t.seats):
                if st is None or st.session is not None:
                    continue
                if st.house is not None:
                    token, st.token_hash = new_token()
                    self._run_house_bot(st.house, st.name, table=t, seat=i, token=token)
                elif st.stand_in is not None and st.stand_in_kind is not None:
                    token, st.stand_in_hash = new_token()
                    self._run_house_bot(st.stand_in_kind, st.stand_in, table=t, seat=i, token=token)
                else:
                    continue
                self.durable.table_changed(t)  # type: ignore[union-attr]
        self.tournaments.restart_house_bots()

    def _run_house_bot(
        self,
        kind: str,
        name: str,
        *,
        table: Table,
        seat: int | None,
        token: str | None = None,
        request: tuple[ClientSession, int] | None = None,
    ) -> None:
        """Start bundled bot ``kind`` as ``name`` at ``table`` (a join, or with ``token`` a resume);
        ``request`` is the add_bot to answer once it sits (or failed to)."""
        assert self.bots is not None
        bots = self.bots
        password = secrets.token_urlsafe(24)
        self.house_logins[name] = password
        self.house_kinds[name] = kind

        async def run() -> None:
            try:
                await bots.seat(
                    kind,
                    host=self.local_host,
                    port=self.port,
                    table=table.id,
                    seat=seat,
                    name=name,
                    password=password,
                    token=token,
                )
            except Exception as exc:
                log.warning("bot %s could not take a seat at table %d: %s", name, table.id, exc)
                if request is not None:
                    code = exc.code if isinstance(exc, TableError) else ErrorCode.SEAT_TAKEN
                    request[0].error(code, f"the bot could not take a seat: {exc}", request[1])
            else:
                if request is not None:
                    request[0].send(Ok(id=request[1]))
            finally:
                self.house_logins.pop(name, None)

        if request is not None:
            self._answer_later(request[0], run())
        else:
            self._spawn(run())

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    @property
    def local_host(self) -> str:
        """An address of this server for a client in the same process (the bundled bots)."""
        host = self.config.host
        return "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host

    async def stop(self, reason: str = "the server is stopping") -> None:
        """Stop taking requests, finish every pending write, tell every client (``going_away``),
        close them, and close the database. Tables and games stay in it for the next start."""
        self.stopping = True
        if self.server is not None:
            self.server.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self.journal is not None:
            self.durable.heartbeat()  # type: ignore[union-attr]
            if not await self.journal.drain(timeout=10.0):
                log.error(
                    "the database could not be written before stopping: the last actions were not "
                    "acknowledged and are not kept"
                )
        bye = GoingAway(
            reason=f"{reason}; tables and games are saved and come back when it starts again", returning=True
        )
        for s in list(self.sessions):
            s.held.clear()  # (only if the last commit failed: nothing of it was acknowledged)
            s.send_now(bye)
            s.close()
        if self.bots is not None:
            await self.bots.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.get_running_loop().run_in_executor(None, self.db_thread.shutdown, True)
        if self.store is not None:
            self.store.close()

    # --- the journal's callbacks

    def _committed(self, batch: int) -> None:
        """Send what waited for ``batch``."""
        for s in list(self.held):
            if s.release(batch) or s.closing:
                self.held.discard(s)

    def _storage_failed(self, exc: BaseException) -> None:
        """The database cannot be written: play pauses (act and the clocks) until it can."""

    def _storage_recovered(self, stalled: float) -> None:
        """Play goes on: the time the database could not be written is given back to the clocks."""
        for t in self.tables.values():
            if t.running:
                t.turn_started += stalled

    async def db(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a store call on the writer thread."""
        return await asyncio.get_running_loop().run_in_executor(self.db_thread, lambda: fn(*args, **kwargs))

    def _answer_later(self, s: ClientSession, coro: Any) -> None:
        """Run ``coro``, which answers one request of ``s``, as a task. Requests ``s`` sends
        meanwhile wait in its backlog and are handled after it, in order."""
        s.waiting = True

        async def run() -> None:
            try:
                await coro
            finally:
                s.waiting = False
                while s.backlog and not s.waiting and not s.closing:
                    self.handle(s, s.backlog.pop(0))

        self._spawn(run())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- connections

    def connected(self, s: ClientSession) -> None:
        lim = self.config.limits
        if self.stopping:
            s.error(ErrorCode.SHUTTING_DOWN, "the server is shutting down")
            s.close()
            return
        if len(self.sessions) >= lim.max_connections or self.per_address[s.address] >= lim.max_connections_per_address:
            s.error(ErrorCode.TOO_MANY_CONNECTIONS, "too many connections; try again later")
            s.close()
            return
        self.sessions.add(s)
        self.per_address[s.address] += 1

    def disconnected(self, s: ClientSession) -> None:
        if s not in self.sessions:
            return
        self.sessions.discard(s)
        self.held.discard(s)
        self.per_address[s.address] -= 1
        if self.per_address[s.address] <= 0:
            del self.per_address[s.address]
        if self.stopping:
            return  # every seat is away after the restart anyway
        out = Outbox()
        now = time.monotonic()
        for t in self.tables.values():
            if s in t.watchers or t.seat_of(s) is not None:
                t.disconnected(s, out, now)
        self.flush(out)
        self.tournaments.disconnected(s)

    def flush(self, out: Outbox) -> None:
        """Journal what the coordinators changed, then send what they queued: in order, one
        write per session (held by the sessions until the journal has committed it)."""
        if out.saves:
            self.durable.save(out.saves)  # type: ignore[union-attr]
        batches: dict[ClientSession, list[Message | StateOut]] = {}
        for session, msg in out.items:
            batch = batches.get(session)  # type: ignore[call-overload]
            if batch is None:
                batches[session] = [msg]  # type: ignore[index]
            else:
                batch.append(msg)
        for session, msgs in batches.items():
            session.send_many(msgs)

    # --- requests

    def handle(self, s: ClientSession, msg: Message) -> None:
        """Answer one validated message; a failure here never escapes to other sessions."""
        try:
            if self.stopping:
                s.send_now(GoingAway(reason="the server is stopping", returning=True))
                s.close()
                return
            if self.journal is not None and self.journal.failed is not None and type(msg) in _WRITES:
                # Sent at once (ahead of answers that wait for the database): it reveals nothing.
                s.error(
                    ErrorCode.STORAGE_FAILED,
                    "the server cannot write to its database (disk full?): "
                    "play is paused until it can; nothing acknowledged is lost",
                    getattr(msg, "id", None),
                    retry_after=STORAGE_RETRY,
                    now=True,
                )
                return
            self._handle(s, msg)
        except TableError as exc:
            s.error(exc.code, exc.message, getattr(msg, "id", None), reason=exc.reason)
        except Exception:
            log.exception("internal error while handling %s from %r", msg.TYPE, s)
            s.error(
                ErrorCode.INTERNAL_ERROR,
                "the server failed on this request; it was not applied",
                getattr(msg, "id", None),
            )

    def _handle(self, s: ClientSession, msg: Message) -> None:
        if isinstance(msg, Hello):
            try:
                check_version(msg)
            except RemoteProtocolError as exc:
                s.error(exc.code, exc.message, msg.id)
                return
            s.send_unheld(
                Welcome(
                    id=msg.id,
                    version=PROTOCOL_VERSION,
                    server=SERVER_NAME,
                    limits=self.public_limits(),
                    capabilities=["json_lines", "resume", "clocks", "spectators", "records"],
                    password_required=self.config.password is not None,
                )
            )
            return
        if isinstance(msg, Ping):
            s.send_unheld(Pong(id=msg.id))
            return
        if isinstance(msg, Login):
            if s.logged_in:
                raise TableError(ErrorCode.ALREADY_LOGGED_IN, f"already logged in as {s.name}")
            self._answer_later(s, self._login(s, msg))
            return
        if not s.logged_in:
            raise TableError(ErrorCode.NOT_LOGGED_IN, "log in first")
        handler = self._handlers.get(type(msg))
        if handler is None:
            raise TableError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE} is not a request")
        handler(self, s, msg)

    def public_limits(self) -> dict[str, Any]:
        lim = self.config.limits
        return {
            "max_frame_in": lim.max_frame_in,
            "max_frame_in_before_login": lim.max_frame_in_before_login,
            "max_frame_out": lim.max_frame_out,
            "rate_per_second": lim.rate_per_second,
            "rate_burst": lim.rate_burst,
            "handshake_timeout": lim.handshake_timeout,
            "idle_timeout": lim.idle_timeout,
            "reconnect_grace": self.config.reconnect_grace,
            "restart_grace": self.config.restart_grace,
            "max_output_buffer": lim.max_output_buffer,
        }

    async def _login(self, s: ClientSession, msg: Login) -> None:
        try:
            await self._check_login(s, msg)
        except TableError as exc:
            s.error(exc.code, exc.message, msg.id, retry_after=exc.retry_after)
        except Exception:
            log.exception("login failed internally for %r", s)
            s.error(ErrorCode.INTERNAL_ERROR, "login failed on the server", msg.id)

    async def _check_login(self, s: ClientSession, msg: Login) -> None:
        cfg = self.config
        house = self.house_logins.get(msg.name)
        if house is not None and msg.password is not None and token_matches(msg.password, token_hash(house)):
            # A bundled bot started by add_bot: a guest bot whatever the server's settings.
            del self.house_logins[msg.name]
            if s.closing:
                return
            s.name, s.bot, s.guest, s.logged_in = msg.name, True, True, True
            s.house = self.house_kinds.get(msg.name, "bot")
            s.send_unheld(LoggedIn(id=msg.id, name=s.name, guest=True, bot=True))
            return
        if cfg.password is not None:
            if msg.server_password is None:
                raise TableError(ErrorCode.SERVER_PASSWORD_REQUIRED, "this server needs server_password")
            self._not_throttled(None, s.address)
            if not token_matches(msg.server_password, token_hash(cfg.password)):
                self.throttle.failed(None, s.address)  # guessable too
                raise TableError(ErrorCode.AUTH_FAILED, "wrong server password")
        assert self.store is not None
        account = await self.db(self.store.account, msg.name)
        if msg.guest:
            if not cfg.allow_guests:
                raise TableError(ErrorCode.GUESTS_NOT_ALLOWED, "this server does not allow guests")
            if account is not None:
                raise TableError(ErrorCode.AUTH_FAILED, f"{msg.name} is a registered name; log in with its password")
        else:
            if not msg.password:
                raise TableError(ErrorCode.AUTH_FAILED, "a password is needed (or log in as a guest)")
            if msg.token is None or not self._holds_seat(msg.name, msg.token):
                self._not_throttled(msg.name, s.address)
            if account is None:
                salt = new_salt()
                pw_hash = await self.hasher.hash(msg.password, salt)
                if not await self.db(self.store.create_account, msg.name, salt, pw_hash, bot=msg.bot):
                    raise TableError(ErrorCode.AUTH_FAILED, "that name was just taken; try again")
                log.info("registered %s%s", msg.name, " (bot)" if msg.bot else "")
            elif not await self.hasher.verify(msg.password, account.salt, account.hash):
                self.throttle.failed(msg.name, s.address)
                raise TableError(ErrorCode.AUTH_FAILED, "wrong name or password")
            else:
                self.throttle.succeeded(msg.name)
                s.bot = account.bot  # a bot account is marked as a bot everywhere
        if s.closing:
            return
        s.name = account.name if account is not None and not msg.guest else msg.name
        s.bot = s.bot or msg.bot
        s.guest = msg.guest
        s.logged_in = True
        s.send_unheld(LoggedIn(id=msg.id, name=s.name, guest=s.guest, bot=s.bot))

    def _not_throttled(self, name: str | None, address: str) -> None:
        wait = self.throttle.wait(name or "", address)
        if wait > 0:
            what = f"for {name}" if name else "from your address"
            raise TableError(
                ErrorCode.LOGIN_THROTTLED,
                f"too many failed logins {what}: try again in {math.ceil(wait)} s",
                retry_after=round(wait, 3),
            )

    def _holds_seat(self, name: str, token: str) -> bool:
        """Whether ``token`` is the token of a seat that ``name`` holds at some table."""
        low = name.lower()
        return any(
            st is not None and st.name.lower() == low and token_matches(token, st.token_hash)
            for t in self.tables.values()
            for st in t.seats
        )

    # --- table requests

    def _table(self, table_id: int) -> Table:
        t = self.tables.get(table_id)
        if t is None:
            raise TableError(ErrorCode.UNKNOWN_TABLE, f"no table {table_id}")
        return t

    def _list(self, s: ClientSession, msg: ListTables) -> None:
        s.send(Tables(id=msg.id, tables=[t.summary() for t in self.tables.values()]))

    def _create(self, s: ClientSession, msg: CreateTable) -> None:
        if len(self.tables) >= self.config.limits.max_tables:
            raise TableError(ErrorCode.TABLE_FULL, "the server has as many tables as it allows")
        try:
            rules = make_rules(msg.preset, dict(msg.options or {}))
            check_seats(rules, msg.seats)
            deck = None
            if msg.deck is not None:
                deck = parse_cards(" ".join(msg.deck))
                check_deck(deck, rules)
        except RulesError as exc:
            raise TableError(ErrorCode.BAD_RULES, exc.message) from None
        except CardError as exc:
            raise TableError(ErrorCode.BAD_RULES, f"deck: {exc}") from None
        table = Table(
            self.next_table_id,
            msg.name,
            s.name,
            rules,
            msg.seats,
            password_hash=token_hash(msg.password) if msg.password else None,
            action_seconds=msg.action_seconds or self.config.action_seconds,
            bank_seconds=msg.bank_seconds if msg.bank_seconds is not None else self.config.bank_seconds,
            seed=msg.seed,
            deck=deck,
        )
        self.tables[table.id] = table
        self.next_table_id += 1
        self.durable.table_changed(table)  # type: ignore[union-attr]
        log.info("%s created table %d %r (%s, %d seats)", s.name, table.id, msg.name, msg.preset, msg.seats)
        s.send(TableCreated(id=msg.id, table=table.id))

    def _join(self, s: ClientSession, msg: Join) -> None:
        out = Outbox()
        seat, token = self._table(msg.table).join(s, msg.seat, msg.password, out)
        out.answer(s, Joined(id=msg.id, table=msg.table, seat=seat, token=token))
        self.flush(out)

    def _leave(self, s: ClientSession, msg: Leave) -> None:
        out = Outbox()
        t = self._table(msg.table)
        t.leave(s, out)
        out.answer(s, Ok(id=msg.id))
        self.flush(out)
        if not any(t.seats) and not t.watchers and not t.running:
            self.drop_table(t.id)

    def _watch(self, s: ClientSession, msg: Watch) -> None:
        out = Outbox()
        t = self._table(msg.table)
        t.watch(s, msg.password, out, self.config.limits.max_spectators)  # raises before any answer
        out.answer(s, Watching(id=msg.id, table=msg.table))
        self.flush(out)

    def _start(self, s: ClientSession, msg: Start) -> None:
        out = Outbox()
        t = self._table(msg.table)
        t.start(s, out, time.monotonic(), self.next_game_id)
        self.next_game_id += 1
        out.answer(s, Ok(id=msg.id))
        self.flush(out)

    def _act(self, s: ClientSession, msg: Act) -> None:
        out = Outbox()
        out.send(s, Ok(id=msg.id))  # the answer first, then the states it caused
        finished = self._table(msg.table).act(s, msg.seq, msg.action, out, time.monotonic())
        # An applied action is paced by the turn order already: it costs no rate-limit token,
        # so bots may play as fast as the game goes; refused ones do cost.
        s.tokens = min(float(self.config.limits.rate_burst), s.tokens + 1.0)
        self.flush(out)
        if finished is not None:
            self._game_over(self.tables[msg.table], finished)

    def _chat(self, s: ClientSession, msg: Chat) -> None:
        out = Outbox()
        self._table(msg.table).chat(s, msg.text, out)
        out.answer(s, Ok(id=msg.id))
        self.flush(out)

    def _resume(self, s: ClientSession, msg: Resume) -> None:
        t = self._table(msg.table)
        out = Outbox()
        seat, old = t.resume(s, msg.token, out, time.monotonic())
        if isinstance(old, ClientSession) and old is not s:
            if old.house is not None and old.name != s.name:
                old.close()  # the stand-in bot whose player came back: its work is done
            else:
                old.error(
                    ErrorCode.BAD_TOKEN, f"your seat at table {t.id} was taken over by a newer connection", table=t.id
                )
        st = t.seats[seat]
        assert st is not None
        if msg.token is None:
            # Resumed by name: a fresh token (the lost one stops working).
            token, st.token_hash = new_token()
        else:
            token = msg.token
        out.answer(s, Joined(id=msg.id, table=t.id, seat=seat, token=token))
        self.flush(out)

    def _add_bot(self, s: ClientSession, msg: AddBot) -> None:
        t = self._table(msg.table)
        if s.name != t.owner:
            raise TableError(ErrorCode.NOT_OWNER, f"only the table's owner ({t.owner}) can add bots")
        known = list(self.bots.names()) if self.bots is not None else []
        if msg.bot not in known:
            raise TableError(
                ErrorCode.UNKNOWN_BOT,
                f"no bot {msg.bot!r}; this server runs: " + (", ".join(known) if known else "no bots"),
            )
        if msg.seat is not None and msg.seat < t.nseats and t.seats[msg.seat] is not None:
            # A stand-in for a player who has gone (during a game too).
            name = f"{msg.bot}-{self.next_house_bot}"
            token = t.hand_to_bot(s, msg.seat, name, msg.bot, time.monotonic(), self.config.reconnect_grace)
            self.next_house_bot += 1
            self.durable.table_changed(t)  # type: ignore[union-attr]
            self._run_house_bot(msg.bot, name, table=t, seat=msg.seat, token=token, request=(s, msg.id))
            return
        if t.running:
            raise TableError(ErrorCode.ALREADY_STARTED, "a game is running: add bots between games")
        free = [i for i, st in enumerate(t.seats) if st is None]
        if msg.seat is not None and (msg.seat >= t.nseats or t.seats[msg.seat] is not None):
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is not free")
        if not free:
            raise TableError(ErrorCode.TABLE_FULL, "no free seat at this table")
        name = f"{msg.bot}-{self.next_house_bot}"
        self.next_house_bot += 1
        self._run_house_bot(msg.bot, name, table=t, seat=msg.seat, request=(s, msg.id))

    def _get_record(self, s: ClientSession, msg: GetRecord) -> None:
        async def fetch() -> None:
            assert self.store is not None
            game = await self.db(self.store.game, msg.game)
            if game is None:
                s.error(ErrorCode.UNKNOWN_GAME, f"no finished game {msg.game}", msg.id)
            else:
                s.send(Record(id=msg.id, record=game))

        self._answer_later(s, fetch())

    _handlers: dict[type, Any] = {
        ListTables: _list,
        CreateTable: _create,
        Join: _join,
        Leave: _leave,
        Watch: _watch,
        Start: _start,
        Act: _act,
        Chat: _chat,
        Resume: _resume,
        GetRecord: _get_record,
        AddBot: _add_bot,
        CreateTournament: lambda app, s, m: app.tournaments.create(s, m),
        Register: lambda app, s, m: app.tournaments.register(s, m),
        StartTournament: lambda app, s, m: app.tournaments.start(s, m),
        GetTournament: lambda app, s, m: app.tournaments.info(s, m),
        ListTournaments: lambda app, s, m: app.tournaments.list(s, m),
    }

    # --- storage and timers

    def _game_over(self, table: Table, g: FinishedGame) -> None:
        """Store the record in the batch of the game's last action, then tell the tournament."""
        self.durable.game_finished(g)  # type: ignore[union-attr]
        self.tournaments.game_finished(table, g)

    def drop_table(self, table_id: int) -> None:
        """Close a table (its live rows go in the same batch); the bundled bots that played
        there stop."""
        t = self.tables.pop(table_id, None)
        if t is None:
            return
        self.durable.table_gone(table_id)  # type: ignore[union-attr]
        if t.tournament is None:  # (a tournament's bots play its next tables on the same connection)
            for st in t.seats:
                if st is not None and isinstance(st.session, ClientSession) and st.session.house is not None:
                    st.session.close()

    async def _sweep(self) -> None:
        lim = self.config.limits
        beats = 0
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            now = time.monotonic()
            beats += 1
            if beats % HEARTBEAT_EVERY == 0 and self.journal is not None and self.journal.failed is None:
                self.durable.heartbeat()  # type: ignore[union-attr]
            paused = self.journal is not None and self.journal.failed is not None
            try:
                for s in list(self.sessions):
                    if not s.logged_in and now - s.connected_at > lim.handshake_timeout:
                        s.error(ErrorCode.HANDSHAKE_TIMEOUT, "no hello and login in time")
                        s.close()
                    elif now - s.last_active > lim.idle_timeout:
                        s.error(ErrorCode.IDLE_TIMEOUT, "no message for too long (send ping to stay)")
                        s.close()
                for t in list(self.tables.values()):
                    if not t.running and t.abandoned(now, self.config.reconnect_grace):
                        log.info("removing abandoned table %d %r", t.id, t.name)
                        self.drop_table(t.id)
                    elif not t.running:
                        out = Outbox()
                        t.check_owner(now, self.config.reconnect_grace, out)
                        self.flush(out)
                    elif t.running and not paused:
                        out = Outbox()
                        t.check_owner(now, self.config.reconnect_grace, out)
                        finished = t.tick(now, self.config.reconnect_grace, out)
                        self.flush(out)
                        if finished is not None:
                            self._game_over(t, finished)
            except Exception:
                log.exception("sweeper round failed; continuing")
