"""A real pseudo-terminal for the terminal client's tests: tmux, its screen as text, and waiting
on conditions that are checked again whenever the terminal shows new output (tmux copies it to
a pipe the test reads) or a client of the test gets a message; nothing waits a guessed time."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from client.sdk import Client
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
    """One tmux session (100x30 unless :meth:`run` says otherwise) running a command; its
    screen as text. Everything the command writes to the terminal is also copied (``tmux
    pipe-pane``) to a FIFO that the test's event loop reads: each arrival sets
    :attr:`changes`. tmux updates its screen before it copies the output, so a screen captured
    after an arrival shows it.

    The session lives on a tmux server of its own (its socket in the test's directory, no user
    configuration) that stays up while it has no session (``exit-empty off``) until
    :meth:`release`. By default a tmux server exits when its last session is killed, and a
    ``new-session`` that reaches it while it is exiting fails with "server exited
    unexpectedly": a test that closes its session and runs the next command at once (or
    another test's process, on a shared server) would race that exit."""

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

    def run(self, *argv: str, stdin_text: str | None = None, size: tuple[int, int] = (100, 30)) -> None:
        """Run ``argv`` in a new session of ``size`` (columns, rows)."""
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
        self._tmux("new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-s", self.name, shell)
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
