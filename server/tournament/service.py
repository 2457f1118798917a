"""Tournaments on a running server: the requests, the tables the director asks for, and the
pushed messages. The server hands tournament requests and finished games here, and the
service asks the server for what it needs through :class:`TournamentHost` (it never sees the
server itself).

A tournament game is an ordinary table (anyone may ``watch`` it) that the server creates with
the deal's seed, fills with the participants' connections (``seated`` tells each one its
table, seat and token) and starts; when its game ends the table closes, the organiser gets a
``tournament_game``, and the next game starts. Participants that are not connected are seated
away: the clock plays for them until they ``register`` again, which hands back their seats.
Bundled bots named in ``create_tournament.bots`` are run by the server's bot host and
register themselves like any participant; they start at their own pace (the host runs them in
a process of its own), so a ``start_tournament`` that comes first waits for them (at most
:data:`HOUSE_REGISTER_SECONDS`) instead of being refused or leaving them out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol

from protocol.errors import ErrorCode
from protocol.messages import (
    CancelTournament,
    CreateTournament,
    GetTournament,
    ListTournaments,
    Ok,
    Register,
    Seated,
    StartTournament,
    TournamentCreated,
    TournamentGame,
    TournamentInfo,
    TournamentOver,
    Tournaments,
)
from protocol.names import name_key
from server.engine import RulesError, check_seats, make_rules
from server.login.identity import account_identity, house_identity
from server.shell.reply import Handlers, Reply
from server.tables.coordination import FinishedGame, Session, TableError
from server.tables.quotas import Quotas
from server.tables.table import Outbox, Table

from .director import FINISHED, REGISTERING, RUNNING, Finished, Settings, Tournament, TournamentError
from .payloads import game_result, tournament_info
from .ranges import merge
from .schedule import SCHEDULES, GameSpec

log = logging.getLogger(__name__)


class TournamentHost(Protocol):
    """What the tournament service needs of the server (:class:`server.shell.app.App` is one)."""

    @property
    def default_action_seconds(self) -> float:
        """The clock per action of a tournament that does not set one."""
        ...

    def bot_names(self) -> Sequence[str]:
        """The bundled bots the server runs."""
        ...

    def enter_bot(self, kind: str, name: str, *, tournament: int) -> None:
        """Start bundled bot ``kind`` as participant ``name`` of ``tournament``."""
        ...

    def add_table(self, make: Callable[[int], Table]) -> Table:
        """Register the table ``make(table id)`` builds under a new table id."""
        ...

    def new_game_id(self) -> int: ...

    def table(self, table_id: int) -> Table | None:
        """The live table ``table_id``, if there is one."""
        ...

    def drop_table(self, table_id: int) -> None: ...

    def flush(self, out: Outbox) -> None:
        """Journal what ``out`` holds and deliver its messages."""
        ...

    def tournament_changed(self, tournament: int) -> None:
        """Write the tournament's snapshot in the current batch."""
        ...

    def tournament_game(self, tournament: int, fin: Finished) -> None:
        """Keep a finished game of the tournament (in the current batch)."""
        ...

    def logged_in(self, identity: str) -> list[Session]:
        """The connections logged in as ``identity`` (:mod:`server.login.identity`)."""
        ...

    @property
    def quotas(self) -> Quotas:
        """What one player and one address may hold, and a tournament's bounds."""
        ...

    def name_holder(self, key: str) -> str | None:
        """The identity that holds the name of key ``key`` (:func:`protocol.names.name_key`)."""
        ...


class _Director:
    """The owner of tournament tables (it starts their games)."""

    bot = False
    guest = False
    house: str | None = None
    turn_states = False
    address = ""

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = name  # (the tables' owner id: see _game_table)


HOUSE_REGISTER_SECONDS = 30.0
"""How long ``start_tournament`` waits for the tournament's own bundled bots to register."""


