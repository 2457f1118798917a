"""Turn states (``hello.states: "turns"``, PROTOCOL.md §6): a seat gets a state only when it
must act, at its game's first and last state, or when enough events wait; its events add up
to exactly what a seat that gets every state reads, and the others at the table see no change."""

from __future__ import annotations

from typing import Any

import pytest

import server.tables.states
from protocol.messages import TURN_STATES_MAX_EVENTS
from tests.server.client import TestClient, make_table, play_until_over, short_seeds

SEED4 = short_seeds("classic", 4, 1, max_len=250)[0]
# The seat's own part and its clock: what differs between seats (and a watcher) at one seq.
OWN = ("seat", "hand", "legal")


async def turn_client(app: Any, connect: Any, name: str, states: str | None) -> TestClient:
    c: TestClient = await connect(app, "msgpack", name)
    hello: dict[str, Any] = {"type": "hello", "version": 1}
    if states is not None:
        hello["states"] = states
    welcome = await c.ok(hello, "welcome")
    assert "turn_states" in welcome["capabilities"]
    await c.ok({"type": "login", "name": name, "guest": True}, "logged_in")
    return c


def table_states(c: TestClient, table: int) -> list[dict[str, Any]]:
    return [f for f in c.frames if f.get("type") == "state" and f["table"] == table]


def public(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in OWN}


@pytest.mark.parametrize("cap", [TURN_STATES_MAX_EVENTS, 3], ids=["default-cap", "cap-3"])
async def test_turn_states_carry_every_event_and_only_the_states_a_seat_acts_on(
    app: Any, connect: Any, monkeypatch: pytest.MonkeyPatch, cap: int
) -> None:
    """Seats 0 and 2 ask for turn states, 1 and 3 (``"all"``, and no field) and a watcher do not."""
    monkeypatch.setattr(server.tables.states, "TURN_STATES_MAX_EVENTS", cap)
    modes = ["turns", "all", "turns", None]
    seats = [await turn_client(app, connect, f"p{i}", m) for i, m in enumerate(modes)]
    watcher = await turn_client(app, connect, "w", None)
    t = await make_table(seats, seed=SEED4, start=False)
    await watcher.ok({"type": "watch", "table": t}, "watching")
    await seats[0].ok({"type": "start", "table": t}, "ok")
    out = await play_until_over([*seats, watcher], t)
    assert out["errors"] == []

    everything = table_states(watcher, t)
    by_seq = {s["seq"]: s for s in everything}
    all_events = [e for s in everything for e in s["events"]]
    assert everything[0]["events"][0]["kind"] == "game_start" and everything[-1]["view"]["phase"] == "over"
    for i in (1, 3):  # the seats that did not ask: a state after every change, as before
        assert [s["seq"] for s in table_states(seats[i], t)] == list(by_seq)
    for i in (0, 2):
        mine = table_states(seats[i], t)
        # (With a cap of 3 events, many states go out as batches.)
        assert len(mine) < len(everything) / (2 if cap == TURN_STATES_MAX_EVENTS else 1)
        # Each is the first or last of the game, or one the seat must act on, or a full batch.
        for s in mine:
            first = s["events"][:1] and s["events"][0]["kind"] == "game_start"
            assert first or s["view"]["phase"] == "over" or s["view"]["legal"] or len(s["events"]) >= cap, s
            assert ("deadline" in s) == bool(s["view"]["legal"])
            # Whatever it is sent is the table at that seq, as everyone else sees it then.
            assert public(s["view"]) == public(by_seq[s["seq"]]["view"])
        assert [s["seq"] for s in mine] == sorted({s["seq"] for s in mine})
        # Its events, in order, are exactly every event of the game: none lost, none twice.
        assert [e for s in mine for e in s["events"]] == all_events
        # Every state the seat had to act on reached it.
        assert [s["seq"] for s in mine if s["view"]["legal"]] == [
            s["seq"] for s in table_states(seats[i], t) if s["view"]["legal"]
        ]
    assert out["game_over"][0]["result"]["places"]  # the game was played to its end


async def test_a_turn_seat_is_sent_every_state_in_which_it_must_act(app: Any, connect: Any) -> None:
    """Compared with the same game dealt again to seats that get every state: the states a turn
    seat must act on are exactly the all-states seat's states with legal actions, same content."""

    async def play(mode: str | None) -> list[dict[str, Any]]:
        seats = [await turn_client(app, connect, f"{mode}{i}", mode) for i in range(4)]
        t = await make_table(seats, seed=SEED4)
        out = await play_until_over(seats, t)
        assert out["errors"] == []
        return [
            {k: v for k, v in s.items() if k not in ("events", "table", "seq", "game", "deadline")}
            | {"view": {k: v for k, v in s["view"].items() if k not in ("clocks", "players")}}
            for s in table_states(seats[0], t)
            if s["view"]["legal"]
        ]

    # The seed and first-legal play fix the game; the setup phase's simultaneous swaps may
    # interleave differently, so compare from the play phase on.
    turns = [s for s in await play("turns") if s["view"]["phase"] == "play"]
    every = [s for s in await play(None) if s["view"]["phase"] == "play"]
    assert turns and turns == every


@pytest.mark.parametrize("value", ["some", "", 1, ["turns"]])
async def test_an_unknown_states_value_is_refused(app: Any, connect: Any, value: Any) -> None:
    """``states`` is ``"all"`` or ``"turns"``; anything else is a fatal BAD_MESSAGE."""
    c: TestClient = await connect(app, "msgpack", "x")
    reply = await c.request({"type": "hello", "version": 1, "states": value})
    assert reply["type"] == "error" and reply["code"] == "BAD_MESSAGE", reply
    await c.wait_closed()
