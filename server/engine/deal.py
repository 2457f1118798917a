"""The deal of C3, and its inverse for building explicit deck orders.

Cards leave the top of the deck one at a time, to each player in turn starting with the
dealer's left neighbour: a row of ``face_down`` cards each, then ``face_up`` cards each (one
on each face-down card), then a hand of ``hand`` cards each. Under ``deal_style: choose`` no
face-up cards are dealt: the hand rounds are ``face_up + hand`` long. The rest is the stock.

:func:`stack_deck` goes the other way: given the cards some seats should receive, it returns
a deck order (top first) that deals exactly those cards. Tests and puzzles use it so that
nothing depends on luck.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import build_deck, format_card, parse_card
from .errors import RulesError
from .rules import Rules

FACE_DOWN, FACE_UP, HAND = "face_down", "face_up", "hand"


@dataclass(slots=True)
class DealtCards:
    """The result of a deal: per seat lists, and the stock top first."""

    face_down: list[list[int]]
    face_up: list[list[int]]
    hands: list[list[int]]
    stock: list[int]


def _rounds(rules: Rules) -> list[tuple[str, int]]:
    if rules.deal_style == "choose":
        return [(FACE_DOWN, rules.face_down), (HAND, rules.face_up + rules.hand)]
    return [(FACE_DOWN, rules.face_down), (FACE_UP, rules.face_up), (HAND, rules.hand)]


def deal_positions(rules: Rules, seats: int, dealer: int) -> list[tuple[str, int, int]]:
    """Where each of the first dealt cards goes: ``(zone, seat, index within zone)``."""
    order = [(dealer + 1 + i) % seats for i in range(seats)]
    out = []
    for zone, count in _rounds(rules):
        for i in range(count):
            for s in order:
                out.append((zone, s, i))
    return out


def deal(deck: Sequence[int], rules: Rules, seats: int, dealer: int) -> DealtCards:
    """Deal ``deck`` (top card first) as C3 says."""
    zones: dict[str, list[list[int]]] = {z: [[] for _ in range(seats)] for z in (FACE_DOWN, FACE_UP, HAND)}
    positions = deal_positions(rules, seats, dealer)
    for c, (zone, s, _) in zip(deck, positions, strict=False):  # the rest is the stock
        zones[zone][s].append(c)
    return DealtCards(zones[FACE_DOWN], zones[FACE_UP], zones[HAND], list(deck[len(positions) :]))


def check_deck(deck: Sequence[int], rules: Rules) -> None:
    """Raise :class:`RulesError` unless ``deck`` is exactly the cards ``rules`` play with."""
    full = Counter(build_deck(rules.decks, rules.jokers))
    got = Counter(deck)
    if got != full:
        missing = sorted((full - got).elements())[:5]
        extra = sorted((got - full).elements())[:5]
        parts = []
        if missing:
            parts.append("missing " + " ".join(format_card(c) for c in missing))
        if extra:
            parts.append("not in these decks or too many: " + " ".join(format_card(c) for c in extra))
        raise RulesError(
            "deck",
            f"the deck order must hold exactly the {sum(full.values())} cards of "
            f"decks={rules.decks}, jokers={rules.jokers}: " + "; ".join(parts),
        )


def _as_cards(cards: Sequence[int | str]) -> list[int]:
    return [parse_card(c) if isinstance(c, str) else c for c in cards]


def stack_deck(
    rules: Rules,
    seats: int,
    dealer: int = 0,
    *,
    hands: Mapping[int, Sequence[int | str]] | None = None,
    face_up: Mapping[int, Sequence[int | str]] | None = None,
    face_down: Mapping[int, Sequence[int | str]] | None = None,
    stock: Sequence[int | str] = (),
    rng: random.Random | None = None,
) -> list[int]:
    """Return a deck order (top first) that deals the given cards.

    ``hands``, ``face_up`` and ``face_down`` map a seat to the cards it should receive in
    that zone, in order (a prefix is enough; under ``deal_style: choose`` the hand holds
    ``face_up + hand`` cards). ``stock`` lists the top cards of the stock. Every other
    position is filled with the remaining cards, in deck order or shuffled by ``rng``.
    """
    wanted: dict[tuple[str, int, int], int] = {}
    for zone, spec in ((HAND, hands), (FACE_UP, face_up), (FACE_DOWN, face_down)):
        for s, cards in (spec or {}).items():
            for i, c in enumerate(_as_cards(cards)):
                wanted[(zone, s, i)] = c
    positions = deal_positions(rules, seats, dealer)
    stock_cards = _as_cards(stock)
    remaining = Counter(build_deck(rules.decks, rules.jokers))
    for c in list(wanted.values()) + stock_cards:
        if remaining[c] <= 0:
            raise ValueError(f"card {format_card(c)} is asked for more often than the decks hold")
        remaining[c] -= 1
    known = set(positions)
    for key in wanted:
        if key not in known:
            raise ValueError(f"no such deal position {key} for these rules")
    fill = list(remaining.elements())
    if rng is not None:
        rng.shuffle(fill)
    fill.reverse()  # pop() from the end keeps deck order
    deck = [wanted[p] if p in wanted else fill.pop() for p in positions]
    deck.extend(stock_cards)
    deck.extend(reversed(fill))
    return deck
