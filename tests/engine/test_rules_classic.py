"""The classic game, rule by rule: at least one test per rule C1..C18 of docs/RULES.md.

Every scenario is dealt from an explicit deck order (``helpers.deal``/``helpers.start``, built
on :func:`server.engine.stack_deck`), so nothing depends on luck. With dealer 0 the deal
starts at seat 1, which is therefore first in every clockwise order of C3 and C5.

The endgame rules (C13-C17) need an empty stock. Instead of editing the state, those
scenarios change only the deal sizes (the options ``face_down``, ``face_up``, ``hand``) so that
the whole deck is dealt; the rules of play stay classic. The player who must reach the
endgame holds four-of-a-kinds (and 10s), burns them one after the other (C8, C9: each burn
gives another turn) and so empties the hand by real play.
"""

from __future__ import annotations

import itertools
import json
import random
from copy import deepcopy
from typing import Any

import pytest

from server.engine import (
    Game,
    GameOutcome,
    IllegalAction,
    IllegalReason,
    RulesError,
    Series,
    build_deck,
    check_seats,
    event_to_dict,
    make_rules,
    parse_action,
    view_for,
)
from server.engine.cards import JOKER
from server.engine.policies import greedy_policy
from tests.engine.helpers import act, all_cards, cards, deal, kinds, legal_texts, names, start

# --------------------------------------------------------------------------- helpers


def split(text: str) -> list[str]:
    return text.split()


def only(events: list[tuple], kind: str) -> list[tuple]:
    """The events of one kind."""
    return [e for e in events if e[0] == kind]


def snapshot(game: Game) -> tuple:
    """Everything a refused action must leave untouched."""
    return (
        game.version,
        game.phase,
        game.current,
        list(game.pile),
        list(game.stock),
        [game.hand(s) for s in range(game.n)],
        deepcopy(game.face_up),
        deepcopy(game.face_down),
        list(game.burned),
        len(game.history),
    )


def assert_refused(game: Game, text: str, code: IllegalReason, seat: int | None = None) -> None:
    """``text`` is refused with ``code`` and the state stays exactly as it was."""
    seat = game.current if seat is None else seat
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, parse_action(text))
    assert info.value.code == code
    assert snapshot(game) == before


def two(hand1: str, hand0: str, *, up1: str = "Jh Qh Kh", up0: str = "Js Qs Ks", stock: str = "") -> Game:
    """A classic two-player game in play, dealer 0. Seat 1 gets a 3 in hand in every scenario,
    and no 3 lies face up, so seat 1 opens (C5). ``stock`` lists the top of the stock."""
    game = start(
        "classic",
        2,
        hands={1: split(hand1), 0: split(hand0)},
        face_up={1: split(up1), 0: split(up0)},
        stock=split(stock),
    )
    assert game.phase == "play" and game.current == 1
    return game


def three(
    up: dict[int, str], hand: dict[int, str], *, dealer: int = 0, down: dict[int, str] | None = None
) -> tuple[Game, list[tuple]]:
    """A classic three-player game with every face-up card and hand chosen; everyone readies.
    Returns the game and the events of the last ready (they name the first player)."""
    game = deal(
        "classic",
        3,
        dealer=dealer,
        face_up={s: split(t) for s, t in up.items()},
        hands={s: split(t) for s, t in hand.items()},
        face_down={s: split(t) for s, t in (down or {}).items()},
    )
    events: list[tuple] = []
    for s in range(3):
        events = game.apply(s, ("ready",))
    return game, events


QUADS = "3c 3d 3h 3s 4c 4d 4h 4s 5c 5d 5h 5s 6c 6d 6h 6s 7c 7d 7h 7s"


def endgame_two(up: str, down: str, opponent: str) -> Game:
    """Two players, 3 face down, 3 face up and 20 in hand each: the whole deck is dealt, the
    stock is empty. Seat 1 holds all 3s to 7s and opens (C5); it burns its five
    four-of-a-kinds (C9), keeping the turn each time, and is left with no hand, its face-up
    cards ``up`` and face-down cards ``down`` (by position), still to act on an empty pile.
    Seat 0 holds ``opponent`` (plus filler)."""
    game = start(
        "classic",
        2,
        {"hand": 20},
        hands={1: split(QUADS), 0: split(opponent)},
        face_up={1: split(up)},
        face_down={1: split(down)},
    )
    assert game.stock == [] and game.current == 1
    for rank in "34567":
        events = act(game, "play " + " ".join(rank + s for s in "cdhs"))
        assert only(events, "burned")
    assert game.hand_n[1] == 0 and game.current == 1 and game.pile == []
    return game


