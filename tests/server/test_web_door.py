"""The web door under hostile clients (issue 37): bounded memory under a ping flood, no
traceback and at most one log line from anything a client sends, the Origin rule that does not
trust Host alone, and a fixed list of files (no symbolic link served)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from protocol.connection import ConnectionState
from server.config import Limits
from server.shell.app import App
from server.shell.web import WebFiles
from tests.server.client import TestClient
from tests.server.test_web import http
from tests.server.waiting import until_loop

MiB = 1024 * 1024


def upgrade(host: str, *extra: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def upgrade_status(port: int, request: bytes) -> int:
    """The status of the server's answer to an upgrade ``request``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        return int(head.split(b" ")[1])
    finally:
        writer.close()


def ping_frame(payload: bytes = b"p" * 125) -> bytes:
    """A masked ping (a client's frames are masked) of up to 125 bytes."""
    mask = os.urandom(4)
    return bytes([0x89, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def memory(field: str) -> int:
    """``VmRSS`` (resident memory now) or ``VmHWM`` (its peak) of this process, in bytes: the
    server runs in it."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field}")


def reset_peak() -> None:
    """Start measuring the peak resident memory (VmHWM) from now (Linux: clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def no_tracebacks(caplog: Any) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()] == []


# ---------------------------------------------------------------------- memory


def flood(port: int, total: int, stop: threading.Event) -> int:
    """A WebSocket client (blocking, in a thread) that upgrades, then sends masked pings and never
    reads, with a small receive buffer; returns the bytes it got out before the server cut it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.settimeout(10)
    sent = 0
    try:
        sock.sendall(upgrade(f"127.0.0.1:{port}"))
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        chunk = ping_frame() * 512  # 65 KiB of pings
        while sent < total and not stop.is_set():
            sock.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass  # cut by the server: what the test expects
    finally:
        sock.close()
    return sent


async def test_a_ping_flood_that_never_reads_is_cut_and_memory_stays_flat(make_app: Any, caplog: Any) -> None:
    """Item 1 of issue 37: pongs count against the output bound. (The handshake timeout is long
    here, so that what cuts the flood is the bound, not the login that never comes.)"""
    app: App = await make_app(limits=Limits(handshake_timeout=600))
    caplog.set_level(logging.WARNING, logger="server")
    before = memory("VmRSS")
    reset_peak()
    stop = threading.Event()
    total = 200 * MiB
    try:
        sent = await asyncio.wait_for(asyncio.to_thread(flood, app.port, total, stop), 60)
    finally:
        stop.set()
    peak = memory("VmHWM")
    assert sent < total, "the flooding connection was never cut"
    assert peak - before < 16 * MiB, (before, peak)
    assert not any(s.web is not None for s in app.sessions)  # the flooding connection is gone
    assert any("reads too slowly" in r.getMessage() for r in caplog.records)
    no_tracebacks(caplog)
    c = await TestClient.connect(app.port, "ws", "after")  # the door still serves
    try:
        await c.login()
    finally:
        await c.close()


# ---------------------------------------------------------------------- quiet logs


async def test_bytes_after_a_complete_get_get_the_answer_and_no_traceback(
    make_app: Any, tmp_path: Path, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    app = await make_app(web_files=WebFiles(tmp_path, ["index.html"]))
    for _ in range(20):
        status, _, body = await http(app.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n\r\n\r\n")
        assert status == 200 and b"<title>t</title>" in body
    no_tracebacks(caplog)
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 20


async def test_two_origin_headers_are_refused_without_a_traceback(app: App, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    host = f"127.0.0.1:{app.port}"
    status, _, _ = await http(app.port, upgrade(host, f"Origin: http://{host}", "Origin: http://evil.example"))
    assert status == 403
    no_tracebacks(caplog)


async def test_a_closed_session_gets_no_more_pushes_and_logs_no_traceback(app: App, players: Any, caplog: Any) -> None:
    """A watcher sends a malformed ping (a fatal error) while what it was told waits for a
    commit: its connection closes once that is written, and the states of the table meanwhile
    are not sent to it (nothing logged with a traceback)."""
    caplog.set_level(logging.DEBUG, logger="server")
    a, b = await players(app, ["pa", "pb"])
    table = (await a.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    for p in (a, b):
        await p.ok({"type": "join", "table": table}, "joined")
    watcher = await TestClient.connect(app.port, "ws", "w")
    await watcher.login()
    await watcher.ok({"type": "watch", "table": table}, "watching")
    await a.ok({"type": "start", "table": table}, "ok")
    store = app.store
    assert store is not None
    disk = threading.Event()  # the commit of the next batch waits for it
    write_batch = store.write_batch

    def slow(ops: Any) -> None:
        disk.wait(10)
        write_batch(ops)

    store.write_batch = slow  # type: ignore[method-assign]
    seq = app.tables[table].seq
    try:
        a.send({"type": "act", "table": table, "seq": a.states[table]["seq"], "action": "ready"})
        await until_loop(lambda: app.tables[table].seq == seq + 1)  # applied; its states wait for the disk
        session = next(s for s in app.sessions if s.name == "w")
        watcher.send({"type": "ping", "id": 4, "bogus": 1})
        await until_loop(lambda: session.conn.state is ConnectionState.CLOSED)
        b.send({"type": "act", "table": table, "seq": b.states[table]["seq"], "action": "ready"})
        await until_loop(lambda: app.tables[table].seq == seq + 2)  # pushed to the closed watcher too
    finally:
        disk.set()
    await watcher.wait_closed()
    await a.ok({"type": "ping"}, "pong")
    errors = [f for f in watcher.frames if f["type"] == "error"]
    assert [e["code"] for e in errors] == ["BAD_MESSAGE"]
    assert [f["seq"] for f in watcher.frames if f["type"] == "state"][-1] == seq + 1  # not the later one
    no_tracebacks(caplog)


async def test_a_ping_pipelined_with_the_upgrade_is_answered_after_the_101(app: App) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    try:
        writer.write(upgrade(f"127.0.0.1:{app.port}") + ping_frame(b"hi"))
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101")
        pong = await asyncio.wait_for(reader.readexactly(4), 10)
        assert pong == b"\x8a\x02hi"  # FIN + pong, unmasked, the ping's payload
    finally:
        writer.close()


# ---------------------------------------------------------------------- the Origin rule and files


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:{port}", True),
        ("localhost:{port}", True),
        ("evil.example:{port}", False),
        ("10.9.8.7:{port}", False),
    ],
)
async def test_the_origin_rule_checks_host_against_the_servers_names(app: App, host: str, allowed: bool) -> None:
    """DNS rebinding: a page of evil.example whose name now points here sends Host and Origin of
    evil.example: refused at the upgrade, however well the two agree."""
    host = host.format(port=app.port)
    assert await upgrade_status(app.port, upgrade(host, f"Origin: http://{host}")) == (101 if allowed else 403)


async def test_configured_names_are_let_in(make_app: Any) -> None:
    app = await make_app(web_hosts=["kitchen.lan"])
    host = f"kitchen.lan:{app.port}"
    assert await upgrade_status(app.port, upgrade(host, f"Origin: http://{host}")) == 101


async def test_only_the_listed_plain_files_are_served(make_app: Any, tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("PAGE")
    (root / "js" / "app.js").write_text("APP")
    (root / "extra.html").write_text("NOT-LISTED")
    (tmp_path / "outside.txt").write_text("OUTSIDE-CONTENT")
    (root / "js" / "link.js").symlink_to(tmp_path / "outside.txt")
    (root / "dir").symlink_to(tmp_path, target_is_directory=True)
    app = await make_app(web_files=WebFiles(root, ["index.html", "js/app.js", "js/link.js", "dir/outside.txt"]))
    assert (await http(app.port, b"GET /js/app.js HTTP/1.1\r\nHost: x\r\n\r\n"))[2] == b"APP"
    for path in ("/extra.html", "/js/link.js", "/dir/outside.txt"):
        status, _, body = await http(app.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert status == 404 and b"OUTSIDE" not in body and b"NOT-LISTED" not in body
