"""Server speed: actions/s, action latency, CPU per action and memory per connection,
against a bare msgpack echo server over the same number of connections.

    python benchmarks/server.py                  # full run (about 80 s)
    python benchmarks/server.py --quick          # smoke run, scaled down (about 12 s)
    python benchmarks/server.py --tables 50 --seconds 10 --warmup 3
    python benchmarks/server.py --profile        # main scenario with the server under cProfile
    python benchmarks/server.py --baseline HEAD~3 --tables 100 --seconds 10   # before/after, side by side
    python benchmarks/server.py --transport ws   # WebSocket vs JSON lines, side by side
    python benchmarks/server.py --builds --rounds 3   # pure vs compiled server vs the floor, alternating
    python benchmarks/server.py --builds --think 200  # the same, paced: acts after 0-200 ms, 25 and 250 tables
    python benchmarks/server.py --gc-pauses --rounds 3   # the collector's pauses, CPython's schedule vs ours

Everything is started here and stopped at the end (also on Ctrl-C), on 127.0.0.1 only:

* the real server, ``python -m server`` (fresh for each scenario, a temporary database, a
  config file that lifts the connection and rate limits, 600 s action clocks);
* a load generator, this script with ``--loadgen`` in a separate process: asyncio, raw
  msgpack frames, N tables of 4 clients that always play the first legal action; the first
  client of each table creates a 4-seat classic table, starts it, and starts the next game
  after each ``game_over``. A client has at most one ``act`` in flight; latency is from
  sending ``act`` to receiving its ``ok`` (the server sends it before the new states);
* a bare asyncio msgpack echo server (this script with ``--echo-server``): each frame in is
  unpacked, packed again and sent back. Its clients send a real ``state`` frame recorded
  during the main scenario, one round trip at a time per connection;
* the floor, a fan-out server (this script with ``--fanout-server``): the least any server of
  this protocol must do per action, over as many connections in groups of 4: unpack an act,
  pack one recorded state, write it to the group's 4 connections (no rules, no journal, no
  per-seat part). Its ratio to the echo is the most any server could reach on this machine.

Scenarios: (1) ``--tables`` tables (default 100: 400 connections) for actions/s, latency,
server CPU per action and memory per connection; (2) the echo baseline and the floor over
as many connections; (3) ``--idle-connections`` connections that only say hello and log in, for
memory per idle connection; (4) the p99 check with 1,000 connections, read as 250 tables of
4 all playing (``--p99-mode mixed``: ``--tables`` tables playing plus idle connections up to
1,000). Server CPU is utime+stime from /proc/<pid>/stat, memory is VmRSS from
/proc/<pid>/status. This machine is shared and noisy; nothing is asserted, it only prints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import os
import random
import re
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import msgpack  # type: ignore[import-untyped]
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"

TARGET_ACTIONS = 15_000  # actions/s on one server core, 100 tables (400 connections)
TARGET_P99_MS = 25.0  # action latency p99 with 1,000 connections
TARGET_IDLE_KIB = 10.0  # memory per idle connection
P99_CONNECTIONS = 1000

CONFIG_TOML = """\
# Written by benchmarks/server.py: lift the limits a benchmark from one address would hit.
[limits]
max_connections = 20000
max_connections_per_address = 20000
rate_per_second = 1000000.0
rate_burst = 1000000
handshake_timeout = 300.0
idle_timeout = 3600.0
max_tables = 10000
tables_per_address = 10000
"""

_HDR = struct.Struct(">I")
_packb = msgpack.packb
_unpackb = msgpack.unpackb
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_loads = json.loads
CLK_TCK = os.sysconf("SC_CLK_TCK")


def frames(buf: bytearray, data: bytes) -> Iterator[memoryview]:
    """The bodies of the complete length-prefixed frames in ``buf`` followed by ``data``, in
    order; what is left of a partial frame is kept in ``buf`` once the loop has run out."""
    if buf:
        buf += data
        data = bytes(buf)
        buf.clear()
    n = len(data)
    mv = memoryview(data)
    pos = 0
    while n - pos >= 4:
        end = pos + 4 + _HDR.unpack_from(data, pos)[0]
        if end > n:
            break
        yield mv[pos + 4 : end]
        pos = end
    if pos < n:
        buf += mv[pos:]


# =========================================================================== /proc helpers


def proc_cpu_split(pid: int) -> tuple[float, float]:
    """(utime, stime) of a process (all its threads), seconds: user code and the kernel."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK  # fields 14 and 15 of stat(5)


def proc_cpu(pid: int) -> float:
    """utime + stime of a process (all its threads), seconds."""
    return sum(proc_cpu_split(pid))


def proc_rss(pid: int) -> int:
    """Resident set size, bytes."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


# =========================================================================== load generator (child process)


class Stats:
    """Counters shared by every client of one load-generator process."""

    def __init__(self) -> None:
        self.acts = 0
        self.games = 0
        self.errors: Counter[str] = Counter()
        self.recording = False
        self.lat: list[float] = []
        self.frames = 0
        self.state_frames = 0
        self.state_bytes = 0
        self.sample: dict[str, Any] | None = None
        self.lost = 0
        self.think = 0.0
        """Longest think before an act, in seconds (``--think``): each act waits a uniform
        0..think, as a bot or a person does; 0 acts at once (the saturated load)."""
        self.rng = random.Random(1)

    def later(self, act: Callable[[], None]) -> None:
        """Call ``act`` after this load's think time (at once when not thinking)."""
        if self.think:
            asyncio.get_running_loop().call_later(self.rng.uniform(0.0, self.think), act)
        else:
            act()


