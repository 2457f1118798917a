"""What a checked bot did wrong, from the frames between it and the server: no I/O.

The wire tap (:mod:`client.botcheck.tap`) hands every frame it relays to a :class:`Referee`:
the bot's requests (:meth:`Referee.bot_frame`), bytes of the bot's that are no frame
(:meth:`Referee.bot_garbage`) and the server's messages (:meth:`Referee.server_frame`). The
referee turns the server's refusals and the clock's timeouts into :class:`Finding` values,
each with the frames that explain it, and says when the tap is to cut the bot's connection.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from protocol.errors import ErrorCode

__all__ = ["Fault", "Finding", "Referee", "show_frame"]

#: Characters of a frame shown in a report.
FRAME_CHARS = 240
#: Requests remembered per connection, to show the one a refusal answers.
REMEMBERED = 64


class Fault(StrEnum):
    """The kinds of mistake a report lists, in the order of its columns."""

    ILLEGAL = "illegal action"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol error"
    CRASH = "crash"
    EXCEPTION = "exception"
    DROPPED = "dropped connection"
    NO_RESUME = "no resume"
    UNFINISHED = "unfinished"


@dataclass(frozen=True)
class Finding:
    """One mistake: its kind, where (``stage``), a one-line summary, and the lines that explain
    it (frames sent and received, or the program's output)."""

    fault: Fault
    stage: str
    summary: str
    detail: tuple[str, ...] = ()


def show_frame(frame: object) -> str:
    """A frame as compact JSON for a report (bytes shown as hex), cut at :data:`FRAME_CHARS`."""
    text = json.dumps(frame, separators=(",", ":"), ensure_ascii=False, default=_hex)
    return text if len(text) <= FRAME_CHARS else text[: FRAME_CHARS - 3] + "..."


def _hex(value: object) -> str:
    return value.hex() if isinstance(value, bytes | bytearray) else repr(value)


@dataclass
class _Conn:
    """What the referee remembers of one connection of the bot."""

    requests: OrderedDict[int, dict[str, Any]] = field(default_factory=OrderedDict)
    last_sent: dict[str, Any] | None = None
    asked: dict[int, dict[str, Any]] = field(default_factory=dict)  # table -> last state asking to act
    asked_at: dict[int, float] = field(default_factory=dict)  # table -> when it was relayed


class Referee:
    """The findings of one stage of the gauntlet.

    ``cut_at``: cut the bot's connection once it has been asked to act that many times (the
    forced disconnect); the tap asks :meth:`server_frame`'s answer. ``on_finding`` is called with
    every finding as it is made (the gauntlet stops early on too many)."""

    def __init__(self, stage: str, *, cut_at: int | None = None, on_finding: Callable[[Finding], None] | None = None):
        self.stage = stage
        self.cut_at = cut_at
        self.on_finding = on_finding
        self.findings: list[Finding] = []
        #: ``STALE_SEQ`` answers: the bot answered a state a newer one had replaced. Normal now and
        #: then (a timeout or another seat's action crossed the answer), so counted, not a mistake.
        self.stale = 0
        self.asks = 0
        #: The connection cut (its number), once cut; and whether the bot acted again after it.
        self.cut_conn: int | None = None
        self.acted_after_cut = False
        #: Seconds from relaying a state that asks the bot to act to relaying its ``act``.
        self.answer_times: list[float] = []
        self._conns: dict[int, _Conn] = {}
        #: Tables the bot was given by ``seated`` (on any of its connections).
        self._seated: set[int] = set()

    def add(self, fault: Fault, summary: str, detail: tuple[str, ...] = ()) -> None:
        finding = Finding(fault, self.stage, summary, detail)
        self.findings.append(finding)
        if self.on_finding is not None:
            self.on_finding(finding)

    def _conn(self, conn: int) -> _Conn:
        return self._conns.setdefault(conn, _Conn())

    def bot_frame(self, conn: int, frame: dict[str, Any], now: float = 0.0) -> None:
        """A frame the bot sent on connection ``conn``, relayed at time ``now`` (seconds)."""
        c = self._conn(conn)
        if frame.get("type") == "act":
            asked = c.asked_at.pop(frame.get("table", -1), None)
            if asked is not None:
                self.answer_times.append(now - asked)
        c.last_sent = frame
        rid = frame.get("id")
        if isinstance(rid, int):
            c.requests[rid] = frame
            while len(c.requests) > REMEMBERED:
                c.requests.popitem(last=False)
        if frame.get("type") == "act" and self.cut_conn is not None and conn > self.cut_conn:
            self.acted_after_cut = True

    def bot_garbage(self, conn: int, error: str, data: bytes) -> None:
        """Bytes of the bot's that are no frame (``error`` says why); nothing more of that
        connection's stream can be read."""
        self.add(Fault.PROTOCOL, f"sent bytes that are not a frame: {error}", (f"bytes: {data[:64]!r}",))

    def server_frame(self, conn: int, frame: dict[str, Any], now: float = 0.0) -> bool:
        """A frame the server sent the bot on ``conn``, relayed at time ``now``. Returns True
        when the tap must now cut the bot's connection (after relaying this frame)."""
        kind = frame.get("type")
        if kind == "state":
            return self._state(conn, frame, now)
        if kind == "seated" and isinstance(frame.get("table"), int):
            self._seated.add(frame["table"])
        elif kind == "error":
            self._error(conn, frame)
        return False

    def _state(self, conn: int, frame: dict[str, Any], now: float) -> bool:
        view = frame.get("view") or {}
        seat = view.get("seat")
        c = self._conn(conn)
        table = frame.get("table", -1)
        for event in frame.get("events") or ():
            if event.get("kind") == "timeout" and seat is not None and event.get("seat") == seat:
                c.asked_at.pop(table, None)  # that question is gone unanswered
                asked = c.asked.get(table)
                detail = (f"unanswered: {show_frame(_brief_state(asked))}",) if asked else ()
                self.add(
                    Fault.TIMEOUT,
                    f"table {table}: no action in time; the server played {event.get('action')!r} for it",
                    detail,
                )
        if not view.get("legal"):
            c.asked_at.pop(table, None)
            return False
        c.asked[table] = frame
        # A newer question replaces an unanswered one: the time runs from the first.
        c.asked_at.setdefault(table, now)
        self.asks += 1
        if self.cut_at is not None and self.cut_conn is None and self.asks >= self.cut_at:
            self.cut_conn = conn
            return True
        return False

    def _error(self, conn: int, frame: dict[str, Any]) -> None:
        code = frame.get("code")
        c = self._conn(conn)
        if code == ErrorCode.STALE_SEQ:
            self.stale += 1
            return
        rid = frame.get("id")
        request = c.requests.get(rid) if isinstance(rid, int) else None
        if _documented_return(frame, request, self._seated):
            return
        detail: list[str] = []
        if request is not None:
            detail.append(f"sent:     {show_frame(request)}")
        elif c.last_sent is not None:
            detail.append(f"last sent: {show_frame(c.last_sent)}")
        detail.append(f"answered: {show_frame(frame)}")
        fault = Fault.ILLEGAL if code == ErrorCode.ILLEGAL_ACTION else Fault.PROTOCOL
        self.add(fault, f"{code}: {frame.get('message', '')}", tuple(detail))

    def finish(self) -> None:
        """The stage is over: a forced disconnect the bot never came back from is a finding."""
        if self.cut_conn is not None and not self.acted_after_cut:
            self.add(
                Fault.NO_RESUME,
                "did not act again after its connection was cut mid-game (log in and register again: "
                "that hands its seat back)",
            )


def _documented_return(error: dict[str, Any], request: dict[str, Any] | None, seated: set[int]) -> bool:
    """Whether ``error`` is what docs/PROTOCOL.md says a returning bot may be told, no mistake of
    its own: ``UNKNOWN_TABLE`` for a ``resume`` of a table it was ``seated`` at (that game ended
    while it was away, and its table closed), or ``BAD_TOKEN`` without an ``id`` naming a table
    (its own newer connection took the seat over)."""
    code = error.get("code")
    if code == ErrorCode.UNKNOWN_TABLE:
        return request is not None and request.get("type") == "resume" and request.get("table") in seated
    return code == ErrorCode.BAD_TOKEN and "id" not in error and error.get("table") is not None


def _brief_state(frame: dict[str, Any]) -> dict[str, Any]:
    """The parts of a state that say what the bot was asked: the table, seq and legal actions."""
    view = frame.get("view") or {}
    return {
        "type": "state",
        "table": frame.get("table"),
        "seq": frame.get("seq"),
        "phase": view.get("phase"),
        "legal": view.get("legal"),
        "deadline": frame.get("deadline"),
    }
