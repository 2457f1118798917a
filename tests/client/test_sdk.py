"""The SDK against a real in-process server: requests, pushed messages, errors, reconnects,
and complete games played by bots through the runner in both wire modes."""

from __future__ import annotations

import asyncio
import random
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from client.bots import make_bot
from client.bots.greedy import GreedyBot
from client.hosting.bot_runner import BotRunner
from client.hosting.host import find_table, play
from client.hosting.options import LoginOptions, NewTable, PlayOptions, Seating
from client.sdk import Client, ClientClosed, ConnectionLost, HeldSeat, ServerError
from client.sdk.events import Closed, Disconnected, Reconnected, Reconnecting
from protocol.errors import LocalProtocolError
from protocol.messages import (
    ChatMessage,
    Error,
    GameOver,
    GoingAway,
    Message,
    Ping,
    Pong,
    State,
    TableUpdate,
    Watch,
    Welcome,
)
from server.config import Limits
from server.shell.app import App
from tests.client.helpers import Recorder, check_places, next_message, of_type, run_all, seat_runners

MODES = ["msgpack", "json"]


async def pinged(c: Client) -> float:
    """``c.ping()``, checked against the exchange it made: it sent one ``ping``, the server
    answered it with a ``pong``, and the round trip it returns covers that exchange (at least
    the time from sending the request to reading its answer) and no more than the call took."""
    exchanges: list[tuple[type[Message], Message, float]] = []
    request = c.request

    async def watched(cls: type[Message], **fields: object) -> Message:
        sent = time.monotonic()
        answer = await request(cls, **fields)
        exchanges.append((cls, answer, time.monotonic() - sent))
        return answer

    c.request = watched  # type: ignore[method-assign]
    began = time.monotonic()
    try:
        rtt = await c.ping()
    finally:
        del c.request
    took = time.monotonic() - began
    [(sent_cls, answer, exchange)] = exchanges
    assert sent_cls is Ping and isinstance(answer, Pong)
    assert 0 < exchange <= rtt <= took
    return rtt


@pytest.mark.parametrize("mode", MODES)
async def test_connect_login_create_join_and_pushed_messages(server: App, connect: Any, mode: str) -> None:
    """Handshake, login, create, join, list, chat and ping work; table_update and chat_message
    arrive on messages() and summaries follow the updates."""
    c = await connect(server, mode=mode)
    assert isinstance(c.welcome, Welcome) and c.welcome.limits["max_frame_in"] > 0
    logged = await c.login("alice", guest=True)
    assert logged.name == "alice" and logged.guest is True and c.name == "alice"
    table = await c.create_table("demo", "classic", 2)
    assert isinstance(table, int)
    held = await c.join(table)
    assert isinstance(held, HeldSeat) and held.seat == 0 and held.token and c.seats[table] == held
    update = await next_message(c, of_type(TableUpdate, table=table))
    assert isinstance(update, TableUpdate)
    seat = update.summary["seats"][0]
    assert seat is not None and seat["name"] == "alice"
    assert c.summaries[table] == update.summary
    [summary] = [t for t in await c.list_tables() if t["table"] == table]
    assert summary["free"] == 1 and summary["owner"] == "alice"
    await c.chat(table, "hello")
    said = await next_message(c, of_type(ChatMessage, table=table))
    assert isinstance(said, ChatMessage)
    assert said.text == "hello" and said.name == "alice" and said.seat == 0
    await pinged(c)
    await c.leave(table)
    assert table not in c.seats


