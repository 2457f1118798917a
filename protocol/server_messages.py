"""The server-to-client messages: one frozen dataclass per answer or pushed message
(``docs/PROTOCOL.md`` §14).

Answers carry the ``id`` of the request they answer; pushed messages (``state``,
``table_update``, ``chat_message``, ``game_over``, ``presence``, ``going_away`` and the
tournament pushes) carry none. Nested maps are typed with the shapes of
:mod:`protocol.payloads`; they stay plain dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from .errors import ErrorCode
from .fields import INT64_MAX, Kind, fld, item
from .message_base import MAX_ID, MAX_SEATS, Direction, Message, reply_id, table_id, wire_message
from .payloads import (
    Event,
    GameResult,
    LadderGameInfo,
    LadderRatingPoint,
    LadderTable,
    StoredGame,
    TableSummary,
    Tally,
    TournamentDetails,
    TournamentGameResult,
    View,
    WelcomeLimits,
)

__all__ = [
    "ChatMessage",
    "Error",
    "GameOver",
    "GoingAway",
    "Joined",
    "LadderHistory",
    "LadderStandings",
    "LobbyUpdate",
    "LoggedIn",
    "Ok",
    "Pong",
    "Presence",
    "PresenceEvent",
    "Record",
    "Seated",
    "State",
    "TableCreated",
    "TableUpdate",
    "Tables",
    "TournamentCreated",
    "TournamentGame",
    "TournamentInfo",
    "TournamentOver",
    "Tournaments",
    "Watching",
    "Welcome",
]


@wire_message
class Welcome(Message):
    """Answer to ``hello``: the handshake is complete."""

    TYPE = "welcome"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    version: int = fld(Kind.INT, lo=1, hi=1000, doc="Protocol version in use.")
    server: str = fld(Kind.STR, doc="Server name and version.")
    limits: WelcomeLimits = fld(Kind.MAP, doc="The server's limits (frame sizes, timeouts...).")
    capabilities: Sequence[str] = fld(Kind.LIST, item=item(Kind.STR), doc="Optional features this server offers.")
    password_required: bool = fld(Kind.BOOL, doc="Whether login needs server_password.")


@wire_message
class LoggedIn(Message):
    """Answer to ``login``."""

    TYPE = "logged_in"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    name: str = fld(Kind.STR, doc="The name now in use.")
    guest: bool = fld(Kind.BOOL, doc="Logged in as a guest.")
    bot: bool = fld(Kind.BOOL, doc="Logged in as a bot.")
    token: str | None = fld(
        Kind.STR,
        default=None,
        max_len=128,
        doc="A login token: login_token in a later login stands for the password (or, for a guest,"
        " proves it is the same guest) until logout. Keep it like a password; absent for the"
        " server's own bots and for viewers.",
    )
    viewer: bool | None = fld(
        Kind.BOOL,
        default=None,
        doc="true: logged in as a viewer (login.viewer), a connection that only reads; name is the"
        " one the server gave it, which holds nothing. Absent for every other login (so a client"
        " that never asks for a viewer never meets the field).",
    )


@wire_message
class Tables(Message):
    """Answer to ``list_tables``: one summary map per open table."""

    TYPE = "tables"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    tables: Sequence[TableSummary] = fld(Kind.LIST, item=item(Kind.MAP), doc="Table summaries.")


@wire_message
class LobbyUpdate(Message):
    """Pushed to a connection that follows the lobby (``watch_lobby``): the open tables, after a
    change (a burst of changes makes one message)."""

    TYPE = "lobby_update"
    DIRECTION = Direction.S2C
    tables: Sequence[TableSummary] = fld(Kind.LIST, item=item(Kind.MAP), doc="Every open table's summary.")


@wire_message
class TableCreated(Message):
    """Answer to ``create_table``. The creator is not seated: it joins like everyone else."""

    TYPE = "table_created"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    table: int = table_id("Id of the new table.")


@wire_message
class Joined(Message):
    """Answer to ``join`` or ``resume``: the seat, and the token that takes it back."""

    TYPE = "joined"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    table: int = table_id()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="Your seat.")
    token: str = fld(Kind.STR, doc="Secret for resume after a reconnect; keep it.")


@wire_message
class Watching(Message):
    """Answer to ``watch``."""

    TYPE = "watching"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    table: int = table_id()


@wire_message
class Ok(Message):
    """Answer to a request that succeeded and has nothing else to say."""

    TYPE = "ok"
    DIRECTION = Direction.S2C
    id: int = reply_id()


@wire_message
class Error(Message):
    """A request failed (``id`` set) or the connection has a problem (no ``id``)."""

    TYPE = "error"
    DIRECTION = Direction.S2C
    id: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_ID, doc="The failed request's id, if known.")
    code: ErrorCode = fld(Kind.STR, enum=ErrorCode, doc="Stable error code.")
    message: str = fld(Kind.STR, doc="Explanation for people.")
    retry_after: float | None = fld(
        Kind.FLOAT,
        default=None,
        lo=0,
        doc="RATE_LIMITED, LOGIN_THROTTLED, STORAGE_FAILED, QUOTA_EXCEEDED: seconds to wait before retrying.",
    )
    reason: str | None = fld(
        Kind.STR,
        default=None,
        max_len=64,
        doc="ILLEGAL_ACTION: the engine's code. AUTH_FAILED: SERVER_PASSWORD when the server password was wrong.",
    )
    suggestion: str | None = fld(Kind.STR, default=None, max_len=64, doc="NAME_TAKEN: a free name to offer instead.")
    table: int | None = fld(
        Kind.INT,
        default=None,
        lo=0,
        hi=MAX_ID,
        doc="The table it is about, when it answers no request (a seat taken over).",
    )


@wire_message
class State(Message):
    """The table's game state as this connection may see it, after every change."""

    TYPE = "state"
    DIRECTION = Direction.S2C
    table: int = table_id()
    seq: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="Increases with every change; echo it in act.")
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id (for get_record).")
    view: View = fld(Kind.MAP, doc="The game as this seat (or a watcher) sees it.")
    events: Sequence[Event] = fld(Kind.LIST, item=item(Kind.MAP), doc="What happened since the previous state.")
    deadline: float | None = fld(Kind.FLOAT, default=None, lo=0, doc="Seconds left for this seat to act, if it must.")


