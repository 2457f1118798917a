"""Bundled bots of tournaments that run at the same time get names nobody holds: two
tournaments of greedy bots, created while a player is logged in as "greedy", both have all their
bots registered and play to the end (each bot logs in under its participant name, so a name held
elsewhere would keep it out: NAME_TAKEN, and the tournament would never start)."""

from __future__ import annotations

from typing import Any

from client.hosting.house import HouseBots
from server.shell.app import App
from tests.server.client import TestClient


def cup(name: str) -> dict[str, Any]:
    return {
        "type": "create_tournament",
        "name": name,
        "preset": "classic",
        "seats": 2,
        "games": 2,
        "concurrency": 1,
        "action_seconds": 30,
        "bots": ["greedy", "greedy"],
    }


async def account(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}-pw")
    return c


async def test_two_tournaments_of_the_same_bots_at_once_both_play_to_the_end(make_app: Any) -> None:
    app: App = await make_app(bots=HouseBots())
    squatter = await account(app, "greedy")  # a person holds the bundled bot's own name
    olga, sam = await account(app, "olga"), await account(app, "sam")
    first = (await olga.ok(cup("first"), "tournament_created"))["tournament"]
    second = (await sam.ok(cup("second"), "tournament_created"))["tournament"]
    names = {tid: app.tournaments.tournaments[tid].settings.bots for tid in (first, second)}
    every = [n for bots in names.values() for n in bots]
    assert len(set(every)) == 4 and "greedy" not in every, names
    await olga.ok({"type": "start_tournament", "tournament": first}, "ok")
    await sam.ok({"type": "start_tournament", "tournament": second}, "ok")
    for c in (olga, sam):
        over = await c.recv_until("tournament_over", timeout=60)
        info = over["info"]
        assert info["games_finished"] == 2 and not info.get("cancelled"), info
        assert sorted(row["name"] for row in info["standings"]) == sorted(names[over["tournament"]]), info
    for c in (squatter, olga, sam):
        await c.close()
