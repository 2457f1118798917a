"""Every error path over real TCP: fatal ones close after exactly one error frame, the
others leave the connection open for the next request."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

import pytest

from protocol.framing import FrameDecoder, encode_frame, encode_line
from server.config import Limits
from server.engine import format_card, make_rules
from server.engine.cards import build_deck
from server.engine.errors import RulesError
from tests.server.client import TestClient, make_table, play_until_over, short_seeds
from tests.server.helpers import (
    act,
    cards_in,
    cards_in_text,
    current,
    packed,
    raw_frame,
    ready_all,
    step,
    sync,
)
from tests.server.waiting import server_has_read, until_server

SEED = short_seeds("classic", 2, 1, max_len=200)[0]
HELLO = {"type": "hello", "id": 1, "version": 1}
LOGIN = {"type": "login", "id": 2, "name": "mal", "guest": True}


async def expect_error(c: TestClient, msg: dict[str, Any], code: str) -> dict[str, Any]:
    """``msg`` is refused with ``code`` (its id echoed), and the connection still answers."""
    reply = await c.request(msg)
    assert reply["type"] == "error", reply
    assert reply["code"] == code, reply
    assert reply["id"] == c.sent[reply["id"]]["id"]
    assert "Traceback" not in reply["message"]
    pong = await c.request({"type": "ping"})
    assert pong["type"] == "pong"
    return reply


async def expect_fatal(c: TestClient, since: int, code: str, timeout: float = 5.0) -> dict[str, Any]:
    """After frame ``since``, exactly one frame arrives, an error with ``code``; then EOF."""
    await c.wait_closed(timeout)
    new = c.frames[since:]
    assert len(new) == 1, new
    assert new[0]["type"] == "error" and new[0]["code"] == code, new
    assert c.decode_error is None
    return new[0]


# ---------------------------------------------------------------------- malformed frames

GARBAGE = {
    "bad_length": (b"\x00\x00\x00\x03" + packed({"type": "ping", "id": 1})[4:], "BAD_FRAME"),
    "zero_length": (b"\x00\x00\x00\x00", "BAD_FRAME"),
    "not_msgpack": (raw_frame(b"\xc1\xc1\xc1"), "BAD_FRAME"),
    "trailing_bytes": (raw_frame(packed({"type": "ping", "id": 1})[4:] + b"\x01"), "BAD_FRAME"),
    "not_a_map": (packed([1, 2, 3]), "BAD_FRAME"),
    "int_keys": (packed({1: "ping"}), "BAD_FRAME"),
    "unknown_type": (packed({"type": "frobnicate", "id": 1}), "UNKNOWN_TYPE"),
    "no_type": (packed({"id": 1}), "UNKNOWN_TYPE"),
    "wrong_field_type": (packed({"type": "ping", "id": "one"}), "BAD_MESSAGE"),
    "unknown_field": (packed({"type": "ping", "id": 1, "extra": True}), "BAD_MESSAGE"),
    "oversize_prefix": (b"\x00\x00\x04\x01", "FRAME_TOO_LARGE"),  # 1025 > 1024 before login
    "huge_prefix": (b"\xff\xff\xff\xff", "FRAME_TOO_LARGE"),
}


@pytest.mark.parametrize("case", list(GARBAGE))
async def test_malformed_frame_first(app: Any, connect: Any, case: str) -> None:
    """A malformed first frame gets exactly one error frame, then the connection closes."""
    data, code = GARBAGE[case]
    c = await connect(app, "msgpack", case)
    c.send_raw(data)
    await expect_fatal(c, 0, code)


@pytest.mark.parametrize(
    "case", ["bad_length", "zero_length", "not_msgpack", "not_a_map", "unknown_type", "wrong_field_type", "huge_prefix"]
)
async def test_malformed_frame_after_login(app: Any, connect: Any, case: str) -> None:
    """The same garbage after hello and login: one error frame, then close."""
    data, code = GARBAGE[case]
    c = await connect(app, "msgpack", "late")
    await c.login()
    n = len(c.frames)
    c.send_raw(data)
    await expect_fatal(c, n, code)


async def test_wrong_field_type_echoes_the_id(app: Any, connect: Any) -> None:
    """A bad field with a readable id is BAD_MESSAGE naming the field and echoing the id."""
    c = await connect(app, "msgpack", "f")
    await c.login()
    n = len(c.frames)
    c.send_raw(packed({"type": "join", "id": 77, "table": "one"}))
    err = await expect_fatal(c, n, "BAD_MESSAGE")
    assert err["id"] == 77 and "table" in err["message"]


async def test_oversize_before_login_fits_after_login(app: Any, connect: Any) -> None:
    """A frame over the before-login limit is refused before login and accepted after it."""
    chat = {"type": "chat", "id": 9, "table": 424242, "text": "\U0001f0a1" * 280}
    frame = encode_frame(chat, max_size=None)
    assert 1024 < len(frame) - 4 <= 4096
    c = await connect(app, "msgpack", "big")
    await c.ok(HELLO, "welcome")
    n = len(c.frames)
    c.send_raw(frame)
    await expect_fatal(c, n, "FRAME_TOO_LARGE")
    d = await connect(app, "msgpack", "big2")
    await d.login()
    d.send_raw(frame)
    err = await d.recv_until("error")
    assert err["id"] == 9 and err["code"] == "UNKNOWN_TABLE"


JSON_GARBAGE = {
    # JSON lines over TCP: what is written, as it is written.
    "json": {
        "not_json": (b"{not json}\n", "BAD_FRAME"),
        "not_an_object": (b'{"type": "hello", "id": 1, "version": 1}\n[1, 2]\n', "BAD_FRAME"),
        "nan": (b'{"type": "ping", "id": NaN}\n', "BAD_FRAME"),
        "unknown_type": (b'{"type": "nope", "id": 1}\n', "UNKNOWN_TYPE"),
        "wrong_field_type": (b'{"type": "hello", "id": 1, "version": "1"}\n', "BAD_MESSAGE"),
        "long_line": (b"{" + b" " * 2000, "FRAME_TOO_LARGE"),
    },
    # The server's WebSocket: each in one text frame.
    "ws": {
        "not_json": (b"{not json", "BAD_FRAME"),
        "not_an_object": (b"[1, 2]", "BAD_FRAME"),
        "unknown_type": (b'{"type": "nope", "id": 1}', "UNKNOWN_TYPE"),
        "wrong_field_type": (b'{"type": "hello", "id": 1, "version": "1"}', "BAD_MESSAGE"),
        "oversize_before_login": (b'{"type": "hello", "pad": "' + b"x" * 1100 + b'"}', "FRAME_TOO_LARGE"),
    },
}


@pytest.mark.parametrize(("mode", "case"), [(mode, case) for mode, cases in JSON_GARBAGE.items() for case in cases])
async def test_malformed_json_line(app: Any, connect: Any, mode: str, case: str) -> None:
    """JSON-lines mode, and JSON over the WebSocket (``ws``): a bad message gets exactly one
    error message, then the connection closes."""
    data, code = JSON_GARBAGE[mode][case]
    c = await connect(app, mode, case)
    c.send_raw(data)
    await c.wait_closed(5)
    errors = [f for f in c.frames if f["type"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == code, c.frames
    assert c.frames[-1] is errors[0]


async def test_handshake_required(app: Any, connect: Any) -> None:
    """login before hello: HANDSHAKE_REQUIRED, then close."""
    c = await connect(app, "msgpack", "early")
    c.send_raw(encode_frame(LOGIN, max_size=None))
    err = await expect_fatal(c, 0, "HANDSHAKE_REQUIRED")
    assert err["id"] == 2


async def test_unsupported_version(app: Any, connect: Any) -> None:
    """hello with version 2: UNSUPPORTED_VERSION (id echoed, supported versions named), close."""
    c = await connect(app, "json", "future")
    c.send_raw(encode_line({"type": "hello", "id": 5, "version": 2}))
    err = await expect_fatal(c, 0, "UNSUPPORTED_VERSION")
    assert err["id"] == 5 and "1" in err["message"]


async def test_second_hello_is_fatal(app: Any, connect: Any) -> None:
    """A second hello on an open connection breaks the protocol: one error, close."""
    c = await connect(app, "msgpack", "twice")
    await c.ok(HELLO, "welcome")
    n = len(c.frames)
    c.send_raw(encode_frame(HELLO, max_size=None))
    await expect_fatal(c, n, "BAD_MESSAGE")


@pytest.mark.parametrize("mode", ["msgpack", "json"])
async def test_valid_frames_before_garbage_in_one_read_are_answered(
    app: Any, connect: Any, caplog: Any, mode: str
) -> None:
    """Good frames before garbage in one read: one BAD_FRAME, close, and no server-side ERROR log."""
    c = await connect(app, mode, "mixed")
    enc = encode_frame if mode == "msgpack" else encode_line
    bad = b"\x00\x00\x00\x00" if mode == "msgpack" else b"[1]\n"
    caplog.set_level(logging.ERROR, logger="server")
    c.send_raw(enc(HELLO, max_size=None) + enc({"type": "ping", "id": 2}, max_size=None) + bad)
    await c.wait_closed(5)
    assert [f["type"] for f in c.frames] in (["welcome", "pong", "error"], ["error"]), c.frames
    assert c.frames[-1]["code"] == "BAD_FRAME"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


# ---------------------------------------------------------------------- byte by byte, pipelined


@pytest.mark.parametrize("mode", ["msgpack", "json"])
async def test_frames_one_byte_at_a_time(app: Any, connect: Any, mode: str) -> None:
    """hello, login and ping written one byte per TCP segment, each read by the server before
    the next is written, are answered normally."""
    c = await connect(app, mode, "slowpoke")
    enc = encode_frame if mode == "msgpack" else encode_line
    data = b"".join(enc(m, max_size=None) for m in (HELLO, {**LOGIN, "name": "slowpoke"}, {"type": "ping", "id": 3}))
    for i in range(len(data)):
        c.send_raw(data[i : i + 1])
        await server_has_read(app, c)
    for t in ("welcome", "logged_in", "pong"):
        f = await c.recv_until(t)
        assert f["id"] == {"welcome": 1, "logged_in": 2, "pong": 3}[t]


async def test_pipelined_requests_in_one_write(app: Any, connect: Any) -> None:
    """hello + login + requests in a single write are answered in order."""
    c = await connect(app, "msgpack", "pipe")
    msgs = [HELLO, {**LOGIN, "name": "pipe"}, {"type": "list_tables", "id": 3}, {"type": "ping", "id": 4}]
    c.send_raw(b"".join(encode_frame(m, max_size=None) for m in msgs))
    got = [await c.recv() for _ in range(4)]
    assert [(f["type"], f["id"]) for f in got] == [("welcome", 1), ("logged_in", 2), ("tables", 3), ("pong", 4)]


# ---------------------------------------------------------------------- login errors


async def test_not_logged_in_and_already_logged_in(app: Any, connect: Any) -> None:
    """Requests before login get NOT_LOGGED_IN, a second login ALREADY_LOGGED_IN; the connection stays."""
    c = await connect(app, "msgpack", "nl")
    await c.ok(HELLO, "welcome")
    for msg in (
        {"type": "list_tables"},
        {"type": "create_table", "name": "x", "preset": "classic", "seats": 2},
        {"type": "join", "table": 1},
        {"type": "get_record", "game": 1},
    ):
        await expect_error(c, msg, "NOT_LOGGED_IN")
    await c.ok({"type": "login", "name": "nl", "guest": True}, "logged_in")
    await expect_error(c, {"type": "login", "name": "nl2", "guest": True}, "ALREADY_LOGGED_IN")
    await c.ok({"type": "list_tables"}, "tables")


async def test_auth_failed(app: Any, connect: Any) -> None:
    """Wrong or no password: AUTH_FAILED; a guest login on a registered name: NAME_TAKEN with a
    free name offered; the right password then works."""
    a = await connect(app, "msgpack", "reg")
    await a.login("carol", guest=False, password="pw-one")
    b = await connect(app, "json", "reg2")
    await b.ok(HELLO, "welcome")
    await expect_error(b, {"type": "login", "name": "carol", "password": "wrong"}, "AUTH_FAILED")
    taken = await expect_error(b, {"type": "login", "name": "CAROL", "guest": True}, "NAME_TAKEN")
    assert taken["suggestion"] == "CAROL 2" and "registered" in taken["message"]
    await expect_error(b, {"type": "login", "name": "carol"}, "AUTH_FAILED")
    ok = await b.ok({"type": "login", "name": "Carol", "password": "pw-one"}, "logged_in")
    assert ok["name"] == "carol" and ok["guest"] is False


async def test_server_password(make_app: Any, connect: Any) -> None:
    """A server password: SERVER_PASSWORD_REQUIRED without it, AUTH_FAILED if wrong (reason
    SERVER_PASSWORD, so that a client tells it from its own credentials), login if right; a wrong
    account password on the right server password is AUTH_FAILED without that reason."""
    app = await make_app(password="s3cret")
    c = await connect(app, "msgpack", "sp")
    w = await c.ok(HELLO, "welcome")
    assert w["password_required"] is True
    await expect_error(c, {"type": "login", "name": "sp", "guest": True}, "SERVER_PASSWORD_REQUIRED")
    wrong = await expect_error(
        c, {"type": "login", "name": "sp", "guest": True, "server_password": "nope"}, "AUTH_FAILED"
    )
    assert wrong["reason"] == "SERVER_PASSWORD"
    await c.ok({"type": "login", "name": "acct", "password": "pw1", "server_password": "s3cret"}, "logged_in")
    d = await connect(app, "msgpack", "sp2")
    await d.ok(HELLO, "welcome")
    mine = await expect_error(
        d, {"type": "login", "name": "acct", "password": "pw2", "server_password": "s3cret"}, "AUTH_FAILED"
    )
    assert "reason" not in mine
    await d.ok({"type": "login", "name": "sp", "guest": True, "server_password": "s3cret"}, "logged_in")


async def test_guests_not_allowed(make_app: Any, connect: Any) -> None:
    """allow_guests=False: a guest login gets GUESTS_NOT_ALLOWED; an account login works."""
    app = await make_app(allow_guests=False)
    c = await connect(app, "json", "g")
    await c.ok(HELLO, "welcome")
    await expect_error(c, {"type": "login", "name": "g", "guest": True}, "GUESTS_NOT_ALLOWED")
    await c.ok({"type": "login", "name": "g", "password": "pw"}, "logged_in")


# ---------------------------------------------------------------------- lobby errors


async def test_unknown_table_and_game(app: Any, players: Any) -> None:
    """Every request naming a missing table is UNKNOWN_TABLE, a missing game UNKNOWN_GAME."""
    (c,) = await players(app, ["lc"])
    for msg in (
        {"type": "join", "table": 999},
        {"type": "watch", "table": 999},
        {"type": "start", "table": 999},
        {"type": "leave", "table": 999},
        {"type": "chat", "table": 999, "text": "x"},
        {"type": "act", "table": 999, "seq": 0, "action": "ready"},
        {"type": "resume", "table": 999, "token": "abc"},
    ):
        await expect_error(c, msg, "UNKNOWN_TABLE")
    await expect_error(c, {"type": "get_record", "game": 12345}, "UNKNOWN_GAME")


async def test_record_of_a_running_game_is_not_served(app: Any, players: Any) -> None:
    """get_record of the game being played is UNKNOWN_GAME (no deck before the end)."""
    a, b = await players(app, ["ra", "rb"])
    t = await make_table([a, b], seed=SEED)
    st = await a.recv_until("state")
    await expect_error(b, {"type": "get_record", "game": st["game"]}, "UNKNOWN_GAME")
    out = await play_until_over([a, b], t)
    assert (await b.ok({"type": "get_record", "game": st["game"]}, "record"))["record"]["id"] == st["game"]
    assert out["errors"] == []


async def test_wrong_table_password_join(app: Any, players: Any) -> None:
    """join without or with a wrong table password gets WRONG_PASSWORD; the right one seats."""
    a, b = await players(app, ["la", "lb"], ["msgpack", "json"])
    locked = (
        await a.ok(
            {"type": "create_table", "name": "locked", "preset": "classic", "seats": 2, "password": "door"},
            "table_created",
        )
    )["table"]
    await expect_error(b, {"type": "join", "table": locked}, "WRONG_PASSWORD")
    await expect_error(b, {"type": "join", "table": locked, "password": "window"}, "WRONG_PASSWORD")
    await b.ok({"type": "join", "table": locked, "password": "door"}, "joined")


async def test_wrong_table_password_watch(app: Any, players: Any) -> None:
    """watch with a missing/wrong table password gets only WRONG_PASSWORD and no watcher seat."""
    a, b = await players(app, ["wa", "wb"], ["msgpack", "json"])
    locked = (
        await a.ok(
            {"type": "create_table", "name": "locked", "preset": "classic", "seats": 2, "password": "door"},
            "table_created",
        )
    )["table"]
    await expect_error(b, {"type": "watch", "table": locked}, "WRONG_PASSWORD")
    await expect_error(b, {"type": "watch", "table": locked, "password": "window"}, "WRONG_PASSWORD")
    answers = [f for f in b.frames if f.get("id") in (3, 5)]
    assert [f["type"] for f in answers] == ["error", "error"], answers
    assert app.tables[locked].watchers == []
    await b.ok({"type": "watch", "table": locked, "password": "door"}, "watching")


async def test_seat_and_start_errors(app: Any, players: Any) -> None:
    """SEAT_TAKEN, NOT_ENOUGH_PLAYERS, NOT_SEATED, NOT_STARTED, TABLE_FULL, NOT_OWNER, ALREADY_STARTED."""
    a, b, c = await players(app, ["sa", "sb", "sc"], ["msgpack", "json", "msgpack"])
    t = (await a.ok({"type": "create_table", "name": "open", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    await a.ok({"type": "join", "table": t, "seat": 0}, "joined")
    await expect_error(b, {"type": "join", "table": t, "seat": 0}, "SEAT_TAKEN")
    await expect_error(b, {"type": "join", "table": t, "seat": 5}, "SEAT_TAKEN")
    await expect_error(a, {"type": "join", "table": t}, "SEAT_TAKEN")
    await expect_error(a, {"type": "start", "table": t}, "NOT_ENOUGH_PLAYERS")
    await expect_error(b, {"type": "act", "table": t, "seq": 0, "action": "ready"}, "NOT_SEATED")
    await expect_error(a, {"type": "act", "table": t, "seq": 0, "action": "ready"}, "NOT_STARTED")
    await expect_error(c, {"type": "leave", "table": t}, "NOT_AT_TABLE")
    await b.ok({"type": "join", "table": t}, "joined")
    await expect_error(c, {"type": "join", "table": t}, "TABLE_FULL")
    await expect_error(b, {"type": "start", "table": t}, "NOT_OWNER")
    await a.ok({"type": "start", "table": t}, "ok")
    await expect_error(a, {"type": "start", "table": t}, "ALREADY_STARTED")
    await expect_error(c, {"type": "join", "table": t}, "ALREADY_STARTED")
    await expect_error(b, {"type": "leave", "table": t}, "ALREADY_STARTED")
    await c.ok({"type": "watch", "table": t}, "watching")
    await expect_error(c, {"type": "act", "table": t, "seq": 1, "action": "ready"}, "NOT_SEATED")


async def test_seated_player_cannot_watch(app: Any, players: Any) -> None:
    """A seated player asking to watch its own table gets one SEAT_TAKEN error, no watching."""
    (a,) = await players(app, ["sw"])
    t = (await a.ok({"type": "create_table", "name": "own", "preset": "classic", "seats": 2}, "table_created"))["table"]
    await a.ok({"type": "join", "table": t}, "joined")
    rid = a.send({"type": "watch", "table": t})
    await a.ok({"type": "ping"}, "pong")
    answers = [f for f in a.frames if f.get("id") == rid]
    assert [f["type"] for f in answers] == ["error"], answers
    assert answers[0]["code"] == "SEAT_TAKEN"


async def test_bad_rules(app: Any, players: Any) -> None:
    """Bad option, value, preset, seat count or deck: BAD_RULES with the engine's message."""
    (a,) = await players(app, ["rules"])
    try:
        make_rules("classic", {"no_such_option": True})
    except RulesError as exc:
        engine_message = exc.message
    base = {"type": "create_table", "name": "r", "preset": "classic", "seats": 2}
    err = await expect_error(a, {**base, "options": {"no_such_option": True}}, "BAD_RULES")
    assert err["message"] == engine_message and "no_such_option" in err["message"]
    err = await expect_error(a, {**base, "options": {"burn_count": "lots"}}, "BAD_RULES")
    assert "burn_count" in err["message"]
    err = await expect_error(a, {**base, "preset": "tiddlywinks"}, "BAD_RULES")
    assert "tiddlywinks" in err["message"]
    await expect_error(a, {**base, "preset": "west_kent", "seats": 5}, "BAD_RULES")
    await expect_error(a, {**base, "deck": ["7h", "7h"]}, "BAD_RULES")
    await expect_error(a, {**base, "deck": ["zz"]}, "BAD_RULES")
    await a.ok(base, "table_created")


