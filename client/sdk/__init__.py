"""The asyncio client SDK: :class:`Client` (:mod:`client.sdk.client`: requests, pushed messages,
reconnecting), its vocabulary besides the protocol's messages (:mod:`client.sdk.events`: the
connection events, the errors its requests raise, :class:`HeldSeat`), its transport
(:mod:`client.sdk.link`: one TCP connection) and its reconnect policy
(:mod:`client.sdk.reconnect`: when to try again, when to give up).

Import the public names from here: ``from client.sdk import Client, ServerError``.
"""

from client.sdk.client import Client
from client.sdk.events import (
    PSEUDO_EVENTS,
    ClientClosed,
    Closed,
    ConnectionEvent,
    ConnectionLost,
    Disconnected,
    HeldSeat,
    Item,
    LostSeat,
    Reconnected,
    Reconnecting,
    ResumedSeat,
    ServerError,
)

__all__ = [
    "PSEUDO_EVENTS",
    "Client",
    "ClientClosed",
    "Closed",
    "ConnectionEvent",
    "ConnectionLost",
    "Disconnected",
    "HeldSeat",
    "Item",
    "LostSeat",
    "Reconnected",
    "Reconnecting",
    "ResumedSeat",
    "ServerError",
]