def endgame_four(last_face_down: str) -> Game:
    """Four players, 1 face down, 3 face up and 9 in hand each: the whole deck is dealt.
    Seat 1 burns 3333, 4444 and a 10, plays its face-up Jc Jd Jh; seats 2, 3, 0 answer Qs,
    Ks, As; now seat 1 has only its one face-down card ``last_face_down`` and must flip it."""
    game = start(
        "classic",
        4,
        {"face_down": 1, "face_up": 3, "hand": 9},
        hands={1: split("3c 3d 3h 3s 4c 4d 4h 4s Tc"), 2: ["Qs", "5d"], 3: ["Ks", "6d"], 0: ["As", "7d"]},
        face_up={1: split("Jc Jd Jh")},
        face_down={1: [last_face_down]},
    )
    assert game.stock == [] and game.current == 1
    for text in ("play 3c 3d 3h 3s", "play 4c 4d 4h 4s", "play Tc"):
        assert only(act(game, text), "burned")
    for text in ("play Jc Jd Jh", "play Qs", "play Ks", "play As"):
        act(game, text)
    assert game.current == 1 and legal_texts(game) == {"flip 0"}
    return game


def play_out(game: Game) -> None:
    """Finish a game with the deterministic greedy policy."""
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, greedy_policy(game, seat))


# --------------------------------------------------------------------------- C1 setup


def test_c1_classic_uses_one_deck_without_jokers() -> None:
    """C1: a classic game holds exactly the 52 cards of one deck and no joker."""
    rules = make_rules("classic")
    assert (rules.decks, rules.jokers) == (1, 0)
    game = Game.new(rules, 4, seed=3)
    assert all_cards(game) == sorted(build_deck(1, 0))
    assert len(set(all_cards(game))) == 52
    assert not any(c >> 2 == JOKER for c in all_cards(game))
    with pytest.raises(RulesError):
        Game(rules, 2, 0, build_deck(1, 0)[:-1] + build_deck(1, 1)[-1:])  # a joker for the As


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_c1_two_to_five_players_can_play(seats: int) -> None:
    """C1: a classic table of 2..5 players is dealt and starts."""
    check_seats(make_rules("classic"), seats)
    game = Game.new(make_rules("classic"), seats, seed=seats)
    for s in range(seats):
        game.apply(s, ("ready",))
    assert game.phase == "play"


@pytest.mark.parametrize("seats", [1, 6])
def test_c1_fewer_than_two_or_more_than_five_players_refused(seats: int) -> None:
    """C1: 1 or 6 players are refused under the classic rules."""
    with pytest.raises(RulesError):
        check_seats(make_rules("classic"), seats)
    with pytest.raises(RulesError):
        Game.new(make_rules("classic"), seats, seed=1)


# --------------------------------------------------------------------------- C2 dealer


