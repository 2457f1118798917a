"""The scenario's own reader of the organiser's messages (:func:`tests.durability.scenario.organise`),
on scripted streams: the orders in which a real run can deliver them, made certain."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from client.sdk import Client
from client.sdk.events import Disconnected, Item, Reconnected, Reconnecting
from protocol.messages import GoingAway, TournamentOver
from tests.durability.harness import RecordingClient
from tests.durability.scenario import organise

TID = 7
FINAL: Any = {"tournament": TID, "status": "finished", "standings": []}


class _Script(Client):
    """A client whose messages are a fixed list (no connection)."""

    script: list[Item]

    async def messages(self) -> AsyncGenerator[Item, None]:
        for item in self.script:
            yield item


class ScriptedClient(RecordingClient, _Script):
    """:class:`RecordingClient` (it logs what its reader takes) over a scripted stream."""

    def __init__(self, script: list[Item]) -> None:
        super().__init__("127.0.0.1", 1)
        self.script = script


async def test_an_end_pushed_before_the_reconnect_event_is_read_on_to_that_event() -> None:
    """The last game ends just as the organiser logs in again: ``tournament_over`` comes before
    the SDK's ``reconnected``. The reader returns the final info only once the reconnect is in
    the log (the check of the restart needs it there)."""
    back = Reconnected(1, [], [], [])
    script: list[Item] = [
        GoingAway(reason="stopping", returning=True),
        Disconnected("closed", None, True),
        Reconnecting(1, 0.05, 120.0),
        TournamentOver(tournament=TID, info=FINAL),
        back,
    ]
    client = ScriptedClient(script)
    back_at: list[float] = []
    assert await organise(client, TID, back_at) == FINAL
    assert client.stream == script
    assert len(back_at) == 1


async def test_an_end_before_any_drop_ends_the_reading_at_once() -> None:
    """Connected all along: ``tournament_over`` ends the reading (what follows is not read)."""
    script: list[Item] = [TournamentOver(tournament=TID, info=FINAL), Disconnected("closed", None, True)]
    client = ScriptedClient(script)
    back_at: list[float] = []
    assert await organise(client, TID, back_at) == FINAL
    assert client.stream == script[:1] and back_at == []
