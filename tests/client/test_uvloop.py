"""The bundled bots take their seats on a server that runs under uvloop (the extra "fast"):
their client relies on the transport's interface, not on asyncio's transport class."""

from __future__ import annotations

import asyncio
from pathlib import Path

import uvloop

from client.hosting.house import HouseBots
from server.config import ServerConfig
from server.shell.app import App
from tests.server.client import TestClient


def test_a_bundled_bot_sits_and_plays_under_uvloop(tmp_path: Path) -> None:
    async def scenario() -> None:
        assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
        app = App(ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "uv.sqlite3")), bots=HouseBots())
        await app.start()
        try:
            alice = await TestClient.connect(app.port, name="alice")
            await alice.login("alice")
            t = (
                await alice.ok(
                    {"type": "create_table", "name": "uv", "preset": "classic", "seats": 2, "action_seconds": 600},
                    "table_created",
                )
            )["table"]
            await alice.ok({"type": "join", "table": t}, "joined")
            await alice.ok({"type": "add_bot", "table": t, "bot": "greedy"}, "ok")
            assert app.tables[t].seats[1] is not None and app.tables[t].seats[1].session is not None
            await alice.ok({"type": "start", "table": t}, "ok")
            # The bot plays its own part: after alice's ready the game leaves setup only if it did too.
            state = await alice.recv_until("state")
            await alice.ok({"type": "act", "table": t, "seq": state["seq"], "action": "ready"}, "ok")
            await alice.wait_for(lambda: alice.states[t]["view"]["phase"] != "setup", 10)
            await alice.close()
        finally:
            await app.stop()

    uvloop.run(scenario())
