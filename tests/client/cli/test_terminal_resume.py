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
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from client.sdk import Client
from server.app import App
from tests.server.client import TestClient

ROOT = Path(__file__).resolve().parents[3]
SHITHEAD = str(Path(sys.executable).with_name("shithead"))


async def until(changes: asyncio.Event, predicate: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    """Check ``predicate`` now and after every change, until it holds (returns its value);
    fail with ``what`` if ``timeout`` passes first (only against a hang)."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                changes.clear()  # before the check: a change after it is not missed
                if value := predicate():
                    return value
                await changes.wait()
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def messages_of(client: TestClient | Client, changes: asyncio.Event) -> asyncio.Task[None]:
    """A task that sets ``changes`` whenever ``client`` receives a message."""

    async def raw(c: TestClient) -> None:
        seen = len(c.frames)

        def news() -> bool:
            return len(c.frames) > seen or c.closed.is_set()

        while not c.closed.is_set():
            await c.wait_for(news, 3600)
            seen = len(c.frames)
            changes.set()

    async def sdk(c: Client) -> None:
        async for _ in c.messages():
            changes.set()

    return asyncio.get_running_loop().create_task(raw(client) if isinstance(client, TestClient) else sdk(client))


class Terminal:
    """One tmux session of 100x30 running a command; its screen as text. Everything the command
    writes to the terminal is also copied (``tmux pipe-pane``) to a FIFO that the test's event
    loop reads: each arrival sets :attr:`changes`. tmux updates its screen before it copies the
    output, so a screen captured after an arrival shows it.

    The session lives on a tmux server of its own (its socket in the test's directory, no user
    configuration) that stays up while it has no session (``exit-empty off``) until :meth:`release`. By default a
    tmux server exits when its last session is killed, and a ``new-session`` that reaches it
    while it is exiting fails with "server exited unexpectedly": a test that closes its session
    and runs the next command at once (or another test's process, on a shared server) would
    race that exit."""

    def __init__(self, tmp: Path) -> None:
        self.name = f"shithead-test-{uuid.uuid4().hex[:8]}"
        self.tmp = tmp
        self._tmux("start-server", ";", "set-option", "-s", "exit-empty", "off")
        self.changes = asyncio.Event()
        self.fifo = tmp / "terminal-output.fifo"
        os.mkfifo(self.fifo)
        # Opened for reading and writing: the FIFO then always has a writer (us), so it never
        # reports end-of-file between one tmux session and the next.
        self._fd = os.open(self.fifo, os.O_RDWR | os.O_NONBLOCK)
        asyncio.get_running_loop().add_reader(self._fd, self._output)

    def _output(self) -> None:
        try:
            os.read(self._fd, 1 << 16)
        except BlockingIOError:
            return
        self.changes.set()

    def run(self, *argv: str, stdin_text: str | None = None) -> None:
        env = {
            "SHITHEAD_SEATS_FILE": str(self.tmp / "seats.json"),
            "XDG_STATE_HOME": str(self.tmp),
            "SHITHEAD_NO_UVLOOP": "1",
        }
        command = " ".join(_quote(a) for a in argv)
        if stdin_text is not None:
            command = f"printf '%s\\n' {_quote(stdin_text)} | {command}"
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        shell = f"cd {_quote(str(ROOT))} && export {exports} && {command}; echo EXITED-$?; sleep 600"
        self._tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", self.name, shell)
        # Output before this is on the screen already; output after it is copied to the FIFO.
        self._tmux("pipe-pane", "-t", self.name, f"cat >> {_quote(str(self.fifo))}")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name, check=False).stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def close(self) -> None:
        self._tmux("kill-session", "-t", self.name, check=False)

    def release(self) -> None:
        """Stop reading the FIFO and stop this terminal's tmux server (after :meth:`close`)."""
        asyncio.get_running_loop().remove_reader(self._fd)
        os.close(self._fd)
        self._tmux("kill-server", check=False)

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run a tmux command on this terminal's own server."""
        return subprocess.run(
            ["tmux", "-S", str(self.tmp / "tmux.socket"), "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=check,
        )


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.fixture
async def terminal(tmp_path: Path) -> AsyncIterator[Terminal]:
    assert shutil.which("tmux"), "tmux is needed for the terminal tests"
    term = Terminal(tmp_path)
    yield term
    term.close()
    term.release()


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
async def test_the_running_client_returns_to_its_seat_after_a_server_kill(
    tmp_path: Path, terminal: Terminal, stop: signal.Signals
) -> None:
    """The server dies (kill -9) or stops (SIGTERM: the client says why, once) mid-game and is
    started again on the same database and port: the running client counts down, reconnects
    and is back in its seat with no key pressed."""
    port, db = _free_port(), tmp_path / "server.sqlite3"

    def start_server() -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--db",
                str(db),
                "--restart-grace",
                "5",
            ],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=open(tmp_path / "server.log", "a"),
            env={**os.environ, "SHITHEAD_NO_UVLOOP": "1"},
        )
        assert proc.stdout is not None and "listening" in proc.stdout.readline()
        return proc

    server = start_server()
    bob = None
    watching = None
    try:
        bob = await Client.connect("127.0.0.1", port, backoff_max=0.3)
        watching = messages_of(bob, terminal.changes)  # summaries and reconnects
        await bob.login("bob", guest=True)
        t = await bob.create_table("evening", "classic", 2, action_seconds=600)
        await bob.join(t, 1)
        terminal.run(SHITHEAD, f"127.0.0.1:{port}", "--name", "alice", "--guest")
        await until(terminal.changes, lambda: "Lobby" in terminal.screen(), what="the lobby")
        terminal.keys(f"join {t}", "Enter")
        await until(terminal.changes, lambda: t in bob.summaries and bob.summaries[t]["free"] == 0, what="alice sits")
        await bob.start(t)
        await until(terminal.changes, lambda: "Setup" in terminal.screen(), what="the game on alice's screen")

        server.send_signal(stop)
        assert server.wait() == (0 if stop == signal.SIGTERM else -signal.SIGKILL)
        await until(terminal.changes, lambda: "reconnecting in" in terminal.screen(), what="the countdown")
        assert "clock paused" in terminal.screen()  # no turn clock counting down meanwhile
        if stop == signal.SIGTERM:
            await until(
                terminal.changes, lambda: "The server is stopping (SIGTERM)" in terminal.screen(), what="the reason"
            )
        server = start_server()

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
        server.kill()
        server.wait()
