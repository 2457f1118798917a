"""A card evening in a real terminal, at 80x24 and at 60x20: the real ``shithead`` program (in
tmux) against a real server, with a bundled bot and a second player (bob, a protocol client of
the test). Alice creates the table, adds the bot, deals, has a play refused with the rule that
refuses it, plays, sees bob's clock count down while he thinks, scrolls the log back, opens the
history, and is told when bob drops.

Waiting is on conditions (the server's state, the screen's text) checked again at every change
of the terminal or message to bob; nothing waits a guessed amount of time.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from client.hosting.house import HouseBots
from server.engine import format_action
from server.engine.cards import format_card
from server.shell.app import App
from tests.client.cli.terminal import SHITHEAD, Terminal, messages_of, until
from tests.server.client import TestClient

ALICE, BOT, BOB = 0, 1, 2


def game_of(app: App, table: int) -> Any:
    game = app.tables[table].game
    assert game is not None
    return game


async def bob_acts(app: App, bob: TestClient, table: int, action: str) -> None:
    await bob.ok({"type": "act", "table": table, "seq": app.tables[table].seq, "action": action}, "ok")


async def until_turn_of(app: App, terminal: Terminal, bob: TestClient, table: int, seat: int) -> None:
    """Play bob's turns (his first legal action, by the protocol) and alice's (the same, typed
    in her terminal) until ``seat`` is to act in the play (setup over); the bot plays itself."""

    def where() -> tuple[Any, ...]:
        game = game_of(app, table)
        return ("over",) if game.is_over() else ("setup",) if game.phase == "setup" else tuple(game.to_act())

    while (now := where()) != (seat,):
        assert now != ("over",), "the game ended before the turn came"
        if now == (BOB,):
            await bob_acts(app, bob, table, format_action(game_of(app, table).legal_actions(BOB)[0]))
        elif now == (ALICE,):
            await alice_plays(app, terminal, table)
        else:  # the setup or the bot's turn: wait for the next move
            await until(terminal.changes, lambda n=now: where() != n, what=f"a move after {now}")


async def alice_plays(app: App, terminal: Terminal, table: int) -> None:
    """Alice types her first legal action once her screen shows her turn in the server's
    position. "Your turn." alone can be the screen of her previous turn (after a burn she plays
    again): a play typed on it is refused by the client (not among the legal plays it knows)
    or by the server (too late). So the screen must list the server's first legal action first,
    and a play refused as too late is typed again."""
    game = game_of(app, table)

    def current() -> bool:
        screen = terminal.screen()
        return "Your turn." in screen and f"Legal: {format_action(game.legal_actions(ALICE)[0])}" in screen

    before = len(game.history)
    for _ in range(3):
        await until(terminal.changes, current, what="alice's turn on her screen")
        late = terminal.screen().count("Too late")
        terminal.keys(format_action(game.legal_actions(ALICE)[0]), "Enter")
        try:
            await until(
                terminal.changes,
                lambda n=late: len(game.history) > before or terminal.screen().count("Too late") > n,
                what="alice's play",
            )
        except AssertionError as exc:
            legal = [format_action(a) for a in game.legal_actions(ALICE)]
            raise AssertionError(
                f"{exc}; to act {game.to_act()}, legal {legal}; screen:\n{terminal.screen()}"
            ) from None
        if len(game.history) > before:
            return
    raise AssertionError("alice's play was refused as too late three times")


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
async def test_an_evening_at_the_table_in_a_real_terminal(
    make_app: Any, terminal: Terminal, size: tuple[int, int]
) -> None:
    width, height = size
    app = await make_app(bots=HouseBots())
    bob = await TestClient.connect(app.port, name="bob")
    await bob.login("bob")
    news = messages_of(bob, terminal.changes)
    terminal.run(SHITHEAD, f"127.0.0.1:{app.port}", "--name", "alice", "--guest", stdin_text="", size=size)

    def screen() -> str:
        return terminal.screen()

    await until(terminal.changes, lambda: "Lobby" in screen(), what="the lobby")
    # Create (alice sits at seat 0), a bot at seat 1, bob at seat 2, deal.
    terminal.keys("create classic 3", "Enter")
    await until(terminal.changes, lambda: "You sit at table" in screen(), what="alice at her table")
    (t,) = app.tables
    terminal.keys("bot greedy", "Enter")
    await until(terminal.changes, lambda: app.tables[t].seats[BOT] is not None, what="the bot sits")
    await bob.ok({"type": "join", "table": t, "seat": BOB}, "joined")
    terminal.keys("start", "Enter")
    await until(terminal.changes, lambda: "Setup" in screen(), what="the deal on alice's screen")
    terminal.keys("ready", "Enter")
    await bob_acts(app, bob, t, "ready")

    # Alice's turn: a face-up card while she holds hand cards is refused, with the rule.
    await until_turn_of(app, terminal, bob, t, ALICE)
    await until(terminal.changes, lambda: "Your turn." in screen(), what="alice's turn on her screen")
    game = game_of(app, t)
    face_up = next(format_card(st[-1]) for st in game.face_up[ALICE] if st)
    terminal.keys(f"play {face_up}", "Enter")
    await until(terminal.changes, lambda: "play from the hand" in screen(), what="the refusal's reason")
    await alice_plays(app, terminal, t)
    await until(terminal.changes, lambda: "Last:" in screen(), what="the last play under the pile")

    # Bob thinks: everyone sees his clock, and it counts down.
    await until_turn_of(app, terminal, bob, t, BOB)
    clock = re.compile(r"Waiting for bob\.\.\. \((\d+)s left\)")
    first = int((await until(terminal.changes, lambda: clock.search(screen()), what="bob's clock"))[1])
    assert 0 < first <= 60
    lower = await until(
        terminal.changes,
        lambda: (m := clock.search(screen())) and int(m[1]) < first and m,
        timeout=5,
        what="bob's clock counting down",
    )
    assert int(lower[1]) < first

    # The log scrolls back and forward again; 'history' shows the game from its deal.
    terminal.keys("PageUp")
    await until(terminal.changes, lambda: "lines back, PgDn returns" in screen(), what="the log scrolled back")
    terminal.keys("PageDown", "PageDown", "PageDown")
    await until(terminal.changes, lambda: "lines back" not in screen(), what="the log back at the newest")
    terminal.keys("history", "Enter")
    await until(terminal.changes, lambda: "History of game 1" in screen(), what="the history")
    terminal.keys("PageUp", "PageUp", "PageUp", "PageUp")
    await until(terminal.changes, lambda: "Game 1 is dealt" in screen(), what="the history back to the deal")
    terminal.keys("Escape")
    await until(terminal.changes, lambda: "Pile" in screen(), what="the table again")

    # Bob's connection drops: alice is told.
    await bob.close()
    await until(terminal.changes, lambda: "bob dropped." in screen(), what="bob's drop announced")
    # Every line of every screen fitted the terminal.
    assert all(len(line) <= width for line in screen().splitlines())
    assert len(screen().splitlines()) <= height
    await news


async def test_the_tv_screen_follows_a_table_from_game_to_game(make_app: Any, terminal: Terminal) -> None:
    """``shithead watch T`` in a real 80x24 terminal: two bots play, the owner deals again; the
    screen shows the pile's top in large type, whose turn it is, the last plays, and after the
    first game the series tally, without a key pressed."""
    app = await make_app(bots=HouseBots())
    owner = await TestClient.connect(app.port, name="owner")
    await owner.login("owner")
    news = messages_of(owner, terminal.changes)
    created = {"type": "create_table", "name": "tv", "preset": "classic", "seats": 2, "action_seconds": 60}
    t = (await owner.ok(created, "table_created"))["table"]
    await owner.ok({"type": "watch", "table": t}, "watching")
    for bot in ("greedy", "random"):
        await owner.ok({"type": "add_bot", "table": t, "bot": bot}, "ok")
    terminal.run(SHITHEAD, "watch", str(t), f"127.0.0.1:{app.port}", "--ascii", size=(80, 24))
    await until(terminal.changes, lambda: app.tables[t].watchers[1:], what="the TV watching")
    await owner.ok({"type": "start", "table": t}, "ok")

    def over() -> bool:
        return any(f.get("type") == "game_over" for f in owner.frames)

    await until(terminal.changes, over, what="the first game's end")
    await owner.ok({"type": "start", "table": t}, "ok")
    screen = await until(
        terminal.changes,
        lambda: (s := terminal.screen()) and "Series after 1 game" in s and " to play" in s and s,
        what="the second game on the TV with the tally",
    )
    lines = screen.splitlines()
    assert "watching" in lines[0] and "game 2" in lines[0]
    assert all(len(line) <= 80 for line in lines)
    assert any(re.search(r"greedy-\d+ +hand", line) for line in lines)
    await owner.close()
    await news
