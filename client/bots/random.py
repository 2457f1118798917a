"""The random bot: a uniformly random legal action, drawn from the bot's own rng.

It knows nothing about the game, so it is the baseline every other bot should beat, and a
good fuzzer: over many games it sends every kind of action the rules allow.
"""

from __future__ import annotations

from typing import ClassVar

from client.bot import Bot
from protocol.payloads import View

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Chooses uniformly among ``view["legal"]`` with :attr:`rng` (seed it to replay a game)."""

    name: ClassVar[str] = "random"

    def choose(self, view: View) -> str:
        """One of ``view["legal"]``, each with the same probability."""
        return str(self.rng.choice(view["legal"]))
