"""The server's own bots in a process of their own: :class:`HouseProcess`, the bot host that
``server.__main__`` gives the server.

Bundled bots are clients of the server they belong to (:mod:`client.hosting.house`). Were they
run in the server's process, they would share its event loop and its interpreter lock with every table: a
searching bot thinking in a thread slows every other table's play, and the bots' reading of
states (as much work as the server's sending of them) fills the server's core. Here they run
in one child process, ``python -m client.hosting.house_process``, on a core of their own; the server
only asks it to seat a bot or enter one in a tournament.

The child is started with the first bot and serves requests on its standard input, one JSON
object a line: ``{"id": N, "op": "seat" | "enter", "args": {...}}`` (the fields of a
:class:`~client.hosting.options.HouseSeat` or :class:`~client.hosting.options.HouseEntry`,
which the child hands to :meth:`client.hosting.house.HouseBots.seat_bot` or
:meth:`~client.hosting.house.HouseBots.enter_bot`); it answers
each on its standard output when the bot sits or has registered: ``{"id": N, "result": R}`` or
``{"id": N, "error": "why"}``. Its log goes to the server's standard error. When its standard
input ends (the server stops, or dies, even by SIGKILL) it stops every bot and exits.

If the child dies, the requests it had not answered fail and its bots' connections drop; the
server (told through :meth:`HouseProcess.on_lost`) starts them again, which starts a new child,
and each takes its seat back with a new token, as after a restart of the server.

:class:`HouseProcesses` is what the server is given: two such children, one for the bots at
tables (``add_bot``, stand-ins) and one for tournaments' bundled bots, the second at a lower CPU
priority (``nice``, ``tournament_nice`` in the server's settings). A tournament of searching
bots then thinks with the CPU that the tables' bots and the server leave free, instead of
sharing an interpreter (and its lock) with the bots of everybody else's tables: measured on 2
cores, one tournament table of ``ismcts`` bots in the same child took a table of greedy bots
from 417 to 87 games a minute; in a child of its own at nice 19, 1 to 64 such tables left it
at 0.87 to 1.06 of its pace (``benchmarks/fair_share.py`` measures a hostile guest's whole
share).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from client.eventloop import use_uvloop_if_installed
from client.hosting.house import HouseBots, HouseHost
from client.hosting.options import HouseEntry, HouseSeat

__all__ = ["HouseProcess", "HouseProcesses"]

log = logging.getLogger(__name__)

STOP_SECONDS = 10.0
"""How long :meth:`HouseProcess.stop` waits for the child to stop its bots before killing it."""


class HouseProcess(HouseHost):
    """Runs the bundled bots in a child process (see the module docstring). Implements the
    server's ``BotHost`` interface (:class:`server.tables.hosted.BotHost`).

    ``argv``: the child's command line (default ``python -m client.hosting.house_process`` with the
    log level of this process's root logger, and ``--nice NICE`` when ``nice`` is not 0)."""

    def __init__(self, argv: Sequence[str] | None = None, *, nice: int = 0) -> None:
        self._argv = list(argv) if argv is not None else self._default_argv(nice)
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 1
        self._lock = asyncio.Lock()
        self._stopping = False
        self._on_lost: Callable[[], None] | None = None

    @staticmethod
    def _default_argv(nice: int = 0) -> list[str]:
        level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
        argv = [sys.executable, "-m", "client.hosting.house_process", "--log-level", str(level)]
        return argv + (["--nice", str(nice)] if nice else [])

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (None before the first bot)."""
        return self._proc.pid if self._proc is not None and self._proc.returncode is None else None

    async def wait(self) -> int | None:
        """Wait until the running child has exited and its end has been handled (its pending
        requests failed); return its exit status (None when no child was started)."""
        proc, reader = self._proc, self._reader
        if proc is None or reader is None:
            return None
        await asyncio.shield(reader)
        return proc.returncode

    def on_lost(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the child dies while the server is not stopping (every bot
        it ran is then gone; the server starts them again, in a new child)."""
        self._on_lost = callback

    async def seat_bot(self, request: HouseSeat) -> int:
        """As :meth:`client.hosting.house.HouseBots.seat_bot`, in the child. Raises
        ``RuntimeError`` with the child's reason when the bot could not sit (or the child died
        first)."""
        return int(await self._call("seat", asdict(request)))

    async def enter_bot(self, request: HouseEntry) -> None:
        """As :meth:`client.hosting.house.HouseBots.enter_bot`, in the child."""
        await self._call("enter", asdict(request))

    async def stop(self) -> None:
        """Stop every bot: close the child's input (it stops its bots and exits), kill it if it
        has not exited within :data:`STOP_SECONDS`."""
        self._stopping = True
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), STOP_SECONDS)
        except TimeoutError:
            log.warning("the bots' process did not stop within %.0f s; killing it", STOP_SECONDS)
            proc.kill()
            await proc.wait()
        if self._reader is not None:
            await self._reader

    # ------------------------------------------------------------------ the child

    async def _call(self, op: str, args: dict[str, Any]) -> Any:
        if self._stopping:
            raise RuntimeError("the server is stopping")
        proc = await self._started()
        request_id, self._next_id = self._next_id, self._next_id + 1
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps({"id": request_id, "op": op, "args": args}).encode() + b"\n")
        except (OSError, RuntimeError) as exc:  # it died, and its pipe closed before its exit was seen
            raise RuntimeError(f"the bots' process has gone ({exc}); try again") from None
        self._pending[request_id] = reply
        try:
            return await reply
        finally:
            self._pending.pop(request_id, None)

    async def _started(self) -> asyncio.subprocess.Process:
        async with self._lock:
            proc = self._proc
            if proc is None or proc.returncode is not None or _closed(proc):
                proc = self._proc = await asyncio.create_subprocess_exec(
                    *self._argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
                )
                self._reader = asyncio.create_task(self._read(proc), name="house-process-reader")
                log.info("bots run in process %d", proc.pid)
            return proc

    async def _read(self, proc: asyncio.subprocess.Process) -> None:
        """Hand the child's answers to their callers; when it ends, fail the rest."""
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            try:
                answer = json.loads(line)
                reply = self._pending.get(answer["id"])
            except (ValueError, KeyError, TypeError):
                log.error("the bots' process wrote %r, not an answer", line[:200])
                continue
            if reply is None or reply.done():
                continue
            if "error" in answer:
                reply.set_exception(RuntimeError(answer["error"]))
            else:
                reply.set_result(answer.get("result"))
        code = await proc.wait()
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(RuntimeError(f"the bots' process exited (status {code})"))
        if not self._stopping:
            log.error("the bots' process exited (status %s); its bots have left their seats", code)
            if self._on_lost is not None:
                self._on_lost()


