"""The fixed discrete action space: every action text of every preset and option has one index.

The table is built once from the engine's limits, not from a game, so its size
(:data:`N_ACTIONS`) is the same for every preset, rule option, seat count and position, and a
policy trained on one preset can be asked about another. Index -> text is
:func:`action_text`; text -> index is :func:`action_index`; the two are inverse on the whole
table (``action_text(action_index(t)) == t`` for every canonical text ``t``, and
``action_index(action_text(i)) == i`` for every index ``i``).

The blocks, in index order (:data:`BLOCKS` holds their offsets):

==========  =====  =================================================================
block       size   texts
==========  =====  =================================================================
simple         5   ``take``, ``draw``, ``gamble``, ``ready``, ``pass``
play        3315   ``play`` of one rank 2..A: per suit 0..3 copies (up to three decks)
play_joker    24   ``play`` of jokers: 0..4 red and 0..4 black (up to eight jokers)
run          312   ``run``: a suit run of 2..13 ascending ranks in one suit (``suit_runs``)
flip          10   ``flip 0`` .. ``flip 9`` (up to ten face-down cards)
take_card     54   ``take <card>``: a face-up card added before picking up (``take_one``)
swap         540   ``swap <card> <slot>``: setup, a hand card <-> face-up slot 0..9
place        540   ``place <card> <slot>``: setup, a hand card onto face-up slot 0..9
announce      54   ``announce <card>`` (``opening: announce``)
==========  =====  =================================================================

Cards are the 52 of a deck plus the two jokers ``Xr`` and ``Xb``: 54 card types. The limits
come from the engine's option ranges (``decks`` at most :data:`server.engine.rules.MAX_DECKS`,
``jokers`` at most 8, ``face_up`` and ``face_down`` at most 10); a test checks them against
``make_rules``, so a wider engine fails the suite here rather than a learner later.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from server.engine import IllegalAction, format_action, parse_action
from server.engine.actions import (
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
)
from server.engine.cards import ACE, JOKER, NEXT_RANK, card
from server.engine.rules import MAX_DECKS

__all__ = [
    "BLOCKS",
    "CARD_TYPES",
    "MAX_COPIES",
    "MAX_JOKERS_OF_A_COLOUR",
    "MAX_SLOTS",
    "N_ACTIONS",
    "Block",
    "action_index",
    "action_text",
    "card_type",
]

MAX_COPIES = MAX_DECKS
"""The most copies of one card (rank and suit) a game can hold: one per deck."""

MAX_JOKERS_OF_A_COLOUR = 4
"""The engine allows up to eight jokers, alternating red and black: four of each colour."""

MAX_SLOTS = 10
"""The most face-up slots and face-down positions a rule set can give (options ``face_up`` and
``face_down`` go up to 10)."""

RANKS = tuple(range(2, ACE + 1))
"""The ranks of ordinary cards, 2..A (jokers apart)."""

CARD_TYPES: tuple[int, ...] = (*(card(r, s) for r in RANKS for s in range(4)), card(JOKER, 0), card(JOKER, 1))
"""The 54 distinct cards (engine card ints), in the engine's order: 2c 2d 2h 2s ... As Xr Xb."""

_CARD_TYPE_INDEX = {c: i for i, c in enumerate(CARD_TYPES)}


def card_type(c: int) -> int:
    """The index (0..53) of engine card ``c`` in :data:`CARD_TYPES`."""
    return _CARD_TYPE_INDEX[c]


@dataclass(frozen=True, slots=True)
class Block:
    """One contiguous block of the table: indices ``start`` .. ``start + size - 1``."""

    name: str
    start: int
    size: int
    description: str


def _simple() -> list[Action]:
    return [(TAKE,), (DRAW,), (GAMBLE,), (READY,), (PASS,)]


