"""The rate limit of one connection: two token buckets, pure (the time is passed in).

Every message costs a token of the first bucket (``burst`` tokens, ``per_second`` more each
second). A message that finds it empty is refused, and each refusal costs a token of a second
bucket of the same size and rate; when that one is empty too, the connection is not read from
until a refusal can be paid for again (:class:`server.shell.session.ClientSession` pauses).
So a client that ignores ``retry_after`` cannot get frames out of the server faster than twice
the rate limit.
"""

from __future__ import annotations

import math
from enum import Enum

__all__ = ["RateLimit", "Verdict"]


class Verdict(Enum):
    """What :meth:`RateLimit.admit` decided about one message."""

    ADMIT = "admit"
    """Handle it."""
    REFUSE = "refuse"
    """Refuse it with ``RATE_LIMITED`` (:meth:`RateLimit.retry_after` says for how long)."""
    PAUSE = "pause"
    """Not even a refusal can be paid for: stop reading for :meth:`RateLimit.pause_for`."""


class RateLimit:
    """The two buckets of one connection, full at ``now``."""

    def __init__(self, per_second: float, burst: int, now: float) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = self.burst
        self.refilled = now
        self.refusals = self.burst
        """The second bucket: what refusals may still cost before reading pauses."""
        self.refusals_refilled = now

    def admit(self, now: float) -> Verdict:
        """Charge one message arriving at ``now`` (monotonic seconds, never going back)."""
        tokens = min(self.burst, self.tokens + (now - self.refilled) * self.per_second)
        self.refilled = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return Verdict.ADMIT
        self.tokens = tokens
        # The refusals' bucket fills at the same rate; it is only looked at (and brought up to
        # date, from its own timestamp) when a refusal is due, which gives the same value.
        refusals = min(self.burst, self.refusals + (now - self.refusals_refilled) * self.per_second)
        self.refusals_refilled = now
        if refusals < 1.0:
            self.refusals = refusals
            return Verdict.PAUSE
        self.refusals = refusals - 1.0
        return Verdict.REFUSE

    def retry_after(self) -> float:
        """Seconds until the first bucket holds a token again (at least a millisecond, rounded
        up to one): the ``retry_after`` of a refusal."""
        return max(0.001, math.ceil((1.0 - self.tokens) / self.per_second * 1000) / 1000)

    def pause_for(self) -> float:
        """Seconds until a refusal can be paid for again (after :attr:`Verdict.PAUSE`)."""
        return (1.0 - self.refusals) / self.per_second

    def refund(self) -> None:
        """Give back the token of the message just admitted (an applied ``act``: the turn order
        paces those, so bots may play as fast as the game goes)."""
        self.tokens = min(self.burst, self.tokens + 1.0)
