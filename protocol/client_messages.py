"""The client-to-server messages: one frozen dataclass per request (``docs/PROTOCOL.md`` §14).

Every one carries ``id`` (0..2**31-1, chosen by the client), which its answer echoes. Fields are
declared with :func:`~protocol.fields.fld` (kind, bounds, doc); :mod:`protocol.messages`
validates and encodes them by those declarations.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from .fields import INT64_MAX, Kind, fld, item
from .message_base import (
    MAX_ID,
    MAX_SEATS,
    MAX_WIRE_NAME,
    Direction,
    Message,
    name_field,
    password_field,
    request_id,
    table_id,
    wire_message,
)
from .payloads import RuleOptions

__all__ = [
    "TURN_STATES_MAX_EVENTS",
    "Act",
    "AddBot",
    "CancelTournament",
    "Chat",
    "CreateTable",
    "CreateTournament",
    "GetLadder",
    "GetRecord",
    "GetTournament",
    "Hello",
    "Join",
    "LadderGames",
    "LadderJoin",
    "LadderLeave",
    "Leave",
    "ListTables",
    "ListTournaments",
    "Login",
    "Logout",
    "Ping",
    "Register",
    "RemoveBot",
    "Resume",
    "SetSeats",
    "Start",
    "StartTournament",
    "StateMode",
    "UnwatchLobby",
    "Watch",
    "WatchLobby",
]


#: A bundled bot's kind (``random``, ``greedy``...).
BOT_KIND_PATTERN = "[A-Za-z0-9_-]+"


class StateMode(StrEnum):
    """Which ``state`` messages a connection's seats receive (``hello.states``)."""

    ALL = "all"
    """After every change at the table (the default)."""
    TURNS = "turns"
    """Only when the seat must act, at its game's first and last state, and when
    ``TURN_STATES_MAX_EVENTS`` events are waiting (and the snapshot after join or resume); each
    carries every event since the seat's previous state."""


TURN_STATES_MAX_EVENTS = 100
"""In ``turns`` mode a seat is sent a state once this many events wait for it, so that no
state grows without bound (a seat that is out watches the others play to the end)."""


@wire_message
class Hello(Message):
    """First message of every connection: the protocol version the client speaks."""

    TYPE = "hello"
    DIRECTION = Direction.C2S
    id: int = request_id()
    version: int = fld(Kind.INT, lo=1, hi=1000, doc="Protocol version; this server speaks 1.")
    client: str | None = fld(Kind.STR, default=None, max_len=64, plain=True, doc="Client name and version, for logs.")
    states: StateMode | None = fld(
        Kind.STR,
        default=None,
        enum=StateMode,
        doc="Which states this connection's seats get: all (the default) or turns (section 6).",
    )


@wire_message
class Login(Message):
    """Log in as an account (name + password, or a login token), a guest, a bot, or a viewer
    (``viewer``: a connection that only reads, admitted whether or not guests are)."""

    TYPE = "login"
    DIRECTION = Direction.C2S
    id: int = request_id()
    name: str = name_field("Player name (section 3: the name rule).")
    password: str | None = password_field("Account password; omitted for guests.")
    guest: bool = fld(Kind.BOOL, default=False, doc="Play as a guest under this name.")
    bot: bool = fld(Kind.BOOL, default=False, doc="This client is a program, not a person.")
    viewer: bool = fld(
        Kind.BOOL,
        default=False,
        doc="Only read (section 3, Viewers): admitted even where guests are not, under a name the"
        " server gives (name, password, guest, bot, token and login_token are not looked at);"
        " every request but the reading ones is refused with VIEWER_READ_ONLY.",
    )
    server_password: str | None = password_field("The server's own password, when welcome.password_required is true.")
    token: str | None = fld(
        Kind.STR,
        default=None,
        max_len=128,
        doc="A seat token held by this player: the login is then not delayed by the failed-login"
        " throttle (LOGIN_THROTTLED), so a stranger's guesses never keep a player from a seat; a"
        " guest who gives it is the guest who holds that seat (its name comes back to it).",
    )
    login_token: str | None = fld(
        Kind.STR,
        default=None,
        max_len=128,
        doc="The token of an earlier logged_in, in place of the password: the same account, or the"
        " same guest (its name, its tables), until logout.",
    )


