"""The game state machine: legal actions and their application, for every rule of RULES.md.

Contract
--------
* :meth:`Game.legal_actions` is the one source of truth about legality. It returns the
  complete tuple of legal actions of a seat (empty when that seat may not act now).
* :meth:`Game.apply` accepts exactly the listed actions. Anything else raises
  :class:`~server.engine.errors.IllegalAction` with a stable code and leaves the state as it
  was (the reason is worked out only on that slow path, by :mod:`server.engine.diagnose`).
* Nothing here does I/O or draws random numbers: the deck order comes in from outside.

Speed
-----
Random play must run at hundreds of thousands of actions per second, so: cards are ints,
actions and events are tuples, a hand is kept grouped by rank together with the plays each
group allows (finding the plays is one step per rank held), powers are looked up in tables compiled once per rule set
(:mod:`server.engine.powers`), the effective top of the pile is maintained incrementally,
and the legal list is cached per state version so that ``apply`` after ``legal_actions``
costs one membership test.

The pile
--------
``eff`` is the rank that decides what may be played next: the first non-glass card from the
top, or 0 when anything goes (empty pile, a reset card, only glass cards without a value of
their own). ``last_len`` is the size of the last play (``match_count``) and ``last_player``
who made it (``after_pickup: previous``).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain, combinations
from collections.abc import Iterable
from typing import Any

from .actions import (
    ANNOUNCE,
    DRAW,
    DRAW_ONE,
    FLIP,
    GAMBLE,
    GAMBLE_STOCK,
    PASS,
    PASS_NOW,
    PLACE,
    PLAY,
    READY,
    READY_NOW,
    RUN,
    SWAP,
    TAKE,
    TAKE_PILE,
    Action,
    is_well_formed,
)
from .cards import ACE, JOKER
from .deal import check_deck, deal
from .events import (
    ANNOUNCED,
    BURNED,
    DREW,
    FIRST,
    FLIPPED,
    GAMBLED,
    GAME_OVER,
    OUT,
    PASSED,
    PLACED,
    PLAYED,
    REVERSED,
    SKIPPED,
    SWAPPED,
    TOOK,
    Event,
)
from .events import READY as READY_EVENT
from .powers import compile_powers
from .outcome import Outcome
from .rules import Rules, check_seats

SETUP, ANNOUNCING, PLAYING, OVER = "setup", "announce", "play", "over"
HAND, FACE_UP, FACE_DOWN, STOCK = "hand", "face_up", "face_down", "stock"

# C5: who opens: the first 3 face up, else in hand, then 4s, 5s ... and 2s and jokers last.
_OPENING_RANKS = (*range(3, 15), 2, JOKER)


@lru_cache(maxsize=16384)
def _group_subsets(group: tuple[int, ...], lo: int, forced: int) -> tuple[Action, ...]:
    """All distinct plays of at least ``lo`` cards from a sorted group of one rank.

    With several decks a group can hold equal cards; plays are multisets, so duplicates are
    dropped. ``forced >= 0`` keeps only plays that contain that card (``opening: announce``).
    """
    seen: set[tuple[int, ...]] = set()
    out: list[Action] = []
    for k in range(max(lo, 1), len(group) + 1):
        for comb in combinations(group, k):
            if comb in seen or (forced >= 0 and forced not in comb):
                continue
            seen.add(comb)
            out.append((PLAY, comb))
    return tuple(out)


class _PlaysOfGroup(dict[tuple[int, ...], tuple[Action, ...]]):
    """group -> every play it allows, filled on first use.

    Bounded: a rank of at most three decks has a few hundred distinct groups, so no
    eviction is needed, and a hit is a plain dict lookup (cheaper than ``lru_cache``).
    """

    def __missing__(self, group: tuple[int, ...]) -> tuple[Action, ...]:
        plays = self[group] = _group_subsets(group, 1, -1)
        return plays


_PLAYS = _PlaysOfGroup()


class Game:
    """One game of Shithead. Build it with :meth:`new`; see the module docstring."""

    def __init__(self, rules: Rules, seats: int, dealer: int, deck: list[int]) -> None:
        """Deal ``deck`` (top card first; exactly the rules' cards) with ``dealer`` dealing."""
        check_seats(rules, seats)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
            from .errors import RulesError

            raise RulesError("dealer", f"dealer must be a seat 0..{seats - 1}, not {dealer!r}")
        check_deck(deck, rules)
        self.rules = rules
        self.n = seats
        self.dealer = dealer
        self.deck = tuple(deck)
        self.pw = compile_powers(rules, seats)
        d = deal(deck, rules, seats, dealer)
        # Hands are kept grouped by rank (rank -> sorted tuple of cards), updated only by
        # _add and _remove; hand() gives the sorted list.
        self.groups: list[dict[int, tuple[int, ...]]] = [_grouped(h) for h in d.hands]
        self.hand_n: list[int] = [len(h) for h in d.hands]
        # ... and for each group every play it allows on its own (rank -> play actions).
        self.plays: list[dict[int, tuple[Action, ...]]] = [{r: _PLAYS[g] for r, g in gr.items()} for gr in self.groups]
        if rules.deal_style == "choose":
            self.face_up: list[list[list[int]]] = [[[] for _ in range(rules.face_up)] for _ in range(seats)]
        else:
            self.face_up = [[[c] for c in row] for row in d.face_up]
        self.face_down: list[list[int | None]] = [list(row) for row in d.face_down]
        self.stock: list[int] = d.stock[::-1]  # top of the stock is the end of the list
        self.pile: list[int] = []
        self.eff = 0
        self.last_len = 0
        self.last_player = -1
        self.burned: list[int] = []
        self.phase = SETUP
        self.ready = [False] * seats
        self.current = -1
        self.direction = 1
        self.out = [False] * seats
        self.finish: list[int] = []
        self.active = seats
        self.turn_hand = 0
        self.drew = False
        self.forced = -1
        self.announcements: list[tuple[int, int]] = []
        self.announce_left = 0
        self.history: list[tuple[int, Action]] = []
        self.version = 0
        self.capped = False
        self.places: tuple[int, ...] | None = None
        self.first_burner = -1
        # Option flags read on the hot path.
        self._refill = rules.refill_to
        self._bc = rules.burn_count
        self._match = rules.match_count
        self._karma = rules.karma_stacking
        self._runs_on = rules.suit_runs
        self._draw_on = rules.draw_before_play
        self._gamble_on = rules.stock_gamble
        self._voluntary = rules.voluntary_pickup
        self._max_actions = rules.max_actions
        self._pair_skip = rules.pair_skip
        self._after_previous = rules.after_pickup == "previous"
        # No option that changes which hand plays are legal beyond "beats the pile".
        self._plain = not (self._match or self._runs_on or self._draw_on or self._gamble_on)
        self._cache_version = -1
        self._cache_seat = -1
        self._cache: tuple[Action, ...] = ()

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        rules: Rules,
        seats: int,
        *,
        dealer: int | None = None,
        seed: int | None = None,
        deck: list[int] | None = None,
        rng: Any = None,
    ) -> Game:
        """Create a game from a seed, an ``rng`` (``random.Random``-like) or an explicit deck.

        With neither ``deck`` nor a source of randomness, raises ``ValueError``: the engine
        draws no random numbers of its own. ``dealer`` defaults to a random seat (C2) drawn
        from the same source, or seat 0 with an explicit deck.
        """
        import random

        from .cards import build_deck

        if deck is None:
            if rng is None:
                if seed is None:
                    raise ValueError("give a seed, an rng or an explicit deck order")
                rng = random.Random(seed)
            deck = build_deck(rules.decks, rules.jokers)
            rng.shuffle(deck)
            if dealer is None:
                dealer = rng.randrange(seats) if isinstance(seats, int) and seats > 0 else 0
        elif dealer is None:
            dealer = 0
        return cls(rules, seats, dealer, list(deck))

    def clone(self) -> Game:
        """A deep copy that shares only immutable parts (for search bots)."""
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.hand_n = list(self.hand_n)
        g.groups = [dict(gr) for gr in self.groups]
        g.plays = [dict(p) for p in self.plays]
        g.face_up = [[list(st) for st in row] for row in self.face_up]
        g.face_down = [list(row) for row in self.face_down]
        g.stock = list(self.stock)
        g.pile = list(self.pile)
        g.burned = list(self.burned)
        g.ready = list(self.ready)
        g.out = list(self.out)
        g.finish = list(self.finish)
        g.announcements = list(self.announcements)
        g.history = list(self.history)
        g._cache_version = -1
        return g

    # ------------------------------------------------------------------ queries

    def to_act(self) -> list[int]:
        """The seats that may act now: every unready seat during setup, else the current one."""
        if self.phase == SETUP:
            return [s for s in range(self.n) if not self.ready[s]]
        if self.phase == OVER:
            return []
        return [self.current]

    def cards_held(self, seat: int) -> int:
        """All cards a seat still has: hand, face-up and face-down."""
        return (
            self.hand_n[seat]
            + sum(len(st) for st in self.face_up[seat])
            + sum(c is not None for c in self.face_down[seat])
        )

    def source(self, seat: int) -> str:
        """Where ``seat`` plays from now (C12-C14): hand, face_up or face_down."""
        if self.hand_n[seat]:
            return HAND
        if any(self.face_up[seat]):
            return FACE_UP
        return FACE_DOWN

    def hand(self, seat: int) -> list[int]:
        """The hand of ``seat``, sorted (a new list)."""
        groups = self.groups[seat]
        return [c for r in sorted(groups) for c in groups[r]]

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        """Places, loser, capped: ``None`` until the game is over."""
        return outcome_of(self)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """The complete tuple of legal actions of ``seat`` (empty if it may not act now)."""
        if self._cache_version == self.version and self._cache_seat is seat:
            return self._cache
        if type(seat) is not int or not 0 <= seat < self.n:
            return ()
        phase = self.phase
        acts: tuple[Action, ...] | list[Action]
        if phase == PLAYING:
            if seat != self.current:
                acts = ()
            elif self._plain and self.hand_n[seat] and self.forced < 0:
                # Hot path (_legal_play inlined): every play of every rank that beats the pile.
                beats = self.pw.beats[self.eff]
                acts = []
                for r, ps in self.plays[seat].items():
                    if beats[r]:
                        acts += ps
                if self.pile and (self._voluntary or not acts):
                    acts.append(TAKE_PILE)
            else:
                acts = self._legal_play(seat)
        elif phase == SETUP:
            acts = () if self.ready[seat] else self._legal_setup(seat)
        elif phase == ANNOUNCING and seat == self.current:
            acts = [(ANNOUNCE, c) for c in sorted(set(self.hand(seat)))]
            acts.append(PASS_NOW)
        else:
            acts = ()
        result = tuple(acts)
        self._cache_version, self._cache_seat, self._cache = self.version, seat, result
        return result

    def _legal_setup(self, s: int) -> list[Action]:
        # ready comes first when allowed, so "take the first legal action" ends the setup.
        distinct = sorted(set(self.hand(s)))
        acts: list[Action] = [READY_NOW] if all(self.face_up[s]) else []
        for i, st in enumerate(self.face_up[s]):
            if not st:
                acts.extend((PLACE, c, i) for c in distinct)
                continue
            if len(st) == 1:
                acts.extend((SWAP, c, i) for c in distinct if c != st[0])
            if self._karma:
                r = st[0] >> 2
                acts.extend((PLACE, c, i) for c in distinct if c >> 2 == r)
        return acts

    def _legal_play(self, s: int) -> list[Action]:
        hn = self.hand_n[s]
        acts: list[Action] = []
        if hn:
            min_len = hn - self._refill if self.drew else 1
            if min_len > 1 or self.forced >= 0 or (self._match and self.last_len > 1):
                self._group_plays(self.groups[s], min_len, acts)
            else:
                # The common case: every play of every rank that beats the pile.
                beats = self.pw.beats[self.eff]
                acts = [a for r, ps in self.plays[s].items() if beats[r] for a in ps]
            if self._runs_on:
                self._run_plays(self.hand(s), min_len, acts)
            plays = len(acts)
            if self.stock and self.forced < 0:
                if self._draw_on and self._may_draw(s, acts):
                    acts.append(DRAW_ONE)
                if self._gamble_on and not self.drew:
                    acts.append(GAMBLE_STOCK)
            if self.pile and (plays == 0 or self._voluntary):
                acts.append(TAKE_PILE)
            return acts
        row = self.face_up[s]
        if any(row):
            singles = sorted(st[0] for st in row if len(st) == 1)
            if self._karma:
                self._stack_plays(row, acts)
            else:
                self._group_plays(_grouped(singles), 1, acts)
            if self._runs_on:
                self._run_plays(singles, 1, acts)
            if self.pile and (not acts or self._voluntary):
                if self.rules.faceup_fail == "take_one":
                    acts.extend((TAKE, c) for c in sorted({c for st in row for c in st}))
                else:
                    acts.append(TAKE_PILE)
            return acts
        return [(FLIP, i) for i, c in enumerate(self.face_down[s]) if c is not None]

    def _count_floor(self, r: int) -> int:
        """The fewest cards of rank ``r`` a play may hold under ``match_count``."""
        if self._match and self.last_len > 1 and not self.pw.free_count[r]:
            return self.last_len
        return 1

    def _group_plays(self, groups: dict[int, tuple[int, ...]], min_len: int, acts: list[Action]) -> None:
        """Append the plays of one rank from ``groups`` (rank -> cards): C6-C8 and options."""
        beats = self.pw.beats[self.eff]
        forced = self.forced
        need = self.last_len if self._match and self.last_len > 1 else 0
        free = self.pw.free_count
        for r, grp in groups.items():
            if beats[r] and (forced < 0 or forced >> 2 == r):
                lo = need if need and not free[r] else 1
                if min_len > lo:
                    lo = min_len
                if len(grp) >= lo:
                    acts.extend(_group_subsets(grp, lo, forced))

    def _stack_plays(self, row: list[list[int]], acts: list[Action]) -> None:
        """Face-up plays under ``karma_stacking``: whole stacks of one rank, one or several."""
        beats = self.pw.beats[self.eff]
        by_rank: dict[int, list[tuple[int, ...]]] = {}
        for st in row:
            if st:
                by_rank.setdefault(st[0] >> 2, []).append(tuple(st))
        for r in sorted(by_rank):
            if not beats[r]:
                continue
            lo = self._count_floor(r)
            stacks = by_rank[r]
            seen: set[tuple[int, ...]] = set()
            for k in range(1, len(stacks) + 1):
                for combo in combinations(stacks, k):
                    cards = tuple(sorted(c for st in combo for c in st))
                    if len(cards) >= lo and cards not in seen:
                        seen.add(cards)
                        acts.append((PLAY, cards))

    def _run_plays(self, cards: list[int], min_len: int, acts: list[Action]) -> None:
        """Append the legal suit runs (``suit_runs``) that can be made from ``cards``.

        The card of the next rank in the same suit is ``c + 4`` (cards are ``rank << 2 |
        suit``), so a run can only start at a card whose ``c + 4`` is held.
        """
        have = set(cards)
        for c in sorted(have):
            if c >> 2 >= ACE or c + 4 not in have:
                continue
            run = [c]
            nxt = c + 4
            while nxt in have and nxt >> 2 <= ACE:
                run.append(nxt)
                t = tuple(run)
                if len(t) >= min_len and self._run_ok(t):
                    acts.append((RUN, t))
                nxt += 4

    def _run_ok(self, run: tuple[int, ...]) -> bool:
        """Simulate a suit run card by card: each card legal on the one before, no burn early."""
        pw = self.pw
        if self.forced >= 0 and self.forced not in run:
            return False
        if len(run) < self._count_floor(run[0] >> 2):
            return False
        eff = self.eff
        empty = not self.pile
        last = len(run) - 1
        bc = self._bc
        for i, c in enumerate(run):
            r = c >> 2
            if not pw.beats[eff][r]:
                return False
            if i < last and (pw.burn[r] or (bc and _run_length(chain(self.pile, run[: i + 1]), r, pw.glass, bc) >= bc)):
                return False
            eff = _next_eff(pw, eff, r, empty and i == 0)
        return True

    def _may_draw(self, s: int, plays: list[Action]) -> bool:
        """``draw_before_play``: may draw only if the hand was not above ``refill_to`` at the
        start of the turn, and a play leaving at most ``refill_to`` cards would still exist."""
        if self.turn_hand > self._refill:
            return False
        need = self.hand_n[s] + 1 - self._refill
        return any(len(a[1]) >= need for a in plays)

    # ------------------------------------------------------------------ apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply a legal action of ``seat`` and return the events it caused.

        Raises :class:`IllegalAction` (state unchanged) for anything not in
        :meth:`legal_actions`. Play and run cards may be given in any order.
        """
        if type(seat) is not int:  # True == 1 and 1.0 == 1: refuse them before any lookup
            from .diagnose import diagnose

            raise diagnose(self, seat, action)
        if self._cache_version == self.version and self._cache_seat == seat:
            legal = self._cache
        else:
            legal = self.legal_actions(seat)
        try:
            canonical: object = legal[legal.index(action)]
        except ValueError:
            canonical = _ABSENT
        if canonical is not action:
            # Not the very tuple from the legal list (it was parsed, rebuilt, or is wrong):
            # it must have exact types (20.0 == 20 but is no card) and is then replaced by
            # the canonical tuple, or it is refused.
            fixed = _normalise(action) if is_well_formed(action) or isinstance(action, list) else None
            if fixed is not None and not is_well_formed(fixed):
                fixed = None
            if fixed is None or fixed not in legal:
                from .diagnose import diagnose

                raise diagnose(self, seat, action)
            action = legal[legal.index(fixed)]
        self.version += 1
        self.history.append((seat, action))
        events: list[Event] = []
        kind = action[0]
        if kind == PLAY or kind == RUN:
            self._play(seat, action[1], kind == RUN, events)
        elif kind == TAKE:
            extra = [self._remove_face_up_card(seat, action[1])] if len(action) == 2 else []
            self._pickup(seat, extra, events)
        elif kind == FLIP:
            self._flip(seat, action[1], events)
        elif kind == DRAW:
            self._add(seat, (self.stock.pop(),))
            self.drew = True
            events.append((DREW, seat, 1))
        elif kind == GAMBLE:
            c = self.stock.pop()
            events.append((GAMBLED, seat, c))
            self._single(seat, c, STOCK, events)
        elif kind == SWAP:
            self._swap(seat, action[1], action[2], events)
        elif kind == PLACE:
            self._place(seat, action[1], action[2], events)
        elif kind == READY:
            self.ready[seat] = True
            events.append((READY_EVENT, seat))
            if all(self.ready):
                self._begin(events)
        elif kind == ANNOUNCE or kind == PASS:
            self._announce(seat, action[1] if kind == ANNOUNCE else -1, events)
        if len(self.history) >= self._max_actions and self.phase != OVER:
            self.capped = True
            self._end(self.current if self.current >= 0 else 0, events)
        return events

    # --- setup (C4, deal_style: choose, karma_stacking) and the opening (C5, announce)

    def _swap(self, s: int, c: int, slot: int, events: list[Event]) -> None:
        st = self.face_up[s][slot]
        old = st[0]
        self._remove(s, (c,))
        st[0] = c
        self._add(s, (old,))
        events.append((SWAPPED, s, c, old, slot))

    def _place(self, s: int, c: int, slot: int, events: list[Event]) -> None:
        self._remove(s, (c,))
        self.face_up[s][slot].append(c)
        events.append((PLACED, s, c, slot))
        if self._karma:
            # Karma: the hand is refilled, and drawn cards that match may be stacked in turn.
            self._refill_hand(s, events)

    def _begin(self, events: list[Event]) -> None:
        if self.rules.opening == "announce":
            self.phase = ANNOUNCING
            self.announce_left = self.n
            self._start_turn((self.dealer + 1) % self.n)
        else:
            self._open_by_rank(events)

    def _open_by_rank(self, events: list[Event]) -> None:
        """C5: the first 3 face up clockwise from the dealer's left, else in hand, then 4 ..."""
        order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        for r in _OPENING_RANKS:
            for s in order:
                for st in self.face_up[s]:
                    if st and st[0] >> 2 == r:
                        return self._open(s, st[0], events)
            for s in order:
                if r in self.groups[s]:
                    # The card stays unnamed: it is a hand card, hidden from the others.
                    return self._open(s, None, events)
        return self._open(order[0], None, events)

    def _open(self, s: int, c: int | None, events: list[Event]) -> None:
        self.phase = PLAYING
        events.append((FIRST, s, c))
        self._start_turn(s)

    def _announce(self, s: int, c: int, events: list[Event]) -> None:
        if c >= 0:
            self.announcements.append((s, c))
            events.append((ANNOUNCED, s, c))
        else:
            events.append((PASSED, s))
        self.announce_left -= 1
        if self.announce_left:
            self._start_turn((s + 1) % self.n)
            return
        if not self.announcements:
            return self._open_by_rank(events)
        # The lowest card opens (2 lowest, jokers highest); ties go to the earlier announcer.
        seat, c = min(self.announcements, key=lambda sc: sc[1] >> 2)
        self.forced = c
        self._open(seat, c, events)

    # --- play

    def _add(self, s: int, cards: list[int] | tuple[int, ...]) -> None:
        """Put ``cards`` into the hand of ``s``: regroup each rank touched, once."""
        groups = self.groups[s]
        plays = self.plays[s]
        self.hand_n[s] += len(cards)
        if len(cards) == 1:  # a refill of one card, the common case
            c = cards[0]
            r = c >> 2
            old = groups.get(r)
            grp = groups[r] = (c,) if old is None else tuple(sorted((*old, c)))
            plays[r] = _PLAYS[grp]
            return
        touched = set()
        for c in cards:
            r = c >> 2
            groups[r] = groups.get(r, ()) + (c,)
            touched.add(r)
        for r in touched:
            grp = groups[r] = tuple(sorted(groups[r]))
            plays[r] = _PLAYS[grp]

    def _remove(self, s: int, cards: tuple[int, ...]) -> None:
        """Take held ``cards`` out of the hand of ``s``."""
        groups = self.groups[s]
        plays = self.plays[s]
        self.hand_n[s] -= len(cards)
        for c in cards:
            r = c >> 2
            grp = groups[r]
            if len(grp) == 1:
                del groups[r], plays[r]
            else:
                rest = list(grp)
                rest.remove(c)
                grp = groups[r] = tuple(rest)
                plays[r] = _PLAYS[grp]

    def _start_turn(self, s: int) -> None:
        self.current = s
        self.turn_hand = self.hand_n[s]
        self.drew = False

    def _play(self, s: int, cards: tuple[int, ...], is_run: bool, events: list[Event]) -> None:
        if self.hand_n[s]:
            groups = self.groups[s]
            r = cards[0] >> 2
            if groups.get(r) == cards:  # a whole group: the common case, inlined
                del groups[r], self.plays[s][r]
                self.hand_n[s] -= len(cards)
            else:
                self._remove(s, cards)
            source = HAND
        else:
            self._remove_face_up(s, cards)
            source = FACE_UP
        self.forced = -1
        events.append((PLAYED, s, cards, source))
        if is_run:
            pw = self.pw
            for c in cards[:-1]:
                self.pile.append(c)
                self.eff = _next_eff(pw, self.eff, c >> 2, len(self.pile) == 1)
            self._put(s, cards[-1:], len(cards), events, cards[:-1])
        else:
            self._put(s, cards, len(cards), events)

    def _run_powers(self, s: int, cards: tuple[int, ...], events: list[Event]) -> int:
        """Powers of cards inside a run (not only the last): each kind counts once per play."""
        pw = self.pw
        if any(pw.reverse[c >> 2] for c in cards[:-1]) and not pw.reverse[cards[-1] >> 2]:
            self.direction = -self.direction
            events.append((REVERSED, s, self.direction))
        steps = 2 if any(pw.skip[c >> 2] for c in cards) else 1
        return steps + (len(cards) == 2 and self.rules.pair_skip)

    def _put(
        self, s: int, cards: tuple[int, ...], count: int, events: list[Event], inner: tuple[int, ...] = ()
    ) -> None:
        """Same-rank ``cards`` land on the pile and the turn moves on.

        In order: the effective top and the powers (C7, C8, glass, lower, reverse, skip), a
        burn (C8/C9), the refill (C10, before the extra turn of a burn), going out (C16), and
        the next player (the same one after a burn). ``count`` is the size of the whole play;
        ``inner`` holds the earlier cards of a run, already on the pile. This is the hot path
        of every play, kept in one method on purpose.
        """
        pw = self.pw
        pile = self.pile
        r = cards[0] >> 2
        k = len(cards)
        self.last_len = count
        self.last_player = s
        bc = self._bc
        steps = 1
        if pw.plain[r]:
            # The short path: an ordinary rank can only burn by completing a run (C9).
            pile.extend(cards)
            self.eff = r
            if bc and (
                k >= bc
                or (
                    len(pile) > k
                    and (pile[-k - 1] >> 2 == r or pw.glass[pile[-k - 1] >> 2])
                    and _run_length(pile, r, pw.glass, bc) >= bc
                )
            ):
                self._burn(s, events)
                steps = 0
            elif count == 2 and self._pair_skip:
                steps = 2
        else:
            was_empty = not pile
            pile.extend(cards)
            if pw.glass[r]:
                if was_empty:
                    self.eff = r if pw.glass_floor[r] else 0
            elif pw.reset[r]:
                self.eff = 0
            else:
                self.eff = r
            if pw.burn[r] or (bc and (k >= bc or _run_length(pile, r, pw.glass, bc) >= bc)):
                self._burn(s, events)
                steps = 0
            else:
                if pw.reverse[r]:
                    self.direction = -self.direction
                    events.append((REVERSED, s, self.direction))
                if pw.skip[r]:
                    steps += 1
                if count == 2 and self._pair_skip:
                    steps += 1
        if inner and steps:
            steps = self._run_powers(s, inner + cards, events)

        hand_n = self.hand_n
        if hand_n[s] < self._refill and self.stock:
            self._refill_hand(s, events)
        if not hand_n[s] and not any(self.face_up[s]) and all(c is None for c in self.face_down[s]):
            self.out[s] = True
            self.finish.append(s)
            self.active -= 1
            events.append((OUT, s, len(self.finish)))
            if self.rules.goal == "winner" or self.active == 1:
                self._end(s, events)
                return
            if steps == 0:
                steps = 1  # C16: the burner is out, so the next player leads the empty pile
        if steps == 0:
            nxt = s
        else:
            d, n, out = self.direction, self.n, self.out  # _next, inlined
            nxt = (s + d) % n
            while out[nxt]:
                nxt = (nxt + d) % n
            while steps > 1:
                events.append((SKIPPED, nxt))
                nxt = self._next(nxt)
                steps -= 1
        # _start_turn, inlined.
        self.current = nxt
        self.turn_hand = hand_n[nxt]
        self.drew = False

    def _burn(self, s: int, events: list[Event]) -> None:
        events.append((BURNED, s, len(self.pile)))
        self.burned.extend(self.pile)
        self.pile.clear()
        self.eff = 0
        self.last_len = 0
        self.last_player = -1
        if self.first_burner < 0:
            self.first_burner = s

    def _refill_hand(self, s: int, events: list[Event]) -> None:
        """C10: draw from the stock until the hand holds ``refill_to`` cards or the stock is empty."""
        k = min(self._refill - self.hand_n[s], len(self.stock))
        if k > 0:
            stock = self.stock
            drawn = stock[-k:]  # the top of the stock is the end of the list
            del stock[-k:]
            drawn.reverse()
            self._add(s, drawn)
            events.append((DREW, s, k))

    def _next(self, s: int) -> int:
        """The next seat still in, in the current direction."""
        d, n, out = self.direction, self.n, self.out
        s = (s + d) % n
        while out[s]:
            s = (s + d) % n
        return s

    def _single(self, s: int, c: int, source: str, events: list[Event]) -> None:
        """A card turned over (face-down, C14; stock, stock_gamble): played if legal, else taken."""
        if self.pw.beats[self.eff][c >> 2] and self._count_floor(c >> 2) <= 1:
            events.append((PLAYED, s, (c,), source))
            self._put(s, (c,), 1, events)
        else:
            self._pickup(s, [c], events)

    def _flip(self, s: int, pos: int, events: list[Event]) -> None:
        row = self.face_down[s]
        c = row[pos]
        assert c is not None
        row[pos] = None
        events.append((FLIPPED, s, pos, c))
        self._single(s, c, FACE_DOWN, events)

    def _pickup(self, s: int, extra: list[int], events: list[Event]) -> None:
        """C11/C13/C14: the pile (and any extra card) goes into the hand; someone else leads."""
        taken = self.pile + extra
        self._add(s, taken)
        events.append((TOOK, s, tuple(taken)))
        self.pile = []
        self.eff = 0
        self.last_len = 0
        prev, self.last_player = self.last_player, -1
        if self._after_previous and prev >= 0 and prev != s and not self.out[prev]:
            nxt = prev
        else:
            nxt = self._next(s)
        self.current = nxt  # _start_turn, inlined
        self.turn_hand = self.hand_n[nxt]
        self.drew = False

    def _remove_face_up_card(self, s: int, c: int) -> int:
        for st in self.face_up[s]:
            if c in st:
                st.remove(c)
                return c
        raise AssertionError("listed take of a face-up card not held")

    def _remove_face_up(self, s: int, cards: tuple[int, ...]) -> None:
        """Take ``cards`` off the face-up row as whole stacks (a single card is a stack of one)."""
        row = self.face_up[s]
        chosen = _cover(row, sorted(cards), 0)
        assert chosen is not None, "listed face-up play not coverable by stacks"
        for i in chosen:
            row[i] = []

    def _end(self, ref: int, events: list[Event]) -> None:
        """End the game: the finishers in order, then everyone else by cards held (C17, C18)."""
        rest = [s for s in range(self.n) if not self.out[s]]
        rest.sort(key=lambda s: (self.cards_held(s), (s - ref) % self.n))
        self.places = tuple(self.finish) + tuple(rest)
        self.phase = OVER
        self.current = -1
        events.append((GAME_OVER, None, self.places, self.places[-1], self.capped))


