"""Encoding the broadcast states of :mod:`server.states` (used by
:meth:`server.session.ClientSession.send_many`).

A change's shared part (header, public view, players) is encoded once, on its first
recipient, and spliced with each recipient's own entries (:mod:`protocol.splice`); a player's
entry is encoded once and reused for as long as the coordinator reuses it (in the ``wire``
slot of :class:`~server.coordination.PlayerEntry`), and so is a seat's own part (a
:class:`~server.coordination.SeatPart`, which :mod:`protocol.splice` encodes when first sent).
"""

from __future__ import annotations

import msgpack

from protocol.splice import SharedEncoding
from server.coordination import StateChange

__all__ = ["shared_encoding"]

_PACK = msgpack.Packer(use_bin_type=True).pack
_FIXARRAY = tuple(bytes((0x90 | n,)) for n in range(16))


def _array_header(n: int) -> bytes:
    return _FIXARRAY[n] if n < 16 else b"\xdc" + n.to_bytes(2, "big")


def shared_encoding(change: StateChange) -> SharedEncoding:
    """The shared encoding of ``change`` (made on first use, then kept in ``change.wire``).

    One pass over the players gives both the packed list (each entry encoded once, the
    first time it is sent, and kept in its ``wire``) and the plain list the JSON form uses."""
    shared = change.wire
    if shared is None:
        entries = change.players
        packed = [_array_header(len(entries))]
        values = []
        for p in entries:
            value = p.value
            values.append(value)
            data = p.wire
            if data is None:
                data = p.wire = _PACK(value)
            packed.append(data)
        shared = change.wire = SharedEncoding(
            change.common, "view", change.public, {"players": (values, b"".join(packed))}
        )
    return shared
