"""The tournament director: a pure coordinator that decides which games to play next.

It knows the schedule (:mod:`server.tournament.schedule`), which participants are connected,
which games run at which table and which are finished; the asyncio shell (:mod:`server.shell.app`)
creates the tables it asks for, seats the participants and reports finished games back. No
await, no sockets, no clock: every decision is a method call, so it is tested directly.

Lifecycle: REGISTERING (participants register; bundled bots are registered by the server)
-> RUNNING (games are played, ``concurrency`` tables at once, in schedule order) -> FINISHED,
after the last game or when cancelled (:meth:`Tournament.cancel`: the games running then are
not counted). A running tournament may be ``paused`` (its organiser has gone): no game starts
until it is not.
A participant that is not connected when its game starts still gets its seat, marked away:
the table's clock plays for it (counted as timeouts), and it takes its seats back when it
registers again. Games listed in ``done`` (from an interrupted run's results) are skipped.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from .ranges import Range, contains
from .schedule import ROUND_ROBIN, GameSpec, schedule
from .standings import RatedGame, Standings

log = logging.getLogger(__name__)

#: Where a tournament stands (the wire's ``info.status``).
Status: TypeAlias = Literal["registering", "running", "finished"]
REGISTERING: Final = "registering"
RUNNING: Final = "running"
FINISHED: Final = "finished"


class TournamentError(Exception):
    """A refused tournament request; ``code`` is a wire error code name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Settings:
    """What ``create_tournament`` fixes."""

    name: str
    preset: str
    options: dict[str, Any]
    seats: int
    games: int
    schedule: str = ROUND_ROBIN
    hero: str | None = None
    permute: bool = False
    master_seed: int = 0
    action_seconds: float = 10.0
    bank_seconds: float = 0.0
    concurrency: int = 1
    participants: tuple[str, ...] | None = None
    """Names expected; None: anyone (a bot account) may register until the start."""
    bots: tuple[str, ...] = ()
    """Bundled bots the server runs as participants."""
    done: tuple[Range, ...] = ()
    """Game numbers already played (in an interrupted run), as merged ranges: skipped."""


@dataclass
class Participant:
    name: str
    bot: bool
    house: bool = False
    connected: bool = False


@dataclass
class Finished:
    """A finished game with what the results file needs."""

    spec: GameSpec
    result: RatedGame
    actions: int
    server_game: int

    def to_dict(self) -> dict[str, Any]:
        """The form the database keeps (:mod:`server.storage.persist`); the wire's is
        :func:`server.tournament.payloads.game_result`."""
        r = self.result
        return {
            "number": r.number,
            "deal": r.deal,
            "seed": self.spec.seed,
            "rotation": self.spec.rotation,
            "seats": list(r.seats),
            "places": list(r.places),
            "capped": r.capped,
            "timeouts": list(r.timeouts),
            "illegal": list(r.illegal),
            "disconnects": list(r.disconnects),
            "actions": self.actions,
            "server_game": self.server_game,
        }


