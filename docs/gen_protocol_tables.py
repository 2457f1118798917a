#!/usr/bin/env python3
"""Generate the tables of docs/PROTOCOL.md from the code, so that they cannot drift.

    .venv/bin/python docs/gen_protocol_tables.py           # check: exit 1 if PROTOCOL.md is stale
    .venv/bin/python docs/gen_protocol_tables.py --write   # rewrite the generated blocks

Each generated block sits between ``<!-- BEGIN gen_protocol_tables.py: NAME -->`` and
``<!-- END gen_protocol_tables.py: NAME -->``. The blocks are

* ``fields:TYPE``: the field table of every message (``protocol.messages``: each class's
  ``FIELDS`` specs and their docs, defaults from the dataclass);
* ``errors``: every ``protocol.errors.ErrorCode`` with ``FATAL`` and ``ERROR_HELP``;
* ``payload:NAME``: the keys of every nested map (``protocol.payloads``: each TypedDict's keys,
  their types, whether they may be absent, and the doc in their ``Annotated``);
* ``events``: every event kind (the event TypedDicts of ``protocol.payloads``, checked against
  the engine's ``server.engine.events`` and the table's own kinds);
* ``limits`` and ``settings``: ``server.config.Limits`` and ``ServerConfig`` with their defaults
  and whether ``welcome.limits`` (``protocol.payloads.WelcomeLimits``) carries them.

Everything else in the document is written by hand; ``tests/test_protocol_doc.py`` checks it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import types
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol.errors import ERROR_HELP, FATAL, ErrorCode  # noqa: E402
from protocol.fields import INT64_MAX, INT64_MIN, FieldSpec, Kind  # noqa: E402
from protocol.messages import MAX_ID, MESSAGE_CLASSES, Message  # noqa: E402
from protocol.payloads import EVENT_TYPES, PAYLOADS, TABLE_EVENT_KINDS, WelcomeLimits  # noqa: E402
from server.config import Limits, ServerConfig  # noqa: E402
from server.engine.events import _FIELDS as ENGINE_EVENT_FIELDS  # noqa: E402

DOC = ROOT / "docs" / "PROTOCOL.md"
BLOCK = re.compile(
    r"<!-- BEGIN gen_protocol_tables\.py: (?P<name>[\w:]+) -->\n(?P<body>.*?)"
    r"<!-- END gen_protocol_tables\.py: (?P=name) -->",
    re.S,
)

LIMIT_HELP: dict[str, str] = {
    "max_frame_in": "Largest frame body / JSON line a client may send after login, in bytes."
    " Larger: fatal `FRAME_TOO_LARGE`.",
    "max_frame_in_before_login": "The same before `logged_in` (hello and login are small)."
    " Larger: fatal `FRAME_TOO_LARGE`.",
    "max_frame_out": "Largest frame the server sends (views, lists, game records).",
    "max_connections": "Connections to the server at once. Beyond: fatal `TOO_MANY_CONNECTIONS` at connect.",
    "max_connections_per_address": "Connections from one IP address at once. Beyond: fatal"
    " `TOO_MANY_CONNECTIONS` at connect.",
    "rate_per_second": "Messages per second a connection may send, sustained (token bucket)."
    " An applied `act` is free. Beyond: `RATE_LIMITED` with `retry_after`;"
    " the message is dropped.",
    "rate_burst": "Size of the token bucket: messages allowed at once above the sustained rate.",
    "max_output_buffer": "Bytes the server holds for a client that does not read. Beyond: the"
    " connection is dropped without a message, and its seat goes away.",
    "handshake_timeout": "Seconds from connecting to `logged_in` (hello and login). Beyond: fatal `HANDSHAKE_TIMEOUT`.",
    "idle_timeout": "Seconds without receiving any message (ping counts). Beyond: fatal `IDLE_TIMEOUT`.",
    "max_tables": "Open tables on the server. Beyond: `create_table` gets `TABLE_FULL`.",
    "max_spectators": "Watchers per table. Beyond: `watch` gets `TABLE_FULL`.",
    "scrypt_concurrency": "Password hashes computed at once; further logins wait their turn.",
    "tables_per_player": "Tables one player (an account, or one guest) owns at once; tournament tables"
    " count for nobody. Beyond: `create_table` gets `QUOTA_EXCEEDED` with `retry_after`.",
    "tables_per_address": "Open tables opened from one IP address (several guests of one person count"
    " together). Beyond: `create_table` gets `QUOTA_EXCEEDED` with `retry_after`.",
    "tournaments_per_player": "Unfinished tournaments one player organises. Beyond: `create_tournament`"
    " gets `QUOTA_EXCEEDED` with `retry_after`.",
    "tournaments_per_address": "Unfinished tournaments created from one IP address. Beyond:"
    " `create_tournament` gets `QUOTA_EXCEEDED` with `retry_after`.",
    "tournament_tables": "Largest `concurrency` of a tournament (and never more than half of `max_tables`;"
    " `welcome.limits` carries the bound that results). Beyond: `BAD_TOURNAMENT`.",
    "tournament_games": "Largest `games` of a tournament. Beyond: `BAD_TOURNAMENT`.",
    "tournament_bots": "Most bundled bots (`create_tournament.bots`) in a tournament. Beyond: `BAD_TOURNAMENT`.",
    "bot_tables": "Tables of tournaments with bundled bots playing at once on the whole server. Beyond:"
    " the next games wait their turn (fairly shared between the tournaments).",
    "ladder_tables": "Ladder games playing at once on the whole server (0: none). Beyond: ladder bots wait"
    " for a table to finish; people's tables are never held back for the ladder.",
}

SETTING_HELP: dict[str, str] = {
    "host": "Address to listen on (`--host`); every interface by default.",
    "port": "TCP port (`--port`; 0 picks a free one).",
    "db": "SQLite file with accounts, finished games and the live state of tables (`--db`).",
    "password": "Server password asked in `login.server_password` (`--password`); none: open.",
    "allow_guests": "Whether `login` with `guest: true` is allowed (`--no-guests`); viewers"
    " (`viewer: true`, who only read) are let in either way.",
    "log_level": "DEBUG, INFO, WARNING or ERROR (`--log-level`).",
    "reconnect_grace": "Seconds an absent seat's clock runs normally; after that the server"
    " plays for it at once (`--reconnect-grace`).",
    "restart_grace": "Seconds added to every running clock when the server starts again with games"
    " in progress, for everyone to reconnect (`--restart-grace`).",
    "synchronous": "SQLite `synchronous`: `normal` (a server crash loses nothing acknowledged, a power"
    " cut can lose the last seconds) or `full` (each commit synced to the disk; `--sync`).",
    "action_seconds": "Clock per action of a table that does not set `action_seconds` (`--action-seconds`).",
    "bank_seconds": "Time bank per seat and game of a table that does not set `bank_seconds`.",
    "bot_delay": "Seconds the server's own bots (`add_bot`, stand-ins) wait before each of their plays at"
    " a table where a person holds a seat, so that people can follow the play (`--bot-delay`; 0: no wait)."
    " Bots at bot-only tables and in tournaments play at once.",
    "advertise": "Announce the server on the LAN by DNS-SD (`--no-advertise`: false); see Transport.",
    "web": "Serve the browser client and its WebSocket on the same port (`--no-web`: false); see WebSocket.",
    "name": "The server's name in the clients' list of servers found (`--name`; empty: the machine's name).",
    "operators": "Accounts of the server's owners: they may `cancel_tournament` any tournament and are"
    " held to no quota of one player or one address.",
    "tournament_nice": "How much lower the CPU priority (`nice`) of the process that runs tournaments'"
    " bundled bots is than the server's (0: the same): they use the CPU the tables leave.",
    "ladder_baselines": "The bundled bots the ladder seats as baselines beside its members (`null`: every"
    " bundled bot; `[]`: none, members play only each other).",
    "web_hosts": "Host names a browser may use for the server besides its addresses, `localhost` and the"
    " machine's names (`NAME`, `NAME.local`): only pages opened under those may use the WebSocket"
    " (see WebSocket).",
}


# --------------------------------------------------------------------------- formatting


def _num(x: float) -> str:
    if x == MAX_ID:
        return "2147483647"
    if x == INT64_MAX:
        return "2^63-1"
    if x == INT64_MIN:
        return "-2^63"
    return str(int(x)) if float(x).is_integer() else str(x)


def _values(spec: FieldSpec) -> str:
    """What a field may hold, in a few words."""
    kind = spec.kind
    if kind is Kind.INT:
        lo = INT64_MIN if spec.lo is None else spec.lo
        hi = INT64_MAX if spec.hi is None else spec.hi
        return f"{_num(lo)}..{_num(hi)}"
    if kind is Kind.FLOAT:
        if spec.lo is not None and spec.hi is not None:
            return f"{_num(spec.lo)}..{_num(spec.hi)}"
        return f">= {_num(spec.lo)}" if spec.lo is not None else "any number"
    if kind is Kind.STR:
        if spec.enum is ErrorCode:
            return "an error code (table below)"
        if spec.enum is not None:
            return ", ".join(f"`{e.value}`" for e in spec.enum)
        parts = []
        if spec.max_len is not None:
            parts.append(f"{spec.min_len}..{spec.max_len} characters")
        elif spec.min_len:
            parts.append(f"at least {spec.min_len} characters")
        if spec.pattern is not None:
            parts.append(f"`{spec.pattern}`")
        if spec.plain:
            parts.append("no control characters")
        return ", ".join(parts)
    if kind is Kind.BOOL:
        return "true, false"
    if kind is Kind.MAP:
        text = "map" if spec.max_len is None else f"map, at most {spec.max_len} entries"
        return text + (", plain JSON data" if spec.deep else "")
    text = "list" if spec.max_len is None else f"at most {spec.max_len} items"
    if spec.item is not None and spec.item.kind is Kind.STR and spec.item.max_len is not None:
        text += f", each {spec.item.min_len}..{spec.item.max_len} characters"
    return text


def _default(cls: type[Message], name: str) -> Any:
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == name:
            return f.default
    raise KeyError(name)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _field_type(cls: type[Message], spec: FieldSpec) -> str:
    """The type column of a message field: the wire type, and the payload shape of a map."""
    wire = "number" if spec.kind is Kind.FLOAT else spec.wire_type
    if spec.kind is Kind.MAP or (spec.kind is Kind.LIST and spec.item is not None and spec.item.kind is Kind.MAP):
        hint = get_type_hints(cls)[spec.name]
        if get_origin(hint) in (Union, types.UnionType):
            hint = next(a for a in get_args(hint) if a is not type(None))
        if is_typeddict(hint):
            return f"`{hint.__name__}`"
        item = get_args(hint)[0] if get_origin(hint) is not dict else None
        if is_typeddict(item):
            return f"list[`{item.__name__}`]"
        if get_origin(item) in (Union, types.UnionType) and all(map(is_typeddict, get_args(item))):
            return "list[event]"
    return wire


def field_table(cls: type[Message]) -> str:
    """The markdown table of one message's fields (``type`` first)."""
    rows = [
        "| field | type | required | values | meaning |",
        "|---|---|---|---|---|",
        f'| `type` | str | yes | `"{cls.TYPE}"` | The message type. |',
    ]
    for spec in cls.FIELDS:
        if spec.required:
            req = "yes"
        else:
            default = _default(cls, spec.name)
            req = "no" if default is None else f"no (default `{str(default).lower()}`)"
        rows.append(
            f"| `{spec.name}` | {_field_type(cls, spec)} | {req} | {_cell(_values(spec))} | {_cell(spec.doc)} |"
        )
    return "\n".join(rows) + "\n"


