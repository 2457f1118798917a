"""A client that plays for days keeps nothing per finished game (issue 15): the SDK forgets a
tournament's tables after their game, the tournament player its runners, and a runner of a
long series counts places instead of listing them."""

from __future__ import annotations

import asyncio

from client.bots.greedy import GreedyBot
from client.hosting.tournament_player import TournamentPlayer
from client.sdk import Client
from protocol.messages import CreateTournament, StartTournament, TournamentCreated

from .conftest import Connect, MakeServer
from .helpers import WAIT, check_places, run_all, seat_runners


async def test_a_tournament_player_holds_nothing_of_the_tables_it_finished(
    make_server: MakeServer, connect: Connect
) -> None:
    app = await make_server()
    org = await connect(app, "organiser")
    created = await org.request(
        CreateTournament,
        name="long",
        preset="classic",
        seats=2,
        games=8,
        concurrency=2,
        master_seed=5,
        action_seconds=30,
        participants=["p_a", "p_b"],
    )
    assert isinstance(created, TournamentCreated)
    tid = created.tournament
    clients: list[Client] = []
    players: list[TournamentPlayer] = []
    for name in ("p_a", "p_b"):
        c = await connect(app)
        await c.login(name, f"pw-{name}", bot=True)
        clients.append(c)
        players.append(TournamentPlayer(c, lambda game: GreedyBot(), tid))
    runs = [asyncio.create_task(p.run()) for p in players]
    for p in players:
        await asyncio.wait_for(p.registered.wait(), WAIT)
    await org.request(StartTournament, tournament=tid)
    async with asyncio.timeout(60):
        stats = await asyncio.gather(*runs)
    for player, client, st in zip(players, clients, stats, strict=True):
        assert st.end_reason == "tournament over" and st.tables == 8 and st.acts > 0, st
        # Every table was played to its end and let go: no runner and no feed is left, and
        # the client forgot each table when its game ended (the server closes a tournament's
        # table by itself), so it holds nothing of them, not one entry per game.
        assert player._tasks == {} and player._feeds == {}
        assert client.states == {} and client.summaries == {} and client.seats == {}, (client.states.keys(),)


async def test_the_sdk_forgets_a_table_it_leaves(make_server: MakeServer, connect: Connect) -> None:
    app = await make_server()
    owner = await connect(app, "owner")
    table = await owner.create_table("mine", "classic", 2)
    await owner.join(table)
    async with asyncio.timeout(WAIT):
        while table not in owner.summaries:
            await anext(owner.messages())
    await owner.leave(table)
    assert table not in owner.summaries and table not in owner.states and table not in owner.seats


async def test_runners_count_places_over_a_series(make_server: MakeServer, connect: Connect) -> None:
    app = await make_server()
    _, runners = await seat_runners(
        connect,
        app,
        [GreedyBot() for _ in range(3)],
        games=4,
    )
    stats = await run_all(runners)
    check_places(stats, 4)
    for s in stats:
        assert len(s.places) <= 3  # one count per place, however many games
