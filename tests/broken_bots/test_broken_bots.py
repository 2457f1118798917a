"""The broken bots kit: tournaments survive bots that crash, hang, send garbage, send illegal
actions, answer stale states, disconnect and flood.

Each test runs ``shithead-tournament``'s organiser (a real server child process) with one
broken program (``tests/broken_bots/brokenbot.py``, a stranger's JSON-lines bot) against a
bundled greedy bot, and checks: every game finishes; the fault is counted where the standings
count it (timeouts, illegal actions, disconnects; crashes in ``standings.json``); the greedy
bot's games are untouched (no fault of its own); and where the clock played for the broken
seat, it played the documented default action (the engine's greedy policy) every time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from client.record_files import SUFFIX as RECORD_SUFFIX
from client.record_files import load_record
from client.tournament.organiser import Entrant, Plan, Progress, run
from client.tournament.results import read_results
from server.engine import ReplayRecord
from server.engine.policies import greedy_policy
from tests.broken_bots import BROKEN

QUIET = Progress(lambda done, total: None, lambda text: None)
FLAGS = "--host {host} --port {port} --tournament {tournament} --name {name} --password {password}"
GAMES = 2


async def tournament(tmp_path: Path, fault: str, *, seconds: float = 0.5) -> tuple[dict[str, Any], Path]:
    """A two-seat tournament (one deal, both rotations) of the broken bot against greedy; the
    broken bot's standings row, and the output directory. ``seconds``: the action clock, short
    so that a hanging bot's moves pass quickly, long enough that greedy never runs out of it
    (at 0.3 s greedy timed out once while a compiled build ran beside the suite, load 12)."""
    once = tmp_path / "crashed-once"
    command = f"{sys.executable} {BROKEN} --fault {fault} --once {once} {FLAGS}"
    plan = Plan(
        [Entrant("broken", "engine", command=command), Entrant("greedy", "bundled", bot="greedy")],
        seats=2,
        games=GAMES,
        master_seed=11,
        action_seconds=seconds,
        concurrency=1,
    )
    out = tmp_path / fault
    figures = await run(plan, out, server=None, progress=QUIET)
    assert figures.games == GAMES  # the tournament survived: every game finished
    rows = {r.name: r.to_dict() for r in figures.rows()}
    assert (rows["greedy"]["timeouts"], rows["greedy"]["illegal"], rows["greedy"]["disconnects"]) == (0, 0, 0)
    return rows["broken"], out


def default_actions_only(out: Path) -> int:
    """Check that every action of the broken seat in every record is the greedy policy's choice
    at that point (what the clock plays); return how many there were."""
    checked = 0
    for result in read_results(out / "results.csv"):
        stored = load_record(out / "records" / f"{result.number}{RECORD_SUFFIX}")
        seat = list(result.seats).index("broken")
        record = ReplayRecord.from_dict(stored["record"])
        game = record.replay(0)
        for who, action in record.actions:
            if who == seat:
                assert action == greedy_policy(game, seat), f"game {result.number}: {action} is not the default"
                checked += 1
            game.apply(who, action)
    return checked


def faults_printed(out: Path) -> dict[str, int]:
    """The error codes the broken bot was answered with (its last line of output)."""
    lines = [ln for ln in (out / "broken.log").read_text().splitlines() if ln.startswith("faults: ")]
    return dict(json.loads(lines[-1].removeprefix("faults: ")))


async def test_the_control_bot_makes_no_fault(tmp_path: Path) -> None:
    """The kit's bot with no fault plays clean games: what the other tests count is the fault."""
    row, out = await tournament(tmp_path, "none")
    assert (row["timeouts"], row["illegal"], row["disconnects"]) == (0, 0, 0)
    # It answers every state that asks it to act, so now and then one a newer state has
    # replaced (normal, PROTOCOL.md): nothing else is refused.
    assert set(faults_printed(out)) <= {"STALE_SEQ"}


async def test_a_crashing_bot_is_restarted_and_its_crash_counted(tmp_path: Path) -> None:
    row, out = await tournament(tmp_path, "crash")
    standings = json.loads((out / "standings.json").read_text())
    assert standings["crashes"] == {"broken": 1}
    assert row["disconnects"] >= 1
    assert "RuntimeError: brokenbot: crashing on purpose" in (out / "broken.log").read_text()


@pytest.mark.parametrize("fault", ["hang", "stale"])
async def test_the_clock_plays_the_default_action_for_a_bot_that_does_not_answer(tmp_path: Path, fault: str) -> None:
    """A bot that stops reading, or answers only states already replaced: every one of its
    moves is a timeout, played by the clock with the greedy policy."""
    row, out = await tournament(tmp_path, fault)
    assert row["timeouts"] > 0 and row["illegal"] == 0
    assert default_actions_only(out) > 0
    if fault == "stale":
        assert faults_printed(out).get("STALE_SEQ", 0) > 0


async def test_illegal_actions_are_refused_and_counted(tmp_path: Path) -> None:
    row, out = await tournament(tmp_path, "illegal")
    refused = faults_printed(out)["ILLEGAL_ACTION"]
    assert row["illegal"] == refused > 0
    assert row["timeouts"] == 0  # each refusal was followed by a legal action in time


@pytest.mark.parametrize("fault", ["garbage", "disconnect"])
async def test_a_bot_that_drops_its_connection_comes_back_and_each_drop_is_counted(tmp_path: Path, fault: str) -> None:
    """Garbage on the wire ends the connection (fatal BAD_FRAME); a bot that closes it does the
    same. Either way it registers again and takes its seat back, once per game."""
    row, out = await tournament(tmp_path, fault, seconds=5.0)
    assert row["disconnects"] == GAMES
    if fault == "garbage":
        assert faults_printed(out).get("BAD_FRAME") == GAMES


async def test_a_flood_is_rate_limited_and_the_game_goes_on(tmp_path: Path) -> None:
    """1,000 pings at once: those beyond the burst are refused with RATE_LIMITED; the flooder
    keeps its seat (no disconnect) and the games finish."""
    row, out = await tournament(tmp_path, "flood", seconds=5.0)
    assert faults_printed(out).get("RATE_LIMITED", 0) > 0
    assert row["disconnects"] == 0 and row["illegal"] == 0
