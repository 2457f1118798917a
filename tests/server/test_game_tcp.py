"""Complete games over real TCP between scripted raw clients, in both wire modes."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import ReplayRecord
from tests.server.client import make_table, play_until_over, short_seeds

SEED2 = short_seeds("classic", 2, 1, max_len=200)[0]
SEED3 = short_seeds("classic", 3, 1, max_len=250)[0]
SEED4 = short_seeds("classic", 4, 1, max_len=250)[0]
SERIES2 = short_seeds("classic", 2, 1, max_len=250, games=2)[0]

MODES = {
    "msgpack": "msgpack",
    "json": "json",
    "mixed": ["msgpack", "json", "json", "msgpack"],
}


def check_result(result: dict[str, Any], seats: int) -> list[int]:
    places = result["result"]["places"]
    assert sorted(places) == list(range(seats))
    assert result["result"]["loser"] == places[-1]
    return places


async def fetch_replay(client: Any, game: int) -> tuple[dict[str, Any], Any]:
    rec = await client.ok({"type": "get_record", "game": game}, "record")
    stored = rec["record"]
    return stored, ReplayRecord.from_dict(stored["record"]).replay()


@pytest.mark.parametrize("mode", ["msgpack", "json"])
async def test_two_player_game(app: Any, players: Any, mode: str) -> None:
    """A 2-player game ends with places a permutation of the seats; the record replays to them."""
    a, b = await players(app, ["alice", "bob"], mode)
    t = await make_table([a, b], seed=SEED2)
    out = await play_until_over([a, b], t)
    assert out["errors"] == []
    over_a, over_b = out["game_over"]
    assert over_a["result"] == over_b["result"] and over_a["game"] == over_b["game"]
    places = check_result(over_a, 2)
    assert over_a["result"]["players"] == ["alice", "bob"]
    stored, game = await fetch_replay(b, over_a["game"])
    assert list(game.outcome().places) == places
    assert stored["players"] == ["alice", "bob"] and stored["preset"] == "classic"
    assert stored["result"]["places"] == places
    # The last state each seat saw is the final position of the replay.
    last = a.states[t]
    assert last["view"]["phase"] == "over" and last["view"]["action_count"] == len(game.history)


@pytest.mark.parametrize("modes", list(MODES), ids=list(MODES))
async def test_four_player_game(app: Any, players: Any, modes: str) -> None:
    """A 4-player game (msgpack, JSON or mixed) ends consistently; every player's record fetch replays."""
    clients = await players(app, ["p0", "p1", "p2", "p3"], MODES[modes])
    t = await make_table(clients, seed=SEED4)
    out = await play_until_over(clients, t)
    assert out["errors"] == []
    results = [g["result"] for g in out["game_over"]]
    assert all(r == results[0] for r in results)
    places = check_result(out["game_over"][0], 4)
    for c in clients:
        _, game = await fetch_replay(c, out["game_over"][0]["game"])
        assert list(game.outcome().places) == places
    # Every state each client received has a seq greater than the one before.
    for c in clients:
        seqs = [f["seq"] for f in c.frames if f["type"] == "state"]
        assert seqs == sorted(set(seqs))


async def test_three_player_json_and_msgpack_see_the_same_game(app: Any, players: Any) -> None:
    """At a mixed table the JSON-lines seat and the msgpack seats receive the same events."""
    clients = await players(app, ["x0", "x1", "x2"], ["json", "msgpack", "json"])
    t = await make_table(clients, seed=SEED3)
    out = await play_until_over(clients, t)
    assert out["errors"] == []
    check_result(out["game_over"][0], 3)
    streams = [[(f["seq"], f["events"]) for f in c.frames if f["type"] == "state"] for c in clients]
    assert streams[0] == streams[1] == streams[2]


