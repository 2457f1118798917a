"""Rendering: model in, lines of (style, text) out; 80x24 fits; NO_COLOR keeps the suits."""

from __future__ import annotations

import dataclasses

import pytest

from client.cli.model import Model, reduce, toggle_selected
from client.cli.render import Line, Theme, card_text, line_width, plain_lines, render_screen, render_status
from client.sdk.events import Disconnected
from protocol.errors import ErrorCode
from protocol.messages import ChatMessage, Error, GameOver, Joined, Tables, TableUpdate
from tests.client.cli.helpers import midgame, player, state, summary, view

COLOUR_MARKS = ("fg:", "bg:", "ansi", "#")
FOUR = ["alice", "greedy-1", "carol", "dave"]
OVER = GameOver(
    table=1,
    game=2,
    result={"places": [3, 0, 1, 2], "loser": 2, "capped": False, "flush": None, "players": FOUR},
    tally={
        "places": [[1, 1, 0, 0], [0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 0]],
        "losses": [0, 1, 1, 0],
        "capped": 0,
        "players": FOUR,
        "timeouts": [0, 0, 3, 0],
    },
)


def base(names: list[str | None] | None = None) -> Model:
    m = reduce(
        Model(name="alice", server="127.0.0.1:7433", connection="connected"),
        Joined(id=1, table=1, seat=0, token="t"),
    )
    return reduce(m, TableUpdate(table=1, summary=summary(1, names or FOUR, status="playing")))


def text(lines: list[Line]) -> str:
    return "\n".join(plain_lines(lines))


def mid() -> Model:
    return reduce(base(), midgame(), now=100.0)


def over() -> Model:
    final = midgame().view | {"phase": "over", "turn": None, "legal": []}
    return reduce(reduce(base(), state(final, game=2)), OVER)


def lobby() -> Model:
    tables = [
        summary(1, ["alice", None]),
        summary(
            2,
            ["bob", "greedy-1", "carol"],
            owner="bob",
            status="playing",
            preset="six_players",
            password=True,
            fixed_seed=3,
            fixed_deck=True,
            name="A very long table name for friday",
        ),
    ]
    return reduce(Model(name="alice", server="127.0.0.1:7433"), Tables(id=1, tables=tables))


def setup() -> Model:
    v = view(
        [player(0, "alice", ready=False), player(1, "greedy-1")],
        hand=["4c", "4d", "Ts"],
        phase="setup",
        turn=None,
        legal=["ready"] + [f"swap {c} {s}" for s in range(3) for c in ("4c", "4d", "Ts")],
    )
    return reduce(base(["alice", "greedy-1"]), state(v, deadline=60.0), now=0.0)


def crowded() -> Model:
    """Sixteen seats, long names, a hand of 30 cards, karma stacks: the worst case for width."""
    players = [
        player(
            i,
            f"player-with-long-name-{i}",
            hand=30,
            up=[["7h", "7d"], ["Kc"], [], ["2s"], ["Th"]],
            down=[True] * 5,
            away=True,
            timeouts=12,
        )
        for i in range(16)
    ]
    hand = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"][:30]
    v = view(players, hand=hand, legal=[f"play {c}" for c in hand] + ["take"], turn=0, pile=["2c"] * 30)
    m = reduce(base([p["name"] for p in players]), state(v, deadline=12.5))
    for _ in range(40):
        m = reduce(m, ChatMessage(table=1, name="x" * 24, text="y " * 140))
    return m


def helped() -> Model:
    return dataclasses.replace(mid(), show_help=True)


SCREENS = {
    "mid": mid,
    "over": over,
    "lobby": lobby,
    "setup": setup,
    "crowded": crowded,
    "help": helped,
    "waiting": lambda: base(["alice", None]),
}


@pytest.mark.parametrize("name", sorted(SCREENS))
@pytest.mark.parametrize("theme", [Theme(), Theme(color=False), Theme(symbols=False)])
def test_every_screen_fits_80_by_22(name: str, theme: Theme) -> None:
    """No line is wider than 80 cells, and there are at most 22 lines (24 minus status and input)."""
    lines = render_screen(SCREENS[name](), width=80, height=22, now=100.0, theme=theme)
    assert 0 < len(lines) <= 22
    assert max(line_width(line) for line in lines) <= 80
    assert line_width(render_status(SCREENS[name](), width=80, theme=theme)) <= 80


