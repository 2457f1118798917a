"""The codec of messages: a decoded frame (a map) to a message and back, checked by the fields'
specs. Re-exported by :mod:`protocol.messages`, which gathers the classes it looks up.

Kept apart from the message classes so that it is compiled with the rest of the hot path (the
classes are made by a class decorator, which mypyc leaves to the interpreter); it finds a class
by its wire name in the registries of :mod:`protocol.message_base`, which the class modules fill
when they are imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .fields import Invalid, check
from .message_base import C2S, MAX_ID, REGISTRY, S2C, Direction, Message

__all__ = ["decode_message", "encode_message"]


def _peek_id(d: Mapping[str, Any]) -> int | None:
    value = d.get("id")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
        return value
    return None


def decode_message(d: Mapping[str, Any], direction: Direction | str) -> Message:
    """Validate a decoded frame sent in ``direction`` and build its message.

    Raises ``RemoteProtocolError``: ``UNKNOWN_TYPE`` when ``type`` is missing, not a string,
    or not a message of that direction; ``BAD_MESSAGE`` for a missing, unknown, mistyped or
    out-of-range field. ``request_id`` is the frame's ``id`` when it was a valid id.
    """
    if not isinstance(direction, Direction):  # calling the Enum costs a microsecond a frame
        direction = Direction(direction)
    if not isinstance(d, Mapping):
        raise RemoteProtocolError(ErrorCode.BAD_FRAME, "a message must be a map")
    rid = _peek_id(d)
    kind = d.get("type")
    if not isinstance(kind, str):
        raise RemoteProtocolError(ErrorCode.UNKNOWN_TYPE, "message has no 'type' string", request_id=rid)
    cls = REGISTRY[direction].get(kind)
    if cls is None:
        if kind in C2S or kind in S2C:
            other = "server-to-client" if direction is Direction.C2S else "client-to-server"
            text = f"{kind!r} is a {other} message"
        else:
            text = f"unknown message type {kind[:40]!r}"
        raise RemoteProtocolError(ErrorCode.UNKNOWN_TYPE, text, request_id=rid)
    names = cls._FIELD_NAMES
    for key in d:
        if key != "type" and key not in names:
            raise RemoteProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"{kind}: unknown field {str(key)[:40]!r}",
                request_id=rid,
            )
    values: dict[str, Any] = {}
    for spec in cls.FIELDS:
        value = d.get(spec.name)
        if value is None:
            if spec.required:
                what = "missing field" if spec.name not in d else "null for field"
                raise RemoteProtocolError(
                    ErrorCode.BAD_MESSAGE,
                    f"{kind}: {what} {spec.name!r} ({spec.describe()})",
                    request_id=rid,
                )
            continue
        try:
            values[spec.name] = check(spec, value)
        except Invalid as exc:
            raise RemoteProtocolError(
                ErrorCode.BAD_MESSAGE, f"{kind}: field {spec.name!r} {exc}", request_id=rid
            ) from None
    return cls(**values)


def encode_message(msg: Message, *, validate: bool = True) -> dict[str, Any]:
    """The wire dict of ``msg``: ``type`` first, then its fields; None optionals omitted.

    Raises ``LocalProtocolError(BAD_MESSAGE)`` if a field breaks its spec (our bug).
    ``validate=False`` skips the field checks: for messages a sender builds on a hot path
    from data it trusts (the server's ``state``); the receiver validates anyway.
    """
    if not isinstance(msg, Message):
        raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"not a message: {type(msg).__name__}")
    out: dict[str, Any] = {"type": msg.TYPE}
    for spec in msg.FIELDS:
        value = getattr(msg, spec.name)
        if value is None:
            if spec.required:
                raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE}: required field {spec.name!r} is None")
            continue
        if validate:
            try:
                value = check(spec, value)
            except Invalid as exc:
                raise LocalProtocolError(ErrorCode.BAD_MESSAGE, f"{msg.TYPE}: field {spec.name!r} {exc}") from None
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Enum):
            value = value.value
        out[spec.name] = value
    return out
