"""Viewers (``login.viewer``, PROTOCOL.md §3 "Viewers"): the read-only pages' login. A viewer is
admitted where guests are not, still needs the server password, gets a name of the server's
that holds nothing, and may send only the requests registered for viewers: every other one,
whatever handler is added later, is refused with VIEWER_READ_ONLY. What it reads is what anyone
reads; a table it watches sends it exactly the spectators' states."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.examples import EXAMPLES
from protocol.messages import CreateTable, encode_message
from server.shell.app import App
from server.shell.reply import Handlers, Reply
from tests.server.client import TestClient, make_table, play_until_over

READING = {
    "hello",
    "login",
    "ping",
    "logout",
    "list_tables",
    "watch",
    "watch_lobby",
    "unwatch_lobby",
    "list_tournaments",
    "get_tournament",
    "ladder",
    "ladder_games",
    "get_challenge",
    "get_record",
    "get_replay",
}
"""The requests a viewer may send (the viewers column of PROTOCOL.md §4, checked against the
registry in tests/server/test_one_answer.py)."""


async def viewer(app: App, **login: Any) -> TestClient:
    """A connection logged in as a viewer (``login``: more fields of the login)."""
    c = await TestClient.connect(app.port, name="viewer")
    await c.ok({"type": "hello", "version": 1}, "welcome")
    answer = await c.ok({"type": "login", "name": "viewer", "viewer": True, **login}, "logged_in")
    c.name = answer["name"]
    return c


async def account(app: App, name: str) -> TestClient:
    """A player logged in to an account (works where guests are refused)."""
    c = await TestClient.connect(app.port, name=name)
    await c.login(name, guest=False, password=f"pw-{name}")
    return c


async def refused(c: TestClient, msg: dict[str, Any], code: str) -> None:
    reply = await c.request(msg)
    assert reply["type"] == "error" and reply["code"] == code, (msg, reply)


async def test_a_viewer_gets_in_where_guests_do_not(make_app: Any) -> None:
    """allow_guests=False: a guest is refused, a viewer logs in: viewer true, not a guest nor a
    bot, a name of the server's, no login token."""
    app: App = await make_app(allow_guests=False)
    guest = await TestClient.connect(app.port, name="g")
    await guest.ok({"type": "hello", "version": 1}, "welcome")
    await refused(guest, {"type": "login", "name": "g", "guest": True}, "GUESTS_NOT_ALLOWED")
    c = await TestClient.connect(app.port, name="v")
    await c.ok({"type": "hello", "version": 1}, "welcome")
    answer = await c.ok({"type": "login", "name": "v", "viewer": True}, "logged_in")
    assert answer == {
        "type": "logged_in",
        "id": answer["id"],
        "name": "viewer-1",
        "guest": False,
        "bot": False,
        "viewer": True,
    }
    for x in (guest, c):
        await x.close()


async def test_a_player_is_not_told_about_viewers(make_app: Any) -> None:
    """A player's logged_in has no viewer field at all (a client that never asks for a viewer
    never meets it: an older strict decoder keeps working)."""
    app: App = await make_app()
    c = await TestClient.connect(app.port, name="p")
    answer = await c.login("p")
    assert "viewer" not in answer
    await c.close()


async def test_a_viewer_needs_the_server_password(make_app: Any) -> None:
    """On a server with a password a viewer login without it is SERVER_PASSWORD_REQUIRED, with a
    wrong one AUTH_FAILED, with the right one it gets in (guests refused there too)."""
    app: App = await make_app(password="house", allow_guests=False)
    c = await TestClient.connect(app.port, name="v")
    await c.ok({"type": "hello", "version": 1}, "welcome")
    await refused(c, {"type": "login", "name": "v", "viewer": True}, "SERVER_PASSWORD_REQUIRED")
    await refused(c, {"type": "login", "name": "v", "viewer": True, "server_password": "nope"}, "AUTH_FAILED")
    answer = await c.ok({"type": "login", "name": "v", "viewer": True, "server_password": "house"}, "logged_in")
    assert answer["viewer"] is True
    await c.close()


