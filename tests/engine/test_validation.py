"""Validation: bad rule sets raise RulesError naming the option and its allowed values, and
illegal actions raise IllegalAction with a stable code while leaving the game state unchanged."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from server.engine import (
    OPTION_NAMES,
    Game,
    IllegalAction,
    IllegalReason,
    RulesError,
    check_seats,
    make_rules,
    parse_action,
    spectator_view,
    view_for,
)
from server.engine.cards import build_deck, card

from .helpers import act, cards, deal, start

# ----------------------------------------------------------------------------- helpers


def rules_error(preset: Any = "classic", options: Any = None) -> RulesError:
    with pytest.raises(RulesError) as exc:
        make_rules(preset, options)
    assert isinstance(exc.value, ValueError)
    return exc.value


def snapshot(game: Game) -> tuple:
    """Everything observable about a game: every seat's view, the spectator view, the version
    and the raw zones."""
    return (
        game.version,
        [view_for(game, s) for s in range(game.n)],
        spectator_view(game),
        [game.hand(s) for s in range(game.n)],
        copy.deepcopy(game.face_up),
        copy.deepcopy(game.face_down),
        list(game.stock),
        list(game.pile),
        list(game.burned),
        game.phase,
        game.current,
        game.direction,
        list(game.ready),
        list(game.history),
    )


def refuse(game: Game, seat: Any, action: Any, code: IllegalReason) -> IllegalAction:
    """``action`` of ``seat`` is refused with ``code`` and the state is exactly as before."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as exc:
        game.apply(seat, action)
    assert exc.value.code == code, exc.value.message
    assert snapshot(game) == before
    return exc.value


def refuse_text(game: Game, seat: int, text: str, code: IllegalReason) -> IllegalAction:
    return refuse(game, seat, parse_action(text), code)


def playing() -> Game:
    """Two seats in play; seat 1 (3c face up) is to play, holding 5c 5d Kc; seat 0 holds 4h 9h Ah."""
    g = start(
        "classic",
        2,
        hands={1: cards("5c 5d Kc"), 0: cards("4h 9h Ah")},
        face_up={1: cards("3c Qh Qs"), 0: cards("Jc Jd Js")},
    )
    assert g.phase == "play" and g.current == 1
    return g


def strip_to_face_down(game: Game, seat: int) -> None:
    """Test set-up shortcut: move ``seat``'s hand and face-up cards and the stock onto the
    burned cards (all cards stay in the game), so ``seat`` plays from its face-down cards."""
    total = sorted(build_deck(game.rules.decks, game.rules.jokers))
    for grp in list(game.groups[seat].values()):
        game._remove(seat, grp)
        game.burned.extend(grp)
    for st in game.face_up[seat]:
        game.burned.extend(st)
        st.clear()
    game.burned.extend(game.stock)
    game.stock.clear()
    game.version += 1
    everything = list(game.pile) + list(game.burned)
    for s in range(game.n):
        everything += game.hand(s) + [c for st in game.face_up[s] for c in st]
        everything += [c for c in game.face_down[s] if c is not None]
    assert sorted(everything) == total


# ----------------------------------------------------------------------------- make_rules


def test_unknown_option_names_it_and_lists_known_options() -> None:
    """An unknown option is a RulesError naming that option and listing the known ones."""
    e = rules_error("classic", {"tens_anywhere": False})
    assert e.option == "tens_anywhere"
    assert "tens_anywhere" in e.message and "ten_anywhere" in e.message and "burn_count" in e.message
    assert rules_error("classic", {"preset": "karma"}).option == "preset"
    assert rules_error("classic", {"min_players": 3}).option == "min_players"


def test_unknown_preset_lists_presets() -> None:
    """An unknown preset (or a preset that is not a string) is a RulesError listing the presets."""
    for bad in ("shithead", "", None, 3):
        e = rules_error(bad)
        assert e.option == "preset"
        assert "classic" in e.message and "linz" in e.message


def test_options_must_be_a_mapping() -> None:
    """Options that are not a map of name to value are a RulesError too (one error type)."""
    for bad in (["decks"], "decks", [("decks",)]):
        rules_error("classic", bad)