def error_table() -> str:
    rows = ["| code | fatal | meaning, and what the client should do |", "|---|---|---|"]
    for code in ErrorCode:
        fatal = "**yes**" if code in FATAL else "no"
        rows.append(f"| `{code.value}` | {fatal} | {_cell(ERROR_HELP[code])} |")
    return "\n".join(rows) + "\n"


def _unwrap(hint: Any) -> tuple[Any, bool, str]:
    """``(type, required, doc)`` of one TypedDict key's evaluated annotation."""
    required = True
    if get_origin(hint) is NotRequired:
        hint, required = get_args(hint)[0], False
    doc = ""
    if get_origin(hint) is Annotated:
        hint, doc = get_args(hint)[0], str(get_args(hint)[1])
    return hint, required, doc


def type_text(hint: Any) -> str:
    """A payload key's type in words: ``int``, ``str or null``, ``list[PlayerView]``..."""
    if hint is type(None):
        return "null"
    if hint is object:  # protocol.payloads.JsonValue at run time
        return "any JSON value"
    if hint is float:
        return "number"
    if hint in (int, str, bool):
        return str(hint.__name__)
    if is_typeddict(hint):
        return f"`{hint.__name__}`"
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        texts = [type_text(a) for a in args if a is not type(None)]
        return " or ".join(texts + (["null"] if type(None) in args else []))
    if origin is Literal:
        return "str: " + ", ".join(f"`{a}`" for a in args) if isinstance(args[0], str) else "int"
    if origin is list:
        return f"list[{type_text(args[0])}]"
    if origin is dict:
        return f"map of {type_text(args[1])}"
    raise SystemExit(f"gen_protocol_tables.py: no words for the type {hint!r}")


