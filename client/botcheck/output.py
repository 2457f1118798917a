"""Mistakes a bot's own output admits: exceptions it caught and survived.

A bot on the Python SDK never sends the server a failed choice: the runner
(:mod:`client.hosting.bot_runner`) logs an exception in ``choose`` with its traceback, or a text not in
``legal``, and plays the first legal action instead. The server sees nothing wrong, so the
checker reads the program's output for those reports: Python tracebacks (any Python bot), and
the runner's "not legal" warnings. A program in another language that fails crashes instead,
and that is counted as a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Admission", "OutputScanner"]

TRACEBACK = "Traceback (most recent call last):"
#: The runner's warning for a choice not in ``legal`` (:meth:`client.hosting.bot_runner.BotRunner._choose`).
NOT_LEGAL = "which is not legal; playing"
#: Lines kept of one traceback (its end says what was raised, and where).
KEEP = 8


@dataclass(frozen=True)
class Admission:
    """One mistake found in the output: a summary line and the lines that show it."""

    summary: str
    lines: tuple[str, ...]


class OutputScanner:
    """Reads a growing output file from where it stopped last time; returns what it admits."""

    def __init__(self) -> None:
        self.offset = 0

    def scan(self, lines: list[str], *, final: bool = False) -> tuple[list[Admission], int]:
        """The admissions in ``lines`` (whole lines of output), and how many lines were read: a
        traceback that has not ended yet (no unindented line after it) is left for next time,
        unless ``final`` (the program has stopped: the output is all there is)."""
        found: list[Admission] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith(TRACEBACK):
                # The traceback runs until its last line: the first one not indented after it.
                j = i + 1
                while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                    j += 1
                if j == len(lines) and not final:
                    return found, i  # still being written
                block = lines[i : min(j + 1, len(lines))]
                context = lines[i - 1 : i] if i > 0 else []
                shown = block if len(block) <= KEEP else [*block[:2], "  ...", *block[-(KEEP - 3) :]]
                found.append(Admission(block[-1].strip(), tuple(context + shown)))
                i = j + 1
                continue
            if NOT_LEGAL in line:
                found.append(Admission("chose an action not in legal (replaced by the SDK)", (line.strip(),)))
            i += 1
        return found, len(lines)

    def read(self, path: str, *, final: bool = False) -> list[Admission]:
        """The admissions of the output file at ``path`` written since the last read
        (``final``: the program has stopped, see :meth:`scan`)."""
        try:
            with open(path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return []
        raw = data.split(b"\n")[:-1]  # whole lines only: the rest is read next time
        found, used = self.scan([r.decode("utf-8", "replace") for r in raw], final=final)
        self.offset += sum(len(r) + 1 for r in raw[:used])
        return found
