"""Every request's section of docs/PROTOCOL.md lists exactly the refusals the server gives it.

A battery of requests against a real server provokes every refusal that each request's section
names (and any other it meets): for each request, the codes seen must be exactly the codes its
section lists, apart from those section 12 says any request may get (the connection-level ones:
not logged in, rate limited, a malformed message, the server stopping or failing to store).
A refusal the server gives but the section does not name fails; so does a code the section
names that the battery never sees (a stale list, or a battery that needs a new case).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from client.hosting.house import HouseBots
from protocol.errors import ErrorCode
from server.config import Limits
from tests.server.client import TestClient

DOC = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
CODES = {c.value for c in ErrorCode}


def documented() -> tuple[dict[str, set[str]], set[str]]:
    """(codes each client-to-server section names before its field table, the codes that
    section 12 says any request may get)."""
    part = DOC[DOC.index("### Client to server") : DOC.index("### Server to client")]
    per: dict[str, set[str]] = {}
    for m in re.finditer(r"^### `(\w+)`\n(.*?)(?=^### |\Z)", part, re.M | re.S):
        prose = m.group(2).split("<!-- BEGIN")[0]
        per[m.group(1)] = set(re.findall(r"`([A-Z_]+)`", prose)) & CODES
    errors = DOC[DOC.index("## 12. Errors") : DOC.index("<!-- BEGIN gen_protocol_tables.py: errors -->")]
    anywhere = errors[errors.index("**Any request**") :].split("\n\n")[0]
    return per, set(re.findall(r"`([A-Z_]+)`", anywhere)) & CODES


class Battery:
    """Sends requests and keeps the refusal codes seen, per request type."""

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = defaultdict(set)

    async def refuse(self, client: TestClient, msg: dict[str, Any], code: str) -> None:
        reply = await client.request(msg)
        assert reply["type"] == "error", (msg, reply)
        self.seen[msg["type"]].add(reply["code"])
        assert reply["code"] == code, (msg, reply)


async def player(port: int, name: str, **login: Any) -> TestClient:
    c = await TestClient.connect(port, name=name)
    await c.login(name, **login)
    return c


async def test_each_request_section_lists_exactly_its_refusals(make_app: Any) -> None:
    app = await make_app(bots=HouseBots(), limits=Limits(max_tables=3, max_spectators=1, tournaments_per_player=2))
    b = Battery()
    alice, bob, carol = [await player(app.port, n) for n in ("alice", "bob", "carol")]

    # hello: a version this server does not speak (fatal: a connection of its own).
    raw = await TestClient.connect(app.port, name="old")
    await b.refuse(raw, {"type": "hello", "version": 99}, "UNSUPPORTED_VERSION")

    # login: on this server and on one with a password and no guests.
    await b.refuse(alice, {"type": "login", "name": "alice", "guest": True}, "ALREADY_LOGGED_IN")
    owner = await TestClient.connect(app.port, name="owner")
    await owner.ok({"type": "hello", "version": 1}, "welcome")
    await owner.ok({"type": "login", "name": "owner", "password": "right password"}, "logged_in")
    again = await TestClient.connect(app.port, name="owner")
    await again.ok({"type": "hello", "version": 1}, "welcome")
    await b.refuse(again, {"type": "login", "name": "a\u200eb", "guest": True}, "BAD_NAME")
    await b.refuse(again, {"type": "login", "name": "ALICE", "guest": True}, "NAME_TAKEN")
    await b.refuse(again, {"type": "login", "name": "owner", "password": "wrong password"}, "AUTH_FAILED")
    for _ in range(50):  # failures until the throttle answers (it does after a few)
        reply = await again.request({"type": "login", "name": "owner", "password": "wrong password"})
        b.seen["login"].add(reply["code"])
        if reply["code"] == "LOGIN_THROTTLED":
            break
    assert "LOGIN_THROTTLED" in b.seen["login"]
    closed = await make_app(password="house", allow_guests=False)
    strict = await TestClient.connect(closed.port, name="x")
    await strict.ok({"type": "hello", "version": 1}, "welcome")
    await b.refuse(strict, {"type": "login", "name": "x", "password": "pw-pw-pw"}, "SERVER_PASSWORD_REQUIRED")
    await b.refuse(
        strict, {"type": "login", "name": "x", "guest": True, "server_password": "house"}, "GUESTS_NOT_ALLOWED"
    )

    # create_table: bad rules; the server's table limit.
    await b.refuse(alice, {"type": "create_table", "name": "x", "preset": "nope", "seats": 2}, "BAD_RULES")
    new = {"type": "create_table", "name": "t", "preset": "classic", "seats": 2}
    t1 = (await alice.ok({**new, "password": "pw"}, "table_created"))["table"]
    t2 = (await carol.ok(new, "table_created"))["table"]
    t3 = (await carol.ok({**new, "seats": 3}, "table_created"))["table"]
    await b.refuse(bob, new, "TABLE_FULL")
    # ... and a player's quota, on a server that allows one table and one tournament each.
    small = await make_app(limits=Limits(tables_per_player=1, tournaments_per_player=1))
    quota = await player(small.port, "quota")
    await quota.ok(new, "table_created")
    await b.refuse(quota, new, "QUOTA_EXCEEDED")
    cup = {"type": "create_tournament", "name": "cup", "preset": "classic", "seats": 2, "games": 2}
    await quota.ok(cup, "tournament_created")
    await b.refuse(quota, cup, "QUOTA_EXCEEDED")

    # join: unknown table, wrong password, seat taken, full, already started.
    await b.refuse(bob, {"type": "join", "table": 999}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "join", "table": t1, "password": "no"}, "WRONG_PASSWORD")
    await alice.ok({"type": "join", "table": t1, "password": "pw"}, "joined")
    await b.refuse(bob, {"type": "join", "table": t1, "seat": 0, "password": "pw"}, "SEAT_TAKEN")
    await carol.ok({"type": "join", "table": t2}, "joined")
    await alice.ok({"type": "join", "table": t2}, "joined")
    await b.refuse(bob, {"type": "join", "table": t2}, "TABLE_FULL")

    # watch: unknown table, wrong password, a seated player, too many spectators.
    await b.refuse(bob, {"type": "watch", "table": 999}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "watch", "table": t1, "password": "no"}, "WRONG_PASSWORD")
    await b.refuse(alice, {"type": "watch", "table": t1, "password": "pw"}, "SEAT_TAKEN")
    await bob.ok({"type": "watch", "table": t3}, "watching")
    await b.refuse(alice, {"type": "watch", "table": t3}, "TABLE_FULL")

    # add_bot: unknown table, not the owner, unknown bot, seat taken, full.
    await b.refuse(bob, {"type": "add_bot", "table": 999, "bot": "greedy"}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "add_bot", "table": t1, "bot": "greedy"}, "NOT_OWNER")
    await b.refuse(alice, {"type": "add_bot", "table": t1, "bot": "nobody"}, "UNKNOWN_BOT")
    await b.refuse(alice, {"type": "add_bot", "table": t1, "bot": "greedy", "seat": 0}, "SEAT_TAKEN")
    await b.refuse(carol, {"type": "add_bot", "table": t2, "bot": "greedy"}, "TABLE_FULL")

    # remove_bot and set_seats: unknown table, not the owner, no bot there, out of range, a seat
    # that would go is taken.
    await b.refuse(bob, {"type": "remove_bot", "table": 999, "seat": 0}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "remove_bot", "table": t1, "seat": 0}, "NOT_OWNER")
    await b.refuse(alice, {"type": "remove_bot", "table": t1, "seat": 0}, "NOT_A_BOT")
    await b.refuse(bob, {"type": "set_seats", "table": 999, "seats": 3}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "set_seats", "table": t1, "seats": 3}, "NOT_OWNER")
    await b.refuse(alice, {"type": "set_seats", "table": t1, "seats": 16}, "BAD_RULES")
    await carol.ok({"type": "join", "table": t3, "seat": 2}, "joined")
    await b.refuse(carol, {"type": "set_seats", "table": t3, "seats": 2}, "SEAT_TAKEN")

    # start: not the owner, not enough players; act and chat before/around a game.
    await b.refuse(bob, {"type": "start", "table": t2}, "NOT_OWNER")
    await b.refuse(alice, {"type": "start", "table": t1}, "NOT_ENOUGH_PLAYERS")
    await b.refuse(carol, {"type": "act", "table": t2, "seq": 0, "action": "ready"}, "NOT_STARTED")
    await b.refuse(bob, {"type": "chat", "table": 999, "text": "hi"}, "UNKNOWN_TABLE")
    await b.refuse(bob, {"type": "chat", "table": t2, "text": "hi"}, "NOT_AT_TABLE")
    await b.refuse(bob, {"type": "leave", "table": t2}, "NOT_AT_TABLE")

    # A game at t2 (carol owns it, alice plays): started, stale, illegal, not seated.
    await carol.ok({"type": "start", "table": t2}, "ok")
    await b.refuse(carol, {"type": "start", "table": t2}, "ALREADY_STARTED")
    await b.refuse(bob, {"type": "join", "table": t2}, "ALREADY_STARTED")
    await b.refuse(carol, {"type": "add_bot", "table": t3, "bot": "greedy", "seat": 9}, "SEAT_TAKEN")
    await b.refuse(carol, {"type": "add_bot", "table": t2, "bot": "greedy"}, "ALREADY_STARTED")
    await b.refuse(carol, {"type": "remove_bot", "table": t2, "seat": 1}, "ALREADY_STARTED")
    await b.refuse(carol, {"type": "set_seats", "table": t2, "seats": 3}, "ALREADY_STARTED")
    await b.refuse(bob, {"type": "act", "table": t2, "seq": 1, "action": "ready"}, "NOT_SEATED")
    await carol.wait_for(lambda: t2 in carol.states)
    seq = carol.states[t2]["seq"]
    await b.refuse(carol, {"type": "act", "table": t2, "seq": seq + 5, "action": "ready"}, "STALE_SEQ")
    await b.refuse(carol, {"type": "act", "table": t2, "seq": seq, "action": "flip 0"}, "ILLEGAL_ACTION")
    await b.refuse(carol, {"type": "leave", "table": t2}, "ALREADY_STARTED")

    # Every request that names a table, with a table that does not exist.
    for kind, extra in (
        ("leave", {}),
        ("start", {}),
        ("act", {"seq": 1, "action": "ready"}),
        ("resume", {"token": "x" * 32}),
    ):
        await b.refuse(bob, {"type": kind, "table": 999, **extra}, "UNKNOWN_TABLE")

    # resume: a token that is not the seat's.
    await b.refuse(bob, {"type": "resume", "table": t2, "token": "x" * 32}, "BAD_TOKEN")

    # get_record and get_replay: no such game.
    await b.refuse(bob, {"type": "get_record", "game": 999}, "UNKNOWN_GAME")
    await b.refuse(bob, {"type": "get_replay", "game": 999}, "UNKNOWN_GAME")

    # Tournaments.
    tour = {"type": "create_tournament", "name": "cup", "preset": "classic", "seats": 2, "games": 2}
    await b.refuse(bob, {**tour, "preset": "nope"}, "BAD_RULES")
    await b.refuse(bob, {**tour, "bots": ["nobody"]}, "UNKNOWN_BOT")
    await b.refuse(bob, {**tour, "schedule": "swiss"}, "BAD_TOURNAMENT")
    await b.refuse(bob, {**tour, "concurrency": 9}, "BAD_TOURNAMENT")  # (tournament_tables: 8)
    await b.refuse(bob, {"type": "get_tournament", "tournament": 999}, "UNKNOWN_TOURNAMENT")
    await b.refuse(bob, {"type": "register", "tournament": 999}, "UNKNOWN_TOURNAMENT")
    await b.refuse(bob, {"type": "start_tournament", "tournament": 999}, "UNKNOWN_TOURNAMENT")
    await b.refuse(bob, {"type": "cancel_tournament", "tournament": 999}, "UNKNOWN_TOURNAMENT")
    tid = (await bob.ok({**tour, "participants": ["dave", "erin"]}, "tournament_created"))["tournament"]
    await b.refuse(alice, {"type": "register", "tournament": tid}, "NOT_INVITED")
    await b.refuse(alice, {"type": "start_tournament", "tournament": tid}, "NOT_OWNER")
    await b.refuse(alice, {"type": "cancel_tournament", "tournament": tid}, "NOT_OWNER")
    await b.refuse(bob, {"type": "start_tournament", "tournament": tid}, "NOT_ENOUGH_PLAYERS")
    open_cup = (await bob.ok(tour, "tournament_created"))["tournament"]
    dave, erin, fred = [
        await player(app.port, n, guest=False, password="a good password", bot=True) for n in ("dave", "erin", "fred")
    ]
    for p in (dave, erin):
        await p.ok({"type": "register", "tournament": open_cup}, "ok")
    await bob.ok({"type": "start_tournament", "tournament": open_cup}, "ok")
    await b.refuse(bob, {"type": "start_tournament", "tournament": open_cup}, "ALREADY_STARTED")
    await b.refuse(fred, {"type": "register", "tournament": open_cup}, "ALREADY_STARTED")

    # The ladder: a guest, an unknown preset.
    await b.refuse(bob, {"type": "ladder_join", "presets": ["classic"]}, "NOT_INVITED")
    await b.refuse(fred, {"type": "ladder_join", "presets": ["nope"]}, "BAD_RULES")

    # Challenges: a guest, an unknown preset or layout, a bot nobody knows, one at a time.
    duel = {"type": "challenge", "preset": "classic", "bots": ["[random]", "[greedy]"], "deals": 1000}
    await b.refuse(bob, duel, "NOT_INVITED")
    await b.refuse(fred, {**duel, "preset": "nope"}, "BAD_RULES")
    await b.refuse(fred, {**duel, "layout": "1v9"}, "BAD_RULES")
    await b.refuse(fred, {**duel, "bots": ["nobody", "[greedy]"]}, "UNKNOWN_BOT")
    await fred.ok(duel, "challenge_status")
    await b.refuse(fred, duel, "QUOTA_EXCEEDED")
    await b.refuse(bob, {"type": "get_challenge", "challenge": 999}, "UNKNOWN_GAME")

    per, anywhere = documented()
    wrong = {
        kind: (sorted(seen - per.get(kind, set()) - anywhere), sorted(per.get(kind, set()) - seen))
        for kind, seen in b.seen.items()
    }
    wrong = {k: v for k, v in wrong.items() if v != ([], [])}
    assert wrong == {}, "per request: (refusals the section does not name, named ones never seen)"
    untried = {k for k, codes in per.items() if codes} - set(b.seen)
    assert untried == set(), f"sections that name refusals the battery never provoked: {untried}"
    for c in (alice, bob, carol, raw, dave, erin, fred, owner, again, strict, quota):
        await c.close()
