"""What a request handler gives back, so that every request gets exactly one answer.

A handler never sends its answer itself: it returns a :class:`Reply` and the server
(:meth:`server.app.App.handle`) delivers it. That makes "one answer per request" a property of
the structure rather than of each handler:

* the handler raises (a :class:`~server.coordination.TableError` or a bug) -> one ``error``, and
  nothing it queued is delivered;
* it returns -> ``answer`` goes out (ahead of the messages the request caused in ``out``), or,
  with ``later``, the coroutine's result once it finishes (its failure -> one ``error``);
* work that follows an answer (``after``: a finished game's record, a tournament going on, a
  table closing) runs once the answer is on its way; a failure there is logged and answers
  nothing, since the request was answered already.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.messages import LoggedIn, Message, Pong, Welcome
from server.session import ClientSession
from server.table import Outbox

UNHELD: frozenset[type[Message]] = frozenset({Welcome, LoggedIn, Pong})
"""Answers that reveal no change to the game state: sent without waiting for the journal."""


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


class Handlers:
    """Request type -> handler, typed per message type."""

    def __init__(self) -> None:
        self.by_type: dict[type[Message], Callable[[ClientSession, Any], Reply]] = {}
        """Read-only outside :meth:`add` (the dispatcher looks handlers up here directly: it
        does so for every request). Each type's own handler takes exactly that type."""

    def add(self, cls: type[M], handler: Callable[[ClientSession, M], Reply]) -> None:
        self.by_type[cls] = handler

    def get(self, msg: M) -> Callable[[ClientSession, M], Reply] | None:
        return self.by_type.get(type(msg))
