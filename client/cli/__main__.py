"""``shithead``: the terminal client.

    shithead                          # finds the servers on the LAN; asks for a name and a password
    shithead lan-box:7433 --name alice  # an address skips the search
    shithead 192.168.1.20 --guest --name bob
    echo secret | shithead --name alice --password-stdin
    shithead replay tournament-XXXX/records/7.json   # step through a finished game
    shithead watch 3 lan-box          # table 3 drawn large, for the TV (a viewer: it only reads)

Name and password are asked before connecting (the server's handshake clock does not wait for a
person typing); the password prompt does not echo, and an empty password logs in as a guest. A
name follows the rule of :mod:`protocol.names` ("Anna Maria", "Zoë", "Mum's phone", "🦊 Fox":
:data:`~protocol.names.NAME_RULE`), which ``--help`` and the name prompt state and which is
checked here before connecting. A name somebody else uses (``NAME_TAKEN``) is said with the
server's suggestion: a ``--name`` ends the run with the command to try, a typed name is asked
again with the suggestion filled in. Passwords never go on the command line: they come from the
prompt, ``$SHITHEAD_PASSWORD`` and ``$SHITHEAD_SERVER_PASSWORD``, or stdin
(``--password-stdin``). When the server wants its own password (``welcome.password_required``)
and none was given, the client hangs up, asks, and connects again. A refused login ends the
client with one line and exit status 1. Logs go to a file (``$XDG_STATE_HOME/shithead/cli.log``,
by default ``~/.local/state/shithead/cli.log``), never to the terminal the game is drawn on.
Seat tokens are kept in ``~/.local/state/shithead/seats.json`` (``--seats-file``,
``$SHITHEAD_SEATS_FILE``; see :mod:`client.cli.seats`): started again with the same name, the
client takes back a seat that waits for the player by itself (several: the lobby lists them,
Enter or ``resume T``). A guest gives a kept token at login, which proves it is the guest who
holds that seat: its name is its own again. No password and no login token is ever written to a
file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shlex
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_input

from client.cli.app import CliApp
from client.cli.commands import Command
from client.cli.model import Info, Model
from client.cli.render import Theme
from client.cli.seats import SeatTokens
from client.cli.tv import tv_screen
from client.discovery import FoundServer, find_servers
from client.sdk import Client, ServerError
from protocol.messages import LoggedIn
from protocol.names import NAME_RULE, name_error, normalize_name

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7433
CLIENT_NAME = "shithead-cli 0.1"

log = logging.getLogger("client.cli")

#: Kept seat tokens tried, one at a time, at a guest's login (a token may be of a table gone).
MAX_TOKEN_TRIES = 5

Finder = Callable[[], Awaitable[list[FoundServer]]]


def parse_address(text: str | None) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6::addr]:PORT`` too) -> (host, port); defaults 127.0.0.1:7433.
    Raises ``ValueError`` for a port that is not a number in 1..65535."""
    if not text:
        return DEFAULT_HOST, DEFAULT_PORT
    host, port = text, str(DEFAULT_PORT)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest.startswith(":"):
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad port {port!r}")
    return host or DEFAULT_HOST, int(port)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="shithead",
        description="Play Shithead (Palace) on a shithead-server.",
        epilog="Passwords: asked without echo, or from $SHITHEAD_PASSWORD and $SHITHEAD_SERVER_PASSWORD, or stdin "
        "(--password-stdin). Also: 'shithead replay FILE' (or 'shithead replay --server HOST:PORT GAME') steps "
        "through a finished game; 'shithead watch TABLE [HOST[:PORT]]' draws one table large, for a TV.",
    )
    p.add_argument(
        "address",
        nargs="?",
        help="HOST[:PORT] of the server (default: look for servers on the LAN; none found: "
        f"{DEFAULT_HOST}:{DEFAULT_PORT})",
    )
    p.add_argument("--name", help=f"player name, {NAME_RULE}, such as --name 'Anna Maria' (asked if not given)")
    p.add_argument("--guest", action="store_true", help="play as a guest (no password, nothing stored)")
    p.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    p.add_argument(
        "--server-password-stdin", action="store_true", help="read the server password from the next line of stdin"
    )
    p.add_argument("--json", action="store_true", help="speak JSON lines instead of msgpack")
    p.add_argument("--ascii", action="store_true", help="suits as letters (7h) and ASCII marks only")
    p.add_argument("--log-file", help="where to write the log (default ~/.local/state/shithead/cli.log)")
    p.add_argument(
        "--seats-file",
        help="where to keep seat tokens ($SHITHEAD_SEATS_FILE, default ~/.local/state/shithead/seats.json)",
    )
    p.add_argument("--debug", action="store_true", help="log at DEBUG level")
    p.set_defaults(watch=None)  # the table of 'shithead watch TABLE', set by main()
    return p.parse_args(argv)


