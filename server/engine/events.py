"""Events: what :meth:`Game.apply` reports, as tuples ``(kind, seat, ...)``.

Every event carries only public information: everything in it was seen by the whole table
(cards played, flipped, picked up from the face-up pile or row), or is a count (cards drawn).
So the server may send every event to every seat and spectator unchanged. Private
information reaches a seat only through its view (:mod:`server.engine.view`).

:func:`event_to_dict` gives the named, text-card form used on the wire.
"""

from __future__ import annotations

from typing import Any

from .cards import format_card, format_cards

SWAPPED = "swapped"  # seat, hand card now face up, face-up card now in hand, slot
PLACED = "placed"  # seat, card, slot
DREW = "drew"  # seat, number of cards
READY = "ready"  # seat
ANNOUNCED = "announced"  # seat, card
PASSED = "passed"  # seat
FIRST = "first_player"  # seat, card that decided it (the announced card, or a 3 ...; None)
PLAYED = "played"  # seat, cards, source ("hand", "face_up", "face_down", "stock")
FLIPPED = "flipped"  # seat, position, card
GAMBLED = "gambled"  # seat, card turned over from the stock
BURNED = "burned"  # seat, number of cards burned
TOOK = "took"  # seat, cards picked up
REVERSED = "reversed"  # seat, new direction (1 clockwise, -1 anticlockwise)
SKIPPED = "skipped"  # seat that misses its turn
OUT = "out"  # seat, place (1 = first out)
GAME_OVER = "game_over"  # None, places (seats), loser, capped

# Field names after ``kind`` and ``seat`` for each event kind, and which of them hold cards.
_FIELDS: dict[str, tuple[str, ...]] = {
    SWAPPED: ("to_face_up", "to_hand", "slot"),
    PLACED: ("card", "slot"),
    DREW: ("count",),
    READY: (),
    ANNOUNCED: ("card",),
    PASSED: (),
    FIRST: ("card",),
    PLAYED: ("cards", "source"),
    FLIPPED: ("position", "card"),
    GAMBLED: ("card",),
    BURNED: ("count",),
    TOOK: ("cards",),
    REVERSED: ("direction",),
    SKIPPED: (),
    OUT: ("place",),
    GAME_OVER: ("places", "loser", "capped"),
}
_CARD_FIELDS = frozenset({"to_face_up", "to_hand", "card"})
_CARDS_FIELDS = frozenset({"cards"})

EVENT_KINDS: tuple[str, ...] = tuple(_FIELDS)

Event = tuple[Any, ...]


def event_to_dict(event: Event) -> dict[str, Any]:
    """Return ``event`` as a map with named fields and cards in text form."""
    kind, seat = event[0], event[1]
    out: dict[str, Any] = {"kind": kind, "seat": seat}
    for name, value in zip(_FIELDS[kind], event[2:], strict=True):
        if name in _CARD_FIELDS:
            value = None if value is None else format_card(value)
        elif name in _CARDS_FIELDS:
            value = format_cards(value).split()
        elif name == "places":
            value = list(value)
        out[name] = value
    return out
