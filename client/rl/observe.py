"""Observations: a seat's wire view -> a fixed-size vector, and the action mask of a view.

:func:`encode` reads only the view a seat receives (what ``view_for(game, seat)`` returns, the
``view`` of a ``state`` message): it never sees a ``Game``, so it cannot leak an opponent's hand,
a face-down card or the order of the stock, and the environment and a bot on a real server
compute the same vector from the same view. Keys that a server adds to a view (names, clocks,
``away``...) are ignored.

The vector is ``float32`` in ``[0, 1]``, :data:`OBS_SIZE` long whatever the preset or seat count
(seats beyond the table's are zeros), so one policy can play every preset. Seats are counted
from the observer: slot 0 is the observer, slot 1 the next seat up the seat numbers, and so on
(``direction`` says which way play goes). Cards are counted per card type (the 54 of
:data:`client.rl.actions.CARD_TYPES`), ranks as one of 14 (2..A, joker). :data:`LAYOUT` lists
the segments in order; docs/RL.md has the same table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import numpy as np
import numpy.typing as npt

from server.engine import preset_info, preset_names
from server.engine.cards import format_card
from server.engine.rules import MAX_DECKS

from .actions import CARD_TYPES, MAX_COPIES, MAX_JOKERS_OF_A_COLOUR, MAX_SLOTS, N_ACTIONS, action_index

__all__ = [
    "LAYOUT",
    "MAX_SEATS",
    "OBS_SIZE",
    "Segment",
    "action_mask",
    "encode",
    "segment",
]

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]

PRESETS = preset_names()
MAX_SEATS = max(preset_info(p).max_players for p in PRESETS)
"""The largest table of any preset (9): the observation has this many seat slots."""

MAX_CARDS = 52 * MAX_DECKS + 2 * MAX_JOKERS_OF_A_COLOUR
"""The most cards a game can hold (three decks and eight jokers): the scale of card counts."""

CARD_COPIES = max(MAX_COPIES, MAX_JOKERS_OF_A_COLOUR)
"""The most copies of one card type: the scale of per-card counts."""

STACK = 4 * MAX_COPIES
"""The most cards of one rank (a karma stack, a play): the scale of per-rank counts."""

PHASES = ("setup", "announce", "play", "over")
RULES = ("any", "at_least", "at_most", "below")
RANK_CHARS = "23456789TJQKAX"
PILE_TOP = 4
"""How many of the pile's top cards are shown by rank (enough to see a run of four burn)."""

_TYPE_OF_TEXT = {format_card(c): i for i, c in enumerate(CARD_TYPES)}
_RANK_OF_CHAR = {ch: i for i, ch in enumerate(RANK_CHARS)}
_N_TYPES = len(CARD_TYPES)
_N_RANKS = len(RANK_CHARS)


@dataclass(frozen=True, slots=True)
class Segment:
    """One named stretch of the observation vector."""

    name: str
    size: int
    description: str


LAYOUT: tuple[Segment, ...] = (
    Segment("preset", len(PRESETS), "one-hot: the preset, in the engine's catalogue order"),
    Segment("phase", len(PHASES), "one-hot: setup, announce, play, over"),
    Segment("seated", MAX_SEATS, "per seat slot: 1 if the table has that seat"),
    Segment("hand", _N_TYPES, f"own hand: copies of each card type / {CARD_COPIES}"),
    Segment("hand_count", MAX_SEATS, f"per seat slot: cards in hand / {MAX_CARDS}"),
    Segment("face_up", MAX_SEATS * _N_TYPES, f"per seat slot, per card type: face-up copies / {CARD_COPIES}"),
    Segment("my_slots", MAX_SLOTS * _N_RANKS, f"own face-up slots 0..{MAX_SLOTS - 1}: cards per rank / {STACK}"),
    Segment("face_down", MAX_SEATS * MAX_SLOTS, "per seat slot, per position: 1 while a face-down card lies there"),
    Segment("out", MAX_SEATS, "per seat slot: 1 once it has played all its cards"),
    Segment("place", MAX_SEATS, f"per seat slot: finishing place / {MAX_SEATS} (0 while unknown)"),
    Segment("ready", MAX_SEATS, "per seat slot: 1 once its setup is finished"),
    Segment("turn", MAX_SEATS, "one-hot: the seat slot to act (none in setup and at the end)"),
    Segment("dealer", MAX_SEATS, "one-hot: the dealer's seat slot"),
    Segment("announced", MAX_SEATS * _N_RANKS, "per seat slot: one-hot rank of the card it announced"),
    Segment("pile", _N_TYPES, f"the whole pile: copies of each card type / {CARD_COPIES}"),
    Segment("pile_top", PILE_TOP * _N_RANKS, f"the top {PILE_TOP} cards of the pile, top first: one-hot rank"),
    Segment("pile_size", 1, f"cards in the pile / {MAX_CARDS}"),
    Segment("to_beat_rule", len(RULES), "one-hot: any, at_least, at_most, below"),
    Segment("to_beat_rank", _N_RANKS, "one-hot: the rank to beat (none with rule any)"),
    Segment("to_beat_also", _N_RANKS, "multi-hot: ranks also allowed (after a lower card)"),
    Segment("counts_as", _N_RANKS, "one-hot: the rank the card to beat counts as, when it differs"),
    Segment("min_cards", 1, f"fewest cards the next play may have / {STACK}"),
    Segment("must_play", _N_TYPES, "one-hot: the card the next play must contain (announced opening)"),
    Segment(
        "scalars",
        5,
        f"stock / {MAX_CARDS}, burned / {MAX_CARDS}, direction (1 up, 0 down), drew this turn, "
        "actions so far / max_actions",
    ),
)

