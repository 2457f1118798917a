"""The restart scenario: eight tables of bots and a tournament on a real server, stopped in the
middle of their games (SIGKILL or SIGTERM), started again on the same database, played to the
end; everything the clients saw is kept for the checks (:mod:`tests.durability.checks`).

At each table, the test process runs one SDK client per seat of its own (a bundled bot played
by :class:`~client.hosting.bot_runner.BotRunner`) and one spectator; the server runs the other seats
(``add_bot``) and the tournament's bots. Table 0 plays two games: the second is started only
once everything else is over, so that its game id is the first one the server hands out after
every other game (the tournament check counts the records below it).
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from client.bots import make_bot
from client.hosting.bot_runner import BotRunner, RunStats
from client.sdk import ServerError
from client.sdk.events import Closed, Disconnected, Item, Reconnected
from protocol.messages import (
    CreateTournament,
    GameOver,
    GetTournament,
    StartTournament,
    State,
    TournamentCreated,
    TournamentGame,
    TournamentInfo,
    TournamentOver,
)
from protocol.payloads import TournamentGameResult
from tests.durability.harness import Acked, Changes, Pace, RecordingClient, connect
from tests.live_server import LiveServer

T = TypeVar("T")

ACTION_SECONDS = 10.0
"""Every clock (tables and tournament): long enough that no seat times out in a normal run."""
RESTART_GRACE = 20.0
"""Seconds added to every clock at a restart: more than ACTION_SECONDS, so that a clock
showing more than ACTION_SECONDS after the restart can only have got the grace."""
HOLD_AT = 6
"""Actions acknowledged at each table before its seats wait for the kill."""
PHASE_SECONDS = 60.0
"""Safety net for each phase of the scenario (a hung server fails the test, not the suite)."""
REGISTRATION_POLL = 0.02
"""Pause between two questions whether the tournament's bots have registered."""


@dataclass(frozen=True)
class TableSpec:
    """A table: its preset, the bundled bots the test runs at seats 0, 1, ... (one SDK client
    each), the bundled bots the server runs at the seats after them, and the games to play.
    At most one ``random`` per table: two random players can pass a pile back and forth for
    thousands of actions."""

    preset: str
    players: tuple[str, ...]
    house: tuple[str, ...] = ()
    games: int = 1

    @property
    def seats(self) -> int:
        return len(self.players) + len(self.house)


TABLES = (
    TableSpec("classic", ("greedy", "random", "greedy"), house=("greedy",), games=2),
    TableSpec("classic", ("greedy", "greedy")),
    TableSpec("six_players", ("greedy", "greedy", "random", "greedy"), house=("greedy", "greedy")),
    TableSpec("karma", ("greedy", "random", "greedy")),
    TableSpec("linz", ("greedy", "greedy", "greedy"), house=("random",)),
    TableSpec("west_kent", ("random", "greedy"), house=("greedy",)),
    TableSpec("finnish", ("greedy", "greedy", "greedy")),
    TableSpec("wikibooks", ("greedy",), house=("greedy",)),
)

CLOCK_TABLE = 1
"""The table that stays held through the stop: its seat to act has its state and is thinking
when the server stops, so that the clock check (a resumed clock has what was left of it plus
the grace) always has a seat to look at; at the other tables the stop lands wherever it
lands. Its seats are all the test's (no server bot plays on while they hold)."""

TOURNAMENT_NAME = "durability cup"
TOURNAMENT_BOTS = ["greedy", "random", "greedy", "greedy"]
"""One random player only: with two, a game of four lasts some 1500 actions instead of 130."""
TOURNAMENT_GAMES = 16
"""Four deals of four rotations (seats 4): the schedule's total. Enough that the house bots, which
play freely, are still at it when the test's tables reach the stop however loaded the machine
(with 8, a run on 4 test workers saw the tournament finish first)."""
TOURNAMENT_CONCURRENCY = 2


@dataclass
class TableRun:
    """One table of the scenario: its clients, their tasks, and what they logged."""

    index: int
    spec: TableSpec
    table: int
    players: list[RecordingClient]
    spectator: RecordingClient
    pace: Pace
    bots: list[BotRunner] = field(default_factory=list)
    """The players' runners: they play every game dealt and never leave (a table left by its
    players would close before a late spectator could see how its game ended)."""
    runners: list[asyncio.Task[RunStats]] = field(default_factory=list)
    watching: asyncio.Task[None] | None = None
    ended: list[int] = field(default_factory=list)
    """Game ids whose end the spectator has seen, in order."""

    @property
    def owner(self) -> RecordingClient:
        return self.players[0]

    @property
    def tasks(self) -> list[asyncio.Task[Any]]:
        return [*self.runners, *([self.watching] if self.watching else [])]

    def acked(self) -> list[Acked]:
        """Every acknowledged action of the test's seats at this table, per seat in order."""
        return [a for p in self.players for a in p.acked]


