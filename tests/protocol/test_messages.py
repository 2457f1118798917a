"""Message validation, driven by the field specs so that every field of every message is hit."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.fields import INT64_MAX, FieldSpec, Kind
from protocol.messages import (
    C2S,
    EXAMPLES,
    MESSAGE_CLASSES,
    S2C,
    Act,
    Chat,
    CreateTable,
    Direction,
    Error,
    Login,
    Message,
    State,
    decode_message,
    encode_message,
    error_from,
)


def valid_value(spec: FieldSpec) -> Any:
    """Some value that satisfies ``spec``."""
    if spec.kind is Kind.INT:
        return int(spec.lo) if spec.lo is not None else 0
    if spec.kind is Kind.FLOAT:
        return float(spec.lo) if spec.lo is not None else 0.0
    if spec.kind is Kind.STR:
        return next(iter(spec.enum)).value if spec.enum else "a" * max(spec.min_len, 1)
    if spec.kind is Kind.BOOL:
        return True
    if spec.kind is Kind.MAP:
        return {}
    return []


def full_dict(cls: type[Message]) -> dict[str, Any]:
    """The example of ``cls`` as a dict, with every optional field filled in too."""
    d = encode_message(EXAMPLES[cls.TYPE])
    for spec in cls.FIELDS:
        d.setdefault(spec.name, valid_value(spec))
    return d


def refuse(d: dict[str, Any], direction: Direction, code: ErrorCode = ErrorCode.BAD_MESSAGE) -> str:
    with pytest.raises(RemoteProtocolError) as info:
        decode_message(d, direction)
    assert info.value.code is code
    assert info.value.fatal
    return info.value.message


ALL_FIELDS = [(cls, spec) for cls in MESSAGE_CLASSES for spec in cls.FIELDS]
FIELD_IDS = [f"{cls.TYPE}.{spec.name}" for cls, spec in ALL_FIELDS]

WRONG_TYPES: dict[Kind, list[Any]] = {
    Kind.INT: [True, False, 1.0, "1", [1], {"a": 1}],
    Kind.FLOAT: [True, "1.5", [1.5]],
    Kind.STR: [1, True, b"bytes", ["a"]],
    Kind.BOOL: [1, 0, "true", 1.0],
    Kind.MAP: [[], "x", 1, [["a", 1]]],
    Kind.LIST: [{}, "x", 1],
}


def out_of_range(spec: FieldSpec) -> list[Any]:
    """Values of the right type that break the spec's bounds."""
    bad: list[Any] = []
    if spec.kind in (Kind.INT, Kind.FLOAT):
        step = 1 if spec.kind is Kind.INT else 0.001
        if spec.lo is not None:
            bad.append(spec.lo - step)
        if spec.hi is not None:
            bad.append(spec.hi + step)
        if spec.kind is Kind.INT and spec.hi is None:
            bad.append(INT64_MAX + 1)
        if spec.kind is Kind.FLOAT:
            bad += [float("nan"), float("inf")]
    if spec.kind is Kind.STR and spec.enum is None:
        if spec.max_len is not None:
            bad.append("a" * (spec.max_len + 1))
        if spec.min_len > 0:
            bad.append("")
    if spec.kind is Kind.STR and spec.enum is not None:
        bad.append("NOT_A_CODE")
    if spec.kind in (Kind.MAP, Kind.LIST) and spec.max_len is not None:
        n = spec.max_len + 1
        bad.append({f"k{i}": i for i in range(n)} if spec.kind is Kind.MAP else ["a"] * n)
    return bad


# --------------------------------------------------------------------------- registry and examples


def test_registry_is_complete_and_consistent() -> None:
    """Every class is registered under its TYPE for its DIRECTION, with one example each."""
    assert len(MESSAGE_CLASSES) == len(C2S) + len(S2C) == 60
    for cls in MESSAGE_CLASSES:
        registry = C2S if cls.DIRECTION is Direction.C2S else S2C
        assert registry[cls.TYPE] is cls
        assert cls.__doc__ and all(spec.doc for spec in cls.FIELDS)
        assert type(EXAMPLES[cls.TYPE]) is cls
    assert not set(C2S) & set(S2C)


