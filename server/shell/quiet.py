"""Quiet logs under hostile clients: at most a few lines a minute per client address.

Whatever a client sends, a failure of its connection is worth one log line (no traceback:
the line says what happened), and a client that fails on purpose again and again must not
fill the server's disk. :class:`AddressLog` lets :data:`LINES_PER_MINUTE` lines an address
through in each minute, then one line saying that the rest of that minute is not logged.
Pure but for the clock it is given; it holds one small entry per address that logged in the
last minute.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["LINES_PER_MINUTE", "AddressLog"]

LINES_PER_MINUTE = 5
_WINDOW = 60.0
_MAX_ADDRESSES = 4096


class AddressLog:
    """Per-address rate-limited warnings for ``logger`` (see the module docstring)."""

    def __init__(self, logger: logging.Logger, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}
        """Address -> (start of its current minute, lines asked for in it)."""

    def warning(self, address: str, message: str, *args: object) -> bool:
        """Log ``message % args`` for ``address`` unless its lines of this minute are used up;
        True if it was logged."""
        now = self.clock()
        start, count = self._windows.get(address, (now, 0))
        if now - start >= _WINDOW:
            start, count = now, 0
        count += 1
        if len(self._windows) >= _MAX_ADDRESSES and address not in self._windows:
            self._forget_old(now)
        self._windows[address] = (start, count)
        if count <= LINES_PER_MINUTE:
            self.logger.warning("%s: " + message, address, *args)
            return True
        if count == LINES_PER_MINUTE + 1:
            self.logger.warning(
                "%s: more connection problems; not logged until %.0f s from now", address, start + _WINDOW - now
            )
        return False

    def _forget_old(self, now: float) -> None:
        for address in [a for a, (start, _) in self._windows.items() if now - start >= _WINDOW]:
            del self._windows[address]
        if len(self._windows) >= _MAX_ADDRESSES:
            self._windows.clear()  # (a flood from thousands of addresses: forget, stay small)
