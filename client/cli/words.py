"""What happened, in words: events, errors, the card to beat, places. Pure functions.

Lines are built from parts (``("t", text)``, ``("c", card)``, ``("n", name)``) rather than
finished strings, so that the renderer can draw the cards as cards (suit symbol, colour) and
the names in bold, while tests and logs read them as plain text with :func:`plain`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["describe_error", "describe_events", "ordinal", "plain", "rank_name", "to_beat_words"]

Part = tuple[str, str]

RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace", "X": "joker"}
SOURCE_WORDS = {"face_up": " from the face-up row", "face_down": " from face down", "stock": " from the stock"}


def plain(parts: Iterable[Part]) -> str:
    """The parts as one plain string (cards in wire notation)."""
    return "".join(text for _, text in parts)


def ordinal(n: int) -> str:
    """1 -> ``1st``, 2 -> ``2nd``, 11 -> ``11th``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def rank_name(rank: str | None) -> str:
    """A rank character in words: ``T`` -> ``10``, ``Q`` -> ``queen``, ``7`` -> ``7``."""
    if rank is None:
        return "?"
    return RANK_NAMES.get(rank, rank)


def to_beat_words(to_beat: Mapping[str, Any] | None) -> str:
    """``view.to_beat`` in words: ``anything``, ``9 or higher``, ``7 or lower (or 8, 10)``,
    ``lower than 5``, with the minimum number of cards when it is more than one."""
    if not to_beat:
        return "anything"
    rule, rank = to_beat.get("rule"), to_beat.get("rank")
    also = [rank_name(r) for r in to_beat.get("also") or ()]
    if rule == "at_least":
        text = f"{rank_name(rank)} or higher"
    elif rule == "at_most":
        text = f"{rank_name(rank)} or lower"
    elif rule == "below":
        text = f"lower than {rank_name(rank)}"
    else:
        text = "anything"
    if also:
        text += f" (or {', '.join(also)})"
    if to_beat.get("counts_as"):
        text += f", counts as {rank_name(str(to_beat['counts_as']))}"
    min_cards = to_beat.get("min_cards") or 1
    if min_cards > 1:
        text += f", at least {min_cards} cards"
    return text


def _cards(cards: Sequence[str]) -> list[Part]:
    out: list[Part] = []
    for i, c in enumerate(cards):
        if i:
            out.append(("t", " "))
        out.append(("c", str(c)))
    return out


