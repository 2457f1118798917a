"""The pieces of the restart tests: the real server as a child process, and SDK clients that
keep a log of what they saw and of every action the server acknowledged.

* :class:`ServerProcess` runs ``python -m server`` on a fixed port and database file, so that a
  killed server can be started again on the same ones (the clients' reconnects find it there).
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
import contextlib
import signal
import socket
import sys
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from client.sdk import Client
from client.sdk_events import Disconnected, Item

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 30.0
"""Safety net for a server start (not an assertion about speed)."""
STOP_SECONDS = 30.0
"""Safety net for a server to exit after SIGTERM."""
#: Reconnect options for every SDK client: quick retries (a restart takes about a second). How
#: long the client keeps trying is the SDK's default: as long as the server keeps the seats.
BACKOFF_INITIAL, BACKOFF_MAX = 0.05, 0.25


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the kernel picks it; the socket is closed again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``shithead-server`` as a child process on one port and one database file.

    :meth:`start` may be called again after :meth:`stop`: the new process uses the same port
    and file. Each start writes its stdout and stderr to ``server-N.stdout`` and
    ``server-N.stderr`` in ``workdir`` (read them when a test fails)."""

    def __init__(self, workdir: Path, *, action_seconds: float, restart_grace: float) -> None:
        self.workdir = workdir
        self.db = workdir / "server.sqlite3"
        self.port = free_port()
        self.action_seconds = action_seconds
        self.restart_grace = restart_grace
        self.starts = 0
        self.proc: asyncio.subprocess.Process | None = None
        self._stdout_pump: asyncio.Task[None] | None = None
        self._stderr: IO[bytes] | None = None

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "server",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--db",
            str(self.db),
            "--action-seconds",
            f"{self.action_seconds:g}",
            "--restart-grace",
            f"{self.restart_grace:g}",
            "--no-advertise",
        ]

    @property
    def listening_line(self) -> str:
        """What the server prints once it listens (the contract of ``shithead-server``)."""
        return f"Shithead server listening on {HOST}:{self.port}  (database: {self.db})"

    def output(self, stream: str = "stderr") -> str:
        """The text the latest start wrote to ``stream`` so far (for failure messages)."""
        path = self.workdir / f"server-{self.starts}.{stream}"
        return path.read_text(errors="replace") if path.exists() else ""

    async def start(self) -> None:
        """Start the server and return once it prints that it listens. Fails with its stderr if
        it exits first."""
        assert self.proc is None or self.proc.returncode is not None, "the server is already running"
        self.starts += 1
        self._stderr = open(self.workdir / f"server-{self.starts}.stderr", "wb")  # closed by _reap
        self.proc = await asyncio.create_subprocess_exec(
            *self.command(),
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._stderr,
        )
        listening: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._stdout_pump = asyncio.create_task(self._pump_stdout(self.proc, listening))
        try:
            async with asyncio.timeout(STARTUP_SECONDS):
                line = await listening
        except BaseException:
            await self.kill_if_running()
            raise
        assert line == self.listening_line

    async def _pump_stdout(self, proc: asyncio.subprocess.Process, listening: asyncio.Future[str]) -> None:
        """Copy the server's stdout to its file; resolve ``listening`` with the listening line."""
        assert proc.stdout is not None
        with open(self.workdir / f"server-{self.starts}.stdout", "wb") as out:
            async for raw in proc.stdout:
                out.write(raw)
                out.flush()
                line = raw.decode(errors="replace").rstrip("\r\n")
                if not listening.done() and line.startswith("Shithead server listening on"):
                    listening.set_result(line)
        if not listening.done():
            rc = await proc.wait()
            listening.set_exception(
                AssertionError(f"the server exited ({rc}) before listening; stderr:\n{self.output()}")
            )

    async def stop(self, sig: signal.Signals) -> int:
        """Send ``sig`` and wait for the process to end; returns its exit status (``-9`` after
        SIGKILL)."""
        assert self.proc is not None and self.proc.returncode is None, "the server is not running"
        self.proc.send_signal(sig)
        try:
            async with asyncio.timeout(STOP_SECONDS):
                rc = await self.proc.wait()
        except TimeoutError:
            raise AssertionError(f"the server did not exit within {STOP_SECONDS:g} s of {sig.name}") from None
        await self._reap()
        return rc

    async def kill_if_running(self) -> None:
        """Teardown: SIGKILL the server if it still runs, and close its files."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        await self._reap()

    async def _reap(self) -> None:
        if self._stdout_pump is not None:
            with contextlib.suppress(Exception):
                await self._stdout_pump
            self._stdout_pump = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


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
