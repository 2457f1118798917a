"""A tournament's results on disk: one CSV row per game and seat, written as each game ends.

The CSV is the tournament's memory: ``--resume`` reads it back, skips the games it holds and
plays the rest, and the standings are always computed from it (in game-number order), so an
interrupted and resumed tournament ends with exactly the results of an uninterrupted one.
Each game's rows are written and flushed (and fsynced) together, so a crash loses at most the
games still being played, never part of a game. A partial last line (a crash mid-write) is
ignored on reading.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.tournament.standings import RatedGame, Standings, round_head_to_head

COLUMNS = (
    "game",
    "deal",
    "seed",
    "rotation",
    "seats",
    "seat",
    "participant",
    "place",
    "loser",
    "capped",
    "timeouts",
    "illegal",
    "disconnects",
    "actions",
    "server_game",
)


class ResultsFile:
    """Appends finished games to ``path`` (creating it with a header line)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self._fh = self.path.open("a", newline="", encoding="utf-8")
        if new:
            self._write_rows([COLUMNS])

    def _write_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        self._fh.write(buf.getvalue())
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def add(self, res: RatedGame, *, seed: int, rotation: int, actions: int, server_game: int | None) -> None:
        """Write the rows of one finished game at once."""
        n = len(res.seats)
        rows = []
        for seat, name in enumerate(res.seats):
            place = res.place_of(seat)
            rows.append(
                (
                    res.number,
                    res.deal,
                    seed,
                    rotation,
                    n,
                    seat,
                    name,
                    place,
                    int(place == n),
                    int(res.capped),
                    res.timeouts[seat] if res.timeouts else 0,
                    res.illegal[seat] if res.illegal else 0,
                    res.disconnects[seat] if res.disconnects else 0,
                    actions,
                    "" if server_game is None else server_game,
                )
            )
        self._write_rows(rows)

    def close(self) -> None:
        self._fh.close()


def read_results(path: str | Path) -> list[RatedGame]:
    """The finished games in ``path`` (none if it does not exist), by game number. A game
    whose rows are incomplete (a torn write) is left out, so it is played again."""
    p = Path(path)
    if not p.exists():
        return []
    text = p.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]  # drop a partial last line
    by_game: dict[int, list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        by_game.setdefault(int(row["game"]), []).append(row)
    out = []
    for number in sorted(by_game):
        rows = sorted(by_game[number], key=lambda r: int(r["seat"]))
        n = len(rows)
        whole = n == int(rows[0]["seats"]) and [int(r["seat"]) for r in rows] == list(range(n))
        if not whole or sorted(int(r["place"]) for r in rows) != list(range(1, n + 1)):
            continue
        places = tuple(int(r["seat"]) for r in sorted(rows, key=lambda r: int(r["place"])))
        out.append(
            RatedGame(
                number=number,
                deal=int(rows[0]["deal"]),
                seats=tuple(r["participant"] for r in rows),
                places=places,
                capped=rows[0]["capped"] == "1",
                timeouts=tuple(int(r["timeouts"]) for r in rows),
                illegal=tuple(int(r["illegal"]) for r in rows),
                disconnects=tuple(int(r["disconnects"]) for r in rows),
            )
        )
    return out


def write_standings_json(path: str | Path, figures: Standings, meta: dict[str, Any]) -> None:
    """Standings, head-to-head and the tournament's settings as JSON (written atomically)."""
    doc = {
        **meta,
        "games_finished": figures.games,
        "standings": [{"rank": i, **r.to_dict()} for i, r in enumerate(figures.rows(), 1)],
        "head_to_head": round_head_to_head(figures.head_to_head()),
    }
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
