"""Simple engine-level policies for simulations and benchmarks: random and greedy.

A policy is a callable ``(game, seat, rng) -> action`` that returns one of
``game.legal_actions(seat)``. These read the engine state directly and are meant for
``shithead-sim`` and the benchmarks; the bundled network bots are written against the wire
view instead (so they cannot cheat).

Greedy, in words:

* setup: swap the best cards face up (2s, 10s and other power cards, then high ranks), then
  ready; announce the lowest ordinary card;
* play the lowest ordinary rank that is legal, all copies of it at once; keep power cards
  (2, 10, glass, ...) until nothing else goes, then use the cheapest one, burning first when
  the pile is large;
* pick up only when nothing else is legal (draw, gamble, take are last resorts); flip the
  first face-down card; give up the lowest face-up card with a pick-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import ANNOUNCE, DRAW, FLIP, GAMBLE, PASS, PLACE, PLAY, READY, RUN, SWAP, TAKE, Action
from .game import Game

Policy = Callable[[Game, int, Any], Action]


def random_policy(game: Game, seat: int, rng: Any) -> Action:
    """A uniformly random legal action."""
    return rng.choice(game.legal_actions(seat))


def _keep_value(game: Game, c: int) -> int:
    """How much a card is worth keeping (higher = better kept for later / face up)."""
    r = c >> 2
    pw = game.pw
    if pw.burn[r] or pw.reset[r] or pw.glass[r]:
        return 100 + r
    if pw.anywhere[r] or pw.lower[r]:
        return 50 + r
    return pw.value[r]


def _setup(game: Game, seat: int, legal: tuple[Action, ...]) -> Action:
    # The swap (or placement) that moves the most valuable hand card face up.
    best, gain = None, 0
    for a in legal:
        if a[0] == SWAP:
            out = game.face_up[seat][a[2]][0]
            g = _keep_value(game, a[1]) - _keep_value(game, out)
        elif a[0] == PLACE:
            g = 1000 + _keep_value(game, a[1])  # placing is required before ready
        else:
            continue
        if g > gain:
            best, gain = a, g
    if best is not None:
        return best
    return next(a for a in legal if a[0] == READY)


def greedy_policy(game: Game, seat: int, rng: Any = None) -> Action:
    """The documented greedy heuristic (see the module docstring)."""
    legal = game.legal_actions(seat)
    kind0 = legal[0][0]
    if kind0 in (SWAP, PLACE, READY):
        return _setup(game, seat, legal)
    if kind0 in (ANNOUNCE, PASS):
        anns = [a for a in legal if a[0] == ANNOUNCE]
        if not anns:
            return legal[-1]
        return min(anns, key=lambda a: _keep_value(game, a[1]))
    if kind0 == FLIP:
        return legal[0]
    plays = [a for a in legal if a[0] in (PLAY, RUN)]
    if plays:
        ordinary = [a for a in plays if _keep_value(game, a[1][0]) < 50]
        if ordinary:
            # Lowest rank first, then the most cards (get rid of all copies at once).
            return min(ordinary, key=lambda a: (_keep_value(game, a[1][0]), -len(a[1])))
        big_pile = len(game.pile) >= 6
        return min(
            plays, key=lambda a: (not (big_pile and game.pw.burn[a[1][0] >> 2]), _keep_value(game, a[1][0]), len(a[1]))
        )
    for kind in (GAMBLE, DRAW):
        for a in legal:
            if a[0] == kind:
                return a
    takes = [a for a in legal if a[0] == TAKE]
    return min(takes, key=lambda a: _keep_value(game, a[1]) if len(a) == 2 else 0)


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}
