"""The reducer: wire messages in, UI state out (no I/O, no clock but the ``now`` given)."""

from __future__ import annotations

from typing import Any

from client.cli.model import (
    Created,
    Entered,
    Failed,
    Info,
    Left,
    Listed,
    Model,
    Watched,
    move_cursor,
    reduce,
    selectables,
    selected_picks,
    toggle_selected,
)
from client.cli.render import plain_lines, render_screen
from client.sdk.events import Closed, Disconnected, Reconnected, Reconnecting
from protocol.errors import ErrorCode
from protocol.messages import (
    ChatMessage,
    Error,
    GameOver,
    GoingAway,
    Joined,
    Pong,
    Presence,
    PresenceEvent,
    State,
    TableCreated,
    Tables,
    TableUpdate,
    Watching,
    Welcome,
)
from tests.client.cli.helpers import midgame, player, state, summary, view

WELCOME = Welcome(id=1, version=1, server="test", limits={}, capabilities=[], password_required=False)


def seated() -> Model:
    m = reduce(Model(name="alice"), Joined(id=4, table=1, seat=0, token="t"))
    names: list[str | None] = ["alice", "greedy-1", "carol", "dave"]
    return reduce(m, TableUpdate(table=1, summary=summary(1, names)))


def feed(m: Model) -> list[str]:
    return [line.text for line in m.feed]


def test_joined_then_state_sets_table_seat_seq_and_deadline() -> None:
    """A state gives the view, its seq and game; the deadline is kept on the caller's clock."""
    m = reduce(seated(), midgame(), now=100.0)
    assert (m.table, m.seat, m.seq, m.game) == (1, 0, 45, 2)
    assert m.deadline_at == 142.0
    assert m.legal == ("play 9c", "play Qh", "play Kd", "take")
    assert m.summary is not None and m.summary["name"] == "demo"


def test_reduce_returns_a_new_model_and_leaves_the_old_one() -> None:
    """Pure: the model given is not changed."""
    before = seated()
    after = reduce(before, midgame())
    assert before.view is None and after.view is not None and before.feed != after.feed


def test_events_become_words_with_draws_joined_to_the_play() -> None:
    """played+drew make one line; burns, pick-ups, outs and the end are told; ours say (you)."""
    events = [
        {"kind": "played", "seat": 0, "cards": ["Tc", "Td"], "source": "hand"},
        {"kind": "burned", "seat": 0, "count": 12},
        {"kind": "drew", "seat": 0, "count": 2},
        {"kind": "flipped", "seat": 2, "position": 1, "card": "3s"},
        {"kind": "took", "seat": 2, "cards": ["6d", "9c", "3s"]},
        {"kind": "timeout", "seat": 1, "action": "take", "count": 2},
        {"kind": "out", "seat": 3, "place": 1},
        {"kind": "game_over", "seat": None, "places": [3, 0, 1, 2], "loser": 2, "capped": False},
    ]
    m = reduce(seated(), state(midgame().view, events=events))
    lines = feed(m)
    assert "alice (you) played Tc Td, drew 2" in lines  # the draw comes after the burn, told with the play
    assert "The pile burns (12 cards); alice (you) plays again" in lines
    assert "carol turned over face-down card 1: 3s" in lines
    assert "carol picked up the pile (3 cards: 6d 9c 3s)" in lines
    assert any("greedy-1's clock ran out" in t and "'take'" in t and "2 timeouts" in t for t in lines)
    assert "dave is out, in 1st place" in lines
    assert "Game over: carol is the shithead" in lines


def test_our_own_timeout_and_a_one_card_burn_read_right() -> None:
    """ "Your clock ran out", not "alice (you)'s clock"; "1 card", not "1 cards" (issue 12)."""
    events = [
        {"kind": "timeout", "seat": 0, "action": "take", "count": 1},
        {"kind": "burned", "seat": 1, "count": 1},
    ]
    lines = feed(reduce(seated(), state(midgame().view, events=events)))
    assert any(t.startswith("Your clock ran out") and "(1 timeout)" in t for t in lines), lines
    assert not any("(you)'s" in t for t in lines)
    assert any(t.startswith("The pile burns (1 card);") for t in lines), lines


