"""Every option of docs/RULES.md §3: one or more scenarios showing where it differs from classic.

Each test names its option. Deals are stacked (``stack_deck``) so nothing depends on luck.
With dealer 0 the deal starts at seat 1, and seat 1 gets the 3c face up, so seat 1 opens (C5)
unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import (
    Game,
    IllegalReason,
    Series,
    make_rules,
    stack_deck,
    view_for,
)
from server.engine.cards import JOKER

from .helpers import act, all_cards, cards, deal, kinds, legal_texts, names, refused, start, strip, table

# ----------------------------------------------------------------------------- decks, jokers


def test_decks_two_deals_104_cards_and_identical_cards_play_together() -> None:
    """decks: 2 gives 104 cards; two copies of the same card are one legal play (a multiset)."""
    assert make_rules().deck_size() == 52
    g = table({"decks": 2}, hands={1: "7h 7h 7d", 0: "9c 9d 9h"}, up={1: "3c Ks Kh", 0: "Kd Kc Qs"})
    assert len(all_cards(g)) == 104
    plays = [a for a in g.legal_actions(1) if a[0] == "play"]
    assert plays.count(("play", tuple(cards("7h 7h")))) == 1
    assert ("play", tuple(sorted(cards("7h 7h 7d")))) in plays
    act(g, "play 7h 7h")
    assert names(g.pile) == ["7h", "7h"]


def test_decks_classic_single_deck_has_no_duplicates() -> None:
    """decks: 1 (classic) holds each card once, so a deal may not ask for 7h twice."""
    with pytest.raises(ValueError):
        stack_deck(make_rules(), 2, 0, hands={1: cards("7h 7h")})


def test_jokers_added_to_deck_and_played_only_with_jokers() -> None:
    """jokers: 2 adds Xr and Xb; a play of jokers holds only jokers (beats an ace: no power)."""
    rules = make_rules("classic", {"jokers": 2})
    assert rules.deck_size() == 54
    assert sum(1 for c in Game.new(rules, 2, seed=3).deck if c >> 2 == JOKER) == 2
    assert make_rules().jokers == 0
    g = table({"jokers": 2}, hands={1: "Ac 4d 5d", 0: "Xr Xb Ad"}, up={1: "3c Ks Kh", 0: "Kd Kc Qs"})
    act(g, "play Ac")
    legal = legal_texts(g)
    assert {"play Xr", "play Xb", "play Xr Xb"} <= legal
    assert refused(g, "play Xr Ad") == IllegalReason.MIXED_RANKS
    act(g, "play Xr Xb")
    assert g.current == 1 and names(g.pile) == ["Ac", "Xr", "Xb"]


# ----------------------------------------------------------------------------- deal sizes


@pytest.mark.parametrize("fd,fu,hd", [(4, 5, 2), (0, 0, 6), (5, 2, 1)])
def test_face_down_face_up_hand_deal_sizes(fd: int, fu: int, hd: int) -> None:
    """face_down/face_up/hand set how many cards each seat is dealt (classic 3/3/3)."""
    rules = make_rules("classic", {"face_down": fd, "face_up": fu, "hand": hd})
    g = Game.new(rules, 3, seed=11)
    for s in range(3):
        assert len(g.face_down[s]) == fd
        assert sum(len(st) for st in g.face_up[s]) == fu
        assert len(g.hand(s)) == hd
    assert len(g.stock) == 52 - 3 * (fd + fu + hd)
    assert rules.refill_to == hd  # refill_to follows hand unless set
    classic = Game.new(make_rules(), 3, seed=11)
    assert [len(classic.face_down[0]), len(classic.face_up[0]), len(classic.hand(0))] == [3, 3, 3]


def test_refill_to_lower_than_hand_keeps_only_three() -> None:
    """refill_to: 3 with a hand of 5: no draw down to 3 cards, then top up to 3 (not 5)."""
    opts = {"hand": 5, "refill_to": 3}
    g = table(opts, hands={1: "9c Jc Jd Kc Kd", 0: "9d Qc Qd Ac Ad"}, up={1: "3c 4s 4h", 0: "5s 5h 6s"})
    ev = act(g, "play 9c")
    assert "drew" not in kinds(ev) and len(g.hand(1)) == 4
    act(g, "play 9d")
    ev = act(g, "play Jc Jd")
    assert ("drew", 1, 1) in ev and len(g.hand(1)) == 3
    # classic: refill_to follows hand, so the hand is kept at five
    g = table({"hand": 5}, hands={1: "9c Jc Jd Kc Kd", 0: "9d Qc Qd Ac Ad"}, up={1: "3c 4s 4h", 0: "5s 5h 6s"})
    ev = act(g, "play 9c")
    assert ("drew", 1, 1) in ev and len(g.hand(1)) == 5


# ----------------------------------------------------------------------------- deal_style


def test_deal_style_choose_place_cards_then_ready() -> None:
    """deal_style: choose deals no face-up cards; ready is refused until every slot is filled."""
    g = deal(
        "classic", 2, {"deal_style": "choose"}, hands={1: cards("3c 5d 7h 9s Jc Kd"), 0: cards("4c 6d 8h Ts Qc Ad")}
    )
    assert g.phase == "setup"
    assert g.face_up == [[[], [], []], [[], [], []]]
    assert len(g.hand(1)) == 6 and len(g.hand(0)) == 6
    assert refused(g, "ready", 1) == IllegalReason.SETUP_INCOMPLETE
    assert refused(g, "swap 5d 0", 1) == IllegalReason.NOT_ALLOWED  # nothing to swap on an empty slot
    act(g, "place 9s 0", 1)
    act(g, "place Jc 1", 1)
    assert refused(g, "ready", 1) == IllegalReason.SETUP_INCOMPLETE
    act(g, "place Kd 2", 1)
    act(g, "swap 7h 0", 1)  # a placed card may be swapped back
    assert names([st[0] for st in g.face_up[1]]) == ["7h", "Jc", "Kd"]
    assert names(g.hand(1)) == ["3c", "5d", "9s"]
    act(g, "ready", 1)
    for i, c in enumerate(["Ts", "Qc", "Ad"]):
        act(g, f"place {c} {i}", 0)
    act(g, "ready", 0)
    assert g.phase == "play" and g.current == 1  # seat 1 holds the 3c in hand


def test_deal_style_classic_deals_face_up_cards() -> None:
    """deal_style: classic deals the face-up row, so ready is accepted at once."""
    g = deal("classic", 2)
    assert all(len(st) == 1 for st in g.face_up[0])
    act(g, "ready", 0)
    assert g.ready[0]


# ----------------------------------------------------------------------------- draw_before_play


def test_draw_before_play_draw_then_play_leaves_at_most_refill_to() -> None:
    """draw_before_play: draw one at a time, then the play must leave at most refill_to cards."""
    g = table(
        {"draw_before_play": True},
        hands={1: "6c 6d As", 0: "Kc Kd Ks"},
        up={1: "3c Jh Js", 0: "Qh Qs Qd"},
        stock="3h 8d 4c",
    )
    assert g.current == 1
    assert "draw" in legal_texts(g)
    assert act(g, "draw") == [("drew", 1, 1)]
    assert names(g.hand(1)) == ["3h", "6c", "6d", "As"]
    assert {"play 3h", "play 6c 6d", "draw"} <= legal_texts(g)  # a pair would still leave 3
    act(g, "draw")
    assert names(g.hand(1)) == ["3h", "6c", "6d", "8d", "As"]
    assert legal_texts(g) == {"play 6c 6d"}  # only a pair leaves at most 3
    assert refused(g, "play 3h") == IllegalReason.HAND_TOO_LARGE
    assert refused(g, "draw") == IllegalReason.HAND_TOO_LARGE
    ev = act(g, "play 6c 6d")
    assert "drew" not in kinds(ev) and len(g.hand(1)) == 3


def test_draw_before_play_no_draw_with_hand_above_refill_to() -> None:
    """draw_before_play: a seat whose hand is above refill_to at the start of its turn may not draw."""
    g = table(
        {"draw_before_play": True},
        hands={1: "6c 6d As", 0: "4c 4d 4h"},
        up={1: "3c Jh Js", 0: "Qh Qs Qd"},
        stock="3h 8d 4s",
    )
    act(g, "play 6c 6d")
    act(g, "take")  # seat 0 now holds five cards
    act(g, "play 3h")
    assert g.current == 0 and len(g.hand(0)) == 5
    assert "draw" not in legal_texts(g)
    assert refused(g, "draw") == IllegalReason.HAND_TOO_LARGE


def test_draw_before_play_off_in_classic() -> None:
    """draw_before_play: false (classic) offers no draw; 'draw' is refused with OPTION_OFF."""
    g = table(hands={1: "6c 6d As", 0: "Kc Kd Ks"}, up={1: "3c Jh Js", 0: "Qh Qs Qd"})
    assert "draw" not in legal_texts(g)
    assert refused(g, "draw") == IllegalReason.OPTION_OFF


# ----------------------------------------------------------------------------- opening


OPEN_CARDS = {
    "hands": {1: "5h 5d 6s", 2: "5c 8c 8d", 0: "3d 9d Ac"},
    "up": {1: "Jh Js Qh", 2: "Kh Ks Qs", 0: "Jd Kd Qd"},
}


def test_opening_threes_classic_lowest_rank_holder_opens() -> None:
    """opening: threes (classic): C5 picks seat 0, who holds the only 3 in hand."""
    g = table(seats=3, **OPEN_CARDS)
    assert g.phase == "play" and g.current == 0


def test_opening_announce_lowest_announced_opens_tie_to_earlier() -> None:
    """opening: announce: the lowest announced card opens (ties to the earlier announcer) and must be played."""
    g = table({"opening": "announce"}, seats=3, **OPEN_CARDS)
    assert g.phase == "announce" and g.current == 1  # the dealer's left announces first
    assert refused(g, "announce 5c", 2) == IllegalReason.NOT_YOUR_TURN
    assert act(g, "announce 5h") == [("announced", 1, cards("5h")[0])]
    act(g, "announce 5c")  # same rank, later: loses the tie
    ev = act(g, "announce 9d")  # seat 0 keeps its 3 secret
    assert ("first_player", 1, cards("5h")[0]) in ev
    assert g.phase == "play" and g.current == 1
    assert legal_texts(g) == {"play 5h", "play 5d 5h"}
    assert refused(g, "play 6s") == IllegalReason.MUST_PLAY_ANNOUNCED
    assert refused(g, "play 5d") == IllegalReason.MUST_PLAY_ANNOUNCED
    act(g, "play 5h")
    assert g.current == 2 and "play 5c" in legal_texts(g)


def test_opening_announce_lower_later_announcement_wins() -> None:
    """opening: announce: a lower card announced later beats an earlier higher one."""
    g = table({"opening": "announce"}, seats=3, **OPEN_CARDS)
    act(g, "announce 6s")
    act(g, "announce 5c")
    act(g, "pass")
    assert g.current == 2 and legal_texts(g) == {"play 5c"}


def test_opening_announce_all_pass_falls_back_to_threes() -> None:
    """opening: announce with every seat passing falls back to C5."""
    g = table({"opening": "announce"}, seats=3, **OPEN_CARDS)
    for _ in range(3):
        act(g, "pass")
    assert g.phase == "play" and g.current == 0


# ----------------------------------------------------------------------------- ten_anywhere


def test_ten_anywhere_false_ten_not_on_jack() -> None:
    """ten_anywhere: false: a 10 is not legal on a J (but still burns on a 9)."""
    g = table({"ten_anywhere": False}, hands={1: "Jc 9c 4d", 0: "Td Qd 5d"}, up={1: "3c Kh Ks", 0: "Kd Kc Qs"})
    act(g, "play Jc")
    assert "play Td" not in legal_texts(g)
    assert refused(g, "play Td") == IllegalReason.DOES_NOT_BEAT
    act(g, "play Qd")
    g2 = table({"ten_anywhere": False}, hands={1: "9c Jc 4d", 0: "Td Qd 5d"}, up={1: "3c Kh Ks", 0: "Kd Kc Qs"})
    act(g2, "play 9c")
    assert "burned" in kinds(act(g2, "play Td"))


def test_ten_anywhere_true_classic_ten_on_jack_burns() -> None:
    """ten_anywhere: true (classic): a 10 goes on a J and burns."""
    g = table(hands={1: "Jc 9c 4d", 0: "Td Qd 5d"}, up={1: "3c Kh Ks", 0: "Kd Kc Qs"})
    act(g, "play Jc")
    ev = act(g, "play Td")
    assert "burned" in kinds(ev) and g.current == 0


# ----------------------------------------------------------------------------- burn_count

BURN_CARDS = {"hands": {1: "7c 7d 9s", 0: "7h 7s Kd"}, "up": {1: "3c Qh Qs", 0: "Kc Kh Ks"}}


def test_burn_count_classic_four_burn() -> None:
    """burn_count: 4 (classic): four 7s completed by the second player burn."""
    g = table(**BURN_CARDS)
    act(g, "play 7c 7d")
    ev = act(g, "play 7h 7s")
    assert ("burned", 0, 4) in ev and g.current == 0 and g.pile == []


def test_burn_count_five_four_equal_do_not_burn_five_do() -> None:
    """burn_count: 5 (two decks): four equal cards do not burn, a fifth does."""
    g = table({"decks": 2, "burn_count": 5}, hands={1: "7c 7d 7c", 0: "7h 7s Kd"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 7c 7d")  # plays one of the two 7c
    ev = act(g, "play 7h 7s")
    assert "burned" not in kinds(ev) and len(g.pile) == 4 and g.current == 1
    ev = act(g, "play 7c")
    assert ("burned", 1, 5) in ev and g.current == 1


def test_burn_count_zero_no_burn_by_count() -> None:
    """burn_count: 0: four equal cards in a row stay on the pile; a 10 still burns."""
    g = table({"burn_count": 0}, hands={1: "7c 7d 9s", 0: "7h 7s Td"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 7c 7d")
    ev = act(g, "play 7h 7s")
    assert "burned" not in kinds(ev) and len(g.pile) == 4 and g.current == 1
    act(g, "play 9s")
    assert "burned" in kinds(act(g, "play Td"))


# ----------------------------------------------------------------------------- voluntary_pickup


def test_voluntary_pickup_false_take_refused_when_play_exists() -> None:
    """voluntary_pickup: false: 'take' is refused with MUST_PLAY while a play exists."""
    g = table({"voluntary_pickup": False}, hands={1: "5c 9s Ac", 0: "9c Kd 4h"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 5c")
    assert "take" not in legal_texts(g)
    assert refused(g, "take") == IllegalReason.MUST_PLAY


def test_voluntary_pickup_false_take_when_no_play() -> None:
    """voluntary_pickup: false: with no legal play, picking up is the only action."""
    g = table({"voluntary_pickup": False}, hands={1: "Ac 9s 5c", 0: "4h 5d 6s"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play Ac")
    assert legal_texts(g) == {"take"}
    act(g, "take")
    assert "Ac" in names(g.hand(0))


def test_voluntary_pickup_true_classic_take_with_play_available() -> None:
    """voluntary_pickup: true (classic): a seat that could play may still pick up (C11)."""
    g = table(hands={1: "5c 9s Ac", 0: "9c Kd 4h"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 5c")
    assert {"take", "play 9c"} <= legal_texts(g)
    act(g, "take")
    assert g.current == 1 and g.pile == []


# ----------------------------------------------------------------------------- faceup_fail


def _faceup_endgame(options: dict[str, Any] | None) -> Game:
    """Seat 1 plays a K; then seat 0 has no hand and the stock is empty (face-up 4c 5d 6h)."""
    g = table(options, hands={1: "Kc 9s 8s", 0: "Jd Qd Ad"}, up={1: "3c Qh Qs", 0: "4c 5d 6h"})
    act(g, "play Kc")
    strip(g, 0, hand=True, stock=True)
    assert g.source(0) == "face_up"
    return g


def test_faceup_fail_take_one_adds_a_face_up_card() -> None:
    """faceup_fail: take_one (classic C13): a stuck seat adds one face-up card to the pile and takes it all."""
    g = _faceup_endgame(None)
    assert legal_texts(g) == {"take 4c", "take 5d", "take 6h"}
    ev = act(g, "take 5d")
    assert ev[0] == ("took", 0, tuple(cards("Kc 5d")))
    assert names(g.hand(0)) == ["5d", "Kc"]
    assert [names(st) for st in g.face_up[0]] == [["4c"], [], ["6h"]]


def test_faceup_fail_leave_keeps_face_up_cards() -> None:
    """faceup_fail: leave: a stuck seat picks up only the pile; the face-up cards stay."""
    g = _faceup_endgame({"faceup_fail": "leave"})
    assert legal_texts(g) == {"take"}
    assert refused(g, "take 5d") == IllegalReason.NOT_ALLOWED
    ev = act(g, "take")
    assert ev[0] == ("took", 0, tuple(cards("Kc")))
    assert names(g.hand(0)) == ["Kc"]
    assert [names(st) for st in g.face_up[0]] == [["4c"], ["5d"], ["6h"]]


# ----------------------------------------------------------------------------- after_pickup


PICKUP_CARDS = {
    "hands": {1: "9c 4s 5s", 2: "Kd 4d 5d", 0: "4c 5c 6c"},
    "up": {1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Kc Kh Ks"},
}


def test_after_pickup_next_classic() -> None:
    """after_pickup: next (classic C11): after a pick-up the picker's left neighbour leads."""
    g = table(seats=3, **PICKUP_CARDS)
    act(g, "play 9c")
    act(g, "play Kd")
    act(g, "take")
    assert g.current == 1


