"""Error codes as data, and what the exceptions carry."""

from __future__ import annotations

from protocol.errors import (
    ERROR_HELP,
    FATAL,
    ErrorCode,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)

BRIEF_FATAL = {
    "BAD_FRAME", "FRAME_TOO_LARGE", "BAD_MESSAGE", "UNKNOWN_TYPE", "UNSUPPORTED_VERSION",
    "HANDSHAKE_REQUIRED", "TOO_MANY_CONNECTIONS", "IDLE_TIMEOUT", "HANDSHAKE_TIMEOUT",
    "SLOW_READER", "SHUTTING_DOWN",
}  # fmt: skip


def test_codes_are_their_own_wire_values() -> None:
    """Each code's wire value is its name, so the enum can be read straight off the wire."""
    assert len(ErrorCode) == 44
    for code in ErrorCode:
        assert code.value == code.name and code == code.name


def test_every_code_has_one_line_of_help() -> None:
    """ERROR_HELP has a one-line text for every code, and nothing else."""
    assert set(ERROR_HELP) == set(ErrorCode)
    for text in ERROR_HELP.values():
        assert text and "\n" not in text and text.endswith(".")


def test_fatal_table() -> None:
    """Exactly the connection-level codes are fatal, and their help says the connection closes."""
    assert {c.value for c in FATAL} == BRIEF_FATAL
    for code in ErrorCode:
        assert ("connection is closed" in ERROR_HELP[code]) == (code in FATAL)


def test_exception_attributes() -> None:
    """Remote errors take fatality from the table; local errors are never fatal."""
    remote = RemoteProtocolError(ErrorCode.RATE_LIMITED, "slow", request_id=4, retry_after=2.0)
    assert isinstance(remote, ProtocolError)
    assert (remote.code, remote.message, remote.fatal, remote.request_id) == (
        ErrorCode.RATE_LIMITED, "slow", False, 4,
    )  # fmt: skip
    assert remote.retry_after == 2.0 and remote.reason is None and remote.received == []
    assert RemoteProtocolError(ErrorCode.BAD_FRAME, "x").fatal
    local = LocalProtocolError(ErrorCode.FRAME_TOO_LARGE, "too big")
    assert not local.fatal and str(local) == "FRAME_TOO_LARGE: too big"
