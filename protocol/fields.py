"""Field descriptors: the data that says what each message field may hold, and its checks.

A message class declares each field with :func:`fld` (kind, bounds, doc); the checks below are
generic over :class:`FieldSpec`, so there is no hand-written validation per message.

Validation rules (the same both ways: decoding what the peer sent, encoding what we send):

* ``int``: a true integer (a bool is not an int, ``1.0`` is not an int), within ``lo..hi``
  (default: the signed 64-bit range).
* ``float``: an integer or a float, finite, within ``lo..hi``; decoded as ``float``.
* ``str``: a string of ``min_len..max_len`` characters (code points, not bytes); optionally a
  full-match pattern, no control characters (``plain``), or a member of a ``StrEnum``.
* ``bool``: ``true`` or ``false`` only.
* ``map``: a map with string keys and at most ``max_len`` entries; values are not checked,
  except with ``deep=True``: then they must be plain JSON data (null, bool, 64-bit int, finite
  float, string, list, map with string keys), at most :data:`MAX_DEPTH` levels deep, so that
  anything a client sends can be relayed to clients of either wire mode.
* ``list``: at most ``max_len`` items, each checked against ``item``; decoded as a tuple.

An optional field (``required=False``) may be absent or ``null``; both mean "not given" (the
dataclass default). Encoding omits optional fields whose value is None.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["INT64_MAX", "INT64_MIN", "MAX_DEPTH", "FieldSpec", "Invalid", "Kind", "check", "fld"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: Deepest nesting accepted inside a ``deep`` map (the map itself is level 1).
MAX_DEPTH = 16

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

SPEC_KEY = "protocol.spec"


class Kind(StrEnum):
    """Wire type of a field."""

    INT = "int"
    FLOAT = "float"
    STR = "str"
    BOOL = "bool"
    MAP = "map"
    LIST = "list"


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldSpec:
    """Everything the validator and the protocol document need to know about one field."""

    name: str = ""
    kind: Kind
    required: bool = True
    # int | float, not float (which mypy reads as the same): compiled code would keep a float
    # and compare with it, and an int bound must stay exact (2**63 - 1 is no float).
    lo: int | float | None = None
    hi: int | float | None = None
    min_len: int = 0
    max_len: int | None = None
    pattern: str | None = None
    plain: bool = False
    enum: type[StrEnum] | None = None
    item: FieldSpec | None = None
    deep: bool = False
    doc: str = ""

    @property
    def wire_type(self) -> str:
        """Short type for tables: ``int``, ``str``, ``list[str]``, ``map`` ..."""
        if self.kind is Kind.LIST and self.item is not None:
            return f"list[{self.item.wire_type}]"
        return self.kind.value

    def describe(self) -> str:
        """What a valid value looks like, in words (used in error messages and docs)."""
        kind = self.kind
        if kind is Kind.INT or kind is Kind.FLOAT:
            text = "an integer" if kind is Kind.INT else "a number"
            lo, hi = self.lo, self.hi
            if kind is Kind.INT:
                lo = INT64_MIN if lo is None else lo
                hi = INT64_MAX if hi is None else hi
            if lo is not None and hi is not None:
                return f"{text} in {_num(lo)}..{_num(hi)}"
            if lo is not None:
                return f"{text} >= {_num(lo)}"
            return text
        if kind is Kind.STR:
            if self.enum is not None:
                return f"a {self.enum.__name__} value"
            text = "a string"
            if self.max_len is not None:
                text += f" of {self.min_len}..{self.max_len} characters"
            elif self.min_len:
                text += f" of at least {self.min_len} characters"
            if self.pattern is not None:
                text += f" matching {self.pattern}"
            if self.plain:
                text += " without control characters"
            return text
        if kind is Kind.BOOL:
            return "a boolean"
        if kind is Kind.MAP:
            text = "a map with string keys"
            if self.max_len is not None:
                text += f" (at most {self.max_len} entries)"
            return text
        text = "a list"
        if self.max_len is not None:
            text += f" of at most {self.max_len} items"
        if self.item is not None:
            text += f", each {self.item.describe()}"
        return text


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def fld(
    kind: Kind,
    *,
    default: Any = MISSING,
    lo: float | None = None,
    hi: float | None = None,
    min_len: int = 0,
    max_len: int | None = None,
    pattern: str | None = None,
    plain: bool = False,
    enum: type[StrEnum] | None = None,
    item: FieldSpec | None = None,
    deep: bool = False,
    doc: str = "",
) -> Any:
    """Declare a message field. Without ``default`` it is required; with one it is optional.

    Returns a ``dataclasses.field`` whose metadata holds the :class:`FieldSpec` (its name is
    filled in when the message class is registered).
    """
    spec = FieldSpec(
        kind=kind,
        required=default is MISSING,
        lo=lo,
        hi=hi,
        min_len=min_len,
        max_len=max_len,
        pattern=pattern,
        plain=plain,
        enum=enum,
        item=item,
        deep=deep,
        doc=doc,
    )
    if default is MISSING:
        return field(metadata={SPEC_KEY: spec})
    return field(default=default, metadata={SPEC_KEY: spec})


def item(kind: Kind, **constraints: Any) -> FieldSpec:
    """The spec of a list's items (same constraints as :func:`fld`, no name, no default)."""
    return FieldSpec(kind=kind, **constraints)