def test_after_pickup_previous_last_player_leads() -> None:
    """after_pickup: previous: the seat that made the last play before the pick-up leads."""
    g = table({"after_pickup": "previous"}, seats=3, **PICKUP_CARDS)
    act(g, "play 9c")
    act(g, "play Kd")
    act(g, "take")
    assert g.current == 2 and g.pile == []


# ----------------------------------------------------------------------------- goal


# Four seats, no table cards and no stock (4 x 13 = 52): seat 1 burns three times and goes out.
GOAL_OPTS = {"face_down": 0, "face_up": 0, "hand": 13}
GOAL_HAND = {1: cards("3c 3d 3h 3s 4c 4d 4h 4s 5c 5d 5h 5s 6c")}


def _first_out(options: dict[str, Any]) -> tuple[Game, list]:
    g = start("classic", 4, options, hands=GOAL_HAND)
    assert g.current == 1 and not g.stock
    for play in ("play 3c 3d 3h 3s", "play 4c 4d 4h 4s", "play 5c 5d 5h 5s"):
        act(g, play)
    return g, act(g, "play 6c")


def test_goal_winner_ends_at_first_player_out() -> None:
    """goal: winner: the game ends when the first player goes out; that player is first."""
    g, ev = _first_out({**GOAL_OPTS, "goal": "winner"})
    assert ("out", 1, 1) in ev and ev[-1][0] == "game_over"
    assert g.is_over()
    out = g.outcome()
    assert out.places[0] == 1 and len(out.places) == 4 and not out.capped