async def test_request_errors_raise_server_error_with_the_code(server: App, connect: Any) -> None:
    """Refused requests raise ServerError carrying the wire code; the connection stays usable."""
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    table = await alice.create_table("t", "classic", 2)
    await alice.join(table)
    cases = [
        (alice.join(999), "UNKNOWN_TABLE"),
        (bob.start(table), "NOT_OWNER"),
        (alice.start(table), "NOT_ENOUGH_PLAYERS"),
        (alice.act(table, 1, "ready"), "NOT_STARTED"),
        (alice.create_table("t", "no-such-preset", 2), "BAD_RULES"),
        (alice.add_bot(table, "greedy"), "UNKNOWN_BOT"),
        (alice.get_record(12345), "UNKNOWN_GAME"),
        (bob.leave(table), "NOT_AT_TABLE"),
    ]
    for request, code in cases:
        with pytest.raises(ServerError) as info:
            await request
        assert info.value.code == code and info.value.message and not info.value.fatal
    carol = await connect(server)
    await carol.login("carol", "secret")
    mallory = await connect(server)
    with pytest.raises(ServerError) as info:
        await mallory.login("carol", "wrong")
    assert info.value.code == "AUTH_FAILED"
    await pinged(alice)
    await pinged(mallory)


async def test_an_invalid_request_is_refused_before_sending(server: App, connect: Any) -> None:
    """A request that breaks a field spec raises LocalProtocolError and sends nothing."""
    c = await connect(server)
    with pytest.raises(LocalProtocolError):
        await c.login("a name with a\ncontrol character", guest=True)
    with pytest.raises(ServerError) as refused:  # the name rule is the server's: BAD_NAME
        await c.login("not a valid name!", guest=True)
    assert refused.value.code == "BAD_NAME"
    assert (await c.login("valid", guest=True)).name == "valid"


async def test_act_errors_and_the_seq_barrier(server: App, connect: Any) -> None:
    """act: STALE_SEQ and ILLEGAL_ACTION (with reason) raise; a successful act returns a seq
    below that of the state showing the action."""
    a = await connect(server, "alice")
    b = await connect(server, "bob")
    table = await a.create_table("t", "classic", 2)
    await a.join(table, 0)
    await b.join(table, 1)
    await a.start(table)
    first = await next_message(a, of_type(State, table=table))
    assert isinstance(first, State)
    assert first.events[0]["kind"] == "game_start" and first.view["phase"] == "setup"
    with pytest.raises(ServerError) as stale:
        await a.act(table, first.seq + 100, "ready")
    assert stale.value.code == "STALE_SEQ"
    with pytest.raises(ServerError) as illegal:
        await a.act(table, first.seq, "take")
    assert illegal.value.code == "ILLEGAL_ACTION" and illegal.value.reason
    barrier = await a.act(table, first.seq, "ready")
    shown = await next_message(a, lambda m: isinstance(m, State) and {"kind": "ready", "seat": 0} in m.events)
    assert isinstance(shown, State)
    assert barrier < shown.seq
    assert a.states[table].seq >= shown.seq


@pytest.mark.parametrize("mode", MODES)
async def test_play_runs_full_games_creating_and_finding_a_table(server: App, connect: Any, mode: str) -> None:
    """play(): one bot creates a table and starts two games, the other finds the table by
    polling; both finish both games with no illegal action; the hooks see every game."""
    owner, guest = Recorder(), make_bot("random", random.Random(5))
    creating = asyncio.create_task(
        play(
            owner,
            PlayOptions(
                login=LoginOptions(name="owner", port=server.port, mode=mode, client_options={"backoff_initial": 0.02}),
                seating=Seating(create=NewTable(seats=2, seed=11)),
                games=2,
            ),
        )
    )
    finding = asyncio.create_task(
        play(
            guest,
            PlayOptions(
                login=LoginOptions(name="finder", port=server.port, mode=mode),
                seating=Seating(poll_seconds=0.02),
                games=2,
            ),
        )
    )
    async with asyncio.timeout(60):
        stats = list(await asyncio.gather(creating, finding))
    check_places(stats, 2)
    assert stats[0].started == 2 and stats[1].started == 0
    assert stats[0].table == stats[1].table and {stats[0].seat, stats[1].seat} == {0, 1}
    for s in stats:
        assert s.illegal == 0 and s.bot_errors == 0 and s.acts > 0 and s.end_reason == "2 games played"
    assert len(owner.starts) == 2 and len(owner.results) == 2 and owner.observed > owner.choices > 0
    result, tally = owner.results[-1]
    assert tally["players"] == result["players"] and sum(tally["losses"]) == 2
    # The games were stored and can be fetched by their ids.
    reader = await connect(server, "reader", mode=mode)
    for game in owner.games():
        record = await reader.get_record(game)
        assert record["id"] == game and sorted(record["players"]) == ["finder", "owner"]


