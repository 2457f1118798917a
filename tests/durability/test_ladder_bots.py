"""Issue 34's ladder acceptance test: the real server (a child process) and four ladder bots of
different strength as outside processes (``shithead-bot --ladder``), with a SIGKILL of the server
and a restart in the middle.

The server runs with ``ladder_baselines = []`` (its own bundled bots stay out, so the four
processes play only each other: their ratings compare them directly and the server's own
searching bots take no CPU) and ``ladder_tables = 1``: one 2-player classic match at a time, so
every match is picked from all four bots. (With two tables, random and greedy, whose games take
a fraction of a second, played each other a hundred times while search and ismcts played their
first seven games: the ladder pairs whoever is idle.) The searching bots think :data:`BUDGET`
seconds a decision. An observer follows the lobby (``watch_lobby``: the ladder opens and closes
a table per game, and every change is pushed) and after each push reads the standings and each
bot's recent games, so the test waits on finished games, never on a clock.

What it checks:

* **Order.** STRENGTH.md orders the bots random < greedy < search < ismcts (1v3 against greedy
  at 0.1 s). Here, at :data:`BUDGET` and after :data:`GAMES` games, ``random`` is last and its
  95 % interval lies wholly below every other bot's (measured: about 0 ± 9 against 30 ± 9 and
  more); and no bot is *confidently* out of that order: a bot STRENGTH.md ranks higher never has
  its whole 95 % interval below a weaker bot's. That is all two minutes can separate. Runs of
  2026-11-28 (shared 2-core machine):

  ====================  =========  ==========  ==========  ==========  =====
  games (wall)          random     greedy      search      ismcts      note
  ====================  =========  ==========  ==========  ==========  =====
  110 (~170 s)          -1.3 ± 9.2 30.3 ± 8.6  34.4 ± 9.3  35.5 ± 9.1  two loops then
  111 (~170 s)          -1.9 ± 9.2 30.5 ± 8.9  35.7 ± 8.6  31.6 ± 9.0  two loops then
  91 (131 s)            -0.4 ± 9.6 30.2 ± 9.0  31.1 ± 9.1  37.8 ± 9.3
  92 (136 s)            -1.8 ± 9.4 29.0 ± 8.8  34.1 ± 9.1  36.1 ± 9.3  final code
  90 (172 s)            -0.5 ± 9.6 33.9 ± 9.0  31.5 ± 9.2  34.4 ± 9.3  CI, 4 workers
  ====================  =========  ==========  ==========  ==========  =====

  So greedy's interval overlaps the searchers', greedy came out above search (the CI run, which
  failed an earlier version of this test asserting greedy below the searchers' mean) and search
  and ismcts came out in either order (STRENGTH.md needed 1,000 games at 0.1 s to separate
  those two by a quarter of a place). Their order within the intervals is not asserted; the
  test prints what it measured (``-s``).
* **Intervals shrink**: every bot's 95 % interval at the end is narrower than after
  :data:`EARLY` games.
* **No hidden card before the end**: while a ladder game runs, ``get_record`` and
  ``get_replay`` of its id are refused with ``UNKNOWN_GAME``; a spectator of its table gets
  states with no hand (``hand`` null, ``seat`` null); every game ``ladder_history`` lists has
  its record readable already (it is over), with the places the history gives; the standings
  and histories carry no card at all.
* **kill -9 loses no finished ladder game**: after :data:`BEFORE_KILL` games the server is
  SIGKILLed while ladder games run; after the restart every game id the server had reported
  finished (in any ``ladder_history`` answer) is still there, with the same places, in
  ``get_record`` and in the ``ladder_games`` rows of the database; no bot's game count went
  down; the bots reconnected by themselves and the ladder went on.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.sdk import Client, ServerError
from protocol.errors import ErrorCode
from protocol.messages import (
    GetLadder,
    GetRecord,
    GetReplay,
    LadderGames,
    LadderHistory,
    LadderStandings,
    LobbyUpdate,
    State,
    WatchLobby,
    encode_message,
)
from protocol.payloads import LadderRow
from tests.live_server import HOST, LiveServer

BOTS = ("random", "greedy", "search", "ismcts")
BUDGET = 0.02
"""Seconds a decision for search and ismcts (their default is 0.1)."""
EARLY = 10
"""Ladder games after which the intervals are first read."""
BEFORE_KILL = 30
"""Ladder games finished before the SIGKILL."""
GAMES = 90
"""Ladder games finished in all (before and after the restart) before the ratings are checked."""
SAFETY = 240.0
"""Against a hang only (the run takes well under this)."""
CARD = re.compile(r"^(?:[2-9TJQKA][cdhs]|X[12]?)$")


def ladder_name(kind: str) -> str:
    return f"lad-{kind}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    config = tmp_path / "server.toml"
    config.write_text("ladder_baselines = []\n[limits]\nladder_tables = 1\n", encoding="utf-8")
    process = LiveServer(tmp_path / "server.sqlite3", tmp_path / "server.stderr", ["--config", str(config)])
    try:
        yield process
    finally:
        if process.running:
            process.kill()


@pytest.fixture
def bots(server: LiveServer, tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """The four ``shithead-bot --ladder`` processes (started by the test once the server runs)."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def start_bot(server: LiveServer, kind: str, log: Path) -> subprocess.Popen[bytes]:
    command = [
        str(Path(sys.executable).parent / "shithead-bot"),
        *("--bot", kind, "--ladder", "classic", "--name", ladder_name(kind), "--password", f"pw-{kind}"),
        *("--host", HOST, "--port", str(server.port)),
        *(("--budget", str(BUDGET)) if kind in ("search", "ismcts") else ()),
    ]
    with open(log, "ab") as out:
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out)


