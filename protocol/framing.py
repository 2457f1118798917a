"""Bytes <-> frames, in the two wire modes. No I/O: feed bytes in, get dicts out.

**msgpack mode** (the default). Each frame is a 4-byte big-endian unsigned length ``n``
followed by exactly ``n`` bytes of msgpack encoding one map whose keys are strings::

    00 00 00 0f  82 a4 74 79 70 65 a4 70 69 6e 67 a2 69 64 07
    length = 15  {"type": "ping", "id": 7}

**JSON-lines mode.** Each message is one JSON object, UTF-8, on one line ending in ``"\\n"``
(``"\\r\\n"`` is accepted, blank lines are ignored). NaN and Infinity are not JSON and are
refused. The size limit applies to the line without its terminator.

Error handling: a decoder raises :class:`~protocol.errors.RemoteProtocolError` with code
``FRAME_TOO_LARGE`` or ``BAD_FRAME`` and is dead from then on (any further :meth:`feed` raises
:class:`~protocol.errors.LocalProtocolError`): the stream can no longer be trusted, and the
caller reports the error and closes. Frames decoded from the same chunk before the bad one are
in the exception's ``received`` list. The encoders raise ``LocalProtocolError``.

Resource handling: a decoder never holds more than ``max_size + 4`` bytes between calls
(``max_size + 1`` for lines), and the length prefix is checked before any of the body is
buffered, so an oversized frame costs nothing to refuse.
"""

from __future__ import annotations

import json
import math
import re
import struct
from typing import Any, NoReturn

import msgpack

from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError

__all__ = [
    "FRAME_HEADER",
    "HEADER_SIZE",
    "MAX_NESTING",
    "FrameDecoder",
    "LineDecoder",
    "encode_frame",
    "encode_line",
]

#: The msgpack frame header: the body's length as a 4-byte big-endian unsigned integer. The one
#: definition of it: the connection and the shared-state encoder (:mod:`protocol.splice`) use it too.
FRAME_HEADER = struct.Struct(">I")
HEADER_SIZE = FRAME_HEADER.size
_HEADER = FRAME_HEADER
_MAX_LENGTH = 2**32 - 1

#: Deepest nesting of lists and maps either decoder accepts (msgpack's own limit is 1024).
MAX_NESTING = 64


def _bad_frame(message: str) -> RemoteProtocolError:
    return RemoteProtocolError(ErrorCode.BAD_FRAME, message)


def _too_large(size: int, limit: int, what: str) -> RemoteProtocolError:
    return RemoteProtocolError(ErrorCode.FRAME_TOO_LARGE, f"{what} of {size} bytes exceeds the limit of {limit} bytes")


def _check_max_size(max_size: int) -> int:
    if type(max_size) is not int or not 1 <= max_size <= _MAX_LENGTH:
        raise ValueError(f"max_size must be an int in 1..{_MAX_LENGTH}, got {max_size!r}")
    return max_size


def _check_top(obj: Any, size: int, nesting: bool) -> dict[str, Any]:
    """The decoded body must be a map with string keys, nested at most MAX_NESTING deep.

    The nesting walk is skipped when it cannot fail: every list or map takes at least one
    byte (or character), so a body of ``size`` <= MAX_NESTING cannot nest deeper (a play is
    about 40 bytes); and when the caller trusts the sender's nesting (``nesting`` false)."""
    if not isinstance(obj, dict):
        raise _bad_frame(f"a frame must hold a map, not {type(obj).__name__}")
    for key in obj:
        if not isinstance(key, str):
            raise _bad_frame("map keys must be strings")
    if nesting and size > MAX_NESTING:
        _check_depth(obj)
    return obj


def _check_depth(obj: dict[str, Any]) -> None:
    stack: list[tuple[Any, int]] = [(v, 2) for v in obj.values() if isinstance(v, (dict, list))]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise _bad_frame(f"nesting deeper than {MAX_NESTING} levels")
        children = value.values() if isinstance(value, dict) else value
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))


# One packer for every frame (msgpack.packb would build a new one per call). Packing is
# synchronous and this package has no threads, so sharing it is safe.
_PACKER = msgpack.Packer(use_bin_type=True)


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack extension type {code} is not allowed")


# --------------------------------------------------------------------------- msgpack mode