@wire_message
class Logout(Message):
    """End this login: its login token stops working; answered by ``ok``, then the server closes
    the connection. Seats stay held (their tokens still work)."""

    TYPE = "logout"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class ListTables(Message):
    """Ask for the open tables; answered by ``tables``."""

    TYPE = "list_tables"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class WatchLobby(Message):
    """Follow the list of open tables: answered by ``tables`` (the list now), after which the
    server pushes ``lobby_update`` whenever a table opens, closes or its summary changes."""

    TYPE = "watch_lobby"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class UnwatchLobby(Message):
    """Stop following the list of open tables (no more ``lobby_update``); answered by ``ok``."""

    TYPE = "unwatch_lobby"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class CreateTable(Message):
    """Open a new table with a rules preset and options; answered by ``table_created``."""

    TYPE = "create_table"
    DIRECTION = Direction.C2S
    id: int = request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=40, plain=True, doc="Table name shown in lists.")
    preset: str = fld(Kind.STR, min_len=1, max_len=32, plain=True, doc="Rules preset, e.g. classic.")
    options: RuleOptions | None = fld(Kind.MAP, default=None, max_len=64, deep=True, doc="Rule option overrides.")
    seats: int = fld(Kind.INT, lo=2, hi=MAX_SEATS, doc="Number of seats.")
    password: str | None = password_field("Password needed to join or watch.")
    action_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0.5, hi=3600, doc="Time per action, in seconds.")
    bank_seconds: float | None = fld(
        Kind.FLOAT, default=None, lo=0, hi=36000, doc="Extra time bank per seat, in seconds."
    )
    seed: int | None = fld(Kind.INT, default=None, lo=0, hi=INT64_MAX, doc="Shuffle seed, for reproducible games.")
    deck: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=400,
        item=item(Kind.STR, min_len=1, max_len=3),
        doc="Explicit deck order, top card first (e.g. 7h, Td, Xr).",
    )


@wire_message
class Join(Message):
    """Take a seat at a table; answered by ``joined``."""

    TYPE = "join"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    seat: int | None = fld(Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Wanted seat; omitted: any free seat.")
    password: str | None = password_field("The table's password, if it has one.")


@wire_message
class Leave(Message):
    """Leave a table (as player or watcher); answered by ``ok``."""

    TYPE = "leave"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()


@wire_message
class Watch(Message):
    """Watch a table as a spectator; answered by ``watching``."""

    TYPE = "watch"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    password: str | None = password_field("The table's password, if it has one.")


@wire_message
class Start(Message):
    """Start the game at a table (its creator only); answered by ``ok``."""

    TYPE = "start"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()


@wire_message
class AddBot(Message):
    """Seat one of the server's bundled bots at a free seat (the table's owner only, before a
    game starts); answered by ``ok``. The bot runs in the server process and plays through the
    same protocol as any client; it is marked as a bot."""

    TYPE = "add_bot"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    bot: str = fld(Kind.STR, min_len=1, max_len=24, plain=True, doc="Bundled bot: random, greedy, search or ismcts.")
    seat: int | None = fld(
        Kind.INT, default=None, lo=0, hi=MAX_SEATS - 1, doc="Wanted seat; omitted: the first free seat."
    )


@wire_message
class RemoveBot(Message):
    """Take a bot out of its seat, which becomes free (the table's owner only, while no game
    runs); answered by ``ok``. One of the server's own bots stops; another bot is told that the
    seat is no longer its own."""

    TYPE = "remove_bot"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    seat: int = fld(Kind.INT, lo=0, hi=MAX_SEATS - 1, doc="The bot's seat.")


@wire_message
class SetSeats(Message):
    """Change a table's number of seats (the table's owner only, before its first game);
    answered by ``ok``. Seats are added or taken away at the end."""

    TYPE = "set_seats"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    seats: int = fld(Kind.INT, lo=2, hi=MAX_SEATS, doc="The new number of seats, within the preset's player range.")


@wire_message
class Act(Message):
    """Play an action, in the engine's text form (``play 7h 7d``, ``take``, ``ready``...)."""

    TYPE = "act"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    seq: int = fld(Kind.INT, lo=0, hi=INT64_MAX, doc="The seq of the latest state the client has seen.")
    action: str = fld(Kind.STR, min_len=1, max_len=200, plain=True, doc="The action text.")


@wire_message
class Chat(Message):
    """Say something at a table; answered by ``ok``, relayed as ``chat_message``."""

    TYPE = "chat"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    text: str = fld(Kind.STR, min_len=1, max_len=280, plain=True, doc="One line of text.")


@wire_message
class Resume(Message):
    """Take back a seat after reconnecting, with the token from ``joined`` (a registered
    account, logged in with its password, may leave the token out)."""

    TYPE = "resume"
    DIRECTION = Direction.C2S
    id: int = request_id()
    table: int = table_id()
    token: str | None = fld(
        Kind.STR,
        default=None,
        min_len=1,
        max_len=128,
        doc="The token from joined; may be omitted by a registered (non-guest) account.",
    )


@wire_message
class CreateTournament(Message):
    """Open a tournament of bots; answered by ``tournament_created``. Its creator is the
    organiser: it starts it and receives ``tournament_game`` for every finished game."""

    TYPE = "create_tournament"
    DIRECTION = Direction.C2S
    id: int = request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=40, plain=True, doc="Tournament name.")
    preset: str = fld(Kind.STR, min_len=1, max_len=32, plain=True, doc="Rules preset, e.g. classic.")
    options: RuleOptions | None = fld(Kind.MAP, default=None, max_len=64, deep=True, doc="Rule option overrides.")
    seats: int = fld(Kind.INT, lo=2, hi=MAX_SEATS, doc="Seats per table.")
    games: int = fld(Kind.INT, lo=1, hi=1_000_000, doc="Number of games (rounded up to whole deals).")
    schedule: str = fld(
        Kind.STR,
        default="round-robin",
        max_len=16,
        plain=True,
        doc="round-robin (every group of participants) or gauntlet (hero against the field).",
    )
    hero: str | None = name_field("The gauntlet's hero.", default=None)
    permute: bool = fld(Kind.BOOL, default=False, doc="Play every seating of each deal, not only its rotations.")
    master_seed: int | None = fld(
        Kind.INT,
        default=None,
        lo=0,
        hi=INT64_MAX,
        doc="Seed of every deal; omitted: a random one (shown in tournament info).",
    )
    action_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0.05, hi=3600, doc="Time per action, seconds.")
    bank_seconds: float | None = fld(Kind.FLOAT, default=None, lo=0, hi=36000, doc="Time bank per seat, seconds.")
    concurrency: int = fld(Kind.INT, default=1, lo=1, hi=256, doc="Tables played at once.")
    participants: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=64,
        item=item(Kind.STR, min_len=1, max_len=MAX_WIRE_NAME, plain=True),
        doc="The accounts that will register themselves, only those: the server adds the bundled bots of"
        " bots (a name given twice is refused); omitted: any account (not a guest) may register.",
    )
    bots: Sequence[str] | None = fld(
        Kind.LIST,
        default=None,
        max_len=64,
        item=item(Kind.STR, min_len=1, max_len=24, pattern=BOT_KIND_PATTERN),
        doc=(
            "Bundled bots the server runs as participants (random, greedy, search, ismcts); "
            "repeats get names like greedy-2."
        ),
    )
    done: Sequence[int] | None = fld(
        Kind.LIST,
        default=None,
        max_len=1_000_000,
        item=item(Kind.INT, lo=0, hi=INT64_MAX),
        doc="Game numbers already played (resuming an interrupted tournament): skipped.",
    )
    done_ranges: Sequence[Sequence[int]] | None = fld(
        Kind.LIST,
        default=None,
        max_len=100_000,
        item=item(Kind.LIST, max_len=2, item=item(Kind.INT, lo=0, hi=INT64_MAX)),
        doc="The same as [first, last] pairs, both included: the compact form for a long tournament "
        "(its done list would not fit in one frame). With done: their union is skipped.",
    )


