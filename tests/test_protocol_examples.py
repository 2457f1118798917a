"""Every example of docs/PROTOCOL.md has the shape its message declares.

``tests/test_protocol_doc.py`` decodes the examples: their own fields are present, known and of
their types. This test goes down into what they carry (views, events, summaries, limits,
results, records, tournament infos), against the declarations of :mod:`protocol.payloads`:
every required key present, no undeclared key, every value of its declared type, as far down
as the declarations go. An example that shows less than the server sends must say so with the
cut marks that PROTOCOL.md explains near its top (:mod:`tests.protocol.shapes`: a ``"…"`` key in
a map, a last item ``"… N more"`` in a list).

What counts as an example, and how its shape is known:

* a ``json`` code block holding a message (a map with ``type``), under its direction marker
  (``client → server`` or ``server → client``): the message of that type and direction;
* a ``json`` code block holding a payload, on the line after a ``<!-- shape: NAME -->``
  comment, where NAME is a declaration of :mod:`protocol.payloads` (``TableSummary``) or a list
  of one (``list[Event]``); a ``json`` block that is neither is a problem, so that no example
  escapes the check;
* a transcript line (``> {...}``, ``A< {...}``) in a text block: a message in the direction of
  its arrow;
* a message in single quotes in a ``sh`` block (``printf '%s\\n' '{"type":"hello",...}'``):
  sent by the client.

One requirement is stated by the document rather than by a declaration: ``View.clocks`` is
``NotRequired`` (a view computed in-process by the engine has none) but "in every ``state``
the server sends" (its own doc). :data:`STATE_VIEW_ALWAYS` holds the state examples to it, and
:func:`test_every_state_of_a_real_game_has_clocks` holds the server to it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from protocol import payloads
from protocol.messages import decode_message
from tests.protocol.shapes import CUT, message_problems, shape_problems
from tests.test_protocol_doc import TRANSCRIPT_LINE, code_blocks, make_transcript, marker_of

ROOT = Path(__file__).resolve().parent.parent
DOC_PATH = ROOT / "docs" / "PROTOCOL.md"
SHAPE_MARKER = re.compile(r"^<!-- shape: (\w+|list\[\w+\]) -->$")
#: A message in single quotes on a shell command line (what section 17 pipes into nc).
SHELL_MESSAGE = re.compile(r"'(\{\"type\".*?\})'")
#: Keys of ``state.view`` that the document promises in every state the server sends although
#: the declaration marks them NotRequired (see the module's docstring).
STATE_VIEW_ALWAYS = ("clocks",)


@dataclass(frozen=True)
class Example:
    """One example of the document: where it is (for the report), what it is, its value."""

    where: str
    shape: str  # a message direction ("c2s", "s2c"), a payload name, or "" when unknown
    value: Any


def examples(doc: str) -> tuple[list[Example], list[str]]:
    """Every example of ``doc``, and the json blocks that are not recognisable as one."""
    found: list[Example] = []
    problems: list[str] = []
    for block in code_blocks(doc):
        first = len(block.before) + 2  # the line number of the block's first body line
        if block.lang == "json":
            where = f"json block at line {first}"
            try:
                value = json.loads(block.body)
            except ValueError as exc:
                problems.append(f"{where} is not JSON: {exc}")
                continue
            above = next((line.strip() for line in reversed(block.before) if line.strip()), "")
            shape = SHAPE_MARKER.match(above)
            if isinstance(value, dict) and "type" in value:
                direction = marker_of(block)
                if direction is None:
                    problems.append(f"{where} ({value['type']}) has no direction marker")
                else:
                    found.append(Example(where, direction, value))
            elif shape:
                found.append(Example(where, shape.group(1), value))
            else:
                problems.append(
                    f"{where} is neither a message under a direction marker nor marked <!-- shape: NAME -->"
                )
        elif block.lang in ("text", ""):
            for i, line in enumerate(block.body.split("\n")):
                m = TRANSCRIPT_LINE.match(line)
                if m:
                    where = f"transcript line {first + i}"
                    try:
                        value = json.loads(m.group(3))
                    except ValueError as exc:
                        problems.append(f"{where} is not JSON: {exc}")
                        continue
                    found.append(Example(where, "c2s" if m.group(2) == ">" else "s2c", value))
        elif block.lang == "sh":
            for i, line in enumerate(block.body.split("\n")):
                for text in SHELL_MESSAGE.findall(line):
                    found.append(Example(f"shell line {first + i}", "c2s", json.loads(text)))
    return found, problems


def _payload_hint(name: str) -> Any:
    m = re.fullmatch(r"list\[(\w+)\]", name)
    inner = getattr(payloads, m.group(1) if m else name, None)
    if inner is None:
        raise LookupError(f"protocol.payloads declares no {m.group(1) if m else name!r}")
    return list[inner] if m else inner  # type: ignore[valid-type]


def example_problems(example: Example) -> list[str]:
    """What is wrong with one example: empty when it has its declared shape."""
    where, value = example.where, example.value
    if example.shape not in ("c2s", "s2c"):
        try:
            hint = _payload_hint(example.shape)
        except LookupError as exc:
            return [f"{where}: {exc}"]
        return [f"{where}: {p}" for p in shape_problems(value, hint, example.shape, cuts=True)]
    try:
        msg = decode_message(value, example.shape)
    except Exception as exc:
        return [f"{where}: {value.get('type')!r} does not decode as {example.shape}: {exc}"]
    problems = message_problems(msg, cuts=True)
    if msg.TYPE == "state":
        view = value["view"]
        if isinstance(view, dict) and CUT not in view:
            problems += [
                f"state.view lacks {k!r}, which every state carries" for k in STATE_VIEW_ALWAYS if k not in view
            ]
    return [f"{where}: {p}" for p in problems]


def document_problems(doc: str) -> list[str]:
    found, problems = examples(doc)
    for example in found:
        problems += example_problems(example)
    return problems


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC_PATH.read_text(encoding="utf-8")


def test_every_example_has_its_declared_shape(doc: str) -> None:
    found, _ = examples(doc)
    kinds = {e.value.get("type") for e in found if isinstance(e.value, dict)}
    # The reference has an example of every message, the sample game well over a hundred lines.
    assert len(found) > 150 and {"welcome", "state", "tables", "table_update", "tournament_over"} <= kinds
    assert any(e.shape == "TableSummary" for e in found) and any(e.shape == "list[Event]" for e in found)
    assert document_problems(doc) == []


def _replace_once(doc: str, old: str, new: str) -> str:
    assert doc.count(old) >= 1, f"the document no longer holds {old!r}"
    return doc.replace(old, new, 1)


def test_the_check_finds_what_is_missing_unknown_or_cut_unmarked(doc: str) -> None:
    """Broken copies of the document: each breakage is reported where it is."""
    # A required key of a payload left out (the limits of welcome).
    broken = _replace_once(doc, '"restart_grace":30.0,', "")
    assert any("WelcomeLimits lacks 'restart_grace'" in p for p in document_problems(broken))
    # A key no declaration knows, deep inside a summary.
    broken = _replace_once(doc, '"stand_in":null}', '"stand_in":null,"colour":"red"}')
    assert any("undeclared key 'colour' in SeatSummary" in p for p in document_problems(broken))
    # A value of the wrong type in an event.
    broken = _replace_once(doc, '{"kind":"burned","seat":0,"count":12}', '{"kind":"burned","seat":0,"count":"12"}')
    assert any("list[Event][1].count: '12' is not an int" in p for p in document_problems(broken))
    # A cut mark removed: the map now lacks what it left out.
    broken = _replace_once(doc, '"legal":[],"…":"14 more fields"}', '"legal":[]}')
    assert any("View lacks" in p for p in document_problems(broken))
    # A cut mark that does not say what was cut.
    broken = _replace_once(doc, '"legal":[],"…":"14 more fields"}', '"legal":[],"…":""}')
    assert any("must say what was left out" in p for p in document_problems(broken))
    # A state's view without clocks, and a payload example without its shape marker.
    assert any("lacks 'clocks'" in p for p in document_problems(_replace_once(doc, ',"clocks":[]', "")))
    broken = _replace_once(doc, "<!-- shape: TableSummary -->\n", "")
    assert any("neither a message" in p for p in document_problems(broken))
    # A message piped to nc with a field of the wrong type.
    broken = _replace_once(
        doc, """'{"type":"hello","id":1,"version":1}'""", """'{"type":"hello","id":1,"version":"1"}'"""
    )
    assert any(p.startswith("shell line") for p in document_problems(broken))


async def test_every_state_of_a_real_game_has_clocks() -> None:
    """The requirement :data:`STATE_VIEW_ALWAYS` holds the examples to is what the server does."""
    states = 0
    for line in await make_transcript.play(doc=False):
        m = TRANSCRIPT_LINE.match(line)
        if m and '"type":"state"' in line:
            states += 1
            view = json.loads(m.group(3))["view"]
            assert all(k in view for k in STATE_VIEW_ALWAYS), line[:200]
    assert states > 50
