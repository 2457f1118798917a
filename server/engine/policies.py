"""Engine-level policies, and the one greedy policy of the project.

A policy is a callable ``(game, seat, rng) -> action`` that returns one of
``game.legal_actions(seat)``: :func:`random_policy` and :func:`greedy_policy` (``POLICIES``
names them for ``shithead-sim``).

The greedy policy
-----------------
There is one greedy heuristic, :func:`greedy_choice`: a pure decision over the legal actions
and the few facts a seat may know (its own face-up row, the pile, the rules' powers and burn
count). Two thin adapters feed it:

* :func:`greedy_policy` from a :class:`~server.engine.game.Game`: ``shithead-sim --policy
  greedy``, the server's default action for a seat out of time, the search bot's playouts;
* :func:`greedy_for_view` from a wire view (:func:`server.engine.view.view_for`): the greedy bot,
  and the search bot where it does not search.

So they all choose the same action in the same position (a test holds them to it). A bot
adds knowledge on top by composition (the search bot searches, with this as its default).

Cards are valued by their *keep value* (:func:`keep_value`): a power card (reset, burn or
glass: the 2, the 10, glass 7s/8s/jokers) is ``100 + rank``, kept for when nothing else goes;
an *awkward* card (lower, anywhere, reverse or skip without those powers: ``linz``'s 7,
``egilsson``'s 5, ``guarducci``'s jokers) is ``50 + rank``, played after the plain cards; a
plain card is its value (3 .. ace 14). Ties go to the lower rank.

**Setup**: a required ``place`` (``ready`` not yet legal) puts the most valuable hand card
face up. Otherwise the ``swap`` that raises the face-up row's value most, while one raises it;
an optional ``place`` (``karma_stacking``) only for a power card or a king or better. Then
``ready``. Every move made raises the row's value (or empties the stock), so setup ends.

**Announcing** (``opening: announce``): the plain card of lowest value, else ``pass``
(announcing commits the opener to play that card on an empty pile: a waste of a power card).

**Play**, first rule that applies:

1. a ``play`` of the rank on top of the pile that brings the equal cards on top to
   ``burn_count``: it burns and gives another turn; the fewest cards that do it;
2. the lowest plain rank, then the lowest awkward rank, with every card of it that may go
   together (the longest such play; a suit run counts by its first card);
3. ``draw`` (``draw_before_play``): a look at the stock before a power card goes;
4. the cheapest power card, one card (the 2 before the 10: see the measurements in the
   code for why a big pile is not burned first);
5. ``gamble``; the first ``flip`` (nothing is known about face-down cards); ``take``; with
   face-up cards, the ``take`` giving up the face-up card of lowest value.

So greedy picks up only when nothing else is legal, and keeps its 2s and 10s as long as
something else goes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .actions import (
    ANNOUNCE,
    ANNOUNCE_KINDS,
    DRAW,
    FLIP,
    GAMBLE,
    PASS,
    PLACE,
    PLAY,
    READY,
    RUN,
    SETUP_KINDS,
    SWAP,
    TAKE,
    TAKE_PILE,
    Action,
    parse_action,
)
from .cards import RANK, parse_card
from .game import PLAYING, Game
from .powers import Powers, compile_powers
from .rules import Rules

__all__ = [
    "AWKWARD",
    "POLICIES",
    "POWER",
    "Policy",
    "greedy_choice",
    "greedy_for_view",
    "greedy_policy",
    "keep_value",
    "keep_values",
    "random_policy",
]

Policy = Callable[[Game, int, Any], Action]
"""``(game, seat, rng) -> action``; ``rng`` is a ``random.Random`` (or None for greedy)."""

POWER = 100
"""Keep value of the power cards (reset, burn, glass) before their rank is added."""
AWKWARD = 50
"""Keep value of the awkward cards (lower, anywhere, reverse, skip) before their rank is added."""
KING = 13
"""An optional karma-stacking placement is made for a power card or a card of this value or more."""
REQUIRED = 1000
"""Added to a required placement's gain so that it comes before any swap."""

# Why no "burn a big pile first" rule. The old versions of greedy spent a 10 rather than a 2
# on a pile of 5 (the greedy bot) or 6 (shithead-sim) cards or more. Measured with the
# engine's greedy against itself in 4-player duplicate deals (seats A A B B, rotated, each deal
# played four times), the rule costs: the threshold 5 against never, mean place 2.510 against
# 2.490 (classic, 2,000 deals, +-0.004), 2.528 against 2.472 (linz, 1,000 deals, +-0.009),
# 2.529 against 2.471 (smeghead, 1,000 deals, +-0.013); and 4 < 5 < 6 < 8 < 12 < never in
# classic, each step small but the same way. A 2 saves the turn as well as a 10 does, and the
# 10 kept is the stronger card later. Rule 1 (burn by completing equal cards) pays, if
# slightly: 2.499 with it against 2.501 without (classic), 2.496 against 2.504 (linz).


