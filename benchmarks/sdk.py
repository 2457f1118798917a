"""The bot side's cost per received state: what a bot's connection spends on every ``state``.

Every seat receives a ``state`` after every action, so a bot spends far more time reading
states than choosing plays (issue 14). This replays the state frames of real games (classic,
4 seats, 2 greedy + 2 random, each seat's own view and events, encoded as the server encodes
them) through a client's :class:`protocol.connection.Connection`, the decoder the SDK uses,
and prints microseconds per state side by side with the baseline: the same bytes through
``msgpack.unpackb`` alone (the least any reader of the protocol must do). Nothing is
asserted: the machine is shared and noisy.

    .venv/bin/python benchmarks/sdk.py [--games 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.connection import Connection, Role
from protocol.examples import EXAMPLES
from protocol.framing import encode_frame
from protocol.messages import State, encode_message
from server.engine import Game, event_to_dict, make_rules
from server.engine.policies import greedy_policy
from server.engine.view import view_for


def state_frames(games: int, seed: int) -> list[bytes]:
    """The frames seat 0..3 receive in ``games`` games, interleaved as they are sent."""
    rng = random.Random(seed)
    rules = make_rules("classic")
    frames = []
    seq = 0
    for number in range(games):
        game = Game.new(rules, 4, rng=rng)
        events: list[dict[str, object]] = []
        while not game.is_over():
            for s in range(4):
                state = State(table=1, seq=seq, game=number + 1, view=view_for(game, s), events=events)  # type: ignore[arg-type]
                frames.append(encode_frame(encode_message(state), max_size=None))
            seat = game.to_act()[0]
            action = greedy_policy(game, seat, rng) if seat % 2 == 0 else rng.choice(game.legal_actions(seat))
            events = [event_to_dict(e) for e in game.apply(seat, action)]
            seq += 1
    return frames


def logged_in_client() -> Connection:
    """A client connection past hello and login, as the SDK holds it while it plays."""
    conn = Connection(Role.CLIENT)
    conn.send(EXAMPLES["hello"])
    conn.receive_data(encode_frame(encode_message(EXAMPLES["welcome"]), max_size=None))
    conn.send(EXAMPLES["login"])
    conn.receive_data(encode_frame(encode_message(EXAMPLES["logged_in"]), max_size=None))
    return conn


def per_state(frames: list[bytes], read: object) -> float:
    began = time.perf_counter()
    for frame in frames:
        read(frame)  # type: ignore[operator]
    return (time.perf_counter() - began) / len(frames) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    frames = state_frames(args.games, args.seed)
    size = sum(map(len, frames)) / len(frames)
    print(f"SDK benchmark: {len(frames):,} state frames of {args.games} games, {size:.0f} bytes on average")
    bare, sdk = [], []
    for _ in range(args.repeat):
        bare.append(per_state(frames, lambda f: msgpack.unpackb(f[4:], raw=False)))
        conn = logged_in_client()
        sdk.append(per_state(frames, conn.receive_data))
    for name, runs in (("msgpack.unpackb alone (baseline)", bare), ("client Connection.receive_data", sdk)):
        print(f"  {name:34} best {min(runs):6.2f} us/state, median {statistics.median(runs):6.2f}")
    print(f"ratio connection / bare unpack: {min(sdk) / min(bare):.2f} (best of {args.repeat})")


if __name__ == "__main__":
    main()
