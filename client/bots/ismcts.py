"""Information-set Monte Carlo tree search: the bundled ``ismcts`` bot.

:class:`ISMCTSBot` is single-observer ISMCTS (SO-ISMCTS; Cowling, Powley and Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012). One tree is grown for the
decision at hand; its nodes stand for information sets of the deciding seat: a node is
reached by a sequence of actions (everyone's, as the seat observes them) from the current
position, whatever the hidden cards were. Each iteration

1. **determinizes**: deals the hidden cards at random, consistently with what the seat's
   :class:`~client.bots.tracker.CardTracker` knows (:class:`~client.bots.determinize.Determinizer`,
   shared with the search bot);
2. **selects**: from the root, while every action available *in this determinization* has a
   child, moves to the child of highest UCB value among the available ones, from the point of
   view of the seat that acts there (each seat maximises its own score)::

       mean + c * sqrt(ln(availability) / visits) + bias * [greedy's choice] / (visits + 1)

   The availability of a child counts the visits of its parent in which it was legal (the
   SO-ISMCTS correction: a rare action is not punished for being rarely possible). The last
   term is a progressive bias toward the engine's greedy choice, which fades with visits: with
   a few hundred iterations a decision, unexplored opponent moves would otherwise be modelled
   as random play, while the opponents actually play well;
3. **expands** one untried available action (the greedy choice first when it is untried);
   forced moves (one candidate) are passed through without spending the expansion. With
   ``widen`` > 0 (default 4), nodes below the decision root widen progressively: a node whose available
   children number ``k`` (greedy's first) gets another only after ``widen * k**2`` visits, so
   that a rarely visited continuation is played as greedy would rather than explored at random;
4. **plays out** the game with the engine's greedy policy for every seat
   (:func:`server.engine.policies.greedy_policy`) for at most ``horizon`` actions (default
   12), then scores every seat by :func:`client.bots.value.estimate_scores`, a fitted estimate
   of its final score from what each seat holds then; a playout that ends the game first (or
   every playout, with ``horizon=0``) is scored per seat by place (1 for first, 0 for the
   shithead, linear in between; playouts longer than ``rollout_cap`` actions end as capped
   games, C18). Why truncate: most of a full playout's noise comes from cards dealt long after
   the decision, and a short playout costs a fraction of a long one, so the comparison of the
   candidates gets more samples, each less noisy; measured in ``docs/STRENGTH.md``;
5. **backpropagates** each node's visit and the score of the seat that acted into it.

Actions are grouped up to equivalence for the seat that takes them
(:func:`~client.bots.determinize.candidate_key`: ``play 7h`` and ``play 7d`` are one edge).

The choice at the root: the most visited child, unless it is not clearly better than the
greedy choice (mean score above the greedy child's by more than ``margin`` standard errors
of the difference), in which case the greedy choice is played. The same rule keeps the search
bot from deviating on noise.

Variants (options), all measured against the search bot in ``docs/STRENGTH.md``; the defaults
are the variant that measured best there (the paired root, greedy opponents, widening 4,
pick-up inference, playouts truncated after 12 actions):

* ``tree_opponents`` (default off): on, the opponents' moves are chosen in the tree by UCB
  from their own point of view, as above; off, they are played by the greedy policy (their
  moves are still edges of the tree, as observed, so the seat's later decisions stay
  information sets) and only the seat's own decisions are searched;
* ``paired_root`` (default on): the root candidates are compared as the search bot compares
  them (:func:`~client.bots.determinize.compare_paired`: every candidate on the same
  determinization, dropped when clearly behind, the greedy choice kept unless another beats it
  by ``margin`` standard errors of the paired difference), each played out through its own
  SO-ISMCTS subtree instead of by greedy alone (the root's UCB and the rule above are then
  not used);
* ``infer_pickups`` (default on): the tracker reads an opponent's pick-up as "it had nothing
  to play" and deals accordingly (:class:`~client.bots.tracker.CardTracker`).

Setup, the announce phase, forced moves and fallbacks are
:class:`~client.bots.determinize.DeterminizingBot`'s: the greedy policy on the view. The bot
reads nothing but the views and events a seat receives; the tree is rebuilt for each decision.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, ClassVar

from client.bots.determinize import Determinizer, DeterminizingBot, candidate_key, compare_paired
from client.bots.value import estimate_scores, place_scores
from protocol.payloads import View
from server.engine import Game
from server.engine.actions import Action
from server.engine.game import OVER
from server.engine.policies import Policy, greedy_policy

__all__ = ["ISMCTSBot"]


class _Node:
    """An information set of the searching seat, reached through the edge from its parent.

    ``seat`` took the action of that edge; ``visits`` and ``total`` (``total_sq``) count the
    iterations through it and the sum (of squares) of that seat's scores; ``avail`` counts the
    parent's visits in which the edge was available."""

    __slots__ = ("avail", "children", "seat", "total", "total_sq", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.total_sq = 0.0
        self.avail = 0

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


class ISMCTSBot(DeterminizingBot):
    """SO-ISMCTS with greedy playouts, truncated and scored by an estimate; see the module
    docstring.

    ``budget``: seconds of search per decision (``None``: no time limit, then
    ``max_iterations`` must be given). ``max_iterations``: at most this many iterations per
    decision (``None``: no limit; with ``paired_root`` an iteration is one candidate's
    playout). With ``budget=None`` and a seeded ``rng`` the bot is
    deterministic. ``exploration``: the UCB constant ``c``. ``bias``: weight of the progressive
    bias toward the greedy choice. ``margin``: standard errors by which the most visited root
    child must beat the greedy choice (0: always the most visited). ``tree_opponents``,
    ``paired_root`` (with ``min_samples``, its rounds before dropping a candidate),
    ``infer_pickups``, ``infer_plays`` and ``widen``: the variants of the module docstring.
    ``horizon``: actions of a playout before its position is scored by the estimate (0: play
    to the end). ``rollout``: the playout policy ``(game, seat, rng) -> action``. ``rollout_cap`` and ``options``: see
    :class:`~client.bots.determinize.DeterminizingBot`. ``stats`` adds ``iterations`` and
    ``deviations`` (decisions where the choice was not greedy's).
    """

    name: ClassVar[str] = "ismcts"

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        budget: float | None = 0.1,
        max_iterations: int | None = None,
        exploration: float = 0.7,
        bias: float = 0.5,
        margin: float = 1.0,
        tree_opponents: bool = False,
        paired_root: bool = True,
        min_samples: int = 8,
        infer_pickups: bool = True,
        infer_plays: bool = False,
        widen: float = 4.0,
        horizon: int = 12,
        rollout_cap: int = 300,
        options: dict[str, Any] | None = None,
        rollout: Policy | None = None,
    ) -> None:
        super().__init__(
            rng, rollout_cap=rollout_cap, options=options, infer_pickups=infer_pickups, infer_plays=infer_plays
        )
        if budget is None and max_iterations is None:
            raise ValueError("give a time budget or max_iterations (or both)")
        self.budget = budget
        self.max_iterations = max_iterations
        self.exploration = exploration
        self.bias = bias
        self.margin = margin
        self.tree_opponents = tree_opponents
        self.paired_root = paired_root
        self.min_samples = min_samples
        self.widen = widen
        self.horizon = horizon
        self.rollout = rollout or greedy_policy
        self.stats.update(iterations=0, deviations=0)

    def _search(self, view: View, actions: list[Action], reps: dict[Any, int]) -> int:
        """Index (into ``actions``) of the chosen candidate after growing the tree."""
        dets = self._determinizer(view)
        me, rng = dets.seat, self.rng
        suit_runs = dets.rules.suit_runs
        game = dets.game(rng, check=True)
        if not self._same_legal(game, me, view["legal"]):
            self.stats["fallbacks"] += 1
            return self.heuristic(view)
        default_key = (me, candidate_key(self.rollout(game, me, rng), suit_runs))
        if self.paired_root:
            return self._paired(game, dets, me, actions, reps, default_key[1])
        root = _Node(-1)
        deadline = None if self.budget is None else time.perf_counter() + self.budget
        iterations = 0
        while True:
            self._backpropagate(self._iterate(root, game, me, suit_runs, rng))
            iterations += 1
            if (self.max_iterations is not None and iterations >= self.max_iterations) or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                break
            game = dets.game(rng)
        self.stats["searched"] += 1
        self.stats["iterations"] += iterations
        key = self._final(root, default_key)
        if key != default_key:
            self.stats["deviations"] += 1
        return reps.get(key[1], reps.get(default_key[1], 0))

    def _paired(
        self, game: Game, dets: Determinizer, me: int, actions: list[Action], reps: dict[Any, int], default: Any
    ) -> int:
        """The paired-root variant: the root candidates are compared on common determinizations
        (:func:`~client.bots.determinize.compare_paired`, the search bot's rule), each played
        out through its own SO-ISMCTS subtree."""
        rng, suit_runs = self.rng, dets.rules.suit_runs
        order = [reps.get(default, next(iter(reps.values())))]
        order += [i for i in reps.values() if i != order[0]]
        nodes = [_Node(me) for _ in order]

        def score(g: Game, j: int) -> float:
            g = g.clone()
            g.apply(me, actions[order[j]])
            path, scores = self._iterate(nodes[j], g, me, suit_runs, rng)
            self._backpropagate(([nodes[j], *path], scores))
            return scores[me]

        best, playouts = compare_paired(
            len(order),
            game,
            lambda: dets.game(rng),
            score,
            margin=self.margin,
            min_samples=self.min_samples,
            max_playouts=self.max_iterations,
            budget=self.budget,
        )
        self.stats["searched"] += 1
        self.stats["iterations"] += playouts
        if best:
            self.stats["deviations"] += 1
        return order[best]

    def _final(self, root: _Node, default_key: Any) -> Any:
        """The key of the root child to play (see the module docstring's rule)."""
        best_key, best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].mean()))
        default = root.children.get(default_key)
        if default is None or best is default or not self.margin:
            return best_key
        if best.visits < 2 or default.visits < 2:
            return default_key
        diff = best.mean() - default.mean()
        se = math.sqrt(_variance(best) / best.visits + _variance(default) / default.visits)
        return best_key if diff > self.margin * se else default_key

    def _iterate(
        self, root: _Node, game: Game, me: int, suit_runs: bool, rng: random.Random
    ) -> tuple[list[_Node], list[float]]:
        """One iteration of SO-ISMCTS from ``root`` on determinization ``game`` (consumed) for
        seat ``me``: selection, expansion and the playout. Returns the nodes passed below
        ``root`` and every seat's score, for :meth:`_backpropagate`."""
        c, bias, rollout, widen = self.exploration, self.bias, self.rollout, self.widen
        opponents_choose = self.tree_opponents
        node = root
        path: list[_Node] = []
        expanded = False
        while game.phase != OVER:
            s = game.current
            legal = game.legal_actions(s)
            if len(legal) == 1:
                keyed = {(s, candidate_key(legal[0], suit_runs)): legal[0]}
            elif s != me and not opponents_choose:
                # Opponents modelled by the playout policy: their move is observed, not chosen.
                a = rollout(game, s, rng)
                keyed = {(s, candidate_key(a, suit_runs)): a}
            else:
                keyed = {}
                for a in legal:
                    keyed.setdefault((s, candidate_key(a, suit_runs)), a)
            children = node.children
            if len(keyed) == 1:
                # A forced move: follow (or grow) the tree without spending the expansion.
                ((key, action),) = keyed.items()
                child = children.get(key)
                if child is None:
                    if expanded:
                        break
                    child = children[key] = _Node(s)
                child.avail += 1
            else:
                if expanded:
                    break
                greedy_key = (s, candidate_key(rollout(game, s, rng), suit_runs))
                untried = [k for k in keyed if k not in children]
                for k in keyed:
                    ch = children.get(k)
                    if ch is not None:
                        ch.avail += 1
                if untried and widen and node.seat >= 0 and greedy_key not in untried:
                    # Progressive widening below the decision root: another child only once
                    # the node has the visits to judge it (see the module docstring).
                    tried = len(keyed) - len(untried)
                    if tried * tried * widen > node.visits:
                        untried = []
                if untried:
                    key = greedy_key if greedy_key in untried else rng.choice(untried)
                    child = children[key] = _Node(s)
                    child.avail = 1
                    expanded = True
                else:
                    best_v = -math.inf
                    key = greedy_key
                    for k in keyed:
                        ch = children.get(k)
                        if ch is None:
                            continue  # not yet widened to
                        v = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                        if k == greedy_key:
                            v += bias / (ch.visits + 1)
                        if v > best_v:
                            best_v, key = v, k
                    child = children[key]
                action = keyed[key]
            game.apply(s, action)
            path.append(child)
            node = child
        horizon = self.horizon
        steps = 0
        while game.phase != OVER:
            if horizon and steps >= horizon:
                return path, estimate_scores(game)
            s = game.current
            game.apply(s, rollout(game, s, rng))
            steps += 1
        places = game.places
        assert places is not None
        return path, place_scores(places, game.n)

    @staticmethod
    def _backpropagate(walk: tuple[list[_Node], list[float]]) -> None:
        """Count a visit and the score of the seat that acted into each node of the walk."""
        path, scores = walk
        for nd in path:
            x = scores[nd.seat]
            nd.visits += 1
            nd.total += x
            nd.total_sq += x * x


def _variance(node: _Node) -> float:
    """Sample variance of the scores through ``node`` (at least 2 visits)."""
    k = node.visits
    m = node.total / k
    return max(0.0, (node.total_sq - k * m * m) / (k - 1))