async def test_series_second_game_updates_tally(app: Any, players: Any) -> None:
    """Starting again deals a new game (new id, new deck) and the tally counts both games."""
    a, b = await players(app, ["ann", "ben"])
    t = await make_table([a, b], seed=SERIES2)
    first = await play_until_over([a, b], t)
    tally1 = first["game_over"][0]["tally"]
    assert sum(tally1["losses"]) == 1
    assert [sum(p) for p in tally1["places"]] == [1, 1]
    summary = (await a.ok({"type": "list_tables"}, "tables"))["tables"]
    assert next(s for s in summary if s["table"] == t)["games_played"] == 1
    await a.ok({"type": "start", "table": t}, "ok")
    second = await play_until_over([a, b], t)
    assert second["errors"] == []
    g1, g2 = first["game_over"][0]["game"], second["game_over"][0]["game"]
    assert g2 != g1
    tally2 = second["game_over"][1]["tally"]
    assert sum(tally2["losses"]) == 2
    assert [sum(p) for p in tally2["places"]] == [2, 2]
    for seat in range(2):
        assert tally2["losses"][seat] == tally1["losses"][seat] + (second["game_over"][0]["result"]["loser"] == seat)
    _, game1 = await fetch_replay(a, g1)
    _, game2 = await fetch_replay(a, g2)
    assert game1.deck != game2.deck
    assert list(game2.outcome().places) == second["game_over"][0]["result"]["places"]


async def test_spectator_sees_no_hand_but_every_event(app: Any, players: Any, connect: Any) -> None:
    """A watcher gets every state with no hand/legal/deadline, the players' events, game_over."""
    a, b = await players(app, ["pa", "pb"])
    w = await connect(app, "json", "watcher")
    await w.login()
    t = await make_table([a, b], start=False, seed=SEED2)
    await w.ok({"type": "watch", "table": t}, "watching")
    await a.ok({"type": "start", "table": t}, "ok")
    out = await play_until_over([a, b, w], t)
    assert out["errors"] == []
    assert out["game_over"][2]["result"] == out["game_over"][0]["result"]
    wstates = [f for f in w.frames if f["type"] == "state"]
    astates = [f for f in a.frames if f["type"] == "state"]
    assert wstates and all(
        f["view"]["hand"] is None
        and f["view"]["legal"] == []
        and f["view"]["seat"] is None
        and f.get("deadline") is None
        for f in wstates
    )
    assert [(f["seq"], f["events"]) for f in wstates] == [(f["seq"], f["events"]) for f in astates]
    kinds = {e["kind"] for f in wstates for e in f["events"]}
    assert {"game_start", "ready", "played"} <= kinds


async def test_watch_mid_game_gets_a_snapshot(app: Any, players: Any, connect: Any) -> None:
    """Watching a running game sends the watcher the current state at once."""
    a, b = await players(app, ["qa", "qb"])
    t = await make_table([a, b], seed=SEED2)
    await a.recv_until("state")
    w = await connect(app, "msgpack", "late")
    await w.login()
    await w.ok({"type": "watch", "table": t}, "watching")
    st = await w.recv_until("state")
    assert st["table"] == t and st["view"]["hand"] is None and st["view"]["phase"] == "setup"


async def test_chat_reaches_everyone_at_the_table(app: Any, players: Any, connect: Any) -> None:
    """chat reaches every player and watcher of the table and nobody else."""
    a, b, other = await players(app, ["ca", "cb", "co"], ["msgpack", "json", "msgpack"])
    w = await connect(app, "json", "cw")
    await w.login()
    t = await make_table([a, b], start=False)
    await w.ok({"type": "watch", "table": t}, "watching")
    await b.ok({"type": "chat", "table": t, "text": "good luck!"}, "ok")
    for c in (a, b, w):
        m = await c.recv_until("chat_message")
        assert m == {"type": "chat_message", "table": t, "seat": 1, "name": "cb", "text": "good luck!"}
    await w.ok({"type": "chat", "table": t, "text": "hi from the rail"}, "ok")
    for c in (a, b, w):
        m = await c.recv_until("chat_message")
        assert m["name"] == "cw" and m.get("seat") is None and m["text"] == "hi from the rail"
    await other.ok({"type": "ping"}, "pong")
    assert not [f for f in other.frames if f["type"] == "chat_message"]
    reply = await other.request({"type": "chat", "table": t, "text": "let me in"})
    assert reply["type"] == "error" and reply["code"] == "NOT_AT_TABLE"
