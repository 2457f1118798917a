"""Running the gauntlet: a private server, the wire tap, one tournament per stage.

:func:`check` starts a server (a child process on 127.0.0.1, its database in ``workdir``) and
the tap in front of it, logs in as the organiser and, for each :class:`~.gauntlet.Stage`,
creates a tournament of the bot against bundled bots, starts the bot's program with the
placeholders filled (``{host}`` and ``{port}`` are the tap's), starts the tournament and
follows it to its end, collecting what went wrong: the referee's findings from the frames,
the program's crashes and the exceptions its output admits, the server's per-game counters.
It stops early, with the remaining stages not played, once the bot has made ``max_mistakes``
mistakes (a bot that never answers is found out in seconds, not after an hour of timeouts).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.programs import PLACEHOLDERS, PROGRAM_GRACE, BotProgram, LocalServer, command_argv, program_password
from client.sdk import Client, ServerError
from client.sdk.events import Closed
from protocol.errors import ProtocolError
from protocol.messages import (
    CreateTournament,
    GetTournament,
    StartTournament,
    TournamentCreated,
    TournamentGame,
    TournamentInfo,
    TournamentOver,
)

from .gauntlet import Stage
from .output import OutputScanner
from .referee import Fault, Finding, Referee
from .tap import WireTap

__all__ = ["BOT_NAME", "CannotStart", "StageResult", "check", "fresh_workdir"]

log = logging.getLogger(__name__)

#: The account the checked bot plays as.
BOT_NAME = "checked"
#: Seconds a program has to start and register for its tournament.
REGISTER_SECONDS = 30.0
#: Seconds a stage may take in all before it counts as unfinished.
STAGE_SECONDS = 600.0


@dataclass
class StageResult:
    """What one stage came to: games finished of those planned, the server's counters for the
    bot's seats, the findings, and ``STALE_SEQ`` answers (counted, not mistakes)."""

    stage: Stage
    planned: int
    finished: int = 0
    illegal: int = 0
    timeouts: int = 0
    disconnects: int = 0
    crashes: int = 0
    stale: int = 0
    played: bool = True
    stopped: bool = False
    """The gauntlet stopped in this stage (too many mistakes)."""
    cut: bool = False
    """The tap cut the bot's connection (the stage's forced disconnect happened)."""
    answer_times: list[float] = field(default_factory=list)
    """Seconds from each state that asked the bot to act to its ``act`` (as the tap saw them)."""
    resumed: bool = False
    """The bot acted again after the cut."""
    findings: list[Finding] = field(default_factory=list)

    def count(self, fault: Fault) -> int:
        return sum(1 for f in self.findings if f.fault is fault)

    @property
    def mistakes(self) -> int:
        """Findings, or the server's counters where they say more (a timeout while the bot was
        disconnected is counted by the server but never seen on the bot's connection)."""
        seen = len(self.findings)
        extra = max(0, self.illegal - self.count(Fault.ILLEGAL)) + max(0, self.timeouts - self.count(Fault.TIMEOUT))
        return seen + extra


class _Abort(Exception):
    """Too many mistakes: the gauntlet ends here."""


class CannotStart(RuntimeError):
    """The bot's command could not be run at all (no such program, not executable)."""


#: The files a check writes in its directory (an earlier check's are removed first: its
#: database would bring back its tournaments, its logs would be read again as this bot's).
OUTPUTS = ("server.sqlite3*", "server.log", "bot-*.log")


def fresh_workdir(workdir: Path) -> None:
    """Create ``workdir``, or clear it of an earlier check's :data:`OUTPUTS` (nothing else)."""
    workdir.mkdir(parents=True, exist_ok=True)
    for pattern in OUTPUTS:
        for path in workdir.glob(pattern):
            path.unlink()