def test_c2_first_dealer_is_drawn_at_random() -> None:
    """C2: the first dealer comes from the seed: every seat can deal first, a seed repeats."""
    rules = make_rules("classic")
    dealers = {Series(rules, 4, seed=k).dealer for k in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Series(rules, 4, seed=7).dealer == Series(rules, 4, seed=7).dealer
    series = Series(rules, 4, seed=7)
    assert series.start_game().dealer == series.dealer
    assert {Game.new(rules, 3, seed=k).dealer for k in range(30)} == {0, 1, 2}


def test_c2_deal_passes_clockwise_after_each_game() -> None:
    """C2: with next_dealer rotate (the default) the deal moves one seat clockwise per game."""
    series = Series(make_rules("classic"), 4, seed=3)
    dealers = []
    for _ in range(5):
        game = series.start_game()
        dealers.append(game.dealer)
        play_out(game)
        series.finish_game()
    first = dealers[0]
    assert dealers == [(first + i) % 4 for i in range(5)]


def test_c2_loser_deals_next_game_with_next_dealer_loser() -> None:
    """C2: with next_dealer loser, the loser of each game deals the next one."""
    series = Series(make_rules("classic", {"next_dealer": "loser"}), 4, seed=3)
    dealers, losers = [], []
    for _ in range(5):
        game = series.start_game()
        dealers.append(game.dealer)
        play_out(game)
        losers.append(game.outcome().loser)
        series.finish_game()
    assert dealers[1:] == losers[:-1]
    # The seed is chosen so that "loser" and "rotate" give different dealers.
    assert any(d != (prev + 1) % 4 for prev, d in itertools.pairwise(dealers))


# --------------------------------------------------------------------------- C3 deal


def test_c3_deal_order_from_explicit_deck() -> None:
    """C3: one card at a time from the dealer's left: 3 face down, 3 face up, 3 in hand, rest stock."""
    deck = build_deck(1, 0)  # 2c 2d 2h 2s 3c 3d 3h 3s 4c ...
    game = Game.new(make_rules("classic"), 2, dealer=0, deck=deck)
    assert game.face_down[1] == cards("2c 2h 3c")
    assert game.face_down[0] == cards("2d 2s 3d")
    assert game.face_up[1] == [[c] for c in cards("3h 4c 4h")]
    assert game.face_up[0] == [[c] for c in cards("3s 4d 4s")]
    assert game.hand(1) == cards("5c 5h 6c")
    assert game.hand(0) == cards("5d 5s 6d")
    assert game.stock[-1] == cards("6h")[0]  # the top of the stock is the end of the list
    assert game.stock[::-1] == deck[18:]
    assert names(game.stock[-3:][::-1]) == ["6h", "6s", "7c"]


@pytest.mark.parametrize("seats,dealer", [(2, 1), (3, 2), (4, 1), (5, 3)])
def test_c3_deal_starts_left_of_dealer_for_any_table(seats: int, dealer: int) -> None:
    """C3: for any table and dealer, card k of each round goes to the k-th seat from the dealer's left."""
    deck = build_deck(1, 0)
    random.Random(seats * 10 + dealer).shuffle(deck)
    game = Game.new(make_rules("classic"), seats, dealer=dealer, deck=deck)
    for s in range(seats):
        j = (s - dealer - 1) % seats  # 0 for the dealer's left neighbour
        assert game.face_down[s] == [deck[i * seats + j] for i in range(3)]
        assert game.face_up[s] == [[deck[3 * seats + i * seats + j]] for i in range(3)]
        assert game.hand(s) == sorted(deck[6 * seats + i * seats + j] for i in range(3))
    assert game.stock[::-1] == deck[9 * seats :]
    again = Game.new(make_rules("classic"), seats, dealer=dealer, deck=list(deck))
    assert (again.face_down, again.face_up, again.groups, again.stock) == (
        game.face_down,
        game.face_up,
        game.groups,
        game.stock,
    )


# --------------------------------------------------------------------------- C4 exchange


def test_c4_exchange_any_number_of_hand_and_face_up_cards() -> None:
    """C4: before play a player may swap hand and face-up cards as often as they like."""
    game = deal(
        "classic",
        2,
        hands={1: split("3c 5d 9h"), 0: split("4c 6d 8h")},
        face_up={1: split("Kc Qd Ah"), 0: split("Kd Qc As")},
    )
    swaps = {t for t in legal_texts(game, 1) if t.startswith("swap")}
    assert swaps == {f"swap {c} {i}" for c in ("3c", "5d", "9h") for i in range(3)}
    assert act(game, "swap 3c 0", 1) == [("swapped", 1, cards("3c")[0], cards("Kc")[0], 0)]
    act(game, "swap 5d 1", 1)
    act(game, "swap 9h 2", 1)
    assert game.face_up[1] == [[c] for c in cards("3c 5d 9h")]
    assert game.hand(1) == cards("Qd Kc Ah")
    act(game, "swap Kc 0", 1)  # and back again
    act(game, "swap 4c 2", 0)  # the other player exchanges too
    assert game.face_up[1] == [[c] for c in cards("Kc 5d 9h")]
    assert game.hand(1) == cards("3c Qd Ah")
    assert game.face_up[0] == [[c] for c in cards("Kd Qc 4c")]
    assert game.hand(0) == cards("6d 8h As")
    act(game, "ready", 1)
    act(game, "ready", 0)
    assert game.phase == "play"
    assert_refused(game, "swap 3c 0", IllegalReason.WRONG_PHASE, seat=1)


def test_c4_nobody_sees_face_down_cards_not_even_their_owner() -> None:
    """C4: no view (own, other, spectator) and no event names a face-down card before it is played."""
    hidden = {1: ["Ah", "Kh", "Qh"], 0: ["As", "Ks", "Qs"]}
    game = deal(
        "classic",
        2,
        hands={1: split("3c 5d 9h"), 0: split("4c 6d 8h")},
        face_up={1: split("Jc Jd 7h"), 0: split("Tc Td 7s")},
        face_down=hidden,
    )
    secret = hidden[0] + hidden[1]

    def check(events: list[tuple]) -> None:
        for seat in (0, 1, None):
            view = view_for(game, seat)
            text = json.dumps(view)
            assert not [c for c in secret if c in text], (seat, text)
            assert [p["face_down"] for p in view["players"]] == [[True] * 3, [True] * 3]
        text = json.dumps([event_to_dict(e) for e in events])
        assert not [c for c in secret if c in text]

    check([])
    check(act(game, "swap 3c 0", 1))
    check(act(game, "ready", 1) + act(game, "ready", 0))
    check(act(game, "play 5d"))


# --------------------------------------------------------------------------- C5 first player


UP_NO_THREE = {0: "Kc Kd Kh", 1: "Qc Qd Qh", 2: "Jc Jd Jh"}
HAND_NO_THREE = {0: "5c 5d 5h", 1: "6c 6d 6h", 2: "7c 7d 7h"}


def test_c5_three_face_up_beats_three_in_hand() -> None:
    """C5: a 3 face up opens before a 3 in hand, even one held earlier clockwise."""
    game, events = three({**UP_NO_THREE, 2: "3d Jc Jd"}, {**HAND_NO_THREE, 1: "3c 6c 6d"})
    assert game.current == 2
    assert only(events, "first_player") == [("first_player", 2, cards("3d")[0])]


def test_c5_three_in_hand_opens_when_no_three_face_up() -> None:
    """C5: with no 3 face up anywhere, the first player with a 3 in hand opens."""
    game, events = three(UP_NO_THREE, {**HAND_NO_THREE, 2: "3c 7c 7d"})
    assert game.current == 2
    assert only(events, "first_player") == [("first_player", 2, None)]


def test_c5_falls_back_to_fours_when_no_three_dealt() -> None:
    """C5: if every 3 is face down, 4s decide: a 4 face up before a 4 in hand."""
    down = {1: "3c 3d 3h", 2: "3s"}
    game, events = three({**UP_NO_THREE, 0: "4c Kc Kd"}, {**HAND_NO_THREE, 1: "4d 6c 6d"}, down=down)
    assert game.current == 0
    assert only(events, "first_player") == [("first_player", 0, cards("4c")[0])]
    game, events = three(UP_NO_THREE, {**HAND_NO_THREE, 1: "4d 6c 6d"}, down=down)
    assert game.current == 1
    assert only(events, "first_player") == [("first_player", 1, None)]


def test_c5_lowest_rank_wins_over_clockwise_order() -> None:
    """C5: with no 3 out, a 4 opens even if a 5 is held earlier clockwise (dealer's left)."""
    game, _ = three(UP_NO_THREE, {0: "4c 8c 8d", 1: "5c 6c 6d", 2: "7c 7d 7h"}, down={1: "3c 3d 3h", 2: "3s"})
    assert game.current == 0


@pytest.mark.parametrize("zone", ["face_up", "hand"])
@pytest.mark.parametrize("dealer,first", [(0, 2), (1, 2), (2, 0)])
def test_c5_ties_go_clockwise_from_dealers_left(zone: str, dealer: int, first: int) -> None:
    """C5: seats 0 and 2 both hold a 3 (face up, or in hand): the first clockwise from the dealer's left opens."""
    if zone == "face_up":
        up, hand = {**UP_NO_THREE, 0: "3c Kc Kd", 2: "3d Jc Jd"}, HAND_NO_THREE
    else:
        up, hand = UP_NO_THREE, {**HAND_NO_THREE, 0: "3c 5c 5d", 2: "3d 7c 7d"}
    game, _ = three(up, hand, dealer=dealer)
    assert game.current == first


def test_c5_first_player_decided_after_the_exchange() -> None:
    """C5: a 3 swapped face up during the exchange makes its owner open."""
    spec: dict[str, Any] = dict(
        hands={1: split("3c 6c 6d"), 0: split("3d 7c 7d")}, face_up={1: split("Jh Qh Kh"), 0: split("Js Qs Ks")}
    )
    game = deal("classic", 2, **spec)
    act(game, "ready", 1)
    act(game, "ready", 0)
    assert game.current == 1  # without an exchange: the 3 in hand at the dealer's left
    game = deal("classic", 2, **spec)
    act(game, "swap 3d 0", 0)
    act(game, "ready", 1)
    events = act(game, "ready", 0)
    assert game.current == 0
    assert only(events, "first_player") == [("first_player", 0, cards("3d")[0])]


def test_c5_first_player_need_not_play_the_three() -> None:
    """C5: the opener may make any legal play, not only the 3."""
    game = two("3c 9c 9d", "4d 5d 6d", stock="8c 8d")
    assert {"play 3c", "play 9c", "play 9c 9d"} <= legal_texts(game)
    events = act(game, "play 9c 9d")
    assert events[0] == ("played", 1, tuple(cards("9c 9d")), "hand")
    assert cards("3c")[0] in game.hand(1)


# --------------------------------------------------------------------------- C6-C9 plays


def test_c6_any_play_on_empty_pile() -> None:
    """C6: on an empty pile every card, and every group of one rank, is a legal play."""
    game = two("3c 5c 5d", "4d 6d 8d")
    assert legal_texts(game) == {"play 3c", "play 5c", "play 5d", "play 5c 5d"}


def test_c6_play_must_equal_or_beat_the_top() -> None:
    """C6: only equal or higher ranks may follow; a lower card is refused, state unchanged."""
    game = two("3c 8c Kd", "7d 8d 9d", stock="4c 4h")
    act(game, "play 8c")
    assert legal_texts(game) == {"play 8d", "play 9d", "take"}
    assert_refused(game, "play 7d", IllegalReason.DOES_NOT_BEAT)
    act(game, "play 8d")  # equal rank is enough
    assert game.pile == cards("8c 8d")
    assert legal_texts(game) == {"play Kd", "take"}  # 3c and 4c are below 8


def test_c6_several_cards_of_one_rank_in_one_play() -> None:
    """C6: cards of one rank go down together; mixed ranks are refused."""
    game = two("3c 5c 5d", "4d 6d 8d", stock="9c 9d")
    assert_refused(game, "play 3c 5c", IllegalReason.MIXED_RANKS)
    events = act(game, "play 5c 5d")
    assert events[0] == ("played", 1, tuple(cards("5c 5d")), "hand")
    assert game.pile == cards("5c 5d")
    assert legal_texts(game) == {"play 6d", "play 8d", "take"}


def test_c7_two_on_anything_and_anything_on_a_two() -> None:
    """C7: a 2 goes on an ace, and the lowest card (a 3) goes on the 2."""
    game = two("3c Ah Kd", "2c 4d 9s", stock="4c 4h 5c")
    act(game, "play Ah")
    assert legal_texts(game) == {"play 2c", "take"}
    act(game, "play 2c")
    assert legal_texts(game) == {"play 3c", "play 4c", "play Kd", "take"}
    act(game, "play 3c")
    assert game.pile == cards("Ah 2c 3c")


def test_c8_ten_on_anything_burns_and_same_player_plays_again() -> None:
    """C8: a 10 goes on an ace, burns the pile, and its player leads again on the empty pile."""
    game = two("3c Ah Kd", "Tc 9d 9s", stock="4c 4h 5c")
    act(game, "play Ah")
    assert legal_texts(game) == {"play Tc", "take"}
    events = act(game, "play Tc")
    assert ("burned", 0, 2) in events
    assert game.pile == [] and sorted(game.burned) == cards("Tc Ah")
    assert game.current == 0
    assert "play 4h" in legal_texts(game)  # the drawn 4h would not beat the ace
    act(game, "play 4h")
    assert game.current == 1 and game.pile == cards("4h")


def test_c9_four_equal_cards_in_one_play_burn() -> None:
    """C9: four cards of one rank in one play burn the pile and the player plays again."""
    game = two("3c 9c 9d", "9h 9s 5d", stock="4c 4d 4h 6c 6d")
    act(game, "play 9c 9d")
    act(game, "take")  # seat 0 now holds all four 9s
    act(game, "play 4c")
    assert game.current == 0
    events = act(game, "play 9c 9d 9h 9s")
    assert ("burned", 0, 5) in events
    assert game.pile == [] and game.current == 0


def test_c9_four_equal_cards_burn_across_players() -> None:
    """C9: completing four of a rank on top of other players' plays burns; the completer plays again."""
    game = two("3c 7c 7s", "7d 7h Kd", stock="4c 5c 5d 6c")
    act(game, "play 7c")
    events = act(game, "play 7d 7h")
    assert not only(events, "burned")  # three in a row is not enough
    events = act(game, "play 7s")
    assert ("burned", 1, 4) in events
    assert game.pile == [] and game.current == 1


def test_c9_four_equal_cards_not_in_a_row_do_not_burn() -> None:
    """C9: four 7s with a 2 between them are not "in a row": no burn."""
    game = two("3c 7c 7d", "2c 8d 9d", stock="7h 7s 4c")
    act(game, "play 7c 7d")
    act(game, "play 2c")
    events = act(game, "play 7h 7s")
    assert not only(events, "burned")
    assert game.pile == cards("7c 7d 2c 7h 7s") and game.current == 0


# --------------------------------------------------------------------------- C10 refill


def test_c10_hand_refilled_to_three_from_top_of_stock() -> None:
    """C10: after playing, a hand below 3 draws the top stock cards up to 3."""
    game = two("3c 9c 9d", "4d 5d 6d", stock="4h 5h 6h")
    stock_before = len(game.stock)
    events = act(game, "play 9c 9d")
    assert events == [("played", 1, tuple(cards("9c 9d")), "hand"), ("drew", 1, 2)]
    assert game.hand(1) == cards("3c 4h 5h")
    assert len(game.stock) == stock_before - 2 and game.stock[-1] == cards("6h")[0]


def test_c10_no_draw_while_hand_holds_three_or_more() -> None:
    """C10: a player left with 3 or more cards after a play draws nothing."""
    game = two("3c 9c Kd", "4d 5d 6d", stock="4c 4h")
    act(game, "play Kd")
    act(game, "take")  # seat 0: 4 cards
    act(game, "play 9c")
    stock_before = len(game.stock)
    events = act(game, "play Kd")
    assert not only(events, "drew")
    assert game.hand_n[0] == 3 and len(game.stock) == stock_before


def test_c10_drawing_stops_when_stock_is_empty() -> None:
    """C10: the last stock card is drawn even if the hand stays below 3; then nothing more."""
    ups = {0: "Kc Kd Kh", 1: "Qc Qd Qh", 2: "Jc Jd Jh", 3: "Tc Td Th", 4: "9c 9d 9h"}
    hands = {1: "3c 3d 3h", 2: "5c 5d 5h", 3: "6c 6d 6h", 4: "7c 7d 7h", 0: "8c 8d 8h"}
    game = start(
        "classic", 5, face_up={s: split(t) for s, t in ups.items()}, hands={s: split(t) for s, t in hands.items()}
    )
    assert len(game.stock) == 7 and game.current == 1
    assert ("drew", 1, 3) in act(game, "play 3c 3d 3h")
    assert ("drew", 2, 3) in act(game, "play 5c 5d 5h")
    assert len(game.stock) == 1
    assert ("drew", 3, 1) in act(game, "play 6c 6d 6h")
    assert game.stock == [] and game.hand_n[3] == 1
    assert not only(act(game, "play 7c 7d 7h"), "drew")
    assert game.hand_n[4] == 0


def test_c10_draw_comes_before_the_extra_turn_of_a_burn() -> None:
    """C10: a player who burns refills first, then takes the extra turn with the new card."""
    game = two("3c Tc 9d", "4d 5d 6d", stock="5h 6h")
    events = act(game, "play Tc")
    assert kinds(events) == ["played", "burned", "drew"]
    assert game.current == 1 and game.hand(1) == cards("3c 5h 9d")
    assert "play 5h" in legal_texts(game)


# --------------------------------------------------------------------------- C11 pick-up


def test_c11_may_pick_up_even_when_able_to_play() -> None:
    """C11: a player who could play may pick up the pile; the next player leads on the empty pile."""
    game = two("3c 5c Kd", "9d 4d 4h", stock="6c 6d")
    act(game, "play 5c")
    assert {"play 9d", "take"} <= legal_texts(game)
    events = act(game, "take")
    assert events == [("took", 0, tuple(cards("5c")))]
    assert game.pile == [] and cards("5c")[0] in game.hand(0)
    assert game.current == 1
    assert legal_texts(game) == {"play 3c", "play 6c", "play Kd"}  # anything leads; no take


def test_c11_player_who_cannot_play_must_pick_up() -> None:
    """C11: with nothing that beats the pile, picking it up is the only legal action."""
    game = two("3c Ah Kd", "4d 5d 6d", stock="7c 7d")
    act(game, "play Ah")
    assert legal_texts(game) == {"take"}
    assert_refused(game, "play 6d", IllegalReason.DOES_NOT_BEAT)
    act(game, "take")
    assert game.hand(0) == cards("4d 5d 6d Ah") and game.current == 1


def test_c11_picking_up_an_empty_pile_is_not_a_move() -> None:
    """C11: 'take' on an empty pile (at the start, after a burn) is refused, state unchanged."""
    game = two("3c Tc 9d", "4d 5d 6d", stock="5h 6h")
    assert "take" not in legal_texts(game)
    assert_refused(game, "take", IllegalReason.EMPTY_PILE)
    act(game, "play Tc")
    assert game.current == 1 and "take" not in legal_texts(game)
    assert_refused(game, "take", IllegalReason.EMPTY_PILE)


# --------------------------------------------------------------------------- C12 hand first


def test_c12_hand_cards_come_before_face_up_cards() -> None:
    """C12: a player with hand cards may not play a face-up card, even one that would be legal."""
    game = two("3c 5d 7d", "4d 6d 8d", up1="Ah Qh Kh")
    assert legal_texts(game) == {"play 3c", "play 5d", "play 7d"}
    assert_refused(game, "play Ah", IllegalReason.WRONG_SOURCE)
    events = act(game, "play 7d")
    assert events[0][3] == "hand"


# --------------------------------------------------------------------------- C13 face up


def test_c13_face_up_cards_played_when_hand_and_stock_are_empty() -> None:
    """C13: with no hand and no stock the face-up cards are played, one or several of a rank."""
    game = endgame_two(up="Jc Jd Ah", down="8c 9c Kc", opponent="Qd Kd")
    assert legal_texts(game) == {"play Jc", "play Jd", "play Jc Jd", "play Ah"}
    events = act(game, "play Jc Jd")
    assert events == [("played", 1, tuple(cards("Jc Jd")), "face_up")]
    assert game.face_up[1] == [[], [], cards("Ah")]
    assert game.current == 0 and game.pile == cards("Jc Jd")


def test_c13_cannot_play_face_up_adds_one_face_up_card_and_picks_up() -> None:
    """C13: unable to beat the pile, the player adds a face-up card of their choice and takes the pile."""
    game = endgame_two(up="8c 9c Jc", down="Kc Qc Ac", opponent="Ad 9d")
    act(game, "play Jc")
    act(game, "play Ad")
    assert legal_texts(game) == {"take 8c", "take 9c"}
    events = act(game, "take 9c")
    assert events == [("took", 1, tuple(cards("Jc Ad 9c")))]
    assert game.hand(1) == cards("9c Jc Ad")
    assert game.face_up[1] == [cards("8c"), [], []]
    assert game.pile == [] and game.current == 0
    assert "play 9d" in legal_texts(game)  # the next player leads on the empty pile


def test_c13_may_choose_to_pick_up_instead_of_playing_face_up() -> None:
    """C13: a player who will not play a playable face-up card may add one and pick up."""
    game = endgame_two(up="Jc Jd Ah", down="8c 9c Kc", opponent="Qd Kd")
    act(game, "play Jc Jd")
    act(game, "play Qd")
    assert legal_texts(game) == {"play Ah", "take Ah"}
    assert act(game, "take Ah") == [("took", 1, tuple(cards("Jc Jd Qd Ah")))]
    assert game.face_up[1] == [[], [], []] and game.hand_n[1] == 4


# --------------------------------------------------------------------------- C14 face down


def test_c14_flipped_ten_is_played_burns_and_player_goes_again() -> None:
    """C14: a flipped legal card counts as played: a 10 burns and the player flips again."""
    game = endgame_two(up="Jc Jd Jh", down="8c Ts Kc", opponent="Qd 9d")
    act(game, "play Jc Jd Jh")
    act(game, "play Qd")
    assert legal_texts(game) == {"flip 0", "flip 1", "flip 2"}
    events = act(game, "flip 1")
    t = cards("Ts")[0]
    assert events == [("flipped", 1, 1, t), ("played", 1, (t,), "face_down"), ("burned", 1, 5)]
    assert game.current == 1 and game.pile == []
    assert legal_texts(game) == {"flip 0", "flip 2"}
    events = act(game, "flip 0")  # an 8 on the empty pile is legal
    assert events[1] == ("played", 1, tuple(cards("8c")), "face_down")
    assert game.pile == cards("8c") and game.current == 0


def test_c14_flipped_card_that_beats_the_pile_is_played() -> None:
    """C14: a flipped king on a queen is played and the turn passes on."""
    game = endgame_two(up="Jc Jd Jh", down="8c Ts Kc", opponent="Qd 9d")
    act(game, "play Jc Jd Jh")
    act(game, "play Qd")
    events = act(game, "flip 2")
    assert kinds(events) == ["flipped", "played"]
    assert game.pile[-1] == cards("Kc")[0] and game.current == 0
    assert game.face_down[1] == [cards("8c")[0], cards("Ts")[0], None]


def test_c14_failed_flip_picks_up_pile_with_the_card_and_next_leads() -> None:
    """C14: a flipped card that does not beat the pile is taken up with the pile; the next player leads."""
    game = endgame_two(up="Jc Jd Jh", down="8c Ts Kc", opponent="Qd 9d")
    act(game, "play Jc Jd Jh")
    act(game, "play Qd")
    events = act(game, "flip 0")
    e = cards("8c")[0]
    assert events == [("flipped", 1, 0, e), ("took", 1, tuple(cards("Jc Jd Jh Qd 8c")))]
    assert game.hand(1) == cards("8c Jc Jd Jh Qd")
    assert game.face_down[1] == [None, cards("Ts")[0], cards("Kc")[0]]
    assert game.pile == [] and game.current == 0
    assert "play 9d" in legal_texts(game)


# --------------------------------------------------------------------------- C15 after pick-up


def test_c15_after_face_up_pick_up_hand_is_played_until_empty() -> None:
    """C15: after picking up, hand cards come before the face-up cards until the hand is empty."""
    game = endgame_two(up="8c 9c Jc", down="Kc Qc Ac", opponent="Ad 8d Jd Qd 2d")
    act(game, "play Jc")
    act(game, "play Ad")
    act(game, "take 9c")
    act(game, "play 8d")
    # The face-up 8c would beat the 8d, but the hand comes first.
    assert legal_texts(game) == {"play 9c", "play Jc", "play Ad", "take"}
    act(game, "play 9c")
    act(game, "play Jd")
    act(game, "play Jc")
    act(game, "play Qd")
    act(game, "play Ad")
    assert game.hand_n[1] == 0
    act(game, "play 2d")
    assert legal_texts(game) == {"play 8c", "take 8c"}


def test_c15_after_failed_flip_hand_comes_before_face_down() -> None:
    """C15: after a failed flip the player plays the picked-up hand, not face-down cards."""
    game = endgame_two(up="Jc Jd Jh", down="8c Ts Kc", opponent="Qd 9d")
    act(game, "play Jc Jd Jh")
    act(game, "play Qd")
    act(game, "flip 0")
    act(game, "play 9d")
    assert legal_texts(game) == {
        "play Jc",
        "play Jd",
        "play Jh",
        "play Jc Jd",
        "play Jc Jh",
        "play Jd Jh",
        "play Jc Jd Jh",
        "play Qd",
        "take",
    }
    assert_refused(game, "flip 1", IllegalReason.WRONG_SOURCE)


# --------------------------------------------------------------------------- C16 going out


def test_c16_legal_last_face_down_card_gets_player_out() -> None:
    """C16: a legal last face-down card gets the player out; play then skips that seat."""
    game = endgame_four("2c")
    events = act(game, "flip 0")
    assert ("played", 1, tuple(cards("2c")), "face_down") in events
    assert ("out", 1, 1) in events
    assert game.out[1] and game.cards_held(1) == 0
    assert game.current == 2 and not game.is_over()
    act(game, "play 5d")
    act(game, "play 6d")
    act(game, "play 7d")
    assert game.current == 2  # seat 1 is out and is passed over


def test_c16_burner_going_out_lets_next_player_lead() -> None:
    """C16: a player who goes out with a burn hands the empty pile to the next player still in."""
    game = endgame_four("Ts")
    events = act(game, "flip 0")
    assert ("burned", 1, 7) in events and ("out", 1, 1) in events
    assert game.current == 2 and game.pile == []
    assert "play 5d" in legal_texts(game)  # leads: a 5 would not have beaten the ace


def test_c16_illegal_last_face_down_card_does_not_get_player_out() -> None:
    """C16: a last face-down card that does not beat the pile is picked up; the player stays in."""
    game = endgame_four("5c")
    events = act(game, "flip 0")
    assert not only(events, "out")
    assert ("took", 1, tuple(cards("Jc Jd Jh Qs Ks As 5c"))) in events
    assert not game.out[1] and game.hand_n[1] == 7
    assert game.current == 2


# --------------------------------------------------------------------------- C17 game end


def test_c17_last_player_with_cards_is_the_shithead_and_places_follow_going_out() -> None:
    """C17: the game ends when one player has cards left; places are the order of going out."""
    # Hands only (no table cards): 13 cards each deals the whole deck, the stock is empty.
    game = start(
        "classic",
        4,
        {"face_down": 0, "face_up": 0, "hand": 13},
        hands={
            1: split("3c 3d 3h 3s 4c 4d 4h 4s 5c 5d 5h 5s Tc"),
            2: split("6c 6d 6h 6s 7c 7d 7h 7s 8c 8d 8h 8s Td"),
            3: split("9c 9d 9h 9s Jc Jd Jh Js Qc Qd Qh Qs Th"),
            0: split("Kc Kd Kh Ks Ac Ad Ah As 2c 2d 2h 2s Ts"),
        },
    )
    assert game.current == 1 and game.stock == []
    for text in ("play 3c 3d 3h 3s", "play 4c 4d 4h 4s", "play 5c 5d 5h 5s"):
        act(game, text)
    assert ("out", 1, 1) in act(game, "play Tc")
    act(game, "play 8c")  # seat 2 keeps cards
    for text in ("play 9c 9d 9h 9s", "play Jc Jd Jh Js", "play Qc Qd Qh Qs"):
        act(game, text)
    assert ("out", 3, 2) in act(game, "play Th")
    assert game.current == 0 and not game.is_over()
    for text in ("play Kc Kd Kh Ks", "play Ac Ad Ah As", "play 2c 2d 2h 2s"):
        act(game, text)
    events = act(game, "play Ts")
    assert ("out", 0, 3) in events
    assert events[-1] == ("game_over", None, (1, 3, 0, 2), 2, False)
    assert game.is_over() and game.phase == "over"
    assert game.outcome() == GameOutcome((1, 3, 0, 2), 2, False, None)
    assert all(game.legal_actions(s) == () for s in range(4))
    assert_refused(game, "play 6c", IllegalReason.GAME_OVER, seat=2)


def test_c17_two_players_game_ends_when_one_goes_out() -> None:
    """C17: with two players the first one out ends the game; the other is the shithead."""
    game = endgame_two(up="Tc Td Th", down="8c 9c Jc", opponent="9d Jd")
    assert only(act(game, "play Tc Td Th"), "burned")  # the player goes on to the face-down cards
    act(game, "flip 0")  # 8c on the empty pile
    act(game, "play 9d")
    act(game, "flip 1")  # 9c on 9d
    act(game, "play Jd")
    events = act(game, "flip 2")  # Jc on Jd: the last card, legal
    assert ("out", 1, 1) in events
    assert events[-1] == ("game_over", None, (1, 0), 0, False)
    assert game.outcome() == GameOutcome((1, 0), 0, False, None)
    assert game.legal_actions(0) == ()


# --------------------------------------------------------------------------- C18 cap


def test_c18_default_cap_is_5000_actions() -> None:
    """C18: the classic max_actions is 5000."""
    assert make_rules("classic").max_actions == 5000


def test_c18_capped_game_places_by_cards_held() -> None:
    """C18: at max_actions the game ends; fewest cards first, the holder of most is the loser, capped is recorded."""
    game = start(
        "classic",
        2,
        {"max_actions": 5},
        hands={1: split("3c 9c Kd"), 0: split("4d 5d 6d")},
        face_up={1: split("Jh Qh Kh"), 0: split("Js Qs Ks")},
        stock=split("4c 4h 5c"),
    )
    act(game, "play Kd")
    act(game, "take")
    assert not game.is_over() and len(game.history) == 4
    events = act(game, "play 9c")  # the 5th action
    assert game.current == -1 and game.is_over()
    assert (game.cards_held(1), game.cards_held(0)) == (9, 10)
    # Seat 0 was to act next, but holds the most cards: it is last.
    assert events[-1] == ("game_over", None, (1, 0), 0, True)
    assert game.outcome() == GameOutcome((1, 0), 0, True, None)
    assert game.capped
    assert_refused(game, "play 4d", IllegalReason.GAME_OVER, seat=0)


@pytest.mark.parametrize("cap,places", [(4, (2, 0, 1)), (5, (0, 1, 2))])
def test_c18_capped_ties_ordered_from_current_player(cap: int, places: tuple[int, ...]) -> None:
    """C18: players holding equally many cards are placed in seat order from the player to act."""
    ups = {0: "Kc Kd Kh", 1: "Qc Qd Qh", 2: "Jc Jd Jh"}
    hands = {1: "3c 9c 9d", 2: "Ks 8c 8d", 0: "5c 5d 5h"}
    game = start(
        "classic",
        3,
        {"max_actions": cap},
        face_up={s: split(t) for s, t in ups.items()},
        hands={s: split(t) for s, t in hands.items()},
    )
    act(game, "play 9c")  # action 4: seat 2 to act
    if cap == 5:
        act(game, "play Ks")  # action 5: seat 0 to act
    assert [game.cards_held(s) for s in range(3)] == [9, 9, 9]
    outcome = game.outcome()
    assert outcome is not None and outcome.capped
    assert outcome.places == places and outcome.loser == places[-1]
