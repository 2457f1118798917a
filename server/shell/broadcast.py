"""Encoding the broadcast states of :mod:`server.tables.states` (used by
:meth:`server.shell.session.ClientSession.send`).

A change's shared part (header, public view, players) is encoded once, on its first
recipient, and spliced with each recipient's own entries (:mod:`protocol.splice`); a seat's
own part (a :class:`~server.tables.coordination.SeatPart`) is encoded by :mod:`protocol.splice` when
first sent.
"""

from __future__ import annotations

from protocol.splice import SharedEncoding, with_encoding
from server.tables.coordination import StateChange

__all__ = ["shared_encoding"]


def shared_encoding(change: StateChange) -> SharedEncoding:
    """The shared encoding of ``change`` (made on first use, then kept in ``change.wire``): the
    players' list is encoded once for every recipient."""
    shared = change.wire
    if shared is None:
        players = with_encoding([p.value for p in change.players])
        shared = change.wire = SharedEncoding(change.common, "view", change.public, {"players": players})
    return shared
