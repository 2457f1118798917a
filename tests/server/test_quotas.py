"""Quotas over TCP (issue 37, item 3): what one player and one address may hold, each refusal
with its documented code and retry_after, and the bounds of a tournament."""

from __future__ import annotations

from typing import Any

from client.hosting.house import HouseBots
from server.config import Limits
from server.shell.app import App
from tests.server.client import TestClient

TABLE = {"type": "create_table", "name": "t", "preset": "classic", "seats": 2}
CUP = {"type": "create_tournament", "name": "cup", "preset": "classic", "seats": 2, "games": 2}


async def account(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}-pw")
    return c


async def test_a_player_owns_at_most_tables_per_player_tables(make_app: Any, players: Any) -> None:
    """The default quota (4, announced in welcome): the fifth table is refused with
    QUOTA_EXCEEDED and retry_after = reconnect_grace; another player may still open one; the
    first, once it has closed one of its tables (watch, leave), may open one again."""
    app: App = await make_app(reconnect_grace=45.0)
    hog, other = await players(app, ["hog", "other"])
    assert hog.frames[0]["limits"]["tables_per_player"] == 4
    tables = [(await hog.ok(TABLE, "table_created"))["table"] for _ in range(4)]
    refused = await hog.request(TABLE)
    assert refused["type"] == "error" and refused["code"] == "QUOTA_EXCEEDED", refused
    assert refused["retry_after"] == 45.0 and "4 tables" in refused["message"]
    await other.ok(TABLE, "table_created")
    await hog.ok({"type": "watch", "table": tables[0]}, "watching")
    await hog.ok({"type": "leave", "table": tables[0]}, "ok")
    assert tables[0] not in app.tables
    await hog.ok(TABLE, "table_created")


async def test_an_address_opens_at_most_tables_per_address_tables(make_app: Any, players: Any) -> None:
    """Several guests from one address share its quota (QUOTA_EXCEEDED, naming the address);
    an operator of the server, from the same address, is held to none."""
    app: App = await make_app(limits=Limits(tables_per_address=3), operators=["boss"])
    g1, g2, g3 = await players(app, ["g1", "g2", "g3"])
    await g1.ok(TABLE, "table_created")
    await g1.ok(TABLE, "table_created")
    await g2.ok(TABLE, "table_created")
    refused = await g3.request(TABLE)
    assert refused["code"] == "QUOTA_EXCEEDED" and "address" in refused["message"], refused
    assert refused["retry_after"] == app.config.reconnect_grace
    boss = await account(app, "boss")
    for _ in range(5):
        await boss.ok(TABLE, "table_created")
    await boss.close()


async def test_a_player_organises_at_most_tournaments_per_player(make_app: Any) -> None:
    """One unfinished tournament per player by default: a second is refused (QUOTA_EXCEEDED,
    retry_after 60) until the first is cancelled."""
    app: App = await make_app()
    org = await account(app, "org")
    assert org.frames[0]["limits"]["tournaments_per_player"] == 1
    first = (await org.ok(CUP, "tournament_created"))["tournament"]
    refused = await org.request(CUP)
    assert refused["code"] == "QUOTA_EXCEEDED" and refused["retry_after"] == 60.0, refused
    await org.ok({"type": "cancel_tournament", "tournament": first}, "ok")
    await org.ok(CUP, "tournament_created")
    await org.close()


async def test_an_address_creates_at_most_tournaments_per_address(make_app: Any) -> None:
    """Two unfinished tournaments per address by default, whoever organises them."""
    app: App = await make_app()
    a, b, c = [await account(app, n) for n in ("ann", "ben", "cat")]
    await a.ok(CUP, "tournament_created")
    await b.ok(CUP, "tournament_created")
    refused = await c.request(CUP)
    assert refused["code"] == "QUOTA_EXCEEDED" and "address" in refused["message"], refused
    assert refused["retry_after"] == 60.0
    for x in (a, b, c):
        await x.close()


async def test_a_tournament_is_bounded_by_the_server(make_app: Any) -> None:
    """concurrency, games and bundled bots beyond welcome.limits are BAD_TOURNAMENT (the
    message names the bound); concurrency is never more than half of max_tables."""
    app: App = await make_app(limits=Limits(max_tables=6), bots=HouseBots())
    org = await account(app, "org")
    limits = org.frames[0]["limits"]
    assert (limits["tournament_tables"], limits["tournament_games"], limits["tournament_bots"]) == (3, 100000, 8)
    for extra, named in (
        ({"concurrency": 4}, "tournament_tables"),
        ({"games": 100001}, "tournament_games"),
        ({"bots": ["random"] * 9}, "tournament_bots"),
    ):
        refused = await org.request({**CUP, **extra})
        assert refused["code"] == "BAD_TOURNAMENT" and named in refused["message"], refused
        assert "retry_after" not in refused
    await org.ok({**CUP, "concurrency": 3, "games": 100000}, "tournament_created")
    await org.close()


async def test_no_quotas_on_a_private_server(make_app: Any, players: Any) -> None:
    """Limits.without_quotas (``--no-quotas``): one guest opens as many tables as it likes."""
    limits = Limits()
    limits.without_quotas()
    app: App = await make_app(limits=limits)
    (solo,) = await players(app, ["solo"])
    for _ in range(20):
        await solo.ok(TABLE, "table_created")
    assert solo.frames[0]["limits"]["tournament_tables"] == 256
