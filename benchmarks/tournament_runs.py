"""The four ways ``benchmarks/tournament.py`` plays a tournament, each measured once.

* :func:`in_process`: the schedule through the engine, one game after another in one process;
* :func:`in_process_workers`: the same games cut into the same deal sets as
  ``shithead-tournament --workers N`` cuts them (:func:`client.tournament.jobs.deal_sets`), each
  set played as :func:`in_process` plays it, ``N`` sets at once in a process pool;
* :func:`over_server`: ``shithead-tournament``'s own machinery
  (:func:`client.tournament.organiser.run`), with one server (``workers=1``: the bots in this
  process) or ``N`` worker processes, each with a server of its own and the bots.

Bots are seeded by the master seed, their name and the game number as the organiser seeds them
(``client.tournament.play._seeded``), so fast bots play the very same games every way; a bot
with a time budget does not (its search stops on the clock).
"""

from __future__ import annotations

import asyncio
import csv
import inspect
import random
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

from client.bot import Bot
from client.bots import bot_class, make_bot
from client.tournament.jobs import deal_sets
from client.tournament.organiser import Entrant, Plan, Progress, run
from client.tournament.plan import unique_names
from server.engine import Series, event_to_dict, make_rules, parse_action
from server.engine.view import view_for
from server.tournament.ranges import Range, contains


@dataclass
class Measured:
    """One run: wall seconds, games, actions, and the CPU seconds of this process and of its
    children (the pool's or the organiser's workers, the servers)."""

    seconds: float
    games: int
    actions: int
    cpu_self: float
    cpu_children: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def default_budget(kind: str) -> float | None:
    """The time budget a bot of ``kind`` thinks with when made as the organiser makes it
    (``make_bot(kind, rng)``), or None for a bot without one (random, greedy)."""
    param = inspect.signature(bot_class(kind)).parameters.get("budget")
    return None if param is None else param.default


def plan_of(kinds: Sequence[str], games: int, seed: int, concurrency: int) -> Plan:
    """The benchmark's tournament: one bundled participant per kind (repeated kinds named
    ``greedy-2`` ... as ``shithead-tournament`` names them), 4 seats, ``games`` games."""
    return Plan(
        entrants=unique_names([Entrant(k, "bundled", bot=k) for k in kinds]),
        seats=4,
        games=games,
        master_seed=seed,
        concurrency=concurrency,
        action_seconds=60.0,
        every=0,
    )


def _make(kind: str, rng: random.Random, budget: float | None) -> Bot:
    """``make_bot(kind, rng)``, with ``budget`` for a bot that has one (None: its default)."""
    if budget is None or default_budget(kind) is None:
        return make_bot(kind, rng)
    return bot_class(kind)(rng, budget=budget)  # type: ignore[call-arg]


def _play(plan_dict: dict, games: Sequence[Range] | None, budget: float | None) -> tuple[int, int]:
    """Play the games of the plan (those in ``games``; None: all) through the engine; returns
    (games, actions). Each bot is given what its client gets over the wire with turn states
    (PROTOCOL.md §6, as the organiser's bots ask for): a view at the game's first state,
    whenever it must act and at the end, each with every event since its previous one."""
    plan = Plan.from_dict(plan_dict)
    rules = make_rules(plan.preset, plan.options)
    kinds = {e.name: e.bot or e.name for e in plan.entrants}
    played = actions = 0
    for spec in plan.game_specs():
        if games is not None and not contains(games, spec.number):
            continue
        game = Series(rules, plan.seats, seed=spec.seed).start_game()  # dealt exactly as a table with that seed
        bots = [
            _make(kinds[name], random.Random(f"{plan.master_seed}:{name}:{spec.number}"), budget) for name in spec.seats
        ]
        waiting: list[list[dict]] = [[] for _ in bots]
        for s, bot in enumerate(bots):
            view = view_for(game, s)
            bot.on_game_start(view)
            bot.observe(view, [])
        while not game.is_over():
            seat = game.to_act()[0]
            view = view_for(game, seat)
            bots[seat].observe(view, waiting[seat])
            waiting[seat] = []
            text = bots[seat].choose(view)
            events = [event_to_dict(e) for e in game.apply(seat, parse_action(text))]
            for w in waiting:
                w.extend(events)
            actions += 1
        for s, bot in enumerate(bots):
            bot.observe(view_for(game, s), waiting[s])
        played += 1
    return played, actions


class _Clock:
    """Wall and CPU time (this process, its reaped children) from creation to :meth:`stop`."""

    def __init__(self) -> None:
        self.me = resource.getrusage(resource.RUSAGE_SELF)
        self.kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.began = time.perf_counter()

    def stop(self, games: int, actions: int) -> Measured:
        seconds = time.perf_counter() - self.began
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return Measured(
            seconds,
            games,
            actions,
            me.ru_utime + me.ru_stime - self.me.ru_utime - self.me.ru_stime,
            kids.ru_utime + kids.ru_stime - self.kids.ru_utime - self.kids.ru_stime,
        )


def in_process(plan: Plan, budget: float | None) -> Measured:
    """Every game of ``plan`` through the engine, one after another in this process."""
    clock = _Clock()
    games, actions = _play(plan.to_dict(), None, budget)
    return clock.stop(games, actions)


def in_process_workers(plan: Plan, workers: int, budget: float | None) -> Measured:
    """The deal sets ``shithead-tournament --workers N`` would play, each through the engine,
    ``workers`` at once in a pool of fresh processes (spawned: started, as the organiser's
    workers are, by the venv's Python, so with the same build; their start is timed, as theirs
    is)."""
    sets = deal_sets(plan, (), workers)
    clock = _Clock()
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        done = list(pool.map(_play, [plan.to_dict()] * len(sets), sets, [budget] * len(sets)))
    return clock.stop(sum(g for g, _ in done), sum(a for _, a in done))


def over_server(plan: Plan, workers: int) -> Measured:
    """``plan`` played by :func:`client.tournament.organiser.run`: on a server child process
    with the bots in this process (``workers`` 1), or in deal sets on ``workers`` worker
    processes each with a server of its own. Actions are read back from ``results.csv``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench"
        clock = _Clock()
        try:
            results = asyncio.run(
                run(plan, out, server=None, progress=Progress(lambda n, t: None, lambda t: None), workers=workers)
            )
        except Exception:  # the logs go with the temporary directory: their ends, before they do
            for log in ("workers.log", "server.log"):
                if (out / log).exists():
                    tail = (out / log).read_text(errors="replace").splitlines()[-30:]
                    print(f"--- the end of {log}:", *tail, sep="\n", file=sys.stderr)
            raise
        measured = clock.stop(results.games, 0)
        with (out / "results.csv").open() as fh:
            measured.actions = sum(int(r["actions"]) for r in csv.DictReader(fh) if r["seat"] == "0")
        return measured
