"""JSON-lines mode: one object per line, limits while buffering, and JSON's sharp edges."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.framing import FrameDecoder, LineDecoder, encode_frame, encode_line
from protocol.messages import EXAMPLES, decode_message, encode_message


def bad(decoder: LineDecoder, data: bytes, code: ErrorCode) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        decoder.feed(data)
    assert info.value.code is code
    return info.value


def test_round_trip_and_compact_encoding() -> None:
    """encode_line is compact UTF-8 JSON plus a newline, and decodes to an equal map."""
    obj = {"type": "chat", "text": "hé ♠", "n": [1, 2.5, None, True]}
    line = encode_line(obj)
    assert line == '{"type":"chat","text":"hé ♠","n":[1,2.5,null,true]}\n'.encode()
    assert LineDecoder(100).feed(line) == [obj]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_same_message_in_both_modes(name: str) -> None:
    """Every example message decodes to the same Message from msgpack and from JSON lines."""
    msg = EXAMPLES[name]
    d = encode_message(msg)
    [from_frame] = FrameDecoder(1 << 20).feed(encode_frame(d, max_size=None))
    [from_line] = LineDecoder(1 << 20).feed(encode_line(d))
    a = decode_message(from_frame, msg.DIRECTION)
    b = decode_message(from_line, msg.DIRECTION)
    assert a == b == msg


def test_several_lines_and_partial_lines() -> None:
    """Several lines in one read come out together; a partial line waits for its newline."""
    decoder = LineDecoder(100)
    assert decoder.feed(b'{"a":1}\n{"b":2}\n{"c"') == [{"a": 1}, {"b": 2}]
    assert decoder.feed(b":3}") == []
    assert decoder.feed(b"\n") == [{"c": 3}]


def test_crlf_and_blank_lines() -> None:
    """CRLF terminators are accepted and blank (or whitespace-only) lines are ignored."""
    decoder = LineDecoder(100)
    assert decoder.feed(b'\n\r\n  \n{"a":1}\r\n\r\n{"b":2}\r') == [{"a": 1}]
    assert decoder.feed(b"\n") == [{"b": 2}]


def test_line_too_long_detected_before_newline() -> None:
    """A line over the limit is refused while buffering, with no newline in sight."""
    decoder = LineDecoder(16)
    assert decoder.feed(b'{"a":"' + b"x" * 10) == []
    exc = bad(decoder, b"x", ErrorCode.FRAME_TOO_LARGE)
    assert exc.fatal
    assert decoder.buffered == 0


def test_line_of_exactly_max_size() -> None:
    """A line of exactly max_size bytes is accepted, with either terminator."""
    line = b'{"a":"' + b"x" * 8 + b'"}'
    assert len(line) == 16
    assert LineDecoder(16).feed(line + b"\n") == [{"a": "x" * 8}]
    decoder = LineDecoder(16)
    assert decoder.feed(line + b"\r") == []
    assert decoder.feed(b"\n") == [{"a": "x" * 8}]
    bad(LineDecoder(15), line + b"\n", ErrorCode.FRAME_TOO_LARGE)


@pytest.mark.parametrize(
    "line",
    [b"{", b"{'a': 1}", b'{"a":1}}', b'{"a":1} x', b"\xff{}", b'{"a":01}', b"\xef\xbb\xbf{}"],
    ids=["truncated", "single-quotes", "extra-brace", "trailing-text", "bad-utf8", "octal", "bom"],
)
def test_bad_json(line: bytes) -> None:
    """Anything that is not exactly one JSON value in UTF-8 is a bad frame."""
    bad(LineDecoder(100), line + b"\n", ErrorCode.BAD_FRAME)


@pytest.mark.parametrize("line", [b"[1,2]", b'"text"', b"5", b"null", b"true"])
def test_not_an_object(line: bytes) -> None:
    """A line holding anything but a JSON object is a bad frame."""
    bad(LineDecoder(100), line + b"\n", ErrorCode.BAD_FRAME)


@pytest.mark.parametrize("value", [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1e400", b"1" * 5000])
def test_non_finite_and_huge_numbers_rejected(value: bytes) -> None:
    """NaN, infinities, floats that overflow and absurdly long integers are refused."""
    bad(LineDecoder(10_000), b'{"a":' + value + b"}\n", ErrorCode.BAD_FRAME)


def test_lone_surrogate_rejected_pair_accepted() -> None:
    """An escaped lone surrogate is refused; an escaped surrogate pair is one character."""
    assert LineDecoder(100).feed(b'{"a":"\\ud83d\\ude00"}\n') == [{"a": "\U0001f600"}]
    bad(LineDecoder(100), b'{"a":"\\ud83d"}\n', ErrorCode.BAD_FRAME)
    bad(LineDecoder(100), b'{"\\udc00":1}\n', ErrorCode.BAD_FRAME)
    assert LineDecoder(100).feed(b'{"a":"\\\\ud800"}\n') == [{"a": "\\ud800"}]


def test_deep_nesting_rejected() -> None:
    """Deeply nested arrays are a bad frame, not a RecursionError."""
    deep = b'{"a":' + b"[" * 50_000 + b"]" * 50_000 + b"}\n"
    bad(LineDecoder(200_000), deep, ErrorCode.BAD_FRAME)
    bad(LineDecoder(1000), b'{"a":' + b"[" * 100 + b"]" * 100 + b"}\n", ErrorCode.BAD_FRAME)


def test_decoder_dead_after_error() -> None:
    """After an error every further feed raises; earlier lines of the chunk are reported."""
    decoder = LineDecoder(100)
    exc = bad(decoder, b'{"a":1}\n[]\n{"b":2}\n', ErrorCode.BAD_FRAME)
    assert exc.received == [{"a": 1}]
    with pytest.raises(LocalProtocolError):
        decoder.feed(b'{"a":1}\n')


def test_encode_line_refuses_what_json_cannot_carry() -> None:
    """encode_line raises LocalProtocolError for NaN, bytes, non-dicts and oversize lines."""
    for obj in ({"a": float("nan")}, {"a": b"x"}, [1]):
        with pytest.raises(LocalProtocolError):
            encode_line(obj)  # type: ignore[arg-type]
    with pytest.raises(LocalProtocolError) as info:
        encode_line({"a": "x" * 10}, max_size=10)
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
