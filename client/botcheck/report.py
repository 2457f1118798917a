"""The bot check's report: a row per stage as it ends, then the verdict and every mistake with
the frames or output lines that explain it."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from .referee import Fault
from .run import StageResult

__all__ = ["HEADER", "passed", "stage_row", "timing", "verdict"]

#: Mistakes shown in full; the rest are counted by kind.
SHOWN = 12

_WIDTH = 36
#: Within 80 columns: illegal actions, timeouts, protocol errors, crashes, exceptions, drops.
HEADER = f"{'stage':<{_WIDTH}} {'games':>5} {'illegal':>7} {'t/o':>4} {'errors':>6} {'crash':>5} {'exc':>4} {'drop':>4}"


def _illegal(r: StageResult) -> int:
    return max(r.illegal, r.count(Fault.ILLEGAL))


def _timeouts(r: StageResult) -> int:
    return max(r.timeouts, r.count(Fault.TIMEOUT))


def stage_row(r: StageResult) -> str:
    """One line of the table: the stage's figures (the server's counters or what the tap saw,
    whichever is higher)."""
    title = r.stage.title if len(r.stage.title) <= _WIDTH else r.stage.title[: _WIDTH - 3] + "..."
    games = f"{r.finished}/{r.planned}"
    cut = ""
    if r.stage.cut_at is not None:
        cut = f"\n{'':4}connection cut when asked to act for the {r.stage.cut_at}th time: " + (
            ("resumed" if r.resumed else "did not come back") if r.cut else "not reached"
        )
    return (
        f"{title:<{_WIDTH}} {games:>5} {_illegal(r):>7} {_timeouts(r):>4} {r.count(Fault.PROTOCOL):>6} "
        f"{r.crashes:>5} {r.count(Fault.EXCEPTION):>4} {r.count(Fault.DROPPED):>4}"
    ) + cut


def passed(results: Sequence[StageResult]) -> bool:
    """True when every stage was played to its end without a mistake."""
    return all(r.played and not r.stopped and r.finished == r.planned and r.mistakes == 0 for r in results)


def timing(results: Sequence[StageResult]) -> list[str]:
    """How long the bot took to answer, and the stages where its slowest answer came close to
    the clock (more than half of it): not a mistake, a warning for a tournament's shorter clock."""
    times = sorted(t for r in results for t in r.answer_times)
    if not times:
        return []

    def ms(t: float) -> str:
        return f"{t * 1000:,.0f} ms"

    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    lines = [
        f"answer times: median {ms(statistics.median(times))}, 99th percentile {ms(p99)}, "
        f"slowest {ms(times[-1])} ({len(times):,} answers)"
    ]
    for r in results:
        if r.answer_times and max(r.answer_times) > r.stage.seconds / 2:
            lines.append(
                f"  close to the clock in {r.stage.title!r}: {ms(max(r.answer_times))} of {r.stage.seconds:g} s"
            )
    return lines


def verdict(results: Sequence[StageResult]) -> list[str]:
    """The closing lines: PASS or FAIL, then each mistake (the first :data:`SHOWN` in full)."""
    games = sum(r.finished for r in results)
    stale = sum(r.stale for r in results)
    stale_note = (
        f" ({stale} answer(s) to a state already replaced, refused with STALE_SEQ: normal now and then)"
        if stale
        else ""
    )
    if passed(results):
        return [f"PASS: {games} games in {len(results)} stages, no mistakes{stale_note}"]
    mistakes = sum(r.mistakes for r in results)
    skipped = sum(1 for r in results if not r.played)
    lines = [
        f"FAIL: {mistakes} mistake(s) in {games} game(s)"
        + (f"; the check stopped early, {skipped} stage(s) not played" if skipped else "")
        + stale_note
    ]
    findings = [f for r in results for f in r.findings]
    for n, f in enumerate(findings[:SHOWN], 1):
        lines.append("")
        lines.append(f"{n}. {f.fault} in stage {f.stage!r}: {f.summary}")
        lines += [f"     {line}" for line in f.detail]
    rest = Counter(f.fault for f in findings[SHOWN:])
    if rest:
        lines.append("")
        lines.append("... and " + ", ".join(f"{n} more {fault}" for fault, n in rest.items()))
    unseen = [r for r in results if r.mistakes > len(r.findings)]
    for r in unseen:
        lines.append(
            f"stage {r.stage.title!r}: the server also counted {r.mistakes - len(r.findings)} mistake(s) "
            "made while the bot's connection was down"
        )
    return lines
