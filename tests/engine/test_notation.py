"""Card and action notation (RULES.md §1, actions.py): parse/format round-trips, forgiving
input, and clear refusals of malformed text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import (
    PRESETS,
    Game,
    IllegalAction,
    IllegalReason,
    build_deck,
    format_action,
    format_card,
    format_cards,
    make_rules,
    parse_action,
    parse_card,
    parse_cards,
)
from server.engine.cards import CardError

ALL_CARDS = sorted(set(build_deck(2, 2)))
ACTION_KINDS = ("play", "run", "flip", "take", "draw", "gamble", "swap", "place", "ready", "announce", "pass")


def test_every_card_round_trips() -> None:
    """Every card of two decks plus jokers formats as two canonical characters and parses back."""
    texts = [format_card(c) for c in ALL_CARDS]
    assert len(ALL_CARDS) == 54 and len(set(texts)) == 54
    for c, t in zip(ALL_CARDS, texts, strict=True):
        assert len(t) == 2 and t[0] in "23456789TJQKAX" and t[1] in "cdhsrb"
        assert parse_card(t) == c
    assert {"Xr", "Xb"} <= set(texts)
    deck = build_deck(2, 2)
    assert parse_cards(format_cards(deck)) == deck


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10h", "Th"),
        ("7H", "7h"),
        (" As ", "As"),
        ("td", "Td"),
        ("TD", "Td"),
        ("10S", "Ts"),
        ("qc", "Qc"),
        ("xr", "Xr"),
        ("XB", "Xb"),
        ("\t2c\n", "2c"),
        ("aS", "As"),
    ],
)
def test_forgiving_card_parsing(text: str, canonical: str) -> None:
    """Typed variants (10 for T, any case, surrounding blanks) parse to the canonical card."""
    assert format_card(parse_card(text)) == canonical


def test_forgiving_card_lists() -> None:
    """Card lists may be separated by spaces or commas."""
    assert [format_card(c) for c in parse_cards("7h, 10d  As,Xr")] == ["7h", "Td", "As", "Xr"]
    assert parse_cards("") == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "7",
        "h",
        "1h",
        "11h",
        "0s",
        "7x",
        "7hh",
        "Xh",
        "Xc",
        "Zz",
        "ace",
        "J",
        "10",
        "Tr",
        "-7h",
        "7♥",
    ],
)
def test_bad_cards_raise_card_error(text: str) -> None:
    """Text that is not a card raises CardError (a ValueError) with a helpful message."""
    with pytest.raises(CardError) as exc:
        parse_card(text)
    assert isinstance(exc.value, ValueError)
    msg = str(exc.value)
    assert msg and any(word in msg for word in ("card", "rank", "suit", "joker"))


def _examples() -> list[tuple]:
    c = {t: parse_card(t) for t in ("7h", "7d", "7s", "5h", "6h", "Xr", "Ts", "2c", "As")}
    return [
        ("play", (c["7h"],)),
        ("play", tuple(sorted((c["7h"], c["7d"], c["7s"])))),
        ("play", (c["Xr"],)),
        ("play", (c["7h"], c["7h"])),  # two decks: equal cards
        ("run", (c["5h"], c["6h"], c["7h"])),
        *[("flip", i) for i in range(7)],
        ("flip", 12),
        ("take",),
        ("take", c["Ts"]),
        ("draw",),
        ("gamble",),
        ("swap", c["2c"], 0),
        ("swap", c["As"], 4),
        ("place", c["Xr"], 1),
        ("place", c["7d"], 0),
        ("ready",),
        ("announce", c["2c"]),
        ("announce", c["Xr"]),
        ("pass",),
    ]


@pytest.mark.parametrize("action", _examples(), ids=lambda a: format_action(a))
def test_action_round_trip(action: tuple) -> None:
    """Every kind of action formats to text that parses back to the same tuple, and vice versa."""
    text = format_action(action)
    assert parse_action(text) == action
    assert format_action(parse_action(text)) == text


def test_every_action_kind_has_an_example() -> None:
    """The round-trip examples cover every action kind."""
    assert {a[0] for a in _examples()} == set(ACTION_KINDS)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("play 7h 7d", "play 7d 7h"),
        ("PLAY 7h", "play 7h"),
        ("play 10h", "play Th"),
        ("  take   9c ", "take 9c"),
        ("Flip 2", "flip 2"),
        ("swap 3C 1", "swap 3c 1"),
        ("run 7h 5h 6h", "run 5h 6h 7h"),
        ("READY", "ready"),
    ],
)
def test_forgiving_action_parsing(text: str, canonical: str) -> None:
    """Actions parse case-insensitively, with extra blanks and cards in any order, to canonical text."""
    assert format_action(parse_action(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "dance",
        "play",
        "run",
        "play 7x",
        "play 7h 1d",
        "flip",
        "flip a",
        "flip 1 2",
        "flip -1",
        "flip 1000",
        "flip 1.5",
        "take 7h 7d",
        "take x",
        "swap 7h",
        "swap 7h x",
        "swap x 1",
        "place 7h",
        "announce",
        "announce 7h 7d",
        "announce 1h",
        "ready now",
        "pass 1",
        "draw 2",
        "gamble x",
        "7h",
        "play: 7h",
        "flip \u00b2",
        "swap 7h \u00b3",
    ],
)
def test_malformed_action_texts(text: str) -> None:
    """Malformed action texts raise IllegalAction with MALFORMED_ACTION and a message."""
    with pytest.raises(IllegalAction) as exc:
        parse_action(text)
    assert exc.value.code == IllegalReason.MALFORMED_ACTION
    assert exc.value.message


@pytest.mark.parametrize("thing", [None, 42, ("play", (29,)), b"play 7h", ["ready"]])
def test_non_text_actions_are_malformed(thing: object) -> None:
    """parse_action of something that is not a string raises MALFORMED_ACTION."""
    with pytest.raises(IllegalAction) as exc:
        parse_action(thing)  # type: ignore[arg-type]
    assert exc.value.code == IllegalReason.MALFORMED_ACTION


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=12)
    | st.builds(
        lambda k, rest: f"{k} {rest}",
        st.sampled_from(ACTION_KINDS),
        st.text(max_size=8) | st.text(st.characters(whitelist_categories=("Nd", "No", "Nl")), max_size=3),
    )
)
def test_any_text_parses_or_is_malformed(text: str) -> None:
    """Any text either parses to an action whose text form parses back to it, or raises MALFORMED_ACTION."""
    try:
        action = parse_action(text)
    except IllegalAction as exc:
        assert exc.code == IllegalReason.MALFORMED_ACTION
        return
    assert parse_action(format_action(action)) == action


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=5))
def test_any_text_is_a_card_or_card_error(text: str) -> None:
    """Any text either parses to a card whose canonical text parses back to it, or raises CardError."""
    try:
        c = parse_card(text)
    except CardError:
        return
    assert c in ALL_CARDS and parse_card(format_card(c)) == c


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_legal_actions_of_random_games_round_trip(preset: str) -> None:
    """Every legal action met in random games (every preset) round-trips through its text form."""
    rules = make_rules(preset, {"max_actions": 400})
    seen: set[tuple] = set()
    for n in (rules.min_players, rules.max_players):
        game = Game.new(rules, n, seed=n)
        rng = random.Random(n)
        while not game.is_over():
            seat = rng.choice(game.to_act())
            legal = game.legal_actions(seat)
            seen.update(legal)
            game.apply(seat, rng.choice(legal))
        seen.update(a for _, a in game.history)
    assert seen
    for action in seen:
        text = format_action(action)
        assert parse_action(text) == action, text
        assert parse_action(text.upper()) == action, text  # people type in any case
