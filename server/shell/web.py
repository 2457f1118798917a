"""The web door: HTTP and WebSocket on the server's own port (docs/PROTOCOL.md, "WebSocket").

A connection whose first byte is an ASCII capital letter is an HTTP request: the protocol's
own first bytes are ``{`` (JSON lines) and the high byte of a msgpack frame's length, which is
0x00 for any frame under 16 MiB (a capital would announce a frame of over 1 GiB). Such a
connection gets a :class:`WebGate`, the sans-I/O part of this door, built on the protocol
object of the ``websockets`` library (:class:`websockets.server.ServerProtocol`), which parses
the request and the frames with its size limits:

* ``GET`` of one of the web client's files (:class:`WebFiles`): the file, then the
  connection closes. Any other method is answered 405, any other path 404;
* ``GET /ws`` with a WebSocket upgrade: the handshake, after the **Origin check**: a browser
  always sends the page's origin, and an upgrade from a page this server did not serve
  (cross-site WebSocket hijacking) is refused with 403. "Served by this server" means the
  origin is ``http(s)://`` + the ``Host`` asked for, and that host is one of the names the
  server answers to (:class:`HostNames`: its addresses, ``localhost``, its names on the LAN,
  the names of the configuration), so a page of another site whose name was made to point at
  this server (DNS rebinding) is refused too. A client without ``Origin`` (not a browser: a
  bot, a test) is let in, as it is over raw TCP.

The files served are a fixed list (:data:`client.web.FILES`, made with the code): no other
file of the directory, and no symbolic link, is ever read.

Nothing a client sends raises out of this module: the library's own failures on bytes it
cannot use (bytes after a request that ends the exchange, for one) end the connection quietly
(:attr:`WebGate.done`, with :attr:`WebGate.problem` saying why for the caller's one log line).

Once open, a text frame holds one protocol message as one line of JSON (what
``JSON.stringify`` writes): :meth:`WebGate.receive` gives the session's connection the JSON
lines it would have read over TCP, and :meth:`WebGate.encode` turns the session's JSON lines
into text frames, one message per frame. So the session (:mod:`server.shell.session`) stays the one
shell for both transports: same handshake, login, limits, rate limit, errors, timeouts and
hidden-information boundary. A binary frame is refused (close code 1003), a frame holding a
line break too (1007), a message over the size limit by the library (1009).
"""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from websockets.datastructures import Headers
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

__all__ = ["WS_PATH", "HostNames", "WebFiles", "WebGate", "starts_http"]

log = logging.getLogger(__name__)

_LIBRARY_LOG = logging.getLogger(__name__ + ".protocol")
"""The websockets library's own lines (one per request and connection: debug detail here)."""
_LIBRARY_LOG.setLevel(logging.WARNING)

WS_PATH = "/ws"
"""The WebSocket endpoint."""

_ALIASES = {
    "/": "/index.html",
    "/tv": "/tv.html",
    "/replay": "/replay.html",
    "/ladder": "/ladder.html",
    "/bot": "/bot.html",
    "/tournament": "/tournament.html",
}
"""Paths served as another file (the page's address without ``.html``)."""

_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".webmanifest": "application/manifest+json"}

_HEADERS = (
    ("Connection", "close"),
    ("Cache-Control", "no-cache"),
    ("X-Content-Type-Options", "nosniff"),
    # Everything comes from this server (a LAN may have no internet); the page may open its
    # WebSocket back to it ('self' covers ws: on the same host and port).
    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
)


def starts_http(first: int) -> bool:
    """True if a connection's first byte starts an HTTP request (an ASCII capital letter)."""
    return 0x41 <= first <= 0x5A


def _response(status: int, reason: str, body: bytes, content_type: str, *extra: tuple[str, str]) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))), *_HEADERS, *extra])
    return Response(status, reason, headers, body)


def _text(status: int, reason: str, text: str, *extra: tuple[str, str]) -> Response:
    return _response(status, reason, text.encode(), "text/plain; charset=utf-8", *extra)


@dataclass(frozen=True)
class WebFile:
    content_type: str
    body: bytes


