"""What a request handler gives back, so that every request gets exactly one answer.

A handler never sends its answer itself: it returns a :class:`Reply` and the server
(:class:`server.shell.dispatch.Dispatcher`) delivers it. That makes "one answer per request" a
property of the structure rather than of each handler:

* the handler raises (a :class:`~server.tables.coordination.TableError` or a bug) -> one ``error``, and
  nothing it queued is delivered;
* it returns -> ``answer`` goes out (ahead of the messages the request caused in ``out``), or,
  with ``later``, the coroutine's result once it finishes (its failure -> one ``error``);
* work that follows an answer (``after``: a finished game's record, a tournament going on, a
  table closing) runs once the answer is on its way; a failure there is logged and answers
  nothing, since the request was answered already.

Whether a request writes is declared once, where its handler is registered
(:meth:`Handlers.add`), and everything that depends on it reads that declaration: a request
that writes is refused with ``STORAGE_FAILED`` while the database cannot be written, and its
answer (and what it caused) is held until the journal has committed; the answer to a request
that only reads is never held for the journal, only kept behind what is held for its session
already (see :meth:`server.shell.session.ClientSession.send`).

Who may send a request is declared there too: ``before_login`` for the few answered before
``logged_in``, ``viewers`` for those a viewer's connection may send (``login.viewer``: the
requests that only read). The dispatcher refuses every other request of a viewer with
``VIEWER_READ_ONLY``, so a new handler is closed to viewers until its registration says
otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from protocol.messages import Message
from server.shell.session import ClientSession
from server.tables.table import Outbox


@dataclass(slots=True)
class Reply:
    """A handler's result (see the module docstring). Exactly one of ``answer`` and ``later``."""

    answer: Message | None = None
    out: Outbox | None = None
    """What the request caused for others (and for the requester after its answer)."""
    later: Coroutine[Any, Any, Message | None] | None = None
    """Answers when it is done: it returns the answer (None: the connection went away)."""
    after: Sequence[Callable[[], None]] = ()
    """Work once the answer is on its way; failures are logged, never answered."""
    free: bool = False
    """The request costs no rate-limit token (an applied ``act``)."""


M = TypeVar("M", bound=Message)


@dataclass(frozen=True, slots=True)
class Handler(Generic[M]):
    """One request type's handler and what it was declared to do."""

    run: Callable[[ClientSession, M], Reply]
    writes: bool
    """It may change what the journal keeps (tables, seats, games, tournaments): refused while the
    database cannot be written, answered once the change is committed. A handler declared not
    to write must not journal anything (the dispatcher logs it as a bug and holds its answer)."""
    before_login: bool
    """It is answered before ``logged_in`` too (``hello``, ``ping``, ``login``)."""
    viewers: bool
    """A viewer may send it (it only reads, and what it answers is the same for anyone: nothing
    a spectator may not see). Every other request of a viewer is refused with
    ``VIEWER_READ_ONLY``."""


class Handlers:
    """Request type -> handler, typed per message type; every request type has at most one."""

    def __init__(self) -> None:
        self.by_type: dict[type[Message], Handler[Any]] = {}
        """Read-only outside :meth:`add` (the dispatcher looks handlers up here directly: it
        does so for every request). Each type's own handler takes exactly that type."""

    def add(
        self,
        cls: type[M],
        handler: Callable[[ClientSession, M], Reply],
        *,
        writes: bool,
        before_login: bool = False,
        viewers: bool = False,
    ) -> None:
        """Register ``handler`` for requests of type ``cls``; ``writes``: whether it may change
        what the journal keeps (there is no default: every registration says); ``viewers``:
        whether a viewer may send it (:attr:`Handler.viewers`; not unless it says so)."""
        if cls in self.by_type:
            raise ValueError(f"{cls.TYPE} has a handler already")
        if viewers and writes:
            raise ValueError(f"{cls.TYPE} writes: a viewer only reads")
        self.by_type[cls] = Handler(handler, writes, before_login, viewers)

    def get(self, msg: M) -> Handler[M] | None:
        return self.by_type.get(type(msg))

    def writes(self, cls: type[Message]) -> bool:
        """Whether requests of type ``cls`` were declared to write (False: no handler)."""
        h = self.by_type.get(cls)
        return h is not None and h.writes
