"""One greedy policy: the server's default action, ``shithead-sim --policy greedy`` and the
greedy bot (fed the wire view the server builds) choose the same action in the same
position; and that action is the one worked out by hand from the rules in chosen positions."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from client.bots.greedy import GreedyBot
from server.engine import Game, format_action, make_rules, parse_action, parse_cards, preset_names, view_for
from server.engine.actions import Action
from server.engine.cards import build_deck
from server.engine.policies import POLICIES, greedy_choice, greedy_policy
from server.engine.position import game_from
from server.tables.table import default_action
from tests.engine.helpers import deal, start

Chooser = Callable[[Game, int], str]


def by_policy(game: Game, seat: int) -> str:
    """``shithead-sim``'s greedy policy, by the name the command line uses."""
    return format_action(POLICIES["greedy"](game, seat, random.Random(0)))


def by_default_action(game: Game, seat: int) -> str:
    """What the server plays for a seat whose clock ran out."""
    return format_action(default_action(game, seat))


def by_bot(game: Game, seat: int) -> str:
    """The greedy bot, given only the seat's wire view (as the server builds it)."""
    return GreedyBot().choose(view_for(game, seat))


CHOOSERS = [by_policy, by_default_action, by_bot]


def general(game: Game, seat: int) -> Action:
    """The decision function on the full legal list (no shortcut)."""
    legal = game.legal_actions(seat)
    i = greedy_choice(legal, pile=game.pile, face_up=game.face_up[seat], pw=game.pw, burn_count=game.rules.burn_count)
    return legal[i]


# ---------------------------------------------------------------------- the same choice everywhere


@pytest.mark.parametrize("preset", preset_names())
def test_default_action_sim_and_bot_choose_alike(preset: str) -> None:
    """In every position of seeded games of every preset (at its fewest seats and at four or
    its most), the default action, the sim's greedy policy and the greedy bot on the view
    name the same action, and the engine's shortcut agrees with the decision on the legal
    list. Half the moves are random, so the games reach positions greedy would avoid."""
    rules = make_rules(preset, {"max_actions": 400})
    checked = 0
    for seats in sorted({rules.min_players, min(4, rules.max_players)}):
        for game_no in range(3):
            rng = random.Random(f"one-greedy:{preset}:{seats}:{game_no}")
            game = Game.new(rules, seats, rng=rng)
            while not game.is_over():
                for seat in game.to_act():
                    want = format_action(general(game, seat))
                    got = {name.__name__: name(game, seat) for name in CHOOSERS}
                    assert set(got.values()) == {want}, (preset, seats, seat, game.phase, got, want)
                    assert parse_action(want) in game.legal_actions(seat)
                    checked += 1
                seat = game.to_act()[0]
                legal = game.legal_actions(seat)
                game.apply(seat, rng.choice(legal) if rng.random() < 0.5 else greedy_policy(game, seat))
    assert checked > 100


def test_the_policy_signature_the_server_calls() -> None:
    """``greedy_policy(game, seat, rng=None)`` works without an rng and is deterministic."""
    game = Game.new(make_rules("classic"), 3, seed=11)
    seat = game.to_act()[0]
    assert (
        greedy_policy(game, seat) == greedy_policy(game, seat, rng=None) == greedy_policy(game, seat, random.Random())
    )


# ---------------------------------------------------------------------- hand-worked positions


def position(
    preset: str,
    hand: str,
    pile: str = "",
    *,
    face_up: list[str] | None = None,
    face_down: int = 0,
    stock: str = "",
    other: str = "Kh Kd Ks",
) -> Game:
    """Seat 0 to play in a two-seat game: ``hand``, ``pile`` (bottom first), face-up stacks of
    one card each, ``face_down`` covered positions, ``stock`` (top first); seat 1 holds
    ``other``; the other cards are burned."""
    c = parse_cards
    up = [[card] for card in c(" ".join(face_up or []))]
    rules = make_rules(preset)
    deck = build_deck(rules.decks, rules.jokers)
    down = deck[-face_down:] if face_down else []
    used = c(hand) + c(pile) + c(other) + c(stock) + [x for st in up for x in st] + down
    rest = list(deck)
    for x in used:
        rest.remove(x)
    return game_from(
        rules,
        2,
        hands=[c(hand), c(other)],
        face_up=[up + [[] for _ in range(rules.face_up - len(up))], [[] for _ in range(rules.face_up)]],
        face_down=[list(down) + [None] * (rules.face_down - face_down), [None] * rules.face_down],
        stock=c(stock),
        pile=c(pile),
        burned=rest,
        current=0,
    )