def test_narrow_terminals_are_respected_too() -> None:
    lines = render_screen(crowded(), width=40, height=10)
    assert len(lines) <= 10 and all(line_width(line) <= 40 for line in lines)


def test_midgame_picture() -> None:
    """Players with hand counts, face-up and face-down cards, marks; the pile and what beats it;
    our hand sorted with suit symbols; the clock; the legal actions; the feed in words."""
    screen = text(render_screen(mid(), width=80, height=22, now=110.0))
    # The table's own number of the game (its summary: none finished yet), not the server's id 2.
    assert "demo (table 1) · classic · game 1 · play" in screen
    assert "▶  0 alice" in screen  # whose turn
    assert "1 greedy-1       bot hand  3  up 5♥ J♠ 2♣  down ■■■" in screen
    assert "carol" in screen and "hand 12  up -- -- Q♦  down ■■·  AWAY, 1 timeout" in screen
    assert "out 1st" in screen
    assert "Pile (4): 5♣ 7♥ 7♦ 9♠" in screen and "to beat: 9 or higher" in screen
    assert "Stock 22   Burned 12" in screen
    assert "Your hand (7): 3♠  4♣  4♦  6♥  9♣  Q♥  K♦" in screen
    assert "Your turn. 32s left" in screen
    assert "Legal: play 9c · play Qh · play Kd · take" in screen
    assert "greedy-1 played 9♠, drew 1" in screen


def test_no_color_drops_every_colour_but_keeps_the_suits() -> None:
    """With NO_COLOR set no fragment has a colour; the suits are still printed, and bold,
    underline and reverse still show the legal cards and the cursor."""
    theme = Theme.from_env({"NO_COLOR": "1"})
    assert theme == Theme(color=False)
    for make in SCREENS.values():
        for line in render_screen(make(), width=80, height=22, now=100.0, theme=theme):
            for style, _ in line:
                assert not any(mark in style for mark in COLOUR_MARKS), style
    screen = text(render_screen(mid(), theme=theme))
    assert all(s in screen for s in "♠♥♦♣")
    assert Theme.from_env({"NO_COLOR": ""}).color  # set but empty: colour stays (no-color.org)


def test_red_suits_are_red_and_black_suits_plain() -> None:
    frags = [f for line in render_screen(mid(), theme=Theme()) for f in line]
    assert ("fg:ansired", "7♥") in frags
    black = [style for style, t in frags if "♣" in t or "♠" in t]
    assert black and not any("ansired" in style for style in black)


def test_letters_instead_of_symbols() -> None:
    screen = text(render_screen(mid(), theme=Theme(symbols=False)))
    assert "Pile (4): 5c 7h 7d 9s" in screen and "♠" not in screen
    assert card_text("Xr", Theme()) == "Xr" and card_text("Td", Theme()) == "T♦"


@pytest.mark.parametrize("screen", ["lobby", "waiting", "game", "over", "help", "error", "narrow"])
def test_ascii_theme_draws_only_ascii(screen: str) -> None:
    """--ascii: every screen and the status line are pure ASCII (issue 12)."""
    model = {
        "lobby": lobby,
        "waiting": base,
        "game": mid,
        "over": over,
        "help": lambda: dataclasses.replace(mid(), show_help=True),
        "error": lambda: dataclasses.replace(mid(), error="Too late", pending="play 7h"),
        "narrow": mid,
    }[screen]()
    width = 30 if screen == "narrow" else 80  # lines cut short get the ASCII mark
    theme = Theme(color=False, symbols=False)
    lines = plain_lines(render_screen(model, width=width, height=24, theme=theme))
    lines += plain_lines([render_status(model, width=width, theme=theme)])
    assert all(line.isascii() for line in lines), [line for line in lines if not line.isascii()]


def test_legal_cards_cursor_and_marks_are_styled() -> None:
    """Playable hand cards are bold-underlined, the cursor reversed, marked cards starred."""
    m = toggle_selected(mid(), 4)  # 9c marked, cursor on it
    line = next(
        line for line in render_screen(m, theme=Theme(color=False)) if "Your hand" in "".join(t for _, t in line)
    )

    def style(card: str) -> str:
        return next(s for s, t in line if card in t)

    assert "bold underline" in style("Q♥") and "bold underline" in style("K♦")
    assert "underline" not in style("3♠")
    assert "reverse" in style("9♣") and "*" in [t for _, t in line]


