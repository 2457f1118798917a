"""Record files: written compressed and atomically; compressed and plain JSON files both load."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from client.cli.replay import load
from client.record_files import SUFFIX, load_record, save_record

RECORD = {"id": 3, "record": {"preset": "classic", "actions": [[0, "ready"]] * 200, "times": [0.001] * 200}}


def test_a_saved_record_is_gzip_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / f"3{SUFFIX}"
    save_record(path, RECORD)
    raw = path.read_bytes()
    assert json.loads(gzip.decompress(raw)) == RECORD  # any gzip tool reads it
    assert len(raw) * 5 < len(json.dumps(RECORD))
    assert load_record(path) == RECORD and load(path) == RECORD
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_a_plain_json_record_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "3.json"  # as earlier versions of the organiser wrote them
    path.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    assert load(path) == RECORD


@pytest.mark.parametrize("content", [b"\x1f\x8b\x08garbage", b"{not json", json.dumps({"x": 1}).encode()])
def test_a_damaged_or_foreign_file_is_refused_with_its_name(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / f"bad{SUFFIX}"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="bad"):
        load(path)
