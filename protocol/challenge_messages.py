"""Challenges (docs/PROTOCOL.md, "Challenges"; issue 34, point 4): a bot author asks the server
for N duplicate deals of one bot against another (a ladder bot, or a bundled bot in brackets,
``[greedy]``) and gets the result with its 95 % interval and the ids of the games. Apart from
:mod:`protocol.client_messages` and :mod:`protocol.server_messages` so that those stay small;
registered like every message by :func:`~protocol.message_base.wire_message`."""

from __future__ import annotations

from collections.abc import Sequence

from .challenge_payloads import ChallengeInfo, ChallengeScore
from .fields import Kind, fld, item
from .message_base import MAX_ID, Direction, Message, reply_id, request_id, wire_message

__all__ = [
    "CHALLENGE_DEALS_MAX",
    "CHALLENGE_LAYOUTS",
    "Challenge",
    "ChallengeInfo",
    "ChallengeOver",
    "ChallengeScore",
    "ChallengeStatus",
    "GetChallenge",
]

CHALLENGE_DEALS_MAX = 1000
"""The most deals one challenge plays (each once per seat rotation)."""

CHALLENGE_LAYOUTS = ("1v1", "1v2", "1v3", "2v2", "1v4", "1v5")
"""``AvB``: bot A at A seats, bot B at B seats, A's seats first before the rotations (as
``benchmarks/strength.py``'s layouts)."""


@wire_message
class Challenge(Message):
    """Ask for ``deals`` duplicate deals of ``bots[0]`` against ``bots[1]``; answered by
    ``challenge_status`` at once, and ``challenge_over`` is pushed when the last game ends."""

    TYPE = "challenge"
    DIRECTION = Direction.C2S
    id: int = request_id()
    preset: str = fld(Kind.STR, min_len=1, max_len=64, doc="The rules preset of every game.")
    bots: Sequence[str] = fld(
        Kind.LIST,
        item=item(Kind.STR, min_len=1, max_len=64),
        max_len=2,
        doc="Bot A, then bot B: each a bot on the ladder now (its name) or a bundled bot in brackets"
        " (`[greedy]`), two of them. A ladder bot may hold one seat only: its side of the layout is 1.",
    )
    layout: str = fld(Kind.STR, default="1v1", min_len=3, max_len=3, doc="`AvB`: " + ", ".join(CHALLENGE_LAYOUTS) + ".")
    deals: int = fld(Kind.INT, default=10, lo=1, hi=CHALLENGE_DEALS_MAX, doc="How many deals.")


@wire_message
class GetChallenge(Message):
    """Ask how a challenge stands; answered by ``challenge_status``."""

    TYPE = "get_challenge"
    DIRECTION = Direction.C2S
    id: int = request_id()
    challenge: int = fld(Kind.INT, lo=1, hi=MAX_ID, doc="The challenge id.")


@wire_message
class ChallengeStatus(Message):
    """Answer to ``challenge`` and ``get_challenge``."""

    TYPE = "challenge_status"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    info: ChallengeInfo = fld(Kind.MAP, doc="The challenge and its figures so far.")


@wire_message
class ChallengeOver(Message):
    """Pushed to the connections of whoever asked for a challenge when it ends."""

    TYPE = "challenge_over"
    DIRECTION = Direction.S2C
    info: ChallengeInfo = fld(Kind.MAP, doc="The final figures (as in `challenge_status`).")