class WebFiles:
    """The web client's files: ``names`` (paths relative to ``root``, a fixed list), read once.
    A request is looked up among them, so nothing else can be named; a name that is a symbolic
    link, or lies under one, or is missing, is not served (logged once, at start)."""

    def __init__(self, root: Path, names: Iterable[str]) -> None:
        self.root = root
        self.files: dict[str, WebFile] = {}
        for name in names:
            path = root / name
            links = [p for p in [path, *path.parents] if p.is_symlink() and (p == root or root in p.parents)]
            if links or not path.is_file() or ".." in Path(name).parts:
                log.warning("not serving %s: not a plain file of %s", name, root)
                continue
            ctype = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith(("json", "javascript", "+xml")):
                ctype += "; charset=utf-8"
            self.files["/" + Path(name).as_posix()] = WebFile(ctype, path.read_bytes())

    def add(self, path: str, content_type: str, body: bytes) -> None:
        """Serve ``body`` at ``path`` too (a file made at start-up, e.g. the join address's QR code)."""
        self.files[path] = WebFile(content_type, body)

    def response(self, target: str) -> Response:
        """The answer to ``GET target``: the file (200) or 404."""
        path = target.split("?", 1)[0].split("#", 1)[0]
        found = self.files.get(_ALIASES.get(path, path))
        if found is None:
            return _text(404, "Not Found", f"no such page: {path}\n")
        return _response(200, "OK", found.body, found.content_type)


def _is_upgrade(headers: Headers) -> bool:
    return any("websocket" in v.lower() for v in headers.get_all("Upgrade"))


class HostNames:
    """The names this server answers to, for the Origin check: ``localhost`` and the loopback
    addresses, the names given (its own addresses, its names on the LAN, the configuration's),
    and whatever ``more()`` gives when a name is not among them (this machine's addresses now:
    a laptop's address changes with the network)."""

    def __init__(self, names: Iterable[str] = (), more: Callable[[], Iterable[str]] = tuple) -> None:
        self.names = {"localhost", "127.0.0.1", "::1"} | {n.lower().rstrip(".") for n in names if n}
        self.more = more

    def __contains__(self, host: str) -> bool:
        name = _hostname(host)
        if name in self.names:
            return True
        self.names |= {n.lower().rstrip(".") for n in self.more()}
        return name in self.names