async def test_a_viewer_is_refused_every_request_not_registered_for_viewers(make_app: Any) -> None:
    """Every request type of the registry not marked ``viewers`` (whatever handler is added
    later) gets VIEWER_READ_ONLY, and nothing it asked for happens; every one marked is answered
    by its own handler; the marked ones are exactly the requests that read."""
    app: App = await make_app()
    marked = {cls.TYPE for cls, h in app.handlers.by_type.items() if h.viewers}
    assert marked == READING
    closed = {cls.TYPE for cls in app.handlers.by_type} - marked
    assert {"create_table", "join", "act", "chat", "start", "add_bot", "ladder_join", "challenge", "register"} <= closed
    assert all(not app.handlers.by_type[cls].writes for cls in app.handlers.by_type if cls.TYPE in marked)

    owner = await account(app, "owner")
    table = (await owner.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}))["table"]
    c = await viewer(app)
    for kind in sorted(closed):
        msg = encode_message(EXAMPLES[kind])
        del msg["id"]
        if "table" in msg:
            msg["table"] = table  # (a table that exists: the refusal is the viewer's, not UNKNOWN_TABLE)
        await refused(c, msg, "VIEWER_READ_ONLY")
    assert list(app.tables) == [table] and not any(app.tables[table].seats) and app.tables[table].watchers == []
    assert app.tournaments.tournaments == {} and app.ladder.members == {} and app.challenges.challenges == {}

    # The marked ones reach their handlers (an unknown id is their own refusal, never this one).
    for kind in sorted(marked - {"hello", "login", "logout"}):
        msg = encode_message(EXAMPLES[kind])
        del msg["id"]
        reply = await c.request(msg)
        assert reply.get("code") != "VIEWER_READ_ONLY", (kind, reply)
    await refused(c, {"type": "login", "name": "again", "guest": True}, "ALREADY_LOGGED_IN")
    await c.ok({"type": "logout"}, "ok")
    await c.wait_closed()
    await owner.close()


def test_a_request_that_writes_cannot_be_opened_to_viewers() -> None:
    """The registry refuses a handler declared both to write and to be a viewer's."""
    with pytest.raises(ValueError, match="a viewer only reads"):
        Handlers().add(CreateTable, lambda s, m: Reply(), writes=True, viewers=True)


async def test_viewers_hold_no_name_and_never_collide(make_app: Any) -> None:
    """Two viewers at once both get in, under different names; the name a viewer sends is not
    looked at (a connected player's name, or one that breaks the name rule); a player then logs
    in under a viewer's name while that viewer is still connected."""
    app: App = await make_app(allow_guests=False)
    alice = await account(app, "alice")
    first = await viewer(app)
    second = await viewer(app)
    third = await viewer(app, name="alice")
    fourth = await viewer(app, name="a\u200eb", password="whatever", guest=True, bot=True)
    names = [v.name for v in (first, second, third, fourth)]
    assert names == ["viewer-1", "viewer-2", "viewer-3", "viewer-4"]
    assert app.name_holder("alice") == "account:alice"
    player = await account(app, "viewer-1")
    assert app.name_holder("viewer-1") == "account:viewer-1" and not first.closed.is_set()
    assert (await first.ok({"type": "ping"}, "pong"))["type"] == "pong"
    for c in (alice, first, second, third, fourth, player):
        await c.close()


async def test_a_viewer_reads_what_anyone_reads_and_watches_as_a_spectator(make_app: Any) -> None:
    """On a server without guests: a viewer and a player's spectator both watch a table from
    before its first game; over the whole game the viewer gets exactly the spectator's states
    (no hand, no legal action); then it reads that game's record and replay and the ladder, each
    as the player gets them."""
    app: App = await make_app(allow_guests=False)
    a, b, spectator = await account(app, "ann"), await account(app, "bob"), await account(app, "spec")
    table = await make_table([a, b], start=False)
    v = await viewer(app)
    await v.ok({"type": "watch", "table": table}, "watching")
    await spectator.ok({"type": "watch", "table": table}, "watching")
    await a.ok({"type": "start", "table": table}, "ok")
    result = await play_until_over([a, b, v, spectator], table)
    assert result["errors"] == []
    game = result["game_over"][0]["game"]

    def states(c: TestClient) -> list[dict[str, Any]]:
        return [f for f in c.frames if f["type"] == "state" and f["table"] == table]

    seen = states(v)
    assert seen and seen == states(spectator)
    assert all(f["view"]["hand"] is None and f["view"]["legal"] == [] for f in seen)
    assert result["game_over"][2] == result["game_over"][3]

    for msg, answer in (
        ({"type": "get_record", "game": game}, "record"),
        ({"type": "get_replay", "game": game}, "replay"),
        ({"type": "ladder"}, "ladder_standings"),
        ({"type": "list_tables"}, "tables"),
    ):
        mine, theirs = await v.ok(msg, answer), await a.ok(msg, answer)
        assert {**mine, "id": 0} == {**theirs, "id": 0}, msg["type"]
    for c in (a, b, spectator, v):
        await c.close()
