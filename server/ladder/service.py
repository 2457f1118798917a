"""The ladder on a running server: its requests, the matches it seats, and their results.

A member (an account that sent ``ladder_join``) that is connected and not seated at any table is
idle; :meth:`LadderService.fill` (after every change that may free a place, and from the sweeper)
starts matches (:func:`server.ladder.ratings.pick_match`) while fewer than ``ladder_tables``
ladder games run. A match is one deal played once per seat rotation, one game after another at
tables of their own (owner ``ladder``), so a match takes one of the ladder's tables at a time.
A member is seated like a tournament participant (``seated`` with tournament 0 and the game's
id); a baseline (``[greedy]``...) is seated away, and the server's bot host started to take that
seat back with its token, as after a restart; it stops when the table closes.

When a game ends its result is rated (:class:`~server.ladder.ratings.Ratings`) and written in
the batch of its last action, its table closes, and the match's next game starts, unless one
of its members has left the ladder or gone (then the rest of the match is dropped). After a
restart the ladder's members and finished games come back; a ladder game that was running is
not rated: its table is closed at start (:meth:`LadderService.restored_tables`).

Challenges (:mod:`server.ladder.challenge_desk`) wait in :attr:`LadderService.waiting` and are
started by :meth:`LadderService.fill` before the ladder's own matches, within the same
``ladder_tables``; their games are counted by the challenge, not rated, and written with
:mod:`server.storage.challenge_rows` in the batch of each game's end.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from protocol.errors import ErrorCode
from protocol.messages import (
    GetLadder,
    LadderGames,
    LadderHistory,
    LadderJoin,
    LadderLeave,
    LadderStandings,
    Ok,
    Seated,
)
from protocol.names import name_key
from server.engine import make_rules, preset_info, preset_names
from server.login.identity import house_identity
from server.shell.reply import Handlers, Reply
from server.storage import challenge_rows, ladder_rows
from server.storage.ladder_rows import LadderState, MemberRow, Op
from server.tables.coordination import FinishedGame, Session, TableError
from server.tables.table import Outbox, Table
from server.tournament.schedule import GameSpec

from .challenges import Challenge
from .history import rating_points
from .ratings import OVERALL, Candidate, LadderGame, Match, Ratings, fold_all, pick_match

log = logging.getLogger(__name__)

LADDER_OWNER = "ladder"
"""The owner of every ladder table (no identity is spelled so)."""

LADDER_TOURNAMENT = 0
"""``seated.tournament`` of a ladder game (tournament ids start at 1)."""

ACTION_SECONDS = 30.0
"""The clock per action at ladder tables."""


def baseline_name(kind: str) -> str:
    """The ladder name of bundled bot ``kind``: in brackets, which no account's name contains."""
    return f"[{kind}]"


class _Owner:
    """The owner of ladder tables (it starts their games)."""

    bot = False
    guest = False
    house: str | None = None
    turn_states = False
    address = ""
    name = identity = LADDER_OWNER


@dataclass
class _Running:
    """A match being played: ``games[next]`` is the next game to start; ``table`` the table of
    the game playing now; ``seats`` what the ladder names sit there, by seat."""

    match: Match
    next: int = 0
    table: int | None = None
    seats: tuple[str, ...] = ()
    challenge: Challenge | None = None
    """Set for a challenge's games (not rated: :mod:`server.ladder.challenges`)."""


@dataclass(frozen=True)
class LadderParts:
    """What the service uses of the server (the shell composes it)."""

    tables: Callable[[], dict[int, Table]]
    add_table: Callable[[Callable[[int], Table]], Table]
    drop_table: Callable[[int], None]
    new_game_id: Callable[[], int]
    flush: Callable[[Outbox], None]
    write: Callable[[Op], None]
    """Add an operation to the journal's open batch."""
    logged_in: Callable[[str], list[Session]]
    bot_kinds: Callable[[], Sequence[str]]
    start_bot: Callable[[str, str, int, int, str], None]
    """``start_bot(kind, name, table, seat, token)``: start bundled bot ``kind`` as ``name`` to
    take that seat back with its token."""
    new_bot_name: Callable[[str], str]
    """A name nobody holds for a new bundled bot of this kind."""
    tables_allowed: Callable[[], int]


