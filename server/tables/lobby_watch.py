"""Connections that follow the lobby (``watch_lobby``): the list of open tables is pushed to
them as it changes, instead of being asked for again and again.

``watch_lobby`` is answered by ``tables`` (the list now); from then on, whenever a table opens
or closes or its summary changes (who sits where, status, watchers, owner), the connection gets
``lobby_update`` with the whole list. The first change that finds the list up to date starts a
wait of :data:`COALESCE` seconds, and the list is pushed at its end: a burst of changes (a
bot sitting down, a game dealt, a player leaving) makes one message, and a follower gets at
most one every :data:`COALESCE` seconds however busy the server is. ``unwatch_lobby`` (or the
connection's end) stops it.

Like ``list_tables`` the push is a read: it waits for no commit of the journal, only behind what
is held for its connection already (:meth:`server.shell.session.ClientSession.send`).

What changes the list is reported by :meth:`LobbyWatch.changed`, called by the shell for every
outbox a table marked (:attr:`server.tables.table.Outbox.lobby`) and by the lobby for a table closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from protocol.messages import LobbyUpdate, Ok, Tables, UnwatchLobby, WatchLobby
from protocol.payloads import TableSummary
from server.shell.reply import Handlers, Reply
from server.shell.session import ClientSession, Hold

__all__ = ["COALESCE", "LobbyWatch"]

log = logging.getLogger(__name__)

COALESCE = 0.5
"""Seconds from the first change to the push that reports it (and everything after it)."""


class LobbyWatch:
    """The followers of the lobby and the push they are owed (see the module docstring).
    ``summaries`` gives every open table's summary, as ``list_tables`` answers."""

    def __init__(self, summaries: Callable[[], list[TableSummary]]) -> None:
        self.summaries = summaries
        self.followers: set[ClientSession] = set()
        self._timer: asyncio.TimerHandle | None = None

    def register(self, handlers: Handlers) -> None:
        handlers.add(WatchLobby, self._watch, writes=False, viewers=True)
        handlers.add(UnwatchLobby, self._unwatch, writes=False, viewers=True)

    def _watch(self, s: ClientSession, msg: WatchLobby) -> Reply:
        self.followers.add(s)
        return Reply(Tables(id=msg.id, tables=self.summaries()))

    def _unwatch(self, s: ClientSession, msg: UnwatchLobby) -> Reply:
        self.followers.discard(s)
        return Reply(Ok(id=msg.id))

    def gone(self, s: ClientSession) -> None:
        """``s`` has disconnected."""
        self.followers.discard(s)

    def changed(self) -> None:
        """The list changed: push it to every follower once :data:`COALESCE` seconds have passed
        (unless a push is on its way already: it will show this change too)."""
        if self.followers and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(COALESCE, self._push)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _push(self) -> None:
        self._timer = None
        if not self.followers:
            return
        msg = LobbyUpdate(tables=self.summaries())
        for s in list(self.followers):
            if s.closing:
                self.followers.discard(s)
                continue
            try:
                s.send([msg], held=Hold.BEHIND)
            except Exception:
                log.exception("pushing the lobby to %r failed; the others get it", s)
