"""What the search bots share: guessing the hidden cards, and the bot around a search.

Both :class:`~client.bots.search.SearchBot` (flat Monte Carlo) and
:class:`~client.bots.ismcts.ISMCTSBot` (a tree over information sets) decide by playing out
*determinizations*: engine games in which every card the seat cannot see has been dealt at
random, consistently with what its :class:`~client.bots.tracker.CardTracker` knows.

* :class:`Determinizer` turns the tracker's knowledge and the current view into such games,
  one per call (:meth:`Determinizer.game`), with :func:`server.engine.position.game_from`.
* :class:`DeterminizingBot` is the bot around a search: it feeds the tracker from
  :meth:`~client.bot.Bot.observe`, answers forced moves, setup and the announce phase with the
  engine's greedy policy on the view, groups equivalent actions (:func:`candidate_key`), and
  falls back to the greedy choice when a search is impossible (the tracker's knowledge
  contradicts the view, or the rules it assumes do not reproduce the view's legal list).
  A subclass supplies :meth:`DeterminizingBot._search`.

Only the views and events a seat receives go in; nothing here can see a server's game.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from client.bot import Bot
from client.bots.tracker import CardTracker, TrackerError, card_int
from client.bots.value import place_scores
from protocol.payloads import Event, View
from server.engine import Game, format_action, parse_action
from server.engine.actions import Action
from server.engine.cards import RANK
from server.engine.policies import greedy_for_view
from server.engine.position import PositionError, game_from

__all__ = ["DROP_Z", "Determinizer", "DeterminizingBot", "candidate_key", "compare_paired", "place_score"]

log = logging.getLogger(__name__)


def candidate_key(action: Action, suit_runs: bool) -> Any:
    """Actions with equal keys are equivalent for the player who takes them: without suit runs
    the suits of a play do not matter (``play 7h`` and ``play 7d`` are one candidate, so are
    pairs of 7s, and ``take 9c`` / ``take 9d``), and every ``flip`` is the same unknown card
    for the one who flips."""
    kind = action[0]
    if kind == "play" and not suit_runs:
        return ("play", RANK[action[1][0]], len(action[1]))
    if kind == "take" and len(action) == 2 and not suit_runs:
        return ("take", RANK[action[1]])
    if kind == "flip":
        return ("flip",)
    return action


def place_score(game: Game, seat: int) -> float:
    """The score of ``seat`` in finished ``game``: 1 for first place .. 0 for the shithead,
    linear in between (:func:`client.bots.value.place_scores`)."""
    places = game.places
    assert places is not None, "the game is not over"
    return place_scores(places, game.n)[seat]


DROP_Z = 2.0
"""A candidate whose mean difference to the default is more than this many standard errors
below zero (after ``min_samples`` samples) gets no more playouts."""


def _mean_se(total: float, total_sq: float, k: int) -> tuple[float, float]:
    """Mean and standard error of ``k`` values given their sum and sum of squares."""
    if k == 0:
        return 0.0, 0.0
    mean = total / k
    if k == 1:
        return mean, 1.0  # one value says nothing about the spread: assume the widest
    var = max(0.0, (total_sq - k * mean * mean) / (k - 1))
    return mean, math.sqrt(var / k)


def _behind(total: float, total_sq: float, k: int) -> bool:
    """Whether a candidate with these paired differences is clearly behind the default."""
    mean, se = _mean_se(total, total_sq, k)
    return mean + DROP_Z * se <= 0


def compare_paired(
    k: int,
    first: Game,
    sample: Callable[[], Game],
    score: Callable[[Game, int], float],
    *,
    margin: float,
    min_samples: int,
    max_playouts: int | None,
    budget: float | None,
) -> tuple[int, int]:
    """Compare ``k`` candidates with candidate 0, the *default*, on common samples.

    Each round scores the default and every candidate still alive on the same determinization
    (``first``, then one ``sample()`` per round): ``score(game, j)`` plays candidate ``j`` out
    on a copy of ``game`` (it must not change ``game``) and returns the seat's score. After
    ``min_samples`` rounds a candidate whose mean difference to the default is more than
    :data:`DROP_Z` standard errors below zero is dropped; the rounds stop when none is left,
    after ``max_playouts`` scores, or when ``budget`` seconds have passed (at least one round).

    Returns ``(j, playouts)``: the candidate with the best positive mean difference if that
    mean is more than ``margin`` standard errors (of the paired difference) above zero, else 0
    (the default); and how many scores were computed.
    """
    diff = [0.0] * k  # per candidate: sum over its samples of score(it) - score(default)
    diff_sq = [0.0] * k
    count = [0] * k
    alive = list(range(1, k))
    deadline = None if budget is None else time.perf_counter() + budget
    game = first
    samples = playouts = 0
    while True:
        base = score(game, 0)
        for j in alive:
            d = score(game, j) - base
            diff[j] += d
            diff_sq[j] += d * d
            count[j] += 1
        samples += 1
        playouts += 1 + len(alive)
        if samples >= min_samples:
            # Drop candidates clearly behind the default: the samples go to the others.
            alive = [j for j in alive if not _behind(diff[j], diff_sq[j], count[j])]
            if not alive:
                break
        if (max_playouts is not None and playouts >= max_playouts) or (
            deadline is not None and time.perf_counter() >= deadline
        ):
            break
        game = sample()
    best, best_mean, best_se = 0, 0.0, 0.0
    for j in range(1, k):
        mean, se = _mean_se(diff[j], diff_sq[j], count[j])
        if mean > best_mean:
            best, best_mean, best_se = j, mean, se
    if best == 0 or best_mean <= margin * best_se:
        return 0, playouts  # nothing clearly better than the default
    return best, playouts


class Determinizer:
    """Deals the hidden cards of one decision point at random, again and again.

    Built from the seat's tracker (already updated with ``view``) and the view of a play-phase
    decision of that seat. Each :meth:`game` is a fresh engine game in the view's position
    whose hidden cards (opponents' unknown hand cards, every face-down card, the stock) are a
    uniform random deal of the unseen cards, known cards staying where they are. The game ends
    as capped after ``actions_left`` actions (at most what the table's action cap leaves).

    Raises :class:`~client.bots.tracker.TrackerError` if the view is a spectator's.
    """

    def __init__(self, tracker: CardTracker, view: View, actions_left: int) -> None:
        rules = tracker.rules
        assert rules is not None, "the tracker has seen no view"
        me, hand = view["seat"], view["hand"]
        if me is None or hand is None:  # a seat asked to act always has both
            raise TrackerError("the view is a spectator's: there is no seat to search for")
        self.tracker = tracker
        self.rules = rules
        self.seat: int = me
        self.pool = list(tracker.unseen().elements())
        to_beat = view["to_beat"]
        must = view.get("must_play")
        self.fixed: dict[str, Any] = dict(
            face_up=tracker.face_up,
            pile=tracker.pile,
            current=me,
            dealer=view["dealer"],
            direction=view["direction"],
            finish=tracker.finish,
            last_len=to_beat["min_cards"] if rules.match_count and to_beat["min_cards"] > 1 else None,
            last_player=tracker.last_player,
            forced=card_int(must) if must else -1,
            turn_hand=tracker.turn_start_hand if view.get("drew_this_turn") else len(hand),
            drew=bool(view.get("drew_this_turn")),
            first_burner=tracker.first_burner,
            actions_left=max(1, min(actions_left, view["max_actions"] - view["action_count"])),
        )

    def game(self, rng: random.Random, check: bool = False) -> Game:
        """A new determinization, as an engine game with the seat to act. ``check``: verify
        that the zones hold exactly the deck (raises :class:`PositionError` if not); the first
        game of a decision is worth checking, the zones of the others come from the same
        source."""
        det = self.tracker.sample(rng, list(self.pool))
        return game_from(
            self.rules,
            self.tracker.n,
            hands=det.hands,
            face_down=det.face_down,
            stock=det.stock,
            burned=det.burned,
            check=check,
            **self.fixed,
        )


class DeterminizingBot(Bot):
    """A bot that searches over determinizations; subclasses implement :meth:`_search`.

    :meth:`choose` returns at once when there is one legal action or one candidate (after
    :func:`candidate_key`), plays the greedy choice in setup and the announce phase, and
    otherwise returns the legal action whose index :meth:`_search` gives. A search that raises
    (no consistent deal, a bug) costs only its decision: the greedy choice is played instead
    and ``stats["fallbacks"]`` counts it.

    ``options``: rule overrides known to be in force (the view names only the preset).
    ``rollout_cap``: actions per playout before it is scored as a capped game (C18).
    ``infer_pickups``: the tracker reads an opponent's pick-up as "it could not play";
    ``infer_plays``: it reads an opponent's hand plays as greedy's choices
    (:class:`~client.bots.tracker.CardTracker`), and the deals follow.
    ``stats`` counts, over the bot's lifetime, ``decisions``, ``searched`` decisions and
    ``fallbacks``; subclasses add their own counters.
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        rollout_cap: int = 300,
        options: dict[str, Any] | None = None,
        infer_pickups: bool = False,
        infer_plays: bool = False,
    ) -> None:
        super().__init__(rng)
        self.rollout_cap = rollout_cap
        self.infer_pickups = infer_pickups
        self.infer_plays = infer_plays
        self.tracker = CardTracker(options=options, infer_pickups=infer_pickups, infer_plays=infer_plays)
        self._warned = False
        self.stats: dict[str, int] = {"decisions": 0, "searched": 0, "fallbacks": 0}

    # ------------------------------------------------------------------ Bot hooks

    def on_game_start(self, view: View) -> None:
        self.tracker = CardTracker(
            options=self.tracker.options, infer_pickups=self.infer_pickups, infer_plays=self.infer_plays
        )
        self.tracker.update(view, [])
        self._warned = False

    def observe(self, view: View, events: Sequence[Event]) -> None:
        self.tracker.update(view, events)

    def choose(self, view: View) -> str:
        legal: list[str] = view["legal"]
        self.stats["decisions"] += 1
        if len(legal) == 1:
            return legal[0]
        if self.tracker.version == 0 or self.tracker.seat != view["seat"]:
            self.tracker.update(view, [])  # choose without observe: track from this view on
        if view["phase"] in ("setup", "announce"):
            return legal[self.heuristic(view)]
        actions = [parse_action(t) for t in legal]
        suit_runs = bool(self.tracker.rules and self.tracker.rules.suit_runs)
        reps: dict[Any, int] = {}
        for i, a in enumerate(actions):
            reps.setdefault(candidate_key(a, suit_runs), i)
        if len(reps) == 1:
            return legal[0]
        try:
            return legal[self._search(view, actions, reps)]
        except (TrackerError, PositionError) as exc:
            log.warning("search impossible (%s); using the heuristic", exc)
        except Exception:  # a bug must not cost the seat its turn: answer, and say why
            log.exception("search failed; using the heuristic")
        self.stats["fallbacks"] += 1
        return legal[self.heuristic(view)]

    # ------------------------------------------------------------------ for subclasses

    def _search(self, view: View, actions: list[Action], reps: dict[Any, int]) -> int:
        """Index (into ``actions``, the parsed ``view["legal"]``) of the action to play, at a
        play-phase decision with several candidates; ``reps`` maps each candidate key to the
        index of its representative. May return :meth:`heuristic` (and count a fallback)."""
        raise NotImplementedError

    def _determinizer(self, view: View) -> Determinizer:
        """The determinizer of this decision (the tracker is up to date with ``view``)."""
        return Determinizer(self.tracker, view, self.rollout_cap)

    def _same_legal(self, root: Game, me: int, legal: list[str]) -> bool:
        """Whether the built game lists exactly the view's legal actions (else our rules are wrong)."""
        mine = sorted(format_action(a) for a in root.legal_actions(me))
        if mine == sorted(legal):
            return True
        # Once per game at warning level: a table with hidden overrides would repeat it.
        level = logging.DEBUG if self._warned else logging.WARNING
        self._warned = True
        log.log(
            level,
            "assumed rules %r give legal %s, the view %s: not searching",
            self.tracker.rules,
            mine[:8],
            sorted(legal)[:8],
        )
        return False

    def heuristic(self, view: View) -> int:
        """Index in ``view["legal"]`` of the greedy choice under the assumed rules (the engine's
        one greedy policy, :func:`server.engine.policies.greedy_for_view`): what the bot plays
        in setup, when announcing, and when it cannot search."""
        rules = self.tracker.rules
        assert rules is not None
        return greedy_for_view(view, rules)
