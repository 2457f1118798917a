"""The reference tournament that the deal-set runs (worker processes, Ray) must reproduce game for
game, and what of a run's output is compared."""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from client.tournament.__main__ import make_plan, parse_args
from client.tournament.organiser import Plan, Progress

QUIET = Progress(lambda done, total: None, lambda text: None)

#: Three seeded bots at tables of three: 9 games, 3 deals of 3 rotations each; greedy and random
#: bots are deterministic given their seeds, so the games are the same wherever they are played.
REFERENCE_ARGS = ["greedy", "random", "r2=random", "--seats=3", "--games=9", "--concurrency=2", "--seed=21"]
REFERENCE_ARGS += ["--seconds=30"]  # a slow machine must not turn a bot's move into a timeout


def reference_plan() -> Plan:
    return make_plan(parse_args(REFERENCE_ARGS))


@dataclass(frozen=True)
class Outcome:
    """What a run wrote that must not depend on where its games were played."""

    rows: list[dict[str, str]]
    """results.csv without server_game (the workers' servers are temporary), by game and seat."""
    actions: dict[str, dict[int, list[str]]]
    """Each record file's actions, seat by seat. (Not as one list: before the first play the
    seats swap cards at once, and the order in which a server receives their actions depends on
    timing, on one server as on many; each seat's own sequence does not.)"""
    standings: list[dict[str, object]]


def outcome(out: Path) -> Outcome:
    with (out / "results.csv").open(encoding="utf-8") as fh:
        rows = [{k: v for k, v in r.items() if k != "server_game"} for r in csv.DictReader(fh)]
    rows.sort(key=lambda r: (int(r["game"]), int(r["seat"])))
    actions: dict[str, dict[int, list[str]]] = {}
    for p in sorted((out / "records").iterdir()):
        by_seat = actions[p.name] = {}
        for seat, action in json.loads(gzip.decompress(p.read_bytes()))["record"]["actions"]:
            by_seat.setdefault(seat, []).append(action)
    return Outcome(rows, actions, json.loads((out / "standings.json").read_text())["standings"])
