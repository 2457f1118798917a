"""One table: seats, watchers, a series of games, clocks. A pure coordinator.

Nothing here awaits or touches a socket or the clock: every method takes ``now`` (seconds,
monotonic) where time matters and appends what must be sent to an :class:`Outbox` as
``(session, message)`` pairs. The asyncio shell (:mod:`server.shell.app`) flushes the outbox,
calls :meth:`Table.tick` from its sweeper, and stores finished games.

Information: each seated player receives ``view_for(game, seat)`` and nothing wider;
watchers receive the spectator view. Engine events are public by construction, so every
recipient gets the same event list.

Sequence numbers: every change increments ``seq`` and is broadcast as ``state``. An ``act``
names the ``seq`` it answers and is accepted when no change to what that seat may do (and
no action of its own) happened after it; otherwise ``STALE_SEQ``. A duplicate is therefore
never applied twice, while seats acting at the same time during setup do not trip over each
other.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import cast

from protocol.errors import ErrorCode
from protocol.messages import ChatMessage, GameOver, Message, Presence, PresenceEvent, State, TableUpdate
from protocol.payloads import Event as WireEvent
from protocol.payloads import GameResult, TableSummary, Tally
from server.engine import (
    Game,
    IllegalAction,
    ReplayRecord,
    Rules,
    Series,
    format_action,
)
from server.engine.actions import Action
from server.engine.events import Event, event_to_dict
from server.engine.game import SETUP
from server.engine.policies import greedy_policy
from server.login.auth import new_token, token_matches
from server.login.identity import house_identity
from server.tables.coordination import FinishedGame, Session, StateOut, TableError
from server.tables.seat import Seat
from server.tables.states import StateBuilder

__all__ = [
    "Applied",
    "Changed",
    "Dealt",
    "FinishedGame",
    "Outbox",
    "Seat",
    "Session",
    "StateOut",
    "Table",
    "TableError",
    "default_action",
]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Applied:
    """A journal fact: an action applied at a table (``n``: its index in the game's history,
    ``t``: seconds since the deal, ``bank``: the acting seat's bank after it)."""

    table: Table
    n: int
    seat: int
    action: Action
    t: float
    timeout: bool
    bank: float


@dataclass(slots=True)
class Dealt:
    """A journal fact: a new game was dealt at a table."""

    table: Table


@dataclass(slots=True)
class Changed:
    """A journal fact: something of a table other than its game's actions changed (seats,
    owner, series, status); the shell writes the table's snapshot."""

    table: Table


@dataclass
class Outbox:
    """What to deliver, in order: ``(session, message)`` pairs, where a broadcast state is a
    :class:`StateOut` (its :meth:`StateOut.message` is the message it stands for); and in
    ``saves``, the journal facts (:class:`Applied`, :class:`Dealt`, :class:`Changed`) that must
    be written before any of it is delivered."""

    items: list[tuple[Session, Message | StateOut]] = field(default_factory=list)
    saves: list[Applied | Dealt | Changed] = field(default_factory=list)
    lobby: bool = False
    """A table's summary changed (or a table opened): what the lobby shows (its followers are
    told, :mod:`server.tables.lobby_watch`)."""

    def send(self, session: Session, msg: Message | StateOut) -> None:
        self.items.append((session, msg))

    def answer(self, session: Session, msg: Message) -> None:
        """The answer to the request being handled: before what the request caused, and like it
        delivered only once the facts are journaled."""
        self.items.insert(0, (session, msg))


def default_action(game: Game, seat: int) -> Action:
    """What the clock plays for a seat that ran out of time (documented in PROTOCOL.md): the
    engine's greedy policy, the one greedy choice of the project (the bots play it too)."""
    return greedy_policy(game, seat)


class Table:
    """A table of ``nseats`` seats playing a series of games under ``rules``."""

    def __init__(
        self,
        table_id: int,
        name: str,
        owner: str,
        rules: Rules,
        nseats: int,
        *,
        password_hash: bytes | None = None,
        action_seconds: float = 60.0,
        bank_seconds: float = 0.0,
        seed: int | None = None,
        deck: list[int] | None = None,
        rng: random.Random | None = None,
        owner_id: str | None = None,
    ) -> None:
        self.id = table_id
        self.name = name
        self.owner = owner
        """The owner's name, as shown."""
        self.owner_id = owner if owner_id is None else owner_id
        """The owner's identity (:mod:`server.login.identity`): what the owner's requests are checked by."""
        self.rules = rules
        self.nseats = nseats
        self.password_hash = password_hash
        self.action_seconds = action_seconds
        self.bank_seconds = bank_seconds
        self.seed = seed
        self.deck = deck
        self.seats: list[Seat | None] = [None] * nseats
        self.watchers: list[Session] = []
        if seed is not None:
            self.series = Series(rules, nseats, seed=seed)
        else:
            # With an explicit deck and no seed the deal is fixed too: seat 0 deals first.
            self.series = Series(rules, nseats, rng=rng, first_dealer=0 if deck is not None else None)
        self.game: Game | None = None
        self.game_id = 0
        self.games_played = 0
        self.seq = 0
        self.started_at = 0.0
        self.turn_started = 0.0
        self.action_times: list[float] = []
        self.lonely_since: float | None = None
        self.states = StateBuilder(table_id, nseats)
        self.last_game_over: GameOver | None = None
        """Sent again to a player who resumes after the game ended without them."""
        self.tournament: tuple[int, int] | None = None
        """``(tournament id, game number)`` when a tournament plays its game here."""
        self.started_wall: float | None = None
        """Wall-clock time of the deal of a game restored after a restart (None otherwise)."""
        self.owner_gone = False
        """The owner left (or stayed away) and no connected person could take over yet: the next
        person to sit or come back becomes the owner."""

    # ------------------------------------------------------------------ queries

    @property
    def running(self) -> bool:
        return self.game is not None and not self.game.is_over()

    def seat_of(self, session: Session) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.session is session:
                return i
        return None

    def summary(self) -> TableSummary:
        """What the lobby shows of this table (public)."""
        return {
            "table": self.id,
            "name": self.name,
            "owner": self.owner,
            "preset": self.rules.preset,
            "options": self.rules.overrides(),
            "seats": [
                None
                if s is None
                else {
                    "name": s.name,
                    "bot": s.bot,
                    "guest": s.guest,
                    "away": s.session is None,
                    "timeouts": s.timeouts,
                    "stand_in": s.stand_in,
                }
                for s in self.seats
            ],
            "free": sum(s is None for s in self.seats),
            "bots": sum(s is not None and s.bot for s in self.seats),
            "spectators": len(self.watchers),
            "status": "playing" if self.running else "waiting",
            "games_played": self.games_played,
            "password": self.password_hash is not None,
            "action_seconds": self.action_seconds,
            "bank_seconds": self.bank_seconds,
            "fixed_seed": self.seed,
            "fixed_deck": self.deck is not None,
        }

    def abandoned(self, now: float, grace: float, *, owner_connected: bool = False) -> bool:
        """Nobody connected (no watcher, every seat empty, away or held by the server's own bots,
        and the owner, who could start the next game, not ``owner_connected`` to the server)
        for ``grace`` seconds."""
        if (
            (owner_connected and not self.owner_gone)
            or self.watchers
            or any(s is not None and s.session is not None and s.session.house is None for s in self.seats)
        ):
            self.lonely_since = None
            return False
        if self.lonely_since is None:
            self.lonely_since = now
        return now - self.lonely_since >= grace

    def recipients(self) -> list[Session]:
        out = [s.session for s in self.seats if s is not None and s.session is not None]
        return out + self.watchers

    # ------------------------------------------------------------------ lobby requests

    def check_password(self, given: str | None) -> None:
        """Table passwords are kept as a SHA-256 hash and compared in constant time."""
        if self.password_hash is not None and (given is None or not token_matches(given, self.password_hash)):
            raise TableError(ErrorCode.WRONG_PASSWORD, "wrong or missing table password")

    def join(self, session: Session, seat: int | None, password: str | None, out: Outbox) -> tuple[int, str]:
        """Seat ``session``; returns ``(seat, token)``. The token is shown only here."""
        if self.seat_of(session) is not None:
            raise TableError(ErrorCode.SEAT_TAKEN, "you already have a seat at this table")
        self.check_password(password)
        if any(s is not None and s.identity == session.identity for s in self.seats):
            raise TableError(ErrorCode.SEAT_TAKEN, f"{session.name} already sits at this table; use resume")
        if self.running:
            raise TableError(ErrorCode.ALREADY_STARTED, "the game has started; watch instead")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise TableError(ErrorCode.TABLE_FULL, "no free seat at this table")
            seat = free[0]
        elif seat >= self.nseats:
            raise TableError(ErrorCode.SEAT_TAKEN, f"this table has seats 0..{self.nseats - 1}")
        elif self.seats[seat] is not None:
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken")
        token, token_hash = new_token()
        st = self.seats[seat] = Seat(
            session.name,
            session.bot,
            session.guest,
            token_hash,
            session,
            identity=session.identity,
            bank=self.bank_seconds,
            house=session.house,
        )
        if session in self.watchers:
            self.watchers.remove(session)
        self._claim_ownership(st)
        self._update(out)
        return seat, token

    def seat_for(
        self,
        seat: int,
        name: str,
        identity: str,
        bot: bool,
        guest: bool,
        session: Session | None,
        out: Outbox,
        now: float,
    ) -> str:
        """Seat ``name`` (``identity``) at ``seat`` on the server's own authority (a tournament's
        game): with its connection, or away if it has none now. Returns the seat's token."""
        if self.running or self.seats[seat] is not None:
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {seat} is not free")
        token, token_hash = new_token()
        self.seats[seat] = Seat(
            name,
            bot,
            guest,
            token_hash,
            session,
            identity=identity,
            away_since=now if session is None else None,
            bank=self.bank_seconds,
        )
        self._update(out)
        return token

    def rebind(self, seat: int, session: Session, out: Outbox, now: float) -> str:
        """Give ``seat`` to ``session`` (its sitter came back; the caller vouches for who it
        is) with a new token, and send it a full snapshot. Returns the token."""
        s = self.seats[seat]
        assert s is not None
        token, s.token_hash = new_token()
        was_away = s.session is None
        s.session = session
        s.away_since = None
        if was_away:
            self._presence(seat, PresenceEvent.RETURNED, out)
        self._update(out)
        if self.game is not None:
            out.send(session, self._state_for(seat, [{"kind": "back", "seat": seat}], now))
        return token

    def watch(self, session: Session, password: str | None, out: Outbox, max_watchers: int, now: float) -> None:
        self.check_password(password)
        if self.seat_of(session) is not None:
            raise TableError(ErrorCode.SEAT_TAKEN, "you are seated here; players see their own view")
        if session not in self.watchers:
            if len(self.watchers) >= max_watchers:
                raise TableError(ErrorCode.TABLE_FULL, "too many spectators at this table")
            self.watchers.append(session)
        self._update(out, stored=False)  # (watchers are not stored: the snapshot is the same)
        if self.game is not None:
            out.send(session, self._state_for(None, [], now))

    def leave(self, session: Session, out: Outbox) -> None:
        if session in self.watchers:
            self.watchers.remove(session)
            self._update(out)
            return
        seat = self.seat_of(session)
        if seat is None:
            raise TableError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
        if self.running:
            raise TableError(
                ErrorCode.ALREADY_STARTED, "the game is running: finish it (or disconnect; the clock plays for you)"
            )
        self.seats[seat] = None
        if self.owner_id == session.identity:
            self._pass_ownership()
        self._update(out)

    # ------------------------------------------------------------------ people and bots

    def _pass_ownership(self) -> None:
        """The owner is gone: the first seated person who is here takes over (never a bot); if
        there is none, the next one to arrive (see :meth:`_claim_ownership`)."""
        for s in self.seats:
            if s is not None and s.person_here and s.identity != self.owner_id:
                self.owner, self.owner_id = s.name, s.identity
                self.owner_gone = False
                return
        self.owner_gone = True

    def _claim_ownership(self, s: Seat) -> None:
        if self.owner_gone and s.person_here and self.tournament is None:
            self.owner, self.owner_id = s.name, s.identity
            self.owner_gone = False

    def check_owner(self, now: float, grace: float, out: Outbox) -> None:
        """Pass ownership on when the owner's seat has been away for ``grace`` seconds."""
        if self.tournament is not None or self.owner_gone:
            return
        for s in self.seats:
            if s is not None and s.identity == self.owner_id:
                if s.session is None and s.away_since is not None and now - s.away_since >= grace:
                    before = self.owner_id
                    self._pass_ownership()
                    if self.owner_id != before or self.owner_gone:
                        self._update(out)
                return

    def resume(self, session: Session, token: str | None, out: Outbox, now: float) -> tuple[int, Session | None]:
        """Give the seat whose token this is to ``session``; returns the seat and the connection
        that held it until now (an older connection of the player, or the stand-in bot), if any.

        Only the identity that holds a seat gets it back (:mod:`server.login.identity`). Without a
        token, a registered account (logged in with its password or login token, so its identity
        is proof enough) gets back the seat that account holds; a guest must show the token. A
        stand-in bot resumes the seat it was handed with its own token."""
        for i, s in enumerate(self.seats):
            if s is None:
                continue
            if s.stand_in is not None and session.house is not None and session.identity == house_identity(s.stand_in):
                if token is None or s.stand_in_hash is None or not token_matches(token, s.stand_in_hash):
                    continue
                before, s.session, s.away_since = s.session, session, None
                self._presence(i, PresenceEvent.REPLACED, out, bot=s.stand_in)
            elif s.identity != session.identity:
                continue
            elif token is not None and not token_matches(token, s.token_hash) and not self._login_proves(session):
                continue
            elif token is None and (session.guest or s.guest):
                raise TableError(ErrorCode.BAD_TOKEN, "guests must give the seat token to resume")
            else:
                before, s.session, s.away_since = s.session, session, None
                dismissed, s.stand_in, s.stand_in_kind, s.stand_in_hash = s.stand_in, None, None, None
                if before is None or dismissed is not None:
                    self._presence(i, PresenceEvent.RETURNED, out, bot=dismissed)
                self._claim_ownership(s)
            self._update(out)
            if self.game is not None:
                out.send(session, self._state_for(i, [{"kind": "back", "seat": i}], now))
                if self.game.is_over() and self.last_game_over is not None:
                    out.send(session, self.last_game_over)  # it ended while they were away
            return i, before
        raise TableError(
            ErrorCode.BAD_TOKEN,
            "no seat at this table has that token for you"
            if token is not None
            else f"{session.name} holds no seat at this table",
        )

    def _login_proves(self, session: Session) -> bool:
        """Whether ``session``'s login proves its seat here whatever token it shows: at a
        tournament's table, for a participant that is no guest. Its ``register`` hands its seats
        back with new tokens (``seated``) that it may not have read yet, so a token that a later
        one replaced counts as none (as a registered account may resume without one)."""
        return self.tournament is not None and not session.guest

    def disconnected(self, session: Session, out: Outbox, now: float) -> None:
        """The connection of ``session`` is gone: watchers leave, players are marked away."""
        if session in self.watchers:
            self.watchers.remove(session)
        seat = self.seat_of(session)
        if seat is not None:
            s = self.seats[seat]
            assert s is not None
            s.session = None
            s.away_since = now
            s.drops += 1
            self._presence(seat, PresenceEvent.DROPPED, out, bot=s.stand_in)
        self._update(out)

    def _presence(self, seat: int, event: PresenceEvent, out: Outbox, bot: str | None = None) -> None:
        s = self.seats[seat]
        assert s is not None
        msg = Presence(table=self.id, seat=seat, name=s.name, event=event, bot=bot)
        for r in self.recipients():
            if r is not s.session:  # the others are told; the one who came knows
                out.send(r, msg)

    def chat(self, session: Session, text: str, out: Outbox) -> None:
        seat = self.seat_of(session)
        if seat is None and session not in self.watchers:
            raise TableError(ErrorCode.NOT_AT_TABLE, "join or watch the table to chat there")
        msg = ChatMessage(table=self.id, seat=seat, name=session.name, text=text)
        for r in self.recipients():
            out.send(r, msg)

    # ------------------------------------------------------------------ games

    def start(self, session: Session, out: Outbox, now: float, game_id: int) -> None:
        """Deal the next game of the series (the owner only, every seat taken)."""
        if session.identity != self.owner_id:
            raise TableError(ErrorCode.NOT_OWNER, f"only the table's owner ({self.owner}) can start")
        if self.running:
            raise TableError(ErrorCode.ALREADY_STARTED, "a game is running")
        if any(s is None for s in self.seats):
            raise TableError(ErrorCode.NOT_ENOUGH_PLAYERS, "every seat must be taken to start")
        self.game = self.series.start_game(deck=list(self.deck) if self.deck is not None else None)
        self.game_id = game_id
        self.started_at = now
        self.started_wall = None
        self.action_times = []
        for s in self.seats:
            assert s is not None
            s.bank = self.bank_seconds
        self.turn_started = now
        start: WireEvent = {
            "kind": "game_start",
            "seat": None,
            "game": game_id,
            "number": self.games_played + 1,
            "dealer": self.game.dealer,
        }
        self._broadcast([start], out, now)
        out.saves.append(Dealt(self))
        self._update(out)

    def act(self, session: Session, seq: int, text: str, out: Outbox, now: float) -> FinishedGame | None:
        """Apply the action of the seat held by ``session``. Returns the finished game, if any."""
        seat = self.seat_of(session)
        if seat is None:
            raise TableError(ErrorCode.NOT_SEATED, "you have no seat at this table")
        game = self.game
        if game is None or game.is_over():
            raise TableError(ErrorCode.NOT_STARTED, "no game is running at this table")
        s = self.seats[seat]
        assert s is not None
        if s.is_stale(seq, self.seq):
            raise TableError(ErrorCode.STALE_SEQ, f"seq {seq} is stale: the latest state for you is {self.seq}")
        try:
            action = s.action_of(text)
            events = game.apply(seat, action)
        except IllegalAction as exc:
            s.illegal += 1
            raise TableError(ErrorCode.ILLEGAL_ACTION, exc.message, reason=str(exc.code)) from None
        self._spend_clock(s, now)
        return self._after(seat, action, events, out, now)

    def _spend_clock(self, s: Seat, now: float) -> None:
        if self.bank_seconds:
            over = (now - self.turn_started) - self.action_seconds
            if over > 0:
                s.bank = max(0.0, s.bank - over)

    def _after(
        self,
        seat: int,
        action: Action,
        events: list[Event],
        out: Outbox,
        now: float,
        extra: list[WireEvent] | None = None,
    ) -> FinishedGame | None:
        game = self.game
        assert game is not None
        t = round(now - self.started_at, 3)
        self.action_times.append(t)
        st = self.seats[seat]
        out.saves.append(
            Applied(self, len(game.history) - 1, seat, action, t, extra is not None, st.bank if st is not None else 0.0)
        )
        # The engine's events in their wire form: the engine builds plain dicts (it may not
        # import protocol/); their shapes are the protocol's event types (tests/protocol check
        # the engine's output against them), hence the cast.
        dicts = cast(list[WireEvent], [event_to_dict(e) for e in events])
        if extra:
            dicts = extra + dicts
        # A new turn starts when the seat to act changed (in setup everyone's clock runs on).
        if game.phase != SETUP:
            self.turn_started = now
        self._broadcast(dicts, out, now, acted=seat)
        if game.is_over():
            return self._finish(out, now)
        return None

    def _finish(self, out: Outbox, now: float) -> FinishedGame:
        """The game ended: close it in the series (tally, next dealer) and tell everyone."""
        game = self.game
        assert game is not None
        outcome = game.outcome()
        assert outcome is not None
        self.games_played += 1
        players = [s.name if s else "?" for s in self.seats]
        record = ReplayRecord.of(game).to_dict()
        record["players"] = players
        record["times"] = list(self.action_times)
        self.series.finish_game()
        result = {**outcome.to_dict(), "players": players}
        tally = {
            **self.series.tally.to_dict(),
            "players": players,
            "timeouts": [s.timeouts if s else 0 for s in self.seats],
        }
        msg = self.last_game_over = GameOver(
            table=self.id,
            game=self.game_id,
            number=self.games_played,
            result=cast(GameResult, result),
            tally=cast(Tally, tally),
        )
        for r in self.recipients():
            out.send(r, msg)
        self._update(out)
        return FinishedGame(
            self.game_id,
            self.name,
            self.rules.preset,
            players,
            record,
            outcome.to_dict(),
            self.started_at,
            now,
            self.started_wall,
        )

    # ------------------------------------------------------------------ clocks

    def deadline(self, seat: int) -> float | None:
        """Monotonic time by which ``seat`` must act, or None if it need not: the turn's
        ``action_seconds`` and then the seat's bank (the one deadline rule; the broadcast
        uses it as ``turn_ends + bank``)."""
        game = self.game
        if game is None or game.is_over() or seat not in game.to_act():
            return None
        s = self.seats[seat]
        assert s is not None
        return self.turn_started + self.action_seconds + s.bank

    def tick(self, now: float, grace: float, out: Outbox) -> FinishedGame | None:
        """Apply the default action for every seat whose time is up (or who is gone)."""
        game = self.game
        if game is None or game.is_over():
            return None
        for seat in list(game.to_act()):
            s = self.seats[seat]
            assert s is not None
            dl = self.deadline(seat)
            gone = s.session is None and s.away_since is not None and now - s.away_since > grace
            if dl is not None and (now >= dl or gone):
                s.timeouts += 1
                s.bank = 0.0
                setup = game.phase == SETUP
                while True:
                    action = default_action(game, seat)
                    events = game.apply(seat, action)
                    extra: list[WireEvent] = [
                        {"kind": "timeout", "seat": seat, "action": format_action(action), "count": s.timeouts}
                    ]
                    finished = self._after(seat, action, events, out, now, extra)
                    if finished is not None or game.is_over():
                        return finished
                    # In setup the clock finishes the seat's whole setup (its swaps, then ready) as
                    # one timeout: the setup time ran out once, not once per swap.
                    if not (setup and game.phase == SETUP and seat in game.to_act()):
                        break
                break  # one seat's default play per tick per table keeps ticks short
        return None

    # ------------------------------------------------------------------ broadcasting

    def _state_for(self, seat: int | None, events: list[WireEvent], now: float) -> State:
        """A full state for one recipient (``seat``, or None: a watcher)."""
        game = self.game
        assert game is not None
        return self.states.snapshot(
            game,
            self.seats,
            seat,
            seq=self.seq,
            game_id=self.game_id,
            events=events,
            turn_ends=self.turn_started + self.action_seconds,
            now=now,
        )

    def _broadcast(self, events: list[WireEvent], out: Outbox, now: float, acted: int | None = None) -> None:
        """Send every seat its own state and the watchers theirs (see :mod:`server.tables.states`)."""
        game = self.game
        assert game is not None
        self.seq += 1
        self.states.broadcast(
            out.items,
            game,
            self.seats,
            self.watchers,
            seq=self.seq,
            game_id=self.game_id,
            events=events,
            turn_ends=self.turn_started + self.action_seconds,
            now=now,
            acted=acted,
        )

    def changed(self, out: Outbox) -> None:
        """Everyone at the table gets its summary and the journal its snapshot: for a change made
        from outside (:mod:`server.tables.seating`)."""
        self._update(out)

    def _update(self, out: Outbox, *, stored: bool = True) -> None:
        out.saves.extend([Changed(self)] if stored else ())  # (stored: what the snapshot keeps changed)
        out.lobby = True
        msg = TableUpdate(table=self.id, summary=self.summary())
        for r in self.recipients():
            out.send(r, msg)
