"""Trust at the table (issue 35), over real TCP: a name is held by one identity at a time, the
owner is an identity (not a name anyone can type), login tokens stand for a login until
``logout``, the names people use are taken, and two first logins racing for one new name both
get an answer that says what happened."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from server.shell.app import App
from tests.server.client import TestClient
from tests.server.helpers import crash

HELLO = {"type": "hello", "version": 1}


async def fresh(app: App, connect: Any, mode: str = "msgpack") -> TestClient:
    c: TestClient = await connect(app, mode, "?")
    await c.ok(HELLO, "welcome")
    return c


async def login(c: TestClient, **fields: Any) -> dict[str, Any]:
    return await c.request({"type": "login", **fields})


async def answer_to(c: TestClient, request_id: int) -> dict[str, Any]:
    """The frame that answers the request ``request_id`` sent with ``c.send``."""
    while True:
        f = await c.recv()
        assert f is not None, f"{c.name}: closed before the answer to {request_id}"
        if f.get("id") == request_id:
            return f


async def dana_owns_a_table(app: App, connect: Any) -> tuple[TestClient, int, str]:
    """Guest Dana, connected, owns a 2-seat table (without sitting at it). Returns her
    connection, the table and her login token."""
    dana = await fresh(app, connect)
    answer = await login(dana, name="Dana", guest=True)
    assert answer["type"] == "logged_in" and answer["name"] == "Dana" and answer["token"]
    table = (await dana.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    return dana, table, answer["token"]


@pytest.mark.parametrize("mode", ["msgpack", "json", "ws"])
async def test_an_impostor_guest_cannot_take_the_owners_name(app: App, connect: Any, mode: str) -> None:
    """The defect of item 1: a second guest "Dana" (or a lookalike) is refused at login while
    Dana holds the name, with a free name offered; under that name it is not the owner."""
    _dana, table, _ = await dana_owns_a_table(app, connect)
    impostor = await fresh(app, connect, mode)
    for name in ("Dana", "dana", "ＤＡＮＡ", " Dana "):
        refused = await login(impostor, name=name, guest=True)
        assert refused["type"] == "error" and refused["code"] == "NAME_TAKEN", refused
        assert refused["suggestion"] == f"{name.strip()} 2"
    answer = await login(impostor, name=refused["suggestion"], guest=True)
    assert answer["type"] == "logged_in" and answer["name"] == "Dana 2"
    for request in (
        {"type": "start", "table": table},
        {"type": "add_bot", "table": table, "bot": "greedy"},
    ):
        refused = await impostor.request(request)
        assert refused["type"] == "error" and refused["code"] == "NOT_OWNER", refused
    assert app.tables[table].owner == "Dana"


async def test_a_name_is_held_while_its_guest_holds_anything(app: App, connect: Any) -> None:
    """Dana gone from the server but still owning her table: the name stays hers; her login
    token brings her back as the owner; once she holds nothing the name is free again."""
    dana, table, token = await dana_owns_a_table(app, connect)
    await dana.close()
    other = await fresh(app, connect)
    assert (await login(other, name="Dana", guest=True))["code"] == "NAME_TAKEN"
    back = await fresh(app, connect)
    answer = await login(back, name="Dana", guest=True, login_token=token)
    assert answer["type"] == "logged_in" and answer["token"] == token
    joined = await back.ok({"type": "join", "table": table}, "joined")
    await back.ok({"type": "leave", "table": table}, "ok")  # the last one out: the table closes
    assert table not in app.tables and joined["seat"] == 0
    await back.close()
    freed = await fresh(app, connect)
    assert (await login(freed, name="Dana", guest=True))["type"] == "logged_in"


async def test_an_account_cannot_register_a_present_guests_name(app: App, connect: Any) -> None:
    await dana_owns_a_table(app, connect)
    c = await fresh(app, connect)
    refused = await login(c, name="DANA", password="secret")
    assert refused["type"] == "error" and refused["code"] == "NAME_TAKEN" and refused["suggestion"] == "DANA 2"
    assert app.store is not None and app.store.account("Dana") is None  # nothing was registered


async def test_two_sessions_never_share_a_name(app: App, connect: Any) -> None:
    """Eight connections (TCP and WebSocket) log in as guest "Sam" (and lookalikes) at once: exactly one
    gets the name, every other one is told NAME_TAKEN."""
    clients = [await fresh(app, connect, ("msgpack", "json", "ws")[i % 3]) for i in range(8)]
    names = ["Sam", "sam", "SAM", "Ｓam"] * 2
    ids = [c.send({"type": "login", "name": n, "guest": True}) for c, n in zip(clients, names, strict=True)]
    answers = [await answer_to(c, i) for c, i in zip(clients, ids, strict=True)]
    assert sorted(a["type"] for a in answers) == ["error"] * 7 + ["logged_in"]
    assert {a["code"] for a in answers if a["type"] == "error"} == {"NAME_TAKEN"}
    holders = [s for s in app.sessions if s.logged_in]
    assert len(holders) == 1


async def test_two_first_logins_racing_for_one_new_name(app: App, connect: Any) -> None:
    """Item 4(b): the second first login waits for the first; with the same password both are
    that account, with another the second is told the password is wrong (not "try again")."""
    a, b, c = [await fresh(app, connect) for _ in range(3)]
    ids = [x.send({"type": "login", "name": "Rae", "password": "pw-1"}) for x in (a, b)]
    ids.append(c.send({"type": "login", "name": "rae", "password": "pw-2"}))
    answers = [await answer_to(x, i) for x, i in zip((a, b, c), ids, strict=True)]
    assert [x["type"] for x in answers] == ["logged_in", "logged_in", "error"], answers
    assert answers[2]["code"] == "AUTH_FAILED" and "wrong name or password" in answers[2]["message"]
    assert answers[0]["name"] == answers[1]["name"] == "Rae"


@pytest.mark.parametrize("name", ["Anna Maria", "Zoë", "Mum's phone", "🦊 Fox", "Ελένη"])
@pytest.mark.parametrize("mode", ["msgpack", "json", "ws"])
async def test_the_names_people_use_are_taken(app: App, connect: Any, name: str, mode: str) -> None:
    c = await fresh(app, connect, mode)
    answer = await login(c, name=name, guest=True)
    assert answer["type"] == "logged_in" and answer["name"] == name
    table = (await c.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    await c.ok({"type": "join", "table": table}, "joined")
    summary = (await c.ok({"type": "list_tables"}, "tables"))["tables"][0]
    assert summary["owner"] == name and summary["seats"][0]["name"] == name


async def test_a_bad_name_is_refused_with_its_reason_and_the_connection_stays(app: App, connect: Any) -> None:
    c = await fresh(app, connect)
    for name, why in (("a\u200eb", "U+200E"), ("x" * 25, "at most 24"), ("<b>", "'<'")):
        refused = await login(c, name=name, guest=True)
        assert refused["type"] == "error" and refused["code"] == "BAD_NAME" and why in refused["message"]
    assert (await login(c, name="Bea", guest=True))["type"] == "logged_in"


async def test_a_login_token_stands_for_the_password_until_logout(app: App, connect: Any) -> None:
    c = await fresh(app, connect)
    first = await login(c, name="Kim", password="pw")
    token = first["token"]
    d = await fresh(app, connect, "json")
    again = await login(d, name="KIM", login_token=token)
    assert again["type"] == "logged_in" and again["name"] == "Kim" and again["guest"] is False
    await d.ok({"type": "logout"}, "ok")
    await d.wait_closed()  # (logout: the server closes the connection after the ok)
    e = await fresh(app, connect)
    refused = await login(e, name="Kim", login_token=token)
    assert refused["type"] == "error" and refused["code"] == "AUTH_FAILED"
    assert (await login(e, name="Kim", password="pw"))["type"] == "logged_in"  # the password still works
    f = await fresh(app, connect)
    wrong = await login(f, name="Kim", login_token="not-a-token")
    assert wrong["type"] == "error" and wrong["code"] == "AUTH_FAILED"


async def test_ownership_survives_a_restart_bound_to_the_identity(tmp_path: Any, make_app: Any, connect: Any) -> None:
    """After a crash the guest owner's table is back, held by her identity: another guest cannot
    take the name, and she, back with her login token, starts the game; a seat's token brings a
    seated guest back as itself too."""
    db = str(tmp_path / "own.sqlite3")
    app: App = await make_app(db=db)
    dana, table, token = await dana_owns_a_table(app, connect)
    seat0 = await dana.ok({"type": "join", "table": table}, "joined")
    eve = await fresh(app, connect)
    await login(eve, name="Eve", guest=True)
    seat1 = await eve.ok({"type": "join", "table": table}, "joined")
    await crash(app)

    again: App = await make_app(db=db)
    impostor = await fresh(again, connect)
    assert (await login(impostor, name="Dana", guest=True))["code"] == "NAME_TAKEN"
    assert (await login(impostor, name="Dana 2", guest=True))["type"] == "logged_in"
    assert (await impostor.request({"type": "start", "table": table}))["code"] == "NOT_OWNER"

    dana2 = await fresh(again, connect)
    assert (await login(dana2, name="Dana", guest=True, login_token=token))["type"] == "logged_in"
    await dana2.ok({"type": "resume", "table": table, "token": seat0["token"]}, "joined")
    eve2 = await fresh(again, connect, "json")
    assert (await login(eve2, name="Eve", guest=True, token=seat1["token"]))["type"] == "logged_in"
    await eve2.ok({"type": "resume", "table": table, "token": seat1["token"]}, "joined")
    refused = await eve2.request({"type": "start", "table": table})
    assert refused["code"] == "NOT_OWNER"
    await dana2.ok({"type": "start", "table": table}, "ok")
    assert again.tables[table].running


async def test_hello_login_and_logout_in_one_write_are_each_answered(app: App, connect: Any) -> None:
    """logout is answered (ok), then the connection closes; the token is gone for good."""
    c: TestClient = await connect(app, "json", "?")
    c.send(HELLO)
    lid = c.send({"type": "login", "name": "Lou", "guest": True})
    oid = c.send({"type": "logout"})
    logged = await answer_to(c, lid)
    assert logged["type"] == "logged_in"
    assert (await answer_to(c, oid))["type"] == "ok"
    await c.wait_closed()
    d = await fresh(app, connect)
    assert (await login(d, name="Lou", guest=True, login_token=logged["token"]))["code"] == "AUTH_FAILED"


async def test_a_house_bots_name_is_never_given_to_a_guest(app: App, connect: Any) -> None:
    """The server's bots are named <kind>-<n>; a new bot skips a name a guest holds."""
    squatter = await fresh(app, connect)
    app.hosted.next_number = 5
    assert (await login(squatter, name="greedy-5", guest=True))["type"] == "logged_in"
    assert app.hosted.new_name("greedy") == "greedy-6"