class TournamentService:
    """Every tournament of one server."""

    def __init__(self, host: TournamentHost) -> None:
        self.host = host
        self.tournaments: dict[int, Tournament] = {}
        self.next_id = 1
        # (tournament, participant name) -> the connection that plays for it now.
        self.sessions: dict[tuple[int, str], Session] = {}
        # table id -> tournament id, for the tables of running games.
        self.table_owner: dict[int, int] = {}
        # tournament id -> starts waiting for a registration (see _start_when_bots_are_in); a
        # tournament is here only while a start waits for it.
        self._registering: dict[int, list[asyncio.Future[None]]] = {}
        # unfinished tournament id -> the address it was created from (the quota per address;
        # not kept across a restart).
        self.created_from: dict[int, str] = {}
        # running tournament id -> since when (monotonic) its organiser has not been connected.
        self._gone: dict[int, float] = {}

    def register_handlers(self, handlers: Handlers) -> None:
        handlers.add(CreateTournament, self.create, writes=True)
        handlers.add(Register, self.register, writes=True)
        handlers.add(StartTournament, self.start, writes=True)
        handlers.add(CancelTournament, self.cancel, writes=True)
        handlers.add(GetTournament, self.info, writes=False, viewers=True)
        handlers.add(ListTournaments, self.list, writes=False, viewers=True)

    # ------------------------------------------------------------------ requests

    def _get(self, tid: int) -> Tournament:
        t = self.tournaments.get(tid)
        if t is None:
            raise TableError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tid}")
        return t

    def create(self, s: Session, msg: CreateTournament) -> Reply:
        if msg.schedule not in SCHEDULES:
            raise TableError(ErrorCode.BAD_TOURNAMENT, f"schedule must be one of {', '.join(SCHEDULES)}")
        try:
            rules = make_rules(msg.preset, dict(msg.options or {}))
            check_seats(rules, msg.seats)
        except RulesError as exc:
            raise TableError(ErrorCode.BAD_RULES, exc.message) from None
        bots = list(msg.bots or ())
        known = list(self.host.bot_names())
        unknown = sorted(set(bots) - set(known))
        if unknown:
            raise TableError(
                ErrorCode.UNKNOWN_BOT,
                f"no bot {unknown[0]!r}; this server runs: " + (", ".join(known) if known else "no bots"),
            )
        bot_names = _bot_names(bots, self._name_taken(msg.participants or ()))
        expected = None
        if msg.participants is not None:
            expected = tuple(msg.participants) + tuple(bot_names)
            if len(set(expected)) != len(expected):
                raise TableError(ErrorCode.BAD_TOURNAMENT, "participant names must be distinct")
        try:
            done = merge(msg.done or (), msg.done_ranges or ())
        except ValueError as exc:
            raise TableError(ErrorCode.BAD_TOURNAMENT, f"done_ranges: {exc}") from None
        # The server's bounds and quotas last: a request that is wrong is refused for that.
        quotas = self.host.quotas
        quotas.check_tournament(concurrency=msg.concurrency, games=msg.games, bots=len(bots))
        quotas.check_tournaments(
            s.identity,
            organised=sum(t.status != FINISHED and t.organiser_id == s.identity for t in self.tournaments.values()),
            from_address=sum(a == s.address for a in self.created_from.values()),
        )
        settings = Settings(
            name=msg.name,
            preset=msg.preset,
            options=rules.overrides(),
            seats=msg.seats,
            games=msg.games,
            schedule=msg.schedule,
            hero=msg.hero,
            permute=msg.permute,
            master_seed=msg.master_seed if msg.master_seed is not None else secrets.randbits(63),
            action_seconds=msg.action_seconds or self.host.default_action_seconds,
            bank_seconds=msg.bank_seconds or 0.0,
            concurrency=msg.concurrency,
            participants=expected,
            bots=tuple(bot_names),
            done=done,
        )
        t = Tournament(self.next_id, s.name, settings, organiser_id=s.identity)
        self.tournaments[t.id] = t
        self.created_from[t.id] = s.address
        self.next_id += 1
        self._changed(t)
        log.info(
            "%s created tournament %d %r (%d games, %d bundled bots)", s.name, t.id, msg.name, msg.games, len(bots)
        )
        starts = [
            partial(self.host.enter_bot, bot, name, tournament=t.id) for bot, name in zip(bots, bot_names, strict=True)
        ]
        return Reply(TournamentCreated(id=msg.id, tournament=t.id), after=starts)

    def _name_taken(self, participants: Sequence[str]) -> Callable[[str], bool]:
        """Whether a new bundled bot participant may not take a name: somebody holds it (a
        player, or the bot of another tournament now playing), a bot of an unfinished tournament
        will log in with it, or it is one of the tournament's invited participants."""
        reserved = {name_key(p) for p in participants}
        for t in self.tournaments.values():
            if t.status != FINISHED:
                reserved.update(name_key(b) for b in t.settings.bots)
        return lambda name: name_key(name) in reserved or self.host.name_holder(name_key(name)) is not None

    def _changed(self, t: Tournament) -> None:
        self.host.tournament_changed(t.id)

    def register(self, s: Session, msg: Register) -> Reply:
        t = self._get(msg.tournament)
        house = s.name in t.settings.bots and s.house is not None
        if s.guest and not house:
            raise TableError(ErrorCode.NOT_INVITED, "guests cannot enter tournaments: log in with a bot account")
        try:
            t.register(s.name, bot=s.bot, house=house)
        except TournamentError as exc:
            raise TableError(ErrorCode(exc.code), exc.message) from None
        self.sessions[(t.id, s.name)] = s
        self._changed(t)
        for waiting in self._registering.pop(t.id, []):
            if not waiting.done():
                waiting.set_result(None)
        # Back after a drop: take over this participant's seats in running games (after the ok).
        out = Outbox()
        seated: list[tuple[Session, Seated]] = []
        now = time.monotonic()
        for table_id, spec in t.running.items():
            table = self.host.table(table_id)
            if table is None:
                continue
            for seat, name in enumerate(spec.seats):
                st = table.seats[seat]
                if name == s.name and st is not None and st.session is not s:
                    token = table.rebind(seat, s, out, now)
                    seated.append(
                        (s, Seated(tournament=t.id, game=spec.number, table=table_id, seat=seat, token=token))
                    )
        out.items[0:0] = seated  # the participant learns its seats before their states
        return Reply(Ok(id=msg.id), out)

    def start(self, s: Session, msg: StartTournament) -> Reply:
        t = self._get(msg.tournament)
        if s.identity != t.organiser_id:
            raise TableError(ErrorCode.NOT_OWNER, f"only the organiser ({t.organiser}) can start it")
        if t.status == REGISTERING and self._bots_not_in(t):
            return Reply(later=self._start_when_bots_are_in(t, msg))
        return self._start(t, msg)

    @staticmethod
    def _bots_not_in(t: Tournament) -> list[str]:
        """The tournament's own bundled bots that have not registered (yet)."""
        return [name for name in t.settings.bots if name not in t.participants]

    async def _start_when_bots_are_in(self, t: Tournament, msg: StartTournament) -> Ok:
        """Wait until the tournament's bundled bots have registered, then start it as
        :meth:`_start` would have at once; refused (NOT_ENOUGH_PLAYERS, naming them) if they
        have not within :data:`HOUSE_REGISTER_SECONDS`, rather than scheduled without them.
        However it ends (started, refused, cancelled), it leaves nothing in ``_registering``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HOUSE_REGISTER_SECONDS
        while self._bots_not_in(t) and (left := deadline - loop.time()) > 0:
            registered: asyncio.Future[None] = loop.create_future()
            self._registering.setdefault(t.id, []).append(registered)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(registered, left)
            finally:
                self._stop_waiting(t.id, registered)
        if missing := self._bots_not_in(t):
            raise TableError(
                ErrorCode.NOT_ENOUGH_PLAYERS,
                f"the tournament's bundled bots did not register in {HOUSE_REGISTER_SECONDS:g} s: "
                + ", ".join(missing),
            )
        reply = self._start(t, msg)

        def follow_up() -> None:  # (after the answer, which goes out as this returns)
            for step in reply.after:
                try:
                    step()
                except Exception:
                    log.exception("starting the games of tournament %d failed", t.id)

        loop.call_soon(follow_up)
        assert isinstance(reply.answer, Ok)
        return reply.answer

    def _stop_waiting(self, tid: int, registered: asyncio.Future[None]) -> None:
        """Take ``registered`` out of ``_registering``, and the tournament once none is left.
        A registration that resolved it has taken the whole list already; another start may
        have put a new list there since, without it."""
        waiting = self._registering.get(tid)
        if waiting is not None and registered in waiting:
            waiting.remove(registered)
            if not waiting:
                del self._registering[tid]

    def _start(self, t: Tournament, msg: StartTournament) -> Reply:
        try:
            t.start()
        except TournamentError as exc:
            raise TableError(ErrorCode(exc.code), exc.message) from None
        self._changed(t)
        log.info("tournament %d started: %d games to play", t.id, len(t.pending))

        def play() -> None:
            self._fill()
            if t.status == FINISHED:
                self._over(t)

        return Reply(Ok(id=msg.id), after=[play])

    def cancel(self, s: Session, msg: CancelTournament) -> Reply:
        """End a tournament now (its organiser, or an operator): its running tables close, the
        games played so far stand, and ``tournament_over`` tells everyone. A tournament that
        has finished already is left as it is (answered ``ok``: nothing to do)."""
        t = self._get(msg.tournament)
        if s.identity != t.organiser_id and not self.host.quotas.operator(s.identity):
            raise TableError(ErrorCode.NOT_OWNER, f"only the organiser ({t.organiser}) can cancel it")
        if t.status == FINISHED:
            return Reply(Ok(id=msg.id))
        for table_id in t.cancel():
            self.table_owner.pop(table_id, None)
            self.host.drop_table(table_id)
        self._changed(t)
        for waiting in self._registering.pop(t.id, []):
            if not waiting.done():
                waiting.set_result(None)  # (a start waiting for its bots is refused: it has finished)
        log.info("%s cancelled tournament %d after %d games", s.name, t.id, t.games_finished)
        return Reply(Ok(id=msg.id), self._over_out(t), after=[self._fill])

    def info(self, s: Session, msg: GetTournament) -> Reply:
        return Reply(TournamentInfo(id=msg.id, info=tournament_info(self._get(msg.tournament))))

    def list(self, s: Session, msg: ListTournaments) -> Reply:
        return Reply(Tournaments(id=msg.id, tournaments=[tournament_info(t) for t in self.tournaments.values()]))

    # ------------------------------------------------------------------ games

    def _fill(self) -> None:
        """Start every game that may start now: each tournament up to its concurrency (none
        while paused), and the tables with bundled bots up to ``bot_tables`` server-wide, shared
        fairly: each next game goes to the tournament with the fewest tables running."""
        ready = [t for t in self.tournaments.values() if t.can_start()]
        most = self.host.quotas.bot_tables
        bot_tables = sum(len(t.running) for t in self.tournaments.values() if t.settings.bots)
        while ready:
            t = min(ready, key=lambda t: (len(t.running), t.id))
            if t.settings.bots and most is not None and bot_tables >= most:
                ready.remove(t)  # (those without bundled bots may still start)
                continue
            self._start_game(t, t.pending.popleft())
            bot_tables += bool(t.settings.bots)
            if not t.can_start():
                ready.remove(t)

    def _start_game(self, t: Tournament, spec: GameSpec) -> None:
        """Open the table of game ``spec`` of ``t``, seat its participants and deal."""
        host = self.host
        table = host.add_table(partial(_game_table, t, spec))
        table.tournament = (t.id, spec.number)
        self.table_owner[table.id] = t.id
        t.game_started(table.id, spec)
        self._changed(t)
        out = Outbox()
        now = time.monotonic()
        for seat, name in enumerate(spec.seats):
            session = self.sessions.get((t.id, name))
            p = t.participants[name]
            identity = house_identity(name) if p.house else account_identity(name)
            token = table.seat_for(seat, name, identity, p.bot, p.house, session, out, now)
            if session is not None:
                out.send(session, Seated(tournament=t.id, game=spec.number, table=table.id, seat=seat, token=token))
        table.start(_Director(table.owner), out, now, host.new_game_id())
        host.flush(out)

    def game_finished(self, table: Table, g: FinishedGame) -> None:
        """A game ended at ``table``: if it is a tournament's, record it and go on."""
        tid = self.table_owner.pop(table.id, None)
        if tid is None:
            return
        t = self.tournaments[tid]
        seats = [st for st in table.seats if st is not None]
        fin = t.game_finished(
            table.id,
            g.result["places"],
            capped=bool(g.result.get("capped")),
            timeouts=[st.timeouts for st in seats],
            illegal=[st.illegal for st in seats],
            disconnects=[st.drops for st in seats],
            actions=len(g.record.get("actions", [])),
            server_game=g.game_id,
        )
        self.host.drop_table(table.id)
        self.host.tournament_game(t.id, fin)
        self._changed(t)
        msg = TournamentGame(tournament=t.id, result=game_result(fin))
        out = Outbox()
        for s in self.host.logged_in(t.organiser_id):
            out.send(s, msg)
        self.host.flush(out)
        self._fill()
        if t.status == FINISHED:
            self._over(t)

    def _over(self, t: Tournament) -> None:
        log.info("tournament %d finished", t.id)
        self.host.flush(self._over_out(t))

    def _over_out(self, t: Tournament) -> Outbox:
        """``tournament_over`` for the organiser and every participant connected."""
        self.created_from.pop(t.id, None)
        self._gone.pop(t.id, None)
        msg = TournamentOver(tournament=t.id, info=tournament_info(t))
        sent = set()
        out = Outbox()
        for s in [*self.host.logged_in(t.organiser_id), *(s for (tid, _), s in self.sessions.items() if tid == t.id)]:
            if id(s) not in sent:
                sent.add(id(s))
                out.send(s, msg)
        return out

    # ------------------------------------------------------------------ after a restart

    def restored(self, t: Tournament) -> None:
        """A tournament read back from the database (its tables follow)."""
        self.tournaments[t.id] = t

    def table_restored(self, table: Table) -> None:
        """A restored table that plays a tournament's game."""
        assert table.tournament is not None
        tid, number = table.tournament
        t = self.tournaments.get(tid)
        if t is None or t.running.get(table.id) is None or t.running[table.id].number != number:
            log.error("table %d plays game %d of tournament %d, which does not expect it", table.id, number, tid)
            return
        self.table_owner[table.id] = tid

    def restart_house_bots(self) -> None:
        """Start the bundled bots of unfinished tournaments again: they register, which hands
        their seats back; games that were due to start meanwhile start now."""
        for t in self.tournaments.values():
            if t.status == "finished":
                continue
            for name, p in t.participants.items():
                if p.house:
                    self.host.enter_bot(_bot_kind(name), name, tournament=t.id)
            # Running games whose table could not be restored are played again from the start.
            for table_id in [tid for tid in t.running if self.host.table(tid) is None]:
                log.warning(
                    "tournament %d: the table of game %d was lost; it is played again", t.id, t.running[table_id].number
                )
                t.pending.appendleft(t.running.pop(table_id))
        self._fill()

    # ------------------------------------------------------------------ the organiser's presence

    def sweep(self, now: float, grace: float) -> None:
        """Pause each running tournament whose organiser has not been connected for ``grace``
        seconds (no new game starts; those running finish), and let a paused one go on once its
        organiser is connected again (called twice a second, at monotonic time ``now``)."""
        resumed = False
        for t in self.tournaments.values():
            if t.status != RUNNING:
                continue
            if self.host.logged_in(t.organiser_id):
                self._gone.pop(t.id, None)
                if t.paused:
                    t.paused = False
                    resumed = True
                    self._changed(t)
                    log.info("tournament %d goes on: its organiser %s is back", t.id, t.organiser)
            else:
                since = self._gone.setdefault(t.id, now)
                if not t.paused and now - since >= grace:
                    t.paused = True
                    self._changed(t)
                    log.info("tournament %d paused: its organiser %s has gone", t.id, t.organiser)
        if resumed:
            self._fill()

    def disconnected(self, s: Session) -> None:
        for key, held in list(self.sessions.items()):
            if held is s:
                del self.sessions[key]
                self.tournaments[key[0]].disconnected(key[1])