async def test_four_bots_play_a_series_through_runners(server: App, connect: Any) -> None:
    """Four runners (greedy and random) finish a series of two games at one table."""
    bots = [GreedyBot(), make_bot("random", random.Random(1)), GreedyBot(), make_bot("random", random.Random(2))]
    _, runners = await seat_runners(connect, server, bots, games=2, seed=3, options={"max_actions": 1500})
    stats = await run_all(runners)
    check_places(stats, 2)
    assert all(s.illegal == 0 and s.bot_errors == 0 for s in stats)


async def test_a_dropped_connection_fails_inflight_requests_then_resumes(server: App, connect: Any) -> None:
    """Aborting the socket fails the request in flight with ConnectionLost; the client
    reconnects, logs in again, resumes its seat with its token and says so in pseudo-events."""
    c = await connect(server, "alice")
    table = await c.create_table("t", "classic", 2)
    held = await c.join(table)
    in_flight = asyncio.create_task(c.ping())
    # One turn of the loop (not a pause): the task runs to its first await, and the SDK writes a
    # request before it awaits the answer. The answer cannot be read back in the same turn.
    await asyncio.sleep(0)
    assert c.transport is not None
    c.transport.abort()
    with pytest.raises(ConnectionLost):
        await in_flight
    dropped = await next_message(c, of_type(Disconnected))
    assert isinstance(dropped, Disconnected)
    assert dropped.reconnecting is True and dropped.code is None
    back = await next_message(c, of_type(Reconnected))
    assert isinstance(back, Reconnected)
    assert back.resumed == [{"table": table, "seat": held.seat}] and back.lost == []
    assert c.connected and c.reconnects == 1 and c.seats[table] == held
    await c.wait_connected(5)
    await pinged(c)
    summary = next(t for t in await c.list_tables() if t["table"] == table)
    assert summary["seats"][held.seat] == {
        "name": "alice",
        "bot": False,
        "guest": True,
        "away": False,
        "timeouts": 0,
        "stand_in": None,
    }


async def test_without_reconnect_a_drop_closes_the_client(server: App, connect: Any) -> None:
    """reconnect=False: a drop yields disconnected then closed, the stream ends, and later
    requests raise ClientClosed."""
    c = await connect(server, "alice", reconnect=False)
    assert c.transport is not None
    c.transport.abort()
    seen = [m async for m in c.messages()]
    assert [type(m) for m in seen] == [Disconnected, Closed]
    assert isinstance(seen[0], Disconnected) and seen[0].reconnecting is False and c.closed
    with pytest.raises(ClientClosed):
        await c.ping()


async def test_reconnecting_gives_up_when_the_server_is_gone(make_server: Any, connect: Any) -> None:
    """After the server stops the client sees going_away, keeps trying for its reconnect window
    (counting down), then closes with a closed pseudo-event."""
    app = await make_server()
    c = await connect(app, "alice", reconnect_for=0.5, backoff_initial=0.01, backoff_max=0.05)
    await app.stop()
    items = []
    async with asyncio.timeout(20):
        async for m in c.messages():
            items.append(m)
    first, second, last = items[0], items[1], items[-1]
    assert isinstance(first, GoingAway) and first.returning is True
    assert isinstance(second, Disconnected) and second.reconnecting is True
    waits = [m for m in items if isinstance(m, Reconnecting)]
    assert len(waits) >= 3 and [m.attempt for m in waits] == list(range(1, len(waits) + 1))
    assert all(0 < m.gives_up_in <= 0.5 for m in waits)
    assert [m.gives_up_in for m in waits] == sorted((m.gives_up_in for m in waits), reverse=True)
    assert isinstance(last, Closed) and c.closed and "0.5 s" in last.reason


