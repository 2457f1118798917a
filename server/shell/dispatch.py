"""Dispatching requests: each admitted message to its handler, and exactly one answer back.

A handler returns a :class:`~server.shell.reply.Reply` (see :mod:`server.shell.reply` for the rules); the
:class:`Dispatcher` turns it into the one answer and the deliveries it causes, and runs the
work that follows. Every request type has one handler, registered with whether it writes
(:meth:`server.shell.reply.Handlers.add`); ``hello``, ``ping`` and ``login`` are the dispatcher's own
(read-only, and the only ones answered before login). A viewer's connection (``login.viewer``)
may send only the requests registered with ``viewers=True``; any other is refused with
``VIEWER_READ_ONLY`` here, in the same check as a request that needs a login.

Writes and reads
    The declaration decides both what happens while the database cannot be written (a request
    that writes is refused with ``STORAGE_FAILED``, at once; one that reads is answered) and
    whether the answer waits for the journal: the answer to a request that writes, and what it
    caused, is held until the change is committed; the answer to one that reads, and what it
    caused for the requester (a watcher's first ``state``), only stays behind what is held for
    that session already (:meth:`server.shell.session.ClientSession.send`).

Error handling
    A handler that raises before its answer is out: one ``error`` (its code for a refusal,
    ``INTERNAL_ERROR`` for a bug, logged), and nothing it queued is delivered. Once the answer
    is on its way, failures are logged and answer nothing more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from protocol.connection import check_version
from protocol.errors import ErrorCode, RemoteProtocolError
from protocol.messages import PROTOCOL_VERSION, Error, Hello, LoggedIn, Login, Message, Ping, Pong, StateMode, Welcome
from protocol.payloads import WelcomeLimits
from server.config import ServerConfig
from server.shell.reply import Handlers, Reply
from server.shell.session import ClientSession, Hold
from server.storage.journal import STORAGE_RETRY
from server.tables.coordination import StateOut, TableError
from server.tables.hosted import Spawn
from server.tables.quotas import Quotas
from server.tables.table import Applied, Changed, Dealt, Outbox

log = logging.getLogger(__name__)

Fact = Applied | Dealt | Changed
"""A journal fact of an outbox (:class:`server.tables.table.Outbox`)."""

SERVER_NAME = "shithead-server 0.1"


class Dispatcher:
    """Answers the requests of every session (see the module docstring).

    ``save`` journals an outbox's facts (``saves``), ``send`` delivers its messages (held until the
    commit), ``spawn`` runs an answer that comes later as a task, ``login`` answers a login,
    ``storage_failed`` tells whether the database cannot be written now, ``lobby_changed`` is
    told when what a request did changed a table's summary (:attr:`Outbox.lobby`)."""

    def __init__(
        self,
        config: ServerConfig,
        handlers: Handlers,
        *,
        login: Callable[[ClientSession, Login], Coroutine[Any, Any, LoggedIn | None]],
        save: Callable[[list[Fact]], None],
        send: Callable[[Outbox], None],
        spawn: Spawn,
        storage_failed: Callable[[], bool],
        lobby_changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.config = config
        self.handlers = handlers
        self.by_type = handlers.by_type
        self.login = login
        self.save = save
        self.send = send
        self.spawn = spawn
        self.storage_failed = storage_failed
        self.lobby_changed = lobby_changed
        # (For viewers too: a second hello never comes this far, and a second login is
        # ALREADY_LOGGED_IN for anyone.)
        handlers.add(Hello, self._hello, writes=False, before_login=True, viewers=True)
        handlers.add(Ping, self._ping, writes=False, before_login=True, viewers=True)
        handlers.add(Login, self._login, writes=False, before_login=True, viewers=True)  # (an account: see _login)

    def handle(self, s: ClientSession, msg: Message) -> bool:
        """Answer ``msg`` of ``s``: exactly one answer, now or when what answers it is done.
        True: the request costs no rate-limit token (its handler said so: :attr:`Reply.free`).

        This runs for every request (an ``act`` most of all), so the steps are written out here
        rather than spread over small methods: find the handler, journal what it changed, then
        deliver its answer and what it caused, then the work that follows."""
        reply: Reply | None = None
        writes = False
        try:
            handler = self.by_type.get(type(msg))
            if handler is None or not (s.logged_in or handler.before_login) or (s.viewer and not handler.viewers):
                raise self._unhandled(s, msg)
            writes = handler.writes
            if writes and self.storage_failed():
                # Sent at once (ahead of answers that wait for the database): it reveals nothing.
                text = (
                    "the server cannot write to its database (disk full?): "
                    "play is paused until it can; nothing acknowledged is lost"
                )
                refusal = Error(
                    id=getattr(msg, "id", None), code=ErrorCode.STORAGE_FAILED, message=text, retry_after=STORAGE_RETRY
                )
                s.send([refusal], held=Hold.NOW)
                return False
            reply = handler.run(s, msg)
            out = reply.out
            if out is not None and out.saves:
                if not writes:
                    log.error("%s is declared not to write but journaled %r: its answer is held", msg.TYPE, out.saves)
                    writes = True
                self.save(out.saves)
        except Exception as exc:
            if reply is not None and reply.later is not None:
                reply.later.close()  # never started: it answers nothing
            self._refuse(s, msg.TYPE, getattr(msg, "id", None), exc, held=Hold.BEHIND if not writes else Hold.COMMIT)
            return False
        # From here on the request is answered: what fails is logged, not answered again.
        if out is not None and out.lobby:
            self.lobby_changed()
        answer = reply.answer
        try:
            if reply.later is not None:
                if out is not None:
                    self.send(out)
                self._answer_later(
                    s, msg.TYPE, getattr(msg, "id", None), reply.later, held=Hold.COMMIT if writes else Hold.BEHIND
                )
            elif not writes:
                self._send_read(s, answer, out)
            elif answer is None:
                if out is not None:
                    self.send(out)
            elif out is None:
                s.send([answer])
            else:
                out.answer(s, answer)
                self.send(out)
        except Exception:
            log.exception("delivering the answer to request %s of %r failed", getattr(msg, "id", None), s)
        if reply.after:
            self._follow_up(reply.after)
        return reply.free

    def _send_read(self, s: ClientSession, answer: Message | None, out: Outbox | None) -> None:
        """Deliver the answer of a request that only read, and what it caused: the requester's
        part behind what is held for it already (:attr:`Hold.BEHIND`), the others' as usual."""
        mine: list[Message | StateOut] = [] if answer is None else [answer]
        if out is not None and out.items:
            others = Outbox()
            for who, m in out.items:
                if who is s:
                    mine.append(m)
                else:
                    others.items.append((who, m))
            if others.items:
                self.send(others)
        if mine:
            s.send(mine, held=Hold.BEHIND)

    def _refuse(self, s: ClientSession, what: str, request_id: int | None, exc: Exception, *, held: Hold) -> None:
        """The one answer to a request that failed before it was answered (``held``:
        :attr:`Hold.BEHIND` when the request only reads, so its refusal waits for no commit)."""
        if isinstance(exc, TableError):
            refusal = Error(
                id=request_id,
                code=exc.code,
                message=exc.message,
                reason=exc.reason,
                retry_after=exc.retry_after,
                suggestion=exc.suggestion,
            )
        else:
            log.error("internal error while handling %s from %r", what, s, exc_info=exc)
            text = "the server failed on this request; it was not applied"
            refusal = Error(id=request_id, code=ErrorCode.INTERNAL_ERROR, message=text)
        s.send([refusal], held=held)

    def _unhandled(self, s: ClientSession, msg: Message) -> TableError:
        """The refusal of a request that has no handler, that needs a login first, or that a
        viewer may not send."""
        if not s.logged_in:
            return TableError(ErrorCode.NOT_LOGGED_IN, "log in first")
        if s.viewer and type(msg) in self.by_type:
            return TableError(
                ErrorCode.VIEWER_READ_ONLY,
                f"a viewer only reads: log in as a player, on a new connection, to send {msg.TYPE}",
            )
        return TableError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE} is not a request")

    # --- the dispatcher's own requests

    def _hello(self, s: ClientSession, msg: Hello) -> Reply:
        try:
            check_version(msg)
        except RemoteProtocolError as exc:
            raise TableError(exc.code, exc.message) from None
        s.turn_states = msg.states == StateMode.TURNS
        return Reply(
            Welcome(
                id=msg.id,
                version=PROTOCOL_VERSION,
                server=SERVER_NAME,
                limits=self.public_limits(),
                capabilities=["json_lines", "resume", "clocks", "spectators", "records", "turn_states"],
                password_required=self.config.password is not None,
            )
        )

    @staticmethod
    def _ping(s: ClientSession, msg: Ping) -> Reply:
        return Reply(Pong(id=msg.id))

    def _login(self, s: ClientSession, msg: Login) -> Reply:
        """Not a write of the journal's: a new account is written (on the writer thread) before
        ``logged_in`` is sent, so nothing of it waits for a commit; while the database cannot
        be written, guests and existing accounts still log in."""
        if s.logged_in:
            raise TableError(ErrorCode.ALREADY_LOGGED_IN, f"already logged in as {s.name}")
        return Reply(later=self.login(s, msg))

    @staticmethod
    def _follow_up(steps: Sequence[Callable[[], None]]) -> None:
        for step in steps:
            try:
                step()
            except Exception:
                log.exception("work after an answer failed (the request stays answered)")

    def _answer_later(
        self,
        s: ClientSession,
        what: str,
        request_id: int | None,
        answering: Coroutine[Any, Any, Message | None],
        *,
        held: Hold,
    ) -> None:
        """Run ``answering`` as a task and send what it returns as the one answer (its failure:
        one error). What ``s`` sends meanwhile waits in its backlog, then goes in order
        (:meth:`ClientSession.answered`)."""
        s.waiting = True

        async def run() -> None:
            try:
                try:
                    answer = await answering
                except Exception as exc:
                    self._refuse(s, what, request_id, exc, held=held)
                    return
                if answer is not None:
                    s.send([answer], held=held)
            finally:
                s.answered()

        self.spawn(run())

    def public_limits(self) -> WelcomeLimits:
        lim = self.config.limits
        quotas = Quotas(self.config)
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
            "tables_per_player": lim.tables_per_player,
            "tournaments_per_player": lim.tournaments_per_player,
            "tournament_tables": quotas.tournament_tables,
            "tournament_games": quotas.tournament_games,
            "tournament_bots": quotas.tournament_bots,
        }
