"""The information-set MCTS bot (``client/bots/ismcts.py``) and the benchmark's perfect-information
bot built on it (``benchmarks/perfect.py``).

* ismcts answers only with legal actions and finishes games under several presets and table
  sizes (a few iterations a decision, no clock), without falling back from its rules assumption.
* With a seeded rng and ``max_iterations`` (no budget) it is deterministic.
* It does not peek: two games that look the same from its seat but differ in every hidden card
  it cannot know give the same choices with the same seed.
* In a constructed endgame where the greedy choice loses, it finds the winning move.
* The catalogue offers it (and runs it in a worker thread); the perfect bot is not offered.
* The perfect bot and the hands oracle play legal moves through a game when handed the true
  game; the hands oracle deals every hand as it is and the face-down cards and the stock at
  random.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from typing import Any

import pytest

from benchmarks.perfect import HandsBot, Oracle, PerfectBot
from client.bot import Bot
from client.bots import BOTS, bot_names, make_bot, thinks_in_thread
from client.bots.ismcts import ISMCTSBot
from server.engine import Game, make_rules, view_for
from server.engine.cards import RANK
from server.engine.policies import greedy_policy
from server.engine.position import game_from
from tests.client.test_search import _endgame, _RandomBot, play_with_bots


def _seed(*parts: object) -> int:
    return zlib.crc32(":".join(map(str, parts)).encode())


def _bot(seed: int, **kwargs: Any) -> ISMCTSBot:
    """A deterministic ismcts bot: no clock, few iterations, short playouts."""
    return ISMCTSBot(random.Random(seed), budget=None, **{"max_iterations": 8, "rollout_cap": 60, **kwargs})


@pytest.mark.parametrize(("preset", "seats"), [("classic", 4), ("linz", 3), ("smeghead", 4), ("six_players", 6)])
def test_ismcts_plays_legal_moves_to_the_end(preset: str, seats: int) -> None:
    """ismcts bots (the plain tree with opponents in it and playouts to the end; the paired
    root with greedy opponents, progressive widening and truncated playouts) and random bots
    finish a game; every answer is legal (play_with_bots asserts it) and the search never
    needs its fallback."""
    rules = make_rules(preset, {"max_actions": 400})
    seats = min(seats, rules.max_players)
    game = Game.new(rules, seats, rng=random.Random(_seed("ismcts", preset)))
    bots: list[Bot] = [
        _bot(0, paired_root=False, horizon=0),
        _bot(1, paired_root=True, tree_opponents=False, widen=1.0, horizon=6),
    ]
    bots += [_RandomBot(random.Random(s)) for s in range(2, seats)]
    play_with_bots(game, bots)
    assert game.outcome() is not None
    searched = 0
    for bot in bots[:2]:
        assert isinstance(bot, ISMCTSBot)
        assert bot.stats["fallbacks"] == 0
        assert bot.stats["iterations"] >= bot.stats["searched"]
        searched += bot.stats["searched"]
    assert searched > 0


def test_ismcts_is_deterministic_with_a_seed_and_no_clock() -> None:
    """budget=None and max_iterations: the same seeds give the same game, move for move."""

    def run() -> list[tuple[int, Any]]:
        game = Game.new(make_rules("classic"), 3, seed=4)
        play_with_bots(game, [_bot(9 + s, widen=float(s)) for s in range(3)])
        return game.history

    first = run()
    assert first and first == run()


def _midgame(seed: int, seat: int) -> Game:
    """A classic 4-seat game played by greedy until ``seat`` must choose between plays of at
    least two ranks with cards left in the stock (so hands, face-down cards and stock are all
    hidden); the first such position of the first seeded game that has one."""
    for attempt in range(50):
        rng = random.Random(_seed("midgame", seed, attempt))
        game = Game.new(make_rules("classic"), 4, rng=rng)
        while game.phase != "over":
            s = game.current if game.phase != "setup" else game.to_act()[0]
            ranks = {RANK[a[1][0]] for a in game.legal_actions(s) if a[0] == "play"}
            if game.phase == "play" and s == seat and len(ranks) >= 2 and len(game.stock) > 3 and game.history:
                return game
            game.apply(s, greedy_policy(game, s, rng))
    raise AssertionError("no suitable position in 50 games")


def _reshuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """``game`` with every card ``seat`` cannot see (other hands, all face-down cards, the
    stock) dealt again at random: the same view for ``seat``, other hidden cards."""
    hidden = list(game.stock)
    for s in range(game.n):
        if s != seat:
            hidden += game.hand(s)
        hidden += [c for c in game.face_down[s] if c is not None]
    rng.shuffle(hidden)
    it = iter(hidden)
    hands = [game.hand(s) if s == seat else [next(it) for _ in range(game.hand_n[s])] for s in range(game.n)]
    face_down = [[None if c is None else next(it) for c in row] for row in game.face_down]
    stock = [next(it) for _ in game.stock]
    return game_from(
        game.rules,
        game.n,
        hands=hands,
        face_up=game.face_up,
        face_down=face_down,
        stock=stock,
        pile=game.pile,
        burned=game.burned,
        current=game.current,
        dealer=game.dealer,
        direction=game.direction,
        finish=game.finish,
        last_player=game.last_player,
        first_burner=game.first_burner,
        actions_done=len(game.history),
    )


@pytest.mark.parametrize("seed", [3, 11])
def test_ismcts_does_not_peek_at_hidden_cards(seed: int) -> None:
    """Two positions identical from the seat's view but with different hidden cards: the bot,
    seeded alike, makes the same choice in both (it searched: the choice was not forced),
    while the perfect bot, the same search shown the cards, chooses differently."""
    seat = 1
    real = _midgame(seed, seat)
    a = _reshuffled(real, seat, random.Random(seed))
    b = _reshuffled(real, seat, random.Random(seed + 1000))
    view_a, view_b = view_for(a, seat), view_for(b, seat)
    assert view_a == view_b
    assert any(Counter(a.hand(s)) != Counter(b.hand(s)) for s in range(4) if s != seat)
    assert a.face_down != b.face_down and a.stock != b.stock
    choices, peeks = [], []
    for game, view in ((a, view_a), (b, view_b)):
        bot = ISMCTSBot(random.Random(5), budget=None, max_iterations=200)
        bot.observe(view, [])
        choices.append(bot.choose(view))
        assert bot.stats["searched"] == 1
        cheat = PerfectBot(random.Random(5), budget=None, max_iterations=200)
        cheat.watch(game)
        cheat.observe(view, [])
        peeks.append(cheat.choose(view))
    assert choices[0] == choices[1]
    # The hidden cards matter here: the same search, seeing them, chooses differently.
    assert peeks[0] != peeks[1]


@pytest.mark.parametrize(
    ("paired_root", "tree_opponents"), [(False, True), (False, False), (True, True), (True, False)]
)
def test_ismcts_finds_the_winning_burn(paired_root: bool, tree_opponents: bool) -> None:
    """The greedy choice (the lowest card) loses; the tree search burns first and wins."""
    game = _endgame()
    view = view_for(game, 0)
    bot = ISMCTSBot(
        random.Random(1), budget=None, max_iterations=60, paired_root=paired_root, tree_opponents=tree_opponents
    )
    bot.observe(view, [])
    assert view["legal"][bot.heuristic(view)] == "play 4c"  # greedy's choice
    assert bot.choose(view) == "play Ts"
    assert bot.stats["deviations"] == 1


def test_catalogue_offers_ismcts_in_a_thread_and_not_perfect() -> None:
    """Every program that reads the catalogue offers ismcts; the cheating ceiling is not there."""
    assert "ismcts" in bot_names()
    assert BOTS["ismcts"].target == "client.bots.ismcts:ISMCTSBot"
    assert thinks_in_thread("ismcts")
    rng = random.Random(2)
    bot = make_bot("ismcts", rng)
    assert isinstance(bot, ISMCTSBot) and bot.rng is rng and bot.name == "ismcts"
    assert "perfect" not in bot_names()
    assert not any("perfect" in spec.target for spec in BOTS.values())


@pytest.mark.parametrize("oracle", [PerfectBot, HandsBot])
def test_oracles_play_legal_moves_seeing_the_game(oracle: type[Oracle]) -> None:
    """The perfect bot and the hands oracle, handed the live game, answer legally to the end;
    without the game they cannot search (and fall back to the greedy choice rather than fail
    the turn)."""
    game = Game.new(make_rules("classic", {"max_actions": 400}), 3, seed=8)
    bots = [oracle(random.Random(s), budget=None, max_iterations=8, rollout_cap=60) for s in range(3)]
    for bot in bots:
        bot.watch(game)
    play_with_bots(game, list(bots))
    assert game.outcome() is not None
    assert all(b.stats["fallbacks"] == 0 for b in bots)
    assert sum(b.stats["searched"] for b in bots) > 0
    blind = oracle(random.Random(1), budget=None, max_iterations=8)
    position = _endgame()
    view = view_for(position, 0)
    blind.observe(view, [])
    assert blind.choose(view) in view["legal"]
    assert blind.stats["fallbacks"] == 1


def test_oracles_playout_horizons() -> None:
    """The perfect bot plays its playouts to the end (on the true deal they are the real
    future) unless told otherwise; the hands oracle keeps the ismcts bot's horizon."""
    assert PerfectBot(random.Random(1)).horizon == 0
    assert PerfectBot(random.Random(1), horizon=5).horizon == 5
    assert HandsBot(random.Random(1)).horizon == ISMCTSBot(random.Random(1)).horizon > 0


def test_hands_oracle_deals_the_true_hands_and_the_rest_at_random() -> None:
    """The hands oracle's deals keep every hand as it truly is, every public zone and every
    face-down slot where it is; the face-down cards and the stock are the true ones between
    them, dealt anew (two deals differ)."""
    seat = 1
    real = _midgame(5, seat)
    view = view_for(real, seat)
    bot = HandsBot(random.Random(3), budget=None, max_iterations=8, rollout_cap=60)
    bot.watch(real)
    bot.observe(view, [])
    dets = bot._determinizer(view)
    deals = [dets.game(random.Random(k), check=True) for k in range(2)]
    hidden = Counter(real.stock) + Counter(c for row in real.face_down for c in row if c is not None)
    for det in deals:
        assert all(Counter(det.hand(s)) == Counter(real.hand(s)) for s in range(real.n))
        assert det.face_up == real.face_up and det.pile == real.pile
        covered = [[c is None for c in row] for row in det.face_down]
        assert covered == [[c is None for c in row] for row in real.face_down]
        assert Counter(det.stock) + Counter(c for row in det.face_down for c in row if c is not None) == hidden
    assert (deals[0].stock, deals[0].face_down) != (deals[1].stock, deals[1].face_down)
