"""The server's own bots (:class:`client.hosting.house.HouseBots`) on a real server on 127.0.0.1: a bot
added to a table plays a game to its end; a stand-in plays a gone player's seat to the end; a
tournament's bundled bots register and play it through; a bot that cannot sit raises to the
caller (and is not also logged as a failure); :meth:`~client.hosting.house.HouseBots.stop` ends every
bot and closes its connection.

The people at the tables are raw protocol clients (:class:`tests.server.client.TestClient`)
that play their first legal action, so everything the bots do is seen on the wire.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from client.hosting.house import HouseBots
from client.sdk import ServerError
from protocol.messages import StartTournament
from server.shell.app import App
from server.tournament import service
from tests.server.client import TestClient, make_table
from tests.server.waiting import until_server


async def person(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name)
    return c


async def play_first_legal_until_game_over(c: TestClient, table: int, timeout: float = 30.0) -> dict[str, Any]:
    """Play ``c``'s first legal action on every state that offers one, until ``game_over``."""
    while True:
        f = await c.recv(timeout)
        assert f is not None, f"{c.name}: closed before the game ended"
        if f.get("type") == "game_over" and f["table"] == table:
            return f
        if f.get("type") == "state" and f["table"] == table and f["view"]["legal"]:
            c.send({"type": "act", "table": table, "seq": f["seq"], "action": f["view"]["legal"][0]})


def presence(c: TestClient, event: str, seat: int) -> bool:
    return any(f.get("type") == "presence" and f["event"] == event and f["seat"] == seat for f in c.frames)