def test_every_request_has_an_id() -> None:
    """Each client-to-server message has a required id field first."""
    for cls in C2S.values():
        assert cls.FIELDS[0].name == "id" and cls.FIELDS[0].required


def test_messages_are_frozen_and_keyword_only() -> None:
    """Messages cannot be changed after construction and take keyword arguments only."""
    msg = Act(id=1, table=1, seq=0, action="take")
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.seq = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        Act(1, 2, 3, "take")  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_round_trip(name: str) -> None:
    """Each example survives encode_message then decode_message unchanged."""
    msg = EXAMPLES[name]
    d = encode_message(msg)
    assert d["type"] == name and next(iter(d)) == "type"
    assert decode_message(d, msg.DIRECTION) == msg


@pytest.mark.parametrize("cls", MESSAGE_CLASSES, ids=lambda c: c.TYPE)
def test_full_dict_round_trip(cls: type[Message]) -> None:
    """A dict with every optional field filled in decodes, and re-encodes to the same dict."""
    d = full_dict(cls)
    msg = decode_message(d, cls.DIRECTION)
    assert encode_message(msg) == d


# --------------------------------------------------------------------------- every field


@pytest.mark.parametrize(("cls", "spec"), ALL_FIELDS, ids=FIELD_IDS)
def test_missing_field(cls: type[Message], spec: FieldSpec) -> None:
    """A required field that is absent (or null) is BAD_MESSAGE naming it; an optional one is fine."""
    d = full_dict(cls)
    del d[spec.name]
    if spec.required:
        assert repr(spec.name) in refuse(d, cls.DIRECTION)
        d[spec.name] = None
        assert repr(spec.name) in refuse(d, cls.DIRECTION)
    else:
        msg = decode_message(d, cls.DIRECTION)
        d[spec.name] = None
        assert decode_message(d, cls.DIRECTION) == msg


@pytest.mark.parametrize(("cls", "spec"), ALL_FIELDS, ids=FIELD_IDS)
def test_wrong_types(cls: type[Message], spec: FieldSpec) -> None:
    """Bool for int, float for int, str for int and every other wrong type are refused."""
    for value in WRONG_TYPES[spec.kind]:
        d = full_dict(cls)
        d[spec.name] = value
        text = refuse(d, cls.DIRECTION)
        assert repr(spec.name) in text and "must be" in text


@pytest.mark.parametrize(("cls", "spec"), ALL_FIELDS, ids=FIELD_IDS)
def test_out_of_range(cls: type[Message], spec: FieldSpec) -> None:
    """Numbers outside their range, strings too long or empty, lists and maps too long."""
    for value in out_of_range(spec):
        d = full_dict(cls)
        d[spec.name] = value
        assert repr(spec.name) in refuse(d, cls.DIRECTION)


@pytest.mark.parametrize("cls", MESSAGE_CLASSES, ids=lambda c: c.TYPE)
def test_unknown_field(cls: type[Message]) -> None:
    """An extra field is BAD_MESSAGE naming it."""
    d = full_dict(cls)
    d["colour"] = "red"
    assert "colour" in refuse(d, cls.DIRECTION)


@pytest.mark.parametrize("cls", MESSAGE_CLASSES, ids=lambda c: c.TYPE)
def test_wrong_direction(cls: type[Message]) -> None:
    """A message decoded as if sent the other way is UNKNOWN_TYPE."""
    other = Direction.S2C if cls.DIRECTION is Direction.C2S else Direction.C2S
    text = refuse(full_dict(cls), other, ErrorCode.UNKNOWN_TYPE)
    assert cls.TYPE in text


