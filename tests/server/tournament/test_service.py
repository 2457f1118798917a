"""Tournaments on a running server, with raw-protocol participants over real TCP."""

from __future__ import annotations

import asyncio
from typing import Any

from server.config import Limits
from server.shell.app import App
from tests.server.client import TestClient


async def participant(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}", bot=True)
    return c


async def play_tournament(c: TestClient, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Answer every state that offers actions with the first one, at any table, until
    tournament_over; ``seated`` messages are collected in ``seen``."""
    while True:
        f = await c.recv(timeout=30)
        assert f is not None, f"{c.name}: connection closed"
        if f["type"] == "seated":
            seen.append(f)
        elif f["type"] == "state" and f["view"]["legal"]:
            c.send({"type": "act", "table": f["table"], "seq": f["seq"], "action": f["view"]["legal"][0]})
        elif f["type"] == "error":
            assert f["code"] == "STALE_SEQ", f
        elif f["type"] == "tournament_over":
            return f


async def test_a_round_robin_runs_to_the_end_with_consistent_standings(make_app: Any) -> None:
    """Three bot accounts, tables of two, six games, two tables at once: every game is reported
    to the organiser, every participant plays every seat of each deal, and the standings add up."""
    app: App = await make_app()
    org = await participant(app, "org")
    created = await org.ok(
        {
            "type": "create_tournament",
            "name": "rr",
            "preset": "classic",
            "seats": 2,
            "games": 6,
            "concurrency": 2,
            "master_seed": 11,
            "action_seconds": 30,
            "participants": ["p_a", "p_b", "p_c"],
        },
        "tournament_created",
    )
    tid = created["tournament"]
    players = [await participant(app, n) for n in ("p_a", "p_b", "p_c")]
    early = await org.request({"type": "start_tournament", "tournament": tid})
    assert early["type"] == "error" and early["code"] == "NOT_ENOUGH_PLAYERS" and "p_a" in early["message"]
    for p in players:
        await p.ok({"type": "register", "tournament": tid}, "ok")
    seated: dict[str, list[dict[str, Any]]] = {p.name: [] for p in players}
    tasks = [asyncio.create_task(play_tournament(p, seated[p.name])) for p in players]
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    games = []
    while len(games) < 6:
        f = await org.recv(timeout=30)
        assert f is not None
        if f["type"] == "tournament_game":
            games.append(f["result"])
    over = await org.recv_until("tournament_over", timeout=30)
    await asyncio.gather(*tasks)

    assert sorted(g["number"] for g in games) == list(range(6))
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        by_deal.setdefault(g["deal"], []).append(g)
        assert sorted(g["places"]) == [0, 1] and len(g["seats"]) == 2
    for deal_games in by_deal.values():
        assert len({g["seed"] for g in deal_games}) == 1
        assert sorted(tuple(g["seats"]) for g in deal_games) == sorted(
            [tuple(deal_games[0]["seats"]), tuple(reversed(deal_games[0]["seats"]))]
        )
    info = over["info"]
    assert info["status"] == "finished" and info["games_finished"] == 6 and info["tables"] == []
    rows = {r["name"]: r for r in info["standings"]}
    assert set(rows) == {"p_a", "p_b", "p_c"} and all(r["games"] == 4 for r in rows.values())
    assert sum(r["firsts"] for r in rows.values()) == 6
    assert sum(len(v) for v in seated.values()) == 12
    assert app.tables == {}  # every tournament table closed after its game


async def test_tournament_refusals(make_app: Any, players: Any) -> None:
    """Guests cannot register; strangers to a closed list are refused; only the organiser
    starts; unknown tournaments and bots are refused; registration closes at the start."""
    app: App = await make_app(limits=Limits(tournaments_per_player=2))  # (its two tournaments at once)
    org = await participant(app, "org2")
    tid = (
        await org.ok(
            {
                "type": "create_tournament",
                "name": "x",
                "preset": "classic",
                "seats": 2,
                "games": 2,
                "participants": ["bot_a", "bot_b"],
            },
            "tournament_created",
        )
    )["tournament"]
    (guest,) = await players(app, ["guesty"])
    stranger = await participant(app, "stranger")
    a, b = await participant(app, "bot_a"), await participant(app, "bot_b")
    checks = [
        (guest, {"type": "register", "tournament": tid}, "NOT_INVITED"),
        (stranger, {"type": "register", "tournament": tid}, "NOT_INVITED"),
        (a, {"type": "start_tournament", "tournament": tid}, "NOT_OWNER"),
        (a, {"type": "register", "tournament": 999}, "UNKNOWN_TOURNAMENT"),
        (
            org,
            {
                "type": "create_tournament",
                "name": "y",
                "preset": "classic",
                "seats": 2,
                "games": 2,
                "bots": ["deep-blue"],
            },
            "UNKNOWN_BOT",
        ),
        (org, {"type": "create_tournament", "name": "y", "preset": "classic", "seats": 9, "games": 2}, "BAD_RULES"),
    ]
    for who, msg, code in checks:
        answer = await who.request(msg)
        assert answer["type"] == "error" and answer["code"] == code, (msg, answer)
    listed = (await guest.ok({"type": "list_tournaments"}, "tournaments"))["tournaments"]
    assert [t["tournament"] for t in listed] == [tid] and listed[0]["status"] == "registering"
    open_tid = (
        await org.ok(
            {"type": "create_tournament", "name": "open", "preset": "classic", "seats": 2, "games": 2},
            "tournament_created",
        )
    )["tournament"]
    for p in (a, b):
        await p.ok({"type": "register", "tournament": open_tid}, "ok")
    await org.ok({"type": "start_tournament", "tournament": open_tid}, "ok")
    late = await stranger.request({"type": "register", "tournament": open_tid})
    assert late["type"] == "error" and late["code"] == "ALREADY_STARTED"
    again = await org.request({"type": "start_tournament", "tournament": open_tid})
    assert again["type"] == "error" and again["code"] == "ALREADY_STARTED"
