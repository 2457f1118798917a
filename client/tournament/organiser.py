"""``shithead-tournament``: run a tournament of bots from the command line.

The organiser starts a server of its own (a child process with its database in the output
directory) or uses a running one (``--server``), creates the tournament over the protocol,
brings the participants in, starts it, and writes, as each game ends:

* ``results.csv``: one row per game and seat (the tournament's memory, read by ``--resume``);
* ``records/<game>.json.gz``: every game's record, gzip-compressed JSON
  (:mod:`client.record_files`), for ``shithead replay``;
* ``standings.json``: standings and head-to-head, rewritten every ``--every`` games and at the end.

Participants:

* a bundled bot's name (one of the catalogue's, :mod:`client.bots`), optionally as ``NAME=BOT``
  to name it; hosted by this process like any bot (:mod:`client.hosting.host`), so the server's
  process has the other core;
* ``--engine NAME=COMMAND``: a bot program the organiser starts, restarts when it crashes
  (crashes are counted; an exit once the server says the tournament is over is none) and
  stops at the end. ``COMMAND`` may use ``{host}``, ``{port}``,
  ``{tournament}``, ``{name}`` and ``{password}``; e.g.
  ``--engine "mine=shithead-bot --bot greedy --host {host} --port {port} --tournament {tournament}
  --name {name} --password {password}"``;
* ``--account NAME``: a bot account that connects and registers by itself (with ``--server``).

Where the games are played:

* on one server: the organiser's own (a child process) or a running one (``--server``), with
  ``--workers 1`` or ``--server``;
* in deal sets (:mod:`client.tournament.jobs`): ``--workers N`` worker processes, or the tasks
  of a Ray cluster (``--ray ADDRESS``, :mod:`client.tournament.ray_jobs`), each set on a private
  server of its own with all the participants. The games, their deals and seatings are those of
  the single-server run (same schedule, same master seed, bots seeded by the game number); only
  ``server_game`` in ``results.csv`` is empty, the workers' servers being temporary.

Either way this process files every game: ``results.csv``, the records, the standings.

Resuming: the settings are saved in ``tournament.json``; ``--resume DIR`` reads them and the
results back, and plays only the games not finished yet. The standings are always computed
from ``results.csv`` in game-number order, so the final figures are those an uninterrupted run
would have produced.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from client.programs import LocalServer
from client.record_files import SUFFIX as RECORD_SUFFIX
from client.record_files import save_record
from client.tournament.jobs import LocalWorkers, Workers, deal_sets, play_deal_sets
from client.tournament.plan import NAME_RE, Entrant, Plan, parse_entrant, unique_names
from client.tournament.play import Crashes, PlayedGame, play_on_server, rated_game
from client.tournament.results import ResultsFile, read_results, write_standings_json
from server.tournament.ranges import Range, count, merge
from server.tournament.standings import (
    Row,
    Standings,
    format_head_to_head,
    format_standings,
)

__all__ = [
    "NAME_RE",
    "Entrant",
    "Plan",
    "Progress",
    "default_out",
    "final_report",
    "parse_entrant",
    "run",
    "unique_names",
]

log = logging.getLogger(__name__)


@dataclass
class Progress:
    """Progress reports: ``on_game(done, total)`` after each game, ``say(text)`` for lines,
    ``standings(rows, done)`` every ``Plan.every`` games (by default printed as a table)."""

    on_game: Callable[[int, int], None]
    say: Callable[[str], None]
    standings: Callable[[list[Row], int], None] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.standings is None:
            self.standings = self._print_standings

    def _print_standings(self, rows: list[Row], done: int) -> None:
        for line in format_standings(rows, title=f"after {done} games"):
            self.say(line)


async def run(
    plan: Plan,
    out: Path,
    *,
    server: str | None = None,
    progress: Progress,
    workers: int | None = 1,
    ray_address: str | None = None,
) -> Standings:
    """Play ``plan`` (the games not yet in ``out/results.csv``); return the figures of every
    finished game, this run's and the earlier runs'. The games themselves are in the files,
    not in memory: the organiser of a 100,000-game tournament stays the size it had after
    its first games.

    Where: on the server ``server`` (``HOST:PORT``) if given; else with ``ray_address`` as Ray
    tasks (``workers`` of them at once; None: one per CPU of the cluster); else on a server of
    its own when ``workers`` is 1, in ``workers`` worker processes when it is more (None: one
    per core). The results are the same every way (see the module docstring)."""
    out.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 (at start-up, before any game runs)
    (out / "records").mkdir(exist_ok=True)
    figures = Standings(plan.names)
    done: list[int] = []
    for earlier in read_results(out / "results.csv"):
        figures.add(earlier)
        done.append(earlier.number)
    played = merge(done)
    del done  # merged: a few ranges
    if figures.games:
        progress.say(f"{figures.games} games already played")
    ledger = _Ledger(plan, out, figures, progress)
    try:
        if server is not None or (ray_address is None and workers == 1):
            crashes = await _on_one_server(plan, out, server, played, ledger, progress)
        else:
            crashes = await _in_deal_sets(plan, out, played, ledger, progress, workers, ray_address)
    finally:
        ledger.close()
    if any(crashes.counts.values()):
        progress.say("crashes: " + ", ".join(f"{n} {c}" for n, c in crashes.counts.items() if c))
    for name, tail in crashes.tails.items():
        log.warning("%s's last crash; its last lines:\n%s", name, "\n".join(tail))
    engines = [e.name for e in plan.entrants if e.kind == "engine"]
    meta = plan.meta() | {"crashes": {name: crashes.counts.get(name, 0) for name in engines}}
    write_standings_json(out / "standings.json", figures, meta)
    return figures


async def _on_one_server(
    plan: Plan, out: Path, server: str | None, played: tuple[Range, ...], ledger: _Ledger, progress: Progress
) -> Crashes:
    """Every remaining game on one server: ``server`` (HOST:PORT) or one started here."""
    local: LocalServer | None = None
    if server is None:
        local = LocalServer(out / "server.sqlite3", out / "server.log")
        host, port = "127.0.0.1", local.port
    else:
        host, _, port_text = server.rpartition(":")
        host, port = host or "127.0.0.1", int(port_text)
    try:
        return await play_on_server(
            plan, host, port, done=played, log_dir=out, name=out.name, on_game=ledger.file, say=progress.say
        )
    finally:
        if local is not None:
            local.stop()


async def _in_deal_sets(
    plan: Plan,
    out: Path,
    played: tuple[Range, ...],
    ledger: _Ledger,
    progress: Progress,
    workers: int | None,
    ray_address: str | None,
) -> Crashes:
    """The remaining games cut into deal sets, played by worker processes or Ray tasks."""
    pool: Workers
    if ray_address is not None:
        from client.tournament.ray_jobs import RayWorkers  # Ray is an optional extra

        pool = RayWorkers(ray_address, workers)
    else:
        pool = LocalWorkers(workers or os.cpu_count() or 1, out)
    try:
        sets = deal_sets(plan, played, pool.slots)
        left = sum(count(s) for s in sets)
        progress.say(
            f"{len(plan.entrants)} participants, {plan.games} games, master seed {plan.master_seed}: "
            f"{left} games in {len(sets)} deal sets on {pool.describe()}"
        )
        return await play_deal_sets(pool, plan, sets, ledger.file)
    finally:
        await pool.close()


class _Ledger:
    """Files each finished game as it arrives, whichever server played it: its rows in
    ``results.csv`` (written and synced before anything else: the file is the tournament's
    memory), its record in ``records/``, the running figures, the progress, and the standings
    every ``plan.every`` games."""

    def __init__(self, plan: Plan, out: Path, figures: Standings, progress: Progress) -> None:
        self.plan = plan
        self.out = out
        self.figures = figures
        self.progress = progress
        self.results = ResultsFile(out / "results.csv")

    def file(self, game: PlayedGame) -> None:
        r = game.result
        res = rated_game(r)
        try:
            self.figures.add(res)
        except ValueError as exc:  # a server that reports a game twice: kept once
            log.warning("tournament_game %d: %s", res.number, exc)
            return
        self.results.add(
            res, seed=r["seed"], rotation=r["rotation"], actions=r["actions"], server_game=r["server_game"]
        )
        if game.record is not None:
            save_record(self.out / "records" / f"{res.number}{RECORD_SUFFIX}", game.record)
        total = self.figures.games
        self.progress.on_game(total, self.plan.total_games)
        if self.plan.every and total % self.plan.every == 0:
            write_standings_json(self.out / "standings.json", self.figures, self.plan.meta())
            self.progress.standings(self.figures.rows(), total)

    def close(self) -> None:
        self.results.close()


def final_report(plan: Plan, figures: Standings) -> list[str]:
    lines = format_standings(
        figures.rows(), title=f"Standings after {figures.games} games (rating: openskill Plackett-Luce, ± 95 %)"
    )
    lines.append("")
    lines.append("Head to head: mean place of row minus column (negative: row finished ahead)")
    lines += format_head_to_head(plan.names, figures.head_to_head())
    return lines


def default_out() -> Path:
    return Path(f"tournament-{time.strftime('%Y%m%d-%H%M%S')}")
