"""The state of a game and the actions it allows, for every rule of docs/RULES.md.

:class:`GameState` holds a game: the deal (:meth:`GameState.__init__`), the queries, and
:meth:`GameState.legal_actions`, the one source of truth about legality: the complete tuple
of legal actions of a seat (empty when that seat may not act now). It changes nothing; the
moves that change the state are :class:`~server.engine.game.Game`'s, which subclasses it.
Splitting the two keeps each file one job and lets :mod:`server.engine.diagnose`, which
explains a refusal from the state alone, depend on the state without depending on the moves.

Speed
-----
Random play must run at hundreds of thousands of actions per second, so: cards are ints,
actions and events are tuples, a hand is kept grouped by rank together with the plays each
group allows (finding the plays is one step per rank held), powers are looked up in tables
compiled once per rule set (:mod:`server.engine.powers`), ranks in the table
:data:`~server.engine.cards.RANK`, the effective top of the pile is maintained incrementally,
and the legal list is cached per state version so that ``apply`` after ``legal_actions``
costs one membership test.

The pile
--------
``eff`` is the rank that decides what may be played next: the first non-glass card from the
top, or 0 when anything goes (empty pile, a reset card, only glass cards without a value of
their own). ``last_len`` is the size of the last play that counts for ``match_count`` (a
glass play is transparent to it, a run under ``count_runs: false`` leaves 0) and
``last_player`` who made it (``after_pickup: previous``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations
from typing import Final

from .actions import (
    ANNOUNCE,
    DRAW_ONE,
    FLIP,
    GAMBLE_STOCK,
    PASS_NOW,
    PLACE,
    PLAY,
    READY_NOW,
    RUN,
    SWAP,
    TAKE,
    TAKE_PILE,
    Action,
)
from .cards import ACE, NEXT_RANK, RANK, card_bits
from .deal import check_deck, deal
from .errors import RulesError
from .outcome import GameOutcome
from .powers import Powers, compile_powers
from .rules import Rules, check_seats

SETUP: Final = "setup"
ANNOUNCING: Final = "announce"
PLAYING: Final = "play"
OVER: Final = "over"
HAND: Final = "hand"
FACE_UP: Final = "face_up"
FACE_DOWN: Final = "face_down"
STOCK: Final = "stock"
"""Phases of a game, and the places a card is played from."""


@lru_cache(maxsize=16384)
def group_subsets(group: tuple[int, ...], lo: int, forced: int) -> tuple[Action, ...]:
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
        plays = self[group] = group_subsets(group, 1, -1)
        return plays


PLAYS_OF_GROUP: Final = _PlaysOfGroup()


class GameState:
    """The state of one game and what it allows; :class:`~server.engine.game.Game` adds the
    moves. See the module docstring."""

    def __init__(self, rules: Rules, seats: object, dealer: object, deck: list[int]) -> None:
        """Deal ``deck`` (top card first; exactly the rules' cards) with ``dealer`` dealing.
        ``seats`` and ``dealer`` are checked here (``object``: they may come from outside)."""
        seats = check_seats(rules, seats)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
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
        self.groups: list[dict[int, tuple[int, ...]]] = [grouped(h) for h in d.hands]
        self.hand_n: list[int] = [len(h) for h in d.hands]
        # ... and, under suit_runs only (its one reader; 0 otherwise, so that the other rule
        # sets pay nothing for it), as a bit set (cards.card_bits) for finding runs.
        self.hand_bits: list[int] = [card_bits(h) if rules.suit_runs else 0 for h in d.hands]
        # ... and for each group every play it allows on its own (rank -> play actions), kept in
        # rank order (Game._add restores it when a new rank comes in, which is rarer than
        # reading the legal list, the order of view.legal, off it).
        self.plays: list[dict[int, tuple[Action, ...]]] = [
            {r: PLAYS_OF_GROUP[g] for r, g in gr.items()} for gr in self.groups
        ]
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
        self._count_runs = rules.count_runs
        self._reverse_each = rules.reverse_per_card
        self._after_previous = rules.after_pickup == "previous"
        # No option that changes which hand plays are legal beyond "beats the pile" (suit runs
        # only add to them, which the hot path of legal_actions does itself).
        self._plain = not (self._match or self._draw_on or self._gamble_on)
        self._cache_version = -1
        self._cache_seat = -1
        self._cache: tuple[Action, ...] = ()

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
        """Whether the game has ended."""
        return self.phase == OVER

    def outcome(self) -> GameOutcome | None:
        """Places, loser, capped: ``None`` until the game is over."""
        return outcome_of(self)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: object) -> tuple[Action, ...]:
        """The complete tuple of legal actions of ``seat`` (empty if it may not act now, or is
        not a seat: ``object``, as a bool or a float equal to a seat is none)."""
        if self._cache_version == self.version and self._cache_seat is seat:
            return self._cache
        if type(seat) is not int or not 0 <= seat < self.n:
            return ()
        s: int = seat  # (an int from here on: compiled, a native int)
        phase = self.phase
        acts: list[Action]
        if phase == PLAYING:
            if s != self.current:
                acts = []
            elif self._plain and self.hand_n[s] and self.forced < 0:
                # Hot path (_legal_play inlined): every play of every rank that beats the pile.
                beats = self.pw.beats[self.eff]
                acts = []
                # By rank (PROTOCOL.md's order of view.legal): the dict is kept in rank order.
                for r, ps in self.plays[s].items():
                    if beats[r]:
                        acts += ps
                if self._runs_on:
                    held = self.hand_bits[s]
                    if held & (held >> NEXT_RANK) & self.pw.run_starts[self.eff]:  # (no run in most hands)
                        self._run_plays(held, 1, acts)
                if self.pile and (self._voluntary or not acts):
                    acts.append(TAKE_PILE)
            else:
                acts = self._legal_play(s)
        elif phase == SETUP:
            acts = [] if self.ready[s] else self._legal_setup(s)
        elif phase == ANNOUNCING and s == self.current:
            acts = [(ANNOUNCE, c) for c in sorted(set(self.hand(s)))]
            acts.append(PASS_NOW)
        else:
            acts = []
        result = tuple(acts)
        self._cache_version, self._cache_seat, self._cache = self.version, s, result
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
                r = RANK[st[0]]
                acts.extend((PLACE, c, i) for c in distinct if RANK[c] == r)
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
                self._run_plays(self.hand_bits[s], min_len, acts)
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
                self._group_plays(grouped(singles), 1, acts)
            if self._runs_on:
                self._run_plays(card_bits(singles), 1, acts)
            if self.pile and (not acts or self._voluntary):
                if self.rules.faceup_fail == "take_one":
                    acts.extend((TAKE, c) for c in sorted({c for st in row for c in st}))
                else:
                    acts.append(TAKE_PILE)
            return acts
        return [(FLIP, i) for i, c in enumerate(self.face_down[s]) if c is not None]

    def count_floor(self, r: int) -> int:
        """The fewest cards of rank ``r`` a play may hold under ``match_count``: the count of the
        last play that set one, unless ``r`` is exempt (a card that burns or is playable on
        anything: RULES.md S6). A face-down or stock card is one card and meets only 1."""
        if self._match and self.last_len > 1 and not self.pw.free_count[r]:
            return self.last_len
        return 1

    def _group_plays(self, groups: dict[int, tuple[int, ...]], min_len: int, acts: list[Action]) -> None:
        """Append the plays of one rank from ``groups`` (rank -> cards): C6-C8 and options."""
        beats = self.pw.beats[self.eff]
        forced = self.forced
        need = self.last_len if self._match and self.last_len > 1 else 0
        free = self.pw.free_count
        for r, grp in sorted(groups.items()):  # by rank (the order of view.legal)
            if beats[r] and (forced < 0 or RANK[forced] == r):
                lo = need if need and not free[r] else 1
                if min_len > lo:
                    lo = min_len
                if len(grp) >= lo:
                    acts.extend(group_subsets(grp, lo, forced))

    def _stack_plays(self, row: list[list[int]], acts: list[Action]) -> None:
        """Face-up plays under ``karma_stacking``: whole stacks of one rank, one or several."""
        beats = self.pw.beats[self.eff]
        by_rank: dict[int, list[tuple[int, ...]]] = {}
        for st in row:
            if st:
                by_rank.setdefault(RANK[st[0]], []).append(tuple(st))
        for r in sorted(by_rank):
            if not beats[r]:
                continue
            lo = self.count_floor(r)
            stacks = by_rank[r]
            seen: set[tuple[int, ...]] = set()
            for k in range(1, len(stacks) + 1):
                for combo in combinations(stacks, k):
                    cards = tuple(sorted(c for st in combo for c in st))
                    if len(cards) >= lo and cards not in seen:
                        seen.add(cards)
                        acts.append((PLAY, cards))

    def _run_plays(self, held: int, min_len: int, acts: list[Action]) -> None:
        """Append the legal suit runs (``suit_runs``) that can be made from the cards ``held``
        (a bit set: bit ``c`` for card ``c``).

        The card of the next rank in the same suit is ``c + NEXT_RANK``, so a run can only
        start at a card whose ``c + NEXT_RANK`` is held. Each run is simulated card by card as
        it grows: each card must beat what the cards before it leave, and no card but the last may
        burn the pile; so a run of n cards is legal when its first n - 1 are a legal run that
        does not burn at its end and its last card beats what they leave (one more step per
        prefix, not a simulation from the start).
        """
        rank, step, pw = RANK, NEXT_RANK, self.pw  # locals: this runs for every hand under suit_runs
        # Every start at once: a held card that may begin a run on this pile (it beats it, it
        # is below an ace) and whose next card in the suit is held too.
        starts = held & (held >> step) & pw.run_starts[self.eff]
        if not starts:
            return  # (most hands)
        beats, burn, glass, glass_floor, reset = pw.beats, pw.burn, pw.glass, pw.glass_floor, pw.reset
        forced, bc, pile = self.forced, self._bc, self.pile
        # The rank on top of the pile, looking through nothing, or -1: a run's first card can
        # only complete a burn (C9) on a pile whose top is of its rank or glass.
        top = rank[pile[-1]] if pile else -1
        through = top >= 0 and glass[top]
        match = self._match and self._count_runs  # (count_runs: false: no count for runs, S7)
        floor = max(min_len, 2)
        while starts:  # by first card, lowest bit first: the order of view.legal
            low = starts & -starts
            starts ^= low
            c = low.bit_length() - 1
            if match:
                floor = max(min_len, self.count_floor(rank[c]), 2)
            eff = self.eff
            run = [c]
            held_forced = forced < 0 or forced == c
            nxt = c
            while True:
                r = rank[nxt]
                if not beats[eff][r]:
                    break
                n = len(run)
                if n >= floor and held_forced:
                    acts.append((RUN, tuple(run)))
                # Would this card burn the pile before the run ends? Then no longer run is legal.
                # (Under a card of another rank that is not glass, it is alone on top.)
                if burn[r]:
                    break
                if bc:
                    if n == 1:
                        if bc == 1 or ((top == r or through) and run_length(pile, r, glass, bc - 1) >= bc - 1):
                            break
                    elif (bc == 1 or glass[rank[run[-2]]]) and _run_top_count(run, pile, r, glass, bc) >= bc:
                        break
                # next_eff, inlined
                if glass[r]:
                    if n == 1 and top < 0:
                        eff = r if glass_floor[r] else 0
                elif reset[r]:
                    eff = 0
                else:
                    eff = r
                nxt += step
                if not held >> nxt & 1 or rank[nxt] > ACE:
                    break
                run.append(nxt)
                held_forced = held_forced or forced == nxt

    def _may_draw(self, s: int, plays: list[Action]) -> bool:
        """``draw_before_play``: may draw if the hand was not above ``refill_to`` at the start of
        the turn, and a play could then bring it back to ``refill_to``: the hand holds at most
        ``refill_to`` now (after the draw one card is enough, and the drawn card itself may be
        it, so no play need exist yet), or a play of the cards needed exists already."""
        if self.turn_hand > self._refill:
            return False
        need = self.hand_n[s] + 1 - self._refill
        return need <= 1 or any(len(a[1]) >= need for a in plays)


def grouped(cards: list[int]) -> dict[int, tuple[int, ...]]:
    """Sorted ``cards`` grouped by rank: rank -> tuple of cards, in rank order."""
    out: dict[int, list[int]] = {}
    for c in sorted(cards):
        out.setdefault(RANK[c], []).append(c)
    return {r: tuple(g) for r, g in out.items()}


def run_length(pile: Iterable[int], r: int, glass: tuple[bool, ...], limit: int) -> int:
    """Cards of rank ``r`` in a row on top of the pile (bottom first), looking through glass (C9)."""
    n = 0
    rank = RANK
    cards: list[int] = pile if isinstance(pile, list) else list(pile)
    for c in reversed(cards):
        x = rank[c]
        if x == r:
            n += 1
            if n >= limit:
                break
        elif not glass[x]:
            break
    return n


def _run_top_count(run: list[int], pile: list[int], r: int, glass: tuple[bool, ...], limit: int) -> int:
    """:func:`run_length` of rank ``r`` on the pile with ``run`` on top (``run[-1]`` of rank
    ``r``; a suit run holds each rank once, so below it only glass can be looked through),
    without copying the pile."""
    rank = RANK
    j = len(run) - 2
    while j >= 0 and glass[rank[run[j]]]:
        j -= 1
    if j >= 0:
        return 1  # a card of another rank, not glass, lies under it
    return min(limit, 1 + run_length(pile, r, glass, limit - 1)) if limit > 1 else 1


def next_eff(pw: Powers, eff: int, r: int, was_empty: bool) -> int:
    """The effective top after a card of rank ``r`` lands (``was_empty``: it is the bottom card)."""
    if pw.glass[r]:
        if was_empty:
            return r if pw.glass_floor[r] else 0
        return eff
    if pw.reset[r]:
        return 0
    return r


def outcome_of(game: GameState) -> GameOutcome | None:
    """The :class:`GameOutcome` of a finished game, or ``None`` while it is running."""
    if game.places is None:
        return None
    flush = game.first_burner if game.rules.flush_player and game.first_burner >= 0 else None
    return GameOutcome(game.places, game.places[-1], game.capped, flush)