# Each case: why, the position, and the action worked out by hand from the rules and the
# policy's documented order (not computed by the code under test).
PLAY_CASES = [
    pytest.param(
        position("classic", "5c 7h 7d 2s Td", "6h"),
        "play 7d 7h",
        id="lowest-plain-rank-with-all-its-copies",  # the 5 does not beat the 6; 2 and 10 kept
    ),
    pytest.param(
        position("classic", "3c 2s Td", "3h 5d 8c 9s Jh Ac"),
        "play 2s",
        id="only-power-cards-go-cheapest-one-even-on-a-big-pile",  # 3 does not beat the ace
    ),
    pytest.param(
        position("classic", "Td 3c", "9s Ac"),
        "play Td",
        id="a-ten-when-it-is-the-only-play",
    ),
    pytest.param(
        position("classic", "2s 5d 9c", "2c 2d 2h"),
        "play 2s",
        id="completing-four-equal-cards-burns-before-the-lowest-card",
    ),
    pytest.param(
        position("classic", "2s 5d", "2c 2d"),
        "play 5d",
        id="short-of-four-the-lowest-plain-card-goes",
    ),
    pytest.param(
        position("linz", "7s 3d Jc", "7c 7d 7h"),
        "play 7s",
        id="linz-completing-four-sevens",  # after a 7 only 7 or lower (or 8, 10) may follow
    ),
    pytest.param(
        position("linz", "7s 9d", "6h"),
        "play 9d",
        id="linz-the-lower-seven-is-awkward-and-goes-after-plain-cards",
    ),
    pytest.param(
        position("linz", "Td 3c", "Ah", stock="4s 5s"),
        "draw",
        id="draw-before-spending-a-power-card",  # linz has draw_before_play; the 3 does not go
    ),
    pytest.param(
        position("classic", "", "Ac", face_up=["6d", "4h", "5c"], face_down=3),
        "take 4h",
        id="face-up-pick-up-gives-up-the-least-valuable-card",  # none of 4, 5, 6 beats the ace
    ),
    pytest.param(
        position("classic", "", "Ac", face_down=3),
        "flip 0",
        id="only-face-down-cards-flip-the-first",
    ),
    pytest.param(
        position("classic", "4c 6d", "Qs"),
        "take",
        id="pick-up-when-nothing-goes",
    ),
]


@pytest.mark.parametrize("chooser", CHOOSERS)
@pytest.mark.parametrize(("game", "expected"), PLAY_CASES)
def test_hand_worked_play_positions(chooser: Chooser, game: Game, expected: str) -> None:
    """Each chooser makes the hand-worked choice in each play position."""
    assert chooser(game, 0) == expected


@pytest.mark.parametrize("chooser", CHOOSERS)
def test_hand_worked_setup(chooser: Chooser) -> None:
    """Setup, by hand: hand 3c Ts Ah, face up 4d 2s 9h; keep values: a plain card its rank,
    the 2 102, the 10 110. The best swap is Ts for 4d (gain 106; Ts for 9h gains 101, Ah for
    4d 10). Then, with 3c 4d Ah in hand, only Ah for 9h gains (5). Then nothing gains: the 10,
    the 2 and the ace lie face up, and the seat is ready."""
    game = start_setup("3c Ts Ah", "4d 2s 9h")
    assert chooser(game, 0) == "swap Ts 0"
    game.apply(0, parse_action("swap Ts 0"))  # face up: Ts 2s 9h; hand: 3c 4d Ah
    assert chooser(game, 0) == "swap Ah 2"  # Ah for 9h gains 5; no other swap gains
    game.apply(0, parse_action("swap Ah 2"))  # face up: Ts 2s Ah; hand: 3c 4d 9h
    assert chooser(game, 0) == "ready"


def start_setup(hand: str, up: str) -> Game:
    """A classic two-seat game in setup, seat 0 dealt ``hand`` and face-up ``up``."""
    return deal("classic", 2, hands={0: hand.split()}, face_up={0: up.split()})


@pytest.mark.parametrize("chooser", CHOOSERS)
def test_hand_worked_announcements(chooser: Chooser) -> None:
    """opening: announce. With 2c 5d 9h in hand the lowest plain card, 5d, is announced (the 2
    is a power card); with only 2s and 10s in hand the seat passes."""
    hands = {0: "2c 5d 9h".split(), 1: "2d Tc Ts".split()}
    game = start("classic", 2, {"opening": "announce"}, dealer=1, hands=hands)
    assert game.phase == "announce" and game.current == 0
    assert chooser(game, 0) == "announce 5d"
    game.apply(0, parse_action("announce 5d"))
    assert chooser(game, 1) == "pass"
