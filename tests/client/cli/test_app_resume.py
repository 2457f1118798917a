"""Taking waiting seats back when the terminal client starts, in process (the keys through a
pipe, a real server on 127.0.0.1 port 0): several waiting seats are listed and Enter takes the
first back; a guest is itself again only with a kept token (without any, its name is somebody
else's: NAME_TAKEN), and a seat whose token this machine lacks is told why it cannot come
back; a registered
player's out-of-date token gives way to the name; tokens of tables that are gone are forgotten;
a seat a bot plays meanwhile is taken back from the bot. (Quitting the real program in a real
terminal and starting it again is in test_terminal_resume.py.)
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.cli import __main__ as cli_main
from client.cli.app import CliApp
from client.cli.model import Model
from client.cli.render import Theme, plain_lines, render_screen
from client.cli.seats import SeatTokens
from client.hosting.house import HouseBots
from client.sdk import Client, ServerError
from client.sdk.events import Item
from protocol.messages import TableUpdate
from protocol.payloads import SeatSummary
from server.shell.app import App
from tests.client.helpers import next_message

GUARD = 30.0  # seconds: only against a hang, never a measured expectation


@pytest.fixture
async def clients(make_app: Any) -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for c in made:
        await c.close()


async def sdk(
    app: App, clients: list[Client], name: str, password: str | None = None, seat_token: str | None = None
) -> Client:
    c = await Client.connect("127.0.0.1", app.port, backoff_initial=0.01)
    clients.append(c)
    await c.login(name, password, guest=password is None, seat_token=seat_token)
    return c


def seat_zero(table: int, check: Callable[[SeatSummary], bool]) -> Callable[[Item], bool]:
    """A predicate: a ``table_update`` of ``table`` whose seat 0 is taken and passes ``check``."""

    def match(m: Item) -> bool:
        if not isinstance(m, TableUpdate) or m.table != table:
            return False
        seat = m.summary["seats"][0]
        return seat is not None and check(seat)

    return match


async def away_at(app: App, clients: list[Client], name: str, password: str | None, tables: int = 1) -> list[int]:
    """``name`` sits at ``tables`` 2-seat tables with bob (who stays), then its client goes:
    every seat is away (bob is told so). Returns the tables."""
    bob = await sdk(app, clients, "bob")
    me = await sdk(app, clients, name, password)
    out = []
    for i in range(tables):
        t = await bob.create_table(f"table-{i}", "classic", 2, action_seconds=600)
        await bob.join(t, 1)
        await me.join(t, 0)
        out.append(t)
    await me.close()
    waiting = set(out)

    def all_away(m: Item) -> bool:
        if isinstance(m, TableUpdate) and any(seat_zero(t, lambda seat: seat["away"] is True)(m) for t in waiting):
            waiting.discard(m.table)
        return not waiting

    await next_message(bob, all_away, GUARD)
    assert all(app.tables[t].seats[0].session is None for t in out)  # type: ignore[union-attr]
    return out


async def until(cli: CliApp, predicate: Callable[[Model], bool]) -> Model:
    async with asyncio.timeout(GUARD):
        return await cli.wait_until(predicate)


def feed(m: Model) -> list[str]:
    return [line.text for line in m.feed]


class Started:
    """A CliApp running over a fresh client of ``name``, with its token file."""

    def __init__(self, app: App, clients: list[Client], name: str, password: str | None, tokens: SeatTokens) -> None:
        self.app, self.clients, self.name, self.password, self.tokens = app, clients, name, password, tokens

    async def __aenter__(self) -> tuple[CliApp, Any]:
        kept = list(self.tokens.all().values())  # as shithead's login gives them
        client = await sdk(self.app, self.clients, self.name, self.password, kept[0] if kept else None)
        self._pipe = create_pipe_input()
        pipe = self._pipe.__enter__()
        self._session = create_app_session(input=pipe, output=DummyOutput())
        self._session.__enter__()
        self.cli = CliApp(
            client,
            model=Model(server="test", name=self.name, guest=self.password is None, connection="connected"),
            theme=Theme(color=False),
            tokens=self.tokens,
        )
        self.running = asyncio.create_task(self.cli.run())
        return self.cli, pipe

    async def __aexit__(self, *exc: object) -> None:
        self.cli.app.exit()
        await asyncio.wait_for(self.running, GUARD)
        self._session.__exit__(None, None, None)
        self._pipe.__exit__(None, None, None)


async def test_several_waiting_seats_are_listed_and_enter_takes_the_first(
    make_app: Any, clients: list[Client], tmp_path: Path
) -> None:
    app = await make_app()
    t1, t2 = await away_at(app, clients, "alice", "pw", tables=2)
    tokens = SeatTokens("test", "alice", tmp_path / "seats.json")
    async with Started(app, clients, "alice", "pw", tokens) as (cli, pipe):
        m = await until(cli, lambda m: any("2 seats are waiting" in t for t in feed(m)))
        assert m.table is None  # nothing taken back without a key
        screen = "\n".join(plain_lines(render_screen(m, width=100, height=30)))
        assert f"Table {t1} (table-0) seat 0 is waiting for you: Enter or 'resume {t1}'" in screen
        assert f"Table {t2} (table-1) seat 0 is waiting for you: 'resume {t2}'" in screen
        pipe.send_text("\r")
        m = await until(cli, lambda m: m.table is not None or m.error is not None)
        assert m.error is None and (m.table, m.seat) == (t1, 0)
        assert app.tables[t1].seats[0].session is not None  # type: ignore[union-attr]
        assert app.tables[t2].seats[0].session is None  # type: ignore[union-attr]
        assert set(tokens.all()) == {t1}
        pipe.send_text(f"resume {t2}\r")
        m = await until(cli, lambda m: m.table == t2 or m.error is not None)
        assert m.error is None and m.seat == 0


async def test_a_guest_without_its_token_is_told_so(
    make_app: Any, clients: list[Client], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gina (a guest) holds seats at two tables and is gone. Another machine, with no token,
    cannot be gina: the login is refused (NAME_TAKEN, with a name to take instead). A machine
    with the token of one seat is gina again: that seat is offered, the other is told to need
    its token ('resume' says the same), and Enter takes the first back."""
    app = await make_app()
    t1, t2 = await away_at(app, clients, "gina", None, tables=2)
    token1 = clients[-1].seats[t1].token
    stranger = await Client.connect("127.0.0.1", app.port)
    clients.append(stranger)
    refused = await cli_main.login(stranger, cli_main.Credentials("gina", None))
    assert isinstance(refused, ServerError) and refused.code == "NAME_TAKEN" and refused.suggestion
    assert f"try: shithead --name {shlex.quote(refused.suggestion)}" in capsys.readouterr().err
    tokens = SeatTokens("test", "gina", tmp_path / "seats.json")
    tokens.put(t1, token1)  # this machine kept one of the two tokens
    async with Started(app, clients, "gina", None, tokens) as (cli, pipe):
        m = await until(cli, lambda m: any("2 seats are waiting for you" in x for x in feed(m)))
        assert m.table is None and f"Your seat at table {t2} can only come back with its token" in (m.error or "")
        pipe.send_text(f"resume {t2}\r")  # says the same
        m = await until(cli, lambda m: sum("only come back with its token" in x for x in feed(m)) == 2)
        assert m.table is None and app.tables[t2].seats[0].session is None  # type: ignore[union-attr]
        errors = len([x for x in m.feed if x.kind == "error"])
        pipe.send_text("\r")  # Enter: the seat whose token is here
        m = await until(cli, lambda m: m.table is not None or len([x for x in m.feed if x.kind == "error"]) > errors)
        assert (m.table, m.seat) == (t1, 0) and app.tables[t2].seats[0].session is None  # type: ignore[union-attr]