def _keys(td: type) -> list[tuple[str, Any, bool, str]]:
    """``(key, type, required, doc)`` of every key of TypedDict ``td``, inherited keys first."""
    hints = get_type_hints(td, include_extras=True)
    return [(name, *_unwrap(hint)) for name, hint in hints.items()]


def payload_table(td: type) -> str:
    """The markdown table of one payload shape's keys."""
    rows = ["| key | type | required | meaning |", "|---|---|---|---|"]
    for name, hint, required, doc in _keys(td):
        if not doc:
            raise SystemExit(f"gen_protocol_tables.py: {td.__name__}.{name} has no doc (Annotated[type, doc])")
        req = "yes" if required else "no"
        rows.append(f"| `{name}` | {_cell(type_text(hint))} | {req} | {_cell(doc)} |")
    return "\n".join(rows) + "\n"


def _doc_line(obj: Any) -> str:
    return " ".join((obj.__doc__ or "").split())


def event_table() -> str:
    engine = dict(ENGINE_EVENT_FIELDS)
    rows = ["| `kind` | `seat` | other fields | meaning |", "|---|---|---|---|"]
    declared = []
    for td in EVENT_TYPES:
        keys = _keys(td)
        kind = get_args(keys[0][1])[0]
        seat = keys[1][1]
        others = keys[2:]
        declared.append(kind)
        names = tuple(name for name, *_ in others)
        if kind in engine and engine[kind] != names:
            raise SystemExit(f"gen_protocol_tables.py: event {kind!r} has fields {names}, the engine {engine[kind]}")
        fields = "<br>".join(f"`{name}` ({type_text(hint)}): {doc}" for name, hint, _, doc in others) or "(none)"
        rows.append(f"| `{kind}` | {type_text(seat)} | {_cell(fields)} | {_cell(_doc_line(td))} |")
    if sorted(declared) != sorted([*engine, *TABLE_EVENT_KINDS]):
        raise SystemExit(
            f"gen_protocol_tables.py: protocol.payloads declares the events {sorted(declared)}, the engine and the"
            f" table make {sorted([*engine, *TABLE_EVENT_KINDS])}"
        )
    return "\n".join(rows) + "\n"


