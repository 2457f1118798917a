"""``shithead-server`` / ``python -m server``: start the game server.

shithead-server                         # 0.0.0.0:7433, data in ~/.local/share/shithead
shithead-server --port 9000 --db ./games.sqlite3 --password secret
shithead-server --config server.toml    # TOML: host, port, db, password, ... and [limits]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys

from client.eventloop import use_uvloop_if_installed
from protocol.messages import PROTOCOL_VERSION
from server.advertise import Advertiser
from server.app import App
from server.config import DEFAULT_PORT, ServerConfig
from server.net import lan_addresses
from server.store import StoreError


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="shithead-server", description="Shithead game server (msgpack/JSON over TCP)")
    p.add_argument("--config", help="TOML file with settings (flags override it)")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--db", help="SQLite file (default ~/.local/share/shithead/server.sqlite3)")
    p.add_argument("--password", help="server password that clients must give at login")
    p.add_argument("--no-guests", dest="allow_guests", action="store_false", default=None, help="refuse guest logins")
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
    return p.parse_args(argv)


async def serve(config: ServerConfig) -> None:
    # The composition root: the bundled bots (client package) are handed to the server as its
    # bot host, so that the server package itself never imports the client. They run in a
    # process of their own (client.house_process): their work stays off the tables' loop.
    from client import web
    from client.house_process import HouseProcess

    app = App(config, bots=HouseProcess(), web_root=web.ROOT)
    await app.start()
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
    print(f"Shithead server listening on {host}:{app.port}  (database: {config.db})", flush=True)
    if app.tables or app.tournaments.tournaments:
        running = sum(t.running for t in app.tables.values())
        print(
            f"  restored {len(app.tables)} tables ({running} games in progress) and "
            f"{len(app.tournaments.tournaments)} tournaments; players have {config.restart_grace:g} s more on "
            f"their clocks to come back",
            flush=True,
        )
    lan = lan_addresses() if host in ("0.0.0.0", "::", "") else []
    for addr in lan:
        print(f"  players on your network connect to {addr}:{app.port}", flush=True)
    if app.web_files is not None:
        _open_the_web_door(app, lan[0] if lan else ("127.0.0.1" if host in ("0.0.0.0", "::", "") else host))
    advertiser = None
    announcing = None
    if config.advertise:
        advertiser = Advertiser(config.name or socket.gethostname().split(".")[0], host, app.port, PROTOCOL_VERSION)
        announcing = asyncio.create_task(_announce(advertiser))  # about a second: serving meanwhile
    await stop.wait()
    print("shutting down: finishing writes ...", flush=True)
    if announcing is not None:
        announcing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await announcing
    if advertiser is not None:
        await advertiser.stop()
    await app.stop(f"the server is stopping ({why[0] if why else 'stop'})")
    print("stopped: tables and games are saved for the next start", flush=True)


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
    print(f"  on a phone or any browser, open {url}  (the table screen for a TV: {url}tv)", flush=True)
    web.join_qr(url).terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()


async def _announce(advertiser: Advertiser) -> None:
    await advertiser.start()
    if advertiser.registered_name is not None:
        print(f"  announced on the LAN as {advertiser.registered_name!r}: players just run shithead", flush=True)


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
            advertise=args.advertise,
            web=args.web,
            name=args.name,
            log_level=args.log_level,
        )
    except (OSError, ValueError) as exc:
        print(f"shithead-server: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    use_uvloop_if_installed()
    try:
        asyncio.run(serve(config))
    except StoreError as exc:
        print(f"shithead-server: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"shithead-server: cannot listen on {config.host}:{config.port}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