def test_goal_loser_classic_continues_after_first_out() -> None:
    """goal: loser (classic C17): the game goes on after the first player goes out."""
    g, ev = _first_out(GOAL_OPTS)
    assert ("out", 1, 1) in ev and "game_over" not in kinds(ev)
    assert g.phase == "play" and g.current == 2 and g.outcome() is None


# ----------------------------------------------------------------------------- karma_stacking


def test_karma_stacking_setup_stack_refills_hand() -> None:
    """karma_stacking: an equal card placed on a face-up card stacks, and the hand is refilled."""
    g = deal(
        "classic",
        2,
        {"karma_stacking": True},
        hands={1: cards("9d 9h 5c"), 0: cards("Jc Jd Jh")},
        face_up={1: cards("9c Kd 4s"), 0: cards("Qc Qd Qh")},
        stock=cards("9s 6h 7h"),
    )
    assert ("place", cards("9d")[0], 0) in g.legal_actions(1)
    ev = act(g, "place 9d 0", 1)
    assert ev == [("placed", 1, cards("9d")[0], 0), ("drew", 1, 1)]
    assert names(g.hand(1)) == ["5c", "9h", "9s"]  # drew the 9s: it may be stacked in turn
    act(g, "place 9h 0", 1)
    act(g, "place 9s 0", 1)
    assert names(g.face_up[1][0]) == ["9c", "9d", "9h", "9s"]
    assert names(g.hand(1)) == ["5c", "6h", "7h"]
    assert refused(g, "place 5c 1", 1) == IllegalReason.NOT_ALLOWED  # only equal ranks stack


