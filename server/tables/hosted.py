"""Bundled bots that the server runs itself (``add_bot``, a tournament's ``bots``, stand-ins).

The server does not import the client: the composition root (``server.__main__``) gives it a
:class:`BotHost`, which runs a bot as a client of this server. :class:`HostedBots` keeps the
one-time logins those bots use and names them; a bot logs in with its one-time password and is
then a guest bot like any other (:mod:`server.login.accounts` asks :meth:`HostedBots.claim`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol

from protocol.names import name_key
from server.login.auth import token_hash, token_matches

log = logging.getLogger(__name__)


class BotHost(Protocol):
    """Runs bundled bots for ``add_bot`` (injected by the composition root, ``server.__main__``,
    so that ``server`` does not import ``client``). A bot connects to this server like any
    client and logs in with the one-time ``name`` and ``password`` it is given."""

    def names(self) -> Sequence[str]:
        """The bots it can run."""
        ...

    async def seat(
        self,
        bot: str,
        *,
        host: str,
        port: int,
        table: int,
        seat: int | None,
        name: str,
        password: str,
        token: str | None = None,
        delay: float = 0.0,
    ) -> int:
        """Start ``bot``, seat it at ``table`` (``seat`` or the first free one; with ``token``, it
        resumes the seat that token holds) and return its seat once it sits there; it then plays
        until its table goes away. While a person holds a seat at its table, it waits ``delay``
        seconds from the state that asks it to play to its play (the server's ``bot_delay``).
        Raises on failure."""
        ...

    async def enter(self, bot: str, *, host: str, port: int, tournament: int, name: str, password: str) -> None:
        """Start ``bot`` as participant ``name`` of ``tournament``: it registers and plays the
        tables it is seated at until the tournament is over. Returns once it has registered."""
        ...

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Have ``callback`` called whenever every bot it runs is gone at once without having
        been stopped (the process they ran in died), so that the server can start them again."""
        ...

    async def stop(self) -> None:
        """Stop every bot it runs."""
        ...


Spawn = Callable[[Coroutine[Any, Any, None]], None]
"""Runs a coroutine as a task of the server (kept until done, awaited at shutdown)."""


class HostedBots:
    """The bundled bots of one server: their one-time logins, names and runs.

    ``address`` gives where the bots connect (host and port of this server, once it listens);
    ``spawn`` runs a bot's start-up as a server task; ``delay``: the wait of the bots it seats at
    tables (``bot_delay``) before each play while a person sits there."""

    def __init__(
        self, host: BotHost | None, *, address: Callable[[], tuple[str, int]], spawn: Spawn, delay: float = 0.0
    ) -> None:
        self.host = host
        self.delay = delay
        self.address = address
        self.spawn = spawn
        self.logins: dict[str, str] = {}
        """Name -> one-time password of a bot being started (gone once used or failed)."""
        self.kinds: dict[str, str] = {}
        """Name -> the kind of bundled bot (``greedy``...) of every bot started."""
        self.next_number = 1
        """Names are ``<kind>-<number>``; the number is kept across restarts."""
        self.taken: Callable[[str], bool] = lambda key: False
        """Whether somebody holds the name of this key (a new bot's name skips those)."""

    def names(self) -> list[str]:
        """The kinds of bot this server runs (none without a host)."""
        return list(self.host.names()) if self.host is not None else []

    def new_name(self, kind: str) -> str:
        """A name for a new bot of ``kind`` that nobody holds: ``<kind>-<number>``."""
        while True:
            name = f"{kind}-{self.next_number}"
            self.next_number += 1
            if not self.taken(name_key(name)) and name not in self.logins:
                return name

    def claim(self, name: str, password: str | None) -> str | None:
        """The kind of bot ``name`` if ``password`` is its one-time password (used up now)."""
        expected = self.logins.get(name)
        if expected is None or password is None or not token_matches(password, token_hash(expected)):
            return None
        del self.logins[name]
        return self.kinds.get(name, "bot")

    def _login_for(self, kind: str, name: str) -> str:
        password = secrets.token_urlsafe(24)
        self.logins[name] = password
        self.kinds[name] = kind
        return password

    async def seat(self, kind: str, name: str, *, table: int, seat: int | None, token: str | None = None) -> int:
        """Start bot ``kind`` as ``name`` at ``table`` (a join, or with ``token`` a resume) and
        return its seat once it sits there. Raises what the bot host raises."""
        assert self.host is not None
        password = self._login_for(kind, name)
        host, port = self.address()
        try:
            return await self.host.seat(
                kind,
                host=host,
                port=port,
                table=table,
                seat=seat,
                name=name,
                password=password,
                token=token,
                delay=self.delay,
            )
        finally:
            self.logins.pop(name, None)  # used or failed: never good again

    def reseat(self, kind: str, name: str, *, table: int, seat: int, token: str) -> None:
        """Start bot ``kind`` as ``name`` to resume ``seat`` at ``table`` (after a restart)."""

        async def run() -> None:
            try:
                await self.seat(kind, name, table=table, seat=seat, token=token)
            except Exception as exc:
                log.warning("bot %s could not take a seat at table %d: %s", name, table, exc)

        self.spawn(run())

    def enter(self, kind: str, name: str, *, tournament: int) -> None:
        """Start bot ``kind`` as participant ``name`` of ``tournament`` (it registers itself)."""
        assert self.host is not None
        host_ = self.host
        password = self._login_for(kind, name)

        async def run() -> None:
            host, port = self.address()
            try:
                await host_.enter(kind, host=host, port=port, tournament=tournament, name=name, password=password)
            except Exception as exc:
                log.warning("bundled bot %s could not enter tournament %d: %s", name, tournament, exc)
            finally:
                self.logins.pop(name, None)  # used or failed: never good again

        self.spawn(run())

    async def stop(self) -> None:
        if self.host is not None:
            await self.host.stop()
