"""The catalogue of bundled bots: the one place that names them.

Every program that offers a bundled bot reads this catalogue: ``shithead-bot --bot``, the
server's hosted bots (``add_bot``, tournaments' ``bots``), ``shithead-tournament``'s
participants and the terminal client's ``/bot`` command. A bot added here is offered by all of
them.

Each :class:`BotSpec` names the bot's class as ``"module:Class"``, imported on first use (so
listing the names costs nothing, and a bot with heavy imports such as the search bot is loaded
only by those who run it), and says whether the bot thinks long enough to need a worker thread
when it shares an event loop with other work (a server, or many other bots).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from client.bot import Bot

__all__ = ["BOTS", "BotSpec", "bot_class", "bot_names", "bot_spec", "make_bot", "thinks_in_thread"]


@dataclass(frozen=True)
class BotSpec:
    """One bundled bot.

    Attributes:
        name: the name every program knows it by: the bot's *kind* (``add_bot``'s ``bot``,
            ``shithead-bot --bot``), not the player name a bot of this kind logs in with.
        target: its class, as ``"module:Class"`` (imported by :meth:`load`).
        thinks_in_thread: its :meth:`~client.bot.Bot.choose` takes long enough (tens of
            milliseconds or more) that a host sharing its event loop runs it in a worker thread.
    """

    name: str
    target: str
    thinks_in_thread: bool = False

    def load(self) -> type[Bot]:
        """The bot's class. Raises ``ImportError`` if its module cannot be loaded, ``TypeError``
        if the target is not a :class:`~client.bot.Bot` subclass."""
        module_name, _, class_name = self.target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(cls, type) and issubclass(cls, Bot)):
            raise TypeError(f"{self.target} is not a Bot subclass")
        return cls

    def make(self, rng: random.Random | None = None) -> Bot:
        """A new bot drawing its randomness from ``rng`` (a fresh one when None)."""
        return self.load()(rng)


BOTS: Mapping[str, BotSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            BotSpec("random", "client.bots.random:RandomBot"),
            BotSpec("greedy", "client.bots.greedy:GreedyBot"),
            BotSpec("search", "client.bots.search:SearchBot", thinks_in_thread=True),
            BotSpec("ismcts", "client.bots.ismcts:ISMCTSBot", thinks_in_thread=True),
        )
    }
)


def bot_names() -> list[str]:
    """The names of the bundled bots (their kinds), sorted."""
    return sorted(BOTS)


def bot_spec(kind: str) -> BotSpec:
    """The catalogue entry of the bot kind ``kind``. Raises ``ValueError`` (listing the known
    kinds) for an unknown one."""
    try:
        return BOTS[kind]
    except KeyError:
        raise ValueError(f"unknown bot {kind!r}; known bots: {', '.join(bot_names())}") from None


def bot_class(kind: str) -> type[Bot]:
    """The class of bot kind ``kind``. Raises ``ValueError`` (listing the known kinds) for an
    unknown one; ``ImportError`` if its module cannot be loaded."""
    return bot_spec(kind).load()


def make_bot(kind: str, rng: random.Random | None = None) -> Bot:
    """A new bot of kind ``kind`` drawing its randomness from ``rng`` (a fresh one when None).
    Raises ``ValueError`` for an unknown kind, listing the known ones."""
    return bot_spec(kind).make(rng)


def thinks_in_thread(kind: str) -> bool:
    """Whether a bot of kind ``kind`` should think in a worker thread; False for a kind that is
    not in the catalogue (a bot of the user's own runs as its author wrote it)."""
    spec = BOTS.get(kind)
    return spec is not None and spec.thinks_in_thread