def random_policy(game: Game, seat: int, rng: Any) -> Action:
    """A uniformly random legal action, drawn from ``rng``."""
    action: Action = rng.choice(game.legal_actions(seat))
    return action


# --------------------------------------------------------------------------- keep values


def keep_value(pw: Powers, rank: int) -> int:
    """How much a card of ``rank`` is worth keeping (higher: better face up, played later);
    see the module docstring."""
    if pw.burn[rank] or pw.reset[rank] or pw.glass[rank]:
        return POWER + rank
    if pw.lower[rank] or pw.anywhere[rank] or pw.reverse[rank] or pw.skip[rank]:
        return AWKWARD + rank
    return pw.value[rank]


_KEEP: dict[int, tuple[Powers, tuple[int, ...]]] = {}
_KEEP_MAX = 1024


def keep_values(pw: Powers) -> tuple[int, ...]:
    """:func:`keep_value` of every rank number (index 0 and 1: 0), per power table.

    Cached by identity: hashing the tables on every move of a playout would cost more than the
    move. The entry holds ``pw``, so its id is not reused while the entry stands."""
    entry = _KEEP.get(id(pw))
    if entry is None or entry[0] is not pw:
        if len(_KEEP) >= _KEEP_MAX:
            _KEEP.clear()
        entry = _KEEP[id(pw)] = (pw, tuple(keep_value(pw, r) if r >= 2 else 0 for r in range(len(pw.value))))
    return entry[1]


# --------------------------------------------------------------------------- the decision


def greedy_choice(
    legal: Sequence[Action], *, pile: Sequence[int], face_up: Sequence[Sequence[int]], pw: Powers, burn_count: int
) -> int:
    """The index in ``legal`` (non-empty) of the greedy action (see the module docstring).

    ``pile``: the pile's cards, bottom first; ``face_up``: the deciding seat's face-up row (a
    list of stacks); ``pw`` and ``burn_count``: the rules in force. Nothing else is read, so a
    game and a wire view of the same position give the same answer. Ties go to the earlier
    action in ``legal``."""
    kind = legal[0][0]
    kv = keep_values(pw)
    if kind in SETUP_KINDS:
        return _setup(legal, face_up, pw, kv)
    if kind in ANNOUNCE_KINDS:
        return _announce(legal, kv)
    return _play(legal, pile, kv, burn_count)


def _setup(legal: Sequence[Action], face_up: Sequence[Sequence[int]], pw: Powers, kv: tuple[int, ...]) -> int:
    ready = next((i for i, a in enumerate(legal) if a[0] == READY), -1)
    best, gain = -1, 0
    for i, a in enumerate(legal):
        if a[0] == SWAP:
            g = kv[RANK[a[1]]] - kv[RANK[face_up[a[2]][0]]]
        elif a[0] == PLACE:
            r = RANK[a[1]]
            g = kv[r]
            if ready < 0:
                g += REQUIRED  # every empty slot must be filled: the best card goes first
            elif g < POWER and pw.value[r] < KING:
                continue  # an optional stack (karma_stacking) only for a card worth keeping
        else:
            continue
        if g > gain:
            best, gain = i, g
    if best >= 0:
        return best
    return ready if ready >= 0 else 0


def _announce(legal: Sequence[Action], kv: tuple[int, ...]) -> int:
    best, best_key = -1, (AWKWARD, 0)
    for i, a in enumerate(legal):
        if a[0] == ANNOUNCE:
            r = RANK[a[1]]
            if (kv[r], r) < best_key:
                best, best_key = i, (kv[r], r)
    if best >= 0:
        return best
    return next((i for i, a in enumerate(legal) if a[0] == PASS), 0)


def top_count(pile: Sequence[int]) -> int:
    """How many cards of the top card's rank lie on top of ``pile`` in a row (0 if empty)."""
    if not pile:
        return 0
    top = RANK[pile[-1]]
    n = 0
    for c in reversed(pile):
        if RANK[c] != top:
            break
        n += 1
    return n


