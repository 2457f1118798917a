"""One client connection: bytes in and out, the rate limit, output held for a commit, and who
is logged in.

:class:`ClientSession` is an ``asyncio.Protocol`` (callbacks measured faster than streams,
docs/ARCHITECTURE.md, "The asyncio shell") that drives a sans-I/O :class:`protocol.connection.Connection` and hands each
validated message to its :class:`SessionHost` (the server) once the rate limit lets it through.

Transports
    Raw TCP (msgpack frames or JSON lines, told apart by the connection's first byte) and the
    WebSocket of the web door: a connection that begins with an HTTP request gets a
    :class:`server.shell.web.WebGate`, which answers HTTP by itself and turns WebSocket text frames
    into JSON lines for the same :class:`Connection`, and the session's output back into frames.

Resource handling
    * Everything goes out through :meth:`ClientSession.send`, which says how it waits
      (:class:`Hold`): output that tells of a change is held until the journal has committed
      that change (:meth:`ClientSession.release`); the answers to requests that only read wait
      for no commit, only behind what is held for this session already, so that nothing
      overtakes what it was told before; what reveals nothing (``going_away``, a refusal for
      a full disk) goes ahead of everything.
    * A connection whose unsent output passes ``max_output_buffer`` is aborted: it reads too
      slowly; its seat waits for a reconnect or its clock. Every byte counts, the web door's
      own answers too (pongs, closing frames, files): a client that sends pings and never reads
      is cut as soon as their pongs pass the bound.

Errors
    Nothing a client sends makes a traceback: a failure while reading a connection's bytes ends
    that connection with one log line (:class:`server.shell.quiet.AddressLog`: a few lines a minute
    per address at most), and nothing is sent on a connection that a fatal error closed.

Rate limit (the error path included)
    Every message pays the connection's :class:`~server.shell.rate_limit.RateLimit` (two token
    buckets, ``rate_burst`` tokens, ``rate_per_second`` more each second); the messages decoded
    before a malformed frame pay like any other. A refused message is answered with
    ``RATE_LIMITED``; when not even a refusal can be paid for, the connection is not read from
    until one can: the messages already read wait, in order, and are then admitted or refused
    one by one. So a client that ignores ``retry_after`` cannot get frames (answers, refusals
    or other errors) out of the server faster than twice the rate limit, nor make it work
    faster than that for it, while every request still gets exactly one answer. A request that
    the host says cost nothing (an applied ``act``) gets its token back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Protocol, cast

from protocol.connection import Connection, ConnectionState, Mode
from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.messages import Error, Message, error_from
from server.config import Limits
from server.shell.broadcast import shared_encoding
from server.shell.quiet import AddressLog
from server.shell.rate_limit import RateLimit, Verdict
from server.shell.web import WebGate, starts_http
from server.storage.journal import Journal
from server.tables.coordination import StateOut

log = logging.getLogger(__name__)


class Hold(Enum):
    """How what :meth:`ClientSession.send` is given waits before it is written."""

    COMMIT = "commit"
    """It tells of a change: written once the journal has committed that change, in order with
    everything else held for the session (the default)."""
    BEHIND = "behind"
    """It answers a request that only read: it waits for no commit, only behind what is held
    for this session already (released with the last of it), so that a client never learns
    from a later answer what an earlier held message tells. It may show a change that the
    journal has not committed yet (another player's move a moment ago); what waits for the
    commit is that change's acknowledgement, not the news of it. This is what lets a client
    connect, log in and look around while the database cannot be written."""
    NOW = "now"
    """Ahead of everything held: it must reveal nothing uncommitted (``going_away``, a refusal
    that the database cannot be written)."""


class SessionHost(Protocol):
    """What a session needs of the server it belongs to."""

    @property
    def limits(self) -> Limits: ...

    @property
    def clock(self) -> Callable[[], float]:
        """Monotonic seconds, for the rate limit."""
        ...

    @property
    def journal(self) -> Journal | None:
        """The journal whose commits the session's output waits for (None: nothing waits)."""
        ...

    @property
    def problems(self) -> AddressLog:
        """Where a connection's problems are logged: one line each, a few a minute per address."""
        ...

    def connected(self, s: ClientSession) -> None: ...

    def web_gate(self) -> WebGate | None:
        """A gate for a connection that began with an HTTP request (None: no web door)."""
        ...

    def disconnected(self, s: ClientSession) -> None: ...

    def handle(self, s: ClientSession, msg: Message) -> bool:
        """Answer ``msg``, which the rate limit let through (exactly one answer). True: the
        request costs no rate-limit token (an applied ``act``: the turn order paces those, so
        bots may play as fast as the game goes)."""
        ...

    @property
    def held(self) -> set[ClientSession]:
        """The sessions holding output until a commit: a session adds itself when it starts to
        hold (a set, not a callback: this happens for most sessions after most commits); the
        host calls their :meth:`ClientSession.release` after each commit."""
        ...


class ClientSession(asyncio.Protocol):
    """One client connection (see the module docstring)."""

    def __init__(self, host: SessionHost) -> None:
        lim = host.limits
        self.host = host
        self.limits = lim
        self.conn = Connection(
            "server",
            max_in=lim.max_frame_in,
            max_out=lim.max_frame_out,
            max_in_before_login=lim.max_frame_in_before_login,
        )
        self.transport: asyncio.Transport | None = None
        self.address = "?"
        self.name = ""
        self.identity = ""
        """Who this is, once logged in (:mod:`server.login.identity`): owners and seats are checked by it."""
        self.login_hash: bytes | None = None
        """The hash of the login token this login was given (``logout`` ends it)."""
        self.bot = False
        self.guest = False
        self.house: str | None = None
        """The bot's kind when logged in as one of this server's bundled bots."""
        self.viewer = False
        """Logged in as a viewer (``login.viewer``): it holds no name and the dispatcher lets it
        send only the requests registered for viewers (:attr:`server.shell.reply.Handler.viewers`)."""
        self.turn_states = False
        """``hello.states`` was ``turns``: this connection's seats get only the states they act on."""
        self.logged_in = False
        # While an answer is prepared off the event loop's turn (login, a record from disk, a
        # bot taking its seat), later requests wait here so that answers keep their order; a
        # protocol error read meanwhile waits here too, last (see answered()).
        self.waiting = False
        self.backlog: list[Message | RemoteProtocolError] = []
        now = time.monotonic()
        self.connected_at = now
        self.last_active = now
        self.rate = RateLimit(lim.rate_per_second, lim.rate_burst, host.clock())
        # What was read while reading is paused for refusals (a fatal protocol error last).
        self.deferred: list[Message | RemoteProtocolError] = []
        self._resume: asyncio.TimerHandle | None = None
        self.closing = False
        # Output that waits for a commit (see server.storage.journal): (batch number, bytes), in order.
        self.held: list[tuple[int, bytes]] = []
        self.close_when_released = False
        self.web: WebGate | None = None
        """The HTTP/WebSocket layer when the connection began with an HTTP request (server.shell.web)."""

    def __repr__(self) -> str:
        return f"<session {self.name or '-'} {self.address}>"

    # --- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports have the same interface without subclassing asyncio.Transport.
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if peer else "?"
        self.host.connected(self)

    def data_received(self, data: bytes) -> None:
        try:
            self._received(data)
        except Exception as exc:
            # (a bug of ours on a client's bytes: one line, no traceback for the client to ask for)
            self.host.problems.warning(self.address, "closed a connection that failed on its input (%r)", exc)
            self.abort()

    def _received(self, data: bytes) -> None:
        if self.closing:
            return
        if self.web is None and self.conn.mode is None and data and starts_http(data[0]):
            self.web = self.host.web_gate()  # (None without the web door: read as any other bytes)
            if self.web is not None:
                self.conn.set_mode(Mode.JSON)
        if self.web is not None:
            data = self._from_web(self.web, data)
            if not data:
                return
        messages: Sequence[Message | RemoteProtocolError]
        try:
            messages = self.conn.receive_data(data)
        except RemoteProtocolError as exc:
            # What came before the bad frame is taken (and paid for) like anything else, then
            # the error is reported and the connection closed.
            messages = [*exc.received, exc]
        except LocalProtocolError:
            return  # the connection is closed: after a bad frame, waiting to report it, what follows is lost
        self.last_active = time.monotonic()
        if self.deferred:
            self.deferred.extend(messages)  # (read before the pause took effect): in order
            return
        self._take(messages)

    def _from_web(self, web: WebGate, data: bytes) -> bytes:
        """The JSON lines of the WebSocket messages in ``data``; what the web layer answers by
        itself (a file, the handshake, pongs, closing frames) is written at once."""
        lines = web.receive(data)
        out = web.output()
        if out:
            self._put_raw(out)
        if web.problem is not None:
            self.host.problems.warning(self.address, "%s", web.problem)
            web.problem = None
        if web.done:
            self.closing = True  # the exchange is over (a file sent, a refusal, a closing handshake)
            if self.transport is not None:
                self.transport.close()
            return b""
        return lines

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        self.deferred.clear()
        self.host.disconnected(self)

    # --- receiving

    def _take(self, messages: Sequence[Message | RemoteProtocolError]) -> None:
        """Admit ``messages`` in order through the rate limit; pause when refusals run out."""
        for i, msg in enumerate(messages):
            if self.closing:
                return
            if isinstance(msg, RemoteProtocolError):
                if self.waiting:
                    # The requests read before it are answered first (a login being checked
                    # included); then the error, and the connection closes (answered()).
                    self.backlog.append(msg)
                else:
                    self._fail(msg)
                return
            admitted = self._allow(msg)
            if admitted is None:
                self._pause(messages[i:])
                return
            if not admitted:
                continue
            if self.waiting:
                # Answered in order once the pending answer is out; the rate limit bounds the list.
                self.backlog.append(msg)
            else:
                self._handle(msg)

    def _fail(self, exc: RemoteProtocolError) -> None:
        """Report the client's protocol error (its last answer) and close."""
        if self.conn.state is ConnectionState.CLOSING:
            self.send([error_from(exc)])
        self.close()

    def answered(self) -> None:
        """The answer that was being prepared is out: what was read meanwhile goes on, in order
        (each request through the host like any other; a protocol error ends it)."""
        self.waiting = False
        backlog = self.backlog
        while backlog and not self.waiting and not self.closing:
            item = backlog.pop(0)
            if isinstance(item, RemoteProtocolError):
                backlog.clear()
                self._fail(item)
            else:
                self._handle(item)

    def _handle(self, msg: Message) -> None:
        if self.host.handle(self, msg):
            self.rate.refund()

    def _pause(self, rest: Sequence[Message | RemoteProtocolError]) -> None:
        """Stop reading until a refusal is paid for; ``rest`` waits for then."""
        self.deferred = list(rest)
        if self.transport is not None:
            self.transport.pause_reading()
        wait = self.rate.pause_for()
        log.debug(
            "%r floods (refused more than %d messages): not read from for %.3f s", self, self.limits.rate_burst, wait
        )
        self._resume = asyncio.get_running_loop().call_later(wait, self._unpause)

    def _unpause(self) -> None:
        self._resume = None
        rest, self.deferred = self.deferred, []
        self._take(rest)
        if not self.deferred and not self.closing and self.transport is not None:
            self.transport.resume_reading()

    def _allow(self, msg: Message) -> bool | None:
        """True: go on; False: refused (answered with ``RATE_LIMITED``); None: not even a
        refusal can be paid for now (the caller pauses, see the module docstring)."""
        verdict = self.rate.admit(self.host.clock())
        if verdict is Verdict.ADMIT:
            return True
        if verdict is Verdict.PAUSE:
            return None
        wait = self.rate.retry_after()
        text = f"too many messages: wait {wait} s"
        self.send([Error(id=getattr(msg, "id", None), code=ErrorCode.RATE_LIMITED, message=text, retry_after=wait)])
        return False

    # --- sending

    def send(self, messages: Sequence[Message | StateOut], *, held: Hold = Hold.COMMIT) -> None:
        """Encode ``messages`` and write them with one call (one system call, not one each), as
        ``held`` says (:class:`Hold`). The only way anything is sent to a client.

        A broadcast :class:`~server.tables.coordination.StateOut` is spliced from its change's
        shared encoding (:mod:`server.shell.broadcast`); other messages are validated and
        encoded whole. An invalid message is a bug of ours: logged, not sent. A fatal
        ``error`` closes the connection once it is out; nothing is sent after it.
        """
        if self.closing or self.transport is None or self.conn.state is ConnectionState.CLOSED:
            return  # (after a fatal error nothing more is said)
        chunks = []
        conn = self.conn
        for msg in messages:
            try:
                if type(msg) is StateOut:
                    # (the change's encoding is made once, by its first recipient; the seat's
                    # part is encoded by protocol.splice when first sent)
                    shared = msg.change.wire
                    if shared is None:
                        shared = shared_encoding(msg.change)
                    chunks.append(conn.send_shared("state", shared, msg.own, msg.part))
                else:
                    assert not isinstance(msg, StateOut)
                    chunks.append(conn.send(msg))
            except LocalProtocolError:
                if conn.state is ConnectionState.CLOSED:
                    break  # (a fatal error went out just before)
                log.exception("refusing to send an invalid message to %r", self)
        if chunks:
            data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            if held is Hold.NOW:
                self._put(data)
            else:
                self._hold_or_put(data, held)
        if conn.state is ConnectionState.CLOSED:
            self.close()  # a fatal error (after a bad frame, the messages before it are answered first)

    def _hold_or_put(self, data: bytes, held: Hold) -> None:
        """Write ``data``, or hold it while what it may tell is not committed yet (``held`` is
        :attr:`Hold.COMMIT` or :attr:`Hold.BEHIND`)."""
        if held is Hold.BEHIND:
            waiting = self.held
            if waiting:
                waiting.append((waiting[-1][0], data))
            else:
                self._put(data)
            return
        journal = self.host.journal
        if journal is not None:
            need = journal.barrier
            if need or self.held:
                if self.held and self.held[-1][0] > need:
                    need = self.held[-1][0]  # never overtake what waits already
                if need > journal.committed:
                    if not self.held:
                        self.host.held.add(self)  # (once: until release() empties the list)
                    self.held.append((need, data))
                    return
        self._put(data)

    def release(self, committed: int) -> bool:
        """Write what was held for batches up to ``committed``; True when nothing is held."""
        held = self.held
        if held and held[-1][0] <= committed:
            # The usual case: all of it (batch numbers only grow along the list).
            data = held[0][1] if len(held) == 1 else b"".join([d for _, d in held])
            held.clear()
            self._put(data)
        else:
            i = 0
            while i < len(held) and held[i][0] <= committed:
                i += 1
            if i:
                data = b"".join([d for _, d in held[:i]])
                del held[:i]
                self._put(data)
        if not held and self.close_when_released:
            self.close()
        return not held

    def _put(self, data: bytes) -> None:
        if self.web is not None and not self.closing:
            data = self.web.encode(data)
        self._put_raw(data)

    def _put_raw(self, data: bytes) -> None:
        """Write bytes ready for the socket; past ``max_output_buffer`` unsent, the client reads
        too slowly (or not at all): it is cut."""
        transport = self.transport
        if transport is None or self.closing:
            return
        transport.write(data)
        if transport.get_write_buffer_size() > self.limits.max_output_buffer:
            self.host.problems.warning(
                self.address, "%s reads too slowly (%d bytes waiting): closing", self, transport.get_write_buffer_size()
            )
            self.closing = True
            transport.abort()

    def abort(self) -> None:
        """Drop the connection at once, sending nothing more (its peer is known to be gone)."""
        self.closing = True
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        if self.held and not self.closing:
            self.close_when_released = True  # after what it was told is committed and sent
            return
        if self.transport is not None and not self.transport.is_closing():
            if self.web is not None and not self.closing:
                self.transport.write(self.web.close())
            self.transport.close()
        self.closing = True