def encode_frame(obj: object, *, max_size: int | None) -> bytes:
    """Encode one map as a length-prefixed msgpack frame.

    Raises ``LocalProtocolError``: ``FRAME_TOO_LARGE`` if the body is longer than
    ``max_size`` (None: only the 4-byte length field limits it), ``BAD_FRAME`` if ``obj`` is
    not a dict or holds something msgpack cannot encode.
    """
    if not isinstance(obj, dict):
        raise LocalProtocolError(ErrorCode.BAD_FRAME, f"a frame must be a dict, not {type(obj).__name__}")
    try:
        body: bytes = _PACKER.pack(obj)
    except (TypeError, ValueError, OverflowError) as exc:
        _PACKER.reset()  # a failed pack may leave partial output in the packer
        raise LocalProtocolError(ErrorCode.BAD_FRAME, f"cannot encode as msgpack: {exc}") from None
    limit = _MAX_LENGTH if max_size is None else min(max_size, _MAX_LENGTH)
    if len(body) > limit:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"outgoing frame of {len(body)} bytes exceeds the limit of {limit} bytes",
        )
    return _HEADER.pack(len(body)) + body


class _Decoder:
    """What both decoders share: a size limit that may change, a bounded buffer, and death
    after the first error (bytes after a bad frame cannot be trusted)."""

    def __init__(self, max_size: int, *, check_nesting: bool = True) -> None:
        self._max_size = _check_max_size(max_size)
        self._buf = bytearray()
        self._error: RemoteProtocolError | None = None
        #: False: do not walk decoded frames for their nesting depth. For a client reading its
        #: server: msgpack refuses more than 1024 levels and JSON deep recursion by themselves
        #: (both BAD_FRAME), and walking every 800-byte state costs the client more than decoding it.
        self.check_nesting = check_nesting

    @property
    def max_size(self) -> int:
        """Largest frame body (msgpack) or line without its terminator (JSON) accepted, in bytes."""
        return self._max_size

    @max_size.setter
    def max_size(self, value: int) -> None:
        self._max_size = _check_max_size(value)

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete frame or line (at most ``max_size`` + 4)."""
        return len(self._buf)

    @property
    def dead(self) -> bool:
        """True after an error: the decoder refuses any further input."""
        return self._error is not None

    def _check_alive(self, what: str) -> None:
        """Feeding a dead decoder is the caller's bug (LocalProtocolError)."""
        if self._error is not None:
            raise LocalProtocolError(
                ErrorCode.INTERNAL_ERROR, f"{what} decoder used after an earlier error ({self._error.code})"
            )


