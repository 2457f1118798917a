"""``shithead-tournament --ray``: a tournament's deal sets as tasks of a local Ray instance give the
games of one server. Ray is the ``cluster`` extra, which the test command installs; starting it
takes seconds, so this module starts it once and plays one small tournament, whole and
interrupted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.tournament.__main__ import main
from client.tournament.organiser import Plan, Progress, run
from client.tournament.results import read_results

from .reference import QUIET, REFERENCE_ARGS, Outcome, outcome, reference_plan

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance of two CPUs for this module (the organiser uses a connection this
    process already has, and leaves it open), shut down at the end."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_tasks_play_the_games_of_one_server(
    local_ray: None, reference: Outcome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference tournament from the command line with ``--ray``: the same games, records
    and standings as on one server, and Ray still connected afterwards (the connection was the
    caller's)."""
    out = tmp_path / "r"
    assert main([*REFERENCE_ARGS, "--ray", "local", "--out", str(out)]) == 0
    assert "deal sets on Ray" in capsys.readouterr().out
    assert outcome(out) == reference
    assert ray.is_initialized()


def test_an_interrupted_ray_run_resumes_to_the_same_results(
    local_ray: None, reference: Outcome, tmp_path: Path
) -> None:
    """Cancel a Ray run once its first task's games are filed: the tasks still running are
    cancelled, and a resumed run on Ray plays only the missing games, ending with the
    reference's results."""
    out = tmp_path / "cut"
    plan = reference_plan()
    out.mkdir()
    plan.save(out / "tournament.json")

    async def interrupted() -> None:
        task: asyncio.Task[object] | None = None

        def stop_early(done: int, total: int) -> None:
            if done >= 3 and task is not None:
                task.cancel()

        progress = Progress(stop_early, lambda text: None)
        task = asyncio.ensure_future(run(plan, out, progress=progress, workers=None, ray_address="local"))
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    partial = read_results(out / "results.csv")
    assert 3 <= len(partial) < 9
    asyncio.run(run(Plan.load(out / "tournament.json"), out, progress=QUIET, workers=None, ray_address="local"))
    assert outcome(out) == reference
    assert ray.is_initialized()