def test_karma_stacking_off_classic_no_stacking() -> None:
    """karma_stacking: false (classic): a card cannot be placed on an occupied face-up slot."""
    g = deal("classic", 2, hands={1: cards("9d 9h 5c")}, face_up={1: cards("9c Kd 4s")})
    assert not any(a[0] == "place" for a in g.legal_actions(1))
    assert refused(g, "place 9d 0", 1) == IllegalReason.NOT_ALLOWED


def test_karma_stacking_stack_is_played_whole() -> None:
    """karma_stacking: in the endgame a face-up stack is played as one group (STACK_SPLIT otherwise)."""
    g = deal(
        "classic",
        2,
        {"karma_stacking": True},
        hands={1: cards("9d 5c 6c"), 0: cards("Jc Jd Jh")},
        face_up={1: cards("9c Kd 4s"), 0: cards("Qc Qd Qh")},
        stock=cards("7h 7d"),
    )
    act(g, "place 9d 0", 1)
    act(g, "ready", 1)
    act(g, "ready", 0)
    assert g.current == 1  # the 4s face up is the lowest table card
    strip(g, 1, hand=True, stock=True)
    legal = legal_texts(g)
    assert "play 9c 9d" in legal and "play 9c" not in legal and "play 9d" not in legal
    assert refused(g, "play 9c") == IllegalReason.STACK_SPLIT
    act(g, "play 9c 9d")
    assert names(g.pile) == ["9c", "9d"] and g.face_up[1][0] == []