async def test_the_reconnect_window_is_as_long_as_the_server_keeps_the_seat(server: App, connect: Any) -> None:
    c = await connect(server, "alice")
    assert c.welcome is not None
    limits = c.welcome.limits
    assert c.reconnect_window() > limits["reconnect_grace"] + limits["restart_grace"]


async def test_idle_timeout_reconnects_and_watches_again_while_keepalive_holds(make_server: Any, connect: Any) -> None:
    """A silent client is closed by the server (IDLE_TIMEOUT), reconnects and watches its
    table again; a client with keep-alive pings stays connected all along."""
    app = await make_server(limits=Limits(idle_timeout=0.5))
    keeper = await connect(app, "keeper", keepalive=0.1)
    table = await keeper.create_table("t", "classic", 2)
    await keeper.join(table)
    silent = await connect(app, "silent", keepalive=3600)
    await silent.watch(table)
    assert await next_message(silent, of_type(Error, code="IDLE_TIMEOUT"))
    dropped = await next_message(silent, of_type(Disconnected))
    assert isinstance(dropped, Disconnected) and dropped.code == "IDLE_TIMEOUT" and dropped.reconnecting is True
    back = await next_message(silent, of_type(Reconnected))
    assert isinstance(back, Reconnected) and back.watching == [table] and back.resumed == []
    assert keeper.connected and keeper.reconnects == 0
    assert not [m for m in keeper.pending_messages() if isinstance(m, (Disconnected, Error))]


async def test_rate_limited_requests_are_retried(make_server: Any, connect: Any) -> None:
    """RATE_LIMITED raises ServerError with retry_after when retries are off; with the default
    retries the same burst succeeds."""
    app = await make_server(limits=Limits(rate_per_second=20.0, rate_burst=3))
    strict = await connect(app, "strict", rate_limit_retries=0)
    answers = await asyncio.gather(*(strict.ping() for _ in range(4)), return_exceptions=True)
    refused = [a for a in answers if isinstance(a, ServerError)]
    assert refused and all(e.code == "RATE_LIMITED" and e.retry_after and e.retry_after > 0 for e in refused)
    patient = await connect(app, "patient")
    answers = await asyncio.gather(*(patient.ping() for _ in range(4)), return_exceptions=True)
    assert all(isinstance(a, float) for a in answers), answers


async def test_client_as_context_manager_closes(server: App) -> None:
    """``async with`` closes the client; messages() then ends with closed."""
    async with await Client.connect("127.0.0.1", server.port) as c:
        await c.login("ctx", guest=True)
    assert c.closed
    assert [type(m) async for m in c.messages()] == [Closed]


