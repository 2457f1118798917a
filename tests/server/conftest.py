"""Fixtures: in-process servers on 127.0.0.1 port 0, and raw test clients; all cleaned up."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.shell.app import App
from tests.server.client import TestClient, connect_all

logging.getLogger("server").setLevel(logging.WARNING)


@pytest.fixture
async def app(make_app: Callable[..., Awaitable[App]]) -> App:
    return await make_app()


@pytest.fixture
async def connect(make_app: Any) -> AsyncIterator[Callable[..., Awaitable[TestClient]]]:
    """``await connect(app, mode="msgpack", name="")``: a raw client closed after the test."""
    made: list[TestClient] = []

    async def conn(app: App, mode: str = "msgpack", name: str = "") -> TestClient:
        c = await TestClient.connect(app.port, mode, name)
        made.append(c)
        return c

    conn.made = made  # type: ignore[attr-defined]
    yield conn
    for c in made:
        await c.close()


@pytest.fixture
async def players(connect: Any) -> Callable[..., Awaitable[list[TestClient]]]:
    """``await players(app, ["alice", "bob"], modes)``: connected, logged-in guests."""

    async def make(app: App, names: list[str], modes: Any = "msgpack") -> list[TestClient]:
        clients = await connect_all(app.port, names, modes)
        connect.made.extend(clients)
        return clients

    return make
