"""A run-time check of values against the declared shapes of ``protocol.payloads``, for tests.

:func:`shape_problems` walks a value and its type (a TypedDict, a union, ``list[...]``,
``Literal[...]``...) and says where they disagree; :func:`message_problems` does it for every
field of a message. The tests use them on the examples and on what a real server sends, to
show that the declarations tell the truth.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

from protocol.messages import Message


def _unwrap(hint: Any) -> tuple[Any, bool]:
    required = True
    if get_origin(hint) is NotRequired:
        hint, required = get_args(hint)[0], False
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    return hint, required


def shape_problems(value: Any, hint: Any, path: str = "$") -> list[str]:
    """Where ``value`` does not have the shape ``hint`` (empty: it has). Maps must have every
    required key and no undeclared one."""
    hint, _ = _unwrap(hint)
    if hint is Any or hint is object:
        return []
    if hint is type(None):
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not a number"]
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not an int"]
    if hint in (str, bool):
        return [] if isinstance(value, hint) else [f"{path}: {value!r} is not a {hint.__name__}"]
    if is_typeddict(hint):
        return _typeddict_problems(value, hint, path)
    if isinstance(hint, type) and get_origin(hint) is None:  # an enum of the protocol
        return [] if isinstance(value, hint) else [f"{path}: {value!r} is not a {hint.__name__}"]
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        found = [shape_problems(value, a, path) for a in args]
        if any(not p for p in found):
            return []
        if isinstance(value, dict) and "kind" in value:  # an event: report against its own kind
            for a, p in zip(args, found, strict=True):
                if is_typeddict(a) and get_args(get_type_hints(a)["kind"]) == (value["kind"],):
                    return p
        return [f"{path}: {value!r} matches none of {hint}"]
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if origin in (list, Sequence):
        if not isinstance(value, (list, tuple)):
            return [f"{path}: {value!r} is not a list"]
        return [p for i, v in enumerate(value) for p in shape_problems(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a map"]
        return [p for k, v in value.items() for p in shape_problems(v, args[1], f"{path}.{k}")]
    raise TypeError(f"no check for {hint!r}")


def _typeddict_problems(value: Any, td: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: {value!r} is not a map ({td.__name__})"]
    hints = get_type_hints(td, include_extras=True)
    out = [f"{path}: undeclared key {k!r} in {td.__name__}" for k in value if k not in hints]
    for name, hint in hints.items():
        inner, required = _unwrap(hint)
        if name in value:
            out += shape_problems(value[name], inner, f"{path}.{name}")
        elif required:
            out.append(f"{path}: {td.__name__} lacks {name!r}")
    return out


def message_problems(msg: Message) -> list[str]:
    """Where the fields of ``msg`` do not have their declared types (payloads included)."""
    hints = get_type_hints(type(msg))
    out = []
    for spec in msg.FIELDS:
        value = getattr(msg, spec.name)
        if value is not None:
            out += shape_problems(value, hints[spec.name], f"{msg.TYPE}.{spec.name}")
    return out
