"""Cluster speed: games/s of one tournament on one server, on local worker processes, and on
1, 2 ... local Ray workers.

The tournament of ``benchmarks/tournament.py`` (a round-robin of 4-player classic games among
two random and two greedy bundled bots, duplicate deals), played by ``shithead-tournament``'s
own machinery:

* **one server**: the organiser's private server (``--workers 1``), the reference;
* **N worker processes** (N from 2; ``--workers 1`` is the one-server run): ``--workers N``,
  each deal set on a private server of its own;
* **N Ray workers**: a local Ray instance started with ``num_cpus=N`` (so N tasks at once),
  the deal sets as Ray tasks (``--ray``). Ray's start-up is not timed: a cluster runs for
  many tournaments.

It prints games/s of each and the ratio to one server. Nothing is asserted: the machine is
shared and noisy, and a deal set's server and its bots are two busy processes, so N workers
want about 2N cores.

    .venv/bin/python benchmarks/cluster.py [--games 200] [--max-workers 2] [--no-ray]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.tournament import plan_of
from client.tournament.organiser import Plan, Progress, run


def timed(plan: Plan, out: Path, *, workers: int | None = 1, ray_address: str | None = None) -> float:
    """Seconds to play ``plan`` into ``out`` (``workers``, ``ray_address``: as run() takes them)."""
    quiet = Progress(lambda done, total: None, lambda text: None)
    began = time.perf_counter()
    figures = asyncio.run(run(plan, out, progress=quiet, workers=workers, ray_address=ray_address))
    seconds = time.perf_counter() - began
    assert figures.games == plan.total_games, "not every game was played"
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=2, help="tables at once on each server (default 2)")
    ap.add_argument("--max-workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-ray", action="store_true", help="only one server and local worker processes")
    args = ap.parse_args()
    plan = plan_of(args.games, args.seed, args.concurrency)
    games = plan.total_games
    print(
        f"Cluster benchmark: {games} classic 4-player games, 2 random + 2 greedy bots, duplicate deals, "
        f"concurrency {args.concurrency} per server, master seed {args.seed}, {os.cpu_count()} cores"
    )
    figures: list[tuple[str, float]] = []

    def report(label: str, seconds: float) -> None:
        rate = games / seconds
        base = figures[0][1] if figures else rate
        figures.append((label, rate))
        print(
            f"{label:<22} {rate:8.2f} games/s  ({seconds:6.1f} s)   ratio to one server: {rate / base:5.2f}", flush=True
        )

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        report("one server", timed(plan, root / "one", workers=1))
        for n in range(2, args.max_workers + 1):  # --workers 1 is the one-server run
            report(f"{n} worker processes", timed(plan, root / f"w{n}", workers=n))
        if args.no_ray:
            return
        try:
            import ray
        except ImportError:
            print("Ray is not installed (pip install -e '.[cluster]'): no Ray figures")
            return
        for n in range(1, args.max_workers + 1):
            ray.init(address="local", num_cpus=n, include_dashboard=False, log_to_driver=False)
            try:
                seconds = timed(plan, root / f"r{n}", workers=n, ray_address="local")
            finally:
                ray.shutdown()
            report(f"{n} Ray worker{'s' if n > 1 else ''}", seconds)


if __name__ == "__main__":
    main()
