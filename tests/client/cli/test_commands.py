"""Typed commands map to the server's exact legal texts; refusals are in words; completion."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from client.cli.commands import (
    CommandCompleter,
    CommandError,
    action_from_selection,
    normalize_card,
    parse_command,
    resolve_action,
    take_action,
)
from client.cli.model import Model, reduce, toggle_selected
from protocol.messages import Joined, TableCreated, Tables, TableUpdate, Watching
from tests.client.cli.helpers import midgame, player, state, summary, view

PAIRS = ["play 7c", "play 7d", "play 7h", "play 7c 7d", "play 7c 7h", "play 7d 7h", "play 7c 7d 7h", "play 9s", "take"]


def at(v: dict, *, tables: list | None = None) -> Model:
    m = reduce(Model(name="alice"), Joined(id=1, table=1, seat=0, token="t"))
    m = reduce(m, TableUpdate(table=1, summary=summary(1, ["alice", "bob"])))
    if tables:
        m = reduce(m, Tables(id=1, tables=tables))
    return reduce(m, state(v))


def hand_of(cards: list[str], legal: list[str], **kw: object) -> Model:
    return at(view([player(0, "alice", hand=len(cards)), player(1, "bob")], hand=cards, legal=legal, **kw))


SEVENS = hand_of(["7c", "7d", "7h", "9s"], PAIRS)


@pytest.mark.parametrize(
    ("typed", "action"),
    [
        ("play 7c 7d", "play 7c 7d"),
        ("play 7d 7c", "play 7c 7d"),  # any order
        ("PLAY 7D 7C", "play 7c 7d"),  # any case
        ("7d 7c", "play 7c 7d"),  # short form
        ("p 7h", "play 7h"),
        ("7", "play 7c"),  # one seven: the first in the server's order
        ("7 7", "play 7c 7d"),
        ("7*", "play 7c 7d 7h"),  # every seven
        ("7h 7", "play 7c 7h"),
        ("9♠", "play 9s"),
        ("take", "take"),
        ("t", "take"),
    ],
)
def test_typed_plays_map_to_the_legal_text(typed: str, action: str) -> None:
    assert resolve_action(typed, SEVENS) == action
    assert parse_command(typed, SEVENS).action == action


def test_cards_are_normalized() -> None:
    assert [normalize_card(t) for t in ("10h", "TD", "7♥", "xr", "as", "1h", "7z", "Xh")] == [
        "Th",
        "Td",
        "7h",
        "Xr",
        "As",
        None,
        None,
        None,
    ]


def test_ten_written_as_10() -> None:
    m = hand_of(["Th"], ["play Th", "take"])
    assert resolve_action("10h", m) == "play Th" and resolve_action("play 10", m) == "play Th"


def test_exact_plays_that_are_not_legal_go_to_the_server_for_its_reason() -> None:
    """A card not held or a play that is not legal is sent as written: the server's refusal
    says which rule refused it (the client does not judge it by a copy of the rules)."""
    assert resolve_action("play Kd", SEVENS) == "play Kd"
    assert resolve_action("Kd 9c", SEVENS) == "play Kd 9c"
    assert resolve_action("run 5h 6h 7h", SEVENS) == "run 5h 6h 7h"


def test_refusals_say_why() -> None:
    """A rank pattern that matches no legal play, not our turn, watching, no game."""
    with pytest.raises(CommandError, match="No legal play matches '7 9'"):
        resolve_action("7 9", SEVENS)
    waiting = hand_of(["7c"], [], turn=1)
    with pytest.raises(CommandError, match=r"not your turn.*bob"):
        resolve_action("play 7c", waiting)
    with pytest.raises(CommandError, match="Unknown command 'frob'"):
        resolve_action("frob", SEVENS)
    with pytest.raises(CommandError, match="not at a table"):
        resolve_action("take", Model())
    watcher = reduce(reduce(Model(), Watching(id=1, table=1)), state(view([player(0, "a"), player(1, "b")], seat=None)))
    with pytest.raises(CommandError, match="watching"):
        resolve_action("take", watcher)


def test_face_up_pick_up_needs_a_card() -> None:
    """With only face-up cards left, a pick-up gives one of them: which one must be said."""
    m = at(
        view(
            [player(0, "alice", hand=0, up=[["4s"], ["Ts"], []]), player(1, "bob")],
            hand=[],
            legal=["play Ts", "take 4s", "take Ts"],
        )
    )
    with pytest.raises(CommandError, match="take 4s, take Ts"):
        resolve_action("take", m)
    assert resolve_action("take 4S", m) == "take 4s"
    # The marked face-up card says which (Ctrl-T with one face-up card marked).
    assert take_action(toggle_selected(m, 0)) == "take 4s"


def test_flip_swap_place_ready() -> None:
    m = at(
        view(
            [player(0, "alice", hand=0, up=[[], [], []], down=[False, False, True]), player(1, "bob")],
            hand=[],
            legal=["flip 2"],
        )
    )
    assert resolve_action("flip", m) == "flip 2" and resolve_action("f 2", m) == "flip 2"
    setup = at(
        view(
            [player(0, "alice", up=[["4h"], ["4s"], ["Ad"]], ready=False), player(1, "bob")],
            hand=["4c", "4d", "Ts"],
            phase="setup",
            turn=None,
            legal=["ready"] + [f"swap {c} {s}" for s in range(3) for c in ("4c", "4d", "Ts")],
        )
    )
    assert resolve_action("swap ts 0", setup) == "swap Ts 0"
    assert resolve_action("swap Ts Ad", setup) == "swap Ts 2"  # the slot named by its card
    assert resolve_action("r", setup) == "ready"
    with pytest.raises(CommandError, match="needs a hand card and a face-up slot"):
        resolve_action("swap Ts", setup)
    choose = at(
        view(
            [player(0, "alice", up=[[], [], []], ready=False), player(1, "bob")],
            hand=["9h"],
            phase="setup",
            turn=None,
            legal=["place 9h 0", "place 9h 1", "place 9h 2"],
        )
    )
    assert resolve_action("place 9h 1", choose) == "place 9h 1"


def test_selection_makes_the_action() -> None:
    """Marked hand cards play; the cursor card plays when nothing is marked; in setup a hand card
    and a face-up slot swap; a face-down position flips."""
    m = toggle_selected(toggle_selected(SEVENS, 2), 0)
    assert action_from_selection(m) == "play 7c 7h"
    assert action_from_selection(SEVENS) == "play 7c"  # cursor on the first card
    # 7c with 9s is no play: it goes to the server, whose refusal says why (one rank per play).
    assert action_from_selection(toggle_selected(toggle_selected(SEVENS, 0), 3)) == "play 7c 9s"
    setup = at(
        view(
            [player(0, "alice", up=[["4h"], ["4s"], ["Ad"]], ready=False), player(1, "bob")],
            hand=["4c", "4d", "Ts"],
            phase="setup",
            turn=None,
            legal=["ready", "swap Ts 1"],
        )
    )
    with pytest.raises(CommandError, match="Setup"):
        action_from_selection(setup)
    assert action_from_selection(toggle_selected(toggle_selected(setup, 2), 4)) == "swap Ts 1"
    down = at(
        view(
            [player(0, "alice", hand=0, up=[[], [], []], down=[True, False, True]), player(1, "bob")],
            hand=[],
            legal=["flip 0", "flip 2"],
        )
    )
    assert action_from_selection(toggle_selected(down, 1)) == "flip 2"


@pytest.mark.parametrize(
    ("typed", "kind", "args"),
    [
        ("list", "list", {}),
        ("create", "create", {}),
        ("create karma 3", "create", {"preset": "karma", "seats": 3}),
        (
            'create classic 4 name=friday password=pw seconds=30 goal=winner burn_count=0 powers={"7":["lower"]}',
            "create",
            {
                "preset": "classic",
                "seats": 4,
                "name": "friday",
                "password": "pw",
                "action_seconds": 30.0,
                "options": {"goal": "winner", "burn_count": 0, "powers": {"7": ["lower"]}},
            },
        ),
        ("join 3", "join", {"table": 3}),
        ("join 3 1 secret", "join", {"table": 3, "seat": 1, "password": "secret"}),
        ("watch #2 password=x", "watch", {"table": 2, "password": "x"}),
        ("bot greedy", "bot", {"bot": "greedy"}),
        ("bot search 2", "bot", {"bot": "search", "seat": 2}),
        ("next", "start", {}),
        ("start", "start", {}),
        ("leave", "leave", {}),
        ("chat hello all", "chat", {"text": "hello all"}),
        ("'gg", "chat", {"text": "gg"}),
        ("record 12", "record", {"game": 12}),
        ("help", "help", {}),
        ("q", "quit", {}),
    ],
)
def test_lobby_and_other_commands(typed: str, kind: str, args: dict) -> None:
    cmd = parse_command(typed, Model())
    assert (cmd.kind, cmd.args) == (kind, args)


def test_join_defaults_to_the_table_just_created() -> None:
    m = reduce(Model(), TableCreated(id=1, table=9))
    assert parse_command("join", m).args == {"table": 9}
    with pytest.raises(CommandError, match="which table"):
        parse_command("join", Model())
    with pytest.raises(CommandError, match="number"):
        parse_command("join x", Model())


def completions(m: Model, text: str) -> list[str]:
    comp = CommandCompleter(lambda: m)
    return [c.text for c in comp.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_completion_offers_the_legal_actions_first() -> None:
    assert completions(SEVENS, "")[: len(PAIRS)] == PAIRS
    assert completions(SEVENS, "play 7c ") == ["play 7c 7d", "play 7c 7h", "play 7c 7d 7h"]
    assert completions(SEVENS, "ta") == ["take"]
    assert completions(SEVENS, "9") == ["play 9s"]  # a short form completes to the text


def test_completion_of_commands_tables_presets_and_bots() -> None:
    m = at(midgame().view, tables=[summary(4, ["x", None]), summary(12, ["y", None])])
    assert "create" in completions(m, "cr") and "chat" in completions(m, "c")
    assert completions(m, "join 1") == ["1", "12"]
    assert completions(m, "bot g") == ["greedy"]
    assert completions(m, "create k") == ["karma"]


def test_resume_takes_a_waiting_seat_and_completes_its_tables() -> None:
    waiting = summary(3, ["bob", "alice"])
    waiting["seats"][1]["away"] = True
    m = reduce(Model(name="alice"), Tables(id=1, tables=[summary(2, ["alice", "bob"]), waiting]))
    assert "resume" in completions(m, "res")
    assert completions(m, "resume ") == ["3"]  # table 2 holds alice too, but she is there
    assert parse_command("resume", m).args == {"table": 3}
    assert parse_command("back 2", m).args == {"table": 2}
    with pytest.raises(CommandError, match="No seat is waiting"):
        parse_command("resume", Model(name="alice"))
