"""``shithead-tournament``: run a tournament of bots from the command line.

The organiser starts a server of its own (a child process with its database in the output
directory) or uses a running one (``--server``), creates the tournament over the protocol,
brings the participants in, starts it, and writes, as each game ends:

* ``results.csv``: one row per game and seat (the tournament's memory, read by ``--resume``);
* ``records/<game>.json.gz``: every game's record, gzip-compressed JSON
  (:mod:`client.record_files`), for ``shithead replay``;
* ``standings.json``: standings and head-to-head, rewritten every ``--every`` games and at the end.

Participants:

* a bundled bot's name (one of the catalogue's, :mod:`client.bots`), optionally as ``NAME=BOT``
  to name it; hosted by this process like any bot (:mod:`client.hosting`), so the server's
  process has the other core;
* ``--engine NAME=COMMAND``: a bot program the organiser starts, restarts when it crashes
  (crashes are counted; an exit once the server says the tournament is over is none) and
  stops at the end. ``COMMAND`` may use ``{host}``, ``{port}``,
  ``{tournament}``, ``{name}`` and ``{password}``; e.g.
  ``--engine "mine=shithead-bot --bot greedy --host {host} --port {port} --tournament {tournament}
  --name {name} --password {password}"``;
* ``--account NAME``: a bot account that connects and registers by itself (with ``--server``).

Resuming: the settings are saved in ``tournament.json``; ``--resume DIR`` reads them and the
results back, and plays only the games not finished yet. The standings are always computed
from ``results.csv`` in game-number order, so the final figures are those an uninterrupted run
would have produced.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from client.bot import Bot
from client.bots import bot_names, make_bot, thinks_in_thread
from client.hosting import LoginOptions, connect_bot
from client.programs import PROGRAM_GRACE, BotProgram, LocalServer, command_argv
from client.record_files import SUFFIX as RECORD_SUFFIX
from client.record_files import save_record
from client.sdk import Client, ServerError
from client.sdk_events import Closed
from client.tournament.results import ResultsFile, read_results, write_standings_json
from client.tournament_player import TournamentPlayer
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
from server.tournament.ranges import merge
from server.tournament.standings import (
    RatedGame,
    Row,
    Standings,
    format_head_to_head,
    format_standings,
)

log = logging.getLogger(__name__)


@dataclass
class Entrant:
    """A participant as the organiser knows it: ``kind`` is ``bundled`` (``bot`` says which),
    ``engine`` (``command``) or ``account``."""

    name: str
    kind: str
    bot: str | None = None
    command: str | None = None
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18))


@dataclass
class Plan:
    """Everything a run needs; saved as ``tournament.json`` for ``--resume``."""

    entrants: list[Entrant]
    preset: str = "classic"
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 4
    games: int = 100
    schedule: str = "round-robin"
    hero: str | None = None
    permute: bool = False
    master_seed: int = 0
    action_seconds: float = 5.0
    concurrency: int = 2
    every: int = 50

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        path.chmod(0o600)  # it holds the participants' passwords

    @classmethod
    def load(cls, path: Path) -> Plan:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["entrants"] = [Entrant(**e) for e in data["entrants"]]
        return cls(**data)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def meta(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("entrants", "every")} | {
            "participants": [
                {"name": e.name, "kind": e.kind, "bot": e.bot, "command": e.command} for e in self.entrants
            ]
        }


def parse_entrant(text: str) -> Entrant:
    """``greedy`` or ``me=greedy``: a bundled bot. Raises ValueError for an unknown bot."""
    name, _, bot = text.partition("=")
    bot = bot or name
    if bot not in bot_names():
        raise ValueError(
            f"unknown bundled bot {bot!r} (bundled: {', '.join(bot_names())}); "
            "use --engine NAME=COMMAND for a program, --account NAME for a bot account"
        )
    return Entrant(name, "bundled", bot=bot)


def unique_names(entrants: list[Entrant]) -> list[Entrant]:
    """Repeated names get -2, -3 ... (``greedy greedy`` plays two greedy bots)."""
    seen: dict[str, int] = {}
    for e in entrants:
        seen[e.name] = seen.get(e.name, 0) + 1
        if seen[e.name] > 1:
            e.name = f"{e.name}-{seen[e.name]}"
    return entrants


NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,24}$")


# --------------------------------------------------------------------------- the run


@dataclass
class Progress:
    """Progress reports: ``on_game(done, total)`` after each game, ``say(text)`` for lines,
    ``standings(rows, done)`` every ``Plan.every`` games (by default printed as a table)."""

    on_game: Callable[[int, int], None]
    say: Callable[[str], None]
    standings: Callable[[list[Row], int], None] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.standings is None:
            self.standings = self._print_standings

    def _print_standings(self, rows: list[Row], done: int) -> None:
        for line in format_standings(rows, title=f"after {done} games"):
            self.say(line)


async def run(plan: Plan, out: Path, *, server: str | None, progress: Progress) -> Standings:
    """Play ``plan`` (the games not yet in ``out/results.csv``); return the figures of every
    finished game, this run's and the earlier runs'. The games themselves are in the files,
    not in memory: the organiser of a 100,000-game tournament stays the size it had after
    its first games."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "records").mkdir(exist_ok=True)
    results_path = out / "results.csv"
    figures = Standings(plan.names)
    done: list[int] = []
    for earlier in read_results(results_path):
        figures.add(earlier)
        done.append(earlier.number)
    local: LocalServer | None = None
    if server is None:
        local = LocalServer(out / "server.sqlite3", out / "server.log")
        host, port = "127.0.0.1", local.port
    else:
        host, _, port_text = server.rpartition(":")
        host, port = host or "127.0.0.1", int(port_text)
    engines: list[BotProgram] = []
    players: list[asyncio.Task[Any]] = []
    clients: list[Client] = []
    results = ResultsFile(results_path)
    try:
        org = await Client.connect(host, port, client_name="shithead-tournament")
        clients.append(org)
        await org.login(f"organiser-{secrets.token_hex(3)}", guest=True)
        created = await org.ask(
            CreateTournament,
            TournamentCreated,
            name=out.name[:40] or "tournament",
            preset=plan.preset,
            options=plan.options or None,
            seats=plan.seats,
            games=plan.games,
            schedule=plan.schedule,
            hero=plan.hero,
            permute=plan.permute,
            master_seed=plan.master_seed,
            action_seconds=plan.action_seconds,
            concurrency=plan.concurrency,
            participants=plan.names,
            # As ranges: a long tournament's list of numbers would not fit in one frame.
            done_ranges=[list(r) for r in merge(done)] or None,
        )
        tid = created.tournament
        del done  # sent: not needed again
        progress.say(
            f"tournament {tid} on {host}:{port}: {len(plan.entrants)} participants, "
            f"{plan.games} games, master seed {plan.master_seed}"
            + (f", {figures.games} games already played" if figures.games else "")
        )
        fields = {"host": host, "port": port, "tournament": tid}
        for e in plan.entrants:
            if e.kind == "bundled":
                # Logged in here, before the start, so that a refused login stops the run at once.
                login = LoginOptions(
                    name=e.name, password=e.password, host=host, port=port, client_name=f"tournament-{e.bot}"
                )
                c = await connect_bot(login)
                clients.append(c)
                bot = e.bot or e.name
                player = TournamentPlayer(
                    c, _seeded(bot, plan.master_seed, e.name), tid, think_in_thread=thinks_in_thread(bot)
                )
                players.append(asyncio.create_task(player.run()))
            elif e.kind == "engine":
                assert e.command is not None
                eng = BotProgram(
                    command_argv(e.command, fields | {"name": e.name, "password": e.password}),
                    out / f"{e.name}.log",
                    lambda: _finished(org, tid),
                    name=e.name,
                )
                engines.append(eng)
                players.append(asyncio.create_task(eng.keep_running()))
        await _wait_for_registrations(org, tid, plan, progress)
        await org.request(StartTournament, tournament=tid)
        total = figures.games
        async for msg in org.messages():
            if isinstance(msg, TournamentGame) and msg.tournament == tid:
                r = msg.result
                res = RatedGame(
                    r["number"],
                    r["deal"],
                    tuple(r["seats"]),
                    tuple(r["places"]),
                    r["capped"],
                    tuple(r["timeouts"]),
                    tuple(r["illegal"]),
                    tuple(r["disconnects"]),
                )
                try:
                    figures.add(res)
                except ValueError as exc:  # a server that reports a game twice: kept once
                    log.warning("tournament_game %d: %s", res.number, exc)
                    continue
                results.add(
                    res, seed=r["seed"], rotation=r["rotation"], actions=r["actions"], server_game=r["server_game"]
                )
                total += 1
                try:
                    record = await org.get_record(r["server_game"])
                    save_record(out / "records" / f"{r['number']}{RECORD_SUFFIX}", record)
                except Exception as exc:  # a missing record is reported, not fatal
                    log.warning("no record for game %d: %s", r["number"], exc)
                progress.on_game(total, _total_games(plan))
                if plan.every and total % plan.every == 0:
                    write_standings_json(out / "standings.json", figures, plan.meta())
                    progress.standings(figures.rows(), total)
            elif isinstance(msg, TournamentOver) and msg.tournament == tid:
                break
            elif isinstance(msg, Closed):
                raise ConnectionError(f"lost the server: {msg.reason}")
        # The programs end their runs on tournament_over too: let them finish by themselves.
        await asyncio.gather(*(eng.stop(grace=PROGRAM_GRACE) for eng in engines))
        crashes = {eng.name: eng.crash_count for eng in engines if eng.crashes}
        if crashes:
            progress.say("crashes: " + ", ".join(f"{n} {c}" for n, c in crashes.items()))
        meta = plan.meta() | {"crashes": {eng.name: eng.crash_count for eng in engines}}
        write_standings_json(out / "standings.json", figures, meta)
        return figures
    finally:
        results.close()
        for eng in engines:
            await eng.stop()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        for c in clients:
            await c.close()
        if local is not None:
            local.stop()


