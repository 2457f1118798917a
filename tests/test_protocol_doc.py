"""docs/PROTOCOL.md is in step with the code.

Each ``*_problems`` function reads the document's text and returns what is wrong with it (an
empty list when nothing is). The tests run them on the real document, and on deliberately
broken copies to show that each check can fail.

What is checked:

* the generated tables (fields of every message, error codes, events, limits, settings) equal
  what ``docs/gen_protocol_tables.py`` makes from the code now;
* every message type has its own ``### `type` `` section, which names every field of the
  message and holds an example of that message marked with its direction;
* every ``json`` code block is valid JSON, and every one that is a message (an object with a
  ``type``) is preceded by ``client → server`` or ``server → client`` and decodes with
  ``protocol.messages.decode_message`` in that direction;
* every transcript line (``> {...}``, ``< {...}``, ``A> {...}``, ``B< {...}``...) decodes in the
  direction of its arrow, and the sample game is what ``docs/make_transcript.py --doc`` prints
  now (tokens, deadlines, clocks and times aside);
* the hex dump is ``encode_frame`` of the JSON shown before it, and the JSON line beside it is
  ``encode_line`` of the same message;
* every error code, limit, event kind, action kind, engine refusal reason, preset, rule option,
  view field and table-summary field appears in the document;
* the default action of the clock and the seq acceptance rule are quoted from the code;
* the 30-line client of the document plays a whole game against a real server.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.framing import encode_frame, encode_line
from protocol.messages import C2S, MESSAGE_CLASSES, S2C, decode_message
from server.config import Limits
from server.engine import OPTION_NAMES, PRESETS, Game, make_rules, parse_action, view_for
from server.engine.actions import KINDS as ACTION_KINDS
from server.engine.errors import IllegalReason
from server.engine.events import EVENT_KINDS
from server.tables import table as table_module
from tests.protocol.shapes import message_problems

ROOT = Path(__file__).resolve().parent.parent
DOC_PATH = ROOT / "docs" / "PROTOCOL.md"
TABLE_EVENTS = ("game_start", "timeout", "back")
MARKERS = {"client → server": "c2s", "server → client": "s2c"}
TRANSCRIPT_LINE = re.compile(r"^([A-Z]?)([<>]) (\{.*\})$")
HEX_LINE = re.compile(r"^((?:[0-9a-f]{2} )*[0-9a-f]{2})(?:\s{2,}.*)?$")


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load("gen_protocol_tables")
make_transcript = _load("make_transcript")


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC_PATH.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- reading the text


@dataclasses.dataclass
class Block:
    lang: str
    body: str
    before: list[str]  # the lines above the opening fence, nearest last


def code_blocks(doc: str) -> list[Block]:
    lines = doc.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            out.append(Block(m.group(1), "\n".join(lines[i + 1 : j]), lines[:i]))
            i = j + 1
        else:
            i += 1
    return out


def marker_of(block: Block) -> str | None:
    """The nearest non-blank line above a block, if it is a direction marker."""
    for line in reversed(block.before):
        if line.strip():
            return MARKERS.get(line.strip().rstrip(":"))
    return None


def sections(doc: str) -> dict[str, str]:
    """Level-3 message sections: heading text -> body (up to the next heading of level <= 3)."""
    out: dict[str, str] = {}
    parts = re.split(r"^(#{1,3} .*)$", doc, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        m = re.fullmatch(r"### `(\w+)`", heading.strip())
        if m:
            if m.group(1) in out:
                out[m.group(1)] += "\n(duplicate section)"
            else:
                out[m.group(1)] = body
    return out


def code_spans(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def _squash(text: str) -> str:
    return " ".join(text.replace("`", "").replace(">", " ").split())


# --------------------------------------------------------------------------- checks


def generated_problems(doc: str) -> list[str]:
    return list(gen.problems(doc))


def message_section_problems(doc: str) -> list[str]:
    problems = []
    found = sections(doc)
    for cls in MESSAGE_CLASSES:
        body = found.get(cls.TYPE)
        if body is None:
            problems.append(f"no section '### `{cls.TYPE}`'")
            continue
        if "(duplicate section)" in body:
            problems.append(f"two sections for {cls.TYPE}")
        spans = code_spans(body)
        for spec in cls.FIELDS:
            if spec.name not in spans:
                problems.append(f"{cls.TYPE}: field {spec.name!r} not mentioned in its section")
        examples = []
        for block in code_blocks(body):
            if block.lang == "json":
                try:
                    obj = json.loads(block.body)
                except ValueError:
                    continue
                if isinstance(obj, dict) and obj.get("type") == cls.TYPE:
                    examples.append(marker_of(block))
        if cls.DIRECTION.value not in examples:
            problems.append(f"{cls.TYPE}: no example marked {cls.DIRECTION.value} in its section")
    for name in found.keys() - set(C2S) - set(S2C):
        problems.append(f"section for unknown message type {name!r}")
    return problems


def json_example_problems(doc: str) -> list[str]:
    problems = []
    for n, block in enumerate(code_blocks(doc)):
        if block.lang != "json":
            continue
        try:
            obj = json.loads(block.body)
        except ValueError as exc:
            problems.append(f"json block {n} is not JSON: {exc}")
            continue
        if not (isinstance(obj, dict) and "type" in obj):
            continue
        direction = marker_of(block)
        if direction is None:
            problems.append(f"json block {n} ({obj['type']}) has no direction marker")
            continue
        try:
            decode_message(obj, direction)
        except Exception as exc:
            problems.append(f"json block {n} ({obj['type']}, {direction}) does not decode: {exc}")
    return problems


def transcript_lines(doc: str) -> list[tuple[str, str, dict[str, Any] | None, str]]:
    """(client, arrow, object or None when not JSON, raw line) of every transcript line."""
    out = []
    for block in code_blocks(doc):
        if block.lang not in ("text", ""):
            continue
        for line in block.body.split("\n"):
            m = TRANSCRIPT_LINE.match(line)
            if m:
                try:
                    obj = json.loads(m.group(3))
                except ValueError:
                    obj = None
                out.append((m.group(1), m.group(2), obj, line))
    return out


def transcript_problems(doc: str) -> list[str]:
    problems = []
    lines = transcript_lines(doc)
    if len(lines) < 100:
        problems.append(f"only {len(lines)} transcript lines found")
    for _who, arrow, obj, line in lines:
        if obj is None:
            problems.append(f"transcript line is not JSON: {line[:80]}")
            continue
        direction = "c2s" if arrow == ">" else "s2c"
        try:
            decode_message(obj, direction)
        except Exception as exc:
            problems.append(f"transcript line does not decode as {direction}: {exc}: {line[:80]}")
    return problems


def _block_after(doc: str, marker: str) -> Block | None:
    pos = doc.find(marker)
    if pos < 0:
        return None
    blocks = code_blocks(doc[pos:])
    return blocks[0] if blocks else None


def hexdump_problems(doc: str) -> list[str]:
    pos = doc.find("<!-- hexdump -->")
    if pos < 0:
        return ["no '<!-- hexdump -->' marker"]
    before = [b for b in code_blocks(doc[:pos]) if b.lang == "json"]
    direction = marker_of(before[-1]) if before else None
    if direction is None:
        return ["no marked json block before the hex dump"]
    obj = json.loads(before[-1].body)
    problems = []
    try:
        decode_message(obj, direction)
    except Exception as exc:
        problems.append(f"the hex dump's message does not decode: {exc}")
    dump = _block_after(doc, "<!-- hexdump -->")
    assert dump is not None
    data = bytearray()
    for line in dump.body.split("\n"):
        m = HEX_LINE.match(line)
        if not m:
            problems.append(f"hex dump line not understood: {line!r}")
            continue
        data += bytes.fromhex(m.group(1))
    want = encode_frame(obj, max_size=None)
    if bytes(data) != want:
        problems.append(f"hex dump {bytes(data).hex(' ')} != encode_frame: {want.hex(' ')}")
    line_block = _block_after(doc, "<!-- jsonline -->")
    if line_block is None:
        problems.append("no '<!-- jsonline -->' block")
    elif (line_block.body + "\n").encode("utf-8") != encode_line(obj):
        problems.append(f"JSON line {line_block.body!r} != encode_line: {encode_line(obj)!r}")
    m = re.search(r"as a JSON line \((\d+) bytes with its newline\)", doc)
    if not m or int(m.group(1)) != len(encode_line(obj)):
        problems.append(f"the JSON line's size in the text is not {len(encode_line(obj))}")
    return problems


def _announce_view() -> dict[str, Any]:
    """A real engine view in the announce phase (it has the one conditional field)."""
    game = Game.new(make_rules("classic", {"opening": "announce"}), 2, seed=1)
    for seat in list(game.to_act()):
        game.apply(seat, parse_action("ready"))
    assert game.phase == "announce"
    return view_for(game, 0)


def _keys_from_transcript(doc: str, type_: str, path: tuple[str, ...]) -> set[str]:
    keys: set[str] = set()
    for _, _, obj, _ in transcript_lines(doc):
        if obj is None or obj.get("type") != type_:
            continue
        value: Any = obj
        for p in path:
            value = value.get(p) if isinstance(value, dict) else None
        if isinstance(value, dict) and "…" not in value:
            keys |= set(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    keys |= set(item)
    return keys


def name_problems(doc: str) -> list[str]:
    spans = code_spans(doc)
    first_words = {s.split()[0] for s in spans if s.split()}
    problems = []
    wanted = {
        "error code": [c.value for c in ErrorCode],
        "limit": [f.name for f in dataclasses.fields(Limits)],
        "event kind": list(EVENT_KINDS) + list(TABLE_EVENTS),
        "engine reason": [c.value for c in IllegalReason],
        "preset": list(PRESETS),
        "rule option": list(OPTION_NAMES),
    }
    for what, names in wanted.items():
        for name in names:
            if name not in spans:
                problems.append(f"{what} {name!r} does not appear as `{name}`")
    for kind in sorted(ACTION_KINDS):
        if kind not in first_words:
            problems.append(f"action kind {kind!r} has no example such as `{kind} ...`")
    view = _announce_view()
    fields = set(view) | set(view["players"][0]) | set(view["to_beat"])
    fields |= _keys_from_transcript(doc, "state", ("view",))
    fields |= _keys_from_transcript(doc, "state", ("view", "players"))
    fields |= _keys_from_transcript(doc, "state", ("view", "to_beat"))
    for name in sorted(fields):
        if name not in spans:
            problems.append(f"view field {name!r} is not described")
    summary = _keys_from_transcript(doc, "table_update", ("summary",))
    summary |= _keys_from_transcript(doc, "table_update", ("summary", "seats"))
    summary |= set(table_module.Table(1, "t", "o", make_rules("classic"), 2).summary())
    for what, path in (
        ("game_over result", ("result",)),
        ("game_over tally", ("tally",)),
        ("record", ("record",)),
        ("game record", ("record", "record")),
    ):
        summary |= _keys_from_transcript(doc, "game_over" if "game_over" in what else "record", path)
    for name in sorted(summary):
        if name not in spans:
            problems.append(f"field {name!r} of a summary, result, tally or record is not described")
    return problems


def quote_problems(doc: str) -> list[str]:
    """The clock's default action and the seq rule are copied from server/tables/table.py."""
    problems = []
    text = _squash(doc)
    # (From the source: a compiled module keeps no docstrings.)
    source = ast.parse((ROOT / "server" / "tables" / "table.py").read_text(encoding="utf-8"))
    functions = {f.name: f for f in source.body if isinstance(f, ast.FunctionDef)}
    rule = ast.get_docstring(functions["default_action"]) or ""
    rule = rule.split("documented in PROTOCOL.md):", 1)[1]
    if _squash(rule) not in text:
        problems.append(f"the default action rule of server/tables/table.py is not quoted: {_squash(rule)!r}")
    m = re.search(r"An act names the seq .*?STALE_SEQ\.", _squash(ast.get_docstring(source) or ""))
    assert m, "server/tables/table.py no longer states the seq rule in its docstring"
    if m.group(0) not in text:
        problems.append(f"the seq rule of server/tables/table.py is not quoted: {m.group(0)!r}")
    return problems