class DropOnce(Recorder):
    """Aborts its own client's socket while choosing its ``at``-th action (then plays on)."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at
        self.client: Client | None = None

    def choose(self, view: dict[str, Any]) -> str:
        action = super().choose(view)
        if self.choices == self.at and self.client is not None and self.client.transport is not None:
            # After the act is written: the request is then in flight when the socket dies.
            asyncio.get_running_loop().call_soon(self.client.transport.abort)
        return action


@pytest.mark.parametrize("mode", MODES)
async def test_a_bot_dropped_mid_game_resumes_its_seat_and_the_game_finishes(
    server: App, connect: Any, mode: str
) -> None:
    """A runner whose socket dies mid-game reconnects, resumes its seat (it receives the
    snapshot with a back event), and both bots finish the game without an illegal action."""
    dropper = DropOnce(at=6)
    _table, runners = await seat_runners(connect, server, [dropper, GreedyBot()], mode=mode, seed=4)
    dropper.client = runners[0].client
    stats = await run_all(runners)
    check_places(stats, 1)
    assert stats[0].reconnects == 1 and runners[0].client.reconnects == 1
    assert {"kind": "back", "seat": 0} in dropper.events
    assert dropper.choices > dropper.at  # it played on after the drop
    assert all(s.illegal == 0 and s.bot_errors == 0 for s in stats)
    assert runners[0].client.seats == {}  # left the table after its game


async def test_one_client_plays_two_tables_with_demultiplexed_runners(server: App, connect: Any) -> None:
    """attach() + run(source=...): one client seated at two tables feeds each table's messages
    to its own runner; both games finish and the stream of each runner ends after its game."""
    shared = await connect(server)
    await shared.login("both", guest=True, bot=True)
    feeds: dict[int, asyncio.Queue[Message | None]] = {}
    shared_runners, others = [], []
    for i in range(2):
        owner = await connect(server)
        await owner.login(f"owner{i}", guest=True, bot=True)
        table = await owner.create_table(f"t{i}", "classic", 2, seed=20 + i)
        seat = (await shared.join(table, 1)).seat
        runner = BotRunner(GreedyBot(), shared, games=1)
        runner.attach(table, seat)
        shared_runners.append(runner)
        feeds[table] = asyncio.Queue()
        opponent = BotRunner(GreedyBot(), owner, games=1, start_games=True)
        await opponent.join(table, 0)
        others.append(opponent)

    async def feed(table: int) -> AsyncIterator[Message]:
        while (msg := await feeds[table].get()) is not None:
            yield msg

    async def demux() -> None:
        async for msg in shared.messages():
            table = getattr(msg, "table", None)  # the table a message is about, if any
            if isinstance(msg, Message) and table in feeds:
                feeds[table].put_nowait(msg)
                if isinstance(msg, GameOver):
                    feeds[table].put_nowait(None)

    reader = asyncio.create_task(demux())
    try:
        async with asyncio.timeout(60):
            stats = await asyncio.gather(
                *(r.run(source=feed(r.table)) for r in shared_runners if r.table), *(r.run() for r in others)
            )
    finally:
        reader.cancel()
    assert [s.games for s in stats] == [1, 1, 1, 1]
    assert all(s.illegal == 0 and s.bot_errors == 0 for s in stats)
    assert {s.table for s in stats[:2]} == set(feeds)


SHITHEAD_BOT = str(Path(sys.executable).with_name("shithead-bot"))


async def test_the_shithead_bot_command_creates_a_table_and_plays(server: App, connect: Any) -> None:
    """``shithead-bot --create`` (JSON lines) opens a table that find_table() discovers; the two
    bots play the game and the command exits 0 with its summary."""
    proc = await asyncio.create_subprocess_exec(
        SHITHEAD_BOT,
        "--bot",
        "greedy",
        "--port",
        str(server.port),
        "--create",
        "--games",
        "1",
        "--json",
        "--name",
        "cli",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        client = await connect(server)
        await client.login("finder", guest=True, bot=True)
        async with asyncio.timeout(30):
            table, seat = await find_table(client, poll_seconds=0.02)
            runner = BotRunner(GreedyBot(), client, games=1)
            runner.attach(table, seat)
            stats, (out, err) = await asyncio.gather(runner.run(), proc.communicate())
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()
    assert stats.games == 1 and stats.table == table and stats.seat in (0, 1)
    assert out.decode().startswith(f"cli: 1 games at table {table}")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def test_ctrl_c_stops_the_command_cleanly(server: App) -> None:
    """SIGINT while the command waits for a table ends it with status 130, without a traceback."""
    proc = await asyncio.create_subprocess_exec(
        SHITHEAD_BOT,
        "--bot",
        "random",
        "--port",
        str(server.port),
        "-vv",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # Ctrl-C in a terminal reaches a process whose SIGINT is the default. A test run started
        # in the background of a non-interactive shell (as a CI job can be) ignores SIGINT, and
        # its children would inherit that: restore the terminal's case, which is the one tested.
        preexec_fn=_default_sigint,
    )
    seen: list[bytes] = []
    try:
        async with asyncio.timeout(30):
            assert proc.stderr is not None
            while not seen or b"no free table yet" not in seen[-1]:
                seen.append(await proc.stderr.readline())
            proc.send_signal(signal.SIGINT)
            while line := await proc.stderr.readline():
                seen.append(line)
            await proc.wait()
    except TimeoutError:
        # (What the command was doing when it did not stop: the evidence for whoever looks.)
        raise AssertionError(
            "shithead-bot did not stop within 30 s; its log:\n" + b"".join(seen[-20:]).decode()
        ) from None
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 130
    err = b"".join(seen)
    assert b"Traceback" not in err and b"stopped" in err


@pytest.mark.parametrize("states", ["turns", "all"])
async def test_the_client_asks_for_turn_states_in_hello(server: App, connect: Any, states: str) -> None:
    """``states="turns"`` goes out in hello (the server's session notes it); the default asks
    for nothing, so that a server that predates the field still accepts the hello."""
    c = await connect(server, "ann", states=states)
    assert c.state_mode == states
    [session] = [s for s in server.sessions if s.name == "ann"]
    assert session.turn_states is (states == "turns")


async def test_bots_on_turn_states_see_every_event_in_a_fraction_of_the_states(server: App, connect: Any) -> None:
    """Four runners whose clients ask for turn states finish a series of two games; each bot is
    given every event a watcher of the table reads (which gets every state), in order, in far
    fewer states."""
    bots = [Recorder(random.Random(i)) for i in range(4)]
    table, runners = await seat_runners(
        connect, server, bots, games=2, seed=3, options={"max_actions": 1500}, states="turns"
    )
    watcher = await connect(server, "watcher")
    await watcher.request(Watch, table=table)
    watched: list[State] = []

    async def watch() -> None:
        async for msg in watcher.messages():
            if isinstance(msg, State):
                watched.append(msg)
            elif isinstance(msg, GameOver) and msg.number == 2:
                return

    watching = asyncio.create_task(watch())
    stats = await run_all(runners)
    check_places(stats, 2)
    async with asyncio.timeout(10):
        await watching
    events = [e for s in watched for e in s.events]
    assert [e["kind"] for e in events].count("game_start") == 2
    for bot in bots:
        assert bot.events == events
        assert bot.choices > 0 and bot.observed < len(watched) / 2


async def test_a_guest_owner_without_a_seat_comes_back_as_the_same_guest(server: App, connect: Any) -> None:
    """The reconnect logs in with the login token: a guest who owns a table but holds no seat
    is its owner again (a login by name alone would be refused: the table holds the name)."""
    c = await connect(server, "Gil")
    table = await c.create_table("t", "classic", 2)
    assert c.transport is not None
    c.transport.abort()
    back = await next_message(c, of_type(Reconnected))
    assert isinstance(back, Reconnected) and c.logged_in is not None and c.logged_in.name == "Gil"
    with pytest.raises(ServerError) as empty:
        await c.start(table)  # the owner's request: past the owner check, the seats are empty
    assert empty.value.code == "NOT_ENOUGH_PLAYERS"
    token = back_token(c)
    await c.logout()
    other = await connect(server)
    with pytest.raises(ServerError) as refused:
        await other.login("Gil", guest=True, login_token=token)
    assert refused.value.code == "AUTH_FAILED"  # logout ended that token


def back_token(c: Client) -> str:
    assert c.logged_in is not None and c.logged_in.token is not None
    return c.logged_in.token
