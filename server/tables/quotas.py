"""Quotas: how much of the server one player and one address may hold, and a tournament's bounds.

A home server is shared: one guest must not be able to take every table, nor a tournament
every table and the bots' CPU. So (limits of :class:`server.config.Limits`, documented in
``docs/PROTOCOL.md`` §13; 0 means no limit):

* **tables**: an identity (an account, or one guest: :mod:`server.login.identity`) owns at most
  ``tables_per_player`` tables at once, and the tables opened from one IP address that are still
  open number at most ``tables_per_address`` (one person can log in as several guests). A table
  counts for its owner until it closes or its owner leaves it (ownership passes on); tournament
  tables count for nobody. Refused with ``QUOTA_EXCEEDED`` and ``retry_after`` =
  ``reconnect_grace``, the soonest a table its people have left closes by itself (leaving a
  table nobody else is at closes it at once);
* **tournaments**: an identity organises at most ``tournaments_per_player`` unfinished
  tournaments, an address at most ``tournaments_per_address``. Refused with ``QUOTA_EXCEEDED``
  and ``retry_after`` = :data:`TOURNAMENT_RETRY` (a tournament frees its place when it
  finishes, or at once when cancelled);
* **a tournament's size**: ``concurrency`` at most ``tournament_tables`` (never more than half of
  ``max_tables``), ``games`` at most ``tournament_games``, bundled bots at most
  ``tournament_bots``: beyond, ``BAD_TOURNAMENT`` (waiting does not help);
* **the bots' share**: at most ``bot_tables`` tournament tables with bundled bots play at once,
  server-wide (the tournament service makes the others wait their turn, fairly), and the
  composition root runs tournaments' bundled bots in a process of their own at a lower CPU
  priority (``tournament_nice``), so that they use the CPU the other tables do not need.

The server's operators (``operators``: account names) are held to no quota of a player or an
address (the bounds of a tournament still apply), and may cancel any tournament.

Addresses are counted in memory only: after a restart the tables and tournaments that come back
count for their owners and organisers, not for an address.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import CreateTournament
from server.config import Limits, ServerConfig
from server.login.identity import account_identity
from server.tables.coordination import TableError

__all__ = ["TOURNAMENT_RETRY", "Quotas"]

TOURNAMENT_RETRY = 60.0
"""``retry_after`` of a refused tournament: how often it is worth asking again."""


def _protocol_max(name: str) -> int:
    """The largest value ``create_tournament.<name>`` may carry on the wire."""
    for spec in CreateTournament.FIELDS:
        if spec.name == name:
            return int(spec.hi if spec.hi is not None else spec.max_len or 0)
    raise KeyError(name)


MAX_CONCURRENCY = _protocol_max("concurrency")
MAX_GAMES = _protocol_max("games")
MAX_BOTS = _protocol_max("bots")


class Quotas:
    """The quota checks of one server (see the module docstring). Each ``check_*`` raises a
    :class:`~server.tables.coordination.TableError` for a refusal and returns otherwise."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config

    @property
    def _lim(self) -> Limits:
        return self.config.limits

    def operator(self, identity: str) -> bool:
        """Whether ``identity`` is one of the server's operators (an account listed in ``operators``)."""
        return any(identity == account_identity(name) for name in self.config.operators)

    # --- what a client must know (welcome.limits)

    @property
    def tournament_tables(self) -> int:
        """The largest concurrency of a tournament here."""
        half = max(1, self._lim.max_tables // 2)
        own = self._lim.tournament_tables or MAX_CONCURRENCY
        return min(own, half, MAX_CONCURRENCY)

    @property
    def tournament_games(self) -> int:
        return min(self._lim.tournament_games or MAX_GAMES, MAX_GAMES)

    @property
    def tournament_bots(self) -> int:
        return min(self._lim.tournament_bots or MAX_BOTS, MAX_BOTS)

    @property
    def bot_tables(self) -> int | None:
        """Tournament tables with bundled bots at once, server-wide (None: no limit)."""
        return self._lim.bot_tables or None

    # --- the checks

    def check_tables(self, identity: str, *, owned: int, from_address: int) -> None:
        """A new table for ``identity``, which owns ``owned`` open tables; ``from_address`` open
        tables were opened from its address."""
        lim = self._lim
        if self.operator(identity):
            return
        why = None
        if lim.tables_per_player and owned >= lim.tables_per_player:
            why = f"you have {owned} tables open, as many as one player may here"
        elif lim.tables_per_address and from_address >= lim.tables_per_address:
            why = f"{from_address} tables opened from your address are open, as many as one address may here"
        if why is not None:
            raise TableError(
                ErrorCode.QUOTA_EXCEEDED,
                why + ": close one (leave a table nobody else is at) or try again later",
                retry_after=self.config.reconnect_grace,
            )

    def check_tournaments(self, identity: str, *, organised: int, from_address: int) -> None:
        """A new tournament for ``identity``, which organises ``organised`` unfinished
        tournaments; ``from_address`` unfinished tournaments were created from its address."""
        lim = self._lim
        if self.operator(identity):
            return
        why = None
        if lim.tournaments_per_player and organised >= lim.tournaments_per_player:
            why = f"you organise {organised} unfinished tournaments, as many as one player may here"
        elif lim.tournaments_per_address and from_address >= lim.tournaments_per_address:
            why = f"{from_address} unfinished tournaments were created from your address, as many as one address may"
        if why is not None:
            raise TableError(
                ErrorCode.QUOTA_EXCEEDED,
                why + ": wait for one to finish, or cancel_tournament",
                retry_after=TOURNAMENT_RETRY,
            )

    def check_tournament(self, *, concurrency: int, games: int, bots: int) -> None:
        """A tournament's size (``create_tournament``) within this server's bounds."""
        for what, asked, most, limit in (
            ("concurrency", concurrency, self.tournament_tables, "tournament_tables"),
            ("games", games, self.tournament_games, "tournament_games"),
            ("bots", bots, self.tournament_bots, "tournament_bots"),
        ):
            if asked > most:
                raise TableError(
                    ErrorCode.BAD_TOURNAMENT,
                    f"{what} {asked} is more than this server allows a tournament: at most {most} "
                    f"(welcome.limits.{limit})",
                )
