"""Card tracking for one seat, from the wire view and the public events only.

A :class:`CardTracker` is fed every ``(view, events)`` pair a seat receives (the ``state``
messages of ``docs/PROTOCOL.md`` §6-8) and keeps what that seat can know about where the
cards are:

* its own hand, every face-up card and the pile (straight from the view);
* the burned cards (the pile's cards at each ``burned`` event);
* for each opponent, the cards **known** to be in their hand: cards they picked up (``took``,
  including a flipped, gambled or given-up face-up card), a face-up card they swapped into
  their hand in setup (``swapped``) and a card they announced; a known card leaves the set
  when that player plays a card equal to it from the hand (or places or swaps it face up);
* the **unseen** cards: the deck minus everything above. They are somewhere hidden: in an
  opponent's hand beyond its known cards, face down (the seat's own face-down cards too:
  nobody sees them), or in the stock.

* optionally, for each opponent, **claims** on its unknown hand cards: "at least k of them
  hold none of these ranks" (:meth:`CardTracker.claims`), read from what it did as if it
  played like the greedy policy (:mod:`server.engine.policies`), which every bundled bot does
  unless its search finds better:

  - ``infer_pickups``: an opponent that picks up the pile from its hand is assumed to have had
    no card it could play (true when pick-ups are not voluntary, and of every bundled bot,
    which pick up only when nothing else goes). Its unknown cards at that moment hold none of
    the ranks that beat the pile;
  - ``infer_plays``: an opponent that plays rank r from its hand is assumed to have chosen it
    as greedy does: it held no playable rank that greedy keeps less dearly than r (a lower
    plain rank, or a cheaper power card), and, r being a plain rank, no more r (greedy plays
    the whole group). Not read when r could complete a burn on the pile (greedy's other
    reason to play a rank), or when a card known to be in its hand contradicts the claim.

  Cards drawn later are free of a claim; a claim made later covers the cards an earlier one
  covers (they were still unknown and held), so the claims nest, newest first.
  :meth:`CardTracker.sample` deals accordingly. A wrong claim (a player who does not play
  greedily) only biases the deals; one that cannot be honoured is ignored. Only under rules
  where a hand's plays are "every rank that beats the pile" (no ``match_count``,
  ``suit_runs``, ``draw_before_play`` or ``stock_gamble``).

Claims are conservative: when several decks make two cards equal, a played copy is taken to
be the known one, so the tracker may forget a known card but never claims one that is not
there. The view is the ground truth for counts and the pile; the tracker resynchronises with
it on every update and logs (at debug level) when its own bookkeeping disagreed.

Deck composition. The deck comes from the rules. The view names only the ``preset``, not the
option overrides, so :func:`infer_rules` starts from the preset (or from options the caller
knows) and corrects what the view proves: the number of decks and jokers (every card is in
some zone of the view, so their total is the deck size: ``52 * decks + jokers``, jokers < 52)
and, on the first view of a game (setup, no action yet), the face-down and face-up counts
and the hand size (``refill_to`` follows the hand unless the preset sets it apart). Other
overrides (powers, goal, burn count, ...) are invisible in a view; a bot that knows them
should pass them in. A search bot checks its assumption against the view's legal list.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.payloads import Event, View
from server.engine import RulesError, build_deck, make_rules, parse_card
from server.engine.cards import RANK, format_card
from server.engine.policies import POWER, keep_values
from server.engine.powers import Powers, compile_powers
from server.engine.rules import Rules
from server.engine.state import next_eff

log = logging.getLogger(__name__)

_CARD_INT: dict[str, int] = {format_card(c): c for c in set(build_deck(1, 2))}


def card_int(text: str) -> int:
    """The card int of a card text (canonical texts are looked up, others parsed)."""
    c = _CARD_INT.get(text)
    return c if c is not None else parse_card(text)


def cards_of(texts: list[str]) -> list[int]:
    """Card ints of a list of card texts."""
    get = _CARD_INT.get
    return [c if (c := get(t)) is not None else parse_card(t) for t in texts]


def view_total(view: View) -> int:
    """Every card of the game as the view counts it: hands, face-up, face-down, stock, pile, burned."""
    total: int = view["stock_count"] + len(view["pile"]) + view["burned_count"]
    for p in view["players"]:
        total += p["hand_count"] + sum(len(st) for st in p["face_up"]) + sum(map(bool, p["face_down"]))
    return total


def infer_rules(view: View, options: dict[str, Any] | None = None) -> Rules:
    """The rules to assume for the game of ``view``: the preset with ``options``, corrected by
    what the view proves (decks and jokers from the card total; on a setup view from before
    the first action also the face-down, face-up and hand counts). Falls back to the preset with
    ``options`` when the corrected rules would be invalid."""
    base = make_rules(view["preset"], options)
    over: dict[str, Any] = dict(options or {})
    total = view_total(view)
    decks, jokers = max(1, total // 52), total % 52 if total >= 52 else 0
    if (decks, jokers) != (base.decks, base.jokers) and total >= 52:
        over["decks"], over["jokers"] = decks, jokers
    players = view["players"]
    if players and view.get("phase") == "setup" and view.get("action_count", 1) == 0:
        fd, fu = len(players[0]["face_down"]), len(players[0]["face_up"])
        dealt = players[0]["hand_count"] - (fu if base.deal_style == "choose" else 0)
        for name, value in (("face_down", fd), ("face_up", fu), ("hand", dealt)):
            if getattr(base, name) != value:
                over[name] = value
        if "hand" in over and base.refill_to == base.hand and "refill_to" not in (options or {}):
            over["refill_to"] = over["hand"]
    if view.get("max_actions") and view["max_actions"] != base.max_actions:
        over["max_actions"] = view["max_actions"]
    if over == dict(options or {}):
        return base
    try:
        return make_rules(view["preset"], over)
    except RulesError as exc:
        log.warning("cannot use the rules the view suggests (%s); assuming preset %r", exc, view["preset"])
        return base


@dataclass(slots=True)
class Determinization:
    """One guess at every hidden card, consistent with what the tracker knows.

    ``hands`` per seat (known cards plus sampled ones), ``face_down`` per seat (a card or
    ``None`` per position, as the view's positions), ``stock`` top card first, ``burned`` the
    burned cards (those seen burning, plus any unseen surplus when events were missed).
    """

    hands: list[list[int]]
    face_down: list[list[int | None]]
    stock: list[int]
    burned: list[int]


class TrackerError(RuntimeError):
    """The tracker's knowledge cannot be made consistent with the view (no sample exists)."""


class CardTracker:
    """What one seat knows about the cards; see the module docstring.

    Call :meth:`update` with every view and the events that came with it, in order. The
    queries then describe the state of the latest view.
    """

    def __init__(
        self,
        seat: int | None = None,
        options: dict[str, Any] | None = None,
        *,
        infer_pickups: bool = False,
        infer_plays: bool = False,
    ) -> None:
        """``seat``: the tracking seat (default: taken from the first view). ``options``: rule
        overrides known from outside the view (see :func:`infer_rules`). ``infer_pickups``:
        read an opponent's pick-up as "it could not play"; ``infer_plays``: read its hand plays
        as greedy's choices (see the module docstring)."""
        self.seat = seat
        self.options = options
        self.infer_pickups = infer_pickups
        self.infer_plays = infer_plays
        self._infer = False
        self._infer_play = False
        self._counting = False
        self._pw: Powers | None = None
        #: Per seat, newest first: ``[k, ranks]``, at least k of its unknown hand cards hold
        #: none of ``ranks`` (nor of the ranks of the newer claims: see the module docstring).
        self._claims: list[list[list[Any]]] = []
        self.rules: Rules | None = None
        self.deck: Counter[int] = Counter()
        self.n = 0
        self._action_count = -1
        self.known: list[Counter[int]] = []
        self.hand_count: list[int] = []
        self.face_up: list[list[list[int]]] = []
        self.face_down: list[list[bool]] = []
        self.finish: list[int] = []
        self.pile: list[int] = []
        self.burned: list[int] = []
        self.burned_count = 0
        self.stock_count = 0
        self.last_player = -1
        self.first_burner = -1
        self.turn_start_hand = 0
        self.version = 0

    # ------------------------------------------------------------------ feeding

    def reset(self, view: View) -> None:
        """Start tracking a new game from its first view."""
        if view.get("seat") is not None:
            self.seat = view["seat"]
        self.rules = infer_rules(view, self.options)
        self.deck = Counter(build_deck(self.rules.decks, self.rules.jokers))
        self.n = len(view["players"])
        self.known = [Counter() for _ in range(self.n)]
        self._claims = [[] for _ in range(self.n)]
        r = self.rules
        self._counting = False  # hand counts follow the events only from the first view on
        plain = not (r.match_count or r.suit_runs or r.draw_before_play or r.stock_gamble)
        self._infer = self.infer_pickups and plain
        self._infer_play = self.infer_plays and plain
        self._pw = compile_powers(r, self.n) if self._infer or self._infer_play else None
        self.pile, self.burned, self.finish = [], [], []
        self.last_player = self.first_burner = -1
        self._action_count = -1

    def update(self, view: View, events: Sequence[Event]) -> None:
        """Take in the ``events`` that led to ``view``, then ``view`` itself."""
        new_game = (
            not self.known
            or any(e.get("kind") == "game_start" for e in events)
            or view.get("action_count", 0) < self._action_count
            or len(view["players"]) != self.n
        )
        if new_game:
            self.reset(view)
            events = [e for e in events if e.get("kind") != "game_start"]
            if view.get("action_count", 0) == 0:
                events = []  # a first view: the deal is all there is
        for e in events:
            self._event(e)
        self._sync(view)
        self.version += 1

    def _event(self, e: Mapping[str, Any]) -> None:
        kind, s = e.get("kind"), e.get("seat")
        if not isinstance(s, int):
            return  # every event read below names the seat it happened to
        mine = s == self.seat
        if kind == "played":
            cards = cards_of(e["cards"])
            before = self.pile
            self.pile = before + cards
            self.last_player = s
            if e["source"] == "hand":
                if self._counting:
                    self.hand_count[s] -= len(cards)
                if not mine:
                    unknown = self._forget(s, cards)
                    barred: frozenset[int] = frozenset()
                    for claim in self._claims[s]:
                        # A card of a barred rank came from outside the claim; any other may
                        # have been one of its cards: the claim shrinks (never wrongly grows).
                        barred |= claim[1]
                        claim[0] = max(0, claim[0] - sum(RANK[c] not in barred for c in unknown))
                    if self._infer_play and self._counting:
                        self._infer_play_of(s, before, cards)
        elif kind == "drew":
            if self._counting:
                self.hand_count[s] += int(e.get("count", 0))
        elif kind == "took":
            taken = cards_of(e["cards"])
            if not mine:
                if self._infer and self._counting:
                    self._infer_pickup(s, taken)
                self.known[s].update(taken)
            if self._counting:
                self.hand_count[s] += len(taken)
            self.pile = []
            self.last_player = -1
        elif kind == "burned":
            self.burned.extend(self.pile)
            self.pile = []
            self.last_player = -1
            if self.first_burner < 0:
                self.first_burner = s
        elif kind == "swapped" and not mine:
            self._forget(s, [card_int(e["to_face_up"])])
            self.known[s][card_int(e["to_hand"])] += 1
        elif kind == "placed" and not mine:
            self._forget(s, [card_int(e["card"])])
        elif kind == "announced" and not mine:
            c = card_int(e["card"])
            if not self.known[s][c]:
                self.known[s][c] = 1

    def _forget(self, s: int, cards: list[int]) -> list[int]:
        """Cards left the hand of ``s``: equal known cards are no longer claimed (see module).
        Returns the cards that were not known (they came from the unknown ones)."""
        known = self.known[s]
        unknown = []
        for c in cards:
            if known[c] > 0:
                known[c] -= 1
                if not known[c]:
                    del known[c]
            else:
                unknown.append(c)
        return unknown

    def _infer_pickup(self, s: int, taken: list[int]) -> None:
        """Seat ``s`` picked up ``taken``: if it was the pile and ``s`` played from its hand,
        its unknown cards hold no rank that beats the pile (see the module docstring)."""
        if taken != self.pile or not self.pile or not self.hand_count[s]:
            return  # a face-up or face-down card went with it (no hand), or we lost count
        pw, eff = self._pw, 0
        assert pw is not None, "inference is on, so the powers were compiled"
        for i, c in enumerate(self.pile):
            eff = next_eff(pw, eff, RANK[c], i == 0)
        beats = pw.beats[eff]
        if any(beats[RANK[c]] for c in self.known[s]):
            return  # it held a known card that would go: the pick-up was a choice
        self._claim(s, frozenset(r for r in range(len(beats)) if beats[r]))

    def _infer_play_of(self, s: int, pile: list[int], cards: list[int]) -> None:
        """Seat ``s`` played ``cards`` from its hand onto ``pile``: if greedy would choose that
        rank only when holding none of some others, its unknown cards hold none of them (see
        the module docstring)."""
        r = RANK[cards[0]]
        if any(RANK[c] != r for c in cards) or (pile and RANK[pile[-1]] == r):
            return  # not one rank, or a rank that may have been played to complete a burn
        pw, eff = self._pw, 0
        assert pw is not None, "inference is on, so the powers were compiled"
        for i, c in enumerate(pile):
            eff = next_eff(pw, eff, RANK[c], i == 0)
        beats, kv = pw.beats[eff], keep_values(pw)
        if not beats[r]:
            return  # not a play we understand (the rules assumed are not the table's)
        ranks = {q for q in range(2, len(beats)) if beats[q] and (kv[q], q) < (kv[r], r)}
        if kv[r] < POWER:
            ranks.add(r)  # greedy plays a plain rank's whole group
        if not ranks or any(RANK[c] in ranks for c in self.known[s]):
            return  # nothing to claim, or a known card says the play was a choice
        self._claim(s, frozenset(ranks))

    def _claim(self, s: int, ranks: frozenset[int]) -> None:
        """A new claim on every unknown hand card ``s`` holds now (the newest; at most three kept)."""
        k = self.unknown_in_hand(s)
        if k > 0:
            self._claims[s] = [[k, ranks], *self._claims[s][:2]]

    def _sync(self, view: View) -> None:
        """Take counts, face-up cards, the pile and our hand from the view (the ground truth)."""
        players = view["players"]
        self.hand_count = [p["hand_count"] for p in players]
        self._counting = True
        self.face_up = [[cards_of(st) for st in p["face_up"]] for p in players]
        self.face_down = [list(map(bool, p["face_down"])) for p in players]
        outs = [(p["place"], p["seat"]) for p in players if p["out"] and p["place"] is not None]
        self.finish = [s for _, s in sorted(outs)]
        pile = cards_of(view["pile"])
        if pile != self.pile:
            log.debug("tracker pile %s differs from the view's %s; following the view", self.pile, pile)
            self.pile = pile
        self.burned_count = view["burned_count"]
        if len(self.burned) > self.burned_count:
            log.debug("tracker saw %d burned cards, the view says %d", len(self.burned), self.burned_count)
            self.burned = self.burned[: self.burned_count]
        self.stock_count = view["stock_count"]
        self._action_count = view.get("action_count", 0)
        me, hand = self.seat, view.get("hand")
        if me is not None and hand is not None:
            self.known[me] = Counter(cards_of(hand))
            if view.get("turn") == me and not view.get("drew_this_turn"):
                self.turn_start_hand = len(hand)
        for s in range(self.n):
            if s != me and sum(self.known[s].values()) > self.hand_count[s]:
                log.debug("seat %d: more known cards than its hand holds; forgetting them", s)
                self.known[s].clear()
            if s == me:
                self._claims[s] = []
            else:
                unknown = self.unknown_in_hand(s)
                for claim in self._claims[s]:
                    claim[0] = min(claim[0], unknown)
        # Conservation: no card may be seen more often than the decks hold it.
        over = self._seen() - self.deck
        for c in over:
            for s in range(self.n):
                if s != me:
                    self.known[s].pop(c, None)

    def _seen(self) -> Counter[int]:
        """Every card whose place is known: hands (known parts), face-up, pile, burned."""
        seen: Counter[int] = Counter(self.pile)
        seen.update(self.burned)
        for s in range(self.n):
            seen.update(self.known[s])
            for st in self.face_up[s]:
                seen.update(st)
        return seen

    # ------------------------------------------------------------------ queries

    def known_in_hand(self, seat: int) -> list[int]:
        """The cards known to be in the hand of ``seat`` (its whole hand for our own seat)."""
        return sorted(self.known[seat].elements())

    def unknown_in_hand(self, seat: int) -> int:
        """How many cards of the hand of ``seat`` are not known (0 for our own seat)."""
        return self.hand_count[seat] - sum(self.known[seat].values())

    def claims(self, seat: int) -> list[tuple[int, frozenset[int]]]:
        """What is inferred of the unknown hand cards of ``seat``: ``(k, ranks)`` pairs, each
        meaning "at least ``k`` of them hold none of ``ranks``", newest first (an older claim's
        ranks include the newer ones'). Empty without inference."""
        out: list[tuple[int, frozenset[int]]] = []
        barred: frozenset[int] = frozenset()
        for k, ranks in self._claims[seat]:
            barred |= ranks
            if k:
                out.append((k, barred))
        return out

    def face_down_count(self, seat: int) -> int:
        """How many face-down cards ``seat`` still has."""
        return sum(self.face_down[seat])

    def unseen(self) -> Counter[int]:
        """The cards not seen in a known place: unknown hand cards, face-down cards, the stock
        (and burned cards whose burn this tracker did not see)."""
        return self.deck - self._seen()

    def hidden_slots(self) -> int:
        """How many cards lie in hidden places whose cards are not known."""
        return (
            sum(self.unknown_in_hand(s) for s in range(self.n) if s != self.seat)
            + sum(self.face_down_count(s) for s in range(self.n))
            + self.stock_count
        )

    def sample(self, rng: random.Random, pool: list[int] | None = None) -> Determinization:
        """Deal the unseen cards at random into the hidden places (known cards stay put).

        ``pool``: ``list(self.unseen().elements())`` if the caller has it already (it is
        shuffled in place). Unseen cards beyond the hidden places (burns not seen) go to the
        burned cards. Raises :class:`TrackerError` if there are fewer unseen cards than places.
        """
        if pool is None:
            pool = list(self.unseen().elements())
        if len(pool) < self.hidden_slots():
            raise TrackerError(f"{len(pool)} unseen cards for {self.hidden_slots()} hidden places")
        rng.shuffle(pool)
        i = 0
        hands: list[list[int]] = []
        for s in range(self.n):
            hand = sorted(self.known[s].elements())
            k = 0 if s == self.seat else self.unknown_in_hand(s)
            if k and self._claims[s]:
                # The oldest claim bars the most ranks: its cards first, then each newer claim's
                # remaining cards (the cards already dealt satisfy it too).
                dealt = 0
                for n, ranks in reversed(self.claims(s)):
                    want = min(k, n) - dealt
                    if want > 0:
                        _front_load(pool, i + dealt, want, ranks)
                        dealt += want
            hand += pool[i : i + k]
            i += k
            hands.append(hand)
        face_down: list[list[int | None]] = []
        for row in self.face_down:
            cards: list[int | None] = []
            for covered in row:
                if covered:
                    cards.append(pool[i])
                    i += 1
                else:
                    cards.append(None)
            face_down.append(cards)
        stock = pool[i : i + self.stock_count]
        i += self.stock_count
        return Determinization(hands, face_down, stock, self.burned + pool[i:])


def _front_load(pool: list[int], i: int, k: int, barred: frozenset[int]) -> None:
    """Move cards of ranks not in ``barred`` to ``pool[i : i + k]`` (the first ones found from
    ``i`` on, in the shuffled order). If there are fewer, the rest of the slice stays as it is:
    the inference was wrong (a pick-up by choice), and the deal ignores it."""
    got, j, end = 0, i, len(pool)
    while got < k and j < end:
        if RANK[pool[j]] not in barred:
            pool[i + got], pool[j] = pool[j], pool[i + got]
            got += 1
        j += 1
