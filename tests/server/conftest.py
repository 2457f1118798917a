"""Fixtures: in-process servers on 127.0.0.1 port 0, and raw test clients; all cleaned up."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.app import App
from server.config import Limits, ServerConfig
from tests.server.client import TestClient, connect_all

logging.getLogger("server").setLevel(logging.WARNING)


@pytest.fixture
async def make_app(tmp_path: Any) -> AsyncIterator[Callable[..., Awaitable[App]]]:
    """``await make_app(limits=Limits(...), password=..., bots=host, ...)``: a started server."""
    apps: list[App] = []

    async def make(*, limits: Limits | None = None, db: str | None = None, bots: Any = None, **settings: Any) -> App:
        cfg = ServerConfig(host="127.0.0.1", port=0, db=db or str(tmp_path / f"server{len(apps)}.sqlite3"),
                           limits=limits or Limits(), **settings)
        app = App(cfg, bots=bots)
        await app.start()
        apps.append(app)
        return app

    yield make
    for app in apps:
        if not app.stopping:
            await app.stop()


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
