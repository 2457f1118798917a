"""The asyncio shell: the server put together. The only place with await besides the tasks it runs.

:class:`App` composes the parts and owns their life cycle:

* :mod:`server.shell.session`: one :class:`ClientSession` per connection (bytes, rate limit, output
  held for a commit);
* :mod:`server.shell.dispatch`: each request to its handler, exactly one answer each
  (:mod:`server.shell.reply`);
* :mod:`server.login.accounts`: login; :mod:`server.tables.lobby`: the tables and their requests;
  :mod:`server.records.requests`: finished games; :mod:`server.tournament.service`: tournaments
  (through :class:`~server.tournament.service.TournamentHost`, which the app implements);
* :mod:`server.tables.hosted`: the bundled bots it runs through the :class:`BotHost` it is given;
* :mod:`server.shell.sweeper`: the periodic work (timeouts, clocks), run from one timer task;
* :mod:`server.storage.durability` and :mod:`server.storage.journal`: every change is journaled, and what a
  client is told of it is held back until the commit (:meth:`App._committed`).

Here: start (restore what the database holds), stop, the connection limits, the gate in
front of the dispatch (stopping), and delivery of outboxes.

Resource handling
    * One sweeper task, twice a second; no read is wrapped in a timeout.
    * SQLite is used from one writer thread only, so the event loop never waits on disk. The
      writes of one pass of the loop are committed together; shutdown waits for every pending
      write.
    * At start the live state is read back: tables, games in progress and tournaments come
      back, and the bundled bots that held seats are started again.

Error handling
    A malformed frame or message gets one ``error`` and the connection is closed; a
    well-formed request that cannot be granted gets an ``error`` with its code and the
    connection stays open. An unexpected exception while handling one request is logged
    and answered with ``INTERNAL_ERROR`` unless the request was answered already; it never
    reaches other connections or tables.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections import defaultdict
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import Error, GetRecord, GetReplay, GoingAway, Logout, Message
from protocol.names import name_key
from server.config import Limits, ServerConfig
from server.ladder.challenge_desk import ChallengeDesk
from server.ladder.service import LadderParts, LadderService
from server.login.accounts import Accounts
from server.login.identity import house_identity
from server.login.throttle import LoginThrottle
from server.records.requests import Records
from server.shell.dispatch import Dispatcher, Fact
from server.shell.net import lan_addresses
from server.shell.quiet import AddressLog
from server.shell.reply import Handlers
from server.shell.session import ClientSession, Hold
from server.shell.sweeper import Sweeper
from server.shell.web import HostNames, WebFiles, WebGate
from server.storage import challenge_rows, ladder_rows
from server.storage.db_thread import DbThread
from server.storage.durability import Durability, Restored, StoreCalls
from server.storage.journal import Journal
from server.storage.store import Store
from server.tables.coordination import FinishedGame, Session
from server.tables.hosted import BotHost, HostedBots
from server.tables.lobby import Lobby
from server.tables.lobby_watch import LobbyWatch
from server.tables.quotas import Quotas
from server.tables.table import Outbox, StateOut, Table
from server.tournament.director import Finished
from server.tournament.service import TournamentService

__all__ = ["App", "BotHost", "ClientSession"]

log = logging.getLogger(__name__)

SWEEP_INTERVAL = 0.5
HEARTBEAT_EVERY = 4
"""Sweeps between heartbeats (2 s): after a crash, clocks resume from the last one."""


def _log_checkpoint_failure(done: Future[tuple[int, int]]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("checkpoint of the database failed (it is tried again): %s", done.exception())


HOUSE_LOSSES = 3
HOUSE_LOSS_WINDOW = 60.0
"""The bundled bots are started again after their process dies, at most :data:`HOUSE_LOSSES`
times within this many seconds."""


class App:
    """The server: sessions, tables, storage. See the module docstring."""

    def __init__(self, config: ServerConfig, *, bots: BotHost | None = None, web_files: WebFiles | None = None) -> None:
        """``web_files``: the web client's files (the composition root's; without them the
        WebSocket still serves and pages are 404). ``config.web`` false: no web door at all."""
        self.config = config
        self.bots = bots
        self.web_files = web_files if config.web else None
        self.host_names = HostNames(self._own_names(), more=lan_addresses)
        self.problems = AddressLog(logging.getLogger("server.shell.session"))
        """Connection problems (:mod:`server.shell.quiet`): at most a few log lines a minute per address."""
        self.sessions: set[ClientSession] = set()
        self.per_address: dict[str, int] = defaultdict(int)
        self.db_thread = DbThread("sqlite")
        self.db = StoreCalls(self.db_thread)
        self.checkpoint_thread = DbThread("sqlite-checkpoint")
        """Where the WAL is checkpointed (:meth:`_checkpoint`), so that no commit waits for it."""
        self._checkpointing: Future[tuple[int, int]] | None = None
        self.store: Store | None = None
        self.durable: Durability | None = None
        self.journal: Journal | None = None
        self.held: set[ClientSession] = set()
        """Sessions with output waiting for a commit (each adds itself: the SessionHost interface)."""
        self.clock: Callable[[], float] = time.monotonic
        """The sessions' rate limits read the time here (the SessionHost interface; a test
        moves it on instead of waiting)."""
        self.server: asyncio.Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopping = False
        self._house_losses: list[float] = []  # when the bots' process died lately (monotonic)
        self.hosted = HostedBots(
            bots, address=lambda: (self.local_host, self.port), spawn=self.spawn, delay=config.bot_delay
        )
        self.quotas = Quotas(config)
        self.lobby_watch = LobbyWatch(lambda: [t.summary() for t in self.lobby.tables.values()])
        self.lobby = Lobby(
            config,
            self.hosted,
            durable=self._durable,
            game_over=self._game_over,
            quotas=self.quotas,
            changed=self.lobby_watch.changed,
        )
        self.accounts = Accounts(
            config,
            db=self.db,
            store=self._store,
            hosted=self.hosted,
            holder=self.name_holder,
            seat_holder=self.lobby.seat_holder,
        )
        self.hosted.taken = lambda key: self.accounts.held_by(key) is not None
        self.records = Records(db=self.db, store=self._store)
        self.tournaments = TournamentService(self)
        self.sweeper = Sweeper(config, self.lobby, self.sessions, deliver=self.flush, game_over=self._game_over)
        self.handlers = Handlers()
        self.lobby.register(self.handlers)
        self.lobby_watch.register(self.handlers)
        self.handlers.add(GetRecord, self.records.get_record, writes=False, viewers=True)
        self.handlers.add(GetReplay, self.records.get_replay, writes=False, viewers=True)
        # (Logout's row goes before its ok, as login's.)
        self.handlers.add(Logout, self.accounts.logout, writes=False, viewers=True)
        self.tournaments.register_handlers(self.handlers)
        self.ladder = LadderService(self._ladder_parts())
        self.ladder.register_handlers(self.handlers)
        self.challenges = ChallengeDesk(self.ladder)
        self.challenges.register_handlers(self.handlers)
        self.dispatch = Dispatcher(
            config,
            self.handlers,
            login=self.accounts.login,
            save=self._save,
            send=self._send,
            spawn=self.spawn,
            storage_failed=self._storage_failing,
            lobby_changed=self.lobby_watch.changed,
        )

    # --- the parts, as tests and the entry point see them

    @property
    def tables(self) -> dict[int, Table]:
        return self.lobby.tables

    @property
    def limits(self) -> Limits:
        return self.config.limits

    @property
    def throttle(self) -> LoginThrottle:
        return self.accounts.throttle

    @throttle.setter
    def throttle(self, throttle: LoginThrottle) -> None:
        self.accounts.throttle = throttle

    @property
    def house_logins(self) -> dict[str, str]:
        """One-time logins of the bundled bots being started: name -> password."""
        return self.hosted.logins

    def _durable(self) -> Durability:
        assert self.durable is not None, "the server has not started"
        return self.durable

    def _store(self) -> Store:
        assert self.store is not None, "the server has not started"
        return self.store

    # --- lifecycle

    async def start(self) -> None:
        """Open the database (raises :class:`server.storage.store.StoreError`), bring back the tables and
        tournaments it holds, listen, and seat the bundled bots of restored tables again."""
        loop = asyncio.get_running_loop()
        try:
            store = self.store = await self.db(
                Store, self.config.db, synchronous=self.config.synchronous, autocheckpoint=False
            )
        except BaseException:
            self.db_thread.shutdown(wait=False)
            raise
        durable = self.durable = Durability(
            store,
            self.db_thread,
            tables=self.lobby.tables,
            tournaments=self.tournaments.tournaments,
            counters=self._counters,
            on_commit=self._committed,
            on_recovery=self._storage_recovered,
        )
        self.journal = durable.journal
        restored = await self.db(durable.load, grace=self.config.restart_grace)
        last_game = await self.db(store.last_game_id)
        self._restore(restored, last_game)
        self.ladder.restored(await self.db(ladder_rows.load, store.db))
        self.challenges.restored(await self.db(challenge_rows.load, store.db))
        for table_id in self.ladder.restored_tables(self.lobby.tables):
            self.lobby.drop_table(table_id)  # (a ladder game cut by the stop is not rated)
        self.server = await loop.create_server(
            lambda: ClientSession(self), self.config.host, self.config.port, reuse_address=True
        )
        self._sweeper = asyncio.create_task(self._sweep())
        if self.bots is not None:
            self._reseat_house_bots()
            self.bots.on_lost(self._house_bots_lost)

    def _reseat_house_bots(self) -> None:
        """Start the bundled bots whose seats have no connection (after a restart, or after
        their process died), each taking its seat back; and those of unfinished tournaments."""
        for t in self.lobby.reseat_house_bots():
            self._durable().table_changed(t)
        self.tournaments.restart_house_bots()

    def _house_bots_lost(self) -> None:
        """The bots' process died: its connections are taken as closed now (the server may not
        have read their end yet; a later connection_lost finds them gone), and the bots are
        started again as after a restart. Not more than :data:`HOUSE_LOSSES` times in
        :data:`HOUSE_LOSS_WINDOW` seconds: a process that keeps dying is left dead (the log says
        so; owners can still hand seats to bots, which tries again)."""
        if self.stopping:
            return
        now = time.monotonic()
        self._house_losses = [t for t in self._house_losses if now - t < HOUSE_LOSS_WINDOW] + [now]
        for s in [s for s in self.sessions if s.house is not None]:
            s.abort()
            self.disconnected(s)
        if len(self._house_losses) > HOUSE_LOSSES:
            log.error(
                "the bots' process died %d times in %.0f s: its bots are not started again",
                len(self._house_losses),
                HOUSE_LOSS_WINDOW,
            )
            return
        log.warning("starting the bundled bots again in a new process")
        self._reseat_house_bots()

    def _counters(self) -> dict[str, int]:
        return {
            "table": self.lobby.next_table_id,
            "game": self.lobby.next_game_id,
            "house_bot": self.hosted.next_number,
            "tournament": self.tournaments.next_id,
        }

    def _restore(self, r: Restored, last_game: int) -> None:
        lobby = self.lobby
        for t in r.tables:
            lobby.tables[t.id] = t
        for tour in r.tournaments:
            self.tournaments.restored(tour)
        for t in r.tables:
            if t.tournament is not None:
                self.tournaments.table_restored(t)
        c = r.counters
        lobby.next_table_id = max([c.get("table", 1), *(t.id + 1 for t in r.tables)])
        lobby.next_game_id = max([c.get("game", 1), last_game + 1, *(t.game_id + 1 for t in r.tables)])
        self.hosted.next_number = c.get("house_bot", 1)
        self.tournaments.next_id = max([c.get("tournament", 1), *(t.id + 1 for t in r.tournaments)])
        running = sum(t.running for t in r.tables)
        if r.tables or r.tournaments:
            log.info(
                "restored %d tables (%d games in progress) and %d tournaments from %s; players have %g s "
                "more on their clocks to come back",
                len(r.tables),
                running,
                len(r.tournaments),
                self.config.db,
                self.config.restart_grace,
            )

    @property
    def port(self) -> int:
        assert self.server is not None
        # (getattr: asyncio gives a tuple of sockets, uvloop a list, which compiled code would
        # refuse on reading the attribute as typed.)
        sockets: Any = getattr(self.server, "sockets")  # noqa: B009
        return int(sockets[0].getsockname()[1])

    @property
    def local_host(self) -> str:
        """An address of this server for a client in the same process (the bundled bots)."""
        host = self.config.host
        return "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host

    async def stop(self, reason: str = "the server is stopping") -> None:
        """Stop taking requests, finish every pending write, tell every client (``going_away``),
        close them, and close the database. Tables and games stay in it for the next start."""
        self.stopping = True
        if self.server is not None:
            self.server.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.lobby_watch.stop()
        if self.journal is not None:
            self._durable().heartbeat()
            try:
                async with asyncio.timeout(10.0):
                    await self.journal.drain()
            except TimeoutError:
                log.error(
                    "the database could not be written before stopping: the last actions were not "
                    "acknowledged and are not kept"
                )
        bye = GoingAway(
            reason=f"{reason}; tables and games are saved and come back when it starts again", returning=True
        )
        for s in list(self.sessions):
            s.held.clear()  # (only if the last commit failed: nothing of it was acknowledged)
            s.send([bye], held=Hold.NOW)
            s.close()
        await self.hosted.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.get_running_loop().run_in_executor(None, self.db_thread.shutdown, True)
        await asyncio.get_running_loop().run_in_executor(None, self.checkpoint_thread.shutdown, True)
        if self.store is not None:
            self.store.close()

    def _checkpoint(self) -> None:
        """Start a checkpoint of the WAL on :attr:`checkpoint_thread` unless one still runs.

        The store is opened with ``autocheckpoint=False``: SQLite's automatic checkpoint ran
        inside the commit that crossed 1,000 WAL pages (three syncs and a copy of the pages, some
        milliseconds every few hundred commits at 1,000 connections), and the messages held for
        that batch and the batch behind it waited for it. A failed checkpoint is logged; the WAL
        grows until one goes through, and commits are not affected."""
        store = self.store
        if store is None or (self._checkpointing is not None and not self._checkpointing.done()):
            return
        self._checkpointing = self.checkpoint_thread.submit(store.checkpoint)
        self._checkpointing.add_done_callback(_log_checkpoint_failure)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task of the server (awaited at shutdown)."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _sweep(self) -> None:
        """The timer task: the sweeper's round every ``SWEEP_INTERVAL`` seconds, a heartbeat
        every ``HEARTBEAT_EVERY`` rounds while the database can be written."""
        beats = 0
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            beats += 1
            try:
                healthy = self.journal is None or self.journal.failed is None
                if beats % HEARTBEAT_EVERY == 0 and self.journal is not None and healthy:
                    self._durable().heartbeat()
                if healthy:
                    self._checkpoint()
                now = time.monotonic()
                self.sweeper.sweep(now, paused=not healthy)
                if healthy:
                    self.tournaments.sweep(now, self.config.reconnect_grace)
                    self.ladder.fill()
            except Exception:
                log.exception("sweeper round failed; continuing")

    # --- the journal's callbacks

    def _committed(self, batch: int) -> None:
        """Send what waited for ``batch``."""
        for s in list(self.held):
            if s.release(batch) or s.closing:
                self.held.discard(s)

    def _storage_failing(self) -> bool:
        """Whether the database cannot be written now (requests that write are refused)."""
        return self.journal is not None and self.journal.failed is not None

    def _storage_recovered(self, stalled: float) -> None:
        """Play goes on: the time the database could not be written is given back to the clocks."""
        for t in self.lobby.tables.values():
            if t.running:
                t.turn_started += stalled

    # --- connections (the SessionHost interface)

    def connected(self, s: ClientSession) -> None:
        lim = self.config.limits
        if self.stopping:
            s.send([Error(code=ErrorCode.SHUTTING_DOWN, message="the server is shutting down")])
            s.close()
            return
        if len(self.sessions) >= lim.max_connections or self.per_address[s.address] >= lim.max_connections_per_address:
            text = "too many connections; try again later"
            s.send([Error(code=ErrorCode.TOO_MANY_CONNECTIONS, message=text)])
            s.close()
            return
        self.sessions.add(s)
        self.per_address[s.address] += 1

    def disconnected(self, s: ClientSession) -> None:
        if s not in self.sessions:
            return
        self.sessions.discard(s)
        self.held.discard(s)
        self.lobby_watch.gone(s)
        self.per_address[s.address] -= 1
        if self.per_address[s.address] <= 0:
            del self.per_address[s.address]
        if self.stopping:
            return  # every seat is away after the restart anyway
        out = Outbox()
        now = time.monotonic()
        for t in self.lobby.tables.values():
            if s in t.watchers or t.seat_of(s) is not None:
                t.disconnected(s, out, now)
        self.flush(out)
        self.tournaments.disconnected(s)

    # --- delivery

    def _save(self, facts: list[Fact]) -> None:
        """The dispatcher's ``save``: into the journal (there is none before :meth:`start`)."""
        self._durable().save(facts)

    def flush(self, out: Outbox) -> None:
        """Journal what the coordinators changed, then send what they queued: in order, one
        write per session (held by the sessions until the journal has committed it)."""
        if out.saves:
            self._durable().save(out.saves)
        if out.lobby:
            self.lobby_watch.changed()
        self._send(out)

    def _send(self, out: Outbox) -> None:
        batches: dict[Session, list[Message | StateOut]] = {}
        for session, msg in out.items:
            batch = batches.get(session)
            if batch is None:
                batches[session] = [msg]
            else:
                batch.append(msg)
        for session, msgs in batches.items():
            try:
                # The coordinators only ever hold the sessions the shell gave them.
                assert isinstance(session, ClientSession)
                session.send(msgs)
            except Exception:
                log.exception("delivering to %r failed; the others are delivered", session)

    def web_gate(self) -> WebGate | None:
        if not self.config.web:
            return None
        return WebGate(self.web_files, max_message=self.config.limits.max_frame_in, names=self.host_names)

    def _own_names(self) -> list[str]:
        """The names a browser may use for this server (:class:`server.shell.web.HostNames`): the
        address it listens on, this machine's names, its LAN addresses, the configured ones."""
        machine = socket.gethostname()
        short = machine.split(".")[0]
        names = [machine, short, f"{short}.local", *self.config.web_hosts]
        host = self.config.host
        if host in ("", "0.0.0.0", "::"):
            names += lan_addresses()
        else:
            names.append(host)
        return names

    # --- requests

    def handle(self, s: ClientSession, msg: Message) -> bool:
        """Answer one message that the rate limit let through: exactly one answer (see
        :mod:`server.shell.dispatch`, which also refuses requests that write while the database
        cannot be written). A failure here never escapes to other sessions. True: it costs no
        rate-limit token."""
        if self.stopping:
            s.send([GoingAway(reason="the server is stopping", returning=True)], held=Hold.NOW)
            s.close()
            return False
        return self.dispatch.handle(s, msg)

    # --- the TournamentHost interface (server.tournament.service)

    @property
    def default_action_seconds(self) -> float:
        return self.config.action_seconds

    def bot_names(self) -> Sequence[str]:
        return self.hosted.names()

    def enter_bot(self, kind: str, name: str, *, tournament: int) -> None:
        self.hosted.enter(kind, name, tournament=tournament)

    def add_table(self, make: Callable[[int], Table]) -> Table:
        return self.lobby.add(make)

    def new_game_id(self) -> int:
        return self.lobby.new_game_id()

    def table(self, table_id: int) -> Table | None:
        return self.lobby.tables.get(table_id)

    def drop_table(self, table_id: int) -> None:
        self.lobby.drop_table(table_id)

    def tournament_changed(self, tournament: int) -> None:
        self._durable().tournament_changed(tournament)

    def tournament_game(self, tournament: int, fin: Finished) -> None:
        self._durable().tournament_game(tournament, fin)

    def logged_in(self, identity: str) -> list[Session]:
        return [s for s in self.sessions if s.logged_in and s.identity == identity]

    def name_holder(self, key: str) -> str | None:
        """The identity that holds the name of key ``key`` on this server, if any: a connected
        session, a seat, a table's owner, an unfinished tournament's organiser, or a bundled bot
        being started (see :mod:`server.login.identity`). A viewer holds no name."""
        for s in self.sessions:
            if s.logged_in and not s.viewer and name_key(s.name) == key:
                return s.identity
        holder = self.lobby.name_holder(key)
        if holder is not None:
            return holder
        for t in self.tournaments.tournaments.values():
            if t.status != "finished" and name_key(t.organiser) == key:
                return t.organiser_id
        for name in self.hosted.logins:
            if name_key(name) == key:
                return house_identity(name)
        return None

    # --- what follows a finished game

    def _game_over(self, table: Table, g: FinishedGame) -> None:
        """Store the record in the batch of the game's last action, then tell the tournament."""
        self._durable().game_finished(g)
        self.tournaments.game_finished(table, g)
        self.ladder.game_finished(table, g)

    def _ladder_baselines(self) -> list[str]:
        """The bundled bots the ladder seats as baselines (setting ``ladder_baselines``)."""
        kinds = list(self.hosted.names())
        wanted = self.config.ladder_baselines
        return kinds if wanted is None else [k for k in kinds if k in wanted]

    def _ladder_parts(self) -> LadderParts:
        """What the ladder uses of the server (:mod:`server.ladder.service`)."""
        return LadderParts(
            tables=lambda: self.lobby.tables,
            add_table=self.lobby.add,
            drop_table=self.lobby.drop_table,
            new_game_id=self.lobby.new_game_id,
            flush=self.flush,
            write=lambda op: self._durable().journal.write(op),
            logged_in=self.logged_in,
            bot_kinds=self._ladder_baselines,
            start_bot=lambda kind, name, table, seat, token: self.hosted.reseat(
                kind, name, table=table, seat=seat, token=token
            ),
            new_bot_name=self.hosted.new_name,
            tables_allowed=lambda: self.config.limits.ladder_tables,
        )
