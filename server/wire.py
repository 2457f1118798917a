"""Encoding the broadcast states of :mod:`server.states` (used by
:meth:`server.session.ClientSession.send_many`).

A change's shared part (header, public view, players) is encoded once, on its first
recipient, and spliced with each recipient's own entries (:mod:`protocol.splice`); a player's
entry and a seat's own part are encoded once and reused for as long as the coordinator reuses
them (they live in the ``wire`` slots of :class:`~server.coordination.PlayerEntry` and
:class:`~server.coordination.SeatPart`).
"""

from __future__ import annotations

import msgpack

from protocol.splice import SharedEncoding, pack_entries
from server.coordination import StateChange

__all__ = ["pack_entries", "shared_encoding"]

_PACK = msgpack.Packer(use_bin_type=True).pack


def _array_header(n: int) -> bytes:
    return bytes((0x90 | n,)) if n < 16 else b"\xdc" + n.to_bytes(2, "big")


def shared_encoding(change: StateChange) -> SharedEncoding:
    """The shared encoding of ``change`` (made on first use, then kept in ``change.wire``)."""
    shared = change.wire
    if shared is None:
        packed = [_array_header(len(change.players))]
        for p in change.players:
            data = p.wire
            if data is None:
                data = p.wire = _PACK(p.value)
            packed.append(data)
        players = [p.value for p in change.players]
        shared = change.wire = SharedEncoding(
            change.common, "view", change.public, {"players": (players, b"".join(packed))}
        )
    return shared
