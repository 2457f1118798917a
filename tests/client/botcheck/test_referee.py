"""The bot check's parts without a server: the referee and the output scanner fed directly, the kept directory."""

from __future__ import annotations

from pathlib import Path

from client.botcheck.gauntlet import gauntlet
from client.botcheck.output import OutputScanner
from client.botcheck.referee import Fault, Referee
from client.botcheck.report import HEADER, stage_row
from client.botcheck.run import StageResult, fresh_workdir


def asking(seq: int, seat: int = 1, events: list[dict[str, object]] | None = None) -> dict[str, object]:
    """A state asking ``seat`` to act at table 7."""
    return {
        "type": "state",
        "table": 7,
        "seq": seq,
        "game": 3,
        "view": {"seat": seat, "phase": "play", "legal": ["play 4h", "take"]},
        "events": events or [],
    }


def test_a_refusal_is_shown_with_the_request_it_answers() -> None:
    ref = Referee("stage")
    ref.bot_frame(1, {"type": "act", "id": 5, "table": 7, "seq": 2, "action": "play Zz"})
    ref.bot_frame(1, {"type": "ping", "id": 6})
    ref.server_frame(1, {"type": "error", "id": 5, "code": "ILLEGAL_ACTION", "message": "not held"})
    [f] = ref.findings
    assert f.fault is Fault.ILLEGAL and f.summary == "ILLEGAL_ACTION: not held"
    assert f.detail[0] == 'sent:     {"type":"act","id":5,"table":7,"seq":2,"action":"play Zz"}'
    assert '"code":"ILLEGAL_ACTION"' in f.detail[1]


def test_stale_answers_are_counted_not_faulted_and_other_errors_are_protocol_errors() -> None:
    ref = Referee("stage")
    ref.server_frame(1, {"type": "error", "id": 1, "code": "STALE_SEQ", "message": "stale"})
    ref.server_frame(1, {"type": "error", "code": "BAD_FRAME", "message": "bad"})
    assert ref.stale == 1
    assert [f.fault for f in ref.findings] == [Fault.PROTOCOL]


def test_only_the_bots_own_timeouts_count_with_the_state_it_left_unanswered() -> None:
    ref = Referee("stage")
    ref.server_frame(1, asking(4))
    ref.server_frame(1, asking(5, events=[{"kind": "timeout", "seat": 0, "action": "take", "count": 1}]))
    assert ref.findings == []
    ref.server_frame(1, asking(6, events=[{"kind": "timeout", "seat": 1, "action": "take", "count": 1}]))
    [f] = ref.findings
    assert f.fault is Fault.TIMEOUT and "'take'" in f.summary
    assert '"seq":5' in f.detail[0]  # the last question before the timeout


def test_the_cut_comes_at_the_nth_question_and_a_resume_is_an_act_on_a_later_connection() -> None:
    ref = Referee("stage", cut_at=2)
    assert ref.server_frame(1, asking(1)) is False
    assert ref.server_frame(1, asking(2)) is True
    assert ref.server_frame(1, asking(3)) is False  # once only
    ref.bot_frame(1, {"type": "act", "id": 9, "table": 7, "seq": 2, "action": "take"})  # too late: same connection
    ref.finish()
    assert [f.fault for f in ref.findings] == [Fault.NO_RESUME]

    back = Referee("stage", cut_at=1)
    assert back.server_frame(1, asking(1)) is True
    back.bot_frame(2, {"type": "act", "id": 1, "table": 7, "seq": 1, "action": "take"})
    back.finish()
    assert back.findings == [] and back.acted_after_cut


def test_what_the_document_tells_a_returning_bot_is_no_mistake() -> None:
    """Back after a drop: UNKNOWN_TABLE for a resume of a table it was seated at (that game ended
    meanwhile) and the takeover notice its old connection gets are no findings; a resume of a
    table it was never seated at, or a refused resume of any other kind, still is."""
    ref = Referee("stage")
    ref.server_frame(1, {"type": "seated", "tournament": 1, "game": 0, "table": 7, "seat": 1, "token": "t0"})
    ref.bot_frame(2, {"type": "register", "id": 3, "tournament": 1})
    ref.bot_frame(2, {"type": "resume", "id": 4, "table": 7, "token": "t0"})
    ref.server_frame(2, {"type": "ok", "id": 3})
    ref.server_frame(2, {"type": "error", "id": 4, "code": "UNKNOWN_TABLE", "message": "no table 7"})
    msg = "your seat at table 8 was taken over by a newer connection"
    ref.server_frame(1, {"type": "error", "code": "BAD_TOKEN", "message": msg, "table": 8})
    assert ref.findings == []
    ref.bot_frame(2, {"type": "resume", "id": 5, "table": 9, "token": "t0"})
    ref.server_frame(2, {"type": "error", "id": 5, "code": "UNKNOWN_TABLE", "message": "no table 9"})
    ref.bot_frame(2, {"type": "resume", "id": 6, "table": 7, "token": "t9"})
    ref.server_frame(2, {"type": "error", "id": 6, "code": "BAD_TOKEN", "message": "not yours"})
    assert [f.summary for f in ref.findings] == ["UNKNOWN_TABLE: no table 9", "BAD_TOKEN: not yours"]
    assert all(f.fault is Fault.PROTOCOL for f in ref.findings)


