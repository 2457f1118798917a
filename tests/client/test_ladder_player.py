"""The ladder player (``shithead-bot --ladder``): its command line, and two bot accounts that join
the ladder of an in-process server and play the games it seats them at, with a dropped
connection in the middle (the player joins again and goes on). The whole programs against the
real server, with a SIGKILL, are tests/durability/test_ladder_bots.py."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from client.bots import make_bot
from client.bots.search import SearchBot
from client.hosting.command import make_named_bot, parse_args
from client.hosting.host import connect_bot
from client.hosting.ladder_player import LadderPlayer
from client.hosting.options import LoginOptions
from client.sdk import ServerError
from protocol.errors import ErrorCode
from protocol.messages import GetLadder, LadderStandings, Seated
from server.config import Limits
from server.shell.app import App

HOST = "127.0.0.1"


def test_ladder_flags() -> None:
    args = parse_args(["--bot", "search", "--ladder", "classic, west_kent", "--name", "b", "--password", "p"])
    assert args.ladder == ["classic", "west_kent"]
    bot = make_named_bot("search", 0.02)
    assert isinstance(bot, SearchBot) and bot.budget == 0.02


@pytest.mark.parametrize(
    "argv",
    [
        ["--bot", "greedy", "--ladder", "classic"],  # no account
        ["--bot", "greedy", "--ladder", ",", "--password", "p"],  # no preset
        ["--bot", "greedy", "--ladder", "classic", "--password", "p", "--tournament", "2"],
        ["--bot", "greedy", "--budget", "0.1"],  # greedy does not search
        ["--bot", "search", "--budget", "0"],
    ],
)
def test_bad_ladder_flags_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2


async def test_a_guest_is_refused(make_app: Callable[..., Awaitable[App]]) -> None:
    app = await make_app()
    client = await connect_bot(LoginOptions(name="guesty", host=HOST, port=app.port, guest=True))
    try:
        with pytest.raises(ServerError) as refused:
            await LadderPlayer(client, lambda game: make_bot("greedy"), ["classic"]).run()
        assert refused.value.code == ErrorCode.NOT_INVITED
    finally:
        await client.close()


class CountingPlayer(LadderPlayer):
    """A ladder player that wakes the test at every table the server seats it at and at every
    (re)join."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, on_registered=self._joined, **kwargs)
        self.joins = 0
        self.changed = asyncio.Event()

    def _joined(self) -> None:
        self.joins += 1
        self.changed.set()

    def _seated(self, msg: Seated) -> None:
        super()._seated(msg)
        self.changed.set()

    async def until(self, condition: Callable[[], bool], task: asyncio.Task[Any]) -> None:
        """Until ``condition()`` holds; the player's own failure is raised here."""
        while not condition():
            self.changed.clear()
            woken = asyncio.ensure_future(self.changed.wait())
            await asyncio.wait([woken, task], return_when=asyncio.FIRST_COMPLETED)
            woken.cancel()
            if task.done():
                task.result()
                raise AssertionError("the ladder player stopped")


async def test_two_ladder_players_play_on_across_a_dropped_connection(
    make_app: Callable[..., Awaitable[App]],
) -> None:
    app = await make_app(limits=Limits(ladder_tables=1), ladder_baselines=[])
    clients = [
        await connect_bot(LoginOptions(name=n, host=HOST, port=app.port, password=f"pw-{n}"))
        for n in ("lp-greedy", "lp-random")
    ]
    kinds = ("greedy", "random")
    players = [
        CountingPlayer(c, lambda game, k=k: make_bot(k), ["classic"]) for c, k in zip(clients, kinds, strict=True)
    ]
    tasks = [asyncio.create_task(p.run()) for p in players]
    first = players[0]
    try:
        async with asyncio.timeout(60):  # against a hang only
            await first.until(lambda: first.stats.tables >= 3, tasks[0])
            before = first.stats.tables
            assert clients[0].transport is not None
            clients[0].transport.abort()  # the SDK reconnects; the player joins the ladder again
            await first.until(lambda: first.joins >= 2 and first.stats.tables >= before + 3, tasks[0])
        answer = await clients[1].request(GetLadder)
        assert isinstance(answer, LadderStandings)
        rows = {r["name"]: r for r in answer.tables[0]["rows"]}
        assert rows["lp-greedy"]["games"] >= before + 2 and rows["lp-greedy"]["games"] == rows["lp-random"]["games"]
        assert clients[0].reconnects == 1
        assert first.stats.illegal == players[1].stats.illegal == 0
    finally:
        for c in clients:
            await c.close()
        await asyncio.gather(*tasks, return_exceptions=True)