def test_a_draw_after_a_play_joins_its_line() -> None:
    """The common case: every play draws; one line, not two."""
    m = reduce(seated(), midgame())
    assert feed(m)[-1] == "greedy-1 played 9s, drew 1"


def test_pushes_before_the_join_answer_adopt_the_table() -> None:
    """A table_update/state that overtakes our own joined still lands at that table."""
    m = reduce(Model(name="alice"), TableUpdate(table=3, summary=summary(3)))
    assert m.table == 3
    m = reduce(m, state(midgame().view, table=3))
    assert m.seat == 0 and m.view is not None


def test_state_of_another_table_is_ignored() -> None:
    """Only the table on screen is drawn."""
    m = reduce(seated(), state(midgame().view, table=7))
    assert m.view is None


def test_game_over_is_kept_until_the_next_game_starts() -> None:
    """The result screen stays through the final state, and goes with the next game's first."""
    m = reduce(seated(), midgame())
    over = GameOver(
        table=1,
        game=2,
        result={
            "places": [3, 0, 1, 2],
            "loser": 2,
            "capped": False,
            "flush": None,
            "players": ["alice", "greedy-1", "carol", "dave"],
        },
        tally={
            "places": [[0, 1, 0, 0]] * 4,
            "losses": [0, 0, 1, 0],
            "capped": 0,
            "players": ["alice", "greedy-1", "carol", "dave"],
            "timeouts": [0, 0, 0, 0],
        },
    )
    m = reduce(m, over)
    assert m.game_over is not None and m.game_over.game == 2 and m.deadline_at is None
    m = reduce(
        m,
        state(
            view([player(0, "alice"), player(1, "greedy-1")], phase="setup", turn=None),
            game=3,
            seq=46,
            events=[{"kind": "game_start", "seat": None, "game": 3, "dealer": 1}],
        ),
    )
    assert m.game_over is None and m.game == 3
    assert feed(m)[-1] == "Game 3 is dealt; the dealer is greedy-1"  # an older server: no number


def test_games_are_numbered_per_table() -> None:
    """The feed, the header and the result say the table's number of the game (1, 2 ...), not
    the server-wide id that get_record takes (issue 12)."""
    m = reduce(
        seated(),
        state(
            view([player(0, "alice"), player(1, "greedy-1")], phase="setup", turn=None),
            game=57,
            seq=1,
            events=[{"kind": "game_start", "seat": None, "game": 57, "number": 2, "dealer": 1}],
        ),
    )
    assert m.game == 57 and m.number == 2
    assert feed(m)[-1] == "Game 2 is dealt; the dealer is greedy-1"
    assert "game 2" in plain_lines(render_screen(m, width=80, height=22))[0]
    over = GameOver(
        table=1,
        game=57,
        number=2,
        result={"places": [0, 1], "loser": 1, "capped": False, "flush": None, "players": ["alice", "greedy-1"]},
        tally={"places": [[1, 0], [0, 1]], "losses": [0, 1], "capped": 0, "players": ["alice", "greedy-1"]},
    )
    final = state(view([player(0, "alice"), player(1, "greedy-1")], phase="over", turn=None), game=57, seq=9)
    m = reduce(reduce(m, final), over)
    assert m.number == 2 and m.game_over is not None and m.game_over.number == 2
    assert any("Game 2 is over" in line for line in plain_lines(render_screen(m, width=80))), plain_lines(
        render_screen(m, width=80)
    )


def test_errors_are_words_and_stay_in_the_status() -> None:
    """An error is a feed line and the model's current error; STALE_SEQ gets plain advice."""
    m = reduce(
        seated(),
        Error(id=8, code=ErrorCode.ILLEGAL_ACTION, message="it is seat 1's turn", reason="NOT_YOUR_TURN"),
    )
    assert m.error == "It is seat 1's turn" and m.feed[-1].kind == "error"
    m = reduce(m, Error(id=9, code=ErrorCode.STALE_SEQ, message="seq 4 is stale"))
    assert m.error is not None and "Choose again" in m.error


