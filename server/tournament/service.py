"""Tournaments on a running server: the requests, the tables the director asks for, and the
pushed messages. :class:`server.app.App` hands tournament requests and finished games here.

A tournament game is an ordinary table (anyone may ``watch`` it) that the server creates with
the deal's seed, fills with the participants' connections (``seated`` tells each one its
table, seat and token) and starts; when its game ends the table closes, the organiser gets a
``tournament_game``, and the next game starts. Participants that are not connected are seated
away: the clock plays for them until they ``register`` again, which hands back their seats.
Bundled bots named in ``create_tournament.bots`` are run by the server's bot host and
register themselves like any participant.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import Counter
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode
from protocol.messages import (
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
from server.engine import RulesError, check_seats, make_rules
from server.table import FinishedGame, Outbox, Table, TableError

from .director import Settings, Tournament, TournamentError
from .schedule import SCHEDULES

if TYPE_CHECKING:
    from server.app import App, ClientSession

log = logging.getLogger(__name__)


class _Director:
    """The owner of tournament tables (it starts their games)."""

    bot = False
    guest = False
    house = None

    def __init__(self, name: str) -> None:
        self.name = name


class TournamentService:
    """Every tournament of one server."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.tournaments: dict[int, Tournament] = {}
        self.next_id = 1
        # (tournament, participant name) -> the connection that plays for it now.
        self.sessions: dict[tuple[int, str], ClientSession] = {}
        # table id -> tournament id, for the tables of running games.
        self.table_owner: dict[int, int] = {}

    # ------------------------------------------------------------------ requests

    def _get(self, tid: int) -> Tournament:
        t = self.tournaments.get(tid)
        if t is None:
            raise TableError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tid}")
        return t

    def create(self, s: ClientSession, msg: CreateTournament) -> None:
        if msg.schedule not in SCHEDULES:
            raise TableError(ErrorCode.BAD_MESSAGE, f"schedule must be one of {', '.join(SCHEDULES)}")
        try:
            rules = make_rules(msg.preset, dict(msg.options or {}))
            check_seats(rules, msg.seats)
        except RulesError as exc:
            raise TableError(ErrorCode.BAD_RULES, exc.message) from None
        bots = list(msg.bots or ())
        known = list(self.app.bots.names()) if self.app.bots is not None else []
        unknown = sorted(set(bots) - set(known))
        if unknown:
            raise TableError(
                ErrorCode.UNKNOWN_BOT,
                f"no bot {unknown[0]!r}; this server runs: " + (", ".join(known) if known else "no bots"),
            )
        bot_names = _bot_names(bots)
        expected = None
        if msg.participants is not None:
            expected = tuple(msg.participants) + tuple(bot_names)
            if len(set(expected)) != len(expected):
                raise TableError(ErrorCode.BAD_MESSAGE, "participant names must be distinct")
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
            action_seconds=msg.action_seconds or self.app.config.action_seconds,
            bank_seconds=msg.bank_seconds or 0.0,
            concurrency=msg.concurrency,
            participants=expected,
            bots=tuple(bot_names),
            done=tuple(msg.done or ()),
        )
        t = Tournament(self.next_id, s.name, settings)
        self.tournaments[t.id] = t
        self.next_id += 1
        self._changed(t)
        log.info(
            "%s created tournament %d %r (%d games, %d bundled bots)", s.name, t.id, msg.name, msg.games, len(bots)
        )
        s.send(TournamentCreated(id=msg.id, tournament=t.id))
        for bot, name in zip(bots, bot_names, strict=True):
            self._start_house_bot(t, bot, name)

    def _changed(self, t: Tournament) -> None:
        self.app.durable.tournament_changed(t.id)  # type: ignore[union-attr]

    def _start_house_bot(self, t: Tournament, bot: str, name: str) -> None:
        app = self.app
        assert app.bots is not None
        password = secrets.token_urlsafe(24)
        app.house_logins[name] = password
        app.house_kinds[name] = bot
        bots = app.bots

        async def run() -> None:
            try:
                await bots.enter(bot, host=app.local_host, port=app.port, tournament=t.id, name=name, password=password)
            except Exception as exc:
                log.warning("bundled bot %s could not enter tournament %d: %s", name, t.id, exc)
            finally:
                app.house_logins.pop(name, None)  # used or failed: never good again

        app._spawn(run())

    def register(self, s: ClientSession, msg: Register) -> None:
        t = self._get(msg.tournament)
        house = s.name in t.settings.bots and s.house
        if s.guest and not house:
            raise TableError(ErrorCode.NOT_INVITED, "guests cannot enter tournaments: log in with a bot account")
        try:
            t.register(s.name, bot=s.bot, house=house)
        except TournamentError as exc:
            raise TableError(ErrorCode(exc.code), exc.message) from None
        self.sessions[(t.id, s.name)] = s
        self._changed(t)
        s.send(Ok(id=msg.id))
        # Back after a drop: take over this participant's seats in running games.
        out = Outbox()
        now = time.monotonic()
        for table_id, spec in t.running.items():
            table = self.app.tables.get(table_id)
            if table is None:
                continue
            for seat, name in enumerate(spec.seats):
                st = table.seats[seat]
                if name == s.name and st is not None and st.session is not s:
                    token = table.rebind(seat, s, out, now)
                    s.send(Seated(tournament=t.id, game=spec.number, table=table_id, seat=seat, token=token))
        self.app.flush(out)

    def start(self, s: ClientSession, msg: StartTournament) -> None:
        t = self._get(msg.tournament)
        if s.name != t.organiser:
            raise TableError(ErrorCode.NOT_OWNER, f"only the organiser ({t.organiser}) can start it")
        try:
            t.start()
        except TournamentError as exc:
            raise TableError(ErrorCode(exc.code), exc.message) from None
        self._changed(t)
        s.send(Ok(id=msg.id))
        log.info("tournament %d started: %d games to play", t.id, len(t.pending))
        self._fill(t)
        if t.status == "finished":
            self._over(t)

    def info(self, s: ClientSession, msg: GetTournament) -> None:
        s.send(TournamentInfo(id=msg.id, info=self._get(msg.tournament).info()))

    def list(self, s: ClientSession, msg: ListTournaments) -> None:
        s.send(Tournaments(id=msg.id, tournaments=[t.info() for t in self.tournaments.values()]))

    # ------------------------------------------------------------------ games

    def _fill(self, t: Tournament) -> None:
        """Start as many of the next games as the tournament's concurrency allows."""
        app = self.app
        for spec in t.next_games():
            s = t.settings
            table = Table(
                app.next_table_id,
                f"{s.name} #{spec.number}",
                f"tournament-{t.id}",
                make_rules(s.preset, dict(s.options)),
                s.seats,
                action_seconds=s.action_seconds,
                bank_seconds=s.bank_seconds,
                seed=spec.seed,
            )
            app.next_table_id += 1
            app.tables[table.id] = table
            table.tournament = (t.id, spec.number)
            self.table_owner[table.id] = t.id
            t.game_started(table.id, spec)
            self._changed(t)
            out = Outbox()
            now = time.monotonic()
            for seat, name in enumerate(spec.seats):
                session = self.sessions.get((t.id, name))
                p = t.participants[name]
                token = table.seat_for(seat, name, p.bot, p.house, session, out, now)
                if session is not None:
                    out.send(session, Seated(tournament=t.id, game=spec.number, table=table.id, seat=seat, token=token))
            table.start(_Director(table.owner), out, now, app.next_game_id)  # type: ignore[arg-type]
            app.next_game_id += 1
            app.flush(out)

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
        self.app.drop_table(table.id)
        self._changed(t)
        msg = TournamentGame(tournament=t.id, result=fin.to_dict())
        for s in self._organiser_sessions(t):
            s.send(msg)
        self._fill(t)
        if t.status == "finished":
            self._over(t)

    def _over(self, t: Tournament) -> None:
        log.info("tournament %d finished", t.id)
        msg = TournamentOver(tournament=t.id, info=t.info())
        sent = set()
        for s in [*self._organiser_sessions(t), *(s for (tid, _), s in self.sessions.items() if tid == t.id)]:
            if id(s) not in sent:
                sent.add(id(s))
                s.send(msg)

    def _organiser_sessions(self, t: Tournament) -> list[ClientSession]:
        return [s for s in self.app.sessions if s.logged_in and s.name == t.organiser]

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
                    self._start_house_bot(t, _bot_kind(name), name)
            # Running games whose table could not be restored are played again from the start.
            for table_id in [tid for tid in t.running if tid not in self.app.tables]:
                log.warning(
                    "tournament %d: the table of game %d was lost; it is played again", t.id, t.running[table_id].number
                )
                t.pending.appendleft(t.running.pop(table_id))
            if t.status == "running":
                self._fill(t)

    def disconnected(self, s: ClientSession) -> None:
        for key, held in list(self.sessions.items()):
            if held is s:
                del self.sessions[key]
                self.tournaments[key[0]].disconnected(key[1])


def _bot_kind(name: str) -> str:
    """The bundled bot a house participant runs: its name without the -2, -3 ... of repeats."""
    base, _, number = name.rpartition("-")
    return base if base and number.isdigit() else name


def _bot_names(bots: list[str]) -> list[str]:
    """Participant names for bundled bots: the bot's name, then name-2, name-3 ... for repeats."""
    seen: Counter[str] = Counter()
    out = []
    for b in bots:
        seen[b] += 1
        out.append(b if seen[b] == 1 else f"{b}-{seen[b]}")
    return out
