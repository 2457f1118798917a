"""Waiting on the server's own state, for the few facts no message tells a client.

Most tests wait on what the server sends (:meth:`TestClient.recv_until`, :meth:`TestClient.wait_for`).
A few need a fact the protocol does not announce: that the server has noticed a closed connection,
or has read bytes a client wrote. These helpers wait for such a fact by checking it after each
round trip the server answers (:func:`until_server`) or after each turn of the event loop that the
in-process server shares with the test (:func:`until_loop`); none of them waits a guessed time.
"""

from __future__ import annotations

import array
import asyncio
import fcntl
import termios
from collections.abc import Callable

from server.shell.app import App
from tests.server.client import TestClient

GUARD = 10.0
"""Seconds: only against a hang, never a measured expectation."""


async def until_server(via: TestClient, predicate: Callable[[], bool], timeout: float = GUARD) -> None:
    """Wait until ``predicate()`` holds, checking it after each ping that ``via`` sends is
    answered: each round trip lets the server run (and, for a fact that follows from something
    the server has already read, is the natural moment for it to have happened)."""
    async with asyncio.timeout(timeout):
        while not predicate():
            pong = await via.request({"type": "ping"})
            assert pong["type"] == "pong", pong


async def until_loop(predicate: Callable[[], bool], timeout: float = GUARD) -> None:
    """Wait until ``predicate()`` holds, checking it after every turn of the event loop: for a
    fact about the in-process server when no message can come meanwhile (its answers are held)."""
    async with asyncio.timeout(timeout):
        while not predicate():  # noqa: ASYNC110 (one turn of the loop at a time, not a pause)
            await asyncio.sleep(0)


def server_fd(app: App, client: TestClient) -> int | None:
    """The file descriptor of the server's end of ``client``'s connection (found by the
    client's address), or None while the server has not accepted it yet."""
    mine = client.writer.get_extra_info("sockname")
    for s in app.sessions:
        if s.transport is not None and s.transport.get_extra_info("peername") == mine:
            sock = s.transport.get_extra_info("socket")
            assert sock is not None
            return int(sock.fileno())
    return None


def unread_bytes(fd: int) -> int:
    """Bytes that arrived at socket ``fd`` and that its owner has not read yet (FIONREAD)."""
    n = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, n, True)
    return n[0]


async def server_has_read(app: App, client: TestClient, timeout: float = GUARD) -> None:
    """Wait until the server has read everything ``client`` wrote so far: the client's
    transport has handed it all to the kernel (over loopback it is then in the server socket's
    receive queue at once), and that queue is empty."""
    await client.writer.drain()

    def read() -> bool:
        fd = server_fd(app, client)
        return client.writer.transport.get_write_buffer_size() == 0 and fd is not None and unread_bytes(fd) == 0

    await until_loop(read, timeout)