def log_path(given: str | None) -> Path:
    """The log file: ``given``, else the XDG state directory, else the temp directory."""
    if given:
        return Path(given).expanduser()
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "shithead"
    try:
        base.mkdir(parents=True, exist_ok=True)
        return base / "cli.log"
    except OSError:
        return Path(tempfile.gettempdir()) / "shithead-cli.log"


def setup_logging(path: Path, debug: bool) -> None:
    """Everything to ``path`` (the terminal belongs to the game)."""
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)


async def _ask(question: str, *, secret: bool = False, default: str = "") -> str:
    """One answer typed at the terminal (hidden when ``secret``). The prompt session is made
    only when a question is asked: with stdin a pipe it would warn for nothing."""
    session: PromptSession[str] = PromptSession()
    return (await session.prompt_async(question, is_password=secret, default=default)).strip()


@dataclass
class Credentials:
    """Who logs in, gathered before connecting (the server's handshake clock does not wait
    for a person typing): ``password`` None plays as a guest."""

    name: str
    password: str | None
    server_password: str | None = None
    asked: bool = False
    """The name was typed at the prompt (so it may be asked again), not given with ``--name``."""
    viewer: bool = False
    """A viewer's login (``shithead watch``): it only reads, and the server names it."""


def check_name(raw: str) -> str:
    """``raw`` as the server keeps it (:func:`protocol.names.normalize_name`); raises
    ``ValueError`` saying why it is not a name (:func:`protocol.names.name_error`)."""
    name = normalize_name(raw)
    problem = name_error(name)
    if problem is not None:
        raise ValueError(problem)
    return name


def say(text: str, *, file: TextIO | None = None) -> None:
    """``text`` on the terminal before the game, broken at spaces to the terminal's width."""
    width = max(shutil.get_terminal_size().columns - 1, 40)
    print(textwrap.fill(text, width, break_long_words=False), file=file or sys.stdout, flush=True)


async def ask_name(default: str = "") -> str:
    """A name typed at the terminal, asked again until it follows the rule. The rule is said
    first; with a ``default`` (the server's suggestion), Enter takes it."""
    say(f"Your name at the table: {NAME_RULE}." if not default else f"Enter takes {default}, or type another name.")
    while True:
        typed = await _ask("Name: ", default=default)
        try:
            return check_name(typed)
        except ValueError as exc:
            say(f"Not a name: {exc}.", file=sys.stderr)


async def ask_credentials(args: argparse.Namespace) -> Credentials:
    """Name and password from the command line, the environment (``SHITHEAD_PASSWORD``,
    ``SHITHEAD_SERVER_PASSWORD``), stdin (``--password-stdin``, ``--server-password-stdin``)
    or the terminal, in that order. A name that breaks the name rule is asked again when it
    was typed, and ends the run when it was given. Raises ``ValueError`` (a bad ``--name``),
    ``EOFError`` or ``KeyboardInterrupt`` (the player gave up)."""
    password = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else os.environ.get("SHITHEAD_PASSWORD")
    server_password = (
        sys.stdin.readline().rstrip("\r\n")
        if args.server_password_stdin
        else os.environ.get("SHITHEAD_SERVER_PASSWORD")
    )
    if args.watch is not None:
        return Credentials("viewer", None, server_password or None, viewer=True)
    if args.name is not None:
        try:
            name = check_name(args.name)
        except ValueError as exc:
            raise ValueError(f"{args.name!r} is not a name: {exc}") from None
        asked = False
    else:
        name, asked = await ask_name(), True
    if not args.guest and password is None:
        password = await _ask("Password (empty: play as a guest): ", secret=True)
    return Credentials(name, None if args.guest or not password else password, server_password or None, asked)