def _seeded(bot: str, master_seed: int, name: str) -> Callable[[int], Bot]:
    """Bundled bots get a random generator seeded by the master seed, their name and the game
    number: the same tournament plays the same way again (resume relies on it only for the
    games it still has to play)."""

    def make(game: int) -> Bot:
        return make_bot(bot, random.Random(f"{master_seed}:{name}:{game}"))

    return make


def _total_games(plan: Plan) -> int:
    import math

    per = math.factorial(plan.seats) if plan.permute else plan.seats
    return -(-plan.games // per) * per


async def _finished(org: Client, tid: int) -> bool:
    """Whether the server says tournament ``tid`` is over. Unknown (the question failed) counts
    as not over: a program that exits then is restarted, as after any crash."""
    try:
        info = (await org.ask(GetTournament, TournamentInfo, tournament=tid)).info
    except (ConnectionError, ServerError, ProtocolError) as exc:
        log.warning("cannot ask whether tournament %d is over: %s", tid, exc)
        return False
    return info["status"] == "finished"


async def _wait_for_registrations(
    org: Client, tid: int, plan: Plan, progress: Progress, timeout: float = 120.0
) -> None:
    """Until every participant has registered (programs need a moment to start)."""
    began = time.monotonic()
    said = False
    while True:
        info = (await org.ask(GetTournament, TournamentInfo, tournament=tid)).info
        present = {p["name"] for p in info["participants"]}
        missing = [n for n in plan.names if n not in present]
        if not missing:
            return
        if time.monotonic() - began > timeout:
            raise TimeoutError("participants did not register: " + ", ".join(missing))
        if not said and time.monotonic() - began > 3:
            progress.say("waiting for: " + ", ".join(missing))
            said = True
        await asyncio.sleep(0.2)


def final_report(plan: Plan, figures: Standings) -> list[str]:
    lines = format_standings(
        figures.rows(), title=f"Standings after {figures.games} games (rating: openskill Plackett-Luce, ± 95 %)"
    )
    lines.append("")
    lines.append("Head to head: mean place of row minus column (negative: row finished ahead)")
    lines += format_head_to_head(plan.names, figures.head_to_head())
    return lines


def default_out() -> Path:
    return Path(f"tournament-{time.strftime('%Y%m%d-%H%M%S')}")
