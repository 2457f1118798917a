"""``shithead-tournament`` end to end: a real server child process, bundled bots and programs."""

from __future__ import annotations

import asyncio
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from client.cli.replay import Replay
from client.programs import BotProgram
from client.tournament.__main__ import main, make_plan, parse_args
from client.tournament.organiser import Entrant, Plan, Progress, run
from client.tournament.results import read_results
from server.tournament.standings import RatedGame, standings

QUIET = Progress(lambda done, total: None, lambda text: None)


def plan_of(*bots: str, **kw: object) -> Plan:
    return make_plan(parse_args([*bots, *[f"--{k}={v}" for k, v in kw.items()]]))


async def test_round_robin_of_bundled_bots_writes_consistent_results(tmp_path: Path) -> None:
    """Three bundled bots, tables of three: the CSV holds every game with every seat, each deal
    is played in all three rotations, the records are written, and the standings add up."""
    plan = plan_of("greedy", "random", "greedy", seats=3, games=9, concurrency=3, seed=4, seconds=30)
    out = tmp_path / "rr"
    figures = await run(plan, out, server=None, progress=QUIET)
    results = read_results(out / "results.csv")
    assert figures.games == 9 and [r.number for r in results] == list(range(9))
    assert [r.to_dict() for r in figures.rows()] == [r.to_dict() for r in standings(plan.names, results)]
    for deal in range(3):
        seatings = [r.seats for r in results if r.deal == deal]
        assert len(seatings) == 3
        for seat in range(3):
            assert sorted(s[seat] for s in seatings) == sorted(plan.names)
    assert sorted(p.name for p in (out / "records").iterdir()) == sorted(f"{i}.json.gz" for i in range(9))
    record = json.loads(gzip.decompress((out / "records" / "0.json.gz").read_bytes()))
    assert Replay(record).steps == len(record["record"]["actions"]) > 0  # what shithead replay reads
    game0 = next(r for r in results if r.number == 0)
    assert record["record"]["actions"] and record["players"] == list(game0.seats)
    doc = json.loads((out / "standings.json").read_text())
    assert doc["games_finished"] == 9 and {r["name"] for r in doc["standings"]} == {"greedy", "random", "greedy-2"}
    assert all(r["games"] == 9 for r in doc["standings"])
    assert sum(r["firsts"] for r in doc["standings"]) == 9


async def test_gauntlet_gives_the_hero_every_game(tmp_path: Path) -> None:
    """A gauntlet of 'greedy' against three others at tables of two."""
    plan = plan_of(
        "greedy",
        "random",
        "r2=random",
        "r3=random",
        seats=2,
        games=12,
        schedule="gauntlet",
        hero="greedy",
        concurrency=2,
        seed=9,
        seconds=30,
    )
    await run(plan, tmp_path / "g", server=None, progress=QUIET)
    results = read_results(tmp_path / "g" / "results.csv")
    assert len(results) == 12 and all("greedy" in r.seats for r in results)
    assert Counter(n for r in results for n in r.seats if n != "greedy") == {"random": 4, "r2": 4, "r3": 4}


async def test_an_interrupted_tournament_resumed_ends_like_an_uninterrupted_one(tmp_path: Path) -> None:
    """Stop a run after a few games, resume it from its directory: the final results and
    standings equal those of a run that was never interrupted (same seed, seeded bots)."""

    def make() -> Plan:
        return plan_of("greedy", "random", "r2=random", seats=3, games=12, concurrency=2, seed=21, seconds=30)

    whole_figures = await run(make(), tmp_path / "whole", server=None, progress=QUIET)
    whole = read_results(tmp_path / "whole" / "results.csv")

    out = tmp_path / "cut"
    plan = make()
    out.mkdir()
    plan.save(out / "tournament.json")
    task: asyncio.Task[object] | None = None

    def stop_early(done: int, total: int) -> None:
        if done >= 4 and task is not None:
            task.cancel()

    task = asyncio.ensure_future(run(plan, out, server=None, progress=Progress(stop_early, lambda t: None)))
    with pytest.raises(asyncio.CancelledError):
        await task
    partial = read_results(out / "results.csv")
    assert 4 <= len(partial) < 12
    resumed_figures = await run(Plan.load(out / "tournament.json"), out, server=None, progress=QUIET)
    resumed = read_results(out / "results.csv")

    def key(rs: list[RatedGame]) -> list[tuple[int, tuple[str, ...], tuple[int, ...]]]:
        return sorted((r.number, r.seats, r.places) for r in rs)

    assert key(resumed) == key(whole)
    assert [r.to_dict() for r in standings(plan.names, resumed)] == [r.to_dict() for r in standings(plan.names, whole)]
    # The figures the resumed run kept (earlier games read back, then its own) are the same.
    assert [r.to_dict() for r in resumed_figures.rows()] == [r.to_dict() for r in whole_figures.rows()]
    assert resumed_figures.head_to_head() == whole_figures.head_to_head()


