"""The opt-in compiled build: the hot modules compiled with mypyc, the same sources as the
pure-Python fallback (as black and mypy ship). Needs a C compiler and mypy (the ``test`` extra).

    .venv/bin/python tools/mypyc_build.py build    # compile into build/mypyc/ and use it
    .venv/bin/python tools/mypyc_build.py status   # compiled, pure or stale, and why
    .venv/bin/python tools/mypyc_build.py clean    # back to pure Python
    .venv/bin/python tools/mypyc_build.py test     # build, then the compiled pass of the tests

``build`` compiles :data:`COMPILED` (after type-checking them with the project's mypy
configuration, ``strict``) into ``build/mypyc/`` (gitignored), never beside the sources, and
writes ``shithead_compiled.pth`` into this venv's site-packages: it runs
``tools/mypyc_loader.py`` at every start, which puts the compiled modules first when every
compiled source is unchanged since the build, and otherwise leaves the pure sources in charge.
``pip install -e .`` stays pure Python and quick. ``SHITHEAD_BUILD=pure`` ignores a build.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig

from mypyc_loader import select  # (tools/ is this script's directory: its sibling)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "mypyc")
LIB = os.path.join(OUT, "lib")
MANIFEST = os.path.join(OUT, "manifest.json")
PTH_NAME = "shithead_compiled.pth"

#: Left pure: package ``__init__`` modules (they are imported before any finder could act) and
#: ``__main__`` modules, :mod:`server.engine.buildinfo` (it reports the build), and modules mypyc
#: cannot compile or that are not on the hot path: ``server.login.accounts`` (async generators), the
#: message classes of ``protocol`` (every ``*messages.py``: made by a class decorator, so not
#: native classes; see docs/PERFORMANCE.md), their TypedDicts (every ``*payloads.py``; the
#: run-time ``JsonValue`` is defined under ``if not TYPE_CHECKING``, which compiled code never
#: runs) and ``examples.py``, and ``server.shell.reply`` (its generic frozen dataclass ``Handler`` fails
#: at import when compiled: "attribute '__dict__' of 'type' objects is not writable"), and
#: ``server.storage.store`` and ``server.login.auth``: SQLite and scrypt do their work, and the tests that
#: make the disk fill up or a hash wait replace their methods, which a native class forbids.
#: Patterns, so that a new message module is left pure without being listed here.
PURE = (
    "server/engine/buildinfo.py",
    "server/login/accounts.py",
    "protocol/message_base.py",
    "protocol/*messages.py",
    "protocol/*payloads.py",
    "protocol/examples.py",
    "server/shell/reply.py",
    "server/storage/store.py",
    "server/login/auth.py",
    "server/storage/*_rows.py",
)


#: The server's subpackages compiled besides the engine (``tournament/`` and ``ladder/`` are not).
SHELL_PACKAGES = tuple(f"server/{p}/*.py" for p in ("shell", "login", "tables", "records", "storage"))
#: Where the compiled modules are found: every module these globs find but :data:`PURE`.
INCLUDE = ("server/engine/*.py", "protocol/*.py", "server/*.py", *SHELL_PACKAGES)


def compiled_sources() -> list[str]:
    """The compiled modules, as paths relative to the root (the loader's rule, one place)."""
    return select(ROOT, INCLUDE, PURE)


COMPILED = compiled_sources()

_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(
    name="shithead-compiled",
    ext_modules=mypycify(sys.argv[1:], opt_level="3", target_dir="build/mypyc/c"),
    script_args=["build_ext", "--build-lib", "build/mypyc/lib", "--build-temp", "build/mypyc/temp"],
)
"""


def _pth_path() -> str:
    return os.path.join(sysconfig.get_paths()["purelib"], PTH_NAME)


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _module_name(rel: str) -> str:
    return rel[: -len(".py")].replace("/", ".")


def build() -> int:
    """Compile :data:`COMPILED` into ``build/mypyc/`` and turn the build on."""
    # Record the sources before compiling: one edited meanwhile makes the build stale, not wrong.
    sources = {}
    for rel in COMPILED:
        st = os.stat(os.path.join(ROOT, rel))
        sources[rel] = (st.st_mtime_ns, st.st_size, _sha256(os.path.join(ROOT, rel)))
    env = dict(os.environ, SHITHEAD_BUILD="pure")
    done = subprocess.run([sys.executable, "-c", _SETUP, *COMPILED], cwd=ROOT, env=env)
    if done.returncode != 0:
        print("mypyc build failed; the pure-Python sources stay in use", file=sys.stderr)
        return done.returncode
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    modules = {}
    for rel in COMPILED:
        so = rel[: -len(".py")] + suffix
        if not os.path.exists(os.path.join(LIB, so)):
            print(f"mypyc build: {so} missing", file=sys.stderr)
            return 1
        modules[_module_name(rel)] = os.path.join("lib", so)
    for so in glob.glob("*__mypyc" + suffix, root_dir=LIB):  # the shared library of the group
        modules[so[: -len(suffix)]] = os.path.join("lib", so)
    manifest = {
        "python": sys.implementation.cache_tag,
        "sources": sources,
        "modules": modules,
        "include": list(INCLUDE),
        "exclude": list(PURE),
    }
    with open(MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    loader = os.path.join(ROOT, "tools", "mypyc_loader.py")
    with open(_pth_path(), "w", encoding="utf-8") as f:
        f.write(f"import runpy; runpy.run_path({loader!r}, run_name='_shithead_mypyc_loader')\n")
    print(f"compiled {len(COMPILED)} modules into {OUT}; {_pth_path()} turns them on")
    return status()


def clean() -> int:
    """Back to pure Python: remove the build and the ``.pth``."""
    shutil.rmtree(OUT, ignore_errors=True)
    if os.path.exists(_pth_path()):
        os.remove(_pth_path())
    print("pure Python: no compiled build")
    return 0


def status() -> int:
    """Print what a new interpreter of this venv runs."""
    code = "from server.engine.buildinfo import describe_build; print(describe_build())"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode


#: The compiled pass of the README's test command: the whole suite (it ran just before on the
#: pure build) but the browser tests, and the tests marked ``pure_only``. The browser tests
#: drive the page's JavaScript against a server whose WebSocket door (server/shell/web.py) tests/server
#: covers compiled too; leaving them out keeps CI's time within bounds. ``pure_only`` tests
#: replace a method of a class, or read its ``__dict__``, that is native when compiled (pyproject).
COMPILED_TESTS = ("-n", "4", "--dist", "loadfile", "tests", "--ignore=tests/web", "-m", "not pure_only")


def test() -> int:
    """Build, then run :data:`COMPILED_TESTS` on the compiled build (``SHITHEAD_BUILD=compiled``,
    inherited by the servers and bots the tests start as processes: tests/test_build.py then
    checks that the compiled modules are the ones imported)."""
    code = build()
    if code != 0:
        return code
    env = dict(os.environ, SHITHEAD_BUILD="compiled")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *COMPILED_TESTS], cwd=ROOT, env=env).returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=("build", "status", "clean", "test"))
    args = p.parse_args(argv)
    return {"build": build, "status": status, "clean": clean, "test": test}[args.command]()


if __name__ == "__main__":
    sys.exit(main())
