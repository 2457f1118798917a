"""A table's memory does not grow with its series (issue 15): what it holds after 500 games is
what it held after 50, give or take the size of the game in hand.

The table is driven through the pure coordinator (fake sessions, explicit clocks), every seat
playing the server's default action, and the objects reachable from it are counted (modules,
classes and functions are shared by everything and not counted)."""

from __future__ import annotations

import gc
import types
from typing import Any

import pytest

from server.engine import format_action, make_rules
from server.tables.table import Outbox, Table, default_action
from tests.server.test_table import Fake

_SHARED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def reachable(root: object, skip: set[int]) -> int:
    """How many objects are reachable from ``root`` (not through the ids in ``skip``)."""
    seen: set[int] = set(skip)
    stack = [root]
    count = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _SHARED):
            continue
        seen.add(id(obj))
        count += 1
        stack.extend(gc.get_referents(obj))
    return count


def play_games(t: Table, people: list[Fake], games: int, first_id: int, now: float) -> tuple[int, float]:
    """Play ``games`` games to the end (the default action for every move); returns the next
    game id and the clock."""
    game_id = first_id
    for _ in range(games):
        t.start(people[0], Outbox(), now, game_id)
        game_id += 1
        while True:
            game = t.game
            assert game is not None
            seat = game.to_act()[0]
            now += 0.01
            if t.act(people[seat], t.seq, format_action(default_action(game, seat)), Outbox(), now) is not None:
                break
    return game_id, now


def test_a_table_holds_no_more_after_500_games_than_after_50() -> None:
    t = Table(1, "soak", "alice", make_rules("classic"), 2, seed=7)
    people = [Fake("alice"), Fake("bob")]
    for p in people:
        t.join(p, None, None, Outbox())
    game_id, now = play_games(t, people, 50, 1, 0.0)

    def size() -> int:
        # The finished game in hand is the table's (bounded) working state, not its history.
        game = t.game
        skip = {id(game)} if game is not None else set()
        return reachable(t, skip)

    after_50 = size()
    play_games(t, people, 450, game_id, now)
    after_500 = size()
    # Growth of even one object per game would add 450; the margin covers the variation of
    # per-seat caches (hands and legal actions of the last position).
    assert after_500 - after_50 < 200, (after_50, after_500)


@pytest.mark.pure_only
def test_the_counter_sees_growth() -> None:
    """The measure itself works: a table that kept one record per game would fail the bound."""
    t = Table(1, "soak", "alice", make_rules("classic"), 2, seed=7)
    people = [Fake("alice"), Fake("bob")]
    for p in people:
        t.join(p, None, None, Outbox())
    kept: list[Any] = []
    t.kept = kept  # type: ignore[attr-defined]
    play_games(t, people, 5, 1, 0.0)
    before = reachable(t, {id(t.game)})
    for _ in range(50):
        kept.append({"record": list(range(3))})
    assert reachable(t, {id(t.game)}) - before >= 50 * 2  # a dict and a list each
