"""Rank powers compiled into lookup tables, once per rule set and player count.

The engine never asks "does this rank have the glass power?" on the hot path; it indexes a
tuple. :func:`compile_powers` turns a :class:`~server.engine.rules.Rules` (plus the number of
seats, which the ``guarducci`` jokers depend on) into a :class:`Powers` value whose tables
are indexed by rank number (2..15; index 0 is "nothing to beat").

The central table is ``beats[top][rank]``: may a card of ``rank`` be played when ``top`` is
the effective top of the pile (the first non-glass card, see :mod:`server.engine.game`)?
``top == 0`` means anything may be played (an empty pile, a reset card, or only glass cards
without a value of their own).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from .cards import ACE, CARD_LIMIT, JOKER, RANK, TEN, card_bits, parse_rank
from .rules import Rules

RANKS = range(2, JOKER + 1)
_N = JOKER + 1

NO_DUTY: Final = 0
AT_MOST: Final = 1
BELOW: Final = 2
"""Values of :attr:`Powers.lower`: no lower duty, "this rank or lower", "strictly lower"."""


@dataclass(frozen=True, slots=True)
class Powers:
    """Per-rank tables for one rule set and player count (index = rank number)."""

    value: tuple[int, ...]
    """The value a rank is compared by (jokers rank above the ace unless ``joker_as: seven``)."""
    anywhere: tuple[bool, ...]
    """Playable on anything (reset, glass, a 10 under ``ten_anywhere``, ``anywhere``)."""
    reset: tuple[bool, ...]
    glass: tuple[bool, ...]
    glass_floor: tuple[bool, ...]
    """A glass rank that counts as its own rank when played on an empty pile."""
    burn: tuple[bool, ...]
    reverse: tuple[bool, ...]
    skip: tuple[bool, ...]
    lower: tuple[int, ...]
    allows: tuple[frozenset[int], ...]
    """Ranks also allowed after a lower card of this rank (``lower_allows``)."""
    plain: tuple[bool, ...]
    """Ranks with none of glass, reset, burn, reverse, skip: the short path of a play."""
    free_count: tuple[bool, ...]
    """Ranks exempt from ``match_count`` (RULES.md: "a 2 or a 10 still goes on anything"; S6):
    every rank playable on anything (reset, glass, ``anywhere``, the 10 under ``ten_anywhere``)
    and every burning rank (a 10 under ``ten_anywhere: false`` still burns)."""
    beats: tuple[tuple[bool, ...], ...]
    run_starts: tuple[int, ...]
    """``run_starts[top]``: the cards a suit run may begin with on that top, as a bit set
    (:func:`~server.engine.cards.card_bits`): below an ace, and beating it."""


def _rank_powers(rules: Rules, seats: int) -> dict[int, set[str]]:
    table: dict[int, set[str]] = {r: set(rules.powers_of(r)) for r in RANKS}
    if rules.ten_anywhere:
        table[TEN].add("anywhere")
    joker_as = rules.joker_as
    if joker_as != "plain" and seats == 2:
        # Guarducci: with two players a joker is only "skip", and "the joker player plays
        # another card of any value" on it: that is a reset.
        joker_as = "two"
    if joker_as == "glass":
        table[JOKER].add("glass")
    elif joker_as == "two":
        table[JOKER].add("reset")
    return table


@lru_cache(maxsize=256)
def compile_powers(rules: Rules, seats: int) -> Powers:
    """Return the lookup tables of ``rules`` for a game of ``seats`` players (cached)."""
    table = _rank_powers(rules, seats)
    value = list(range(_N))
    if rules.joker_as in ("seven", "glass") and seats > 2:
        # "seven": the joker ranks as a 7. "glass": treated as glass "like a 7", so where a
        # glass card on an empty pile keeps its rank (glass_on_empty: rank), it counts as 7.
        value[JOKER] = 7

    def flags(name: str) -> tuple[bool, ...]:
        return tuple(r in table and name in table[r] for r in range(_N))

    reset, glass, burn = flags("reset"), flags("glass"), flags("burn")
    anywhere = tuple(r in table and bool({"anywhere", "reset", "glass"} & table[r]) for r in range(_N))
    lower = tuple(
        (BELOW if "lower_strict" in table[r] else AT_MOST if "lower" in table[r] else NO_DUTY)
        if r in table
        else NO_DUTY
        for r in range(_N)
    )
    allows_map = {parse_rank(k): frozenset(parse_rank(ch) for ch in v) for k, v in rules.lower_allows}
    allows = tuple(allows_map.get(r, frozenset()) for r in range(_N))
    floor = rules.glass_on_empty == "rank"
    glass_floor = tuple(glass[r] and floor and (r != JOKER or value[JOKER] != JOKER) for r in range(_N))

    beats_rows: list[tuple[bool, ...]] = [tuple(True for _ in range(_N))]
    for top in range(1, _N):
        row = []
        for r in range(_N):
            if r < 2:
                row.append(False)
            elif top < 2 or reset[top]:
                row.append(True)
            elif lower[top] == AT_MOST:
                row.append(value[r] <= value[top] or r in allows[top])
            elif lower[top] == BELOW:
                row.append(value[r] < value[top] or r in allows[top])
            else:
                row.append(anywhere[r] or value[r] >= value[top])
        beats_rows.append(tuple(row))

    reverse, skip = flags("reverse"), flags("skip")
    plain = tuple(not (glass[r] or reset[r] or burn[r] or reverse[r] or skip[r]) for r in range(_N))
    return Powers(
        value=tuple(value),
        anywhere=anywhere,
        reset=reset,
        glass=glass,
        glass_floor=glass_floor,
        burn=burn,
        reverse=reverse,
        skip=skip,
        plain=plain,
        lower=lower,
        allows=allows,
        free_count=tuple(anywhere[r] or burn[r] for r in range(_N)),
        beats=tuple(beats_rows),
        run_starts=tuple(
            card_bits(c for c in range(CARD_LIMIT) if RANK[c] < ACE and row[RANK[c]]) for row in beats_rows
        ),
    )
