"""A small test client over raw asyncio streams, in either wire mode.

It speaks the protocol without the SDK so that the tests see exactly what the server sends:
every decoded frame is kept in :attr:`TestClient.frames` (the leak test searches them all).
Frames that answer a request made with :meth:`TestClient.request` resolve that request; every
other frame (pushed messages, unsolicited errors, answers to :meth:`TestClient.send`) goes to
the inbox read by :meth:`TestClient.recv` / :meth:`TestClient.recv_until`.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterable
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Close, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from protocol.framing import FrameDecoder, LineDecoder, encode_frame, encode_line

DEFAULT_TIMEOUT = 10.0
_EOF: dict[str, Any] = {"type": "<eof>"}


def encode(obj: dict[str, Any], mode: str) -> bytes:
    """``obj`` in wire form for ``mode`` ("msgpack" or "json"; "ws": the JSON line, which
    :meth:`TestClient.send_raw` puts in a text frame)."""
    return encode_frame(obj, max_size=None) if mode == "msgpack" else encode_line(obj)


class WebSocketWire:
    """The client side of the WebSocket transport for a ``"ws"`` test client: the websockets
    library's sans-I/O client protocol over the same asyncio streams (so the test client keeps
    one reading loop). Text frames in become JSON lines for the line decoder."""

    def __init__(self, writer: asyncio.StreamWriter, origin: str | None) -> None:
        self.writer = writer
        host, port = writer.get_extra_info("peername")[:2]
        self.proto = ClientProtocol(parse_uri(f"ws://{host}:{port}/ws"), origin=origin)  # type: ignore[arg-type]
        request = self.proto.connect()
        self.proto.send_request(request)
        self.response: Any = None
        """The handshake's HTTP response (the status of a refused upgrade is in it)."""
        self.answered = asyncio.Event()
        self.close_code: int | None = None
        self._flush()

    def _flush(self) -> None:
        for data in self.proto.data_to_send():
            if data:
                self.writer.write(data)

    def feed(self, data: bytes) -> bytes:
        """Bytes read -> the JSON lines of the text messages they complete."""
        self.proto.receive_data(data)
        lines = []
        for event in self.proto.events_received():
            if isinstance(event, Response):
                self.response = event
                self.answered.set()
            elif event.opcode is Opcode.TEXT:
                lines.append(event.data + b"\n")
            elif event.opcode is Opcode.CLOSE:
                self.close_code = Close.parse(event.data).code
        self._flush()
        return b"".join(lines)

    def send_text(self, data: bytes) -> None:
        """One text frame holding ``data`` (a JSON line's newline is left out)."""
        self.proto.send_text(data[:-1] if data.endswith(b"\n") else data)
        self._flush()


