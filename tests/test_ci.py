"""CI runs the README's test command, character for character (one command, two places)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run the tests (one command)", 1)[1]
    command = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_lines[-1] == command
    for check in ("ruff check", "ruff format --check", "mypy", "pytest", "mypyc_build.py test"):
        assert check in command, f"the test command does not run {check}"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    installed = command.split(".[", 1)[1].split("]", 1)[0].split(",")
    assert sorted(installed) == sorted(extras), "CI must install every optional extra"
