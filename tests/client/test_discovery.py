"""Finding servers on the LAN (issue 12): real servers announce themselves by DNS-SD/mDNS and the
client lists them. Everything here advertises and browses on 127.0.0.1 only: nothing leaves
this machine (a server started with ``--host 127.0.0.1`` advertises on loopback only)."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from client.cli.__main__ import choose_server, pick
from client.discovery import FoundServer, find_servers

# These servers advertise on the loopback's multicast DNS, one name space for every process of
# the machine: two tests advertising "alpha" at once would rename one "alpha-2". The README's
# test command runs each file whole on one worker (--dist loadfile), so they never overlap.

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = ["127.0.0.1"]
#: How long a browse listens when a test asserts that something is *not* there: the window a
#: player's client waits too (this is the feature's time, not a guess at a race).
WINDOW = 2.5


@contextmanager
def server(tmp_path: Path, name: str, *extra: str) -> Iterator[tuple[subprocess.Popen[str], int, list[str]]]:
    """``python -m server`` on 127.0.0.1 named ``name``; yields (process, port, its start-up lines)."""
    cmd = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--name", name]
    cmd += ["--db", str(tmp_path / f"{name}.sqlite3"), "--log-level", "WARNING", *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline()]
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", lines[0])
        assert m, lines
        if "--no-advertise" not in extra:
            # Printed once the name is registered, after the address for browsers and its QR code.
            while "announced on the LAN" not in lines[-1]:
                lines.append(proc.stdout.readline())
                assert lines[-1], lines  # (the server exited first)
        yield proc, int(m.group(1)), lines
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)


async def test_the_client_lists_every_server_on_the_lan_and_only_those(tmp_path: Path) -> None:
    with (
        server(tmp_path, "alpha") as (_, port_a, _),
        server(tmp_path, "beta") as (_, port_b, _),
        server(tmp_path, "gamma", "--no-advertise") as (_, port_c, _),
    ):
        found = await find_servers(WINDOW, interfaces=LOOPBACK)
    # (Other servers this machine may run are listed too: only this test's are looked at.)
    assert [(s.name, s.host, s.port, s.version) for s in found if s.port in (port_a, port_b, port_c)] == [
        ("alpha", "127.0.0.1", port_a, 1),
        ("beta", "127.0.0.1", port_b, 1),
    ]


async def test_a_stopped_server_is_no_longer_listed(tmp_path: Path) -> None:
    with server(tmp_path, "delta") as (proc, port, _):
        assert port in [s.port for s in await find_servers(WINDOW, interfaces=LOOPBACK, enough={"delta"})]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0  # it withdrew its record on the way out
    assert port not in [s.port for s in await find_servers(WINDOW, interfaces=LOOPBACK)]


async def test_two_servers_of_the_same_name_are_told_apart(tmp_path: Path) -> None:
    with server(tmp_path / "x", "same") as (_, p1, _), server(tmp_path, "same") as (_, p2, lines):
        found = [s for s in await find_servers(WINDOW, interfaces=LOOPBACK) if s.port in (p1, p2)]
    assert sorted(s.port for s in found) == sorted([p1, p2])
    assert "as 'same-2'" in lines[-1]  # the second one renamed itself to stay apart
    assert {s.name for s in found} == {"same", "same-2"}


def args_of(address: str | None) -> argparse.Namespace:
    return argparse.Namespace(address=address)


async def test_the_only_server_found_is_taken_at_once_and_an_address_skips_the_search() -> None:
    only = FoundServer("kitchen", "127.0.0.1", 7500, 1)

    async def one() -> list[FoundServer]:
        return [only]

    async def never() -> list[FoundServer]:
        raise AssertionError("an address on the command line must skip the search")

    assert await choose_server(args_of(None), one) == ("127.0.0.1", 7500)
    assert await choose_server(args_of("10.0.0.5:7001"), never) == ("10.0.0.5", 7001)


async def test_no_server_found_falls_back_to_this_machine() -> None:
    async def none() -> list[FoundServer]:
        return []

    assert await choose_server(args_of(None), none) == ("127.0.0.1", 7433)


def test_picking_one_of_several() -> None:
    servers = [FoundServer("attic", "127.0.0.1", 1), FoundServer("kitchen", "127.0.0.1", 2)]
    assert pick(servers, "") == servers[0]
    assert pick(servers, "2") == servers[1]
    assert pick(servers, " Kitchen ") == servers[1]
    assert pick(servers, "3") is None and pick(servers, "garage") is None