def refusal_words(exc: ServerError, creds: Credentials) -> str:
    """A refused login in one line: a name somebody else uses with the server's suggestion (as
    the command to try when the name came with ``--name``), a bad name with the reason."""
    if exc.code == "NAME_TAKEN":
        words = f"shithead: {creds.name} is taken ({exc.message})"
        if exc.suggestion and not creds.asked:
            words += f"; try: shithead --name {shlex.quote(exc.suggestion)}"
        elif exc.suggestion:
            words += f"; {exc.suggestion} is free"
        return words
    if exc.code == "BAD_NAME":
        return f"shithead: the server refuses the name {creds.name!r}: {exc.message}"
    return f"shithead: login refused: {exc.message}"


async def login(client: Client, creds: Credentials, seat_tokens: list[str] | None = None) -> LoggedIn | ServerError:
    """Log in once; a refusal is said in one line on stderr and returned.

    ``seat_tokens`` are the tokens this machine keeps for seats of this name: one goes with
    the login (``login.token``), so that a guest who holds those seats is known as that guest
    (its name is its own) and an account's login is not held up by the failed-login throttle.
    The token of a table that is gone proves nothing: while the guest's other seats hold the
    name the server says NAME_TAKEN, and a guest tries its next token."""
    kept = [] if creds.viewer else list(seat_tokens or [])[: MAX_TOKEN_TRIES if creds.password is None else 1]
    tries: list[str | None] = list(kept) or [None]
    while True:
        token = tries.pop(0)
        try:
            return await client.login(
                creds.name,
                creds.password,
                guest=creds.password is None and not creds.viewer,
                viewer=creds.viewer,
                server_password=creds.server_password,
                seat_token=token,
            )
        except ServerError as exc:
            if exc.code == "NAME_TAKEN" and tries:
                continue
            print(refusal_words(exc, creds), file=sys.stderr, flush=True)
            return exc


