"""The payloads of ``challenge_status`` and ``challenge_over`` (docs/PROTOCOL.md, "Challenges").
Apart from :mod:`protocol.payloads` so that it stays small; it imports nothing of it."""

from __future__ import annotations

from typing import Annotated, TypedDict

__all__ = ["ChallengeInfo", "ChallengeScore"]


class ChallengeScore(TypedDict):
    """An item of ``ChallengeInfo.scores``: one bot's figures over the games played so far."""

    name: Annotated[str, "The bot (as asked: a ladder bot's name, or a bundled bot in brackets)."]
    mean_place: Annotated[float | None, "Its mean place (1 = first out), null before any game."]
    mean_place_95: Annotated[
        float | None,
        "Half-width of the 95 % interval of `mean_place`, each deal one sample (its games'"
        " mean): `1.96 sd / sqrt(deals)`; null before two deals are complete.",
    ]
    loss_rate: Annotated[float | None, "How often one of its seats was last, per seat and game; null before any."]
    seats: Annotated[int, "Its seats per game (the layout's A or B)."]


class ChallengeInfo(TypedDict):
    """What ``challenge_status`` and ``challenge_over`` carry."""

    challenge: Annotated[int, "The challenge id (for `get_challenge`)."]
    by: Annotated[str, "Who asked for it."]
    preset: Annotated[str, "The rules preset."]
    bots: Annotated[list[str], "Bot A, then bot B."]
    layout: Annotated[str, "`AvB`: A's seats against B's, as asked."]
    deals: Annotated[int, "Deals asked for; each is played once per seat rotation."]
    games_total: Annotated[int, "`deals` times the number of seats."]
    games_played: Annotated[int, "Games finished so far."]
    status: Annotated[
        str,
        "`waiting` (for a ladder table, or for a ladder bot of it to be connected and idle, as"
        " after a restart), `running`, `finished`, or `cancelled` (a ladder bot of it left the"
        " ladder or the server; the figures cover the games played).",
    ]
    scores: Annotated[list[ChallengeScore], "A's figures, then B's."]
    difference: Annotated[float | None, "A's mean place minus B's (negative: A finishes better); null before any deal."]
    difference_95: Annotated[float | None, "Half-width of its 95 % interval (per-deal samples); null before two deals."]
    games: Annotated[list[int], "The ids of the games finished, in order (read them with `get_record`)."]
