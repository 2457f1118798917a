"""``get_replay`` (issue 34, the browser's replay viewer): every step of a finished game, every
card open, agrees with the engine replaying its record; a game still being played is refused
like ``get_record`` (no card of it leaves the server); pages of steps join up."""

from __future__ import annotations

from typing import Any

from protocol.messages import EXAMPLES
from server.engine import ReplayRecord, format_card
from tests.server.client import TestClient, make_table, play_until_over, short_seeds

SEED = short_seeds("classic", 2, 1, max_len=200)[0]


async def all_steps(c: TestClient, game: int, count: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every step of ``game``, asked for ``count`` at a time; the first answer."""
    first = await c.ok({"type": "get_replay", "game": game, "count": count}, "replay")
    steps = list(first["steps"])
    while steps[-1]["step"] < first["actions"]:
        more = await c.ok({"type": "get_replay", "game": game, "start": len(steps), "count": count}, "replay")
        steps += more["steps"]
    return first, steps


async def test_replay_steps_are_the_engines_positions(app: Any, players: Any) -> None:
    """Each step's seats, pile, stock and turn are the engine's after that many actions of the
    record; pages of 7 and of 100 give the same steps; past the end, none."""
    a, b = await players(app, ["rpa", "rpb"])
    t = await make_table([a, b], seed=SEED)
    over = (await play_until_over([a, b], t))["game_over"][0]
    stored = (await b.ok({"type": "get_record", "game": over["game"]}, "record"))["record"]
    record = ReplayRecord.from_dict(stored["record"])
    first, steps = await all_steps(b, over["game"], 7)
    assert first["actions"] == len(record.actions) and first["preset"] == "classic"
    assert [s["step"] for s in steps] == list(range(len(record.actions) + 1))
    assert (await all_steps(a, over["game"], 100))[1] == steps
    for s in steps:
        game = record.replay(s["step"])
        for seat, mine in enumerate(s["seats"]):
            assert mine["name"] == stored["players"][seat]
            assert mine["hand"] == [format_card(c) for c in game.hand(seat)]
            assert mine["face_down"] == [None if c is None else format_card(c) for c in game.face_down[seat]]
            assert mine["face_up"] == [[format_card(c) for c in st] for st in game.face_up[seat]]
        assert s["pile"] == [format_card(c) for c in game.pile]
        assert s["stock"] == len(game.stock) and s["phase"] == game.phase
        if s["step"]:
            assert s["seat"] == record.actions[s["step"] - 1][0]
    assert steps[-1]["phase"] == "over" and steps[-1]["places"] == over["result"]["places"]
    assert [seat["place"] for seat in steps[-1]["seats"]] == [over["result"]["places"].index(i) + 1 for i in range(2)]
    past = await a.ok({"type": "get_replay", "game": over["game"], "start": len(steps) + 5}, "replay")
    assert past["steps"] == []
    # The example of PROTOCOL.md has the shapes the server sends.
    example = EXAMPLES["replay"].steps[0]  # type: ignore[attr-defined]
    assert set(example) == set(steps[1]) and set(example["seats"][0]) == set(steps[1]["seats"][0])


async def test_replay_of_a_game_in_progress_is_refused(app: Any, players: Any) -> None:
    """get_replay of the game being played is UNKNOWN_GAME, for a player of it too; once over,
    it is served."""
    a, b = await players(app, ["rqa", "rqb"])
    t = await make_table([a, b], seed=SEED)
    st = await a.recv_until("state")
    for c in (a, b):
        refused = await c.request({"type": "get_replay", "game": st["game"]})
        assert refused["type"] == "error" and refused["code"] == "UNKNOWN_GAME", refused
    await play_until_over([a, b], t)
    assert (await b.ok({"type": "get_replay", "game": st["game"], "count": 1}, "replay"))["steps"][0]["step"] == 0
