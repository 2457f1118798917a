"""ServerConfig from TOML and flags, and the command-line entry points."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol.framing import FrameDecoder, encode_frame
from server.__main__ import parse_args
from server.config import Limits, ServerConfig

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "server.toml"
    p.write_text(text)
    return p


def test_load_toml(tmp_path: Path) -> None:
    """Top-level settings and [limits] are read from TOML; the rest keeps its defaults."""
    p = write(
        tmp_path,
        'host = "127.0.0.1"\nport = 9123\ndb = "/tmp/x.sqlite3"\npassword = "pw"\n'
        "reconnect_grace = 5.5\n[limits]\nmax_frame_in = 2048\nrate_burst = 7\n"
        "idle_timeout = 30\n",
    )
    cfg = ServerConfig.load(p)
    assert (cfg.host, cfg.port, cfg.db, cfg.password, cfg.reconnect_grace) == (
        "127.0.0.1",
        9123,
        "/tmp/x.sqlite3",
        "pw",
        5.5,
    )
    assert cfg.limits.max_frame_in == 2048 and cfg.limits.rate_burst == 7
    assert cfg.limits.idle_timeout == 30.0 and isinstance(cfg.limits.idle_timeout, float)
    assert cfg.limits.max_tables == Limits().max_tables and cfg.allow_guests is True


def test_flags_override_toml(tmp_path: Path) -> None:
    """Flags win over the file; a flag left out (None) keeps the file's value."""
    p = write(tmp_path, 'host = "127.0.0.1"\nport = 9123\npassword = "pw"\n')
    args = parse_args(["--config", str(p), "--port", "0", "--no-guests", "--action-seconds", "12"])
    cfg = ServerConfig.load(
        args.config,
        host=args.host,
        port=args.port,
        password=args.password,
        allow_guests=args.allow_guests,
        action_seconds=args.action_seconds,
    )
    assert cfg.port == 0 and cfg.host == "127.0.0.1" and cfg.password == "pw"
    assert cfg.allow_guests is False and cfg.action_seconds == 12.0
    assert ServerConfig.load(None, port=1).port == 1 and ServerConfig.load().port == 7433


@pytest.mark.parametrize("text", ['colour = "blue"\n', "[limits]\nmax_frames = 3\n", "limits = 5\n"])
def test_unknown_keys_raise(tmp_path: Path, text: str) -> None:
    """An unknown setting, an unknown limit or a non-table [limits] raises ValueError naming it."""
    with pytest.raises(ValueError) as info:
        ServerConfig.load(write(tmp_path, text))
    assert re.search(r"colour|max_frames|limits", str(info.value))


def test_python_m_server_help() -> None:
    """``python -m server --help`` prints the usage and exits 0."""
    proc = subprocess.run(
        [sys.executable, "-m", "server", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0
    assert "--port" in proc.stdout and "--config" in proc.stdout


def test_bad_config_file_exits_2(tmp_path: Path) -> None:
    """An unknown key in the config file: a message on stderr and exit status 2."""
    p = write(tmp_path, 'colour = "blue"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "server", "--config", str(p)], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "colour" in proc.stderr


def test_console_script_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    """shithead-server on port 0 prints its address, serves, exits 0 on SIGTERM, leaves its db."""
    exe = BIN / "shithead-server"
    cmd: list[Any] = [str(exe)] if exe.exists() else [sys.executable, "-m", "server"]
    db = tmp_path / "data" / "s.sqlite3"
    proc = subprocess.Popen(
        [*cmd, "--host", "127.0.0.1", "--port", "0", "--db", str(db), "--log-level", "WARNING"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert m, line
        port = int(m.group(1))
        assert port > 0
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(encode_frame({"type": "hello", "id": 1, "version": 1}, max_size=None))
            frames: list[dict[str, Any]] = []
            dec = FrameDecoder(1 << 20)
            while not frames:
                frames += dec.feed(s.recv(65536))
            assert frames[0]["type"] == "welcome"
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped" in rest
    assert db.exists()