@wire_message
class TableUpdate(Message):
    """A table's summary changed (players, status); sent to those at the table."""

    TYPE = "table_update"
    DIRECTION = Direction.S2C
    table: int = table_id()
    summary: TableSummary = fld(Kind.MAP, doc="Same shape as the items of tables.")


@wire_message
class ChatMessage(Message):
    """A chat line at a table (``seat`` omitted for watchers and the server)."""

    TYPE = "chat_message"
    DIRECTION = Direction.S2C
    table: int = table_id()
    seat: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Speaker's seat, if seated.")
    name: str = fld(Kind.STR, doc="Speaker's name.")
    text: str = fld(Kind.STR, doc="The text.")


@wire_message
class GameOver(Message):
    """A game ended: its result and the table's running tally."""

    TYPE = "game_over"
    DIRECTION = Direction.S2C
    table: int = table_id()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id (for get_record).")
    number: int | None = fld(
        Kind.INT, default=None, lo=1, hi=MAX_ID, doc="The game's number at this table (1, 2, 3 ... in the series)."
    )
    result: GameResult = fld(Kind.MAP, doc="Places, loser, and whether the move cap ended it.")
    tally: Tally = fld(Kind.MAP, doc="Places and losses over the games at this table.")


@wire_message
class Record(Message):
    """Answer to ``get_record``: rules, deck order and actions, enough to replay the game."""

    TYPE = "record"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    record: StoredGame = fld(Kind.MAP, doc="The game record.")


@wire_message
class TournamentCreated(Message):
    """Answer to ``create_tournament``."""

    TYPE = "tournament_created"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="The new tournament's id.")


