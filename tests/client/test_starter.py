"""The starter bot of the README (``docs/starter_bot.py``): short, sensible, and it really plays."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

from client.bot import Bot
from server.shell.app import App
from tests.client.helpers import program_against_greedy

STARTER = Path(__file__).resolve().parents[2] / "docs" / "starter_bot.py"


def starter_class() -> type[Bot]:
    """The bot class the file defines (run as a module, not as __main__)."""
    namespace = runpy.run_path(str(STARTER))
    [cls] = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, Bot) and v is not Bot]
    return cls


def test_the_starter_bot_is_at_most_20_lines() -> None:
    """The file the README shows stays within 20 lines."""
    assert len(STARTER.read_text(encoding="utf-8").splitlines()) <= 20


def test_the_readme_shows_exactly_this_file() -> None:
    """The README's starter bot is the file itself, character for character."""
    readme = (STARTER.parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert block == STARTER.read_text(encoding="utf-8")


def test_the_starter_bot_plays_low_keeps_specials_and_falls_back() -> None:
    """It plays its lowest rank with every copy, keeps 2s and 10s for last, and otherwise
    takes the first legal action (ready in setup, take when nothing goes)."""
    bot = starter_class()()
    assert bot.choose({"legal": ["play 2c", "play 8d", "play 4h", "play 4h 4s", "play Td", "take"]}) == "play 4h 4s"
    assert bot.choose({"legal": ["play Td", "play 2c", "take"]}) == "play 2c"
    assert bot.choose({"legal": ["ready", "swap 3c 0"]}) == "ready"
    assert bot.choose({"legal": ["take"]}) == "take"


async def test_the_starter_file_executed_plays_complete_games(server: App, connect: Any) -> None:
    """Run as a program with shithead-bot's flags, the starter joins the free seat of a table
    and plays two complete games against a greedy bot, then exits with status 0."""
    stats, status, out, err, table = await program_against_greedy(
        server, connect, [sys.executable, str(STARTER)], name="starter", games=2
    )
    assert status == 0, err
    assert stats.games == 2 and stats.illegal == 0
    assert out.startswith(f"starter: 2 games at table {table}"), out
    assert "0 illegal" in out