WRONG_TYPES = [
    ("decks", "2", "1..3"),
    ("decks", 2.0, "1..3"),
    ("decks", True, "1..3"),
    ("decks", None, "1..3"),
    ("jokers", "2", "0..8"),
    ("hand", 3.5, "1..20"),
    ("max_actions", "100", "1..1000000"),
    ("burn_count", False, "0..12"),
    ("match_count", 1, "true"),
    ("match_count", "true", "true"),
    ("pair_skip", None, "false"),
    ("draw_before_play", 0, "true"),
    ("ten_anywhere", "no", "true"),
    ("goal", 1, "winner"),
    ("deal_style", None, "choose"),
    ("faceup_fail", ["leave"], "take_one"),
]


@pytest.mark.parametrize("option,value,allowed", WRONG_TYPES)
def test_wrong_type_names_option_and_allowed_values(option: str, value: Any, allowed: str) -> None:
    """A value of the wrong type (decks='2', match_count=1, ...) is refused naming the allowed values."""
    e = rules_error("classic", {option: value})
    assert e.option == option
    assert option in e.message and allowed in e.message


OUT_OF_RANGE = [
    ("decks", 0),
    ("decks", 4),
    ("jokers", -1),
    ("jokers", 9),
    ("face_down", -1),
    ("face_down", 11),
    ("face_up", 11),
    ("hand", 0),
    ("hand", 21),
    ("refill_to", 0),
    ("refill_to", 21),
    ("burn_count", -1),
    ("burn_count", 13),
    ("max_actions", 0),
    ("max_actions", 1_000_001),
]


@pytest.mark.parametrize("option,value", OUT_OF_RANGE)
def test_value_out_of_range(option: str, value: int) -> None:
    """An integer outside its range is refused; the message names the option and the range."""
    e = rules_error("classic", {option: value})
    assert e.option == option
    assert option in e.message and ".." in e.message


def test_burn_count_one_refused() -> None:
    """burn_count 1 would burn every play: refused, naming 0 (off) and the range from 2."""
    e = rules_error("classic", {"burn_count": 1})
    assert e.option == "burn_count" and "burn_count" in e.message and "0" in e.message and "2.." in e.message
    assert make_rules("classic", {"burn_count": 0}).burn_count == 0


ENUMS = {
    "deal_style": ("classic", "choose"),
    "opening": ("threes", "announce"),
    "faceup_fail": ("take_one", "leave"),
    "after_pickup": ("next", "previous"),
    "goal": ("loser", "winner"),
    "next_dealer": ("rotate", "loser"),
    "glass_on_empty": ("any", "rank"),
    "joker_as": ("plain", "glass", "seven", "two"),
}


@pytest.mark.parametrize("option", sorted(ENUMS))
def test_bad_enum_value_lists_allowed_values(option: str) -> None:
    """A bad choice for an enum option is refused listing every allowed value; each allowed value works."""
    e = rules_error("classic", {option: "sideways"})
    assert e.option == option and option in e.message and "sideways" in e.message
    for v in ENUMS[option]:
        assert v in e.message
        assert getattr(make_rules("classic", {option: v}), option) == v


def test_unknown_power_name() -> None:
    """An unknown power name is refused, listing the power names."""
    e = rules_error("classic", {"powers": {"7": ["fly"]}})
    assert e.option == "powers" and "powers" in e.message and "fly" in e.message
    for p in ("reset", "burn", "lower", "lower_strict", "glass", "reverse", "skip"):
        assert p in e.message


@pytest.mark.parametrize(
    "value",
    [
        "reset",
        ["reset"],
        {"Z": ["reset"]},
        {7: ["reset"]},
        {"7": "reset"},
        {"7": None},
    ],
)
def test_malformed_powers(value: Any) -> None:
    """powers must map a rank (2-9, T, J, Q, K, A, X) to a list of power names."""
    e = rules_error("classic", {"powers": value})
    assert e.option == "powers" and "powers" in e.message


def test_contradictory_powers_on_one_rank() -> None:
    """A rank cannot be lower and lower_strict, nor reset and lower."""
    for plist in (["lower", "lower_strict"], ["reset", "lower"], ["reset", "lower_strict"]):
        e = rules_error("classic", {"powers": {"9": plist}})
        assert e.option == "powers" and "powers" in e.message


