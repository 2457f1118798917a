"""``shithead-tournament --ray``: a tournament's deal sets as tasks of a local Ray instance give the
games of one server. Ray is the ``cluster`` extra, which the test command installs; starting it
takes seconds, so this module plays one small tournament."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client.tournament.__main__ import main

from .reference import REFERENCE_ARGS, Outcome, outcome

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