def _hostname(host: str) -> str:
    """The name part of a ``Host`` header (no port; an IPv6 address without its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") == 1 else host.rstrip(".")


def same_origin(headers: Headers, names: HostNames) -> bool:
    """Whether a WebSocket upgrade may proceed: no ``Origin`` (not a browser), or the origin of
    a page served by this very address (``http://`` or ``https://`` and the ``Host`` asked for,
    one of the server's own ``names``)."""
    origins = headers.get_all("Origin")
    if not origins:
        return True
    hosts = headers.get_all("Host")
    if len(origins) != 1 or len(hosts) != 1:
        return False
    origin, host = origins[0].lower(), hosts[0].lower()
    return origin in (f"http://{host}", f"https://{host}") and host in names


class WebGate:
    """One connection that began with an HTTP request (see the module docstring).

    Sans-I/O: :meth:`receive` takes the bytes read and returns the JSON lines they complete;
    :meth:`output` gives the bytes to write (responses, the handshake, pongs, close frames);
    :meth:`encode` turns the session's JSON lines into frames. Once :attr:`done`, the
    connection is over: write the output and close the socket."""

    def __init__(self, files: WebFiles | None, *, max_message: int, names: HostNames | None = None) -> None:
        self.files = files
        self.names = names if names is not None else HostNames()
        self.ws = ServerProtocol(max_size=max_message, logger=_LIBRARY_LOG)
        self.problem: str | None = None
        """Why the exchange ended early on bytes the library could not use (for one log line)."""
        self.open = False
        """The WebSocket is open: messages flow."""
        self.done = False
        self._first = True
        self._head_tail: bytes | None = b""
        """The last bytes of the request head read so far (None once the head is complete)."""
        self._out: list[bytes] = []
        self._parts: list[bytes] | None = None  # a text message arriving in fragments

    # ------------------------------------------------------------------ input

    def receive(self, data: bytes) -> bytes:
        """Feed bytes read from the socket; return the complete messages as JSON lines."""
        if self.done:
            return b""
        if self._first:
            # The method is read here: the library refuses a request with a body (a POST)
            # before it is an event, which would close the connection with no answer at all.
            self._first = False
            method = data.split(b" ", 1)[0] if b" " in data[:16] else b"GET"
            if method != b"GET":
                self._answer_now(_text(405, "Method Not Allowed", "only GET\n", ("Allow", "GET")))
                return b""
        lines: list[bytes] = []
        try:
            if self._head_tail is not None:
                # The request is answered before what follows it in the same read (a frame
                # pipelined with the upgrade is answered after the 101, not before).
                seen = self._head_tail + data
                end = seen.find(b"\r\n\r\n")
                if end < 0:
                    self._head_tail = seen[-3:]
                else:
                    split = end + 4 - len(self._head_tail)
                    self._head_tail = None
                    self._feed(data[:split], lines)
                    data = data[split:]
                    if not data or self.done:
                        return b"".join(lines)
            self._feed(data, lines)
        except Exception as exc:  # the library's own failure on bytes it cannot use
            self.problem = f"unusable bytes on an HTTP connection ({type(exc).__name__})"
            self.done = True
            return b""
        return b"".join(lines)

    def _feed(self, data: bytes, lines: list[bytes]) -> None:
        if self.done:
            return  # the exchange is over (a file was sent): what follows is not read
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Request):
                self._request(event)
            elif isinstance(event, Frame):
                self._frame(event, lines)
        self._collect()

    def _request(self, request: Request) -> None:
        if request.method != "GET":
            response = _text(405, "Method Not Allowed", "only GET\n", ("Allow", "GET"))
        elif not _is_upgrade(request.headers):
            response = self.files.response(request.path) if self.files else _text(404, "Not Found", "no web client\n")
        elif request.path.split("?", 1)[0] != WS_PATH:
            response = _text(404, "Not Found", f"the WebSocket endpoint is {WS_PATH}\n")
        elif not same_origin(request.headers, self.names):
            self.problem = "refused a WebSocket from a page this server did not serve (Origin {}, Host {})".format(
                ", ".join(request.headers.get_all("Origin")), ", ".join(request.headers.get_all("Host"))
            )
            response = _text(403, "Forbidden", "a WebSocket from a page this server did not serve is refused\n")
        else:
            response = self.ws.accept(request)
        self.ws.send_response(response)

    def _frame(self, frame: Frame, lines: list[bytes]) -> None:
        op = frame.opcode
        if op is Opcode.TEXT:
            self._parts = [bytes(frame.data)]
        elif op is Opcode.CONT and self._parts is not None:
            self._parts.append(bytes(frame.data))
        elif op is Opcode.BINARY:
            self._fail(CloseCode.UNSUPPORTED_DATA, "text frames only: one JSON message per frame")
            return
        else:
            return  # ping, pong and close: the library answers them
        if not frame.fin:
            return
        text = b"".join(self._parts)
        self._parts = None
        if b"\n" in text:
            self._fail(CloseCode.INVALID_DATA, "one JSON message per frame, on one line")
            return
        try:
            text.decode()  # RFC 6455: a text message is UTF-8, or the connection fails (1007)
        except UnicodeDecodeError:
            self._fail(CloseCode.INVALID_DATA, "a text frame must be UTF-8")
            return
        lines.append(text + b"\n")

    def _fail(self, code: CloseCode, reason: str) -> None:
        self.ws.fail(code, reason)
        self.open = False

    def _answer_now(self, response: Response) -> None:
        """Answer before the library has parsed anything (a method it would not answer)."""
        self._out.append(response.serialize())
        self.done = True

    def _collect(self) -> None:
        for data in self.ws.data_to_send():
            if data:
                self._out.append(data)
            else:
                self.done = True  # the library's end-of-stream mark: the exchange is over
        self.open = self.ws.state is State.OPEN

    # ------------------------------------------------------------------ output

    def output(self) -> bytes:
        """What to write now (and then nothing until more is received or sent)."""
        out, self._out = self._out, []
        return b"".join(out)

    def encode(self, lines: bytes) -> bytes:
        """The session's JSON lines (whole lines, each ending in a newline) as text frames; nothing
        while the WebSocket is not open (a session's timeout error before the upgrade)."""
        if not self.open:
            return b""
        send = self.ws.send_text
        for line in lines.split(b"\n")[:-1]:
            send(line)
        self._collect()
        return self.output()

    def close(self, code: CloseCode = CloseCode.NORMAL_CLOSURE, reason: str = "") -> bytes:
        """The closing frame to write before closing the socket (nothing if not open)."""
        if self.open:
            self.ws.send_close(code, reason)
        self._collect()
        return self.output()
