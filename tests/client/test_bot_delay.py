"""The server's own bots wait ``bot_delay`` before each play at a table where a person sits, so
that people can follow the play; at a table of bots only, and in tournaments, they play at once.

The real bundled bots (:class:`client.hosting.house.HouseBots`) on a real server on 127.0.0.1. The
person is a raw protocol client playing its first legal action. Times are read from the
monotonic clock of this process (the server and the bots share it): a lower bound on the time
from the person's action to the bot's is what the delay promises, and the only timed assertion.
The full-speed cases set a delay of an hour: a game that ends at all played without it.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any, cast

from client.bots import make_bot
from client.hosting.bot_runner import BotRunner
from client.hosting.house import HouseBots
from client.sdk import Client
from protocol.payloads import View
from tests.server.client import TestClient

DELAY = 0.4
HOUR = 3600.0
TURN_KINDS = {"played", "took", "flipped", "gambled", "announced", "passed"}
"""Event kinds that open the events of a turn's action (the acting seat's)."""


async def person(app: Any, name: str) -> TestClient:
    c = await TestClient.connect(app.port, name=name)
    await c.login(name)
    return c


def opens_turn_of(f: dict[str, Any], seat: int) -> bool:
    """Whether state ``f`` reports an action of ``seat`` in a turn (not a setup swap)."""
    events = f.get("events") or []
    return any(e["kind"] in TURN_KINDS and e.get("seat") == seat for e in events)


async def test_a_bot_waits_the_delay_after_a_persons_action(make_app: Any) -> None:
    """Alice and a greedy bot: each of the bot's first turns reaches alice no earlier than
    ``bot_delay`` after alice's own last action (the state that gave the bot its turn)."""
    app = await make_app(bots=HouseBots(), bot_delay=DELAY)
    alice = await person(app, "alice")
    t = (
        await alice.ok(
            {"type": "create_table", "name": "t", "preset": "classic", "seats": 2, "seed": 5, "action_seconds": 600},
            "table_created",
        )
    )["table"]
    await alice.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
    await alice.ok({"type": "start", "table": t}, "ok")
    last_act: float | None = None
    gaps: list[float] = []
    while len(gaps) < 3:
        f = await alice.recv(30)
        assert f is not None, "closed before the bot played three turns"
        if f.get("type") == "game_over":
            break
        if f.get("type") != "state" or f["table"] != t:
            continue
        if opens_turn_of(f, 1):
            assert last_act is not None, "the bot played a turn before alice did anything"
            gaps.append(time.monotonic() - last_act)
        if f["view"]["legal"] and f["view"]["turn"] in (0, None):
            last_act = time.monotonic()
            alice.send({"type": "act", "table": t, "seq": f["seq"], "action": f["view"]["legal"][0]})
    assert gaps, "the bot never played a turn"
    assert min(gaps) >= DELAY, gaps
    await alice.close()


async def play_watched_until_over(c: TestClient, table: int) -> dict[str, Any]:
    while True:
        f = await c.recv(60)
        assert f is not None, "closed before the game ended"
        if f.get("type") == "game_over" and f["table"] == table:
            return f


async def test_bots_alone_at_a_table_play_at_once(make_app: Any) -> None:
    """A table of two bots whose owner watches: with a delay of an hour a game still ends,
    so they waited nowhere."""
    app = await make_app(bots=HouseBots(), bot_delay=HOUR)
    olga = await person(app, "olga")
    t = (await olga.ok({"type": "create_table", "name": "bots", "preset": "classic", "seats": 2}))["table"]
    for bot in ("greedy", "random"):
        await olga.ok({"type": "add_bot", "table": t, "bot": bot}, "ok")
    await olga.ok({"type": "watch", "table": t}, "watching")
    await olga.ok({"type": "start", "table": t}, "ok")
    over = await play_watched_until_over(olga, t)
    assert sorted(over["result"]["places"]) == [0, 1]
    await olga.close()


async def test_tournament_bots_play_at_once(make_app: Any) -> None:
    """A tournament of two bundled bots on a server whose bots wait an hour at tables with
    people: its game is played to the end."""
    app = await make_app(bots=HouseBots(), bot_delay=HOUR)
    olga = await person(app, "olga")
    created = {"type": "create_tournament", "name": "fast", "preset": "classic", "seats": 2, "games": 1}
    tid = (await olga.ok({**created, "bots": ["greedy", "random"]}, "tournament_created"))["tournament"]
    await olga.ok({"type": "start_tournament", "tournament": tid}, "ok")  # (answered once the bots registered)
    over = await olga.recv_until("tournament_over", timeout=60)
    assert over["info"]["games_finished"] >= 1
    await olga.close()


def runner_at(seats: list[dict[str, Any] | None], pace: float = DELAY) -> BotRunner:
    client = SimpleNamespace(summaries={7: {"table": 7, "seats": seats}})
    runner = BotRunner(make_bot("greedy"), cast(Client, client), pace=pace)
    runner.attach(7, 0)
    return runner


def view(phase: str) -> View:
    return cast(View, {"phase": phase})


def test_the_pause_is_for_turns_at_tables_with_a_person() -> None:
    """BotRunner.pause: the pace for a turn (announce, play) while a seat is a person's; none in
    setup, none at a table of bots only (or with no pace)."""
    bot, person_ = {"bot": True}, {"bot": False}
    assert runner_at([bot, person_]).pause(view("play")) == DELAY
    assert runner_at([bot, person_]).pause(view("announce")) == DELAY
    assert runner_at([bot, person_]).pause(view("setup")) == 0.0
    assert runner_at([bot, bot]).pause(view("play")) == 0.0
    assert runner_at([bot, None]).pause(view("play")) == 0.0
    assert runner_at([bot, person_], pace=0.0).pause(view("play")) == 0.0