# ---------------------------------------------------------------------- game errors


async def two_player_game(app: Any, players: Any, names: list[str], **options: Any) -> tuple[list[TestClient], int]:
    clients = await players(app, names, ["msgpack", "json"])
    t = await make_table(clients, seed=SEED, **options)
    await sync(app, clients, t)
    return clients, t


async def test_stale_seq_and_duplicate_act(app: Any, players: Any) -> None:
    """Old or future seq is STALE_SEQ; the same act sent twice is applied once."""
    clients, t = await two_player_game(app, players, ["sa", "sb"])
    await ready_all(app, clients, t)
    seat = current(clients, t)
    c, other = clients[seat], clients[1 - seat]
    st = c.states[t]
    await expect_error(c, {"type": "act", "table": t, "seq": 1, "action": st["view"]["legal"][0]}, "STALE_SEQ")
    await expect_error(
        c, {"type": "act", "table": t, "seq": st["seq"] + 5, "action": st["view"]["legal"][0]}, "STALE_SEQ"
    )
    count = st["view"]["action_count"]
    msg = {"type": "act", "table": t, "seq": st["seq"], "action": st["view"]["legal"][0]}
    first, second = c.send(msg), c.send(msg)
    replies = {}
    while len(replies) < 2:
        f = await c.recv()
        if f.get("id") in (first, second):
            replies[f["id"]] = f
    assert replies[first]["type"] == "ok"
    assert replies[second]["type"] == "error" and replies[second]["code"] == "STALE_SEQ"
    await sync(app, clients, t)
    assert c.states[t]["view"]["action_count"] == count + 1
    assert other.states[t]["view"]["action_count"] == count + 1
    assert c.states[t]["seq"] == st["seq"] + 1
    # The other seat's state of before is stale for it now, its newest one is not.
    if other.states[t]["view"]["legal"]:
        await expect_error(
            other,
            {"type": "act", "table": t, "seq": st["seq"], "action": other.states[t]["view"]["legal"][0]},
            "STALE_SEQ",
        )
        assert (await act(other, t, other.states[t]["view"]["legal"][0]))["type"] == "ok"