async def test_an_added_bot_plays_a_game_to_the_end(make_app: Any) -> None:
    """add_bot seats a bundled bot, which plays every one of its turns (no timeouts) until the
    game is over; it sits as a bot under its own name."""
    app = await make_app(bots=HouseBots())
    alice = await person(app, "alice")
    t = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2, "seed": 5}))["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    summary = (await alice.ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["seats"][1]["bot"] and summary["seats"][1]["name"].startswith("greedy-")
    await alice.ok({"type": "start", "table": t}, "ok")
    over = await play_first_legal_until_game_over(alice, t)
    assert sorted(over["result"]["places"]) == [0, 1]
    assert over["tally"]["timeouts"] == [0, 0]  # the bot played its turns itself
    await alice.close()


async def test_a_stand_in_plays_a_gone_players_seat_to_the_end(make_app: Any) -> None:
    """A player leaves mid-game; the owner hands the seat to a bot (a resume with the seat's
    token, done by the host), which plays it until the game is over."""
    app = await make_app(bots=HouseBots(), reconnect_grace=0.0)
    alice, bob = await person(app, "alice"), await person(app, "bob")
    t = await make_table([alice, bob], action_seconds=600)
    await bob.close()
    await alice.wait_for(lambda: presence(alice, "dropped", 1))
    await alice.ok({"type": "add_bot", "table": t, "bot": "random", "seat": 1}, "ok")
    await alice.wait_for(lambda: presence(alice, "replaced", 1))
    over = await play_first_legal_until_game_over(alice, t)
    assert sorted(over["result"]["places"]) == [0, 1] and over["tally"]["timeouts"] == [0, 0]
    await alice.close()


class WatchedHouse(HouseBots):
    """The real host, telling the test when a tournament bot has registered (``enter`` returned)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered: list[str] = []
        self.changed = asyncio.Event()

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        await super().enter(bot, host=host, port=port, tournament=tournament, name=name, password=password)
        self.entered.append(name)
        self.changed.set()


async def test_bundled_tournament_bots_register_and_play_it_through(make_app: Any) -> None:
    """create_tournament with two bundled bots: the host enters both (each registers), and
    they play every game of the tournament."""
    host = WatchedHouse()
    app = await make_app(bots=host)
    olga = await person(app, "olga")
    created = {"type": "create_tournament", "name": "house", "preset": "classic", "seats": 2, "games": 2}
    tid = (await olga.ok({**created, "bots": ["greedy", "random"]}, "tournament_created"))["tournament"]
    async with asyncio.timeout(20):
        while len(host.entered) < 2:
            host.changed.clear()
            await host.changed.wait()
    info = (await olga.ok({"type": "get_tournament", "tournament": tid}, "tournament"))["info"]
    assert sorted(p["name"] for p in info["participants"]) == ["greedy", "random"]
    await olga.ok({"type": "start_tournament", "tournament": tid}, "ok")
    over = await olga.recv_until("tournament_over", timeout=60)
    info = over["info"]
    assert info["games_finished"] == 2
    assert sorted(r["name"] for r in info["standings"]) == ["greedy", "random"]
    assert all(r["games"] == 2 and r["timeouts"] == 0 and r["illegal"] == 0 for r in info["standings"])
    await olga.close()


async def test_a_bot_that_cannot_sit_raises_to_the_caller(make_app: Any, caplog: pytest.LogCaptureFixture) -> None:
    """seat() raises the server's refusal (here: no such table), and the failure is not logged
    a second time as a bot that failed while playing."""
    host = HouseBots()
    app = await make_app(bots=host)
    app.house_logins["greedy-77"] = "one-time"  # (what the server does before it calls seat)
    with caplog.at_level(logging.ERROR, logger="client.hosting.house"), pytest.raises(ServerError) as refused:
        await host.seat(
            "greedy", host="127.0.0.1", port=app.port, table=999, seat=None, name="greedy-77", password="one-time"
        )
    assert refused.value.code == "UNKNOWN_TABLE"
    assert not [r for r in caplog.records if r.name == "client.hosting.house"]
    with pytest.raises(ValueError, match="unknown bot"):
        await host.seat("deep-blue", host="127.0.0.1", port=app.port, table=1, seat=None, name="x", password="y")


async def test_stop_ends_every_bot_and_closes_its_connection(make_app: Any) -> None:
    """Two bots sit at a table; stop() returns once both have ended, and the table sees both
    connections go."""
    host = HouseBots()
    app = await make_app(bots=host)
    alice = await person(app, "alice")
    t = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 3}))["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    for _ in range(2):
        await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    await alice.ok({"type": "start", "table": t}, "ok")
    await alice.recv_until("state")
    await host.stop()
    await alice.wait_for(lambda: presence(alice, "dropped", 1) and presence(alice, "dropped", 2))
    await alice.close()


async def test_a_bot_table_stays_open_while_its_owner_is_connected(make_app: Any) -> None:
    """The owner creates a table of house bots and neither sits nor watches (it starts the
    games from the lobby): the sweeps keep it open while the owner is connected, and close it
    once the owner has been gone for the grace."""
    app = await make_app(bots=HouseBots(), reconnect_grace=5.0)
    owner, other = await person(app, "olga"), await person(app, "pat")
    t = (await owner.ok({"type": "create_table", "name": "bots", "preset": "classic", "seats": 2}))["table"]
    for bot in ("greedy", "random"):
        await owner.ok({"type": "add_bot", "table": t, "bot": bot}, "ok")
    now = time.monotonic()
    for later in (0.0, 10.0, 100.0):
        app.sweeper.sweep(now + later, paused=False)
    assert t in app.tables
    await owner.close()
    await until_server(other, lambda: not any(s.name == "olga" for s in app.sessions))
    app.sweeper.sweep(now + 200.0, paused=False)
    assert t in app.tables  # the grace starts now
    app.sweeper.sweep(now + 206.0, paused=False)
    assert t not in app.tables
    await other.close()


class SlowHouse(HouseBots):
    """The real host, whose tournament bots start only when the test lets them (``go``)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.asked = 0
        self.held: set[asyncio.Task[Any]] = set()

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        self.asked += 1
        task = asyncio.current_task()
        assert task is not None
        self.held.add(task)
        try:
            await self.go.wait()
        finally:
            self.held.discard(task)
        await super().enter(bot, host=host, port=port, tournament=tournament, name=name, password=password)

    async def stop(self) -> None:
        for task in self.held:  # (the server's stop waits for its tasks: the held starts end)
            task.cancel()
        await super().stop()


async def test_a_start_before_the_bundled_bots_are_in_waits_for_them(make_app: Any) -> None:
    """start_tournament while the tournament's bundled bots are still starting (an open
    tournament, so nothing else would name them): the answer waits until they have
    registered, and they play every game."""
    host = SlowHouse()
    app = await make_app(bots=host)
    olga, other = await person(app, "olga"), await person(app, "pat")
    created = {"type": "create_tournament", "name": "slow", "preset": "classic", "seats": 2, "games": 2}
    tid = (await olga.ok({**created, "bots": ["greedy", "random"]}, "tournament_created"))["tournament"]
    await until_server(other, lambda: host.asked == 2)
    olga.send({"type": "start_tournament", "tournament": tid, "id": 900})
    await until_server(other, lambda: bool(app.tournaments._registering.get(tid)))
    assert not [f for f in olga.frames if f.get("id") == 900]  # not answered while they start
    host.go.set()
    answer = await olga.recv_until("ok", timeout=20)
    assert answer["id"] == 900
    assert app.tournaments._registering == {}  # the answered start waits no more
    over = await olga.recv_until("tournament_over", timeout=60)
    assert sorted(r["name"] for r in over["info"]["standings"]) == ["greedy", "random"]
    assert all(r["games"] == 2 for r in over["info"]["standings"])
    await olga.close()
    await other.close()


async def stuck_tournament(app: App) -> tuple[TestClient, int]:
    """olga and her open tournament, whose bundled bots (greedy, random) never register."""
    olga = await person(app, "olga")
    created = {"type": "create_tournament", "name": "stuck", "preset": "classic", "seats": 2, "games": 2}
    tid = (await olga.ok({**created, "bots": ["greedy", "random"]}, "tournament_created"))["tournament"]
    return olga, tid


async def test_bundled_bots_that_never_register_are_named_in_the_refusal(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If they do not register within HOUSE_REGISTER_SECONDS, the start is refused with
    NOT_ENOUGH_PLAYERS naming them (in an open tournament too, which would otherwise be
    scheduled without them)."""
    monkeypatch.setattr(service, "HOUSE_REGISTER_SECONDS", 0.2)
    app = await make_app(bots=SlowHouse())
    olga, tid = await stuck_tournament(app)
    refused = await olga.request({"type": "start_tournament", "tournament": tid})
    assert refused["type"] == "error" and refused["code"] == "NOT_ENOUGH_PLAYERS", refused
    assert "greedy" in refused["message"] and "random" in refused["message"]
    await olga.close()


async def test_a_timed_out_start_leaves_no_waiter_behind(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A start refused because the bundled bots did not register in time takes its wait out of
    the service: nothing is left waiting for the tournament's registrations."""
    monkeypatch.setattr(service, "HOUSE_REGISTER_SECONDS", 0.2)
    app = await make_app(bots=SlowHouse())
    olga, tid = await stuck_tournament(app)
    refused = await olga.request({"type": "start_tournament", "tournament": tid})
    assert refused["type"] == "error" and refused["code"] == "NOT_ENOUGH_PLAYERS", refused
    assert app.tournaments._registering == {}
    await olga.close()


async def test_a_cancelled_start_leaves_no_waiter_behind(make_app: Any) -> None:
    """A waiting start that is cancelled (nothing in the server cancels one today: this is the
    service's own contract) takes its wait out of the service too."""
    app = await make_app(bots=SlowHouse())
    olga, tid = await stuck_tournament(app)
    t = app.tournaments.tournaments[tid]
    waiting = asyncio.create_task(app.tournaments._start_when_bots_are_in(t, StartTournament(id=1, tournament=tid)))
    await until_server(olga, lambda: bool(app.tournaments._registering.get(tid)))
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert app.tournaments._registering == {}
    await olga.close()
