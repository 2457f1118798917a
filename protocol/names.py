"""Player names: the rule every name follows, and the folding that tells two names apart.

A name is what people call themselves at the table ("Anna Maria", "Zoë", "Mum's phone",
"🦊 Fox"), so the rule is wide, but it keeps out what makes a name unreadable or a lookalike:

* the name is taken in Unicode normal form NFC, with leading and trailing white space removed
  and every inner run of white space made one space (:func:`normalize_name`);
* it then has 1..:data:`MAX_NAME` characters (code points);
* each character is a letter, a digit or other number, a space, an apostrophe (``'`` or
  ``’``), a hyphen, an underscore, a full stop, or an emoji (symbols, with their modifiers and
  variation selectors); a combining mark may follow any of these but cannot start a name;
* no control or format characters, except the zero-width joiner between two emoji (it joins
  them into one picture, like 👩‍👩‍👧).

Two names are the same name when their *keys* are equal (:func:`name_key`: NFKC, case folded,
NFKC again): "Dana", "dana" and "ＤＡＮＡ" are one name. The server refuses a name whose key is
held by somebody else, so a lookalike of that kind never sits beside the original.

Pure standard library: the server checks names with it, the clients say the rule with it
(:data:`NAME_RULE`) before a name is sent. Old protocol names (``[A-Za-z0-9_-]+``) all follow
the rule and keep their keys (ASCII folding is lower case).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_NAME", "NAME_RULE", "name_error", "name_key", "normalize_name"]

MAX_NAME = 24
"""Longest name, in characters (code points) after :func:`normalize_name`."""

NAME_RULE = (
    f"1 to {MAX_NAME} characters: letters, digits, spaces, apostrophes, hyphens, underscores, full stops and emoji"
)
"""The rule in one line, as the clients show it."""

_SPACES = re.compile(r"\s+")
_PUNCTUATION = frozenset("'’-_. ")
_ZWJ = "\u200d"
_KEYCAP = "\u20e3"


def normalize_name(raw: str) -> str:
    """``raw`` in the form the server keeps and shows: NFC, trimmed, inner white space one space."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", raw)).strip()


def name_key(name: str) -> str:
    """The key under which two names are the same (NFKC, case folded, NFKC again)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", normalize_name(name)).casefold())


def _emoji(ch: str) -> bool:
    # Emoji are "other symbols" (So); skin-tone modifiers are modifier symbols (Sk) in the
    # emoji block. Other Sk (^, `) are not emoji and stay out.
    cat = unicodedata.category(ch)
    return cat == "So" or (cat == "Sk" and "\U0001f3fb" <= ch <= "\U0001f3ff")


def name_error(name: str) -> str | None:
    """Why ``name`` (already normalized) is not a valid name, or None when it is."""
    if not name:
        return "a name needs at least one character"
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters ({len(name)} given)"
    if name != normalize_name(name):
        return "a name must not start or end with spaces"
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if cat[0] in "LN" or ch in _PUNCTUATION or _emoji(ch):
            continue
        if cat[0] == "M" or ch == _KEYCAP:
            if i == 0:
                return "a name cannot start with a combining mark"
            continue
        if ch == _ZWJ and _joins_emoji(name, i):
            continue
        what = "a control or format character" if cat[0] == "C" else repr(ch)
        return f"a name cannot hold {what} (U+{ord(ch):04X}); allowed: {NAME_RULE}"
    return None


def _joins_emoji(name: str, i: int) -> bool:
    """Whether the zero-width joiner at ``i`` stands between two emoji (a variation selector or
    a skin tone may come between the first emoji and the joiner)."""
    before = name[:i].rstrip("\ufe0f")
    after = name[i + 1 :]
    return bool(before) and bool(after) and _emoji(before[-1]) and _emoji(after[0])