def _plays() -> list[Action]:
    """Every multiset of one rank: counts per suit 0..MAX_COPIES, not all zero."""
    out: list[Action] = []
    for r in RANKS:
        for counts in itertools.product(range(MAX_COPIES + 1), repeat=4):
            if any(counts):
                cards = tuple(card(r, s) for s in range(4) for _ in range(counts[s]))
                out.append((PLAY, cards))
    return out


def _joker_plays() -> list[Action]:
    out: list[Action] = []
    for red, black in itertools.product(range(MAX_JOKERS_OF_A_COLOUR + 1), repeat=2):
        if red or black:
            out.append((PLAY, (card(JOKER, 0),) * red + (card(JOKER, 1),) * black))
    return out


def _runs() -> list[Action]:
    """Every ascending run of at least two ranks in one suit (2 counts as rank 2; no wrap)."""
    out: list[Action] = []
    for s in range(4):
        for length in range(2, len(RANKS) + 1):
            for first in RANKS[: len(RANKS) - length + 1]:
                out.append((RUN, tuple(card(first, s) + i * NEXT_RANK for i in range(length))))
    return out


def _by_card(kind: str) -> list[Action]:
    return [(kind, c) for c in CARD_TYPES]


def _by_card_and_slot(kind: str) -> list[Action]:
    return [(kind, c, slot) for c in CARD_TYPES for slot in range(MAX_SLOTS)]


def _build() -> tuple[tuple[str, ...], tuple[Block, ...]]:
    parts: list[tuple[str, str, list[Action]]] = [
        ("simple", "take, draw, gamble, ready, pass", _simple()),
        ("play", f"play cards of one rank 2..A, 0..{MAX_COPIES} of each suit", _plays()),
        ("play_joker", f"play 0..{MAX_JOKERS_OF_A_COLOUR} red and black jokers each", _joker_plays()),
        ("run", "a suit run of 2..13 ascending ranks", _runs()),
        ("flip", f"flip face-down position 0..{MAX_SLOTS - 1}", [(FLIP, pos) for pos in range(MAX_SLOTS)]),
        ("take_card", "take <face-up card> and pick up the pile", _by_card(TAKE)),
        ("swap", f"setup: swap <hand card> <face-up slot 0..{MAX_SLOTS - 1}>", _by_card_and_slot(SWAP)),
        ("place", f"setup: place <hand card> <face-up slot 0..{MAX_SLOTS - 1}>", _by_card_and_slot(PLACE)),
        ("announce", "announce <hand card>", _by_card(ANNOUNCE)),
    ]
    texts: list[str] = []
    blocks: list[Block] = []
    for name, description, actions in parts:
        blocks.append(Block(name, len(texts), len(actions), description))
        texts.extend(format_action(a) for a in actions)
    return tuple(texts), tuple(blocks)


_TEXTS, BLOCKS = _build()
_INDEX: dict[str, int] = {text: i for i, text in enumerate(_TEXTS)}

N_ACTIONS = len(_TEXTS)
"""The size of the action space (4854)."""


def action_text(index: int) -> str:
    """The canonical action text of ``index`` (0 <= index < :data:`N_ACTIONS`); raises
    ``IndexError`` outside that range. Accepts NumPy integers."""
    i = int(index)
    if not 0 <= i < N_ACTIONS:
        raise IndexError(f"action index {index} is outside 0..{N_ACTIONS - 1}")
    return _TEXTS[i]


def action_index(text: str) -> int:
    """The index of action ``text``. Texts the engine would accept in another spelling (cards in
    another order, ``10h``, upper-case suits) get the index of their canonical form. Raises
    ``ValueError`` for a text that is not an action, or an action outside the table (beyond the
    engine's limits, which no game produces)."""
    i = _INDEX.get(text)
    if i is not None:
        return i
    try:
        canonical = format_action(parse_action(text))
    except IllegalAction as exc:
        raise ValueError(str(exc)) from None
    i = _INDEX.get(canonical)
    if i is None:
        raise ValueError(f"action {text!r} is not in the action table (beyond the engine's limits)")
    return i
