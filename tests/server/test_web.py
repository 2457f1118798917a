"""The web door (server/shell/web.py): the client's files over HTTP and the protocol over a WebSocket
on the server's own port, with the same session rules as raw TCP."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from websockets.frames import Frame, Opcode

from server.config import Limits
from server.shell.web import WebFiles
from tests.server.client import TestClient, make_table, play_until_over, short_seeds
from tests.server.test_errors_tcp import JSON_GARBAGE

SEED = short_seeds("classic", 2, 1, max_len=200)[0]


async def http(port: int, request: bytes, *, read_all: bool = True) -> tuple[int, dict[str, str], bytes]:
    """Send raw ``request`` bytes; return the status, the headers (lower-case names) and the
    body of the answer, read to the end of the connection (the server closes after answering)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        data = await asyncio.wait_for(reader.read(-1), 10)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def get(path: str, *headers: str) -> bytes:
    extra = "".join(f"{h}\r\n" for h in headers)
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


SITE = ("index.html", "tv.html", "app.js", "img/card.svg")


def files(root: Path) -> WebFiles:
    return WebFiles(root, SITE)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "web"
    (root / "img").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>t</title>")
    (root / "tv.html").write_text("<!doctype html><title>tv</title>")
    (root / "app.js").write_text("export const x = 1;\n")
    (root / "img" / "card.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (root / ".secret").write_text("HIDDEN-CONTENT")
    (root / "__init__.py").write_text("ROOT = None\n")
    (tmp_path / "outside.txt").write_text("OUTSIDE-CONTENT")
    return root


# ---------------------------------------------------------------------- HTTP


async def test_serves_the_client_files(make_app: Any, site: Path) -> None:
    app = await make_app(web_files=files(site))
    status, headers, body = await http(app.port, get("/"))
    assert (status, body) == (200, (site / "index.html").read_bytes())
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-length"] == str(len(body))
    assert headers["connection"] == "close"
    assert "default-src 'self'" in headers["content-security-policy"]
    status, headers, body = await http(app.port, get("/app.js?v=2"))
    assert (status, body) == (200, b"export const x = 1;\n")
    assert headers["content-type"].startswith("text/javascript")
    status, headers, _ = await http(app.port, get("/img/card.svg"))
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    status, _, body = await http(app.port, get("/tv"))
    assert (status, body) == (200, (site / "tv.html").read_bytes())


@pytest.mark.parametrize("path", ["/nope.html", "/.secret", "/__init__.py", "/../outside.txt", "/img", "/img/"])
async def test_unknown_paths_are_404(make_app: Any, site: Path, path: str) -> None:
    app = await make_app(web_files=files(site))
    status, _, body = await http(app.port, get(path))
    assert status == 404
    assert b"OUTSIDE-CONTENT" not in body and b"HIDDEN-CONTENT" not in body


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
        b"PUT /index.html HTTP/1.1\r\nHost: x\r\n\r\n",
        b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
)
async def test_only_get(make_app: Any, site: Path, request_bytes: bytes) -> None:
    app = await make_app(web_files=files(site))
    status, headers, _ = await http(app.port, request_bytes)
    assert status == 405 and headers["allow"] == "GET"


async def test_request_sizes_are_bounded(make_app: Any, site: Path) -> None:
    app = await make_app(web_files=files(site))
    status, _, _ = await http(app.port, get("/" + "a" * 9000))
    assert status == 414
    status, _, _ = await http(app.port, get("/", "X-Long: " + "b" * 9000))
    assert status == 431
    status, _, _ = await http(app.port, get("/", *[f"X-{i}: y" for i in range(200)]))
    assert status == 431
    # The server is fine afterwards.
    status, _, _ = await http(app.port, get("/"))
    assert status == 200


async def test_an_unfinished_request_times_out(make_app: Any, site: Path) -> None:
    """A request that never ends is closed by the handshake timeout, like a silent TCP client."""
    app = await make_app(web_files=files(site), limits=Limits(handshake_timeout=0.3))
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: never complete
        data = await asyncio.wait_for(reader.read(-1), 10)  # the end of the stream, once closed
    finally:
        writer.close()
    assert data == b""  # nothing of the protocol's error leaks into an HTTP exchange


