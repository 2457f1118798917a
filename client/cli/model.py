"""The terminal client's state: a pure reducer from wire messages to what the screen shows.

docs/ARCHITECTURE.md (client/cli): model (this module) -> render (pure) -> app (thin). Nothing here does I/O,
reads a clock or touches prompt-toolkit: :func:`reduce` takes the current :class:`Model` and
one message and returns a new one, so a test can feed recorded messages and look at the
result.

Messages are the typed messages of :mod:`protocol.messages` as the SDK hands them out
(``State``, ``TableUpdate``, ``ChatMessage``, ``GameOver``, ``Error``...), the SDK's connection
events (:mod:`client.sdk.events`: ``Disconnected``, ``Reconnecting``, ``Reconnected``,
``Closed``), and the *local* events below, which the app makes from the answers its requests got
back (the SDK returns those answers to the caller instead of pushing them): :class:`Info`,
:class:`Listed`, :class:`Created`, :class:`Entered`, :class:`Watched`, :class:`Left` and
:class:`Failed`. The reducer tells them apart by class and reads their attributes (see
:data:`Incoming`); nothing is encoded or copied on the way.

The selection helpers at the end (:func:`selectables`, :func:`move_cursor`,
:func:`toggle_selected`) are the keyboard's part of the state: which cards the arrow keys walk
over and which are marked for the next play.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from client.cli.words import describe_error, describe_events, plain
from client.sdk.events import Closed, Disconnected, Item, Reconnected, Reconnecting
from protocol.messages import (
    ChatMessage,
    Error,
    GameOver,
    GoingAway,
    Joined,
    LoggedIn,
    Presence,
    PresenceEvent,
    State,
    TableCreated,
    Tables,
    TableUpdate,
    Watching,
    Welcome,
)
from protocol.names import name_key
from protocol.payloads import TABLE_EVENT_KINDS, GameResult, TableSummary, Tally, View

log = logging.getLogger(__name__)

__all__ = [
    "Created",
    "Entered",
    "Failed",
    "FeedLine",
    "GameEnd",
    "Incoming",
    "Info",
    "Left",
    "Listed",
    "Model",
    "Pick",
    "Watched",
    "clear_selection",
    "held_tables",
    "is_me",
    "move_cursor",
    "note",
    "reduce",
    "scroll_by",
    "selectables",
    "selected_picks",
    "toggle_help",
    "toggle_history",
    "toggle_selected",
    "waiting_seats",
]

#: Feed lines kept (events, chat, notes and errors together); older ones are dropped.
FEED_LIMIT = 300

#: A piece of a feed line: ``("t", text)``, ``("c", card)`` (drawn as a card), ``("n", name)``
#: (a player's name, drawn bold).
Part = tuple[str, str]


@dataclass(frozen=True)
class FeedLine:
    """One line of the feed. ``kind``: ``event``, ``game`` (a game started or ended), ``chat``,
    ``info`` or ``error``; ``parts`` as :data:`Part`."""

    kind: str
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """The line as plain text, cards in wire notation (for logs and tests)."""
        return plain(self.parts)


@dataclass(frozen=True)
class GameEnd:
    """What the last ``game_over`` message said: ``result`` and the series ``tally``."""

    table: int
    game: int
    result: GameResult
    tally: Tally
    number: int | None = None


@dataclass(frozen=True)
class Pick:
    """One thing the arrow keys can select: a hand card, a face-up slot or a face-down position.

    ``zone`` is ``hand``, ``up`` or ``down``; ``index`` the index in the hand, the face-up slot
    or the face-down position; ``cards`` the cards it stands for (one hand card; the face-up
    stack, empty for an empty slot during setup; nothing for a face-down card)."""

    zone: str
    index: int
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Model:
    """Everything the screen shows. Immutable: change it with :func:`reduce` and the helpers."""

    server: str = ""
    #: ``connecting``, ``connected``, ``reconnecting`` or ``closed``.
    connection: str = "connecting"
    name: str | None = None
    guest: bool = False
    #: The lobby: table summaries by id, as the last ``tables`` or ``table_update`` gave them.
    tables: Mapping[int, TableSummary] = field(default_factory=dict)
    #: The table we sit at or watch (None: in the lobby).
    table: int | None = None
    watching: bool = False
    #: Our seat from ``joined``; a ``state``'s ``view.seat`` is the authority once one arrived.
    joined_seat: int | None = None
    seq: int | None = None
    game: int | None = None
    number: int | None = None
    """The game's number at this table (1, 2, 3 ... in the series): ``game`` is the server-wide id."""
    view: View | None = None
    #: When the view arrived, on the caller's clock: its ``clocks`` count from then.
    view_at: float | None = None
    #: When our clock runs out, on the caller's clock (``now`` given to :func:`reduce`).
    deadline_at: float | None = None
    game_over: GameEnd | None = None
    #: The series tally of the table as the last ``game_over`` gave it (kept while the next game runs).
    series: Tally | None = None
    feed: tuple[FeedLine, ...] = ()
    chat: tuple[tuple[str, str], ...] = ()
    #: The last error in words, shown until the next command clears it.
    error: str | None = None
    #: The id of the table our last ``create`` made (so ``join`` can default to it).
    created: int | None = None
    #: Keyboard selection: index into :func:`selectables` and the marked indices.
    cursor: int = 0
    selected: frozenset[int] = frozenset()
    #: The action text sent and not answered yet (no second one meanwhile).
    pending: str | None = None
    show_help: bool = False
    #: The current game's log (its events and the chat), whole, for ``history``.
    history: tuple[FeedLine, ...] = ()
    #: The last play (or pick-up, flip...) of the game, shown highlighted under the pile.
    last_play: FeedLine | None = None
    #: The whole game's log fills the screen instead of the table (``history``).
    show_history: bool = False
    #: Lines scrolled back from the newest in the feed or the history (whichever is shown), or
    #: down from the top of the help.
    scroll: int = 0
    #: While reconnecting: when the next attempt is, and when the client gives up (caller's clock).
    retry_at: float | None = None
    gives_up_at: float | None = None
    attempt: int = 0
    #: The turn clock was running when the connection dropped: it is shown paused (the snapshot
    #: after the reconnect gives the true time left).
    clock_paused: bool = False
    #: The reason of the last ``going_away`` until the connection is back (said once).
    going_away: str | None = None

    @property
    def seat(self) -> int | None:
        """Our seat at the current table, or None (lobby, or watching)."""
        if self.view is not None:
            seat = self.view.get("seat")
            return seat if isinstance(seat, int) else None
        return None if self.watching else self.joined_seat

    @property
    def summary(self) -> TableSummary | None:
        """The current table's summary, if we have one."""
        return None if self.table is None else self.tables.get(self.table)

    @property
    def legal(self) -> tuple[str, ...]:
        """The action texts we may send now (empty when we may not act)."""
        if self.view is None:
            return ()
        return tuple(self.view.get("legal") or ())

    def names(self) -> Callable[[int | None], str]:
        """A function seat -> player name (from the view, else the summary), for the words."""
        names: dict[int, str] = {}
        summary = self.summary
        if summary is not None:
            for i, s in enumerate(summary.get("seats") or ()):
                if s:
                    names[i] = str(s.get("name", f"seat {i}"))
        if self.view is not None:
            for p in self.view.get("players") or ():
                names[int(p.get("seat", 0))] = str(p.get("name", ""))

        def name(seat: int | None) -> str:
            if seat is None:
                return "?"
            return names.get(seat) or f"seat {seat}"

        return name