def test_lower_allows_on_rank_without_lower() -> None:
    """lower_allows may only name ranks that have lower or lower_strict."""
    e = rules_error("classic", {"lower_allows": {"7": "8T"}})
    assert e.option == "lower_allows" and "lower_allows" in e.message and "lower" in e.message
    e = rules_error("gultnieks", {"powers": {"7": []}})
    assert e.option == "lower_allows"
    rules = make_rules("classic", {"powers": {"7": ["lower"]}, "lower_allows": {"7": "8T"}})
    assert rules.lower_allows == (("7", "8T"),)


@pytest.mark.parametrize("value", [{"7": 8}, {"7": "8Z"}, "8T", {"Z": "8"}])
def test_malformed_lower_allows(value: Any) -> None:
    """lower_allows must map a rank to a string of ranks."""
    e = rules_error("classic", {"powers": {"7": ["lower"]}, "lower_allows": value})
    assert e.option == "lower_allows" and "lower_allows" in e.message


def test_impossible_deal_in_make_rules() -> None:
    """More cards each than the decks hold even for the fewest players is refused by make_rules."""
    e = rules_error("classic", {"face_down": 10, "face_up": 10, "hand": 20})
    assert e.option == "hand" and "hand" in e.message and "52" in e.message


def test_impossible_deal_game_with_too_many_seats() -> None:
    """A game whose seats need more cards than the decks hold is refused at construction."""
    rules = make_rules("classic", {"hand": 10})  # 16 cards each: three fit, four do not
    Game.new(rules, 3, seed=1)
    with pytest.raises(RulesError) as exc:
        Game.new(rules, 4, seed=1)
    assert exc.value.option == "decks"
    assert "decks" in exc.value.message and "52" in exc.value.message
    with pytest.raises(RulesError):
        check_seats(rules, 4)
    with pytest.raises(RulesError):
        Game(rules, 4, 0, build_deck(1, 0))
    # two decks make room
    Game.new(make_rules("classic", {"hand": 10, "decks": 2}), 4, seed=1)


def test_seats_outside_preset_range() -> None:
    """A player count outside the preset's range is a RulesError on 'seats' naming the range."""
    rules = make_rules("classic")
    for n in (0, 1, 6, "3", None):
        with pytest.raises(RulesError) as exc:
            check_seats(rules, n)
        assert exc.value.option == "seats"
    with pytest.raises(RulesError) as exc:
        Game.new(rules, 6, seed=1)
    assert exc.value.option == "seats" and "2" in exc.value.message and "5" in exc.value.message


def test_bad_dealer_and_bad_deck() -> None:
    """Game refuses a dealer that is not a seat and a deck that is not exactly the rules' cards."""
    rules = make_rules()
    deck = build_deck(1, 0)
    for dealer in (-1, 2, "0", True):
        with pytest.raises(RulesError) as exc:
            Game(rules, 2, dealer, deck)
        assert exc.value.option == "dealer"
    for bad in (deck[:-1], [*deck, deck[0]], [*deck[:-1], deck[0]], build_deck(1, 2)):
        with pytest.raises(RulesError) as exc:
            Game(rules, 2, 0, bad)
        assert exc.value.option == "deck"


def test_every_option_name_has_a_valid_value_accepted() -> None:
    """Sanity: every option of the table is accepted with a valid non-default value."""
    valid = {
        "decks": 2,
        "jokers": 2,
        "face_down": 4,
        "face_up": 4,
        "hand": 4,
        "refill_to": 5,
        "deal_style": "choose",
        "draw_before_play": True,
        "opening": "announce",
        "ten_anywhere": False,
        "burn_count": 5,
        "voluntary_pickup": False,
        "faceup_fail": "leave",
        "after_pickup": "previous",
        "goal": "winner",
        "karma_stacking": True,
        "match_count": True,
        "pair_skip": True,
        "suit_runs": True,
        "count_runs": False,
        "stock_gamble": True,
        "reverse_per_card": True,
        "powers": {"9": ["skip"]},
        "lower_allows": {},
        "glass_on_empty": "rank",
        "joker_as": "two",
        "next_dealer": "loser",
        "max_actions": 100,
        "flush_player": True,
    }
    assert set(valid) == set(OPTION_NAMES)
    for name, value in valid.items():
        r = make_rules("classic", {name: value})
        assert r.options()[name] == (value if name != "powers" else {"2": ["reset"], "9": ["skip"], "T": ["burn"]})


