"""The SDK's transport: :class:`Link`, one TCP connection as an asyncio protocol (what it reads
goes to the :class:`protocol.Connection` its client owns), and :class:`Pending`, a request
waiting for its answer. :class:`client.sdk.Client` owns both; nothing here decides anything.

(Formerly ``client.sdk_wire``: "wire" is the protocol's word for what goes over the network.)"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from protocol.connection import Connection
from protocol.errors import ErrorCode
from protocol.messages import Message

__all__ = ["Link", "Pending"]


@dataclass(slots=True)
class Pending:
    """A request waiting for its answer (``seq_at_answer``: see :meth:`client.sdk.Client.act`)."""

    future: asyncio.Future[Message]
    table: int | None
    seq_at_answer: int = -1


class Link(asyncio.Protocol):
    """One TCP connection; forwards what it receives and its loss to its client's callbacks,
    which ignore a stale link (one the client has replaced)."""

    def __init__(
        self,
        conn: Connection,
        on_data: Callable[[Link, bytes], None],
        on_lost: Callable[[Link, Exception | None], None],
    ) -> None:
        self.conn = conn
        self._on_data, self._on_lost = on_data, on_lost
        self.transport: asyncio.Transport | None = None
        self.fatal: ErrorCode | None = None  # the fatal error code the server sent, if any
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Rely on the transport's interface, not its class: uvloop's transports do not
        # subclass asyncio.Transport. (asyncio and uvloop set TCP_NODELAY themselves.)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self._on_data(self, data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)
        self._on_lost(self, exc)
