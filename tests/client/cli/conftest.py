"""The ``terminal`` fixture: a real pseudo-terminal (tmux) for the terminal client's tests."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.client.cli.terminal import Terminal


@pytest.fixture
async def terminal(tmp_path: Path) -> AsyncIterator[Terminal]:
    assert shutil.which("tmux"), "tmux is needed for the terminal tests"
    term = Terminal(tmp_path)
    yield term
    term.close()
    term.release()
