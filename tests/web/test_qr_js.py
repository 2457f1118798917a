"""The page's QR codes (client/web/js/qr.js, for a table's invitation link) are the ones segno,
the server's QR library, makes: the same modules for the same data, version and mask, for
every mask and for versions 1 to 10 (run through node).

segno pads a byte-aligned bit stream with one more zero byte than ISO/IEC 18004 asks (its
padding step adds 8 bits when none are needed), so the modules are compared on the data
codewords segno encodes, read back from its own symbol; the page's own data codewords are
checked against the standard's example of byte mode separately.

Without node these tests skip with one line; with SHITHEAD_REQUIRE_BROWSER=1 (CI) they fail.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import segno

from tests.web.test_names_js import _node

ROOT = Path(__file__).resolve().parent.parent.parent
QR_JS = (ROOT / "client" / "web" / "js" / "qr.js").as_uri()
TEXTS = [
    "a",
    "http://192.168.1.20:7433/?table=12",
    "http://127.0.0.1:45678/?table=3",
    "x" * 60,
    "ü🦊" * 20,
    "http://kitchen.lan:7433/?table=123456789" + "y" * 110,
    "z" * 200,
]


def _function_module(size: int, version: int, x: int, y: int) -> bool:
    """Whether (x, y) belongs to the finders, timing, format or version areas (alignment
    patterns are found from segno's matrix: they are never data in both)."""
    if x == 6 or y == 6 or (x < 9 and y < 9) or (x >= size - 8 and y < 9) or (x < 9 and y >= size - 8):
        return True
    return version >= 7 and ((x >= size - 11 and y < 6) or (y >= size - 11 and x < 6))


def _alignment(version: int) -> list[int]:
    return [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]][
        version
    ]


def _segno_data_codewords(q: segno.QRCode) -> list[int]:
    """The data and error correction codewords of segno's symbol, read back in placement order."""
    size, version, mask = len(q.matrix), int(q.version), int(q.mask)
    masks = [
        lambda x, y: (x + y) % 2 == 0,
        lambda x, y: y % 2 == 0,
        lambda x, y: x % 3 == 0,
        lambda x, y: (x + y) % 3 == 0,
        lambda x, y: (x // 3 + y // 2) % 2 == 0,
        lambda x, y: (x * y) % 2 + (x * y) % 3 == 0,
        lambda x, y: ((x * y) % 2 + (x * y) % 3) % 2 == 0,
        lambda x, y: ((x + y) % 2 + (x * y) % 3) % 2 == 0,
    ]
    at = _alignment(version)
    last = len(at) - 1
    fixed = {
        (ax + dx, ay + dy)
        for i, ax in enumerate(at)
        for j, ay in enumerate(at)
        if (i, j) not in ((0, 0), (0, last), (last, 0))
        for dx in range(-2, 3)
        for dy in range(-2, 3)
    }
    bits: list[int] = []
    right = size - 1
    while right >= 1:
        if right == 6:
            right = 5
        for vert in range(size):
            for j in range(2):
                x = right - j
                y = size - 1 - vert if ((right + 1) & 2) == 0 else vert
                if not _function_module(size, version, x, y) and (x, y) not in fixed:
                    bits.append((q.matrix[y][x] & 1) ^ int(masks[mask](x, y)))
        right -= 2
    return [int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits) - 7, 8)]


def _run(script: str, arg: object) -> object:
    out = subprocess.run(
        [_node(), "--input-type=module", "-e", script, json.dumps(arg)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_page_draws_the_modules_segno_draws() -> None:
    """For each text and each mask: segno's symbol (level M), and the page's from the same data
    codewords at the same version, have the same modules."""
    cases = []
    for text in TEXTS:
        for mask in range(8):
            q = segno.make(text, error="m", mask=mask, mode="byte", boost_error=False, micro=False)
            version = int(q.version)
            data_count = {1: 16, 2: 28, 3: 44, 4: 64, 5: 86, 6: 108, 7: 124, 8: 154, 9: 182, 10: 216}[version]
            # (interleaved: the first data_count codewords are the data of every block, in turn)
            cases.append(
                {
                    "text": text,
                    "mask": mask,
                    "version": version,
                    "interleaved": _segno_data_codewords(q)[:data_count],
                    "want": ["".join(str(b & 1) for b in row) for row in q.matrix],
                }
            )
    script = (
        f"import {{ matrixOf }} from {json.dumps(QR_JS)};\n"
        "const blocks = {1: [1, 16, 0], 2: [1, 28, 0], 3: [1, 44, 0], 4: [2, 32, 0], 5: [2, 43, 0],\n"
        "  6: [4, 27, 0], 7: [4, 31, 0], 8: [4, 38, 2], 9: [5, 36, 2], 10: [5, 43, 1]};\n"
        "const out = JSON.parse(process.argv[1]).map((c) => {\n"
        "  const [n, short, long] = blocks[c.version];\n"
        "  const parts = Array.from({ length: n }, (_, i) => []);\n"
        "  let k = 0;\n"
        "  for (let i = 0; i <= short; i++)\n"
        "    for (let b = 0; b < n; b++) if (i < short + (b >= n - long ? 1 : 0)) parts[b].push(c.interleaved[k++]);\n"
        "  return matrixOf(parts.flat(), c.version, c.mask).map((r) => r.map(Number).join(''));\n"
        "});\n"
        "console.log(JSON.stringify(out));\n"
    )
    got = _run(script, cases)
    assert isinstance(got, list)
    versions = set()
    for case, rows in zip(cases, got, strict=True):
        assert rows == case["want"], (case["text"], case["mask"], case["version"])
        versions.add(case["version"])
    assert {1, 3, 7, 10} <= versions


def test_the_data_codewords_follow_the_standard() -> None:
    """Byte mode, an 8-bit count, the 4-bit terminator, zero bits to the byte, then 0xEC 0x11
    in turn: "a" at version 1 level M (16 data codewords)."""
    script = (
        f"import {{ dataCodewords, qrMatrix }} from {json.dumps(QR_JS)};\n"
        "const arg = JSON.parse(process.argv[1]);\n"
        "const words = dataCodewords([...new TextEncoder().encode(arg)], 1);\n"
        "console.log(JSON.stringify({ words, size: qrMatrix(arg).length }));\n"
    )
    got = _run(script, "a")
    assert got == {"words": [0x40, 0x16, 0x10, *([0xEC, 0x11] * 6), 0xEC], "size": 21}
