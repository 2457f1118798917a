"""The bundled bots: the registry, complete legal games under every preset (pure engine and
real server), and the greedy heuristic's choices in constructed views."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from client.bot import Bot
from client.bots import BOTS, bot_names, make_bot, thinks_in_thread
from client.bots.greedy import GreedyBot
from client.bots.random import RandomBot
from server.engine import Game, make_rules, parse_action, preset_info, preset_names, view_for
from server.engine.policies import keep_value
from server.engine.powers import compile_powers
from server.shell.app import App
from tests.client.helpers import check_places, run_all, seat_runners

# ---------------------------------------------------------------------- registry


def test_registry_names_and_lazy_import() -> None:
    """random, greedy, search and ismcts are registered as module:Class strings (only the two
    searching bots think in a thread); importing the registry imports no bot module."""
    assert {"random", "greedy", "search", "ismcts"} <= set(bot_names())
    assert BOTS["search"].target == "client.bots.search:SearchBot"
    assert all(":" in spec.target and spec.name == name for name, spec in BOTS.items())
    assert [name for name in bot_names() if thinks_in_thread(name)] == ["ismcts", "search"]
    assert not thinks_in_thread("not-a-bundled-bot")
    code = "import sys, client.bots; print(any(m.startswith('client.bots.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_make_bot_builds_with_the_given_rng_and_refuses_unknown_names() -> None:
    """make_bot returns the registered class with the rng given; an unknown name raises a
    ValueError that lists the known bots."""
    rng = random.Random(3)
    bot = make_bot("random", rng)
    assert isinstance(bot, RandomBot) and bot.rng is rng and bot.name == "random"
    assert isinstance(make_bot("greedy"), GreedyBot)
    with pytest.raises(ValueError) as info:
        make_bot("deep-blue")
    for name in ("random", "greedy", "search"):
        assert name in str(info.value)


def test_random_bot_is_reproducible_and_uses_every_option() -> None:
    """Two random bots with equal seeds choose alike; over many draws every legal action comes up."""
    view = {"legal": ["play 3c", "play 3c 3d", "play 9h", "take"]}
    a, b = RandomBot(random.Random(9)), RandomBot(random.Random(9))
    picks = [a.choose(view) for _ in range(200)]
    assert picks == [b.choose(view) for _ in range(200)]
    assert set(picks) == set(view["legal"])


# ---------------------------------------------------------------------- pure engine, every preset


def play_engine_game(preset: str, seats: int, seed: int, bots: Sequence[Bot]) -> Game:
    """Play one engine game with the bots choosing from ``view_for`` views; every choice
    must be in the view's legal list (which is the engine's legal list, as texts)."""
    game = Game.new(make_rules(preset), seats, seed=seed)
    for seat, bot in enumerate(bots):
        bot.on_game_start(view_for(game, seat))
    while not game.is_over():
        seat = game.to_act()[0]
        view = view_for(game, seat)
        bots[seat].observe(view, [])
        action = bots[seat].choose(view)
        assert action in view["legal"], (preset, seat, action, view["legal"])
        game.apply(seat, parse_action(action))
    return game


@pytest.mark.parametrize("preset", preset_names())
def test_random_and_greedy_finish_legal_games_under_every_preset(preset: str) -> None:
    """Under each preset, at its fewest and at up to four seats, greedy and random bots (mixed,
    and greedy only) always choose a legal action and every game ends."""
    info = preset_info(preset)
    lo, hi = info.min_players, info.max_players
    for seats in sorted({lo, min(hi, 4)}):
        for seed in range(2):
            mixed = [GreedyBot() if (i + seed) % 2 else RandomBot(random.Random(seed * 7 + i)) for i in range(seats)]
            game = play_engine_game(preset, seats, seed, mixed)
            outcome = game.outcome()
            assert outcome is not None and sorted(outcome.places) == list(range(seats))
        greedy_only = play_engine_game(preset, seats, 5, [GreedyBot() for _ in range(seats)])
        assert greedy_only.is_over()


def test_greedy_beats_random_in_most_games() -> None:
    """Greedy loses clearly fewer classic two-player games against random than half."""
    losses = 0
    for seed in range(40):
        bots: list[Bot] = [GreedyBot(), RandomBot(random.Random(seed))]
        if seed % 2:
            bots.reverse()
        game = play_engine_game("classic", 2, seed, bots)
        outcome = game.outcome()
        assert outcome is not None
        losses += isinstance(bots[outcome.loser], GreedyBot)
    assert losses < 10


# ---------------------------------------------------------------------- over the real server


@pytest.mark.parametrize("preset", ["classic", "alt_deal", "linz"])
async def test_bots_finish_games_over_the_server(server: App, connect: Any, preset: str) -> None:
    """Greedy and random runners finish a game over TCP under several presets, with no action
    refused as illegal."""
    bots = [GreedyBot(), make_bot("random", random.Random(4)), GreedyBot()]
    _, runners = await seat_runners(connect, server, bots, preset=preset, seed=2, options={"max_actions": 2000})
    stats = await run_all(runners)
    check_places(stats, 1)
    assert all(s.illegal == 0 and s.bot_errors == 0 and s.acts > 0 for s in stats)


# ---------------------------------------------------------------------- greedy's choices


def view(
    legal: list[str],
    *,
    pile: list[str] | None = None,
    preset: str = "classic",
    phase: str = "play",
    hand: list[str] | None = None,
    face_up: list[list[str]] | None = None,
) -> dict[str, Any]:
    """A minimal wire view for seat 0 with just what greedy reads."""
    return {
        "seat": 0,
        "phase": phase,
        "preset": preset,
        "pile": pile or [],
        "hand": hand or [],
        "legal": legal,
        "players": [{"seat": 0, "face_up": face_up or [[], [], []]}],
    }


def choose(v: dict[str, Any]) -> str:
    return GreedyBot().choose(v)


def test_greedy_plays_the_lowest_rank_with_all_its_copies() -> None:
    """The lowest plain rank goes, every card of it together; 2s and 10s stay in hand."""
    legal = ["play 5c", "play 5d", "play 5c 5d", "play 9h", "play 2s", "play Td", "take"]
    assert choose(view(legal, pile=["4h"])) == "play 5c 5d"
    assert choose(view(["play Ks", "play 2s", "play Td", "take"], pile=["Qh"])) == "play Ks"


def test_greedy_uses_power_cards_only_when_nothing_else_goes() -> None:
    """With only power cards playable: the 2 before the 10, on a small pile and on a big one
    (see server.engine.policies for why a big pile is not burned first), one card at a time,
    and never a pick-up."""
    legal = ["play 2s", "play 2c", "play 2c 2s", "play Td", "take"]
    assert choose(view(legal, pile=["Ah"])) == "play 2s"
    assert choose(view(legal, pile=["5h", "7c", "9d", "Jd", "Ah"])) == "play 2s"
    assert choose(view(["play Td", "take"], pile=["Ah"])) == "play Td"


def test_greedy_burns_by_completing_four_of_a_kind() -> None:
    """Completing four equal cards on the pile (five in wikibooks) beats playing the lowest
    card, with the fewest cards that complete it; short of four, the lowest card goes."""
    legal = ["play 5c", "play 2s", "play 2d", "play 2d 2s", "take"]
    assert choose(view(legal, pile=["2c", "2h"])) == "play 2d 2s"
    assert choose(view(legal, pile=["2c"])) == "play 5c"
    two_decks = ["play 9c", "play 9c 9c", "play Kd", "take"]
    assert choose(view(two_decks, pile=["9h", "9s", "9d"], preset="smeghead")) == "play 9c"
    threes = ["play 5c", "play 2c", "take"]
    assert choose(view(threes, pile=["2h", "2s", "2d"])) == "play 2c"
    assert choose(view(threes, pile=["2h", "2s", "2d"], preset="wikibooks")) == "play 5c"


def test_greedy_picks_up_last_and_gives_up_its_lowest_face_up_card() -> None:
    """take only when nothing else is legal; draw and gamble come before it; a face-up pick-up
    gives up the least valuable card."""
    assert choose(view(["take"], pile=["Ah"])) == "take"
    assert choose(view(["take Tc", "take 4h", "take Ac"], pile=["Ks"])) == "take 4h"
    assert choose(view(["play Td", "draw", "take"], pile=["Ah"], preset="linz")) == "draw"
    assert choose(view(["play 6c", "draw", "take"], pile=["5h"], preset="linz")) == "play 6c"
    assert choose(view(["gamble", "take"], pile=["Ah"], preset="egilsson")) == "gamble"
    assert choose(view(["flip 1", "flip 2"], pile=["Ah"])) == "flip 1"


def test_greedy_knows_the_presets_powers() -> None:
    """In linz the 7 (lower) goes after plain cards and the 8 (glass) is kept like a 2; in
    classic both are plain."""
    assert choose(view(["play 7c", "play 9d"], pile=["6h"], preset="linz")) == "play 9d"
    assert choose(view(["play 7c", "play 9d"], pile=["6h"])) == "play 7c"
    linz, six = compile_powers(make_rules("linz"), 4), compile_powers(make_rules("six_players"), 4)
    assert keep_value(linz, 8) > keep_value(linz, 14)  # glass 8 over the ace
    assert keep_value(six, 15) > keep_value(six, 14)  # glass jokers
    plain_jokers = compile_powers(make_rules("classic", {"jokers": 2}), 4)
    assert keep_value(plain_jokers, 15) == keep_value(plain_jokers, 14) + 1  # a powerless joker: above the ace


def apply_setup(v: dict[str, Any], action: str) -> None:
    """Carry out a swap in a constructed view, and list the next legal setup actions."""
    _, card, slot = action.split()
    row = v["players"][0]["face_up"]
    v["hand"].remove(card)
    v["hand"].append(row[int(slot)][0])
    row[int(slot)] = [card]
    v["legal"] = ["ready"] + [f"swap {c} {s}" for s in range(3) for c in v["hand"]]


def test_greedy_setup_puts_its_best_cards_face_up_then_readies() -> None:
    """Swapping until no swap helps leaves the 10, the 2 and the ace face up; then ready."""
    v = view([], phase="setup", hand=["3c", "Ts", "Ah"], face_up=[["4d"], ["2s"], ["9h"]])
    v["legal"] = ["ready"] + [f"swap {c} {s}" for s in range(3) for c in v["hand"]]
    bot = GreedyBot()
    for _ in range(10):
        action = bot.choose(v)
        if action == "ready":
            break
        apply_setup(v, action)
    assert action == "ready"
    assert sorted(stack[0] for stack in v["players"][0]["face_up"]) == ["2s", "Ah", "Ts"]
    assert sorted(v["hand"]) == ["3c", "4d", "9h"]


def test_greedy_required_placements_and_announcements() -> None:
    """A required placement puts the most valuable card face up; announcing names the lowest
    plain card, or passes with only power cards."""
    places = [f"place {c} {s}" for s in range(3) for c in ["4s", "8c", "Tc", "Jc", "As", "2d"]]
    assert choose(view(places, phase="setup")).startswith("place Tc ")
    assert choose(view(["announce 3c", "announce 9h", "announce 2s", "pass"], phase="announce")) == "announce 3c"
    assert choose(view(["announce 2s", "announce Td", "pass"], phase="announce")) == "pass"