@pytest.mark.parametrize("type_value", [None, "dance", 5, "", "Ping", ["ping"]])
def test_unknown_or_missing_type(type_value: Any) -> None:
    """A missing, non-string or unknown type is UNKNOWN_TYPE."""
    d: dict[str, Any] = {"id": 1}
    if type_value is not None:
        d["type"] = type_value
    refuse(d, Direction.C2S, ErrorCode.UNKNOWN_TYPE)


# --------------------------------------------------------------------------- particular rules


@pytest.mark.parametrize("name", ["alice", "Bob_2", "x", "a-b", "A" * 24, "Anna Maria", "Zoë", "🦊", "A" * 64])
def test_login_names_accepted_on_the_wire(name: str) -> None:
    """On the wire a name is any plain string of 1..64 characters (the name rule itself is the
    server's check, answered with BAD_NAME: tests/protocol/test_names.py)."""
    assert decode_message({"type": "login", "id": 1, "name": name}, "c2s") == Login(id=1, name=name)


@pytest.mark.parametrize("name", ["", "A" * 65, "a\n", "a\x00", 7])
def test_login_names_refused_on_the_wire(name: object) -> None:
    """Empty, too long, control characters, not a string: a malformed login."""
    refuse({"type": "login", "id": 1, "name": name}, Direction.C2S)


def test_login_defaults() -> None:
    """guest and bot default to False; optional strings to None."""
    msg = decode_message({"type": "login", "id": 1, "name": "al", "guest": None}, "c2s")
    assert msg == Login(id=1, name="al", guest=False, bot=False, password=None)


@pytest.mark.parametrize("text", ["a\x1b[31mred", "two\nlines", "nul\x00", "c1\x9b"])
def test_control_characters_refused_in_text(text: str) -> None:
    """Chat text, table names and actions may not hold control characters (terminal escapes)."""
    refuse({"type": "chat", "id": 1, "table": 1, "text": text}, Direction.C2S)
    refuse({"type": "act", "id": 1, "table": 1, "seq": 0, "action": text}, Direction.C2S)
    d = full_dict(CreateTable) | {"name": text}
    refuse(d, Direction.C2S)


def test_unicode_text_accepted() -> None:
    """Non-ASCII text (emoji, accents) is fine in chat; the limit counts characters."""
    msg = decode_message({"type": "chat", "id": 1, "table": 1, "text": "ä♥😀" * 93}, "c2s")
    assert isinstance(msg, Chat) and len(msg.text) == 279


def test_float_fields_accept_ints() -> None:
    """A float field takes an integer and holds it as a float."""
    d = full_dict(CreateTable) | {"action_seconds": 30, "bank_seconds": 0}
    msg = decode_message(d, "c2s")
    assert isinstance(msg, CreateTable)
    assert msg.action_seconds == 30.0 and type(msg.action_seconds) is float


def test_deck_items_checked() -> None:
    """Deck cards are strings of 1..3 characters; the error names the item."""
    d = full_dict(CreateTable) | {"deck": ["7h", "10h", "Xr"]}
    assert decode_message(d, "c2s").deck == ("7h", "10h", "Xr")  # type: ignore[attr-defined]
    for deck in (["7h", "1000"], ["7h", ""], ["7h", 7]):
        text = refuse(full_dict(CreateTable) | {"deck": deck}, Direction.C2S)
        assert "item 1" in text


@pytest.mark.parametrize(
    "options",
    [
        {"a": float("nan")},
        {"a": b"raw"},
        {"a": {1: 2}},
        {"a": 2**64},
        {"a": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]},
        {"a": object()},
    ],
    ids=["nan", "bytes", "int-key", "huge-int", "deep", "object"],
)
def test_options_must_be_plain_data(options: dict[str, Any]) -> None:
    """create_table options hold only JSON-representable data, not too deeply nested."""
    refuse(full_dict(CreateTable) | {"options": options}, Direction.C2S)


