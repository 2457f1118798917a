"""The real ``shithead`` program in a real pseudo-terminal (tmux): a player who quits the client
mid-game and starts it again is back in the seat without a key pressed, a registered player and
a guest alike; across a ``kill -9`` and restart of the server the running client takes its seat
back by itself.

Waiting is on conditions (the server's state, the screen's text), checked again whenever the
terminal shows new output (tmux copies it to a pipe the test reads) or a client of the test gets
a message; nothing waits a guessed amount of time.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from client.sdk import Client
from server.shell.app import App
from tests.client.cli.terminal import SHITHEAD, Terminal, messages_of, until
from tests.live_server import HOST, LiveServer
from tests.server.client import TestClient


def seat_of(app: App, table: int, name: str) -> Any:
    return next(s for s in app.tables[table].seats if s is not None and s.name == name)


async def quit_and_come_back(app: App, terminal: Terminal, login: list[str], stdin_text: str) -> None:
    """alice (the CLI) sits at a 2-seat table with bob, the game starts, she quits with Ctrl-C,
    starts the client again and must be back in her seat with no key pressed."""
    bob = await TestClient.connect(app.port, name="bob")
    await bob.login("bob")
    watching = messages_of(bob, terminal.changes)  # the server's news about alice's seat
    t = (
        await bob.ok(
            {"type": "create_table", "name": "evening", "preset": "classic", "seats": 2, "action_seconds": 600},
            "table_created",
        )
    )["table"]
    await bob.ok({"type": "join", "table": t, "seat": 1}, "joined")
    address = f"127.0.0.1:{app.port}"
    terminal.run(SHITHEAD, address, *login, stdin_text=stdin_text)
    await until(terminal.changes, lambda: "Lobby" in terminal.screen(), what="the lobby")
    terminal.keys(f"join {t}", "Enter")
    await until(terminal.changes, lambda: app.tables[t].seats[0] is not None, what="alice sits")
    await bob.ok({"type": "start", "table": t}, "ok")
    await until(terminal.changes, lambda: "Setup" in terminal.screen(), what="the game on alice's screen")

    terminal.keys("C-c")
    await until(terminal.changes, lambda: "EXITED-0" in terminal.screen(), what="the client quits")
    await until(terminal.changes, lambda: seat_of(app, t, "alice").session is None, what="alice's seat is away")
    terminal.close()

    terminal.run(SHITHEAD, address, *login, stdin_text=stdin_text)
    await until(
        terminal.changes, lambda: seat_of(app, t, "alice").session is not None, what="alice is back without a key"
    )
    await until(terminal.changes, lambda: "Setup" in terminal.screen(), what="the game on alice's screen again")
    await bob.wait_for(lambda: any(f.get("type") == "presence" and f["event"] == "returned" for f in bob.frames))
    await bob.close()
    await watching


async def test_a_registered_player_quits_and_is_back_in_the_seat(make_app: Any, terminal: Terminal) -> None:
    app = await make_app()
    await quit_and_come_back(app, terminal, ["--name", "alice", "--password-stdin"], "secret-pw")


async def test_a_guest_quits_and_is_back_through_the_kept_token(
    make_app: Any, terminal: Terminal, tmp_path: Path
) -> None:
    app = await make_app()
    kept = tmp_path / "kept" / "tokens.json"
    await quit_and_come_back(app, terminal, ["--name", "alice", "--guest", "--seats-file", str(kept)], "")
    assert kept.stat().st_mode & 0o777 == 0o600  # private to the user
    assert not (tmp_path / "seats.json").exists()  # the flag wins over $SHITHEAD_SEATS_FILE


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
async def test_the_running_client_returns_to_its_seat_after_a_server_kill(
    tmp_path: Path, terminal: Terminal, stop: signal.Signals
) -> None:
    """The server dies (kill -9) or stops (SIGTERM: the client says why, once) mid-game and is
    started again on the same database and port: the running client counts down, reconnects
    and is back in its seat with no key pressed."""
    server = LiveServer(
        tmp_path / "server.sqlite3",
        tmp_path / "server.stderr",
        ["--restart-grace", "5"],
        env={"SHITHEAD_NO_UVLOOP": "1"},
    )
    # Started in a thread (it blocks until the server listens), as is every wait for it below,
    # so that this loop goes on reading the terminal and serving bob meanwhile.
    await asyncio.to_thread(server.start)
    bob = None
    watching = None
    try:
        bob = await Client.connect(HOST, server.port, backoff_max=0.3)
        watching = messages_of(bob, terminal.changes)  # summaries and reconnects
        await bob.login("bob", guest=True)
        t = await bob.create_table("evening", "classic", 2, action_seconds=600)
        await bob.join(t, 1)
        terminal.run(SHITHEAD, f"{HOST}:{server.port}", "--name", "alice", "--guest")
        await until(terminal.changes, lambda: "Lobby" in terminal.screen(), what="the lobby")
        terminal.keys(f"join {t}", "Enter")
        await until(terminal.changes, lambda: t in bob.summaries and bob.summaries[t]["free"] == 0, what="alice sits")
        await bob.start(t)
        await until(terminal.changes, lambda: "Setup" in terminal.screen(), what="the game on alice's screen")

        server.send_signal(stop)
        assert await asyncio.to_thread(server.wait) == (0 if stop == signal.SIGTERM else -signal.SIGKILL)
        await until(terminal.changes, lambda: "reconnecting in" in terminal.screen(), what="the countdown")
        assert "clock paused" in terminal.screen()  # no turn clock counting down meanwhile
        if stop == signal.SIGTERM:
            await until(
                terminal.changes, lambda: "The server is stopping (SIGTERM)" in terminal.screen(), what="the reason"
            )
        await asyncio.to_thread(server.start)

        def alice_back() -> bool:
            seats = bob.summaries[t]["seats"] if t in bob.summaries else []
            return bool(seats) and seats[0] is not None and seats[0]["away"] is False

        await until(terminal.changes, lambda: bob.connected, what="bob reconnected")
        await until(terminal.changes, alice_back, 30, what="alice is back without a key")
        await until(
            terminal.changes,
            lambda: "Setup" in terminal.screen() and "connected" in terminal.screen(),
            what="alice's screen shows the game again",
        )
        await until(
            terminal.changes, lambda: f"Seat 0 at table {t} is yours again" in terminal.screen(), what="the resume told"
        )
        if stop == signal.SIGTERM:
            assert terminal.screen().count("The server is stopping (SIGTERM)") == 1
    finally:
        if bob is not None:
            await bob.close()
        if watching is not None:
            await watching
        if server.running:
            server.kill()
