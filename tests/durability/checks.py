"""Checks of what the clients saw against the stored game records, replayed with the engine.

A table's ``seq`` goes up by one with every change, and during a game the changes are the deal
(the state with the ``game_start`` event, numbered ``start`` here) and each applied action
(``seq`` = ``start`` + its 1-based position in the record's action list). :func:`check_states`
asserts exactly that for a log of states, comparing every state with the engine replaying the
record, so that the positions :func:`check_acked` derives from a ``seq`` are proven, not
assumed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from client.sdk.events import Disconnected, Item
from protocol.messages import State
from server.engine import (
    Action,
    Event,
    Game,
    GameOutcome,
    IllegalAction,
    ReplayRecord,
    event_to_dict,
    format_action,
    view_for,
)
from tests.durability.harness import Acked

#: Events the table adds around the engine's own (PROTOCOL.md §8).
TABLE_EVENTS = frozenset({"game_start", "timeout", "back"})


@dataclass(frozen=True)
class Seen:
    """A ``state`` as one client saw it. ``snapshot``: the first state of its table after the
    connection came back (a resume's or a watch's snapshot: it repeats or skips seqs on
    purpose); ``before_drop``: it came before the client's connection first dropped."""

    seq: int
    game: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    deadline: float | None
    snapshot: bool
    before_drop: bool


def states_seen(stream: Iterable[Item], table: int) -> list[Seen]:
    """The states of ``table`` in a client's log, marked as :class:`Seen` explains."""
    out: list[Seen] = []
    fresh = dropped = False
    for item in stream:
        if isinstance(item, Disconnected):
            fresh = dropped = True
        elif isinstance(item, State) and item.table == table:
            out.append(
                Seen(
                    item.seq,
                    item.game,
                    list(item.events),
                    item.view,
                    item.deadline,
                    snapshot=fresh,
                    before_drop=not dropped,
                )
            )
            fresh = False
    return out


def plain(data: Any) -> Any:
    """``data`` as JSON would carry it (tuples become lists), for comparisons."""
    return json.loads(json.dumps(data))


def engine_part(view: dict[str, Any], engine_view: dict[str, Any]) -> dict[str, Any]:
    """``view`` without what the server adds to the engine's view (the table's ``clocks``; name,
    bot, away, timeouts... of each player), for comparing it with ``engine_view``."""
    keys = set(engine_view["players"][0])
    table = {k: v for k, v in view.items() if k != "clocks"}
    return plain({**table, "players": [{k: v for k, v in p.items() if k in keys} for p in view["players"]]})


def engine_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return plain([e for e in events if e["kind"] not in TABLE_EVENTS])


def apply(engine: Game, seat: int, action: Action, where: str) -> list[Event]:
    """``engine.apply``, failing the test (not erroring) when the record's action is illegal."""
    try:
        return engine.apply(seat, action)
    except IllegalAction as exc:
        raise AssertionError(
            f"{where}: the record's action {format_action(action)!r} of seat {seat} does not replay: {exc}"
        ) from None


def check_replay(stored: dict[str, Any]) -> ReplayRecord:
    """The ``record`` answer of ``get_record``: its game record replays to its stored outcome,
    which is also the result stored beside it. Returns the record."""
    record = ReplayRecord.from_dict(stored["record"])
    replayed = Game(record.rules(), record.seats, record.dealer, list(record.deck))
    for seat, action in record.actions:
        apply(replayed, seat, action, f"game {stored['id']}")
    assert replayed.is_over(), f"game {stored['id']}: the replay does not reach the end"
    assert replayed.outcome() == record.outcome, f"game {stored['id']}: the replay reaches another outcome"
    assert record.outcome == GameOutcome.from_dict(stored["result"]), f"game {stored['id']}: result != outcome"
    return record


