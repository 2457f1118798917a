"""The pieces of the restart tests: SDK clients that keep a log of what they saw and of every
action the server acknowledged. The real server they talk to is a child process, a
:class:`tests.live_server.LiveServer`: a killed server starts again on the same port and
database file (the clients' reconnects find it there).

* :class:`RecordingClient` is the SDK's :class:`~client.sdk.Client` with two logs: ``stream``,
  every item its reader took from :meth:`~client.sdk.Client.messages` (server messages and the
  SDK's pseudo-events, in arrival order), and ``acked``, every ``act`` answered by ``ok``.
* :class:`Changes` wakes whoever waits for a condition on those logs: the tests never sleep to
  let something happen, they wait until the logs show it.
* :class:`Pace` holds a table's seats after a number of acknowledged actions until released, so
  that every table is mid-game at once when the server is killed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from client.sdk import Client
from client.sdk.events import Disconnected, Item
from tests.live_server import HOST

#: Reconnect options for every SDK client: quick retries (a restart takes about a second). How
#: long the client keeps trying is the SDK's default: as long as the server keeps the seats.
BACKOFF_INITIAL, BACKOFF_MAX = 0.05, 0.25


class Changes:
    """A pulse fired whenever a log grows; :meth:`until` waits for a condition on the logs."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Return once ``condition()`` holds (checked now and after every change). The caller
        bounds the wait with ``asyncio.timeout``."""
        while not condition():
            await self._event.wait()


class Pace:
    """Lets a table's seats act freely until ``hold_at`` of their actions were acknowledged, then
    holds every further ``act`` until :meth:`release` (the server's own bots play on until it
    is one of the held seats' turn)."""

    def __init__(self, hold_at: int) -> None:
        self.hold_at = hold_at
        self.acked = 0
        self._open = asyncio.Event()

    @property
    def holding(self) -> bool:
        """The table got its ``hold_at`` actions and waits for :meth:`release`."""
        return self.acked >= self.hold_at and not self._open.is_set()

    def release(self) -> None:
        self._open.set()

    async def before_act(self) -> None:
        if self.acked >= self.hold_at:
            await self._open.wait()


@dataclass(frozen=True)
class Acked:
    """An action the server answered with ``ok``.

    ``answered``: the ``seq`` of the state it was decided on (sent in the ``act``);
    ``applied``: the ``seq`` of the state it caused. The server sends an action's ``ok`` before
    the states it causes and after every earlier state, so the newest state the client had
    when the ``ok`` came is the one just before it (:meth:`client.sdk.Client.act` returns that
    seq): ``applied`` is one more. ``after_restart``: the ``ok`` came on a connection made
    after the server was stopped."""

    table: int
    game: int
    seat: int
    action: str
    answered: int
    applied: int
    after_restart: bool


class RecordingClient(Client):
    """An SDK client that logs what its reader saw (``stream``) and what the server acknowledged
    (``acked``); with a :class:`Pace`, it holds its actions when the table's pace says so."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stream: list[Item] = []
        self.acked: list[Acked] = []
        self.pace: Pace | None = None
        self.changes: Changes | None = None

    async def messages(self) -> AsyncGenerator[Item, None]:
        async for item in super().messages():
            self.stream.append(item)
            self._changed()
            yield item

    async def act(self, table: int, seq: int, action: str) -> int:
        if self.pace is not None:
            await self.pace.before_act()
        shown = await super().act(table, seq, action)
        held = self.seats[table]
        self.acked.append(
            Acked(
                table=table,
                game=self.states[table].game,
                seat=held.seat,
                action=action,
                answered=seq,
                applied=shown + 1,
                after_restart=self.reconnects > 0,
            )
        )
        if self.pace is not None:
            self.pace.acked += 1
        self._changed()
        return shown

    def _changed(self) -> None:
        if self.changes is not None:
            self.changes.fire()

    def before_drop(self) -> list[Item]:
        """What the reader saw before the first connection loss (the ``disconnected`` item)."""
        for i, item in enumerate(self.stream):
            if isinstance(item, Disconnected):
                return self.stream[:i]
        return list(self.stream)


async def connect(port: int, name: str, changes: Changes, *, bot: bool = True) -> RecordingClient:
    """A :class:`RecordingClient` logged in as guest ``name`` (a bot unless ``bot`` is false)."""
    client = await RecordingClient.connect(
        HOST, port, client_name=f"durability-test {name}", backoff_initial=BACKOFF_INITIAL, backoff_max=BACKOFF_MAX
    )
    assert isinstance(client, RecordingClient)
    client.changes = changes
    await client.login(name, guest=True, bot=bot)
    return client
