"""Helpers for the client tests: reading a client's message stream, seating bot runners."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from client.bot import Bot
from client.bots.greedy import GreedyBot
from client.hosting.bot_runner import BotRunner, RunStats
from client.sdk import Client
from client.sdk.events import Item
from protocol.payloads import Event, GameResult, Tally, View
from server.shell.app import App

#: Safety net for waits: a hung test fails instead of blocking the suite (not an assertion).
WAIT = 20.0


async def next_message(client: Client, pred: Callable[[Item], bool], timeout: float = WAIT) -> Item:
    """The first message (or pseudo-event) from ``client.messages()`` matching ``pred``; the
    ones before it are consumed. Fails if the stream ends first."""
    async with asyncio.timeout(timeout), contextlib.aclosing(client.messages()) as stream:
        async for msg in stream:
            if pred(msg):
                return msg
    raise AssertionError("the message stream ended")


def of_type(cls: type[Item], **fields: Any) -> Callable[[Item], bool]:
    """A predicate: messages (or connection events) of class ``cls`` whose attributes
    ``fields`` have these values (an absent optional field is None)."""
    return lambda m: isinstance(m, cls) and all(getattr(m, k) == v for k, v in fields.items())


class Recorder(GreedyBot):
    """A greedy bot that records what the runner gives it, and checks each of its choices."""

    def __init__(self, rng: Any = None) -> None:
        super().__init__(rng)
        self.starts: list[View] = []
        self.events: list[Event] = []
        self.observed = 0
        self.choices = 0
        self.results: list[tuple[GameResult, Tally | None]] = []

    def on_game_start(self, view: View) -> None:
        super().on_game_start(view)
        self.starts.append(view)

    def observe(self, view: View, events: Sequence[Event]) -> None:
        self.observed += 1
        self.events.extend(events)

    def choose(self, view: View) -> str:
        self.choices += 1
        action = super().choose(view)
        assert action in view["legal"]
        return action

    def on_game_over(self, result: GameResult, tally: Tally | None) -> None:
        self.results.append((result, tally))

    def games(self) -> list[int]:
        """Ids of the games this bot saw start."""
        return [e["game"] for e in self.events if e["kind"] == "game_start"]


async def seat_runners(
    connect: Any,
    app: App,
    bots: Sequence[Bot],
    *,
    mode: str = "msgpack",
    preset: str = "classic",
    games: int = 1,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    **client_options: Any,
) -> tuple[int, list[BotRunner]]:
    """One client per bot (logged in as guest bots ``b0``, ``b1``...); ``b0`` creates a table
    and starts its games; bot i sits at seat i. Returns the table and the runners."""
    clients = []
    for i in range(len(bots)):
        c = await connect(app, mode=mode, **client_options)
        await c.login(f"b{i}", guest=True, bot=True)
        clients.append(c)
    table = await clients[0].create_table("bots", preset, len(bots), seed=seed, options=options)
    runners = [
        BotRunner(bot, c, games=games, start_games=i == 0) for i, (bot, c) in enumerate(zip(bots, clients, strict=True))
    ]
    for i, r in enumerate(runners):
        assert await r.join(table, i) == i
    return table, runners


async def run_all(runners: Sequence[BotRunner], timeout: float = 60.0) -> list[RunStats]:
    """Run every runner to its end."""
    async with asyncio.timeout(timeout):
        return list(await asyncio.gather(*(r.run() for r in runners)))


def check_places(stats: Sequence[RunStats], games: int) -> None:
    """Every runner saw ``games`` games and placed in each, and every place was taken once per
    game (the places of a game are a permutation of the seats)."""
    seats = len(stats)
    for s in stats:
        assert s.games == games and s.places.total() == games, s
    for place in range(1, seats + 1):
        assert sum(s.places[place] for s in stats) == games, (place, stats)
    assert sum(s.places[seats] for s in stats) == sum(s.losses for s in stats) == games


async def program_against_greedy(
    server: App, connect: Any, argv: Sequence[str], *, name: str, games: int
) -> tuple[RunStats, int, str, str, int]:
    """Run a bot program (``argv`` before shithead-bot's flags) against a greedy bot: a 2-seat
    classic table (seed 6) whose seat 0 greedy owns, the program joining the free seat with
    ``--port --games --name``. Returns greedy's stats, the program's exit status, its standard
    output and error, and the table id."""
    owner = await connect(server)
    await owner.login("owner", guest=True, bot=True)
    table = await owner.create_table(name, "classic", 2, seed=6)
    runner = BotRunner(GreedyBot(), owner, games=games, start_games=True)
    await runner.join(table, 0)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        "--port",
        str(server.port),
        "--games",
        str(games),
        "--name",
        name,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(60):
            stats, (out, err) = await asyncio.gather(runner.run(), proc.communicate())
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return stats, proc.returncode, out.decode(), err.decode(), table
