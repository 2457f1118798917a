"""Error isolation (issue 11, part 4), each shown by injecting the fault: one table's failing
clock does not stop the others; the error path is rate-limited like the rest; every request
gets exactly one answer, also when the work that follows the answer fails."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from server.config import Limits
from tests.server.client import TestClient, encode, make_table, play_until_over, short_seeds

SEED = short_seeds("classic", 2, 1, max_len=200)[0]


def timeouts(c: TestClient, table: int) -> list[dict[str, Any]]:
    return [
        e
        for f in c.frames
        if f["type"] == "state" and f["table"] == table
        for e in f["events"]
        if e["kind"] == "timeout"
    ]


def answers(c: TestClient) -> dict[int, list[dict[str, Any]]]:
    """Every frame that answers a request, by request id."""
    out: dict[int, list[dict[str, Any]]] = {}
    for f in c.frames:
        if f.get("id") is not None:
            out.setdefault(f["id"], []).append(f)
    return out


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("injected fault")


# ---------------------------------------------------------------------- clocks


@pytest.mark.pure_only
async def test_a_table_whose_clock_fails_does_not_stop_the_others(
    make_app: Any, players: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The first table's tick raises on every sweep: it is logged, and the second table's
    clock still plays for its idle seats."""
    app = await make_app()
    first = await players(app, ["fa0", "fa1"])
    second = await players(app, ["fb0", "fb1"])
    ta = await make_table(first, seed=SEED, action_seconds=0.5)  # swept first (tables in order)
    tb = await make_table(second, seed=SEED, action_seconds=0.5)
    monkeypatch.setattr(app.tables[ta], "tick", boom)
    with caplog.at_level(logging.ERROR, logger="server.shell.sweeper"):
        await second[0].wait_for(lambda: len(timeouts(second[0], tb)) >= 2, 15)
    assert timeouts(first[0], ta) == []
    assert any(f"table {ta} failed" in r.getMessage() for r in caplog.records), caplog.records
    # Both tables are still there and the server answers.
    assert ta in app.tables and tb in app.tables
    assert (await first[0].request({"type": "ping"}))["type"] == "pong"


# ---------------------------------------------------------------------- one answer


async def test_a_failure_after_the_game_over_does_not_answer_the_act_twice(
    make_app: Any, players: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What follows the last act (the tournament is told of the game) raises: the act has its
    one ``ok`` and no INTERNAL_ERROR; the record is stored all the same; play goes on."""
    app = await make_app()
    clients = await players(app, ["oa", "ob"])
    t = await make_table(clients, seed=SEED)
    monkeypatch.setattr(app.tournaments, "game_finished", boom)
    with caplog.at_level(logging.ERROR, logger="server.shell.app"):
        out = await play_until_over(clients, t)
    assert out["errors"] == []
    for c in clients:
        many = {i: fs for i, fs in answers(c).items() if len(fs) > 1}
        assert many == {}, many
        assert not any(f.get("code") == "INTERNAL_ERROR" for f in c.frames)
    assert any("after an answer failed" in r.getMessage() for r in caplog.records)
    game = out["game_over"][0]["game"]
    record = await clients[0].request({"type": "get_record", "game": game})
    assert record["type"] == "record", record
    # The table goes on to its next game.
    await clients[0].ok({"type": "start", "table": t}, "ok")


@pytest.mark.pure_only
async def test_a_failure_after_leave_does_not_answer_twice(
    make_app: Any, players: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing the table the last player left raises: ``leave`` still has exactly one answer."""
    app = await make_app()
    (alone,) = await players(app, ["la"])
    t = (await alone.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    await alone.ok({"type": "join", "table": t}, "joined")
    monkeypatch.setattr(app.lobby, "drop_table", boom)
    rid = alone.send({"type": "leave", "table": t})
    pong = await alone.request({"type": "ping"})  # answered after everything before it
    assert pong["type"] == "pong"
    assert [f["type"] for f in answers(alone)[rid]] == ["ok"]


@pytest.mark.pure_only
async def test_a_handler_that_fails_before_answering_answers_one_error(
    make_app: Any, players: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a handler: one INTERNAL_ERROR for that request, nothing it queued is sent, and
    the connection and the table go on."""
    app = await make_app()
    a, b = await players(app, ["ca", "cb"])
    t = await make_table([a, b], start=False)
    monkeypatch.setattr(app.tables[t], "chat", boom)
    failed = await a.request({"type": "chat", "table": t, "text": "hello"})
    assert failed["type"] == "error" and failed["code"] == "INTERNAL_ERROR"
    assert len(answers(a)[failed["id"]]) == 1
    monkeypatch.undo()
    await a.ok({"type": "chat", "table": t, "text": "hello again"}, "ok")
    got = await b.recv_until("chat_message")
    assert got["text"] == "hello again"


# ---------------------------------------------------------------------- the error path's rate


async def test_refused_requests_cannot_outrun_the_rate_limit(make_app: Any, connect: Any) -> None:
    """A flood of bad requests (each refused with an error): every request gets exactly one
    answer, but not faster than twice the rate limit (answers and refusals each at most the
    bucket's size plus its rate), however fast they come."""
    rate, burst = 200.0, 10
    app = await make_app(limits=Limits(rate_per_second=rate, rate_burst=burst))
    c = await connect(app, "msgpack", "flood")
    await c.login()
    n = 300
    began = time.monotonic()
    c.send_raw(
        b"".join(encode({"type": "chat", "id": 100 + i, "table": 999, "text": "x"}, "msgpack") for i in range(n))
    )
    await c.wait_for(lambda: all(100 + i in answers(c) for i in range(n)), 15)
    took = time.monotonic() - began
    got = answers(c)
    assert all(len(got[100 + i]) == 1 for i in range(n))
    codes = {got[100 + i][0]["code"] for i in range(n)}
    assert codes == {"UNKNOWN_TABLE", "RATE_LIMITED"}, codes
    # n answers in `took` seconds: at most 2 * (burst + rate * took) of them can have gone out.
    assert n <= 2 * (burst + rate * took), f"{n} answers in {took:.3f} s"
    assert (await c.request({"type": "ping"}))["type"] in ("pong", "error")
    assert not c.closed.is_set()


async def test_messages_before_a_bad_frame_pay_like_any_other(make_app: Any, connect: Any) -> None:
    """Pings followed by garbage in one write: the pings go through the rate limit (pongs,
    then RATE_LIMITED, each exactly once), then BAD_FRAME closes the connection."""
    rate, burst = 50.0, 5
    app = await make_app(limits=Limits(rate_per_second=rate, rate_burst=burst))
    c = await connect(app, "msgpack", "garbage")
    await c.login()
    n = 30
    began = time.monotonic()
    c.send_raw(b"".join(encode({"type": "ping", "id": 100 + i}, "msgpack") for i in range(n)) + b"\x00\x00\x00\x00")
    await c.wait_closed(15)
    took = time.monotonic() - began
    got = answers(c)
    assert all(len(got.get(100 + i, [])) == 1 for i in range(n)), got
    pongs = sum(got[100 + i][0]["type"] == "pong" for i in range(n))
    assert 1 <= pongs <= burst + rate * took, (pongs, took)
    assert any(f.get("code") == "RATE_LIMITED" for f in c.frames)
    assert c.frames[-1]["type"] == "error" and c.frames[-1]["code"] == "BAD_FRAME"