def test_the_output_scanner_finds_tracebacks_and_replaced_choices_in_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text(
        "ERROR client.hosting.bot_runner: bot x: choose() failed; playing 'take'\n"
        "Traceback (most recent call last):\n"
        '  File "bot.py", line 3, in choose\n'
        "    raise KeyError('k')\n"
        "KeyError: 'k'\n"
        "WARNING client.hosting.bot_runner: bot x chose 'fly', which is not legal; playing 'take'\n"
        "Traceback (most recent call last):\n"  # not yet a whole block: its end comes later
        '  File "bot.py", line 3, in cho'
    )
    scanner = OutputScanner()
    first = scanner.read(str(log))
    assert [a.summary for a in first] == ["KeyError: 'k'", "chose an action not in legal (replaced by the SDK)"]
    assert first[0].lines[0].startswith("ERROR client.hosting.bot_runner")
    with log.open("a") as fh:
        fh.write("ose\n    x = 1 / 0\nZeroDivisionError: division by zero\n")
    assert [a.summary for a in scanner.read(str(log))] == ["ZeroDivisionError: division by zero"]
    with log.open("a") as fh:  # a program that died on a traceback: its last line ends the file
        fh.write('Traceback (most recent call last):\n  File "bot.py", line 9, in main\n')
    assert scanner.read(str(log)) == []
    [last] = scanner.read(str(log), final=True)
    assert last.lines[-1] == '  File "bot.py", line 9, in main'


def test_answer_times_run_from_the_first_question_and_stop_at_the_act() -> None:
    """A newer state asking again (setup: others acted meanwhile) does not restart the time; a
    timeout drops the question; a state that asks nothing ends it."""
    ref = Referee("stage")
    ref.server_frame(1, asking(1), now=10.0)
    ref.server_frame(1, asking(2), now=10.5)
    ref.bot_frame(1, {"type": "act", "id": 1, "table": 7, "seq": 2, "action": "take"}, now=10.75)
    ref.server_frame(1, asking(3), now=20.0)
    ref.server_frame(1, asking(4, events=[{"kind": "timeout", "seat": 1, "action": "take", "count": 1}]), now=23.0)
    ref.bot_frame(1, {"type": "act", "id": 2, "table": 7, "seq": 4, "action": "take"}, now=23.5)
    ref.server_frame(1, asking(5), now=30.0)
    ref.server_frame(1, {"type": "state", "table": 7, "seq": 6, "view": {"seat": 1, "legal": []}, "events": []}, now=31)
    ref.bot_frame(1, {"type": "act", "id": 3, "table": 7, "seq": 5, "action": "take"}, now=40.0)  # no question open
    assert ref.answer_times == [0.75, 0.5]


def test_a_kept_directory_is_cleared_of_an_earlier_check_only(tmp_path: Path) -> None:
    """``--keep DIR`` used twice: the earlier database and logs go (its tournaments would come
    back, its tracebacks would be read as the new bot's); other files stay."""
    for name in ("server.sqlite3", "server.sqlite3-wal", "server.log", "bot-1.log", "bot-12.log", "notes.txt"):
        (tmp_path / name).write_text("x")
    fresh_workdir(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    fresh_workdir(tmp_path / "new")
    assert (tmp_path / "new").is_dir()


def test_the_table_of_the_report_fits_80_columns() -> None:
    """The header and every stage's row (a cut stage's second line too) on an 80-column terminal."""
    lines = [HEADER]
    for stage in gauntlet():
        lines += stage_row(StageResult(stage, planned=stage.seats, finished=99, illegal=999)).splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
