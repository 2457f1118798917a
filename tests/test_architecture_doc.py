"""docs/ARCHITECTURE.md names every module of protocol/, server/ and client/ (and the browser
client's JavaScript modules) in the folder it sits in, and nothing that is not there.

The list is the fenced block after ``<!-- modules -->``: a folder is a line that starts at the
margin with a path ending in ``/``; each module of that folder is a line indented by two spaces
that starts with its name (no ``.py`` or ``.js``); lines indented further continue a description.
A package's ``__init__`` is its folder's line.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("protocol", "server", "client")


def listed(text: str) -> set[tuple[str, str]]:
    """(folder, module) pairs of the doc's module list; a folder alone is (folder, "")."""
    block = text.split("<!-- modules -->", 1)[1].split("```", 2)[1]
    out: set[tuple[str, str]] = set()
    folder = None
    for line in block.splitlines()[1:]:  # (the first line is the fence's language, empty)
        if not line.strip():
            continue
        if not line.startswith(" "):
            folder = line.split()[0]
            assert folder.endswith("/"), f"a folder line must name a folder: {line!r}"
            out.add((folder, ""))
        elif line.startswith("  ") and not line.startswith("   "):
            assert folder is not None, f"a module before any folder: {line!r}"
            out.add((folder, line.split()[0]))
    return out


def on_disk(root: Path) -> set[tuple[str, str]]:
    """(folder, module) pairs of the source files; every package folder as (folder, "")."""
    out: set[tuple[str, str]] = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            folder = path.parent.relative_to(root).as_posix() + "/"
            out.add((folder, ""))
            if path.stem != "__init__":
                out.add((folder, path.stem))
    for path in (root / "client" / "web" / "js").glob("*.js"):
        out.add(("client/web/js/", path.stem))
    out.add(("client/web/js/", ""))
    return out


def test_the_list_names_every_module_where_it_is() -> None:
    doc = listed(DOC.read_text(encoding="utf-8"))
    files = on_disk(ROOT)
    missing = sorted(f"{folder}{name}" for folder, name in files - doc)
    stale = sorted(f"{folder}{name}" for folder, name in doc - files)
    assert not missing, "modules that docs/ARCHITECTURE.md does not name in their folder: " + ", ".join(missing)
    assert not stale, "docs/ARCHITECTURE.md names modules that are not there: " + ", ".join(stale)


def test_the_reader_parses_folders_modules_and_continuations() -> None:
    """The parser itself, on a small list: a continuation line is not a module."""
    text = (
        "<!-- modules -->\n```\npkg/          the package\n  a          one\n                 more on a\n"
        "  b          two\npkg/sub/      a folder\n  c          three\n```\n"
    )
    assert listed(text) == {("pkg/", ""), ("pkg/", "a"), ("pkg/", "b"), ("pkg/sub/", ""), ("pkg/sub/", "c")}


def test_a_moved_module_is_found(tmp_path: Path) -> None:
    """A module listed in the wrong folder is reported both as missing and as stale."""
    (tmp_path / "protocol").mkdir()
    (tmp_path / "protocol" / "__init__.py").write_text("")
    (tmp_path / "protocol" / "wire.py").write_text("")
    for package in ("server", "client"):
        (tmp_path / package).mkdir()
    (tmp_path / "client" / "web" / "js").mkdir(parents=True)
    files = on_disk(tmp_path)
    doc = listed("<!-- modules -->\n```\nprotocol/  x\nserver/  y\n  wire  z\n```\n")
    assert files - doc == {("protocol/", "wire"), ("client/web/js/", "")}
    assert doc - files == {("server/", ""), ("server/", "wire")}
