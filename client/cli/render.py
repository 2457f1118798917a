"""Pure drawing: a :class:`~client.cli.model.Model` in, prompt-toolkit formatted text out.

Every function here returns *lines*, each a list of ``(style, text)`` fragments, no longer
than the width it is given (counted in terminal cells). The app joins them with
:func:`to_formatted`; tests read them with :func:`plain_lines`. Nothing here reads a clock,
and only :meth:`Theme.from_env` the environment: colour and symbols come in a :class:`Theme`,
the time as ``now``.

Cards are drawn as rank + suit symbol (``7♥``; ``7h`` with ``Theme(symbols=False)``), red suits
in red. The suit is always printed, so with ``NO_COLOR`` (:meth:`Theme.from_env`) nothing is
lost: then no fragment carries a colour, only ``bold``, ``underline`` and ``reverse``.

The screens: the lobby (table list), a table waiting for its game (seats), the game (players,
pile, our cards, clock, legal actions), the result of a game with the series tally, and help.
Below each the feed (events in words, chat, errors) fills the rest of the height.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from prompt_toolkit.utils import get_cwidth

from client.cli.commands import HELP
from client.cli.draw import (
    Line,
    Theme,
    card_frag,
    card_text,
    cell,
    clip,
    fit,
    header,
    line_width,
    plain_lines,
    rule,
    to_formatted,
    wrap,
)
from client.cli.history import feed_line, history_screen, log_window
from client.cli.model import Model, is_me, selectables, waiting_seats
from client.cli.words import ordinal, to_beat_words

__all__ = [
    "Line",
    "Theme",
    "card_text",
    "fit",
    "line_width",
    "plain_lines",
    "render_screen",
    "render_status",
    "to_formatted",
]


# --------------------------------------------------------------------------- pieces of the table


def _playable(view: Mapping[str, Any]) -> tuple[set[str], set[int]]:
    """Cards that occur in a legal play (or announce), and face-down positions one may flip."""
    cards: set[str] = set()
    flips: set[int] = set()
    for action in view.get("legal") or ():
        verb, *args = action.split()
        if verb in ("play", "run", "announce"):
            cards.update(args)
        elif verb == "flip" and args and args[0].isdigit():
            flips.add(int(args[0]))
    return cards, flips


def _ups(stacks: Sequence[Sequence[str]], theme: Theme) -> Line:
    out: Line = []
    for i, stack in enumerate(stacks):
        if i:
            out.append(("", " "))
        if stack:
            out.append(card_frag(stack[-1], theme))
            if len(stack) > 1:
                out.append(("", f"x{len(stack)}"))
        else:
            out.append(("", "--"))
    return out


def _downs(flags: Sequence[bool], theme: Theme) -> str:
    return "".join(theme.down_mark if f else theme.gone_mark for f in flags)


def _player_row(
    p: Mapping[str, Any], view: Mapping[str, Any], me: int | None, theme: Theme, stand_in: str | None = None
) -> Line:
    seat = int(p.get("seat", 0))
    turn = view.get("turn")
    phase = view.get("phase")
    mark = theme.turn_mark if turn == seat and phase in ("play", "announce") else " "
    tag = "you" if seat == me else "bot" if p.get("bot") else ""
    line: Line = [
        (theme.style("bold", "fg:ansiyellow") if mark != " " else "", f"{mark} "),
        ("", f"{seat:>2} "),
        ("bold" if seat == me else "", cell(str(p.get("name", "")), 14, theme.cut)),
        ("", f" {tag:<3}"),
        ("", f" hand {p.get('hand_count', 0):>2}  up "),
        *_ups(p.get("face_up") or (), theme),
        ("", f"  down {_downs(p.get('face_down') or (), theme)}"),
    ]
    status = []
    if p.get("out") or p.get("place"):
        status.append(f"out {ordinal(int(p['place']))}" if p.get("place") else "out")
    elif phase == "setup":
        status.append("ready" if p.get("ready") else "setting up")
    if view.get("dealer") == seat:
        status.append("dealer")
    if p.get("away"):
        status.append("AWAY")
    if stand_in:
        status.append(f"{stand_in} plays")
    if p.get("timeouts"):
        n = int(p["timeouts"])
        status.append(f"{n} timeout{'s' if n != 1 else ''}")
    if status:
        line.append((theme.style("", "fg:ansired") if p.get("away") or stand_in else "", "  " + ", ".join(status)))
    return line


def _pile_lines(view: Mapping[str, Any], names: Any, theme: Theme) -> list[Line]:
    pile = list(view.get("pile") or ())
    shown = pile[-6:]
    line: Line = [("bold", f" Pile ({len(pile)}): ")]
    if not pile:
        line.append(("", "empty"))
    if len(pile) > len(shown):
        line.append(("", "… " if theme.symbols else "... "))
    for i, card in enumerate(shown):
        top = i == len(shown) - 1
        line.append(card_frag(card, theme, "bold reverse" if top else ""))
        line.append(("", " "))
    line += [("", "  to beat: "), ("bold", to_beat_words(view.get("to_beat")))]
    direction = "up the seats" if view.get("direction", 1) == 1 else "down the seats"
    info = f" Stock {view.get('stock_count', 0)}   Burned {view.get('burned_count', 0)}   Play goes {direction}"
    second: Line = [("", info)]
    if view.get("must_play"):
        second += [("", "   must play "), card_frag(str(view["must_play"]), theme, "bold")]
    for a in view.get("announcements") or ():
        second += [("", f"   {names(a.get('seat'))}: "), card_frag(str(a.get("card")), theme)]
    return [line, second]


def _pick_frags(
    model: Model,
    zone: str,
    cards: Sequence[tuple[int, tuple[str, ...]]],
    theme: Theme,
    playable: set[str],
    flips: set[int],
) -> Line:
    """Hand cards / face-up stacks / face-down positions of ours, with cursor and marks."""
    picks = selectables(model)
    index = {(p.zone, p.index): i for i, p in enumerate(picks)}
    out: Line = []
    for n, (idx, stack) in enumerate(cards):
        if n:
            out.append(("", " "))
        pick = index.get((zone, idx))
        marked = pick is not None and pick in model.selected
        under_cursor = pick is not None and pick == model.cursor
        style = " ".join(
            s
            for s, on in (
                ("reverse", under_cursor),
                ("bold underline", bool(set(stack) & playable) or (idx in flips and zone == "down")),
            )
            if on
        )
        out.append(("bold" if marked else "", "*" if marked else " "))
        if zone == "down":
            out.append((style, theme.down_mark if stack else theme.gone_mark))
        elif stack:
            out.append(card_frag(stack[-1], theme, style))
            if len(stack) > 1:
                out.append((style, f"x{len(stack)}"))
        else:
            out.append((style, "--"))
    return out


def seconds_left(model: Model, seat: int, now: float) -> tuple[int, float] | None:
    """Whole seconds ``seat`` has left and its bank, as the view's ``clocks`` gave them, counted
    down since the view arrived; None when its clock is not running or we are disconnected
    (nothing is counted down that we cannot hear the end of)."""
    view, at = model.view, model.view_at
    if view is None or at is None or model.connection != "connected":
        return None
    for clock in view.get("clocks") or ():
        if clock["seat"] == seat:
            return max(0, math.ceil(clock["left"] - (now - at))), clock["bank"]
    return None


def seat_clock(model: Model, seat: int, now: float) -> str:
    """The clock of ``seat`` in words: "23s left", "23s left, bank 10s"; "clock paused" while
    disconnected; "" when the seat has no clock running."""
    running = seconds_left(model, seat, now)
    if running is None:
        has_clock = model.view is not None and any(c["seat"] == seat for c in model.view.get("clocks") or ())
        return "clock paused" if has_clock and model.connection != "connected" else ""
    left, bank = running
    return f"{left}s left" + (f", bank {math.ceil(bank)}s" if bank > 0 else "")


def _my_lines(model: Model, view: Mapping[str, Any], width: int, now: float, theme: Theme) -> list[Line]:
    seat = model.seat
    if seat is None:
        lines: list[Line] = [[("", " You are watching (no hand to show). Type 'leave' to go back to the lobby.")]]
        acting = [c["seat"] for c in view.get("clocks") or ()]
        if len(acting) == 1:
            clock = seat_clock(model, acting[0], now)
            lines.append([("", f" {model.names()(acting[0])} to act{f' ({clock})' if clock else ''}.")])
        return lines
    me = (view.get("players") or [])[seat]
    hand = list(view.get("hand") or ())
    playable, flips = _playable(view)
    lines = wrap(
        [
            ("bold", f" Your hand ({len(hand)}):"),
            *_pick_frags(model, "hand", [(i, (c,)) for i, c in enumerate(hand)], theme, playable, flips),
        ],
        width,
        indent=4,
    )
    ups = [(i, tuple(s)) for i, s in enumerate(me.get("face_up") or ())]
    downs = [(i, ("?",) if f else ()) for i, f in enumerate(me.get("face_down") or ())]
    lines.append(
        [
            ("bold", " Your table:"),
            ("", " up"),
            *_pick_frags(model, "up", ups, theme, playable, flips),
            ("", "   down"),
            *_pick_frags(model, "down", downs, theme, playable, flips),
        ]
    )
    legal = list(view.get("legal") or ())
    turn_line: Line
    if view.get("phase") == "over":
        turn_line = [("bold", " The game is over.")]
    elif legal:
        clock = ""
        if model.connection != "connected" and model.clock_paused:
            clock = " (clock paused: disconnected)"  # no countdown we cannot hear the end of
        elif model.deadline_at is not None:
            clock = f" {max(0, math.ceil(model.deadline_at - now))}s left"
        what = "Setup: swap cards, then 'ready'." if view.get("phase") == "setup" else "Your turn."
        turn_line = [(theme.style("bold reverse", "fg:ansigreen"), f" {what}{clock} "), ("", " ")]
        rest: Line = [("", "Legal: ")]
        for i, action in enumerate(legal):
            piece = ("" if i == 0 else theme.sep) + action
            if line_width(turn_line + rest) + get_cwidth(piece) > width - 12:
                rest.append(("", f"  (+{len(legal) - i}, Tab)"))
                break
            rest.append(("", piece))
        turn_line += rest
    else:
        turn = view.get("turn")
        if view.get("phase") == "setup":
            turn_line = [("", " Setup done: waiting for the others to be ready.")]
        elif isinstance(turn, int):
            clock = seat_clock(model, turn, now)
            turn_line = [("", f" Waiting for {model.names()(turn)}...{f' ({clock})' if clock else ''}")]
        else:
            turn_line = [("", " Waiting...")]
    lines.append(turn_line)
    return lines


# --------------------------------------------------------------------------- screens


def _table_title(model: Model, theme: Theme) -> str:
    s: Mapping[str, Any] = model.summary or {}
    bits = [f" {s.get('name', 'table')} (table {model.table})", str(s.get("preset", ""))]
    if model.number is not None:
        bits.append(f"game {model.number}")
    if model.view is not None:
        bits.append(str(model.view.get("phase", "")))
    return theme.sep.join(b for b in bits if b)


def _game_screen(model: Model, width: int, now: float, theme: Theme) -> list[Line]:
    view: Mapping[str, Any] = model.view or {}
    lines = [header(_table_title(model, theme), f"{model.name or ''} ", width, theme), rule(width, theme)]
    summary_seats = list(model.summary["seats"]) if model.summary is not None else []
    stand_ins = {i: str(st["stand_in"]) for i, st in enumerate(summary_seats) if st and st.get("stand_in")}
    lines += [
        _player_row(p, view, model.seat, theme, stand_ins.get(int(p.get("seat", 0)))) for p in view.get("players") or ()
    ]
    lines += _pile_lines(view, model.names(), theme)
    if model.last_play is not None:
        last = feed_line(model.last_play, theme, width - 6, highlight=True)[0]
        lines.append([("bold", " Last:"), *last])
    lines.append(rule(width, theme))
    lines += _my_lines(model, view, width, now, theme)
    return lines


def _result_screen(model: Model, width: int, theme: Theme) -> list[Line]:
    over = model.game_over
    assert over is not None
    result, tally = over.result, over.tally
    players = list(result.get("players") or tally.get("players") or [])

    def name(seat: Any) -> str:
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else model.names()(seat)

    lines = [header(_table_title(model, theme), f"{model.name or ''} ", width, theme), rule(width, theme)]
    loser = result.get("loser")
    head = f" Game {over.number or over.game} is over"
    head += f": {name(loser)} is the shithead." if loser is not None else "."
    lines.append([("bold", head)])
    if result.get("capped"):
        lines.append([("", " The move limit ended it: whoever held most cards lost.")])
    places: Line = [("", "  ")]
    for i, seat in enumerate(result.get("places") or ()):
        places += [("", f"{ordinal(i + 1)} "), ("bold" if seat == model.seat else "", name(seat)), ("", "   ")]
    lines.append(places)
    counts = list(tally.get("places") or ())
    games = sum(row[0] for row in counts if row) if counts else 0
    nplaces = max((len(r) for r in counts), default=0)
    lines.append(
        [
            (
                "bold",
                f" Series: {games} game{'s' if games != 1 else ''}".ljust(24)
                + "".join(f"{ordinal(i + 1):>5}" for i in range(nplaces))
                + "  lost  timeouts",
            )
        ]
    )
    losses, timeouts = list(tally.get("losses") or ()), list(tally.get("timeouts") or ())
    for seat, row in enumerate(counts):
        label = cell(f"   {name(seat)}{' (you)' if seat == model.seat else ''}", 24, theme.cut)
        cells = "".join(f"{n:>5}" for n in row)
        lost = losses[seat] if seat < len(losses) else 0
        outs = timeouts[seat] if seat < len(timeouts) else 0
        lines.append([("bold" if seat == model.seat else "", f"{label}{cells}{lost:>6}{outs:>10}")])
    owner = model.summary["owner"] if model.summary is not None else None
    if is_me(model, owner):
        lines.append([("bold", " You own this table: type 'start' (or 'next') to deal the next game.")])
    else:
        lines.append([("", f" Waiting for the owner{f' ({owner})' if owner else ''} to deal the next game.")])
    return lines


def _waiting_screen(model: Model, width: int, theme: Theme) -> list[Line]:
    s: Mapping[str, Any] = model.summary or {}
    lines = [
        header(
            f" {s.get('name', 'table')} (table {model.table}){theme.sep}{s.get('preset', '?')}{theme.sep}waiting",
            f"{model.name or ''} ",
            width,
            theme,
        ),
        rule(width, theme),
    ]
    for i, seat in enumerate(s.get("seats") or ()):
        if seat is None:
            lines.append([("", f"  seat {i:>2}  "), ("", "(free)")])
            continue
        marks = [
            m
            for m, on in (
                ("you", i == model.seat),
                ("bot", seat.get("bot")),
                ("guest", seat.get("guest")),
                ("AWAY", seat.get("away")),
                (f"{seat.get('stand_in')} plays for them", seat.get("stand_in")),
            )
            if on
        ]
        lines.append(
            [
                ("", f"  seat {i:>2}  "),
                ("bold", str(seat.get("name", ""))),
                ("", f"  {', '.join(marks)}" if marks else ""),
            ]
        )
    clock = f"{s.get('action_seconds', '?')} s per action" + (
        f", {s['bank_seconds']} s bank" if s.get("bank_seconds") else ""
    )
    lines.append(
        [
            (
                "",
                f"  owner {s.get('owner', '?')}{theme.sep}{clock}{theme.sep}{s.get('spectators', 0)} watching"
                + (f"{theme.sep}options {s['options']}" if s.get("options") else ""),
            )
        ]
    )
    lines.append(rule(width, theme))
    if is_me(model, s.get("owner")):
        lines.append([("bold", " You own this table: 'bot greedy' adds a bot; 'start' deals when it is full.")])
    else:
        lines.append([("", " Waiting for the owner to start the game.")])
    return lines


def _lobby_screen(model: Model, width: int, theme: Theme) -> list[Line]:
    where = f"{model.name or '?'} @ {model.server} " if model.server else f"{model.name or '?'} "
    lines = [
        header(
            f" Lobby{theme.sep}{len(model.tables)} table{'s' if len(model.tables) != 1 else ''}", where, width, theme
        ),
    ]
    # Below 76 columns the names and presets are narrower and the bot count goes: the owner and
    # the notes (a password!) must stay on screen.
    narrow = width < 76
    name_w, preset_w, owner_w = (10, 9, 8) if narrow else (16, 13, 10)
    bots_head = "" if narrow else "  bots"
    lines.append(
        [
            (
                "bold",
                f"   #  {'name':<{name_w}} {'preset':<{preset_w}} seats{bots_head}  status   "
                f"{'owner':<{owner_w}} notes",
            )
        ]
    )
    for tid, s in sorted(model.tables.items()):
        seats = s.get("seats") or ()
        taken = len(seats) - int(s.get("free", 0))
        notes = " ".join(
            f
            for f, on in (
                ("password", s.get("password")),
                ("seeded", s.get("fixed_seed") is not None),
                ("fixed-deck", s.get("fixed_deck")),
            )
            if on
        )
        lines.append(
            [
                (
                    "",
                    f" {tid:>3}  {cell(str(s.get('name', '')), name_w, theme.cut)} "
                    f"{cell(str(s.get('preset', '')), preset_w, theme.cut)} {taken:>2}/{len(seats):<2}"
                    + ("" if narrow else f"  {s.get('bots', 0):>4}")
                    + f"  {s.get('status', '')!s:<8} {cell(str(s.get('owner', '')), owner_w, theme.cut)} {notes}",
                )
            ]
        )
    if not model.tables:
        lines.append([("", "   (no tables yet: 'create' opens one, 'list' refreshes)")])
    for n, (tid, seat) in enumerate(waiting_seats(model)):
        hint = "Enter or " if n == 0 else ""
        found = model.tables.get(tid)
        held = found["seats"][seat] if found is not None and seat < len(found["seats"]) else None
        stand_in = held.get("stand_in") if held is not None else None  # older servers had none
        name = found["name"] if found is not None else ""
        meanwhile = f" ({stand_in} plays it meanwhile)" if stand_in else ""
        lines.append(
            [
                (
                    theme.style("bold", "fg:ansiyellow"),
                    f" Table {tid} ({clip(name, 16, theme.cut)}) seat {seat} is waiting for you{meanwhile}: "
                    f"{hint}'resume {tid}' takes it back.",
                )
            ]
        )
    lines.append(rule(width, theme))
    words = ["create [preset] [seats]", "join T", "watch T", "list", "help", "quit"]
    lines += wrap([("", " " + theme.sep.join(words))], width, indent=1)
    return lines


def _help_screen(model: Model, width: int, height: int, theme: Theme) -> list[Line]:
    """The help, wrapped to ``width``, a screen at a time from line ``model.scroll``."""
    body = [piece for line in HELP.splitlines() for piece in wrap([("", line)], width, indent=6)]
    start = min(model.scroll, max(len(body) - (height - 1), 0))
    shown = body[start : start + height - 1]
    more = start + len(shown) < len(body)
    right = ("PgDn more, " if more else "PgUp back, " if start else "") + "Esc closes "
    return [header(" Help", right, width, theme), *shown]


def render_screen(
    model: Model, *, width: int = 80, height: int = 22, now: float = 0.0, theme: Theme | None = None
) -> list[Line]:
    """The main area: at most ``height`` lines of at most ``width`` cells. The screen fitting the
    model (help, lobby, waiting table, game, result) on top; the newest feed lines below, as
    many as fit."""
    theme = theme or Theme()
    if model.show_history:
        return [fit(line, width, theme.cut) for line in history_screen(model, width, height, theme)][:height]
    if model.show_help:
        return [fit(line, width, theme.cut) for line in _help_screen(model, width, height, theme)]
    if model.table is None:
        top = _lobby_screen(model, width, theme)
    elif model.game_over is not None and (model.view is None or model.view.get("phase") == "over"):
        top = _result_screen(model, width, theme)
    elif model.view is not None:
        top = _game_screen(model, width, now, theme)
    else:
        top = _waiting_screen(model, width, theme)
    top = [fit(line, width, theme.cut) for line in top][:height]
    return top + log_window(model.feed, model.scroll, height - len(top), width, theme)


def render_status(model: Model, *, width: int = 80, theme: Theme | None = None, now: float = 0.0) -> Line:
    """The status line: connection (with the reconnect countdown), the last error in words, key
    hints when there is room."""
    theme = theme or Theme()
    dot = "●" if theme.symbols else "*"
    again = f"{dot} connection lost: reconnecting..."
    if model.retry_at is not None and model.gives_up_at is not None:
        left = max(0, math.ceil(model.gives_up_at - now))
        # A spectator (the TV) holds no seat: it only stops trying.
        until = f"seat kept {left} s more" if model.seat is not None else f"giving up in {left} s"
        again = (
            f"{dot} connection lost: reconnecting in {max(0, math.ceil(model.retry_at - now))} s "
            f"(attempt {model.attempt}; {until})"
        )
    conn = {
        "connected": ("", f"{dot} connected"),
        "connecting": ("bold", f"{dot} connecting..."),
        "reconnecting": (theme.style("bold", "fg:ansired"), again),
        "closed": (theme.style("bold", "fg:ansired"), f"{dot} disconnected"),
    }
    style, label = conn.get(model.connection, ("", model.connection))
    line: Line = [(style, " " + label)]
    if model.pending:
        line.append(("", f"{theme.sep}sending '{model.pending}'"))
    if model.scroll and not model.show_help and not model.show_history:
        line.append(("bold", f"{theme.sep}log: {model.scroll} lines back, PgDn returns"))
    if model.error:
        line += [("", theme.sep), (theme.style("bold", "fg:ansired"), model.error)]
    elif model.view is not None and model.seat is not None and model.view.get("phase") != "over":
        line.append(
            (
                "",
                theme.sep
                + ("←→" if theme.symbols else "Left/Right")
                + " card  Space mark  Enter play  ^T take  Tab complete",
            )
        )
    else:
        line.append(("", f"{theme.sep}Tab completes{theme.sep}'help' lists the commands"))
    return fit(line, width, theme.cut)
