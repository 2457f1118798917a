"""The event loop our programs run on: uvloop when the optional extra ``fast`` is installed.

uvloop does the same work as asyncio's own loop at a fraction of the cost per read and write,
which is most of what a server or a process of bots does (one frame in, four states out per
action, each a read or a write). Everything works without it; ``SHITHEAD_NO_UVLOOP=1`` turns it
off (for tests that need asyncio's own loop, and to compare).
"""

from __future__ import annotations

import asyncio
import logging
import os

__all__ = ["use_uvloop_if_installed"]


def use_uvloop_if_installed() -> bool:
    """Make uvloop the event loop of the ``asyncio.run`` calls that follow, if it is installed
    and not turned off; return whether it is."""
    if os.environ.get("SHITHEAD_NO_UVLOOP"):
        return False
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    logging.getLogger(__name__).info("using uvloop")
    return True
