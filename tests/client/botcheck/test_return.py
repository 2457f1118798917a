"""The bot check agrees with docs/PROTOCOL.md on a bot that comes back after its connection is
cut: a stranger's JSON-lines bot that returns with hello, login, register and resume (the token
of its last ``seated``) passes the gauntlet's disconnect stage."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from client.botcheck.gauntlet import gauntlet
from client.botcheck.run import check

BOT = Path(__file__).resolve().parent / "returning_bot.py"
FLAGS = "--host {host} --port {port} --tournament {tournament} --name {name} --password {password}"


async def test_a_bot_back_with_register_and_resume_is_counted_no_mistake(tmp_path: Path) -> None:
    """The disconnect stage cuts the bot mid-game; it comes back with hello, login, register and
    resume with its last seated's token: the resume is answered by joined, and the check finds
    no mistake (it resumed, every game finished)."""
    (stage,) = [s for s in gauntlet(["classic"]) if s.cut_at is not None]
    report = tmp_path / "report.json"
    (result,) = await check(f"{sys.executable} {BOT} {FLAGS} --report {report}", [stage], tmp_path / "check")
    assert result.findings == [], [(f.summary, f.detail) for f in result.findings]
    assert result.cut and result.resumed and result.finished == result.planned
    said = json.loads(report.read_text())
    assert said["resumes"] and all(r["answer"] == "joined" for r in said["resumes"]), said
    assert set(said["errors"]) <= {"STALE_SEQ"}, said
