"""The perfect-information bot: the ceiling of the strength ladder (benchmark only).

:class:`PerfectBot` is :class:`client.bots.ismcts.ISMCTSBot` given the true game instead of a
guess: every "determinization" it searches is the real position, with every hand, face-down
card and the order of the stock (so its tree search is plain MCTS on the true state, and its
playouts play the real future deals). It cheats by construction, so it lives here, outside
``client/``: it is not in the bot catalogue, and no server can seat it. ``benchmarks/strength.py``
hands it the game with :meth:`Oracle.watch` before each game.

Everything else (setup and announce by the greedy policy, the tree, the playouts, the budget,
the rule for the final choice) is the ismcts bot's, so the gap between the two on the ladder
is what knowing the hidden cards is worth to that search.

:class:`HandsBot` is the half-way oracle: it sees the opponents' hands but not the order of
the stock or any face-down card (its own included); those are dealt at random, as a fair bot
deals them. Between the ismcts bot and it lies what a perfect reading of the opponents' hands
could win (the card tracker's inferences aim at that part); between it and the perfect bot,
what the stock and the face-down cards are worth, which no fair bot can know.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.bots.determinize import Determinizer
from client.bots.ismcts import ISMCTSBot
from client.bots.tracker import CardTracker
from protocol.payloads import View
from server.engine import Game
from server.engine.position import game_from

__all__ = ["HandsBot", "Oracle", "PerfectBot", "TrueDeal", "TrueHands"]


class TrueDeal(Determinizer):
    """A "determinizer" that always deals the true hidden cards of ``truth`` (the live game).

    The public part of the position (face-up cards, pile, turn, caps) comes from the tracker
    exactly as for the fair bots; only the hidden zones are read from the game."""

    def __init__(self, tracker: CardTracker, view: View, actions_left: int, truth: Game) -> None:
        super().__init__(tracker, view, actions_left)
        self.truth = truth

    def game(self, rng: random.Random, check: bool = False) -> Game:
        t = self.truth
        return game_from(
            self.rules,
            t.n,
            hands=[t.hand(s) for s in range(t.n)],
            face_down=t.face_down,
            stock=t.stock[::-1],  # the engine keeps the top of the stock last; game_from wants it first
            burned=t.burned,
            check=check,
            **self.fixed,
        )


class TrueHands(TrueDeal):
    """A determinizer that deals every hand as it truly is (the opponents' too) and the rest of
    the hidden cards (face-down cards, the stock) at random among themselves, anew each time."""

    def game(self, rng: random.Random, check: bool = False) -> Game:
        t = self.truth
        pool = [c for row in t.face_down for c in row if c is not None] + list(t.stock)
        rng.shuffle(pool)
        cards = iter(pool)
        face_down = [[None if c is None else next(cards) for c in row] for row in t.face_down]
        return game_from(
            self.rules,
            t.n,
            hands=[t.hand(s) for s in range(t.n)],
            face_down=face_down,
            stock=list(cards),
            burned=t.burned,
            check=check,
            **self.fixed,
        )


class Oracle(ISMCTSBot):
    """ISMCTS handed the live game (benchmark only); call :meth:`watch` with the game first.

    What of the game its determinizations deal is the subclass's ``deal``: the true position
    (:class:`PerfectBot`) or the true hands only (:class:`HandsBot`)."""

    deal: ClassVar[type[TrueDeal]]

    def __init__(self, rng: random.Random | None = None, **kwargs: Any) -> None:
        super().__init__(rng, **kwargs)
        self.truth: Game | None = None

    def watch(self, game: Game) -> None:
        """Let the bot see ``game`` (the live game it plays in) from now on."""
        self.truth = game

    def _determinizer(self, view: View) -> Determinizer:
        if self.truth is None:
            raise RuntimeError(f"{type(self).__name__}.watch(game) was not called")
        return self.deal(self.tracker, view, self.rollout_cap, self.truth)


class PerfectBot(Oracle):
    """ISMCTS on the true state (sees every card).

    Its playouts run to the end (``horizon=0`` unless given): on the true deal a playout is
    the real future under the playout policy, and cutting it short for an estimate would throw
    away the very knowledge the ceiling is there to measure."""

    name: ClassVar[str] = "perfect"
    deal: ClassVar[type[TrueDeal]] = TrueDeal

    def __init__(self, rng: random.Random | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("horizon", 0)
        super().__init__(rng, **kwargs)


class HandsBot(Oracle):
    """ISMCTS that sees every hand but deals the stock and the face-down cards at random (the
    half-way oracle of the module docstring). Its playouts are the ismcts bot's (truncated,
    by default): the future is as unknown to it as to a fair bot."""

    name: ClassVar[str] = "hands"
    deal: ClassVar[type[TrueDeal]] = TrueHands
