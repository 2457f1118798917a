"""The import rules and the size limit of docs/ARCHITECTURE.md, checked by parsing every module
of ``protocol/``, ``server/`` and ``client/`` with ``ast``.

* **Layers** (:data:`LAYERS`): imports point one way. ``protocol`` imports only itself (and the
  standard library without asyncio, and msgpack); ``server.engine`` only itself and the standard
  library; the pure tournament modules (:data:`PURE_TOURNAMENT`) only each other, the standard
  library and openskill, and the ladder's pure modules (:data:`PURE_LADDER`) those and the
  protocol. Inside ``server``, bottom up: the coordinators (:data:`COORDINATORS`: a table and its
  parts, identities, the settings) import the protocol, the engine and each other;
  ``server.storage`` those and the pure computations; the request modules (:data:`REQUESTS`)
  those, storage, each other and, of the shell, only :data:`HANDLER_CONTRACT`; ``server.shell``
  anything of the server. ``client`` imports the protocol, itself, the engine and the pure
  tournament modules; inside it, the SDK only the protocol and itself, the bots the protocol,
  the engine and each other, hosting those, the SDK and itself. Only entry points (``__main__``
  modules) may wire server and client together. Importing a module also runs its packages'
  ``__init__``: those count too, unless they import nothing of ours (a package that is only a
  namespace).
* **No circles**: no module imports another that imports it back, directly or through others.
  Every import counts: at module level, inside functions, and under ``TYPE_CHECKING`` (a
  dependency for the type checker is still a dependency).
* **Size**: no module over :data:`MAX_LINES` lines.

The checker is plain functions of a root directory, so that the last tests can prove on tiny
synthetic trees that it finds what it must.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "server", "client")
STDLIB = frozenset(sys.stdlib_module_names)
MAX_LINES = 700

#: Pure computations that the server's tournament service and the client-side organiser share.
PURE_TOURNAMENT = (
    "server.tournament.schedule",
    "server.tournament.standings",
    "server.tournament.director",
    "server.tournament.ranges",
)
#: The ladder's pure parts: its ratings, matchmaking, history and challenges' figures.
PURE_LADDER = ("server.ladder.ratings", "server.ladder.history", "server.ladder.challenges")
#: The pure coordinators and what they are made of: a table and its parts, who a session is, the
#: settings. No await, no socket, no clock of their own, no storage.
COORDINATORS = (
    "server.config",
    "server.tables.coordination",
    "server.tables.table",
    "server.tables.seat",
    "server.tables.seating",
    "server.tables.states",
    "server.tables.quotas",
    "server.login.auth",
    "server.login.identity",
    "server.login.throttle",
)
#: The contract between the shell and a request's handler: the session it is given and the
#: ``Reply`` it returns. The only modules of ``server.shell`` that a request module imports.
HANDLER_CONTRACT = ("server.shell.session", "server.shell.reply")
#: The modules that answer requests (a responsibility each: the lobby and its tables, login,
#: records, tournaments, the ladder), over the coordinators and the storage.
REQUESTS = ("server.tables", "server.login", "server.records", "server.tournament", "server.ladder")


@dataclass(frozen=True)
class Layer:
    """A set of modules (``members``: dotted prefixes) and what they may import: modules of ours
    under ``may_import`` prefixes; besides the standard library (less ``banned_stdlib``), the
    ``third_party`` top-level packages (None: any)."""

    name: str
    members: tuple[str, ...]
    may_import: tuple[str, ...]
    third_party: frozenset[str] | None = None
    banned_stdlib: frozenset[str] = frozenset()


#: What the client's hosting of a bot stands on: the SDK, the bots, the event loop's choice.
CLIENT_BASE = ("client.sdk", "client.bot", "client.bots", "client.eventloop")

_BELOW_STORAGE = ("protocol", "server.engine", *PURE_TOURNAMENT, *PURE_LADDER, *COORDINATORS)

#: First match wins, so the narrower layers come first. Bottom up: the protocol; the engine;
#: the pure tournament and ladder computations; the coordinators; storage; the requests; the
#: shell, which composes everything (docs/ARCHITECTURE.md, "Layers").
LAYERS = (
    Layer("server.engine", ("server.engine",), ("server.engine",), third_party=frozenset()),
    Layer("pure tournament", PURE_TOURNAMENT, PURE_TOURNAMENT, third_party=frozenset({"openskill"})),
    Layer(
        "pure ladder",
        PURE_LADDER,
        ("protocol", *PURE_TOURNAMENT, *PURE_LADDER),
        third_party=frozenset({"openskill"}),
    ),
    Layer(
        "protocol",
        ("protocol",),
        ("protocol",),
        third_party=frozenset({"msgpack"}),
        banned_stdlib=frozenset({"asyncio"}),
    ),
    Layer("coordinator", COORDINATORS, ("protocol", "server.engine", *COORDINATORS)),
    Layer("server.storage", ("server.storage",), (*_BELOW_STORAGE, "server.storage")),
    Layer("request", REQUESTS, (*_BELOW_STORAGE, "server.storage", *REQUESTS, *HANDLER_CONTRACT)),
    Layer("server.shell", ("server.shell",), ("protocol", "server")),
    Layer("server", ("server",), ("protocol", "server")),
    # The client bottom up: the SDK (the protocol over a connection), the bots (deciders over a
    # view, with the engine's rules), hosting (a bot run over the SDK); the programs on top.
    Layer("client.sdk", ("client.sdk",), ("protocol", "client.sdk")),
    Layer("bot", ("client.bot", "client.bots"), ("protocol", "server.engine", "client.bot", "client.bots")),
    Layer(
        "client.hosting",
        ("client.hosting",),
        ("protocol", "server.engine", *CLIENT_BASE, "client.hosting"),
    ),
    Layer("client", ("client",), ("protocol", "client", "server.engine", *PURE_TOURNAMENT)),
)
#: Entry points wire the layers together: they may import anything.
ENTRY_POINT = Layer("entry point", (), ("",))


@dataclass(frozen=True)
class Import:
    """One imported name, resolved: ``target`` is a module of ours (the deepest one the
    statement names) or the top-level name of a module that is not ours (``ours`` False)."""

    target: str
    line: int
    ours: bool


# --------------------------------------------------------------------------- the parser


def _under(name: str, prefix: str) -> bool:
    return prefix == "" or name == prefix or name.startswith(prefix + ".")


def find_modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> file (``pkg/__init__.py`` is
    ``pkg``)."""
    out: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: dict[str, Path], packages: Iterable[str] = PACKAGES) -> list[Import]:
    """What module ``name`` (file ``path``) imports, anywhere in the file, with relative imports
    resolved; ``from a import b`` names module ``a.b`` when that is a module, else ``a``."""
    ours_top = set(packages)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def add(target: str, line: int) -> None:
        top = target.split(".")[0]
        found.append(Import(target if top in ours_top else top, line, top in ours_top))

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                add(sub if sub in known else module, node.lineno)
    return found