async def test_illegal_action_reasons(app: Any, players: Any) -> None:
    """ILLEGAL_ACTION carries NOT_YOUR_TURN, CARD_NOT_HELD, DOES_NOT_BEAT, MALFORMED_ACTION; nothing changes."""
    clients, t = await two_player_game(app, players, ["ia", "ib"])
    await ready_all(app, clients, t)
    for _ in range(400):
        seat = current(clients, t)
        c, other = clients[seat], clients[1 - seat]
        view = c.states[t]["view"]
        if view["phase"] != "playing":
            break
        seq = c.states[t]["seq"]
        weak = [
            x
            for x in view["hand"]
            if f"play {x}" not in view["legal"] and not any(a.startswith(f"play {x}") for a in view["legal"])
        ]
        if weak:
            err = await expect_error(
                c, {"type": "act", "table": t, "seq": seq, "action": f"play {weak[0]}"}, "ILLEGAL_ACTION"
            )
            assert err["reason"] == "DOES_NOT_BEAT", err
            break
        await step(app, clients, t, seat)
    else:
        pytest.fail("no position where a held card does not beat the pile")
    seq = c.states[t]["seq"]
    mine = set(view["hand"])
    other_hand = set(other.states[t]["view"]["hand"])
    if other_hand:
        err = await expect_error(
            other,
            {"type": "act", "table": t, "seq": other.states[t]["seq"], "action": f"play {sorted(other_hand)[0]}"},
            "ILLEGAL_ACTION",
        )
        assert err["reason"] == "NOT_YOUR_TURN"
    visible = set(cards_in(c.states[t]["view"]))
    absent = [format_card(x) for x in build_deck(1, 0) if format_card(x) not in visible]
    err = await expect_error(
        c, {"type": "act", "table": t, "seq": seq, "action": f"play {absent[0]}"}, "ILLEGAL_ACTION"
    )
    assert err["reason"] == "CARD_NOT_HELD"
    err = await expect_error(c, {"type": "act", "table": t, "seq": seq, "action": "dance"}, "ILLEGAL_ACTION")
    assert err["reason"] == "MALFORMED_ACTION"
    # Answers come in the order of the requests, behind any state they caused: a state that a
    # refused act wrongly produced would be here before this pong.
    await c.ok({"type": "ping"}, "pong")
    assert c.states[t]["seq"] == seq and c.states[t]["view"]["hand"] == view["hand"] and set(view["hand"]) == mine
    # The game goes on normally after all that.
    out = await play_until_over(clients, t)
    assert out["errors"] == []


