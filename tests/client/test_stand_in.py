"""Tables for people, with the real bundled bots: ownership never goes to a bot; the owner hands an
absent player's seat to a bot, the player takes it back; everyone sees drop, return, replace."""

from __future__ import annotations

from typing import Any

from client.hosting.house import HouseBots
from tests.server.client import TestClient, make_table


def presence(c: TestClient) -> list[tuple[str, int, str | None]]:
    return [(f["event"], f["seat"], f.get("bot")) for f in c.frames if f.get("type") == "presence"]


async def test_the_owner_never_becomes_a_bot(make_app: Any) -> None:
    app = await make_app(bots=HouseBots())
    alice = await TestClient.connect(app.port, name="alice")
    await alice.login("alice")
    created = await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 3}, "table_created")
    t = created["table"]
    await alice.ok({"type": "join", "table": t}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    await alice.ok({"type": "leave", "table": t}, "ok")
    assert app.tables[t].owner == "alice"  # not greedy-1
    carol = await TestClient.connect(app.port, name="carol")
    await carol.login("carol")
    await carol.ok({"type": "join", "table": t}, "joined")
    update = await carol.recv_until("table_update")
    assert update["summary"]["owner"] == "carol"
    await carol.ok({"type": "add_bot", "table": t, "bot": "random"}, "ok")  # carol may act as the owner
    for c in (alice, carol):
        await c.close()


async def test_a_bot_plays_for_a_player_who_left_until_they_come_back(make_app: Any) -> None:
    app = await make_app(bots=HouseBots(), reconnect_grace=0.0)
    alice = await TestClient.connect(app.port, name="alice")
    bob = await TestClient.connect(app.port, name="bob")
    watcher = await TestClient.connect(app.port, name="wendy")
    for c in (alice, bob, watcher):
        await c.login(c.name)
    t = await make_table([alice, bob], action_seconds=600)
    await watcher.ok({"type": "watch", "table": t}, "watching")
    await bob.close()
    for c in (alice, watcher):
        await c.wait_for(lambda c=c: ("dropped", 1, None) in presence(c))

    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy", "seat": 1}, "ok")
    stand_in = app.tables[t].seats[1].stand_in  # type: ignore[union-attr]
    assert stand_in is not None and stand_in.startswith("greedy-")
    for c in (alice, watcher):
        await c.wait_for(lambda c=c: ("replaced", 1, stand_in) in presence(c))
    summary = (await alice.ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["seats"][1]["name"] == "bob" and summary["seats"][1]["stand_in"] == stand_in
    # The bot plays bob's turns (alice plays first legal on hers) until bob is back.
    seq = app.tables[t].seq

    async def alice_plays_until(predicate: Any) -> None:
        while not predicate():
            f = await alice.recv()
            assert f is not None
            if f.get("type") == "state" and f["view"]["legal"] and f["view"]["phase"] != "over":
                alice.send({"type": "act", "table": t, "seq": f["seq"], "action": f["view"]["legal"][0]})

    await alice_plays_until(lambda: app.tables[t].seq > seq + 4 or not app.tables[t].running)
    assert app.tables[t].seats[1].timeouts == 0  # type: ignore[union-attr]  (the bot played, not the clock)

    bob2 = await TestClient.connect(app.port, name="bob")
    await bob2.login("bob", token=bob.token)  # type: ignore[attr-defined]  # (the guest who holds the seat)
    joined = await bob2.ok({"type": "resume", "table": t, "token": bob.token}, "joined")  # type: ignore[attr-defined]
    assert joined["seat"] == 1
    for c in (alice, watcher):
        await c.wait_for(lambda c=c: ("returned", 1, stand_in) in presence(c))
    assert app.tables[t].seats[1].stand_in is None  # type: ignore[union-attr]
    assert all(s.name != stand_in for s in app.sessions if s.logged_in and not s.closing)  # the bot left
    for c in (alice, watcher, bob2):
        await c.close()
