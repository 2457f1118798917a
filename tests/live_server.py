"""The real server, ``python -m server``, as a child process on 127.0.0.1: for the tests that need
a whole server process: the browser tests (tests/web), the restart tests (tests/durability) and
the terminal client's resume after a server restart (tests/client/cli/test_terminal_resume.py).

A :class:`LiveServer` keeps one port and one database file for its life, so that a server that
was killed or stopped starts again where its clients (and their reconnects) find it. Its methods
block: an asyncio test runs the ones that wait (:meth:`~LiveServer.start`,
:meth:`~LiveServer.wait`) in a thread, ``asyncio.to_thread``, so that its clients go on meanwhile.
Nothing listens but on 127.0.0.1.
"""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 60.0
"""Safety net for the server's first line (a busy 2-core machine is slow to import), not an
assertion about speed."""
STOP_SECONDS = 30.0
"""Safety net for a signalled server to save and exit."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the kernel picks it; the socket is closed again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class LiveServer:
    """The real server (``python -m server``) in a child process on 127.0.0.1:port.

    The command line is ``--host 127.0.0.1 --port PORT --db DB --no-advertise --bot-delay 0`` and
    then ``options`` (which may give another ``--bot-delay``: the last one counts); its
    environment is this process's plus ``env``. The port is chosen once (a free
    one) and kept by every start, as is ``db``. Every start appends the server's stderr to
    ``stderr_path``; every stdout line of every start is kept in :attr:`output`."""

    def __init__(
        self, db: Path, stderr_path: Path, options: Sequence[str] = (), *, env: Mapping[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.db = db
        self.options = tuple(options)
        self.env = dict(env or {})
        self.url = f"http://{HOST}:{self.port}/"
        self.output: list[str] = []  # every stdout line of every start, the first ones included
        self._stderr_path = stderr_path
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def __call__(self) -> LiveServer:
        """Start the server (see start()) and return it: ``server = live_server()``."""
        self.start()
        return self

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
            "--no-advertise",
            "--bot-delay",  # the bots play at once (the tests' games would wait a second a play)
            "0",
            *self.options,
        ]

    @property
    def listening_line(self) -> str:
        """What the server prints first, once it listens (the contract of ``shithead-server``)."""
        return f"Shithead server listening on {HOST}:{self.port}  (database: {self.db})"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server and return once it has printed its first line, the listening line
        (it is then listening). Raises RuntimeError, with the end of its stderr, if it exits
        first, prints something else or nothing within :data:`START_SECONDS`."""
        assert not self.running, "the server is already running"
        with open(self._stderr_path, "a", encoding="utf-8") as stderr:
            proc = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                # UTF-8 whatever the locale: it prints a QR code.
                env={**os.environ, **self.env, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"},
            )
        self._proc = proc
        assert proc.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(proc.stdout, lines), daemon=True)
        self._reader.start()
        try:
            first = lines.get(timeout=START_SECONDS)
        except queue.Empty:
            self._kill()
            raise RuntimeError(f"the server printed nothing in {START_SECONDS:g} s{self._stderr_tail()}") from None
        if first is None:
            code = proc.wait()
            raise RuntimeError(f"the server exited ({code}) before listening{self._stderr_tail()}")
        if first.rstrip("\r\n") != self.listening_line:
            self._kill()
            raise RuntimeError(f"unexpected first line from the server: {first!r}{self._stderr_tail()}")

    def _read(self, stdout: IO[str], lines: queue.Queue[str | None]) -> None:
        # Reads every line until the child exits, so that its stdout pipe never fills up.
        for line in stdout:
            self.output.append(line)
            lines.put(line)
        stdout.close()
        lines.put(None)

    def stderr(self) -> str:
        """What the server wrote to its stderr so far, every start (for failure messages)."""
        return self._stderr_path.read_text(encoding="utf-8", errors="replace") if self._stderr_path.exists() else ""

    def _stderr_tail(self) -> str:
        text = self.stderr()[-2000:]
        return f"; its stderr:\n{text}" if text else ""

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._proc is not None:
            self._proc.wait()

    def send_signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the running server, at once; :meth:`wait` waits for it to end."""
        assert self._proc is not None and self.running, "the server is not running"
        self._proc.send_signal(sig)

    def wait(self) -> int:
        """Wait for the server to exit (SIGKILLed after :data:`STOP_SECONDS`, and RuntimeError);
        returns its exit status (``-9`` after SIGKILL). Every line it printed is in
        :attr:`output` then."""
        assert self._proc is not None, "the server was never started"
        try:
            self._proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._kill()
            raise RuntimeError(f"the server did not exit within {STOP_SECONDS:g} s") from None
        if self._reader is not None:
            self._reader.join(STOP_SECONDS)
        return self._proc.returncode

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """Send ``sig`` (SIGTERM: save and exit) and wait for the server to exit; returns its exit
        status. A server that has already exited is not signalled: its status is returned."""
        if self.running:
            self.send_signal(sig)
        return self.wait()

    def kill(self) -> None:
        """SIGKILL: a crash, nothing saved beyond what the server had committed."""
        self.send_signal(signal.SIGKILL)
        self.wait()

    def restart(self) -> None:
        """Start again on the same port and database (after kill() or stop(); a running server is stopped)."""
        if self.running:
            self.stop()
        self.start()
