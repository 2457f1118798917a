"""The lobby pushed, not polled (``watch_lobby``, :mod:`server.tables.lobby_watch`): a connection that
follows the lobby learns of a table opened, of who sits where and of a table closed by other
clients' requests without asking; a burst of changes makes one ``lobby_update``; after
``unwatch_lobby`` or a disconnect nothing more is owed to it.

On a real server on 127.0.0.1; the coalescing is also tested on :class:`LobbyWatch` alone, with
a stand-in connection, so that "one message for a burst" does not depend on timing.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from client.hosting.house import HouseBots
from protocol.messages import LobbyUpdate, Message
from server.shell.app import App
from server.shell.session import ClientSession, Hold
from server.tables.lobby_watch import LobbyWatch
from tests.server.client import TestClient
from tests.server.waiting import until_loop, until_server


async def person(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name)
    return c


async def next_update(c: TestClient, ok: Any) -> dict[str, Any]:
    """The first ``lobby_update`` whose tables satisfy ``ok`` (earlier ones may show part of it)."""
    while True:
        f = await c.recv_until("lobby_update")
        if ok(f["tables"]):
            return f


async def test_a_follower_sees_tables_open_fill_and_close_without_asking(make_app: Any) -> None:
    app = await make_app()
    watcher, alice, bob = await person(app, "tv"), await person(app, "alice"), await person(app, "bob")
    first = await watcher.ok({"type": "watch_lobby"}, "tables")
    assert first["tables"] == []

    t = (await alice.ok({"type": "create_table", "name": "friday", "preset": "classic", "seats": 2}))["table"]
    opened = await next_update(watcher, lambda tables: [x["table"] for x in tables] == [t])
    assert opened["tables"][0]["name"] == "friday" and opened["tables"][0]["seats"] == [None, None]

    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await bob.ok({"type": "join", "table": t, "seat": 1}, "joined")
    seated = await next_update(watcher, lambda tables: all(tables[0]["seats"]))
    assert [s["name"] for s in seated["tables"][0]["seats"]] == ["alice", "bob"]

    for c in (alice, bob):
        await c.ok({"type": "leave", "table": t}, "ok")  # the last one out closes it
    await next_update(watcher, lambda tables: tables == [])
    assert not [f for f in watcher.frames if f.get("type") == "tables" and f is not first]  # never asked again
    for c in (watcher, alice, bob):
        await c.close()


async def test_after_unwatch_or_a_disconnect_nothing_is_owed(make_app: Any) -> None:
    app = await make_app()
    watcher, other, alice = await person(app, "tv"), await person(app, "tv2"), await person(app, "alice")
    for c in (watcher, other):
        await c.ok({"type": "watch_lobby"}, "tables")
    assert len(app.lobby_watch.followers) == 2
    await watcher.ok({"type": "unwatch_lobby"}, "ok")
    await other.close()
    await until_server(alice, lambda: not app.lobby_watch.followers)
    await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created")
    assert app.lobby_watch._timer is None  # no push is on its way: nobody follows
    await watcher.ok({"type": "unwatch_lobby"}, "ok")  # (again: still ok)
    assert not [f for f in watcher.frames if f.get("type") == "lobby_update"]
    for c in (watcher, alice):
        await c.close()


class Follower:
    """A connection as :class:`LobbyWatch` sees it: what it is sent, kept."""

    closing = False

    def __init__(self) -> None:
        self.got: list[Message] = []

    def send(self, msgs: list[Message], *, held: Hold = Hold.COMMIT) -> None:
        assert held is Hold.BEHIND  # a read's answer: it waits for no commit
        self.got.extend(msgs)


@pytest.mark.pure_only
async def test_a_burst_of_changes_makes_one_push() -> None:
    """Twenty changes in one turn of the loop: one lobby_update, with the list as it is when it
    goes, and no other push on its way after it."""
    tables: list[Any] = []
    watch = LobbyWatch(lambda: list(tables))
    follower = Follower()
    watch.followers.add(cast(ClientSession, follower))
    for i in range(20):
        tables.append({"table": i})
        watch.changed()
    await until_loop(lambda: bool(follower.got))
    assert len(follower.got) == 1 and watch._timer is None
    update = follower.got[0]
    assert isinstance(update, LobbyUpdate) and len(update.tables) == 20
    watch.changed()  # a later change: a push of its own
    await until_loop(lambda: len(follower.got) == 2)
    watch.stop()


async def test_the_owners_seat_changes_reach_the_lobby(make_app: Any) -> None:
    """set_seats and remove_bot are pushed to the lobby's followers like a join."""
    app = await make_app(bots=HouseBots())
    watcher, alice = await person(app, "tv"), await person(app, "alice")
    t = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}))["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy", "seat": 1}, "ok")
    await watcher.ok({"type": "watch_lobby"}, "tables")
    await alice.ok({"type": "set_seats", "table": t, "seats": 3}, "ok")
    await next_update(watcher, lambda tables: len(tables[0]["seats"]) == 3 and tables[0]["seats"][1] is not None)
    await alice.ok({"type": "remove_bot", "table": t, "seat": 1}, "ok")
    await next_update(watcher, lambda tables: tables[0]["seats"][1] is None and tables[0]["bots"] == 0)
    for c in (watcher, alice):
        await c.close()
