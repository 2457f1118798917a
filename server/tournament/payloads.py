"""The tournament's facts as the protocol's payloads: what ``tournament``, ``tournaments``,
``tournament_game`` and ``tournament_over`` carry.

The director and the standings (:mod:`server.tournament.director`,
:mod:`server.tournament.standings`) are pure computations that the client-side organiser
shares, so they may not import :mod:`protocol`; this module, on the server side of that line,
turns their objects into the :mod:`protocol.payloads` TypedDicts that mypy checks against the
message declarations. Numbers are rounded by the standings' one rule (:func:`~.standings.round_rating`,
:func:`~.standings.round_stat`), as standings.json is: ratings to 3 decimals, means, rates and
head-to-head differences to 4; a statistic without enough games is null.
"""

from __future__ import annotations

from protocol.payloads import ParticipantInfo, StandingRow, TournamentDetails, TournamentGameResult

from .director import Finished, Tournament
from .ranges import count
from .standings import Row, Standings, round_head_to_head, round_rating, round_stat

__all__ = ["game_result", "standing_row", "tournament_info"]


def standing_row(rank: int, row: Row) -> StandingRow:
    """Row ``rank`` (1 = best) of the standings."""
    return StandingRow(
        rank=rank,
        name=row.name,
        rating=round_rating(row.mu),
        rating_95=round_rating(row.rating_interval),
        sigma=round_rating(row.sigma),
        games=row.games,
        mean_place=round_stat(row.mean_place),
        mean_place_95=round_stat(row.mean_place_interval),
        loss_rate=round_stat(row.loss_rate),
        loss_rate_95=round_stat(row.loss_rate_interval),
        firsts=row.firsts,
        timeouts=row.timeouts,
        illegal=row.illegal,
        disconnects=row.disconnects,
    )


def tournament_info(t: Tournament) -> TournamentDetails:
    """Public facts about ``t``: settings, participants, progress, standings and head-to-head."""
    s = t.settings
    figures = t.results if t.results is not None else Standings(t.names)  # none yet while registering
    rows = figures.rows()
    h2h = figures.head_to_head()
    return TournamentDetails(
        tournament=t.id,
        name=s.name,
        organiser=t.organiser,
        status=t.status,
        paused=t.paused,
        cancelled=t.cancelled,
        preset=s.preset,
        options=s.options,
        seats=s.seats,
        games=s.games,
        schedule=s.schedule,
        hero=s.hero,
        permute=s.permute,
        master_seed=s.master_seed,
        concurrency=s.concurrency,
        action_seconds=s.action_seconds,
        participants=[
            ParticipantInfo(name=p.name, bot=p.bot, house=p.house, connected=p.connected)
            for p in t.participants.values()
        ],
        games_total=t.total,
        games_finished=t.games_finished + count(s.done),
        tables=sorted(t.running),
        standings=[standing_row(i, r) for i, r in enumerate(rows, 1)],
        head_to_head=round_head_to_head(h2h),
    )


def game_result(fin: Finished) -> TournamentGameResult:
    """A finished game as ``tournament_game.result`` reports it to the organiser."""
    r = fin.result
    return TournamentGameResult(
        number=r.number,
        deal=r.deal,
        seed=fin.spec.seed,
        rotation=fin.spec.rotation,
        seats=list(r.seats),
        places=list(r.places),
        capped=r.capped,
        timeouts=list(r.timeouts),
        illegal=list(r.illegal),
        disconnects=list(r.disconnects),
        actions=fin.actions,
        server_game=fin.server_game,
    )
