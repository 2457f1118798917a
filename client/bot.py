"""The bot interface: one required method, :meth:`Bot.choose`, plus optional hooks.

A bot sees exactly what goes over the wire to its seat: the ``view`` of a ``state`` message
(``docs/PROTOCOL.md``, "The view"), whose ``legal`` list holds the action texts it may send,
and the public ``events`` that led to it. Both are typed with the protocol's declarations
(:class:`protocol.payloads.View`, :data:`protocol.payloads.Event`); at run time they are the
plain dicts decoded from the wire. It never sees anything wider, so a bundled bot
cannot cheat, and a bot written against this interface runs unchanged as one of the server's
own bots (``add_bot``, in the server's child process for bots: :mod:`client.hosting.house_process`)
or as a remote process (``shithead-bot``).

Contract for :meth:`Bot.choose`: called only when ``view["legal"]`` is non-empty; must return
one of its strings. It may take its time (the table's clock runs); an exception or a string not
in the list is the runner's business (it logs and falls back to the first legal action).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

from protocol.payloads import Event, GameResult, Tally, View


class Bot:
    """Base class of every bot. Subclasses set :attr:`name` and override :meth:`choose`."""

    name: ClassVar[str] = "bot"

    def __init__(self, rng: random.Random | None = None) -> None:
        #: Randomness comes in here, so a seeded bot is reproducible.
        self.rng = rng if rng is not None else random.Random()

    def choose(self, view: View) -> str:
        """Return one action text from ``view["legal"]`` (required)."""
        raise NotImplementedError

    def observe(self, view: View, events: Sequence[Event]) -> None:
        """Called with every ``state`` this seat receives, before :meth:`choose` when it must act.
        ``events`` are the public events since the previous state (a bot that counts cards
        reads them here)."""

    def on_game_start(self, view: View) -> None:
        """Called with the first view of each game (after the deal, before any action)."""

    def on_game_over(self, result: GameResult, tally: Tally | None) -> None:
        """Called when a game ends, with the ``game_over`` message's ``result`` and ``tally``.
        ``tally`` is None when the game ended while the seat's connection was down: the
        ``game_over`` message was missed, and ``result`` comes from the view's outcome."""