# ----------------------------------------------------------------------------- illegal actions


def test_not_your_turn() -> None:
    """Acting out of turn (or as a seat that does not exist) is NOT_YOUR_TURN; nothing changes."""
    g = playing()
    refuse_text(g, 0, "play 4h", IllegalReason.NOT_YOUR_TURN)
    refuse_text(g, 0, "take", IllegalReason.NOT_YOUR_TURN)
    for seat in (2, -1, "1", None):
        refuse(g, seat, parse_action("play 5c"), IllegalReason.NOT_YOUR_TURN)


@pytest.mark.parametrize("seat", [1.0, True], ids=repr)
def test_not_your_turn_seat_must_be_an_int(seat: Any) -> None:
    """A seat merely equal to the current one (1.0, True) is refused even with a warm legal cache."""
    g = playing()
    assert g.legal_actions(seat) == ()
    g.legal_actions(1)  # warm the cache for seat 1
    refuse(g, seat, parse_action("play 5c"), IllegalReason.NOT_YOUR_TURN)


def test_wrong_phase() -> None:
    """Setup actions during play, plays during setup, announcing outside the opening: WRONG_PHASE."""
    g = deal("classic", 2, hands={1: cards("5c 5d Kc")}, face_up={1: cards("3c Qh Qs")})
    refuse_text(g, 1, "play 5c", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "take", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "announce 5c", IllegalReason.WRONG_PHASE)
    g = playing()
    refuse_text(g, 1, "swap 5c 0", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "ready", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "announce 5c", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "pass", IllegalReason.WRONG_PHASE)
    g = start("classic", 2, {"opening": "announce"}, hands={1: cards("5c 5d Kc")})
    assert g.phase == "announce"
    refuse_text(g, 1, "play 5c", IllegalReason.WRONG_PHASE)
    refuse_text(g, 1, "ready", IllegalReason.WRONG_PHASE)


def test_card_not_held() -> None:
    """Playing, swapping or announcing a card the seat does not hold is CARD_NOT_HELD."""
    g = playing()
    refuse_text(g, 1, "play 4h", IllegalReason.CARD_NOT_HELD)  # seat 0's card
    refuse_text(g, 1, "play 5c 5h", IllegalReason.CARD_NOT_HELD)
    refuse_text(g, 1, "play 5c 5c", IllegalReason.CARD_NOT_HELD)  # one deck: only one 5c
    g = deal("classic", 2, hands={1: cards("5c 5d Kc")}, face_up={1: cards("3c Qh Qs")})
    refuse_text(g, 1, "swap 4h 0", IllegalReason.CARD_NOT_HELD)
    g = start("classic", 2, {"opening": "announce"}, hands={1: cards("5c 5d Kc")})
    refuse_text(g, 1, "announce 4h", IllegalReason.CARD_NOT_HELD)


def test_does_not_beat() -> None:
    """A card lower than the pile's top is DOES_NOT_BEAT."""
    g = playing()
    act(g, "play Kc")
    refuse_text(g, 0, "play 4h", IllegalReason.DOES_NOT_BEAT)
    refuse_text(g, 0, "play 9h", IllegalReason.DOES_NOT_BEAT)


def test_mixed_ranks() -> None:
    """A play of cards of different ranks is MIXED_RANKS."""
    g = playing()
    refuse_text(g, 1, "play 5c Kc", IllegalReason.MIXED_RANKS)
    refuse_text(g, 1, "play 5c 5d Kc", IllegalReason.MIXED_RANKS)


def test_empty_pile() -> None:
    """Picking up an empty pile is not a move: EMPTY_PILE."""
    g = playing()
    refuse_text(g, 1, "take", IllegalReason.EMPTY_PILE)


