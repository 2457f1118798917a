"""A reference tournament played once per session on one server (:mod:`.reference`)."""

from __future__ import annotations

import asyncio

import pytest

from client.tournament.organiser import run

from .reference import QUIET, Outcome, outcome, reference_plan


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    """The reference tournament on one server (``workers=1``, the path of ``--server``)."""
    out = tmp_path_factory.mktemp("reference") / "t"
    asyncio.run(run(reference_plan(), out, server=None, progress=QUIET, workers=1))
    result = outcome(out)
    assert len(result.rows) == 27 and len(result.actions) == 9
    return result
