"""``shithead`` start-up: the address, the log file, the login (no terminal needed)."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from client.cli import __main__ as cli_main
from client.sdk import Client, ServerError
from protocol.messages import EXAMPLES, LoggedIn, Welcome
from server.config import ServerConfig
from server.shell.app import App


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (None, ("127.0.0.1", 7433)),
        ("lanbox", ("lanbox", 7433)),
        ("lanbox:9000", ("lanbox", 9000)),
        ("192.168.1.20:7433", ("192.168.1.20", 7433)),
        ("[::1]:8000", ("::1", 8000)),
        ("::1", ("::1", 7433)),
        (":9000", ("127.0.0.1", 9000)),
    ],
)
def test_addresses(text: str | None, address: tuple[str, int]) -> None:
    assert cli_main.parse_address(text) == address


@pytest.mark.parametrize("text", ["host:port", "host:0", "host:70000"])
def test_bad_ports_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="bad port"):
        cli_main.parse_address(text)


def test_the_log_goes_to_the_state_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert cli_main.log_path(None) == tmp_path / "shithead" / "cli.log"
    assert cli_main.log_path(str(tmp_path / "x.log")) == tmp_path / "x.log"


class FakeClient:
    """Records login calls; refuses the first ``refusals`` of them."""

    def __init__(self, refusals: int = 0, password_required: bool = False) -> None:
        welcome = EXAMPLES["welcome"]
        assert isinstance(welcome, Welcome)
        self.welcome = replace(welcome, password_required=password_required)
        self.calls: list[tuple[Any, ...]] = []
        self.refusals = refusals

    async def login(
        self,
        name: str,
        password: str | None = None,
        *,
        guest: bool = False,
        viewer: bool = False,
        server_password: str | None = None,
        seat_token: str | None = None,
    ) -> LoggedIn:
        self.calls.append((name, password, guest, server_password))
        if len(self.calls) <= self.refusals:
            raise ServerError("AUTH_FAILED", "wrong password")
        return LoggedIn(id=2, name=name, guest=guest, bot=False, viewer=viewer or None)


async def test_password_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """--password-stdin reads one line; --server-password-stdin the next; both before connecting."""
    monkeypatch.setattr("sys.stdin", io.StringIO("hunter2\nlan party\n"))
    args = cli_main.parse_args(["--name", "alice", "--password-stdin", "--server-password-stdin"])
    creds = await cli_main.ask_credentials(args)
    assert creds == cli_main.Credentials("alice", "hunter2", "lan party")
    fake = FakeClient(password_required=True)
    answer = await cli_main.login(fake, creds)  # type: ignore[arg-type]
    assert isinstance(answer, LoggedIn) and fake.calls == [("alice", "hunter2", False, "lan party")]


async def test_passwords_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHITHEAD_PASSWORD", "pw1")
    monkeypatch.setenv("SHITHEAD_SERVER_PASSWORD", "pw2")
    creds = await cli_main.ask_credentials(cli_main.parse_args(["--name", "alice"]))
    assert creds == cli_main.Credentials("alice", "pw1", "pw2")


async def test_guest_with_a_name_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHITHEAD_SERVER_PASSWORD", raising=False)
    creds = await cli_main.ask_credentials(cli_main.parse_args(["--guest", "--name", "bob"]))
    assert creds == cli_main.Credentials("bob", None, None)
    fake = FakeClient()
    answer = await cli_main.login(fake, creds)  # type: ignore[arg-type]
    assert answer == LoggedIn(id=2, name="bob", guest=True, bot=False)
    assert fake.calls == [("bob", None, True, None)]


async def test_a_name_the_server_would_refuse_is_refused_before_connecting() -> None:
    """The name rule of protocol.names (spaces are fine; '<' is not); test_names.py has more."""
    with pytest.raises(ValueError, match="not a name"):
        await cli_main.ask_credentials(cli_main.parse_args(["--guest", "--name", "no <tags> please"]))


async def test_a_refused_login_is_one_line_and_not_retried(capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeClient(refusals=1)
    refused = await cli_main.login(fake, cli_main.Credentials("alice", "wrong"))  # type: ignore[arg-type]
    assert isinstance(refused, ServerError) and refused.code == "AUTH_FAILED"
    assert len(fake.calls) == 1
    assert capsys.readouterr().err == "shithead: login refused: wrong password\n"


async def test_a_wrong_server_password_ends_the_client_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real server with a password; the client given a wrong one: exit status 1, one line."""
    app = App(ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "s.sqlite3"), password="secret"))
    await app.start()
    try:
        monkeypatch.setenv("SHITHEAD_SERVER_PASSWORD", "not it")
        args = cli_main.parse_args([f"127.0.0.1:{app.port}", "--guest", "--name", "x"])
        assert await cli_main.amain(args) == 1
    finally:
        await app.stop()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("shithead: login refused") and "Traceback" not in err


async def test_unreachable_server_is_reported_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No server listening: exit status 1 and one line, no traceback."""
    app = App(ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "s.sqlite3")))
    await app.start()
    port = app.port
    await app.stop()  # the port is free again: nobody listens there
    args = cli_main.parse_args([f"127.0.0.1:{port}", "--guest", "--name", "x"])
    assert await cli_main.amain(args) == 1
    err = capsys.readouterr().err
    assert f"cannot reach a server at 127.0.0.1:{port}" in err and "Traceback" not in err


async def test_the_tv_logs_in_as_a_viewer_on_a_server_without_guests(tmp_path: Path) -> None:
    """``shithead watch TABLE`` asks nothing and logs in as a viewer (PROTOCOL.md §3 "Viewers"),
    so a server that refuses guests still lets the TV in; the name is the server's."""
    args = cli_main.parse_args([])
    args.watch = 1  # as main() sets it for 'shithead watch 1'
    creds = await cli_main.ask_credentials(args)
    assert creds.viewer and creds.password is None
    app = App(ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "s.sqlite3"), allow_guests=False))
    await app.start()
    try:
        client = await Client.connect("127.0.0.1", app.port, reconnect=False)
        try:
            answer = await cli_main.login(client, creds, ["a-seat-token"])
            assert isinstance(answer, LoggedIn) and answer.viewer and not answer.guest
            assert answer.name.startswith("viewer-")
        finally:
            await client.close()
    finally:
        await app.stop()


def test_client_is_the_sdk_client() -> None:
    """The CLI drives the SDK's Client (no private copy of the protocol)."""
    assert cli_main.Client is Client