def import_graph(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (itself excluded)."""
    packages = tuple(packages)
    known = find_modules(root, packages)
    return {
        name: {i.target for i in imports_of(name, path, known, packages) if i.ours and i.target != name}
        for name, path in known.items()
    }


# --------------------------------------------------------------------------- the rules


def layer_of(module: str) -> Layer | None:
    if module.rpartition(".")[2] == "__main__":
        return ENTRY_POINT
    return next((layer for layer in LAYERS if any(_under(module, m) for m in layer.members)), None)


def _ancestors(module: str) -> Iterator[str]:
    parts = module.split(".")
    for n in range(1, len(parts)):
        yield ".".join(parts[:n])


def layer_violations(root: Path, packages: Iterable[str] = PACKAGES) -> list[str]:
    """Every import that a module's layer does not allow, as ``file:line: what``."""
    packages = tuple(packages)
    known = find_modules(root, packages)
    graph = import_graph(root, packages)
    namespaces = {m for m, p in known.items() if p.name == "__init__.py" and not graph[m]}
    bad = []
    for name, path in known.items():
        layer = layer_of(name)
        if layer is None:
            continue
        rel = path.relative_to(root).as_posix()
        for imp in imports_of(name, path, known, packages):
            if not imp.ours:
                if imp.target in STDLIB:
                    if imp.target in layer.banned_stdlib:
                        bad.append(f"{rel}:{imp.line}: {layer.name} must not import {imp.target}")
                elif layer.third_party is not None and imp.target not in layer.third_party:
                    bad.append(f"{rel}:{imp.line}: {layer.name} must not import {imp.target} (not ours, not stdlib)")
                continue
            # The target runs its packages' __init__ first: they are imported too.
            for target in [*_ancestors(imp.target), imp.target]:
                if _under(name, target) or target in namespaces or (target not in known and target != imp.target):
                    continue
                if not any(_under(target, allowed) for allowed in layer.may_import):
                    bad.append(f"{rel}:{imp.line}: {layer.name} module {name} imports {target}")
    return list(dict.fromkeys(bad))  # (``from a import b, c`` names module a twice)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per group of modules that import each other (a strongly connected component
    of more than one module), as ``[a, b, ..., a]``; sorted, for stable reports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph is small: recursion is fine)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(_circle_in(graph, group) for group in groups)


