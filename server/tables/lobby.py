"""The lobby: the tables of one server and the requests about them (list, create, join,
leave, watch, start, act, chat, resume, add_bot, remove_bot, set_seats).

Each handler checks the request, lets the table (:class:`server.tables.table.Table`) change and
returns a :class:`~server.shell.reply.Reply`: the answer, what the change means for everyone else
(an outbox), and what follows (a finished game is recorded, an empty table closes). It never
sends anything itself (see :mod:`server.shell.reply`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from protocol.errors import ErrorCode
from protocol.messages import (
    Act,
    AddBot,
    Chat,
    CreateTable,
    Error,
    Join,
    Joined,
    Leave,
    ListTables,
    Ok,
    RemoveBot,
    Resume,
    SetSeats,
    Start,
    TableCreated,
    Tables,
    Watch,
    Watching,
)
from protocol.names import name_key
from server.config import ServerConfig
from server.engine import RulesError, check_seats, make_rules, parse_cards
from server.engine.cards import CardError
from server.engine.deal import check_deck
from server.login.auth import new_token, token_hash, token_matches
from server.login.identity import house_identity
from server.shell.reply import Handlers, Reply
from server.shell.session import ClientSession
from server.storage.durability import Durability
from server.tables.coordination import FinishedGame, TableError
from server.tables.hosted import HostedBots
from server.tables.quotas import Quotas
from server.tables.seating import hand_to_bot, remove_bot, set_seats
from server.tables.table import Changed, Outbox, Table

log = logging.getLogger(__name__)


class Lobby:
    """The tables of one server (see the module docstring).

    ``durable`` gives the journal (the server has one once it started); ``game_over`` is
    told of every finished game, after the answer to the action that finished it; ``changed``,
    of every table closed (:mod:`server.tables.lobby_watch`)."""

    def __init__(
        self,
        config: ServerConfig,
        hosted: HostedBots,
        *,
        durable: Callable[[], Durability],
        game_over: Callable[[Table, FinishedGame], None],
        quotas: Quotas | None = None,
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.config = config
        self.changed = changed
        """Told when a table closes (what a table's own changes mark in their outbox: ``lobby``)."""
        self.hosted = hosted
        self.durable = durable
        self.game_over = game_over
        self.quotas = quotas or Quotas(config)
        self.tables: dict[int, Table] = {}
        self.opened_from: dict[int, str] = {}
        """Table id -> the address it was opened from, while it is open (the quota per address;
        not kept across a restart)."""
        self.next_table_id = 1
        self.next_game_id = 1

    def register(self, handlers: Handlers) -> None:
        handlers.add(ListTables, self._list, writes=False, viewers=True)
        handlers.add(CreateTable, self._create, writes=True)
        handlers.add(Join, self._join, writes=True)
        handlers.add(Leave, self._leave, writes=True)
        handlers.add(Watch, self._watch, writes=False, viewers=True)  # (watchers are not stored)
        handlers.add(Start, self._start, writes=True)
        handlers.add(Act, self._act, writes=True)
        handlers.add(Chat, self._chat, writes=False)  # (chat is not kept)
        handlers.add(Resume, self._resume, writes=True)
        handlers.add(AddBot, self._add_bot, writes=True)
        handlers.add(RemoveBot, self._remove_bot, writes=True)
        handlers.add(SetSeats, self._set_seats, writes=True)

    # --- the registry

    def table(self, table_id: int) -> Table:
        t = self.tables.get(table_id)
        if t is None:
            raise TableError(ErrorCode.UNKNOWN_TABLE, f"no table {table_id}")
        return t

    def add(self, make: Callable[[int], Table]) -> Table:
        """Register the table ``make(id)`` builds with the next table id."""
        table = make(self.next_table_id)
        self.tables[table.id] = table
        self.next_table_id += 1
        return table

    def new_game_id(self) -> int:
        game_id = self.next_game_id
        self.next_game_id += 1
        return game_id

    def drop_table(self, table_id: int) -> None:
        """Close a table (its live rows go in the same batch); the bundled bots that played
        there stop."""
        t = self.tables.pop(table_id, None)
        self.opened_from.pop(table_id, None)
        if t is None:
            return
        self.durable().table_gone(table_id)
        self.changed()
        if t.tournament is None:  # (a tournament's bots play its next tables on the same connection)
            for st in t.seats:
                if st is not None and isinstance(st.session, ClientSession) and st.session.house is not None:
                    st.session.close()

    def reseat_house_bots(self) -> list[Table]:
        """Start again the bundled bots that held seats (or sat in for absent players) at tables
        other than a tournament's and have no connection there (after a restart, or after their
        process died), each with a new seat token. Returns the tables whose tokens changed (their
        snapshots must be written)."""
        changed = []
        for t in self.tables.values():
            if t.tournament is not None:
                continue  # a tournament's bots register again and get their seats back
            for i, st in enumerate(t.seats):
                if st is None or st.session is not None:
                    continue
                if st.house is not None:
                    token, st.token_hash = new_token()
                    self.hosted.reseat(st.house, st.name, table=t.id, seat=i, token=token)
                elif st.stand_in is not None and st.stand_in_kind is not None:
                    token, st.stand_in_hash = new_token()
                    self.hosted.reseat(st.stand_in_kind, st.stand_in, table=t.id, seat=i, token=token)
                else:
                    continue
                changed.append(t)
        return changed

    def seat_holder(self, token: str) -> tuple[str, str] | None:
        """The identity and name of whoever holds the seat whose token is ``token``, if any."""
        for t in self.tables.values():
            for st in t.seats:
                if st is not None and token_matches(token, st.token_hash):
                    return st.identity, st.name
        return None

    def name_holder(self, key: str) -> str | None:
        """The identity that holds a name of key ``key`` at a table (a seat, a stand-in, an
        owner), if any."""
        for t in self.tables.values():
            if t.tournament is None and name_key(t.owner) == key:
                return t.owner_id
            for st in t.seats:
                if st is None:
                    continue
                if name_key(st.name) == key:
                    return st.identity
                if st.stand_in is not None and name_key(st.stand_in) == key:
                    return house_identity(st.stand_in)
        return None

    def owned_by(self, identity: str) -> int:
        """Open tables that ``identity`` owns (a tournament's, or one its owner left, count for nobody)."""
        return sum(t.owner_id == identity and t.tournament is None and not t.owner_gone for t in self.tables.values())

    def opened_at(self, address: str) -> int:
        """Open tables opened from ``address`` (since the server started)."""
        return sum(a == address for a in self.opened_from.values())

    # --- requests

    def _list(self, s: ClientSession, msg: ListTables) -> Reply:
        return Reply(Tables(id=msg.id, tables=[t.summary() for t in self.tables.values()]))

    def _create(self, s: ClientSession, msg: CreateTable) -> Reply:
        if len(self.tables) >= self.config.limits.max_tables:
            raise TableError(ErrorCode.TABLE_FULL, "the server has as many tables as it allows")
        try:
            rules = make_rules(msg.preset, dict(msg.options or {}))
            check_seats(rules, msg.seats)
            deck = None
            if msg.deck is not None:
                deck = parse_cards(" ".join(msg.deck))
                check_deck(deck, rules)
        except RulesError as exc:
            raise TableError(ErrorCode.BAD_RULES, exc.message) from None
        except CardError as bad:  # (its own name: compiled code types a handler's name once)
            raise TableError(ErrorCode.BAD_RULES, f"deck: {bad}") from None
        self.quotas.check_tables(s.identity, owned=self.owned_by(s.identity), from_address=self.opened_at(s.address))
        table = self.add(
            lambda table_id: Table(
                table_id,
                msg.name,
                s.name,
                rules,
                msg.seats,
                password_hash=token_hash(msg.password) if msg.password else None,
                owner_id=s.identity,
                action_seconds=msg.action_seconds or self.config.action_seconds,
                bank_seconds=msg.bank_seconds if msg.bank_seconds is not None else self.config.bank_seconds,
                seed=msg.seed,
                deck=deck,
            )
        )
        self.opened_from[table.id] = s.address
        out = Outbox(saves=[Changed(table)], lobby=True)
        log.info("%s created table %d %r (%s, %d seats)", s.name, table.id, msg.name, msg.preset, msg.seats)
        return Reply(TableCreated(id=msg.id, table=table.id), out)

    def _join(self, s: ClientSession, msg: Join) -> Reply:
        out = Outbox()
        seat, token = self.table(msg.table).join(s, msg.seat, msg.password, out)
        return Reply(Joined(id=msg.id, table=msg.table, seat=seat, token=token), out)

    def _leave(self, s: ClientSession, msg: Leave) -> Reply:
        out = Outbox()
        t = self.table(msg.table)
        t.leave(s, out)

        def close_if_empty() -> None:
            if not any(t.seats) and not t.watchers and not t.running:
                self.drop_table(t.id)

        return Reply(Ok(id=msg.id), out, after=[close_if_empty])

    def _watch(self, s: ClientSession, msg: Watch) -> Reply:
        out = Outbox()
        self.table(msg.table).watch(s, msg.password, out, self.config.limits.max_spectators, time.monotonic())
        return Reply(Watching(id=msg.id, table=msg.table), out)

    def _start(self, s: ClientSession, msg: Start) -> Reply:
        out = Outbox()
        t = self.table(msg.table)
        t.start(s, out, time.monotonic(), self.new_game_id())
        return Reply(Ok(id=msg.id), out)

    def _act(self, s: ClientSession, msg: Act) -> Reply:
        out = Outbox()
        t = self.table(msg.table)
        finished = t.act(s, msg.seq, msg.action, out, time.monotonic())
        # An applied action is paced by the turn order already: it costs no rate-limit token,
        # so bots may play as fast as the game goes; refused ones do cost.
        if finished is None:
            return Reply(Ok(id=msg.id), out, free=True)
        return Reply(Ok(id=msg.id), out, free=True, after=[lambda: self.game_over(t, finished)])

    def _chat(self, s: ClientSession, msg: Chat) -> Reply:
        out = Outbox()
        self.table(msg.table).chat(s, msg.text, out)
        return Reply(Ok(id=msg.id), out)

    def _resume(self, s: ClientSession, msg: Resume) -> Reply:
        t = self.table(msg.table)
        out = Outbox()
        after = []
        seat, old = t.resume(s, msg.token, out, time.monotonic())
        if isinstance(old, ClientSession) and old is not s:
            if old.house is not None and old.identity != s.identity:
                after.append(old.close)  # the stand-in bot whose player came back: its work is done
            else:
                note = f"your seat at table {t.id} was taken over by a newer connection"
                out.send(old, Error(code=ErrorCode.BAD_TOKEN, message=note, table=t.id))
        st = t.seats[seat]
        assert st is not None
        if msg.token is None or (st.stand_in is None and not token_matches(msg.token, st.token_hash)):
            # Resumed by name (or, at a tournament's table, with a token a later one replaced):
            # a fresh token (the lost one stops working).
            token, st.token_hash = new_token()
        else:
            token = msg.token
        return Reply(Joined(id=msg.id, table=t.id, seat=seat, token=token), out, after=after)

    def _add_bot(self, s: ClientSession, msg: AddBot) -> Reply:
        t = self.table(msg.table)
        if s.identity != t.owner_id:
            raise TableError(ErrorCode.NOT_OWNER, f"only the table's owner ({t.owner}) can add bots")
        known = self.hosted.names()
        if msg.bot not in known:
            raise TableError(
                ErrorCode.UNKNOWN_BOT,
                f"no bot {msg.bot!r}; this server runs: " + (", ".join(known) if known else "no bots"),
            )
        out = None
        token = None
        if msg.seat is not None and msg.seat < t.nseats and t.seats[msg.seat] is not None:
            # A stand-in for a player who has gone (during a game too).
            name = self.hosted.new_name(msg.bot)
            token = hand_to_bot(t, s, msg.seat, name, msg.bot, time.monotonic(), self.config.reconnect_grace)
            out = Outbox(saves=[Changed(t)])
        else:
            if t.running:
                raise TableError(ErrorCode.ALREADY_STARTED, "a game is running: add bots between games")
            free = [i for i, st in enumerate(t.seats) if st is None]
            if msg.seat is not None and (msg.seat >= t.nseats or t.seats[msg.seat] is not None):
                raise TableError(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is not free")
            if not free:
                raise TableError(ErrorCode.TABLE_FULL, "no free seat at this table")
            name = self.hosted.new_name(msg.bot)

        async def seat_it() -> Ok:
            try:
                await self.hosted.seat(msg.bot, name, table=t.id, seat=msg.seat, token=token)
            except Exception as exc:
                log.warning("bot %s could not take a seat at table %d: %s", name, t.id, exc)
                code = exc.code if isinstance(exc, TableError) else ErrorCode.SEAT_TAKEN
                raise TableError(code, f"the bot could not take a seat: {exc}") from None
            return Ok(id=msg.id)

        return Reply(out=out, later=seat_it())

    def _remove_bot(self, s: ClientSession, msg: RemoveBot) -> Reply:
        t = self.table(msg.table)
        out = Outbox()
        bot = remove_bot(t, s, msg.seat, out)
        after = []
        if isinstance(bot, ClientSession):
            if bot.house is not None:
                after.append(bot.close)  # the server's own bot: its work here is done
            else:
                note = f"the owner of table {t.id} took your seat {msg.seat} back"
                out.send(bot, Error(code=ErrorCode.BAD_TOKEN, message=note, table=t.id))
        return Reply(Ok(id=msg.id), out, after=after)

    def _set_seats(self, s: ClientSession, msg: SetSeats) -> Reply:
        out = Outbox()
        set_seats(self.table(msg.table), s, msg.seats, out)
        return Reply(Ok(id=msg.id), out)
