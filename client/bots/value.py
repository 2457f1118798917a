"""A quick estimate of every seat's final score in an unfinished game: for truncated playouts.

A playout to the end of the game is the search bots' way to score a position, and most of its
noise comes from the cards dealt long after the decision. :func:`estimate_scores` instead
reads the position a few moves later: each seat still in gets a *burden* ``b = w · f`` (more
is worse) from a few features ``f`` of what it holds (:func:`features`), and seat ``a``
finishes before seat ``b`` with probability ``1 / (1 + exp(b_a - b_b))`` (a pairwise logistic
model, as Bradley and Terry compare players). A seat's expected place is the seats already
out, plus one, plus the probabilities that each other seat still in finishes first; its score
is that place on the bots' scale (1 for first .. 0 for the shithead, linear in between).
Seats already out get their exact score. Over all seats the scores add up to exactly what the
places of a finished game add up to.

The weights :data:`WEIGHTS` were fitted by ``benchmarks/fit_value.py`` (maximum likelihood
over every pair of seats still in, at positions sampled from games of the engine's greedy
policy; classic rules, four players). On other rules and table sizes the same features and
weights are an approximation: the features are read through the rules' powers (a "power"
card is whatever the preset makes a reset, burn or glass card), so they stay meaningful.

Only the engine's public game state is read; a search bot calls it on its own
determinizations, never on a server's game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from server.engine import Game
from server.engine.cards import RANK
from server.engine.policies import POWER, keep_values

__all__ = ["FEATURES", "WEIGHTS", "burden", "estimate_scores", "features"]

FEATURES = (
    "hand cards",
    "hand cards once the stock is empty",
    "face-up cards",
    "face-down cards",
    "power cards in hand",
    "power cards face up",
    "low cards in hand (keep value 7 or less)",
    "high plain cards in hand (queen or better)",
    "pile size, if the seat is to play on it",
    "the seat is to play",
)
"""What :func:`features` measures, in order."""

WEIGHTS = (0.0336, 0.0615, 0.2177, 0.4144, -0.0597, -0.2323, 0.0632, -0.098, 0.0269, -0.1565)
"""Burden per unit of each feature (``benchmarks/fit_value.py``: 20,000 greedy games, seed 7,
413,557 pairs of seats; 66.7 % of the pairs ordered right, log loss 0.609)."""

LOW = 7
"""A hand card of keep value up to this (a plain 3 .. 7 in classic) is *low*."""
HIGH = 12
"""A plain hand card of keep value from this (queen, king, ace in classic) is *high*."""


def features(g: Game, s: int, kv: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The features of seat ``s`` in play-phase game ``g`` (see :data:`FEATURES`). ``kv``: the
    keep values of ``g``'s powers (:func:`server.engine.policies.keep_values`), if at hand."""
    if kv is None:
        kv = keep_values(g.pw)
    hand = g.hand_n[s]
    power = low = high = 0
    for r, cards in g.groups[s].items():
        k = kv[r]
        if k >= POWER:
            power += len(cards)
        elif k <= LOW:
            low += len(cards)
        elif k >= HIGH:
            high += len(cards)
    up = up_power = 0
    for stack in g.face_up[s]:
        if stack:
            up += len(stack)
            if kv[RANK[stack[0]]] >= POWER:
                up_power += len(stack)
    down = sum(c is not None for c in g.face_down[s])
    to_play = g.current == s
    return (
        hand,
        0 if g.stock else hand,
        up,
        down,
        power,
        up_power,
        low,
        high,
        len(g.pile) if to_play else 0,
        1 if to_play else 0,
    )


def burden(g: Game, s: int, kv: tuple[int, ...] | None = None) -> float:
    """``WEIGHTS · features(g, s)``: how far seat ``s`` is from going out (more is worse)."""
    return sum(w * x for w, x in zip(WEIGHTS, features(g, s, kv), strict=True))


def place_scores(order: Sequence[int], n: int) -> list[float]:
    """The score of each of ``n`` seats by place: the ``i``-th seat of ``order`` (first place
    first) gets ``1 - i / (n - 1)``, 1 for first place .. 0 for the shithead, linear in
    between; a seat not in ``order`` gets 0. The one definition of a finished seat's score."""
    last = n - 1
    scores = [0.0] * n
    for i, s in enumerate(order):
        scores[s] = 1.0 - i / last
    return scores


def estimate_scores(g: Game) -> list[float]:
    """Every seat's expected score (1 first .. 0 last) in play-phase game ``g`` (see the module
    docstring); exact for the seats already out (:func:`place_scores`)."""
    n = g.n
    last = n - 1
    scores = place_scores(g.finish, n)
    kv = keep_values(g.pw)
    left = [s for s in range(n) if not g.out[s]]
    burdens = [burden(g, s, kv) for s in left]
    done = len(g.finish)
    for i, s in enumerate(left):
        b = burdens[i]
        ahead = sum(1.0 / (1.0 + math.exp(c - b)) for j, c in enumerate(burdens) if j != i)
        scores[s] = 1.0 - (done + ahead) / last
    return scores
