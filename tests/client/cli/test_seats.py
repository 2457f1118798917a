"""The seat-token file: per server and name, private, replaced atomically, forgiving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli.seats import SeatTokens, default_path


def test_tokens_round_trip_per_server_and_name(tmp_path: Path) -> None:
    path = tmp_path / "state" / "seats.json"
    alice = SeatTokens("lan:7433", "Alice", path)
    alice.put(3, "tok3")
    alice.put(5, "tok5")
    SeatTokens("other:7433", "alice", path).put(3, "elsewhere")
    SeatTokens("lan:7433", "bob", path).put(3, "bobs")
    assert SeatTokens("lan:7433", "alice", path).all() == {3: "tok3", 5: "tok5"}  # names are case-blind
    assert path.stat().st_mode & 0o777 == 0o600
    alice.drop(3)
    assert alice.all() == {5: "tok5"} and SeatTokens("lan:7433", "bob", path).get(3) == "bobs"
    assert not list(path.parent.glob(".seats-*"))  # no temporary file left


def test_a_damaged_file_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    tokens = SeatTokens("lan:7433", "alice", path)
    assert tokens.all() == {}
    tokens.put(1, "t")
    assert json.loads(path.read_text()) == {"lan:7433": {"alice": {"1": "t"}}}


def test_the_default_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHITHEAD_SEATS_FILE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "shithead" / "seats.json"
    monkeypatch.setenv("SHITHEAD_SEATS_FILE", str(tmp_path / "x.json"))
    assert default_path() == tmp_path / "x.json"