class TestClient:
    """One raw connection. Build it with :meth:`connect`; close it with :meth:`close`."""

    __test__ = False  # not a pytest test class

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, mode: str, name: str = "") -> None:
        self.reader = reader
        self.writer = writer
        self.mode = mode
        self.name = name
        self.frames: list[dict[str, Any]] = []
        """Every frame decoded from the server, in order."""
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.states: dict[int, dict[str, Any]] = {}
        """Latest ``state`` frame per table."""
        self.sent: dict[int, dict[str, Any]] = {}
        """Every request sent, by id."""
        self.next_id = 1
        self.closed = asyncio.Event()
        self.decode_error: Exception | None = None
        self._changed = asyncio.Event()
        self._decoder: FrameDecoder | LineDecoder = FrameDecoder(1 << 24) if mode == "msgpack" else LineDecoder(1 << 24)
        self.ws: WebSocketWire | None = None
        """The WebSocket layer of a ``"ws"`` client."""
        self._task = asyncio.create_task(self._read_loop())

    @classmethod
    async def connect(
        cls,
        port: int,
        mode: str = "msgpack",
        name: str = "",
        *,
        host: str = "127.0.0.1",
        origin: str | None = None,
        rcvbuf: int | None = None,
    ) -> TestClient:
        """A raw connection in ``mode``: ``"msgpack"``, ``"json"`` or ``"ws"`` (JSON over the
        server's WebSocket; ``origin``: the Origin header a browser would send). ``rcvbuf``: a
        small receive buffer, set before connecting (for a client that stops reading)."""
        if rcvbuf is None:
            reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
        else:
            raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            raw.setblocking(False)
            await asyncio.get_running_loop().sock_connect(raw, (host, port))
            reader, writer = await asyncio.open_connection(sock=raw, limit=1 << 20)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = cls(reader, writer, mode, name)
        if mode == "ws":
            client.ws = WebSocketWire(writer, origin)
            await asyncio.wait_for(client.ws.answered.wait(), DEFAULT_TIMEOUT)  # the handshake
        return client

    # ------------------------------------------------------------------ reading

    async def _read_loop(self) -> None:
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                if self.ws is not None:
                    data = self.ws.feed(data)
                try:
                    frames = self._decoder.feed(data)
                except Exception as exc:  # the server sent something undecodable
                    self.decode_error = exc
                    break
                for f in frames:
                    self._dispatch(f)
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed.set()
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"{self.name}: connection closed before the reply"))
            self.pending.clear()
            self.inbox.put_nowait(_EOF)
            self._changed.set()

    def _dispatch(self, f: dict[str, Any]) -> None:
        self.frames.append(f)
        if f.get("type") == "state":
            self.states[f["table"]] = f
        rid = f.get("id")
        fut = self.pending.pop(rid, None) if isinstance(rid, int) else None
        if fut is not None and not fut.done():
            fut.set_result(f)
        else:
            self.inbox.put_nowait(f)
        self._changed.set()

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any] | None:
        """The next inbox frame, or None once the connection is closed."""
        f = await asyncio.wait_for(self.inbox.get(), timeout)
        if f is _EOF:
            self.inbox.put_nowait(_EOF)  # stay at the end
            return None
        return f

    async def recv_until(
        self,
        type_: str,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        where: Callable[[dict[str, Any]], bool] | None = None,
        fail_on_error: bool = True,
    ) -> dict[str, Any]:
        """Read the inbox up to the first frame of ``type_`` (matching ``where``); the frames
        before it are dropped from the inbox (they stay in :attr:`frames`). An ``error``
        frame on the way fails the test unless ``fail_on_error`` is false."""

        async def loop() -> dict[str, Any]:
            while True:
                f = await self.recv(timeout)
                if f is None:
                    raise ConnectionError(f"{self.name}: closed while waiting for {type_}")
                if f.get("type") == type_ and (where is None or where(f)):
                    return f
                if f.get("type") == "error" and fail_on_error and type_ != "error":
                    raise AssertionError(f"{self.name}: unexpected error while waiting for {type_}: {f}")

        return await asyncio.wait_for(loop(), timeout)

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until ``predicate()`` is true; it is checked after every received frame."""

        async def loop() -> None:
            while not predicate():
                if self.closed.is_set():
                    if predicate():
                        return
                    raise ConnectionError(f"{self.name}: closed while waiting")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)

    def drain_inbox(self) -> list[dict[str, Any]]:
        """Every frame now in the inbox (not waiting)."""
        out = []
        while not self.inbox.empty():
            f = self.inbox.get_nowait()
            if f is _EOF:
                self.inbox.put_nowait(_EOF)
                break
            out.append(f)
        return out

    def errors(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "error"]

    # ------------------------------------------------------------------ writing

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` (a ``"ws"`` client: as one text frame)."""
        if self.ws is not None:
            self.ws.send_text(data)
        else:
            self.writer.write(data)

    def send(self, msg: dict[str, Any]) -> int:
        """Send ``msg`` with a fresh id (unless it has one); its answer goes to the inbox."""
        msg = dict(msg)
        if "id" not in msg:
            msg["id"] = self.next_id
            self.next_id += 1
        self.sent[msg["id"]] = msg
        self.send_raw(encode(msg, self.mode))
        return msg["id"]

    async def request(self, msg: dict[str, Any], timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """Send ``msg`` and return the frame that answers it (by id)."""
        msg = dict(msg)
        if "id" not in msg:
            msg["id"] = self.next_id
            self.next_id += 1
        if self.closed.is_set():
            raise ConnectionError(f"{self.name}: closed")
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[msg["id"]] = fut
        self.sent[msg["id"]] = msg
        self.send_raw(encode(msg, self.mode))
        return await asyncio.wait_for(fut, timeout)

    async def ok(self, msg: dict[str, Any], type_: str | None = None) -> dict[str, Any]:
        """:meth:`request` that must not fail (and must answer with ``type_`` if given)."""
        reply = await self.request(msg)
        assert reply["type"] != "error", f"{self.name}: {msg['type']} failed: {reply}"
        if type_ is not None:
            assert reply["type"] == type_, reply
        return reply

    async def login(self, name: str | None = None, *, guest: bool = True, **extra: Any) -> dict[str, Any]:
        """hello + login (as a guest by default)."""
        name = name or self.name
        self.name = name
        await self.ok({"type": "hello", "version": 1}, "welcome")
        return await self.ok({"type": "login", "name": name, "guest": guest, **extra}, "logged_in")

    async def close(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass
        self._task.cancel()
        try:
            await self._task
        except BaseException:
            pass
        try:
            await asyncio.wait_for(self.writer.wait_closed(), 2)
        except BaseException:
            pass


# ---------------------------------------------------------------------- table helpers


async def connect_all(port: int, names: Iterable[str], modes: Iterable[str] | str = "msgpack") -> list[TestClient]:
    """Connected and logged-in guest clients."""
    names = list(names)
    modes = [modes] * len(names) if isinstance(modes, str) else list(modes)
    clients = [await TestClient.connect(port, m, n) for n, m in zip(names, modes, strict=True)]
    for c in clients:
        await c.login()
    return clients


async def make_table(clients: list[TestClient], *, start: bool = True, preset: str = "classic", **options: Any) -> int:
    """clients[0] creates a table with one seat per client; every client joins seat i; start."""
    t = (
        await clients[0].ok(
            {"type": "create_table", "name": "t", "preset": preset, "seats": len(clients), **options}, "table_created"
        )
    )["table"]
    for i, c in enumerate(clients):
        j = await c.ok({"type": "join", "table": t, "seat": i}, "joined")
        c.token = j["token"]  # type: ignore[attr-defined]
        c.seat = i  # type: ignore[attr-defined]
    if start:
        await clients[0].ok({"type": "start", "table": t}, "ok")
    return t


async def play_until_over(
    clients: list[TestClient],
    table: int,
    timeout: float = 60.0,
    choose: Callable[[TestClient, dict[str, Any]], str | None] | None = None,
    on_state: Callable[[TestClient, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Every client answers each state of ``table`` in which its ``view['legal']`` is not empty
    with the first legal action (or ``choose(client, state)``), echoing the state's seq, until
    each has received ``game_over`` for the table. STALE_SEQ answers are ignored (states
    supersede each other); any other error is collected. Clients without a seat (watchers)
    just read; ``on_state(client, state)`` is called for every state first. Returns
    ``{"game_over": [msg per client], "errors": [(client, error)], "acts": count}``."""
    errors: list[tuple[str, dict[str, Any]]] = []
    results: list[dict[str, Any] | None] = [None] * len(clients)
    acts = 0

    def answer(c: TestClient, f: dict[str, Any]) -> None:
        nonlocal acts
        if on_state is not None:
            on_state(c, f)
        legal = f["view"].get("legal") or []
        if legal and f["view"].get("phase") != "over":
            action = choose(c, f) if choose is not None else legal[0]
            if action is not None:
                c.send({"type": "act", "table": table, "seq": f["seq"], "action": action})
                acts += 1

    async def run(i: int, c: TestClient) -> None:
        # Frames already read (e.g. by a step-by-step test) are dropped; the latest state
        # of the table is answered first.
        for f in c.drain_inbox():
            if f.get("type") == "game_over" and f["table"] == table:
                results[i] = f
        if results[i] is not None:
            return
        if table in c.states:
            answer(c, c.states[table])
        while True:
            f = await c.recv(timeout)
            if f is None:
                raise ConnectionError(f"{c.name}: closed during the game")
            kind = f.get("type")
            if kind == "state" and f["table"] == table:
                answer(c, f)
            elif kind == "error":
                if f.get("code") != "STALE_SEQ":
                    errors.append((c.name, f))
            elif kind == "game_over" and f["table"] == table:
                results[i] = f
                return

    await asyncio.wait_for(asyncio.gather(*(run(i, c) for i, c in enumerate(clients))), timeout)
    return {"game_over": results, "errors": errors, "acts": acts}


def first_legal_length(
    preset: str, seats: int, seed: int, options: dict[str, Any] | None = None, games: int = 1
) -> list[int]:
    """Actions per game when every seat always takes its first legal action, for the series
    a table with ``seed`` deals (the same dealer and shuffles as :class:`server.tables.table.Table`)."""
    from server.engine import Series, make_rules

    series = Series(make_rules(preset, options or {}), seats, seed=seed)
    lengths = []
    for _ in range(games):
        g = series.start_game()
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, g.legal_actions(s)[0])
        lengths.append(len(g.history))
        series.finish_game()
    return lengths


def short_seeds(
    preset: str, seats: int, count: int, *, max_len: int = 300, games: int = 1, start: int = 1
) -> list[int]:
    """``count`` seeds whose first ``games`` games under first-legal play end within ``max_len``
    actions each (keeps TCP games short and free of the move cap)."""
    out = []
    seed = start
    while len(out) < count:
        if max(first_legal_length(preset, seats, seed, games=games)) <= max_len:
            out.append(seed)
        seed += 1
    return out