# --------------------------------------------------------------------------- local events


@dataclass(frozen=True)
class Info:
    """A line for the feed."""

    text: str


@dataclass(frozen=True)
class Listed:
    """The answer to ``list_tables``: the open tables' summaries."""

    tables: list[TableSummary]


@dataclass(frozen=True)
class Created:
    """Our ``create_table`` made table ``table``."""

    table: int


@dataclass(frozen=True)
class Entered:
    """We sit at ``table`` in ``seat`` (the answer to ``join`` or ``resume``)."""

    table: int
    seat: int


@dataclass(frozen=True)
class Watched:
    """We watch ``table``."""

    table: int


@dataclass(frozen=True)
class Left:
    """We left ``table``."""

    table: int | None


@dataclass(frozen=True)
class Failed:
    """A request of ours was refused (the ``error`` its answer was, as the SDK raised it)."""

    code: str
    message: str
    reason: str | None = None
    retry_after: float | None = None


#: What :func:`reduce` takes: a message or connection event from the SDK, or a local event.
Incoming: TypeAlias = Item | Info | Listed | Created | Entered | Watched | Left | Failed


def note(model: Model, text: str, kind: str = "info") -> Model:
    """``model`` with one more feed line of plain ``text`` (``info`` or ``error``); an error
    is also kept in :attr:`Model.error` for the status line."""
    m = _append(model, FeedLine(kind, (("t", text),)))
    return dataclasses.replace(m, error=text) if kind == "error" else m


