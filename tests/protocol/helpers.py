"""Small helpers shared by the protocol tests."""

from __future__ import annotations

import struct
from typing import Any

import msgpack

from protocol.framing import encode_frame, encode_line


def raw_frame(body: bytes) -> bytes:
    """A frame around arbitrary body bytes (the length prefix is always right)."""
    return struct.pack(">I", len(body)) + body


def frame(obj: Any) -> bytes:
    """A frame holding ``obj`` packed as msgpack, whatever it is (maps or not)."""
    return raw_frame(msgpack.packb(obj, use_bin_type=True))


def encode(obj: dict[str, Any], mode: str) -> bytes:
    """``obj`` as bytes in either wire mode."""
    return encode_frame(obj, max_size=None) if mode == "msgpack" else encode_line(obj)


def chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at the given positions (any order, duplicates allowed)."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    out, start = [], 0
    for p in points:
        out.append(data[start:p])
        start = p
    out.append(data[start:])
    return out
