"""The moves of a game: :meth:`Game.apply` and every state change it makes, for every rule of docs/RULES.md.

Contract
--------
* :meth:`Game.apply` accepts exactly the actions that
  :meth:`~server.engine.state.GameState.legal_actions` lists. Anything else raises
  :class:`~server.engine.errors.IllegalAction` with a stable code and leaves the state as it
  was (the reason is worked out only on that slow path, by :mod:`server.engine.diagnose`).
* Nothing here does I/O or draws random numbers of its own: the deck order comes in from
  outside (:meth:`Game.new` shuffles with the seed or rng it is given).

The state itself, the deal and the legal actions are :mod:`server.engine.state`; its
constants are re-exported here for the modules that know a game only as ``Game``.
"""

from __future__ import annotations

import random
from typing import Any, Final

from .actions import (
    ANNOUNCE,
    DRAW,
    FLIP,
    GAMBLE,
    PASS,
    PLACE,
    PLAY,
    READY,
    RUN,
    SWAP,
    TAKE,
    Action,
    is_well_formed,
)
from .cards import JOKER, RANK, RANK_BITS, build_deck, card_bits
from .diagnose import diagnose
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
from .rules import Rules
from .state import (
    ANNOUNCING,
    FACE_DOWN,
    FACE_UP,
    HAND,
    OVER,
    PLAYING,
    PLAYS_OF_GROUP,
    SETUP,
    STOCK,
    GameState,
    next_eff,
    outcome_of,
    run_length,
)

__all__ = ["ANNOUNCING", "FACE_DOWN", "FACE_UP", "HAND", "OVER", "PLAYING", "SETUP", "STOCK", "Game", "outcome_of"]

# C5: who opens: the first 3 face up, else in hand, then 4s, 5s ... and 2s and jokers last.
_OPENING_RANKS: Final = (*range(3, 15), 2, JOKER)