def test_connection_pseudo_events_set_the_status() -> None:
    """disconnected -> reconnecting, reconnected -> connected (seats told), closed -> closed."""
    m = reduce(seated(), Disconnected(reason="connection lost (EOF)", code=None, reconnecting=True))
    assert m.connection == "reconnecting"
    m = reduce(m, Reconnected(attempt=1, resumed=[{"table": 1, "seat": 0}], watching=[], lost=[]))
    assert m.connection == "connected" and "Seat 0 at table 1 is yours again." in feed(m)
    m = reduce(m, Disconnected(reason="x", reconnecting=False, code=None))
    assert m.connection == "closed"
    m = reduce(m, Closed(reason="x"))
    assert m.connection == "closed"


def test_a_lost_seat_after_reconnecting_returns_to_the_lobby() -> None:
    """A seat the SDK could not take back is gone from the screen."""
    m = reduce(
        reduce(seated(), midgame()),
        Reconnected(attempt=2, resumed=[], watching=[], lost=[{"table": 1, "code": "BAD_TOKEN", "message": "no"}]),
    )
    assert m.table is None and m.view is None


def test_chat_lobby_and_local_messages() -> None:
    """chat_message, tables, table_created, watching and left."""
    m = reduce(seated(), ChatMessage(table=1, seat=1, name="greedy-1", text="gg"))
    assert m.chat[-1] == ("greedy-1", "gg") and feed(m)[-1] == "greedy-1: gg"
    m = reduce(m, Tables(id=1, tables=[summary(5, ["x", None])]))
    assert set(m.tables) == {1, 5}  # the table we sit at stays known
    m = reduce(m, Left(table=1))
    assert m.table is None and m.seat is None
    m = reduce(m, TableCreated(id=1, table=5))
    assert m.created == 5
    m = reduce(m, Watching(id=1, table=5))
    assert m.table == 5 and m.watching and m.seat is None


def test_local_events_change_the_model_like_the_answers_they_stand_for() -> None:
    """The CLI's local events (made from the answers the SDK hands back) and the SDK's
    connection events are taken as they are, like the messages they stand for."""
    m = reduce(Model(name="alice"), Entered(4, 1))
    assert m.table == 4 and m.seat == 1
    m = reduce(reduce(m, Listed([summary(4, ["x", "alice"])])), Left(4))
    assert m.table is None and 4 in m.tables
    m = reduce(reduce(m, Created(5)), Watched(5))
    assert m.created == 5 and m.table == 5 and m.watching
    m = reduce(m, Failed("NOT_OWNER", "only the owner can start"))
    assert m.error is not None and "owner" in m.error
    m = reduce(reduce(m, Info("hello")), Disconnected("EOF", None, True))
    assert m.connection == "reconnecting" and any(line.text == "hello" for line in m.feed)
    m = reduce(m, Reconnected(1, [], [], [{"table": 5, "code": "UNKNOWN_TABLE", "message": "gone"}]))
    assert m.connection == "connected" and m.table is None


def test_unknown_messages_change_nothing() -> None:
    m = seated()
    assert reduce(m, Pong(id=3)) is m


def test_selectables_follow_the_phase_and_the_cards_left() -> None:
    """Hand first; face-up stacks once the hand is empty; face-down positions last; in setup
    the hand and every face-up slot."""
    m = reduce(seated(), midgame())
    assert [p.cards for p in selectables(m)] == [(c,) for c in m.view["hand"]]
    up_only = view([player(0, "alice", hand=0, up=[["Ts"], [], ["Ad"]])], hand=[], legal=["play Ts", "take Ts"])
    m = reduce(seated(), state(up_only))
    assert [(p.zone, p.index) for p in selectables(m)] == [("up", 0), ("up", 2)]
    down_only = view(
        [player(0, "alice", hand=0, up=[[], [], []], down=[False, True, True])], hand=[], legal=["flip 1", "flip 2"]
    )
    m = reduce(seated(), state(down_only))
    assert [(p.zone, p.index) for p in selectables(m)] == [("down", 1), ("down", 2)]
    setup = view([player(0, "alice")], hand=["4c", "4d", "Ts"], phase="setup", turn=None, legal=["ready"])
    m = reduce(seated(), state(setup))
    assert [p.zone for p in selectables(m)] == ["hand"] * 3 + ["up"] * 3


