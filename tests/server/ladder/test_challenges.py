"""Challenges (issue 34, point 4): the figures (pure), and a few duplicate deals through the
protocol on a running server: a ladder bot against a bundled bot, the answer at once, the push at
the end with intervals and game ids that ``get_record`` reads, the ladder's table bound kept,
nothing rated. The 100-deal run against ``benchmarks/strength.py`` is
``benchmarks/challenge.py`` (its figures in docs/STRENGTH.md)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest

from server.config import Limits
from server.ladder.challenges import Challenge, layout_roles, mean_ci
from server.ladder.service import LADDER_OWNER
from server.shell.app import App
from tests.server.client import TestClient
from tests.server.helpers import crash
from tests.server.ladder.test_ladder import SomeHouseBots, account


def test_layouts() -> None:
    assert layout_roles("1v3") == (0, 1, 1, 1)
    assert layout_roles("2v2") == (0, 0, 1, 1)
    for bad in ("1x3", "0v2", "av1", "1v"):
        with pytest.raises(ValueError):
            layout_roles(bad)


def test_every_deal_is_played_once_per_rotation_with_the_same_cards() -> None:
    c = Challenge.new(1, "anna", "account:anna", "classic", ("a", "[b]"), "1v3", 3, random.Random(1))
    assert len(c.specs) == 12
    for d in range(3):
        games = c.specs[4 * d : 4 * d + 4]
        assert len({g.seed for g in games}) == 1
        assert sorted(g.seats.index("a") for g in games) == [0, 1, 2, 3]
    assert c.specs[0].seed != c.specs[4].seed


def test_figures_follow_the_seats_through_the_rotations() -> None:
    c = Challenge.new(1, "anna", "account:anna", "classic", ("a", "[b]"), "1v1", 2, random.Random(1))
    # Deal 0: a (seat 0, then seat 1) first both times; deal 1: a first, then last.
    a_seat = [g.seats.index("a") for g in c.specs]
    assert a_seat == [0, 1, 0, 1]
    c.add(10, (0, 1))
    c.add(11, (1, 0))
    info = c.info()
    assert info["scores"][0]["mean_place"] == 1.0 and info["scores"][0]["mean_place_95"] is None
    c.add(12, (0, 1))
    c.add(13, (0, 1))
    info = c.info()
    assert info["status"] == "finished" and info["games"] == [10, 11, 12, 13]
    a, b = info["scores"]
    assert a["mean_place"] == 1.25 and b["mean_place"] == 1.75 and a["loss_rate"] == 0.25
    # Per deal: a 1.0 and 1.5; b 2.0 and 1.5; differences -1.0 and 0.0.
    m, half = mean_ci([1.0, 1.5])
    assert a["mean_place_95"] == round(half or 0, 4) and m == 1.25
    assert info["difference"] == -0.5
    assert info["difference_95"] == round(mean_ci([-1.0, 0.0])[1] or 0, 4)


async def test_a_challenge_of_a_few_deals_through_the_protocol(make_app: Any) -> None:
    app: App = await make_app(bots=SomeHouseBots(["random", "greedy"]), limits=Limits(ladder_tables=1))
    mine = await account(app, "mybot")
    await mine.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    anna = await account(app, "anna")
    most: list[int] = []
    played = asyncio.create_task(play_first_legal(app, mine, most))
    try:
        answer = await anna.ok(
            {"type": "challenge", "preset": "classic", "bots": ["mybot", "[random]"], "deals": 3}, "challenge_status"
        )
        info = answer["info"]
        assert info["bots"] == ["mybot", "[random]"] and info["games_total"] == 6
        assert info["status"] in ("waiting", "running")
        over = await anna.recv_until("challenge_over", timeout=120)
    finally:
        played.cancel()
    final = over["info"]
    assert final["status"] == "finished" and final["games_played"] == 6 and len(final["games"]) == 6
    a, b = final["scores"]
    assert a["mean_place"] + b["mean_place"] == pytest.approx(3.0)  # 1v1: the places are 1 and 2
    assert final["difference"] == pytest.approx(a["mean_place"] - b["mean_place"], abs=1e-3)
    assert final["difference_95"] is not None
    for game in final["games"]:
        record = (await anna.ok({"type": "get_record", "game": game}, "record"))["record"]
        assert "mybot" in record["players"] and len(record["players"]) == 2
    again = await anna.ok({"type": "get_challenge", "challenge": final["challenge"]}, "challenge_status")
    assert again["info"] == final
    # Never more than one ladder table (ladder_tables = 1: the ladder's own matches of mybot and
    # the challenge take turns), and the challenge's games are not rated.
    assert max(most) == 1
    history = await anna.ok({"type": "ladder_games", "name": "mybot", "limit": 50}, "ladder_history")
    assert not {g["game"] for g in history["games"]} & set(final["games"])
    await mine.close()
    await anna.close()


async def play_first_legal(app: App, c: TestClient, most: list[int]) -> None:
    """Play every table ``c`` is seated at with the first legal action; note how many ladder
    tables were open at each seating."""
    while True:
        f = await c.recv(timeout=60)
        if f is None:
            return
        if f["type"] == "seated":
            most.append(sum(t.owner == LADDER_OWNER for t in app.lobby.tables.values()))
        elif f["type"] == "state" and f["view"]["legal"]:
            c.send({"type": "act", "table": f["table"], "seq": f["seq"], "action": f["view"]["legal"][0]})


async def test_a_challenge_goes_on_after_a_crash(tmp_path: Any, make_app: Any) -> None:
    """A crash in the middle of a challenge (its ladder bot holding its second game's turn)
    loses none of its finished games: after the restart get_challenge shows them, the challenge
    waits for its ladder bot, plays the rest (the game cut by the crash again, from its deal)
    and ends with every game, the ones from before first."""
    db = str(tmp_path / "db.sqlite3")
    bots = SomeHouseBots(["random"])
    app: App = await make_app(db=db, bots=bots, limits=Limits(ladder_tables=1))
    anna = await account(app, "anna")
    mine = await account(app, "mybot")
    most: list[int] = []
    await mine.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    ask = {"type": "challenge", "preset": "classic", "bots": ["mybot", "[random]"], "deals": 2}
    cid = (await anna.ok(ask, "challenge_status"))["info"]["challenge"]
    played = asyncio.create_task(hold_after_first_game(mine, lambda: len(app.challenges.challenges[cid].games)))
    try:
        held = await asyncio.wait_for(played, 60)  # returns seated at the challenge's second game
    finally:
        played.cancel()
    before = (await anna.ok({"type": "get_challenge", "challenge": cid}, "challenge_status"))["info"]
    assert before["games_played"] == 1 and before["status"] == "running"
    assert held["game"] not in before["games"]
    await crash(app)

    again: App = await make_app(db=db, bots=SomeHouseBots(["random"]), limits=Limits(ladder_tables=1))
    anna = await account(again, "anna")
    waiting = (await anna.ok({"type": "get_challenge", "challenge": cid}, "challenge_status"))["info"]
    assert waiting["games"] == before["games"] and waiting["status"] == "waiting"
    mine = await account(again, "mybot")
    await mine.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    player = asyncio.create_task(play_first_legal(again, mine, most))
    try:
        over = (await anna.recv_until("challenge_over", timeout=120))["info"]
    finally:
        player.cancel()
    assert over["challenge"] == cid and over["status"] == "finished"
    assert over["games_played"] == 4 and over["games"][:1] == before["games"]
    assert held["game"] not in over["games"]  # the cut game was played again, under a new id
    for game in over["games"]:
        await anna.ok({"type": "get_record", "game": game}, "record")
    await anna.close()
    await mine.close()


async def hold_after_first_game(c: TestClient, played: Callable[[], int]) -> dict[str, Any]:
    """Play (a ladder match first, maybe) until the challenge has ``played() >= 1`` games;
    return the ``seated`` of the next game (the challenge's: it holds the one ladder table),
    leaving that game unplayed."""
    while True:
        f = await c.recv(timeout=60)
        assert f is not None, "closed"
        if f["type"] == "seated" and played() >= 1:
            return f
        if f["type"] == "state" and f["view"]["legal"]:
            c.send({"type": "act", "table": f["table"], "seq": f["seq"], "action": f["view"]["legal"][0]})
