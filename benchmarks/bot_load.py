"""Does a table of busy bots slow everybody else down? Lobby latency beside the server's own bots.

    .venv/bin/python benchmarks/bot_load.py                      # 2 tables of 4 search bots, 15 s
    .venv/bin/python benchmarks/bot_load.py --bot ismcts --tables 3 --seconds 20
    .venv/bin/python benchmarks/bot_load.py --baseline 4333d48 --rounds 3   # side by side with a revision

The real server (``python -m server`` on 127.0.0.1, a free port, a fresh database) is started
for each round; one client (the owner) creates ``--tables`` tables of four bundled ``--bot``
bots and starts each of their games as soon as the last is over (it looks at the lobby ten
times a second); a second client, a person sitting nowhere, pings the server every ``--gap``
seconds (10 ms: a client that thinks, as players and most bots do, rather than a flood) for
``--seconds``: the round-trip times are what every other player's requests wait behind the
bots. (``--gap 0``, one ping after another, also measures how the 2 cores are shared between
the bots' work, the server and this process.) Printed: pings, p50, p90, p99 and the longest, per round; with
``--baseline REF`` the same on git revision REF (its own server and bots, from ``git archive``),
alternately, then the medians of the rounds and the ratio. It asserts nothing: the machine is
shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.sdk import Client  # noqa: E402

HOST = "127.0.0.1"


async def one_round(source: Path, tmp: Path, args: argparse.Namespace) -> dict[str, float]:
    """Start the server of ``source``, load it with bot tables, and time the pings."""
    cmd = [sys.executable, "-m", "server", "--host", HOST, "--port", "0", "--db", str(tmp / "bot_load.sqlite3")]
    cmd += ["--no-advertise", "--no-web", "--log-level", "WARNING"]
    # (before anything is measured: blocking the loop while the server starts is harmless)
    proc = subprocess.Popen(cmd, cwd=source, stdout=subprocess.PIPE, text=True)  # noqa: ASYNC220
    try:
        assert proc.stdout is not None
        m = re.search(r":(\d+)\b", proc.stdout.readline())
        if not m:
            raise RuntimeError("the server did not say where it listens")
        port = int(m.group(1))
        owner = await Client.connect(HOST, port, client_name="bot-load-owner", reconnect=False)
        pinger = await Client.connect(HOST, port, client_name="bot-load-pinger", reconnect=False)
        try:
            await owner.login("owner", guest=True)
            await pinger.login("pinger", guest=True)
            tables = set()
            for k in range(args.tables):
                t = await owner.create_table(f"bots-{k}", preset="classic", seats=4)
                for _ in range(4):
                    await owner.add_bot(t, args.bot)
                await owner.start(t)
                tables.add(t)
            rtts: list[float] = []
            end = time.monotonic() + args.seconds
            next_look = time.monotonic() + 0.1
            while (now := time.monotonic()) < end:
                t0 = time.perf_counter()
                await pinger.ping()
                rtts.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(args.gap)
                if now >= next_look:  # (the owner's lobby look, between two pings)
                    next_look = now + 0.1
                    for s in await owner.list_tables():
                        if s["table"] in tables and s["status"] == "waiting":
                            await owner.start(s["table"])
        finally:
            await owner.close()
            await pinger.close()
    finally:
        proc.terminate()
        proc.wait(60)
    rtts.sort()

    def pct(p: float) -> float:
        return rtts[min(len(rtts) - 1, int(len(rtts) * p))]

    return {"pings": len(rtts), "p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "max": rtts[-1]}


def show(label: str, r: dict[str, float]) -> None:
    print(
        f"  {label:18} {r['pings']:>6.0f} pings   p50 {r['p50']:7.2f} ms   p90 {r['p90']:7.2f} ms   "
        f"p99 {r['p99']:7.2f} ms   max {r['max']:7.1f} ms",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--bot", default="search", help="the bundled bot at every seat (default search)")
    ap.add_argument("--tables", type=int, default=2, help="tables of four bots (default 2)")
    ap.add_argument("--seconds", type=float, default=15.0, help="seconds of pinging per round (default 15)")
    ap.add_argument("--gap", type=float, default=0.01, help="seconds between one pong and the next ping (0.01)")
    ap.add_argument("--baseline", metavar="REF", help="also run git revision REF, alternately, side by side")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (of each, with --baseline; default 1)")
    args = ap.parse_args(argv)
    print(
        f"lobby ping every {args.gap * 1000:g} ms while {args.tables} tables of 4 {args.bot} bots play; "
        f"{args.seconds:g} s a round, 127.0.0.1"
    )
    with tempfile.TemporaryDirectory(prefix="bot-load-") as name:
        tmp = Path(name)
        sources = [("now", ROOT)]
        if args.baseline:
            base = tmp / "baseline"
            base.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.baseline], capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
            sources.insert(0, (f"baseline {args.baseline}", base))
        rows: dict[str, list[dict[str, float]]] = {label: [] for label, _ in sources}
        for k in range(args.rounds):
            for label, source in sources:
                (tmp / "bot_load.sqlite3").unlink(missing_ok=True)
                r = asyncio.run(one_round(source, tmp, args))
                rows[label].append(r)
                show(f"round {k + 1} {label.split()[0]}", r)
    if len(sources) == 2:
        (b_label, _), (n_label, _) = sources
        print(f"\n  {'median of rounds':18} {'baseline':>10} {'now':>10} {'now/baseline':>13}")
        for key in ("p50", "p90", "p99", "max"):
            b = sorted(r[key] for r in rows[b_label])[args.rounds // 2]
            n = sorted(r[key] for r in rows[n_label])[args.rounds // 2]
            print(f"  {key + ', ms':18} {b:>10.2f} {n:>10.2f} {n / b:>13.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
