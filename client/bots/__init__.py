"""The bundled bots, by name, imported only when asked for.

``BOTS`` maps a bot's name to ``"module:Class"``; :func:`make_bot` imports the module on first
use (so listing the names costs nothing, and a bot with heavy imports such as the search bot
is loaded only by those who run it).
"""

from __future__ import annotations

import importlib
import random

from client.bot import Bot

__all__ = ["BOTS", "bot_class", "bot_names", "make_bot"]

BOTS: dict[str, str] = {
    "random": "client.bots.random:RandomBot",
    "greedy": "client.bots.greedy:GreedyBot",
    "search": "client.bots.search:SearchBot",
}


def bot_names() -> list[str]:
    """The names of the bundled bots, sorted."""
    return sorted(BOTS)


def bot_class(name: str) -> type[Bot]:
    """The class of bot ``name``. Raises ``ValueError`` (listing the known names) for an
    unknown name; ``ImportError`` if its module cannot be loaded."""
    try:
        target = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(bot_names())}") from None
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise TypeError(f"{target} is not a Bot subclass")
    return cls


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A new bot ``name`` drawing its randomness from ``rng`` (a fresh one when None).
    Raises ``ValueError`` for an unknown name, listing the known ones."""
    return bot_class(name)(rng)