def _circle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, within the group (breadth first)."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:  # walk back from v to start
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle in {group}")  # (a strongly connected group always has one)


def oversized(root: Path, packages: Iterable[str] = PACKAGES, limit: int = MAX_LINES) -> list[str]:
    """The modules over ``limit`` lines, as ``file: N lines``."""
    out = []
    for path in find_modules(root, packages).values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append(f"{path.relative_to(root).as_posix()}: {lines} lines")
    return out


# --------------------------------------------------------------------------- the project


def test_the_project_is_found() -> None:
    """The checks below look at real files (a wrong ROOT would pass them vacuously)."""
    modules = find_modules(ROOT)
    for name in ("protocol.messages", "server.engine.game", "server.shell.app", "client.sdk", *PURE_TOURNAMENT):
        assert name in modules, name
    assert len(modules) > 50


def test_imports_point_one_way() -> None:
    """No layer imports what it must not (see the module docstring)."""
    bad = layer_violations(ROOT)
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_module_imports_itself_back() -> None:
    """No import circles among the project's modules, not even through function-level imports."""
    cycles = find_cycles(import_graph(ROOT))
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_module_is_over_the_size_limit() -> None:
    big = oversized(ROOT)
    assert not big, f"modules over {MAX_LINES} lines (split them by responsibility):\n" + "\n".join(big)


def test_the_engine_uses_relative_imports() -> None:
    """server/engine names its own modules relatively, never as ``server.engine...`` (so that
    it reads as the self-contained package it is)."""
    known = find_modules(ROOT)
    bad = []
    for name, path in known.items():
        if _under(name, "server.engine"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    absolute = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    absolute = [node.module or ""]
                else:
                    continue
                bad += [f"{path.name}:{node.lineno}: {m}" for m in absolute if m.split(".")[0] == "server"]
    assert not bad, "absolute imports of the engine inside the engine: " + ", ".join(bad)


# --------------------------------------------------------------------------- the checker itself


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_checker_resolves_relative_and_function_level_imports(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from .a import x\n",
            "pkg/sub/a.py": "from . import b\nfrom .. import top\nimport json\n",
            "pkg/sub/b.py": "def f():\n    from pkg.sub.a import x\n    import msgpack\n",
            "pkg/top.py": "from pkg.sub import b, nothing\n",
        },
    )
    known = find_modules(root, ["pkg"])
    assert set(known) == {"pkg", "pkg.sub", "pkg.sub.a", "pkg.sub.b", "pkg.top"}
    a = imports_of("pkg.sub.a", known["pkg.sub.a"], known, ["pkg"])
    assert [(i.target, i.line, i.ours) for i in a] == [("pkg.sub.b", 1, True), ("pkg.top", 2, True), ("json", 3, False)]
    b = imports_of("pkg.sub.b", known["pkg.sub.b"], known, ["pkg"])
    assert [(i.target, i.ours) for i in b] == [("pkg.sub.a", True), ("msgpack", False)]
    assert import_graph(root, ["pkg"])["pkg.top"] == {"pkg.sub.b", "pkg.sub"}  # (nothing is not a module)


