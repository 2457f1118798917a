"""A TCP relay between a checked bot and the server that reads every frame on the way.

The bot connects to the tap (on 127.0.0.1) as if it were the server; the tap opens a
connection of its own to the server for each of the bot's and copies the bytes both ways
unchanged. On the way it decodes them (the first byte of the bot's stream says JSON lines or
msgpack, as the server decides) and hands each frame to the current
:class:`~client.botcheck.referee.Referee`, which can ask for the bot's connection to be cut:
the forced disconnect of the gauntlet. A stream that stops decoding is still relayed (the
server answers it; the referee has been told).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from typing import Any

from protocol.errors import RemoteProtocolError
from protocol.framing import FrameDecoder, LineDecoder

from .referee import Referee

__all__ = ["WireTap"]

log = logging.getLogger(__name__)

#: Large enough for any frame the server accepts or sends: the tap judges nothing by size.
_MAX_FRAME = 64 * 1024 * 1024
_CHUNK = 65536


class _Sniffer:
    """Decodes one direction of one connection; the mode comes from the bot's first byte."""

    def __init__(self) -> None:
        self.decoder: FrameDecoder | LineDecoder | None = None
        self.broken = False

    def start(self, json_lines: bool) -> None:
        cls = LineDecoder if json_lines else FrameDecoder
        self.decoder = cls(_MAX_FRAME, check_nesting=False)

    def feed(self, data: bytes) -> tuple[list[dict[str, Any]], str | None]:
        """The frames ``data`` completes, and the decoding error that ended the stream if any."""
        if self.decoder is None or self.broken:
            return [], None
        try:
            return self.decoder.feed(data), None
        except RemoteProtocolError as exc:
            self.broken = True
            return list(exc.received), f"{exc.code}: {exc}"


class WireTap:
    """Relays connections from ``127.0.0.1:``:attr:`port` to the server at ``host:port``,
    showing every frame to :attr:`referee` (replaced between stages; None: relay only)."""

    def __init__(self, host: str, port: int) -> None:
        self.server_host = host
        self.server_port = port
        self.referee: Referee | None = None
        self.port = 0
        self._server: asyncio.Server | None = None
        self._ids = itertools.count(1)
        self._live: dict[int, tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for conn in list(self._live):
            self.cut(conn)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    def cut(self, conn: int) -> None:
        """Close connection ``conn`` on both sides, as a network failure would."""
        pair = self._live.pop(conn, None)
        if pair is None:
            return
        for writer in pair:
            with contextlib.suppress(Exception):
                writer.transport.abort()

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = next(self._ids)
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(self.server_host, self.server_port)
            except OSError as exc:
                log.warning("tap: cannot reach the server: %s", exc)
                writer.transport.abort()
                return
            self._live[conn] = (writer, up_writer)
            to_server, to_bot = _Sniffer(), _Sniffer()
            await asyncio.gather(
                self._pump(conn, reader, up_writer, to_server, to_bot, from_bot=True),
                self._pump(conn, up_reader, writer, to_bot, to_server, from_bot=False),
            )
        finally:
            self.cut(conn)
            self._tasks.discard(task)

    async def _pump(
        self,
        conn: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        sniffer: _Sniffer,
        other: _Sniffer,
        *,
        from_bot: bool,
    ) -> None:
        try:
            while data := await reader.read(_CHUNK):
                if from_bot and sniffer.decoder is None and not sniffer.broken:
                    json_lines = data[:1] == b"{"
                    sniffer.start(json_lines)
                    other.start(json_lines)
                frames, error = sniffer.feed(data)
                cut = self._show(conn, frames, error, data, from_bot=from_bot)
                writer.write(data)
                await writer.drain()
                if cut:
                    log.info("tap: cutting connection %d", conn)
                    self.cut(conn)
                    return
            # The sender closed its side: pass that on once everything it sent is through (the
            # other pump ends when the receiver closes in turn).
            writer.close()
        except (ConnectionError, OSError):
            self.cut(conn)

    def _show(self, conn: int, frames: list[dict[str, Any]], error: str | None, data: bytes, *, from_bot: bool) -> bool:
        """Hand the frames to the referee; True when it asks for the connection to be cut."""
        referee = self.referee
        if referee is None:
            return False
        cut = False
        now = time.monotonic()
        for frame in frames:
            if from_bot:
                referee.bot_frame(conn, frame, now)
            else:
                cut = referee.server_frame(conn, frame, now) or cut
        if error is not None and from_bot:
            referee.bot_garbage(conn, error, data)
        return cut