def check_states(seen: list[Seen], record: ReplayRecord, game: int, seat: int | None) -> int:
    """Check one client's states of ``game`` (``seat``: the client's seat, None for a watcher)
    against the record; returns ``start``, the seq of the deal.

    * The first state is the deal: a ``game_start`` event with this game id and the record's
      dealer.
    * Each other state that is not a snapshot follows the previous one by exactly one seq and
      shows exactly one more action of the record: its events (the table's own left aside) are
      those the engine produces applying the record's next action (a ``timeout`` event names
      that seat and action).
    * A snapshot (after a reconnect) does not go back in seq, nor past the record's end, and
      shows no action's events.
    * Every state's view is the engine's view of the record's first ``seq - start`` actions
      (same cards, same turn; for a player, the same hand and legal actions).
    """
    mine = [s for s in seen if s.game == game]
    assert mine, f"no state of game {game} was seen"
    first = mine[0]
    start_event = dict(first.events[0]) if first.events else {}
    number = start_event.pop("number", None)
    assert not first.snapshot and start_event == {
        "kind": "game_start",
        "seat": None,
        "game": game,
        "dealer": record.dealer,
    }, first.events
    assert isinstance(number, int) and number >= 1, first.events  # the table's count of its games
    start = first.seq
    engine = Game(record.rules(), record.seats, record.dealer, list(record.deck))
    applied = 0
    previous: Seen | None = None
    for s in mine:
        shown = s.seq - start
        where = f"game {game}, seat {seat}, seq {s.seq} (action {shown})"
        if s.snapshot:
            assert previous is None or s.seq >= previous.seq, f"{where}: seq went back after the restart"
            assert applied <= shown <= len(record.actions), f"{where}: the snapshot is not in the record"
            assert engine_events(s.events) == [], f"{where}: a snapshot with the events of an action"
            while applied < shown:
                apply(engine, *record.actions[applied], where)
                applied += 1
        elif s is not first:
            assert previous is not None and s.seq == previous.seq + 1, f"{where}: seqs not consecutive"
            assert shown == applied + 1 <= len(record.actions), f"{where}: not the record's next action"
            acting, action = record.actions[applied]
            events = apply(engine, acting, action, where)
            applied += 1
            assert engine_events(s.events) == plain([event_to_dict(e) for e in events]), where
            for e in s.events:
                if e["kind"] == "timeout":
                    assert (e["seat"], e["action"]) == (acting, format_action(action)), where
        expected = plain(view_for(engine, seat))
        assert engine_part(s.view, expected) == expected, f"{where}: the view differs"
        previous = s
    return start


def check_complete(seen: list[Seen], record: ReplayRecord, game: int, start: int) -> None:
    """The last state of ``game`` a client saw is the end, and its seq is the deal's plus the
    number of actions in the record: each applied action made exactly one seq."""
    last = [s for s in seen if s.game == game][-1]
    assert last.view["phase"] == "over", f"game {game}: the last state seen is not the end"
    assert last.seq - start == len(record.actions), (
        f"game {game}: {last.seq - start} seqs after the deal, {len(record.actions)} actions in the record"
    )


def check_acked(acked: list[Acked], stored: dict[str, Any], game: int, start: int) -> None:
    """Every acknowledged action of ``game`` is in the record at the position its seq gives
    (``applied - start``, 1-based), was decided on an earlier state, and each seat's actions
    are in the record in the order they were acknowledged."""
    actions = stored["record"]["actions"]
    by_seat: dict[int, list[int]] = {}
    for a in acked:
        if a.game != game:
            continue
        position = a.applied - start - 1
        assert 0 <= position < len(actions), f"{a}: no such position in the record of {len(actions)} actions"
        assert actions[position] == [a.seat, a.action], f"{a}: the record has {actions[position]} there"
        assert a.answered < a.applied, a
        by_seat.setdefault(a.seat, []).append(position)
    for seat, positions in by_seat.items():
        assert positions == sorted(set(positions)), f"game {game}, seat {seat}: acknowledged out of order"


def resumed_clock(seen: list[Seen]) -> float | None:
    """The ``deadline`` of the resumed snapshot (the first state after the drop) when the seat's
    clock was already running before the stop: the snapshot shows the same seq as the last
    state before the drop (nothing happened meanwhile) and asks the seat to act. None otherwise
    (a turn that began after the restart has a fresh clock)."""
    before = [s for s in seen if s.before_drop]
    snapshots = [s for s in seen if s.snapshot]
    if not before or not snapshots or snapshots[0].seq != before[-1].seq:
        return None
    return snapshots[0].deadline


def tournament_number(table_name: str, tournament_name: str) -> int | None:
    """The game number of a tournament table's name (the tournament's name and the number)."""
    if not table_name.startswith(tournament_name):
        return None
    digits = table_name[len(tournament_name) :].strip(" #")
    return int(digits) if digits.isdigit() else None