def cards_in(value: Any) -> list[str]:
    """Every string in ``value`` (nested lists and dicts) that spells a card."""
    if isinstance(value, str):
        return [value] if CARD.match(value) else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in cards_in(v)]
    if isinstance(value, list | tuple):
        return [c for v in value for c in cards_in(v)]
    return []


class Observer:
    """A guest that follows the lobby and reads the ladder after every push."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.client: Client | None = None
        self.rows: dict[str, LadderRow] = {}
        """The overall table's rows, by name, as last read."""
        self.finished: dict[int, list[int]] = {}
        """Every game id any ladder_history reported, with its places."""
        self.running: dict[int, int] = {}
        """Open ladder tables: table id -> game id (from the lobby's summaries)."""
        self.checked_running = 0
        """Running ladder games checked for refusals and for the spectator's view."""
        self.spectator_states = 0

    async def open(self) -> None:
        self.client = await Client.connect(HOST, self.port, reconnect=False)
        await self.client.login(f"observer{self.port}", guest=True)
        await self.client.request(WatchLobby)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None

    @property
    def games(self) -> int:
        """Ladder games finished (each 2-player game counts in two rows)."""
        return sum(int(r["games"]) for r in self.rows.values()) // 2

    async def until(self, games: int) -> None:
        """Read pushes until ``games`` ladder games have finished, checking as it goes."""
        assert self.client is not None
        await self.read()
        async for item in self.client.messages():
            if isinstance(item, LobbyUpdate):
                self.running = {
                    t["table"]: int(t["name"].split("#")[1]) for t in item.tables if t["name"].startswith("ladder #")
                }
                await self.check_running()
                await self.read()
            elif isinstance(item, State) and item.view["phase"] != "over":
                self.spectator_states += 1
                assert item.view["seat"] is None and item.view["hand"] is None, item.view
            if self.games >= games:
                return

    async def read(self) -> None:
        assert self.client is not None
        standings = await self.client.request(GetLadder)
        assert isinstance(standings, LadderStandings)
        assert not cards_in(encode_message(standings)), "a card in the standings"
        overall = standings.tables[0]
        assert overall["table"] == "overall"
        self.rows = {r["name"]: r for r in overall["rows"]}
        for kind in BOTS:
            history = await self.client.request(LadderGames, name=ladder_name(kind), limit=50)
            assert isinstance(history, LadderHistory)
            assert not cards_in(encode_message(history)), "a card in a ladder history"
            for g in history.games:
                if g["game"] not in self.finished:
                    # Listed, so over: its record must be readable, with the same result.
                    record = await self.client.get_record(g["game"])
                    assert record["result"]["places"] == g["places"], g
                self.finished[g["game"]] = list(g["places"])

    async def check_running(self) -> None:
        """For one running ladder game (as the last push showed): its record and replay are
        refused with ``UNKNOWN_GAME``, unless it has ended since (pushes are gathered for half
        a second), which the ladder's histories must then show; and its spectator sees no hand
        (the states come as pushes to :meth:`until`)."""
        assert self.client is not None
        for table, game in list(self.running.items())[:1]:
            for request in (GetRecord, GetReplay):
                try:
                    await self.client.request(request, game=game)
                except ServerError as exc:
                    assert exc.code == ErrorCode.UNKNOWN_GAME, exc
                else:
                    await self.read()
                    assert game in self.finished, f"{request.TYPE} gave game {game}, which the ladder does not list"
                    break
            else:
                self.checked_running += 1
                try:
                    await self.client.watch(table)
                except ServerError as exc:
                    assert exc.code == ErrorCode.UNKNOWN_TABLE, exc  # closed meanwhile