def test_cursor_wraps_and_marks_toggle() -> None:
    m = reduce(seated(), midgame())
    m = move_cursor(m, -1)
    assert m.cursor == 6
    m = toggle_selected(move_cursor(m, 1))
    assert m.cursor == 0 and [p.cards for p in selected_picks(m)] == [("3s",)]
    m = toggle_selected(m)
    assert not m.selected


def test_marks_are_dropped_when_the_cards_change() -> None:
    """A new hand under the marks would make them point at other cards: they go."""
    m = toggle_selected(reduce(seated(), midgame()), 4)
    assert m.selected
    same = reduce(m, state(midgame().view, seq=46))
    assert same.selected == m.selected
    changed = midgame().view | {"hand": ["3s", "4c"]}
    assert not reduce(m, state(changed, seq=47)).selected


def test_presence_and_going_away_are_told_in_words() -> None:
    m = seated()
    for event, bot in (
        (PresenceEvent.DROPPED, None),
        (PresenceEvent.REPLACED, "greedy-4"),
        (PresenceEvent.RETURNED, "greedy-4"),
    ):
        m = reduce(m, Presence(table=1, seat=2, name="carol", event=event, bot=bot))
    m = reduce(m, GoingAway(reason="the server is stopping (SIGTERM)", returning=True))
    assert feed(m)[-4:] == [
        "carol dropped.",
        "greedy-4 now plays for carol.",
        "carol is back: greedy-4 gives the seat back.",
        "The server is stopping (SIGTERM). This client reconnects and takes your seat back by itself.",
    ]


def test_reconnecting_counts_down_and_hides_the_turn_clock() -> None:
    from client.cli.render import render_status

    m = reduce(seated(), midgame(), now=100.0)
    assert m.deadline_at is not None
    m = reduce(m, Disconnected(reason="EOF", code=None, reconnecting=True), now=101.0)
    assert m.deadline_at is None  # not counting down a clock we cannot hear about
    m = reduce(m, Reconnecting(attempt=3, retry_in=1.6, gives_up_in=140.2), now=102.0)
    text = "".join(t for _, t in render_status(m, width=120, now=102.5))
    assert "reconnecting in 2 s (attempt 3; seat kept 140 s more)" in text
    m = reduce(
        m,
        Reconnected(attempt=3, resumed=[{"table": 1, "seat": 0}], watching=[], lost=[]),
        now=103.0,
    )
    assert m.connection == "connected" and m.retry_at is None


def test_a_spectator_reconnecting_is_told_when_it_gives_up_not_of_a_seat() -> None:
    """The TV (a viewer watching a table) holds no seat, so its status promises none."""
    from client.cli.render import render_status

    m = reduce(Model(), Watching(id=1, table=5))
    assert m.watching and m.seat is None
    m = reduce(m, Disconnected(reason="EOF", code=None, reconnecting=True), now=101.0)
    m = reduce(m, Reconnecting(attempt=3, retry_in=1.6, gives_up_in=140.2), now=102.0)
    text = "".join(t for _, t in render_status(m, width=120, now=102.5))
    assert "reconnecting in 2 s (attempt 3; giving up in 140 s)" in text and "seat" not in text


def test_seats_waiting_for_the_player_are_found_in_the_lobby() -> None:
    from client.cli.model import waiting_seats

    m = Model(name="Alice")
    away = summary(3, ["bob", "alice"])
    away["seats"][1]["away"] = True
    here = summary(4, ["alice", "bob"])
    m = reduce(m, Tables(id=1, tables=[away, here]))
    assert waiting_seats(m) == [(3, 1)]