class LoadClient(asyncio.Protocol):
    """One game connection, no validation (speed first), in one of the wire forms: ``msgpack``
    (raw length-prefixed frames, the default), ``json`` (JSON lines) or ``ws`` (JSON over the
    server's WebSocket, framed and masked by the websockets library's client protocol, as a
    browser would)."""

    def __init__(self, stats: Stats, wire: str = "msgpack") -> None:
        self.stats = stats
        self.wire = wire
        self.transport: asyncio.Transport | None = None
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Done once messages may be sent (for ``ws``: after the upgrade)."""
        self.ws: ClientProtocol | None = None
        self.buf = bytearray()
        self.next_id = 0
        self.waiters: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.table = 0
        self.owner = False
        self.inflight = False
        self.act_id = -1
        self.act_t = 0.0
        self.pending: dict[str, Any] | None = None

    # --- transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self.wire == "ws":
            host, port = transport.get_extra_info("peername")[:2]
            self.ws = ClientProtocol(parse_uri(f"ws://{host}:{port}/ws"))
            self.ws.send_request(self.ws.connect())
            self._flush_ws()
        else:
            self.ready.set_result(None)

    def _flush_ws(self) -> None:
        assert self.ws is not None and self.transport is not None
        for data in self.ws.data_to_send():
            if data:
                self.transport.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("connection lost"))
        self.stats.lost += 1
        for fut in self.waiters.values():
            if not fut.done():
                fut.set_exception(ConnectionError("connection lost"))
        self.waiters.clear()

    def send(self, msg: dict[str, Any]) -> int:
        self.next_id += 1
        msg["id"] = self.next_id
        assert self.transport is not None
        if self.wire == "msgpack":
            body = _packb(msg)
            self.transport.write(_HDR.pack(len(body)) + body)
        elif self.wire == "json":
            self.transport.write(_dumps(msg).encode() + b"\n")
        else:
            assert self.ws is not None
            self.ws.send_text(_dumps(msg).encode())
            self._flush_ws()
        return self.next_id

    def request(self, msg: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[self.send(msg)] = fut
        return fut

    def data_received(self, data: bytes) -> None:
        if self.wire == "msgpack":
            self._frames(data)
        elif self.wire == "json":
            self._lines(data)
        else:
            self._websocket(data)

    def _lines(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        end = buf.rfind(b"\n")
        if end < 0:
            return
        chunk = bytes(buf[: end + 1])
        del buf[: end + 1]
        for line in chunk.split(b"\n")[:-1]:
            self.on_frame(_loads(line), len(line))

    def _websocket(self, data: bytes) -> None:
        ws = self.ws
        assert ws is not None
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Response):
                if event.status_code == 101:
                    self.ready.set_result(None)
                else:
                    self.ready.set_exception(ConnectionError(f"upgrade refused: {event.status_code}"))
            elif event.opcode is Opcode.TEXT:
                self.on_frame(_loads(event.data), len(event.data))
        self._flush_ws()

    def _frames(self, data: bytes) -> None:
        on_frame = self.on_frame
        for body in frames(self.buf, data):
            on_frame(_unpackb(body), len(body) + 4)

    # --- messages

    def on_frame(self, m: dict[str, Any], size: int) -> None:
        st = self.stats
        st.frames += 1
        t = m["type"]
        if t == "state":
            st.state_frames += 1
            st.state_bytes += size
            if self.inflight:
                self.pending = m  # newer than what we acted on (or think on); see act_on
            elif m["view"]["legal"]:
                self.inflight = True  # thinking: the act leaves in think_done
                self.stats.later(lambda: self.think_done(m))
        elif t == "ok" or t == "error":
            mid = m.get("id")
            if mid == self.act_id:
                self.inflight = False
                self.act_id = -1
                p, self.pending = self.pending, None
                if t == "ok":
                    st.acts += 1
                    if st.recording:
                        st.lat.append(time.perf_counter() - self.act_t)
                    # The next state on this connection is the one after our action.
                else:
                    st.errors[m["code"]] += 1
                    if p is not None:
                        self.act_on(p)
            else:
                fut = self.waiters.pop(mid, None) if mid is not None else None
                if fut is not None:
                    fut.set_result(m)
                elif t == "error":
                    st.errors[m["code"]] += 1
        elif t == "game_over":
            if self.owner:
                st.games += 1
                self.send({"type": "start", "table": self.table})
        elif t != "table_update":
            fut = self.waiters.pop(m.get("id", -1), None)
            if fut is not None:
                fut.set_result(m)

    def think_done(self, m: dict[str, Any]) -> None:
        """Act on the newest state seen while thinking (``m`` unless a newer came)."""
        p, self.pending = self.pending, None
        self.inflight = False
        self.act_on(p if p is not None else m)

    def act_on(self, m: dict[str, Any]) -> None:
        legal = m["view"]["legal"]
        if legal:
            if self.stats.recording and self.stats.sample is None:
                self.stats.sample = m
            self.act_t = time.perf_counter()
            self.act_id = self.send({"type": "act", "table": self.table, "seq": m["seq"], "action": legal[0]})
            self.inflight = True


def emit(event: str, **data: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **data}) + "\n")
    sys.stdout.flush()


async def read_line() -> str:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line:
        raise SystemExit("load generator: parent went away")
    return line.strip()


async def expect(fut: asyncio.Future[dict[str, Any]], want: str) -> dict[str, Any]:
    reply = await fut
    if reply.get("type") != want:
        raise RuntimeError(f"expected {want}, got {reply}")
    return reply


async def connect_login(
    port: int, stats: Stats, name: str, sem: asyncio.Semaphore, wire: str = "msgpack"
) -> LoadClient:
    loop = asyncio.get_running_loop()
    async with sem:
        _, c = await loop.create_connection(lambda: LoadClient(stats, wire), HOST, port)
        await c.ready
        hello = c.request({"type": "hello", "version": 1, "client": "bench"})
        login = c.request({"type": "login", "name": name, "guest": True})  # pipelined after hello
        await expect(hello, "welcome")
        await expect(login, "logged_in")
    return c


async def setup_table(
    port: int, stats: Stats, prefix: str, i: int, sem: asyncio.Semaphore, wire: str = "msgpack"
) -> list[LoadClient]:
    clients = await asyncio.gather(*(connect_login(port, stats, f"{prefix}t{i}s{s}", sem, wire) for s in range(4)))
    owner = clients[0]
    owner.owner = True
    created = await expect(
        owner.request({"type": "create_table", "name": f"bench {prefix}{i}", "preset": "classic", "seats": 4}),
        "table_created",
    )
    for c in clients:
        c.table = created["table"]
        await expect(c.request({"type": "join", "table": c.table}), "joined")
    return clients


async def open_idle(port: int, stats: Stats, prefix: str, count: int, sem: asyncio.Semaphore) -> list[LoadClient]:
    return list(await asyncio.gather(*(connect_login(port, stats, f"{prefix}i{k}", sem) for k in range(count))))


async def sleep_until(t: float) -> None:
    await asyncio.sleep(max(0.0, t - time.monotonic()))


def close_all(clients: list[Any]) -> None:
    for c in clients:
        if c.transport is not None:
            c.transport.close()


async def loadgen_game(spec: dict[str, Any]) -> None:
    stats = Stats()
    sem = asyncio.Semaphore(64)  # connects in flight: stay inside the listen backlog
    port, prefix = spec["port"], spec["prefix"]
    t_setup = time.monotonic()
    tables = await asyncio.wait_for(
        asyncio.gather(
            *(setup_table(port, stats, prefix, i, sem, spec.get("wire", "msgpack")) for i in range(spec["tables"]))
        ),
        300,
    )
    idle = await asyncio.wait_for(open_idle(port, stats, prefix, spec.get("idle", 0), sem), 300)
    emit("seated", seconds=time.monotonic() - t_setup)
    stats.think = spec.get("think", 0.0)
    go, t0, t1 = (await read_line()).split()
    assert go == "go"
    gc.collect()
    gc.disable()  # messages are acyclic: reference counting frees them
    for clients in tables:
        clients[0].send({"type": "start", "table": clients[0].table})
    await sleep_until(float(t0))
    acts0, games0, cpu0 = stats.acts, stats.games, time.process_time()
    stats.recording = True
    await sleep_until(float(t1))
    stats.recording = False
    acts, games, cpu = stats.acts - acts0, stats.games - games0, time.process_time() - cpu0
    emit(
        "result",
        acts=acts,
        games=games,
        cpu=cpu,
        wall=float(t1) - float(t0),
        lat_us=[round(x * 1e6) for x in stats.lat],
        errors=dict(stats.errors),
        lost=stats.lost,
        frames=stats.frames,
        state_frames=stats.state_frames,
        state_bytes=stats.state_bytes,
        sample=stats.sample,
    )
    close_all([c for clients in tables for c in clients] + idle)
    await asyncio.sleep(0.2)


async def loadgen_idle(spec: dict[str, Any]) -> None:
    stats = Stats()
    sem = asyncio.Semaphore(64)
    port, prefix = spec["port"], spec["prefix"]
    warm = await open_idle(port, stats, prefix + "w", spec["warm"], sem)
    emit("warm")
    assert await read_line() == "go"
    t = time.monotonic()
    idle = await asyncio.wait_for(open_idle(port, stats, prefix, spec["count"], sem), 300)
    emit("ready", seconds=time.monotonic() - t, lost=stats.lost, errors=dict(stats.errors))
    await read_line()
    close_all(warm + idle)
    await asyncio.sleep(0.2)


class EchoClient(asyncio.Protocol):
    """One echo connection: one frame in flight, the reply unpacked like a game client does."""

    def __init__(self, stats: Stats, frame: bytes) -> None:
        self.stats = stats
        self.frame = frame
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.t = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.stats.lost += 1

    def fire(self) -> None:
        self.t = time.perf_counter()
        assert self.transport is not None
        self.transport.write(self.frame)

    def data_received(self, data: bytes) -> None:
        st = self.stats
        for body in frames(self.buf, data):
            _unpackb(body)
            st.acts += 1
            if st.recording:
                st.lat.append(time.perf_counter() - self.t)
            self.fire()


async def one_in_flight(stats: Stats, first: list[EchoClient], clients: list[EchoClient], frame_bytes: int) -> None:
    """The measured part of the echo and floor load generators: say "seated", wait for "go",
    let ``first`` send their first frame (each then keeps one in flight), record the window
    [t0, t1], emit the result and close ``clients``."""
    emit("seated", seconds=0.0)
    _go, t0, t1 = (await read_line()).split()
    gc.collect()
    gc.disable()
    for c in first:
        c.fire()
    await sleep_until(float(t0))
    n0, cpu0 = stats.acts, time.process_time()
    stats.recording = True
    await sleep_until(float(t1))
    stats.recording = False
    emit(
        "result",
        acts=stats.acts - n0,
        games=0,
        cpu=time.process_time() - cpu0,
        wall=float(t1) - float(t0),
        lat_us=[round(x * 1e6) for x in stats.lat],
        errors={},
        lost=stats.lost,
        frame_bytes=frame_bytes,
    )
    close_all(clients)
    await asyncio.sleep(0.2)


async def loadgen_echo(spec: dict[str, Any]) -> None:
    stats = Stats()
    loop = asyncio.get_running_loop()
    body = _packb(spec["payload"])
    frame = _HDR.pack(len(body)) + body
    sem = asyncio.Semaphore(64)

    async def connect() -> EchoClient:
        async with sem:
            _, c = await loop.create_connection(lambda: EchoClient(stats, frame), HOST, spec["port"])
        return c

    clients = await asyncio.wait_for(asyncio.gather(*(connect() for _ in range(spec["count"]))), 300)
    await one_in_flight(stats, clients, clients, len(frame))


class FanoutClient(EchoClient):
    """One connection of a fan-out group of 4 (the floor scenario): the group's seats take turns
    to send a small act-like frame (``frame``); every frame that comes back (the server's
    broadcast) is unpacked like a game client does, and the seat whose turn it is then sends
    the next act."""

    def __init__(self, stats: Stats, group: list[FanoutClient], index: int, act: bytes) -> None:
        super().__init__(stats, act)
        self.group = group
        self.index = index
        self.turn = 0  # whose act the next broadcast answers (the same in every member)

    def data_received(self, data: bytes) -> None:
        st = self.stats
        for body in frames(self.buf, data):
            _unpackb(body)
            actor, self.turn = self.turn, (self.turn + 1) % len(self.group)
            if actor == self.index:  # the broadcast that answers this seat's act
                st.acts += 1
                if st.recording:
                    st.lat.append(time.perf_counter() - self.t)
            if self.turn == self.index:
                st.later(self.fire)


async def loadgen_fanout(spec: dict[str, Any]) -> None:
    stats = Stats()
    stats.think = spec.get("think", 0.0)
    loop = asyncio.get_running_loop()
    act = _packb({"type": "act", "id": 1, "table": 1, "seq": 1, "action": ["play", [[10, 2]]]})
    act_frame = _HDR.pack(len(act)) + act
    sem = asyncio.Semaphore(64)
    groups: list[list[FanoutClient]] = [[] for _ in range(spec["count"] // 4)]

    async def connect(g: int, i: int) -> None:
        async with sem:
            _, c = await loop.create_connection(
                lambda: FanoutClient(stats, groups[g], i, act_frame), HOST, spec["port"]
            )
        groups[g].append(c)

    await asyncio.wait_for(asyncio.gather(*(connect(g, i) for g in range(len(groups)) for i in range(4))), 300)
    for g, members in enumerate(groups):
        members.sort(key=lambda c: c.index)
        for c in members:  # tell the server which group each connection belongs to
            hello = _packb({"group": f"{spec['prefix']}{g}"})
            assert c.transport is not None
            c.transport.write(_HDR.pack(len(hello)) + hello)
    await asyncio.sleep(0.5)  # (set-up only, before the measured window: the groups are registered)
    await one_in_flight(stats, [members[0] for members in groups], [c for g in groups for c in g], len(act_frame))


def loadgen_main(spec_text: str) -> int:
    spec = json.loads(spec_text)
    fn = {"game": loadgen_game, "idle": loadgen_idle, "echo": loadgen_echo, "fanout": loadgen_fanout}[spec["mode"]]
    try:
        asyncio.run(fn(spec))
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:
        emit("failed", error=f"{type(exc).__name__}: {exc}")
        raise
    return 0


# =========================================================================== echo server (child process)


class EchoProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        write = self.transport.write  # type: ignore[union-attr]
        for body in frames(self.buf, data):
            out = _packb(_unpackb(body))
            write(_HDR.pack(len(out)) + out)


async def echo_server_main() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(EchoProtocol, HOST, 0, backlog=1024)
    print(f"echo server listening on {HOST}:{server.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


class FanoutProtocol(asyncio.Protocol):
    """The floor server: the least any server must do per action of this protocol. A
    connection's first frame names its group; then each frame in (an act) is unpacked, one
    state (recorded from the real server) is packed once, and the same frame is written to the
    4 connections of the group: 1 frame in, 4 out, no rules, no journal, no per-seat part."""

    groups: ClassVar[dict[str, list[FanoutProtocol]]] = {}
    state: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.members: list[FanoutProtocol] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        for body in frames(self.buf, data):
            msg = _unpackb(body)
            if self.members is None:
                self.members = self.groups.setdefault(msg["group"], [])
                self.members.append(self)
                continue
            out = _packb(self.state)
            frame = _HDR.pack(len(out)) + out
            for member in self.members:
                member.transport.write(frame)  # type: ignore[union-attr]


async def fanout_server_main(state_json: str) -> None:
    FanoutProtocol.state = json.loads(state_json)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(FanoutProtocol, HOST, 0, backlog=1024)
    print(f"fan-out server listening on {HOST}:{server.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


# =========================================================================== server under cProfile (child process)


def profiled_server_main(out: str, argv: list[str]) -> int:
    """Run the real server in this process; profile between SIGUSR1 and SIGUSR2."""
    import cProfile

    sys.path.insert(0, str(ROOT))
    from server.__main__ import main as server_main

    prof = cProfile.Profile()
    signal.signal(signal.SIGUSR1, lambda *_: prof.enable())
    signal.signal(signal.SIGUSR2, lambda *_: prof.disable())
    try:
        return server_main(argv)
    finally:
        prof.disable()
        prof.dump_stats(out)


def gc_server_main(out: str, schedule: str, argv: list[str]) -> int:
    """Run the real server in this process and record every garbage collection between SIGUSR1
    and SIGUSR2: its generation and the CPU time of the thread it ran on (load on the machine
    does not lengthen it, as it does a wall-clock pause). ``schedule`` ``cpython`` keeps
    CPython's thresholds, ``server`` lets ``python -m server`` set its own
    (server/shell/collector.py). Written to ``out`` as JSON when the server exits."""
    sys.path.insert(0, str(ROOT))
    import server.__main__ as entry

    if schedule == "cpython":
        entry.schedule_for_latency = lambda: None  # type: ignore[assignment]
    recording = False
    began = 0.0
    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}

    def on_collection(phase: str, info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.thread_time()
        elif recording:
            pauses[info["generation"]].append((time.thread_time() - began) * 1e3)

    def window(opened: bool) -> None:
        nonlocal recording
        recording = opened

    gc.callbacks.append(on_collection)
    signal.signal(signal.SIGUSR1, lambda *_: window(True))
    signal.signal(signal.SIGUSR2, lambda *_: window(False))
    try:
        return entry.main(argv)
    finally:
        Path(out).write_text(json.dumps({"thresholds": gc.get_threshold(), "pauses_ms": pauses}))


# =========================================================================== orchestration (parent)


def _die_with_parent() -> None:
    """In a child before exec: get SIGTERM if this script dies without cleaning up."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Children:
    """Every process started here; all stopped on exit, however we exit."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def popen(self, cmd: list[str], cwd: Path = ROOT, **kw: Any) -> subprocess.Popen[str]:
        p = subprocess.Popen(cmd, cwd=cwd, text=True, start_new_session=True, preexec_fn=_die_with_parent, **kw)
        self.procs.append(p)
        return p

    def stop(self, p: subprocess.Popen[str], timeout: float = 15.0) -> None:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in (p.stdin, p.stdout, p.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()

    def __enter__(self) -> Children:
        return self

    def __exit__(self, *exc: Any) -> None:
        for p in reversed(self.procs):
            self.stop(p, timeout=5.0)


def read_line_timeout(p: subprocess.Popen[str], timeout: float, what: str) -> str:
    assert p.stdout is not None
    ready, _, _ = select.select([p.stdout], [], [], timeout)
    if not ready:
        raise RuntimeError(f"{what}: nothing after {timeout:.0f} s")
    line = p.stdout.readline()
    if not line:
        raise RuntimeError(f"{what}: exited with {p.wait()}")
    return line


def read_event(p: subprocess.Popen[str], want: str, timeout: float = 400.0) -> dict[str, Any]:
    while True:
        line = read_line_timeout(p, timeout, "load generator")
        try:
            ev = json.loads(line)
        except ValueError:
            print("  loadgen:", line.rstrip(), file=sys.stderr)
            continue
        if ev.get("event") == "failed":
            raise RuntimeError(f"load generator failed: {ev['error']}")
        if ev.get("event") == want:
            return ev


def tell(p: subprocess.Popen[str], line: str) -> None:
    assert p.stdin is not None
    p.stdin.write(line + "\n")
    p.stdin.flush()


class Server:
    """The real server (or the echo or the fan-out floor server), started fresh for one scenario."""

    def __init__(
        self,
        kids: Children,
        tmp: Path,
        tag: str,
        *,
        echo: bool = False,
        fanout: dict[str, Any] | None = None,
        wrapper: list[str] | None = None,
        source: Path = ROOT,
        build: str | None = None,
    ):
        """``wrapper``: run the server inside this script instead of ``python -m server``, in
        one of its wrapper modes (``["--profiled-server", OUT]``, ``["--gc-server", OUT,
        SCHEDULE]``), which act between SIGUSR1 and SIGUSR2 (:func:`measured_run`)."""
        self.kids = kids
        self.err_path = tmp / f"{tag}.stderr"
        me = str(Path(__file__).resolve())
        args = [
            "--host",
            HOST,
            "--port",
            "0",
            "--db",
            str(tmp / f"{tag}.sqlite3"),
            "--action-seconds",
            "600",
            "--log-level",
            "WARNING",
            "--config",
            str(tmp / "bench.toml"),
        ]
        if echo:
            cmd = [sys.executable, me, "--echo-server"]
        elif fanout is not None:
            cmd = [sys.executable, me, "--fanout-server", json.dumps(fanout)]
        elif wrapper:
            cmd = [sys.executable, me, *wrapper, "--", *args]
        else:
            cmd = [sys.executable, "-m", "server", *args]
        with open(self.err_path, "w") as err:
            # ``python -m server`` run in ``source`` imports that tree's packages (a baseline's).
            # ``build``: SHITHEAD_BUILD for the server only ("pure" or "compiled", tools/mypyc_build.py).
            env = None if build is None else dict(os.environ, SHITHEAD_BUILD=build)
            self.proc = kids.popen(cmd, cwd=source, stdout=subprocess.PIPE, stderr=err, env=env)
        line = read_line_timeout(self.proc, 60, f"server {tag}")
        m = re.search(r":(\d+)\b", line)
        if not m:
            raise RuntimeError(f"server {tag}: no port in {line!r}")
        self.port = int(m.group(1))
        self.pid = self.proc.pid

    def stop(self) -> None:
        self.kids.stop(self.proc, timeout=60.0)

    def warnings(self) -> list[str]:
        with contextlib.suppress(OSError):
            return [ln.rstrip() for ln in open(self.err_path) if ln.strip()]
        return []


def start_loadgens(kids: Children, specs: list[dict[str, Any]]) -> list[subprocess.Popen[str]]:
    me = str(Path(__file__).resolve())
    return [
        kids.popen([sys.executable, me, "--loadgen", json.dumps(s)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for s in specs
    ]


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def measured_run(
    srv: Server, gens: list[subprocess.Popen[str]], warmup: float, seconds: float, window_signals: bool = False
) -> dict[str, Any]:
    """Everyone is connected: go, warm up, measure [t0, t1] on the server and in the clients."""
    t0 = time.monotonic() + 0.3 + warmup
    t1 = t0 + seconds
    for g in gens:
        tell(g, f"go {t0} {t1}")
    time.sleep(max(0.0, t0 - time.monotonic()))
    (user0, sys0) = proc_cpu_split(srv.pid)
    if window_signals:  # the wrapped server's window opens
        os.kill(srv.pid, signal.SIGUSR1)
    time.sleep(max(0.0, t1 - time.monotonic()))
    (user1, sys1) = proc_cpu_split(srv.pid)
    cpu0, cpu1 = user0 + sys0, user1 + sys1
    if window_signals:
        os.kill(srv.pid, signal.SIGUSR2)
    rss = proc_rss(srv.pid)
    results = [read_event(g, "result", timeout=seconds + 120) for g in gens]
    for g in gens:
        with contextlib.suppress(subprocess.TimeoutExpired):
            g.wait(10)
    lat = sorted(x for r in results for x in r["lat_us"])
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    wall = seconds
    acts = sum(r["acts"] for r in results)
    out = {
        "acts": acts,
        "rate": acts / wall,
        "games": sum(r["games"] for r in results),
        "p50": percentile(lat, 50) / 1000,
        "p90": percentile(lat, 90) / 1000,
        "p99": percentile(lat, 99) / 1000,
        "max": (lat[-1] / 1000) if lat else float("nan"),
        "server_cpu": cpu1 - cpu0,
        "server_sys": sys1 - sys0,
        "client_cpu": sum(r["cpu"] for r in results),
        "wall": wall,
        "errors": dict(errors),
        "lost": sum(r["lost"] for r in results),
        "rss_after": rss,
    }
    out["cpu_per_action_us"] = out["server_cpu"] / acts * 1e6 if acts else float("nan")
    state_frames = sum(r.get("state_frames", 0) for r in results)
    if state_frames:
        out["state_bytes_mean"] = sum(r["state_bytes"] for r in results) / state_frames
        out["sample"] = next((r["sample"] for r in results if r.get("sample")), None)
    if "frame_bytes" in results[0]:
        out["frame_bytes"] = results[0]["frame_bytes"]
    return out


def game_scenario(
    kids: Children,
    tmp: Path,
    tag: str,
    tables: int,
    idle: int,
    procs: int,
    warmup: float,
    seconds: float,
    wrapper: list[str] | None = None,
    source: Path = ROOT,
    wire: str = "msgpack",
    build: str | None = None,
    think: float = 0.0,
) -> dict[str, Any]:
    srv = Server(kids, tmp, tag, wrapper=wrapper, source=source, build=build)
    try:
        time.sleep(0.3)
        rss0 = proc_rss(srv.pid)
        t_per = split(tables, procs)
        i_per = split(idle, procs)
        specs = [
            {
                "mode": "game",
                "port": srv.port,
                "tables": t_per[k],
                "idle": i_per[k],
                "prefix": f"{tag}{k}",
                "wire": wire,
                "think": think,
            }
            for k in range(procs)
            if t_per[k] or i_per[k]
        ]
        gens = start_loadgens(kids, specs)
        setup = max(read_event(g, "seated")["seconds"] for g in gens)
        time.sleep(0.5)
        rss_seated = proc_rss(srv.pid)
        res = measured_run(srv, gens, warmup, seconds, window_signals=wrapper is not None)
        res.update(
            tables=tables,
            idle=idle,
            connections=tables * 4 + idle,
            setup=setup,
            rss0=rss0,
            rss_seated=rss_seated,
            warnings=srv.warnings(),
        )
        return res
    finally:
        srv.stop()


def reference_scenario(
    kids: Children,
    tmp: Path,
    kind: Literal["echo", "fanout"],
    connections: int,
    procs: int,
    payload: dict[str, Any],
    warmup: float,
    seconds: float,
    think: float = 0.0,
) -> dict[str, Any]:
    """One of the two servers the real one is compared with, over ``connections`` connections:
    :func:`measured_run`'s figures plus ``connections``.

    ``kind`` is ``"echo"``, the echo baseline (:class:`EchoProtocol`; every connection keeps one
    frame holding ``payload``, a recorded state, in flight), or ``"fanout"``, the floor
    (:class:`FanoutProtocol`; connections in groups of 4, whole groups only, and the server
    answers each act with ``payload`` written to the group)."""
    fanout = kind == "fanout"
    group = 4 if fanout else 1
    srv = Server(kids, tmp, kind, echo=not fanout, fanout=payload if fanout else None)
    try:
        per = split(connections // group, procs)
        # The echo's clients send the payload themselves; the floor's send a small act (the
        # server holds the payload) and name their groups, which must differ between processes.
        specs = [
            {"mode": kind, "port": srv.port, "count": group * n}
            | ({"prefix": f"g{k}-", "think": think} if fanout else {"payload": payload})
            for k, n in enumerate(per)
            if n
        ]
        gens = start_loadgens(kids, specs)
        for g in gens:
            read_event(g, "seated")
        res = measured_run(srv, gens, warmup, seconds)
        res["connections"] = connections
        return res
    finally:
        srv.stop()


def idle_scenario(kids: Children, tmp: Path, count: int, warm: int = 20) -> dict[str, Any]:
    srv = Server(kids, tmp, "idle")
    try:
        (gen,) = start_loadgens(
            kids, [{"mode": "idle", "port": srv.port, "count": count, "warm": warm, "prefix": "idle"}]
        )
        read_event(gen, "warm")
        time.sleep(0.5)
        rss0 = proc_rss(srv.pid)
        tell(gen, "go")
        ev = read_event(gen, "ready")
        time.sleep(1.0)
        rss1 = proc_rss(srv.pid)
        tell(gen, "close")
        with contextlib.suppress(subprocess.TimeoutExpired):
            gen.wait(10)
        return {
            "count": count,
            "rss0": rss0,
            "rss1": rss1,
            "per_conn": (rss1 - rss0) / count,
            "seconds": ev["seconds"],
            "lost": ev["lost"],
            "errors": ev["errors"],
        }
    finally:
        srv.stop()


# =========================================================================== report


def kib(n: float) -> str:
    return f"{n / 1024:,.1f} KiB"


def mib(n: float) -> str:
    return f"{n / 1048576:,.1f} MiB"


def verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


def print_game(title: str, r: dict[str, Any], show_memory: bool = True) -> None:
    print(f"\n{title}")
    print(
        f"  {r['connections']} connections ({r['tables']} tables x 4 playing"
        + (f", {r['idle']} idle" if r["idle"] else "")
        + f"), set up in {r['setup']:.2f} s"
    )
    print(
        f"  actions/s                 {r['rate']:>10,.0f}   ({r['acts']:,} applied in {r['wall']:.0f} s, "
        f"{r['games']:,} games finished, {r['games'] / r['wall']:,.1f} games/s)"
    )
    print(
        f"  latency act->ok           p50 {r['p50']:.2f} ms   p90 {r['p90']:.2f} ms   p99 {r['p99']:.2f} ms   "
        f"max {r['max']:.1f} ms"
    )
    busy = r["server_cpu"] / r["wall"]
    cap = 1e6 / r["cpu_per_action_us"] if r["cpu_per_action_us"] == r["cpu_per_action_us"] else float("nan")
    print(
        f"  server CPU per action     {r['cpu_per_action_us']:>10,.1f} us   (server busy {busy:.0%} of one core; "
        f"one full core would do ~{cap:,.0f} actions/s)"
    )
    if r["acts"]:
        sys_us = r["server_sys"] / r["acts"] * 1e6
        print(
            f"    of which in the kernel  {sys_us:>10,.1f} us   (socket reads and writes; user code "
            f"{r['cpu_per_action_us'] - sys_us:,.1f} us)"
        )
    print(
        f"  load generator CPU        {r['client_cpu'] / r['wall']:.0%} of one core"
        + ("  <- the client may be limiting" if r["client_cpu"] / r["wall"] > 0.9 else "")
    )
    if show_memory:
        conns = r["connections"]
        seated, played = (r["rss_seated"] - r["rss0"]) / conns, (r["rss_after"] - r["rss0"]) / conns
        print(
            f"  server memory (RSS)       {mib(r['rss0'])} before connecting; +{kib(seated)} per connection "
            f"logged in and seated; +{kib(played)} per connection after playing ({mib(r['rss_after'])})"
        )
    if "state_bytes_mean" in r:
        print(f"  mean state frame          {r['state_bytes_mean']:,.0f} bytes")
    if r["errors"]:
        print(f"  refused requests          {r['errors']}  (STALE_SEQ is expected now and then during setup)")
    if r["lost"]:
        print(f"  connections lost          {r['lost']}")
    for w in r.get("warnings", [])[:5]:
        print(f"  server log: {w}")


def print_profile(path: str, top: int) -> None:
    import pstats

    st = pstats.Stats(path)
    raw = st.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in raw.values()) or 1.0
    print(f"\nPROFILE of the server during the measured window (cProfile, main thread; {total:.1f} s of own time)")

    def short(key: tuple[str, int, str]) -> str:
        file, line, fn = key
        if file == "~":
            return fn
        p = Path(file)
        with contextlib.suppress(ValueError):
            return f"{p.relative_to(ROOT)}:{line} {fn}"
        return f"{p.parent.name}/{p.name}:{line} {fn}"

    def area(key: tuple[str, int, str]) -> str:
        file, _, fn = key
        if file == "~":
            if "msgpack" in fn or "Packer" in fn or "unpack" in fn:
                return "msgpack (C)"
            if "socket" in fn or "send" in fn or "recv" in fn or "poll" in fn or "select" in fn:
                return "sockets/epoll (C)"
            return "other builtins"
        with contextlib.suppress(ValueError):
            rel = Path(file).relative_to(ROOT)
            if rel.parts[0] == ".venv":
                return "site-packages: " + rel.parts[-2] + "/" + rel.parts[-1]
            return str(rel.parent) if rel.parts[0] == "server" and rel.parts[1] == "engine" else str(rel)
        if file.startswith("<"):
            return "generated code (dataclass __init__ etc.)"
        return "stdlib: " + Path(file).parent.name + "/" + Path(file).name

    by_area: Counter[str] = Counter()
    for k, v in raw.items():
        by_area[area(k)] += v[2]
    print("  own time by area:")
    for a, t in by_area.most_common(14):
        print(f"    {t / total:6.1%}  {a}")
    print(f"  top {top} functions by own time (calls, own s, share, cumulative s):")
    for k, v in sorted(raw.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"    {v[2] / total:6.1%}  {v[1]:>9,}  {v[2]:7.2f}  {v[3]:7.2f}  {short(k)}")
    print("  top project functions by cumulative time (share of the own-time total):")
    ours = [kv for kv in raw.items() if kv[0][0].startswith(str(ROOT)) and ".venv" not in kv[0][0]]
    for k, v in sorted(ours, key=lambda kv: -kv[1][3])[:top]:
        print(f"    {v[3] / total:6.1%}  {v[1]:>9,}  {short(k)}")


# =========================================================================== main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100, help="tables of 4 clients in the main scenario (default 100)")
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per scenario (default 20)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds of play before measuring (default 5)")
    p.add_argument("--idle-connections", type=int, default=1000, help="idle connections for memory (default 1000)")
    p.add_argument(
        "--p99-mode",
        choices=["playing", "mixed", "both", "none"],
        default="playing",
        help="1,000-connection latency check: 250 tables all playing (default), or --tables playing "
        "plus idle connections up to 1,000 (mixed)",
    )
    p.add_argument("--client-procs", type=int, default=1, help="load-generator processes (default 1)")
    p.add_argument("--no-echo", action="store_true", help="skip the echo baseline")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run (~12 s): 25 tables, 1.5 s measured, 0.5 s warm-up, 200 idle, 200 for the p99 check",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="only the main scenario, server under cProfile; "
        "prints where its time goes (slows the server: figures are not comparable)",
    )
    p.add_argument("--top", type=int, default=25, help="functions shown by --profile (default 25)")
    # Internal: the child processes.
    p.add_argument(
        "--baseline",
        metavar="REF",
        help="compare the main scenario with git revision REF (e.g. HEAD~3), run alternately, side by side",
    )
    p.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds for --baseline, --transport, --builds (default 3)"
    )
    p.add_argument("--builds", action="store_true", help="pure vs compiled server vs the floor, alternating")
    p.add_argument(
        "--gc-pauses",
        action="store_true",
        help="paced at 1,000 connections (--think, default 200): the server's garbage collections, "
        "CPython's thresholds vs the server's schedule, alternating",
    )
    p.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="MS",
        help="with --builds: paced, each act after a think of 0..MS ms, at 25 tables and at 1,000 connections; "
        "with --profile: the profiled scenario paced so",
    )
    p.add_argument(
        "--transport",
        choices=["msgpack", "json", "ws"],
        default="msgpack",
        help="json or ws: only the main scenario, over JSON lines and over this transport alternately, side by "
        "side (ws: the WebSocket, JSON text frames)",
    )
    p.add_argument("--loadgen", help=argparse.SUPPRESS)
    p.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--fanout-server", help=argparse.SUPPRESS)
    p.add_argument("--profiled-server", help=argparse.SUPPRESS)
    p.add_argument("--gc-server", nargs=2, metavar=("OUT", "SCHEDULE"), help=argparse.SUPPRESS)
    p.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the children


def compare(kids: Children, tmp: Path, args: argparse.Namespace) -> None:
    """The main scenario on revision ``args.baseline`` and on this tree, alternately (so that the
    machine's noise hits both alike), and the ratio of each figure."""
    base = tmp / "baseline"
    base.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(
        f"\nBASELINE {args.baseline} ({rev}) vs this tree: main scenario, {args.tables} tables, "
        f"{args.rounds} alternating rounds"
    )
    rows: dict[str, list[dict[str, Any]]] = {"baseline": [], "now": []}
    for k in range(args.rounds):
        for which, source in (("baseline", base), ("now", ROOT)):
            r = game_scenario(
                kids, tmp, f"{which}{k}", args.tables, 0, args.client_procs, args.warmup, args.seconds, source=source
            )
            rows[which].append(r)
            print(
                f"  round {k + 1} {which:8} {r['rate']:>9,.0f} actions/s   "
                f"CPU {r['cpu_per_action_us']:6.1f} us/action   p50 {r['p50']:6.2f} ms   p99 {r['p99']:6.2f} ms",
                flush=True,
            )

    def med(which: str, key: str) -> float:
        values = sorted(r[key] for r in rows[which])
        return values[len(values) // 2]

    print(f"\n  {'median of rounds':28} {'baseline':>12} {'now':>12} {'now/baseline':>13}")
    figures = (
        ("rate", "actions/s", "{:,.0f}"),
        ("cpu_per_action_us", "server CPU per action, us", "{:.1f}"),
        ("p50", "latency p50, ms", "{:.2f}"),
        ("p99", "latency p99, ms", "{:.2f}"),
    )
    for key, label, fmt in figures:
        b, n = med("baseline", key), med("now", key)
        print(f"  {label:28} {fmt.format(b):>12} {fmt.format(n):>12} {n / b:>13.3f}")


def gc_pauses(kids: Children, tmp: Path, args: argparse.Namespace) -> None:
    """The paced scenario at 1,000 connections (``--think``, default 200 ms) with the server's
    garbage collections recorded in the measured window (:func:`gc_server_main`), CPython's
    thresholds and the server's schedule alternately: the pauses, and the act-to-ok latency
    they land in."""
    think = (args.think or 200.0) / 1000
    tables = P99_CONNECTIONS // 4
    print(
        f"\nGC PAUSES: {tables} tables, paced (think 0-{think * 1000:g} ms), {args.rounds} alternating rounds; "
        "pauses in CPU ms of the collecting thread, in the measured window"
    )
    rows: dict[str, list[dict[str, Any]]] = {"cpython": [], "server": []}
    for k in range(args.rounds):
        for schedule in rows:
            out = tmp / f"gc-{schedule}-{k}.json"
            r = game_scenario(
                kids, tmp, f"gc-{schedule}-{k}", tables, 0, args.client_procs, args.warmup, args.seconds,
                wrapper=["--gc-server", str(out), schedule], think=think,
            )  # fmt: skip
            got = json.loads(out.read_text())
            r["thresholds"] = tuple(got["thresholds"])
            r["pauses"] = {int(g): sorted(v) for g, v in got["pauses_ms"].items()}
            rows[schedule].append(r)
            gens = "  ".join(
                f"gen{g} {len(v):4} x p50 {percentile(v, 50):5.2f} max {max(v, default=0.0):6.2f}"
                for g, v in r["pauses"].items()
            )
            print(
                f"  round {k + 1} {schedule:8} {r['thresholds']!s:15} {r['rate']:>6,.0f} actions/s   "
                f"p50 {r['p50']:6.2f} ms   p99 {r['p99']:6.2f} ms   {gens}",
                flush=True,
            )
    print(f"\n  {'median of rounds':40} {'cpython':>10} {'server':>10}")
    figures: tuple[tuple[str, Callable[[dict[str, Any]], float]], ...] = (
        ("act -> ok p99, ms", lambda r: r["p99"]),
        ("act -> ok p50, ms", lambda r: r["p50"]),
        ("collections a second", lambda r: sum(len(v) for v in r["pauses"].values()) / r["wall"]),
        ("collector CPU, ms a second", lambda r: sum(sum(v) for v in r["pauses"].values()) / r["wall"]),
        ("pauses over 2 ms, a second", lambda r: sum(x > 2 for v in r["pauses"].values() for x in v) / r["wall"]),
        ("longest pause, ms", lambda r: max((max(v, default=0.0) for v in r["pauses"].values()), default=0.0)),
    )
    for label, figure in figures:
        values = {schedule: sorted(figure(r) for r in got)[len(got) // 2] for schedule, got in rows.items()}
        print(f"  {label:40} {values['cpython']:>10.2f} {values['server']:>10.2f}")


def builds(kids: Children, tmp: Path, args: argparse.Namespace) -> None:
    """The pure and the compiled server (tools/mypyc_build.py) and the floor over the same
    connections, alternately (the machine's noise hits all alike): each figure's best and
    median, and the ratios to the floor (issue 32). Saturated (the main scenario, ``--tables``
    tables), or with ``--think`` paced at two loads: 25 tables (light) and 1,000 connections."""
    if args.think:
        for tables in (25, P99_CONNECTIONS // 4):
            builds_at(kids, tmp, args, tables, args.think / 1000)
    else:
        builds_at(kids, tmp, args, args.tables, 0.0)


def builds_at(kids: Children, tmp: Path, args: argparse.Namespace, tables: int, think: float) -> None:
    """:func:`builds` at one load: ``tables`` tables of 4, each act after a think of 0..``think`` s."""
    pace = f"paced (think 0-{think * 1000:g} ms)" if think else "saturated"
    print(f"\nBUILDS: {tables} tables, {pace}, {args.rounds} alternating rounds: pure, compiled, floor")
    rows: dict[str, list[dict[str, Any]]] = {"pure": [], "compiled": [], "floor": []}
    payload: dict[str, Any] = {}
    for k in range(args.rounds):
        for which in rows:
            if which == "floor":
                r = reference_scenario(
                    kids, tmp, "fanout", rows["pure"][-1]["connections"], args.client_procs, payload,
                    args.warmup, args.seconds, think=think,
                )  # fmt: skip
            else:
                r = game_scenario(
                    kids, tmp, f"{which}{tables}-{k}", tables, 0, args.client_procs, args.warmup, args.seconds,
                    build=which, think=think,
                )  # fmt: skip
                payload = dict(r.get("sample") or {})
                payload.pop("id", None)
            rows[which].append(r)
            print(
                f"  round {k + 1} {which:8} {r['rate']:>9,.0f} actions/s   "
                f"CPU {r['cpu_per_action_us']:6.1f} us/action   p50 {r['p50']:6.2f} ms   p99 {r['p99']:6.2f} ms",
                flush=True,
            )

    def med(which: str, key: str) -> float:
        values = sorted(r[key] for r in rows[which])
        return values[len(values) // 2]

    def best(which: str, key: str) -> float:
        values = [r[key] for r in rows[which]]
        return max(values) if key == "rate" else min(values)

    print(f"\n  {'best / median of rounds':28} {'pure':>19} {'compiled':>19} {'floor':>19}")
    for key, label, fmt in (
        ("rate", "actions/s", "{:,.0f}"),
        ("cpu_per_action_us", "server CPU per action, us", "{:.1f}"),
        ("p50", "latency p50, ms", "{:.2f}"),
        ("p99", "latency p99, ms", "{:.2f}"),
    ):
        cells = [f"{fmt.format(best(w, key))} / {fmt.format(med(w, key))}" for w in rows]
        print(f"  {label:28} {cells[0]:>19} {cells[1]:>19} {cells[2]:>19}")
    for w in ("pure", "compiled"):
        print(
            f"  {w:9} CPU per action / floor's: {med(w, 'cpu_per_action_us') / med('floor', 'cpu_per_action_us'):.2f} "
            f"(median), actions/s / floor's: {med(w, 'rate') / med('floor', 'rate'):.3f}"
        )
    print(
        "  compiled / pure CPU per action: "
        f"{med('compiled', 'cpu_per_action_us') / med('pure', 'cpu_per_action_us'):.3f}"
    )


def transports(kids: Children, tmp: Path, args: argparse.Namespace) -> None:
    """The main scenario over JSON lines and over ``args.transport``, alternately (the machine's
    noise hits both alike), and the ratio of each figure: the WebSocket's cost (issue 17 asks
    for at least 0.8 of the JSON-lines throughput)."""
    base, other = "json", args.transport
    print(
        f"\nTRANSPORTS: main scenario, {args.tables} tables, {args.rounds} alternating rounds, {other} vs {base} lines"
    )
    rows: dict[str, list[dict[str, Any]]] = {base: [], other: []}
    for k in range(args.rounds):
        for wire in (base, other):
            r = game_scenario(
                kids, tmp, f"{wire}{k}", args.tables, 0, args.client_procs, args.warmup, args.seconds, wire=wire
            )
            rows[wire].append(r)
            print(
                f"  round {k + 1} {wire:8} {r['rate']:>9,.0f} actions/s   "
                f"CPU {r['cpu_per_action_us']:6.1f} us/action   p50 {r['p50']:6.2f} ms   p99 {r['p99']:6.2f} ms   "
                f"busy: server {r['server_cpu'] / r['wall']:.0%}, load generator {r['client_cpu'] / r['wall']:.0%}"
                + (f"   errors {r['errors']}" if r["errors"] else ""),
                flush=True,
            )

    def med(wire: str, key: str) -> float:
        values = sorted(r[key] for r in rows[wire])
        return values[len(values) // 2]

    print(f"\n  {'median of rounds':28} {base:>12} {other:>12} {other + '/' + base:>13}")
    for key, label, fmt in (
        ("rate", "actions/s", "{:,.0f}"),
        ("cpu_per_action_us", "server CPU per action, us", "{:.1f}"),
        ("p50", "latency p50, ms", "{:.2f}"),
        ("p99", "latency p99, ms", "{:.2f}"),
    ):
        b, n = med(base, key), med(other, key)
        print(f"  {label:28} {fmt.format(b):>12} {fmt.format(n):>12} {n / b:>13.3f}")
    ratio = med(other, "rate") / med(base, "rate")
    print(f"  ratio actions/s {other} / {base} lines = {ratio:.3f}   (target >= 0.8: {verdict(ratio >= 0.8)})")


def run(args: argparse.Namespace) -> None:
    if args.quick:
        args.tables, args.seconds, args.warmup, args.idle_connections = 25, 1.5, 0.5, 200
    p99_conns = 200 if args.quick else P99_CONNECTIONS
    started = time.monotonic()
    print(
        f"Shithead server benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, loopback; "
        f"{args.warmup:g} s warm-up, {args.seconds:g} s measured per scenario"
        + ("  [QUICK smoke run: scaled down, not comparable to the targets]" if args.quick else "")
    )
    print("Figures from a shared, noisy machine: run twice before trusting a difference.", flush=True)
    with tempfile.TemporaryDirectory(prefix="shithead-bench-") as tmpname, Children() as kids:
        tmp = Path(tmpname)
        (tmp / "bench.toml").write_text(CONFIG_TOML)

        if args.baseline:
            compare(kids, tmp, args)
            return

        if args.transport != "msgpack":
            transports(kids, tmp, args)
            return

        if args.builds:
            builds(kids, tmp, args)
            return

        if args.gc_pauses:
            gc_pauses(kids, tmp, args)
            return

        if args.profile:
            prof = str(tmp / "server.prof")
            r = game_scenario(
                kids, tmp, "prof", args.tables, 0, args.client_procs, args.warmup, args.seconds,
                wrapper=["--profiled-server", prof], think=args.think / 1000,
            )  # fmt: skip
            pace = f", paced (think 0-{args.think:g} ms)" if args.think else ""
            print_game(f"MAIN (server under cProfile: slower than normal): {args.tables} tables{pace}", r, False)
            print_profile(prof, args.top)
            return

        main = game_scenario(kids, tmp, "main", args.tables, 0, args.client_procs, args.warmup, args.seconds)
        print_game(f"MAIN: {args.tables} tables of 4 first-legal-action bots", main)

        echo = floor = None
        payload = dict(main.get("sample") or {})
        payload.pop("id", None)
        if not args.no_echo and payload:
            echo = reference_scenario(
                kids, tmp, "echo", main["connections"], args.client_procs, payload, min(args.warmup, 3.0), args.seconds
            )
            print(
                f"\nECHO BASELINE: bare asyncio msgpack echo server (unpack + pack + write), "
                f"{echo['connections']} connections, one {echo['frame_bytes']}-byte state frame in flight each"
            )
            print(
                f"  round trips/s             {echo['rate']:>10,.0f}   p50 {echo['p50']:.2f} ms   "
                f"p99 {echo['p99']:.2f} ms"
            )
            print(
                f"  echo server CPU per trip  {echo['cpu_per_action_us']:>10,.1f} us   (busy "
                f"{echo['server_cpu'] / echo['wall']:.0%}); load generator {echo['client_cpu'] / echo['wall']:.0%}"
            )
            if echo["acts"]:
                print(f"    of which in the kernel  {echo['server_sys'] / echo['acts'] * 1e6:>10,.1f} us")
            print(
                f"  ratio actions/s / round trips/s = {main['rate'] / echo['rate']:.3f}   "
                f"(CPU per action / CPU per trip = {main['cpu_per_action_us'] / echo['cpu_per_action_us']:.1f}x;"
                f" one action = 1 frame in, 1 ok + 4 states out)"
            )
            floor = reference_scenario(
                kids,
                tmp,
                "fanout",
                main["connections"],
                args.client_procs,
                payload,
                min(args.warmup, 3.0),
                args.seconds,
            )
            print(
                f"\nFLOOR: a fan-out server that does the least this protocol needs per action (unpack an act, "
                f"pack one recorded state, write it to the 4 connections of the group; no rules, no journal), "
                f"{floor['connections']} connections"
            )
            print(
                f"  actions/s                 {floor['rate']:>10,.0f}   p50 {floor['p50']:.2f} ms   "
                f"p99 {floor['p99']:.2f} ms"
            )
            print(
                f"  floor CPU per action      {floor['cpu_per_action_us']:>10,.1f} us   (busy "
                f"{floor['server_cpu'] / floor['wall']:.0%}); load generator {floor['client_cpu'] / floor['wall']:.0%}"
            )
            if floor["acts"]:
                print(f"    of which in the kernel  {floor['server_sys'] / floor['acts'] * 1e6:>10,.1f} us")
            print(
                f"  ratio floor actions/s / echo round trips/s = {floor['rate'] / echo['rate']:.3f}   "
                f"(the most any server could reach here); real server / floor = {main['rate'] / floor['rate']:.3f}"
            )

        idle = None
        if args.idle_connections > 0:
            idle = idle_scenario(kids, tmp, args.idle_connections)
            print(
                f"\nIDLE: {idle['count']} connections that say hello, log in and wait "
                f"(opened in {idle['seconds']:.1f} s)"
            )
            print(
                f"  server RSS {mib(idle['rss0'])} -> {mib(idle['rss1'])}: {kib(idle['per_conn'])} per idle "
                f"connection"
                + (f"; lost {idle['lost']}, errors {idle['errors']}" if idle["lost"] or idle["errors"] else "")
            )

        p99: dict[str, dict[str, Any]] = {}
        modes = ["playing", "mixed"] if args.p99_mode == "both" else [] if args.p99_mode == "none" else [args.p99_mode]
        for mode in modes:
            if mode == "playing":
                t, i = p99_conns // 4, 0
                title = (
                    f"P99 CHECK ({p99_conns} connections): {t} tables x 4, all playing as fast as they can\n"
                    f"  (closed loop, about one act in flight per table: latency ~ {t} / actions per second)"
                )
            else:
                t, i = args.tables, max(0, p99_conns - 4 * args.tables)
                title = f"P99 CHECK ({p99_conns} connections): {t} tables x 4 playing + {i} idle connections"
            p99[mode] = game_scenario(kids, tmp, f"p99{mode}", t, i, args.client_procs, args.warmup, args.seconds)
            print_game(title, p99[mode])
        floor_p99 = None
        if "playing" in p99 and floor is not None:
            floor_p99 = reference_scenario(
                kids, tmp, "fanout", p99_conns, args.client_procs, payload, min(args.warmup, 3.0), args.seconds
            )
            print(
                f"  the floor (fan-out server) over {p99_conns} connections in groups of 4: "
                f"{floor_p99['rate']:,.0f} actions/s, p50 {floor_p99['p50']:.2f} ms, p99 {floor_p99['p99']:.2f} ms"
            )

        print("\nSUMMARY" + ("  [QUICK: scaled down]" if args.quick else ""))
        print(f"  {'figure':44} {'measured':>14} {'target':>12}")
        label = f"actions/s, {main['tables']} tables ({main['connections']} connections)"
        print(f"  {label:44} {main['rate']:>14,.0f} {'>= 15,000':>12}  {verdict(main['rate'] >= TARGET_ACTIONS)}")
        cap = 1e6 / main["cpu_per_action_us"]
        print(
            f"  {'  (server-core capacity = 1 / CPU per action)':44} {cap:>14,.0f} {'>= 15,000':>12}  "
            f"{verdict(cap >= TARGET_ACTIONS)}"
        )
        print(f"  {'latency p50 / p99, main':44} {main['p50']:>6.2f} /{main['p99']:>6.2f} ms")
        print(
            f"  {'server CPU per action':44} {main['cpu_per_action_us']:>11,.1f} us {'<= 66.7 us':>12}  "
            "(implied by 15,000/s on one core)"
        )
        seated = (main["rss_seated"] - main["rss0"]) / main["connections"]
        played = (main["rss_after"] - main["rss0"]) / main["connections"]
        print(f"  {'memory per connection (seated / after play)':44} {seated / 1024:>5.1f} /{played / 1024:>5.1f} KiB")
        if idle:
            print(
                f"  {'memory per idle connection':44} {idle['per_conn'] / 1024:>10.1f} KiB {'<= 10 KiB':>12}  "
                f"{verdict(idle['per_conn'] <= TARGET_IDLE_KIB * 1024)}"
            )
        if echo:
            print(f"  {'echo round trips/s (same connections)':44} {echo['rate']:>14,.0f}")
            print(f"  {'ratio actions/s / echo round trips/s':44} {main['rate'] / echo['rate']:>14.3f}")
        if echo and floor:
            print(
                f"  {'  floor (fan-out server) / echo round trips/s':44} {floor['rate'] / echo['rate']:>14.3f}"
                f"   floor CPU per action {floor['cpu_per_action_us']:,.1f} us"
            )
        for mode, r in p99.items():
            label = f"p99 latency, {r['connections']} conns ({mode})"
            print(
                f"  {label:44} {r['p99']:>11.2f} ms {'<= 25 ms':>12}  {verdict(r['p99'] <= TARGET_P99_MS)}"
                f"   at {r['rate']:,.0f} actions/s"
            )
        if floor_p99:
            print(f"  {'  floor (fan-out server), same connections':44} {floor_p99['p99']:>11.2f} ms")
        print(f"\n(total {time.monotonic() - started:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.loadgen:
        return loadgen_main(args.loadgen)
    if args.echo_server:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(echo_server_main())
        return 0
    if args.fanout_server:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(fanout_server_main(args.fanout_server))
        return 0
    if args.profiled_server:
        return profiled_server_main(args.profiled_server, args.rest)
    if args.gc_server:
        return gc_server_main(*args.gc_server, args.rest)
    raise_fd_limit()
    # SIGTERM and SIGHUP unwind like Ctrl-C (SIGINT too, even if it was ignored when we were
    # started in the background), so that every child is stopped on the way out.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.default_int_handler)
    try:
        run(args)
    except KeyboardInterrupt:
        print("\ninterrupted: every child process was stopped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