# Each segment's first index: the sizes before it, summed (accumulate yields one sum more than
# there are segments, the total, which zip drops).
_OFFSET: dict[str, int] = dict(
    zip([s.name for s in LAYOUT], accumulate((s.size for s in LAYOUT), initial=0), strict=False)
)
_SIZE: dict[str, int] = {s.name: s.size for s in LAYOUT}
OBS_SIZE = sum(_SIZE.values())
"""The length of every observation vector."""


def segment(vector: Vector, name: str) -> Vector:
    """The part of ``vector`` that segment ``name`` of :data:`LAYOUT` occupies (a view, not a
    copy). Raises ``KeyError`` for an unknown name."""
    start = _OFFSET[name]
    return vector[start : start + _SIZE[name]]


def _count(out: Vector, base: int, texts: Sequence[str], scale: float) -> None:
    for t in texts:
        out[base + _TYPE_OF_TEXT[t]] += 1.0 / scale


def _rank(text: str) -> int:
    """The rank index (0..13) of a card text or a one-character rank."""
    return _RANK_OF_CHAR[text[0]]


def encode(view: Mapping[str, Any]) -> Vector:
    """The observation of the seat whose view this is (``view["seat"]``), as laid out in
    :data:`LAYOUT`. Raises ``ValueError`` for a spectator's view (no seat) and ``KeyError``
    for a view without the keys of the protocol's ``View``."""
    me = view["seat"]
    if me is None:
        raise ValueError("a spectator's view has no seat to observe for")
    players: Sequence[Mapping[str, Any]] = view["players"]
    n = len(players)
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    o = _OFFSET

    out[o["preset"] + PRESETS.index(view["preset"])] = 1.0
    out[o["phase"] + PHASES.index(view["phase"])] = 1.0
    _count(out, o["hand"], view["hand"] or (), CARD_COPIES)
    for k in range(n):
        seat = (me + k) % n
        p = players[seat]
        out[o["seated"] + k] = 1.0
        out[o["hand_count"] + k] = min(p["hand_count"] / MAX_CARDS, 1.0)
        for stack in p["face_up"]:
            _count(out, o["face_up"] + k * _N_TYPES, stack, CARD_COPIES)
        for pos, covered in enumerate(p["face_down"]):
            if covered:
                out[o["face_down"] + k * MAX_SLOTS + pos] = 1.0
        out[o["out"] + k] = float(p["out"])
        if p["place"] is not None:
            out[o["place"] + k] = p["place"] / MAX_SEATS
        out[o["ready"] + k] = float(p["ready"])
        if view["turn"] == seat:
            out[o["turn"] + k] = 1.0
        if view["dealer"] == seat:
            out[o["dealer"] + k] = 1.0
    for slot, stack in enumerate(players[me]["face_up"]):
        for t in stack:
            out[o["my_slots"] + slot * _N_RANKS + _rank(t)] += 1.0 / STACK
    for a in view["announcements"]:
        out[o["announced"] + ((a["seat"] - me) % n) * _N_RANKS + _rank(a["card"])] = 1.0

    pile: Sequence[str] = view["pile"]
    _count(out, o["pile"], pile, CARD_COPIES)
    for i, t in enumerate(reversed(pile[-PILE_TOP:])):
        out[o["pile_top"] + i * _N_RANKS + _rank(t)] = 1.0
    out[o["pile_size"]] = min(len(pile) / MAX_CARDS, 1.0)

    beat = view["to_beat"]
    out[o["to_beat_rule"] + RULES.index(beat["rule"])] = 1.0
    if beat["rank"] is not None:
        out[o["to_beat_rank"] + _rank(beat["rank"])] = 1.0
    for r in beat["also"]:
        out[o["to_beat_also"] + _rank(r)] = 1.0
    if beat.get("counts_as") is not None:
        out[o["counts_as"] + _rank(beat["counts_as"])] = 1.0
    out[o["min_cards"]] = min(beat["min_cards"] / STACK, 1.0)
    if view["must_play"] is not None:
        out[o["must_play"] + _TYPE_OF_TEXT[view["must_play"]]] = 1.0

    s = o["scalars"]
    out[s] = min(view["stock_count"] / MAX_CARDS, 1.0)
    out[s + 1] = min(view["burned_count"] / MAX_CARDS, 1.0)
    out[s + 2] = 1.0 if view["direction"] == 1 else 0.0
    out[s + 3] = float(bool(view["drew_this_turn"]))
    out[s + 4] = min(view["action_count"] / max(view["max_actions"], 1), 1.0)
    return out


def action_mask(view: Mapping[str, Any]) -> Mask:
    """``int8`` of length :data:`~client.rl.actions.N_ACTIONS`: 1 exactly at the indices of the
    texts in ``view["legal"]``. Raises ``ValueError`` for a text outside the action table."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for text in view["legal"]:
        mask[action_index(text)] = 1
    return mask