@dataclass
class Tournament:
    """One tournament. The shell calls :meth:`register`, :meth:`start`, :meth:`next_games`,
    :meth:`game_started` and :meth:`game_finished`; :func:`server.tournament.payloads.tournament_info`
    is what anyone may see of it."""

    id: int
    organiser: str
    """The organiser's name, as shown."""
    settings: Settings
    organiser_id: str = ""
    """The organiser's identity (the server's :mod:`server.login.identity`): who may start it."""
    participants: dict[str, Participant] = field(default_factory=dict)
    status: Status = REGISTERING
    pending: deque[GameSpec] = field(default_factory=deque)
    running: dict[int, GameSpec] = field(default_factory=dict)
    games_finished: int = 0
    """Games played to their end in this run (those of ``settings.done`` not counted)."""
    results: Standings | None = None
    """The standings of the games finished (from the start on): kept as running figures, so
    that a long tournament holds no list of its games (they are in the database)."""
    total: int = 0
    paused: bool = False
    """No new game starts (the games running finish): its organiser has gone."""
    cancelled: bool = False
    """Finished by :meth:`cancel` before its last game."""

    def register(self, name: str, *, bot: bool, house: bool = False) -> None:
        """Add ``name`` (or mark it connected again). Refused once running for newcomers."""
        p = self.participants.get(name)
        if p is not None:
            p.connected = True
            return
        if self.status != REGISTERING:
            raise TournamentError("ALREADY_STARTED", "the tournament has started: registration is closed")
        expected = self.settings.participants
        if expected is not None and name not in expected:
            raise TournamentError("NOT_INVITED", f"{name} is not among this tournament's participants")
        self.participants[name] = Participant(name, bot, house, connected=True)

    def disconnected(self, name: str) -> None:
        p = self.participants.get(name)
        if p is not None:
            p.connected = False

    def start(self) -> None:
        """Fix the participants and the schedule. Raises if it cannot be played."""
        if self.status != REGISTERING:
            raise TournamentError("ALREADY_STARTED", "the tournament has already started")
        s = self.settings
        names = list(s.participants) if s.participants is not None else list(self.participants)
        missing = [n for n in names if n not in self.participants]
        if missing:
            raise TournamentError("NOT_ENOUGH_PLAYERS", "still waiting for: " + ", ".join(missing))
        try:
            games = schedule(
                names,
                table_size=s.seats,
                games=s.games,
                master_seed=s.master_seed,
                kind=s.schedule,
                hero=s.hero,
                permute=s.permute,
            )
        except ValueError as exc:
            raise TournamentError("NOT_ENOUGH_PLAYERS", str(exc)) from None
        self.open_results(games)
        self.pending = deque(g for g in games if not contains(s.done, g.number))
        self.status = RUNNING if self.pending else FINISHED

    def open_results(self, games: Sequence[GameSpec]) -> None:
        """Set up the figures for the schedule ``games`` (at the start, or when restored): the
        games of ``settings.done`` were played by an earlier run and are not expected."""
        self.total = len(games)
        self.results = Standings(self.names, first=games[0].number if games else 0, skip=self.settings.done)

    @property
    def names(self) -> list[str]:
        return list(self.participants)

    def next_games(self) -> list[GameSpec]:
        """Games to start now (at most ``concurrency`` running, none while paused); the shell
        must call :meth:`game_started` for each."""
        out: list[GameSpec] = []
        while self.can_start(len(out)):
            out.append(self.pending.popleft())
        return out

    def can_start(self, more: int = 0) -> bool:
        """Whether a game may start now, with ``more`` started besides those running."""
        return (
            self.status == RUNNING
            and not self.paused
            and bool(self.pending)
            and len(self.running) + more < self.settings.concurrency
        )

    def cancel(self) -> list[int]:
        """End the tournament now: FINISHED and ``cancelled``, no game left to play (``total``
        still says how many were scheduled). Returns the tables of the games that were running
        (they are not counted; the shell closes those tables)."""
        tables = list(self.running)
        self.running.clear()
        self.pending.clear()  # (a long tournament's schedule is most of its memory)
        self.status = FINISHED
        self.cancelled = True
        self.paused = False
        return tables

    def game_started(self, table_id: int, spec: GameSpec) -> None:
        self.running[table_id] = spec

    def table_of(self, table_id: int) -> GameSpec | None:
        return self.running.get(table_id)

    def count(self, fin: Finished) -> None:
        """Add a finished game to the figures (as it ends, or read back after a restart)."""
        assert self.results is not None, "games finish only once the tournament has started"
        self.results.add(fin.result)
        self.games_finished += 1

    def game_finished(
        self,
        table_id: int,
        places: Sequence[int],
        *,
        capped: bool,
        timeouts: Sequence[int],
        illegal: Sequence[int],
        disconnects: Sequence[int],
        actions: int,
        server_game: int,
    ) -> Finished:
        """Record the game played at ``table_id``; the tournament is FINISHED after the last."""
        spec = self.running.pop(table_id)
        result = RatedGame(
            spec.number,
            spec.deal,
            spec.seats,
            tuple(places),
            capped,
            tuple(timeouts),
            tuple(illegal),
            tuple(disconnects),
        )
        fin = Finished(spec, result, actions, server_game)
        self.count(fin)
        if not self.pending and not self.running:
            self.status = FINISHED
        return fin