def reduce(model: Model, message: Incoming, *, now: float = 0.0) -> Model:
    """The model after ``message``. ``now`` is the caller's clock reading (seconds, any
    origin) when the message arrived; deadlines are kept on that clock. A message the screen
    has no use for (``pong``, ``ok``, the tournament messages...) leaves the model as it was.

    An answer the SDK hands back and the local event the app makes of it (``tables`` and
    :class:`Listed`, ``joined`` and :class:`Entered`...) change the model alike."""
    match message:
        case Welcome():
            return dataclasses.replace(model, connection="connected")
        case LoggedIn():
            return _logged_in(model, message)
        case Tables() | Listed():
            return _tables(model, message.tables)
        case TableCreated() | Created():
            return _table_created(model, message.table)
        case Joined() | Entered():
            return _joined(model, message.table, message.seat)
        case Watching() | Watched():
            return _watching(model, message.table)
        case Left():
            return _left(model, message.table)
        case TableUpdate():
            return _table_update(model, message)
        case State():
            return _state(model, message, now)
        case ChatMessage():
            return _chat_message(model, message)
        case GameOver():
            return _game_over(model, message)
        case Error() | Failed():
            return _error(model, message)
        case Info():
            return note(model, message.text)
        case Disconnected():
            return _disconnected(model, message)
        case Reconnecting():
            return _reconnecting(model, message, now)
        case Reconnected():
            return _reconnected(model, message, now)
        case GoingAway():
            return _going_away(model, message)
        case Presence():
            return _presence(model, message)
        case Closed():
            return _closed(model, message)
    log.debug("ignored message %s", type(message).__name__)
    return model


# --------------------------------------------------------------------------- handlers


def _append(model: Model, *lines: FeedLine) -> Model:
    if not lines:
        return model
    feed = (model.feed + lines)[-FEED_LIMIT:]
    # Scrolled back, the lines on screen stay where they are while new ones arrive below.
    scroll = model.scroll
    if scroll and not model.show_history:
        scroll = min(scroll + len(lines), len(feed))
    return dataclasses.replace(model, feed=feed, scroll=scroll)


def _log(model: Model, lines: list[FeedLine], *, new_game: bool = False) -> Model:
    """Lines of the game's log (events, chat) kept in :attr:`Model.history`, and in the feed."""
    history = tuple(lines) if new_game else model.history + tuple(lines)
    scroll = model.scroll
    if scroll and model.show_history:
        scroll = min(scroll + len(lines), len(history))
    return _append(dataclasses.replace(model, history=history, scroll=scroll), *lines)


def scroll_by(model: Model, lines: int, limit: int) -> Model:
    """:attr:`Model.scroll` moved by ``lines`` (back in the log; forward in the help), kept
    between 0 and ``limit`` (the lines there are to scroll through)."""
    return dataclasses.replace(model, scroll=max(0, min(model.scroll + lines, max(limit, 0))))


def toggle_history(model: Model) -> Model:
    """Show the whole game's log instead of the table, or the table again."""
    return dataclasses.replace(model, show_history=not model.show_history, show_help=False, scroll=0)


