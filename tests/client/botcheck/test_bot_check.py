"""``shithead-bot-check`` end to end: the real command, a private server, real bot programs.

The starter bot of the README passes the whole gauntlet; three broken bots fail it, each with
a report that names the mistake and shows what explains it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.broken_bots import BROKEN, RAISING

ROOT = Path(__file__).resolve().parents[3]
STARTER = ROOT / "docs" / "starter_bot.py"
FLAGS = "--host {host} --port {port} --tournament {tournament} --name {name} --password {password}"


def bot_check(command: str, *args: str) -> tuple[int, str]:
    """Run ``shithead-bot-check`` on ``command``; its exit status and output."""
    proc = subprocess.run(
        [sys.executable, "-m", "client.botcheck", *args, command],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_the_starter_bot_passes_the_whole_gauntlet() -> None:
    """Every preset, 2 to 6 seats, the cut connection (resumed), the short clock, search: no mistake."""
    code, out = bot_check(f"{sys.executable} {STARTER} {FLAGS}")
    assert code == 0, out
    assert "PASS:" in out and "FAIL" not in out
    assert "connection cut when asked to act for the 6th time: resumed" in out
    assert "six_players, 6 seats, 1 s clock" in out and "against search" in out


def test_a_bot_raising_in_every_third_choice_fails_with_its_traceback() -> None:
    """The SDK covers the failures with the first legal action, so the server sees nothing; the
    report shows the exceptions from the bot's output."""
    code, out = bot_check(f"{sys.executable} {RAISING} {FLAGS}", "--presets", "classic")
    assert code == 1, out
    assert "FAIL:" in out
    assert "exception in stage 'classic, 2 seats': ValueError: every third move" in out
    assert "Traceback (most recent call last):" in out
    assert "the check stopped early" in out


def test_a_bot_sending_illegal_actions_fails_with_the_frames() -> None:
    code, out = bot_check(f"{sys.executable} {BROKEN} --fault illegal {FLAGS}", "--presets", "classic")
    assert code == 1, out
    assert "illegal action in stage 'classic, 2 seats': ILLEGAL_ACTION" in out
    assert 'sent:     {"type":"act"' in out and '"code":"ILLEGAL_ACTION"' in out


def test_a_bot_that_never_answers_fails_on_timeouts() -> None:
    """It is found out after a few timeouts, not after the whole gauntlet of default actions."""
    code, out = bot_check(f"{sys.executable} {BROKEN} --fault hang {FLAGS}", "--presets", "classic")
    assert code == 1, out
    assert "timeout in stage 'classic, 2 seats': table" in out and "the server played" in out
    assert "unanswered: {" in out
    assert "the check stopped early" in out


def test_a_bad_command_line_is_refused_before_anything_starts() -> None:
    code, out = bot_check("mybot {hots}")
    assert code == 2 and "unknown placeholder" in out
    code, out = bot_check("mybot", "--presets", "classic,nosuch")
    assert code == 2 and "unknown preset 'nosuch'" in out


def test_a_program_that_cannot_start_or_exits_at_once_ends_the_check_quickly() -> None:
    code, out = bot_check("no-such-bot-program {port}", "--presets", "classic")
    assert code == 2 and "cannot start the bot" in out and "no-such-bot-program" in out
    code, out = bot_check(f"{sys.executable} -c pass", "--presets", "classic")
    assert code == 1, out
    assert "crash in stage 'classic, 2 seats': the program exited with status 0 before its tournament" in out


def test_kept_logs_hold_what_the_server_and_the_bot_wrote(tmp_path: Path) -> None:
    """``--keep DIR``: ``server.log`` holds the server's own lines (where it listened, the
    tournaments it ran), ``bot-1.log`` the bot's output between the check's lines that say how
    the program was started (its password hidden) and how it ended. (Both stayed empty: the
    server's start line was read and dropped, its log kept to warnings, and a bot that prints
    nothing before its end left nothing once stopped.) The raising bot ends the check after one
    game: its traceback is its output."""
    keep = tmp_path / "logs"
    command = f"{sys.executable} {RAISING} {FLAGS}"
    code, out = bot_check(command, "--presets", "classic", "--max-mistakes", "1", "--keep", str(keep))
    assert code == 1 and f"logs: {keep}/bot-N.log" in out, out
    server_log = (keep / "server.log").read_text(encoding="utf-8")
    assert re.search(r"^Shithead server listening on 127\.0\.0\.1:\d+ ", server_log, re.M), server_log
    assert " created tournament 1 " in server_log and "tournament 1 started" in server_log, server_log
    bot_log = (keep / "bot-1.log").read_text(encoding="utf-8")
    started = re.compile(
        r"^--- \d\d:\d\d:\d\d started checked \(run 1\): .*raising_bot\.py --host 127\.0\.0\.1 --port \d+ "
        r"--tournament 1 --name checked --password \*\*\*\*$",
        re.M,
    )
    assert started.search(bot_log), bot_log
    assert "ValueError: every third move" in bot_log, bot_log
    assert re.search(r"^--- \d\d:\d\d:\d\d checked exited with status -?\d+", bot_log, re.M), bot_log
    assert bot_log.index("started checked") < bot_log.index("ValueError") < bot_log.index("checked exited")
    assert not (keep / "bot-2.log").exists()  # the check stopped after the first stage