async def test_without_files_pages_are_404_and_the_websocket_works(make_app: Any) -> None:
    app = await make_app()
    status, _, _ = await http(app.port, get("/"))
    assert status == 404
    c = await TestClient.connect(app.port, "ws", "nofiles")
    try:
        assert c.ws is not None and c.ws.response.status_code == 101
        await c.login()
    finally:
        await c.close()


async def test_no_web_turns_the_door_off(make_app: Any, site: Path) -> None:
    """With ``web = false`` an HTTP request is just bytes that are not the protocol."""
    app = await make_app(web_files=files(site), web=False)
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    try:
        writer.write(get("/"))
        data = await asyncio.wait_for(reader.read(-1), 10)
    finally:
        writer.close()
    assert not data.startswith(b"HTTP/")
    assert b"FRAME_TOO_LARGE" in data  # the msgpack error a frame of that "length" gets


# ---------------------------------------------------------------------- WebSocket


async def test_a_game_over_websockets_beside_tcp(app: Any, connect: Any) -> None:
    """Two browsers (WebSocket) and a msgpack bot at one table, a JSON watcher: same states,
    same game, one message per text frame."""
    a = await connect(app, "ws", "wa")
    b = await connect(app, "ws", "wb")
    c = await connect(app, "msgpack", "tc")
    for x in (a, b, c):
        await x.login()
    t = await make_table([a, b, c], seed=SEED)
    watcher = await connect(app, "ws", "rail")
    await watcher.login()
    await watcher.ok({"type": "watch", "table": t}, "watching")
    out = await play_until_over([a, b, c], t)
    assert out["errors"] == []
    assert all(g is not None for g in out["game_over"])
    await watcher.recv_until("game_over")
    # The WebSocket clients got the same kinds of messages as the TCP one, in frames of one each.
    kinds = {f["type"] for f in c.frames} - {"welcome", "logged_in", "error"}  # (STALE_SEQ: see play_until_over)
    assert kinds <= {f["type"] for f in a.frames}


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),  # not a browser: a bot or a test
        ("http://127.0.0.1:{port}", True),  # the page this server served
        ("http://evil.example", False),
        ("http://127.0.0.1:1", False),  # another port is another origin
        ("null", False),  # a sandboxed or file:// page
    ],
)
async def test_origin_check(app: Any, origin: str | None, allowed: bool, caplog: Any) -> None:
    caplog.set_level(logging.WARNING, logger="server.shell.session")
    c = await TestClient.connect(app.port, "ws", "o", origin=origin.format(port=app.port) if origin else None)
    try:
        assert c.ws is not None
        assert c.ws.response.status_code == (101 if allowed else 403)
        if allowed:
            await c.login()
        else:
            await c.wait_closed()
            assert any("did not serve" in r.getMessage() for r in caplog.records)
    finally:
        await c.close()
    # The server goes on serving.
    ok = await TestClient.connect(app.port, "ws", "after")
    try:
        await ok.login()
    finally:
        await ok.close()


async def test_upgrade_elsewhere_than_ws_is_404(app: Any) -> None:
    status, _, _ = await http(
        app.port,
        get(
            "/socket",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
        ),
    )
    assert status == 404


@pytest.mark.parametrize("case", list(JSON_GARBAGE["ws"]))
async def test_malformed_messages_close_the_websocket_normally(app: Any, connect: Any, case: str) -> None:
    """A bad message in a text frame gets the protocol's error, exactly as a bad JSON line over
    TCP (test_errors_tcp.test_malformed_json_line, its "ws" cases), and then the WebSocket is
    closed with 1000, a normal close: the protocol's refusal, not a broken frame."""
    c = await connect(app, "ws", case)
    c.send_raw(JSON_GARBAGE["ws"][case][0])
    await c.wait_closed(5)
    assert c.ws is not None and c.ws.close_code == 1000


