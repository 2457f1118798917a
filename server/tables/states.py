"""The ``state`` messages of one table: a broadcast after every change, a snapshot for one
recipient. Pure: it builds values (:mod:`server.tables.coordination`); the shell encodes them.

The hot path of the server is :meth:`StateBuilder.broadcast`: the public part of a change is
built once for every recipient, a player's entry only when that player changed, and a seat's
own part (hand, legal actions) only when its hand or legal actions changed. The shell then
encodes each of these once (:mod:`server.shell.broadcast`), however many recipients they go to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from protocol.messages import TURN_STATES_MAX_EVENTS, Message, State
from protocol.payloads import Clock, Event, View
from server.engine import Game
from server.engine.actions import Action
from server.engine.view import player_key, player_view, public_view, seat_part
from server.tables.coordination import PlayerEntry, SeatPart, Session, StateChange, StateOut
from server.tables.seat import Seat

_NOBODY = {"name": None, "bot": False, "away": False, "timeouts": 0}
_WATCHER_PART = SeatPart({"seat": None, "hand": None, "legal": []})  # what seat_part gives a watcher


def time_left(deadline: float, now: float) -> float:
    """The ``deadline`` field of a state: seconds from ``now`` to ``deadline``, never negative."""
    return max(0.0, round(deadline - now, 3))


def clocks(to_act: Sequence[int], seats: Sequence[Seat | None], turn_ends: float, now: float) -> list[Clock]:
    """The view's ``clocks``: each seat to act, its time left (``turn_ends`` and then its bank,
    by :func:`time_left`) and its bank, the same for every recipient; a seat's own
    ``deadline`` is its entry here."""
    out: list[Clock] = []
    for i in sorted(to_act):
        s = seats[i]
        if s is not None:
            out.append({"seat": i, "left": time_left(turn_ends + s.bank, now), "bank": round(s.bank, 3)})
    return out


class StateBuilder:
    """Builds the states of one table, keeping each player's entry while it does not change."""

    def __init__(self, table_id: int, nseats: int) -> None:
        self.table_id = table_id
        self._players: list[PlayerEntry | None] = [None] * nseats

    def players(self, game: Game, seats: Sequence[Seat | None]) -> list[PlayerEntry]:
        """The view's ``players`` (with names, bot and away marks).

        A player's entry changes only when that player acts or is acted upon, so each is
        built again only when its key changes (most changes touch one player)."""
        cache = self._players
        out = []
        for i, st in enumerate(seats):
            key = (player_key(game, i), st.name, st.bot, st.session is None, st.timeouts) if st else player_key(game, i)
            entry = cache[i]
            if entry is None or entry.key != key:
                d = player_view(game, i)
                d.update(
                    {"name": st.name, "bot": st.bot, "away": st.session is None, "timeouts": st.timeouts}
                    if st
                    else _NOBODY
                )
                entry = cache[i] = PlayerEntry(key, d)
            out.append(entry)
        return out

    def snapshot(
        self,
        game: Game,
        seats: Sequence[Seat | None],
        seat: int | None,
        *,
        seq: int,
        game_id: int,
        events: list[Event],
        turn_ends: float,
        now: float,
    ) -> State:
        """The whole state for ``seat`` (None: a watcher), sent to one recipient (a player who
        comes back, a new watcher); ``turn_ends``: when the clock of a seat to act runs out,
        before its bank."""
        if seat is not None and (st := seats[seat]) is not None:
            st.waiting = []  # the snapshot is the whole state: earlier events are moot
        view = public_view(game, players=[p.value for p in self.players(game, seats)])
        view.update(seat_part(game, seat))
        running = view["clocks"] = clocks(game.to_act(), seats, turn_ends, now)
        # A seat's own deadline is its entry of the clocks everyone sees.
        deadline = next((c["left"] for c in running if c["seat"] == seat), None)
        # The engine builds the view as a plain dict (it may not import protocol/); its shape is
        # the protocol's View (tests/protocol check the engine's output against it).
        return State(
            table=self.table_id,
            seq=seq,
            game=game_id,
            view=cast(View, view),
            events=events,
            deadline=deadline,
        )

    def broadcast(
        self,
        out: list[tuple[Session, Message | StateOut]],
        game: Game,
        seats: Sequence[Seat | None],
        watchers: Sequence[Session],
        *,
        seq: int,
        game_id: int,
        events: list[Event],
        turn_ends: float,
        now: float,
        acted: int | None,
    ) -> None:
        """Every seat's own state and the watchers' (in seat order, then the watchers), added
        to ``out`` (an outbox's items).

        Also notes in each seat what it may do as of this state (:meth:`Seat.note_legal`,
        :meth:`Seat.note_sent`), which the table's ``act`` judges staleness by.
        ``turn_ends``: when the clock of a seat to act runs out, before its bank."""
        players = self.players(game, seats)
        public = public_view(game, players=[])
        del public["players"]  # shared separately, entry by entry
        to_act = game.to_act()
        running = public["clocks"] = clocks(to_act, seats, turn_ends, now)
        # A seat's own deadline is its entry of the clocks everyone sees (computed once).
        left = {c["seat"]: c["left"] for c in running}
        change = StateChange(
            {"type": State.TYPE, "table": self.table_id, "seq": seq, "game": game_id, "events": events},
            public,
            players,
        )
        # Turn states too go to every seat at a game's first and last state (a bot starts and
        # ends its game on them); in between only to the seats that must act.
        everyone = game.is_over() or (bool(events) and events[0]["kind"] == "game_start")
        for i, s in enumerate(seats):
            if s is None:
                continue
            # Only seats in to_act have legal actions; asking for the others would also evict
            # the engine's one-entry cache, which apply() then needs for the seat to act.
            legal: tuple[Action, ...] = game.legal_actions(i) if i in to_act else ()
            s.note_legal(seq, legal, i == acted)
            session = s.session
            if session is None:
                continue
            seat_change = change
            if session.turn_states:
                # Turn states: only what the seat must act on, or enough events to keep a state
                # small; the events in between wait for it and go with its next state, in order.
                if not legal and not everyone and len(s.waiting) + len(events) < TURN_STATES_MAX_EVENTS:
                    s.waiting.extend(events)
                    continue
                if s.waiting:
                    s.waiting.extend(events)
                    seat_change = StateChange({**change.common, "events": s.waiting}, public, players)
                    s.waiting = []
            # The hand's rank groups determine its cards; legal tuples are cached by the engine.
            key = (tuple(game.groups[i].values()), legal)
            part = s.part
            if part is None or key != s.part_key:
                own_part = seat_part(game, i, legal)
                part = s.part = SeatPart(own_part)
                s.part_key = key
                s.note_sent(own_part["legal"], legal)
            own = {"deadline": left[i]} if i in left else {}
            out.append((session, StateOut(seat_change, own, part)))
        if watchers:
            item = StateOut(change, {}, _WATCHER_PART)
            for w in watchers:
                out.append((w, item))