async def test_error_texts_name_no_hidden_card(make_app: Any, players: Any) -> None:
    """ILLEGAL_ACTION texts name only cards the seat holds, sees, or named itself."""
    app = await make_app(limits=Limits(rate_per_second=10000, rate_burst=10000))
    clients, t = await two_player_game(app, players, ["ea", "eb"])
    deck = [format_card(x) for x in build_deck(1, 0)]

    async def sweep() -> None:
        for c in clients:
            st = c.states[t]
            texts = [f"{verb} {x}" for x in deck for verb in ("play", "take", "announce")]
            texts += [f"swap {x} 0" for x in deck] + [f"place {x} 1" for x in deck]
            texts += ["flip 0", "flip 9", "take", "draw", "gamble", "pass", "run 3h 4h 5h", "ready"]
            texts = [x for x in texts if x not in st["view"]["legal"]]
            allowed_view = cards_in({k: v for k, v in st["view"].items() if k != "legal"})
            for text in texts:
                reply = await act(c, t, text)
                assert reply["type"] == "error", (text, reply)
                named = set(cards_in_text(text))
                leaked = set(cards_in_text(reply["message"])) - allowed_view - named
                assert not leaked, (text, reply, st["view"])
            await sync(app, clients, t)

    await sweep()  # setup
    await ready_all(app, clients, t)
    await sweep()  # first position of play
    for _ in range(6):
        await step(app, clients, t, current(clients, t))
        if clients[0].states[t]["view"]["phase"] != "playing":
            break
    await sweep()


