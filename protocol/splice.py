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
from typing import Any

import msgpack

from .errors import ErrorCode, LocalProtocolError
from .framing import FRAME_HEADER

_PACKER = msgpack.Packer(use_bin_type=True)


def _map_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x80 | n,))
    if n < 1 << 16:
        return b"\xde" + n.to_bytes(2, "big")
    return b"\xdf" + n.to_bytes(4, "big")


_MAP_HEADERS = tuple(_map_header(n) for n in range(64))
"""The headers of maps of up to 63 entries (every state's), looked up rather than built."""


def with_encoding(value: Any) -> tuple[Any, bytes]:
    """``value`` and its msgpack encoding: an entry of :class:`SharedEncoding`'s ``inner``."""
    data: bytes = _PACKER.pack(value)
    return value, data


def _packed_entries(d: dict[str, Any]) -> bytes:
    """The msgpack encoding of ``d``'s entries without the map header."""
    data: bytes = _PACKER.pack(d)
    first = data[0]
    skip = 1 if 0x80 <= first <= 0x8F else 3 if first == 0xDE else 5
    return data[skip:]


def _json_members(d: dict[str, Any]) -> str:
    """The JSON members of ``d`` without the braces ('' for an empty map)."""
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False, allow_nan=False)[1:-1]


class PackedEntries:
    """A map (``source``) whose entries are encoded once: msgpack, without the map header,
    made by :meth:`SharedEncoding.frame` the first time it needs them and kept in ``data``
    (the JSON form uses the map itself). Pass it to :meth:`SharedEncoding.frame` in place of
    a dict to reuse the encoding across messages; the map must not change afterwards.

    Building one encodes nothing, so that a caller may build it where nothing is encoded (the
    server's coordinators) and have it encoded only if and when it is sent."""

    __slots__ = ("count", "data", "source")

    def __init__(self, source: dict[str, Any]) -> None:
        self.source = source
        self.count = len(source)
        self.data: bytes | None = None


def pack_entries(d: dict[str, Any]) -> PackedEntries:
    """Encode ``d``'s entries once for reuse (``d`` must not change afterwards)."""
    packed = PackedEntries(d)
    packed.data = _packed_entries(d) if d else b""
    return packed


class SharedEncoding:
    """The shared part of a family of messages ``{**common, inner: {**inner_common, ...}}``,
    encoded once per mode on first use; :meth:`frame` and :meth:`line` add one recipient's
    own entries (``own`` at the top level, ``inner_own`` inside ``inner``, either as a dict or
    as :class:`PackedEntries` encoded earlier)."""

    __slots__ = ("_js", "_mp", "common", "inner", "inner_common", "inner_packed")

    def __init__(
        self,
        common: dict[str, Any],
        inner: str,
        inner_common: dict[str, Any],
        inner_packed: dict[str, tuple[Any, bytes]] | None = None,
    ) -> None:
        """``inner_packed``: more shared entries of ``inner`` given as ``key: (value, msgpack
        encoding of value)``, for values the caller has encoded already (and cached)."""
        self.common = common
        self.inner = inner
        self.inner_common = inner_common
        self.inner_packed = inner_packed or {}
        self._mp: tuple[bytes, int, bytes, int] | None = None
        self._js: tuple[str, str] | None = None

    def inner_shared(self) -> dict[str, Any]:
        """Every shared entry of ``inner``, as plain values."""
        if not self.inner_packed:
            return self.inner_common
        return {**self.inner_common, **{k: v for k, (v, _) in self.inner_packed.items()}}

    def frame(self, own: dict[str, Any], inner_own: dict[str, Any] | PackedEntries, *, max_size: int | None) -> bytes:
        """One length-prefixed msgpack frame."""
        mp = self._mp
        if mp is None:
            packed = _packed_entries(self.inner_common) if self.inner_common else b""
            for key, (_, data) in self.inner_packed.items():
                packed += _PACKER.pack(key) + data
            mp = self._mp = (
                _packed_entries(self.common) + _PACKER.pack(self.inner),
                len(self.common) + 1,
                packed,
                len(self.inner_common) + len(self.inner_packed),
            )
        head, n_top, inner_common, n_inner = mp
        if isinstance(inner_own, PackedEntries):
            inner_data = inner_own.data
            if inner_data is None:
                inner_data = inner_own.data = _packed_entries(inner_own.source) if inner_own.count else b""
            n_inner += inner_own.count
        else:
            inner_data = _packed_entries(inner_own) if inner_own else b""
            n_inner += len(inner_own)
        # (_map_header, inlined for the maps of every state: this runs once per recipient of
        # every change)
        n_top += len(own)
        parts = [
            b"",
            _MAP_HEADERS[n_top] if n_top < 64 else _map_header(n_top),
            head,
            _MAP_HEADERS[n_inner] if n_inner < 64 else _map_header(n_inner),
            inner_common,
            inner_data,
        ]
        if own:
            parts.append(_packed_entries(own))
        size = sum(map(len, parts))
        if max_size is not None and size > max_size:
            raise LocalProtocolError(
                ErrorCode.FRAME_TOO_LARGE, f"outgoing frame of {size} bytes exceeds the limit of {max_size} bytes"
            )
        parts[0] = FRAME_HEADER.pack(size)  # the length first, then one copy of everything
        return b"".join(parts)

    def line(self, own: dict[str, Any], inner_own: dict[str, Any] | PackedEntries, *, max_size: int | None) -> bytes:
        """One JSON line (UTF-8, newline-terminated)."""
        if self._js is None:
            self._js = (_json_members(self.common), _json_members(self.inner_shared()))
        common, inner_common = self._js
        if isinstance(inner_own, PackedEntries):
            inner_own = inner_own.source
        inner_parts = [p for p in (inner_common, _json_members(inner_own) if inner_own else "") if p]
        top_parts = [
            p
            for p in (
                common,
                json.dumps(self.inner) + ":{" + ",".join(inner_parts) + "}",
                _json_members(own) if own else "",
            )
            if p
        ]
        data = ("{" + ",".join(top_parts) + "}\n").encode("utf-8")
        if max_size is not None and len(data) > max_size:
            raise LocalProtocolError(
                ErrorCode.FRAME_TOO_LARGE, f"outgoing line of {len(data)} bytes exceeds the limit of {max_size} bytes"
            )
        return data
