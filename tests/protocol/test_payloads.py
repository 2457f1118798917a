"""The payload shapes of ``protocol.payloads``: documented, in step with the engine's events,
and true of the examples (what a real server sends is checked in ``tests/test_protocol_doc.py``)."""

from __future__ import annotations

import copy
from typing import Annotated, get_args, get_origin, get_type_hints

import pytest

from protocol.messages import EXAMPLES, GameOver, State
from protocol.payloads import EVENT_TYPES, PAYLOADS, TABLE_EVENT_KINDS, View
from server.engine.events import _FIELDS as ENGINE_EVENT_FIELDS
from tests.protocol.shapes import message_problems, shape_problems


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_has_its_declared_shapes(name: str) -> None:
    """Each example message's fields, nested payloads included, match their declared types."""
    assert message_problems(EXAMPLES[name]) == []


def test_the_check_finds_a_missing_key_a_wrong_type_and_an_undeclared_key() -> None:
    """The shape check can fail: a view without ``legal``, a player whose ``seat`` is a string,
    an extra key, an event of an unknown kind."""
    state = EXAMPLES["state"]
    assert isinstance(state, State)
    view = copy.deepcopy(state.view)
    del view["legal"]  # type: ignore[misc]
    view["players"][0]["seat"] = "0"  # type: ignore[typeddict-item]
    view["colour"] = "red"  # type: ignore[typeddict-unknown-key]
    found = shape_problems(view, View)
    assert any("lacks 'legal'" in p for p in found)
    assert any("$.players[0].seat" in p for p in found)
    assert any("undeclared key 'colour'" in p for p in found)
    broken = State(table=1, seq=1, game=1, view=state.view, events=({"kind": "waved", "seat": 0},))  # type: ignore[typeddict-item]
    assert message_problems(broken)
    over = EXAMPLES["game_over"]
    assert isinstance(over, GameOver)
    assert message_problems(GameOver(table=1, game=1, result=over.result, tally={**over.tally, "capped": False}))


@pytest.mark.parametrize("shape", PAYLOADS + EVENT_TYPES, ids=lambda t: t.__name__)
def test_every_key_and_shape_is_documented(shape: type) -> None:
    """Every payload key has a doc (``Annotated[type, "doc"]``; an event's ``kind`` and ``seat``
    are the same for all), and every shape a docstring: the generated tables need them."""
    assert (shape.__doc__ or "").strip()
    for name, hint in get_type_hints(shape, include_extras=True).items():
        if shape in EVENT_TYPES and name in ("kind", "seat"):
            continue
        while get_origin(hint) is not Annotated:
            assert get_args(hint), f"{shape.__name__}.{name} has no doc"
            hint = get_args(hint)[0]
        assert str(get_args(hint)[1]).strip(), f"{shape.__name__}.{name} has an empty doc"


def test_the_events_are_those_of_the_engine_and_the_table() -> None:
    """One event shape per kind the engine and the table make, with the engine's field names in its order."""
    declared = {}
    for shape in EVENT_TYPES:
        hints = get_type_hints(shape)
        (kind,) = get_args(hints["kind"])
        declared[kind] = tuple(n for n in hints if n not in ("kind", "seat"))
    assert set(declared) == set(ENGINE_EVENT_FIELDS) | set(TABLE_EVENT_KINDS)
    for kind, names in ENGINE_EVENT_FIELDS.items():
        assert declared[kind] == names
