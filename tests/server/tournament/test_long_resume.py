"""Resuming a long tournament: the games already played go to the server as ranges, which fit
in one frame however many there are (issue 15: a 100,000-game tournament stays resumable)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack
import pytest

from protocol.messages import CreateTournament, encode_message
from server.shell.app import App
from server.storage.persist import restore_tournament, tournament_snapshot
from server.tournament.ranges import contains, count, merge
from tests.server.tournament.test_service import participant, play_tournament


def test_ranges_merge_count_and_contain() -> None:
    r = merge([5, 1, 2, 3, 9], [[10, 12], [20, 20], [2, 4]])
    assert r == ((1, 5), (9, 12), (20, 20)) and count(r) == 10
    assert [n for n in range(25) if contains(r, n)] == [1, 2, 3, 4, 5, 9, 10, 11, 12, 20]
    assert merge() == () and not contains((), 0)
    for bad in ([3, 2], [1], [1, 2, 3]):
        with pytest.raises(ValueError):
            merge(ranges=[bad])


def test_the_done_games_of_a_100000_game_tournament_fit_in_one_frame() -> None:
    done = [n for n in range(100_000) if n % 9_973 != 5]  # ten games left undone here and there
    as_list = msgpack.packb(
        encode_message(CreateTournament(id=1, name="t", preset="classic", seats=4, games=100_000, done=done))
    )
    ranges = [list(r) for r in merge(done)]
    as_ranges = msgpack.packb(
        encode_message(CreateTournament(id=1, name="t", preset="classic", seats=4, games=100_000, done_ranges=ranges))
    )
    assert len(as_list) > 4096 >= len(as_ranges), (len(as_list), len(as_ranges))  # max_frame_in: 4096


async def test_a_tournament_resumed_with_ranges_plays_only_the_rest(make_app: Any) -> None:
    app: App = await make_app()
    org = await participant(app, "org")
    tid = (
        await org.ok(
            {
                "type": "create_tournament",
                "name": "resumed",
                "preset": "classic",
                "seats": 2,
                "games": 3000,
                "concurrency": 2,
                "master_seed": 3,
                "action_seconds": 30,
                "participants": ["p_a", "p_b"],
                "done": [2998],
                "done_ranges": [[0, 1499], [1500, 2995]],
            },
            "tournament_created",
        )
    )["tournament"]
    t = app.tournaments.tournaments[tid]
    assert t.settings.done == ((0, 2995), (2998, 2998))
    # The snapshot holds two ranges, not 2,998 numbers; a snapshot of before, with numbers, reads too.
    snap = json.loads(json.dumps(tournament_snapshot(t)))  # as the database keeps it
    assert snap["settings"]["done"] == [[0, 2995], [2998, 2998]]
    assert restore_tournament(snap).settings.done == t.settings.done
    old = snap | {"settings": snap["settings"] | {"done": [*range(2996), 2998]}}
    assert restore_tournament(old).settings.done == t.settings.done
    players = [await participant(app, n) for n in ("p_a", "p_b")]
    for p in players:
        await p.ok({"type": "register", "tournament": tid}, "ok")
    tasks = [asyncio.create_task(play_tournament(p, [])) for p in players]
    await org.ok({"type": "start_tournament", "tournament": tid}, "ok")
    over = await org.recv_until("tournament_over", timeout=60)
    await asyncio.gather(*tasks)
    played = sorted(f["result"]["number"] for f in org.frames if f.get("type") == "tournament_game")
    assert played == [2996, 2997, 2999]
    assert over["info"]["games_finished"] == 3000 and over["info"]["status"] == "finished"
    assert all(row["games"] == 3 for row in over["info"]["standings"])  # the games played here


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"done_ranges": [[3, 1]]}, "done_ranges"),
        ({"schedule": "swiss"}, "schedule must be one of"),
        ({"participants": ["ann", "ann"]}, "distinct"),
    ],
)
async def test_settings_that_make_no_tournament_are_refused_and_the_connection_stays(
    make_app: Any, settings: dict[str, Any], said: str
) -> None:
    """Semantic errors of create_tournament are BAD_TOURNAMENT refusals like any other
    request's (they were a fatal BAD_MESSAGE that closed the connection)."""
    app: App = await make_app()
    org = await participant(app, "org")
    base = {"type": "create_tournament", "name": "x", "preset": "classic", "seats": 2, "games": 4}
    reply = await org.request(base | settings)
    assert reply["type"] == "error" and reply["code"] == "BAD_TOURNAMENT" and said in reply["message"]
    assert (await org.request({"type": "list_tournaments"}))["type"] == "tournaments"  # still connected