def test_options_plain_data_accepted() -> None:
    """Nested lists, maps, numbers, strings, booleans and null are fine in options."""
    options = {"goal": "winner", "powers": {"2": "reset", "10": ["burn"]}, "n": 3, "x": None}
    msg = decode_message(full_dict(CreateTable) | {"options": options}, "c2s")
    assert msg.options == options  # type: ignore[attr-defined]


def test_error_code_is_an_error_code() -> None:
    """error.code decodes to an ErrorCode member; unknown codes are refused."""
    msg = decode_message({"type": "error", "code": "TABLE_FULL", "message": "full"}, "s2c")
    assert isinstance(msg, Error) and msg.code is ErrorCode.TABLE_FULL and msg.id is None
    refuse({"type": "error", "code": "TABLE_FUL", "message": "full"}, Direction.S2C)


def test_request_id_attached_to_errors() -> None:
    """A BAD_MESSAGE for a request with a readable id carries that id for the error answer."""
    with pytest.raises(RemoteProtocolError) as info:
        decode_message({"type": "act", "id": 77, "table": 1, "seq": -1, "action": "x"}, "c2s")
    assert info.value.request_id == 77
    assert error_from(info.value) == Error(id=77, code=ErrorCode.BAD_MESSAGE, message=info.value.message)
    with pytest.raises(RemoteProtocolError) as info:
        decode_message({"type": "act", "id": True, "table": 1, "seq": 0, "action": "x"}, "c2s")
    assert info.value.request_id is None


def test_error_texts_do_not_echo_long_values() -> None:
    """Error texts stay short whatever the peer sent."""
    text = refuse({"type": "x" * 10_000, "id": 1}, Direction.C2S, ErrorCode.UNKNOWN_TYPE)
    assert len(text) < 100
    text = refuse({"type": "ping", "id": 1, "k" * 10_000: 1}, Direction.C2S)
    assert len(text) < 100
    text = refuse({"type": "chat", "id": 1, "table": 1, "text": "y" * 10_000}, Direction.C2S)
    assert len(text) < 150 and re.search(r"10000 characters", text)


# --------------------------------------------------------------------------- encoding


def test_encode_omits_none_and_lists_as_lists() -> None:
    """Optional None fields are left out; tuple fields go out as lists."""
    d = encode_message(State(table=1, seq=2, game=3, view={}, events=[{"kind": "x"}]))
    assert d == {
        "type": "state",
        "table": 1,
        "seq": 2,
        "game": 3,
        "view": {},
        "events": [{"kind": "x"}],
    }


def test_lists_are_held_as_tuples() -> None:
    """A list given to a constructor is held as a tuple, so equal messages compare equal."""
    a = State(table=1, seq=2, game=3, view={}, events=[{"k": 1}])
    b = State(table=1, seq=2, game=3, view={}, events=({"k": 1},))
    assert a == b and isinstance(a.events, tuple)


@pytest.mark.parametrize(
    "msg",
    [
        Act(id=-1, table=1, seq=0, action="take"),
        Act(id=1, table=1, seq=0, action=""),
        Login(id=1, name="no\ncontrol"),
        State(table=1, seq=True, game=3, view={}, events=()),
        Error(code="NOPE", message="x"),  # type: ignore[arg-type]
        Error(code=ErrorCode.TABLE_FULL, message=None),  # type: ignore[arg-type]
    ],
    ids=["negative-id", "empty-action", "bad-name", "bool-seq", "bad-code", "none-required"],
)
def test_encode_refuses_invalid_messages(msg: Message) -> None:
    """Encoding an invalid message is our bug: LocalProtocolError, not a broken frame."""
    with pytest.raises(LocalProtocolError) as info:
        encode_message(msg)
    assert info.value.code is ErrorCode.BAD_MESSAGE and not info.value.fatal


def test_encode_refuses_non_messages() -> None:
    """encode_message of something that is not a Message raises LocalProtocolError."""
    with pytest.raises(LocalProtocolError):
        encode_message({"type": "ping"})  # type: ignore[arg-type]