@pytest.mark.parametrize(
    ("case", "close_code"),
    [("binary", 1003), ("two_lines", 1007), ("too_big", 1009), ("bad_utf8", 1007)],
)
async def test_frames_the_protocol_does_not_carry(app: Any, connect: Any, case: str, close_code: int) -> None:
    """Binary frames, a line break in a frame, a message over the size limit, invalid UTF-8:
    the WebSocket is closed with the RFC 6455 code, and nothing else comes."""
    c = await connect(app, "ws", case)
    await c.login()
    assert c.ws is not None
    since = len(c.frames)
    if case == "binary":
        c.ws.proto.send_binary(b'{"type": "ping", "id": 9}')
    elif case == "two_lines":
        c.ws.proto.send_text(b'{"type": "ping", "id": 9}\n{"type": "ping", "id": 10}')
    elif case == "too_big":
        c.ws.proto.send_text(b'{"type": "ping", "pad": "' + b"x" * 5000 + b'"}')
    else:
        c.ws.proto.send_frame(Frame(Opcode.TEXT, b"\xff\xfe"))  # (send_text would check the bytes)
    c.ws._flush()
    await c.wait_closed(5)
    assert c.frames[since:] == []
    assert c.ws.close_code == close_code


async def test_a_bad_websocket_leaves_other_tables_alone(app: Any, connect: Any) -> None:
    """A game over TCP goes on while WebSocket clients misbehave around it."""
    a, b = await connect(app, "msgpack", "ga"), await connect(app, "ws", "gb")
    await a.login()
    await b.login()
    t = await make_table([a, b], seed=SEED)
    game = asyncio.create_task(play_until_over([a, b], t))
    for i, data in enumerate([b"{nope", b"[]", b'{"type": "act"}']):
        bad = await connect(app, "ws", f"bad{i}")
        bad.send_raw(data)
        await bad.wait_closed(5)
    out = await game
    assert out["errors"] == []
    assert sorted(out["game_over"][0]["result"]["places"]) == [0, 1]


async def test_slow_websocket_reader_is_cut_off(make_app: Any, players: Any, caplog: Any) -> None:
    """A browser that stops reading is cut off past max_output_buffer, as over TCP."""
    caplog.set_level(logging.WARNING, logger="server")
    app = await make_app(
        limits=Limits(
            max_output_buffer=64 * 1024,
            rate_per_second=10000,
            rate_burst=10000,
            tables_per_player=0,
            tables_per_address=0,
        )
    )
    owner, a, b = await players(app, ["owner", "ga", "gb"])
    for i in range(250):
        owner.send({"type": "create_table", "name": f"{i:03d}" + "x" * 37, "preset": "classic", "seats": 4})
    await owner.wait_for(lambda: sum(f["type"] == "table_created" for f in owner.frames) == 250)
    t = await make_table([a, b], seed=SEED, action_seconds=30)
    game = asyncio.create_task(play_until_over([a, b], t, timeout=30))
    slow = await TestClient.connect(app.port, "ws", "slow", rcvbuf=4096)
    try:
        await slow.login()
        slow.writer.transport.pause_reading()  # stop reading: what the server writes piles up on its side
        request = b'{"type": "list_tables", "id": 3}'
        async with asyncio.timeout(15):  # (only against a hang: "the slow reader was never cut off")
            while any(s.name == "slow" for s in app.sessions):
                for _ in range(20):
                    slow.send_raw(request)
                await owner.ok({"type": "ping"}, "pong")
        out = await game
    finally:
        await slow.close()
    assert any("slow" in r.getMessage().lower() for r in caplog.records), "not cut off for its output buffer"
    assert out["errors"] == []


async def test_a_message_in_fragments_is_one_message(app: Any, connect: Any) -> None:
    """RFC 6455 lets a text message come in several frames: they are joined, then read as one."""
    c = await connect(app, "ws", "frag")
    await c.login()
    assert c.ws is not None
    c.ws.proto.send_text(b'{"type": "ping", ', fin=False)
    c.ws.proto.send_continuation(b'"id": 41', fin=False)
    c.ws.proto.send_continuation(b"}", fin=True)
    c.ws._flush()
    pong = await c.recv_until("pong")
    assert pong["id"] == 41