async def _connect(host: str, port: int, args: argparse.Namespace) -> Client | None:
    """Connected and past the handshake, or None (said in one line on stderr)."""
    try:
        return await Client.connect(host, port, mode="json" if args.json else "msgpack", client_name=CLIENT_NAME)
    except (OSError, TimeoutError) as exc:
        print(f"shithead: cannot reach a server at {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
    except ServerError as exc:
        print(f"shithead: the server refused the connection: {exc.message}", file=sys.stderr)
    return None


def pick(servers: list[FoundServer], answer: str) -> FoundServer | None:
    """The server a typed answer names: its number in the list (empty: the first), or its name."""
    text = answer.strip()
    if not text:
        return servers[0] if servers else None
    if text.isdigit() and 1 <= int(text) <= len(servers):
        return servers[int(text) - 1]
    named = [s for s in servers if s.name.lower() == text.lower()]
    return named[0] if named else None


async def choose_server(args: argparse.Namespace, find: Finder = find_servers) -> tuple[str, int]:
    """The address given, else a server found on the LAN: the only one at once, one of several
    as chosen, none: the default address. Raises ``ValueError`` (a bad address), ``EOFError``
    or ``KeyboardInterrupt`` (the user gave up choosing)."""
    if args.address:
        return parse_address(args.address)
    print("Looking for servers on the LAN ...", flush=True)
    servers = await find()
    if not servers:
        print(f"None found (a network may block multicast): trying {DEFAULT_HOST}:{DEFAULT_PORT}.", flush=True)
        print("Give the server's address to connect elsewhere: shithead HOST[:PORT]", flush=True)
        return DEFAULT_HOST, DEFAULT_PORT
    if len(servers) == 1:
        (only,) = servers
        print(f"Found {only.name} at {only.address}.", flush=True)
        return only.host, only.port
    for i, s in enumerate(servers, 1):
        print(f"  {i}. {s.name}  ({s.address})", flush=True)
    while True:
        chosen = pick(servers, await _ask(f"Which server (1-{len(servers)}, Enter: 1)? "))
        if chosen is not None:
            return chosen.host, chosen.port
        print("Type a number from the list, or a server's name.", flush=True)


def seats_path(args: argparse.Namespace) -> Path | None:
    return Path(args.seats_file).expanduser() if args.seats_file else None


async def sign_in(
    client: Client, host: str, port: int, args: argparse.Namespace, creds: Credentials
) -> tuple[Client, LoggedIn | None]:
    """Log in with the seat tokens kept for this name (:func:`login`). A typed name the server
    refuses (taken, or bad) is asked again with the connection closed meanwhile (the handshake
    clock does not wait for a person typing), the server's suggestion filled in; then the
    client connects again. Returns the client now in use and the answer (None: refused, said)."""
    while True:
        kept = SeatTokens(f"{host}:{port}", creds.name, seats_path(args)).all()
        answer = await login(client, creds, list(kept.values()))
        if isinstance(answer, LoggedIn):
            return client, answer
        if not creds.asked or answer.code not in ("NAME_TAKEN", "BAD_NAME"):
            return client, None
        await client.close()
        try:
            creds.name = await ask_name(default=answer.suggestion or "")
        except (EOFError, KeyboardInterrupt):
            return client, None
        again = await _connect(host, port, args)
        if again is None:
            return client, None
        client = again


async def amain(args: argparse.Namespace) -> int:
    try:
        host, port = await choose_server(args)
    except ValueError as exc:
        print(f"shithead: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        return 1
    try:
        creds = await ask_credentials(args)
    except ValueError as exc:
        print(f"shithead: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        return 1
    client = await _connect(host, port, args)
    if client is None:
        return 1
    if client.welcome is not None and client.welcome.password_required and creds.server_password is None:
        # Asked with the connection closed: the handshake clock must not run while someone types.
        await client.close()
        try:
            creds.server_password = await _ask("This server has a password: ", secret=True)
        except (EOFError, KeyboardInterrupt):
            return 1
        client = await _connect(host, port, args)
        if client is None:
            return 1
    try:
        client, logged_in = await sign_in(client, host, port, args, creds)
        if logged_in is None:
            return 1
        model = Model(
            server=f"{host}:{port}",
            connection="connected",
            name=logged_in.name,
            guest=logged_in.guest,
        )
        with contextlib.ExitStack() as stack:
            if not sys.stdin.isatty():
                # stdin gave the password (--password-stdin): the keys come from the terminal.
                try:
                    tty = stack.enter_context(open("/dev/tty", encoding="utf-8"))  # noqa: ASYNC230 (before the application runs: nothing else waits on the loop)
                except OSError:
                    print("shithead: playing needs a terminal (none is attached)", file=sys.stderr)
                    return 1
                stack.enter_context(create_app_session(input=create_input(tty)))
            # Built inside the session: the application takes its input and output from it.
            app = CliApp(
                client,
                model=model,
                theme=Theme.from_env(symbols=not args.ascii),
                tokens=SeatTokens(f"{host}:{port}", model.name or "", seats_path(args)),
            )
            if args.watch is not None:
                app.screen = tv_screen
                app.submit(Command("watch", args={"table": args.watch}))
            else:
                welcome = (
                    f"Welcome, {model.name}. 'create' opens a table (and sits you at it), 'help' lists the commands."
                )
                app.feed(Info(welcome))
            # While the screen is drawn, anything written to stderr (a warning, a thread's
            # traceback) would garble it: it goes to the log file instead.
            err = stack.enter_context(open(args.log_path, "a", encoding="utf-8"))  # noqa: ASYNC230 (before the application runs: nothing else waits on the loop)
            stack.enter_context(contextlib.redirect_stderr(err))
            await app.run()
        return 0
    finally:
        await client.close()


def main(argv: list[str] | None = None) -> int:
    """The console script ``shithead`` (``shithead replay ...`` steps through a game record)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:
        from client.cli.replay import main as replay_main

        return replay_main(argv[1:])
    watch: int | None = None
    if argv[:1] == ["watch"]:
        # The table screen for a TV: a viewer that watches one table, drawn large.
        if len(argv) < 2 or not argv[1].isdigit():
            print("usage: shithead watch TABLE [HOST[:PORT]] [--ascii]", file=sys.stderr)
            return 2
        watch, argv = int(argv[1]), argv[2:]
    args = parse_args(argv)
    args.watch = watch
    path = args.log_path = log_path(args.log_file)
    try:
        setup_logging(path, args.debug)
        logging.captureWarnings(True)
    except OSError as exc:
        print(f"shithead: cannot write the log file {path}: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(amain(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
