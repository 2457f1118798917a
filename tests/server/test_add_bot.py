"""``add_bot``: the server side, with a stand-in bot host that plays over real TCP.

The bundled bots themselves are tested in ``tests/client``; here a minimal host proves the
server's part: only the owner may add bots, unknown names and full tables are refused, the
bot logs in with its one-time login (even where guests are not allowed), sits where asked,
is marked as a bot, and the ``ok`` comes once it sits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from server.shell.app import App
from tests.server.client import TestClient


class FirstLegalHost:
    """Runs 'first' bots: each logs in with the login it is given, joins, and plays the first
    legal action of every state that gives it one."""

    def __init__(self) -> None:
        self.clients: list[TestClient] = []
        self.logins: list[dict[str, Any]] = []

    def names(self) -> Sequence[str]:
        return ["first"]

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Never called: these bots die only with the test."""

    async def seat(
        self,
        bot: str,
        *,
        host: str,
        port: int,
        table: int,
        seat: int | None,
        name: str,
        password: str,
        token: str | None = None,
        delay: float = 0.0,
    ) -> int:
        c = await TestClient.connect(port, name=name, host=host)
        self.clients.append(c)
        self.logins.append(await c.login(name, guest=False, password=password))
        joined = await c.request({"type": "join", "table": table, **({} if seat is None else {"seat": seat})})
        if joined["type"] == "error":
            raise RuntimeError(joined["message"])
        return int(joined["seat"])

    async def stop(self) -> None:
        for c in self.clients:
            await c.close()


async def test_owner_adds_bots_that_sit_marked_as_bots(make_app: Any, players: Any) -> None:
    """Three bots fill a table; the ok comes after each sits; they appear with bot: true; the
    one-time login works although guests are not allowed."""
    host = FirstLegalHost()
    app: App = await make_app(bots=host, allow_guests=False)
    owner = await TestClient.connect(app.port, name="olga")
    await owner.login("olga", guest=False, password="pw")
    table = (await owner.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 4}, "table_created"))[
        "table"
    ]
    await owner.ok({"type": "join", "table": table, "seat": 0}, "joined")
    await owner.ok({"type": "add_bot", "table": table, "bot": "first", "seat": 2}, "ok")
    await owner.ok({"type": "add_bot", "table": table, "bot": "first"}, "ok")
    await owner.ok({"type": "add_bot", "table": table, "bot": "first"}, "ok")
    summary = (await owner.ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["free"] == 0 and summary["bots"] == 3
    assert [s["bot"] for s in summary["seats"]] == [False, True, True, True]
    assert summary["seats"][2]["name"].startswith("first-")
    assert all(login["bot"] and login["guest"] for login in host.logins)
    full = await owner.request({"type": "add_bot", "table": table, "bot": "first"})
    assert full["type"] == "error" and full["code"] == "TABLE_FULL"
    await owner.close()


async def test_add_bot_refusals(make_app: Any, players: Any) -> None:
    """Not the owner, an unknown bot, a taken seat, an unknown table: each refused with its code,
    and the one-time login of a refused bot is not left usable."""
    host = FirstLegalHost()
    app: App = await make_app(bots=host)
    alice, bob = await players(app, ["alice", "bob"])
    table = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    await alice.ok({"type": "join", "table": table, "seat": 0}, "joined")
    cases = [
        (bob, {"type": "add_bot", "table": table, "bot": "first"}, "NOT_OWNER"),
        (alice, {"type": "add_bot", "table": table, "bot": "deep-blue"}, "UNKNOWN_BOT"),
        (alice, {"type": "add_bot", "table": table, "bot": "first", "seat": 0}, "SEAT_TAKEN"),
        (alice, {"type": "add_bot", "table": 999, "bot": "first"}, "UNKNOWN_TABLE"),
    ]
    for who, msg, code in cases:
        answer = await who.request(msg)
        assert answer["type"] == "error" and answer["code"] == code, (msg, answer)
    unknown = await alice.request({"type": "add_bot", "table": table, "bot": "deep-blue"})
    assert "first" in unknown["message"]
    assert host.clients == [] and app.house_logins == {}


async def test_without_a_bot_host_add_bot_says_no_bots(make_app: Any, players: Any) -> None:
    """A server started without bots answers UNKNOWN_BOT, naming that it runs none."""
    app: App = await make_app()
    (alice,) = await players(app, ["alice"])
    table = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    answer = await alice.request({"type": "add_bot", "table": table, "bot": "greedy"})
    assert answer["type"] == "error" and answer["code"] == "UNKNOWN_BOT" and "no bots" in answer["message"]


async def test_a_house_login_works_once_only(make_app: Any) -> None:
    """The one-time login of a bundled bot cannot be replayed after the bot used it."""
    host = FirstLegalHost()
    app: App = await make_app(bots=host, allow_guests=False)
    owner = await TestClient.connect(app.port, name="olga")
    await owner.login("olga", guest=False, password="pw")
    table = (await owner.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    await owner.ok({"type": "add_bot", "table": table, "bot": "first"}, "ok")
    assert app.house_logins == {}
    name = host.logins[0]["name"]
    again = await TestClient.connect(app.port, name=name)
    await again.ok({"type": "hello", "version": 1}, "welcome")
    answer = await again.request({"type": "login", "name": name, "password": "anything"})
    # Not a house login any more: an ordinary login, refused since the bot holds that name.
    assert answer["type"] == "error" and answer["code"] == "NAME_TAKEN", answer
    assert [st.name for st in app.tables[table].seats if st is not None and st.session is not None] == [name]
    await again.close()
    await owner.close()
