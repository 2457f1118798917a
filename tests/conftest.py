"""Fixtures shared by every test package: in-process servers on 127.0.0.1 port 0."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.config import Limits, ServerConfig
from server.shell.app import App


@pytest.fixture
async def make_app(tmp_path: Any) -> AsyncIterator[Callable[..., Awaitable[App]]]:
    """``await make_app(limits=Limits(...), password=..., bots=host, web_files=files, ...)``: a started server.

    Its bots play at once (``bot_delay`` 0) unless the test gives a ``bot_delay``: the suite's
    games against bots at tables with people would otherwise wait a second a play."""
    apps: list[App] = []

    async def make(
        *, limits: Limits | None = None, db: str | None = None, bots: Any = None, web_files: Any = None, **settings: Any
    ) -> App:
        settings.setdefault("bot_delay", 0.0)
        cfg = ServerConfig(
            host="127.0.0.1",
            port=0,
            db=db or str(tmp_path / f"server{len(apps)}.sqlite3"),
            limits=limits or Limits(),
            **settings,
        )
        app = App(cfg, bots=bots, web_files=web_files)
        await app.start()
        apps.append(app)
        return app

    yield make
    for app in apps:
        if not app.stopping:
            await app.stop()


# Every async test of a package that serves or opens sockets runs twice: on asyncio's own event
# loop and on uvloop (the extra "fast", which shithead-server uses when it is installed). uvloop
# must be installed (the README's test command installs it): a missing uvloop fails here, it is
# never skipped quietly.
_BOTH_LOOPS = ("tests/server/", "tests/client/", "tests/test_protocol_doc.py")


def pytest_asyncio_loop_factories(config: Any, item: Any) -> dict[str, Callable[[], Any]]:
    import asyncio

    rel = str(item.path.relative_to(config.rootpath)).replace("\\", "/")
    if not rel.startswith(_BOTH_LOOPS):
        return {"asyncio": asyncio.new_event_loop}
    import uvloop

    return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
