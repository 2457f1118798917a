"""The table screen for a shared TV (``shithead watch T``): one table as a spectator sees it,
in large type where it matters: the top of the pile and the clock of the seat to act, then
every seat's public cards, the last plays and the series tally.

Pure, like :mod:`client.cli.render`: a :class:`~client.cli.model.Model` of a watcher in, lines
out. A watcher's view holds no hidden card (the server sends spectators the spectator view),
and this screen draws nothing else. Until the table has a game it falls back to the ordinary
screens (:func:`client.cli.render.render_screen`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from client.cli.draw import Line, Theme, card_frag, cell, fit, header, rule, wrap
from client.cli.history import feed_line
from client.cli.model import Model
from client.cli.render import render_screen, seat_clock, seconds_left
from client.cli.words import ordinal, to_beat_words

__all__ = ["big", "tv_screen"]

# A 5-row font for ranks, digits and suits ("#" marks a lit cell).
_FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "# #", "# #", "# #", "###"),
    "1": (" # ", "## ", " # ", " # ", "###"),
    "2": ("###", "  #", "###", "#  ", "###"),
    "3": ("###", "  #", " ##", "  #", "###"),
    "4": ("# #", "# #", "###", "  #", "  #"),
    "5": ("###", "#  ", "###", "  #", "###"),
    "6": ("###", "#  ", "###", "# #", "###"),
    "7": ("###", "  #", "  #", " # ", " # "),
    "8": ("###", "# #", "###", "# #", "###"),
    "9": ("###", "# #", "###", "  #", "###"),
    "A": (" # ", "# #", "###", "# #", "# #"),
    "J": ("  #", "  #", "  #", "# #", " # "),
    "Q": (" # ", "# #", "# #", "## ", " ##"),
    "K": ("# #", "## ", "#  ", "## ", "# #"),
    "X": ("# #", "# #", " # ", "# #", "# #"),
    "s": ("  #  ", " ### ", "#####", "  #  ", " ### "),
    "h": (" # # ", "#####", "#####", " ### ", "  #  "),
    "d": ("  #  ", " ### ", "#####", " ### ", "  #  "),
    "c": (" ### ", " ### ", "#####", "  #  ", " ### "),
    "r": ("     ", "     ", "     ", "     ", "     "),
    "b": ("     ", "     ", "     ", "     ", "     "),
    "-": ("   ", "   ", "###", "   ", "   "),
    " ": ("  ", "  ", "  ", "  ", "  "),
}
_SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades", "r": "red joker", "b": "black joker"}


def big(text: str, theme: Theme) -> list[str]:
    """``text`` (ranks, digits, suit letters ``cdhs``) in the 5-row font, drawn with full
    blocks (``#`` in ASCII). A ``T`` (ten) is drawn ``10``; unknown characters as blanks."""
    text = text.replace("T", "10")
    mark = "█" if theme.symbols else "#"
    rows = ["", "", "", "", ""]
    for ch in text:
        glyph = _FONT.get(ch, _FONT[" "])
        for i in range(5):
            rows[i] += glyph[i].replace("#", mark) + " "
    return rows


def _player_line(p: Mapping[str, Any], view: Mapping[str, Any], theme: Theme) -> Line:
    seat = int(p.get("seat", 0))
    acting = seat in [c["seat"] for c in view.get("clocks") or ()] or view.get("turn") == seat
    name = cell(str(p.get("name") or "-"), 14, theme.cut)
    line: Line = [("bold" if acting else "", f" {theme.turn_mark if acting else ' '} {name}")]
    if p.get("out"):
        place = p.get("place")
        return [*line, ("", f" out ({ordinal(int(place))})" if isinstance(place, int) else " out")]
    line.append(("", f" hand {int(p.get('hand_count', 0)):>2}   up "))
    for stack in p.get("face_up") or ():
        if stack:
            line.append(card_frag(stack[-1], theme, "bold"))
            line.append(("", f"x{len(stack)} " if len(stack) > 1 else " "))
        else:
            line.append(("", "-- "))
    downs = sum(1 for d in p.get("face_down") or () if d)
    line.append(("", f"  down {downs}"))
    if p.get("away"):
        line.append(("bold", "  (away)"))
    return line


def _tally_lines(model: Model, width: int) -> list[Line]:
    tally = model.series
    if tally is None:
        return []
    names: Sequence[str] = tally.get("players") or []
    counts = list(tally.get("places") or ())
    games = sum(row[0] for row in counts if row)
    losses = list(tally.get("losses") or ())
    cells = []
    for i, row in enumerate(counts):
        name = names[i] if i < len(names) else f"seat {i}"
        cells.append(f"{name}: {row[0] if row else 0} won, {losses[i] if i < len(losses) else 0} lost")
    head = f" Series after {games} game{'s' if games != 1 else ''}: "
    return wrap([("bold", head), ("", "   ".join(cells))], width, indent=3)


def tv_screen(
    model: Model, *, width: int = 80, height: int = 24, now: float = 0.0, theme: Theme | None = None
) -> list[Line]:
    """The whole screen for the TV: at most ``height`` lines of at most ``width`` cells."""
    theme = theme or Theme()
    view = model.view
    if view is None or model.table is None or (model.game_over is not None and view.get("phase") == "over"):
        return render_screen(model, width=width, height=height, now=now, theme=theme)
    name = model.summary["name"] if model.summary is not None else f"table {model.table}"
    title = f" {name} · game {model.number or model.game} · {view.get('phase', '')}"
    lines: list[Line] = [header(title, "watching ", width, theme), rule(width, theme)]
    # The pile's top card and the clock of the seat to act, large.
    pile = list(view.get("pile") or ())
    top = pile[-1] if pile else None
    card_rows = big(top[0] + top[1], theme) if top else [""] * 5
    red = top is not None and top[-1] in ("d", "h", "r")
    card_style = theme.style("bold", "fg:ansired" if red else "")
    clocks = list(view.get("clocks") or ())
    clock_rows = [""] * 5
    who = ""
    if len(clocks) == 1:
        seat = clocks[0]["seat"]
        text = seat_clock(model, seat, now)
        who = f"{model.names()(seat)} to play" + (f" ({text})" if text else "")
        running = seconds_left(model, seat, now)
        if running is not None:
            clock_rows = big(str(running[0]), theme)
    for card_row, clock_row in zip(card_rows, clock_rows, strict=True):
        lines.append([("", "  "), (card_style, f"{card_row:<24}"), ("", "      "), ("bold", clock_row)])
    beat = to_beat_words(view.get("to_beat"))
    caption = f"  {_SUIT_WORDS.get(top[-1], '') if top else 'empty pile'}"
    lines.append([("", f"{caption:<32}"), ("bold", who)])
    lines.append(
        [
            ("", f"  Pile {len(pile)}   to beat: "),
            ("bold", beat),
            ("", f"   Stock {view.get('stock_count', 0)}   Burned {view.get('burned_count', 0)}"),
        ]
    )
    lines.append(rule(width, theme))
    lines += [_player_line(p, view, theme) for p in view.get("players") or ()]
    lines.append(rule(width, theme))
    tally = _tally_lines(model, width)
    room = height - len(lines) - len(tally)
    plays = [line for line in model.history if line.kind in ("event", "chat")][-max(room, 0) :] if room > 0 else []
    for i, line in enumerate(plays):
        lines.append(feed_line(line, theme, width, highlight=i == len(plays) - 1)[0])
    lines += tally
    return [fit(line, width, theme.cut) for line in lines][:height]
