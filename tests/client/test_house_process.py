"""The server's bots in a process of their own (:class:`client.hosting.house_process.HouseProcess`), on
a real server on 127.0.0.1: a bot added to a table plays from the child process; a refusal
comes back with its reason; stop() ends the child and its bots; when the child dies the server
starts its bots again in a new one (not when it keeps dying); the child exits by itself when
its input ends (the server was killed).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import Any

import pytest

import server.shell.app
from client.hosting.house_process import HouseProcess, HouseProcesses
from server.shell.app import App
from tests.client.test_house import person, play_first_legal_until_game_over, presence
from tests.server.client import TestClient
from tests.server.waiting import until_loop


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def game_with_a_bot(app: App, bot: str) -> tuple[TestClient, int]:
    """alice at seat 0 of a new 2-seat table, ``bot`` at seat 1, the game started."""
    alice = await person(app, "alice")
    t = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}))["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": bot}, "ok")
    await alice.ok({"type": "start", "table": t}, "ok")
    return alice, t


async def test_a_bot_plays_a_game_from_its_own_process(make_app: Any) -> None:
    """add_bot through the process host: the bot plays every turn of a game (no timeouts)
    from a child process, not from the server's."""
    host = HouseProcess()
    app = await make_app(bots=host)
    alice = await person(app, "alice")
    t = (await alice.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2, "seed": 5}))["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    assert host.pid is None  # started with the first bot
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    assert host.pid is not None and host.pid != os.getpid() and alive(host.pid)
    await alice.ok({"type": "start", "table": t}, "ok")
    over = await play_first_legal_until_game_over(alice, t)
    assert sorted(over["result"]["places"]) == [0, 1] and over["tally"]["timeouts"] == [0, 0]
    await alice.close()


async def test_a_refusal_comes_back_with_its_reason(make_app: Any) -> None:
    """A bot that cannot sit (no such table) raises the child's reason to the caller."""
    host = HouseProcess()
    app = await make_app(bots=host)
    app.house_logins["greedy-77"] = "one-time"  # (what the server does before it calls seat)
    with pytest.raises(RuntimeError, match=r"UNKNOWN_TABLE|no table"):
        await host.seat(
            "greedy", host="127.0.0.1", port=app.port, table=999, seat=None, name="greedy-77", password="one-time"
        )


async def test_stop_ends_the_process_and_its_bots(make_app: Any) -> None:
    """stop() returns once the child has exited; the table sees the bot's connection go."""
    host = HouseProcess()
    app = await make_app(bots=host)
    alice, _t = await game_with_a_bot(app, "random")
    pid = host.pid
    assert pid is not None
    await host.stop()
    assert host.pid is None and not alive(pid)
    await alice.wait_for(lambda: presence(alice, "dropped", 1))
    await alice.close()


async def test_a_dead_process_is_replaced_and_its_bots_take_their_seats_back(make_app: Any) -> None:
    """The child is killed mid-game: its bot drops, and the server starts it again in a new
    child at once, where it takes its seat back and plays the game to its end."""
    host = HouseProcess()
    app = await make_app(bots=host)
    alice, t = await game_with_a_bot(app, "greedy")
    first = host.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert await host.wait() == -signal.SIGKILL
    await alice.wait_for(lambda: presence(alice, "dropped", 1) and presence(alice, "returned", 1))
    assert host.pid is not None and host.pid != first
    over = await play_first_legal_until_game_over(alice, t)
    assert sorted(over["result"]["places"]) == [0, 1]
    assert over["tally"]["timeouts"] == [0, 0]  # the bot played its turns itself, before and after
    await alice.close()


async def test_a_process_that_keeps_dying_is_left_dead(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """After HOUSE_LOSSES deaths within the window the bots are not started again (the seat
    stays away); the owner can still hand it to a bot, which starts a new child."""
    monkeypatch.setattr(server.shell.app, "HOUSE_LOSSES", 1)
    host = HouseProcess()
    app = await make_app(bots=host, reconnect_grace=0.0)  # (a seat away that long goes to a bot)
    alice, t = await game_with_a_bot(app, "greedy")
    for death in (1, 2):
        pid = host.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert await host.wait() == -signal.SIGKILL
        if death == 1:
            await alice.wait_for(lambda: presence(alice, "returned", 1))
    seat = app.tables[t].seats[1]
    assert seat is not None and seat.session is None and host.pid is None
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy", "seat": 1}, "ok")
    assert host.pid is not None
    await alice.wait_for(lambda: presence(alice, "replaced", 1))
    await alice.close()


async def test_the_child_exits_when_its_input_ends() -> None:
    """What a SIGKILLed server leaves: the child's standard input ends, and it exits (0) by
    itself. It ignores Ctrl-C (the server's orderly stop decides when the bots go), and answers
    an unknown request with an error, not by dying."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.hosting.house_process",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    async with asyncio.timeout(30):
        child.stdin.write(b'{"id": 1, "op": "dance", "args": {}}\n')
        assert json.loads(await child.stdout.readline()) == {"id": 1, "error": "no operation 'dance'"}
        child.send_signal(signal.SIGINT)  # serving now: SIGINT is ignored from before the loop ran
        child.stdin.write(b"not json\n")
        child.stdin.close()
        assert await child.stdout.read() == b""
        assert await child.wait() == 0


async def test_tournament_bots_run_in_a_process_of_their_own_at_a_lower_priority(make_app: Any) -> None:
    """HouseProcesses (the server's bot host): a bot added to a table runs in one child, a
    tournament's bundled bot in another, niced by the given amount (issue 37, item 3)."""
    host = HouseProcesses(nice=7)
    app = await make_app(bots=host)
    alice, _t = await game_with_a_bot(app, "greedy")
    org = await person(app, "olga")
    cup = {"type": "create_tournament", "name": "c", "preset": "classic", "seats": 2, "games": 2, "bots": ["random"]}
    await org.ok(cup, "tournament_created")
    await until_loop(lambda: host.tournaments.pid is not None and any(s.house == "random" for s in app.sessions))
    tables, tournaments = host.tables.pid, host.tournaments.pid
    assert tables is not None and tournaments is not None and tables != tournaments
    here = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, tables) == here
    assert os.getpriority(os.PRIO_PROCESS, tournaments) == min(here + 7, 19)
    await host.stop()
    assert not alive(tables) and not alive(tournaments)
    for c in (alice, org):
        await c.close()