def _event(ev: Mapping[str, Any], name: Callable[[int | None], str]) -> tuple[str, list[Part]] | None:
    """One event as (kind, parts), or None for an event not worth a line of its own."""
    kind, seat = ev.get("kind"), ev.get("seat")
    who: list[Part] = [("n", name(seat))]
    if kind == "game_start":
        number = ev.get("number") or ev.get("game")  # the table's count; servers before it sent only the id
        return "game", [("t", f"Game {number} is dealt; the dealer is "), ("n", name(ev.get("dealer")))]
    if kind == "swapped":
        return "event", [
            *who,
            ("t", " put "),
            ("c", str(ev.get("to_face_up"))),
            ("t", " face up and took "),
            ("c", str(ev.get("to_hand"))),
            ("t", " into the hand"),
        ]
    if kind == "placed":
        return "event", [*who, ("t", " put "), ("c", str(ev.get("card"))), ("t", f" face up on slot {ev.get('slot')}")]
    if kind == "drew":
        n = ev.get("count", 0)
        return "event", [*who, ("t", f" drew {n} card{'s' if n != 1 else ''}")]
    if kind == "ready":
        return "event", [*who, ("t", " is ready")]
    if kind == "announced":
        return "event", [*who, ("t", " announces "), ("c", str(ev.get("card")))]
    if kind == "passed":
        return "event", [*who, ("t", " announces nothing")]
    if kind == "first_player":
        card = ev.get("card")
        return "event", [*who, ("t", " begins")] + ([("t", " (holding "), ("c", str(card)), ("t", ")")] if card else [])
    if kind == "played":
        return "event", [
            *who,
            ("t", " played "),
            *_cards(ev.get("cards") or ()),
            ("t", SOURCE_WORDS.get(str(ev.get("source")), "")),
        ]
    if kind == "flipped":
        return "event", [*who, ("t", f" turned over face-down card {ev.get('position')}: "), ("c", str(ev.get("card")))]
    if kind == "gambled":
        return "event", [*who, ("t", " gambled on the stock: "), ("c", str(ev.get("card")))]
    if kind == "burned":
        n = ev.get("count", 0)
        return "event", [("t", f"The pile burns ({n} card{'s' if n != 1 else ''}); "), *who, ("t", " plays again")]
    if kind == "took":
        cards = list(ev.get("cards") or ())
        took: list[Part] = [*who, ("t", f" picked up the pile ({len(cards)} card{'s' if len(cards) != 1 else ''}")]
        if len(cards) <= 4:
            took += [("t", ": "), *_cards(cards)]
        return "event", [*took, ("t", ")")]
    if kind == "reversed":
        return "event", [("t", "Play now goes " + ("up the seats" if ev.get("direction") == 1 else "down the seats"))]
    if kind == "skipped":
        return "event", [*who, ("t", " misses a turn")]
    if kind == "out":
        return "event", [*who, ("t", f" is out, in {ordinal(int(ev.get('place') or 0))} place")]
    if kind == "game_over":
        parts: list[Part] = [("t", "Game over: ")]
        loser = ev.get("loser")
        parts += [("n", name(loser)), ("t", " is the shithead")] if loser is not None else [("t", "no loser")]
        if ev.get("capped"):
            parts.append(("t", " (the move limit ended the game: most cards lost)"))
        return "game", parts
    if kind == "timeout":
        n = ev.get("count", 0)
        whose = name(seat)
        # "alice (you)'s clock" reads badly: our own is "Your clock".
        owner: list[Part] = [("n", "Your")] if whose.endswith(" (you)") else [("n", whose), ("t", "'s")]
        return "event", [
            *owner,
            ("t", f" clock ran out; the server played '{ev.get('action')}' ({n} timeout{'s' if n != 1 else ''})"),
        ]
    if kind == "back":
        return "event", [*who, ("t", " is back")]
    return "event", [*who, ("t", f" {kind}")]


def describe_events(
    events: Iterable[Mapping[str, Any]], name: Callable[[int | None], str], *, me: int | None = None
) -> list[tuple[str, tuple[Part, ...]]]:
    """The events of one ``state`` as feed lines ``(kind, parts)``.

    A ``drew`` joins the line of the same seat's play in the same state (``alice played 7h 7d,
    drew 2``), even with a burn between them: every play draws, and a line of its own would
    drown the log. ``me`` is our
    seat; our name is followed by ``(you)`` so that our own moves stand out."""

    def named(seat: int | None) -> str:
        return f"{name(seat)} (you)" if me is not None and seat == me else name(seat)

    out: list[tuple[str, list[Part]]] = []
    play_line: dict[Any, int] = {}  # seat -> index of its last "played" line in this batch
    for ev in events:
        kind, seat = ev.get("kind"), ev.get("seat")
        if kind == "drew" and seat in play_line:
            n = ev.get("count", 0)
            out[play_line[seat]][1].append(("t", f", drew {n}"))
            continue
        line = _event(ev, named)
        if line is not None:
            if kind == "played":
                play_line[seat] = len(out)
            out.append(line)
    return [(kind, tuple(parts)) for kind, parts in out]


def describe_error(code: str, message: str, reason: Any = None, retry_after: Any = None) -> str:
    """An ``error`` in words for the player: the server's explanation, with a hint where the
    code alone tells more (a stale action, the rate limit)."""
    msg = message.strip()
    if msg:
        msg = msg[0].upper() + msg[1:]
    if code == "STALE_SEQ":
        return "Too late: the table moved on before your action arrived. Choose again."
    if code == "RATE_LIMITED":
        wait = f" {retry_after} s" if retry_after is not None else " a moment"
        return f"Slow down: the server asks you to wait{wait}."
    if code == "NOT_OWNER":
        return msg or "Only the table's owner may do that."
    if code == "NOT_ENOUGH_PLAYERS":
        return (msg or "Every seat must be taken") + ": the owner can add bots with `bot greedy`."
    if not msg:
        msg = code.replace("_", " ").capitalize() or "Unknown error"
    return msg
