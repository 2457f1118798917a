"""A challenge through the protocol, timed: the real server (``python -m server``, a child
process on 127.0.0.1 with a temporary database), an account that asks for ``--deals``
duplicate deals of bot A against bot B and waits for ``challenge_over`` (issue 34's acceptance:
"a challenge of 100 duplicate deals through the protocol, its result within the interval
benchmarks/strength.py gives for the same pair")::

    python benchmarks/challenge.py --bots '[greedy]' '[random]' --layout 1v3 --deals 100
    python benchmarks/strength.py --matchup greedy:random --layout 1v3 --games 400 --seed 1

Both bots are the server's bundled bots here (a ladder bot would need its program running).
The server plays the challenge on ``--tables`` ladder tables, one game at a time (a challenge is
one match); the figures printed are the ``challenge_over`` message's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.sdk import Client
from protocol.messages import Challenge, ChallengeOver, ChallengeStatus

HOST = "127.0.0.1"


def start_server(tmp: Path, port: int) -> subprocess.Popen[str]:
    config = tmp / "server.toml"
    config.write_text("[limits]\nladder_tables = 1\n", encoding="utf-8")
    command = [sys.executable, "-m", "server", "--host", HOST, "--port", str(port), "--db", str(tmp / "db.sqlite3")]
    command += ["--no-advertise", "--no-web", "--bot-delay", "0", "--config", str(config)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if "listening" not in first:
        proc.kill()
        raise SystemExit(f"the server did not start: {first!r}")
    return proc


async def challenge(port: int, bots: list[str], layout: str, deals: int) -> dict[str, object]:
    client = await Client.connect(HOST, port, reconnect=False)
    try:
        await client.login("challenger", "a good password")
        answer = await client.request(Challenge, preset="classic", bots=tuple(bots), layout=layout, deals=deals)
        assert isinstance(answer, ChallengeStatus), answer
        async for item in client.messages():
            if isinstance(item, ChallengeOver):
                return dict(item.info)
        raise SystemExit("the connection ended before challenge_over")
    finally:
        await client.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bots", nargs=2, default=["[greedy]", "[random]"], metavar=("A", "B"))
    p.add_argument("--layout", default="1v3")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--port", type=int, default=7499)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp), args.port)
        try:
            began = time.monotonic()
            info = asyncio.run(challenge(args.port, args.bots, args.layout, args.deals))
            seconds = time.monotonic() - began
        finally:
            server.terminate()
            server.wait()
    print(json.dumps({k: v for k, v in info.items() if k != "games"}, indent=1))
    games = info["games"]
    assert isinstance(games, list)
    print(f"{len(games)} games (ids {games[0]}..{games[-1]}), {seconds:.0f} s")
    for s in info["scores"]:  # type: ignore[attr-defined]
        print(f"{s['name']}: mean place {s['mean_place']} ± {s['mean_place_95']}, loss rate {s['loss_rate']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