def test_the_turn_clock_is_paused_while_disconnected_and_comes_back_with_the_snapshot() -> None:
    from client.cli.render import plain_lines, render_screen

    def turn_line(m: Model, now: float) -> str:
        return next(t for t in plain_lines(render_screen(m, width=100, height=30, now=now)) if "Your turn" in t)

    m = reduce(reduce(seated(), WELCOME), midgame(), now=100.0)
    assert "42s left" in turn_line(m, 100.0)
    m = reduce(m, Disconnected(reason="EOF", code=None, reconnecting=True), now=101.0)
    m = reduce(m, Reconnecting(attempt=1, retry_in=0.2, gives_up_in=180.0), now=101.0)
    assert m.clock_paused
    for now in (110.0, 200.0):  # not counting down, not running out
        assert "clock paused" in turn_line(m, now) and "left" not in turn_line(m, now)
    # The snapshot after the reconnect may come before the reconnected event: still paused until then.
    m = reduce(m, midgame(), now=300.0)
    assert "clock paused" in turn_line(m, 300.0)
    m = reduce(
        m,
        Reconnected(attempt=1, resumed=[{"table": 1, "seat": 0}], watching=[], lost=[]),
        now=300.5,
    )
    assert not m.clock_paused and "42s left" in turn_line(m, 300.0)


def test_going_away_is_said_once_until_the_connection_is_back() -> None:
    away = GoingAway(reason="the server is stopping (SIGTERM)", returning=True)
    m = reduce(seated(), away)
    m = reduce(m, Disconnected(reason="EOF", code=None, reconnecting=True))
    m = reduce(m, away)  # a reconnect attempt met the server still stopping
    assert sum("stopping" in t for t in feed(m)) == 1
    m = reduce(m, Reconnected(attempt=2, resumed=[], watching=[], lost=[]))
    m = reduce(m, away)
    assert sum("stopping" in t for t in feed(m)) == 2


def test_a_seat_a_bot_plays_for_the_player_is_waiting_too() -> None:
    from client.cli.model import held_tables, waiting_seats

    m = Model(name="carol")
    stood_in = summary(5, ["alice", "carol"])
    stood_in["seats"][1]["stand_in"] = "greedy-4"  # the bot's connection: not away
    other = summary(6, ["alice", "bob"])
    mine_here = summary(7, ["carol", "bob"])
    m = reduce(m, Tables(id=1, tables=[stood_in, other, mine_here]))
    assert waiting_seats(m) == [(5, 1)]
    assert held_tables(m) == {5, 7}


def test_everyone_sees_the_clock_of_the_seat_to_act_counting_down() -> None:
    """Another seat's clock (``view.clocks``) counts down from when the state arrived, with its
    bank; it is paused while disconnected; a watcher sees it too."""
    from client.cli.render import plain_lines, render_screen

    def screen(m: Model, now: float) -> str:
        return "\n".join(plain_lines(render_screen(m, width=100, height=30, now=now)))

    players = [player(i, n, hand=3, up=[[], [], []]) for i, n in enumerate(["alice", "greedy-1", "carol", "dave"])]
    clocks = [{"seat": 2, "left": 23.0, "bank": 10.0}]
    theirs = state(view(players, hand=["4c"], legal=[], turn=2, clocks=clocks))
    m = reduce(reduce(seated(), WELCOME), theirs, now=100.0)
    assert "Waiting for carol... (23s left, bank 10s)" in screen(m, 100.0)
    assert "Waiting for carol... (13s left, bank 10s)" in screen(m, 110.0)
    assert "Waiting for carol... (0s left" in screen(m, 200.0)  # never below zero
    m = reduce(m, Disconnected(reason="EOF", code=None, reconnecting=True), now=101.0)
    assert "Waiting for carol... (clock paused)" in screen(m, 150.0)
    # A watcher: no hand, but whose turn it is and the time left.
    watcher = reduce(Model(name="walt"), Watching(id=3, table=1))
    watcher = reduce(watcher, TableUpdate(table=1, summary=summary(1, ["alice", "greedy-1", "carol", "dave"])))
    seen = state(view(players, seat=None, hand=None, legal=[], turn=2, clocks=[{"seat": 2, "left": 30.0, "bank": 0.0}]))
    watcher = reduce(reduce(watcher, WELCOME), seen, now=0.0)
    assert "carol to act (25s left)." in screen(watcher, 5.0)


