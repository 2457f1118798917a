"""Build a :class:`~server.engine.game.Game` in an arbitrary play-phase position.

The engine normally creates a game from a deck order and plays it from the deal. A search
bot needs more: a game *in the middle*, with every hidden card filled in by a guess (a
"determinization"), so that it can try actions and play the game out. :func:`game_from`
builds such a game from the contents of every zone.

Contract
--------
* The result behaves exactly like a game that reached the same state by play: the same
  legal actions, the same events and outcome for the same actions from here on (the tests
  in ``tests/engine/test_position.py`` check this against real games under every preset).
* Only the ``play`` phase is supported: setup and the announce phase are short and a bot
  decides them with a heuristic.
* The game is built by cloning a template game of the same rules and seat count (so every
  option flag and compiled power table that :class:`Game` sets up is present) and then
  overwriting the state. Hands go in through ``Game._add``, so the rank groups and the
  precomputed plays are exactly what the engine keeps itself; the effective top of the pile
  is recomputed card by card with the engine's own ``next_eff``.
* ``history`` starts empty: :attr:`Game.history` of the result holds only the actions applied
  after it was built. The action cap (C18) is kept right by shortening the cap instead:
  ``actions_left`` actions from now end the game as capped (default: what the rules'
  ``max_actions`` leaves after ``actions_done``). A search uses a small ``actions_left`` to
  stop endless playouts.
* ``Game.deck`` of the result is meaningless (the template's), so a :class:`ReplayRecord` of it does
  not replay; nothing else depends on it.

This module reads private attributes of :class:`Game` on purpose; it is part of the engine
package and must change with ``state.py`` and ``game.py``. ``tests/engine/test_position.py`` fails if
``Game`` grows state that this module does not set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from .cards import RANK, build_deck, format_card
from .game import Game
from .rules import Rules
from .state import PLAYING, next_eff

STATE_FIELDS = frozenset(
    {
        "groups",
        "hand_n",
        "hand_bits",
        "plays",
        "face_up",
        "face_down",
        "stock",
        "pile",
        "eff",
        "last_len",
        "last_player",
        "burned",
        "phase",
        "ready",
        "current",
        "direction",
        "out",
        "finish",
        "active",
        "turn_hand",
        "drew",
        "forced",
        "announcements",
        "announce_left",
        "history",
        "version",
        "capped",
        "places",
        "first_burner",
        "dealer",
        "_max_actions",
        "_cache_version",
        "_cache_seat",
        "_cache",
    }
)
"""Game attributes that describe the state and are set here; every other attribute of a
:class:`Game` must be fixed by the rules and seat count (the test checks this)."""


class PositionError(ValueError):
    """The zones given to :func:`game_from` do not make a consistent position."""


@lru_cache(maxsize=64)
def _template(rules: Rules, seats: int) -> Game:
    """A freshly dealt game of ``rules`` and ``seats`` whose rule-derived parts are shared."""
    return Game(rules, seats, 0, build_deck(rules.decks, rules.jokers))


def game_from(
    rules: Rules,
    seats: int,
    *,
    hands: Sequence[Sequence[int]],
    face_up: Sequence[Sequence[Sequence[int]]],
    face_down: Sequence[Sequence[int | None]],
    stock: Sequence[int],
    pile: Sequence[int],
    burned: Sequence[int],
    current: int,
    dealer: int = 0,
    direction: int = 1,
    finish: Sequence[int] = (),
    last_len: int | None = None,
    last_player: int = -1,
    forced: int = -1,
    turn_hand: int | None = None,
    drew: bool = False,
    first_burner: int = -1,
    announcements: Sequence[tuple[int, int]] = (),
    actions_done: int = 0,
    actions_left: int | None = None,
    check: bool = True,
) -> Game:
    """Return a game in the ``play`` phase with exactly these zones.

    Per seat: ``hands`` (cards in any order), ``face_up`` (one stack per slot, ``[]`` for an
    empty slot), ``face_down`` (a card or ``None`` per position; positions keep their numbers).
    ``stock`` is top card first (the order of a deck); ``pile`` bottom card first (the order of
    the view); ``burned`` in any order. ``current`` is the seat to act, ``finish`` the seats
    already out in the order they went out. ``last_len`` is the size of the last play
    (``match_count``; default: 0 on an empty pile, else 1), ``last_player`` who made it
    (``after_pickup: previous``), ``forced`` an announced card the play must contain (or -1),
    ``turn_hand`` the hand size when the turn began and ``drew`` whether the seat drew this
    turn (``draw_before_play``; default: no drawing yet). ``first_burner`` is the first seat
    that burned (``flush_player``), ``announcements`` the ``(seat, card)`` pairs announced
    under ``opening: announce`` (shown in views only). ``actions_done`` counts the actions
    so far and ``actions_left`` how many more may be taken before the game is capped.

    With ``check`` (the default) raises :class:`PositionError` unless the zones hold exactly
    the cards of the rules' decks and the seats, directions and out seats make sense; a
    search that built its zones from a checked source may pass ``check=False`` for speed.
    """
    n = seats
    if check:
        _check(rules, n, hands, face_up, face_down, stock, pile, burned, current, direction, finish)
    g = _template(rules, n).clone()
    g.dealer = dealer
    g.groups = [{} for _ in range(n)]
    g.plays = [{} for _ in range(n)]
    g.hand_n = [0] * n
    g.hand_bits = [0] * n
    for s, hand in enumerate(hands):
        # One rank at a time, low to high, so that the plays (and the legal list) come in
        # rank order whatever order the hand was given in.
        by_rank: dict[int, list[int]] = {}
        for c in sorted(hand):
            by_rank.setdefault(RANK[c], []).append(c)
        for cards in by_rank.values():
            g._add(s, cards)
    g.face_up = [[list(st) for st in row] for row in face_up]
    g.face_down = [list(row) for row in face_down]
    g.stock = list(stock)[::-1]  # the engine keeps the top of the stock at the end
    g.pile = list(pile)
    g.burned = list(burned)
    pw = g.pw
    eff = 0
    for i, c in enumerate(g.pile):
        eff = next_eff(pw, eff, RANK[c], i == 0)
    g.eff = eff
    g.last_len = (1 if g.pile else 0) if last_len is None else last_len
    g.last_player = last_player
    g.phase = PLAYING
    g.ready = [True] * n
    g.direction = direction
    g.finish = list(finish)
    g.out = [s in g.finish for s in range(n)]
    g.active = n - len(g.finish)
    g.current = current
    g.turn_hand = g.hand_n[current] if turn_hand is None else turn_hand
    g.drew = drew
    g.forced = forced
    g.announcements = list(announcements)
    g.announce_left = 0
    g.history = []
    g.capped = False
    g.places = None
    g.first_burner = first_burner
    left = rules.max_actions - actions_done if actions_left is None else actions_left
    # history restarts empty, so the cap counts from here (see the module docstring).
    g._max_actions = max(1, left)
    g.version += 1
    g._cache_version = -1
    return g


def _check(
    rules: Rules,
    n: int,
    hands: Sequence[Sequence[int]],
    face_up: Sequence[Sequence[Sequence[int]]],
    face_down: Sequence[Sequence[int | None]],
    stock: Sequence[int],
    pile: Sequence[int],
    burned: Sequence[int],
    current: int,
    direction: int,
    finish: Sequence[int],
) -> None:
    """Raise :class:`PositionError` unless the zones describe a possible play-phase position."""
    if not (len(hands) == len(face_up) == len(face_down) == n):
        raise PositionError(f"hands, face_up and face_down need one entry per seat ({n})")
    for s in range(n):
        if len(face_up[s]) != rules.face_up:
            raise PositionError(f"seat {s}: {len(face_up[s])} face-up slots, the rules deal {rules.face_up}")
        if len(face_down[s]) != rules.face_down:
            raise PositionError(f"seat {s}: {len(face_down[s])} face-down positions, the rules deal {rules.face_down}")
    everything: Counter[int] = Counter(stock)
    everything.update(pile)
    everything.update(burned)
    for s in range(n):
        everything.update(hands[s])
        for st in face_up[s]:
            everything.update(st)
        everything.update(c for c in face_down[s] if c is not None)
    full = Counter(build_deck(rules.decks, rules.jokers))
    if everything != full:
        missing = " ".join(format_card(c) for c in sorted((full - everything).elements())[:5])
        extra = " ".join(format_card(c) for c in sorted((everything - full).elements())[:5])
        raise PositionError(
            f"the zones must hold exactly the rules' cards (missing: {missing or '-'}; extra: {extra or '-'})"
        )
    if direction not in (1, -1):
        raise PositionError(f"direction must be 1 or -1, not {direction!r}")
    if len(set(finish)) != len(finish) or any(not 0 <= s < n for s in finish):
        raise PositionError(f"finish must list distinct seats, not {list(finish)!r}")
    if n - len(finish) < 2 or (rules.goal == "winner" and finish):
        raise PositionError("the game would already be over: fewer than two seats are still in")
    for s in finish:
        if hands[s] or any(face_up[s]) or any(c is not None for c in face_down[s]):
            raise PositionError(f"seat {s} is out but still holds cards")
    if not (type(current) is int and 0 <= current < n) or current in finish:
        raise PositionError(f"current seat {current!r} is not a seat still in")
