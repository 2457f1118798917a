"""The server process serves whether or not anyone reads what it prints (issue 35, item 4(e)):
when the process that started it dies and its stdout or stderr pipe closes, it goes on, and
only a failed bind is "cannot listen"."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from protocol.framing import FrameDecoder, encode_frame

ROOT = Path(__file__).resolve().parents[2]
GUARD = 60.0
"""Seconds: only against a hang (a busy machine is slow to start Python), never an expectation."""


def start(db: Path, stderr: IO[Any] | int, *extra: str) -> tuple[subprocess.Popen[str], int]:
    """``python -m server`` on 127.0.0.1, any free port; returns it and its port once it has
    printed its first line (it listens then). Its stdout is a pipe this test holds."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-advertise",
            "--db",
            str(db),
            *extra,
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    if m is None:
        proc.kill()
        proc.wait()
        raise AssertionError(f"unexpected first line {line!r}")
    return proc, int(m.group(1))


def converse(port: int, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send each request over one TCP connection and read up to its answer (by id); every frame read."""
    frames: list[dict[str, Any]] = []
    dec = FrameDecoder(1 << 20)
    with socket.create_connection(("127.0.0.1", port), timeout=GUARD) as s:
        for i, req in enumerate(requests, 1):
            s.sendall(encode_frame({**req, "id": i}, max_size=None))
            while not any(f.get("id") == i for f in frames):
                data = s.recv(65536)
                assert data, f"the server closed the connection; read so far: {frames}"
                frames += dec.feed(data)
    return frames


def serve_and_stop(proc: subprocess.Popen[str], port: int) -> int:
    """A hello, a first login and a new table (each logged or printed about by the server),
    answered; then SIGTERM. Returns the exit status."""
    try:
        frames = converse(
            port,
            [
                {"type": "hello", "version": 1},
                {"type": "login", "name": "late-reader", "password": "secret-1"},
                {"type": "create_table", "name": "t", "preset": "classic", "seats": 2},
            ],
        )
        assert [f["type"] for f in frames] == ["welcome", "logged_in", "table_created"], frames
        proc.send_signal(signal.SIGTERM)
        return proc.wait(timeout=GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_server_whose_stdout_is_closed_keeps_serving(tmp_path: Path) -> None:
    """Its stdout closed right after the listening line (what it prints next goes nowhere): it
    serves, stops on SIGTERM with status 0, and says nothing of "cannot listen"."""
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as err:
        proc, port = start(tmp_path / "s.sqlite3", err)
        assert proc.stdout is not None
        proc.stdout.close()
        status = serve_and_stop(proc, port)
    stderr = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    assert status == 0, stderr
    assert "cannot listen" not in stderr and "Traceback" not in stderr, stderr


def test_a_server_whose_stdout_and_stderr_are_closed_keeps_serving(tmp_path: Path) -> None:
    """Both closed at once after the listening line (its log lines go nowhere too): it serves,
    and stops on SIGTERM with status 0."""
    proc, port = start(tmp_path / "s.sqlite3", subprocess.PIPE, "--log-level", "DEBUG")
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    proc.stderr.close()
    assert serve_and_stop(proc, port) == 0


def test_a_port_in_use_is_cannot_listen(tmp_path: Path) -> None:
    """A failed bind, and only that, is "cannot listen" (status 1, one line on stderr)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-advertise",
                "--db",
                str(tmp_path / "s.sqlite3"),
                "--log-level",
                "WARNING",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"shithead-server: cannot listen on 127.0.0.1:{port}: "), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