# ---------------------------------------------------------------------- limits


async def test_rate_limited(make_app: Any, connect: Any) -> None:
    """A burst over rate_burst gets RATE_LIMITED with retry_after; once that time has passed on
    the server's clock (moved on by the test, not waited for), requests work again."""
    app = await make_app(limits=Limits(rate_per_second=2.0, rate_burst=4))
    clock = [1000.0]
    app.clock = lambda: clock[0]
    c = await connect(app, "msgpack", "flood")
    await c.login()
    # hello and login paid 2 of the 4 tokens: of 4 pings, 2 are answered and 2 refused (the
    # refusals' own bucket keeps 2, so reading never pauses: the clock stands still here).
    for _ in range(4):
        c.send({"type": "ping"})
    got = []
    while len(got) < 4:
        f = await c.recv(3)
        assert f is not None, got
        got.append(f)
    limited = [f for f in got if f["type"] == "error"]
    assert len(limited) == 2 and all(f["code"] == "RATE_LIMITED" and f["retry_after"] == 0.5 for f in limited)
    assert sum(f["type"] == "pong" for f in got) == 2
    # Not a moment before the last refusal's retry_after, the bucket is still empty; then a
    # client that waited that long is served again.
    clock[0] += limited[-1]["retry_after"] / 2
    early = await c.request({"type": "ping"})
    assert early["type"] == "error" and early["code"] == "RATE_LIMITED", early
    clock[0] += limited[-1]["retry_after"]
    assert (await c.request({"type": "ping"}))["type"] == "pong"
    assert not c.closed.is_set()