def _grouped(cards: list[int]) -> dict[int, tuple[int, ...]]:
    """Sorted ``cards`` grouped by rank: rank -> tuple of cards, in rank order."""
    out: dict[int, list[int]] = {}
    for c in sorted(cards):
        out.setdefault(c >> 2, []).append(c)
    return {r: tuple(g) for r, g in out.items()}


def _cover(row: list[list[int]], cards: list[int], start: int) -> list[int] | None:
    """Indices of whole stacks in ``row`` (from ``start``) whose cards are exactly ``cards``."""
    if not cards:
        return []
    for i in range(start, len(row)):
        st = row[i]
        if not st:
            continue
        rest = list(cards)
        try:
            for c in st:
                rest.remove(c)
        except ValueError:
            continue
        found = _cover(row, rest, i + 1)
        if found is not None:
            return [i, *found]
    return None


def _run_length(pile: Iterable[int], r: int, glass: tuple[bool, ...], limit: int) -> int:
    """Cards of rank ``r`` in a row on top of the pile (bottom first), looking through glass (C9)."""
    n = 0
    for c in reversed(pile if isinstance(pile, list) else list(pile)):
        x = c >> 2
        if x == r:
            n += 1
            if n >= limit:
                break
        elif not glass[x]:
            break
    return n


def _next_eff(pw: Any, eff: int, r: int, was_empty: bool) -> int:
    """The effective top after a card of rank ``r`` lands (``was_empty``: it is the bottom card)."""
    if pw.glass[r]:
        if was_empty:
            return r if pw.glass_floor[r] else 0
        return eff
    if pw.reset[r]:
        return 0
    return r


_ABSENT = object()
"""Marks "not in the legal list" (an action may be any object, even ``None``)."""


def _normalise(action: object) -> Action | None:
    """Plays and runs with their cards in another order, or as lists, become canonical tuples."""
    if isinstance(action, (tuple, list)) and len(action) == 2 and action[0] in (PLAY, RUN):
        cards = action[1]
        if isinstance(cards, (tuple, list)) and all(type(c) is int for c in cards):
            return (action[0], tuple(sorted(cards)))
    if isinstance(action, list):
        return tuple(action)
    if isinstance(action, tuple):
        return action
    return None


def outcome_of(game: Game) -> Outcome | None:
    """The :class:`Outcome` of a finished game, or ``None`` while it is running."""
    if game.places is None:
        return None
    flush = game.first_burner if game.rules.flush_player and game.first_burner >= 0 else None
    return Outcome(game.places, game.places[-1], game.capped, flush)