# --------------------------------------------------------------------------- tests on the doc


def test_generated_tables_are_in_step(doc: str) -> None:
    assert generated_problems(doc) == []


def test_every_message_has_a_section_with_its_fields_and_an_example(doc: str) -> None:
    assert len(MESSAGE_CLASSES) == len(C2S) + len(S2C) >= 27
    assert message_section_problems(doc) == []


def test_json_examples_decode(doc: str) -> None:
    assert sum(b.lang == "json" for b in code_blocks(doc)) >= len(MESSAGE_CLASSES)
    assert json_example_problems(doc) == []


def test_transcript_lines_decode(doc: str) -> None:
    assert transcript_problems(doc) == []


def test_hexdump_matches_encode_frame(doc: str) -> None:
    assert hexdump_problems(doc) == []


def test_every_name_appears(doc: str) -> None:
    assert name_problems(doc) == []


def test_rules_are_quoted_from_the_code(doc: str) -> None:
    assert quote_problems(doc) == []


# --------------------------------------------------------------------------- the checks can fail


def _without_section(doc: str, type_: str) -> str:
    start = doc.index(f"### `{type_}`")
    end = doc.index("\n### ", start + 1)
    return doc[:start] + doc[end + 1 :]


def test_checks_fail_on_a_broken_document(doc: str) -> None:
    # A message section removed.
    broken = _without_section(doc, "watching")
    assert any("watching" in p for p in message_section_problems(broken))
    assert any("watching" in p for p in generated_problems(broken))
    # A field renamed in an example: it no longer decodes.
    broken = doc.replace('{"type":"leave","id":6,"table":1}', '{"type":"leave","id":6,"tabel":1}')
    assert broken != doc and any("leave" in p for p in json_example_problems(broken))
    # An example without its direction marker, and one marked with the wrong direction.
    broken = doc.replace('client → server\n```json\n{"type":"ping"', '```json\n{"type":"ping"')
    assert broken != doc and any("no direction marker" in p for p in json_example_problems(broken))
    broken = doc.replace('client → server\n```json\n{"type":"ping"', 'server → client\n```json\n{"type":"ping"')
    assert broken != doc and any("ping" in p for p in json_example_problems(broken))
    # An error code row deleted from the generated table.
    broken = re.sub(r"^\| `SLOW_READER` .*\n", "", doc, flags=re.M)
    assert broken != doc and generated_problems(broken)
    # One byte of the hex dump changed.
    broken = doc.replace("a5 68 65 6c 6c 6f ", "a5 68 65 6c 6c 6e ", 1)
    assert broken != doc and hexdump_problems(broken)
    # A transcript line sent the wrong way.
    broken = doc.replace('B> {"type":"ping"', 'B< {"type":"ping"', 1)
    assert broken != doc and any("s2c" in p for p in transcript_problems(broken))
    # An event kind and a view field no longer mentioned.
    broken = doc.replace("`gambled`", "gambled").replace("`drew_this_turn`", "drew_this_turn")
    problems = name_problems(broken)
    assert any("gambled" in p for p in problems) and any("drew_this_turn" in p for p in problems)
    # The default action described differently.
    broken = doc.replace("the one greedy choice of the project", "something")
    assert broken != doc and quote_problems(broken)


