"""The log on screen: the feed under every screen, and the whole game's history (``history``).

Both are lists of :class:`~client.cli.model.FeedLine` drawn newest at the bottom; ``scroll``
(:attr:`Model.scroll`, PageUp/PageDown) moves the window back from the newest line. Pure, like
:mod:`client.cli.render`, which draws the rest of the screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from client.cli.draw import Line, Theme, card_frag, fit, header, wrap
from client.cli.model import FeedLine, Model

__all__ = ["feed_line", "history_screen", "log_window"]


def feed_line(line: FeedLine, theme: Theme, width: int, *, highlight: bool = False) -> list[Line]:
    """One feed line, wrapped to ``width``: names bold, cards drawn as cards, errors red, chat
    cyan; ``highlight`` draws it in reverse video (the last play)."""
    base = {
        "error": theme.style("bold", "fg:ansired"),
        "game": "bold",
        "chat": theme.style("", "fg:ansicyan"),
        "info": theme.style("", "fg:ansiblue"),
    }.get(line.kind, "")
    if highlight:
        base = f"{base} reverse".strip()
    frags: Line = [("", " ")]
    for kind, value in line.parts:
        if kind == "c":
            frags.append(card_frag(value, theme, "reverse" if highlight else ""))
        elif kind == "n":
            frags.append((f"{base} bold".strip(), value))
        else:
            frags.append((base, value))
    return wrap(frags, width, indent=3)


def log_window(lines: Sequence[FeedLine], scroll: int, room: int, width: int, theme: Theme) -> list[Line]:
    """At most ``room`` screen lines of ``lines``, ending ``scroll`` lines before the newest."""
    if room <= 0:
        return []
    end = len(lines) - min(scroll, max(len(lines) - 1, 0))
    out: list[Line] = []
    for line in reversed(lines[:end]):
        if len(out) >= room:
            break
        out[:0] = [fit(piece, width, theme.cut) for piece in feed_line(line, theme, width)]
    return out[-room:]


def history_screen(model: Model, width: int, height: int, theme: Theme) -> list[Line]:
    """The whole game so far, a screen high, scrolled with PageUp/PageDown."""
    lines = model.history
    game = f"game {model.number}" if model.number is not None else "this game"
    where = f"{len(lines)} lines" if not model.scroll else f"{model.scroll} of {len(lines)} lines back"
    top = [header(f" History of {game} ({where})", "PgUp/PgDn scroll, Esc closes ", width, theme)]
    if not lines:
        return [*top, [("", " Nothing has happened in this game yet.")]]
    return top + log_window(lines, model.scroll, height - 1, width, theme)
