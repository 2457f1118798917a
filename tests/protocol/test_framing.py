"""msgpack framing: length prefixes, limits, bad bodies, and a dead decoder after an error."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest

from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.framing import MAX_NESTING, FrameDecoder, encode_frame

from .helpers import frame, raw_frame

PING = {"type": "ping", "id": 7}


def bad(decoder: FrameDecoder, data: bytes, code: ErrorCode) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        decoder.feed(data)
    assert info.value.code is code
    assert info.value.fatal
    return info.value


def test_round_trip() -> None:
    """A map encoded by encode_frame decodes to an equal map."""
    obj = {"type": "x", "n": 1, "f": 0.5, "s": "é", "l": [1, [2]], "m": {"k": None}, "b": True}
    assert FrameDecoder(1000).feed(encode_frame(obj, max_size=1000)) == [obj]


def test_documented_hex_dump() -> None:
    """The hex dump in the framing docstring is exactly what encode_frame produces."""
    expected = bytes.fromhex("0000000f 82a4 74797065 a470696e67 a26964 07")
    assert encode_frame(PING, max_size=None) == expected


def test_several_frames_in_one_read() -> None:
    """One chunk holding three frames yields all three, in order."""
    objs = [{"i": i} for i in range(3)]
    data = b"".join(encode_frame(o, max_size=None) for o in objs)
    assert FrameDecoder(100).feed(data) == objs


def test_one_byte_at_a_time() -> None:
    """Frames fed one byte at a time come out whole, each exactly when its last byte arrives."""
    decoder = FrameDecoder(100)
    data = encode_frame(PING, max_size=None) + encode_frame({"a": 1}, max_size=None)
    out = []
    for i in range(len(data)):
        got = decoder.feed(data[i : i + 1])
        if got:
            out.append((i, got))
    first_end = len(encode_frame(PING, max_size=None)) - 1
    assert out == [(first_end, [PING]), (len(data) - 1, [{"a": 1}])]
    assert decoder.buffered == 0


def test_header_split_across_reads() -> None:
    """A length prefix split over two reads (after a complete frame) is reassembled."""
    decoder = FrameDecoder(100)
    first, second = encode_frame(PING, max_size=None), encode_frame({"a": 1}, max_size=None)
    assert decoder.feed(first + second[:2]) == [PING]
    assert decoder.feed(second[2:3]) == []
    assert decoder.feed(second[3:5]) == []
    assert decoder.feed(second[5:]) == [{"a": 1}]


def test_oversize_length_prefix_rejected_before_body() -> None:
    """Only the 4 header bytes of an oversized frame are needed to refuse it."""
    decoder = FrameDecoder(100)
    exc = bad(decoder, struct.pack(">I", 101), ErrorCode.FRAME_TOO_LARGE)
    assert "101" in exc.message and "100" in exc.message
    assert decoder.buffered == 0


def test_oversize_prefix_split_header() -> None:
    """An oversized length is refused as soon as its fourth header byte arrives."""
    decoder = FrameDecoder(100)
    assert decoder.feed(b"\xff\xff") == []
    assert decoder.feed(b"\xff") == []
    bad(decoder, b"\xff", ErrorCode.FRAME_TOO_LARGE)


def test_frame_of_exactly_max_size_accepted() -> None:
    """A body of exactly max_size bytes is accepted; one more byte is not."""
    body = msgpack.packb({"s": "x" * 20})
    assert FrameDecoder(len(body)).feed(raw_frame(body)) == [{"s": "x" * 20}]
    bad(FrameDecoder(len(body) - 1), raw_frame(body), ErrorCode.FRAME_TOO_LARGE)


def test_zero_length_frame() -> None:
    """A length prefix of 0 is a bad frame."""
    bad(FrameDecoder(100), b"\x00\x00\x00\x00", ErrorCode.BAD_FRAME)


@pytest.mark.parametrize(
    "body",
    [b"\xc1", b"\xa5abc", b"\x92\x01", b"\xa2\xff\xfe", b"\x81\xa1a\xdd\xff\xff\xff\xff"],
    ids=["reserved-byte", "short-string", "short-array", "bad-utf8", "huge-array-header"],
)
def test_not_msgpack(body: bytes) -> None:
    """Bodies that are not one complete, valid msgpack value are bad frames."""
    bad(FrameDecoder(100), raw_frame(body), ErrorCode.BAD_FRAME)


@pytest.mark.parametrize("obj", [[1, 2], "text", 5, None, 1.5, b"bin"])
def test_not_a_map(obj: object) -> None:
    """A frame holding anything but a map is a bad frame."""
    bad(FrameDecoder(100), frame(obj), ErrorCode.BAD_FRAME)


@pytest.mark.parametrize("obj", [{1: 2}, {b"k": 1}, {"a": 1, 2.5: 3}, {None: 1}])
def test_non_string_keys(obj: object) -> None:
    """Top-level keys must be strings (ints, floats, bytes and nil are refused)."""
    bad(FrameDecoder(100), frame(obj), ErrorCode.BAD_FRAME)


@pytest.mark.parametrize(
    "value",
    [msgpack.ExtType(5, b"xyz"), msgpack.ExtType(0, b""), msgpack.Timestamp(1, 5)],
    ids=["ext5", "ext0-empty", "timestamp"],
)
def test_extension_types_rejected(value: object) -> None:
    """Any msgpack extension type, including the built-in timestamp, is a bad frame."""
    bad(FrameDecoder(100), frame({"a": value}), ErrorCode.BAD_FRAME)


def test_trailing_garbage_inside_frame() -> None:
    """Bytes after the map but inside the frame's length are a bad frame."""
    body = msgpack.packb({"a": 1}) + b"\x00"
    exc = bad(FrameDecoder(100), raw_frame(body), ErrorCode.BAD_FRAME)
    assert "trailing" in exc.message