# --------------------------------------------------------------------------- against a real server

_VOLATILE = {"token", "deadline", "left", "times", "started", "ended"}  # ("left": a clock's seconds)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<varies>" if k in _VOLATILE else _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def transcript_diff(doc: str, fresh: list[str]) -> list[str]:
    """Differences between the document's sample game and a fresh --doc run."""
    start, end = doc.find(make_transcript.BEGIN), doc.find(make_transcript.END)
    if start < 0 or end < 0:
        return ["the sample game's markers are missing"]
    blocks = code_blocks(doc[start:end])
    if len(blocks) != 1:
        return [f"{len(blocks)} code blocks between the sample game's markers (want 1)"]
    shown = blocks[0].body.split("\n")
    problems = []
    if len(shown) != len(fresh):
        problems.append(f"the document shows {len(shown)} lines, a fresh run prints {len(fresh)}")
    for i, (a, b) in enumerate(zip(shown, fresh, strict=False)):
        ma, mb = TRANSCRIPT_LINE.match(a), TRANSCRIPT_LINE.match(b)
        if ma and mb:
            same = ma.group(1, 2) == mb.group(1, 2) and _mask(json.loads(ma.group(3))) == _mask(json.loads(mb.group(3)))
        else:
            same = a == b
        if not same:
            problems.append(f"line {i + 1} differs:\n  document: {a[:200]}\n  fresh:    {b[:200]}")
            break
    return problems


