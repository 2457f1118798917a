"""The truncated-playout estimate (``client/bots/value.py``) and the script that fits it.

* The estimates of a position add up to what a finished game's scores add up to, seats already
  out get their exact score, and every estimate lies between 0 and 1.
* A seat with fewer cards left is estimated ahead of one with more, the rest being equal.
* ``benchmarks/fit_value.py`` recovers, from a small run, weights of the expected signs.
"""

from __future__ import annotations

import random

import pytest

from client.bots.value import FEATURES, WEIGHTS, burden, estimate_scores, features, place_scores
from server.engine import Game, build_deck, make_rules, parse_card
from server.engine.policies import greedy_policy
from server.engine.position import game_from
from server.engine.rules import PRESETS


def _positions(preset: str, seats: int, seed: int) -> list[Game]:
    """Every play-phase position of one greedy game (copies)."""
    rng = random.Random(seed)
    game = Game.new(make_rules(preset), seats, rng=rng)
    out = []
    while game.phase != "over":
        s = game.current if game.phase != "setup" else game.to_act()[0]
        if game.phase == "play":
            out.append(game.clone())
        game.apply(s, greedy_policy(game, s, rng))
    return out


def test_place_scores_are_linear_from_first_to_last() -> None:
    """First place scores 1, the shithead 0, linearly between; seats not yet placed score 0."""
    assert place_scores([2, 0, 3, 1], 4) == pytest.approx([2 / 3, 0.0, 1.0, 1 / 3])
    assert place_scores([1], 3) == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_estimates_add_up_and_are_exact_for_seats_out(preset: str) -> None:
    """Every preset (the weights were fitted on classic; the features read any rules)."""
    seats = min(4, make_rules(preset).max_players)
    positions = _positions(preset, seats, seed=seats)
    assert any(p.finish for p in positions)  # some positions have seats out
    for game in positions:
        scores = estimate_scores(game)
        assert sum(scores) == pytest.approx(seats / 2)  # 1 + (n-2)/(n-1) + ... + 0
        assert all(0.0 <= x <= 1.0 for x in scores)
        for i, s in enumerate(game.finish):
            assert scores[s] == 1.0 - i / (seats - 1)


def test_fewer_cards_left_is_estimated_ahead() -> None:
    """Seats 0 and 1 hold the same ranks but seat 1 has one face-down card less: only that
    feature differs, and seat 1 is estimated ahead of seat 0."""
    rules = make_rules("classic")
    cards = [parse_card(t) for t in "4c 5c 6c Kc Qc Jc 4d 5d 6d Kd Qd Jd".split()]
    hands = [cards[0:3], cards[6:9]]
    face_up = [[[c] for c in cards[3:6]], [[c] for c in cards[9:12]]]
    rest = [c for c in build_deck(1, 0) if c not in cards]
    hands += [rest[0:3], rest[3:6]]
    face_up += [[[c] for c in rest[6:9]], [[c] for c in rest[9:12]]]
    face_down: list[list[int | None]] = [rest[12 + 3 * s : 15 + 3 * s] for s in range(4)]
    gone = rest[17]  # seat 1's last face-down card, played long ago
    face_down[1][2] = None
    game = game_from(
        rules,
        4,
        hands=hands,
        face_up=face_up,
        face_down=face_down,
        stock=[],
        pile=[],
        burned=[*rest[24:], gone],
        current=2,
    )
    f0, f1 = features(game, 0), features(game, 1)
    assert [i for i in range(len(FEATURES)) if f0[i] != f1[i]] == [FEATURES.index("face-down cards")]
    assert f1[3] == f0[3] - 1
    assert burden(game, 1) < burden(game, 0)
    scores = estimate_scores(game)
    assert scores[1] > scores[0]


def test_the_fit_recovers_weights_of_the_expected_signs() -> None:
    """From 300 greedy games: cards face down and face up weigh against a seat, power cards
    face up for it; the fit orders most pairs right. The shipped weights have the same signs."""
    np = pytest.importorskip("numpy")  # the [rl] extra brings it; the test command installs it
    from benchmarks import fit_value

    x, y = fit_value.pairs(300, seed=1, rate=0.05)
    assert len(x) > 1000 and set(y) == {0.0, 1.0}
    w = fit_value.fit(x, y)
    assert len(w) == len(FEATURES) == len(WEIGHTS)
    down, up = FEATURES.index("face-down cards"), FEATURES.index("face-up cards")
    up_power = FEATURES.index("power cards face up")
    assert w[down] > 0 and w[up] > 0 and w[up_power] < 0
    assert WEIGHTS[down] > 0 and WEIGHTS[up] > 0 and WEIGHTS[up_power] < 0
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    assert ((p > 0.5) == (y > 0.5)).mean() > 0.6
