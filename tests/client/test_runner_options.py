"""``shithead-bot``'s command line maps onto the hosting options one flag at a time (the command
line itself is unchanged; the library takes one frozen options object instead of 23 keyword
arguments). The runs themselves are tested in test_sdk.py and test_house.py."""

from __future__ import annotations

import dataclasses

import pytest

from client.hosting.command import options_from_args, parse_args
from client.hosting.options import DEFAULT_HOST, DEFAULT_PORT, LoginOptions, NewTable, PlayOptions, Seating


def options(*argv: str) -> PlayOptions:
    return options_from_args(parse_args(["--bot", "greedy", *argv]), name="me", bot_name="greedy")


def test_the_defaults_find_a_free_seat_as_a_guest() -> None:
    assert options() == PlayOptions(
        login=LoginOptions(
            name="me", host=DEFAULT_HOST, port=DEFAULT_PORT, guest=True, client_name="shithead-bot greedy"
        ),
        seating=Seating(),
        games=None,
        think_in_thread=False,
    )


def test_every_flag_lands_in_its_option() -> None:
    got = options(
        "--host",
        "10.0.0.2",
        "--port",
        "9000",
        "--table",
        "3",
        "--seat",
        "1",
        "--password",
        "pw",
        "--server-password",
        "spw",
        "--table-password",
        "tpw",
        "--games",
        "4",
        "--json",
    )
    assert got.login == LoginOptions(
        name="me",
        host="10.0.0.2",
        port=9000,
        password="pw",
        guest=False,
        server_password="spw",
        mode="json",
        client_name="shithead-bot greedy",
    )
    assert got.seating == Seating(table=3, seat=1, password="tpw")
    assert got.games == 4


def test_create_describes_the_new_table() -> None:
    got = options("--create", "--preset", "speed", "--seats", "3", "--seed", "7", "--table-password", "t")
    assert got.seating == Seating(password="t", create=NewTable(preset="speed", seats=3, seed=7))
    assert options("--create").seating.create == NewTable()  # classic, 2 seats


def test_the_options_are_frozen_and_checked() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        options().games = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="needs its table"):
        Seating(token="abc")


def test_an_unknown_bundled_bot_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--bot", "deep-blue"])
    assert "greedy" in capsys.readouterr().err  # the choices come from the catalogue
