"""Fit the weights of the truncated-playout estimate (``client/bots/value.py``).

    python benchmarks/fit_value.py                  # 20,000 games, seed 7: the shipped weights
    python benchmarks/fit_value.py --games 2000     # a quicker look

Plays ``--games`` four-player classic games with the engine's greedy policy at every seat,
samples play-phase positions (each with probability ``--rate``), and for every pair of seats
still in at a sampled position records the difference of their features
(:func:`client.bots.value.features`) and which of the two finished first. The weights are the
maximum-likelihood fit of the pairwise logistic model of ``client/bots/value.py`` (no
intercept: the model is antisymmetric), by Newton's method. Prints the weights, ready to paste
as ``WEIGHTS``, with the share of pairs the fit orders right and its log loss.

Needs numpy (installed with the ``[rl]`` extra, which the test command installs).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from client.bots.value import FEATURES, features
from server.engine import Game, make_rules
from server.engine.policies import greedy_policy, keep_values

SEATS = 4


def pairs(games: int, seed: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """Feature differences ``f(a) - f(b)`` and labels (1 when ``a`` finished after ``b``) for
    every pair of seats still in at the sampled positions of ``games`` greedy games."""
    rules = make_rules("classic")
    rng = random.Random(seed)
    xs: list[list[int]] = []
    ys: list[float] = []
    for _ in range(games):
        g = Game.new(rules, SEATS, rng=rng)
        kv = keep_values(g.pw)
        samples: list[list[tuple[int, tuple[int, ...]]]] = []
        while g.phase != "over":
            s = g.current if g.phase != "setup" else g.to_act()[0]
            if g.phase == "play" and rng.random() < rate:
                samples.append([(t, features(g, t, kv)) for t in range(SEATS) if not g.out[t]])
            g.apply(s, greedy_policy(g, s, rng))
        assert g.places is not None
        place = {t: i for i, t in enumerate(g.places)}
        for sample in samples:
            for i, (a, fa) in enumerate(sample):
                for b, fb in sample[i + 1 :]:
                    xs.append([x - y for x, y in zip(fa, fb, strict=True)])
                    ys.append(1.0 if place[a] > place[b] else 0.0)
    return np.array(xs, dtype=float), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, steps: int = 30) -> np.ndarray:
    """Maximum-likelihood weights of ``P(y = 1) = 1 / (1 + exp(-x · w))`` (Newton's method)."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) / len(x)
        hessian = (x * (p * (1.0 - p))[:, None]).T @ x / len(x) + 1e-9 * np.eye(x.shape[1])
        w -= np.linalg.solve(hessian, gradient)
    return w


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=float, default=0.05, help="share of play-phase positions sampled")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    x, y = pairs(args.games, args.seed, args.rate)
    w = fit(x, y)
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    right = float(np.mean((p > 0.5) == (y > 0.5)))
    loss = float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
    print(f"{args.games} games, seed {args.seed}: {len(x)} pairs of seats, {time.perf_counter() - start:.0f} s")
    for name, weight in zip(FEATURES, w, strict=True):
        print(f"  {weight:+.4f}  {name}")
    print(f"ordered right: {100 * right:.1f} %, log loss {loss:.3f}")
    print("WEIGHTS = (" + ", ".join(f"{v:.4f}" for v in w) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
