"""The owner's ``remove_bot`` and ``set_seats`` on a real server on 127.0.0.1: everyone at the
table sees the change, the server's own bot that was removed stops, a bot connected from
elsewhere is told its seat is gone, a new seat count deals games of that many players, and
both changes are kept across a crash of the server (the journal writes the table's snapshot).

The refusals and their codes are tested with every other request's in tests/test_error_lists.py.
"""

from __future__ import annotations

from typing import Any

from client.hosting.house import HouseBots
from server.shell.app import App
from tests.server.client import TestClient
from tests.server.helpers import crash
from tests.server.waiting import until_server


async def person(app: App, name: str, **login: Any) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, **login)
    return c


async def new_table(owner: TestClient, seats: int, **extra: Any) -> int:
    msg = {"type": "create_table", "name": "t", "preset": "classic", "seats": seats, **extra}
    return int((await owner.ok(msg, "table_created"))["table"])


def last_summary(c: TestClient, table: int) -> dict[str, Any]:
    updates = [f for f in c.frames if f.get("type") == "table_update" and f["table"] == table]
    assert updates, f"{c.name} got no table_update of table {table}"
    return updates[-1]["summary"]  # type: ignore[no-any-return]


async def test_the_owner_removes_a_bundled_bot_and_everyone_sees_it(make_app: Any) -> None:
    """A greedy bot sits in seat 1; the owner removes it: the seat is free in the owner's and a
    watcher's table_update, the bot's connection is gone, and the seat can be taken again."""
    app = await make_app(bots=HouseBots())
    alice, bob = await person(app, "alice"), await person(app, "bob")
    t = await new_table(alice, 3)
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy", "seat": 1}, "ok")
    await bob.ok({"type": "watch", "table": t}, "watching")
    assert app.tables[t].seats[1] is not None
    bot_session = app.tables[t].seats[1].session  # type: ignore[union-attr]
    assert bot_session in app.sessions
    await alice.ok({"type": "remove_bot", "table": t, "seat": 1}, "ok")
    for c in (alice, bob):
        await c.wait_for(lambda c=c: last_summary(c, t)["seats"][1] is None)
        assert last_summary(c, t)["bots"] == 0 and last_summary(c, t)["free"] == 2
    await until_server(alice, lambda: bot_session not in app.sessions)
    await alice.ok({"type": "add_bot", "table": t, "bot": "random", "seat": 1}, "ok")
    assert app.tables[t].seats[1] is not None and app.tables[t].seats[1].bot  # type: ignore[union-attr]
    for c in (alice, bob):
        await c.close()


async def test_a_bot_from_elsewhere_is_told_its_seat_is_gone(make_app: Any) -> None:
    """A bot that joined by itself is removed: it gets an error naming the table (its seat is no
    longer its own), and stays connected."""
    app = await make_app()
    alice = await person(app, "alice")
    robo = await person(app, "robo", bot=True)
    t = await new_table(alice, 2)
    await robo.ok({"type": "join", "table": t, "seat": 1}, "joined")
    await alice.ok({"type": "remove_bot", "table": t, "seat": 1}, "ok")
    told = await robo.recv_until("error")
    assert told["code"] == "BAD_TOKEN" and told["table"] == t
    assert (await robo.request({"type": "ping"}))["type"] == "pong"
    assert app.tables[t].seats[1] is None
    for c in (alice, robo):
        await c.close()


async def test_set_seats_changes_the_table_and_the_games_it_deals(make_app: Any) -> None:
    """2 seats -> 4 -> 3 before the first game: everyone at the table gets each summary, and the
    game dealt then has three players; a seat taken keeps its number."""
    app = await make_app(bots=HouseBots())
    alice, bob = await person(app, "alice"), await person(app, "bob")
    t = await new_table(alice, 2, seed=3, action_seconds=600)
    await alice.ok({"type": "join", "table": t, "seat": 1}, "joined")
    await bob.ok({"type": "watch", "table": t}, "watching")
    await alice.ok({"type": "set_seats", "table": t, "seats": 4}, "ok")
    await bob.wait_for(lambda: len(last_summary(bob, t)["seats"]) == 4)
    assert last_summary(bob, t)["free"] == 3 and last_summary(bob, t)["seats"][1]["name"] == "alice"
    await alice.ok({"type": "set_seats", "table": t, "seats": 3}, "ok")
    for c in (alice, bob):
        await c.wait_for(lambda c=c: len(last_summary(c, t)["seats"]) == 3)
    for _ in range(2):
        await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    await alice.ok({"type": "start", "table": t}, "ok")
    state = await alice.recv_until("state")
    assert len(state["view"]["players"]) == 3 and state["view"]["seat"] == 1
    for c in (alice, bob):
        await c.close()


async def test_removed_bots_and_seat_counts_come_back_after_a_crash(tmp_path: Any, make_app: Any) -> None:
    """Both changes are journaled like add_bot: a server started again on the same database
    after a crash shows the table with its new seat count and the removed bot's seat free."""
    db = str(tmp_path / "seats.sqlite3")
    first = await make_app(db=db, bots=HouseBots())
    alice = await person(first, "alice", guest=False, password="a good password")
    t = await new_table(alice, 2)
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "set_seats", "table": t, "seats": 4}, "ok")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy", "seat": 2}, "ok")
    await alice.ok({"type": "add_bot", "table": t, "bot": "random", "seat": 3}, "ok")
    await alice.ok({"type": "remove_bot", "table": t, "seat": 2}, "ok")
    await crash(first)
    again = await make_app(db=db, bots=HouseBots())
    table = again.tables[t]
    assert table.nseats == 4 and len(table.seats) == 4
    assert table.seats[2] is None and table.seats[3] is not None and table.seats[3].bot
    assert table.seats[0] is not None and table.seats[0].name == "alice"
