"""The observation encoder and action mask of the learning environment (``client/rl/observe.py``):
fixed size, within bounds, the mask exactly the legal set, and nothing but the seat's view."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from client.rl.actions import BLOCKS, N_ACTIONS, action_text  # noqa: E402
from client.rl.observe import LAYOUT, MAX_SEATS, OBS_SIZE, action_mask, encode, segment  # noqa: E402
from server.engine import (  # noqa: E402
    Game,
    make_rules,
    parse_action,
    preset_info,
    preset_names,
    stack_deck,
    view_for,
)


def test_rl_md_shows_the_tables_of_the_code() -> None:
    """docs/RL.md's action table and observation table are the code's blocks and segments, row
    for row, with their offsets."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "RL.md").read_text(encoding="utf-8")
    for b in BLOCKS:
        assert f"| `{b.name}` | {b.start}-{b.start + b.size - 1} | {b.size} | {b.description} |" in doc
    at = 0
    for s in LAYOUT:
        assert f"| `{s.name}` | {at} | {s.size} | {s.description} |" in doc
        at += s.size
    assert f"Discrete({N_ACTIONS})" in doc and f"Box(0, 1, ({OBS_SIZE},), float32)" in doc


def test_the_layout_adds_up() -> None:
    """The segments tile the vector; the sizes are those docs/RL.md states."""
    assert sum(s.size for s in LAYOUT) == OBS_SIZE == 1194
    assert MAX_SEATS == max(preset_info(p).max_players for p in preset_names()) == 9
    assert len({s.name for s in LAYOUT}) == len(LAYOUT)


@pytest.mark.parametrize("preset", preset_names())
def test_the_mask_is_the_legal_set_and_the_vector_stays_in_bounds(preset: str) -> None:
    """Along a random game at the preset's largest table, for every seat at every step: the mask
    has a 1 exactly at the indices of the view's legal texts, and the observation is float32 of
    the fixed size, in [0, 1], marking the observer's own seat in slot 0."""
    seats = preset_info(preset).max_players
    game = Game.new(make_rules(preset), seats, seed=3)
    rng = random.Random(3)
    steps = 0
    while game.outcome() is None and steps < 400:
        for s in range(seats):
            view = view_for(game, s)
            mask = action_mask(view)
            assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
            assert sorted(action_text(i) for i in np.flatnonzero(mask)) == sorted(view["legal"])
            obs = encode(view)
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert segment(obs, "seated")[:seats].all() and not segment(obs, "seated")[seats:].any()
            assert segment(obs, "hand").sum() * 4 == pytest.approx(len(view["hand"]))
        s = rng.choice(game.to_act())
        game.apply(s, rng.choice(game.legal_actions(s)))
        steps += 1


def test_hidden_cards_do_not_reach_the_observation() -> None:
    """Two deals identical in all seat 0 may see (its hand, every face-up card, the counts) but
    different in seat 1's hand, the face-down cards and the stock's order give seat 0 the same
    observation, before and after seat 0's own setup swaps; seat 1's observation differs (its
    hand does), so the comparison can fail."""
    rules = make_rules("classic")
    face_up = {0: ["4c", "Kd", "2h"], 1: ["6s", "Jc", "Ah"]}
    deck_a = stack_deck(
        rules,
        2,
        0,
        hands={0: ["3c", "5d", "9h"], 1: ["8c", "8d", "Qs"]},
        face_up=face_up,
        face_down={0: ["Ts", "Td", "Tc"], 1: ["7c", "7d", "7h"]},
        stock=["As", "Ks", "Qh"],
    )
    deck_b = stack_deck(
        rules,
        2,
        0,
        hands={0: ["3c", "5d", "9h"], 1: ["4d", "5s", "Jh"]},
        face_up=face_up,
        face_down={0: ["2c", "2d", "3s"], 1: ["Qc", "Qd", "9c"]},
        stock=["6c", "6d", "6h"],
    )
    a = Game.new(rules, 2, dealer=0, deck=deck_a)
    b = Game.new(rules, 2, dealer=0, deck=deck_b)
    assert a.hand(1) != b.hand(1) and a.face_down != b.face_down and a.stock != b.stock
    for action in ("swap 9h 1", "swap Kd 2", "ready"):
        va, vb = view_for(a, 0), view_for(b, 0)
        assert np.array_equal(encode(va), encode(vb))
        assert np.array_equal(action_mask(va), action_mask(vb))
        assert not np.array_equal(encode(view_for(a, 1)), encode(view_for(b, 1)))
        for g in (a, b):
            g.apply(0, parse_action(action))
    assert np.array_equal(encode(view_for(a, 0)), encode(view_for(b, 0)))


def test_server_decorations_are_ignored_and_spectators_refused() -> None:
    """Keys a server adds to a view (names, clocks, away...) leave the vector unchanged; a
    spectator's view (no seat) is refused."""
    game = Game.new(make_rules("karma"), 3, seed=5)
    view = view_for(game, 2)
    wire = {**view, "clocks": [{"seat": 2, "left": 9.5, "bank": 0.0}], "players": [dict(p) for p in view["players"]]}
    for p in wire["players"]:
        p.update(name="x", bot=True, away=False, timeouts=3)
    assert np.array_equal(encode(view), encode(wire))
    with pytest.raises(ValueError):
        encode(view_for(game, None))
