"""``shithead-server`` / ``python -m server``: start the game server.

shithead-server                         # 0.0.0.0:7433, data in ~/.local/share/shithead
shithead-server --port 9000 --db ./games.sqlite3 --password secret
shithead-server --config server.toml    # TOML: host, port, db, password, ... and [limits]

What it prints is for whoever started it; once it listens it serves whether or not anyone
reads that: a stdout or stderr that goes away (a closed terminal, a parent that died and
closed the pipe) is let go, and the server goes on (:func:`say`). Only a failed bind is
"cannot listen".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import os
import signal
import socket
import sys
from typing import IO

from client.eventloop import use_uvloop_if_installed
from protocol.messages import PROTOCOL_VERSION
from server.config import DEFAULT_PORT, ServerConfig
from server.engine.buildinfo import describe_build
from server.shell.advertise import Advertiser
from server.shell.app import App
from server.shell.collector import schedule_for_latency
from server.shell.net import lan_addresses
from server.shell.web import WebFiles
from server.storage.store import StoreError


class CannotListen(Exception):
    """The server cannot listen on its address (in use, not this machine's, not allowed)."""


def say(text: str) -> None:
    """Print ``text`` on stdout for the operator. A stdout that is gone (EPIPE, EIO) is let go:
    what would go there goes nowhere from then on, and the server goes on serving."""
    try:
        print(text, flush=True)
    except OSError:
        _let_go(sys.stdout)


def _complain(text: str) -> None:
    """``text`` on stderr, if anyone still reads it."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        _let_go(sys.stderr)


def _let_go(stream: IO[str] | None) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that what is buffered and anything
    written later (at exit too) goes nowhere without an error."""
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return  # not a file (tests replace it): nothing to keep writing to
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


class _LogHandler(logging.StreamHandler[IO[str]]):
    """The log on stderr; a stderr that is gone is let go (the records go nowhere), never an
    error that reaches the server."""

    def handleError(self, record: logging.LogRecord) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            _let_go(self.stream)
            return
        super().handleError(record)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="shithead-server", description="Shithead game server (msgpack/JSON over TCP)")
    p.add_argument("--config", help="TOML file with settings (flags override it)")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--db", help="SQLite file (default ~/.local/share/shithead/server.sqlite3)")
    p.add_argument("--password", help="server password that clients must give at login")
    p.add_argument(
        "--no-guests",
        dest="allow_guests",
        action="store_false",
        default=None,
        help="refuse guest logins (the read-only pages' viewers still get in)",
    )
    p.add_argument("--reconnect-grace", type=float, help="seconds a dropped player's seat waits (default 120)")
    p.add_argument(
        "--restart-grace",
        type=float,
        help="seconds added to running clocks when games are restored at start (default 30)",
    )
    p.add_argument(
        "--sync",
        dest="synchronous",
        choices=["normal", "full"],
        help="normal (default): a server crash loses nothing acknowledged, a power cut can lose "
        "the last seconds; full: every commit is synced to the disk (slower)",
    )
    p.add_argument("--action-seconds", type=float, help="default time per action for new tables (default 60)")
    p.add_argument(
        "--bot-delay",
        type=float,
        help="seconds the server's bots wait before each play at a table with people (default 1; 0: none)",
    )
    p.add_argument("--name", help="the server's name in the list players see (default: this machine's name)")
    p.add_argument(
        "--no-advertise",
        dest="advertise",
        action="store_false",
        default=None,
        help="do not announce the server on the LAN (players then need its address)",
    )
    p.add_argument(
        "--no-web",
        dest="web",
        action="store_false",
        default=None,
        help="do not serve the browser client and its WebSocket on the port",
    )
    p.add_argument("--log-level", help="DEBUG, INFO (default), WARNING, ERROR")
    p.add_argument(
        "--no-quotas",
        action="store_true",
        help="no quota per player or address and no tournament bound but the protocol's "
        "(a private server: shithead-tournament's and shithead-bot-check's)",
    )
    return p.parse_args(argv)


