"""Soak: do memory, disk and time per game stay flat over a long run? (issue 15)

    .venv/bin/python benchmarks/soak.py                          # 20,000 games, 8 tables of hosted bots
    .venv/bin/python benchmarks/soak.py --games 3000 --tables 4
    .venv/bin/python benchmarks/soak.py --games 1000 --tournament
    .venv/bin/python benchmarks/soak.py --bots greedy,greedy,random,random --preset classic --every 500
    .venv/bin/python benchmarks/soak.py --db /var/tmp/soak.sqlite3 --keep

Everything runs on 127.0.0.1 and is stopped at the end (also on Ctrl-C):

* the real server, ``python -m server`` as a child process, default settings and limits, on a
  free port, with a fresh SQLite file in a temporary directory (``--db PATH``: that file
  instead, e.g. on another disk; it is never deleted);
* **tables** (the default): this script is one client of the server (:class:`client.sdk.Client`)
  that creates ``--tables`` tables, seats the server's bundled bots with ``add_bot`` (``--bots``,
  one per seat; default 2 greedy and 2 random) and ``start``\\ s each table's next game as soon
  as it sees the last one over, until ``--games`` games are finished. It sees that by asking
  for the list of tables ten times a second (their ``status`` and ``games_played``), not by
  watching them: a watcher costs the server a spectator ``state`` per action and table, and
  reading them would cost this process as much again;
* **``--tournament``**: instead of the tables, ``shithead-tournament`` (``python -m
  client.tournament``) as a second child process, with the ``--bots`` as its bundled
  participants, ``--games``, ``--tables`` as its ``--concurrency`` and ``--server`` pointing at
  the same server (so the server, its database and the organiser are measured apart). The
  organiser hosts its bots itself; its RSS therefore includes theirs. Progress is read from
  the organiser's plain progress lines (one every 10 games).

One line per ``--every`` games (a tenth of the run by default): games done, seconds, games/s in
that stretch, server RSS (VmRSS of /proc/PID/status, with its bots' child process: the server
runs its bundled bots in a process of its own), RSS growth per game since the end of the
first stretch, database bytes per game (the SQLite file plus its ``-wal``, less their size before
the first game, divided by the games so far: the log holds a few MiB between checkpoints, which
short runs show as a high figure); with ``--tournament`` also the organiser's RSS, its
growth per game, and the organiser's files (results, records, standings) per game. At the end
the three targets of the issue and whether they are met:

* RSS growth after the first stretch <= 1 KiB per game (server; and organiser with ``--tournament``);
* <= 4 KiB of database per game;
* games/s of the last stretch >= 90 % of the second (the first holds the warm-up).

It asserts nothing and exits 0 whether or not the targets are met (the machine is shared and
noisy); 1 only when the run itself fails (the server does not start, a connection drops).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.programs import LocalServer  # noqa: E402
from client.sdk import Client  # noqa: E402

HOST = "127.0.0.1"
KIB = 1024.0

TARGET_RSS_KIB_PER_GAME = 1.0
TARGET_DB_KIB_PER_GAME = 4.0
TARGET_RATE_RATIO = 0.90

# The organiser's plain progress line (not on a terminal): "<done>/<total> games".
PROGRESS_RE = re.compile(r"^(\d+)/(\d+) games$")


class SoakError(Exception):
    """The run itself failed (as opposed to a target not met)."""


# --------------------------------------------------------------------------- measurements


def rss_bytes(pid: int) -> int:
    """VmRSS of process ``pid`` in bytes (0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def tree_rss_bytes(pid: int) -> int:
    """VmRSS of process ``pid`` and of its children (the server's bots' process), in bytes."""
    children: list[int] = []
    with suppress(FileNotFoundError, ProcessLookupError, NotADirectoryError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                children += [int(c) for c in fh.read().split()]
    return rss_bytes(pid) + sum(rss_bytes(c) for c in children)


def db_bytes(db: Path) -> int:
    """The SQLite file plus its write-ahead log, in bytes (a missing file counts 0)."""
    total = 0
    for path in (db, db.with_name(db.name + "-wal")):
        with suppress(FileNotFoundError):
            total += path.stat().st_size
    return total


def tree_bytes(root: Path) -> int:
    """Bytes of every file under ``root`` (files vanishing meanwhile count 0)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with suppress(FileNotFoundError):
                total += os.stat(os.path.join(dirpath, name)).st_size
    return total


@dataclass
class Sample:
    """The figures at the end of one stretch of the run."""

    games: int
    seconds: float  # since Meter.began
    server_rss: int
    db: int  # database bytes added since the start
    organiser_rss: int = 0
    files: int = 0  # the organiser's files, bytes


@dataclass
class Meter:
    """Takes a :class:`Sample` whenever the games done pass the next boundary and prints its line."""

    total: int
    every: int
    server_pid: int
    db: Path
    db_before: int  # database bytes before the first game
    began: float  # perf_counter() when the run began: the first start (tables) or the organiser's start
    organiser_pid: int | None = None
    out_dir: Path | None = None
    samples: list[Sample] = field(default_factory=list)

    @property
    def next_boundary(self) -> int:
        return min(self.total, (len(self.samples) + 1) * self.every)

    def header(self) -> None:
        cols = f"{'games':>8} {'s':>7} {'games/s':>8} {'server MiB':>11} {'growth KiB/game':>16} {'DB KiB/game':>12}"
        if self.organiser_pid is not None:
            cols += f" {'organiser MiB':>14} {'growth KiB/game':>16} {'files KiB/game':>15}"
        print(cols, flush=True)

    def update(self, games: int) -> None:
        """Record that ``games`` are finished; at a boundary, take a sample and print its line."""
        done = bool(self.samples) and self.samples[-1].games >= self.total
        if not done and games >= self.next_boundary:
            self._take(games)

    def _take(self, games: int) -> None:
        s = Sample(
            games=games,
            seconds=time.perf_counter() - self.began,
            server_rss=tree_rss_bytes(self.server_pid),
            db=db_bytes(self.db) - self.db_before,
            organiser_rss=rss_bytes(self.organiser_pid) if self.organiser_pid is not None else 0,
            files=tree_bytes(self.out_dir) if self.out_dir is not None else 0,
        )
        first = self.samples[0] if self.samples else None
        self.samples.append(s)
        rate = rate_of(self.samples, len(self.samples) - 1)
        line = (
            f"{s.games:>8} {s.seconds:>7.1f} {rate:>8.1f} {s.server_rss / KIB / KIB:>11.1f} "
            f"{_growth(first, s, lambda x: x.server_rss):>16} {s.db / KIB / s.games:>12.2f}"
        )
        if self.organiser_pid is not None:
            line += (
                f" {s.organiser_rss / KIB / KIB:>14.1f} {_growth(first, s, lambda x: x.organiser_rss):>16}"
                f" {s.files / KIB / s.games:>15.2f}"
            )
        print(line, flush=True)


def _growth(first: Sample | None, now: Sample, rss: Callable[[Sample], int]) -> str:
    """RSS growth per game since ``first`` in KiB, as a column ("-" on the first line)."""
    if first is None or now.games == first.games:
        return "-"
    return f"{(rss(now) - rss(first)) / KIB / (now.games - first.games):.2f}"


def rate_of(samples: list[Sample], i: int) -> float:
    """Games/s in stretch ``i`` (0-based) of the run."""
    prev = samples[i - 1] if i > 0 else Sample(0, 0.0, 0, 0)
    now = samples[i]
    return (now.games - prev.games) / max(now.seconds - prev.seconds, 1e-9)


def verdict(samples: list[Sample], tournament: bool) -> None:
    """Print the issue's three targets and whether this run meets them."""

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print("targets:")
    if len(samples) < 3:
        print("  (too few stretches for the targets: make --every at most a third of --games)")
        return
    first, last = samples[0], samples[-1]
    span = last.games - first.games
    server = (last.server_rss - first.server_rss) / KIB / span
    line = f"server {server:.2f}"
    ok = server <= TARGET_RSS_KIB_PER_GAME
    if tournament:
        organiser = (last.organiser_rss - first.organiser_rss) / KIB / span
        line += f", organiser {organiser:.2f}"
        ok = ok and organiser <= TARGET_RSS_KIB_PER_GAME
    print(f"  RSS growth after the first stretch <= {TARGET_RSS_KIB_PER_GAME:g} KiB/game: {line} KiB/game  {met(ok)}")
    db = last.db / KIB / last.games
    db_ok = db <= TARGET_DB_KIB_PER_GAME
    extra = f"  (organiser's files: {last.files / KIB / last.games:.2f} KiB/game)" if tournament else ""
    print(f"  database <= {TARGET_DB_KIB_PER_GAME:g} KiB/game: {db:.2f} KiB/game  {met(db_ok)}{extra}")
    second, final = rate_of(samples, 1), rate_of(samples, len(samples) - 1)
    ratio = final / second if second else 0.0
    print(
        f"  games/s of the last stretch >= {TARGET_RATE_RATIO:.0%} of the second: "
        f"{final:.1f} / {second:.1f} = {ratio:.0%}  {met(ratio >= TARGET_RATE_RATIO)}"
    )


# --------------------------------------------------------------------------- the server


@contextmanager
def server_process(db: Path, log_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """The private server of :class:`client.programs.LocalServer` (``python -m server`` on
    127.0.0.1, a free port, ``db``); yields (process, port). Stopped on exit: SIGTERM (it saves
    and closes), SIGKILL if it has not gone within 30 s."""
    try:
        server = LocalServer(db, log_path)
    except RuntimeError as exc:
        raise SoakError(str(exc)) from exc
    try:
        yield server.proc, server.port
    finally:
        server.stop()


# --------------------------------------------------------------------------- the two drivers


MeterFactory = Callable[[int, int | None, Path | None], Meter]
"""(total games, organiser pid, organiser's directory) -> a fresh :class:`Meter`."""


POLL_SECONDS = 0.1
"""How often the tables' driver asks the server which tables are waiting for their next game."""


async def drive_tables(port: int, args: argparse.Namespace, make_meter: MeterFactory) -> list[Sample]:
    """Tables of hosted bots, each game started as soon as the driver sees the last one over."""
    client = await Client.connect(HOST, port, client_name="soak", reconnect=False)
    try:
        await client.login("soak-driver", guest=True)
        seats = len(args.bots)
        tables: list[int] = []
        for t in range(args.tables):
            table = await client.create_table(f"soak-{t}", preset=args.preset, seats=seats)
            for bot in args.bots:
                await client.add_bot(table, bot)
            tables.append(table)
        meter = make_meter(args.games, None, None)
        started = 0
        for table in tables[: args.games]:
            await client.start(table)
            started += 1
        mine = set(tables)
        while True:
            # Polling the lobby costs the server one small answer a tenth of a second; watching
            # the tables would cost it a spectator state per action (and this client as much
            # again to read them), which would be most of what the run measures.
            await asyncio.sleep(POLL_SECONDS)
            client.pending_messages()  # (pushes to an owner who neither sits nor watches: dropped)
            summaries = [t for t in await client.list_tables() if t["table"] in mine]
            if len(summaries) < len(mine):
                gone = sorted(mine - {t["table"] for t in summaries})
                raise SoakError(f"table(s) {gone} of the soak closed (see the server's log)")
            meter.update(sum(t["games_played"] for t in summaries))
            if meter.samples and meter.samples[-1].games >= args.games:
                return meter.samples
            for t in summaries:
                if t["status"] == "waiting" and started < args.games:
                    started += 1
                    await client.start(t["table"])
    except ConnectionError as exc:
        raise SoakError(f"lost the server: {exc}") from exc
    finally:
        await client.close()


async def drive_tournament(port: int, args: argparse.Namespace, out: Path, make_meter: MeterFactory) -> list[Sample]:
    """``shithead-tournament`` against the same server; progress from its plain lines."""
    cmd = [
        sys.executable,
        "-m",
        "client.tournament",
        *args.bots,
        "--games",
        str(args.games),
        "--seats",
        str(len(args.bots)),
        "--preset",
        args.preset,
        "--concurrency",
        str(args.tables),
        "--server",
        f"{HOST}:{port}",
        "--out",
        str(out),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with (out.parent / "organiser.log").open("a", encoding="utf-8") as log:
        proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE, stderr=log, cwd=ROOT, env=env)
        try:
            assert proc.stdout is not None
            meter: Meter | None = None
            async for raw in proc.stdout:
                m = PROGRESS_RE.match(raw.decode(errors="replace").strip())
                if not m:
                    continue  # standings and other lines
                done, total = int(m.group(1)), int(m.group(2))
                if meter is None:  # the total is the organiser's: whole deals
                    meter = make_meter(total, proc.pid, out)
                meter.update(done)
            code = await proc.wait()
            if code != 0 or meter is None or not meter.samples or meter.samples[-1].games < meter.total:
                raise SoakError(f"the organiser exited with {code} (see {out.parent / 'organiser.log'})")
            return meter.samples
        finally:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20_000, help="games to finish (default 20000)")
    # 8: with the bots in a process of their own, 4 tables leave both processes waiting on each
    # other's round trips (1.5 games/s here against 2.2 with 8; 16 make no more, 2.1).
    ap.add_argument("--tables", type=int, default=8, help="tables at once (default 8; the tournament's --concurrency)")
    ap.add_argument("--preset", default="classic", help="rules preset (default classic)")
    ap.add_argument(
        "--bots",
        default="greedy,random,greedy,random",
        help="bundled bots, one per seat (the participants with --tournament); default greedy,random,greedy,random",
    )
    ap.add_argument("--tournament", action="store_true", help="run a tournament instead of the tables")
    ap.add_argument("--every", type=int, help="games per printed line (default a tenth of --games)")
    ap.add_argument("--db", type=Path, help="the server's SQLite file (default a fresh one in the temp dir; kept)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (database, logs, tournament files)")
    args = ap.parse_args(argv)
    args.bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if args.games < 1 or args.tables < 1 or len(args.bots) < 2:
        ap.error("--games and --tables must be positive and --bots must name at least two bots")
    return args


async def soak(args: argparse.Namespace, tmp: Path) -> list[Sample]:
    db: Path = args.db.resolve() if args.db else tmp / "soak.sqlite3"
    with server_process(db, tmp / "server.log") as (proc, port):
        before = db_bytes(db)
        began = time.perf_counter()  # reset for the tables once they are set up

        def meter(total: int, organiser: int | None, out: Path | None) -> Meter:
            every = args.every or max(1, -(-total // 10))
            # The tables' clock starts with their first game; the tournament's with the organiser
            # (its first stretch holds its start-up, which is what the first stretch is for).
            start = began if organiser is not None else time.perf_counter()
            m = Meter(total, every, proc.pid, db, before, start, organiser, out)
            m.header()
            return m

        if args.tournament:
            print(
                f"soak: tournament of {' '.join(args.bots)}, preset {args.preset}, {args.games} games, "
                f"concurrency {args.tables}; server pid {proc.pid} on {HOST}:{port}, database {db}",
                flush=True,
            )
            return await drive_tournament(port, args, tmp / "tournament", meter)
        print(
            f"soak: {args.tables} tables of {','.join(args.bots)}, preset {args.preset}, {args.games} games; "
            f"server pid {proc.pid} on {HOST}:{port}, database {db}",
            flush=True,
        )
        return await drive_tables(port, args, meter)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A soak runs for hours, often in the background: SIGTERM and SIGHUP unwind like Ctrl-C (and
    # SIGINT too, even if it was ignored when the run was started in the background), so that the
    # server child is stopped and the temporary directory removed on the way out.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    try:
        samples = asyncio.run(soak(args, tmp))
    except (SoakError, OSError, ConnectionError) as exc:
        print(f"soak: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if args.keep:
            print(f"kept: {tmp}", flush=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    verdict(samples, args.tournament)
    return 0


if __name__ == "__main__":
    sys.exit(main())