def _played(seq: int, seat: int, card: str, *, start: bool = False) -> State:
    players = [player(i, n, hand=3, up=[[], [], []]) for i, n in enumerate(["alice", "greedy-1", "carol", "dave"])]
    events: list[dict[str, Any]] = [{"kind": "game_start", "seat": None, "game": 2, "number": 1, "dealer": 0}]
    events = (events if start else []) + [{"kind": "played", "seat": seat, "cards": [card], "source": "hand"}]
    return state(view(players, hand=["4c"], legal=[], turn=(seat + 1) % 4), seq=seq, game=2, events=events)


def test_the_history_keeps_the_whole_game_and_the_log_scrolls() -> None:
    """``history`` holds every line of the game (a new game starts it afresh); the feed and the
    history scroll by PageUp/PageDown within their bounds; new lines keep a scrolled window
    still; the last play is shown highlighted under the pile."""
    from client.cli.model import scroll_by, toggle_history
    from client.cli.render import plain_lines, render_screen, render_status

    m = reduce(reduce(seated(), WELCOME), _played(1, 1, "3h", start=True))
    for i in range(2, 40):
        m = reduce(m, _played(i, i % 4, "5c"))
    m = reduce(m, ChatMessage(table=1, name="carol", text="nice"))
    assert len(m.history) == 41  # the deal, 39 plays, the chat
    assert [p for _, p in m.history[1].parts if p][:2] == ["greedy-1", " played "]
    screen = plain_lines(render_screen(m, width=60, height=18, now=0.0))
    assert any(line.startswith(" Last: dave played 5♣") for line in screen)
    # The feed scrolls back and forward, never past either end.
    newest = plain_lines(render_screen(m, width=60, height=18))[-1]
    assert "carol: nice" in newest
    back = scroll_by(m, 5, len(m.feed) - 1)
    assert back.scroll == 5 and "carol: nice" not in plain_lines(render_screen(back, width=60, height=18))[-1]
    assert "5 lines back" in "".join(t for _, t in render_status(back, width=100))
    assert scroll_by(back, -50, len(m.feed) - 1).scroll == 0
    assert scroll_by(back, 10_000, len(m.feed) - 1).scroll == len(m.feed) - 1
    # Scrolled back, a new line arrives: the window stays on the same lines.
    later = reduce(back, _played(40, 0, "6d"))
    assert later.scroll == 6
    # 'history' shows the whole game from its deal, a screen at a time.
    h = toggle_history(m)
    page = plain_lines(render_screen(h, width=60, height=18))
    assert page[0].startswith(" History of game 1 (41 lines)") and "carol: nice" in page[-1]
    top = plain_lines(render_screen(scroll_by(h, 1000, len(h.history) - 1), width=60, height=18))
    assert top[1].startswith(" Game 1 is dealt")
    # A table's own event (a player back) is logged, but is not a play.
    players = [player(i, n, hand=3, up=[[], [], []]) for i, n in enumerate(["alice", "greedy-1", "carol", "dave"])]
    back = reduce(m, state(view(players, hand=["4c"], legal=[]), seq=41, game=2, events=[{"kind": "back", "seat": 2}]))
    assert back.last_play == m.last_play and len(back.history) == len(m.history) + 1
    # A new game starts the history afresh.
    again = reduce(m, _played(50, 1, "9s", start=True))
    assert len(again.history) == 2
