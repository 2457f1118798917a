"""The ladder on a running server: join and leave, refusals, a run where ratings order bots of
different strength, and a crash that loses no finished ladder game."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from typing import Any

from client.hosting.house import HouseBots
from server.config import Limits
from server.ladder.ratings import OVERALL
from server.shell.app import App
from server.storage.store import SCHEMA_VERSION, Store
from tests.server.client import TestClient
from tests.server.helpers import crash


class SomeHouseBots(HouseBots):
    """The server's bot host offering only the bundled bots named (the ladder's baselines)."""

    def __init__(self, kinds: Sequence[str]) -> None:
        super().__init__()
        self.kinds = list(kinds)

    def names(self) -> Sequence[str]:
        return self.kinds


async def account(app: App, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}", bot=True)
    return c


class Over:
    """The game_over messages the ladder bots received; ``wait(n)`` returns once they tell of
    ``n`` different games."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.stopping = False
        """Set before the test closes the players' connections (or crashes the server)."""

    def add(self, f: dict[str, Any]) -> None:
        self.frames.append(f)
        self.changed.set()

    @property
    def games(self) -> set[int]:
        return {f["game"] for f in self.frames}

    async def wait(self, n: int, players: list[asyncio.Task[None]], timeout: float) -> None:
        """Until ``n`` games are over; a player that fails raises its failure here."""
        async with asyncio.timeout(timeout):  # (against a hang only)
            while len(self.games) < n:
                self.changed.clear()
                changed = asyncio.ensure_future(self.changed.wait())
                await asyncio.wait([changed, *players], return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                for t in players:
                    if t.done():
                        t.result()


async def play(c: TestClient, strong: bool, over: Over) -> None:
    """Play every table the ladder seats ``c`` at until cancelled: the strong player sends the
    first legal action (plays come before ``take``), the weak one takes the pile whenever it may;
    each game_over goes to ``over``."""
    while True:
        f = await c.recv(timeout=60)
        if over.stopping:
            return
        assert f is not None, f"{c.name}: connection closed"
        if f["type"] == "seated":
            assert f["tournament"] == 0
        elif f["type"] == "state" and f["view"]["legal"]:
            legal = f["view"]["legal"]
            action = legal[0] if strong or "take" not in legal else "take"
            c.send({"type": "act", "table": f["table"], "seq": f["seq"], "action": action})
        elif f["type"] == "game_over":
            over.add(f)
        elif f["type"] == "error":
            assert f["code"] in ("STALE_SEQ", "UNKNOWN_TABLE"), f


async def test_join_leave_and_refusals(make_app: Any) -> None:
    """A guest is refused NOT_INVITED, an unknown preset BAD_RULES; an account joins (ladder lists
    it as a member), joins again with other presets, and leaves (twice: ok both times)."""
    app: App = await make_app()
    guest = await TestClient.connect(app.port, name="g")
    await guest.login("g")
    refused = await guest.request({"type": "ladder_join", "presets": ["classic"]})
    assert refused["type"] == "error" and refused["code"] == "NOT_INVITED"
    bot = await account(app, "mybot")
    refused = await bot.request({"type": "ladder_join", "presets": ["classic", "no_such_preset"]})
    assert refused["type"] == "error" and refused["code"] == "BAD_RULES"
    await bot.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    await bot.ok({"type": "ladder_join", "presets": ["classic", "west_kent"]}, "ok")
    standings = await guest.ok({"type": "ladder"}, "ladder_standings")
    assert standings["members"] == ["mybot"]
    assert standings["tables"] == [{"table": OVERALL, "rows": []}]  # nobody to play: no game
    assert app.ladder.members["mybot"].presets == ("classic", "west_kent")
    await bot.ok({"type": "ladder_leave"}, "ok")
    await bot.ok({"type": "ladder_leave"}, "ok")
    assert (await guest.ok({"type": "ladder"}, "ladder_standings"))["members"] == []
    history = await guest.ok({"type": "ladder_games", "name": "mybot"}, "ladder_history")
    assert history["games"] == []
    for c in (guest, bot):
        await c.close()


async def test_ratings_order_a_strong_and_a_weak_bot(make_app: Any) -> None:
    """Two ladder bots, one playing sensibly and one picking up whenever it may, with the random
    baseline: after 60 ladder games the strong bot is rated above the weak one, overall and in
    its preset, every interval is narrower than a new bot's, the counts add up, and ladder_games
    lists each bot's games with their places."""
    app: App = await make_app(bots=SomeHouseBots(["random"]), limits=Limits(ladder_tables=2))
    strong, weak = await account(app, "strong"), await account(app, "weak")
    over = Over()
    tasks = [asyncio.create_task(play(strong, True, over)), asyncio.create_task(play(weak, False, over))]
    await strong.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    await weak.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    await over.wait(60, tasks, timeout=240)
    over.stopping = True  # (cancelling a player could be lost: its recv is mostly ready at once)
    for c in (strong, weak):
        await c.close()
    await asyncio.gather(*tasks)
    viewer = await account(app, "viewer")
    standings = await viewer.ok({"type": "ladder"}, "ladder_standings")
    tables = {t["table"]: {r["name"]: r for r in t["rows"]} for t in standings["tables"]}
    assert set(tables) == {OVERALL, "classic"}
    for rows in tables.values():
        assert rows["strong"]["rating"] > rows["weak"]["rating"]
        assert rows["strong"]["rank"] < rows["weak"]["rank"]
        assert all(r["rating_95"] < 1.96 * 25 / 3 for r in rows.values())
    games = app.ladder.ratings.games
    assert sum(r["games"] for r in tables[OVERALL].values()) == 2 * games  # two seats a game
    history = await viewer.ok({"type": "ladder_games", "name": "strong", "limit": 5}, "ladder_history")
    assert len(history["games"]) == 5
    for g in history["games"]:
        assert "strong" in g["players"] and g["preset"] == "classic"
        assert g["place"] == g["places"].index(g["players"].index("strong")) + 1
    await viewer.close()


async def test_a_crash_loses_no_finished_ladder_game_and_the_ladder_resumes(tmp_path: Any, make_app: Any) -> None:
    """Every ladder game whose game_over a member received before a crash is rated again after
    the restart, from the rows of the database; members are kept, and the ladder seats them
    again once they are back."""
    db = str(tmp_path / "ladder.sqlite3")
    app: App = await make_app(db=db, bots=SomeHouseBots(["random"]))
    over = Over()
    a, b = await account(app, "alpha"), await account(app, "beta")
    tasks = [asyncio.create_task(play(a, True, over)), asyncio.create_task(play(b, False, over))]
    await a.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    await b.ok({"type": "ladder_join", "presets": ["classic"]}, "ok")
    await over.wait(6, tasks, timeout=120)
    over.stopping = True
    await crash(app)
    await asyncio.gather(*tasks)
    told = over.games
    with sqlite3.connect(db) as c:
        stored = [g for (g,) in c.execute("SELECT game FROM ladder_games ORDER BY n")]
    assert told <= set(stored)

    again: App = await make_app(db=db, bots=SomeHouseBots(["random"]))
    assert again.ladder.ratings.games == len(stored)
    assert sorted(m.name for m in again.ladder.members.values()) == ["alpha", "beta"]
    assert not any(t.owner == "ladder" for t in again.tables.values())  # a cut game is not rated
    over2 = Over()
    a2, b2 = await account(again, "alpha"), await account(again, "beta")
    tasks = [asyncio.create_task(play(a2, True, over2)), asyncio.create_task(play(b2, False, over2))]
    await over2.wait(2, tasks, timeout=120)
    over2.stopping = True
    for c in (a2, b2):
        await c.close()
    await asyncio.gather(*tasks)
    assert again.ladder.ratings.games >= len(stored) + 1
    assert not over2.games & set(stored)


def test_a_schema_4_database_gets_the_ladder_tables(tmp_path: Any) -> None:
    """A database of schema 4 (before the ladder) is migrated in place: the ladder's tables are
    added, empty, and the version is the current one."""
    db = tmp_path / "v4.sqlite3"
    Store(db).close()
    with sqlite3.connect(db) as c:
        c.execute("DROP TABLE ladder_members")
        c.execute("DROP TABLE ladder_games")
        c.execute("PRAGMA user_version=4")
    store = Store(db)
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        assert store.db.execute("SELECT count(*) FROM ladder_games").fetchone()[0] == 0
        assert store.db.execute("SELECT count(*) FROM ladder_members").fetchone()[0] == 0
    finally:
        store.close()
