"""The owner's changes to a table's seats besides join and leave: a bot handed the seat of a
player who has gone, a bot taken out of its seat, the number of seats changed.

Like :mod:`server.tables.table`, nothing here awaits, sends or reads the clock: each function checks
the request against the table, changes it and queues in the outbox what everyone at the table
must be told (its summary) and what the journal must keep (its snapshot, by
:meth:`~server.tables.table.Table.changed`). Only the table's owner may make these changes
(``NOT_OWNER``), so a tournament's tables, which no player owns, never change here.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.engine import RulesError, Series, check_seats
from server.login.auth import new_token
from server.tables.coordination import Session, TableError
from server.tables.states import StateBuilder
from server.tables.table import Outbox, Table

__all__ = ["hand_to_bot", "remove_bot", "set_seats"]


def _owner_only(t: Table, session: Session, what: str) -> None:
    if session.identity != t.owner_id:
        raise TableError(ErrorCode.NOT_OWNER, f"only the table's owner ({t.owner}) can {what}")


def hand_to_bot(t: Table, session: Session, seat: int, bot: str, kind: str, now: float, grace: float) -> str:
    """The owner hands the seat of a player away for ``grace`` seconds or more to bundled bot
    ``bot`` (of ``kind``), which then plays for them; returns the token the bot resumes with.
    The player takes the seat back by :meth:`~server.tables.table.Table.resume`."""
    _owner_only(t, session, "add bots")
    s = t.seats[seat]
    assert s is not None
    if s.session is not None or s.away_since is None:
        who = "a bot" if s.stand_in else s.name
        raise TableError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken: {who} is playing it")
    away = now - s.away_since
    if away < grace:
        raise TableError(
            ErrorCode.SEAT_TAKEN,
            f"{s.name} has been away {away:.0f} s; a seat can be handed to a bot after {grace:g} s",
        )
    token, s.stand_in_hash = new_token()
    s.stand_in, s.stand_in_kind = bot, kind
    return token


def remove_bot(t: Table, session: Session, seat: int, out: Outbox) -> Session | None:
    """The owner takes the bot out of ``seat`` while no game runs; the seat is free again.
    Returns the bot's connection, if it has one (the caller stops the server's own bot, or tells
    another bot that the seat is no longer its own)."""
    _owner_only(t, session, "remove bots")
    if t.running:
        raise TableError(ErrorCode.ALREADY_STARTED, "a game is running: remove bots between games")
    st = t.seats[seat] if seat < t.nseats else None
    if st is None or not st.bot:
        why = (
            f"this table has seats 0..{t.nseats - 1}"
            if seat >= t.nseats
            else f"seat {seat} is free"
            if st is None
            else f"{st.name} in seat {seat} is not a bot"
        )
        raise TableError(ErrorCode.NOT_A_BOT, f"no bot to remove: {why}")
    t.seats[seat] = None
    t.changed(out)
    return st.session


def set_seats(t: Table, session: Session, seats: int, out: Outbox) -> None:
    """The owner changes the number of seats before the table's first game: seats are added, or
    free seats taken away, at the end (nobody changes seat). ``BAD_RULES`` outside the preset's
    player range, ``SEAT_TAKEN`` when a seat that would go is taken."""
    _owner_only(t, session, "change the number of seats")
    if t.game is not None or t.games_played:
        raise TableError(ErrorCode.ALREADY_STARTED, "the number of seats is fixed once the first game is dealt")
    try:
        check_seats(t.rules, seats)
    except RulesError as exc:
        raise TableError(ErrorCode.BAD_RULES, exc.message) from None
    taken = [s.name for i, s in enumerate(t.seats) if s is not None and i >= seats]
    if taken:
        raise TableError(
            ErrorCode.SEAT_TAKEN,
            f"{seats} seats would leave out {', '.join(taken)}: a player must leave, a bot be removed, first",
        )
    if seats == t.nseats:
        return
    t.seats = t.seats[:seats] + [None] * (seats - t.nseats)
    t.nseats = seats
    # The series and the states are sized by the seats; nothing was dealt yet, so they start anew
    # (with the table's fixed seed or deck, as when it was created).
    if t.seed is not None:
        t.series = Series(t.rules, seats, seed=t.seed)
    else:
        t.series = Series(t.rules, seats, first_dealer=0 if t.deck is not None else None)
    t.states = StateBuilder(t.id, seats)
    t.changed(out)
