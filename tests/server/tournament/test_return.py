"""A tournament participant that comes back after a drop, as docs/PROTOCOL.md tells it to:
``hello``, ``login``, ``register`` (which hands its seats back) and, if it likes, ``resume``
with the token of its last ``seated``; over real TCP, in JSON lines like an outside bot."""

from __future__ import annotations

import asyncio
from typing import Any

from server.shell.app import App
from tests.server.client import TestClient
from tests.server.helpers import crash
from tests.server.tournament.test_service import participant, play_tournament
from tests.server.waiting import until_server

TWO = {
    "type": "create_tournament",
    "name": "back",
    "preset": "classic",
    "seats": 2,
    "games": 1,  # one deal: two games, one after the other
    "concurrency": 1,
    "master_seed": 3,
    "action_seconds": 30,  # nothing times out while the participant is away
    "participants": ["leaver", "stayer"],
}


async def come_back(app: App, token_of: dict[str, Any]) -> tuple[TestClient, int]:
    """``leaver`` connects again and pipelines hello, login, register and resume with the token of
    the ``seated`` it kept, as an outside bot would; returns the client and the resume's id."""
    c = await TestClient.connect(app.port, "json", name="leaver")
    c.send({"type": "hello", "version": 1, "client": "outside bot"})
    c.send({"type": "login", "name": "leaver", "password": "pw-leaver", "bot": True})
    c.send({"type": "register", "tournament": token_of["tournament"]})
    rid = c.send({"type": "resume", "table": token_of["table"], "token": token_of["token"]})
    return c, rid


async def test_a_participant_back_after_a_drop_resumes_with_its_last_seated_token(make_app: Any) -> None:
    """Dropped mid-game, a participant sends hello, login, register and resume (the token of its
    last seated) at once: the resume is answered by joined for that seat, not BAD_TOKEN, and it
    plays both games to the end without another error."""
    app: App = await make_app()
    org = await participant(app, "org")
    tid = (await org.ok(TWO, "tournament_created"))["tournament"]
    leaver, stayer = await participant(app, "leaver"), await participant(app, "stayer")
    for p in (leaver, stayer):
        await p.ok({"type": "register", "tournament": tid}, "ok")
    staying = asyncio.create_task(play_tournament(stayer, []))
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    seated = await leaver.recv_until("seated")
    await leaver.recv_until("state", where=lambda f: f["table"] == seated["table"])
    await leaver.close()
    table = app.tables[seated["table"]]
    await until_server(org, lambda: table.seats[seated["seat"]].session is None)  # away

    back, rid = await come_back(app, seated)
    try:
        over = await play_tournament(back, [])  # fails on any error but STALE_SEQ
        await staying
    finally:
        staying.cancel()
    (answer,) = [f for f in back.frames if f.get("id") == rid]
    assert answer["type"] == "joined", answer
    assert (answer["table"], answer["seat"]) == (seated["table"], seated["seat"])
    assert over["info"]["games_finished"] == 2
    await back.close()


async def test_after_a_restart_the_resume_with_the_seated_token_also_succeeds(tmp_path: Any, make_app: Any) -> None:
    """The server crashes mid-game; the participant comes back to the restarted server with
    hello, login, register and resume with the token of the seated it got before the crash:
    joined, and the tournament is played to the end."""
    db = str(tmp_path / "back.sqlite3")
    app: App = await make_app(db=db)
    org = await participant(app, "org")
    tid = (await org.ok(TWO, "tournament_created"))["tournament"]
    leaver, stayer = await participant(app, "leaver"), await participant(app, "stayer")
    for p in (leaver, stayer):
        await p.ok({"type": "register", "tournament": tid}, "ok")
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    seated = await leaver.recv_until("seated")
    await leaver.recv_until("state", where=lambda f: f["table"] == seated["table"])
    await crash(app)

    again: App = await make_app(db=db)
    assert again.tables[seated["table"]].running  # the game in progress is back
    stayer2 = await participant(again, "stayer")
    await stayer2.ok({"type": "register", "tournament": tid}, "ok")
    staying = asyncio.create_task(play_tournament(stayer2, []))
    back, rid = await come_back(again, seated)
    try:
        over = await play_tournament(back, [])
        await staying
    finally:
        staying.cancel()
    (answer,) = [f for f in back.frames if f.get("id") == rid]
    assert answer["type"] == "joined" and answer["seat"] == seated["seat"], answer
    assert over["info"]["games_finished"] == 2
    await back.close()
    await stayer2.close()
