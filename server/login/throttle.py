"""Failed logins slow down password guessing, per account name and per client address.

Pure and clock-injected (``clock`` is read, never slept on): the shell asks :meth:`LoginThrottle.wait`
before it checks a password and reports the outcome with :meth:`failed` or :meth:`succeeded`.

* The first ``free_per_name`` failures for a name (``free_per_address`` for an address) cost
  nothing; each further one makes the next attempt wait ``base`` seconds, doubling up to ``cap``
  (1, 2, 4 ... 300 s with the defaults). While it waits, no password is checked at all, right or
  wrong: guessing gets at most a few tries per five minutes.
* A success for a name forgets that name's failures. An address's failures are forgotten once
  ``cap`` seconds pass without another one (a success does not clear them, or one account of
  the guesser's own would wipe the slate).
* At most ``max_keys`` names and addresses are tracked; the oldest are forgotten first.

A stranger can thus slow the logins of a real player's name, but not keep them from their seat:
the server lets a login through that carries a seat token held by that name (``login.token``).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Entry:
    failures: int = 0
    last: float = 0.0
    allowed_at: float = 0.0


class LoginThrottle:
    """See the module docstring."""

    def __init__(
        self,
        *,
        free_per_name: int = 3,
        free_per_address: int = 5,
        base: float = 1.0,
        cap: float = 300.0,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = {"name": free_per_name, "address": free_per_address}
        self.base, self.cap, self.max_keys, self.clock = base, cap, max_keys, clock
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()

    def _entry(self, kind: str, key: str, now: float) -> _Entry | None:
        e = self._entries.get((kind, key))
        if e is not None and now - e.last > self.cap and now >= e.allowed_at:
            del self._entries[(kind, key)]  # quiet for long enough: forgotten
            return None
        return e

    def wait(self, name: str, address: str) -> float:
        """Seconds before a login for ``name`` from ``address`` may be checked (0: now)."""
        now = self.clock()
        waits = [
            e.allowed_at - now
            for kind, key in (("name", name.lower()), ("address", address))
            if (e := self._entry(kind, key, now)) is not None
        ]
        return max([0.0, *waits])

    def failed(self, name: str | None, address: str) -> None:
        """A wrong password for ``name`` (None: a wrong server password) from ``address``."""
        now = self.clock()
        for kind, key in (("name", name.lower() if name else None), ("address", address)):
            if key is None:
                continue
            e = self._entry(kind, key, now) or _Entry()
            e.failures += 1
            e.last = now
            over = e.failures - self.free[kind]
            if over > 0:
                e.allowed_at = now + min(self.cap, self.base * 2 ** (over - 1))
            self._entries[(kind, key)] = e
            self._entries.move_to_end((kind, key))
        while len(self._entries) > self.max_keys:
            self._entries.popitem(last=False)

    def succeeded(self, name: str) -> None:
        self._entries.pop(("name", name.lower()), None)
