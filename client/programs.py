"""Child processes that the organisers of bot games start: a private server and bot programs.

:class:`LocalServer` is a ``shithead-server`` on 127.0.0.1 with its database in a given file,
started as a child process (``python -m server``), so that a client-side program never imports
the server. :class:`BotProgram` is a participant's program (``shithead-tournament --engine``,
``shithead-bot-check``): started from a command line with placeholders, restarted when it
crashes (each crash counted, with the exit status and the last lines it wrote), stopped at the
end.

Each writes what it has to say to a log file of its own: the server its standard output (first
the line that says where it listens) and its log (warnings; at INFO also the accounts
registered and the tournaments created, started and finished), a program its standard output
and error, between lines of the organiser's own (``--- `` first) that say when it was started,
with which command line (passwords hidden), and how it ended.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["PLACEHOLDERS", "PROGRAM_GRACE", "BotProgram", "Crash", "LocalServer", "command_argv", "program_password"]

log = logging.getLogger(__name__)

#: The placeholders a bot program's command line may use.
PLACEHOLDERS = ("host", "port", "tournament", "name", "password")

#: Seconds a participant program has to exit by itself once its tournament is over.
PROGRAM_GRACE = 10.0

#: Lines of a crashed program's output kept to explain the crash.
TAIL_LINES = 15


class LocalServer:
    """A ``shithead-server`` child process on 127.0.0.1, port chosen by the system (:attr:`port`),
    its database in ``db``. Not advertised on the LAN, and without quotas (``--no-quotas``: its
    one organiser may open the tables and tournaments it wants). Everything it writes, its standard output
    (first the line saying where it listens) and its log at ``log_level`` (WARNING by default:
    a long tournament's server logs nothing per game), is appended to ``log_path`` as it comes;
    its output is read all the time, so that it never waits on a full pipe. Raises
    ``RuntimeError`` (naming the log) when it does not start."""

    def __init__(
        self, db: Path, log_path: Path, extra_args: tuple[str, ...] = (), *, log_level: str = "WARNING"
    ) -> None:
        self.log_fh = log_path.open("a", encoding="utf-8")
        self._log_lock = threading.Lock()
        self._copier: threading.Thread | None = None
        cmd = [
            sys.executable,
            "-m",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(db),
            "--log-level",
            log_level,
            "--no-advertise",  # a private server: nobody else is to find it
            "--no-quotas",  # ... and its one organiser owns it: as many tables and games as it asks for
            *extra_args,
        ]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log_fh, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        self._write(line)
        m = re.search(r":(\d+)\b", line)
        if not m:
            self.stop()
            raise RuntimeError(f"the server did not start (see {log_path}): {line.strip()!r}")
        self.port = int(m.group(1))
        self._copier = threading.Thread(
            target=self._copy, args=(self.proc.stdout,), name="local-server-output", daemon=True
        )
        self._copier.start()

    def _write(self, text: str) -> None:
        """Append ``text`` (the server's output) to the log at once; nothing once it is closed."""
        with self._log_lock:
            if not self.log_fh.closed:
                self.log_fh.write(text)
                self.log_fh.flush()

    def _copy(self, out: IO[str]) -> None:
        """Copy the server's standard output to the log, line by line, until it ends."""
        for line in out:
            self._write(line)

    def stop(self) -> None:
        """Terminate the server (killed if it has not exited within 30 s), write the rest of its
        output to the log and close it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._copier is not None:
            self._copier.join(10)  # its output ends with it (unless a child of its own still holds it)
        with self._log_lock:
            self.log_fh.close()


def program_password() -> str:
    """A one-time password for a program's ``{password}`` placeholder: hexadecimal, so that it
    never starts with ``-`` (argument parsers read ``--password -x...`` as a missing value and
    another option; a URL-safe token starts with ``-`` once in 64)."""
    return secrets.token_hex(16)


def command_argv(command: str, fields: Mapping[str, object]) -> list[str]:
    """``command`` split as a shell would (no shell runs it) with every ``{placeholder}`` of
    each word filled from ``fields``. Raises ``ValueError`` for a placeholder not in ``fields``
    or a command with no words."""
    words = shlex.split(command)
    if not words:
        raise ValueError("the command is empty")
    try:
        return [word.format(**fields) for word in words]
    except (KeyError, IndexError) as exc:
        raise ValueError(
            f"unknown placeholder {exc} in {command!r}; known: " + " ".join(f"{{{p}}}" for p in fields)
        ) from None


@dataclass(frozen=True)
class Crash:
    """One exit of a program while it was still needed: its exit status and the last lines it
    wrote (stdout and stderr) in that run."""

    returncode: int
    tail: tuple[str, ...]


class BotProgram:
    """A participant program: started, restarted after a crash (counted in :attr:`crashes`),
    stopped at the end. Its stdout and stderr are appended to ``log_path``, each run between a
    line that says it started, with its command line (every text of ``hide`` in it, a password,
    shown as ``****``), and a line that gives its exit status; those lines begin with ``--- ``.

    A program that exits while it is still needed has crashed. One that exits because its work
    is over (a player ends its run on ``tournament_over``) has not, even when its exit is seen
    before the organiser has read that message: ``finished()`` is asked, and a program that ends
    with the tournament is neither counted nor restarted."""

    def __init__(
        self,
        argv: list[str],
        log_path: Path,
        finished: Callable[[], Awaitable[bool]],
        *,
        name: str = "program",
        env: Mapping[str, str] | None = None,
        hide: Sequence[str] = (),
    ) -> None:
        self.argv = argv
        self.name = name
        self.shown = shlex.join(argv)
        for secret in hide:
            if secret:
                self.shown = self.shown.replace(secret, "****")
        self.log_path = log_path
        self.finished = finished
        self.env = dict(env) if env is not None else None
        self.crashes: list[Crash] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.stopping = False

    @property
    def crash_count(self) -> int:
        return len(self.crashes)

    async def keep_running(self) -> None:
        """Run the program until :meth:`stop` or until it exits when ``finished()`` is true.
        Raises ``OSError`` when the command cannot be run (the log says so too)."""
        while not self.stopping:
            self._note(f"started {self.name} (run {len(self.crashes) + 1}): {self.shown}")
            start = self.log_path.stat().st_size
            proc: asyncio.subprocess.Process | None = None
            try:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    proc = self.proc = await asyncio.create_subprocess_exec(
                        *self.argv, stdout=fh, stderr=fh, env=self.env
                    )
                    code = await proc.wait()
                tail = self._tail(start)
            except OSError as exc:
                self._note(f"{self.name} could not be started: {exc}")
                raise
            finally:
                # Also when cancelled once stop() has ended it: the log says how every run ended.
                if proc is not None and proc.returncode is not None:
                    how = " (stopped)" if self.stopping else ""
                    self._note(f"{self.name} exited with status {proc.returncode}{how}")
            if self.stopping or await self.finished():
                return
            self.crashes.append(Crash(code, tail))
            n = len(self.crashes)
            log.warning("participant %s exited with %s (crash %d): restarting", self.name, code, n)
            await asyncio.sleep(min(5.0, 0.2 * n))

    def _note(self, text: str) -> None:
        """Append a line of the organiser's own (``--- HH:MM:SS text``) to the program's log."""
        with self.log_path.open("a", encoding="utf-8") as fh:
            fh.write(f"--- {time.strftime('%H:%M:%S')} {text}\n")

    def _tail(self, start: int) -> tuple[str, ...]:
        """The last :data:`TAIL_LINES` lines written since byte ``start`` of the log."""
        with self.log_path.open("rb") as fh:
            fh.seek(start)
            text = fh.read().decode("utf-8", "replace")
        return tuple(text.splitlines()[-TAIL_LINES:])

    async def stop(self, grace: float = 0.0) -> None:
        """Stop restarting; give the program ``grace`` seconds to exit by itself (its work is
        over: it may still be reading its last messages or writing its output), then terminate
        it (killed after 10 s more)."""
        self.stopping = True
        if self.proc is not None and self.proc.returncode is None and grace > 0:
            try:
                await asyncio.wait_for(self.proc.wait(), grace)
            except TimeoutError:
                pass
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
