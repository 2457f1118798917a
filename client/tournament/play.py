"""Play a plan's games on one server: the one implementation of "create the tournament, bring
the participants in, start it, pass on each finished game".

The organiser calls :func:`play_on_server` with the server it started (or was given) and the
games already played; a deal-set job (:mod:`client.tournament.jobs`) calls it on a private
server of its own with every game outside its deal set marked as played. Either way the server
schedules the whole plan from the same master seed and skips the games marked played, so game
``n`` is dealt, seated and (bundled bots being seeded by the game number) played the same
wherever it runs.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.bot import Bot
from client.bots import make_bot, thinks_in_thread
from client.hosting.host import connect_bot
from client.hosting.options import LoginOptions
from client.hosting.tournament_player import TournamentPlayer
from client.programs import PROGRAM_GRACE, BotProgram, command_argv
from client.sdk import Client, ServerError
from client.sdk.events import Closed
from client.tournament.plan import Plan
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
from server.tournament.ranges import Range
from server.tournament.standings import RatedGame

__all__ = ["Crashes", "PlayedGame", "play_on_server", "rated_game"]

log = logging.getLogger(__name__)


@dataclass
class PlayedGame:
    """A finished game as the organiser files it: ``result`` is the wire's
    ``tournament_game.result`` (a ``TournamentGameResult`` map; ``server_game`` None when the
    server it was played on is gone), ``record`` the server's stored record (``record.record``,
    None when it could not be fetched). Both are plain JSON values, so a game crosses process
    and machine boundaries as it is."""

    result: dict[str, Any]
    record: dict[str, Any] | None


@dataclass
class Crashes:
    """The participant programs' crashes in one run: counts by name, and the last lines each
    crashed program wrote before its last crash (its log may be on another machine)."""

    counts: dict[str, int] = field(default_factory=dict)
    tails: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: Crashes) -> None:
        for name, n in other.counts.items():
            self.counts[name] = self.counts.get(name, 0) + n
        self.tails.update(other.tails)


def rated_game(result: dict[str, Any]) -> RatedGame:
    """The ratings' view of a ``tournament_game.result``."""
    return RatedGame(
        result["number"],
        result["deal"],
        tuple(result["seats"]),
        tuple(result["places"]),
        result["capped"],
        tuple(result["timeouts"]),
        tuple(result["illegal"]),
        tuple(result["disconnects"]),
    )


async def play_on_server(
    plan: Plan,
    host: str,
    port: int,
    *,
    done: Sequence[Range],
    log_dir: Path,
    name: str,
    on_game: Callable[[PlayedGame], None],
    say: Callable[[str], None],
) -> Crashes:
    """Play the games of ``plan`` not in ``done`` (merged ranges of game numbers) as tournament
    ``name`` on the server at ``host:port``, hosting the bundled bots in this process and
    starting the ``--engine`` programs (their output appended to ``log_dir/NAME.log``); call
    ``on_game`` with each finished game (and its record) as the server reports it, in the order
    the games end. Returns when the server says the tournament is over; the participants are
    stopped on every way out. Raises ``ConnectionError`` when the server goes away,
    ``TimeoutError`` when participants do not register, ``ServerError`` when the server
    refuses the tournament."""
    engines: list[BotProgram] = []
    players: list[asyncio.Task[Any]] = []
    clients: list[Client] = []
    try:
        org = await Client.connect(host, port, client_name="shithead-tournament")
        clients.append(org)
        await org.login(f"organiser-{secrets.token_hex(3)}", guest=True)
        created = await org.ask(
            CreateTournament,
            TournamentCreated,
            name=name[:40] or "tournament",
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
            done_ranges=[list(r) for r in done] or None,
        )
        tid = created.tournament
        say(
            f"tournament {tid} on {host}:{port}: {len(plan.entrants)} participants, "
            f"{plan.games} games, master seed {plan.master_seed}"
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
                kind = e.bot or e.name
                player = TournamentPlayer(
                    c, _seeded(kind, plan.master_seed, e.name), tid, think_in_thread=thinks_in_thread(kind)
                )
                players.append(asyncio.create_task(player.run()))
            elif e.kind == "engine":
                assert e.command is not None
                eng = BotProgram(
                    command_argv(e.command, fields | {"name": e.name, "password": e.password}),
                    log_dir / f"{e.name}.log",
                    lambda: _finished(org, tid),
                    name=e.name,
                    hide=(e.password,),
                )
                engines.append(eng)
                players.append(asyncio.create_task(eng.keep_running()))
        await _wait_for_registrations(org, tid, plan, say)
        await org.request(StartTournament, tournament=tid)
        async for msg in org.messages():
            if isinstance(msg, TournamentGame) and msg.tournament == tid:
                result: dict[str, Any] = dict(msg.result)
                record: dict[str, Any] | None = None
                try:
                    record = dict(await org.get_record(result["server_game"]))
                except Exception as exc:  # a missing record is reported, not fatal
                    log.warning("no record for game %d: %s", result["number"], exc)
                on_game(PlayedGame(result, record))
            elif isinstance(msg, TournamentOver) and msg.tournament == tid:
                break
            elif isinstance(msg, Closed):
                raise ConnectionError(f"lost the server: {msg.reason}")
        # The programs end their runs on tournament_over too: let them finish by themselves.
        await asyncio.gather(*(eng.stop(grace=PROGRAM_GRACE) for eng in engines))
        return Crashes(
            {eng.name: eng.crash_count for eng in engines},
            {eng.name: list(eng.crashes[-1].tail) for eng in engines if eng.crashes},
        )
    finally:
        for eng in engines:
            await eng.stop()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        for c in clients:
            await c.close()


def _seeded(kind: str, master_seed: int, name: str) -> Callable[[int], Bot]:
    """Bundled bots get a random generator seeded by the master seed, their name and the game
    number: the same tournament plays the same way again, whichever server or process plays a
    game (resume and the deal-set jobs rely on it)."""

    def make(game: int) -> Bot:
        return make_bot(kind, random.Random(f"{master_seed}:{name}:{game}"))

    return make


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
    org: Client,
    tid: int,
    plan: Plan,
    say: Callable[[str], None],
    timeout: float = 120.0,  # noqa: ASYNC109 (a deadline reported in words, not raised)
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
            say("waiting for: " + ", ".join(missing))
            said = True
        await asyncio.sleep(0.2)
