"""The garbage collector's schedule for a serving process: many short pauses, rare long ones.

CPython collects its youngest generation when the allocations of container objects exceed
the deallocations by ``threshold0`` (700 by default). A server that keeps what it sends until
the next change (each table's players' entries and each seat's part of the view,
:mod:`server.tables.coordination`) allocates new containers as it frees old ones: the count
hardly moves while the young generation fills with the new ones. Measured on this project's
machine (2026-11-28, compiled build, 1,000 connections playing paced, 2,200-2,400 actions/s;
``benchmarks/server.py --gc-pauses``, and ``gc.get_objects(0)`` counted at each collection by a
probe): with the default schedule a young collection came every 0.3 s and examined
10,000-15,000 objects (mostly those entries, their dicts and lists), 5-11 ms of the event
loop's CPU each, and the middle one every 4 s took 10-17 ms: pauses that every ``ok`` arriving
meanwhile waits out, about 2 % of the time, which is where an action's p99 lives.

:func:`schedule_for_latency` collects the young generation after 50 net allocations instead
(it examines a few hundred objects, well under a millisecond) and the middle generation after
1,000 young collections instead of 10 (what survives there is mostly freed by reference
counting before it is examined). The collector's total work stays about the same; its pauses
become short. Cyclic garbage waits longer to be found: seconds, not milliseconds.

Process-wide, so the entry point calls it (``python -m server``), never the library: tests
and programs that embed an :class:`~server.shell.app.App` keep their own schedule.
"""

from __future__ import annotations

import gc
from typing import Final

YOUNG: Final = 50
"""Net container allocations that start a collection of the youngest generation."""
MIDDLE: Final = 1000
"""Young collections that start a collection of the middle generation."""
OLD: Final = 10
"""Middle collections before the oldest generation is considered (CPython's default)."""


def schedule_for_latency() -> None:
    """Set the collector's thresholds for a server (see the module docstring)."""
    gc.set_threshold(YOUNG, MIDDLE, OLD)
