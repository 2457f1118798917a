"""Standings, ratings and the results file."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path

from client.tournament.results import ResultsFile, read_results, write_standings_json
from server.tournament.payloads import standing_row
from server.tournament.schedule import schedule
from server.tournament.standings import (
    RatedGame,
    Standings,
    format_head_to_head,
    format_standings,
    head_to_head,
    round_head_to_head,
    round_rating,
    round_stat,
    standings,
)

NAMES = ["strong", "middle", "weak"]


def simulated(n_games: int, seed: int = 1) -> list[RatedGame]:
    """Games where 'strong' usually finishes ahead of 'middle', which is usually ahead of 'weak'."""
    rng = random.Random(seed)
    out = []
    for g in schedule(NAMES, table_size=3, games=n_games, master_seed=seed):
        skill = {"strong": 2.0, "middle": 1.0, "weak": 0.0}
        score = {seat: skill[name] + rng.gauss(0, 1.0) for seat, name in enumerate(g.seats)}
        places = tuple(sorted(score, key=lambda s: -score[s]))
        out.append(
            RatedGame(g.number, g.deal, g.seats, places, timeouts=(0, 1, 0), illegal=(0, 0, 0), disconnects=(0, 0, 0))
        )
    return out


def test_standings_order_and_counts() -> None:
    """The stronger participant is rated higher, with fewer losses and a lower mean place; the
    counters add up."""
    results = simulated(300)
    rows = standings(NAMES, results)
    assert [r.name for r in rows] == NAMES
    assert all(r.games == 300 for r in rows)
    assert sum(r.firsts for r in rows) == 300 and sum(r.losses for r in rows) == 300
    assert rows[0].mean_place < rows[1].mean_place < rows[2].mean_place
    assert rows[0].loss_rate < rows[2].loss_rate
    assert sum(r.timeouts for r in rows) == 300  # seat 1 timed out once per game
    assert all(r.rating_interval > 0 and r.mean_place_interval > 0 for r in rows)


def test_ratings_do_not_depend_on_the_order_games_finished() -> None:
    """Games are rated by game number, so shuffled results give identical standings."""
    results = simulated(90)
    shuffled = list(results)
    random.Random(5).shuffle(shuffled)
    assert [r.to_dict() for r in standings(NAMES, results)] == [r.to_dict() for r in standings(NAMES, shuffled)]


def test_one_rounding_rule_for_the_wire_and_standings_json() -> None:
    """Ratings to 3 decimals; statistics to 4, null when undefined; the wire's rows and
    standings.json's rows report the same numbers (one game: the intervals are undefined)."""
    assert round_rating(1.23456) == 1.235 and round_stat(0.123456) == 0.1235 and round_stat(math.nan) is None
    one_game = [RatedGame(0, 0, tuple(NAMES), (0, 1, 2))]
    for results in (one_game, simulated(30)):
        rows = standings(NAMES, results)
        assert [standing_row(i, r) for i, r in enumerate(rows, 1)] == [
            {"rank": i, **r.to_dict()} for i, r in enumerate(rows, 1)
        ]
    assert standing_row(1, standings(NAMES, one_game)[0])["mean_place_95"] is None
    h2h = head_to_head([*NAMES, "absent"], simulated(3))
    rounded = round_head_to_head(h2h)
    assert rounded["strong"]["absent"] is None and rounded["strong"]["weak"] == round(h2h["strong"]["weak"], 4)


def test_head_to_head_is_antisymmetric() -> None:
    """h2h[a][b] == -h2h[b][a]; the stronger one finishes ahead (negative difference)."""
    h2h = head_to_head(NAMES, simulated(90))
    for a in NAMES:
        for b in NAMES:
            if a != b:
                assert math.isclose(h2h[a][b], -h2h[b][a])
    assert h2h["strong"]["weak"] < 0
    assert len(format_head_to_head(NAMES, h2h)) == 4


def test_the_standings_fit_80_columns() -> None:
    """Long names, six-digit game counts, wide intervals: every line still fits 80 columns, and
    each row keeps its figures (the name is cut, not the numbers)."""
    long_names = ["a-very-long-participant-name", "greedy-2", "search"]
    rows = [
        dataclasses.replace(r, name=n, games=123_456, firsts=99_999, timeouts=999, illegal=999, disconnects=9999)
        for r, n in zip(standings(NAMES, simulated(9)), long_names, strict=True)
    ]
    lines = format_standings(rows, title="after 123456 games")
    assert all(len(line) <= 80 for line in lines), max(map(len, lines))
    assert [line.split()[1] for line in lines[2:]] == ["a-very-long-p", "greedy-2", "search"]
    assert all(line.split()[3] == "123456" and line.split()[-1] == "9999" for line in lines[2:])


def test_results_file_round_trip_and_torn_writes(tmp_path: Path) -> None:
    """Games written to the CSV read back equal; a torn last line and an incomplete game are
    dropped (so those games are played again on resume)."""
    path = tmp_path / "results.csv"
    results = simulated(12)
    f = ResultsFile(path)
    for r in results:
        f.add(r, seed=123, rotation=0, actions=50, server_game=r.number + 1)
    f.close()
    assert read_results(path) == results
    with path.open("a", encoding="utf-8") as fh:
        fh.write("12,4,123,0,3,0,strong,1,0,0,0,0,0,50,13\n")  # one seat of three of game 12
        fh.write("13,4,123,0,3,0,strong,1,0,0,0")  # torn line
    assert read_results(path) == results
    again = ResultsFile(path)  # reopening does not write a second header
    again.close()
    assert path.read_text().count("participant") == 1


def test_standings_json(tmp_path: Path) -> None:
    """The JSON holds the meta data, every participant ranked, and the head-to-head table."""
    results = simulated(30)
    out = tmp_path / "standings.json"
    figures = Standings(NAMES)
    for res in results:
        figures.add(res)
    write_standings_json(out, figures, {"preset": "classic", "master_seed": 1})
    doc = json.loads(out.read_text())
    assert doc["preset"] == "classic" and doc["games_finished"] == 30
    assert [row["rank"] for row in doc["standings"]] == [1, 2, 3]
    assert set(doc["head_to_head"]) == set(NAMES)
