"""Periodic work, twice a second: handshake and idle timeouts, abandoned tables, owners who
stayed away, and the table clocks (the default action for a seat whose time is up).

One sweeper for the whole server instead of a timeout around every read (docs/ARCHITECTURE.md, "The asyncio shell").

Error handling
    Every connection and every table is swept in its own ``try``: an exception for one is
    logged and the others are swept all the same (one broken table never stops the clocks
    of the others).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from protocol.errors import ErrorCode
from protocol.messages import Error
from server.config import ServerConfig
from server.shell.session import ClientSession
from server.tables.coordination import FinishedGame
from server.tables.lobby import Lobby
from server.tables.table import Outbox, Table

log = logging.getLogger(__name__)


class Sweeper:
    """One round of periodic work (:meth:`sweep`); the server calls it from its timer task.

    ``deliver`` journals and sends an outbox; ``game_over`` is told of games the clock ended."""

    def __init__(
        self,
        config: ServerConfig,
        lobby: Lobby,
        sessions: set[ClientSession],
        *,
        deliver: Callable[[Outbox], None],
        game_over: Callable[[Table, FinishedGame], None],
    ) -> None:
        self.config = config
        self.lobby = lobby
        self.sessions = sessions
        self.deliver = deliver
        self.game_over = game_over

    def sweep(self, now: float, *, paused: bool) -> None:
        """Sweep connections and tables at monotonic time ``now``; with ``paused`` (the
        database cannot be written) the clocks of running games wait."""
        lim = self.config.limits
        for s in list(self.sessions):
            try:
                # (not while a login read in time is being checked: its answer comes first)
                if not s.logged_in and not s.waiting and now - s.connected_at > lim.handshake_timeout:
                    s.send([Error(code=ErrorCode.HANDSHAKE_TIMEOUT, message="no hello and login in time")])
                    s.close()
                elif now - s.last_active > lim.idle_timeout:
                    text = "no message for too long (send ping to stay)"
                    s.send([Error(code=ErrorCode.IDLE_TIMEOUT, message=text)])
                    s.close()
            except Exception:
                log.exception("sweeping %r failed; the other connections are swept", s)
        # People connected to the server (a bot table's owner may start its games from the lobby).
        people = frozenset(s.identity for s in self.sessions if s.logged_in and s.house is None)
        for t in list(self.lobby.tables.values()):
            try:
                self.sweep_table(t, now, paused=paused, people=people)
            except Exception:
                log.exception("sweeping table %d failed; the other tables are swept", t.id)

    def sweep_table(self, t: Table, now: float, *, paused: bool, people: frozenset[str] = frozenset()) -> None:
        """One table's periodic work; ``people``: the lower-case names of the persons connected."""
        grace = self.config.reconnect_grace
        if not t.running and t.abandoned(now, grace, owner_connected=t.owner_id in people):
            log.info("removing abandoned table %d %r", t.id, t.name)
            self.lobby.drop_table(t.id)
        elif not t.running:
            out = Outbox()
            t.check_owner(now, grace, out)
            self.deliver(out)
        elif not paused:
            out = Outbox()
            t.check_owner(now, grace, out)
            finished = t.tick(now, grace, out)
            self.deliver(out)
            if finished is not None:
                self.game_over(t, finished)
