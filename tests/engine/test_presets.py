"""Every preset of docs/RULES.md §4: what differs from classic, and each preset's player range.

Deals are stacked so nothing depends on luck. With dealer 0 the deal starts at seat 1, and
seat 1 gets the 3c face up, so seat 1 opens (C5) unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import (
    PRESETS,
    Game,
    IllegalReason,
    RulesError,
    check_seats,
    make_rules,
    view_for,
)
from server.engine.cards import JOKER

from .helpers import act, cards, deal, kinds, legal_texts, names, refused, start


def table(
    preset: str = "classic",
    options: dict[str, Any] | None = None,
    *,
    seats: int = 2,
    hands: dict[int, str] | None = None,
    up: dict[int, str] | None = None,
    stock: str = "",
) -> Game:
    """A started game (setup done) dealing the given cards, written as text."""

    def conv(spec: dict[int, str] | None) -> dict[int, list[int]]:
        return {s: cards(t) for s, t in (spec or {}).items()}

    return start(preset, seats, options, hands=conv(hands), face_up=conv(up), stock=cards(stock))


def dealt_sizes(game: Game, seat: int) -> tuple[int, int, int]:
    return (len(game.face_down[seat]), sum(len(st) for st in game.face_up[seat]), len(game.hand(seat)))


# ----------------------------------------------------------------------------- player ranges

# docs/RULES.md C1 (classic 2-5), six_players "up to 6", west_kent "2 or 3"; the other upper
# bounds are the engine's documented choices (docs/ENGINE.md decision 18: what the decks hold).
RANGES = {
    "classic": (2, 5),
    "encyclopedia": (2, 5),
    "six_players": (2, 6),
    "alt_deal": (2, 5),
    "gultnieks": (2, 5),
    "karma": (2, 5),
    "smeghead": (2, 8),
    "west_kent": (2, 3),
    "guarducci": (2, 5),
    "finnish": (2, 4),
    "ten_two_slide": (2, 5),
    "egilsson": (2, 5),
    "wikibooks": (2, 9),
    "linz": (2, 4),
}


def test_every_preset_of_rules_md_exists() -> None:
    """The engine offers exactly the fourteen presets of docs/RULES.md §4."""
    assert set(PRESETS) == set(RANGES)


@pytest.mark.parametrize("preset", sorted(RANGES))
def test_player_range_of_preset(preset: str) -> None:
    """Each preset deals to every player count in its range and refuses one below and one above."""
    lo, hi = RANGES[preset]
    rules = make_rules(preset)
    for n in range(lo, hi + 1):
        check_seats(rules, n)
        g = Game.new(rules, n, seed=n)
        assert len(g.deck) == rules.deck_size()
    for n in (lo - 1, hi + 1):
        with pytest.raises(RulesError) as exc:
            check_seats(rules, n)
        assert exc.value.option == "seats"
        with pytest.raises(RulesError):
            Game.new(rules, n, seed=1)


# ----------------------------------------------------------------------------- classic


def test_classic_is_the_default_rule_set() -> None:
    """classic: make_rules() is the classic preset with the option defaults of §3 and 2-5 players."""
    rules = make_rules()
    assert rules == make_rules("classic", {})
    assert rules.overrides() == {}
    o = rules.options()
    assert (o["decks"], o["jokers"], o["face_down"], o["face_up"], o["hand"], o["refill_to"]) == (1, 0, 3, 3, 3, 3)
    assert o["powers"] == {"2": ["reset"], "T": ["burn"]}
    assert (o["deal_style"], o["opening"], o["faceup_fail"], o["after_pickup"], o["goal"]) == (
        "classic",
        "threes",
        "take_one",
        "next",
        "loser",
    )
    assert o["ten_anywhere"] and o["voluntary_pickup"] and o["burn_count"] == 4
    assert not any(
        o[k] for k in ("draw_before_play", "karma_stacking", "match_count", "pair_skip", "suit_runs", "stock_gamble")
    )
    assert (o["next_dealer"], o["max_actions"]) == ("rotate", 5000)
    assert (rules.min_players, rules.max_players) == (2, 5)


# ----------------------------------------------------------------------------- encyclopedia


def test_encyclopedia_match_count_and_optional_pair_skip() -> None:
    """encyclopedia: a pair must be answered by at least a pair; pair_skip is off unless asked for."""
    spec = {
        "seats": 3,
        "hands": {1: "7c 7d 4s", 2: "8c 8d 9h", 0: "Jc Jd 5c"},
        "up": {1: "3c Qh Qs", 2: "Kh Ks Kd", 0: "Ac Ah As"},
    }
    g = table("encyclopedia", **spec)
    assert g.rules.match_count and not g.rules.pair_skip
    act(g, "play 7c 7d")
    assert g.current == 2
    assert refused(g, "play 8c") == IllegalReason.TOO_FEW_CARDS
    act(g, "play 8c 8d")
    assert g.current == 0
    g = table("encyclopedia", {"pair_skip": True}, **spec)
    ev = act(g, "play 7c 7d")
    assert ("skipped", 2) in ev and g.current == 0
    assert refused(g, "play Jc") == IllegalReason.TOO_FEW_CARDS


# ----------------------------------------------------------------------------- six_players


def test_six_players_jokers_glass_and_reverse() -> None:
    """six_players: 2 jokers, 6 seats; jokers go on anything, are transparent and reverse (once per play)."""
    rules = make_rules("six_players")
    assert rules.jokers == 2 and rules.deck_size() == 54
    with pytest.raises(RulesError):
        check_seats(make_rules("classic"), 6)
    hands = {1: "Ac As Kd", 2: "Xr Xb 4d", 3: "5c 5d 5h", 4: "6c 6d 6h", 5: "7c 7d 7h", 0: "8c 8d 8h"}
    up = {1: "3c Qh Qs", 2: "Jh Js Jd", 3: "9c 9d 9h", 4: "Tc Td Th", 5: "Qc Qd Kc", 0: "Jc Kh Ks"}
    g = table("six_players", seats=6, hands=hands, up=up)
    assert not g.stock  # 6 x 9 = 54
    act(g, "play Ac")
    assert {"play Xr", "play Xb", "play Xr Xb"} <= legal_texts(g)
    assert refused(g, "play Xr 4d") == IllegalReason.MIXED_RANKS
    ev = act(g, "play Xr Xb")
    assert ev.count(("reversed", 2, -1)) == 1
    assert g.current == 1  # back to the player of the ace, who must beat it
    assert view_for(g, 1)["to_beat"]["rank"] == "A"
    assert refused(g, "play Kd") == IllegalReason.DOES_NOT_BEAT
    act(g, "play As")
    assert g.current == 0


def test_six_players_joker_on_empty_pile_beaten_by_anything() -> None:
    """six_players: a joker alone on an empty pile is beaten by anything (glass without a value)."""
    hands = {1: "Xr 4s Kd", 2: "3d 5d 6d", 0: "4c 8d 8h"}
    g = table("six_players", seats=3, hands=hands, up={1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Jc Kh Ks"})
    act(g, "play Xr")
    assert g.current == 0 and g.direction == -1
    assert "play 4c" in legal_texts(g)


# ----------------------------------------------------------------------------- alt_deal


def test_alt_deal_six_in_hand_choose_three_face_up() -> None:
    """alt_deal: 3 face down, 6 in hand, no face-up card dealt; ready only after choosing three."""
    g = Game.new(make_rules("alt_deal"), 4, seed=5)
    for s in range(4):
        assert dealt_sizes(g, s) == (3, 0, 6)
    assert len(g.stock) == 52 - 4 * 9
    g = deal("alt_deal", 2, hands={1: cards("3c 5d 7h 9s Jc Kd")})
    assert refused(g, "ready", 1) == IllegalReason.SETUP_INCOMPLETE
    for i, c in enumerate(("Kd", "Jc", "9s")):
        act(g, f"place {c} {i}", 1)
    act(g, "ready", 1)
    assert names(g.hand(1)) == ["3c", "5d", "7h"]


# ----------------------------------------------------------------------------- gultnieks


def test_gultnieks_eight_on_seven_sends_duty_back_to_seven_player() -> None:
    """gultnieks: A plays 7, B plays 8 (reverse): A must now play 7 or lower, an 8 or a 10."""
    g = table(
        "gultnieks",
        seats=3,
        hands={1: "7c 5d 9d", 2: "8c Kc 4h", 0: "Qc Qd 6s"},
        up={1: "3c Jh Js", 2: "Ah As Ad", 0: "Kh Ks Kd"},
        stock="8d Td",
    )
    act(g, "play 7c")  # seat 1 (A) draws the 8d
    assert view_for(g, 2)["to_beat"] == {"rule": "at_most", "rank": "7", "also": ["8", "T"], "min_cards": 1}
    assert refused(g, "play Kc") == IllegalReason.DOES_NOT_BEAT
    ev = act(g, "play 8c")  # seat 2 (B) draws the Td
    assert ("reversed", 2, -1) in ev
    assert g.current == 1
    assert view_for(g, 1)["to_beat"]["rule"] == "at_most"
    assert view_for(g, 1)["to_beat"]["rank"] == "7"
    assert names(g.hand(1)) == ["5d", "8d", "9d"]
    assert legal_texts(g) == {"play 5d", "play 8d", "take"}
    assert refused(g, "play 9d") == IllegalReason.DOES_NOT_BEAT


def test_gultnieks_ten_allowed_after_seven_and_eight_beaten_by_anything_on_empty() -> None:
    """gultnieks: a 10 may follow a 7; an 8 opening an empty pile reverses and anything beats it."""
    g = table("gultnieks", hands={1: "7c 5d 9d", 0: "Td Qd 6s"}, up={1: "3c Jh Js", 0: "Kh Ks Kd"})
    act(g, "play 7c")
    assert "burned" in kinds(act(g, "play Td"))
    g = table(
        "gultnieks",
        seats=3,
        hands={1: "8c 5d 9d", 2: "Kc Qd 6s", 0: "4c 4d 4h"},
        up={1: "3c Jh Js", 2: "Kh Ks Kd", 0: "Ah As Ad"},
    )
    act(g, "play 8c")
    assert g.current == 0 and "play 4c" in legal_texts(g)
    classic = table(
        seats=3, hands={1: "8c 5d 9d", 2: "Kc Qd 6s", 0: "4c 4d 4h"}, up={1: "3c Jh Js", 2: "Kh Ks Kd", 0: "Ah As Ad"}
    )
    act(classic, "play 8c")
    assert classic.current == 2


# ----------------------------------------------------------------------------- karma


def test_karma_player_before_pickup_leads_next() -> None:
    """karma: after a pick-up, the seat that made the last play leads (not the picker's neighbour)."""
    spec = {
        "seats": 3,
        "hands": {1: "9c 4s 5s", 2: "Kd 4d 5d", 0: "4c 5c 6c"},
        "up": {1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Kc Kh Ks"},
    }
    g = table("karma", **spec)
    act(g, "play 9c")
    act(g, "play Kd")
    act(g, "take")
    assert g.current == 2
    classic = table(**spec)
    act(classic, "play 9c")
    act(classic, "play Kd")
    act(classic, "take")
    assert classic.current == 1


def test_karma_equal_face_up_cards_stack() -> None:
    """karma: in the setup an equal card may be stacked on a face-up card; the hand is refilled."""
    g = deal("karma", 2, hands={1: cards("9d 5c 6c")}, face_up={1: cards("9c Kd 4s")}, stock=cards("7h"))
    ev = act(g, "place 9d 0", 1)
    assert ("drew", 1, 1) in ev
    assert names(g.face_up[1][0]) == ["9c", "9d"] and names(g.hand(1)) == ["5c", "6c", "7h"]


# ----------------------------------------------------------------------------- smeghead


def test_smeghead_two_decks_four_four_four() -> None:
    """smeghead: two decks, 4 face down, 4 face up, 4 in hand, up to 8 players."""
    rules = make_rules("smeghead")
    assert rules.decks == 2 and rules.deck_size() == 104
    g = Game.new(rules, 8, seed=2)
    assert all(dealt_sizes(g, s) == (4, 4, 4) for s in range(8))
    assert len(g.stock) == 104 - 96


def test_smeghead_flush_is_first_burner() -> None:
    """smeghead: outcome().flush names the first seat to burn the pile (not a later burner)."""
    spec = {"hands": {1: "Tc 5c 6c 9c", 0: "Td Qd Ad 4d"}, "up": {1: "3c Qh Qs Jc", 0: "Kh Ks Kd Kc"}}
    g = table("smeghead", {"max_actions": 5}, **spec)
    assert "burned" in kinds(act(g, "play Tc"))
    act(g, "play 5c")
    assert "burned" in kinds(act(g, "play Td"))
    assert g.is_over()
    assert g.outcome().flush == 1
    classic = table("classic", {"max_actions": 5, "decks": 2, "face_down": 4, "face_up": 4, "hand": 4}, **spec)
    act(classic, "play Tc")
    act(classic, "play 5c")
    act(classic, "play Td")
    assert classic.is_over() and classic.outcome().flush is None


# ----------------------------------------------------------------------------- west_kent, finnish, ten_two_slide


def test_west_kent_five_five_five_two_or_three_players() -> None:
    """west_kent: 5/5/5 from one deck, for 2 or 3 players only."""
    rules = make_rules("west_kent")
    g = Game.new(rules, 3, seed=4)
    assert all(dealt_sizes(g, s) == (5, 5, 5) for s in range(3))
    assert len(g.stock) == 52 - 45 and rules.refill_to == 5
    with pytest.raises(RulesError):
        Game.new(rules, 4, seed=4)


def test_finnish_four_four_three_no_jokers() -> None:
    """finnish: 4 face down, 4 face up, a hand of 3, no jokers, 2 to 4 players."""
    rules = make_rules("finnish")
    assert rules.jokers == 0 and rules.deck_size() == 52
    g = Game.new(rules, 4, seed=4)
    assert all(dealt_sizes(g, s) == (4, 4, 3) for s in range(4))
    assert rules.refill_to == 3 and len(g.stock) == 52 - 44
    with pytest.raises(RulesError):
        Game.new(rules, 5, seed=4)


def test_ten_two_slide_hand_of_four_refilled_to_four() -> None:
    """ten_two_slide: 3/3/4, and the hand is kept at four cards."""
    rules = make_rules("ten_two_slide")
    g = Game.new(rules, 5, seed=4)
    assert all(dealt_sizes(g, s) == (3, 3, 4) for s in range(5))
    g = table("ten_two_slide", hands={1: "9c 5d 6d 7d", 0: "Jc Jd Js 4h"}, up={1: "3c Qh Qs", 0: "Kh Ks Kd"})
    ev = act(g, "play 9c")
    assert ("drew", 1, 1) in ev and len(g.hand(1)) == 4


# ----------------------------------------------------------------------------- guarducci


def test_guarducci_seven_is_glass_on_a_pile() -> None:
    """guarducci: a 7 goes on anything and is transparent: after A, 7 the ace must be beaten."""
    g = table("guarducci", hands={1: "Ac Kh As", 0: "7d 4d 5d"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"})
    act(g, "play Ac")
    act(g, "play 7d")
    assert view_for(g, 1)["to_beat"]["rank"] == "A"
    assert refused(g, "play Kh") == IllegalReason.DOES_NOT_BEAT
    act(g, "play As")


def test_guarducci_seven_on_empty_pile_counts_as_seven() -> None:
    """guarducci: a 7 on an empty pile counts as a 7 (a 6 may not follow, a 9 may)."""
    g = table("guarducci", hands={1: "7c Kh As", 0: "6d 9d 5d"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"})
    act(g, "play 7c")
    assert view_for(g, 0)["to_beat"]["rank"] == "7"
    assert refused(g, "play 6d") == IllegalReason.DOES_NOT_BEAT
    act(g, "play 9d")
    plain_glass = table(
        "classic", {"powers": {"7": ["glass"]}}, hands={1: "7c Kh As", 0: "6d 9d 5d"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"}
    )
    act(plain_glass, "play 7c")
    assert "play 6d" in legal_texts(plain_glass)  # glass_on_empty: any (the default)


def test_guarducci_ten_may_not_follow_eight() -> None:
    """guarducci: after an 8 only 8 or lower or a joker; a 10 may not follow an 8."""
    g = table("guarducci", hands={1: "8c Kh As", 0: "Td 5d Xr"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"})
    act(g, "play 8c")
    assert refused(g, "play Td") == IllegalReason.DOES_NOT_BEAT
    assert {"play 5d", "play Xr"} <= legal_texts(g)
    classic = table("classic", {"jokers": 2}, hands={1: "8c Kh As", 0: "Td 5d Xr"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"})
    act(classic, "play 8c")
    assert "play Td" in legal_texts(classic) and "play 5d" not in legal_texts(classic)


def test_guarducci_jokers_skip() -> None:
    """guarducci: a joker goes on anything and the next player misses a turn (3 players)."""
    g = table(
        "guarducci",
        seats=3,
        hands={1: "Ac 4s 5s", 2: "Xr 4d 5d", 0: "Kc 5c 6c"},
        up={1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Kh Ks Kd"},
    )
    assert g.rules.jokers == 2
    act(g, "play Ac")
    ev = act(g, "play Xr")
    assert ("skipped", 0) in ev and g.current == 1


def test_guarducci_joker_two_players_plays_again_any_card() -> None:
    """guarducci: with two players a joker means its player plays again, any card may follow."""
    g = table("guarducci", hands={1: "Ac 4s 5s", 0: "Xr 4d 5d"}, up={1: "3c Qh Qs", 0: "Jh Js Jd"})
    act(g, "play Ac")
    act(g, "play Xr")
    assert g.current == 0 and "play 4d" in legal_texts(g)


def test_guarducci_suit_runs_and_previous_leads_after_pickup() -> None:
    """guarducci: suit runs are allowed, and after a pick-up the previous player leads."""
    g = table(
        "guarducci",
        seats=3,
        hands={1: "4s 5s 6s", 2: "Kd 4d 5d", 0: "4c 5c 6c"},
        up={1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Kc Kh Ks"},
    )
    act(g, "run 4s 5s 6s")
    act(g, "play Kd")
    act(g, "take")
    assert g.current == 2


# ----------------------------------------------------------------------------- egilsson


def test_egilsson_five_on_king_next_below_five() -> None:
    """egilsson: a 5 goes on a K; the next play must be below 5 (not a 5, 6 or 10)."""
    g = table(
        "egilsson",
        {"hand": 4},
        hands={1: "Kc 4h 5h Th", 0: "5d 9d Jd Qd"},
        up={1: "3c Qh Qs", 0: "Ac Ah As"},
        stock="6h 7h",
    )
    act(g, "play Kc")  # seat 1 draws the 6h
    act(g, "play 5d")
    assert view_for(g, 1)["to_beat"] == {"rule": "below", "rank": "5", "also": [], "min_cards": 1}
    legal = legal_texts(g)
    assert "play 4h" in legal and "gamble" in legal
    for bad in ("play 5h", "play 6h", "play Th"):
        assert refused(g, bad) == IllegalReason.DOES_NOT_BEAT
    classic = table(hands={1: "Kc 4h 5h", 0: "5d 9d Jd"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(classic, "play Kc")
    assert refused(classic, "play 5d") == IllegalReason.DOES_NOT_BEAT


def test_egilsson_stock_gamble() -> None:
    """egilsson: a seat may turn over the top stock card instead of playing from the hand."""
    g = table("egilsson", hands={1: "Kc 4h 5h", 0: "9d 6d Jd"}, up={1: "3c Qh Qs", 0: "Ac Ah As"}, stock="6h Ad")
    act(g, "play Kc")
    ev = act(g, "gamble")
    assert ev[0] == ("gambled", 0, cards("Ad")[0]) and ev[1][0] == "played"


# ----------------------------------------------------------------------------- wikibooks


def _wikibooks_ready(seats: int = 2) -> Game:
    """Wikibooks deal (8 in hand), each seat places its last three cards face up and readies."""
    g = deal("wikibooks", seats, hands={1: cards("4h 9c Jc Ks Kd Qc Qd 5c"), 0: cards("6h 6d 7c 8c 9h Ac Ad As")})
    for s in (1, 0):
        assert len(g.hand(s)) == 8 and not any(g.face_up[s])
        assert refused(g, "ready", s) == IllegalReason.SETUP_INCOMPLETE
        hand = g.hand(s)
        for i, c in enumerate(hand[-3:]):
            g.apply(s, ("place", c, i))
        act(g, "ready", s)
    return g


def test_wikibooks_rules_summary() -> None:
    """wikibooks: two decks, choose 3 of 8 face up, refill to 3, five burn, German house rules."""
    r = make_rules("wikibooks")
    assert (r.decks, r.deal_style, r.face_down, r.face_up, r.hand, r.refill_to) == (2, "choose", 3, 3, 5, 3)
    assert r.draw_before_play and not r.ten_anywhere and r.burn_count == 5 and not r.voluntary_pickup
    assert (r.faceup_fail, r.opening, r.next_dealer) == ("leave", "announce", "loser")
    assert make_rules("wikibooks", {"jokers": 2}).powers_of(JOKER) == ()


def test_wikibooks_announced_card_must_be_played() -> None:
    """wikibooks: the announced opening card must be in the first play (MUST_PLAY_ANNOUNCED)."""
    g = _wikibooks_ready()
    assert g.phase == "announce" and g.current == 1
    assert names(g.hand(1)) == ["4h", "5c", "9c", "Jc", "Qc"]
    act(g, "announce 4h")
    act(g, "pass")
    assert g.phase == "play" and g.current == 1
    assert view_for(g, 0)["must_play"] == "4h"
    assert legal_texts(g) == {"play 4h"}  # no draw before the announced card
    assert refused(g, "play 9c") == IllegalReason.MUST_PLAY_ANNOUNCED
    assert refused(g, "draw") == IllegalReason.MUST_PLAY_ANNOUNCED
    act(g, "play 4h")
    assert g.current == 0 and view_for(g, 0)["must_play"] is None


def test_wikibooks_ten_not_on_jack_and_no_voluntary_pickup() -> None:
    """wikibooks: a 10 may not go on a J, and a seat that can play may not pick up."""
    g = _wikibooks_ready()
    act(g, "pass")
    act(g, "pass")
    # all passed: C5 (seat 1 holds the lowest card in hand, a 4)
    assert g.current == 1
    act(g, "play Jc")
    hand0 = names(g.hand(0))
    assert hand0 == ["6d", "6h", "7c", "8c", "9h"]
    assert legal_texts(g) == {"take"}
    g2 = deal("wikibooks", 2, hands={1: cards("4h 9c Jc Ks Kd Qc Qd 5c"), 0: cards("Th 6d 7c Qh 9h Ac Ad As")})
    for s in (1, 0):
        for i, c in enumerate(g2.hand(s)[-3:]):
            g2.apply(s, ("place", c, i))
        act(g2, "ready", s)
    act(g2, "pass")
    act(g2, "pass")
    act(g2, "play Jc")
    assert refused(g2, "play Th") == IllegalReason.DOES_NOT_BEAT
    assert refused(g2, "take") == IllegalReason.MUST_PLAY
    act(g2, "play Qh")


# ----------------------------------------------------------------------------- linz


def test_linz_four_fives_with_an_eight_between_burn() -> None:
    """linz: 5 5, then an (invisible) 8, then 5 5: four 5s counted through the 8 burn."""
    g = table("linz", hands={1: "5c 5d 5h 5s Kd", 0: "8c 9c 9d Jc Qc"}, up={1: "3c Qh Qs", 0: "Kh Ks Ac"})
    assert dealt_sizes(g, 1) == (3, 3, 5)
    act(g, "play 5c 5d")
    act(g, "play 8c")
    assert view_for(g, 1)["to_beat"]["rank"] == "5"
    ev = act(g, "play 5h 5s")
    assert ("burned", 1, 5) in ev and g.current == 1
    classic = table(
        "classic", {"hand": 5}, hands={1: "5c 5d 5h 5s Kd", 0: "8c 9c 9d Jc Qc"}, up={1: "3c Qh Qs", 0: "Kh Ks Ac"}
    )
    act(classic, "play 5c 5d")
    act(classic, "play 8c")
    assert refused(classic, "play 5h 5s") == IllegalReason.DOES_NOT_BEAT


def test_linz_seven_lower_allows_eight_and_ten() -> None:
    """linz: after a 7 only 7 or lower, an 8 or a 10; and a seat that can play may not pick up."""
    g = table("linz", hands={1: "7c 5d 6d 9s Kd", 0: "8c 9c Td Jc 4c"}, up={1: "3c Qh Qs", 0: "Kh Ks Ac"})
    act(g, "play 7c")
    legal = legal_texts(g)
    assert {"play 8c", "play Td", "play 4c"} <= legal
    assert "play 9c" not in legal and "play Jc" not in legal and "take" not in legal
    assert refused(g, "take") == IllegalReason.MUST_PLAY
    r = make_rules("linz")
    assert (r.refill_to, r.draw_before_play, r.faceup_fail, r.jokers, r.burn_count) == (5, True, "leave", 0, 4)


# ----------------------------------------------------------------------------- draw_before_play


@pytest.mark.parametrize("preset", ["wikibooks", "linz"])
def test_draw_before_play_with_exactly_refill_to_cards_and_nothing_to_play(preset: str) -> None:
    """draw_before_play (wikibooks, linz): a hand of exactly ``refill_to`` cards may draw even
    when none of them can be played: the drawn card may be the play that brings the hand back
    to ``refill_to``. A drawn card that does not help leaves the pick-up, and no second draw.
    (The preset's rules, dealt as in classic so that the test gives every hand.)"""
    refill = make_rules(preset).refill_to
    starter = " ".join(["3h", "Kd", *"Qd Qh Qs".split()][:refill])
    stuck = " ".join("4c 5c 6c 9c Jc".split()[:refill])  # nothing that goes on a king
    for drawn, after in (("Ah", {"play Ah"}), ("6h", {"take"})):  # (no voluntary pick-up in either)
        g = table(
            preset,
            {"deal_style": "classic", "hand": refill, "decks": 1},
            hands={1: starter, 0: stuck},
            up={1: "7h 7d 7s", 0: "Kh Ks Kc"},
            stock=f"5s {drawn} 3s",
        )
        while g.phase == "announce":  # wikibooks: nobody announces an opening card
            act(g, "pass")
        assert g.current == 1  # the 3h
        act(g, "play Kd")  # seat 1 draws the 5s
        assert g.current == 0 and len(g.hand(0)) == refill
        assert "draw" in legal_texts(g)  # refused before: no play existed yet
        assert act(g, "draw") == [("drew", 0, 1)]
        assert drawn in names(g.hand(0)) and len(g.hand(0)) == refill + 1
        assert legal_texts(g) == after
        if drawn == "Ah":
            act(g, "play Ah")
            assert len(g.hand(0)) == refill
