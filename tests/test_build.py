"""The opt-in compiled build (tools/mypyc_build.py, tools/mypyc_loader.py): the compiled pass of
the README's test command really runs compiled code, a build is used only while its sources are
unchanged, and the compiled modules are type-checked strictly."""

from __future__ import annotations

import importlib
import json
import os
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import mypyc_build  # noqa: E402
import mypyc_loader  # noqa: E402

from server.engine.buildinfo import describe_build  # noqa: E402


@pytest.mark.skipif(os.environ.get("SHITHEAD_BUILD") != "compiled", reason="only in the compiled pass")
def test_the_compiled_pass_imports_the_compiled_modules() -> None:
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for rel in mypyc_build.COMPILED:
        module = importlib.import_module(rel[: -len(".py")].replace("/", "."))
        assert module.__file__ is not None and module.__file__.endswith(suffix), module.__file__
        assert Path(module.__file__).is_relative_to(ROOT / "build" / "mypyc"), module.__file__
    assert describe_build().startswith("compiled (mypyc, ")


def test_hot_modules_are_in_the_compiled_build() -> None:
    for rel in ("server/engine/game.py", "server/engine/state.py", "protocol/framing.py", "protocol/connection.py"):
        assert rel in mypyc_build.COMPILED
    for rel in (
        "server/shell/session.py",
        "server/tables/table.py",
        "server/shell/broadcast.py",
        "server/shell/dispatch.py",
    ):
        assert rel in mypyc_build.COMPILED


def test_no_extension_module_beside_the_sources() -> None:
    """Python prefers an extension module to the source beside it: a manual mypyc run would
    shadow every later edit. The build lives in build/mypyc/ only."""
    found = [p for package in ("protocol", "server", "client") for p in (ROOT / package).rglob("*.so")]
    assert not found, f"remove these, the build goes to build/mypyc/: {found}"


def test_compiled_modules_are_checked_under_strict_mypy() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert {"protocol", "server"} <= set(config["files"])
    compiled = {rel[: -len(".py")].replace("/", ".") for rel in mypyc_build.COMPILED}
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for pattern in modules:
            hit = [m for m in compiled if m == pattern or (pattern.endswith(".*") and m.startswith(pattern[:-1]))]
            assert not hit, f"an override relaxes mypy for compiled modules: {pattern}"


def _manifest(tmp_path: Path, source: Path) -> Path:
    st = source.stat()
    digest = mypyc_build._sha256(str(source))
    manifest = tmp_path / "build" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text(
        json.dumps(
            {
                "python": sys.implementation.cache_tag,
                "sources": {"m.py": [st.st_mtime_ns, st.st_size, digest]},
                "modules": {"m": "lib/m.so"},
            }
        )
    )
    return manifest


def test_a_build_is_used_only_while_its_sources_are_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHITHEAD_BUILD", raising=False)
    source = tmp_path / "m.py"
    source.write_text("X = 1\n")
    manifest = _manifest(tmp_path, source)
    state, _, modules = mypyc_loader.decide(str(manifest), str(tmp_path))
    assert state == "compiled" and set(modules) == {"m"}
    os.utime(source, ns=(1, 1))  # touched only (a checkout): the same bytes, still fresh
    assert mypyc_loader.decide(str(manifest), str(tmp_path))[0] == "compiled"
    source.write_text("X = 2\n")  # edited: the whole build is off
    state, reason, modules = mypyc_loader.decide(str(manifest), str(tmp_path))
    assert (state, modules) == ("stale", {}) and "m.py" in reason
    source.unlink()
    assert mypyc_loader.decide(str(manifest), str(tmp_path))[0] == "stale"


def test_a_module_added_since_the_build_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new module the build's rule would compile (its include globs, less its exclusions) makes
    the build stale: it would otherwise run interpreted under a status that says compiled."""
    monkeypatch.delenv("SHITHEAD_BUILD", raising=False)
    source = tmp_path / "m.py"
    source.write_text("X = 1\n")
    manifest = _manifest(tmp_path, source)
    written = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**written, "include": ["*.py"], "exclude": ["slow_*.py"]}))
    assert mypyc_loader.decide(str(manifest), str(tmp_path))[0] == "compiled"
    (tmp_path / "slow_io.py").write_text("Y = 1\n")  # excluded by the rule: left pure, as built
    (tmp_path / "__init__.py").write_text("")  # never compiled
    assert mypyc_loader.decide(str(manifest), str(tmp_path))[0] == "compiled"
    (tmp_path / "codec.py").write_text("Z = 1\n")  # the rule would compile it: stale
    state, reason, modules = mypyc_loader.decide(str(manifest), str(tmp_path))
    assert (state, modules) == ("stale", {}) and reason == "codec.py added since the build"


def test_the_build_selects_by_the_loaders_rule() -> None:
    """tools/mypyc_build.py compiles exactly what the loader's rule selects, and records the rule."""
    assert mypyc_build.COMPILED == mypyc_loader.select(str(ROOT), mypyc_build.INCLUDE, mypyc_build.PURE)
    assert "protocol/codec.py" in mypyc_build.COMPILED and "protocol/messages.py" not in mypyc_build.COMPILED


def test_shithead_build_pure_ignores_a_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "m.py"
    source.write_text("X = 1\n")
    manifest = _manifest(tmp_path, source)
    monkeypatch.setenv("SHITHEAD_BUILD", "pure")
    assert mypyc_loader.decide(str(manifest), str(tmp_path)) == ("pure", "SHITHEAD_BUILD=pure", {})
    assert mypyc_loader.decide(str(tmp_path / "none.json"), str(tmp_path))[0] == "pure"
