"""Failed logins slow password guessing down (per name and per address), as PROTOCOL.md says,
without keeping a player who holds a seat token from the seat."""

from __future__ import annotations

from typing import Any

from server.login.throttle import LoginThrottle
from tests.server.client import TestClient


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_free_failures_then_a_doubling_delay_up_to_the_cap() -> None:
    clock = Clock()
    th = LoginThrottle(free_per_name=3, free_per_address=5, base=1.0, cap=8.0, clock=clock)
    for _ in range(3):
        assert th.wait("alice", "10.0.0.1") == 0.0
        th.failed("alice", "10.0.0.1")
    assert th.wait("alice", "10.0.0.9") == 0.0  # three failures are free
    delays = []
    for _ in range(5):
        th.failed("Alice", f"10.0.0.{len(delays) + 2}")  # names are case-blind; addresses spread
        delays.append(th.wait("alice", "10.0.0.99"))
        clock.now += delays[-1]
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0]
    th.succeeded("ALICE")
    assert th.wait("alice", "10.0.0.99") == 0.0


def test_an_address_is_slowed_across_names_and_forgotten_after_a_quiet_cap() -> None:
    clock = Clock()
    th = LoginThrottle(free_per_name=3, free_per_address=5, base=1.0, cap=60.0, clock=clock)
    for i in range(6):
        th.failed(f"name{i}", "10.0.0.1")  # one failure per name: only the address adds up
    assert th.wait("someone", "10.0.0.1") == 1.0 and th.wait("someone", "10.0.0.2") == 0.0
    th.succeeded("name0")  # a success does not clear an address
    assert th.wait("name0", "10.0.0.1") == 1.0
    clock.now += 61.0
    th.failed("x", "10.0.0.1")
    assert th.wait("y", "10.0.0.1") == 0.0  # forgotten: counting starts again


def test_memory_is_bounded() -> None:
    th = LoginThrottle(max_keys=100, clock=Clock())
    for i in range(1000):
        th.failed(f"n{i}", f"a{i}")
    assert len(th._entries) <= 100


async def test_guessing_over_tcp_is_slowed_and_a_seat_token_still_gets_in(make_app: Any) -> None:
    app = await make_app()
    clock = Clock()
    app.throttle.clock = clock
    owner = await TestClient.connect(app.port, name="alice")
    await owner.login("alice", guest=False, password="right")
    table = (await owner.ok({"type": "create_table", "name": "t", "preset": "classic", "seats": 2}, "table_created"))[
        "table"
    ]
    token = (await owner.ok({"type": "join", "table": table}, "joined"))["token"]

    async def connected() -> TestClient:
        c = await TestClient.connect(app.port, name="alice")
        await c.ok({"type": "hello", "version": 1}, "welcome")
        return c

    guesser = await connected()

    async def attempt(password: str, **extra: Any) -> dict[str, Any]:
        return await guesser.request({"type": "login", "name": "alice", "password": password, **extra})

    for _ in range(4):
        assert (await attempt("wrong"))["code"] == "AUTH_FAILED"  # 3 free, the 4th sets a delay
    refused = await attempt("right")  # even the right password is not checked while it waits
    assert refused["code"] == "LOGIN_THROTTLED" and refused["retry_after"] == 1.0
    clock.now += 1.0
    assert (await attempt("wrong"))["code"] == "AUTH_FAILED"
    assert (await attempt("wrong"))["retry_after"] == 2.0  # it doubles

    # A made-up token is no way around it.
    other = await connected()
    assert (await other.request({"type": "login", "name": "alice", "password": "right", "token": "made-up"}))[
        "code"
    ] == "LOGIN_THROTTLED"
    # alice's own client, coming back with her seat token, is not kept waiting.
    back = await connected()
    ok = await back.request({"type": "login", "name": "alice", "password": "right", "token": token})
    assert ok["type"] == "logged_in"
    assert (await back.request({"type": "resume", "table": table, "token": token}))["type"] == "joined"
    for c in (owner, guesser, back, other):
        await c.close()
