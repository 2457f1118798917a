"""Whether this process runs the compiled build (``tools/mypyc_build.py``) or pure Python: the
line the server and ``shithead-tournament`` log at start. Never compiled itself."""

from __future__ import annotations

import sys


def compiled_modules() -> tuple[str, ...]:
    """The modules imported so far that are compiled extension modules of ours."""
    out = []
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("server", "protocol") and (getattr(module, "__file__", None) or "").endswith(".so"):
            out.append(name)
    return tuple(sorted(out))


def describe_build() -> str:
    """``compiled (mypyc, N modules)``, or ``pure Python`` and why."""
    info = sys.modules.get("_shithead_compiled")
    kind = getattr(info, "state", "pure")
    reason = getattr(info, "reason", "no compiled build")
    if kind == "compiled":
        from . import state  # a compiled module: is it the one imported?

        if (state.__file__ or "").endswith(".so"):
            count = sum(1 for name in getattr(info, "modules", ()) if "." in name)  # not the shared library
            return f"compiled (mypyc, {count} modules)"
        return "pure Python (the compiled build is present but not imported)"
    if kind == "stale":
        return f"pure Python (compiled build stale: {reason}; run tools/mypyc_build.py build)"
    return f"pure Python ({reason})"