def test_setup_screen_shows_who_is_ready_and_how_to_swap() -> None:
    screen = text(render_screen(setup(), now=5.0))
    assert "setting up" in screen and "ready" in screen
    assert "Setup: swap cards, then 'ready'. 55s left" in screen
    assert "Legal: ready · swap 4c 0" in screen and "Tab)" in screen


def test_game_over_screen_has_places_and_the_tally() -> None:
    screen = text(render_screen(over()))
    assert "Game 2 is over: carol is the shithead." in screen
    assert "1st dave   2nd alice   3rd greedy-1   4th carol" in screen
    assert "Series: 2 games" in screen
    rows = [row for row in plain_lines(render_screen(over())) if row.strip().startswith("carol")]
    assert rows and rows[0].split()[1:] == ["0", "1", "0", "1", "1", "3"]
    assert "You own this table: type 'start'" in screen


def test_lobby_lists_tables_with_preset_seats_and_status() -> None:
    screen = text(render_screen(lobby()))
    assert "Lobby · 2 tables" in screen and "alice @ 127.0.0.1:7433" in screen
    row = next(r for r in plain_lines(render_screen(lobby())) if r.strip().startswith("2 "))
    assert "six_players" in row and " 3/3 " in row and "playing" in row and "password" in row


def test_the_newest_feed_lines_fill_the_rest() -> None:
    m = mid()
    for i in range(30):
        m = reduce(m, ChatMessage(table=1, name="bob", text=f"line {i}"))
    lines = plain_lines(render_screen(m, width=80, height=22))
    assert len(lines) == 22 and lines[-1] == " bob: line 29"


def test_status_line_shows_the_connection_and_the_error() -> None:
    m = reduce(mid(), Disconnected(reason="EOF", reconnecting=True, code=None))
    status = "".join(t for _, t in render_status(m))
    assert "reconnecting" in status
    m = reduce(mid(), Error(code=ErrorCode.NOT_OWNER, message="only the owner (bob) can start"))
    assert "Only the owner (bob) can start" in "".join(t for _, t in render_status(m))


def test_the_lobby_names_each_waiting_seat_and_who_plays_it_meanwhile() -> None:
    away = summary(3, ["bob", "alice"], name="evening")
    away["seats"][1]["away"] = True
    stood_in = summary(4, ["alice", "carol"], name="late")
    stood_in["seats"][0]["stand_in"] = "greedy-4"
    m = reduce(
        Model(name="alice", server="lan:7433", connection="connected"),
        Tables(id=1, tables=[away, stood_in]),
    )
    screen = text(render_screen(m, width=100, height=30))
    assert "Table 3 (evening) seat 1 is waiting for you: Enter or 'resume 3' takes it back." in screen
    assert "Table 4 (late) seat 0 is waiting for you (greedy-4 plays it meanwhile): 'resume 4' takes it back." in screen


def test_a_stand_in_shows_at_its_seat() -> None:
    m = mid()
    s = dict(m.tables[1])
    s["seats"] = [dict(x) if x else x for x in s["seats"]]
    s["seats"][2]["stand_in"] = "greedy-4"
    m = reduce(m, TableUpdate(table=1, summary=s))
    carol = next(t for t in plain_lines(render_screen(m, width=100, height=30)) if "carol" in t)
    assert "greedy-4 plays" in carol


def test_the_lobby_at_60_columns_keeps_the_owner_and_the_notes() -> None:
    """Narrow terminals get narrower names and no bot count, so that who owns a table and
    whether it has a password stay on screen; at 80 columns every column is there."""
    from protocol.messages import Tables

    m = Model(name="bob", connection="connected", server="127.0.0.1:7433")
    first, second = summary(1, ["alice", "greedy-1", None]), summary(2, ["carol", None])
    second["name"], second["password"] = "Friday night", True
    m = reduce(m, Tables(id=1, tables=[first, second]))
    narrow = plain_lines(render_screen(m, width=60, height=12))
    assert all(len(line) <= 60 for line in narrow)
    row = next(line for line in narrow if line.startswith("   2"))
    assert row.split()[-2:] == ["alice", "password"] and "Friday ni… " in row  # cut, and marked so
    wide = plain_lines(render_screen(m, width=80, height=12))
    assert "bots" in wide[1] and "Friday night" in next(line for line in wide if line.startswith("   2"))
