"""Imports point one way (DESIGN.md §1): checked by parsing every module with ``ast``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)


def _imports(path: Path) -> list[tuple[str, int]]:
    """Top-level module names imported by ``path`` (level > 0 means relative)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name.split(".")[0], 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append(((node.module or "").split(".")[0], node.level))
    return out


def test_engine_imports_only_stdlib_and_itself() -> None:
    """server/engine imports nothing but the standard library and its own modules."""
    files = sorted((ROOT / "server" / "engine").glob("*.py"))
    assert len(files) > 5, "engine modules not found"
    bad = []
    for path in files:
        for name, level in _imports(path):
            if level > 1 or (level == 0 and name not in STDLIB and name != "__future__"):
                bad.append(f"{path.name}: {name or '.'} (level {level})")
            if level == 0 and name == "server":
                bad.append(f"{path.name}: absolute import of server (use relative imports)")
    assert not bad, "engine imports outside the standard library: " + ", ".join(bad)


def test_protocol_imports_only_stdlib_msgpack_and_itself() -> None:
    """protocol/ may use the standard library and msgpack, never asyncio or our other packages."""
    bad = []
    for path in sorted((ROOT / "protocol").rglob("*.py")):
        for name, level in _imports(path):
            allowed = name in STDLIB or name in ("msgpack", "__future__", "protocol")
            if level == 0 and (name == "asyncio" or not allowed):
                bad.append(f"{path.name}: {name}")
    assert not bad, "protocol imports what it must not: " + ", ".join(bad)


#: Composition roots: they wire the bundled bots (client) into a server.
COMPOSITION_ROOTS = {"server/__main__.py", "server/tournament/__main__.py", "server/tournament/organiser.py"}


def _absolute_imports(path: Path) -> set[str]:
    """Top-level packages named by absolute imports anywhere in ``path`` (also inside functions)."""
    return {name for name, level in _imports(path) if level == 0}


def test_server_does_not_import_the_client() -> None:
    """server/ (but its composition roots) never imports client/: the server knows bundled
    bots only through the bot host it is given."""
    bad = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel not in COMPOSITION_ROOTS and "client" in _absolute_imports(path):
            bad.append(rel)
    assert not bad, "server modules importing client: " + ", ".join(bad)


def test_client_imports_only_protocol_and_the_engine() -> None:
    """client/ uses protocol/ and the pure engine (bots simulate games), nothing else of server/."""
    bad = []
    for path in sorted((ROOT / "client").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                engine = name == "server.engine" or name.startswith("server.engine.")
                if name.split(".")[0] == "server" and not engine:
                    bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert len(list((ROOT / "client").rglob("*.py"))) > 5, "client modules not found"
    assert not bad, "client modules importing server beyond the engine: " + ", ".join(bad)


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    """The import parser itself works: a third-party import is reported."""
    f = tmp_path / "m.py"
    f.write_text("import msgpack\nfrom . import cards\nfrom os import path\n")
    names = _imports(f)
    assert ("msgpack", 0) in names and ("", 1) in names and ("os", 0) in names