async def check(
    command: str,
    stages: Sequence[Stage],
    workdir: Path,
    *,
    seed: int = 1,
    max_mistakes: int = 5,
    on_stage: Callable[[StageResult], None] | None = None,
) -> list[StageResult]:
    """Play ``stages`` with the bot that ``command`` starts; return one result per stage (those
    not played after an early stop are marked ``played=False``). Raises ``ValueError`` for a bad
    command line, :class:`CannotStart` when the bot's program cannot be run and ``RuntimeError``
    when the server does not start or its bundled bots do not register."""
    password = program_password()
    command_argv(command, dict.fromkeys(PLACEHOLDERS, ""))  # its placeholders, checked before anything starts
    fresh_workdir(workdir)
    # INFO: the kept log then tells what the server did (the bot's account, each tournament).
    server = LocalServer(workdir / "server.sqlite3", workdir / "server.log", log_level="INFO")
    tap = WireTap("127.0.0.1", server.port)
    results = [StageResult(s, planned=s.seats, played=False) for s in stages]
    org: Client | None = None
    try:
        await tap.start()
        org = await Client.connect("127.0.0.1", server.port, client_name="shithead-bot-check")
        await org.login(f"referee-{secrets.token_hex(3)}", guest=True)
        total = 0
        for i, stage in enumerate(stages):
            result = results[i]
            result.played = True
            runner = _StageRun(org, tap, stage, result, command, password, workdir / f"bot-{i + 1}.log")
            try:
                await runner.play(seed + i, max_mistakes - total)
            finally:
                total += result.mistakes
                if on_stage is not None:
                    on_stage(result)
            if total >= max_mistakes or result.stopped:
                break
    finally:
        if org is not None:
            await org.close()
        await tap.close()
        server.stop()
    return results


