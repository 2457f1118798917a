"""How a finished game's record is kept in the database: compact, and exactly the record again.

A record (:class:`server.engine.ReplayRecord` as a dict, plus the players and action times) is
stored as JSON compressed with zlib, with its two long lists in a denser form first:

* ``times`` (seconds from the deal to each action, to the millisecond) as ``dt``, the
  milliseconds between actions: small integers instead of ever longer decimals;
* ``actions`` (``[seat, "play 7h 7d"]`` pairs) as ``tokens``, the distinct words of the
  actions, and ``moves``, one string in which each action is its seat as a digit followed by
  one character per word (``chr(65 + i)`` for ``tokens[i]``). A game of 1,600 actions repeats
  a few dozen words thousands of times; one character each compresses far better than the text.

Measured on 1,000 records of 2 greedy and 2 random bots (1,600 actions a game on average): JSON
text 36.2 KiB, zlib of it 5.9 KiB, with ``dt`` 3.1 KiB, with ``moves`` too 2.6 KiB (about 3 ms
to pack, once per game).

Either form is used only when it turns back into the very same list (checked on every record),
so any record, whatever its notation, is stored and loaded unchanged. Records stored before (JSON
text, or compressed with plain ``times`` and ``actions``) load as they are: no migration.
"""

from __future__ import annotations

import itertools
import json
import zlib
from typing import Any

__all__ = ["pack_record", "unpack_record"]

_FIRST_TOKEN = 65  # "A": digits (seats) stay apart from words
_MAX_SEAT = 9
_MAX_TOKENS = 0xD800 - _FIRST_TOKEN  # one character each, below the surrogates


def pack_record(record: dict[str, Any]) -> bytes:
    """The stored form of ``record`` (see the module docstring)."""
    stored = dict(record)
    times = stored.get("times")
    if isinstance(times, list):
        dt = _steps(times)
        if dt is not None and _times_of(dt) == times:
            del stored["times"]
            stored["dt"] = dt
    actions = stored.get("actions")
    if isinstance(actions, list):
        packed = _pack_actions(actions)
        if packed is not None and _unpack_actions(*packed) == actions:
            del stored["actions"]
            stored["tokens"], stored["moves"] = packed
    return zlib.compress(json.dumps(stored, separators=(",", ":"), ensure_ascii=False).encode(), 9)


def unpack_record(value: bytes | str) -> Any:
    """A stored record as it was given to :func:`pack_record` (JSON text: as written by versions
    before compression)."""
    if not isinstance(value, bytes):
        return json.loads(value)
    record = json.loads(zlib.decompress(value))
    if "moves" in record:
        record["actions"] = _unpack_actions(record.pop("tokens"), record.pop("moves"))
    if "dt" in record:
        record["times"] = _times_of(record.pop("dt"))
    return record


def _steps(times: list[Any]) -> list[int] | None:
    if not all(isinstance(t, (int, float)) for t in times):
        return None
    ms = [round(t * 1000) for t in times]
    return [b - a for a, b in itertools.pairwise([0, *ms])]


def _times_of(dt: list[int]) -> list[float]:
    return [ms / 1000 for ms in itertools.accumulate(dt)]


def _pack_actions(actions: list[Any]) -> tuple[list[str], str] | None:
    tokens: dict[str, str] = {}
    out: list[str] = []
    for pair in actions:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str)):
            return None
        seat, text = pair
        if type(seat) is not int or not 0 <= seat <= _MAX_SEAT:
            return None
        out.append(str(seat))
        for word in text.split(" "):
            char = tokens.get(word)
            if char is None:
                if len(tokens) == _MAX_TOKENS:
                    return None
                char = tokens[word] = chr(_FIRST_TOKEN + len(tokens))
            out.append(char)
    return list(tokens), "".join(out)


def _unpack_actions(tokens: list[str], moves: str) -> list[list[Any]]:
    actions: list[list[Any]] = []
    words: list[str] = []
    for char in moves:
        if "0" <= char <= "9":
            if actions:
                actions[-1][1] = " ".join(words)
            actions.append([int(char), ""])
            words = []
        else:
            words.append(tokens[ord(char) - _FIRST_TOKEN])
    if actions:
        actions[-1][1] = " ".join(words)
    return actions
