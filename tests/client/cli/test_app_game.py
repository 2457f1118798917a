"""The whole CLI, driven by keystrokes through a pipe, plays a real game on an in-process server.

The server runs on 127.0.0.1 port 0 with a bot host that serves ``add_bot`` by running the
bundled random bot through :class:`client.hosting.bot_runner.BotRunner` over the SDK (the same protocol a
remote bot uses). The test types what a person would: ``create``, ``bot random``, ``start``,
then each move in one of several forms (the exact legal text, a short form, Ctrl-T, or the
arrow/Space/Enter keys), until the game is over. No timing is asserted: every wait is for a
model condition, with a generous guard against hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from client.bots import make_bot
from client.cli.app import CliApp
from client.cli.model import Model, selectables
from client.cli.render import Theme, plain_lines, render_screen
from client.hosting.bot_runner import BotRunner
from client.sdk import Client
from server.config import ServerConfig
from server.shell.app import App

GUARD = 30.0  # seconds: only against a hang, never a measured expectation
RIGHT = "\x1b[C"
CTRL_T = "\x14"


class RunnerBotHost:
    """Serves ``add_bot``: each bot is a BotRunner over its own SDK client, logged in with the
    one-time login the server hands out."""

    def __init__(self) -> None:
        self.clients: list[Client] = []
        self.tasks: list[asyncio.Task[Any]] = []

    def names(self) -> Sequence[str]:
        return ["random"]

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
        client = await Client.connect(host, port, client_name="test bot host", reconnect=False)
        self.clients.append(client)
        await client.login(name, password, bot=True)
        runner = BotRunner(make_bot(bot, random.Random(len(self.clients))), client)
        sat = await runner.join(table, seat)
        self.tasks.append(asyncio.create_task(runner.run()))
        return sat

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@pytest.fixture
async def server(tmp_path: Any) -> AsyncIterator[App]:
    app = App(ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "cli.sqlite3")), bots=RunnerBotHost())
    await app.start()
    yield app
    await app.stop()


async def until(cli: CliApp, predicate: Callable[[Model], bool]) -> Model:
    async with asyncio.timeout(GUARD):
        return await cli.wait_until(predicate)


def keys_for(cli: CliApp, cards: list[str]) -> str:
    """Arrow and Space keys that mark ``cards`` in the hand (or face-up row), then Enter."""
    picks = selectables(cli.model)
    cursor, out = cli.model.cursor, ""
    used: set[int] = set()
    for card in cards:
        target = next(i for i, p in enumerate(picks) if card in p.cards and i not in used)
        used.add(target)
        out += RIGHT * ((target - cursor) % len(picks)) + " "
        cursor = target
    return out + "\r"


def move_text(cli: CliApp, n: int) -> str:
    """The keystrokes for the first legal action, in the n-th of several input forms."""
    legal = cli.model.legal
    action = legal[0]
    verb, *args = action.split()
    if verb == "play":
        form = n % 3
        if form == 0:
            return action + "\r"
        if form == 1:
            return " ".join(reversed(args)) + "\r"  # short form, cards in another order
        return keys_for(cli, args)
    if action == "take":
        return ("take\r", "t\r", CTRL_T)[n % 3]
    if verb == "flip" and n % 2:
        picks = selectables(cli.model)
        target = next(i for i, p in enumerate(picks) if p.zone == "down" and p.index == int(args[0]))
        return RIGHT * ((target - cli.model.cursor) % len(picks)) + "\r"
    return action + "\r"


@contextlib.asynccontextmanager
async def typing_player(server: App, name: str, **connect: Any) -> AsyncIterator[tuple[CliApp, Any]]:
    """A guest ``name`` in the whole CLI against ``server``, typing through a pipe: yields the
    app and the pipe; at the end types ``quit`` and waits for the app to end, then closes."""
    client = await Client.connect("127.0.0.1", server.port, client_name="cli test", **connect)
    await client.login(name, guest=True)
    try:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            cli = CliApp(client, model=Model(server="test", name=name), theme=Theme(color=False))
            running = asyncio.create_task(cli.run())
            yield cli, pipe
            pipe.send_text("quit\r")
            await asyncio.wait_for(running, GUARD)
    finally:
        await client.close()


async def test_cli_plays_a_whole_game_against_a_bundled_bot(server: App) -> None:
    """Typed commands and keys create a table, seat a bot, play a classic game to its end, show
    the result with the tally, and deal the next game; no error along the way."""
    async with typing_player(server, "alice") as (cli, pipe):
        pipe.send_text("create classic 2 name=duel max_actions=600\r")
        await until(cli, lambda m: m.seat == 0 and m.summary is not None)
        pipe.send_text("bot random\r")
        await until(cli, lambda m: m.summary is not None and m.summary["free"] == 0)
        pipe.send_text("start\r")
        m = await until(cli, lambda m: m.view is not None and m.view["phase"] == "setup" and bool(m.legal))

        # Setup by keys: mark hand card 0, walk to face-up slot 0, mark it, Enter swaps them.
        hand_card = m.view["hand"][0]
        up_card = m.view["players"][0]["face_up"][0][0]
        pipe.send_text(" " + RIGHT * (len(m.view["hand"]) - m.cursor) + " \r")
        # The bot's setup moves change the seq too: wait for our own swap to show.
        m = await until(cli, lambda m: m.error is not None or up_card in m.view["hand"])
        assert m.error is None
        assert hand_card in m.view["players"][0]["face_up"][0]
        pipe.send_text("ready\r")

        moves = 0
        while True:
            m = await until(
                cli,
                lambda m: (
                    m.game_over is not None
                    or m.error is not None
                    or (bool(m.legal) and m.view["phase"] == "play" and not m.pending)
                ),
            )
            assert m.error is None, m.error
            if m.game_over is not None:
                break
            pipe.send_text(move_text(cli, moves))
            moves += 1
            await until(cli, lambda m, seq=m.seq: m.seq != seq or m.error is not None or m.game_over is not None)

        assert moves > 3
        over = m.game_over
        assert over.tally["players"][0] == "alice" and sum(over.tally["losses"]) == 1
        screen = "\n".join(plain_lines(render_screen(m, width=80, height=22, theme=Theme(color=False))))
        assert f"Game {over.game} is over" in screen and "You own this table" in screen
        feed = [line.text for line in m.feed]
        assert any("alice (you) played" in t for t in feed)
        assert any("is the shithead" in t for t in feed)

        pipe.send_text("next\r")
        m = await until(cli, lambda m: m.game_over is None and m.view is not None and m.game != over.game)
        assert m.view["phase"] == "setup"


async def test_cli_reports_refusals_in_words(server: App) -> None:
    """A bad command and a server refusal become error lines in words; the session goes on."""
    async with typing_player(server, "bob") as (cli, pipe):
        pipe.send_text("join 99\r")
        m = await until(cli, lambda m: m.error is not None)
        assert "99" in m.error and "Traceback" not in m.error
        pipe.send_text("frobnicate\r")
        m = await until(cli, lambda m: m.error is not None and "frobnicate" in m.error)
        assert "help" in m.error
        pipe.send_text("create classic 2\r")
        await until(cli, lambda m: m.seat == 0)
        pipe.send_text("bot nosuchbot\r")
        m = await until(cli, lambda m: m.error is not None and "bot" in m.error.lower())
        pipe.send_text("start\r")
        m = await until(cli, lambda m: m.error is not None and "seat" in m.error.lower())
        assert "bot greedy" in m.error  # the hint how to fill the table
        pipe.send_text("chat hello there\r")
        await until(cli, lambda m: ("bob", "hello there") in m.chat)
        pipe.send_text("leave\r")
        await until(cli, lambda m: m.table is None)


async def test_a_dropped_connection_shows_and_the_seat_comes_back(server: App) -> None:
    """The SDK reconnects by itself; the screen says the connection was lost, then that the seat
    is ours again, and the status line is back to connected."""
    async with typing_player(server, "carol", backoff_initial=0.01) as (cli, pipe):
        pipe.send_text("create classic 2\r")
        await until(cli, lambda m: m.seat == 0 and m.summary is not None)
        assert cli.client.transport is not None
        cli.client.transport.abort()
        m = await until(cli, lambda m: any(line.text == "Seat 0 at table 1 is yours again." for line in m.feed))
        texts = [line.text for line in m.feed]
        assert any(t.startswith("Connection lost: reconnecting") for t in texts)
        assert m.connection == "connected" and m.table == 1 and m.seat == 0


async def test_a_refused_play_is_explained_by_the_rule_that_refuses_it(server: App) -> None:
    """A card typed on our turn that does not beat the pile goes to the server, and the feed
    says why in the rules' words: the card to beat and what may go on it (issue 12)."""
    async with typing_player(server, "eve") as (cli, pipe):
        pipe.send_text("create classic 2\r")
        await until(cli, lambda m: m.seat == 0)
        pipe.send_text("bot random\r")
        await until(cli, lambda m: m.summary is not None and all(s is not None for s in m.summary["seats"]))
        pipe.send_text("start\r")
        m = await until(cli, lambda m: "ready" in m.legal)
        pipe.send_text("ready\r")
        explained = None
        async with asyncio.timeout(GUARD):
            while explained is None:
                m = await until(cli, lambda m: bool(m.legal) and m.pending is None and m.view is not None)
                playable = {c for a in m.legal if a.startswith("play ") for c in a.split()[1:]}
                stuck = [c for c in m.view["hand"] if c not in playable]
                seq, said = m.seq, len(m.feed)
                if m.view["phase"] == "play" and m.view["pile"] and stuck:
                    pipe.send_text(f"{stuck[0]}\r")
                    # Its refusal comes back as a new error line; a state that overtook the
                    # play (STALE_SEQ: "Too late") means: try again on the new state.
                    m = await until(cli, lambda m, said=said: m.error is not None and len(m.feed) > said)
                    if "does not beat" in m.error:
                        explained = m.error
                else:
                    pipe.send_text(f"{m.legal[0]}\r")
                    await until(cli, lambda m, seq=seq, said=said: m.seq != seq or len(m.feed) > said)
        assert "does not beat the pile" in explained and "the card to beat is" in explained, explained
        assert "or higher" in explained or "or lower" in explained
