"""``get_replay`` and its answer ``replay`` (docs/PROTOCOL.md): a finished game's open
positions, step by step, for the browser's replay viewer (issue 34). Apart from
:mod:`protocol.client_messages` and :mod:`protocol.server_messages` so that those stay small;
registered like every message by :func:`~protocol.message_base.wire_message`."""

from __future__ import annotations

from collections.abc import Sequence

from .fields import Kind, fld, item
from .message_base import MAX_ID, MAX_SEATS, Direction, Message, reply_id, request_id, wire_message
from .replay_payloads import ReplayStep

__all__ = ["REPLAY_STEPS_MAX", "GetReplay", "Replay"]

REPLAY_STEPS_MAX = 100
"""The most positions one ``replay`` carries."""


@wire_message
class GetReplay(Message):
    """Ask for the open positions of a finished game; answered by ``replay``."""

    TYPE = "get_replay"
    DIRECTION = Direction.C2S
    id: int = request_id()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id from state, game_over or a ladder's or tournament's games.")
    start: int = fld(Kind.INT, default=0, lo=0, hi=MAX_ID, doc="The first step wanted (0: the deal).")
    count: int = fld(Kind.INT, default=50, lo=1, hi=REPLAY_STEPS_MAX, doc="How many steps at most, from `start` on.")


@wire_message
class Replay(Message):
    """Answer to ``get_replay``: the game after each action from ``start`` on, every card open."""

    TYPE = "replay"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="The game id.")
    table_name: str = fld(Kind.STR, doc="The table's name.")
    preset: str = fld(Kind.STR, doc="The rules preset.")
    dealer: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="The dealing seat.")
    actions: int = fld(Kind.INT, lo=0, doc="How many actions the game had: its steps are 0 to this.")
    steps: Sequence[ReplayStep] = fld(
        Kind.LIST, item=item(Kind.MAP), doc="The positions asked for that exist, in order (empty past the end)."
    )
