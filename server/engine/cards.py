"""Cards, ranks and the card notation of docs/RULES.md §1.

A card is a small ``int``: ``rank << 2 | suit``. Ranks are 2..14 (2 … ace) and 15 for a
joker; suits are 0..3 for ``c d h s`` (jokers: 0 red, 1 black). Ints keep the hot path of
the engine cheap (hashing, sorting, comparing) and sort by rank first, so a sorted tuple of
cards is also in rank order, which is what a suit run needs.

The text form is two characters, rank then suit: ``7h``, ``Td``, ``As``, ``Xr``. Parsing is
forgiving where a person types (``10h``, ``7H``); formatting is always canonical.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"
JOKER: Final = 15
"""The rank number of a joker. Jokers have no rank in the rules; this only orders them."""

ACE: Final = 14
TEN: Final = 10

_RANK_OF_CHAR = {ch: i + 2 for i, ch in enumerate(RANK_CHARS)}
_RANK_OF_CHAR["X"] = JOKER


class CardError(ValueError):
    """A card or rank in text form could not be read."""


def card(rank: int, suit: int) -> int:
    """Return the card of ``rank`` (2..15) and ``suit`` (0..3)."""
    return rank << 2 | suit


CARD_LIMIT: Final = card(JOKER + 1, 0)
"""Every card int is below this (64): the size of the tables indexed by card."""

NEXT_RANK: Final = card(3, 0) - card(2, 0)
"""``c + NEXT_RANK`` is the card of the next rank in the suit of ``c`` (for suit runs)."""

RANK: Final[tuple[int, ...]] = tuple(c >> 2 for c in range(CARD_LIMIT))
"""``RANK[c]`` is the rank number of card ``c``. This table (and :data:`SUIT`) is the one
place outside this module's constructors that knows the bit layout; the engine's hot paths
index it directly (as fast as the shift it replaces: figures in docs/ENGINE.md)."""

SUIT: Final[tuple[int, ...]] = tuple(c & 3 for c in range(CARD_LIMIT))
"""``SUIT[c]`` is the suit number of card ``c`` (0..3)."""

RANK_BITS: Final[tuple[int, ...]] = tuple(
    sum(1 << c for c in range(CARD_LIMIT) if RANK[c] == r) for r in range(JOKER + 1)
)
"""``RANK_BITS[r]`` is the bit set (see :func:`card_bits`) of every card of rank ``r``."""


def card_bits(cards: Iterable[int]) -> int:
    """The bit set of ``cards``: bit ``c`` is set when card ``c`` is among them (copies count
    once). A set of cards as one int lets the engine find suit runs with a few shifts."""
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits


def rank_of(c: int) -> int:
    """Return the rank number of card ``c`` (2..14, or 15 for a joker)."""
    return RANK[c]


def suit_of(c: int) -> int:
    """Return the suit number of card ``c`` (0..3)."""
    return SUIT[c]


def rank_char(rank: int) -> str:
    """Return the one-character name of a rank number (``T`` for 10, ``X`` for a joker)."""
    return "X" if rank == JOKER else RANK_CHARS[rank - 2]


def parse_rank(text: str) -> int:
    """Parse a rank name (``7``, ``T``, ``10``, ``q``, ``X``) into its number."""
    t = text.strip().upper()
    if t == "10":
        t = "T"
    try:
        return _RANK_OF_CHAR[t]
    except KeyError:
        raise CardError(f"unknown rank {text!r}: use one of 2-9, T (or 10), J, Q, K, A, X") from None


def format_card(c: int) -> str:
    """Return the canonical two-character text of card ``c``."""
    r = RANK[c]
    if r == JOKER:
        return "Xr" if SUIT[c] == 0 else "Xb"
    return RANK_CHARS[r - 2] + SUIT_CHARS[SUIT[c]]


def parse_card(text: str) -> int:
    """Parse one card (``7h``, ``Td``, ``10d``, ``Xr``); raise :class:`CardError` if invalid."""
    t = text.strip()
    if len(t) < 2:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. 7h, Td, As, Xr)")
    rank = parse_rank(t[:-1])
    s = t[-1].lower()
    if rank == JOKER:
        if s not in "rb":
            raise CardError(f"not a card: {text!r} (jokers are Xr and Xb)")
        return card(JOKER, 0 if s == "r" else 1)
    suit = SUIT_CHARS.find(s)
    if suit < 0:
        raise CardError(f"unknown suit in {text!r}: use one of c, d, h, s")
    return card(rank, suit)


def format_cards(cards: Iterable[int]) -> str:
    """Return cards as space-separated text."""
    return " ".join(format_card(c) for c in cards)


def parse_cards(text: str) -> list[int]:
    """Parse space- or comma-separated cards."""
    return [parse_card(t) for t in text.replace(",", " ").split()]


def sort_key(c: int) -> tuple[int, int]:
    """Display order: by rank, then suit."""
    return (RANK[c], SUIT[c])


def build_deck(decks: int, jokers: int) -> list[int]:
    """Return an unshuffled deck: ``decks`` full 52-card decks plus ``jokers`` jokers.

    Jokers alternate red and black. The order is fixed so that a seed shuffles the same
    way on every machine.
    """
    one = [card(r, s) for r in range(2, ACE + 1) for s in range(4)]
    deck = one * decks
    deck.extend(card(JOKER, i % 2) for i in range(jokers))
    return deck
