"""A database the server cannot use gives one line naming the file and the problem, and exit
status 1: damaged, of a newer schema, read-only, locked by another program, or in use by another
server. Version 1 databases are migrated."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from server.storage.store import SCHEMA_VERSION, Store, StoreError

ROOT = Path(__file__).resolve().parents[2]


def run_server(db: Path) -> subprocess.CompletedProcess[str]:
    """``shithead-server`` on ``db``; it must stop by itself (it cannot start)."""
    return subprocess.run(
        [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SHITHEAD_NO_UVLOOP": "1"},
    )


def assert_one_line(result: Any, db: Path, *words: str) -> None:
    assert result.returncode == 1, result
    lines = [line for line in result.stderr.splitlines() if " INFO " not in line]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith(f"shithead-server: database {db}: ")
    for w in words:
        assert w in lines[0], lines[0]


def test_a_damaged_file(tmp_path: Path) -> None:
    db = tmp_path / "junk.sqlite3"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    assert_one_line(run_server(db), db, "not a database", "damaged")


def test_a_database_of_a_newer_schema(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    assert_one_line(run_server(db), db, "newer", "newer shithead-server")


def test_a_database_locked_by_another_program(tmp_path: Path) -> None:
    db = tmp_path / "locked.sqlite3"
    Store(db).close()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        assert_one_line(run_server(db), db, "locked")
    finally:
        other.close()


def test_a_database_in_use_by_another_server(tmp_path: Path) -> None:
    db = tmp_path / "busy.sqlite3"
    first = Store(db)
    try:
        assert_one_line(run_server(db), db, "another shithead-server")
    finally:
        first.close()


@pytest.mark.parametrize("directory", ["read-only", "writable"])
def test_a_read_only_database(directory: str) -> None:
    """A read-only file, in a read-only directory or in one where the server may create files."""
    with tempfile.TemporaryDirectory() as tmp:  # (reachable by another user, unlike tmp_path)
        db = Path(tmp) / "ro.sqlite3"
        Store(db).close()
        for extra in Path(tmp).glob("ro.sqlite3?*"):
            extra.unlink()
        db.chmod(0o444)
        os.chmod(tmp, 0o555 if directory == "read-only" else 0o1777)
        try:
            _read_only(db, "Permission denied" if directory == "read-only" else "readonly")
        finally:
            os.chmod(tmp, 0o755)


def _read_only(db: Path, problem: str) -> None:
    if os.geteuid() != 0:
        assert_one_line(run_server(db), db, problem, "permissions")
        return
    # root may write anything: the server runs as nobody instead (forked, with every module it
    # needs already imported, since the interpreter's own files may not be readable by nobody).
    # What serve() imports when it starts (the browser client's package brings segno, which
    # imports gzip): imported here, or the test depends on what earlier tests happened to import.
    import client.hosting.house_process
    import client.web  # noqa: F401
    import server.__main__ as entry

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            sys.stderr = os.fdopen(write, "w", buffering=1)
            os.environ["SHITHEAD_NO_UVLOOP"] = "1"
            code = entry.main(["--host", "127.0.0.1", "--port", "0", "--db", str(db), "--log-level", "WARNING"])
        except BaseException:
            code = 99
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        err = f.read()
    _, status = os.waitpid(pid, 0)
    assert_one_line(
        subprocess.CompletedProcess([], os.waitstatus_to_exitcode(status), "", err), db, problem, "permissions"
    )


def test_a_version_1_database_is_migrated(tmp_path: Path) -> None:
    """Accounts and finished games of schema 1 are kept; the live tables are added."""
    from server.storage.store import _SCHEMA_V1

    db = tmp_path / "v1.sqlite3"
    with sqlite3.connect(db) as c:
        c.executescript(_SCHEMA_V1)
        c.execute("INSERT INTO accounts (name, salt, hash, bot, created) VALUES ('ann', x'00', x'01', 0, 1.0)")
        c.execute(
            "INSERT INTO games (id, table_name, preset, players, record, result, started, ended) "
            "VALUES (7, 't', 'classic', '[]', '{}', '{}', 1.0, 2.0)"
        )
        c.execute("PRAGMA user_version=1")
    store = Store(db)
    try:
        assert store.account("ann") is not None and store.game(7) is not None
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.load_live().tables == []
    finally:
        store.close()


def test_store_errors_are_one_line(tmp_path: Path) -> None:
    db = tmp_path / "junk.sqlite3"
    db.write_bytes(b"\x00" * 5000)
    with pytest.raises(StoreError) as info:
        Store(db)
    assert "\n" not in str(info.value) and str(db) in str(info.value)