async def serve(config: ServerConfig) -> None:
    # The composition root: the bundled bots (client package) are handed to the server as its
    # bot host, so that the server package itself never imports the client. They run in
    # processes of their own (client.hosting.house_process): their work stays off the tables' loop, and
    # tournaments' bots, at a lower priority, off the other tables' bots' CPU.
    from client import web
    from client.hosting.house_process import HouseProcesses

    bots = HouseProcesses(nice=config.tournament_nice)
    app = App(config, bots=bots, web_files=WebFiles(web.ROOT, web.FILES))
    try:
        await app.start()
    except OSError as exc:
        # The only OSError of a start: the database's problems are StoreError, and the bundled
        # bots start in tasks of their own. Nothing later is "cannot listen".
        raise CannotListen(f"cannot listen on {config.host}:{config.port}: {exc}") from exc
    # Signals first: a stop asked for during the rest of the start-up saves and exits cleanly.
    stop = asyncio.Event()
    why: list[str] = []
    loop = asyncio.get_running_loop()

    def stop_on(name: str) -> None:
        why.append(name)
        stop.set()

    for sig, name in ((signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")):
        loop.add_signal_handler(sig, stop_on, name)
    host = config.host
    say(f"Shithead server listening on {host}:{app.port}  (database: {config.db})")
    if app.tables or app.tournaments.tournaments:
        running = sum(t.running for t in app.tables.values())
        say(
            f"  restored {len(app.tables)} tables ({running} games in progress) and "
            f"{len(app.tournaments.tournaments)} tournaments; players have {config.restart_grace:g} s more on "
            f"their clocks to come back"
        )
    lan = lan_addresses() if host in ("0.0.0.0", "::", "") else []
    for addr in lan:
        say(f"  players on your network connect to {addr}:{app.port}")
    if app.web_files is not None:
        _open_the_web_door(app, lan[0] if lan else ("127.0.0.1" if host in ("0.0.0.0", "::", "") else host))
    advertiser = None
    announcing = None
    if config.advertise:
        advertiser = Advertiser(config.name or socket.gethostname().split(".")[0], host, app.port, PROTOCOL_VERSION)
        announcing = asyncio.create_task(_announce(advertiser))  # about a second: serving meanwhile
    await stop.wait()
    say("shutting down: finishing writes ...")
    if announcing is not None:
        announcing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await announcing
    if advertiser is not None:
        await advertiser.stop()
    await app.stop(f"the server is stopping ({why[0] if why else 'stop'})")
    say("stopped: tables and games are saved for the next start")


def _open_the_web_door(app: App, address: str) -> None:
    """Serve the files that depend on this server (the presets and bots to offer, the address
    and its QR code) and print the address to open on a phone, with its QR code."""
    from client import web
    from client.bots import bot_names
    from server.engine import preset_names

    assert app.web_files is not None
    url = f"http://{address}:{app.port}/"
    for path, (content_type, body) in web.generated_files(url, preset_names(), bot_names()).items():
        app.web_files.add(path, content_type, body)
    say(f"  on a phone or any browser, open {url}  (the table screen for a TV: {url}tv)")
    qr = io.StringIO()
    web.join_qr(url).terminal(out=qr, compact=True)
    say(qr.getvalue().rstrip("\n"))


async def _announce(advertiser: Advertiser) -> None:
    await advertiser.start()
    if advertiser.registered_name is not None:
        say(f"  announced on the LAN as {advertiser.registered_name!r}: players just run shithead")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = ServerConfig.load(
            args.config,
            host=args.host,
            port=args.port,
            db=args.db,
            password=args.password,
            allow_guests=args.allow_guests,
            reconnect_grace=args.reconnect_grace,
            restart_grace=args.restart_grace,
            synchronous=args.synchronous,
            action_seconds=args.action_seconds,
            bot_delay=args.bot_delay,
            advertise=args.advertise,
            web=args.web,
            name=args.name,
            log_level=args.log_level,
        )
    except (OSError, ValueError) as exc:
        print(f"shithead-server: {exc}", file=sys.stderr)
        return 2
    if args.no_quotas:
        config.limits.without_quotas()
    logging.basicConfig(
        level=config.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[_LogHandler(sys.stderr)],
    )
    logging.getLogger("server").info("running %s", describe_build())
    use_uvloop_if_installed()
    schedule_for_latency()
    try:
        asyncio.run(serve(config))
    except (StoreError, CannotListen) as exc:
        _complain(f"shithead-server: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
