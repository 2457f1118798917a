"""Dispatching requests: each admitted message to its handler, and exactly one answer back.

A handler returns a :class:`~server.reply.Reply` (see :mod:`server.reply` for the rules); the
:class:`Dispatcher` turns it into the one answer and the deliveries it causes, and runs the
work that follows. ``hello``, ``ping`` and ``login`` are answered here (before login nothing
else is); every other request goes to the handler registered for its type.

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
from protocol.messages import PROTOCOL_VERSION, Hello, LoggedIn, Login, Message, Ping, Pong, StateMode, Welcome
from protocol.payloads import WelcomeLimits
from server.config import ServerConfig
from server.coordination import TableError
from server.hosted import Spawn
from server.reply import UNHELD, Handlers, Reply
from server.session import ClientSession
from server.table import Applied, Changed, Dealt, Outbox

log = logging.getLogger(__name__)

Fact = Applied | Dealt | Changed
"""A journal fact of an outbox (:class:`server.table.Outbox`)."""

SERVER_NAME = "shithead-server 0.1"


class Dispatcher:
    """Answers the requests of every session (see the module docstring).

    ``save`` journals an outbox's facts (``saves``), ``send`` delivers its messages (held until the
    commit), ``spawn`` runs an answer that comes later as a task, ``login`` answers a login."""

    def __init__(
        self,
        config: ServerConfig,
        handlers: Handlers,
        *,
        login: Callable[[ClientSession, Login], Coroutine[Any, Any, LoggedIn | None]],
        save: Callable[[list[Fact]], None],
        send: Callable[[Outbox], None],
        spawn: Spawn,
    ) -> None:
        self.config = config
        self.handlers = handlers
        self.by_type = handlers.by_type
        self.login = login
        self.save = save
        self.send = send
        self.spawn = spawn

    def handle(self, s: ClientSession, msg: Message) -> None:
        """Answer ``msg`` of ``s``: exactly one answer, now or when what answers it is done.

        This runs for every request (an ``act`` most of all), so the steps are written out here
        rather than spread over small methods: find the handler, journal what it changed, then
        deliver its answer and what it caused, then the work that follows."""
        reply: Reply | None = None
        try:
            # (Handlers.get, inlined; a logged-in session's requests nearly all have a handler)
            handler = self.by_type.get(type(msg)) if s.logged_in else None
            reply = handler(s, msg) if handler is not None else self._reply(s, msg)
            out = reply.out
            if out is not None and out.saves:
                self.save(out.saves)
        except Exception as exc:
            if reply is not None and reply.later is not None:
                reply.later.close()  # never started: it answers nothing
            self._refuse(s, msg.TYPE, getattr(msg, "id", None), exc)
            return
        # From here on the request is answered: what fails is logged, not answered again.
        if reply.free:
            s.refund()
        answer = reply.answer
        try:
            if reply.later is not None:
                if out is not None:
                    self.send(out)
                self._answer_later(s, msg.TYPE, getattr(msg, "id", None), reply.later)
            elif answer is None:
                if out is not None:
                    self.send(out)
            elif type(answer) in UNHELD:
                s.send_unheld(answer)
            elif out is None:
                s.send(answer)
            else:
                out.items.insert(0, (s, answer))  # (Outbox.answer: the answer first, then what it caused)
                self.send(out)
        except Exception:
            log.exception("delivering the answer to request %s of %r failed", getattr(msg, "id", None), s)
        if reply.after:
            self._follow_up(reply.after)

    def _refuse(self, s: ClientSession, what: str, request_id: int | None, exc: Exception) -> None:
        """The one answer to a request that failed before it was answered."""
        if isinstance(exc, TableError):
            s.error(
                exc.code,
                exc.message,
                request_id,
                reason=exc.reason,
                retry_after=exc.retry_after,
                suggestion=exc.suggestion,
            )
        else:
            log.error("internal error while handling %s from %r", what, s, exc_info=exc)
            s.error(ErrorCode.INTERNAL_ERROR, "the server failed on this request; it was not applied", request_id)

    def _reply(self, s: ClientSession, msg: Message) -> Reply:
        """The reply to a request that has no handler or comes before login."""
        if isinstance(msg, Hello):
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
        if isinstance(msg, Ping):
            return Reply(Pong(id=msg.id))
        if isinstance(msg, Login):
            if s.logged_in:
                raise TableError(ErrorCode.ALREADY_LOGGED_IN, f"already logged in as {s.name}")
            return Reply(later=self.login(s, msg))
        if not s.logged_in:
            raise TableError(ErrorCode.NOT_LOGGED_IN, "log in first")
        raise TableError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE} is not a request")

    @staticmethod
    def _follow_up(steps: Sequence[Callable[[], None]]) -> None:
        for step in steps:
            try:
                step()
            except Exception:
                log.exception("work after an answer failed (the request stays answered)")

    def _answer_later(
        self, s: ClientSession, what: str, request_id: int | None, answering: Coroutine[Any, Any, Message | None]
    ) -> None:
        """Run ``answering`` as a task and send what it returns as the one answer (its failure:
        one error). Requests ``s`` sends meanwhile wait in its backlog, then go in order."""
        s.waiting = True

        async def run() -> None:
            try:
                try:
                    answer = await answering
                except Exception as exc:
                    self._refuse(s, what, request_id, exc)
                    return
                if answer is not None:
                    if type(answer) in UNHELD:
                        s.send_unheld(answer)
                    else:
                        s.send(answer)
            finally:
                s.waiting = False
                while s.backlog and not s.waiting and not s.closing:
                    self.handle(s, s.backlog.pop(0))

        self.spawn(run())

    def public_limits(self) -> WelcomeLimits:
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