def toggle_help(model: Model) -> Model:
    """Show the help (from its top) instead of the table, or the table again."""
    return dataclasses.replace(model, show_help=not model.show_help, show_history=False, scroll=0)


def _logged_in(model: Model, msg: LoggedIn) -> Model:
    m = dataclasses.replace(model, name=msg.name, guest=msg.guest, connection="connected")
    return note(m, f"Logged in as {m.name}{' (guest)' if m.guest else ''}.")


def _tables(model: Model, summaries: Iterable[TableSummary]) -> Model:
    tables = {t["table"]: t for t in summaries}
    # The current table's summary stays known even if the list no longer has it.
    if model.table is not None and model.table not in tables and model.table in model.tables:
        tables[model.table] = model.tables[model.table]
    return dataclasses.replace(model, tables=tables)


def _table_created(model: Model, table: int) -> Model:
    return note(dataclasses.replace(model, created=table), f"Table {table} created.")


#: A table's game as the model holds it before anything of it has arrived: what entering
#: another table or leaving one resets.
_NO_GAME: dict[str, Any] = {
    "view": None,
    "seq": None,
    "game": None,
    "deadline_at": None,
    "game_over": None,
    "history": (),
    "series": None,
    "last_play": None,
    "show_history": False,
    "scroll": 0,
    "cursor": 0,
    "selected": frozenset(),
    "pending": None,
}


def _enter_table(model: Model, table: int) -> Model:
    """Switch to ``table``, forgetting the previous table's game."""
    if model.table == table:
        return model
    return dataclasses.replace(model, table=table, **_NO_GAME)


def _joined(model: Model, table: int, seat: int) -> Model:
    m = dataclasses.replace(_enter_table(model, table), watching=False, joined_seat=seat)
    return note(m, f"You sit at table {table}, seat {seat}.")


def _watching(model: Model, table: int) -> Model:
    m = dataclasses.replace(_enter_table(model, table), watching=True, joined_seat=None)
    return note(m, f"You watch table {table}.")


def _left(model: Model, table: int | None) -> Model:
    if table is not None and table != model.table:
        return model
    m = dataclasses.replace(model, table=None, watching=False, joined_seat=None, **_NO_GAME)
    return note(m, f"You left table {table}." if table is not None else "You left the table.")


def _table_update(model: Model, msg: TableUpdate) -> Model:
    tables = dict(model.tables)
    tables[msg.table] = msg.summary
    m = dataclasses.replace(model, tables=tables)
    if m.table is None and not m.watching and m.joined_seat is None:
        # A push for a table we did not know we were at (the answer to our join is still
        # on its way to the model): it is ours.
        m = _enter_table(m, msg.table)
    return m


def _state(model: Model, msg: State, now: float) -> Model:
    if model.table is not None and msg.table != model.table:
        log.debug("state for table %s ignored (we are at %s)", msg.table, model.table)
        return model
    m = _enter_table(model, msg.table) if model.table is None else model
    view = msg.view
    old_picks = selectables(m)
    m = dataclasses.replace(
        m,
        seq=msg.seq,
        game=msg.game,
        number=_number(m, msg),
        view=view,
        view_at=now,
        deadline_at=None if msg.deadline is None else now + msg.deadline,
        clock_paused=False if m.connection == "connected" else m.clock_paused,
        # A state of another game than the finished one: the result screen gives way to it.
        game_over=None if m.game_over is not None and m.game_over.game != msg.game else m.game_over,
        pending=None,
    )
    if m.watching and view.get("seat") is not None:
        m = dataclasses.replace(m, watching=False)
    if selectables(m) != old_picks:
        # The cards changed under the selection: start afresh rather than mark other cards.
        m = dataclasses.replace(m, selected=frozenset(), cursor=min(m.cursor, max(len(selectables(m)) - 1, 0)))
    lines = [FeedLine(kind, parts) for kind, parts in describe_events(list(msg.events), m.names(), me=m.seat)]
    new_game = any(ev["kind"] == "game_start" for ev in msg.events)
    # The last play: of the game's own events, not the table's (a "back", a timeout notice alone).
    plays = [line for line in lines if line.kind == "event"]
    if plays and any(ev["kind"] not in TABLE_EVENT_KINDS for ev in msg.events):
        m = dataclasses.replace(m, last_play=plays[-1])
    elif new_game:
        m = dataclasses.replace(m, last_play=None)
    return _log(m, lines, new_game=new_game)


