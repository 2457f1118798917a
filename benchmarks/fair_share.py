"""Does one guest who takes all it may slow everybody else's table down? (issue 37, item 3)

    .venv/bin/python benchmarks/fair_share.py                   # 3 rounds of 2 x 20 s
    .venv/bin/python benchmarks/fair_share.py --rounds 5 --seconds 30 --bot search

The real server (``python -m server`` on 127.0.0.1, a free port, a fresh database, its default
limits: the quotas of docs/PROTOCOL.md §13) is started once. An owner opens a table of four
bundled ``greedy`` bots, watches it and starts each game as soon as the last is over; its
games a minute are measured in ``--rounds`` rounds of two windows of ``--seconds`` each (after
a few seconds of warm-up each):

1. **quiet**: no tournament on the server (from the second round on, the hostile person's
   tables are there, idle, and its guests connected);
2. **hostile**: one person, from the same address as the owner under five guest names, sends
   1,000 ``create_table`` (the answers are counted by code: after the first round it holds
   every table it may, so all are refused), then asks for the tournament of the issue (16
   ``--bot`` bots, concurrency 256, 1,000,000 games: refused), then for the largest tournament
   the server allows (``welcome.limits``: ``tournament_bots`` bots, ``tournament_tables`` at
   once, ``tournament_games`` games) under three of the names, with ``--bot``, ``search`` and
   ``greedy`` bots (the third is refused: the address's quota); the two are started and play
   throughout the window, and are cancelled (``cancel_tournament``) at its end.

Printed: each window's games a minute, the tournament games played meanwhile, the server's RSS
(with its bots' processes), the answers of the first attack by code, and the medians of the
quiet and hostile windows with their ratio. It asserts nothing: the machine is shared and
noisy (the medians of alternating windows are what to compare).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.sdk import Client, ServerError  # noqa: E402
from protocol.messages import (  # noqa: E402
    CancelTournament,
    CreateTable,
    CreateTournament,
    GameOver,
    GetTournament,
    StartTournament,
    TableCreated,
    TournamentCreated,
    TournamentInfo,
)

HOST = "127.0.0.1"
WARM_UP = 5.0


def tree_rss_mib(pid: int) -> float:
    """VmRSS of ``pid`` and its children (the bots' processes), MiB."""
    pids = [pid]
    with suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                pids += [int(c) for c in fh.read().split()]
    total = 0
    for p in pids:
        with suppress(OSError), open(f"/proc/{p}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


class GreedyTable:
    """The owner's table of four greedy bots, started again after every game."""

    def __init__(self, owner: Client, table: int) -> None:
        self.owner, self.table, self.games = owner, table, 0
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        async for item in self.owner.messages():
            msg = getattr(item, "message", item)
            if isinstance(msg, GameOver) and msg.table == self.table:
                self.games += 1
                await self.owner.start(self.table)

    async def pace(self, seconds: float) -> float:
        """Games a minute over ``seconds`` (after the warm-up)."""
        await asyncio.sleep(WARM_UP)
        before, began = self.games, time.monotonic()
        await asyncio.sleep(seconds)
        return (self.games - before) * 60 / (time.monotonic() - began)


class Hostile:
    """The person of the hostile phases: five guest names from one address, which stay."""

    def __init__(self, port: int, bot: str) -> None:
        self.port, self.bot = port, bot
        self.guests: list[Client] = []
        self.started: list[tuple[Client, int]] = []
        self.codes: Counter[str] = Counter()

    async def _answer(self, g: Client, cls: type, expect: type, **fields: object) -> object | None:
        try:
            got = await g.ask(cls, expect, **fields)
        except ServerError as exc:
            self.codes[str(exc.code)] += 1
            return None
        self.codes["ok"] += 1
        return got

    async def attack(self) -> str:
        """1,000 create_table, the issue's tournament, three of the largest allowed (two
        started); what the server answered, in words."""
        if not self.guests:
            for k in range(5):
                g = await Client.connect(HOST, self.port, reconnect=False)
                await g.login(f"hog {k + 1}", guest=True)
                self.guests.append(g)
        guests, bot = self.guests, self.bot
        self.codes.clear()
        await asyncio.gather(
            *(
                self._answer(guests[i % 5], CreateTable, TableCreated, name=f"hog {i}", preset="classic", seats=4)
                for i in range(1000)
            )
        )
        tables = dict(self.codes)
        self.codes.clear()
        limits = guests[0].welcome.limits if guests[0].welcome is not None else {}
        issue = dict(name="huge", preset="classic", seats=4, games=1_000_000, concurrency=256, bots=[bot] * 16)
        await self._answer(guests[0], CreateTournament, TournamentCreated, **issue)
        n = int(limits.get("tournament_bots", 8))
        largest = dict(
            preset="classic",
            seats=4,
            games=int(limits.get("tournament_games", 100_000)),
            concurrency=int(limits.get("tournament_tables", 8)),
        )
        for g, kind in ((guests[0], bot), (guests[1], "search"), (guests[2], "greedy")):
            made = await self._answer(
                g, CreateTournament, TournamentCreated, name=f"{kind} cup", bots=[kind] * n, **largest
            )
            if isinstance(made, TournamentCreated):
                await g.request(StartTournament, tournament=made.tournament)
                self.started.append((g, made.tournament))
        return (
            f"1,000 create_table: {tables}; the issue's tournament, then three of {largest['concurrency']} "
            f"tables, {largest['games']:,} games, {n} bots: {dict(self.codes)}; {len(self.started)} started"
        )

    async def tournament_games(self) -> int:
        total = 0
        for g, tid in self.started:
            info = await g.ask(GetTournament, TournamentInfo, tournament=tid)
            total += info.info["games_finished"]
        return total

    async def cancel(self) -> None:
        for g, tid in self.started:
            await g.request(CancelTournament, tournament=tid)
        self.started.clear()

    async def leave(self) -> None:
        for g in self.guests:
            await g.close()


def median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="fair-share-"))
    cmd = [sys.executable, "-m", "server", "--host", HOST, "--port", "0", "--db", str(tmp / "fair.sqlite3")]
    cmd += ["--no-advertise", "--no-web", "--log-level", "WARNING"]
    # (before anything is measured: blocking the loop while the server starts is harmless)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)  # noqa: ASYNC220
    try:
        assert proc.stdout is not None
        m = re.search(r":(\d+)\b", proc.stdout.readline())
        if not m:
            raise RuntimeError("the server did not say where it listens")
        port = int(m.group(1))
        owner = await Client.connect(HOST, port, reconnect=False)
        await owner.login("owner", guest=True)
        t = await owner.create_table("greedy table", preset="classic", seats=4)
        for _ in range(4):
            await owner.add_bot(t, "greedy")
        await owner.watch(t)
        table = GreedyTable(owner, t)
        await owner.start(t)
        print(
            f"a table of 4 greedy bots, {args.rounds} rounds of a quiet and a hostile window of {args.seconds:g} s "
            f"(after {WARM_UP:g} s each), 127.0.0.1, {os.cpu_count()} cores",
            flush=True,
        )
        hog = Hostile(port, args.bot)
        quiet: list[float] = []
        loaded: list[float] = []
        for k in range(args.rounds):
            quiet.append(await table.pace(args.seconds))
            print(
                f"  round {k + 1} quiet:   {quiet[-1]:7.1f} games/min   RSS {tree_rss_mib(proc.pid):6.1f} MiB",
                flush=True,
            )
            said = await hog.attack()
            if k == 0:
                print(f"    {said}", flush=True)
            before = await hog.tournament_games()
            loaded.append(await table.pace(args.seconds))
            played = await hog.tournament_games() - before
            print(
                f"  round {k + 1} hostile: {loaded[-1]:7.1f} games/min   RSS {tree_rss_mib(proc.pid):6.1f} MiB   "
                f"({played} tournament games meanwhile)",
                flush=True,
            )
            await hog.cancel()
        await hog.leave()
        q, h = median(quiet), median(loaded)
        print(f"  median quiet {q:.1f}, median hostile {h:.1f} games/min: hostile / quiet = {h / q:.3f}")
        table.task.cancel()
        await owner.close()
    finally:
        proc.terminate()
        proc.wait(60)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds measured per window (default 20)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of a quiet and a hostile window (default 3)")
    ap.add_argument("--bot", default="ismcts", help="the bundled bot of the hostile tournament (default ismcts)")
    asyncio.run(run(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