async def test_rate_limited_error_echoes_the_request_id(make_app: Any, connect: Any) -> None:
    """Every refused request's RATE_LIMITED answer echoes its id."""
    app = await make_app(limits=Limits(rate_per_second=1.0, rate_burst=3))
    c = await connect(app, "msgpack", "flood2")
    await c.login()
    ids = [c.send({"type": "ping"}) for _ in range(6)]
    got = [await c.recv(3) for _ in range(6)]
    answered = {f.get("id") for f in got}
    assert answered == set(ids), got


async def test_too_many_connections(make_app: Any, connect: Any) -> None:
    """Past max_connections: TOO_MANY_CONNECTIONS and close; a freed slot is usable again."""
    app = await make_app(limits=Limits(max_connections=2))
    a = await connect(app, "msgpack", "one")
    b = await connect(app, "msgpack", "two")
    await a.login()
    await b.login()
    c = await connect(app, "msgpack", "three")
    await expect_fatal(c, 0, "TOO_MANY_CONNECTIONS")
    await b.close()
    await until_server(a, lambda: len(app.sessions) == 1)  # the server has seen b go
    d = await connect(app, "json", "four")
    await d.login()
    await a.ok({"type": "ping"}, "pong")


async def test_too_many_connections_per_address(make_app: Any, connect: Any) -> None:
    """max_connections_per_address applies to one address."""
    app = await make_app(limits=Limits(max_connections_per_address=1))
    a = await connect(app, "msgpack", "one")
    await a.login()
    b = await connect(app, "msgpack", "two")
    await expect_fatal(b, 0, "TOO_MANY_CONNECTIONS")


