"""Events: what :meth:`Game.apply` reports, as tuples ``(kind, seat, ...)``.

Every event carries only public information: everything in it was seen by the whole table
(cards played, flipped, picked up from the face-up pile or row), or is a count (cards drawn).
So the server may send every event to every seat and spectator unchanged. Private
information reaches a seat only through its view (:mod:`server.engine.view`).

:func:`event_to_dict` gives the named, text-card form used on the wire.
"""

from __future__ import annotations

from typing import Any, Final

from .cards import format_card, format_cards

SWAPPED: Final = "swapped"  # seat, hand card now face up, face-up card now in hand, slot
PLACED: Final = "placed"  # seat, card, slot
DREW: Final = "drew"  # seat, number of cards
READY: Final = "ready"  # seat
ANNOUNCED: Final = "announced"  # seat, card
PASSED: Final = "passed"  # seat
FIRST: Final = "first_player"  # seat, card that decided it (the announced card, or a 3 ...; None)
PLAYED: Final = "played"  # seat, cards, source ("hand", "face_up", "face_down", "stock")
FLIPPED: Final = "flipped"  # seat, position, card
GAMBLED: Final = "gambled"  # seat, card turned over from the stock
BURNED: Final = "burned"  # seat, number of cards burned
TOOK: Final = "took"  # seat, cards picked up
REVERSED: Final = "reversed"  # seat, new direction (1 clockwise, -1 anticlockwise)
SKIPPED: Final = "skipped"  # seat that misses its turn
OUT: Final = "out"  # seat, place (1 = first out)
GAME_OVER: Final = "game_over"  # None, places (seats), loser, capped

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