def _game_table(t: Tournament, spec: GameSpec, table_id: int) -> Table:
    """The table that plays game ``spec`` of ``t`` (its deal's seed), as ``table_id``."""
    s = t.settings
    return Table(
        table_id,
        f"{s.name} #{spec.number}",
        f"tournament-{t.id}",
        make_rules(s.preset, dict(s.options)),
        s.seats,
        action_seconds=s.action_seconds,
        bank_seconds=s.bank_seconds,
        seed=spec.seed,
    )


def _bot_kind(name: str) -> str:
    """The bundled bot a house participant runs: its name without the -2, -3 ... of repeats."""
    base, _, number = name.rpartition("-")
    return base if base and number.isdigit() else name


def _bot_names(bots: list[str], taken: Callable[[str], bool]) -> list[str]:
    """Participant names for bundled bots: the bot's name, then name-2, name-3 ... for repeats,
    skipping every name ``taken`` (two tournaments of greedy bots at once: greedy, then greedy-2
    for the second, whose bots could not log in under names the first one's hold)."""
    seen: Counter[str] = Counter()
    out = []
    for b in bots:
        while True:
            seen[b] += 1
            name = b if seen[b] == 1 else f"{b}-{seen[b]}"
            if not taken(name):
                break
        out.append(name)
    return out