class Game(GameState):
    """One game of Shithead: the state plus the moves. Build it with :meth:`new` (or
    ``Game(rules, seats, dealer, deck)``); see the module docstring."""

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
        """A deep copy that shares only immutable parts (for search bots). Every attribute is
        named: the compiled class has no ``__dict__`` (tests/engine/test_clone_attrs.py checks
        that none is forgotten). The copy is a :class:`_Clone`, a ``Game`` made without dealing
        (a compiled class runs ``__init__`` inside ``__new__``, so ``__new__`` cannot skip it)."""
        g: Game = _Clone()
        g.rules, g.n, g.dealer, g.deck, g.pw = self.rules, self.n, self.dealer, self.deck, self.pw
        g.eff, g.last_len, g.last_player, g.phase = self.eff, self.last_len, self.last_player, self.phase
        g.current, g.direction, g.active, g.turn_hand = self.current, self.direction, self.active, self.turn_hand
        g.drew, g.forced, g.announce_left, g.version = self.drew, self.forced, self.announce_left, self.version
        g.capped, g.places, g.first_burner = self.capped, self.places, self.first_burner
        g._refill, g._bc, g._match, g._karma = self._refill, self._bc, self._match, self._karma
        g._runs_on, g._draw_on, g._gamble_on = self._runs_on, self._draw_on, self._gamble_on
        g._voluntary, g._max_actions, g._pair_skip = self._voluntary, self._max_actions, self._pair_skip
        g._count_runs, g._reverse_each, g._after_previous = self._count_runs, self._reverse_each, self._after_previous
        g._plain, g._cache_seat, g._cache = self._plain, self._cache_seat, self._cache
        g.hand_n = list(self.hand_n)
        g.hand_bits = list(self.hand_bits)
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

    # ------------------------------------------------------------------ apply

    def apply(self, seat: object, action: object) -> list[Event]:
        """Apply a legal action of ``seat`` and return the events it caused.

        Raises :class:`IllegalAction` (state unchanged) for anything not in
        :meth:`legal_actions`. Play and run cards may be given in any order. ``seat`` and
        ``action`` are ``object``: anything may come, and is checked here.
        """
        if type(seat) is not int:  # True == 1 and 1.0 == 1: refuse them before any lookup
            raise diagnose(self, seat, action)
        s: int = seat  # (an int from here on: compiled, a native int)
        if self._cache_version == self.version and self._cache_seat == s:
            legal = self._cache
        else:
            legal = self.legal_actions(s)
        # The very tuple from the legal list (what a player that chose from it sends) is found
        # by identity: no tuple is compared.
        canonical: Action | None = None
        for a in legal:
            if a is action:
                canonical = a
                break
        if canonical is None:
            # Not the very tuple from the legal list (it was parsed, rebuilt, or is wrong):
            # it must have exact types (20.0 == 20 but is no card) and is then replaced by
            # the canonical tuple, or it is refused.
            fixed = _normalise(action) if is_well_formed(action) or isinstance(action, list) else None
            if fixed is not None and not is_well_formed(fixed):
                fixed = None
            if fixed is None or fixed not in legal:
                raise diagnose(self, seat, action)
            canonical = legal[legal.index(fixed)]
        act: Action = canonical
        self.version += 1
        self.history.append((s, act))
        events: list[Event] = []
        kind: str = act[0]
        if kind == PLAY or kind == RUN:
            self._play(s, act[1], kind == RUN, events)
        elif kind == TAKE:
            extra = [self._remove_face_up_card(s, act[1])] if len(act) == 2 else []
            self._pickup(s, extra, events)
        elif kind == FLIP:
            self._flip(s, act[1], events)
        elif kind == DRAW:
            self._add(s, [self.stock.pop()])
            self.drew = True
            events.append((DREW, s, 1))
        elif kind == GAMBLE:
            c = self.stock.pop()
            events.append((GAMBLED, s, c))
            self._single(s, c, STOCK, events)
        elif kind == SWAP:
            self._swap(s, act[1], act[2], events)
        elif kind == PLACE:
            self._place(s, act[1], act[2], events)
        elif kind == READY:
            self.ready[s] = True
            events.append((READY_EVENT, s))
            if all(self.ready):
                self._begin(events)
        elif kind == ANNOUNCE or kind == PASS:
            self._announce(s, act[1] if kind == ANNOUNCE else -1, events)
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
        self._add(s, [old])
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
                    if st and RANK[st[0]] == r:
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
        seat, c = min(self.announcements, key=lambda sc: RANK[sc[1]])
        self.forced = c
        self._open(seat, c, events)

    # --- play

    def _add(self, s: int, cards: list[int]) -> None:
        """Put ``cards`` into the hand of ``s``: regroup each rank touched, once. (One type,
        ``list``: compiled, a union would make every step on ``cards`` a generic one.)"""
        groups = self.groups[s]
        plays = self.plays[s]
        self.hand_n[s] += len(cards)
        if len(cards) == 1:  # a refill of one card, the common case
            c = cards[0]
            if self._runs_on:
                self.hand_bits[s] |= 1 << c
            r = RANK[c]
            old = groups.get(r)
            if old is not None:
                grp = groups[r] = tuple(sorted((*old, c)))
                plays[r] = PLAYS_OF_GROUP[grp]  # (an existing key keeps its place)
                return
            grp = groups[r] = (c,)
            last = next(reversed(plays), 0)
            plays[r] = PLAYS_OF_GROUP[grp]
            if r < last:
                self.plays[s] = _rank_ordered(plays)
            return
        if self._runs_on:
            self.hand_bits[s] |= card_bits(cards)
        # The cards of each rank, then each rank's group made once from them and the old one.
        added: dict[int, list[int]] = {}
        for c in cards:
            r = RANK[c]
            got = added.get(r)
            if got is None:
                added[r] = [c]
            else:
                got.append(c)
        new_rank = False
        for r, got in added.items():
            old = groups.get(r)
            if old is None:
                new_rank = True
            else:
                got += old
            got.sort()
            grp = groups[r] = tuple(got)
            plays[r] = PLAYS_OF_GROUP[grp]
        if new_rank:
            self.plays[s] = _rank_ordered(plays)

    def _remove(self, s: int, cards: tuple[int, ...]) -> None:
        """Take held ``cards`` out of the hand of ``s``."""
        groups = self.groups[s]
        plays = self.plays[s]
        self.hand_n[s] -= len(cards)
        for c in cards:
            r = RANK[c]
            grp = groups[r]
            if len(grp) == 1:
                del groups[r], plays[r]
            else:
                rest = list(grp)
                rest.remove(c)
                grp = groups[r] = tuple(rest)
                plays[r] = PLAYS_OF_GROUP[grp]
        if self._runs_on:
            bits = self.hand_bits[s]
            for c in cards:
                if c not in groups.get(RANK[c], ()):  # (with several decks a copy may still be held)
                    bits &= ~(1 << c)
            self.hand_bits[s] = bits

    def _start_turn(self, s: int) -> None:
        self.current = s
        self.turn_hand = self.hand_n[s]
        self.drew = False

    def _play(self, s: int, cards: tuple[int, ...], is_run: bool, events: list[Event]) -> None:
        if self.hand_n[s]:
            groups = self.groups[s]
            r = RANK[cards[0]]
            if groups.get(r) == cards:  # a whole group: the common case, inlined
                del groups[r], self.plays[s][r]
                self.hand_n[s] -= len(cards)
                if self._runs_on:
                    self.hand_bits[s] &= ~RANK_BITS[r]
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
                self.eff = next_eff(pw, self.eff, RANK[c], len(self.pile) == 1)
            # S7: a run counts its cards for match_count and pair_skip unless count_runs is off.
            self._put(s, cards[-1:], len(cards) if self._count_runs else 0, events, cards[:-1])
        else:
            self._put(s, cards, len(cards), events)

    def _run_powers(self, s: int, cards: tuple[int, ...], events: list[Event]) -> int:
        """Powers of the cards inside a run (the last card's acted in :meth:`_put`); returns the
        steps to the next player. Each kind of power counts once per play, except that under
        ``reverse_per_card`` every reverse card reverses (S1); a two-card run is a pair for
        ``pair_skip`` only under ``count_runs`` (S7)."""
        pw = self.pw
        inner = sum(pw.reverse[RANK[c]] for c in cards[:-1])
        if not self._reverse_each:
            inner = 1 if inner and not pw.reverse[RANK[cards[-1]]] else 0
        for _ in range(inner):
            self.direction = -self.direction
            events.append((REVERSED, s, self.direction))
        steps = 2 if any(pw.skip[RANK[c]] for c in cards) else 1
        return steps + (len(cards) == 2 and self._pair_skip and self._count_runs)

    def _put(
        self, s: int, cards: tuple[int, ...], count: int, events: list[Event], inner: tuple[int, ...] = ()
    ) -> None:
        """Same-rank ``cards`` land on the pile and the turn moves on.

        In order: the effective top and the powers (C7, C8, glass, lower, reverse, skip), a
        burn (C8/C9), the refill (C10, before the extra turn of a burn), going out (C16), and
        the next player (the same one after a burn). ``count`` is the size of the whole play as
        ``match_count`` and ``pair_skip`` count it (0 for a run under ``count_runs: false``);
        a play of glass cards leaves the count of the play below (S6). ``inner`` holds the
        earlier cards of a run, already on the pile. This is the hot path of every play, kept
        in one method on purpose.
        """
        pw = self.pw
        pile = self.pile
        r = RANK[cards[0]]
        k = len(cards)
        self.last_player = s
        bc = self._bc
        steps = 1
        if pw.plain[r]:
            # The short path: an ordinary rank can only burn by completing a run (C9).
            pile.extend(cards)
            self.eff = r
            self.last_len = count
            if bc and (
                k >= bc
                or (
                    len(pile) > k
                    and (RANK[pile[-k - 1]] == r or pw.glass[RANK[pile[-k - 1]]])
                    and run_length(pile, r, pw.glass, bc) >= bc
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
                if inner:  # (a play of glass cards is transparent to match_count, S6; a run is not)
                    self.last_len = count
            else:
                self.last_len = count
                self.eff = 0 if pw.reset[r] else r
            if pw.burn[r] or (bc and (k >= bc or run_length(pile, r, pw.glass, bc) >= bc)):
                self._burn(s, events)
                steps = 0
            else:
                if pw.reverse[r]:
                    for _ in range(k if self._reverse_each else 1):  # (S1)
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
        if self.pw.beats[self.eff][RANK[c]] and self.count_floor(RANK[c]) <= 1:
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


def _rank_ordered(plays: dict[int, tuple[Action, ...]]) -> dict[int, tuple[Action, ...]]:
    """A hand's ``plays`` (rank -> plays) in rank order, a new dict, for after a new rank came
    in (see GameState.plays: the legal list is read off it in that order). A comprehension over
    the sorted ranks: compiled, a native loop of dict reads and writes."""
    return {r: plays[r] for r in sorted(plays)}


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


class _Clone(Game):
    """A :class:`Game` allocated without a deal, for :meth:`Game.clone` to fill in: every
    attribute is assigned there before the copy is used."""

    def __init__(self) -> None:
        pass
