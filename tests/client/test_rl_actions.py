"""The fixed action space of the learning environment (``client/rl/actions.py``): one index per
action text, for every preset and option the engine allows. Pure Python: runs without the extra."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from client.rl.actions import (
    BLOCKS,
    CARD_TYPES,
    MAX_COPIES,
    MAX_JOKERS_OF_A_COLOUR,
    MAX_SLOTS,
    N_ACTIONS,
    action_index,
    action_text,
)
from server.engine import Game, Rules, RulesError, format_action, make_rules, parse_action, preset_info, preset_names
from server.engine.cards import JOKER, card

#: Rules at the engine's limits: the most copies of every card, jokers, face-up and face-down cards.
WIDEST = {"decks": 3, "jokers": 8, "face_up": 10, "face_down": 10, "hand": 3, "karma_stacking": True}


def seat_counts(preset: str) -> list[int]:
    info = preset_info(preset)
    return sorted({info.min_players, (info.min_players + info.max_players) // 2, info.max_players})


def legal_lists(rules: Rules, seats: int, seed: int) -> Iterator[list[str]]:
    """Every non-empty legal list (as texts) of every seat that may act, along one random game."""
    game = Game.new(rules, seats, seed=seed)
    rng = random.Random(seed)
    while game.outcome() is None:
        acting = game.to_act()
        for s in acting:
            yield [format_action(a) for a in game.legal_actions(s)]
        s = rng.choice(acting)
        game.apply(s, rng.choice(game.legal_actions(s)))


def test_the_table_round_trips_and_its_blocks_tile_it() -> None:
    """Every index has a distinct canonical text that maps back to it, and the blocks cover
    0..N_ACTIONS-1 without gap or overlap."""
    texts = [action_text(i) for i in range(N_ACTIONS)]
    assert len(set(texts)) == N_ACTIONS == 4854
    for i, text in enumerate(texts):
        assert action_index(text) == i
        assert format_action(parse_action(text)) == text
    at = 0
    for block in BLOCKS:
        assert block.start == at and block.size > 0
        at += block.size
    assert at == N_ACTIONS


def test_indices_outside_the_space_and_non_actions_are_refused() -> None:
    """action_text refuses indices outside 0..N-1; action_index refuses non-actions and actions
    beyond the engine's limits; other spellings of an action get its canonical index."""
    with pytest.raises(IndexError):
        action_text(N_ACTIONS)
    with pytest.raises(IndexError):
        action_text(-1)
    for bad in ("dance", "play", "flip x", f"flip {MAX_SLOTS}", "play 7h 7h 7h 7h", "run 5h"):
        with pytest.raises(ValueError):
            action_index(bad)
    assert action_index("play 7d 7c") == action_index("play 7c 7d")
    assert action_index("PLAY 10h") == action_index("play Th")


def test_the_limits_are_the_engines() -> None:
    """The table's limits are exactly the widest rules make_rules accepts: one more deck, joker,
    face-up or face-down card is refused, so no game has an action outside the table."""
    make_rules("classic", WIDEST)
    for option, value in (("decks", MAX_COPIES + 1), ("jokers", 2 * MAX_JOKERS_OF_A_COLOUR + 1)):
        with pytest.raises(RulesError):
            make_rules("classic", {**WIDEST, option: value})
    for option in ("face_up", "face_down"):
        with pytest.raises(RulesError):
            make_rules("classic", {option: MAX_SLOTS + 1})
    assert len(CARD_TYPES) == 54 and CARD_TYPES[-2:] == (card(JOKER, 0), card(JOKER, 1))


@pytest.mark.parametrize("preset", preset_names())
def test_every_legal_action_of_every_preset_has_its_own_index(preset: str) -> None:
    """Along random games of the preset at its smallest, middle and largest table, every legal
    text maps to an index that maps back to the same text, and distinct texts to distinct
    indices (so a mask over the indices is exactly the legal set)."""
    rules = make_rules(preset)
    lists = 0
    for seats in seat_counts(preset):
        for seed in (1, 2):
            for legal in legal_lists(rules, seats, seed):
                indices = [action_index(t) for t in legal]
                assert [action_text(i) for i in indices] == legal
                assert len(set(indices)) == len(legal)
                lists += 1
    assert lists > 100


def test_every_kind_of_action_occurs_in_the_sweep() -> None:
    """The games of the sweep above (and a game at the engine's limits) meet every kind of
    action text, so the round trip is tried on each kind, not only on plays."""
    kinds: Counter[str] = Counter()
    configs = [(make_rules(p), n) for p in preset_names() for n in seat_counts(p)]
    configs.append((make_rules("classic", WIDEST), 2))
    configs.append((make_rules("classic", {"decks": 3, "jokers": 8, "suit_runs": True}), 5))
    for rules, seats in configs:
        for legal in legal_lists(rules, seats, 1):
            for text in legal:
                action_index(text)
                words = text.split()
                kinds[words[0] if words[0] != "take" else f"take/{len(words)}"] += 1
    expected = {"play", "run", "flip", "take/1", "take/2", "draw", "gamble", "swap", "place", "ready"}
    expected |= {"announce", "pass"}
    assert expected <= set(kinds), expected - set(kinds)
