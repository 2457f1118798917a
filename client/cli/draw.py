"""Drawing primitives of the terminal client: lines of ``(style, text)`` fragments, cut and
wrapped to a width in terminal cells, cards as text, and the :class:`Theme` (colour, symbols).
The screens (:mod:`client.cli.render`, :mod:`client.cli.history`) are built from these."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

__all__ = [
    "Line",
    "Theme",
    "card_frag",
    "card_text",
    "cell",
    "clip",
    "fit",
    "header",
    "line_width",
    "pad",
    "plain_lines",
    "rule",
    "text",
    "to_formatted",
    "wrap",
]

Line = list[tuple[str, str]]

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED = {"d", "h", "r"}


@dataclass(frozen=True)
class Theme:
    """How to draw: ``color`` off drops every colour (NO_COLOR); ``symbols`` off writes suits
    as letters and uses ASCII marks (for terminals without the glyphs)."""

    color: bool = True
    symbols: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, symbols: bool = True) -> Theme:
        """The theme the environment asks for: ``NO_COLOR`` set and not empty turns colour off
        (https://no-color.org)."""
        env = os.environ if env is None else env
        return cls(color=not env.get("NO_COLOR"), symbols=symbols)

    def style(self, plain: str, color: str = "") -> str:
        """``plain`` (bold, underline, reverse) plus ``color`` only when colour is on."""
        return f"{plain} {color}".strip() if self.color and color else plain

    @property
    def turn_mark(self) -> str:
        return "▶" if self.symbols else ">"

    @property
    def down_mark(self) -> str:
        return "■" if self.symbols else "#"

    @property
    def gone_mark(self) -> str:
        return "·" if self.symbols else "."

    @property
    def cut(self) -> str:
        """The mark of a line cut short: ``…`` (``~`` in ASCII)."""
        return "…" if self.symbols else "~"

    @property
    def sep(self) -> str:
        """Between the parts of a line: `` · `` (`` | `` in ASCII)."""
        return " · " if self.symbols else " | "


# --------------------------------------------------------------------------- primitives


def card_text(card: str, theme: Theme) -> str:
    """``7h`` -> ``7♥`` (or ``7h`` without symbols); jokers stay ``Xr``/``Xb``."""
    if len(card) == 2 and card[0] != "X" and theme.symbols:
        return card[0] + SUIT_SYMBOLS.get(card[1], card[1])
    return card


def card_frag(card: str, theme: Theme, extra: str = "") -> tuple[str, str]:
    """One card as a fragment: red suits red (colour only), ``extra`` styles added."""
    color = "fg:ansired" if card[-1:] in RED else ""
    return theme.style(extra, color), card_text(card, theme)


def line_width(line: Iterable[tuple[str, str]]) -> int:
    """Width of a line in terminal cells."""
    return sum(get_cwidth(text) for _, text in line)


def merge(line: Line) -> Line:
    """Adjacent fragments of the same style joined (wrapping and cutting work char by char)."""
    out: Line = []
    for style, chunk in line:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + chunk)
        elif chunk:
            out.append((style, chunk))
    return out


def fit(line: Line, width: int, cut: str = "…") -> Line:
    """``line`` cut to at most ``width`` cells (the last visible cell becomes ``cut`` if cut)."""
    if line_width(line) <= width:
        return line
    out: Line = []
    used = 0
    for style, text in line:
        for ch in text:
            w = get_cwidth(ch)
            if used + w > width - 1:
                out.append(("", cut))
                return merge(out)
            out.append((style, ch))
            used += w
    return out


def wrap(line: Line, width: int, indent: int = 2) -> list[Line]:
    """``line`` broken into lines of at most ``width`` cells, continuation lines indented,
    breaking at the last space that fits when there is one."""
    lines: list[Line] = []
    chars = [(style, ch) for style, text in line for ch in text]
    first = True
    while chars:
        room = width - (0 if first else indent)
        used, cut, last_space = 0, len(chars), -1
        for i, (_, ch) in enumerate(chars):
            w = get_cwidth(ch)
            if used + w > room:
                cut = i
                break
            if ch == " ":
                last_space = i
            used += w
        if cut < len(chars) and last_space > 0:
            cut = last_space + 1
        piece = chars[:cut]
        chars = chars[cut:]
        lines.append(merge(([] if first else [("", " " * indent)]) + piece))
        first = False
    return lines or [[]]


def clip(s: str, width: int, cut: str = "…") -> str:
    """``s`` cut to at most ``width`` terminal cells, by display width, not by characters (an
    emoji or a CJK character takes two cells): a cut string ends with ``cut`` (one cell). A
    character of no width (a combining mark, a variation selector) stays with the one before
    it; a zero-width joiner left dangling at the end of a cut is dropped."""
    if get_cwidth(s) <= width:
        return s
    if width <= 0:
        return ""
    room, used, end = width - get_cwidth(cut), 0, 0
    for i, ch in enumerate(s):
        w = get_cwidth(ch)
        if used + w > room:
            break
        used += w
        end = i + 1
    return s[:end].rstrip("\u200d") + cut


def cell(s: str, width: int, cut: str = "…") -> str:
    """``s`` in a column ``width`` cells wide: cut (:func:`clip`) or padded with spaces, so the
    columns after it stay in place whatever the characters of ``s``."""
    s = clip(s, width, cut)
    return s + " " * (width - get_cwidth(s))


def text(s: str, style: str = "") -> tuple[str, str]:
    return style, s


def pad(line: Line, width: int) -> Line:
    """``line`` followed by spaces up to ``width`` cells."""
    w = line_width(line)
    return [*line, ("", " " * (width - w))] if w < width else line


def rule(width: int, theme: Theme) -> Line:
    return [("", ("─" if theme.symbols else "-") * width)]


def to_formatted(lines: Sequence[Line]) -> StyleAndTextTuples:
    """Lines joined into one formatted text for a prompt-toolkit control."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain_lines(lines: Sequence[Line]) -> list[str]:
    """The lines as plain strings (for tests and logs)."""
    return ["".join(t for _, t in line) for line in lines]


def header(left: str, right: str, width: int, theme: Theme) -> Line:
    room = width - get_cwidth(right) - 1
    left = clip(left, max(room, 0), theme.cut)
    return [("bold reverse", left + " " * (width - get_cwidth(left) - get_cwidth(right))), ("reverse", right)]
