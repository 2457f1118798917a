"""Deliberately broken bots: the checker must find each one out, and tables and tournaments
must survive every one of them."""

from pathlib import Path

HERE = Path(__file__).resolve().parent
BROKEN = HERE / "brokenbot.py"
RAISING = HERE / "raising_bot.py"
