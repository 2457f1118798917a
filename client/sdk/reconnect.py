"""When a dropped client tries again, and when it gives up: the reconnect policy of
:class:`client.sdk.Client`, apart from the mechanics of one attempt (which the client does).

:func:`retry_until_back` runs attempts with back-off (``backoff_initial`` doubling up to
``backoff_max``, with jitter so that many bots do not stampede) for as long as the server keeps
a seat: ``window`` seconds from the drop (:func:`default_window`: the server's
``reconnect_grace`` plus its ``restart_grace`` plus a margin, so that a restart of the server is a
pause, not the end), and at most ``attempts`` attempts if given. A refusal that says "not now"
(its ``retry_after``) delays the next attempt at least that long; a refused login
(:data:`AUTH_FATAL`) ends the retrying at once.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping

from protocol.errors import ErrorCode

from .events import Reconnected, Reconnecting, ServerError

__all__ = ["AUTH_FATAL", "NO_RECONNECT", "RECONNECT_MARGIN", "TRANSIENT", "default_window", "retry_until_back"]

log = logging.getLogger(__name__)

#: Seconds added to the server's graces in the default reconnect window: the seat's grace
#: starts when the server notices the drop (or restarts), a little after the client does.
RECONNECT_MARGIN = 30.0

#: Fatal codes that mean this client itself is broken: reconnecting would fail the same way.
NO_RECONNECT = frozenset(
    {
        ErrorCode.BAD_FRAME,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.HANDSHAKE_REQUIRED,
    }
)
#: Login refusals that end reconnecting: retrying would be refused again.
AUTH_FATAL = frozenset({ErrorCode.AUTH_FAILED, ErrorCode.GUESTS_NOT_ALLOWED, ErrorCode.SERVER_PASSWORD_REQUIRED})
#: Refusals of a resume that say "not now": the attempt is tried again (after retry_after), the
#: seat is not given up.
TRANSIENT = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.STORAGE_FAILED, ErrorCode.LOGIN_THROTTLED})


def seconds(value: object, default: float) -> float:
    """A limit from ``welcome.limits`` as seconds, or ``default`` when the server gave none."""
    return float(value) if isinstance(value, (int, float)) and value else default


def default_window(limits: Mapping[str, object]) -> float:
    """Seconds to keep trying after a drop, from the server's ``welcome.limits``."""
    return seconds(limits.get("reconnect_grace"), 120.0) + seconds(limits.get("restart_grace"), 30.0) + RECONNECT_MARGIN


async def retry_until_back(
    attempt_once: Callable[[int], Awaitable[Reconnected]],
    *,
    announce: Callable[[Reconnecting], None],
    failed: Callable[[], None],
    window: float,
    attempts: int | None,
    backoff_initial: float,
    backoff_max: float,
) -> Reconnected | str:
    """Call ``attempt_once(n)`` for n = 1, 2... until one returns, announcing each wait first and
    calling ``failed()`` after each failed attempt. Returns the successful attempt's event, or
    why it gave up (the window is over, the attempts are spent, the login was refused).

    ``attempt_once`` raises :class:`~client.sdk.events.ServerError` for a refusal and
    ``OSError`` or ``TimeoutError`` for a connection that failed; anything else propagates."""
    delay = backoff_initial
    give_up_at = time.monotonic() + window
    floor = 0.0  # the server's retry_after of the last refusal: no attempt before it
    attempt = 0
    while attempts is None or attempt < attempts:
        left = give_up_at - time.monotonic()
        if left <= 0.001:
            break
        # Jitter (bots do not stampede), never below what the server asked for; the last
        # attempt is made at the end of the window, not skipped.
        wait = min(max(delay * random.uniform(0.5, 1.0), floor), left)
        if floor > left:
            break  # the server will not take us back within the window
        attempt += 1
        announce(Reconnecting(attempt, round(wait, 3), round(left, 3)))
        await asyncio.sleep(wait)
        delay, floor = min(delay * 2, backoff_max), 0.0
        try:
            return await attempt_once(attempt)
        except ServerError as exc:
            if exc.code in AUTH_FATAL:
                return f"login refused after reconnecting: {exc}"
            if exc.retry_after is not None:  # LOGIN_THROTTLED, RATE_LIMITED, STORAGE_FAILED
                floor = exc.retry_after
            log.info("reconnect attempt %d refused: %s", attempt, exc)
        except (OSError, TimeoutError) as exc:  # ConnectionLost is an OSError too
            log.info("reconnect attempt %d failed: %s", attempt, exc)
        failed()
    return f"could not reconnect after {attempt} attempts in {window:g} s"
