"""The shapes of the maps nested in messages: the view and events of ``state``, table summaries,
game results and tallies, game records, tournament infos, the server's limits.

Each shape is declared once, here, as a :class:`typing.TypedDict`, and the message classes of
:mod:`protocol.messages` annotate their fields with them. ``docs/gen_protocol_tables.py``
writes the payload tables of ``docs/PROTOCOL.md`` from these declarations: every key carries
its documentation as ``Annotated[type, "doc"]``, every class its meaning in its docstring.

Why TypedDicts and not dataclasses: these payloads are plain maps on the wire and must stay
plain maps in memory. The server builds a view once per change and splices each seat's own
part into the shared encoding (:mod:`protocol.splice`); converting them to objects and back
would cost that hot path a copy per recipient. A TypedDict is a static description of a dict:
at run time it *is* the dict, so declaring the shapes costs nothing, while mypy checks every
key a producer writes and a consumer reads. The receiver still validates each message's own
fields (:mod:`protocol.fields`); these nested maps are taken as the server sends them.

Conventions: ``null`` on the wire is ``None``; a key marked ``NotRequired`` may be absent;
cards are texts such as ``7h`` (``docs/PROTOCOL.md`` §7), seats count from 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, NotRequired, TypeAlias, TypedDict, get_args

from .challenge_payloads import ChallengeInfo, ChallengeScore
from .replay_payloads import ReplaySeat, ReplayStep

__all__ = [
    "EVENT_TYPES",
    "PAYLOADS",
    "TABLE_EVENT_KINDS",
    "AnnouncedEvent",
    "Announcement",
    "BackEvent",
    "BurnedEvent",
    "ChallengeInfo",
    "ChallengeScore",
    "Clock",
    "DrewEvent",
    "Event",
    "FirstPlayerEvent",
    "FlippedEvent",
    "GambledEvent",
    "GameOverEvent",
    "GameRecord",
    "GameResult",
    "GameStartEvent",
    "JsonValue",
    "LadderGameInfo",
    "LadderRatingPoint",
    "LadderRow",
    "LadderTable",
    "OutEvent",
    "Outcome",
    "ParticipantInfo",
    "PassedEvent",
    "PlacedEvent",
    "PlayedEvent",
    "PlayerView",
    "ReadyEvent",
    "ReplaySeat",
    "ReplayStep",
    "ReversedEvent",
    "RuleOptions",
    "SeatSummary",
    "SkippedEvent",
    "StandingRow",
    "StoredGame",
    "SwappedEvent",
    "TableSummary",
    "Tally",
    "TimeoutEvent",
    "ToBeat",
    "TookEvent",
    "TournamentDetails",
    "TournamentGameResult",
    "View",
    "WelcomeLimits",
]

if TYPE_CHECKING:
    #: Plain JSON data: what either wire mode can carry (maps have string keys).
    JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
else:
    # At run time the alias is ``object``: a recursive alias holds forward references that
    # ``typing.get_type_hints`` could not resolve from the modules that use it.
    JsonValue = object

#: Rule option overrides: option name -> value (``docs/PROTOCOL.md``, "Rules: presets and options").
RuleOptions: TypeAlias = dict[str, JsonValue]


# --------------------------------------------------------------------------- results


class Outcome(TypedDict):
    """How a game ended (``view.result``, ``record.result``, a game record's ``outcome``)."""

    places: Annotated[list[int], "Seats from the first out to the last."]
    loser: Annotated[int, "The last seat: the shithead."]
    capped: Annotated[bool, "Whether `max_actions` ended the game (the player holding most cards loses)."]
    flush: Annotated[int | None, "`smeghead`'s flush player: the first seat to burn the pile; else null."]


class GameResult(Outcome):
    """``game_over.result``: the outcome with the players' names."""

    players: Annotated[list[str], "The players' names by seat."]


class Tally(TypedDict):
    """``game_over.tally``: the series so far, over every game at this table."""

    places: Annotated[list[list[int]], "Per seat, how often it finished first, second, ..."]
    losses: Annotated[list[int], "Per seat, how often it lost."]
    capped: Annotated[int, "Games ended by `max_actions`."]
    players: Annotated[list[str], "The players' names by seat."]
    timeouts: Annotated[list[int], "Per seat, how often the clock played for it at this table."]


# --------------------------------------------------------------------------- the view


class ToBeat(TypedDict):
    """``view.to_beat``: what the next play must beat (``view.legal`` already takes it into account)."""

    rule: Annotated[
        Literal["any", "at_least", "at_most", "below"],
        "`any` (empty pile, or only see-through cards: anything goes), `at_least` (rank `rank` or"
        " higher), `at_most` (after a `lower` card: `rank` or lower, or one of `also`), `below` (after a"
        " `lower_strict` card: lower than `rank`, or one of `also`). Cards with powers such as the 2 and"
        " the 10 go on anything in any case, except where a `lower` duty forbids it.",
    ]
    rank: Annotated[
        str | None,
        "The rank to beat as one character (`2`-`9`, `T`, `J`, `Q`, `K`, `A`, `X` for a joker),"
        " or null with `rule: any`.",
    ]
    also: Annotated[list[str], 'Ranks that may follow besides (after a `lower` card), e.g. `["8", "T"]`.']
    min_cards: Annotated[int, "The fewest cards the next play may have (`match_count`); 1 otherwise."]
    counts_as: NotRequired[
        Annotated[
            str,
            "Present only when the card to beat counts as another rank (a joker or see-through card"
            " with a value of its own).",
        ]
    ]


class PlayerView(TypedDict):
    """One entry of ``view.players``: what everyone sees of a seat."""

    seat: Annotated[int, "The seat number (the index in `players`)."]
    hand_count: Annotated[int, "How many cards the seat holds in hand."]
    face_up: Annotated[
        list[list[str]],
        "The face-up row: one list per slot, each a stack of cards (one card normally; several equal"
        " cards under `karma_stacking`; empty `[]` once played, or before a card is placed under"
        " `deal_style: choose`).",
    ]
    face_down: Annotated[
        list[bool],
        "One boolean per face-down position: `true` while a card lies there. Positions keep their"
        " numbers: `flip 2` turns over position 2 even when 0 and 1 are gone.",
    ]
    out: Annotated[bool, "Whether the seat has played all its cards."]
    place: Annotated[int | None, "Its finishing place (1 = first out) once known, else null."]
    ready: Annotated[bool, "Whether the seat has finished its setup."]
    name: Annotated[str | None, "The player's name (null for a free seat)."]
    bot: Annotated[bool, "Whether the player logged in as a bot."]
    away: Annotated[
        bool,
        "Whether the player's connection is gone (the clock plays for it, see [Reconnecting](#11-reconnecting)).",
    ]
    timeouts: Annotated[int, "How often the clock has played for this seat at this table."]


class Announcement(TypedDict):
    """One entry of ``view.announcements`` (``opening: announce``)."""

    seat: Annotated[int, "The seat that announced."]
    card: Annotated[str, "The card it announced."]


class Clock(TypedDict):
    """One entry of ``view.clocks``: the time of a seat that must act, as everyone sees it."""

    seat: Annotated[int, "The seat whose clock runs."]
    left: Annotated[
        float,
        "Seconds it has left, counted from when the state was sent, bank included (for the seat itself,"
        " the same as its `state.deadline`).",
    ]
    bank: Annotated[float, "How much of `left` is its time bank (0 without one)."]


class View(TypedDict):
    """``state.view``: the game as one seat (or a spectator) may see it. The public part is the
    same for everyone at the table; ``seat``, ``hand`` and ``legal`` are the recipient's own."""

    phase: Annotated[
        Literal["setup", "announce", "play", "over"],
        "`setup` (swapping cards, every seat at once), `announce` (`opening: announce` only: seats"
        " announce their opening card in turn), `play`, `over`.",
    ]
    preset: Annotated[str, "The rules preset."]
    dealer: Annotated[int, "The dealing seat."]
    turn: Annotated[
        int | None, "The seat to act in `announce` and `play`; null during `setup` (everybody acts) and when `over`."
    ]
    announce_turn: NotRequired[
        Annotated[int, "Only in the `announce` phase: the seat to announce now (the same as `turn`)."]
    ]
    direction: Annotated[int, "`1`: play goes up the seat numbers (clockwise), `-1`: down."]
    players: Annotated[list[PlayerView], "One entry per seat."]
    pile: Annotated[list[str], "The discard pile, bottom card first: the **last** card is the top."]
    to_beat: Annotated[ToBeat, "What the next play must beat."]
    stock_count: Annotated[int, "Cards left in the stock."]
    burned_count: Annotated[int, "Cards burned so far."]
    announcements: Annotated[list[Announcement], "`opening: announce`: the announcements in the order made."]
    must_play: Annotated[str | None, "A card your next play must contain (the announced opening card), or null."]
    drew_this_turn: Annotated[bool, "`draw_before_play`: whether you drew this turn."]
    action_count: Annotated[int, "Actions so far in this game, setup included."]
    max_actions: Annotated[
        int,
        "The game ends when it reaches this many actions (rule C18 of `docs/RULES.md`: the player holding"
        " most cards loses).",
    ]
    result: Annotated[Outcome | None, "null until the game is over, then how it ended."]
    seat: Annotated[int | None, "Whose view this is (null: a spectator)."]
    hand: Annotated[list[str] | None, "Your hand cards, sorted by rank (null for spectators)."]
    legal: Annotated[
        list[str],
        "**Every** action you may send now, as action texts (empty when you may not act). In a stable"
        " order: plays by face rank, 2 lowest to A (jokers after; the powers of 2 and 10 do not move"
        " them), within a rank fewer cards first and suits in the order c, d, h, s; then the other"
        " actions (`take` last). In setup `ready` comes first, when allowed.",
    ]
    clocks: NotRequired[
        Annotated[
            list[Clock],
            "The clocks of the seats that must act now, in seat order (empty once the game is over): the"
            " same for every seat and watcher. In every `state` the server sends; absent only from views"
            " that do not come from a table (an in-process engine's).",
        ]
    ]


# --------------------------------------------------------------------------- events


class SwappedEvent(TypedDict):
    """Setup: `to_face_up` went from the hand to face-up slot `slot`, `to_hand` came back."""

    kind: Literal["swapped"]
    seat: int
    to_face_up: Annotated[str, "The hand card now face up."]
    to_hand: Annotated[str, "The face-up card now in the hand."]
    slot: Annotated[int, "The face-up slot."]


class PlacedEvent(TypedDict):
    """Setup (`deal_style: choose`, `karma_stacking`): `card` was put on face-up slot `slot`."""

    kind: Literal["placed"]
    seat: int
    card: Annotated[str, "The card placed."]
    slot: Annotated[int, "The face-up slot."]


class DrewEvent(TypedDict):
    """The seat drew `count` cards from the stock (which cards is private: see your `hand`)."""

    kind: Literal["drew"]
    seat: int
    count: Annotated[int, "How many cards."]


class ReadyEvent(TypedDict):
    """The seat finished its setup."""

    kind: Literal["ready"]
    seat: int


class AnnouncedEvent(TypedDict):
    """`opening: announce`: the seat announced `card` from its hand."""

    kind: Literal["announced"]
    seat: int
    card: Annotated[str, "The announced card."]


class PassedEvent(TypedDict):
    """`opening: announce`: the seat did not announce."""

    kind: Literal["passed"]
    seat: int


class FirstPlayerEvent(TypedDict):
    """Play begins with this seat."""

    kind: Literal["first_player"]
    seat: int
    card: Annotated[str | None, "The card that decided it when that card was public (face up or announced), else null."]


class PlayedEvent(TypedDict):
    """`cards` went onto the pile from `source`."""

    kind: Literal["played"]
    seat: int
    cards: Annotated[list[str], "The cards played."]
    source: Annotated[Literal["hand", "face_up", "face_down", "stock"], "Where they came from."]


class FlippedEvent(TypedDict):
    """Face-down card `position` was turned over and is `card`; a `played` event follows if it
    goes, a `took` event if it does not."""

    kind: Literal["flipped"]
    seat: int
    position: Annotated[int, "The face-down position."]
    card: Annotated[str, "The card that lay there."]


class GambledEvent(TypedDict):
    """`stock_gamble`: the top card of the stock was turned over: `card`."""

    kind: Literal["gambled"]
    seat: int
    card: Annotated[str, "The card turned over."]


class BurnedEvent(TypedDict):
    """The pile left the game; the same seat plays again."""

    kind: Literal["burned"]
    seat: int
    count: Annotated[int, "How many cards the pile held."]


class TookEvent(TypedDict):
    """The seat picked up the pile."""

    kind: Literal["took"]
    seat: int
    cards: Annotated[list[str], "The cards picked up (the whole pile, with the card it gave up or flipped)."]


class ReversedEvent(TypedDict):
    """The direction of play changed."""

    kind: Literal["reversed"]
    seat: int
    direction: Annotated[int, "The direction now: 1 up the seat numbers, -1 down."]


class SkippedEvent(TypedDict):
    """The seat misses its turn."""

    kind: Literal["skipped"]
    seat: int


class OutEvent(TypedDict):
    """The seat has no cards left."""

    kind: Literal["out"]
    seat: int
    place: Annotated[int, "Its finishing place (1 = first)."]


class GameOverEvent(TypedDict):
    """The game ended (`seat` is null). The `game_over` *message* follows the last state, with the tally."""

    kind: Literal["game_over"]
    seat: None
    places: Annotated[list[int], "Seats from first to last."]
    loser: Annotated[int, "The last seat."]
    capped: Annotated[bool, "Whether `max_actions` stopped the game."]


class GameStartEvent(TypedDict):
    """Table event, first in the first state of a game (`seat` null)."""

    kind: Literal["game_start"]
    seat: None
    game: Annotated[int, "The game id (for `get_record`), numbered across the server."]
    number: Annotated[int, "The game's number at this table: 1 for the first game of the series, then 2, 3 ..."]
    dealer: Annotated[int, "The dealing seat."]


class TimeoutEvent(TypedDict):
    """Table event: the seat's clock ran out and the server played `action` for it. The engine's events follow."""

    kind: Literal["timeout"]
    seat: int
    action: Annotated[str, "The action played for the seat."]
    count: Annotated[int, "The seat's number of timeouts at this table so far."]


class BackEvent(TypedDict):
    """Table event, only in the snapshot sent to a seat that resumed."""

    kind: Literal["back"]
    seat: int


#: One item of ``state.events``; ``kind`` tells which.
Event: TypeAlias = (
    SwappedEvent
    | PlacedEvent
    | DrewEvent
    | ReadyEvent
    | AnnouncedEvent
    | PassedEvent
    | FirstPlayerEvent
    | PlayedEvent
    | FlippedEvent
    | GambledEvent
    | BurnedEvent
    | TookEvent
    | ReversedEvent
    | SkippedEvent
    | OutEvent
    | GameOverEvent
    | GameStartEvent
    | TimeoutEvent
    | BackEvent
)

#: The event shapes in document order: the rules engine's, then the table's own.
EVENT_TYPES: tuple[type, ...] = get_args(Event)
#: The kinds of events the table adds to the engine's (``server/tables/table.py``).
TABLE_EVENT_KINDS = ("game_start", "timeout", "back")


# --------------------------------------------------------------------------- tables


class SeatSummary(TypedDict):
    """A taken seat in a table summary (a free seat is null)."""

    name: Annotated[str, "The player's name."]
    bot: Annotated[bool, "Whether the player logged in as a bot."]
    guest: Annotated[bool, "Whether the player is a guest."]
    away: Annotated[bool, "Whether its connection is gone."]
    timeouts: Annotated[int, "How often the clock played for it at this table."]
    stand_in: Annotated[str | None, "The bundled bot that plays for the absent player, or null."]


class TableSummary(TypedDict):
    """One item of ``tables.tables``, and ``table_update.summary``."""

    table: Annotated[int, "The table id."]
    name: Annotated[str, "The table's name."]
    owner: Annotated[str, "Name of the player who may `start` games."]
    preset: Annotated[str, "The rules preset."]
    options: Annotated[RuleOptions, "The options that differ from the preset (the rules are preset + these)."]
    seats: Annotated[list[SeatSummary | None], "One entry per seat: null when free."]
    free: Annotated[int, "Number of free seats."]
    bots: Annotated[int, "Number of seated bots."]
    spectators: Annotated[int, "Number of watchers."]
    status: Annotated[Literal["waiting", "playing"], "`waiting` (no game running) or `playing`."]
    games_played: Annotated[int, "Games finished at this table."]
    password: Annotated[bool, "Whether `join` and `watch` need the table's password."]
    action_seconds: Annotated[float, "Seconds per action ([Clocks](#10-clocks-and-timeouts))."]
    bank_seconds: Annotated[float, "Time bank per seat and game."]
    fixed_seed: Annotated[int | None, "The shuffle seed, or null when the games are shuffled at random."]
    fixed_deck: Annotated[bool, "Whether every game is dealt from a fixed deck order."]


# --------------------------------------------------------------------------- records


class GameRecord(TypedDict):
    """A replayable game record: the rules, the deal and every action (``record.record.record``)."""

    preset: Annotated[str, "The rules preset."]
    options: Annotated[RuleOptions, "The options that differ from the preset."]
    seats: Annotated[int, "Number of seats."]
    dealer: Annotated[int, "The dealing seat."]
    deck: Annotated[list[str], "Every card, top of the deck first."]
    actions: Annotated[list[list[int | str]], "`[seat, action text]` pairs (2-item arrays), in order."]
    outcome: Annotated[Outcome | None, "How the game ended."]
    players: Annotated[list[str], "The players' names by seat."]
    times: Annotated[list[float], "Seconds from the deal to each action."]
    extra: NotRequired[Annotated[dict[str, JsonValue], "Anything else the engine recorded."]]


class StoredGame(TypedDict):
    """``record.record``: a finished game as the server stored it."""

    id: Annotated[int, "The game id."]
    table_name: Annotated[str, "The table's name."]
    preset: Annotated[str, "The rules preset."]
    players: Annotated[list[str], "The players' names by seat."]
    started: Annotated[float, "When it was dealt (Unix time)."]
    ended: Annotated[float, "When it ended (Unix time)."]
    result: Annotated[Outcome, "How it ended."]
    record: Annotated[GameRecord, "The replayable record."]


# --------------------------------------------------------------------------- tournaments


class ParticipantInfo(TypedDict):
    """One entry of a tournament's ``participants``."""

    name: Annotated[str, "The participant's account name."]
    bot: Annotated[bool, "Whether it is a bot account."]
    house: Annotated[bool, "Whether it is a bundled bot the server runs."]
    connected: Annotated[bool, "Whether it is online now."]


class StandingRow(TypedDict):
    """One row of a tournament's ``standings``, best first (95 % intervals; null: too few games)."""

    rank: Annotated[int, "1 for the best rating."]
    name: Annotated[str, "The participant."]
    rating: Annotated[float, "Its openskill Plackett-Luce rating (mu)."]
    rating_95: Annotated[float, "Half-width of the rating's 95 % interval."]
    sigma: Annotated[float, "The rating's uncertainty."]
    games: Annotated[int, "Games played."]
    mean_place: Annotated[float | None, "Mean finishing place."]
    mean_place_95: Annotated[float | None, "Half-width of its 95 % interval."]
    loss_rate: Annotated[float | None, "Share of games lost."]
    loss_rate_95: Annotated[float | None, "Half-width of its 95 % interval."]
    firsts: Annotated[int, "First places."]
    timeouts: Annotated[int, "Actions the clock played for it."]
    illegal: Annotated[int, "Illegal actions it sent."]
    disconnects: Annotated[int, "Times it was disconnected during a game."]


class TournamentDetails(TypedDict):
    """``tournament.info``, the items of ``tournaments.tournaments`` and ``tournament_over.info``."""

    tournament: Annotated[int, "The tournament id."]
    name: Annotated[str, "Its name."]
    organiser: Annotated[str, "Who created it (receives `tournament_game`)."]
    status: Annotated[Literal["registering", "running", "finished"], "Where it stands."]
    paused: Annotated[
        bool, "Running, but no new game starts: its organiser has gone (see Tournaments); it goes on when they return."
    ]
    cancelled: Annotated[bool, "Finished by `cancel_tournament` before its last game."]
    preset: Annotated[str, "The rules preset."]
    options: Annotated[RuleOptions, "Rule option overrides."]
    seats: Annotated[int, "Seats per table."]
    games: Annotated[int, "Games asked for."]
    schedule: Annotated[str, "`round-robin` or `gauntlet`."]
    hero: Annotated[str | None, "The gauntlet's hero."]
    permute: Annotated[bool, "Whether every seating of each deal is played, not only its rotations."]
    master_seed: Annotated[int, "The seed every deal derives from."]
    concurrency: Annotated[int, "Tables played at once."]
    action_seconds: Annotated[float, "Time per action, seconds."]
    participants: Annotated[list[ParticipantInfo], "Who registered."]
    games_total: Annotated[int, "Games scheduled (whole deals)."]
    games_finished: Annotated[int, "Games finished (with those skipped by `done`)."]
    tables: Annotated[list[int], "The running games' tables."]
    standings: Annotated[list[StandingRow], "Best first."]
    head_to_head: Annotated[
        dict[str, dict[str, float | None]],
        "`head_to_head[a][b]`: the mean of a's place minus b's over the games they played together"
        " (negative: a finished ahead).",
    ]


class LadderRow(TypedDict):
    """One bot's row of a ladder table, best first."""

    rank: Annotated[int, "1 for the best rating."]
    name: Annotated[str, "The bot: an account, or a bundled baseline in brackets (`[greedy]`)."]
    rating: Annotated[float, "Its openskill Plackett-Luce rating (mu)."]
    rating_95: Annotated[float, "Half-width of the rating's 95 % interval."]
    games: Annotated[int, "Ladder games played in this table."]
    timeouts: Annotated[int, "Actions the clock played for it."]
    illegal: Annotated[int, "Illegal actions it sent."]
    disconnects: Annotated[int, "Times it was disconnected during a game (a crashed program too)."]


class LadderTable(TypedDict):
    """An item of ``ladder_standings.tables``."""

    table: Annotated[str, "`overall` (every ladder game), or a preset (its games only)."]
    rows: Annotated[list[LadderRow], "Best rating first."]


class LadderGameInfo(TypedDict):
    """An item of ``ladder_history.games``."""

    game: Annotated[int, "The server's game id (`get_record`)."]
    preset: Annotated[str, "The rules preset."]
    players: Annotated[list[str], "Who sat where, by seat."]
    places: Annotated[list[int], "Seats from the first out to the loser."]
    place: Annotated[int, "The bot's place: 1 for the first out."]
    finished: Annotated[float, "When it ended (Unix time, seconds)."]


class LadderRatingPoint(TypedDict):
    """An item of ``ladder_history.ratings``: the bot's overall rating after one of its games."""

    games: Annotated[int, "How many ladder games the bot had played then."]
    game: Annotated[int, "That game's id (`get_record`)."]
    finished: Annotated[float, "When it ended (Unix time, seconds)."]
    rating: Annotated[float, "The overall rating (mu) after it."]
    rating_95: Annotated[float, "Half-width of its 95 % interval."]


class TournamentGameResult(TypedDict):
    """``tournament_game.result``: who sat where in a finished tournament game and how it went."""

    number: Annotated[int, "The game's number in the tournament."]
    deal: Annotated[int, "The deal it played."]
    seed: Annotated[int, "The deal's table seed."]
    rotation: Annotated[int, "Which seating of the deal."]
    seats: Annotated[list[str], "`seats[i]` played seat `i`."]
    places: Annotated[list[int], "Seats from the first out to the loser."]
    capped: Annotated[bool, "Whether `max_actions` ended the game."]
    timeouts: Annotated[list[int], "Per seat: actions the clock played."]
    illegal: Annotated[list[int], "Per seat: illegal actions sent."]
    disconnects: Annotated[list[int], "Per seat: disconnections during the game."]
    actions: Annotated[int, "Actions in the game."]
    server_game: Annotated[int, "The game id, for `get_record`."]


# --------------------------------------------------------------------------- limits


class WelcomeLimits(TypedDict):
    """``welcome.limits``: the server's limits a client must respect (``docs/PROTOCOL.md`` §13)."""

    max_frame_in: Annotated[int, "Largest frame body / JSON line a client may send after login, in bytes."]
    max_frame_in_before_login: Annotated[int, "The same before `logged_in`."]
    max_frame_out: Annotated[int, "Largest frame the server sends."]
    rate_per_second: Annotated[float, "Messages per second a connection may send, sustained."]
    rate_burst: Annotated[int, "Messages allowed at once above the sustained rate."]
    handshake_timeout: Annotated[float, "Seconds from connecting to `logged_in`."]
    idle_timeout: Annotated[float, "Seconds without receiving any message before the server closes."]
    reconnect_grace: Annotated[float, "Seconds an absent seat's clock runs normally."]
    restart_grace: Annotated[float, "Seconds added to every clock when the server starts again with games in progress."]
    max_output_buffer: Annotated[int, "Bytes the server holds for a client that does not read."]
    tables_per_player: Annotated[int, "Tables one player may own at once (0: no limit)."]
    tournaments_per_player: Annotated[int, "Unfinished tournaments one player may organise (0: no limit)."]
    tournament_tables: Annotated[int, "Largest `create_tournament.concurrency`."]
    tournament_games: Annotated[int, "Largest `create_tournament.games` (0: the protocol's maximum)."]
    tournament_bots: Annotated[int, "Most bundled bots in `create_tournament.bots` (0: the protocol's maximum)."]


#: Every payload shape, in document order (for the generated tables and the tests).
PAYLOADS: tuple[type, ...] = (
    View,
    Clock,
    PlayerView,
    ToBeat,
    Announcement,
    Outcome,
    GameResult,
    Tally,
    TableSummary,
    SeatSummary,
    StoredGame,
    GameRecord,
    TournamentDetails,
    ParticipantInfo,
    StandingRow,
    TournamentGameResult,
    LadderTable,
    LadderRow,
    LadderGameInfo,
    LadderRatingPoint,
    ReplayStep,
    ReplaySeat,
    ChallengeInfo,
    ChallengeScore,
    WelcomeLimits,
)
