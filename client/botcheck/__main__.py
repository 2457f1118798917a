"""``shithead-bot-check "COMMAND"``: check a bot program before a tournament.

    shithead-bot-check "python mybot.py --host {host} --port {port} --tournament {tournament} \
        --name {name} --password {password}"

``COMMAND`` is the bot's command line with the placeholders of ``shithead-tournament
--engine``. Exit status: 0 when the bot made no mistake, 1 when it made any, 2 for a bad
command line or a checker that could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path

from protocol.errors import ProtocolError

from .gauntlet import gauntlet
from .report import HEADER, passed, stage_row, timing, verdict
from .run import StageResult, check


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="shithead-bot-check",
        description="Run a bot program through a gauntlet of games on a private server and report its mistakes.",
        epilog="Placeholders in COMMAND: {host} {port} {tournament} {name} {password}. "
        "Exit status 0: no mistake; 1: mistakes (listed); 2: the check could not run.",
    )
    p.add_argument("command", metavar="COMMAND", help="the bot's command line, with placeholders")
    p.add_argument("--presets", help="comma-separated presets to play (default: every preset)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first stage's deal (default 1)")
    p.add_argument("--max-mistakes", type=int, default=5, help="stop the gauntlet after this many mistakes (default 5)")
    p.add_argument("--keep", type=Path, metavar="DIR", help="keep the logs (bot output, server log) in DIR")
    p.add_argument("-v", "--verbose", action="count", default=0)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=[logging.ERROR, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        stages = gauntlet(args.presets.split(",") if args.presets else None)
    except ValueError as exc:
        print(f"shithead-bot-check: {exc}", file=sys.stderr)
        return 2
    if args.max_mistakes < 1:
        print("shithead-bot-check: --max-mistakes must be at least 1", file=sys.stderr)
        return 2
    print(f"checking: {args.command}", flush=True)
    print(f"{len(stages)} stages, one deal each, against bundled bots\n", flush=True)
    print(HEADER, flush=True)

    def on_stage(result: StageResult) -> None:
        print(stage_row(result), flush=True)

    with tempfile.TemporaryDirectory(prefix="bot-check-") as tmp:
        workdir = args.keep or Path(tmp)
        try:
            results = asyncio.run(
                check(
                    args.command,
                    stages,
                    workdir,
                    seed=args.seed,
                    max_mistakes=args.max_mistakes,
                    on_stage=on_stage,
                )
            )
        except ValueError as exc:
            print(f"shithead-bot-check: {exc}", file=sys.stderr)
            return 2
        except (OSError, ConnectionError, RuntimeError, ProtocolError) as exc:
            print(f"shithead-bot-check: the check could not run: {exc}", file=sys.stderr)
            return 2
    print()
    for line in timing(results):
        print(line)
    for line in verdict(results):
        print(line)
    if args.keep:
        print(f"\nlogs: {args.keep}/bot-N.log (the bot's output per stage), {args.keep}/server.log")
    return 0 if passed(results) else 1


if __name__ == "__main__":
    sys.exit(main())
