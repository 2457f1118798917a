"""The prompt-toolkit application: the thin, impure shell around model, render and commands.

Three things run on the event loop:

* the **reader**, a plain asyncio task that takes every pushed message and pseudo-event from
  :meth:`client.sdk.Client.messages`, folds it into the :class:`~client.cli.model.Model` with
  :func:`~client.cli.model.reduce` and asks the screen to redraw (``app.invalidate()``);
* the **application**: the table picture on top (:func:`~client.cli.render.render_screen`,
  recomputed at each redraw from the model), a status line, and an input line with completion
  of the legal actions;
* one task per **request** the user starts (join, play, ...), so a slow answer never freezes
  the keyboard. Answers are folded into the model like messages (the SDK returns them to the
  caller instead of pushing them), and a :class:`~client.sdk.ServerError` becomes an error line
  in words, never a traceback.

Keys on an *empty* input line (with text in it they edit the text as usual): Left/Right move
the card cursor, Space marks a card, Enter plays the marked cards (or the one under the
cursor; in setup a marked hand card and face-up slot swap), Ctrl-T picks up, Esc unmarks or
closes help, F1 toggles help, Ctrl-C or Ctrl-D quits.

Error handling: requests fail only into the feed; the reader logs an unexpected exception and
shows that the connection is gone. Resource handling: :meth:`CliApp.run` cancels its tasks on
the way out; the caller closes the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FloatContainer, HSplit, Layout, Window
from prompt_toolkit.layout.containers import Float
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from client.cli import model as M
from client.cli.commands import (
    HELP,
    Command,
    CommandCompleter,
    CommandError,
    action_from_selection,
    parse_command,
    take_action,
)
from client.cli.draw import Line
from client.cli.render import Theme, render_screen, render_status, to_formatted
from client.cli.seats import SeatTokens
from client.sdk import Client, ConnectionLost, ServerError
from client.sdk.events import Closed, Reconnected
from protocol.errors import LocalProtocolError
from protocol.payloads import StoredGame

__all__ = ["CliApp", "Screen"]

log = logging.getLogger(__name__)


class Screen(Protocol):
    """Draws the main area of the screen from the model (see :mod:`client.cli.render`)."""

    def __call__(self, model: M.Model, *, width: int, height: int, now: float, theme: Theme) -> list[Line]: ...


#: Seconds between refreshes of the table list while the lobby is on screen (the server
#: pushes no lobby updates).
LOBBY_REFRESH = 10.0


class CliApp:
    """One terminal session over a connected, logged-in ``client``.

    ``model`` is the starting state (the caller may have filled in the name and server);
    ``theme`` how to draw; ``clock`` the time source for the turn clock (monotonic seconds).
    The prompt-toolkit input and output are those of the current app session, so a test runs
    it inside ``create_app_session(input=pipe, output=DummyOutput())``.
    """

    def __init__(
        self,
        client: Client,
        *,
        model: M.Model | None = None,
        theme: Theme | None = None,
        clock: Callable[[], float] = time.monotonic,
        tokens: SeatTokens | None = None,
        screen: Screen = render_screen,
    ) -> None:
        self.client = client
        self.screen = screen
        """Draws the main area (:func:`~client.cli.render.render_screen`; the TV's for ``shithead watch``)."""
        self.tokens = tokens
        """Where this player's seat tokens are kept between runs (None: nowhere)."""
        self.model = model or M.Model()
        self.theme = theme or Theme.from_env()
        self.clock = clock
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.input = TextArea(
            height=1,
            prompt="> ",
            multiline=False,
            wrap_lines=False,
            completer=CommandCompleter(lambda: self.model),
            complete_while_typing=False,
            history=InMemoryHistory(),
            accept_handler=self._accept,
        )
        body = HSplit(
            [
                Window(FormattedTextControl(self._main_text), wrap_lines=False),
                Window(FormattedTextControl(self._status_text), height=1, wrap_lines=False),
                self.input,
            ]
        )
        root = FloatContainer(
            body, floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8, scroll_offset=1))]
        )
        self.app: Application[None] = Application(
            layout=Layout(root, focused_element=self.input),
            key_bindings=self._key_bindings(),
            style=Style.from_dict({"bottom-toolbar": "noreverse"}),
            full_screen=True,
            mouse_support=False,
            # The turn clock counts down on screen; one redraw a second is enough.
            refresh_interval=1.0,
            color_depth=None if self.theme.color else ColorDepth.DEPTH_1_BIT,
        )

    # ------------------------------------------------------------------ model

    def update(self, change: Callable[[M.Model], M.Model]) -> None:
        """Apply ``change`` to the model, redraw, and wake :meth:`wait_until`."""
        self.model = change(self.model)
        self._changed.set()
        self.app.invalidate()

    def feed(self, message: M.Incoming) -> None:
        """Fold one message (pushed, pseudo-event or local) into the model."""
        now = self.clock()
        self.update(lambda m: M.reduce(m, message, now=now))

    def say(self, text: str, kind: str = "info") -> None:
        """Add a line to the feed (``error`` lines show in the status line too)."""
        self.update(lambda m: M.note(m, text, kind))

    async def wait_until(self, predicate: Callable[[M.Model], bool]) -> M.Model:
        """Wait until ``predicate(model)`` holds (for tests and scripted use); returns the model."""
        while not predicate(self.model):
            self._changed.clear()
            await self._changed.wait()
        return self.model

    # ------------------------------------------------------------------ drawing

    def _size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return max(size.columns, 20), max(size.rows - 2, 3)

    def _main_text(self) -> StyleAndTextTuples:
        width, height = self._size()
        return to_formatted(self.screen(self.model, width=width, height=height, now=self.clock(), theme=self.theme))

    def _status_text(self) -> StyleAndTextTuples:
        width, _ = self._size()
        return to_formatted([render_status(self.model, width=width, theme=self.theme, now=self.clock())])

    # ------------------------------------------------------------------ keys

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        empty = Condition(lambda: not self.input.text)
        picking = empty & Condition(lambda: bool(M.selectables(self.model)))

        @kb.add("left", filter=picking)
        def _left(event: KeyPressEvent) -> None:
            self.update(lambda m: M.move_cursor(m, -1))

        @kb.add("right", filter=picking)
        def _right(event: KeyPressEvent) -> None:
            self.update(lambda m: M.move_cursor(m, 1))

        @kb.add("space", filter=picking)
        def _mark(event: KeyPressEvent) -> None:
            self.update(lambda m: M.toggle_selected(m))

        @kb.add("enter", filter=empty)
        def _play(event: KeyPressEvent) -> None:
            if M.selectables(self.model):
                self._guarded(lambda: Command("act", action=action_from_selection(self.model)))
            elif self.model.table is None and M.waiting_seats(self.model):  # the lobby: take the seat back
                first = (self.resumable() or M.waiting_seats(self.model))[0][0]
                self._guarded(lambda: Command("resume", args={"table": first}))

        @kb.add("c-t")
        def _take(event: KeyPressEvent) -> None:
            self._guarded(lambda: Command("act", action=take_action(self.model)))

        @kb.add("escape", filter=empty)
        def _escape(event: KeyPressEvent) -> None:
            self.update(
                lambda m: M.clear_selection(replace(m, show_help=False, show_history=False, scroll=0, error=None))
            )

        @kb.add("f1")
        def _help(event: KeyPressEvent) -> None:
            self.update(M.toggle_help)

        @kb.add("pageup")
        def _page_up(event: KeyPressEvent) -> None:
            self._scroll(-1)

        @kb.add("pagedown")
        def _page_down(event: KeyPressEvent) -> None:
            self._scroll(1)

        @kb.add("c-c")
        @kb.add("c-d", filter=empty)
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit()

        return kb

    def _scroll(self, pages: int) -> None:
        """PageDown (``pages`` 1) or PageUp (-1): half a screen down the help, or through the
        log (the feed, or the history when shown) towards the newest line."""
        _, height = self._size()
        step = max(1, height // 2) * pages
        m = self.model
        if m.show_help:
            self.update(lambda m: M.scroll_by(m, step, len(HELP.splitlines())))
        else:
            log = m.history if m.show_history else m.feed
            self.update(lambda m: M.scroll_by(m, -step, len(log) - 1))

    # ------------------------------------------------------------------ commands

    def _accept(self, buffer: Any) -> bool:
        """Enter on a non-empty input line: run the command; the line is cleared (False)."""
        text = buffer.text
        self._guarded(lambda: parse_command(text, self.model))
        return False

    def _guarded(self, make: Callable[[], Command]) -> None:
        """Build a command (errors in words to the feed) and start it."""
        self.update(lambda m: replace(m, error=None))
        try:
            cmd = make()
        except CommandError as exc:
            self.say(str(exc), "error")
            return
        self.submit(cmd)

    def submit(self, cmd: Command) -> None:
        """Carry out ``cmd``: local ones at once, requests in a task of their own."""
        if cmd.kind == "quit":
            self.app.exit()
            return
        if cmd.kind == "help":
            self.update(M.toggle_help)
            return
        if cmd.kind == "history":
            self.update(M.toggle_history)
            return
        if self.model.show_help:
            self.update(lambda m: replace(m, show_help=False))
        if cmd.kind == "act":
            if self.model.pending:
                self.say(f"Still waiting for the answer to '{self.model.pending}'.", "error")
                return
            action = cmd.action
            # The decision was made on the state on screen now: its seq goes with the act, so a
            # state that arrives meanwhile makes the server refuse it (STALE_SEQ) rather than
            # apply it to a position the player has not seen.
            cmd = replace(cmd, args={**cmd.args, "seq": self.model.seq})
            self.update(lambda m: M.clear_selection(replace(m, pending=action)))
        self._spawn(self._execute(cmd))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _execute(self, cmd: Command) -> None:
        """Run one request; every failure ends up in the feed, in words."""
        try:
            await self._run(cmd)
        except Exception as exc:
            self._tell_failure(exc, cmd)
        finally:
            if cmd.kind == "act" and self.model.pending == cmd.action:
                self.update(lambda m: replace(m, pending=None))

    def _tell_failure(self, exc: Exception, cmd: Command) -> None:
        """A failed request in words in the feed (never a traceback on screen)."""
        if isinstance(exc, ServerError):
            self.feed(M.Failed(str(exc.code), exc.message, exc.reason, exc.retry_after))
        elif isinstance(exc, ConnectionLost):
            self.say("Not connected right now: try again once the connection is back.", "error")
        elif isinstance(exc, CommandError):
            self.say(str(exc), "error")
        elif isinstance(exc, LocalProtocolError):
            self.say(f"That cannot be sent: {exc}", "error")
        else:
            log.error("command %r failed", cmd, exc_info=exc)
            self.say("Something went wrong; the details are in the log file.", "error")

    def _table(self, what: str) -> int:
        if self.model.table is None:
            raise CommandError(f"{what} works at a table: join or watch one first.")
        return self.model.table

    async def _run(self, cmd: Command) -> None:
        c, args = self.client, cmd.args
        if cmd.kind == "act":
            seq = args.get("seq", self.model.seq)
            if cmd.action is None or seq is None:
                raise CommandError("No game is running here.")
            await c.act(self._table("Playing"), seq, cmd.action)
        elif cmd.kind == "list":
            self.feed(M.Listed(await c.list_tables()))
        elif cmd.kind == "create":
            preset = args.get("preset", "classic")
            name = args.get("name") or f"{self.model.name or 'my'} {preset}"[:40]
            table = await c.create_table(
                name,
                preset,
                int(args.get("seats", 4)),
                options=args.get("options"),
                password=args.get("password"),
                action_seconds=args.get("action_seconds"),
                bank_seconds=args.get("bank_seconds"),
                seed=args.get("seed"),
            )
            self.feed(M.Created(table))
            # The creator owns the table but is not seated: sit down at once, as one nearly always does.
            await self._run(Command("join", args={"table": table, "password": args.get("password")}))
        elif cmd.kind == "join" and any(t == args["table"] for t, _ in M.waiting_seats(self.model)):
            await self._run(Command("resume", args={"table": args["table"]}))  # our own seat: take it back
        elif cmd.kind == "join":
            await self._leave_other(args["table"])
            seat = await c.join(args["table"], args.get("seat"), args.get("password"))
            self._keep_token(args["table"], seat.token)
            self.feed(M.Entered(args["table"], seat.seat))
        elif cmd.kind == "resume":
            table = args["table"]
            await self._leave_other(table)
            token = self.tokens.get(table) if self.tokens is not None else None
            if token is None and self.model.guest:
                raise CommandError(_no_token_words(table))
            try:
                held = await c.resume(table, token)
            except ServerError as exc:
                if exc.code not in ("BAD_TOKEN", "UNKNOWN_TABLE"):
                    raise
                if self.tokens is not None:
                    self.tokens.drop(table)
                if exc.code != "BAD_TOKEN" or token is None or self.model.guest:
                    raise
                # A registered account's kept token is out of date (the seat was taken back
                # elsewhere, which gives a new token): the name proves the seat.
                held = await c.resume(table, None)
            self._keep_token(table, held.token)
            self.feed(M.Entered(table, held.seat))
        elif cmd.kind == "watch":
            await self._leave_other(args["table"])
            await c.watch(args["table"], args.get("password"))
            self.feed(M.Watched(args["table"]))
        elif cmd.kind == "leave":
            table = self._table("leave")
            await c.leave(table)
            if self.tokens is not None:
                self.tokens.drop(table)
            self.feed(M.Left(table))
            self.feed(M.Listed(await c.list_tables()))
        elif cmd.kind == "start":
            await c.start(self._table("start"))
        elif cmd.kind == "bot":
            await c.add_bot(self._table("Adding a bot"), args["bot"], args.get("seat"))
            self.say(f"A {args['bot']} bot sits down.")
        elif cmd.kind == "chat":
            await c.chat(self._table("Chat"), args["text"])
        elif cmd.kind == "record":
            self.say(_record_words(await c.get_record(args["game"])))
        else:  # pragma: no cover - parse_command makes no other kinds
            raise CommandError(f"Unknown command {cmd.kind}")

    def _keep_token(self, table: int, token: str) -> None:
        if self.tokens is not None:
            self.tokens.put(table, token)

    async def take_back_seats(self) -> None:
        """At start: find the seats that wait for this player; take the only one back at once
        (a registered account always can, a guest with the token kept on this machine), or list
        them in the lobby (Enter takes the first). Kept tokens of tables where this name holds no
        seat any more (the table is gone, the seat was given up) are forgotten."""
        try:
            self.feed(M.Listed(await self.client.list_tables()))
        except (ServerError, ConnectionLost) as exc:
            log.debug("cannot list the tables: %s", exc)
            return
        if self.tokens is not None:
            for table in set(self.tokens.all()) - M.held_tables(self.model) - set(self.client.seats):
                self.tokens.drop(table)
        waiting = M.waiting_seats(self.model)
        can = self.resumable()
        for t, s in waiting:
            if (t, s) not in can:
                self.say(_no_token_words(t), "error")
        if len(waiting) == 1 and can:
            table, seat = can[0]
            self.say(f"Your seat {seat} at table {table} was waiting for you: taking it back.")
            await self._take_back(table)
        elif can:
            self.say(
                f"{len(waiting)} seats are waiting for you: Enter takes back the one at table {can[0][0]}, "
                "'resume T' any."
            )

    def resumable(self) -> list[tuple[int, int]]:
        """The waiting seats this client can take back: all for a registered account, those
        whose token this machine keeps for a guest."""
        known = self.tokens.all() if self.tokens is not None and self.model.guest else {}
        return [(t, s) for t, s in M.waiting_seats(self.model) if not self.model.guest or t in known]

    async def _take_back(self, table: int) -> None:
        """Resume ``table`` by ourselves; a server that cannot write its database for now
        (STORAGE_FAILED) is asked again after its retry_after, while we are not at a table."""
        cmd = Command("resume", args={"table": table})
        for _ in range(60):
            try:
                await self._run(cmd)
                return
            except ServerError as exc:
                if exc.code != "STORAGE_FAILED" or self.model.table is not None:
                    self._tell_failure(exc, cmd)
                    return
                wait = exc.retry_after or 1.0
                self.say(f"The server cannot save right now; asking for the seat again in {wait:g} s.")
                await asyncio.sleep(wait)
            except Exception as exc:
                self._tell_failure(exc, cmd)
                return

    async def _leave_other(self, table: int) -> None:
        """Leave the table on screen before going to another one (the screen shows one table)."""
        old = self.model.table
        if old is not None and old != table:
            await self.client.leave(old)
            self.feed(M.Left(old))

    # ------------------------------------------------------------------ running

    async def _read(self) -> None:
        """The reader: every pushed message into the model, until the client closes."""
        try:
            async for msg in self.client.messages():
                log.debug("received %s", msg.TYPE)
                self.feed(msg)
                if isinstance(msg, Reconnected) and self.tokens is not None:
                    for lost in msg.lost:
                        self.tokens.drop(lost["table"])
                    for table, held in self.client.seats.items():
                        self.tokens.put(table, held.token)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the message reader failed")
            self.feed(Closed("the client stopped reading (see the log file)"))

    async def _lobby_refresh(self) -> None:
        """Refresh the table list now and then while the lobby is on screen."""
        while True:
            if self.model.table is None and self.model.connection == "connected":
                try:
                    self.feed(M.Listed(await self.client.list_tables()))
                except (ServerError, ConnectionLost) as exc:
                    log.debug("lobby refresh failed: %s", exc)
            await asyncio.sleep(LOBBY_REFRESH)

    async def run(self) -> None:
        """Run the session until the user quits. Cancels the reader and pending requests on
        the way out (the caller closes the client)."""
        if self.client.connected and self.model.connection == "connecting":
            self.update(lambda m: replace(m, connection="connected"))
        self._spawn(self._read())
        self._spawn(self.take_back_seats())
        self._spawn(self._lobby_refresh())
        try:
            await self.app.run_async()
        finally:
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


def _no_token_words(table: int) -> str:
    return (
        f"Your seat at table {table} can only come back with its token, and this machine has none "
        "for it (a guest's seat belongs to the client that took it)."
    )


def _record_words(record: StoredGame) -> str:
    """A stored game record in one line: who played, who lost, how many actions."""
    players = list(record.get("players") or ())
    result = record.get("result") or {}
    places = [players[s] if isinstance(s, int) and s < len(players) else str(s) for s in result.get("places") or ()]
    actions = len((record.get("record") or {}).get("actions") or ())
    return (
        f"Game {record.get('id')} at '{record.get('table_name', '?')}' ({record.get('preset', '?')}): "
        f"places {', '.join(places) or '?'}; {actions} actions."
    )
