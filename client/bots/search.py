"""The strong bundled bot: determinized Monte Carlo search over the pure rules engine.

At a play decision with more than one distinct choice, :class:`SearchBot` repeatedly

1. samples the hidden cards consistently with what its :class:`~client.bots.tracker.CardTracker`
   knows (known cards stay where they are; unseen cards are dealt at random into the
   opponents' unknown hand cards, every face-down position and the stock),
2. builds an engine :class:`~server.engine.Game` in that position
   (:func:`server.engine.position.game_from`),
3. for every candidate action: clones the game, applies the action and plays the game out with
   a fast playout policy for every seat (the engine's one greedy policy,
   :func:`server.engine.policies.greedy_policy`, which the greedy bot also plays), and scores
   the bot's finishing place (1 for first, 0 for the shithead, linear in between).

The same sample serves every candidate (common random numbers: the candidates are compared on
the same deals, which removes most of the noise of the comparison). Sampling stops at the time
``budget`` or after ``max_sims`` playouts, whichever comes first. Playouts longer than
``rollout_cap`` actions end as capped games (C18: fewest cards held places best).

The choice. The *default* is the playout policy's own choice. Another candidate is played only
if its mean score difference to the default, over the shared samples, is positive and more
than ``margin`` standard errors (of that paired difference) above zero. Why: most decisions
have several candidates whose true values differ by little, and picking the best of noisy
means then deviates from a sound default for no real reason; measured against the greedy bot
(``benchmarks/strength.py``, 1 search bot against 3 greedy ones, 60 playouts a decision, 400
games, before the drop rule below), ``margin=0`` gave a mean place of 2.55 (worse than the 2.5
of equal play), ``margin=1`` 2.23; 0.5, 1 and 1.5 were alike at 200 playouts (2.10-2.14).
After ``min_samples`` samples a candidate more than ``DROP_Z`` standard errors behind the
default gets no more playouts (the time goes to the others); when none is left, the default
is played at once. This comparison is :func:`client.bots.determinize.compare_paired`, shared
with the ismcts bot's paired-root variant; the sampling is its
:class:`~client.bots.determinize.Determinizer`.

Candidates are the legal actions up to equivalence: without suit runs the suits of a play
do not matter, so ``play 7h`` and ``play 7d`` are one candidate (so are pairs of 7s, and
``take 9c`` / ``take 9d``), and every ``flip`` is the same unknown card for the one who flips.

Setup (swap, place, ready) and the announce phase use the same greedy policy, on the view
(:func:`server.engine.policies.greedy_for_view`): the most valuable cards (power cards, then
high ranks) face up; announce the lowest plain card.

The bot reads nothing but the views and events given to :meth:`observe` / :meth:`choose`.
If the rules it assumes (see :func:`~client.bots.tracker.infer_rules`) do not reproduce the
view's legal list, it falls back to the greedy policy for that decision rather than search a
different game.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from client.bots.determinize import DeterminizingBot, candidate_key, compare_paired, place_score
from protocol.payloads import View
from server.engine import Game
from server.engine.actions import Action
from server.engine.game import OVER
from server.engine.policies import Policy, greedy_policy

__all__ = ["SearchBot", "candidate_key"]

Rollout = Policy
"""A playout policy ``(game, seat, rng) -> action``."""


class SearchBot(DeterminizingBot):
    """Determinized Monte Carlo search; see the module docstring.

    ``budget``: seconds of search per decision (``None``: no time limit, then ``max_sims``
    must be given). ``max_sims``: at most this many playouts per decision (``None``: no
    limit). With ``budget=None`` and a seeded ``rng`` the bot is deterministic.
    ``rollout_cap``: actions per playout before it is scored as capped. ``options``: rule
    overrides known to be in force (the view names only the preset). ``rollout``: the
    playout policy ``(game, seat, rng) -> action`` (default: the engine's
    :func:`~server.engine.policies.greedy_policy`).
    ``margin``: how many standard errors a candidate must beat the default by (see the module
    docstring; 0 plays the best mean). ``min_samples``: samples before candidates are dropped.
    ``stats`` counts decisions, searched decisions, playouts, deviations from the default and
    fallbacks to the view heuristic (over the bot's lifetime).
    """

    name: ClassVar[str] = "search"

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        budget: float | None = 0.1,
        max_sims: int | None = None,
        rollout_cap: int = 300,
        margin: float = 1.0,
        min_samples: int = 8,
        options: dict[str, Any] | None = None,
        rollout: Rollout | None = None,
        infer_pickups: bool = False,
    ) -> None:
        super().__init__(rng, rollout_cap=rollout_cap, options=options, infer_pickups=infer_pickups)
        if budget is None and max_sims is None:
            raise ValueError("give a time budget or max_sims (or both)")
        self.budget = budget
        self.max_sims = max_sims
        self.margin = margin
        self.min_samples = min_samples
        self.rollout = rollout or greedy_policy
        self.stats.update(playouts=0, deviations=0)

    # ------------------------------------------------------------------ search

    def _search(self, view: View, actions: list[Action], reps: dict[Any, int]) -> int:
        """Index (into ``actions``) of the chosen candidate; ``reps`` maps each candidate key to
        the index of its representative. See the module docstring for the rule."""
        dets = self._determinizer(view)
        me = dets.seat
        rng, policy = self.rng, self.rollout
        root = dets.game(rng, check=True)
        if not self._same_legal(root, me, view["legal"]):
            self.stats["fallbacks"] += 1
            return self.heuristic(view)
        # The default is the playout policy's own choice (it sees only our hand and the table,
        # so every sample agrees); the others must beat it on the same samples.
        default = reps.get(candidate_key(policy(root, me, rng), dets.rules.suit_runs), next(iter(reps.values())))
        order = [default] + [i for i in reps.values() if i != default]
        best, playouts = compare_paired(
            len(order),
            root,
            lambda: dets.game(rng),
            lambda game, j: self._playout(game, me, actions[order[j]], policy, rng),
            margin=self.margin,
            min_samples=self.min_samples,
            max_playouts=self.max_sims,
            budget=self.budget,
        )
        self.stats["searched"] += 1
        self.stats["playouts"] += playouts
        if best:
            self.stats["deviations"] += 1
        return order[best]

    @staticmethod
    def _playout(root: Game, me: int, action: Action, policy: Rollout, rng: random.Random) -> float:
        """Score of ``action`` in ``root`` played out by ``policy``: 1 first .. 0 last."""
        g = root.clone()
        g.apply(me, action)
        while g.phase != OVER:
            s = g.current
            g.apply(s, policy(g, s, rng))
        return place_score(g, me)