def test_wrong_source() -> None:
    """Face-up cards or a face-down flip while the hand holds cards: WRONG_SOURCE (C12)."""
    g = playing()
    refuse_text(g, 1, "play Qh", IllegalReason.WRONG_SOURCE)
    refuse_text(g, 1, "play Qh Qs", IllegalReason.WRONG_SOURCE)
    refuse_text(g, 1, "flip 0", IllegalReason.WRONG_SOURCE)
    strip_to_face_down(g, 1)
    refuse_text(g, 1, "play 5c", IllegalReason.WRONG_SOURCE)


def test_bad_position() -> None:
    """A face-up slot or face-down position that does not exist is BAD_POSITION."""
    g = deal("classic", 2, hands={1: cards("5c 5d Kc")}, face_up={1: cards("3c Qh Qs")})
    refuse_text(g, 1, "swap 5c 3", IllegalReason.BAD_POSITION)
    refuse(g, 1, ("swap", cards("5c")[0], -1), IllegalReason.BAD_POSITION)
    g = playing()
    strip_to_face_down(g, 1)
    assert {a for a in g.legal_actions(1)} == {("flip", 0), ("flip", 1), ("flip", 2)}
    refuse_text(g, 1, "flip 3", IllegalReason.BAD_POSITION)
    refuse_text(g, 1, "flip 999", IllegalReason.BAD_POSITION)
    refuse(g, 1, ("flip", -1), IllegalReason.BAD_POSITION)


GARBAGE = [
    None,
    42,
    "play 5c",
    b"play",
    (),
    [],
    ("play",),
    ("play", ()),
    ("play", 5),
    ("play", "5c"),
    ("fly",),
    ("take", "5c"),
    ("take", 5, 6),
    ("flip",),
    ("flip", "0"),
    ("flip", 0.0),
    ("swap", "5c", 0),
    ("swap", card(5, 0), "0"),
    ("ready", 1),
    ("draw", True),
    {"play": 1},
    ("play", (7,)),
    ("play", (0,)),
    ("play", (-1,)),
    ("play", (1000,)),
    ("play", (62,)),
    ("play", (63,)),
    ("play", (True,)),
    ("play", (card(5, 0), 1 << 40)),
]


@pytest.mark.parametrize("action", GARBAGE, ids=repr)
def test_malformed_action_objects(action: Any) -> None:
    """Objects that are not actions, or hold card ints outside the deck, are MALFORMED_ACTION."""
    g = playing()
    refuse(g, 1, action, IllegalReason.MALFORMED_ACTION)


def test_malformed_action_equal_to_a_legal_one_but_not_ints() -> None:
    """A card/position merely equal to a legal one (20.0 for 5c, 0.0/False for 0) is MALFORMED_ACTION."""
    five_c = card(5, 0)
    assert float(five_c) == 20.0
    g = deal("classic", 2, hands={1: cards("5c 5d Kc")}, face_up={1: cards("3c Qh Qs")})
    assert ("swap", five_c, 0) in g.legal_actions(1)
    refuse(g, 1, ("swap", 20.0, 0), IllegalReason.MALFORMED_ACTION)
    refuse(g, 1, ("swap", five_c, False), IllegalReason.MALFORMED_ACTION)
    g = playing()
    assert ("play", (five_c,)) in g.legal_actions(1)
    refuse(g, 1, ("play", (20.0,)), IllegalReason.MALFORMED_ACTION)
    strip_to_face_down(g, 1)
    assert ("flip", 0) in g.legal_actions(1)
    refuse(g, 1, ("flip", 0.0), IllegalReason.MALFORMED_ACTION)
    refuse(g, 1, ("flip", False), IllegalReason.MALFORMED_ACTION)


BAD_TEXTS = [
    "",
    "   ",
    "play",
    "run",
    "play 5x",
    "play 1c",
    "play 5",
    "play Xg",
    "flip",
    "flip x",
    "flip -1",
    "flip 1234",
    "flip 0 1",
    "take 5c 5d",
    "take 5",
    "swap 5c",
    "swap 5c x",
    "place 9h",
    "ready now",
    "draw 1",
    "announce",
    "announce 4",
    "pass 1",
    "jump",
    "play5c",
]


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_malformed_action_text(text: str) -> None:
    """parse_action refuses text that is not an action with MALFORMED_ACTION."""
    with pytest.raises(IllegalAction) as exc:
        parse_action(text)
    assert exc.value.code == IllegalReason.MALFORMED_ACTION


