"""The page's name rule (client/web/js/names.js) is the server's (protocol/names.py): its unit
tests under node (tests/web/js/), and the same verdict and words as the server for names of
every kind, run through node.

Without node these tests skip with one line; with SHITHEAD_REQUIRE_BROWSER=1 (CI) they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol.names import MAX_NAME, NAME_RULE, name_error, normalize_name

ROOT = Path(__file__).resolve().parent.parent.parent
NAMES_JS = ROOT / "client" / "web" / "js" / "names.js"
NO_NODE = "no node: install Debian's nodejs to run the web client's JavaScript unit tests"

SAMPLES = [
    # accepted
    "Anna Maria",
    "Zoë",
    "Zoe\u0308",  # NFD: becomes "Zoë"
    "Mum's phone",
    "Mum’s phone",
    "🦊 Fox",
    "  Dana  ",
    "a\t\tb",
    "bob\u00a0smith",
    "a\u3000b",
    "a\x1cb",  # a separator Python counts as white space (JavaScript's \s does not)
    "a\x85b",
    "ＤＡＮＡ",
    "José-Luis",
    "o.k_",
    "Ελένη",
    "李小龍",
    "Вася",
    "دانا",
    "नमस्ते",
    "👩‍👩‍👧",
    "👩🏽‍💻",
    "❤️‍🔥",
    "1️⃣ up",
    "x" * MAX_NAME,
    "🦊" * MAX_NAME,
    "👍🏽" * (MAX_NAME // 2),
    "greedy-2",
    # refused
    "",
    "   ",
    "x" * (MAX_NAME + 1),
    "🦊" * (MAX_NAME + 1),
    "<b>",
    "a\u200bb",
    "a\u200db",
    "\u0301a",
    "a\x00b",
    "a\\b",
    'a"b',
    "a/b",
    "a@b",
    "a\u202eb",
    "\u200d🦊",
    "🦊\u200d",
    "a^b",
    "a`b",
    "\ufeffa",
    "a\ue000b",
]


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("SHITHEAD_REQUIRE_BROWSER") == "1":
            pytest.fail(NO_NODE, pytrace=False)
        pytest.skip(NO_NODE)
    return node


def test_the_javascript_unit_tests_pass() -> None:
    """``node --test tests/web/js/``: every JavaScript unit test of the web client passes."""
    out = subprocess.run(
        [_node(), "--test", "tests/web/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_page_and_the_server_judge_names_alike() -> None:
    """For each sample, the page's normalized name and refusal (or none) are the server's, word for word."""
    script = (
        f"import {{ MAX_NAME, NAME_RULE, nameError, normalizeName }} from {json.dumps(NAMES_JS.as_uri())};\n"
        "let text = ''; process.stdin.on('data', (d) => (text += d));\n"
        "process.stdin.on('end', () => {\n"
        "  const out = JSON.parse(text).map((raw) => { const n = normalizeName(raw); return [n, nameError(n)]; });\n"
        "  console.log(JSON.stringify({ MAX_NAME, NAME_RULE, out }));\n"
        "});\n"
    )
    run = subprocess.run(
        [_node(), "--input-type=module", "-e", script],
        input=json.dumps(SAMPLES),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert (got["MAX_NAME"], got["NAME_RULE"]) == (MAX_NAME, NAME_RULE)
    want = [[normalize_name(raw), name_error(normalize_name(raw))] for raw in SAMPLES]
    for raw, js, py in zip(SAMPLES, got["out"], want, strict=True):
        assert js == py, f"{raw!r}: page {js!r}, server {py!r}"
    assert any(err is None for _, err in want) and any(err is not None for _, err in want)