async def test_handshake_timeout(make_app: Any, connect: Any) -> None:
    """No hello, or hello without login, within handshake_timeout: HANDSHAKE_TIMEOUT and close."""
    app = await make_app(limits=Limits(handshake_timeout=1.0))
    silent = await connect(app, "msgpack", "silent")
    half = await connect(app, "json", "half")
    await half.ok(HELLO, "welcome")
    await expect_fatal(silent, 0, "HANDSHAKE_TIMEOUT")
    await expect_fatal(half, 1, "HANDSHAKE_TIMEOUT")


async def test_idle_timeout(make_app: Any, connect: Any) -> None:
    """A silent logged-in connection gets IDLE_TIMEOUT and is closed; a pinging one stays."""
    app = await make_app(limits=Limits(idle_timeout=1.0))
    idle = await connect(app, "msgpack", "idle")
    busy = await connect(app, "json", "busy")
    await idle.login()
    await busy.login()
    n = len(idle.frames)

    async def keep_pinging() -> None:
        """A ping every quarter of the idle timeout (the keep-alive a client owes), until idle is closed."""
        while not idle.closed.is_set():
            await busy.ok({"type": "ping"}, "pong")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(idle.closed.wait(), 0.25)

    pinger = asyncio.create_task(keep_pinging())
    await expect_fatal(idle, n, "IDLE_TIMEOUT")
    await pinger
    assert not busy.closed.is_set()
    await busy.ok({"type": "ping"}, "pong")


