"""``shithead replay``: step through a finished game's record, forward and back.

    shithead replay tournament-20261121/records/7.json.gz  # a record file (tournament output)
    shithead replay --server 192.168.1.20:7433 57          # game 57, fetched with get_record

A record (the ``record`` message's map, or its inner ``record``) holds the rules, the deck
order and every action, so the pure engine replays it exactly. The game is over, so the
replay shows everything, every hand and every face-down card: it is the game's story, told
after the fact (the server serves records of finished games only).

Keys: Right / n / Space next action, Left / p / Backspace previous, PageDown / PageUp ten
at a time, Home / End the deal and the end, q quit. :func:`render_step` is pure (tested
directly); :class:`Replay` keeps checkpoints so that going back is quick.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from client.cli.draw import Line, Theme, card_frag, cell, clip, plain_lines, rule, text, to_formatted, wrap
from client.cli.words import describe_events, ordinal
from client.record_files import load_record
from server.engine import Game, Positions, ReplayRecord, event_to_dict, format_action
from server.engine.cards import format_card

if TYPE_CHECKING:
    from protocol.payloads import StoredGame


class Replay:
    """The game of a record at any step (0: dealt, ``len(actions)``: over)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        inner = record.get("record", record)
        self.meta = record if "record" in record else {}
        self.record = ReplayRecord.from_dict(inner)
        self.players: list[str] = list(
            inner.get("players") or self.meta.get("players") or [f"seat {i}" for i in range(self.record.seats)]
        )
        self.steps = len(self.record.actions)
        self.positions = Positions(self.record)

    def game_at(self, step: int) -> tuple[Game, list[dict[str, Any]]]:
        """The game after ``step`` actions, and the events of the last of them."""
        game, events = self.positions.at(step)
        return game, [event_to_dict(e) for e in events]


def _cards(cards: Sequence[int], theme: Theme) -> Line:
    out: Line = []
    for c in cards:
        if out:
            out.append(text(" "))
        out.append(card_frag(format_card(c), theme))
    return out or [text("-")]


def render_step(replay: Replay, step: int, theme: Theme, *, width: int = 80) -> list[Line]:
    """The screen for ``step``: who did what, then every player's cards, the pile and the stock;
    no line wider than ``width`` cells (names are measured in cells: an emoji takes two)."""
    game, events = replay.game_at(step)
    title = replay.meta.get("table_name") or "record"
    head = f" {title} · {replay.record.preset} · action {step}/{replay.steps}"
    lines: list[Line] = [[text(clip(head, width, theme.cut), "bold")], rule(width, theme)]
    if step == 0:
        lines.append([text(f" Dealt. {replay.players[replay.record.dealer]} dealt.")])
    else:
        seat, action = replay.record.actions[step - 1]
        lines.append([text(f" {replay.players[seat]}: "), text(format_action(action), "bold")])
        for _, parts in describe_events(events, lambda s: replay.players[s] if s is not None else "everyone"):
            lines.append(
                [text("   ")]
                + [card_frag(t, theme) if k == "c" else text(t, "bold" if k == "n" else "") for k, t in parts]
            )
    lines.append(rule(width, theme))
    for s in range(game.n):
        mark = (
            "▶ "
            if (game.current == s and not game.is_over()) and theme.symbols
            else ("> " if game.current == s and not game.is_over() else "  ")
        )
        status = ""
        if game.out[s]:
            status = f"  out {ordinal(game.finish.index(s) + 1)}" if s in game.finish else "  out"
        name = cell(replay.players[s], 14, theme.cut)
        lines.append([text(f"{mark}{name}{status}", "bold" if mark.strip() else "")])
        lines.append([text("    hand  "), *_cards(game.hand(s), theme)])
        up = [c for st in game.face_up[s] for c in st]
        down = [c for c in game.face_down[s] if c is not None]
        lines.append([text("    up    "), *_cards(up, theme), text("   down  "), *_cards(down, theme)])
    lines.append(rule(width, theme))
    lines.append([text(f" Pile ({len(game.pile)}): "), *_cards(game.pile[-8:], theme)])
    lines.append([text(f" Stock {len(game.stock)}   Burned {len(game.burned)}")])
    if game.is_over():
        outcome = game.outcome()
        assert outcome is not None
        order = ", ".join(replay.players[s] for s in outcome.places)
        lines.append([text(f" Over: {order}. {replay.players[outcome.loser]} is the shithead.", "bold")])
    return [piece for line in lines for piece in wrap(line, width, indent=3)]


def load(path: Path) -> dict[str, Any]:
    """A record file (:mod:`client.record_files`: compressed or plain JSON): the ``record``
    message's map (or its inner record). Raises ValueError."""
    try:
        data = load_record(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("record", data).get("actions"), list):
        raise ValueError(f"{path} is not a game record")
    return data


async def fetch(address: str, game: int) -> StoredGame:
    """A record from a server (as a viewer: it only reads)."""
    from client.sdk import Client

    host, _, port = address.rpartition(":")
    client = await Client.connect(host or "127.0.0.1", int(port), reconnect=False)
    try:
        await client.login("replay", viewer=True)  # (the server names a viewer: never NAME_TAKEN)
        return await client.get_record(game)
    finally:
        await client.close()


def run_app(replay: Replay, theme: Theme, start: int = 0) -> None:
    """The interactive stepper."""
    from prompt_toolkit import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    pos = {"step": start}
    keys = KeyBindings()

    def move(delta: int | None = None, to: int | None = None) -> None:
        pos["step"] = max(0, min(replay.steps, to if to is not None else pos["step"] + (delta or 0)))

    for key in ("right", "n", " "):
        keys.add(key)(lambda e: move(1))
    for key in ("left", "p", "backspace"):
        keys.add(key)(lambda e: move(-1))
    keys.add("pagedown")(lambda e: move(10))
    keys.add("pageup")(lambda e: move(-10))
    keys.add("home")(lambda e: move(to=0))
    keys.add("end")(lambda e: move(to=replay.steps))
    for key in ("q", "c-c", "c-d"):
        keys.add(key)(lambda e: e.app.exit())

    def screen() -> Any:
        lines = render_step(replay, pos["step"], theme)
        lines.append([text(" ←/→ step  PgUp/PgDn ten  Home/End  q quit", "reverse")])
        return to_formatted(lines)

    Application(layout=Layout(Window(FormattedTextControl(screen))), key_bindings=keys, full_screen=True).run()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="shithead replay", description="Step through a finished game.")
    p.add_argument("source", help="a record file (.json.gz or .json), or a game id with --server")
    p.add_argument("--server", metavar="HOST:PORT", help="fetch game SOURCE from this server")
    p.add_argument("--at", type=int, default=0, help="start at this action")
    p.add_argument("--print", action="store_true", help="print every step as text instead of stepping")
    p.add_argument("--ascii", action="store_true", help="suits as letters")
    args = p.parse_args(argv)
    try:
        data = asyncio.run(fetch(args.server, int(args.source))) if args.server else load(Path(args.source))
        replay = Replay(data)
    except (ValueError, OSError, KeyError) as exc:
        print(f"shithead replay: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a server refusal (no such game) and the like
        print(f"shithead replay: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 1
    theme = Theme.from_env(symbols=not args.ascii)
    if args.print or not sys.stdout.isatty():
        for step in range(args.at, replay.steps + 1):
            print("\n".join(plain_lines(render_step(replay, step, theme))))
            print()
        return 0
    run_app(replay, theme, args.at)
    return 0
