#!/usr/bin/env python3
"""Play one real game against an in-process server and print what went over the wire.

    .venv/bin/python docs/make_transcript.py           # the full transcript
    .venv/bin/python docs/make_transcript.py --doc     # as docs/PROTOCOL.md shows it
    .venv/bin/python docs/make_transcript.py --write   # put the --doc form into PROTOCOL.md

The server (``server.shell.app.App``) listens on 127.0.0.1 on a free port with a temporary
database. Two raw JSON-lines clients, alice (A, seat 0) and bob (B, seat 1, a bot), log in,
play one classic game with a fixed deck order and get its record. Every line is printed as it
was sent or received: ``A>`` is alice to the server, ``A<`` the server to alice, and likewise
``B>``/``B<``; ``#`` lines are narration. Each received line is checked with
``protocol.messages.decode_message``, and the script fails if the server sends anything it
does not expect, so the transcript also tests the documented message order.

``--doc`` cuts most ``view`` maps of ``state`` messages (and the long lists of the game record)
to a few fields and adds a ``"…"`` entry saying how much was left out; the first state,
the snapshot after the reconnect and the game-over state stay whole.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol.messages import decode_message  # noqa: E402
from server.config import ServerConfig  # noqa: E402
from server.engine import format_card, make_rules, stack_deck  # noqa: E402
from server.shell.app import App  # noqa: E402

DOC = ROOT / "docs" / "PROTOCOL.md"
BEGIN = "<!-- BEGIN make_transcript.py -->"
END = "<!-- END make_transcript.py -->"

#: The deal: seat 0 (alice) and seat 1 (bob), dealer seat 0, classic rules. Chosen so that the
#: game is short and shows a swap, triples, a burn by a ten, a burn by four of a kind, a burn
#: from the face-up row, a pick-up, face-down flips that play and one that fails, game over.
DEAL: dict[str, Any] = {
    "hands": {0: ["4d", "4c", "Ts"], 1: ["3d", "3h", "3c"]},
    "face_up": {0: ["4h", "4s", "Ad"], 1: ["5h", "Js", "2c"]},
    "face_down": {0: ["6d", "3s", "7s"], 1: ["9c", "Qs", "8d"]},
    "stock": [
        "7h",
        "7d",
        "7c",
        "Th",
        "Tc",
        "Td",
        "9h",
        "9s",
        "9d",
        "5s",
        "5d",
        "5c",
        "Jh",
        "Jc",
        "Jd",
        "Ah",
        "As",
        "Ac",
        "2h",
        "2d",
        "2s",
        "6s",
        "6c",
        "6h",
        "8c",
        "8s",
        "8h",
        "Qd",
        "Qh",
        "Qc",
        "Kc",
        "Ks",
        "Kh",
        "Kd",
    ],
}

#: Views cut by --doc keep these fields.
VIEW_KEEP = ("phase", "turn", "hand", "pile", "stock_count", "legal")

_ORDER = "3456789JQKA"  # plain ranks, low to high; 2 and T are kept for when nothing else goes


def deck() -> list[str]:
    """The 52 cards, top first, that deal DEAL (server.engine.stack_deck)."""
    return [format_card(c) for c in stack_deck(make_rules("classic"), 2, 0, **DEAL)]


def choose(legal: list[str]) -> str:
    """The bot: all cards of the lowest plain rank it may play, else a 2 or a ten, else flip the
    first face-down card, else pick up (giving up the lowest face-up card if it must)."""
    plays = [a.split()[1:] for a in legal if a.startswith("play ")]
    plain = [p for p in plays if p[0][0] in _ORDER]
    special = [p for p in plays if p[0][0] not in _ORDER]
    for group in (plain, special):
        if group:
            best = min(group, key=lambda p: ("2T".find(p[0][0]), _ORDER.find(p[0][0]), -len(p)))
            return "play " + " ".join(best)
    flips = [a for a in legal if a.startswith("flip ")]
    if flips:
        return flips[0]
    return "take" if "take" in legal else sorted(a for a in legal if a.startswith("take"))[0]


class Transcript:
    def __init__(self, doc: bool) -> None:
        self.doc = doc
        self.lines: list[str] = []
        self.full_views = 0

    def note(self, text: str) -> None:
        self.lines.append(f"# {text}")

    def add(self, prefix: str, raw: str, obj: dict[str, Any], *, keep_view: bool = False) -> None:
        if self.doc:
            raw = self._trim(obj, keep_view) or raw
        self.lines.append(f"{prefix} {raw}")

    def _trim(self, obj: dict[str, Any], keep_view: bool) -> str | None:
        if obj.get("type") == "state" and not keep_view and obj["view"]["phase"] != "over":
            view = obj["view"]
            cut = {k: view[k] for k in VIEW_KEEP if k in view}
            cut["…"] = f"{len(view) - len(cut)} more fields"
            return _dumps({**obj, "view": cut})
        if obj.get("type") == "record":
            rec = dict(obj["record"])
            inner = dict(rec["record"])
            for key in ("deck", "actions", "times"):
                items = inner[key]
                inner[key] = [*items[:3], f"… {len(items) - 3} more"]
            rec["record"] = inner
            return _dumps({**obj, "record": rec})
        return None


def _dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class TranscriptClient:
    """A raw JSON-lines client that logs everything and checks what it receives."""

    def __init__(self, label: str, out: Transcript) -> None:
        self.label = label
        self.out = out
        self.next_id = 1
        self.seq = 0
        self.view: dict[str, Any] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self, port: int) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)

    async def close(self) -> None:
        assert self.writer is not None
        self.writer.close()
        await self.writer.wait_closed()

    def send(self, type_: str, **fields: Any) -> int:
        assert self.writer is not None
        msg = {"type": type_, "id": self.next_id, **fields}
        self.next_id += 1
        line = _dumps(msg)
        decode_message(msg, "c2s")
        self.out.add(f"{self.label}>", line, msg)
        self.writer.write(line.encode("utf-8") + b"\n")
        return msg["id"]

    async def recv(self, *, keep_view: bool = False) -> dict[str, Any]:
        assert self.reader is not None
        raw = await asyncio.wait_for(self.reader.readline(), 10)
        if not raw:
            raise RuntimeError(f"{self.label}: the server closed the connection")
        text = raw.decode("utf-8").rstrip("\n")
        obj = json.loads(text)
        decode_message(obj, "s2c")
        if obj["type"] == "state":
            if obj["seq"] < self.seq:
                raise RuntimeError(f"{self.label}: seq went down from {self.seq} to {obj['seq']}")
            self.seq, self.view = obj["seq"], obj["view"]
        self.out.add(f"{self.label}<", text, obj, keep_view=keep_view)
        return obj

    async def expect(self, *types: str, keep_view: bool = False) -> list[dict[str, Any]]:
        got = []
        for t in types:
            msg = await self.recv(keep_view=keep_view)
            if msg["type"] != t:
                raise RuntimeError(f"{self.label}: expected {t}, got {msg}")
            got.append(msg)
        return got

    async def quiet(self) -> None:
        """Fail if anything unexpected is waiting."""
        assert self.reader is not None
        try:
            raw = await asyncio.wait_for(self.reader.readline(), 0.2)
        except TimeoutError:
            return
        raise RuntimeError(f"{self.label}: unexpected {raw!r}")


async def play(doc: bool) -> list[str]:
    out = Transcript(doc)
    with tempfile.TemporaryDirectory(prefix="shithead-transcript-") as tmp:
        app = App(ServerConfig(host="127.0.0.1", port=0, db=os.path.join(tmp, "server.sqlite3")))
        await app.start()
        a, b = TranscriptClient("A", out), TranscriptClient("B", out)
        try:
            await _game(app.port, a, b, out)
            await a.quiet()
            await b.quiet()
            await a.close()
            await b.close()
        finally:
            await app.stop()
    return out.lines


async def act(who: TranscriptClient, others: list[TranscriptClient], action: str) -> dict[str, Any]:
    """``who`` plays ``action`` on its latest state: ok + state to it, a state to the others."""
    who.send("act", table=1, seq=who.seq, action=action)
    await who.expect("ok")
    (state,) = await who.expect("state")
    for o in others:
        await o.expect("state")
    return state


async def _game(port: int, a: TranscriptClient, b: TranscriptClient, out: Transcript) -> None:
    out.note("alice connects; the first byte '{' selects JSON lines. hello and login are pipelined.")
    await a.connect(port)
    a.send("hello", version=1, client="transcript 1.0")
    a.send("login", name="alice", password="wonderland")
    await a.expect("welcome", "logged_in")

    out.note("bob connects too and logs in as a bot (first login: the name is registered).")
    await b.connect(port)
    b.send("hello", version=1, client="transcript 1.0")
    await b.expect("welcome")
    b.send("login", name="bob", password="builder", bot=True)
    await b.expect("logged_in")

    out.note("alice opens a 2-seat classic table with a fixed deck order (top card first) and sits down;")
    out.note("the seed fixes the first dealer (seed 1: seat 0), so the deal is the same on every run.")
    a.send("create_table", name="demo", preset="classic", seats=2, action_seconds=60, seed=1, deck=deck())
    await a.expect("table_created")
    a.send("join", table=1, seat=0)
    await a.expect("joined", "table_update")

    out.note("bob looks for a table and takes the free seat; both get the new summary.")
    b.send("list_tables")
    await b.expect("tables")
    b.send("join", table=1)
    await b.expect("joined", "table_update")
    await a.expect("table_update")

    out.note("alice (the owner) starts the game: every seat gets its own state, shown whole once.")
    a.send("start", table=1)
    await a.expect("ok")
    (first,) = await a.expect("state", keep_view=True)
    assert first["view"]["dealer"] == 0, "the deal in DEAL assumes seat 0 deals"
    await a.expect("table_update")
    await b.expect("state", "table_update")

    out.note("Setup: alice moves her ten to the face-up row (the 4h comes to her hand), both say ready.")
    await act(a, [b], "swap Ts 0")
    await act(a, [b], "ready")
    state = await act(b, [a], "ready")
    assert state["view"]["phase"] == "play" and state["view"]["turn"] == 1

    out.note("It is bob's turn (he holds the 3s): alice's play is refused, nothing changes.")
    a.send("act", table=1, seq=a.seq, action="play 4c 4d 4h")
    (err,) = await a.expect("error")
    assert err["code"] == "ILLEGAL_ACTION" and err["reason"] == "NOT_YOUR_TURN", err

    players = {0: a, 1: b}
    moves = 0
    stale_shown = reconnect_shown = False
    while True:
        turn = a.view["turn"]
        who, other = players[turn], players[1 - turn]
        if not reconnect_shown and moves == 6:
            await reconnect(a, b, out)
            reconnect_shown = True
            moves += 1
            continue
        action = choose(who.view["legal"])
        if not stale_shown and who is a and moves >= 1:
            out.note("An act must carry the seq of a state at or after the one that gave the turn:")
            who.send("act", table=1, seq=who.seq - 1, action=action)
            (err,) = await who.expect("error")
            assert err["code"] == "STALE_SEQ", err
            stale_shown = True
        mark = len(out.lines)
        state = await act(who, [other], action)
        text = narrate(state["events"])
        if text:
            out.lines.insert(mark, f"# {text}")
        moves += 1
        if state["view"]["phase"] == "over":
            break

    out.note("The last state is followed by game_over (result and the table's tally) and a summary.")
    await b.expect("game_over", "table_update")
    await a.expect("game_over", "table_update")

    b.send("chat", table=1, text="gg")
    await b.expect("ok", "chat_message")
    await a.expect("chat_message")

    out.note("Finished games are stored: anyone logged in can fetch the record by game id.")
    a.send("get_record", game=1)
    await a.expect("record")

    a.send("leave", table=1)
    await a.expect("ok")
    await b.expect("table_update")
    b.send("ping")
    await b.expect("pong")


NAMES = {0: "alice", 1: "bob"}


def narrate(events: list[dict[str, Any]]) -> str:
    """One line about the interesting events of an action (burns, pick-ups, flips, the end)."""
    kinds = {e["kind"]: e for e in events}
    parts = []
    if "flipped" in kinds:
        e = kinds["flipped"]
        verdict = "it does not go, so the pile comes up with it" if "took" in kinds else "it goes"
        parts.append(f"{NAMES[e['seat']]} flips face-down card {e['position']}, {e['card']}: {verdict}")
    elif "took" in kinds:
        e = kinds["took"]
        n = len(e["cards"])
        parts.append(f"{NAMES[e['seat']]} cannot beat the pile and picks it up ({n} card{'s' * (n != 1)})")
    played = kinds.get("played")
    if played and played["source"] == "face_up":
        parts.append(f"{NAMES[played['seat']]} plays from the face-up row")
    if "burned" in kinds:
        e = kinds["burned"]
        why = "a ten" if played and played["cards"][0][0] == "T" else "four of a kind"
        parts.append(f"{why} burns the pile ({e['count']} cards); {NAMES[e['seat']]} plays again")
    if "out" in kinds:
        parts.append(f"{NAMES[kinds['out']['seat']]} is out: the game is over")
    return "; ".join(parts)


async def reconnect(a: TranscriptClient, b: TranscriptClient, out: Transcript) -> None:
    """bob's connection drops while alice is to play; he comes back and resumes his seat."""
    token = None
    for line in out.lines:  # the token from bob's joined
        m = re.match(r'B< (\{"type":"joined".*)', line)
        if m:
            token = json.loads(m.group(1))["token"]
    assert token is not None
    out.note("bob's connection drops (he keeps the token from joined); alice is told and sees him away.")
    await b.close()
    await a.expect("presence", "table_update")
    out.note("alice plays on; bob, away, receives nothing.")
    a.send("act", table=1, seq=a.seq, action=choose(a.view["legal"]))
    await a.expect("ok", "state")
    out.note("bob reconnects: hello, login with the same name, resume -> joined and a full snapshot.")
    await b.connect(port_of(a))
    b.next_id = 1
    b.send("hello", version=1, client="transcript 1.0")
    b.send("login", name="bob", password="builder", bot=True)
    await b.expect("welcome", "logged_in")
    b.send("resume", table=1, token=token)
    await b.expect("joined", "table_update")
    await b.expect("state", keep_view=True)
    await a.expect("presence", "table_update")


def port_of(c: TranscriptClient) -> int:
    assert c.writer is not None
    return int(c.writer.get_extra_info("peername")[1])


def write_doc(lines: list[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    block = "\n```text\n" + "\n".join(lines) + "\n```\n"
    DOC.write_text(text[:start] + block + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--doc", action="store_true", help="cut long views as PROTOCOL.md shows them")
    p.add_argument("--write", action="store_true", help="replace the transcript in docs/PROTOCOL.md")
    args = p.parse_args(argv)
    lines = asyncio.run(play(args.doc or args.write))
    if args.write:
        write_doc(lines)
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