def _number(model: Model, msg: State) -> int | None:
    """The table's number of the game of ``msg``: told by its game_start event, kept while the
    game goes on; for a game joined midway (a resume), counted from the table's summary."""
    for ev in msg.events:
        if ev["kind"] == "game_start":
            return ev.get("number")
    if msg.game == model.game and model.number is not None:
        return model.number
    summary = model.summary
    if summary is None:
        return None
    played = summary.get("games_played", 0)
    return played if msg.view.get("phase") == "over" else played + 1


def _chat_message(model: Model, msg: ChatMessage) -> Model:
    m = dataclasses.replace(model, chat=((*model.chat, (msg.name, msg.text)))[-FEED_LIMIT:])
    return _log(m, [FeedLine("chat", (("n", msg.name), ("t", ": " + msg.text)))])


def _game_over(model: Model, msg: GameOver) -> Model:
    if msg.table != model.table:
        return model  # another table's result (a table we left): not on screen
    over = GameEnd(table=msg.table, game=msg.game, result=msg.result, tally=msg.tally, number=msg.number)
    return dataclasses.replace(model, game_over=over, series=msg.tally, deadline_at=None, pending=None)


def _error(model: Model, msg: Error | Failed) -> Model:
    text = describe_error(str(msg.code), msg.message, msg.reason, msg.retry_after)
    return note(dataclasses.replace(model, pending=None), text, "error")


def _disconnected(model: Model, msg: Disconnected) -> Model:
    retrying = msg.reconnecting
    text = ("Connection lost: reconnecting..." if retrying else "Connection lost.") + (
        f" ({msg.reason})" if msg.reason else ""
    )
    # The turn clock is not shown while we cannot hear from the server: the snapshot after the
    # reconnect gives it again.
    m = dataclasses.replace(
        model,
        connection="reconnecting" if retrying else "closed",
        pending=None,
        deadline_at=None,
        clock_paused=model.clock_paused or model.deadline_at is not None,
    )
    return note(m, text, "error")


def _reconnecting(model: Model, msg: Reconnecting, now: float) -> Model:
    return dataclasses.replace(
        model,
        connection="reconnecting",
        attempt=msg.attempt,
        retry_at=now + msg.retry_in,
        gives_up_at=now + msg.gives_up_in,
        deadline_at=None,
        clock_paused=model.clock_paused or model.deadline_at is not None,
    )


def _going_away(model: Model, msg: GoingAway) -> Model:
    reason = msg.reason or "the server is stopping"
    if reason == model.going_away:
        return model  # a reconnect attempt met the server still stopping: said already
    text = reason[:1].upper() + reason[1:] + "."
    if msg.returning:
        text += " This client reconnects and takes your seat back by itself."
    return note(dataclasses.replace(model, going_away=reason), text, "error")


def _presence(model: Model, msg: Presence) -> Model:
    name, bot = msg.name, msg.bot
    match msg.event:
        case PresenceEvent.DROPPED:
            text = f"{name} dropped" + (f" (the bot {bot} playing for them)" if bot else "") + "."
        case PresenceEvent.RETURNED:
            text = f"{name} is back" + (f": {bot} gives the seat back" if bot else "") + "."
        case PresenceEvent.REPLACED:
            text = f"{bot} now plays for {name}."
        case _:
            return model
    return note(model, text)


def is_me(model: Model, name: object) -> bool:
    """Whether ``name`` (a seat's, an owner's) is this player's name: compared as the server
    compares names (:func:`protocol.names.name_key`), which never lets two players share one."""
    return bool(model.name) and isinstance(name, str) and name_key(name) == name_key(model.name or "")