class Invalid(Exception):
    """A value failed its spec; the text completes "field 'x' ..."."""


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (bytes, bytearray)):
        return "binary data"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__


def _wrong(spec: FieldSpec, value: object) -> Invalid:
    return Invalid(f"must be {spec.describe()}, got {_type_name(value)}")


def _check_int(spec: FieldSpec, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _wrong(spec, value)
    lo = INT64_MIN if spec.lo is None else spec.lo
    hi = INT64_MAX if spec.hi is None else spec.hi
    if not lo <= value <= hi:
        raise Invalid(f"must be {spec.describe()}, got {value}")
    return int(value)


def _check_float(spec: FieldSpec, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _wrong(spec, value)
    try:
        number = float(value)
    except OverflowError:
        raise Invalid(f"must be {spec.describe()}, got a huge integer") from None
    if not math.isfinite(number):
        raise Invalid(f"must be {spec.describe()}, got {number}")
    if (spec.lo is not None and number < spec.lo) or (spec.hi is not None and number > spec.hi):
        raise Invalid(f"must be {spec.describe()}, got {number:g}")
    return number


def _check_str(spec: FieldSpec, value: Any) -> str:
    if not isinstance(value, str):
        raise _wrong(spec, value)
    if spec.enum is not None:
        try:
            return spec.enum(value)
        except ValueError:
            raise Invalid(f"must be {spec.describe()}, got {value[:40]!r}") from None
    n = len(value)
    if n < spec.min_len or (spec.max_len is not None and n > spec.max_len):
        raise Invalid(f"must be {spec.describe()}, got {n} characters")
    if spec.pattern is not None and re.fullmatch(spec.pattern, value) is None:
        raise Invalid(f"must be {spec.describe()}")
    if spec.plain and _CONTROL.search(value):
        raise Invalid(f"must be {spec.describe()}, got a control character")
    return value


def _check_bool(spec: FieldSpec, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _wrong(spec, value)
    return value


def _check_map(spec: FieldSpec, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong(spec, value)
    if spec.max_len is not None and len(value) > spec.max_len:
        raise Invalid(f"must be {spec.describe()}, got {len(value)} entries")
    for key in value:
        if not isinstance(key, str):
            raise Invalid(f"must be {spec.describe()}, got a key that is {_type_name(key)}")
    if spec.deep:
        _check_plain_data(value)
    return value


def _check_plain_data(root: dict[str, Any]) -> None:
    """Values nested in ``root`` must be JSON-representable and at most MAX_DEPTH deep."""
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        value, depth = stack.pop()
        if value is None or isinstance(value, (bool, str)):
            continue
        if isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                raise Invalid("holds an integer outside the signed 64-bit range")
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                raise Invalid("holds a number that is not finite")
            continue
        if isinstance(value, (dict, list, tuple)):
            if depth > MAX_DEPTH:
                raise Invalid(f"is nested deeper than {MAX_DEPTH} levels")
            if isinstance(value, dict):
                if not all(isinstance(k, str) for k in value):
                    raise Invalid("holds a map whose keys are not all strings")
                stack.extend((v, depth + 1) for v in value.values())
            else:
                stack.extend((v, depth + 1) for v in value)
            continue
        raise Invalid(f"holds {_type_name(value)}, which JSON cannot carry")


def _check_list(spec: FieldSpec, value: Any) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise _wrong(spec, value)
    if spec.max_len is not None and len(value) > spec.max_len:
        raise Invalid(f"must be {spec.describe()}, got {len(value)} items")
    if spec.item is None:
        return tuple(value)
    sub = _CHECKS[spec.item.kind]
    out = []
    for i, element in enumerate(value):
        try:
            out.append(sub(spec.item, element))
        except Invalid as exc:
            raise Invalid(f"item {i} {exc}") from None
    return tuple(out)


_CHECKS: dict[Kind, Callable[[FieldSpec, Any], Any]] = {
    Kind.INT: _check_int,
    Kind.FLOAT: _check_float,
    Kind.STR: _check_str,
    Kind.BOOL: _check_bool,
    Kind.MAP: _check_map,
    Kind.LIST: _check_list,
}


def check(spec: FieldSpec, value: Any) -> Any:
    """Return ``value`` normalised (float for float, tuple for list, enum member for enum).

    Raises :class:`Invalid` with a text that completes "field 'name' ...". ``value`` must not
    be None (absence is handled by the caller).
    """
    return _CHECKS[spec.kind](spec, value)