def test_sample_game_is_what_the_server_does_now(doc: str) -> None:
    """Run docs/make_transcript.py --doc: the document shows that game (volatile values aside).
    If this fails after a change to the server, run ``docs/make_transcript.py --write``."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_transcript.py"), "--doc"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    fresh = run.stdout.rstrip("\n").split("\n")
    assert transcript_diff(doc, fresh) == []
    # ... and the comparison notices a changed line.
    changed = list(fresh)
    i = next(i for i, line in enumerate(changed) if '"type":"pong"' in line)
    changed[i] = changed[i].replace('"type":"pong"', '"type":"ok"')
    assert transcript_diff(doc, changed)


async def test_what_the_server_sends_has_the_declared_shapes() -> None:
    """Every message of a real game (the sample game uncut: views, events, summaries, result,
    tally, record, limits) has the shapes that ``protocol.payloads`` declares."""
    kinds: set[str] = set()
    problems = []
    for line in await make_transcript.play(doc=False):
        m = TRANSCRIPT_LINE.match(line)
        if m:
            msg = decode_message(json.loads(m.group(3)), "c2s" if m.group(2) == ">" else "s2c")
            kinds.add(msg.TYPE)
            problems += message_problems(msg)
    assert {"welcome", "state", "table_update", "game_over", "record", "presence"} <= kinds
    assert problems == []


async def _read(reader: asyncio.StreamReader) -> dict[str, Any]:
    line = await asyncio.wait_for(reader.readline(), 60)
    assert line, "the server closed the connection"
    return json.loads(line)


async def test_minimal_client_plays_a_game(doc: str) -> None:
    """The 30-line client of section 16, run as two bots, plays a whole game."""
    from server.config import ServerConfig
    from server.shell.app import App

    block = _block_after(doc, "<!-- minimal-client -->")
    assert block is not None and block.lang == "python"
    assert len(block.body.strip().split("\n")) <= 35, "no longer a 30-line client"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "minibot.py"
        script.write_text(block.body, encoding="utf-8")
        app = App(ServerConfig(host="127.0.0.1", port=0, db=str(Path(tmp) / "db.sqlite3")))
        await app.start()
        bots: list[asyncio.subprocess.Process] = []
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", app.port)

            def send(**msg: Any) -> None:
                writer.write(json.dumps(msg).encode() + b"\n")

            send(type="hello", id=1, version=1)
            send(type="login", id=2, name="owner", guest=True)
            send(type="create_table", id=3, name="bots", preset="classic", seats=2, seed=7)
            send(type="watch", id=4, table=1)
            while (await _read(reader))["type"] != "watching":  # the table exists before bots join
                pass
            for name in ("minibot1", "minibot2"):
                bots.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        str(script),
                        name,
                        "1",
                        "127.0.0.1",
                        str(app.port),
                        stdout=asyncio.subprocess.PIPE,
                        stderr=asyncio.subprocess.PIPE,
                        env={**os.environ, "PYTHONUNBUFFERED": "1"},
                    )
                )
            while True:
                msg = await _read(reader)
                if msg["type"] == "table_update" and msg["summary"]["free"] == 0:
                    break
            send(type="start", id=5, table=1)
            while True:
                msg = await _read(reader)
                if msg["type"] == "game_over":
                    break
            assert sorted(msg["result"]["places"]) == [0, 1]
            writer.close()
            # Each bot prints the game_over it received (it never exits by itself).
            outputs = [await _printed_until(p, "'type': 'game_over'") for p in bots]
        finally:
            for p in bots:
                if p.returncode is None:
                    p.kill()
                await p.wait()
            await app.stop()
        for out in outputs:
            assert "'type': 'game_over'" in out, out[-2000:]


async def _printed_until(p: asyncio.subprocess.Process, text: str, timeout: float = 30.0) -> str:
    """What ``p`` printed, up to the first line containing ``text`` (or its end, or the timeout)."""
    assert p.stdout is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while line := (await p.stdout.readline()).decode():
                lines.append(line)
                if text in line:
                    break
    except TimeoutError:
        pass
    return "".join(lines)