def _public_limits() -> set[str]:
    """The names ``welcome.limits`` carries."""
    return set(get_type_hints(WelcomeLimits))


def limits_table() -> str:
    names = [f.name for f in dataclasses.fields(Limits)]
    missing = set(names) ^ set(LIMIT_HELP)
    if missing:
        raise SystemExit(f"gen_protocol_tables.py: LIMIT_HELP does not match Limits: {sorted(missing)}")
    public = _public_limits()
    defaults = Limits()
    rows = ["| limit | default | in `welcome.limits` | meaning, and what happens beyond it |", "|---|---|---|---|"]
    for name in names:
        shown = "yes" if name in public else "no"
        rows.append(f"| `{name}` | `{json.dumps(getattr(defaults, name))}` | {shown} | {_cell(LIMIT_HELP[name])} |")
    return "\n".join(rows) + "\n"


def settings_table() -> str:
    names = [f.name for f in dataclasses.fields(ServerConfig) if f.name != "limits"]
    missing = set(names) ^ set(SETTING_HELP)
    if missing:
        raise SystemExit(f"gen_protocol_tables.py: SETTING_HELP does not match ServerConfig: {sorted(missing)}")
    public = _public_limits()
    rows = ["| setting | default | in `welcome.limits` | meaning |", "|---|---|---|---|"]
    for f in dataclasses.fields(ServerConfig):
        if f.name == "limits":
            continue
        if f.name == "db":  # the database path depends on the machine
            default = "`~/.local/share/shithead/server.sqlite3`"
        elif f.default is dataclasses.MISSING:
            default = f"`{json.dumps(f.default_factory())}`"  # type: ignore[misc]
        else:
            default = f"`{json.dumps(f.default)}`"
        shown = "yes" if f.name in public else "no"
        rows.append(f"| `{f.name}` | {default} | {shown} | {_cell(SETTING_HELP[f.name])} |")
    return "\n".join(rows) + "\n"


