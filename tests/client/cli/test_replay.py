"""``shithead replay``: stepping through a record, rendered as text."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from client.cli.render import Theme, plain_lines
from client.cli.replay import Replay, load, main, render_step
from server.engine import Game, ReplayRecord, make_rules

PLAIN = Theme(color=False, symbols=False)


def finished_record(seed: int = 3) -> dict:
    game = Game.new(make_rules("classic", {}), 3, seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        seat = game.to_act()[0]
        legal = [a for a in game.legal_actions(seat) if a[0] != "take"] or list(game.legal_actions(seat))
        game.apply(seat, rng.choice(legal))
    d = ReplayRecord.of(game).to_dict()
    d["players"] = ["ann", "bob", "cid"]
    return {"id": 1, "table_name": "demo", "preset": "classic", "record": d}


def test_steps_forward_and_back_agree_with_a_fresh_replay() -> None:
    """The game at any step is the same whether reached forwards, backwards or directly."""
    data = finished_record()
    replay = Replay(data)
    rec = ReplayRecord.from_dict(data["record"])
    for step in [0, 5, replay.steps, 70, 3, replay.steps // 2, 1]:
        step = min(step, replay.steps)
        game, _ = replay.game_at(step)
        direct = rec.replay(step)
        assert [game.hand(s) for s in range(3)] == [direct.hand(s) for s in range(3)]
        assert game.pile == direct.pile and game.version == direct.version


def test_render_shows_the_deal_each_action_and_the_end() -> None:
    """Step 0 says who dealt; a later step names the action; the last one the shithead;
    every line fits 80 columns and names every player."""
    replay = Replay(finished_record())
    first = plain_lines(render_step(replay, 0, PLAIN))
    assert any("dealt" in line for line in first)
    assert all(name in "\n".join(first) for name in ("ann", "bob", "cid"))
    second = "\n".join(plain_lines(render_step(replay, 1, PLAIN)))
    assert "action 1/" in second
    last = "\n".join(plain_lines(render_step(replay, replay.steps, PLAIN)))
    assert "shithead" in last
    for step in range(0, replay.steps + 1, 7):
        assert all(len(line) <= 80 for line in plain_lines(render_step(replay, step, PLAIN)))


def test_printing_a_record_file_and_refusing_a_bad_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--print`` writes every step; a file that is no record is refused in words."""
    good = tmp_path / "7.json"
    good.write_text(json.dumps(finished_record()))
    assert main([str(good), "--print", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert out.count("action ") == Replay(load(good)).steps + 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    assert main([str(bad), "--print"]) == 1
    assert "not a game record" in capsys.readouterr().err
