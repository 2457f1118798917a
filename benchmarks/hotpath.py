"""The server's per-action work without sockets: frame in, coordinator, frames out.

Drives :class:`server.shell.app.App` through :class:`server.shell.app.ClientSession` objects whose
transport only counts bytes, with 4-seat classic tables whose clients always send the first
legal action. It measures what ``benchmarks/server.py`` cannot separate from the event loop
and the kernel: the Python cost of one action (decode the act, apply it, build and encode five
frames). Prints microseconds per action (best and median of ``--repeat`` runs) and, with
``--profile``, where the time goes.

    .venv/bin/python benchmarks/hotpath.py [--actions 20000] [--repeat 5] [--profile] [--turn-states]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.framing import FRAME_HEADER as _HDR
from server.config import Limits, ServerConfig
from server.engine import format_action
from server.shell.app import App, ClientSession


class FakeTransport:
    """Collects what the server writes; the latest state per table is decoded on demand."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.bytes = 0
        self.keep = True

    def write(self, data: bytes) -> None:
        if self.keep:
            self.chunks.append(data)
        self.bytes += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> Any:
        return ("127.0.0.1", 1) if name == "peername" else None

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass

    def frames(self) -> list[dict[str, Any]]:
        data = b"".join(self.chunks)
        self.chunks.clear()
        out, pos = [], 0
        while pos < len(data):
            n = _HDR.unpack_from(data, pos)[0]
            out.append(msgpack.unpackb(data[pos + 4 : pos + 4 + n]))
            pos += 4 + n
        return out


def frame(msg: dict[str, Any]) -> bytes:
    body = msgpack.packb(msg)
    return _HDR.pack(len(body)) + body


async def build(tables: int, turn_states: bool = False) -> tuple[App, list[list[tuple[ClientSession, FakeTransport]]]]:
    tmp = tempfile.mkdtemp()
    app = App(
        ServerConfig(
            host="127.0.0.1",
            port=0,
            db=f"{tmp}/bench.sqlite3",
            limits=Limits(rate_per_second=1e9, rate_burst=10**9, tables_per_address=10**6),
        )
    )
    await app.start()
    out = []
    for t in range(tables):
        seats = []
        for i in range(4):
            s = ClientSession(app)
            tr = FakeTransport()
            s.connection_made(tr)  # type: ignore[arg-type]
            hello = {"type": "hello", "id": 1, "version": 1}
            if turn_states:
                hello["states"] = "turns"
            s.data_received(frame(hello))
            s.data_received(frame({"type": "login", "id": 2, "name": f"t{t}p{i}", "guest": True}))
            seats.append((s, tr))
        # (one turn of the loop at a time: no event tells of a login here)
        while not all(s.logged_in for s, _ in seats):  # noqa: ASYNC110
            await asyncio.sleep(0)
        owner = seats[0][0]
        owner.data_received(
            frame({"type": "create_table", "id": 3, "name": f"t{t}", "preset": "classic", "seats": 4, "seed": t})
        )
        table_id = (await answer(app, seats[0][1], "table_created"))["table"]
        assert table_id == t + 1
        for s, _ in seats:
            s.data_received(frame({"type": "join", "id": 4, "table": table_id}))
        owner.data_received(frame({"type": "start", "id": 5, "table": table_id}))
        await drain(app)
        for _, tr in seats:
            tr.keep = False
            tr.chunks.clear()
        out.append(seats)
    return app, out


async def answer(app: App, tr: FakeTransport, kind: str) -> dict[str, Any]:
    """The first frame of type ``kind`` written to ``tr``: requests run as tasks, and their
    answers are held until the journal has committed what they changed."""
    for _ in range(10_000):
        await drain(app)
        await asyncio.sleep(0)
        for f in tr.frames():
            if f["type"] == kind:
                return f
            if f["type"] == "error":
                raise RuntimeError(f"refused instead of {kind!r}: {f}")
    raise RuntimeError(f"no {kind!r} came")


async def drain(app: App) -> None:
    """Let the journal commit what was written, so that the held frames go out."""
    assert app.journal is not None
    await app.journal.drain()


async def run(app: App, tables: list[list[tuple[ClientSession, FakeTransport]]], actions: int) -> tuple[float, int]:
    """Play ``actions`` actions round-robin over the tables; returns (thread CPU seconds, actions).

    The harness reads whose turn it is and the first legal action from the server's own
    objects (what the states just sent say), so that its own cost stays out of the figure.
    After each round over the tables the journal commits (on its own thread, not counted) and
    the frames held for the commit are written, as on the real server where a commit releases
    the actions of many tables at once; the release is counted."""
    done = 0
    elapsed = 0.0
    rid = 10
    while done < actions:
        for ti, seats in enumerate(tables):
            table = app.tables[ti + 1]
            game = table.game
            assert game is not None
            if game.is_over():
                seats[0][0].data_received(frame({"type": "start", "id": 6, "table": table.id}))
                continue
            actor = game.to_act()[0]
            seat = table.seats[actor]
            assert seat is not None
            rid += 1
            data = frame(
                {"type": "act", "id": rid, "table": table.id, "seq": table.seq, "action": format_action(seat.legal[0])}
            )
            s = seats[actor][0]
            t0 = time.thread_time()
            s.data_received(data)
            elapsed += time.thread_time() - t0
            done += 1
        t0 = time.thread_time()
        await drain(app)
        elapsed += time.thread_time() - t0
    return elapsed, done


async def main_async(args: argparse.Namespace) -> None:
    app, tables = await build(args.tables, args.turn_states)
    await run(app, tables, args.warmup)
    results = []
    sent0 = sum(tr.bytes for seats in tables for _, tr in seats)
    prof = cProfile.Profile() if args.profile else None
    for _ in range(args.repeat):
        if prof:
            prof.enable()
        secs, n = await run(app, tables, args.actions)
        if prof:
            prof.disable()
        results.append(secs / n * 1e6)
    print(
        f"hot path, {args.tables} classic 4-seat tables{' on turn states' if args.turn_states else ''}, "
        "first legal action: "
        f"best {min(results):.1f} us/action, median {statistics.median(results):.1f} us "
        f"({args.repeat} x {args.actions} actions; no sockets, no event loop); "
        f"{(sum(tr.bytes for seats in tables for _, tr in seats) - sent0) / (args.repeat * args.actions):,.0f} "
        f"bytes out per action"
    )
    if prof:
        pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)
    await app.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--actions", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2000, help="actions played before measuring")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--turn-states", action="store_true", help="the clients ask for turn states (hello.states: turns), as bots do"
    )
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sort", default="tottime", help="pstats sort key for --profile (tottime, cumulative)")
    args = ap.parse_args()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
