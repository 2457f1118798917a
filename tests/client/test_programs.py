"""What client/programs.py gives the programs it starts: their command lines and passwords."""

from __future__ import annotations

import argparse

import pytest

from client.programs import command_argv, program_password


def test_a_program_password_is_always_one_argument() -> None:
    """A password starting with '-' made argparse-based bots fail now and then (once in 64 with
    URL-safe tokens): the placeholder's value must parse as the option's value, every time."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--password", required=True)
    parser.add_argument("--name")
    for _ in range(2000):
        password = program_password()
        argv = command_argv("bot --password {password} --name {name}", {"password": password, "name": "b"})
        assert parser.parse_args(argv[1:]).password == password


def test_placeholders_are_filled_word_by_word() -> None:
    assert command_argv("'my bot' --port={port} x", {"port": 7433}) == ["my bot", "--port=7433", "x"]
    with pytest.raises(ValueError, match="unknown placeholder"):
        command_argv("bot {nope}", {"port": 1})
    with pytest.raises(ValueError, match="empty"):
        command_argv("  ", {})
