"""Play on the server's ladder: join it, then play every ladder game the server seats this bot at.

The ladder seats its members as a tournament seats its participants: ``seated`` with
``tournament`` 0 (PROTOCOL.md, "The ladder"), one table per game, closed by the server when the
game ends. So :class:`LadderPlayer` is a :class:`~client.hosting.tournament_player.TournamentPlayer` of
tournament 0 whose "registration" is ``ladder_join`` with the presets the bot plays: a fresh bot
per table, each table's messages to a :class:`~client.hosting.bot_runner.BotRunner` of its own. After a
reconnect (the network dropped, or the server restarted) it sends ``ladder_join`` again, which
changes nothing on a server that still has it as a member, and the server goes on seating it.
Nothing ends the run but the client closing (or the caller cancelling it): a ladder has no end.

    player = LadderPlayer(client, lambda game: make_bot("greedy"), presets=("classic",))
    await player.run()        # until the client closes or the task is cancelled
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from client.bot import Bot
from client.hosting.tournament_player import TournamentPlayer
from client.sdk import Client
from protocol.messages import LadderJoin

__all__ = ["LADDER_TOURNAMENT", "LadderPlayer"]

log = logging.getLogger(__name__)

LADDER_TOURNAMENT = 0
"""``seated.tournament`` of a ladder game (tournaments are numbered from 1)."""


class LadderPlayer(TournamentPlayer):
    """Plays the ladder for the logged-in ``client`` (a bot *account*: the server refuses
    guests with ``NOT_INVITED``) on ``presets``.

    Args:
        client: connected and logged in as a bot with an account; the player is the only
            reader of its messages.
        make_bot: builds the bot for one table, given the server's game id.
        presets: the presets the bot plays (at least one; the server checks the names and
            refuses an unknown one with ``BAD_RULES``, raised by :meth:`run` as
            :class:`~client.sdk.ServerError`).
        think_in_thread, on_registered: as for :class:`TournamentPlayer` (``on_registered``
            after each ``ladder_join`` the server accepted).
    """

    def __init__(
        self,
        client: Client,
        make_bot: Callable[[int], Bot],
        presets: Sequence[str],
        *,
        think_in_thread: bool = False,
        on_registered: Callable[[], None] | None = None,
    ) -> None:
        if not presets:
            raise ValueError("a ladder player plays at least one preset")
        super().__init__(
            client, make_bot, LADDER_TOURNAMENT, think_in_thread=think_in_thread, on_registered=on_registered
        )
        self.presets = tuple(presets)

    async def register(self) -> None:
        """Join the ladder (again, after a reconnect). Raises :class:`~client.sdk.ServerError`."""
        await self.client.request(LadderJoin, presets=self.presets)
        log.info("%s is on the ladder (%s)", self.client.name, ", ".join(self.presets))
        self.registered.set()
        if self.on_registered is not None:
            self.on_registered()
