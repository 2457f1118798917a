"""Deal-set jobs as Ray tasks: ``shithead-tournament --ray ADDRESS``.

Ray is the distributed engine the bot authors already know (issue 14 names it), and an optional
extra (``pip install -e '.[cluster]'``): it is imported only here, only when ``--ray`` is given.
Each deal set (:mod:`client.tournament.jobs`) is one task that runs
:func:`client.tournament.jobs.play_deal_set` on whichever node Ray picks, with a private server
there, and returns the set's games with their records; the organiser files them as each task
ends. So every node needs this package installed, in the Python that runs ``ray start``, and
the ``--engine`` commands must work there too (same programs at the same paths).

Ray retries a task whose worker or node died (its default ``max_retries``): a retried job plays
its deal set from the start, and only the attempt that ends returns games, so none is filed
twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict
from types import ModuleType
from typing import Any

from client.tournament.jobs import play_deal_set
from client.tournament.plan import Plan
from client.tournament.play import Crashes, PlayedGame
from server.tournament.ranges import Range, merge

__all__ = ["RayWorkers", "play_deal_set_task", "require_ray"]

#: Seconds a cancelled task gets to stop its server and programs before Ray is left alone.
CANCEL_GRACE = 30.0


def require_ray() -> ModuleType:
    """The ``ray`` module. Raises ``RuntimeError`` saying how to install it when it is missing."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "--ray needs Ray, which is not installed: pip install -e '.[cluster]' (on every machine of the cluster)"
        ) from None
    return ray


def play_deal_set_task(plan: dict[str, Any], games: list[list[int]]) -> dict[str, Any]:
    """The Ray task: play the deal set ``games`` (ranges of game numbers) of ``plan`` (as
    :meth:`Plan.to_dict`) on this node; its games (``PlayedGame`` maps) and crashes, as plain
    values. Runs in a Ray worker, which imports it from this module."""
    played: list[dict[str, Any]] = []
    crashes = asyncio.run(
        play_deal_set(Plan.from_dict(plan), merge(ranges=games), on_game=lambda game: played.append(asdict(game)))
    )
    return {"games": played, "crashes": asdict(crashes)}


class RayWorkers:
    """Deal sets played as Ray tasks (one CPU each) on the cluster at ``address``: ``auto``
    (the cluster ``ray start`` set up on this machine), ``HOST:6379``, ``ray://...`` or
    ``local`` (a new Ray instance on this machine, shut down by :meth:`close`). If this process
    is connected to Ray already (``ray.is_initialized()``), that connection is used and left
    open. ``slots``: tasks at once (None: the cluster's CPUs). Raises ``RuntimeError`` when
    Ray is not installed."""

    def __init__(self, address: str, slots: int | None = None) -> None:
        if slots is not None and slots < 1:
            raise ValueError("workers must be at least 1")
        self._ray = ray = require_ray()
        self._own = not ray.is_initialized()
        if self._own:
            extra = {"include_dashboard": False} if address == "local" else {}
            ray.init(address=address, **extra)
        self.address = address
        self.cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = slots or max(1, self.cpus)
        self._task = ray.remote(num_cpus=1)(play_deal_set_task)

    def describe(self) -> str:
        return f"Ray at {self.address} ({self.cpus} CPUs, {self.slots} tasks at once)"

    async def play(self, plan: Plan, games: Sequence[Range], on_game: Callable[[PlayedGame], None]) -> Crashes:
        ray = self._ray
        ref = self._task.remote(plan.to_dict(), [list(r) for r in games])
        try:
            out: dict[str, Any] = await ref
        except asyncio.CancelledError:
            # Ray interrupts the task, whose clean-up stops its server and programs; waiting
            # for that keeps them from outliving a local Ray instance that is shut down next.
            ray.cancel(ref)
            await asyncio.to_thread(ray.wait, [ref], timeout=CANCEL_GRACE)
            raise
        except ray.exceptions.RayError as exc:
            raise RuntimeError(f"the Ray task playing games {games[0][0]}-{games[-1][1]} failed: {exc}") from exc
        for game in out["games"]:
            on_game(PlayedGame(**game))
        return Crashes(**out["crashes"])

    async def close(self) -> None:
        if self._own:
            self._ray.shutdown()