async def test_an_out_of_date_token_gives_way_to_the_name_and_gone_tables_are_forgotten(
    make_app: Any, clients: list[Client], tmp_path: Path
) -> None:
    app = await make_app()
    [t] = await away_at(app, clients, "alice", "pw")
    tokens = SeatTokens("test", "alice", tmp_path / "seats.json")
    tokens.put(t, "out-of-date")
    tokens.put(99, "a table that is gone")
    async with Started(app, clients, "alice", "pw", tokens) as (cli, _pipe):
        m = await until(cli, lambda m: m.table == t or m.error is not None)
        assert m.error is None and m.seat == 0
        assert any("was waiting for you: taking it back" in x for x in feed(m))
        kept = tokens.all()
        assert set(kept) == {t} and kept[t] == cli.client.seats[t].token != "out-of-date"


async def test_a_seat_a_bot_plays_meanwhile_is_taken_back(make_app: Any, clients: list[Client], tmp_path: Path) -> None:
    app = await make_app(bots=HouseBots(), reconnect_grace=0.0)
    [t] = await away_at(app, clients, "carol", "pw")
    bob = clients[0]
    await bob.add_bot(t, "greedy", 0)
    await next_message(bob, seat_zero(t, lambda seat: seat["stand_in"] is not None), GUARD)
    seat = app.tables[t].seats[0]
    assert seat is not None and seat.stand_in is not None and seat.session is not None
    tokens = SeatTokens("test", "carol", tmp_path / "seats.json")
    async with Started(app, clients, "carol", "pw", tokens) as (cli, _pipe):
        m = await until(cli, lambda m: m.table == t or m.error is not None)
        assert m.error is None and m.seat == 0
        # bob is told when the bot gives the seat back to carol.
        await next_message(bob, seat_zero(t, lambda seat: seat["stand_in"] is None and seat["name"] == "carol"), GUARD)
        assert seat.stand_in is None
        assert seat.session is not None and seat.session.name == "carol"  # type: ignore[attr-defined]
