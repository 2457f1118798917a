"""Acceptance test of durability: the real server, stopped in the middle of eight table games and
a tournament (``kill -9``, or SIGTERM), started again on the same database, loses nothing it
acknowledged, and every game goes on to an end that its stored record replays exactly.

The scenario is in :mod:`tests.durability.scenario`, the record checks in
:mod:`tests.durability.checks`. What is checked, for both ways of stopping:

* the server comes back on the same port and file, every client of the test reconnects and
  takes back its seat (or its watch) by itself, and every clock that asks a resumed seat to act
  shows more than a whole ``action_seconds``: what was left plus the restart grace;
* each table game was killed mid-way (actions acknowledged before and after the stop), its
  record replays to its stored outcome, every acknowledged action is in the record at the
  position its seq gives, every state a client saw (before and after the stop) is the
  engine's state of the record at that seq, and each applied action made exactly one seq;
* the tournament finished every game exactly once: every game id dealt has a stored record
  (no game was lost or dealt again from the start), one record per game number, the
  standings count each game once; the organiser got one ``tournament_game`` per game number,
  about that record, except for games that ended while it was away (the server pushes only
  to connected organisers), and none twice;
* table 0's next game of the series, dealt after the restart, plays to a replayable end;
* SIGTERM: every client got ``going_away`` (``returning: true``) before its connection closed,
  and the server exited with status 0; SIGKILL: no goodbye, the connections just dropped.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from client.sdk import ServerError
from client.sdk.events import Reconnected
from protocol.errors import ErrorCode
from protocol.messages import GameOver, GoingAway
from tests.durability.checks import (
    check_acked,
    check_complete,
    check_replay,
    check_states,
    resumed_clock,
    states_seen,
    tournament_number,
)
from tests.durability.harness import RecordingClient
from tests.durability.scenario import (
    ACTION_SECONDS,
    CLOCK_TABLE,
    RESTART_GRACE,
    TOURNAMENT_BOTS,
    TOURNAMENT_GAMES,
    TOURNAMENT_NAME,
    Scenario,
    TableRun,
    get_tournament,
)
from tests.live_server import LiveServer

IN_FLIGHT = 1.0
"""Seconds before the stop in which a game may end without its push getting out (the process
died between the commit and the send)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """The server process of one test (not started yet); killed at the end whatever happened.
    Its database is tmp_path/"server.sqlite3", its stderr goes to tmp_path/"server.stderr"."""
    options = ["--action-seconds", f"{ACTION_SECONDS:g}", "--restart-grace", f"{RESTART_GRACE:g}"]
    process = LiveServer(tmp_path / "server.sqlite3", tmp_path / "server.stderr", options)
    try:
        yield process
    finally:
        if process.running:
            process.kill()


@contextlib.asynccontextmanager
async def played(server: LiveServer, sig: signal.Signals) -> AsyncIterator[Scenario]:
    """The whole scenario with a stop by ``sig`` in the middle, played to the end; the clients
    stay connected for the checks and are closed afterwards."""
    scenario = Scenario(server)
    try:
        await scenario.open()
        await scenario.play_until_mid_game()
        await scenario.stop_and_restart(sig)
        await scenario.finish()
        yield scenario
    finally:
        await scenario.close()


async def test_kill_9_loses_nothing_acknowledged(server: LiveServer) -> None:
    async with played(server, signal.SIGKILL) as scenario:
        assert scenario.exit_status == -signal.SIGKILL
        for c in scenario.clients:
            assert not [m for m in c.before_drop() if isinstance(m, GoingAway)], f"{c.name}: a goodbye after a crash"
        await check_everything(scenario)


async def test_sigterm_says_going_away_and_exits_0(server: LiveServer) -> None:
    async with played(server, signal.SIGTERM) as scenario:
        assert scenario.exit_status == 0, server.stderr()
        for c in scenario.clients:
            seen = c.before_drop()
            goodbyes = [m for m in seen if isinstance(m, GoingAway)]
            assert len(goodbyes) == 1 and goodbyes[0].returning is True, (c.name, goodbyes)
            assert seen[-1] is goodbyes[0], f"{c.name}: the server sent {seen[-1]} after going_away"
        await check_everything(scenario)


# ---------------------------------------------------------------------- the checks


async def check_everything(scenario: Scenario) -> None:
    check_reconnected(scenario)
    check_clocks(scenario)
    for run in scenario.tables:
        await check_table(run)
    await check_tournament(scenario)


def check_reconnected(scenario: Scenario) -> None:
    """Every client got its connection back once, with its seat (players, by token) or its
    watch (spectators) and nothing refused."""
    for run in scenario.tables:
        for seat, player in enumerate(run.players):
            (back,) = reconnections(player)
            assert back.resumed == [{"table": run.table, "seat": seat}] and not back.lost, (player.name, back)
        (back,) = reconnections(run.spectator)
        assert back.watching == [run.table] and not back.lost, (run.spectator.name, back)
    assert scenario.tournament is not None
    (back,) = reconnections(scenario.tournament.organiser)
    assert not back.lost, back


