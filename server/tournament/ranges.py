"""Sets of game numbers as sorted, disjoint, inclusive ranges.

A resumed tournament skips the games an earlier run played: after 100,000 games that set is
a few ranges (``[(0, 99_996), (99_998, 99_999)]``), not 100,000 numbers, so it fits in one
``create_tournament`` frame and in the snapshot rewritten after every game.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

__all__ = ["Range", "contains", "count", "merge"]

Range = tuple[int, int]
"""``(first, last)``, both included."""


def merge(numbers: Iterable[int] = (), ranges: Iterable[Sequence[int]] = ()) -> tuple[Range, ...]:
    """The union of ``numbers`` and ``ranges`` (pairs ``[first, last]``) as sorted disjoint
    ranges, neighbours joined. Raises ``ValueError`` for a range that is not two numbers with
    ``first <= last``."""
    spans: list[Range] = [(n, n) for n in numbers]
    for r in ranges:
        if len(r) != 2 or r[0] > r[1]:
            raise ValueError(f"{list(r)} is not a range [first, last] with first <= last")
        spans.append((r[0], r[1]))
    spans.sort()
    out: list[Range] = []
    for first, last in spans:
        if out and first <= out[-1][1] + 1:
            if last > out[-1][1]:
                out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return tuple(out)


def contains(ranges: Sequence[Range], n: int) -> bool:
    """Whether ``n`` is in one of the merged ``ranges``."""
    i = bisect.bisect_right(ranges, (n, float("inf"))) - 1
    return i >= 0 and ranges[i][0] <= n <= ranges[i][1]


def count(ranges: Sequence[Range]) -> int:
    """How many numbers the merged ``ranges`` hold."""
    return sum(last - first + 1 for first, last in ranges)