@dataclass
class TournamentRun:
    """The tournament: its organiser's client and reading task."""

    id: int
    organiser: RecordingClient
    reading: asyncio.Task[dict[str, Any]]
    back_at: list[float]
    """Unix times at which the organiser's reader saw it reconnected."""

    def results(self, stream: Iterable[Item] | None = None) -> list[TournamentGameResult]:
        """The ``result`` of every ``tournament_game`` push in ``stream`` (the organiser's log)."""
        items = self.organiser.stream if stream is None else stream
        return [m.result for m in items if isinstance(m, TournamentGame) and m.tournament == self.id]


def ended_at(item: Item, table: int, fresh: bool) -> int | None:
    """The game id whose end ``item`` shows at ``table``, if it does: a ``game_over``, or, for a
    watcher whose connection came back after the game ended (``fresh``: the first state since),
    the snapshot of a finished game (the watcher is not sent that game's ``game_over`` again)."""
    if isinstance(item, GameOver) and item.table == table:
        return item.game
    if isinstance(item, State) and item.table == table and fresh and item.view["phase"] == "over":
        return item.game
    return None


async def spectate(client: RecordingClient, table: int, games: int, ended: list[int]) -> None:
    """Read the watched table's messages (the client logs them) until ``games`` games ended;
    their ids are appended to ``ended``. After a drop it reads on to the ``Reconnected`` (which
    the SDK may queue after the first messages of the new connection, see :func:`organise`),
    so that the log holds the reconnection the checks look for."""
    fresh = False
    dropped = False
    async for item in client.messages():
        if isinstance(item, Closed):
            raise AssertionError(f"spectator of table {table}: the client closed: {item.reason}")
        game = ended_at(item, table, fresh)
        if game is not None and game not in ended:
            ended.append(game)
        if isinstance(item, Disconnected):
            fresh = dropped = True
        elif isinstance(item, Reconnected):
            dropped = False
        elif isinstance(item, State) and item.table == table:
            fresh = False
        if len(ended) >= games and not dropped:
            return


async def get_tournament(client: RecordingClient, tid: int) -> dict[str, Any]:
    answer = await client.request(GetTournament, tournament=tid)
    assert isinstance(answer, TournamentInfo), answer
    return dict(answer.info)


async def organise(client: RecordingClient, tid: int, back_at: list[float]) -> dict[str, Any]:
    """Read the organiser's messages (the client logs them) until the tournament is over;
    returns its final info. The server pushes ``tournament_game`` and ``tournament_over`` only
    to connections open at that moment, so each reconnect's time is noted in ``back_at``, and
    the organiser then asks whether the tournament ended meanwhile.

    The log must show the reconnect: the SDK puts ``reconnected`` in the stream once its login
    (and resumes) are answered, and a push the server sends right after the login (the last
    game ending just then) can come before it. So a ``tournament_over`` read between a
    ``disconnected`` and its ``reconnected`` ends the reading only at that ``reconnected``."""
    over: dict[str, Any] | None = None
    away = False
    async for item in client.messages():
        if isinstance(item, Closed):
            raise AssertionError(f"organiser: the client closed: {item.reason}")
        if isinstance(item, Disconnected):
            away = True
        elif isinstance(item, TournamentOver) and item.tournament == tid:
            over = dict(item.info)
        elif isinstance(item, Reconnected):
            away = False
            back_at.append(time.time())
            if over is None:
                try:
                    info = await get_tournament(client, tid)
                except ServerError as exc:
                    raise AssertionError(f"organiser: the tournament is not there after the restart: {exc}") from None
                if info["status"] == "finished":
                    over = info
        if over is not None and not away:
            return over
    raise AssertionError("organiser: the messages ended")