async def test_a_login_token_with_a_seat_token_is_not_kept_out_by_a_strangers_guesses(app: App, connect: Any) -> None:
    """Wrong passwords for a name throttle its logins; the player coming back with its login
    token and a seat token is let through all the same (the throttle is against guessing)."""
    kim = await fresh(app, connect)
    token = (await login(kim, name="Kim", password="pw"))["token"]
    table = (await kim.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    seat = await kim.ok({"type": "join", "table": table}, "joined")
    stranger = await fresh(app, connect)
    for _ in range(50):
        if (await login(stranger, name="Kim", password="guess"))["code"] == "LOGIN_THROTTLED":
            break
    else:
        raise AssertionError("the throttle never answered")
    assert (await login(stranger, name="Kim", login_token=token))["code"] == "LOGIN_THROTTLED"
    back = await fresh(app, connect)
    answer = await login(back, name="Kim", login_token=token, token=seat["token"])
    assert answer["type"] == "logged_in" and answer["name"] == "Kim"


async def test_another_players_seat_token_does_not_lift_the_throttle(app: App, connect: Any) -> None:
    kim = await fresh(app, connect)
    await login(kim, name="Kim", password="pw")
    eve = await fresh(app, connect)
    await login(eve, name="Eve", guest=True)
    table = (await eve.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    eves_seat = (await eve.ok({"type": "join", "table": table}, "joined"))["token"]
    stranger = await fresh(app, connect)
    for _ in range(50):
        if (await login(stranger, name="Kim", password="guess"))["code"] == "LOGIN_THROTTLED":
            break
    else:
        raise AssertionError("the throttle never answered")
    refused = await login(stranger, name="Kim", password="guess", token=eves_seat)
    assert refused["code"] == "LOGIN_THROTTLED"


async def test_a_full_disk_refuses_a_first_login_and_a_logout_with_storage_failed(app: App, connect: Any) -> None:
    """What a login or logout must write and cannot: STORAGE_FAILED with retry_after, never an
    internal error; a guest still logs in (its login token is then left out)."""
    store = app.store
    assert store is not None
    c = await fresh(app, connect)
    token = (await login(c, name="Ola", password="pw"))["token"]

    def full(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")  # what SQLite says

    store.create_account = full  # type: ignore[method-assign]
    store.drop_login = full  # type: ignore[method-assign]
    store.add_login = full  # type: ignore[method-assign]
    d = await fresh(app, connect)
    refused = await login(d, name="New", password="pw")
    assert refused["code"] == "STORAGE_FAILED" and refused["retry_after"] > 0
    refused = await c.request({"type": "logout"})
    assert refused["code"] == "STORAGE_FAILED" and refused["retry_after"] > 0
    guest = await login(d, name="Gus", guest=True)
    assert guest["type"] == "logged_in" and "token" not in guest
    e = await fresh(app, connect)
    assert (await login(e, name="Ola", login_token=token))["type"] == "logged_in"  # the token still works