async def test_slow_reader_is_disconnected_and_the_game_goes_on(make_app: Any, players: Any, caplog: Any) -> None:
    """A never-reading client is cut off past max_output_buffer; another table's game finishes."""
    caplog.set_level(logging.WARNING, logger="server")
    app = await make_app(
        limits=Limits(
            max_output_buffer=64 * 1024,
            rate_per_second=10000,
            rate_burst=10000,
            tables_per_player=0,
            tables_per_address=0,
        )
    )
    owner, a, b = await players(app, ["owner", "ga", "gb"])
    for i in range(250):
        owner.send(
            {
                "type": "create_table",
                "name": f"{i:03d}" + "x" * 37,
                "preset": "classic",
                "seats": 4,
                "options": {"burn_count": 4},
            }
        )
    await owner.wait_for(lambda: sum(f["type"] == "table_created" for f in owner.frames) == 250)
    t = await make_table([a, b], seed=SEED, action_seconds=30)
    game = asyncio.create_task(play_until_over([a, b], t, timeout=30))

    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    try:
        await loop.sock_connect(sock, ("127.0.0.1", app.port))
        await loop.sock_sendall(
            sock, encode_frame(HELLO, max_size=None) + encode_frame({**LOGIN, "name": "slow"}, max_size=None)
        )
        dec, got = FrameDecoder(1 << 24), []
        while not any(f["type"] == "logged_in" for f in got):
            got += dec.feed(await asyncio.wait_for(loop.sock_recv(sock, 65536), 5))
        assert any(s.name == "slow" for s in app.sessions)
        request = encode_frame({"type": "list_tables", "id": 3}, max_size=None)
        async with asyncio.timeout(15):  # (only against a hang: "the slow reader was never disconnected")
            while any(s.name == "slow" for s in app.sessions):
                try:
                    await asyncio.wait_for(loop.sock_sendall(sock, request * 20), 0.5)
                except (TimeoutError, ConnectionError, OSError):
                    pass
                # One round trip on another connection: the server has read and answered
                # (into the slow reader's growing output) what it could before the next batch.
                await owner.ok({"type": "ping"}, "pong")
        out = await game
    finally:
        sock.close()
    assert any("slow" in r.getMessage().lower() for r in caplog.records), "not cut off for its output buffer"
    assert out["errors"] == []
    assert sorted(out["game_over"][0]["result"]["places"]) == [0, 1]
    assert not [f for c in (a, b) for f in c.frames if f["type"] == "error" and f["code"] != "STALE_SEQ"]


async def test_answers_keep_the_order_of_requests(app: Any, players: Any) -> None:
    """A get_record (answered from disk) followed at once by pings and a list: the answers
    come in the order the requests were sent."""
    (c,) = await players(app, ["orderly"])
    ids = [
        c.send({"type": "get_record", "game": 424242}),
        c.send({"type": "ping"}),
        c.send({"type": "list_tables"}),
        c.send({"type": "get_record", "game": 1}),
        c.send({"type": "ping"}),
    ]
    answers = [await c.recv() for _ in ids]
    assert [a["id"] for a in answers if a is not None] == ids
    assert [a["type"] for a in answers if a is not None] == ["error", "pong", "tables", "error", "pong"]