class _StageRun:
    """One stage: its tournament, the bot's program, the referee."""

    def __init__(
        self, org: Client, tap: WireTap, stage: Stage, result: StageResult, command: str, password: str, log_path: Path
    ) -> None:
        self.org = org
        self.tap = tap
        self.stage = stage
        self.result = result
        self.command = command
        self.password = password
        self.log_path = log_path
        self.output = OutputScanner()
        self.too_many = asyncio.Event()
        self.allowed = 0
        self.referee: Referee | None = None

    def _noted(self, _finding: Finding) -> None:
        if self.result.mistakes >= self.allowed:
            self.too_many.set()

    async def play(self, seed: int, allowed: int) -> None:
        self.allowed = allowed
        stage, result = self.stage, self.result
        referee = self.referee = Referee(stage.title, cut_at=stage.cut_at, on_finding=self._noted)
        result.findings = referee.findings
        self.tap.referee = referee
        created = await self.org.ask(
            CreateTournament,
            TournamentCreated,
            name=stage.title[:40],
            preset=stage.preset,
            seats=stage.seats,
            games=1,  # one deal, played in every rotation
            schedule="gauntlet",
            hero=BOT_NAME,
            master_seed=seed,
            action_seconds=stage.seconds,
            concurrency=1,
            participants=[BOT_NAME],
            bots=list(stage.opponents),
        )
        tid = created.tournament
        fields = {"host": "127.0.0.1", "port": self.tap.port, "tournament": tid, "name": BOT_NAME}
        argv = command_argv(self.command, fields | {"password": self.password})
        env = os.environ | {"PYTHONUNBUFFERED": "1"}  # a Python bot's output reaches the log as it happens
        program = BotProgram(
            argv, self.log_path, lambda: self._over(tid), name=BOT_NAME, env=env, hide=(self.password,)
        )
        running = asyncio.create_task(program.keep_running())
        try:
            async with asyncio.timeout(STAGE_SECONDS):
                if await self._registered(tid, program, running, len(stage.opponents)):
                    await self.org.request(StartTournament, tournament=tid)
                    await self._follow(tid, program)
                    await program.stop(grace=PROGRAM_GRACE)  # it ends its run on tournament_over
                else:
                    result.stopped = True  # every stage would wait the same way: no point going on
        except TimeoutError:
            referee.add(Fault.UNFINISHED, f"the stage did not finish within {STAGE_SECONDS:g} s")
        except _Abort:
            result.stopped = True
        finally:
            await program.stop()
            running.cancel()
            (outcome,) = await asyncio.gather(running, return_exceptions=True)
            if isinstance(outcome, OSError):  # the command itself could not be run
                raise CannotStart(f"cannot start the bot: {outcome}") from outcome
            self.tap.referee = None
            self._admissions(referee, final=True)
            for crash in program.crashes:
                referee.add(
                    Fault.CRASH,
                    f"the program exited with status {crash.returncode} before its tournament was over (restarted)",
                    crash.tail,
                )
            result.crashes = program.crash_count
            expected = result.crashes + (1 if referee.cut_conn is not None else 0)
            if result.disconnects > expected:
                referee.add(
                    Fault.DROPPED,
                    f"the server saw its connection drop {result.disconnects - expected} time(s) "
                    "besides crashes and the forced cut",
                )
            result.stale = referee.stale
            result.cut = referee.cut_conn is not None
            result.resumed = referee.acted_after_cut
            result.answer_times = referee.answer_times
            if result.finished == result.planned:
                referee.finish()
            elif not result.stopped:
                referee.add(Fault.UNFINISHED, f"{result.finished} of {result.planned} games finished")

    async def _registered(self, tid: int, program: BotProgram, running: asyncio.Task[None], bundled: int) -> bool:
        """Wait until the bot and the server's ``bundled`` bots (which start in a process of
        their own, at their own pace) have registered for tournament ``tid``; False (a finding
        made) if the bot does not within :data:`REGISTER_SECONDS`, or at once when its program
        cannot be run."""
        began = time.monotonic()
        names: list[str] = []
        while time.monotonic() - began < REGISTER_SECONDS and not running.done():
            info = (await self.org.ask(GetTournament, TournamentInfo, tournament=tid)).info
            names = [p["name"] for p in info["participants"]]
            if BOT_NAME in names and len(names) >= 1 + bundled:
                return True
            if program.crash_count >= 3:
                break
            await asyncio.sleep(0.2)
        if BOT_NAME in names:
            # Not the bot's fault: the check itself cannot go on (RuntimeError, as documented).
            raise RuntimeError(f"the server's bundled bots did not all register within {REGISTER_SECONDS:g} s")
        tail = tuple(self.log_path.read_text("utf-8", "replace").splitlines()[-10:]) if self.log_path.exists() else ()
        assert self.referee is not None
        self.referee.add(
            Fault.UNFINISHED, f"the bot did not register for tournament {tid} within {REGISTER_SECONDS:g} s", tail
        )
        return False

    async def _follow(self, tid: int, program: BotProgram) -> None:
        """Count each finished game until ``tournament_over``; :class:`_Abort` on too many mistakes."""
        messages = self.org.messages()
        too_many = asyncio.create_task(self.too_many.wait())
        try:
            while True:
                next_msg = asyncio.ensure_future(anext(messages))
                done, _ = await asyncio.wait({next_msg, too_many}, return_when=asyncio.FIRST_COMPLETED)
                if too_many in done:
                    next_msg.cancel()
                    raise _Abort
                msg = next_msg.result()
                if isinstance(msg, TournamentGame) and msg.tournament == tid:
                    self._game(msg.result)
                    self._admissions(self.referee)
                    if self.result.mistakes >= self.allowed or program.crash_count >= self.allowed:
                        raise _Abort
                elif isinstance(msg, TournamentOver) and msg.tournament == tid:
                    return
                elif isinstance(msg, Closed):
                    raise ConnectionError(f"lost the private server: {msg.reason}")
        finally:
            too_many.cancel()

    def _game(self, r: Any) -> None:
        self.result.finished += 1
        for seat, name in enumerate(r["seats"]):
            if name == BOT_NAME:
                self.result.illegal += r["illegal"][seat]
                self.result.timeouts += r["timeouts"][seat]
                self.result.disconnects += r["disconnects"][seat]

    def _admissions(self, referee: Referee | None, *, final: bool = False) -> None:
        """The exceptions the bot's output admits since the last look, as findings."""
        if referee is None:
            return
        for found in self.output.read(str(self.log_path), final=final):
            referee.add(Fault.EXCEPTION, found.summary, found.lines)

    async def _over(self, tid: int) -> bool:
        try:
            info = (await self.org.ask(GetTournament, TournamentInfo, tournament=tid)).info
        except (ConnectionError, ServerError, ProtocolError):
            return False
        return bool(info["status"] == "finished")