def stored_ladder_games(db: Path) -> dict[int, list[int]]:
    with sqlite3.connect(db) as conn:
        return {
            game: json.loads(result)["places"] for game, result in conn.execute("SELECT game, result FROM ladder_games")
        }


async def test_four_ladder_bots_are_ordered_and_survive_kill_9(
    server: LiveServer, bots: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    began = time.monotonic()
    await asyncio.to_thread(server.start)
    for kind in BOTS:
        bots.append(start_bot(server, kind, tmp_path / f"{kind}.log"))
    observer = Observer(server.port)
    async with asyncio.timeout(SAFETY):
        await observer.open()
        await observer.until(EARLY)
        early = {name: r["rating_95"] for name, r in observer.rows.items()}
        await observer.until(BEFORE_KILL)
        await observer.close()

        # SIGKILL while ladder games run (two tables are always busy: four members, two tables).
        server.kill()
        reported = dict(observer.finished)
        counts = {name: r["games"] for name, r in observer.rows.items()}
        await asyncio.to_thread(server.restart)

        observer = Observer(server.port)
        await observer.open()
        assert observer.client is not None
        await observer.read()
        for name, n in counts.items():
            assert observer.rows[name]["games"] >= n, f"{name} lost games in the crash"
        for game, places in reported.items():
            record = await observer.client.get_record(game)
            assert record["result"]["places"] == places, f"game {game}"
        await observer.until(GAMES)
        rows = observer.rows
        await observer.close()
    assert all(p.poll() is None for p in bots), "a ladder bot exited"
    assert observer.spectator_states > 0 and observer.checked_running > 0

    await asyncio.to_thread(server.stop)
    stored = stored_ladder_games(server.db)
    for game, places in reported.items():
        assert stored.get(game) == places, f"finished ladder game {game} lost or changed by the kill"

    names = [ladder_name(k) for k in BOTS]
    line = ", ".join(f"{n} {rows[n]['rating']:.1f}±{rows[n]['rating_95']:.1f} ({rows[n]['games']})" for n in names)
    print(f"\nafter {observer.games} games, {time.monotonic() - began:.0f} s: {line}")
    for bot in names:
        assert rows[bot]["rating_95"] < early[bot], f"{bot}: interval {early[bot]} -> {rows[bot]['rating_95']}"
    rnd, greedy, search, ismcts = (rows[n] for n in names)
    for other in (greedy, search, ismcts):
        assert rnd["rating"] + rnd["rating_95"] < other["rating"] - other["rating_95"], (rnd, other)
    # No confident inversion: a stronger bot's interval never lies wholly below a weaker one's.
    for weaker, stronger in itertools.combinations((greedy, search, ismcts), 2):
        assert stronger["rating"] + stronger["rating_95"] >= weaker["rating"] - weaker["rating_95"], (weaker, stronger)