class Scenario:
    """Eight tables and a tournament on ``server``; see the module docstring. Call
    :meth:`open`, :meth:`play_until_mid_game`, :meth:`stop_and_restart`, :meth:`finish`, and
    :meth:`close` in a ``finally``."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.changes = Changes()
        self.clients: list[RecordingClient] = []
        self.tables: list[TableRun] = []
        self.tournament: TournamentRun | None = None
        self.exit_status: int | None = None
        """The stopped server's exit status."""
        self.stopped_at = 0.0
        """Unix time just before the stop signal was sent."""
        self.probe_game: int | None = None
        """The id of table 0's second game: every other game of the scenario has a smaller one."""

    # ------------------------------------------------------------------ setting up

    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """A task whose end counts as a change (for :meth:`wait`)."""
        task = asyncio.create_task(coro, name=name)
        task.add_done_callback(lambda _: self.changes.fire())
        return task

    async def client(self, name: str, *, bot: bool = True) -> RecordingClient:
        c = await connect(self.server.port, name, self.changes, bot=bot)
        self.clients.append(c)
        return c

    async def open(self) -> None:
        """Start the server, the tournament and the tables' first games."""
        await asyncio.to_thread(self.server.start)
        self.tournament = await self.open_tournament()
        self.tables = list(await asyncio.gather(*(self.open_table(i, spec) for i, spec in enumerate(TABLES))))

    async def open_tournament(self) -> TournamentRun:
        organiser = await self.client("organiser", bot=False)
        created = await organiser.request(
            CreateTournament,
            name=TOURNAMENT_NAME,
            preset="classic",
            seats=4,
            games=TOURNAMENT_GAMES,
            concurrency=TOURNAMENT_CONCURRENCY,
            master_seed=20261125,
            action_seconds=ACTION_SECONDS,
            bots=TOURNAMENT_BOTS,
        )
        assert isinstance(created, TournamentCreated), created
        tid = created.tournament
        await self.start_when_registered(organiser, tid)
        back_at: list[float] = []
        return TournamentRun(tid, organiser, self.spawn(organise(organiser, tid, back_at), "organiser"), back_at)

    @staticmethod
    async def start_when_registered(organiser: RecordingClient, tid: int) -> None:
        """``start_tournament`` once the server's bots have registered. Nothing is pushed when a
        participant registers, so this polls ``get_tournament`` (a short pause between asks keeps
        it under the rate limit) until every bot is listed, then starts."""
        participants: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(PHASE_SECONDS):
                while len(participants) < len(TOURNAMENT_BOTS):
                    if participants:
                        await asyncio.sleep(REGISTRATION_POLL)
                    participants = (await get_tournament(organiser, tid))["participants"]
        except TimeoutError:
            raise AssertionError(f"the tournament's bots did not register: {participants}") from None
        await organiser.request(StartTournament, tournament=tid)

    async def open_table(self, index: int, spec: TableSpec) -> TableRun:
        """Create the table, seat the test's clients and the server's bots, add the spectator,
        start the players' runners and deal the first game."""
        players = [await self.client(f"t{index}-{bot}{seat}") for seat, bot in enumerate(spec.players)]
        table = await players[0].create_table(f"durability {index}", spec.preset, spec.seats)
        for seat, c in enumerate(players):
            await c.join(table, seat)
        for seat, bot in enumerate(spec.house, start=len(players)):
            await players[0].add_bot(table, bot, seat)
        spectator = await self.client(f"t{index}-watcher", bot=False)
        await spectator.watch(table)
        run = TableRun(index, spec, table, players, spectator, Pace(HOLD_AT))
        for seat, (c, bot) in enumerate(zip(players, spec.players, strict=True)):
            c.pace = run.pace
            runner = BotRunner(make_bot(bot, random.Random(f"{index}:{seat}")), c, games=None)
            runner.attach(table, seat)
            run.bots.append(runner)
            run.runners.append(self.spawn(runner.run(), f"table {table} seat {seat}"))
        run.watching = self.spawn(spectate(spectator, table, spec.games, run.ended), f"watcher of table {table}")
        await run.owner.start(table)
        return run

    # ------------------------------------------------------------------ the stop

    async def wait(self, condition: Callable[[], bool], what: str) -> None:
        """Wait until ``condition()`` holds; fail with ``what`` and the progress so far after
        :data:`PHASE_SECONDS`, or as soon as a client's task failed."""
        try:
            async with asyncio.timeout(PHASE_SECONDS):
                await self.changes.until(lambda: condition() or bool(self.failures()))
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}: {self.progress()}") from None
        for task, why in self.failures():
            exc = None if task.cancelled() else task.exception()
            raise AssertionError(f"{task.get_name()} failed while waiting for {what}: {why}") from exc
        assert condition(), what

    def failures(self) -> list[tuple[asyncio.Task[Any], str]]:
        """Tasks that ended badly: with an exception, or a runner that stopped playing (they
        play on for ever unless their seat is lost or their client closes)."""
        out = []
        for task in self.all_tasks():
            if task.done() and (task.cancelled() or task.exception() is not None):
                out.append((task, "cancelled" if task.cancelled() else repr(task.exception())))
        for run in self.tables:
            for task, bot in zip(run.runners, run.bots, strict=True):
                if task.done() and not task.cancelled() and task.exception() is None:
                    out.append((task, f"the runner stopped: {bot.stats.end_reason}"))
        return out

    def all_tasks(self) -> list[asyncio.Task[Any]]:
        tasks = [t for run in self.tables for t in run.tasks]
        return tasks + ([self.tournament.reading] if self.tournament else [])

    def progress(self) -> str:
        tables = ", ".join(f"table {r.table}: {r.pace.acked} acked, ended {r.ended}" for r in self.tables)
        games = len(self.tournament.results()) if self.tournament else 0
        running = [t.get_name() for t in self.all_tasks() if not t.done()]
        return (
            f"{tables}; tournament games reported: {games}; still running: {running}; "
            f"server stderr:\n{self.server.stderr()[-3000:]}"
        )

    async def play_until_mid_game(self) -> None:
        """Every table plays until HOLD_AT actions were acknowledged and waits there until the
        tournament has finished a game; then all but the CLOCK_TABLE play on, and once each of
        them has had two more actions acknowledged (so actions are in flight everywhere), the
        CLOCK_TABLE's seat to act has its state in hand, and the tournament still has games
        running, this returns: the caller stops the server right away."""
        assert self.tournament is not None
        tournament = self.tournament
        await self.wait(
            lambda: all(r.pace.holding for r in self.tables) and len(tournament.results()) >= 1,
            "every table to hold and a tournament game to finish",
        )
        held = self.tables[CLOCK_TABLE]
        assert not held.spec.house, "the clock table must not have server bots, which play on"
        free = [r for r in self.tables if r is not held]
        marks = [r.pace.acked for r in free]
        for r in free:
            r.pace.release()

        def thinking() -> bool:
            """A seat of the held table has the state that asks it to act and has not acted on
            it (nothing moves there any more, so it is the last state before the stop)."""
            for p in held.players:
                st = p.states.get(held.table)
                if st is not None and st.view.get("legal") and all(a.answered != st.seq for a in p.acked):
                    return True
            return False

        await self.wait(
            lambda: all(r.pace.acked >= m + 2 for r, m in zip(free, marks, strict=True)) and thinking(),
            "two more acknowledged actions at every other table, and the held table's seat to act thinking",
        )
        assert all(not r.ended for r in self.tables), "a table's game ended before the stop"
        info = await get_tournament(tournament.organiser, tournament.id)
        assert info["games_finished"] >= 1 and info["tables"], f"the tournament is not mid-way: {info}"

    async def stop_and_restart(self, sig: signal.Signals) -> None:
        """Stop the server with ``sig`` at once (no await before the signal is sent) and start
        it again on the same database and port; the clients reconnect by themselves."""
        self.stopped_at = time.time()
        self.server.send_signal(sig)
        self.exit_status = await asyncio.to_thread(self.server.wait)
        await asyncio.to_thread(self.server.start)
        self.tables[CLOCK_TABLE].pace.release()

    # ------------------------------------------------------------------ the end

    async def finish(self) -> None:
        """Play everything to the end: the tables' games and the tournament, then table 0's
        second game (see the module docstring)."""
        assert self.tournament is not None
        tournament = self.tournament
        first = self.tables[0]
        await self.wait(
            lambda: all(len(r.ended) >= 1 for r in self.tables) and tournament.reading.done(),
            "every game and the tournament to end",
        )
        # The premise: the stop came while the tournament was running (play_until_mid_game saw
        # it running just before the signal). Its end before the drop would leave the
        # tournament's half of the scenario untested: say so, rather than fail a later check.
        early = [m for m in tournament.organiser.before_drop() if isinstance(m, TournamentOver)]
        assert not early, f"the tournament ended before the server was stopped: {early}"
        await first.owner.start(first.table)
        await self.wait(lambda: all(len(r.ended) == r.spec.games for r in self.tables), "table 0's second game to end")
        for run in self.tables:
            for bot in run.bots:
                assert bot.stats.illegal == 0 and bot.stats.bot_errors == 0, (run.table, bot.stats)
        self.probe_game = first.ended[1]

    async def close(self) -> None:
        """Cancel whatever still runs and close every client (the server is the fixture's)."""
        for task in self.all_tasks():
            task.cancel()
        await asyncio.gather(*self.all_tasks(), return_exceptions=True)
        for c in self.clients:
            await c.close()
