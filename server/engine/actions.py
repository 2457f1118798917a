"""Actions: plain tuples with a kind string first, and their text form.

Actions are tuples because the engine builds many of them per turn (the complete legal list)
and a tuple costs a fraction of any object. Equality and hashing come for free, and every
action has exactly one canonical tuple:

===============================  =========================  ================================
tuple                            text                       meaning
===============================  =========================  ================================
``("play", (c, ...))``           ``play 7h 7d``             cards of one rank, sorted (C6)
``("run", (c, ...))``            ``run 5h 6h 7h``           a suit run, ascending (suit_runs)
``("flip", pos)``                ``flip 2``                 turn over face-down card ``pos``
``("take",)``                    ``take``                   pick up the pile (C11)
``("take", c)``                  ``take 9c``                add face-up ``c``, pick up (C13)
``("draw",)``                    ``draw``                   draw one card (draw_before_play)
``("gamble",)``                  ``gamble``                 turn over the stock's top card
``("swap", c, slot)``            ``swap 3c 1``              hand card <-> face-up slot (C4)
``("place", c, slot)``           ``place 9h 0``             hand card onto a face-up slot
``("ready",)``                   ``ready``                  setup finished
``("announce", c)``              ``announce 4h``            opening: announce a hand card
``("pass",)``                    ``pass``                   opening: do not announce
===============================  =========================  ================================

Positions and slots count from 0. ``c`` is a card int (see :mod:`server.engine.cards`).
"""

from __future__ import annotations

from typing import Any, Final

from .cards import JOKER, RANK, SUIT, CardError, card, format_card, format_cards, parse_card
from .errors import IllegalAction, IllegalReason

PLAY: Final = "play"
RUN: Final = "run"
FLIP: Final = "flip"
TAKE: Final = "take"
DRAW: Final = "draw"
GAMBLE: Final = "gamble"
SWAP: Final = "swap"
PLACE: Final = "place"
READY: Final = "ready"
ANNOUNCE: Final = "announce"
PASS: Final = "pass"

Action = tuple[Any, ...]

SETUP_KINDS: Final = frozenset({SWAP, PLACE, READY})
ANNOUNCE_KINDS: Final = frozenset({ANNOUNCE, PASS})
PLAY_KINDS: Final = frozenset({PLAY, RUN, FLIP, TAKE, DRAW, GAMBLE})
KINDS: Final = SETUP_KINDS | ANNOUNCE_KINDS | PLAY_KINDS

TAKE_PILE: Final[Action] = (TAKE,)
DRAW_ONE: Final[Action] = (DRAW,)
GAMBLE_STOCK: Final[Action] = (GAMBLE,)
READY_NOW: Final[Action] = (READY,)
PASS_NOW: Final[Action] = (PASS,)


def _bad(text: str, why: str) -> IllegalAction:
    return IllegalAction(IllegalReason.MALFORMED_ACTION, f"cannot read action {text!r}: {why}")


def _int(text: str, word: str) -> int:
    if not (word.isascii() and word.isdigit()) or len(word) > 3:
        raise _bad(text, f"{word!r} is not a position (0, 1, 2, ...)")
    return int(word)


def parse_action(text: object) -> Action:
    """Parse the text form of an action into its canonical tuple.

    Raises :class:`IllegalAction` with ``MALFORMED_ACTION`` if the text is not an action.
    Whether the action is legal is for the game to say.
    """
    if not isinstance(text, str):
        raise IllegalAction(
            IllegalReason.MALFORMED_ACTION, "an action must be a string such as 'play <card>' or 'take'"
        )
    words = text.split()
    if not words:
        raise _bad(text, "empty")
    kind, args = words[0].lower(), words[1:]
    try:
        if kind in (PLAY, RUN):
            if not args:
                raise _bad(text, "name the cards: 'play <card> <card> ...'")
            return (kind, tuple(sorted(parse_card(w) for w in args)))
        if kind == FLIP and len(args) == 1:
            return (FLIP, _int(text, args[0]))
        if kind == TAKE and len(args) <= 1:
            return (TAKE, parse_card(args[0])) if args else TAKE_PILE
        if kind in (SWAP, PLACE) and len(args) == 2:
            return (kind, parse_card(args[0]), _int(text, args[1]))
        if kind == ANNOUNCE and len(args) == 1:
            return (ANNOUNCE, parse_card(args[0]))
        if kind in (DRAW, GAMBLE, READY, PASS) and not args:
            return (kind,)
    except CardError as exc:
        raise _bad(text, str(exc)) from None
    if kind not in KINDS:
        raise _bad(text, f"unknown action {kind!r}; actions are: {', '.join(sorted(KINDS))}")
    raise _bad(text, "wrong arguments; see the action list in docs")


_TEXT: dict[Action, str] = {}
_TEXT_MAX = 100_000


def format_action(action: Action) -> str:
    """Return the canonical text of an action tuple (the inverse of :func:`parse_action`).

    Texts are remembered: views list the same actions over and over.
    """
    text = _TEXT.get(action)
    if text is None:
        text = _format_action(action)
        if len(_TEXT) >= _TEXT_MAX:
            _TEXT.clear()
        _TEXT[action] = text
    return text


def _format_action(action: Action) -> str:
    kind = action[0]
    if kind in (PLAY, RUN):
        return f"{kind} {format_cards(action[1])}"
    if kind in (FLIP,):
        return f"{kind} {action[1]}"
    if kind in (SWAP, PLACE):
        return f"{kind} {format_card(action[1])} {action[2]}"
    if kind in (ANNOUNCE,) or (kind == TAKE and len(action) == 2):
        return f"{kind} {format_card(action[1])}"
    return str(kind)


def _is_card(c: object) -> bool:
    return type(c) is int and card(2, 0) <= c <= card(JOKER, 1) and (RANK[c] != JOKER or SUIT[c] < 2)


def is_well_formed(action: object) -> bool:
    """True if ``action`` has the shape of some action tuple (not whether it is legal)."""
    if not isinstance(action, tuple) or not action or action[0] not in KINDS:
        return False
    kind, n = action[0], len(action)
    if kind in (PLAY, RUN):
        return (
            n == 2 and isinstance(action[1], tuple) and 0 < len(action[1]) <= 64 and all(_is_card(c) for c in action[1])
        )
    if kind == FLIP:
        return n == 2 and type(action[1]) is int
    if kind == TAKE:
        return n == 1 or (n == 2 and _is_card(action[1]))
    if kind in (SWAP, PLACE):
        return n == 3 and _is_card(action[1]) and type(action[2]) is int
    if kind == ANNOUNCE:
        return n == 2 and _is_card(action[1])
    return n == 1
