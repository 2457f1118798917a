"""The card tracker and the search bot (``client/bots/tracker.py``, ``client/bots/search.py``).

* The tracker, fed only views and public events, never claims a card in a hand that is not
  there, its unseen cards are exactly the hidden ones, and its samples conserve the cards
  (checked against the true game after every step, under every preset, with seats that
  observe every state and seats that observe only when they act).
* The search bot answers only with legal actions and finishes games under every preset
  (small, deterministic playout counts), without falling back from its rules assumption.
* In a constructed position where the greedy choice loses, search finds the winning move.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from typing import Any

import pytest

from client.bot import Bot
from client.bots.search import SearchBot
from client.bots.tracker import CardTracker, infer_rules
from server.engine import (
    PRESETS,
    Game,
    build_deck,
    event_to_dict,
    format_action,
    make_rules,
    parse_action,
    parse_cards,
    view_for,
)
from server.engine.cards import RANK
from server.engine.policies import greedy_policy
from server.engine.position import game_from


def _seed(*parts: object) -> int:
    return zlib.crc32(":".join(map(str, parts)).encode())


def _hidden(game: Game, seat: int, tr: CardTracker) -> Counter[int]:
    """The cards ``seat`` cannot see: other hands beyond the tracker's known cards, every
    face-down card, the stock."""
    out: Counter[int] = Counter(game.stock)
    for s in range(game.n):
        if s != seat:
            out.update(Counter(game.hand(s)) - Counter(tr.known_in_hand(s)))
        out.update(c for c in game.face_down[s] if c is not None)
    return out


def check_tracker(game: Game, seat: int, tr: CardTracker, rng: random.Random) -> None:
    """Everything the tracker says of ``game`` from the point of view of ``seat`` is true."""
    assert tr.known_in_hand(seat) == game.hand(seat)
    for s in range(game.n):
        known = Counter(tr.known_in_hand(s))
        assert not known - Counter(game.hand(s)), f"seat {s}: claimed cards not in the hand"
        assert tr.unknown_in_hand(s) == game.hand_n[s] - sum(known.values())
        assert tr.face_down_count(s) == sum(c is not None for c in game.face_down[s])
    assert tr.unseen() == _hidden(game, seat, tr)
    assert tr.hidden_slots() == sum(tr.unseen().values())
    det = tr.sample(rng)
    for s in range(game.n):
        assert not Counter(tr.known_in_hand(s)) - Counter(det.hands[s])
        assert len(det.hands[s]) == game.hand_n[s]
        assert [c is None for c in det.face_down[s]] == [c is None for c in game.face_down[s]]
    assert len(det.stock) == len(game.stock)
    if game.phase == "play":  # game_from checks conservation of every card
        game_from(
            game.rules,
            game.n,
            hands=det.hands,
            face_up=tr.face_up,
            face_down=det.face_down,
            stock=det.stock,
            pile=tr.pile,
            burned=det.burned,
            current=game.current,
            finish=tr.finish,
            direction=game.direction,
        )


@pytest.mark.parametrize("preset", list(PRESETS))
def test_tracker_is_never_wrong(preset: str) -> None:
    """Seeded games, mostly greedy with random moves mixed in: every seat's tracker is checked
    after each of its updates. Seats 0 and 1 observe every state; the others only when they act
    (events batched), as a bot that is called less often would."""
    rules = make_rules(preset)
    seats = min(4, rules.max_players)
    for game_no in range(2):
        rng = random.Random(_seed("tracker", preset, game_no))
        game = Game.new(rules, seats, rng=rng)
        trackers = [CardTracker() for _ in range(seats)]
        pending: list[list[dict[str, Any]]] = [[] for _ in range(seats)]
        for s in range(seats):
            trackers[s].update(view_for(game, s), [])
        steps = 0
        while game.phase != "over" and steps < 400:
            seat = game.current if game.phase != "setup" else game.to_act()[0]
            for s in range(seats):
                if s < 2 or s == seat:
                    trackers[s].update(view_for(game, s), pending[s])
                    pending[s] = []
                    check_tracker(game, s, trackers[s], rng)
            if rng.random() < 0.8:
                action = greedy_policy(game, seat, rng)
            else:
                action = rng.choice(game.legal_actions(seat))
            events = [event_to_dict(e) for e in game.apply(seat, action)]
            for p in pending:
                p.extend(events)
            steps += 1


def test_tracker_follows_a_pick_up() -> None:
    """Cards an opponent picks up are known in its hand until it plays them."""
    rules = make_rules("classic")
    c = parse_cards
    game = game_from(
        rules,
        2,
        hands=[c("5c 6c 7c"), c("3d 4d 5d")],
        face_up=[[[x] for x in c("8c 9c Jc")], [[x] for x in c("8d 9d Jd")]],
        face_down=[c("Qc Kc Ac"), c("Qd Kd Ad")],
        stock=[],
        pile=c("Kh"),
        current=1,
        burned=[x for x in build_deck(1, 0) if x not in c("5c 6c 7c 3d 4d 5d 8c 9c Jc 8d 9d Jd Qc Kc Ac Qd Kd Ad Kh")],
    )
    tr = CardTracker()
    tr.update(view_for(game, 0), [])
    assert tr.known_in_hand(1) == [] and tr.unknown_in_hand(1) == 3
    events = [event_to_dict(e) for e in game.apply(1, ("take",))]
    tr.update(view_for(game, 0), events)
    assert tr.known_in_hand(1) == c("Kh") and tr.unknown_in_hand(1) == 3
    events = [event_to_dict(e) for e in game.apply(0, ("play", tuple(c("5c"))))]
    events += [event_to_dict(e) for e in game.apply(1, ("play", tuple(c("Kh"))))]
    tr.update(view_for(game, 0), events)
    assert tr.known_in_hand(1) == [] and tr.unknown_in_hand(1) == 3
    assert tr.pile == c("5c Kh")


def test_infer_rules_counts_decks_and_jokers() -> None:
    """The view names only the preset; the card total reveals extra decks and jokers, and the
    first setup view the deal sizes."""
    for options in ({"decks": 2}, {"jokers": 2}, {"decks": 3, "jokers": 1}, {"face_down": 4, "hand": 4}):
        game = Game.new(make_rules("classic", options), 3, seed=1)
        rules = infer_rules(view_for(game, 0))
        for name, value in options.items():
            assert getattr(rules, name) == value
    for preset in PRESETS:  # with no overrides, the preset itself, from any view
        rules = make_rules(preset)
        game = Game.new(rules, rules.min_players, seed=1)
        assert infer_rules(view_for(game, 0)) == rules
        game.apply(0, game.legal_actions(0)[-1])
        assert infer_rules(view_for(game, 1)) == rules


class _RandomBot(Bot):
    def choose(self, view: dict[str, Any]) -> str:
        return self.rng.choice(view["legal"])


def play_with_bots(game: Game, bots: list[Bot]) -> None:
    """Play ``game`` to the end as the benchmark does (views and events only), checking that
    every answer is legal."""
    pending: list[list[dict[str, Any]]] = [[] for _ in range(game.n)]
    for s, bot in enumerate(bots):
        bot.on_game_start(view_for(game, s))
    while game.phase != "over":
        seat = game.current if game.phase != "setup" else game.to_act()[0]
        view = view_for(game, seat)
        bots[seat].observe(view, pending[seat])
        pending[seat] = []
        text = bots[seat].choose(view)
        assert text in view["legal"], (text, view["legal"])
        events = [
            event_to_dict(e)
            for e in game.apply(
                seat, game.legal_actions(seat)[[format_action(a) for a in game.legal_actions(seat)].index(text)]
            )
        ]
        for p in pending:
            p.extend(events)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_search_plays_legal_moves_to_the_end(preset: str) -> None:
    """Two search bots (few playouts, deterministic) and random bots finish a game under every
    preset; the search never needs its fallback (its rules reproduce the legal lists)."""
    rules = make_rules(preset, {"max_actions": 400})
    seats = min(3, rules.max_players)
    rng = random.Random(_seed("search", preset))
    game = Game.new(rules, seats, rng=rng)
    bots: list[Bot] = [SearchBot(random.Random(s), budget=None, max_sims=6, rollout_cap=60) for s in range(2)]
    bots += [_RandomBot(random.Random(s)) for s in range(2, seats)]
    play_with_bots(game, bots)
    assert game.outcome() is not None
    for bot in bots[:2]:
        assert isinstance(bot, SearchBot)
        assert bot.stats["fallbacks"] == 0
    assert sum(b.stats["searched"] for b in bots if isinstance(b, SearchBot)) > 0


def _endgame() -> Game:
    """Seat 0 to play on a 3 holding 4c and Ts (nothing else); seat 1 holds one card. Playing
    the 4 first lets seat 1 go out with almost any card; the 10 burns, then the 4 goes out."""
    c = parse_cards
    rest = [x for x in build_deck(1, 0) if x not in c("4c Ts 3d Ad")]
    return game_from(
        make_rules("classic"),
        2,
        hands=[c("4c Ts"), c("Ad")],
        face_up=[[[], [], []], [[], [], []]],
        face_down=[[None] * 3, [None] * 3],
        stock=[],
        pile=c("3d"),
        burned=rest,
        current=0,
    )


def test_search_finds_the_winning_burn() -> None:
    """The heuristic plays the lowest card (and loses); the search burns first and wins."""
    game = _endgame()
    view = view_for(game, 0)
    bot = SearchBot(random.Random(1), budget=None, max_sims=40)
    bot.observe(view, [])
    assert sorted(view["legal"]) == ["play 4c", "play Ts", "take"]
    assert view["legal"][bot.heuristic(view)] == "play 4c"  # greedy's choice
    assert greedy_policy(game, 0) == parse_action("play 4c")
    assert bot.choose(view) == "play Ts"
    assert bot.stats["searched"] == 1


def test_search_is_deterministic_with_a_seed_and_no_clock() -> None:
    """budget=None and max_sims: the same seed gives the same choices."""

    def run() -> list[tuple[int, Any]]:
        game = Game.new(make_rules("classic"), 3, seed=4)
        bots: list[Bot] = [SearchBot(random.Random(9), budget=None, max_sims=4, rollout_cap=40) for _ in range(3)]
        play_with_bots(game, bots)
        return game.history

    assert run() == run()


@pytest.mark.parametrize(("preset", "seats"), [("classic", 2), ("six_players", 6), ("smeghead", 5)])
def test_search_at_other_table_sizes(preset: str, seats: int) -> None:
    """Heads-up and full tables: every seat a search bot, legal answers to the end."""
    rules = make_rules(preset, {"max_actions": 500})
    game = Game.new(rules, seats, rng=random.Random(_seed("sizes", preset, seats)))
    bots: list[Bot] = [SearchBot(random.Random(s), budget=None, max_sims=4, rollout_cap=40) for s in range(seats)]
    play_with_bots(game, bots)
    assert game.outcome() is not None
    assert all(b.stats["fallbacks"] == 0 for b in bots if isinstance(b, SearchBot))


def test_unknown_overrides_fall_back_to_legal_heuristic_moves() -> None:
    """An override the view does not show (here ``ten_anywhere: false``) makes the assumed
    rules list other actions at some point: the bot notices and answers from the view."""
    rules = make_rules("classic", {"ten_anywhere": False, "max_actions": 500})
    fallbacks = 0
    for game_no in range(3):
        game = Game.new(rules, 3, rng=random.Random(_seed("override", game_no)))
        bots: list[Bot] = [SearchBot(random.Random(s), budget=None, max_sims=4, rollout_cap=40) for s in range(3)]
        play_with_bots(game, bots)
        fallbacks += sum(b.stats["fallbacks"] for b in bots if isinstance(b, SearchBot))
    assert fallbacks > 0


@pytest.mark.parametrize("inference", ["pickups", "plays", "both"])
@pytest.mark.parametrize("preset", ["classic", "smeghead", "six_players"])
def test_inferences_hold_against_greedy_players(preset: str, inference: str) -> None:
    """With ``infer_pickups`` and/or ``infer_plays``, every claim "at least k unknown hand cards
    hold none of these ranks" is true of the real hands when every seat plays greedy (which
    picks up only when nothing else goes, and plays its cheapest rank whole), and the samples
    honour it; the inference is used (claims are made, and by plays ranks that no pick-up bars)."""
    rules = make_rules(preset)
    seats = min(4, rules.max_players)
    claims = 0
    for game_no in range(3):
        rng = random.Random(_seed("infer", preset, game_no))
        game = Game.new(rules, seats, rng=rng)
        trackers = [
            CardTracker(infer_pickups=inference != "plays", infer_plays=inference != "pickups") for _ in range(seats)
        ]
        pending: list[list[dict[str, Any]]] = [[] for _ in range(seats)]
        for s in range(seats):
            trackers[s].update(view_for(game, s), [])
        while game.phase != "over":
            seat = game.current if game.phase != "setup" else game.to_act()[0]
            tr = trackers[seat]
            tr.update(view_for(game, seat), pending[seat])
            pending[seat] = []
            det = tr.sample(rng) if game.phase == "play" else None
            for s in range(seats):
                for k, ranks in tr.claims(s):
                    claims += 1
                    unknown = Counter(game.hand(s)) - Counter(tr.known_in_hand(s))
                    assert sum(n for c, n in unknown.items() if RANK[c] not in ranks) >= k
                    if det is not None:
                        sampled = Counter(det.hands[s]) - Counter(tr.known_in_hand(s))
                        assert sum(n for c, n in sampled.items() if RANK[c] not in ranks) >= k
            events = [event_to_dict(e) for e in game.apply(seat, greedy_policy(game, seat, rng))]
            for p in pending:
                p.extend(events)
    assert claims > 0
