"""Login and accounts: guests, registered names (created at their first login), bot accounts,
the server password, the one-time logins of the bundled bots, and the failed-login throttle.

Passwords are hashed with scrypt in a thread pool, a bounded number at a time
(:class:`server.auth.PasswordHasher`); accounts are read and created on the writer thread.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from protocol.errors import ErrorCode
from protocol.messages import LoggedIn, Login
from server.auth import PasswordHasher, new_salt, token_hash, token_matches
from server.config import ServerConfig
from server.coordination import TableError
from server.durability import StoreCalls
from server.hosted import HostedBots
from server.session import ClientSession
from server.store import Store
from server.throttle import LoginThrottle

log = logging.getLogger(__name__)


class Accounts:
    """Answers ``login`` (see the module docstring).

    ``store`` gives the open store; ``holds_seat(name, token)`` tells whether ``token`` is a
    seat token of ``name`` (a player coming back is not throttled)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        db: StoreCalls,
        store: Callable[[], Store],
        hosted: HostedBots,
        holds_seat: Callable[[str, str], bool],
    ) -> None:
        self.config = config
        self.db = db
        self.store = store
        self.hosted = hosted
        self.holds_seat = holds_seat
        self.hasher = PasswordHasher(limit=config.limits.scrypt_concurrency)
        self.throttle = LoginThrottle()

    async def login(self, s: ClientSession, msg: Login) -> LoggedIn | None:
        """Log ``s`` in; returns the answer (None if the connection went away meanwhile).
        Raises :class:`TableError` for a refused login."""
        kind = self.hosted.claim(msg.name, msg.password)
        if kind is not None:
            # A bundled bot started by this server: a guest bot whatever the server's settings.
            if s.closing:
                return None
            s.name, s.bot, s.guest, s.logged_in, s.house = msg.name, True, True, True, kind
            return LoggedIn(id=msg.id, name=s.name, guest=True, bot=True)
        cfg = self.config
        if cfg.password is not None:
            if msg.server_password is None:
                raise TableError(ErrorCode.SERVER_PASSWORD_REQUIRED, "this server needs server_password")
            self._not_throttled(None, s.address)
            if not token_matches(msg.server_password, token_hash(cfg.password)):
                self.throttle.failed(None, s.address)  # guessable too
                raise TableError(ErrorCode.AUTH_FAILED, "wrong server password")
        store = self.store()
        account = await self.db(store.account, msg.name)
        if msg.guest:
            if not cfg.allow_guests:
                raise TableError(ErrorCode.GUESTS_NOT_ALLOWED, "this server does not allow guests")
            if account is not None:
                raise TableError(ErrorCode.AUTH_FAILED, f"{msg.name} is a registered name; log in with its password")
        else:
            if not msg.password:
                raise TableError(ErrorCode.AUTH_FAILED, "a password is needed (or log in as a guest)")
            if msg.token is None or not self.holds_seat(msg.name, msg.token):
                self._not_throttled(msg.name, s.address)
            if account is None:
                salt = new_salt()
                pw_hash = await self.hasher.hash(msg.password, salt)
                if not await self.db(store.create_account, msg.name, salt, pw_hash, bot=msg.bot):
                    raise TableError(ErrorCode.AUTH_FAILED, "that name was just taken; try again")
                log.info("registered %s%s", msg.name, " (bot)" if msg.bot else "")
            elif not await self.hasher.verify(msg.password, account.salt, account.hash):
                self.throttle.failed(msg.name, s.address)
                raise TableError(ErrorCode.AUTH_FAILED, "wrong name or password")
            else:
                self.throttle.succeeded(msg.name)
                s.bot = account.bot  # a bot account is marked as a bot everywhere
        if s.closing:
            return None
        s.name = account.name if account is not None and not msg.guest else msg.name
        s.bot = s.bot or msg.bot
        s.guest = msg.guest
        s.logged_in = True
        return LoggedIn(id=msg.id, name=s.name, guest=s.guest, bot=s.bot)

    def _not_throttled(self, name: str | None, address: str) -> None:
        wait = self.throttle.wait(name or "", address)
        if wait > 0:
            what = f"for {name}" if name else "from your address"
            raise TableError(
                ErrorCode.LOGIN_THROTTLED,
                f"too many failed logins {what}: try again in {math.ceil(wait)} s",
                retry_after=round(wait, 3),
            )
