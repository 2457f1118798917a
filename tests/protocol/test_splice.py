"""Shared encodings decode to exactly what encoding each message whole gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import LocalProtocolError
from protocol.framing import FrameDecoder, LineDecoder
from protocol.splice import SharedEncoding

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=12,
)
_keys = st.text(alphabet="abcdefghijklmnop", min_size=1, max_size=6)


def _split(d: dict[str, Any], n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    items = list(d.items())
    return dict(items[:n]), dict(items[n:])


def _decode_frame(data: bytes) -> dict[str, Any]:
    frames = FrameDecoder(1 << 20).feed(data)
    assert len(frames) == 1
    return frames[0]


def _decode_line(data: bytes) -> dict[str, Any]:
    lines = LineDecoder(1 << 20).feed(data)
    assert len(lines) == 1
    return lines[0]


@settings(max_examples=300, deadline=None)
@given(
    top=st.dictionaries(_keys, _value, max_size=20),
    inner=st.dictionaries(_keys, _value, max_size=40),
    cut_top=st.integers(0, 20),
    cut_inner=st.integers(0, 40),
)
def test_spliced_messages_decode_like_whole_ones(
    top: dict[str, Any], inner: dict[str, Any], cut_top: int, cut_inner: int
) -> None:
    """For any split into shared and own entries (maps of 0 to 60 entries, fixmap and map16
    headers), the spliced frame and line decode to the merged map."""
    top.pop("view", None)
    common, own = _split(top, cut_top)
    inner_common, inner_own = _split(inner, cut_inner)
    shared = SharedEncoding(common, "view", inner_common)
    expected = {**common, **own, "view": {**inner_common, **inner_own}}
    assert _decode_frame(shared.frame(own, inner_own, max_size=None)) == expected
    assert _decode_line(shared.line(own, inner_own, max_size=None)) == expected


def test_one_shared_encoding_serves_many_recipients() -> None:
    """The shared part is encoded once and reused: each recipient still gets its own entries."""
    shared = SharedEncoding({"type": "state", "seq": 3}, "view", {"pile": ["7h"], "turn": 1})
    a = _decode_frame(shared.frame({"deadline": 1.5}, {"seat": 0, "hand": ["2c"]}, max_size=None))
    b = _decode_line(shared.line({}, {"seat": 1, "hand": ["As"]}, max_size=None))
    assert a == {
        "type": "state",
        "seq": 3,
        "deadline": 1.5,
        "view": {"pile": ["7h"], "turn": 1, "seat": 0, "hand": ["2c"]},
    }
    assert b == {"type": "state", "seq": 3, "view": {"pile": ["7h"], "turn": 1, "seat": 1, "hand": ["As"]}}


def test_spliced_output_respects_the_size_limit() -> None:
    """A spliced frame or line over max_size is refused like any other outgoing frame."""
    shared = SharedEncoding({"type": "state"}, "view", {"big": "x" * 200})
    with pytest.raises(LocalProtocolError):
        shared.frame({}, {}, max_size=100)
    with pytest.raises(LocalProtocolError):
        shared.line({}, {}, max_size=100)