class FrameDecoder(_Decoder):
    """Incremental decoder of length-prefixed msgpack frames.

    Feed it bytes as they arrive, in chunks of any size; it returns every complete frame.
    ``max_size`` (the largest body accepted) may be changed between calls, e.g. raised after
    login; the limit in force when a frame's 4-byte header completes applies to that frame.
    """

    def __init__(self, max_size: int, *, check_nesting: bool = True) -> None:
        super().__init__(max_size, check_nesting=check_nesting)
        self._need: int | None = None  # body length once the header is known

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Consume ``data``; return the frames it completes, in order (often none).

        Raises ``RemoteProtocolError`` (``FRAME_TOO_LARGE`` or ``BAD_FRAME``) on bad input and
        is dead afterwards; ``LocalProtocolError`` if called again after that.
        """
        self._check_alive("frame")
        frames: list[dict[str, Any]] = []
        view = memoryview(data).cast("B")
        end = len(view)
        pos = 0
        buf = self._buf
        try:
            while True:
                if self._need is None:
                    # Header: take it straight from the chunk when whole, else accumulate.
                    if not buf and end - pos >= HEADER_SIZE:
                        (length,) = _HEADER.unpack_from(view, pos)
                        pos += HEADER_SIZE
                    else:
                        take = min(HEADER_SIZE - len(buf), end - pos)
                        buf += view[pos : pos + take]
                        pos += take
                        if len(buf) < HEADER_SIZE:
                            break
                        (length,) = _HEADER.unpack(buf)
                        buf.clear()
                    if length == 0:
                        raise _bad_frame("zero-length frame")
                    if length > self._max_size:
                        raise _too_large(length, self._max_size, "frame")
                    self._need = length
                need = self._need
                if not buf and end - pos >= need:
                    body: bytes | memoryview = view[pos : pos + need]
                    pos += need
                else:
                    take = min(need - len(buf), end - pos)
                    buf += view[pos : pos + take]
                    pos += take
                    if len(buf) < need:
                        break
                    body = bytes(buf)
                    buf.clear()
                self._need = None
                frames.append(self._decode(body))
        except RemoteProtocolError as exc:
            self._error = exc
            buf.clear()
            exc.received = list(frames)
            raise
        return frames

    def _decode(self, body: bytes | memoryview) -> dict[str, Any]:
        limit = len(body)
        try:
            obj = msgpack.unpackb(
                body,
                raw=False,
                strict_map_key=True,
                use_list=True,
                ext_hook=_reject_ext,
                max_str_len=limit,
                max_bin_len=limit,
                max_array_len=limit,
                max_map_len=limit // 2,
                max_ext_len=0,
            )
        except msgpack.ExtraData:
            raise _bad_frame("trailing bytes after the msgpack value inside the frame") from None
        except (ValueError, TypeError, RecursionError) as exc:
            # FormatError, StackError, UnicodeDecodeError, limits, extension types: all
            # ValueError subclasses. The text is msgpack's and holds no data of ours.
            raise _bad_frame(f"not valid msgpack: {str(exc)[:120]}") from None
        return _check_top(obj, limit, self.check_nesting)


# --------------------------------------------------------------------------- JSON-lines mode

_SURROGATE = re.compile(f"[{chr(0xD800)}-{chr(0xDFFF)}]")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number out of range")
    return value


_JSON_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)


def _has_surrogate(obj: dict[str, Any]) -> bool:
    """True if any string holds a lone surrogate (valid JSON "\\ud800", invalid UTF-8)."""
    stack: list[Any] = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def encode_line(obj: object, *, max_size: int | None = None) -> bytes:
    """Encode one map as a compact JSON line (UTF-8, not ASCII-escaped) ending in ``"\\n"``.

    Raises ``LocalProtocolError``: ``BAD_FRAME`` if ``obj`` is not a dict or not JSON
    (bytes, NaN, non-string keys...), ``FRAME_TOO_LARGE`` if the line without its newline is
    longer than ``max_size``.
    """
    if not isinstance(obj, dict):
        raise LocalProtocolError(ErrorCode.BAD_FRAME, f"a line must be a dict, not {type(obj).__name__}")
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        line = text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise LocalProtocolError(ErrorCode.BAD_FRAME, f"cannot encode as JSON: {exc}") from None
    if max_size is not None and len(line) > max_size:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"outgoing line of {len(line)} bytes exceeds the limit of {max_size} bytes",
        )
    return line + b"\n"


class LineDecoder(_Decoder):
    """Incremental decoder of JSON lines; same contract as :class:`FrameDecoder`.

    A line longer than ``max_size`` bytes (without ``"\\r\\n"``/``"\\n"``) is refused as soon
    as that many bytes are buffered, without waiting for its newline.
    """

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Consume ``data``; return the objects of the lines it completes, in order.

        Raises ``RemoteProtocolError`` (``FRAME_TOO_LARGE`` or ``BAD_FRAME``) on bad input and
        is dead afterwards; ``LocalProtocolError`` if called again after that.
        """
        self._check_alive("line")
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        frames: list[dict[str, Any]] = []
        buf = self._buf
        limit = self._max_size
        start = 0
        try:
            while True:
                newline = data.find(b"\n", start)
                if newline < 0:
                    buf += data[start:]
                    # One byte of slack for the "\r" of a "\r\n" still to come.
                    if len(buf) > limit and not (len(buf) == limit + 1 and buf[-1] == 0x0D):
                        raise _too_large(len(buf), limit, "line")
                    break
                if buf:
                    buf += data[start:newline]
                    line = bytes(buf)
                    buf.clear()
                else:
                    line = bytes(data[start:newline])
                start = newline + 1
                if line.endswith(b"\r"):
                    line = line[:-1]
                if len(line) > limit:
                    raise _too_large(len(line), limit, "line")
                if not line.strip():
                    continue
                frames.append(self._decode(line))
        except RemoteProtocolError as exc:
            self._error = exc
            buf.clear()
            exc.received = list(frames)
            raise
        return frames

    def _decode(self, line: bytes) -> dict[str, Any]:
        try:
            text = line.decode("utf-8")
            obj = _JSON_DECODER.decode(text)
        except (ValueError, RecursionError) as exc:
            # JSONDecodeError, UnicodeDecodeError, NaN/Infinity, over-long integers.
            raise _bad_frame(f"not a valid JSON line: {str(exc)[:120]}") from None
        if not isinstance(obj, dict):
            raise _bad_frame(f"a line must hold a JSON object, not {type(obj).__name__}")
        if b"\\u" in line and _has_surrogate(obj):
            raise _bad_frame("string holds a lone surrogate (not valid Unicode)")
        return _check_top(obj, len(line), self.check_nesting)