@wire_message
class Register(Message):
    """Enter a tournament as a participant (a bot account, or again after a reconnect: your
    seats in its running games come back); answered by ``ok``."""

    TYPE = "register"
    DIRECTION = Direction.C2S
    id: int = request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class StartTournament(Message):
    """Start a tournament (its organiser only); answered by ``ok``."""

    TYPE = "start_tournament"
    DIRECTION = Direction.C2S
    id: int = request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class CancelTournament(Message):
    """End a tournament before its last game (its organiser or a server operator); answered by
    ``ok``. Its running tables close and ``tournament_over`` goes out with the standings so far."""

    TYPE = "cancel_tournament"
    DIRECTION = Direction.C2S
    id: int = request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class GetTournament(Message):
    """Ask for a tournament's settings, progress and standings; answered by ``tournament``."""

    TYPE = "get_tournament"
    DIRECTION = Direction.C2S
    id: int = request_id()
    tournament: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Tournament id.")


@wire_message
class ListTournaments(Message):
    """Ask for every tournament on the server; answered by ``tournaments``."""

    TYPE = "list_tournaments"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class LadderJoin(Message):
    """Join the ladder (an account, not a guest) on these presets; answered by ``ok``. While
    connected and not seated at a game, the server seats you at ladder games (``seated`` with
    tournament 0). Joining again replaces the presets."""

    TYPE = "ladder_join"
    DIRECTION = Direction.C2S
    id: int = request_id()
    presets: Sequence[str] = fld(
        Kind.LIST,
        min_len=1,
        max_len=16,
        item=item(Kind.STR, min_len=1, max_len=32, plain=True),
        doc="The rules presets to be matched on (classic, west_kent...).",
    )


@wire_message
class LadderLeave(Message):
    """Leave the ladder (a game running finishes first); answered by ``ok``. Ratings stay."""

    TYPE = "ladder_leave"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class GetLadder(Message):
    """Ask for the ladder's standings, per preset and overall; answered by ``ladder_standings``."""

    TYPE = "ladder"
    DIRECTION = Direction.C2S
    id: int = request_id()


@wire_message
class LadderGames(Message):
    """Ask for a bot's recent ladder games; answered by ``ladder_history``."""

    TYPE = "ladder_games"
    DIRECTION = Direction.C2S
    id: int = request_id()
    name: str = fld(Kind.STR, min_len=1, max_len=64, doc="The bot's name as the standings show it.")
    limit: int = fld(Kind.INT, default=20, lo=1, hi=50, doc="How many games at most, the latest first.")


@wire_message
class GetRecord(Message):
    """Ask for the record of a finished game; answered by ``record``."""

    TYPE = "get_record"
    DIRECTION = Direction.C2S
    id: int = request_id()
    game: int = fld(Kind.INT, lo=0, hi=MAX_ID, doc="Game id from state or game_over.")


@wire_message
class Ping(Message):
    """Keep the connection alive; answered by ``pong``."""

    TYPE = "ping"
    DIRECTION = Direction.C2S
    id: int = request_id()
