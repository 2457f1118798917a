"""Property tests: garbage only ever raises ProtocolError; chunking never changes the result."""

from __future__ import annotations

from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.connection import Connection
from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.framing import FrameDecoder, LineDecoder
from protocol.messages import C2S, EXAMPLES, S2C, Direction, Hello, decode_message, encode_message

from .helpers import chunks, encode, raw_frame

FUZZ = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.binary(max_size=6)
)
keys = st.text(max_size=6) | st.integers(min_value=-5, max_value=5) | st.binary(max_size=3)
ext = st.builds(msgpack.ExtType, st.integers(min_value=0, max_value=127), st.binary(max_size=4))
values = st.recursive(
    scalars | ext,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
FIELD_NAMES = sorted({spec.name for cls in (*C2S.values(), *S2C.values()) for spec in cls.FIELDS})
message_like = st.builds(
    lambda t, fields: {"type": t, **fields} if t is not None else fields,
    st.sampled_from([*C2S, *S2C, "bogus", None]),
    st.dictionaries(st.sampled_from([*FIELD_NAMES, "zzz"]), values, max_size=8),
)
cuts = st.lists(st.integers(min_value=0, max_value=5000), max_size=12)


def feed_all(decoder: FrameDecoder | LineDecoder | Connection, parts: list[bytes]) -> None:
    """Feed parts until the first error; any error must be a ProtocolError (pytest sees others)."""
    for part in parts:
        try:
            if isinstance(decoder, Connection):
                decoder.receive_data(part)
            else:
                decoder.feed(part)
        except RemoteProtocolError:
            return


def packed_frame(obj: Any) -> bytes:
    try:
        return raw_frame(msgpack.packb(obj, use_bin_type=True))
    except (TypeError, ValueError, OverflowError):
        return b""


@FUZZ
@given(data=st.binary(max_size=300), cut=cuts)
def test_frame_decoder_random_bytes(data: bytes, cut: list[int]) -> None:
    """Random bytes in random chunks make FrameDecoder raise nothing but ProtocolError."""
    feed_all(FrameDecoder(200), chunks(data, cut))


@FUZZ
@given(body=st.binary(min_size=1, max_size=200), obj=values, cut=cuts)
def test_frame_decoder_random_bodies(body: bytes, obj: Any, cut: list[int]) -> None:
    """Well-framed random bodies and random msgpack values raise nothing but ProtocolError."""
    feed_all(FrameDecoder(500), chunks(raw_frame(body) + packed_frame(obj), cut))


@FUZZ
@given(data=st.binary(max_size=300) | st.text(max_size=200).map(str.encode), cut=cuts)
def test_line_decoder_random_bytes(data: bytes, cut: list[int]) -> None:
    """Random bytes and text make LineDecoder raise nothing but ProtocolError."""
    feed_all(LineDecoder(100), chunks(b"{" + data + b"\n" + data, cut))


@FUZZ
@given(
    prefix=st.booleans(),
    mode=st.sampled_from(["msgpack", "json"]),
    data=st.binary(max_size=300),
    cut=cuts,
)
def test_connection_random_bytes(prefix: bool, mode: str, data: bytes, cut: list[int]) -> None:
    """Random bytes, after a valid hello or not, make both roles raise only ProtocolError."""
    hello = encode({"type": "hello", "id": 1, "version": 1}, mode) if prefix else b""
    feed_all(Connection("server", max_in_before_login=200), chunks(hello + data, cut))
    feed_all(Connection("client", mode=mode), chunks(data, cut))


@FUZZ
@given(d=message_like, direction=st.sampled_from(list(Direction)))
def test_random_messages_decode_or_raise_and_reencode(d: dict[str, Any], direction: Direction) -> None:
    """Random field maps are refused with RemoteProtocolError, or accepted and re-encodable."""
    try:
        msg = decode_message(d, direction)
    except RemoteProtocolError:
        return
    assert decode_message(encode_message(msg), direction) == msg


@FUZZ
@given(d=message_like, mode=st.sampled_from(["msgpack", "json"]))
def test_random_messages_through_a_connection(d: dict[str, Any], mode: str) -> None:
    """Random message-like maps sent after hello raise only ProtocolError from a server."""
    server = Connection("server")
    server.receive_data(encode({"type": "hello", "id": 1, "version": 1}, mode))
    try:
        data = encode(d, mode)
    except ProtocolError:
        return  # not encodable in this mode (bytes in JSON, NaN, ...)
    feed_all(server, [data])


C2S_EXAMPLES = [m for m in EXAMPLES.values() if m.DIRECTION is Direction.C2S and m.TYPE != "hello"]
S2C_EXAMPLES = [m for m in EXAMPLES.values() if m.DIRECTION is Direction.S2C and m.TYPE != "welcome"]


@FUZZ
@given(
    mode=st.sampled_from(["msgpack", "json"]),
    requests=st.lists(st.sampled_from(C2S_EXAMPLES), max_size=15),
    answers=st.lists(st.sampled_from(S2C_EXAMPLES), max_size=15),
    cut=st.lists(st.integers(min_value=0, max_value=20_000), max_size=40),
)
def test_random_chunkings_decode_the_same(mode: str, requests: list[Any], answers: list[Any], cut: list[int]) -> None:
    """However a stream of valid frames is cut into reads, the same messages come out in order."""
    client, server = Connection("client", mode=mode), Connection("server")
    hello = Hello(id=0, version=1)
    c2s = client.send(hello) + b"".join(client.send(m) for m in requests)
    received = [m for part in chunks(c2s, cut) for m in server.receive_data(part)]
    assert received == [hello, *requests]

    s2c = server.send(EXAMPLES["welcome"]) + b"".join(server.send(m) for m in answers)
    received = [m for part in chunks(s2c, cut) for m in client.receive_data(part)]
    assert received == [EXAMPLES["welcome"], *answers]
