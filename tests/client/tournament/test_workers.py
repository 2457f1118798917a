"""``shithead-tournament --workers N``: deal sets played by worker processes, each on a server of
its own, give the games of one server; an interrupted run resumes; deal sets cover the games."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from client.programs import LocalServer
from client.tournament import jobs
from client.tournament.__main__ import main, make_plan, parse_args
from client.tournament.jobs import deal_sets, outside, play_deal_set
from client.tournament.organiser import Plan, Progress, run
from client.tournament.play import PlayedGame
from client.tournament.results import read_results
from server.tournament.ranges import count, merge

from .reference import QUIET, Outcome, outcome, reference_plan


async def test_worker_processes_play_the_games_of_one_server(reference: Outcome, tmp_path: Path) -> None:
    """Two worker processes, each deal set on a private server: the same games (numbers,
    deals, seeds, seats, places, actions, every record's actions) and standings as the run on
    one server."""
    out = tmp_path / "w"
    figures = await run(reference_plan(), out, server=None, progress=QUIET, workers=2)
    assert figures.games == 9
    assert outcome(out) == reference
    # The workers' servers were temporary: no game id of theirs is kept.
    assert (out / "results.csv").read_text().splitlines()[1].endswith(",")


async def test_an_interrupted_workers_run_resumes_to_the_same_results(reference: Outcome, tmp_path: Path) -> None:
    """Cancel a run of two workers after its third game: the running jobs are stopped, their
    games not yet sent are lost, and a resumed run plays only the missing games, ending with the
    reference's results."""
    out = tmp_path / "cut"
    plan = reference_plan()
    out.mkdir()
    plan.save(out / "tournament.json")
    task: asyncio.Task[object] | None = None

    def stop_early(done: int, total: int) -> None:
        if done >= 3 and task is not None:
            task.cancel()

    task = asyncio.ensure_future(run(plan, out, progress=Progress(stop_early, lambda t: None), workers=2))
    with pytest.raises(asyncio.CancelledError):
        await task
    partial = {r.number for r in read_results(out / "results.csv")}
    assert 3 <= len(partial) < 9
    played: list[int] = []

    def note(done: int, total: int) -> None:
        played.append(done)

    await run(Plan.load(out / "tournament.json"), out, progress=Progress(note, lambda t: None), workers=2)
    assert played == list(range(len(partial) + 1, 10))  # only the missing games were played
    assert outcome(out) == reference


def test_deal_sets_cover_the_missing_games_in_whole_deals() -> None:
    """Every game not played is in exactly one set; a set never splits a deal; short
    tournaments are cut finer than long ones; the complement of a set is what its server skips."""
    plan = reference_plan()  # 9 games, deals of 3
    sets = deal_sets(plan, merge([0, 1, 2, 4]), slots=2)

    def numbers(ranges: tuple[tuple[int, int], ...]) -> list[int]:
        return [n for first, last in ranges for n in range(first, last + 1)]

    assert sorted(n for s in sets for n in numbers(s)) == [3, 5, 6, 7, 8]
    deal_of = {spec.number: spec.deal for spec in plan.game_specs()}
    deals_of_sets = [{deal_of[n] for n in numbers(s)} for s in sets]
    assert sum(len(d) for d in deals_of_sets) == len(set().union(*deals_of_sets))  # no deal in two sets
    assert sets == [((3, 3), (5, 5)), ((6, 8),)]
    long = Plan(plan.entrants, seats=3, games=30_000)
    long_sets = deal_sets(long, (), slots=2)
    assert sum(count(s) for s in long_sets) == 30_000 and max(count(s) for s in long_sets) == 63
    assert outside(((3, 3), (5, 5)), 9) == ((0, 2), (4, 4), (6, 8))
    assert outside(((0, 8),), 9) == () and outside((), 3) == ((0, 2),)


def test_command_line_checks_where_games_are_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Impossible combinations of --server, --workers and --ray are refused before anything
    starts, and so are a plan that cannot be scheduled and --ray without Ray installed (saying
    how to install it)."""
    base = ["greedy", "random", "--out", str(tmp_path / "t")]
    assert main(["greedy", "random", "--seats", "3", "--out", str(tmp_path / "s")]) == 2  # before any server
    assert "cannot fill a table of 3" in capsys.readouterr().err
    assert main([*base, "--workers", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
    assert main([*base, "--server", "127.0.0.1:1", "--workers", "2"]) == 2
    assert "--server" in capsys.readouterr().err
    assert main([*base, "--server", "127.0.0.1:1", "--ray", "auto"]) == 2
    assert "one of them" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as when it is not installed
    assert main([*base, "--ray", "local"]) == 2
    assert "pip install -e '.[cluster]'" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


CRASH_ONCE = """
import os, sys
try:  # the first start of all, whichever worker made it, crashes at once; the others play
    os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
except FileExistsError:
    from client.hosting.command import main
    sys.exit(main(["--bot", "greedy", *sys.argv[2:]]))
sys.exit(3)
"""


async def test_engine_programs_are_started_by_every_worker_and_their_crashes_added_up(tmp_path: Path) -> None:
    """An --engine program in a workers run: each deal set's worker starts it with its own
    server's address, it plays every game of its participant, and its one crash (in whichever
    worker) is counted once in standings.json."""
    script = tmp_path / "crash_once.py"
    script.write_text(CRASH_ONCE)
    flag = tmp_path / "crashed.flag"
    cmd = (
        f"{sys.executable} {script} {flag} --host {{host}} --port {{port}} --tournament {{tournament}} "
        f"--name {{name}} --password {{password}}"
    )
    plan = make_plan(parse_args(["greedy", "--engine", f"crashy={cmd}", "--seats=2", "--games=4", "--seconds=30"]))
    out = tmp_path / "e"
    await run(plan, out, progress=QUIET, workers=2)
    results = read_results(out / "results.csv")
    assert [r.number for r in results] == [0, 1, 2, 3] and all("crashy" in r.seats for r in results)
    assert len({r.deal for r in results}) == 2  # two deals: two deal sets, one per worker
    assert json.loads((out / "standings.json").read_text())["crashes"] == {"crashy": 1}
    assert flag.exists()


async def test_a_deal_set_whose_server_dies_fails_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job whose private server exits mid-set fails at once, saying so, instead of waiting out
    its clients' reconnect window (minutes); its participants are stopped."""
    started: list[LocalServer] = []

    class Watched(LocalServer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(jobs, "LocalServer", Watched)
    played: list[PlayedGame] = []

    def kill_after_the_first(game: PlayedGame) -> None:
        played.append(game)
        started[0].proc.kill()

    async with asyncio.timeout(60):  # far below the reconnect window: the exit itself must end the job
        with pytest.raises(RuntimeError, match="exited"):
            await play_deal_set(reference_plan(), ((0, 8),), on_game=kill_after_the_first, log_dir=tmp_path)
    assert len(played) >= 1 and started[0].proc.returncode is not None