def waiting_seats(model: Model) -> list[tuple[int, int]]:
    """``(table, seat)`` of the seats that this player holds and that wait for them (away, or
    played meanwhile by a bot standing in), outside the table on screen."""
    out = []
    for tid, summary in sorted(model.tables.items()):
        if tid == model.table:
            continue
        for i, seat in enumerate(summary.get("seats") or ()):
            if seat and is_me(model, seat.get("name")) and (seat.get("away") or seat.get("stand_in")):
                out.append((tid, i))
    return out


def held_tables(model: Model) -> set[int]:
    """The tables of the lobby list where this player's name holds a seat (away or not)."""
    return {
        tid
        for tid, summary in model.tables.items()
        if any(seat and is_me(model, seat.get("name")) for seat in summary.get("seats") or ())
    }


def _reconnected(model: Model, msg: Reconnected, now: float) -> Model:
    model = dataclasses.replace(model, retry_at=None, gives_up_at=None, attempt=0, clock_paused=False, going_away=None)
    m = note(dataclasses.replace(model, connection="connected", pending=None, error=None), "Reconnected.")
    for seat in msg.resumed:
        m = note(m, f"Seat {seat['seat']} at table {seat['table']} is yours again.")
    for lost in msg.lost:
        m = note(m, f"Table {lost['table']} could not be taken back: {lost['message'] or lost['code']}", "error")
        if lost["table"] == m.table:
            m = _left(m, m.table)
    return m


def _closed(model: Model, msg: Closed) -> Model:
    if model.connection == "closed" and model.feed and model.feed[-1].kind == "error":
        return model  # the disconnect was already told
    reason = msg.reason
    m = dataclasses.replace(model, connection="closed", pending=None)
    return note(m, "Connection closed" + (f": {reason}." if reason else ".") + " Type 'quit' to leave.", "error")


# --------------------------------------------------------------------------- selection


def selectables(model: Model) -> tuple[Pick, ...]:
    """What the arrow keys walk over, in screen order.

    Setup: the hand cards, then the face-up slots (a hand card and a slot make a swap or a
    place). Play: the hand while it has cards, else the face-up stacks, else the face-down
    positions that still hold a card. Nothing when there is no game or we are not seated."""
    view, seat = model.view, model.seat
    if view is None or seat is None or view.get("phase") == "over":
        return ()
    players = view.get("players") or ()
    me = players[seat] if 0 <= seat < len(players) else None
    hand = tuple(view.get("hand") or ())
    ups = [tuple(stack) for stack in (me.get("face_up") or () if me is not None else ())]
    hand_picks = tuple(Pick("hand", i, (c,)) for i, c in enumerate(hand))
    if view.get("phase") == "setup":
        return hand_picks + tuple(Pick("up", i, s) for i, s in enumerate(ups))
    if hand:
        return hand_picks
    if any(ups):
        return tuple(Pick("up", i, s) for i, s in enumerate(ups) if s)
    downs = me.get("face_down") or () if me is not None else ()
    return tuple(Pick("down", i) for i, there in enumerate(downs) if there)


def selected_picks(model: Model) -> tuple[Pick, ...]:
    """The marked picks, in screen order."""
    picks = selectables(model)
    return tuple(p for i, p in enumerate(picks) if i in model.selected)


def move_cursor(model: Model, delta: int) -> Model:
    """The cursor moved ``delta`` places (wrapping around)."""
    n = len(selectables(model))
    if n == 0:
        return dataclasses.replace(model, cursor=0)
    return dataclasses.replace(model, cursor=(model.cursor + delta) % n)


def toggle_selected(model: Model, index: int | None = None) -> Model:
    """The pick under the cursor (or at ``index``) marked, or unmarked if it was."""
    n = len(selectables(model))
    i = model.cursor if index is None else index
    if not 0 <= i < n:
        return model
    return dataclasses.replace(model, selected=model.selected ^ {i}, cursor=i)


def clear_selection(model: Model) -> Model:
    """Nothing marked."""
    return dataclasses.replace(model, selected=frozenset())
