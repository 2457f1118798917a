"""Fixtures: in-process servers on 127.0.0.1 port 0 and SDK clients, all cleaned up.

Clients are closed before their servers stop (the ``connect`` fixture depends on
``make_server``, so it is torn down first): a client still connected when the server shuts
down would start reconnecting.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from client.sdk import Client
from server.shell.app import App

logging.getLogger("server").setLevel(logging.WARNING)

MakeServer = Callable[..., Awaitable[App]]
Connect = Callable[..., Awaitable[Client]]


@pytest.fixture
def make_server(make_app: MakeServer) -> MakeServer:
    """``await make_server(limits=Limits(...), **settings)``: a started server (tests/conftest.py)."""
    return make_app


@pytest.fixture
async def server(make_server: MakeServer) -> App:
    return await make_server()


@pytest.fixture
async def connect(make_server: MakeServer) -> AsyncIterator[Connect]:
    """``await connect(app, name=None, mode="msgpack", **options)``: a connected client, logged
    in as guest ``name`` when a name is given; closed after the test."""
    made: list[Client] = []

    async def conn(app: App, name: str | None = None, *, mode: str = "msgpack", **options: Any) -> Client:
        options.setdefault("backoff_initial", 0.02)
        client = await Client.connect("127.0.0.1", app.port, mode=mode, **options)
        made.append(client)
        if name is not None:
            await client.login(name, guest=True)
        return client

    yield conn
    for client in made:
        await client.close()