# ----------------------------------------------------------------------------- match_count


def test_match_count_single_refused_after_pair_but_two_and_ten_allowed() -> None:
    """match_count: after a pair a single is refused (TOO_FEW_CARDS), but a single 2 or 10 goes."""
    g = table(
        {"match_count": True, "hand": 4}, hands={1: "7c 7d 9s 9h", 0: "8c 8d 2c Td"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"}
    )
    act(g, "play 7c 7d")
    legal = legal_texts(g)
    assert {"play 8c 8d", "play 2c", "play Td"} <= legal
    assert "play 8c" not in legal
    assert refused(g, "play 8c") == IllegalReason.TOO_FEW_CARDS
    act(g, "play 2c")
    assert "play 9s" in legal_texts(g)  # after a single, no floor


def test_match_count_off_classic_single_after_pair() -> None:
    """match_count: false (classic): a single may follow a pair."""
    g = table({"hand": 4}, hands={1: "7c 7d 9s 9h", 0: "8c 8d 2c Td"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 7c 7d")
    assert "play 8c" in legal_texts(g)


# ----------------------------------------------------------------------------- pair_skip


def test_pair_skip_two_cards_skip_next_player() -> None:
    """pair_skip: a play of exactly two cards skips the next player."""
    g = table(
        {"pair_skip": True},
        seats=3,
        hands={1: "9c 9d 4s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"},
        up={1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kc Kh Ks"},
    )
    ev = act(g, "play 9c 9d")
    assert ("skipped", 2) in ev and g.current == 0
    ev = act(g, "play Qc")  # a single does not skip
    assert "skipped" not in kinds(ev) and g.current == 1


def test_pair_skip_off_classic_no_skip() -> None:
    """pair_skip: false (classic): a pair passes the turn to the next player."""
    g = table(
        seats=3, hands={1: "9c 9d 4s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}, up={1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kc Kh Ks"}
    )
    ev = act(g, "play 9c 9d")
    assert "skipped" not in kinds(ev) and g.current == 2


# ----------------------------------------------------------------------------- suit_runs


def test_suit_runs_legal_run_played() -> None:
    """suit_runs: an ascending run of one suit is a play; the next play must beat its top card."""
    g = table({"suit_runs": True}, hands={1: "5h 6h 7h", 0: "6c 8c 4d"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    assert {"run 5h 6h 7h", "run 5h 6h", "run 6h 7h"} <= legal_texts(g)
    ev = act(g, "run 5h 6h 7h")
    assert ev[0] == ("played", 1, tuple(cards("5h 6h 7h")), "hand")
    assert names(g.pile) == ["5h", "6h", "7h"]
    assert view_for(g, 0)["to_beat"]["rank"] == "7"
    assert legal_texts(g) == {"play 8c", "take"}


def test_suit_runs_run_cut_by_burn_refused() -> None:
    """suit_runs: a run with a burn inside is refused; the run ending at the 10 burns and plays again."""
    g = table({"suit_runs": True}, hands={1: "9h Th Jh", 0: "6c 8c 4d"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    legal = legal_texts(g)
    assert "run 9h Th Jh" not in legal and "run Th Jh" not in legal
    assert refused(g, "run 9h Th Jh") == IllegalReason.DOES_NOT_BEAT
    ev = act(g, "run 9h Th")
    assert "burned" in kinds(ev) and g.current == 1 and g.pile == []


def test_suit_runs_not_a_run_and_first_card_must_beat() -> None:
    """suit_runs: mixed suits are NOT_A_RUN; a run whose first card does not beat the pile is refused."""
    g = table({"suit_runs": True}, hands={1: "8c 4s 5h", 0: "5c 6c 7d"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    act(g, "play 8c")
    assert refused(g, "run 5c 6c 7d") == IllegalReason.NOT_A_RUN
    assert refused(g, "run 5c 6c") == IllegalReason.DOES_NOT_BEAT


def test_suit_runs_off_classic() -> None:
    """suit_runs: false (classic): runs are not offered and are refused with OPTION_OFF."""
    g = table(hands={1: "5h 6h 7h", 0: "6c 8c 4d"}, up={1: "3c Qh Qs", 0: "Kc Kh Ks"})
    assert not any(a[0] == "run" for a in g.legal_actions(1))
    assert refused(g, "run 5h 6h 7h") == IllegalReason.OPTION_OFF


# ----------------------------------------------------------------------------- stock_gamble


GAMBLE_CARDS = {"hands": {1: "9c 5d 6h", 0: "4c 4d 4h"}, "up": {1: "3c Ks Kh", 0: "Kd Kc As"}}


def test_stock_gamble_legal_stock_card_is_played() -> None:
    """stock_gamble: a legal top stock card is played (source 'stock'), the hand untouched."""
    g = table({"stock_gamble": True}, stock="5s Jd", **GAMBLE_CARDS)
    act(g, "play 9c")  # seat 1 draws the 5s
    assert "gamble" in legal_texts(g)
    ev = act(g, "gamble")
    jd = cards("Jd")[0]
    assert ev[:2] == [("gambled", 0, jd), ("played", 0, (jd,), "stock")]
    assert names(g.pile) == ["9c", "Jd"] and names(g.hand(0)) == ["4c", "4d", "4h"]
    assert g.current == 1


def test_stock_gamble_illegal_stock_card_picked_up_with_pile() -> None:
    """stock_gamble: an illegal top stock card is picked up together with the pile."""
    g = table({"stock_gamble": True}, stock="5s 6d", **GAMBLE_CARDS)
    act(g, "play 9c")
    ev = act(g, "gamble")
    assert ev[0] == ("gambled", 0, cards("6d")[0])
    assert ev[1] == ("took", 0, tuple(cards("9c 6d")))
    assert g.pile == [] and names(g.hand(0)) == ["4c", "4d", "4h", "6d", "9c"]
    assert g.current == 1


def test_stock_gamble_off_classic() -> None:
    """stock_gamble: false (classic): 'gamble' is not offered and refused with OPTION_OFF."""
    g = table(stock="5s Jd", **GAMBLE_CARDS)
    act(g, "play 9c")
    assert "gamble" not in legal_texts(g)
    assert refused(g, "gamble") == IllegalReason.OPTION_OFF


# ----------------------------------------------------------------------------- powers


POWER_CARDS = {"hands": {1: "Kc 3h 9c", 0: "5d 9d Jd"}, "up": {1: "3c Qh Qs", 0: "Ac Ah As"}}


def test_powers_classic_default_two_reset_ten_burn() -> None:
    """powers: classic is {2: reset, 10: burn}; taking the 2's power away makes it a plain low card."""
    rules = make_rules()
    assert rules.powers_of(2) == ("reset",) and rules.powers_of(10) == ("burn",)
    g = table({"powers": {"2": []}}, hands={1: "Kc 3h 9c", 0: "2d 9d Jd"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(g, "play Kc")
    assert refused(g, "play 2d") == IllegalReason.DOES_NOT_BEAT


def test_powers_reset_on_another_rank() -> None:
    """powers reset: a 5 with reset goes on a K, and a 3 may follow it."""
    g = table({"powers": {"5": ["reset"]}}, **POWER_CARDS)
    act(g, "play Kc")
    act(g, "play 5d")
    assert view_for(g, 1)["to_beat"]["rule"] == "any"
    act(g, "play 3h")
    classic = table(**POWER_CARDS)
    act(classic, "play Kc")
    assert refused(classic, "play 5d") == IllegalReason.DOES_NOT_BEAT


def test_powers_burn_on_another_rank() -> None:
    """powers burn: a 9 with burn burns the pile and its player plays again."""
    g = table({"powers": {"9": ["burn"]}}, **POWER_CARDS)
    ev = act(g, "play 9c")
    assert ("burned", 1, 1) in ev and g.current == 1 and g.pile == []
    classic = table(**POWER_CARDS)
    assert "burned" not in kinds(act(classic, "play 9c")) and classic.current == 0


def test_powers_lower_next_at_most_that_rank() -> None:
    """powers lower: after a 9 only a 9 or lower may follow (a J may not)."""
    g = table({"powers": {"9": ["lower"]}}, **POWER_CARDS)
    act(g, "play 9c")
    assert view_for(g, 0)["to_beat"] == {"rule": "at_most", "rank": "9", "also": [], "min_cards": 1}
    assert {"play 9d", "play 5d"} <= legal_texts(g)
    assert refused(g, "play Jd") == IllegalReason.DOES_NOT_BEAT


def test_powers_lower_strict_next_strictly_lower() -> None:
    """powers lower_strict: after a 9 only lower ranks follow; another 9 is refused."""
    g = table({"powers": {"9": ["lower_strict"]}}, **POWER_CARDS)
    act(g, "play 9c")
    assert refused(g, "play 9d") == IllegalReason.DOES_NOT_BEAT
    assert refused(g, "play Jd") == IllegalReason.DOES_NOT_BEAT
    act(g, "play 5d")


def test_powers_glass_transparent_and_beaten_by_anything_on_empty() -> None:
    """powers glass: a glass 5 goes on a K and the K must still be beaten; alone on an empty pile anything beats it."""
    g = table({"powers": {"5": ["glass"]}}, hands={1: "Kc 3h Qc", 0: "5d 9d Ad"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(g, "play Kc")
    act(g, "play 5d")
    assert view_for(g, 1)["to_beat"]["rank"] == "K"
    assert refused(g, "play Qc") == IllegalReason.DOES_NOT_BEAT
    g = table({"powers": {"5": ["glass"]}}, hands={1: "5c 3h Qc", 0: "3d 9d Ad"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(g, "play 5c")
    assert "play 3d" in legal_texts(g)


def test_powers_glass_keeps_burn_run() -> None:
    """powers glass: glass cards do not break a run of equal cards for burn_count."""
    g = table({"powers": {"5": ["glass"]}}, hands={1: "7c 7d 5c", 0: "5d 7h 7s"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(g, "play 7c 7d")
    act(g, "play 5d")
    ev = act(g, "play 5c")
    assert "burned" not in kinds(ev)
    ev = act(g, "play 7h 7s")
    assert ("burned", 0, 6) in ev


def test_powers_reverse_changes_direction() -> None:
    """powers reverse: with three players a reverse card sends the turn back the other way."""
    spec = {
        "seats": 3,
        "hands": {1: "9c 4s 5s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"},
        "up": {1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kc Kh Ks"},
    }
    g = table({"powers": {"9": ["reverse"]}}, **spec)
    ev = act(g, "play 9c")
    assert ("reversed", 1, -1) in ev and g.direction == -1 and g.current == 0
    act(g, "play Qc")
    assert g.current == 2
    classic = table(**spec)
    act(classic, "play 9c")
    assert classic.current == 2 and classic.direction == 1


def test_powers_reverse_two_players_changes_nothing() -> None:
    """powers reverse: with two players the other player still plays next."""
    g = table({"powers": {"9": ["reverse"]}}, **POWER_CARDS)
    act(g, "play 9c")
    assert g.current == 0


def test_powers_skip_next_player_misses_turn() -> None:
    """powers skip: the next player misses a turn; with two players the same one plays again."""
    spec = {"hands": {1: "9c 4s 5s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}, "up": {1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kc Kh Ks"}}
    g = table({"powers": {"9": ["skip"]}}, seats=3, **spec)
    ev = act(g, "play 9c")
    assert ("skipped", 2) in ev and g.current == 0
    g2 = table({"powers": {"9": ["skip"]}}, **POWER_CARDS)
    act(g2, "play 9c")
    assert g2.current == 1


def test_powers_several_on_one_rank() -> None:
    """powers: a rank may hold several powers (9: glass and skip)."""
    g = table(
        {"powers": {"9": ["glass", "skip"]}},
        seats=3,
        hands={1: "Kc 4s 5s", 2: "9d 4d 5d", 0: "Qc 5c Ac"},
        up={1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kh Ks 6c"},
    )
    act(g, "play Kc")
    ev = act(g, "play 9d")
    assert ("skipped", 0) in ev and g.current == 1
    assert view_for(g, 1)["to_beat"]["rank"] == "K"


# ----------------------------------------------------------------------------- next_dealer


def _series_loser(next_dealer: str) -> tuple[Series, int]:
    """Three seats, dealer 0: seat 1 plays a K, seat 2 picks it up, the game is capped (5 actions)."""
    rules = make_rules("classic", {"next_dealer": next_dealer, "max_actions": 5})
    series = Series(rules, 3, seed=1, first_dealer=0)
    deck = stack_deck(
        rules,
        3,
        0,
        hands={1: cards("Kc 5d 6d"), 2: cards("4c 4d 4h"), 0: cards("8c 8d 8h")},
        face_up={1: cards("3c Qh Qs"), 2: cards("Jh Js Jd"), 0: cards("Ac Ah As")},
    )
    g = series.start_game(deck)
    for s in range(3):
        act(g, "ready", s)
    act(g, "play Kc")
    act(g, "take")
    assert g.is_over() and g.outcome().loser == 2
    series.finish_game()
    return series, g.outcome().loser


def test_next_dealer_rotate_classic() -> None:
    """next_dealer: rotate (classic C2): the deal passes clockwise after each game."""
    series, _ = _series_loser("rotate")
    assert series.dealer == 1


def test_next_dealer_loser_deals_next() -> None:
    """next_dealer: loser: the loser of the last game deals the next one."""
    series, loser = _series_loser("loser")
    assert series.dealer == loser == 2
    assert series.start_game().dealer == 2


# ----------------------------------------------------------------------------- max_actions


def test_max_actions_caps_the_game() -> None:
    """max_actions: the game ends at the cap; seats are placed by cards held, the record says capped."""
    g = table({"max_actions": 5}, hands={1: "Kc 5d 6d", 0: "4c 4d 4h"}, up={1: "3c Qh Qs", 0: "Ac Ah As"})
    act(g, "play Kc")  # actions 1, 2 were the readies
    act(g, "take")
    assert not g.is_over() and g.current == 1
    ev = act(g, "play 5d")
    assert ev[-1][0] == "game_over" and ev[-1][4] is True
    out = g.outcome()
    assert out.capped and out.places == (1, 0) and out.loser == 0  # seat 0 holds more cards
    assert g.legal_actions(0) == () and g.legal_actions(1) == ()
    assert make_rules().max_actions == 5000
