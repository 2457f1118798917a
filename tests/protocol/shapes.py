"""A run-time check of values against the declared shapes of ``protocol.payloads``, for tests.

:func:`shape_problems` walks a value and its type (a TypedDict, a union, ``list[...]``,
``Literal[...]``...) and says where they disagree; :func:`message_problems` does it for every
field of a message. The tests use them on the examples and on what a real server sends, to
show that the declarations tell the truth.

With ``cuts=True`` (the examples of ``docs/PROTOCOL.md``) a value may be marked as deliberately
cut, as the document explains near its top: a map holding the key :data:`CUT` (``"…"``, its
value a text saying what was left out) need not have its required keys, and a list whose last
item is a text starting with ``"… "`` (``"… 26 more"``) shows only the items before it. What is
shown is still checked: no undeclared key, every value of its declared type.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

from protocol.messages import Message

#: The key that marks a map of a documented example as cut (its value says what was left out).
CUT = "…"
#: How the text that marks a list of a documented example as cut starts (``"… 26 more"``).
CUT_ITEM = "… "


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """``get_type_hints`` of a TypedDict or message class, with ``Annotated`` kept (computed once)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls, include_extras=True)
    return hints


def _unwrap(hint: Any) -> tuple[Any, bool]:
    required = True
    if get_origin(hint) is NotRequired:
        hint, required = get_args(hint)[0], False
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    return hint, required


def is_cut_list(value: Any) -> bool:
    """Whether ``value`` is a list marked as cut: its last item a text starting with ``"… "``."""
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and isinstance(value[-1], str)
        and value[-1].startswith(CUT_ITEM)
    )


def shape_problems(value: Any, hint: Any, path: str = "$", *, cuts: bool = False) -> list[str]:
    """Where ``value`` does not have the shape ``hint`` (empty: it has). Maps must have every
    required key and no undeclared one; with ``cuts``, maps and lists marked as cut (see the
    module's docstring) are checked only for what they show."""
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
        return _typeddict_problems(value, hint, path, cuts)
    if isinstance(hint, type) and get_origin(hint) is None:  # an enum of the protocol
        return [] if isinstance(value, hint) else [f"{path}: {value!r} is not a {hint.__name__}"]
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        found = [shape_problems(value, a, path, cuts=cuts) for a in args]
        if any(not p for p in found):
            return []
        if isinstance(value, dict) and "kind" in value:  # an event: report against its own kind
            for a, p in zip(args, found, strict=True):
                if is_typeddict(a) and get_args(_unwrap(_hints(a)["kind"])[0]) == (value["kind"],):
                    return p
        maps = [p for a, p in zip(args, found, strict=True) if is_typeddict(a)]
        if isinstance(value, dict) and len(maps) == 1:  # a map where one map may be (or null): say why not
            return maps[0]
        return [f"{path}: {value!r} matches none of {hint}"]
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if origin in (list, Sequence):
        if not isinstance(value, (list, tuple)):
            return [f"{path}: {value!r} is not a list"]
        shown = value[:-1] if cuts and is_cut_list(value) else value
        return [p for i, v in enumerate(shown) for p in shape_problems(v, args[0], f"{path}[{i}]", cuts=cuts)]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a map"]
        out = _cut_mark_problems(value, path) if cuts and CUT in value else []
        items = [(k, v) for k, v in value.items() if not (cuts and k == CUT)]
        return out + [p for k, v in items for p in shape_problems(v, args[1], f"{path}.{k}", cuts=cuts)]
    raise TypeError(f"no check for {hint!r}")


def _cut_mark_problems(value: dict[str, Any], path: str) -> list[str]:
    mark = value[CUT]
    if isinstance(mark, str) and mark.strip():
        return []
    return [f"{path}: the cut mark {CUT!r} must say what was left out, not {mark!r}"]


def _typeddict_problems(value: Any, td: Any, path: str, cuts: bool) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: {value!r} is not a map ({td.__name__})"]
    hints = _hints(td)
    cut = cuts and CUT in value
    out = _cut_mark_problems(value, path) if cut else []
    out += [
        f"{path}: undeclared key {k!r} in {td.__name__}" for k in value if k not in hints and not (cut and k == CUT)
    ]
    for name, hint in hints.items():
        inner, required = _unwrap(hint)
        if name in value:
            out += shape_problems(value[name], inner, f"{path}.{name}", cuts=cuts)
        elif required and not cut:
            out.append(f"{path}: {td.__name__} lacks {name!r}")
    return out


def message_problems(msg: Message, *, cuts: bool = False) -> list[str]:
    """Where the fields of ``msg`` do not have their declared types (payloads included; with
    ``cuts``, parts marked as cut are checked only for what they show)."""
    hints = _hints(type(msg))
    out = []
    for spec in msg.FIELDS:
        value = getattr(msg, spec.name)
        if value is not None:
            out += shape_problems(value, hints[spec.name], f"{msg.TYPE}.{spec.name}", cuts=cuts)
    return out
