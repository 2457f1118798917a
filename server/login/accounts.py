"""Login and accounts: guests, registered names (created at their first login), bot accounts,
viewers, the server password, the one-time logins of the bundled bots, login tokens, and the
failed-login throttle.

Who logs in is an identity (:mod:`server.login.identity`), never just a name:

* an account is proven by its password, or by a login token an earlier login was given;
* a guest is a new identity at its first login; it is the same guest again when it comes back
  with its login token, or with the token of a seat it holds (``login.token``);
* a name is free for a newcomer only if nobody else holds it (:meth:`Accounts.holder`: a
  connected session, a seat, a table's owner, a running tournament's organiser, by key) and no
  account is registered under it. The check and the taking of the name happen in one step of
  the event loop, so two logins racing for one name cannot both get it; two first logins racing
  to register one name are taken one after the other (the second one then logs in to the
  account the first created, if its password is the same);
* a viewer (``login.viewer``, the read-only pages) is a new identity at every login, whatever
  ``allow_guests`` says (it only reads: :attr:`server.shell.reply.Handler.viewers`), once the
  server password is right. The server names it ``viewer-<n>`` (the name it sent is not looked
  at) and that name holds nothing: nobody is kept from a name by a viewer, and a viewer never
  meets NAME_TAKEN.

Every login but the bundled bots' and the viewers' is given a login token (``logged_in.token``),
kept hashed in the database until ``logout`` ends it. Passwords are hashed with scrypt in a thread
pool, a bounded number at a time (:class:`server.login.auth.PasswordHasher`); accounts and login
tokens are read and written on the writer thread.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import ParamSpec, TypeVar

from protocol.errors import WRONG_SERVER_PASSWORD, ErrorCode
from protocol.messages import LoggedIn, Login, Logout, Ok
from protocol.names import name_error, name_key, normalize_name
from server.config import ServerConfig
from server.login.auth import PasswordHasher, new_salt, new_token, token_hash, token_matches
from server.login.identity import (
    account_identity,
    guest_identity,
    house_identity,
    is_guest,
    suggest_name,
    viewer_identity,
)
from server.login.throttle import LoginThrottle
from server.shell.reply import Reply
from server.shell.session import ClientSession
from server.storage.durability import StoreCalls
from server.storage.journal import STORAGE_RETRY
from server.storage.store import Store
from server.tables.coordination import TableError
from server.tables.hosted import HostedBots

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")


class Accounts:
    """Answers ``login`` and ``logout`` (see the module docstring).

    ``store`` gives the open store; ``holder(key)`` tells which identity holds the name of that
    key on this server (a connected session, a seat, an owner...), if any; ``seat_holder(token)``
    gives the identity and name of the seat whose token this is, if any (a player coming back:
    not throttled; a guest: its identity back)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        db: StoreCalls,
        store: Callable[[], Store],
        hosted: HostedBots,
        holder: Callable[[str], str | None],
        seat_holder: Callable[[str], tuple[str, str] | None],
    ) -> None:
        self.config = config
        self.db = db
        self.store = store
        self.hosted = hosted
        self.holder = holder
        self.seat_holder = seat_holder
        self.hasher = PasswordHasher(limit=config.limits.scrypt_concurrency)
        self.throttle = LoginThrottle()
        self._registering: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        """Name key -> the lock of the logins to that account name (one at a time: the first may
        create it), and how many logins use it (it goes when none does)."""
        self._reserved: dict[str, str] = {}
        """Name key -> the identity of a login that checked the name free and awaits its end."""
        self._viewers = itertools.count(1)
        """The numbers of the viewers' names (``viewer-1``, ``viewer-2``...), one per login."""

    def held_by(self, key: str) -> str | None:
        """The identity holding the name of ``key``: on the server, or by a login in progress."""
        return self._reserved.get(key) or self.holder(key)

    async def login(self, s: ClientSession, msg: Login) -> LoggedIn | None:
        """Log ``s`` in; returns the answer (None if the connection went away meanwhile).
        Raises :class:`TableError` for a refused login."""
        if msg.viewer:
            self._check_server_password(s, msg)
            return self._viewer(s, msg)
        kind = self.hosted.claim(msg.name, msg.password)
        if kind is not None:
            # A bundled bot started by this server: a guest bot whatever the server's settings.
            if s.closing:
                return None
            s.name, s.identity, s.bot, s.guest, s.logged_in, s.house = (
                msg.name,
                house_identity(msg.name),
                True,
                True,
                True,
                kind,
            )
            return LoggedIn(id=msg.id, name=s.name, guest=True, bot=True)
        name = normalize_name(msg.name)
        problem = name_error(name)
        if problem is not None:
            raise TableError(ErrorCode.BAD_NAME, problem)
        self._check_server_password(s, msg)
        if msg.login_token is not None:
            return await self._with_login_token(s, msg, name, msg.login_token)
        if msg.guest:
            return await self._guest(s, msg, name)
        return await self._account(s, msg, name)

    def _check_server_password(self, s: ClientSession, msg: Login) -> None:
        """Refuse the login unless it carries the server's password (when the server has one);
        a wrong one counts against the address, as a wrong account password does."""
        password = self.config.password
        if password is None:
            return
        if msg.server_password is None:
            raise TableError(ErrorCode.SERVER_PASSWORD_REQUIRED, "this server needs server_password")
        self._not_throttled(None, s.address)
        if not token_matches(msg.server_password, token_hash(password)):
            self.throttle.failed(None, s.address)  # guessable too
            raise TableError(ErrorCode.AUTH_FAILED, "wrong server password", reason=WRONG_SERVER_PASSWORD)

    def _viewer(self, s: ClientSession, msg: Login) -> LoggedIn | None:
        """Log ``s`` in as a new viewer (see the module docstring): no name is checked or taken,
        and no login token is given (a viewer has nothing to come back to: a reload is a new
        viewer, which costs the server nothing)."""
        if s.closing:
            return None
        s.name, s.identity, s.viewer, s.logged_in = f"viewer-{next(self._viewers)}", viewer_identity(), True, True
        return LoggedIn(id=msg.id, name=s.name, guest=False, bot=False, viewer=True)

    async def _guest(self, s: ClientSession, msg: Login, name: str) -> LoggedIn | None:
        if not self.config.allow_guests:
            raise TableError(ErrorCode.GUESTS_NOT_ALLOWED, "this server does not allow guests")
        key = name_key(name)
        identity = None
        if msg.token is not None:
            seat = self.seat_holder(msg.token)
            if seat is not None and is_guest(seat[0]) and name_key(seat[1]) == key:
                identity = seat[0]  # the guest who holds that seat, back
        if await self.db(self.store().account, name) is not None:
            raise TableError(
                ErrorCode.NAME_TAKEN,
                f"{name} is a registered name: log in with its password, or pick another name",
                suggestion=await self._suggest(name),
            )
        if s.closing:
            return None
        identity = identity or guest_identity()
        await self._take(s, name, identity, guest=True, bot=msg.bot)
        return await self._logged_in(s, msg)

    async def _account(self, s: ClientSession, msg: Login, name: str) -> LoggedIn | None:
        if not msg.password:
            raise TableError(ErrorCode.AUTH_FAILED, "a password is needed (or log in as a guest)")
        key = name_key(name)
        if not self._holds_seat(msg, key):
            self._not_throttled(key, s.address)
        store = self.store()
        identity = account_identity(name)
        async with self._one_at_a_time(key):
            account = await self.db(store.account, name)
            if account is None:
                async with self._reserve(name, identity):
                    salt = new_salt()
                    pw_hash = await self.hasher.hash(msg.password, salt)
                    if not await self._write(store.create_account, name, salt, pw_hash, bot=msg.bot):
                        # (another server on the same file, which the store's lock prevents)
                        raise TableError(ErrorCode.AUTH_FAILED, "that name was just registered elsewhere")
                    log.info("registered %s%s", name, " (bot)" if msg.bot else "")
                    if s.closing:
                        return None
                    await self._take(s, name, identity, guest=False, bot=msg.bot)
            elif not await self.hasher.verify(msg.password, account.salt, account.hash):
                self.throttle.failed(key, s.address)
                raise TableError(ErrorCode.AUTH_FAILED, "wrong name or password")
            else:
                self.throttle.succeeded(key)
                if s.closing:
                    return None
                # (a bot account is marked as a bot everywhere)
                await self._take(s, account.name, identity, guest=False, bot=account.bot or msg.bot)
        return await self._logged_in(s, msg)

    async def _with_login_token(self, s: ClientSession, msg: Login, name: str, token: str) -> LoggedIn | None:
        key = name_key(name)
        if not self._holds_seat(msg, key):
            self._not_throttled(key, s.address)
        found = await self.db(self.store().login, token_hash(token))
        if found is None or name_key(found.name) != key:
            self.throttle.failed(key, s.address)
            raise TableError(
                ErrorCode.AUTH_FAILED, "this login token is not valid for this name (it ended with logout?)"
            )
        guest = is_guest(found.identity)
        if guest and not self.config.allow_guests:
            raise TableError(ErrorCode.GUESTS_NOT_ALLOWED, "this server does not allow guests")
        if s.closing:
            return None
        await self._take(s, found.name, found.identity, guest=guest, bot=found.bot or msg.bot)
        s.login_hash = token_hash(token)
        return LoggedIn(id=msg.id, name=s.name, guest=s.guest, bot=s.bot, token=token)

    def _holds_seat(self, msg: Login, key: str) -> bool:
        """Whether the login carries the token of a seat held under its name (a player coming
        back: not throttled)."""
        seat = self.seat_holder(msg.token) if msg.token is not None else None
        return seat is not None and name_key(seat[1]) == key

    async def _check_free(self, name: str, identity: str) -> None:
        """Raise NAME_TAKEN (with a free name suggested) if somebody other than ``identity`` holds
        ``name``; awaits nothing when it is free, so the caller may take it in the same step."""
        holder = self.held_by(name_key(name))
        if holder is not None and holder != identity:
            raise TableError(
                ErrorCode.NAME_TAKEN,
                f"somebody else is {name} on this server now; pick another name",
                suggestion=await self._suggest(name),
            )

    async def _take(self, s: ClientSession, name: str, identity: str, *, guest: bool, bot: bool) -> None:
        """Log ``s`` in as ``identity`` under ``name`` if nobody else holds the name; in the same
        step of the event loop as the check, so that no other login takes it meanwhile."""
        await self._check_free(name, identity)
        s.name, s.identity, s.guest, s.bot, s.logged_in = name, identity, guest, bot, True

    async def _logged_in(self, s: ClientSession, msg: Login) -> LoggedIn:
        """The answer to a login with a password or as a guest: with a new login token, kept
        (hashed) in the database first. If the database cannot be written now, the answer has
        no token (the login itself needs none)."""
        token, hashed = new_token()
        try:
            await self.db(self.store().add_login, hashed, s.identity, s.name, bot=s.bot)
        except Exception as exc:
            log.warning("no login token for %s: the database cannot be written (%s)", s.name, exc)
            return LoggedIn(id=msg.id, name=s.name, guest=s.guest, bot=s.bot)
        s.login_hash = hashed
        return LoggedIn(id=msg.id, name=s.name, guest=s.guest, bot=s.bot, token=token)

    def logout(self, s: ClientSession, msg: Logout) -> Reply:
        """End the session's login token, answer ``ok``, then close the connection."""

        async def end() -> Ok:
            if s.login_hash is not None:
                await self._write(self.store().drop_login, s.login_hash)
                s.login_hash = None
            # Closed once the ok is written (close() waits for what is held for a commit).
            asyncio.get_running_loop().call_soon(s.close)
            return Ok(id=msg.id)

        return Reply(later=end())

    async def _write(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``call`` on the writer thread; a database that cannot be written (a full disk) is
        the client's STORAGE_FAILED (retry later), not an internal error."""
        try:
            return await self.db(call, *args, **kwargs)
        except sqlite3.Error as exc:
            log.warning("an account write failed: %s", exc)
            raise TableError(
                ErrorCode.STORAGE_FAILED,
                "the server cannot write to its database (disk full?); try again later",
                retry_after=STORAGE_RETRY,
            ) from None

    async def _suggest(self, name: str) -> str:
        """A free name like ``name`` (nobody holds it, no account has it)."""
        tried: set[str] = set()
        while True:
            candidate = suggest_name(name, lambda key: key in tried or self.held_by(key) is not None)
            if await self.db(self.store().account, candidate) is None:
                return candidate
            tried.add(name_key(candidate))

    @asynccontextmanager
    async def _one_at_a_time(self, key: str) -> AsyncIterator[None]:
        """Logins to one account name, one after the other (the first may create it)."""
        lock, users = self._registering.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._registering[key]

    @asynccontextmanager
    async def _reserve(self, name: str, identity: str) -> AsyncIterator[None]:
        """Hold ``name`` for ``identity`` while its account is created (nobody else may take
        it meanwhile); refused with NAME_TAKEN if somebody holds it now."""
        await self._check_free(name, identity)
        key = name_key(name)
        self._reserved[key] = identity
        try:
            yield
        finally:
            self._reserved.pop(key, None)

    def _not_throttled(self, name: str | None, address: str) -> None:
        wait = self.throttle.wait(name or "", address)
        if wait > 0:
            what = "for this name" if name else "from your address"
            raise TableError(
                ErrorCode.LOGIN_THROTTLED,
                f"too many failed logins {what}: try again in {math.ceil(wait)} s",
                retry_after=round(wait, 3),
            )