def test_the_checker_finds_a_circle(tmp_path: Path) -> None:
    """a -> b (module level), b -> c (inside a function), c -> a (relative): one circle; d, which
    only imports into it, is not part of it; two modules importing each other are another."""
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import pkg.b\n",
            "pkg/b.py": "def later():\n    from pkg import c\n",
            "pkg/c.py": "from .a import thing\n",
            "pkg/d.py": "from pkg import a\n",
            "pkg/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.y import Y\n",
            "pkg/y.py": "from pkg.x import X\n",
        },
    )
    assert find_cycles(import_graph(root, ["pkg"])) == [
        ["pkg.a", "pkg.b", "pkg.c", "pkg.a"],
        ["pkg.x", "pkg.y", "pkg.x"],
    ]
    (root / "pkg" / "c.py").write_text("import json\n")
    (root / "pkg" / "y.py").write_text("")
    assert find_cycles(import_graph(root, ["pkg"])) == []


def test_the_checker_finds_upward_imports(tmp_path: Path) -> None:
    """Each forbidden direction is reported with its file and line; the allowed ones are not."""
    root = _tree(
        tmp_path,
        {
            "protocol/__init__.py": "",
            "protocol/wire.py": "import msgpack\nimport asyncio\nfrom server.shell import app\n",
            "server/__init__.py": "",
            "server/shell/app.py": "from protocol import wire\n\ndef bots():\n    from client.house import H\n",
            "server/__main__.py": "from client.house import H\nfrom server.shell.app import App\n",
            "server/engine/__init__.py": "from .game import Game\n",
            "server/engine/game.py": "import random\nimport numpy\nfrom protocol import wire\n",
            "server/tournament/__init__.py": "",
            "server/tournament/standings.py": "import openskill\nfrom .schedule import s\n",
            "server/tournament/schedule.py": "import msgpack\n",
            "server/tournament/service.py": "from server.shell.app import App\nfrom server.shell.reply import R\n",
            "server/tables/table.py": "from server.engine import Game\nfrom server.storage.store import S\n",
            "server/storage/store.py": "from server.tables.table import T\nfrom server.tables.lobby import L\n",
            "client/__init__.py": "",
            "client/house.py": (
                "from server.engine import Game\nfrom server.tournament.standings import x\n"
                "from server.tournament import service\nimport server.shell.app\n"
            ),
            "client/tournament/__main__.py": "from server.shell.app import App\n",
            "client/sdk/link.py": "from client.hosting.host import play\n",
        },
    )
    assert sorted(layer_violations(root)) == [
        "client/house.py:3: client module client.house imports server.tournament.service",
        "client/house.py:4: client module client.house imports server.shell.app",
        "client/sdk/link.py:1: client.sdk module client.sdk.link imports client.hosting.host",
        "protocol/wire.py:2: protocol must not import asyncio",
        "protocol/wire.py:3: protocol module protocol.wire imports server.shell.app",
        "server/engine/game.py:2: server.engine must not import numpy (not ours, not stdlib)",
        "server/engine/game.py:3: server.engine module server.engine.game imports protocol.wire",
        "server/shell/app.py:4: server.shell module server.shell.app imports client.house",
        "server/storage/store.py:2: server.storage module server.storage.store imports server.tables.lobby",
        "server/tables/table.py:2: coordinator module server.tables.table imports server.storage.store",
        "server/tournament/schedule.py:1: pure tournament must not import msgpack (not ours, not stdlib)",
        "server/tournament/service.py:1: request module server.tournament.service imports server.shell.app",
    ]
    # A package __init__ that imports something is no longer a mere namespace: reaching a pure
    # module through it reaches what it imports.
    (root / "server" / "tournament" / "__init__.py").write_text("from . import service\n")
    assert "client/house.py:2: client module client.house imports server.tournament" in layer_violations(root)


def test_the_checker_finds_oversized_modules(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ok.py": "x = 1\n" * 700, "pkg/big.py": "x = 1\n" * 701})
    assert oversized(root, ["pkg"]) == ["pkg/big.py: 701 lines"]
