"""Deal-set jobs: a tournament's games spread over worker processes, here or on a Ray cluster.

A **deal set** is some whole deals of a plan: their game numbers, less those already played.
A **job** plays one deal set on a private server of its own (a ``shithead-server`` child process
with its database in a temporary directory), with every participant: the bundled bots hosted in
the job's process, the ``--engine`` programs started there with that server's address. It
creates the tournament with the plan's master seed and settings and marks every game outside
its deal set as played (``done_ranges``), so the server schedules exactly the game numbers,
deals and seatings of a single-server run, and plays only the set's. Bundled bots are seeded by
the game number, so a game played by a job is the game a single server would have played.

The organiser stays one process: it cuts the remaining games into deal sets
(:func:`deal_sets`), hands them to :class:`Workers`, at most ``slots`` at once
(:func:`play_deal_sets`), and files every game that comes back in ``results.csv``, the records
and the standings, as in a single-server run; ``--resume`` reads ``results.csv`` and plays only
the games missing from it. Two kinds of workers:

* :class:`LocalWorkers` (``--workers N``): one child process per job,
  ``python -m client.tournament.jobs``, the job on its standard input as one JSON line, each
  finished game sent back on its standard output as a JSON line as soon as it ends;
* ``client.tournament.ray_jobs.RayWorkers`` (``--ray ADDRESS``): each job a Ray task,
  its games returned when the task ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Protocol

from client.eventloop import use_uvloop_if_installed
from client.programs import LocalServer
from client.tournament.plan import Plan
from client.tournament.play import Crashes, PlayedGame, play_on_server
from server.tournament.ranges import Range, contains, merge

__all__ = [
    "LocalWorkers",
    "Workers",
    "deal_sets",
    "outside",
    "play_deal_set",
    "play_deal_sets",
    "worker_main",
]

log = logging.getLogger(__name__)

#: Games a deal set aims at in a long tournament: a job costs about a second to start (a server
#: and the participants), which this many games (tens of seconds) make small. Short
#: tournaments are cut finer, so that every worker has work (see :func:`deal_sets`).
JOB_GAMES = 64

#: The longest line a local worker sends: one game with its record (a few tens of kB as JSON).
LINE_LIMIT = 64 * 1024 * 1024


def deal_sets(plan: Plan, done: Sequence[Range], slots: int) -> list[tuple[Range, ...]]:
    """The games of ``plan`` not in ``done``, cut into deal sets in schedule order: each set
    whole deals (less their games already played) as merged ranges of game numbers. A set
    holds about :data:`JOB_GAMES` games, fewer when that would leave fewer than four sets per
    slot, never less than one deal."""
    by_deal: dict[int, list[int]] = {}
    for spec in plan.game_specs():
        if not contains(done, spec.number):
            by_deal.setdefault(spec.deal, []).append(spec.number)
    deals = list(by_deal.values())
    if not deals:
        return []
    size = max(1, min(-(-len(deals) // (4 * max(1, slots))), JOB_GAMES // plan.games_per_deal))
    return [merge(n for deal in deals[i : i + size] for n in deal) for i in range(0, len(deals), size)]


def outside(games: Sequence[Range], total: int) -> tuple[Range, ...]:
    """The game numbers ``0 .. total - 1`` not in ``games`` (merged ranges), as merged ranges."""
    out: list[Range] = []
    following = 0
    for first, last in games:
        if first > following:
            out.append((following, first - 1))
        following = last + 1
    if following < total:
        out.append((following, total - 1))
    return tuple(out)


async def play_deal_set(
    plan: Plan, games: Sequence[Range], *, on_game: Callable[[PlayedGame], None], log_dir: Path | None = None
) -> Crashes:
    """Play the deal set ``games`` (merged ranges of game numbers) of ``plan`` on a private
    server started for it, calling ``on_game`` as each game ends (``server_game`` set to None:
    the server and its database are gone when the job ends). The server's and the programs'
    output go to ``log_dir`` (None: the temporary directory, dropped at the end; a crashed
    program's last lines come back in the returned :class:`Crashes`). Raises
    ``RuntimeError`` when the server does not start or exits before the end, and what
    :func:`play_on_server` raises."""
    label = f"deal set {games[0][0]}-{games[-1][1]}"
    with tempfile.TemporaryDirectory(prefix="shithead-deal-set-") as tmp:
        logs = log_dir if log_dir is not None else Path(tmp)
        server_log = logs / "server.log"

        def log_tail() -> str:
            return " / ".join(server_log.read_text(encoding="utf-8", errors="replace").splitlines()[-10:])

        try:
            server = LocalServer(Path(tmp) / "server.sqlite3", server_log)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc} {log_tail()}") from None

        def filed(game: PlayedGame) -> None:
            game.result["server_game"] = None
            on_game(game)

        # The server's exit is watched: a job whose server died would otherwise wait out its
        # clients' reconnect window (minutes) before failing.
        exited = asyncio.ensure_future(asyncio.to_thread(server.proc.wait))
        try:
            playing = asyncio.ensure_future(
                play_on_server(
                    plan,
                    "127.0.0.1",
                    server.port,
                    done=outside(games, plan.total_games),
                    log_dir=logs,
                    name=label,
                    on_game=filed,
                    say=log.info,
                )
            )
            try:
                await asyncio.wait({playing, exited}, return_when=asyncio.FIRST_COMPLETED)
                if not playing.done():
                    raise RuntimeError(f"the server of {label} exited (status {exited.result()}): {log_tail()}")
                return playing.result()
            finally:
                playing.cancel()
                await asyncio.gather(playing, return_exceptions=True)
        finally:
            server.stop()
            await exited  # its thread ends with the process


class Workers(Protocol):
    """Where deal sets are played: ``slots`` jobs at once, each by :meth:`play`."""

    slots: int

    def describe(self) -> str:
        """Where, for the user: "2 worker processes", "Ray at auto (8 CPUs)"."""
        ...

    async def play(self, plan: Plan, games: Sequence[Range], on_game: Callable[[PlayedGame], None]) -> Crashes:
        """Play one deal set, calling ``on_game`` here, in the organiser's process, with each of
        its games (as they end or when the job ends). Raises ``RuntimeError`` when the job
        fails; cancelling it stops the job."""
        ...

    async def close(self) -> None:
        """Release what the workers hold (after the last job, and on every way out)."""
        ...


async def play_deal_sets(
    workers: Workers, plan: Plan, sets: Sequence[Sequence[Range]], on_game: Callable[[PlayedGame], None]
) -> Crashes:
    """Play ``sets`` in order, ``workers.slots`` at once, passing every game to ``on_game``;
    the crashes of all jobs added up. The first job that fails stops the run: the others are
    cancelled (their games filed so far stay filed) and its error is raised."""
    crashes = Crashes()
    waiting = deque(sets)
    running: set[asyncio.Task[Crashes]] = set()
    try:
        while waiting or running:
            while waiting and len(running) < workers.slots:
                running.add(asyncio.create_task(workers.play(plan, waiting.popleft(), on_game)))
            finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                crashes.add(task.result())
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
    return crashes


class LocalWorkers:
    """Deal sets played by child processes of this machine, one per job, ``slots`` at once.

    A job's child (``python -m client.tournament.jobs``, :func:`worker_main`) gets the plan and
    its deal set as one JSON line on its standard input and sends each game as a JSON line
    ``{"game": ...}`` as soon as it ends, then ``{"crashes": ...}``; its log goes to
    ``out/workers.log``, its server's to ``out/server.log`` and the programs' to
    ``out/NAME.log``, as in a single-server run. A child is a process of its own, not a thread
    or a fork of the organiser: the bots' thinking and the protocol work then use every core,
    and stopping a job is terminating its process, which stops its server and programs."""

    def __init__(self, slots: int, out: Path) -> None:
        if slots < 1:
            raise ValueError("workers must be at least 1")
        self.slots = slots
        self.out = out

    def describe(self) -> str:
        return f"{self.slots} worker processes"

    async def play(self, plan: Plan, games: Sequence[Range], on_game: Callable[[PlayedGame], None]) -> Crashes:
        job = {"plan": plan.to_dict(), "games": [list(r) for r in games], "log_dir": str(self.out)}
        with (self.out / "workers.log").open("ab") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "client.tournament.jobs",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                limit=LINE_LIMIT,
            )
        assert proc.stdin is not None and proc.stdout is not None
        crashes: Crashes | None = None
        try:
            proc.stdin.write(json.dumps(job).encode() + b"\n")
            await proc.stdin.drain()
            proc.stdin.close()
            async for line in proc.stdout:
                msg = json.loads(line)
                if "game" in msg:
                    on_game(PlayedGame(**msg["game"]))
                elif "crashes" in msg:
                    crashes = Crashes(**msg["crashes"])
            code = await proc.wait()
        finally:
            if proc.returncode is None:
                await _stop(proc)
        if code != 0 or crashes is None:
            first, last = games[0][0], games[-1][1]
            raise RuntimeError(
                f"the worker playing games {first}-{last} failed (exit status {code}): see {self.out / 'workers.log'}"
            )
        return crashes

    async def close(self) -> None:
        """Nothing to release: a job's process ends with the job."""


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Terminate a job's process (it stops its server and programs), killed after 30 s."""
    proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), 30)
    except TimeoutError:
        proc.kill()
        await proc.wait()


def worker_main() -> int:
    """A local worker's job (:class:`LocalWorkers`): read it from standard input, play it,
    write its games to standard output. SIGTERM stops it cleanly (its server and programs too)."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s [job]: %(message)s"
    )
    # The games go out on the original standard output; anything else that prints (a bot, a
    # library) goes to the log instead, where it cannot break a line of the channel.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    job = json.loads(sys.stdin.readline())
    plan = Plan.from_dict(job["plan"])
    games = merge(ranges=job["games"])

    def send(kind: str, value: object) -> None:
        channel.write(json.dumps({kind: value}, separators=(",", ":")) + "\n")
        channel.flush()

    async def play() -> Crashes:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await play_deal_set(
            plan, games, on_game=lambda game: send("game", asdict(game)), log_dir=Path(job["log_dir"])
        )

    use_uvloop_if_installed()  # the worker's bots read states all the time
    try:
        crashes = asyncio.run(play())
    except asyncio.CancelledError:  # SIGTERM: the organiser stopped the job
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the organiser stops too
        return 128 + signal.SIGINT
    send("crashes", asdict(crashes))
    return 0


if __name__ == "__main__":
    sys.exit(worker_main())
