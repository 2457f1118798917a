"""The machinery every message class is built with: :class:`Message`, :func:`wire_message`, the
registries by direction, and the constants the field declarations share.

A message class is a frozen, slotted, keyword-only dataclass made by :func:`wire_message`, with
``TYPE`` (its wire name), ``DIRECTION`` and ``FIELDS`` (its :class:`~protocol.fields.FieldSpec`
tuple in wire order, from the ``fld()`` declarations). Registering it puts it in :data:`C2S`
or :data:`S2C` by ``TYPE`` and in :data:`MESSAGE_CLASSES`; a second class with the same
``TYPE`` is refused. The classes themselves live in :mod:`protocol.client_messages` and
:mod:`protocol.server_messages`; :mod:`protocol.messages` gathers everything.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING
from enum import StrEnum
from typing import Any, ClassVar, TypeVar, cast, dataclass_transform

from .fields import SPEC_KEY, FieldSpec, Kind, fld

__all__ = [
    "C2S",
    "MAX_ID",
    "MAX_SEATS",
    "MAX_WIRE_NAME",
    "MESSAGE_CLASSES",
    "PROTOCOL_VERSION",
    "S2C",
    "SUPPORTED_VERSIONS",
    "Direction",
    "Message",
    "name_field",
    "wire_message",
]

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)

#: Largest request, table and game id (ids fit a signed 32-bit integer in every language).
MAX_ID = 2**31 - 1
#: Seats are numbered 0..MAX_SEATS-1.
MAX_SEATS = 16
#: Player names on the wire: at most this many characters, no control characters; the name
#: rule itself (:mod:`protocol.names`) is the server's check, refused with ``BAD_NAME``.
MAX_WIRE_NAME = 64


class Direction(StrEnum):
    """Who sends a message."""

    C2S = "c2s"
    S2C = "s2c"


class Message:
    """Base of every message class. Subclasses are made with :func:`wire_message`.

    Read a message by its class and attributes (``isinstance(msg, State)``, ``state.view``,
    ``error.code``); its wire name is :attr:`TYPE`. An optional field absent on the wire is
    None; lists are tuples, enums are members (equal to their strings). Nested maps are the
    plain dicts of :mod:`protocol.payloads`. The wire map itself is
    :func:`protocol.messages.encode_message`'s business."""

    __slots__ = ()
    TYPE: ClassVar[str]
    DIRECTION: ClassVar[Direction]
    FIELDS: ClassVar[tuple[FieldSpec, ...]]
    _FIELD_NAMES: ClassVar[frozenset[str]]
    _LIST_FIELDS: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        # Hold lists as tuples, so that equal messages compare equal however they were built.
        for name in self._LIST_FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))


C2S: dict[str, type[Message]] = {}
S2C: dict[str, type[Message]] = {}
REGISTRY: dict[Direction, dict[str, type[Message]]] = {Direction.C2S: C2S, Direction.S2C: S2C}
MESSAGE_CLASSES: list[type[Message]] = []

_M = TypeVar("_M", bound=Message)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(fld,))
def wire_message(cls: type[_M]) -> type[_M]:
    """Make ``cls`` a frozen, slotted, keyword-only dataclass and register it by TYPE."""
    made = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    specs = []
    for f in dataclasses.fields(cast(Any, made)):
        spec = f.metadata.get(SPEC_KEY)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{f.name} must be declared with fld()")
        specs.append(dataclasses.replace(spec, name=f.name))
    made.FIELDS = tuple(specs)
    made._FIELD_NAMES = frozenset(s.name for s in specs)
    made._LIST_FIELDS = tuple(s.name for s in specs if s.kind is Kind.LIST)
    registry = REGISTRY[made.DIRECTION]
    if made.TYPE in C2S or made.TYPE in S2C or made.TYPE == "type":
        raise TypeError(f"message type {made.TYPE!r} defined twice")
    registry[made.TYPE] = made
    MESSAGE_CLASSES.append(made)
    return made


# Field declarations shared by many messages (``fld()`` returns a dataclass field, typed Any
# so that it fits any annotation, as ``dataclasses.field`` does).


def request_id() -> Any:
    """The ``id`` of a request."""
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc="Request id chosen by the client; the answer echoes it.")


def reply_id() -> Any:
    """The ``id`` of an answer."""
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc="The id of the request this answers.")


def table_id(doc: str = "Table id.") -> Any:
    """A table id."""
    return fld(Kind.INT, lo=0, hi=MAX_ID, doc=doc)


def password_field(doc: str) -> Any:
    """An optional password."""
    return fld(Kind.STR, default=None, max_len=128, doc=doc)


def name_field(doc: str, *, default: Any = MISSING) -> Any:
    """A player name: a plain string of 1..:data:`MAX_WIRE_NAME` characters on the wire (the
    name rule of :mod:`protocol.names` is checked where a name is taken)."""
    return fld(Kind.STR, default=default, min_len=1, max_len=MAX_WIRE_NAME, plain=True, doc=doc)
