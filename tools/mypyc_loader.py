"""Run at every start of the venv's Python (by the ``shithead_compiled.pth`` that
``tools/mypyc_build.py build`` writes): use the compiled modules of ``build/mypyc/`` when they
were built from the sources as they are now, else the pure-Python sources.

Standard library only; nothing here is compiled. What it decided is the module
``_shithead_compiled`` (``state``: ``"compiled"``, ``"pure"`` or ``"stale"``; ``reason``),
which :func:`server.engine.buildinfo.describe_build` reports. ``SHITHEAD_BUILD=pure`` in the
environment ignores the compiled build.

The extension modules live outside the packages, so a checkout without this file's ``.pth``
(a clone, another venv, ``tools/mypyc_build.py clean``) can only import the sources; and a
source changed since the build (an edit, a pull, a branch switched) turns the whole build off,
never one module of it, so that compiled and pure classes of two different versions are never
mixed. A module added since the build that the build's rule (:func:`select`) would compile turns
it off too: it would run interpreted while the status said "compiled".
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import json
import os
import sys
import types
from collections.abc import Sequence
from importlib.machinery import ExtensionFileLoader, ModuleSpec
from importlib.util import spec_from_file_location

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "build", "mypyc", "manifest.json")


class CompiledFinder:
    """Finds the compiled modules (dotted name -> ``.so`` path), before every other finder."""

    def __init__(self, modules: dict[str, str]) -> None:
        self.modules = modules

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: object = None) -> ModuleSpec | None:
        so = self.modules.get(fullname)
        if so is None:
            return None
        return spec_from_file_location(fullname, so, loader=ExtensionFileLoader(fullname, so))


def select(root: str, include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """The modules a build compiles, as paths relative to ``root``: those the ``include`` globs
    find, in order, but package ``__init__`` and ``__main__`` modules and those an ``exclude``
    pattern matches. (tools/mypyc_build.py builds what this selects, and records both lists in
    the manifest, so that a module added later is noticed.)"""
    out = []
    for pattern in include:
        for path in sorted(glob.glob(pattern, root_dir=root)):
            name = os.path.basename(path)
            if name in ("__init__.py", "__main__.py") or any(fnmatch.fnmatch(path, p) for p in exclude):
                continue
            out.append(path)
    return out


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _changed(manifest: dict[str, object], root: str) -> str | None:
    """The first source that differs from the one compiled, or None."""
    sources = manifest["sources"]
    assert isinstance(sources, dict)
    for rel, (mtime_ns, size, digest) in sources.items():
        path = os.path.join(root, rel)
        try:
            st = os.stat(path)
        except OSError:
            return rel
        if st.st_size != size or (st.st_mtime_ns != mtime_ns and _sha256(path) != digest):
            return rel
    return None


def decide(manifest_path: str = MANIFEST, root: str = ROOT) -> tuple[str, str, dict[str, str]]:
    """(state, reason, modules to load compiled) for the build of ``manifest_path``."""
    if os.environ.get("SHITHEAD_BUILD") == "pure":
        return "pure", "SHITHEAD_BUILD=pure", {}
    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return "pure", "no compiled build", {}
    if manifest.get("python") != sys.implementation.cache_tag:
        return "stale", f"built for {manifest.get('python')}, this is {sys.implementation.cache_tag}", {}
    changed = _changed(manifest, root)
    if changed is not None:
        return "stale", f"{changed} changed since the build", {}
    if "include" in manifest:  # (a manifest of an older build has no rule to check)
        added = [p for p in select(root, manifest["include"], manifest["exclude"]) if p not in manifest["sources"]]
        if added:
            return "stale", f"{added[0]} added since the build", {}
    base = os.path.dirname(manifest_path)
    return "compiled", "", {name: os.path.join(base, so) for name, so in manifest["modules"].items()}


def install() -> None:
    state, reason, modules = decide()
    info = types.ModuleType("_shithead_compiled", "What tools/mypyc_loader.py decided at start.")
    info.state = state  # type: ignore[attr-defined]
    info.reason = reason  # type: ignore[attr-defined]
    info.modules = tuple(sorted(modules))  # type: ignore[attr-defined]
    sys.modules["_shithead_compiled"] = info
    if modules:
        sys.meta_path.insert(0, CompiledFinder(modules))


if __name__ == "_shithead_mypyc_loader":  # run by the .pth; a plain import (the tests) only defines
    install()