def test_deep_nesting_rejected() -> None:
    """Lists nested thousands deep are a bad frame, not a crash."""
    body = b"\x81\xa1a" + b"\x91" * 5000 + b"\xc0"
    bad(FrameDecoder(10_000), raw_frame(body), ErrorCode.BAD_FRAME)
    body = b"\x81\xa1a" + b"\x91" * 100 + b"\xc0"
    bad(FrameDecoder(10_000), raw_frame(body), ErrorCode.BAD_FRAME)


def test_decoder_dead_after_error() -> None:
    """After an error every further feed raises, even with valid bytes."""
    decoder = FrameDecoder(100)
    bad(decoder, b"\x00\x00\x00\x00", ErrorCode.BAD_FRAME)
    assert decoder.dead
    with pytest.raises(LocalProtocolError):
        decoder.feed(encode_frame(PING, max_size=None))


def test_frames_before_error_are_reported() -> None:
    """Frames completed in the same chunk before a bad one are in the exception's received."""
    data = encode_frame(PING, max_size=None) + frame([1])
    exc = bad(FrameDecoder(100), data, ErrorCode.BAD_FRAME)
    assert exc.received == [PING]


def test_buffer_stays_bounded() -> None:
    """A frame arriving in pieces never makes the decoder hold more than max_size + 4 bytes."""
    decoder = FrameDecoder(64)
    data = raw_frame(msgpack.packb({"s": "y" * 59})) * 3
    assert len(data) // 3 == 4 + 64
    held = []
    for i in range(0, len(data), 7):
        decoder.feed(data[i : i + 7])
        held.append(decoder.buffered)
    assert 0 < max(held) <= 64 + 4


def test_limit_can_be_raised() -> None:
    """Raising max_size between calls lets the next frame be larger."""
    decoder = FrameDecoder(10)
    data = encode_frame({"s": "z" * 20}, max_size=None)
    decoder.max_size = 100
    assert decoder.feed(data) == [{"s": "z" * 20}]
    with pytest.raises(ValueError):
        decoder.max_size = 0


def test_encode_frame_limits() -> None:
    """encode_frame refuses a body over max_size as our own bug, and bad objects likewise."""
    body_len = len(encode_frame(PING, max_size=None)) - 4
    assert encode_frame(PING, max_size=body_len)
    with pytest.raises(LocalProtocolError) as info:
        encode_frame(PING, max_size=body_len - 1)
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE and not info.value.fatal
    with pytest.raises(LocalProtocolError):
        encode_frame({"x": object()}, max_size=None)
    with pytest.raises(LocalProtocolError):
        encode_frame([1], max_size=None)  # type: ignore[arg-type]


def test_nesting_walk_can_be_left_to_msgpack_for_a_trusted_peer() -> None:
    """A decoder told not to check nesting (a client reading its server) accepts what the
    default one refuses; small frames, which cannot nest deep, pass both."""
    deep: Any = "x"
    for _ in range(MAX_NESTING + 5):
        deep = [deep]
    frame = encode_frame({"type": "t", "v": deep}, max_size=None)
    with pytest.raises(RemoteProtocolError):
        FrameDecoder(1 << 16).feed(frame)
    assert FrameDecoder(1 << 16, check_nesting=False).feed(frame)[0]["type"] == "t"
    small = encode_frame({"type": "act", "id": 1}, max_size=None)
    assert FrameDecoder(1 << 16).feed(small) == [{"type": "act", "id": 1}]
