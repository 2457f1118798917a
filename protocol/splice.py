"""Encode many messages that share most of their content, paying for the shared part once.

A server sends one ``state`` per seat after every change; the four states differ only in a
few fields (the seat's hand and legal actions, its deadline) while the public view, the
events and the header are the same. :func:`encode_shared` encodes the shared map entries
once per wire mode and splices the per-recipient entries in, producing exactly the bytes
a client would decode to the same map as if each message had been encoded whole.

Both wire forms allow it: a msgpack map is a header giving the entry count followed by the
entries, and a JSON object is its members between braces, so encoded entries can be
concatenated. Key order differs from whole encoding, which neither format gives meaning to.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import msgpack

from .errors import ErrorCode, LocalProtocolError

_PACKER = msgpack.Packer(use_bin_type=True)
_HEADER = struct.Struct(">I")


def _map_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x80 | n,))
    if n < 1 << 16:
        return b"\xde" + n.to_bytes(2, "big")
    return b"\xdf" + n.to_bytes(4, "big")


def _packed_entries(d: dict[str, Any]) -> bytes:
    """The msgpack encoding of ``d``'s entries without the map header."""
    data: bytes = _PACKER.pack(d)
    first = data[0]
    skip = 1 if 0x80 <= first <= 0x8F else 3 if first == 0xDE else 5
    return data[skip:]


def _json_members(d: dict[str, Any]) -> str:
    """The JSON members of ``d`` without the braces ('' for an empty map)."""
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False, allow_nan=False)[1:-1]


class SharedEncoding:
    """The shared part of a family of messages ``{**common, inner: {**inner_common, ...}}``,
    encoded once per mode on first use; :meth:`frame` and :meth:`line` add one recipient's
    own entries (``own`` at the top level, ``inner_own`` inside ``inner``)."""

    def __init__(self, common: dict[str, Any], inner: str, inner_common: dict[str, Any]) -> None:
        self.common = common
        self.inner = inner
        self.inner_common = inner_common
        self._mp: tuple[bytes, bytes] | None = None
        self._js: tuple[str, str] | None = None

    def frame(self, own: dict[str, Any], inner_own: dict[str, Any], *, max_size: int | None) -> bytes:
        """One length-prefixed msgpack frame."""
        if self._mp is None:
            self._mp = (_packed_entries(self.common) + _PACKER.pack(self.inner), _packed_entries(self.inner_common))
        head, inner_common = self._mp
        body = b"".join((
            _map_header(len(self.common) + 1 + len(own)), head,
            _map_header(len(self.inner_common) + len(inner_own)), inner_common,
            _packed_entries(inner_own) if inner_own else b"",
            _packed_entries(own) if own else b"",
        ))
        if max_size is not None and len(body) > max_size:
            raise LocalProtocolError(ErrorCode.FRAME_TOO_LARGE,
                                     f"outgoing frame of {len(body)} bytes exceeds the limit of {max_size} bytes")
        return _HEADER.pack(len(body)) + body

    def line(self, own: dict[str, Any], inner_own: dict[str, Any], *, max_size: int | None) -> bytes:
        """One JSON line (UTF-8, newline-terminated)."""
        if self._js is None:
            self._js = (_json_members(self.common), _json_members(self.inner_common))
        common, inner_common = self._js
        inner_parts = [p for p in (inner_common, _json_members(inner_own) if inner_own else "") if p]
        top_parts = [p for p in (common, json.dumps(self.inner) + ":{" + ",".join(inner_parts) + "}",
                                 _json_members(own) if own else "") if p]
        data = ("{" + ",".join(top_parts) + "}\n").encode("utf-8")
        if max_size is not None and len(data) > max_size:
            raise LocalProtocolError(ErrorCode.FRAME_TOO_LARGE,
                                     f"outgoing line of {len(data)} bytes exceeds the limit of {max_size} bytes")
        return data