def test_parse_action_non_string() -> None:
    """parse_action refuses non-strings with MALFORMED_ACTION."""
    for bad in (None, 5, b"play 5c", ("play",)):
        with pytest.raises(IllegalAction) as exc:
            parse_action(bad)  # type: ignore[arg-type]
        assert exc.value.code == IllegalReason.MALFORMED_ACTION


def test_game_over() -> None:
    """Any well-formed action after the end is GAME_OVER, for every seat."""
    g = start(
        "classic",
        2,
        {"max_actions": 3},
        hands={1: cards("5c 5d Kc"), 0: cards("4h 9h Ah")},
        face_up={1: cards("3c Qh Qs"), 0: cards("Jc Jd Js")},
    )
    act(g, "play Kc")
    assert g.is_over()
    for seat in (0, 1):
        for text in ("play 5c", "play Ah", "take", "ready", "flip 0", "draw", "pass", "swap 5c 0"):
            refuse_text(g, seat, text, IllegalReason.GAME_OVER)


def test_already_ready() -> None:
    """A seat that said ready may not say it again, nor swap: ALREADY_READY."""
    g = deal("classic", 3, hands={1: cards("5c 5d Kc")}, face_up={1: cards("3c Qh Qs")})
    act(g, "ready", 1)
    refuse_text(g, 1, "ready", IllegalReason.ALREADY_READY)
    refuse_text(g, 1, "swap 5c 0", IllegalReason.ALREADY_READY)
    assert g.phase == "setup"


def test_setup_incomplete() -> None:
    """Under deal_style choose, ready before every slot is filled is SETUP_INCOMPLETE."""
    g = deal("alt_deal", 2, hands={1: cards("3c 5d 7h 9s Jc Kd")})
    refuse_text(g, 1, "ready", IllegalReason.SETUP_INCOMPLETE)
    act(g, "place 9s 0", 1)
    refuse_text(g, 1, "ready", IllegalReason.SETUP_INCOMPLETE)


def test_option_off_and_not_a_run() -> None:
    """Actions of options the table does not use are OPTION_OFF; a bad run is NOT_A_RUN."""
    g = playing()
    refuse_text(g, 1, "draw", IllegalReason.OPTION_OFF)
    refuse_text(g, 1, "gamble", IllegalReason.OPTION_OFF)
    refuse_text(g, 1, "run 5c 5d", IllegalReason.OPTION_OFF)
    g = start(
        "classic",
        2,
        {"suit_runs": True},
        hands={1: cards("5c 6c 8c"), 0: cards("4h 9h Ah")},
        face_up={1: cards("3c Qh Qs"), 0: cards("Jc Jd Js")},
    )
    refuse_text(g, 1, "run 5c", IllegalReason.NOT_A_RUN)
    refuse_text(g, 1, "run 5c 6c 8c", IllegalReason.NOT_A_RUN)


def test_stock_empty() -> None:
    """Drawing or gambling with an empty stock is STOCK_EMPTY."""
    g = start(
        "classic",
        2,
        {"draw_before_play": True, "stock_gamble": True, "face_down": 10, "face_up": 10, "hand": 6},
        hands={1: cards("5c 5d Kc 6c 7c 8c")},
        face_up={1: cards("3c")},
    )
    assert not g.stock and g.current == 1
    refuse_text(g, 1, "draw", IllegalReason.STOCK_EMPTY)
    refuse_text(g, 1, "gamble", IllegalReason.STOCK_EMPTY)


def test_game_goes_on_normally_after_refusals() -> None:
    """After a series of refusals the same legal actions are offered and a legal play still works."""
    g = playing()
    legal, version = g.legal_actions(1), g.version
    for action in [*GARBAGE, parse_action("play 4h"), parse_action("take"), parse_action("flip 0")]:
        with pytest.raises(IllegalAction):
            g.apply(1, action)
    assert g.legal_actions(1) == legal and g.version == version and g.history[-1] == (1, ("ready",))
    act(g, "play 5c 5d")
    assert g.current == 0 and g.version == version + 1
