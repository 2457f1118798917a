"""The payloads of ``replay`` (the answer to ``get_replay``, docs/PROTOCOL.md): the open position
of a finished game after each of its actions, every hand and face-down card shown (the game is
over). Apart from :mod:`protocol.payloads` so that it stays small; it imports nothing of it."""

from __future__ import annotations

from typing import Annotated, TypedDict

__all__ = ["ReplaySeat", "ReplayStep"]


class ReplaySeat(TypedDict):
    """An item of ``ReplayStep.seats``: one seat's cards, all of them open."""

    name: Annotated[str, "The player at this seat."]
    hand: Annotated[list[str], "The hand, sorted by rank."]
    face_up: Annotated[
        list[list[str]], "The face-up stacks, left to right (a stack's top card last; empty when taken)."
    ]
    face_down: Annotated[list[str | None], "The face-down cards, left to right (null where one was taken)."]
    out: Annotated[bool, "Whether the seat has played out (or was put out)."]
    place: Annotated[
        int | None, "Its finishing place once out (1 for the first out; the loser's once over), else null."
    ]


class ReplayStep(TypedDict):
    """An item of ``replay.steps``: the game after ``step`` actions, every card open."""

    step: Annotated[int, "How many actions have been played (0: the deal)."]
    seat: Annotated[int | None, "Who played the step's action (null at the deal)."]
    action: Annotated[str | None, "That action in text form (`play 7h 7d`), null at the deal."]
    phase: Annotated[str, "`setup`, `announce`, `play` or `over`."]
    turn: Annotated[int | None, "Whose turn it is now (null in setup and once over)."]
    seats: Annotated[list[ReplaySeat], "Every seat's cards."]
    pile: Annotated[list[str], "The pile, bottom card first."]
    stock: Annotated[int, "Cards left in the stock."]
    burned: Annotated[int, "Cards burned so far."]
    places: Annotated[list[int] | None, "Once over: seats from the first out to the loser; else null."]