def blocks() -> dict[str, str]:
    """Every generated block, by name."""
    out = {f"fields:{cls.TYPE}": field_table(cls) for cls in MESSAGE_CLASSES}
    out["errors"] = error_table()
    out.update({f"payload:{td.__name__}": payload_table(td) for td in PAYLOADS})
    out["events"] = event_table()
    out["limits"] = limits_table()
    out["settings"] = settings_table()
    return out


def render(doc: str) -> str:
    """``doc`` with every generated block replaced by its current text."""
    wanted = blocks()
    return BLOCK.sub(lambda m: _wrap(m.group("name"), wanted.get(m.group("name"), m.group("body"))), doc)


def _wrap(name: str, body: str) -> str:
    return f"<!-- BEGIN gen_protocol_tables.py: {name} -->\n{body}<!-- END gen_protocol_tables.py: {name} -->"


def problems(doc: str) -> list[str]:
    """Why ``doc`` is not in step with the code (an empty list when it is)."""
    wanted = blocks()
    found: dict[str, list[str]] = {}
    for m in BLOCK.finditer(doc):
        found.setdefault(m.group("name"), []).append(m.group("body"))
    out = []
    for name, body in wanted.items():
        bodies = found.get(name, [])
        if len(bodies) != 1:
            out.append(f"generated block {name!r} appears {len(bodies)} times (want 1)")
        elif bodies[0] != body:
            out.append(f"generated block {name!r} is stale: run docs/gen_protocol_tables.py --write")
    for name in found.keys() - wanted.keys():
        out.append(f"generated block {name!r} matches nothing in the code")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    doc = DOC.read_text(encoding="utf-8")
    if "--write" in args:
        DOC.write_text(render(doc), encoding="utf-8")
        doc = DOC.read_text(encoding="utf-8")
    found = problems(doc)
    for p in found:
        print(p, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
