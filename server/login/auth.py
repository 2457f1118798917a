"""Passwords and seat tokens.

* Passwords: ``hashlib.scrypt`` with a random 16-byte salt per account. Scrypt is slow on
  purpose (about 16 MiB and tens of milliseconds per hash), so :class:`PasswordHasher` runs
  it in a thread pool and bounds how many run at once: a burst of logins cannot exhaust
  memory or starve the event loop.
* Seat tokens: 24 random bytes from :mod:`secrets`, given to the client once; only their
  SHA-256 is kept, and a presented token is compared with :func:`hmac.compare_digest`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from concurrent.futures import Executor

SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_LEN = 2**14, 8, 1, 32


def new_salt() -> bytes:
    return secrets.token_bytes(16)


def hash_password(password: str, salt: bytes) -> bytes:
    """The scrypt hash of ``password`` (blocking: call through :class:`PasswordHasher`)."""
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=SCRYPT_N,
        r=SCRYPT_R,
        p=SCRYPT_P,
        maxmem=64 * 1024 * 1024,
        dklen=SCRYPT_LEN,
    )


def new_token() -> tuple[str, bytes]:
    """A new seat token: ``(token for the client, hash to keep)``."""
    token = secrets.token_urlsafe(24)
    return token, token_hash(token)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def token_matches(token: str, stored: bytes) -> bool:
    """Constant-time check of a presented token against a stored hash."""
    return hmac.compare_digest(token_hash(token), stored)


class PasswordHasher:
    """Runs :func:`hash_password` in ``executor``, at most ``limit`` at a time."""

    def __init__(self, executor: Executor | None = None, *, limit: int = 2) -> None:
        self._executor = executor
        self._sem = asyncio.Semaphore(limit)

    async def hash(self, password: str, salt: bytes) -> bytes:
        async with self._sem:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, hash_password, password, salt)

    async def verify(self, password: str, salt: bytes, expected: bytes) -> bool:
        return hmac.compare_digest(await self.hash(password, salt), expected)