class LadderService:
    """The ladder of one server."""

    def __init__(self, parts: LadderParts, *, rng: random.Random | None = None) -> None:
        self.parts = parts
        self.rng = rng or random.Random()
        self.members: dict[str, MemberRow] = {}
        """By name key."""
        self.ratings = Ratings()
        self.matches: list[_Running] = []
        self.by_table: dict[int, _Running] = {}
        self.waiting: list[Challenge] = []
        """Challenges asked for and not started, in order (:mod:`server.ladder.challenge_desk`)."""
        self.on_challenge_over: Callable[[Challenge], None] = lambda c: None

    def register_handlers(self, handlers: Handlers) -> None:
        handlers.add(LadderJoin, self.join, writes=True)
        handlers.add(LadderLeave, self.leave, writes=True)
        handlers.add(GetLadder, self.standings, writes=False, viewers=True)
        handlers.add(LadderGames, self.games, writes=False, viewers=True)

    # ------------------------------------------------------------------ requests

    def join(self, s: Session, msg: LadderJoin) -> Reply:
        if s.guest:
            raise TableError(ErrorCode.NOT_INVITED, "the ladder rates accounts: log in with one, not as a guest")
        presets = tuple(dict.fromkeys(msg.presets))
        for p in presets:
            if p not in preset_names():
                raise TableError(ErrorCode.BAD_RULES, f"no preset {p!r}; presets: {', '.join(preset_names())}")
        key = name_key(s.name)
        row = self.members[key] = MemberRow(s.name, s.identity, presets)
        self.parts.write(ladder_rows.member_op(key, row))
        log.info("%s joined the ladder on %s", s.name, ", ".join(presets))
        return Reply(Ok(id=msg.id), self._seat_again(s), after=[self.fill])

    def _seat_again(self, s: Session) -> Outbox:
        """A member back after a drop (it joins again): its seats at running ladder games go to
        this connection, each announced by ``seated`` before the table's snapshot (as a
        tournament's ``register`` does)."""
        out = Outbox()
        seated: list[tuple[Session, Seated]] = []
        now = time.monotonic()
        tables = self.parts.tables()
        for table_id, r in self.by_table.items():
            table = tables.get(table_id)
            if table is None or not table.running:
                continue
            for seat, name in enumerate(r.seats):
                st = table.seats[seat]
                if name_key(name) == name_key(s.name) and st is not None and st.session is not s:
                    token = table.rebind(seat, s, out, now)
                    msg = Seated(
                        tournament=LADDER_TOURNAMENT, game=table.game_id, table=table_id, seat=seat, token=token
                    )
                    seated.append((s, msg))
        out.items[0:0] = seated
        return out

    def leave(self, s: Session, msg: LadderLeave) -> Reply:
        key = name_key(s.name)
        if self.members.pop(key, None) is not None:
            self.parts.write(ladder_rows.member_gone_op(key))
            log.info("%s left the ladder", s.name)
        return Reply(Ok(id=msg.id))

    def standings(self, s: Session, msg: GetLadder) -> Reply:
        names = [OVERALL, *sorted(t for t in self.ratings.tables if t != OVERALL)]
        tables = [
            {"table": t, "rows": [r.to_wire(i) for i, r in enumerate(self.ratings.standings(t), 1)]} for t in names
        ]
        members = sorted(m.name for m in self.members.values())
        return Reply(LadderStandings(id=msg.id, tables=tables, members=members))  # type: ignore[arg-type]

    def games(self, s: Session, msg: LadderGames) -> Reply:
        games = [
            {
                "game": g.game,
                "preset": g.preset,
                "players": list(g.seats),
                "places": list(g.places),
                "place": g.place_of(g.seats.index(msg.name)),
                "finished": g.finished,
            }
            for g in self.ratings.games_of(msg.name, msg.limit)
        ]
        ratings = rating_points(self.ratings.history.get(msg.name))
        return Reply(LadderHistory(id=msg.id, name=msg.name, games=games, ratings=ratings))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ matches

    def _seated_identities(self) -> set[str]:
        return {st.identity for t in self.parts.tables().values() for st in t.seats if st is not None}

    def _busy(self) -> set[str]:
        return {name for r in self.matches for name in r.match.group}

    def fill(self) -> None:
        """Start matches while the ladder has tables to spare and members to seat."""
        allowed = self.parts.tables_allowed()
        self._start_challenges(allowed)
        if not self.members or len(self.matches) >= allowed:
            return
        seated = self._seated_identities()
        busy = self._busy()
        idle = [
            m
            for m in self.members.values()
            if m.name not in busy and m.identity not in seated and self.parts.logged_in(m.identity)
        ]
        kinds = list(self.parts.bot_kinds())
        sizes = {p: preset_info(p).min_players for p in {p for m in idle for p in m.presets}}
        while idle and len(self.matches) < allowed:
            cands = [Candidate(m.name, frozenset(m.presets)) for m in idle]
            cands += [Candidate(baseline_name(k), None, member=False) for k in kinds]
            match = pick_match(self.ratings, cands, seats=sizes, rng=self.rng)
            if match is None:
                return
            running = _Running(match)
            self.matches.append(running)
            idle = [m for m in idle if m.name not in match.group]
            self._start_game(running)

    def _start_challenges(self, allowed: int) -> None:
        """Start waiting challenges, in order, while the ladder has tables to spare: each once
        its ladder bots are connected and idle; one whose ladder bot has left the ladder is
        cancelled (one not connected, as after a restart, is waited for)."""
        busy = self._busy()
        seated = self._seated_identities()
        for c in list(self.waiting):
            if len(self.matches) >= allowed:
                return
            if any(self.members.get(name_key(n)) is None for n in c.bots if not n.startswith("[")):
                self.waiting.remove(c)
                c.status = "cancelled"
                self.parts.write(challenge_rows.challenge_op(c))
                self.on_challenge_over(c)
                continue
            members = [m for n in c.bots if (m := self.members.get(name_key(n))) is not None]
            if not self._members_here(c.bots) or any(m.name in busy or m.identity in seated for m in members):
                continue
            self.waiting.remove(c)
            c.status = "running"
            self.parts.write(challenge_rows.challenge_op(c))
            running = _Running(c.match(), next=len(c.games), challenge=c)
            self.matches.append(running)
            busy |= set(c.bots)
            self._start_game(running)

    def _members_here(self, names: Sequence[str]) -> bool:
        """Every ladder bot among ``names`` (not a bundled bot in brackets) is on the ladder and
        logged in."""
        return all(
            (m := self.members.get(name_key(n))) is not None and bool(self.parts.logged_in(m.identity))
            for n in names
            if not n.startswith("[")
        )

    def _challenge_game_finished(self, table: Table, r: _Running, g: FinishedGame) -> None:
        """A challenge's game ended: count it (not rated), go on or end the challenge."""
        c = r.challenge
        assert c is not None
        c.add(g.game_id, tuple(g.result["places"]))
        self.parts.write(challenge_rows.game_op(c))
        self.parts.drop_table(table.id)
        r.table = None
        if r.next < len(r.match.games) and self._members_here(c.bots):
            self._start_game(r)
            return
        if not c.finished:
            c.status = "cancelled"
        self.parts.write(challenge_rows.challenge_op(c))
        self.matches.remove(r)
        self.on_challenge_over(c)
        self.fill()

    def _start_game(self, r: _Running) -> None:
        """Open the table of ``r``'s next game, seat its group and deal."""
        spec = r.match.games[r.next]
        r.next += 1
        parts = self.parts
        game_id = parts.new_game_id()
        table = parts.add_table(partial(_ladder_table, r.match.preset, spec, game_id))
        r.table = table.id
        r.seats = spec.seats
        self.by_table[table.id] = r
        out = Outbox()
        now = time.monotonic()
        bots: list[tuple[str, str, int, str]] = []
        for seat, name in enumerate(spec.seats):
            member = self.members.get(name_key(name))
            if member is not None:
                sessions = parts.logged_in(member.identity)
                session = sessions[0] if sessions else None
                bot = session.bot if session is not None else True
                token = table.seat_for(seat, name, member.identity, bot, False, session, out, now)
                if session is not None:
                    out.send(
                        session,
                        Seated(tournament=LADDER_TOURNAMENT, game=game_id, table=table.id, seat=seat, token=token),
                    )
            else:
                kind = name[1:-1]
                login = parts.new_bot_name(kind)
                token = table.seat_for(seat, login, house_identity(login), True, True, None, out, now)
                bots.append((kind, login, seat, token))
        table.start(_Owner(), out, now, game_id)
        parts.flush(out)
        for kind, login, seat, token in bots:
            parts.start_bot(kind, login, table.id, seat, token)

    def game_finished(self, table: Table, g: FinishedGame) -> None:
        """A game ended at ``table``: if it is the ladder's, rate and keep it, and go on."""
        r = self.by_table.pop(table.id, None)
        if r is None:
            return
        if r.challenge is not None:
            self._challenge_game_finished(table, r, g)
            return
        seats = [st for st in table.seats if st is not None]
        game = LadderGame(
            game=g.game_id,
            preset=r.match.preset,
            seats=r.seats,
            places=tuple(g.result["places"]),
            finished=time.time(),
            timeouts=tuple(st.timeouts for st in seats),
            illegal=tuple(st.illegal for st in seats),
            disconnects=tuple(st.drops for st in seats),
        )
        self.parts.write(ladder_rows.game_op(self.ratings.games, game))
        self.ratings.fold(game)
        self.parts.drop_table(table.id)
        r.table = None
        members = [n for n in r.match.group if not n.startswith("[")]
        going_on = r.next < len(r.match.games) and all(
            (m := self.members.get(name_key(n))) is not None and self.parts.logged_in(m.identity) for n in members
        )
        if going_on:
            self._start_game(r)
        else:
            self.matches.remove(r)
            self.fill()

    # ------------------------------------------------------------------ after a restart

    def restored(self, state: LadderState) -> None:
        """The ladder read back from the database: members, and ratings folded from its games."""
        self.members = dict(state.members)
        self.ratings = fold_all(state.games)

    @staticmethod
    def restored_tables(tables: dict[int, Table]) -> list[int]:
        """The ids of restored ladder tables (games that were running at the crash: they are
        closed, not rated)."""
        return [t.id for t in tables.values() if t.owner == LADDER_OWNER]


def _ladder_table(preset: str, spec: GameSpec, game_id: int, table_id: int) -> Table:
    """The table of ladder game ``game_id`` (deal ``spec.seed``), as ``table_id``."""
    rules = make_rules(preset)  # (a preset checked at join: the catalogue does not change)
    return Table(
        table_id,
        f"ladder #{game_id}",
        LADDER_OWNER,
        rules,
        len(spec.seats),
        action_seconds=ACTION_SECONDS,
        seed=spec.seed,
    )