CRASHER = """
import os, sys
from pathlib import Path
flag = Path(sys.argv[1])
if not flag.exists():  # the first start crashes at once; later starts play
    flag.write_text("crashed")
    sys.exit(3)
from client.hosting.command import main
sys.exit(main(["--bot", "greedy", *sys.argv[2:]]))
"""


async def test_a_crashing_program_is_restarted_and_its_crash_counted(tmp_path: Path) -> None:
    """A participant program that dies at its first start is started again, plays its games,
    and the crash is counted in standings.json."""
    script = tmp_path / "crasher.py"
    script.write_text(CRASHER)
    flag = tmp_path / "crashed.flag"
    cmd = (
        f"{sys.executable} {script} {flag} --host {{host}} --port {{port}} --tournament {{tournament}} "
        f"--name {{name}} --password {{password}}"
    )
    plan = make_plan(
        parse_args(
            ["greedy", "--engine", f"crashy={cmd}", "--seats", "2", "--games", "4", "--seed", "3", "--seconds", "30"]
        )
    )
    out = tmp_path / "crash"
    await run(plan, out, server=None, progress=QUIET)
    results = read_results(out / "results.csv")
    assert len(results) == 4 and all("crashy" in r.seats for r in results)
    doc = json.loads((out / "standings.json").read_text())
    assert doc["crashes"] == {"crashy": 1}
    assert flag.read_text() == "crashed"


STARTS = """
import sys
with open(sys.argv[1], "a") as f:  # one line per start; then exit 0
    f.write("started\\n")
"""


async def test_a_program_that_ends_with_the_tournament_is_no_crash(tmp_path: Path) -> None:
    """A program that exits while the tournament runs is restarted and counted; one that exits
    once the server says the tournament is over is neither (a player ends its run on
    ``tournament_over``, which the organiser may not have read yet when the exit is seen)."""
    script = tmp_path / "starts.py"
    script.write_text(STARTS)
    starts = tmp_path / "starts.txt"
    answers = iter([False, True])  # over? at the first exit: no; at the second: yes
    asked: list[bool] = []

    async def tournament_over() -> bool:
        asked.append(next(answers))
        return asked[-1]

    engine = BotProgram([sys.executable, str(script), str(starts)], tmp_path / "quits.log", tournament_over)
    async with asyncio.timeout(60):  # against a hang: an engine that restarts for ever
        await engine.keep_running()
    assert asked == [False, True]
    assert starts.read_text().splitlines() == ["started", "started"]
    assert engine.crash_count == 1


def test_command_line_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad command lines are refused with a message, before anything starts."""
    assert main(["greedy"]) == 2
    assert "at least two" in capsys.readouterr().err
    assert main(["greedy", "deep-blue"]) == 2
    assert "unknown bundled bot" in capsys.readouterr().err
    assert main(["greedy", "random", "--account", "x"]) == 2
    assert "--server" in capsys.readouterr().err
    out = tmp_path / "t"
    out.mkdir()
    Plan([Entrant("a", "bundled", bot="greedy"), Entrant("b", "bundled", bot="random")]).save(out / "tournament.json")
    assert main(["greedy", "random", "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