class HouseProcesses(HouseHost):
    """The server's bot host: bots at tables in one :class:`HouseProcess`, tournaments' bundled
    bots in another at ``nice`` lower CPU priority (see the module docstring)."""

    def __init__(self, *, nice: int = 19) -> None:
        self.tables = HouseProcess()
        self.tournaments = HouseProcess(nice=nice)

    def on_lost(self, callback: Callable[[], None]) -> None:
        """``callback`` when either child dies (the server then starts every bot again)."""
        self.tables.on_lost(callback)
        self.tournaments.on_lost(callback)

    async def seat_bot(self, request: HouseSeat) -> int:
        return await self.tables.seat_bot(request)

    async def enter_bot(self, request: HouseEntry) -> None:
        await self.tournaments.enter_bot(request)

    async def stop(self) -> None:
        await asyncio.gather(self.tables.stop(), self.tournaments.stop())


def _closed(proc: asyncio.subprocess.Process) -> bool:
    """Whether the pipe to the child's input is closed (it died; its exit may not be seen yet)."""
    return proc.stdin is None or proc.stdin.is_closing()


# ====================================================================== the child's side


async def _serve() -> None:
    """Serve seat and enter requests from standard input until it ends, then stop every bot."""
    loop = asyncio.get_running_loop()
    house = HouseBots()
    requests = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(requests), sys.stdin)
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    handling: set[asyncio.Task[None]] = set()

    def answer(message: dict[str, Any]) -> None:
        out.write(json.dumps(message).encode() + b"\n")

    async def handle(request: dict[str, Any]) -> None:
        request_id = request.get("id")
        try:
            op, args = request["op"], request["args"]
            if op == "seat":
                answer({"id": request_id, "result": await house.seat_bot(HouseSeat(**args))})
            elif op == "enter":
                await house.enter_bot(HouseEntry(**args))
                answer({"id": request_id, "result": None})
            else:
                answer({"id": request_id, "error": f"no operation {op!r}"})
        except Exception as exc:  # the reason goes back to the server, which reports it
            answer({"id": request_id, "error": str(exc) or type(exc).__name__})

    while line := await requests.readline():
        try:
            request = json.loads(line)
        except ValueError:
            log.error("not a request: %r", line[:200])
            continue
        task = asyncio.create_task(handle(request))
        handling.add(task)
        task.add_done_callback(handling.discard)
    for task in handling:
        task.cancel()
    await house.stop()


def main(argv: list[str] | None = None) -> int:
    """``python -m client.hosting.house_process [--log-level LEVEL] [--nice N]``: the child (started by
    :class:`HouseProcess`, not by hand); ``--nice``: lower its CPU priority by N."""
    args = list(sys.argv[1:] if argv is None else argv)
    level = args[args.index("--log-level") + 1] if "--log-level" in args[:-1] else "INFO"
    if "--nice" in args[:-1] and hasattr(os, "nice"):
        os.nice(int(args[args.index("--nice") + 1]))
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Ctrl-C in the server's terminal reaches this process too: the server's orderly stop (it
    # tells the players, saves, then closes our input) decides when the bots go, not the key.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    use_uvloop_if_installed()  # reading states is most of its work
    asyncio.run(_serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