@wire_message
class TournamentInfo(Message):
    """Answer to ``get_tournament``: settings, participants, progress, standings."""

    TYPE = "tournament"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    info: TournamentDetails = fld(Kind.MAP, doc="The tournament (see Tournaments).")


@wire_message
class Tournaments(Message):
    """Answer to ``list_tournaments``."""

    TYPE = "tournaments"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    tournaments: Sequence[TournamentDetails] = fld(Kind.LIST, item=item(Kind.MAP), doc="Tournament infos.")


@wire_message
class LadderStandings(Message):
    """Answer to ``ladder``."""

    TYPE = "ladder_standings"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    tables: Sequence[LadderTable] = fld(
        Kind.LIST,
        item=item(Kind.MAP),
        doc="The overall table first, then one per preset played.",
    )
    members: Sequence[str] = fld(Kind.LIST, item=item(Kind.STR), doc="The bots on the ladder now.")


@wire_message
class LadderHistory(Message):
    """Answer to ``ladder_games``."""

    TYPE = "ladder_history"
    DIRECTION = Direction.S2C
    id: int = reply_id()
    name: str = fld(Kind.STR, doc="The bot asked about.")
    games: Sequence[LadderGameInfo] = fld(Kind.LIST, item=item(Kind.MAP), doc="Its games, the latest first.")
    ratings: Sequence[LadderRatingPoint] = fld(
        Kind.LIST,
        item=item(Kind.MAP),
        doc="Its overall rating after its games, oldest first: at most 200 points spread evenly over all of them,"
        " the latest always last (for a plot).",
    )


@wire_message
class Seated(Message):
    """Pushed to a registered participant: the tournament put you at a table. States for it
    follow; ``token`` takes the seat back like ``joined``'s."""

    TYPE = "seated"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    game: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="The game's number in the tournament.")
    table: int = table_id()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="Your seat.")
    token: str = fld(Kind.STR, doc="Secret for resume after a reconnect.")


@wire_message
class TournamentGame(Message):
    """Pushed to the organiser when a tournament game ends: who sat where and how it went."""

    TYPE = "tournament_game"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    result: TournamentGameResult = fld(
        Kind.MAP,
        doc="number, deal, seed, rotation, seats, places, capped, "
        "timeouts, illegal, disconnects, actions, server_game.",
    )


@wire_message
class TournamentOver(Message):
    """Pushed to the organiser and the participants when the last game of a tournament ends."""

    TYPE = "tournament_over"
    DIRECTION = Direction.S2C
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")
    info: TournamentDetails = fld(Kind.MAP, doc="The final tournament info (as in tournament).")


class PresenceEvent(StrEnum):
    """What happened to a seat's player (the ``event`` of ``presence``)."""

    DROPPED = "dropped"
    RETURNED = "returned"
    REPLACED = "replaced"


@wire_message
class Presence(Message):
    """Pushed to everyone at a table, spectators included: a seated player's connection dropped,
    the player came back, or the owner handed the absent player's seat to a bot."""

    TYPE = "presence"
    DIRECTION = Direction.S2C
    table: int = table_id()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="The seat.")
    name: str = fld(Kind.STR, doc="The seat's player.")
    event: PresenceEvent = fld(Kind.STR, enum=PresenceEvent, doc="dropped, returned or replaced.")
    bot: str | None = fld(
        Kind.STR,
        default=None,
        doc="replaced: the bot now playing the seat; returned: the bot that gave it back.",
    )


@wire_message
class GoingAway(Message):
    """Pushed to every connection when the server stops (Ctrl-C, SIGTERM): it takes no more
    actions, has saved everything it acknowledged, and closes the connection after this."""

    TYPE = "going_away"
    DIRECTION = Direction.S2C
    reason: str = fld(Kind.STR, doc="Why, for people.")
    returning: bool = fld(
        Kind.BOOL,
        doc="Tables and games are saved and come back when the server is started again on the"
        " same database: keep reconnecting (with back-off) to take your seats back.",
    )


@wire_message
class Pong(Message):
    """Answer to ``ping``."""

    TYPE = "pong"
    DIRECTION = Direction.S2C
    id: int = reply_id()