def _play(legal: Sequence[Action], pile: Sequence[int], kv: tuple[int, ...], burn_count: int) -> int:
    plays = [i for i, a in enumerate(legal) if a[0] == PLAY or a[0] == RUN]
    # 1. Burn by completing the equal cards on top of the pile: the fewest cards that do it.
    if pile and burn_count:
        top, need = RANK[pile[-1]], burn_count - top_count(pile)
        done = [i for i in plays if legal[i][0] == PLAY and RANK[legal[i][1][0]] == top and len(legal[i][1]) >= need]
        if done:
            return min(done, key=lambda i: len(legal[i][1]))
    # 2. The lowest plain, then awkward, rank: all its cards together.
    if plays:
        best = min(plays, key=lambda i: (kv[RANK[legal[i][1][0]]], RANK[legal[i][1][0]], -len(legal[i][1])))
        if kv[RANK[legal[best][1][0]]] < POWER:
            return best
    # 3. A look at the stock before a power card goes.
    for i, a in enumerate(legal):
        if a[0] == DRAW:
            return i
    # 4. The cheapest power card, one.
    if plays:
        return min(plays, key=lambda i: (kv[RANK[legal[i][1][0]]], RANK[legal[i][1][0]], len(legal[i][1])))
    # 5. Blind chances, then the pick-up (giving up the least valuable face-up card).
    for kind in (GAMBLE, FLIP):
        for i, a in enumerate(legal):
            if a[0] == kind:
                return i
    takes = [i for i, a in enumerate(legal) if a[0] == TAKE]
    if not takes:
        return 0
    return min(takes, key=lambda i: (kv[RANK[legal[i][1]]], RANK[legal[i][1]]) if len(legal[i]) == 2 else (-1, 0))


# --------------------------------------------------------------------------- adapters


def greedy_policy(game: Game, seat: int, rng: random.Random | None = None) -> Action:
    """The greedy action of ``seat`` in ``game`` (``rng`` is not used: greedy is deterministic).

    Reads only what the seat may know. A hand play under rules where the legal plays are
    "every play of every rank that beats the pile" is read straight off the hand's rank
    groups (:func:`_from_hand`; playouts spend most of their time there); a test holds it to
    :func:`greedy_choice` over the legal list."""
    if game.hand_n[seat] and game.forced < 0 and game.phase == PLAYING and seat == game.current and _plain(game.rules):
        return _from_hand(game, seat)
    legal = game.legal_actions(seat)
    i = greedy_choice(legal, pile=game.pile, face_up=game.face_up[seat], pw=game.pw, burn_count=game.rules.burn_count)
    return legal[i]


_PLAIN: dict[int, tuple[Rules, bool]] = {}


def _plain(rules: Rules) -> bool:
    """Whether no option adds to or restricts the hand plays (cached by identity, as
    :func:`keep_values`)."""
    entry = _PLAIN.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_PLAIN) >= _KEEP_MAX:
            _PLAIN.clear()
        plain = not (rules.match_count or rules.suit_runs or rules.draw_before_play or rules.stock_gamble)
        entry = _PLAIN[id(rules)] = (rules, plain)
    return entry[1]


def _from_hand(game: Game, seat: int) -> Action:
    """:func:`greedy_choice` for a hand play under plain rules, from ``game.plays[seat]``
    (rank -> that rank's plays by size, the whole group last) instead of the legal list."""
    pw = game.pw
    kv = keep_values(pw)
    beats = pw.beats[game.eff]
    plays = game.plays[seat]
    pile = game.pile
    bc = game.rules.burn_count
    if pile and bc:
        top = RANK[pile[-1]]
        if top in plays and beats[top]:
            need = bc - top_count(pile)
            for a in plays[top]:
                if len(a[1]) >= need:
                    return a
    best, best_v = -1, 1 << 30
    for r in plays:
        if beats[r] and (kv[r] < best_v or (kv[r] == best_v and r < best)):
            best, best_v = r, kv[r]
    if best < 0:
        return TAKE_PILE
    # The lowest non-power rank with all its cards, else the cheapest power card alone.
    return plays[best][-1] if best_v < POWER else plays[best][0]


def greedy_for_view(view: Mapping[str, Any], rules: Rules) -> int:
    """The index in ``view["legal"]`` of the greedy action, from a wire view (as
    :func:`~server.engine.view.view_for` builds it: ``legal``, ``pile``, ``seat`` and the
    ``players``' face-up rows) and the ``rules`` the seat assumes are in force (a bot knows the
    preset from the view; option overrides only if told). The power tables are compiled for
    the view's number of players."""
    legal = [parse_action(t) for t in view["legal"]]
    pile = [parse_card(t) for t in view.get("pile") or ()]
    seat = view.get("seat")
    row: list[list[int]] = []
    for p in view.get("players") or ():
        if p.get("seat") == seat:
            row = [[parse_card(t) for t in st] for st in p.get("face_up") or ()]
            break
    pw = compile_powers(rules, max(1, len(view.get("players") or ())))
    return greedy_choice(legal, pile=pile, face_up=row, pw=pw, burn_count=rules.burn_count)


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}
