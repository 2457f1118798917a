"""The server's entry point sets the garbage collector's schedule (server/shell/collector.py)
before it serves; a library user of App keeps its own."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from server.shell.collector import MIDDLE, OLD, YOUNG, schedule_for_latency

# In a child process: the schedule is process-wide, and main() also installs uvloop's policy.
PROBE = """
import asyncio, gc, json, sys
import server.__main__ as entry

seen = []

async def serve(config):
    seen.append(gc.get_threshold())

entry.serve = serve
before = gc.get_threshold()
code = entry.main(["--host", "127.0.0.1", "--port", "0", "--db", sys.argv[1], "--no-advertise", "--no-web"])
print(json.dumps({"code": code, "before": before, "serving": seen[0]}))
"""


def test_python_m_server_serves_with_the_latency_schedule(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "db.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"] == 0, out.stderr
    assert tuple(got["before"]) != (YOUNG, MIDDLE, OLD)  # CPython's own, until main() runs
    assert tuple(got["serving"]) == (YOUNG, MIDDLE, OLD)


def test_schedule_for_latency_sets_the_thresholds() -> None:
    kept = gc.get_threshold()
    try:
        schedule_for_latency()
        assert gc.get_threshold() == (YOUNG, MIDDLE, OLD)
    finally:
        gc.set_threshold(*kept)