def reconnections(client: RecordingClient) -> list[Reconnected]:
    return [m for m in client.stream if isinstance(m, Reconnected)]


def check_clocks(scenario: Scenario) -> None:
    """A seat whose turn began before the stop has, when it resumes, what was left of its clock
    plus the restart grace: more than ``action_seconds`` (no bank), which no clock has without
    the grace, and at most both."""
    deadlines = []
    for run in scenario.tables:
        for player in run.players:
            deadline = resumed_clock(states_seen(player.stream, run.table))
            if deadline is not None:
                assert ACTION_SECONDS < deadline <= ACTION_SECONDS + RESTART_GRACE, (player.name, deadline)
                deadlines.append((run.index, deadline))
    # The held table's seat to act (see Scenario.play_until_mid_game) is always among them.
    assert CLOCK_TABLE in {index for index, _ in deadlines}, f"the clock table did not resume mid-turn: {deadlines}"


async def check_table(run: TableRun) -> None:
    """Each game of the table against its stored record (see the module docstring)."""
    reader = run.spectator
    assert len(run.ended) == run.spec.games, run.ended
    spectator = states_seen(reader.stream, run.table)
    acked = run.acked()
    for number, game in enumerate(run.ended):
        stored = await reader.get_record(game)
        record = check_replay(stored)
        start = check_states(spectator, record, game, None)
        check_complete(spectator, record, game, start)
        for seat, player in enumerate(run.players):
            check_states(states_seen(player.stream, run.table), record, game, seat)
        check_acked(acked, stored, game, start)
        over = [m for m in reader.stream if isinstance(m, GameOver) and m.game == game]
        assert all(m.result["places"] == list(record.outcome.places) for m in over)  # type: ignore[union-attr]
        if number == 0:  # the game the stop came in the middle of
            mine = [a for a in acked if a.game == game]
            assert any(not a.after_restart for a in mine) and any(a.after_restart for a in mine), (
                f"table {run.table}: not stopped mid-game"
            )
            assert any(s.before_drop for s in spectator if s.game == game)


async def check_tournament(scenario: Scenario) -> None:
    """Every game played and counted exactly once; see the module docstring."""
    tournament = scenario.tournament
    assert tournament is not None and scenario.probe_game is not None
    reader = tournament.organiser
    info = await get_tournament(reader, tournament.id)
    assert tournament.reading.result()["status"] == info["status"] == "finished"
    assert info["games_total"] == info["games_finished"] == TOURNAMENT_GAMES and info["tables"] == []
    rows = info["standings"]
    assert len(rows) == len(TOURNAMENT_BOTS) and all(r["games"] == TOURNAMENT_GAMES for r in rows), rows
    assert sum(r["firsts"] for r in rows) == TOURNAMENT_GAMES

    records, missing = await stored_games(reader, scenario.probe_game)
    assert not missing, f"games {missing} were dealt and never finished (lost, or played again from the start)"
    by_number: dict[int, list[dict[str, Any]]] = {}
    for stored in records:
        number = tournament_number(stored["table_name"], TOURNAMENT_NAME)
        if number is not None:
            check_replay(stored)
            by_number.setdefault(number, []).append(stored)
    assert sorted(by_number) == list(range(TOURNAMENT_GAMES)), sorted(by_number)
    for number, found in by_number.items():
        assert len(found) == 1, f"game {number} was stored {len(found)} times: {[s['id'] for s in found]}"

    pushes = tournament.results()
    numbers = [r["number"] for r in pushes]
    assert len(numbers) == len(set(numbers)), f"a game was reported twice: {sorted(numbers)}"
    assert tournament.results(reader.before_drop()), "no tournament game was reported before the stop"
    for r in pushes:
        (stored,) = by_number[r["number"]]
        assert r["server_game"] == stored["id"] and r["places"] == stored["result"]["places"], (r, stored["id"])
    (back_at,) = tournament.back_at
    for number in set(range(TOURNAMENT_GAMES)) - set(numbers):
        (stored,) = by_number[number]
        assert scenario.stopped_at - IN_FLIGHT <= stored["ended"] <= back_at, (
            f"game {number} ended at {stored['ended']}, not while the organiser was away "
            f"({scenario.stopped_at} to {back_at}), and was not reported"
        )


async def stored_games(reader: RecordingClient, below: int) -> tuple[list[dict[str, Any]], list[int]]:
    """The stored records of every game id below ``below`` (the first id dealt after every
    other game of the scenario ended), and the ids that have none. Ids are handed out one by
    one as games are dealt, so in this scenario, where every game dealt is played to its end,
    an id without a record is a game that was lost."""
    found, missing = [], []
    for game in range(1, below):
        try:
            found.append(await reader.get_record(game))
        except ServerError as exc:
            assert exc.code == ErrorCode.UNKNOWN_GAME, exc
            missing.append(game)
    return found, missing
