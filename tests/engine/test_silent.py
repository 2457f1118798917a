"""docs/RULES.md, "Where the sources are silent": one test per decision S1-S11.

Each test deals chosen cards (``stack_deck``), plays the actions of the situation and checks
the result the decision gives; where a table option offers the other reading, the same deal
is played under it too. With dealer 0 the deal starts at seat 1, and seat 1 gets the 3c face
up, so seat 1 opens (C5) unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from server.engine import IllegalReason

from .helpers import act, cards, deal, kinds, legal_texts, names, refused, strip, table

THREE = {
    "seats": 3,
    "hands": {1: "9c 9d 4s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"},
    "up": {1: "3c Qh Qs", 2: "Jh Js Kd", 0: "Kc Kh Ks"},
}
"""Three seats: seat 1 opens holding a pair of 9s; then seat 2, then seat 0."""


# ----------------------------------------------------------------------------- S1 reverses


def test_s1_several_reverse_cards_reverse_once_unless_reverse_per_card() -> None:
    """S1: a pair of reverse cards reverses the direction once; under reverse_per_card each card
    reverses, so a pair cancels out (one 'reversed' event per card) and a triple reverses."""
    reverse9 = {"powers": {"9": ["reverse"]}}
    g = table(reverse9, **THREE)
    ev = act(g, "play 9c 9d")
    assert [e for e in ev if e[0] == "reversed"] == [("reversed", 1, -1)]
    assert g.direction == -1 and g.current == 0

    g = table({**reverse9, "reverse_per_card": True}, **THREE)
    ev = act(g, "play 9c 9d")
    assert [e for e in ev if e[0] == "reversed"] == [("reversed", 1, -1), ("reversed", 1, 1)]
    assert g.direction == 1 and g.current == 2

    triple = {**THREE, "hands": {1: "9c 9d 9h", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}}
    g = table({**reverse9, "reverse_per_card": True}, **triple)
    act(g, "play 9c 9d 9h")
    assert g.direction == -1 and g.current == 0


def test_s1_reverse_cards_inside_a_suit_run() -> None:
    """S1 with suit_runs: a run holding two reverse ranks reverses once per play, or once per
    reverse card under reverse_per_card."""
    opts = {"suit_runs": True, "powers": {"8": ["reverse"], "9": ["reverse"]}}
    spec = {**THREE, "hands": {1: "8h 9h 4s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}}
    g = table(opts, **spec)
    ev = act(g, "run 8h 9h")
    assert kinds(ev).count("reversed") == 1 and g.direction == -1 and g.current == 0
    g = table({**opts, "reverse_per_card": True}, **spec)
    ev = act(g, "run 8h 9h")
    assert kinds(ev).count("reversed") == 2 and g.direction == 1 and g.current == 2


# ----------------------------------------------------------------------------- S2 after_pickup


def test_s2_previous_player_out_the_next_player_leads() -> None:
    """S2: under after_pickup: previous, if the player who played last has just gone out, the
    pick-up passes the turn as C11 does: the picker's left neighbour leads (not the seat before
    the picker, not the picker)."""
    opts = {"after_pickup": "previous", "face_down": 0, "face_up": 0}
    g = table(opts, seats=4, hands={1: "3c 3d 3h", 2: "4c 5c 6c", 3: "Kc Kd Ks", 0: "Ac Ad As"})
    strip(g, stock=True)
    assert g.current == 1
    ev = act(g, "play 3c 3d 3h")
    assert ("out", 1, 1) in ev and g.current == 2
    act(g, "take")
    assert g.current == 3 and g.pile == []


def test_s2_a_failed_flip_is_no_play_the_last_player_leads() -> None:
    """S2: a face-down card that could not be played is no play: after the pick-up the seat that
    made the last play before it leads."""
    g = table({"after_pickup": "previous"}, **THREE, down={0: "4h 5h 6h"})
    act(g, "play 9c")
    act(g, "play Jd")
    strip(g, 0, hand=True, face_up=True, stock=True)
    ev = act(g, "flip 0")
    assert ("took", 0, tuple(cards("9c Jd 4h"))) in ev
    assert g.current == 2


def test_s2_a_card_added_by_take_one_is_no_play() -> None:
    """S2: the face-up card a stuck player adds (faceup_fail: take_one) is no play either: the
    seat that made the last play before the pick-up leads."""
    g = table({"after_pickup": "previous"}, **THREE)
    act(g, "play 9c")
    act(g, "play Jd")
    strip(g, 0, hand=True, stock=True)
    assert "take Kc" in legal_texts(g)
    ev = act(g, "take Kc")
    assert ("took", 0, tuple(cards("9c Jd Kc"))) in ev
    assert g.current == 2


# ----------------------------------------------------------------------------- S3 take_one powers


@pytest.mark.parametrize(
    ("preset", "up0", "card", "absent", "after"),
    [
        ("classic", "Td 4c 4h", "Td", "burned", 1),  # a 10 added does not burn
        ("gultnieks", "8d 4c 4h", "8d", "reversed", 1),  # a gultnieks 8 does not reverse
        ("guarducci", "Xr 4c 4h", "Xr", "skipped", 2),  # a joker does not skip (previous leads)
    ],
    ids=["ten", "gultnieks-eight", "guarducci-joker"],
)
def test_s3_a_power_card_added_by_take_one_has_no_power(
    preset: str, up0: str, card: str, absent: str, after: int
) -> None:
    """S3: a card added to the pile by take_one is not played, so its power does not act: it
    goes into the hand with the pile."""
    spec = {
        "seats": 3,
        "hands": {1: "9c 4s 5s", 2: "Kd 4d 5d", 0: "5c 6c 6d"},
        "up": {1: "3c Qh Qs", 2: "Jh Js Jd", 0: up0},
    }
    g = table(preset=preset, **spec)
    act(g, "play 9c")
    act(g, "play Kd")
    strip(g, 0, hand=True, stock=True)
    ev = act(g, f"take {card}")
    assert ev == [("took", 0, tuple(cards(f"9c Kd {card}")))]
    assert absent not in kinds(ev) and g.direction == 1
    assert names(g.hand(0)) == names(sorted(cards(f"9c Kd {card}"))) and g.current == after


# ----------------------------------------------------------------------------- S4 egilsson


EGILSSON = {"hands": {1: "Kc 5s 4s 6s", 0: "5d Td 4d 9d"}, "up": {1: "3c Qh Qs", 0: "Jh Js Jd"}, "stock": "Jc Ks Kh"}


def test_s4_egilsson_no_ten_and_no_five_after_a_five_unless_lower_allows() -> None:
    """S4: after an egilsson 5 only a lower card goes: not a 10 (the 5's demand beats C8's "a 10
    on anything") and not another 5; a table that wants either says so with lower_allows."""
    g = table({"hand": 4}, preset="egilsson", **EGILSSON)
    act(g, "play Kc")
    act(g, "play 5d")
    assert legal_texts(g) == {"play 4s", "gamble", "take"}
    assert refused(g, "play 5s") == IllegalReason.DOES_NOT_BEAT
    g = table({"hand": 4}, preset="egilsson", **EGILSSON)  # the same deal, on to a 5 before a 10
    act(g, "play Kc")
    act(g, "play 5d")
    act(g, "play 4s")
    act(g, "play 4d")
    act(g, "play 5s")
    assert "play Td" not in legal_texts(g) and refused(g, "play Td") == IllegalReason.DOES_NOT_BEAT

    g = table({"hand": 4, "lower_allows": {"5": "5T"}}, preset="egilsson", **EGILSSON)
    act(g, "play Kc")
    act(g, "play 5d")
    assert legal_texts(g) == {"play 4s", "play 5s", "gamble", "take"}
    act(g, "play 5s")
    assert {"play 4d", "play Td"} <= legal_texts(g) and "play 9d" not in legal_texts(g)


# ----------------------------------------------------------------------------- S5 joker_as seven


def test_s5_guarducci_joker_as_seven_is_a_plain_seven() -> None:
    """S5: under joker_as: seven a guarducci joker is a plain 7 (not glass): the next play beats
    a 7, not the card below; under joker_as: glass it must beat the card below."""
    spec = {
        "seats": 3,
        "hands": {1: "Ac 9c 4s", 2: "Xr 4d 5d", 0: "Kc 5c 6c"},
        "up": {1: "3c Qh Qs", 2: "Jh Js Jd", 0: "Kh Ks Kd"},
        "stock": "Qc Qd",
    }
    for joker_as, nine in (("seven", True), ("glass", False)):
        g = table({"joker_as": joker_as}, preset="guarducci", **spec)
        act(g, "play Ac")
        ev = act(g, "play Xr")
        assert ("skipped", 0) in ev and g.current == 1
        assert ("play 9c" in legal_texts(g)) is nine, joker_as
        assert "play 4s" not in legal_texts(g) and ("play Qc" in legal_texts(g)) is nine


# ----------------------------------------------------------------------------- S6 match_count


def test_s6_match_count_a_flipped_card_must_meet_the_count() -> None:
    """S6: a face-down card is one card: after a pair, a flipped 9 is no legal play and is picked
    up with the pile; a flipped 2 (exempt) is played."""
    for flipped, played in (("9s", False), ("2c", True)):
        g = table(
            {"match_count": True},
            hands={1: "7c 7d 4s"},
            up={1: "3c Qh Qs", 0: "Kc Kh Ks"},
            down={0: f"{flipped} Ad Ah"},
        )
        act(g, "play 7c 7d")
        strip(g, 0, hand=True, face_up=True, stock=True)
        ev = act(g, "flip 0")
        assert ("played" in kinds(ev)) is played and ("took" in kinds(ev)) is not played


def test_s6_match_count_glass_goes_alone_and_keeps_the_count() -> None:
    """S6: a glass joker goes on anything, alone, even after a pair; it is transparent to the
    count as to the rank, so the next play must still be a pair (or more) beating the 7s."""
    g = table(
        {"match_count": True, "hand": 4},
        preset="six_players",
        hands={1: "7c 7d 9c 9d", 0: "Xr 4h 4d 9h"},
        up={1: "3c Qh Qs", 0: "Kc Kh Ks"},
    )
    act(g, "play 7c 7d")
    assert "play Xr" in legal_texts(g) and "play 9h" not in legal_texts(g)
    act(g, "play Xr")
    assert g.last_len == 2
    assert refused(g, "play 9c") == IllegalReason.TOO_FEW_CARDS
    assert "play 9c 9d" in legal_texts(g)


MATCH = {"hands": {1: "7c 7d Jc Jd", 0: "9h 9s 2c Td"}, "up": {1: "3c Qh Qs", 0: "Kc Kh Ks"}}


def test_s6_match_count_ten_without_ten_anywhere_beats_by_rank_but_ignores_the_count() -> None:
    """S6: under ten_anywhere: false a 10 must beat the pile by rank, but as a burning card it
    is still exempt from the count: a single 10 goes on a pair of 7s, not on a pair of jacks."""
    opts = {"match_count": True, "ten_anywhere": False, "hand": 4}
    g = table(opts, **MATCH)
    act(g, "play 7c 7d")
    assert "play Td" in legal_texts(g) and "play 9h" not in legal_texts(g)
    ev = act(g, "play Td")
    assert "burned" in kinds(ev)
    g = table(opts, **MATCH)
    act(g, "play Jc Jd")
    assert refused(g, "play Td") == IllegalReason.DOES_NOT_BEAT


# ----------------------------------------------------------------------------- S7 suit runs


def test_s7_two_card_run_skips_under_pair_skip_unless_count_runs_is_off() -> None:
    """S7: a two-card run is a play of exactly two cards, so pair_skip skips (count_runs: true,
    RULES.md's words); under count_runs: false it is no pair (the encyclopedia's "two cards of
    the same value") and does not skip."""
    spec = {**THREE, "hands": {1: "5h 6h 4s", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}}
    g = table({"suit_runs": True, "pair_skip": True}, **spec)
    ev = act(g, "run 5h 6h")
    assert ("skipped", 2) in ev and g.current == 0
    g = table({"suit_runs": True, "pair_skip": True, "count_runs": False}, **spec)
    ev = act(g, "run 5h 6h")
    assert "skipped" not in kinds(ev) and g.current == 2


def test_s7_match_count_limits_runs_unless_count_runs_is_off() -> None:
    """S7: under match_count a run counts its cards: after a triple a two-card run is too few,
    and after a three-card run a pair is too few; under count_runs: false a run meets no count
    and sets none."""
    spec = {
        "hands": {1: "7c 7d 7s Qd", 0: "8h 9h Ah 5d"},
        "up": {1: "3c Qh Qs", 0: "Kc Kh Ks"},
        "stock": "Jc 4c 4d 6s 6h",
    }
    opts = {"suit_runs": True, "match_count": True, "hand": 4}
    g = table(opts, **spec)
    act(g, "play 7c 7d 7s")
    assert refused(g, "run 8h 9h") == IllegalReason.TOO_FEW_CARDS
    assert not any(t.startswith("run") for t in legal_texts(g))
    g = table({**opts, "count_runs": False}, **spec)
    act(g, "play 7c 7d 7s")
    act(g, "run 8h 9h")
    assert g.last_len == 0 and {"play Qd", "play Jc"} <= legal_texts(g)

    run_first = {"hands": {1: "4s 5s 6s 8d", 0: "9h 9d 9c 7d"}, "up": {1: "3c Qh Qs", 0: "Kc Kh Ks"}}
    g = table(opts, **run_first)
    act(g, "run 4s 5s 6s")
    assert "play 9c 9d 9h" in legal_texts(g) and "play 9c 9d" not in legal_texts(g)
    g = table({**opts, "count_runs": False}, **run_first)
    act(g, "run 4s 5s 6s")
    assert {"play 9c", "play 7d"} <= legal_texts(g)


def test_s7_a_run_whose_first_card_burns_is_no_run() -> None:
    """S7: a run whose first card completes four of a kind is not offered (a burn may only end a
    run): the player plays that card, the pile burns, and the rest may follow as a new run."""
    g = table(
        {"suit_runs": True, "hand": 4},
        hands={1: "5c 5d 5s 4c", 0: "5h 6h 7h 4d"},
        up={1: "3c Qh Qs", 0: "Kc Kh Ks"},
    )
    act(g, "play 5c 5d 5s")
    assert "run 5h 6h 7h" not in legal_texts(g) and "run 5h 6h" not in legal_texts(g)
    assert refused(g, "run 5h 6h 7h") == IllegalReason.DOES_NOT_BEAT
    ev = act(g, "play 5h")
    assert "burned" in kinds(ev) and g.current == 0
    assert "run 6h 7h" in legal_texts(g)


def test_s7_a_two_follows_the_ace_in_no_run() -> None:
    """S7: runs follow the order of C6 with the 2 below the 3: 2-3-4 is a run, A-2 and K-A-2 are
    not (the 2 is "high and low" only as a card that goes on anything)."""
    g = table(
        {"suit_runs": True, "hand": 4},
        hands={1: "Kh Ah 2h 5s", 0: "2d 3d 4d 9c"},
        up={1: "3c Qd Qs", 0: "Kc Ks Kd"},
    )
    legal = legal_texts(g)
    assert "run Kh Ah" in legal
    assert not any(t.startswith("run") and "2h" in t for t in legal)
    assert refused(g, "run Ah 2h") == IllegalReason.NOT_A_RUN
    assert refused(g, "run Kh Ah 2h") == IllegalReason.NOT_A_RUN
    act(g, "play 5s")
    assert {"run 2d 3d", "run 2d 3d 4d"} <= legal_texts(g)


def test_s7_gultnieks_eight_inside_a_run() -> None:
    """S7: a gultnieks 8 may sit inside a run: it is glass there (the next card of the run must
    beat what lies below it, so after 7-8 the run stops: a 9 is not "7 or lower") and it
    reverses the direction once."""
    spec = {**THREE, "hands": {1: "6h 7h 8h", 2: "Jd 4d 5d", 0: "Qc 5c 6c"}}
    g = table({"suit_runs": True}, preset="gultnieks", **spec)
    assert {"run 6h 7h", "run 6h 7h 8h", "run 7h 8h"} <= legal_texts(g)
    ev = act(g, "run 6h 7h 8h")
    assert kinds(ev).count("reversed") == 1 and g.current == 0
    assert legal_texts(g) == {"play 5c", "play 6c", "run 5c 6c", "take"}  # the 7's duty, through the 8
    g = table({"suit_runs": True}, preset="gultnieks", **{**THREE, "hands": {1: "7h 8h 9h", 2: "Jd", 0: "Qc"}})
    legal = legal_texts(g)
    assert {"run 7h 8h", "run 8h 9h"} <= legal and "run 7h 8h 9h" not in legal


# ----------------------------------------------------------------------------- S8 karma stacks


def test_s8_jokers_stack_under_karma_and_take_one_gives_one_card_of_a_stack() -> None:
    """S8: under karma_stacking two jokers stack like equal cards (jokers may be played together)
    and the stack goes as one play; take_one adds one card of a stack, the rest stays face up."""
    g = deal(
        "karma",
        2,
        {"jokers": 2},
        hands={1: cards("Xb 5c 6c"), 0: cards("9h 9d Jh")},
        face_up={1: cards("Xr Kd 4s"), 0: cards("9c Qc Qd")},
        stock=cards("7h 7d 8c"),
    )
    act(g, "place Xb 0", 1)
    act(g, "place 9d 0", 0)
    act(g, "place 9h 0", 0)
    act(g, "ready", 1)
    act(g, "ready", 0)
    assert sorted(names(g.face_up[1][0])) == ["Xb", "Xr"] and g.current == 1  # the 4s face up opens
    strip(g, 1, hand=True, stock=True)
    assert "play Xr Xb" in legal_texts(g) and "play Xr" not in legal_texts(g)
    assert refused(g, "play Xb") == IllegalReason.STACK_SPLIT
    act(g, "play Xr Xb")
    strip(g, 0, hand=True)
    assert legal_texts(g) == {"take 9c", "take 9d", "take 9h", "take Qc", "take Qd"}
    ev = act(g, "take 9d")
    assert sorted(names(ev[0][2])) == ["9d", "Xb", "Xr"]
    assert [sorted(names(st)) for st in g.face_up[0]] == [["9c", "9h"], ["Qc"], ["Qd"]]
    assert g.current == 1  # karma: the previous player leads


# ----------------------------------------------------------------------------- S9 draw, then a 2


def test_s9_after_drawing_a_single_two_obeys_the_limit_and_no_pickup_is_forced() -> None:
    """S9: under draw_before_play a 2 counts like any card against the refill_to limit: after
    drawing to five, a single 2 is refused (HAND_TOO_LARGE) and the pair that allowed the
    second draw is the play; the player is never forced to pick up while holding a 2."""
    g = table(
        {"draw_before_play": True, "voluntary_pickup": False},
        hands={1: "5c 4s 4h", 0: "6c 6d 2c"},
        up={1: "3c Qh Qs", 0: "Kc Kh Ks"},
        stock="Js Ad Jh",
    )
    act(g, "play 5c")
    assert "take" not in legal_texts(g) and "play 2c" in legal_texts(g)
    act(g, "draw")
    assert "play 2c" in legal_texts(g)  # four cards: one card played leaves three
    act(g, "draw")
    assert legal_texts(g) == {"play 6c 6d"}
    assert refused(g, "play 2c") == IllegalReason.HAND_TOO_LARGE


# ----------------------------------------------------------------------------- S10 announce


def test_s10_announce_everyone_passes_c5_decides_and_nothing_is_forced() -> None:
    """S10: under opening: announce, if every player passes the opening goes by C5 (the first
    face-up 3 from the dealer's left), and the opener's first play is free."""
    g = table(
        {"opening": "announce"},
        seats=3,
        hands={1: "9c 4s 5s", 2: "Kd 4d 5d", 0: "4c 5c 6c"},
        up={1: "8c Qh Qs", 2: "3h Js Jd", 0: "Kc Kh Ks"},
    )
    assert g.phase == "announce" and g.current == 1
    act(g, "pass")
    act(g, "pass")
    ev = act(g, "pass")
    assert ev[-1] == ("first_player", 2, cards("3h")[0])
    assert g.current == 2 and g.forced == -1
    assert {"play Kd", "play 4d", "play 5d"} <= legal_texts(g)


# ----------------------------------------------------------------------------- S11 skip out


def test_s11_a_skip_that_takes_its_player_out_still_skips() -> None:
    """S11: a guarducci joker that is its player's last card takes the player out and still
    skips the next player; the jokers keep the meaning of the deal's player count (glass for
    three), so with two players left a joker does not become a reset."""
    opts = {"face_down": 0, "face_up": 0}
    g = table(opts, preset="guarducci", seats=3, hands={1: "3c 3d Xr", 2: "5c 6c 9c", 0: "Kc 4h Xb"})
    strip(g, stock=True)
    act(g, "play 3c 3d")
    act(g, "play 5c")
    act(g, "play Kc")
    ev = act(g, "play Xr")
    assert ("out", 1, 1) in ev and ("skipped", 2) in ev and g.current == 0
    assert legal_texts(g) == {"play Xb", "take"}
    ev = act(g, "play Xb")
    assert ("skipped", 2) in ev and g.current == 0
    assert legal_texts(g) == {"take"}  # still glass over the king: the 4h does not beat it


def test_s11_a_pair_skip_that_takes_its_player_out_still_skips() -> None:
    """S11 with pair_skip: a pair that is its player's last cards takes the player out and the
    next player still misses a turn."""
    opts = {"pair_skip": True, "face_down": 0, "face_up": 0}
    g = table(opts, seats=3, hands={1: "3c 9c 9d", 2: "4c 5c 6c", 0: "4d 5d 6d"})
    strip(g, stock=True)
    act(g, "play 3c")
    act(g, "play 4c")
    act(g, "play 5d")
    ev = act(g, "play 9c 9d")
    assert ("out", 1, 1) in ev and ("skipped", 2) in ev and g.current == 0
