"""Invariants of the engine over seeded random (and greedy) games under every preset and
player count (docs/ARCHITECTURE.md): cards are conserved, every listed legal action is accepted, an
unlisted one is refused with the state unchanged, every game ends, a record replays to the
same state, and no view or event leaks a card its receiver must not know.

Cheap invariants (conservation, events) are checked after every action; the expensive ones
(views, clones, refusals) on a sample of steps, so the whole file stays fast.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import (
    PRESETS,
    Game,
    IllegalAction,
    IllegalReason,
    ReplayRecord,
    build_deck,
    event_to_dict,
    make_rules,
    parse_action,
    parse_card,
    view_for,
)
from server.engine.cards import card_bits

# --------------------------------------------------------------------------- parameters

COMBOS: list[tuple[str, int]] = [
    (p, n) for p in PRESETS for n in range(make_rules(p).min_players, make_rules(p).max_players + 1)
]
COMBO_IDS = [f"{p}-{n}" for p, n in COMBOS]

_DECKS: dict[tuple[int, int], list[int]] = {}


def full_deck(rules: Any) -> list[int]:
    key = (rules.decks, rules.jokers)
    if key not in _DECKS:
        _DECKS[key] = build_deck(*key)
    return _DECKS[key]


def seed_of(*parts: object) -> int:
    """A stable seed (independent of PYTHONHASHSEED) from test parameters."""
    return zlib.crc32(":".join(map(str, parts)).encode())


def new_game(preset: str, n: int, seed: int, options: dict[str, Any] | None = None) -> Game:
    return Game.new(make_rules(preset, options), n, seed=seed)


# --------------------------------------------------------------------------- policies

Policy = Callable[[Game, int, random.Random], tuple]


def random_policy(game: Game, seat: int, rng: random.Random) -> tuple:
    return rng.choice(game.legal_actions(seat))


def greedy_policy(game: Game, seat: int, rng: random.Random) -> tuple:
    """Lowest legal play (fewest cards); draw/gamble/take only when no play is listed."""
    legal = game.legal_actions(seat)
    kinds = {a[0] for a in legal}
    if kinds & {"swap", "place", "ready"}:
        if ("ready",) in legal:
            return ("ready",)
        return next(a for a in legal if a[0] == "place")
    if "announce" in kinds or "pass" in kinds:
        anns = [a for a in legal if a[0] == "announce"]
        return min(anns, key=lambda a: (a[1] >> 2, a[1])) if anns else ("pass",)
    plays = [a for a in legal if a[0] in ("play", "run")]
    if plays:
        return min(plays, key=lambda a: (a[1][0] >> 2, len(a[1]), a[1]))
    for kind in ("flip", "draw", "gamble", "take"):
        for a in legal:
            if a[0] == kind:
                return a
    raise AssertionError(f"no action chosen from {legal}")


def mixed_policy(game: Game, seat: int, rng: random.Random) -> tuple:
    """Mostly greedy (so games reach the face-up and face-down endgame quickly), sometimes random."""
    return greedy_policy(game, seat, rng) if rng.random() < 0.8 else random_policy(game, seat, rng)


def acting_seat(game: Game, rng: random.Random) -> int:
    return rng.choice(game.to_act())


# --------------------------------------------------------------------------- state helpers


def all_cards(game: Game) -> Counter:
    cards: list[int] = list(game.stock)
    cards += game.pile
    cards += game.burned
    for s in range(game.n):
        cards += game.hand(s)
        for stack in game.face_up[s]:
            cards += stack
        cards += [x for x in game.face_down[s] if x is not None]
    return Counter(cards)


def check_conservation(game: Game, where: str = "") -> None:
    expected = Counter(full_deck(game.rules))
    got = all_cards(game)
    assert got == expected, (
        f"{where}: cards not conserved: missing {sorted((expected - got).elements())}, "
        f"extra {sorted((got - expected).elements())}"
    )
    for s in range(game.n):
        assert game.hand_n[s] == len(game.hand(s)), f"{where}: hand_n[{s}] wrong"
        bits = card_bits(game.hand(s)) if game.rules.suit_runs else 0
        assert game.hand_bits[s] == bits, f"{where}: hand_bits[{s}] wrong"
        assert list(game.plays[s]) == sorted(game.groups[s]), f"{where}: plays[{s}] not one entry per rank, in order"


def snapshot(game: Game) -> tuple:
    """Every part of the state that an action could change (for 'unchanged' checks)."""
    return (
        game.phase,
        game.current,
        game.direction,
        game.version,
        len(game.history),
        tuple(tuple(game.hand(s)) for s in range(game.n)),
        tuple(game.hand_n),
        tuple(tuple(tuple(st_) for st_ in row) for row in game.face_up),
        tuple(tuple(row) for row in game.face_down),
        tuple(game.stock),
        tuple(game.pile),
        tuple(game.burned),
        game.eff,
        game.last_len,
        game.last_player,
        game.forced,
        game.drew,
        tuple(game.ready),
        tuple(game.out),
        tuple(game.finish),
        tuple(game.announcements),
        game.announce_left,
        game.turn_hand,
        game.capped,
        game.places,
        game.first_burner,
    )


def all_views(game: Game) -> list[dict]:
    return [view_for(game, s) for s in range(game.n)] + [view_for(game, None)]


def public_state(game: Game) -> tuple:
    """What the brief names for refusals: every view, the version, history length, stock, pile."""
    return (all_views(game), game.version, len(game.history), list(game.stock), list(game.pile))


def face_up_cards(game: Game, seat: int) -> list[int]:
    return [c for stack in game.face_up[seat] for c in stack]


def action_cards(action: tuple) -> list[int]:
    kind = action[0]
    if kind in ("play", "run"):
        return list(action[1])
    if kind in ("swap", "place", "announce") or (kind == "take" and len(action) == 2):
        return [action[1]]
    return []


def normalise(action: object) -> object:
    """The engine accepts a play's cards in any order: compare in sorted form."""
    if (
        isinstance(action, tuple)
        and len(action) == 2
        and action[0] in ("play", "run")
        and isinstance(action[1], tuple)
        and all(type(c) is int for c in action[1])
    ):
        return (action[0], tuple(sorted(action[1])))
    return action


# --------------------------------------------------------------------------- view leaks

# A card named anywhere in text: canonical (7h, Td, Xr) or as a person might write it (10h, 7H).
_CARD_RE = re.compile(r"(?<![\w])(?:10|[2-9TJQKA])[cdhsCDHS](?![\w])|(?<![\w])X[rbRB](?![\w])")


def count_cards(text: str) -> Counter:
    """Every card named in ``text`` (for example a view serialised as JSON, or a message)."""
    return Counter(parse_card(m) for m in _CARD_RE.findall(text))


def check_view(game: Game, seat: int | None, view: dict | None = None, public: Counter | None = None) -> None:
    """The view of ``seat`` names no card beyond what that seat may know (RULES.md C4).

    A card value may show up as often as copies of it are legitimately visible to the seat
    (its own hand, every face-up stack, the pile, announcements): with several decks the
    same value can be both visible and hidden. One more occurrence is a leak.
    """
    if view is None:
        view = view_for(game, seat)
    if public is None:
        public = public_cards(game)
    where = f"{game.rules.preset}/{game.n} seat {seat}, action {len(game.history)}"
    own_hand = Counter(game.hand(seat)) if seat is not None else Counter()
    own_up = Counter(face_up_cards(game, seat)) if seat is not None else Counter()
    visible = public + own_hand

    # Action texts repeat the seat's own cards: the union over actions must be its own.
    union: dict[int, int] = {}
    for text in view["legal"]:
        for c, k in Counter(action_cards(parse_action(text))).items():
            if k > union.get(c, 0):
                union[c] = k
    mine = own_hand + own_up
    extra = {c: k for c, k in union.items() if k > mine[c]}
    assert not extra, f"{where}: legal actions name cards the seat does not hold: {extra}"
    if view["must_play"] is not None:
        c = parse_card(view["must_play"])
        assert any(c == a for _, a in game.announcements), f"{where}: must_play not announced"
    rest = {k: v for k, v in view.items() if k not in ("legal", "must_play")}
    shown = count_cards(json.dumps(rest))
    too_many = shown - visible
    if too_many:
        hidden: Counter = Counter(game.stock)
        for s in range(game.n):
            hidden.update(c for c in game.face_down[s] if c is not None)
            if s != seat:
                hidden.update(game.hand(s))
        leaked = {c: k for c, k in too_many.items() if hidden[c]}
        assert not leaked, f"{where}: view leaks hidden cards {leaked}"
        raise AssertionError(f"{where}: view names cards nobody can see {dict(too_many)}")

    # Structure: the right hand (none for a spectator), face-down cards only as flags.
    if seat is None:
        assert view["hand"] is None and view["legal"] == [], f"{where}: spectator sees a hand"
    else:
        assert Counter(parse_card(t) for t in view["hand"]) == own_hand, f"{where}: wrong hand"
    for s, p in enumerate(view["players"]):
        assert all(type(x) is bool for x in p["face_down"]), f"{where}: face-down shown as cards"
        assert p["hand_count"] == game.hand_n[s]
    assert view["stock_count"] == len(game.stock)


def public_cards(game: Game) -> Counter:
    """Cards everyone sees: every face-up stack, the pile, the announced cards."""
    cards = list(game.pile)
    for s in range(game.n):
        cards += face_up_cards(game, s)
    cards += [c for _, c in game.announcements]
    return Counter(cards)


def check_all_views(game: Game) -> None:
    public = public_cards(game)
    for s in [*range(game.n), None]:
        check_view(game, s, public=public)


# --------------------------------------------------------------------------- events


class Before:
    """What was public, and what the actor held, before an action (to judge its events)."""

    def __init__(self, game: Game, seat: int, action: tuple) -> None:
        self.public: set[int] = set(game.pile) | {c for _, c in game.announcements}
        for s in range(game.n):
            self.public.update(face_up_cards(game, s))
        self.hand = Counter(game.hand(seat))
        self.face_down = list(game.face_down[seat])
        self.stock_top = game.stock[-1] if game.stock else None
        self.burned = len(game.burned)
        self.action = action
        self.seat = seat


def event_cards(event: tuple) -> list[int]:
    d = event_to_dict(event)
    out = []
    for name in ("to_face_up", "to_hand", "card"):
        if d.get(name) is not None:
            out.append(parse_card(d[name]))
    out.extend(parse_card(t) for t in d.get("cards", ()))
    return out


def check_events(game: Game, before: Before, events: list[tuple]) -> None:
    """Events name only public cards: a 'drew' is a count, a 'first_player' card is public."""
    named: list[tuple[tuple, int]] = []
    for e in events:
        kind = e[0]
        if kind == "drew":
            assert len(e) == 3 and type(e[2]) is int and e[2] > 0, f"'drew' carries more than a count: {e}"
        elif kind == "first_player" and e[2] is not None:
            c, s = e[2], e[1]
            assert c in face_up_cards(game, s) or (s, c) in game.announcements, (
                f"'first_player' names a card that is neither face up nor announced: {e}"
            )
        elif kind == "flipped":
            assert before.face_down[e[2]] == e[3] and before.seat == e[1]
        elif kind == "gambled":
            assert e[2] == before.stock_top
        named += [(e, c) for c in event_cards(e)]
    if not named:
        return
    # Most named cards are now on the pile or burned; only the rest need the full judgement.
    allowed = set(game.pile) | set(game.burned[before.burned :])
    rest = [(e, c) for e, c in named if c not in allowed]
    if not rest:
        return
    allowed |= before.public | {c for _, c in game.announcements}
    for s in range(game.n):
        allowed.update(face_up_cards(game, s))
    allowed |= set((before.hand - Counter(game.hand(before.seat))).elements())
    allowed |= {
        c for c, now in zip(before.face_down, game.face_down[before.seat], strict=True) if c is not None and now is None
    }
    if before.action[0] == "gamble" and before.stock_top is not None:
        allowed.add(before.stock_top)
    bad = [(e, c) for e, c in rest if c not in allowed]
    assert not bad, f"events name hidden cards {bad} (action {before.action} of seat {before.seat})"


# --------------------------------------------------------------------------- legal / refused


def check_legal_accepted(game: Game) -> None:
    """Every listed action of every seat that may act is accepted (on a clone)."""
    before = snapshot(game)
    for seat in game.to_act():
        for action in game.legal_actions(seat):
            g = game.clone()
            try:
                g.apply(seat, action)
            except IllegalAction as exc:  # pragma: no cover - reported as a failure
                raise AssertionError(
                    f"listed action {action} of seat {seat} refused: {exc} "
                    f"(preset {game.rules.preset}, after {len(game.history)} actions)"
                ) from exc
            check_conservation(g, f"after listed {action}")
    assert snapshot(game) == before, "acting on a clone changed the original"


def candidate_actions(game: Game, seat: int, rng: random.Random) -> list[object]:
    deck = full_deck(game.rules)
    hand = game.hand(seat) if 0 <= seat < game.n else []
    up = face_up_cards(game, seat) if 0 <= seat < game.n else []
    mine = hand + up

    def pick(pool: list[int]) -> int:
        return rng.choice(pool or deck)

    out: list[object] = []
    for _ in range(4):
        out.append(("play", tuple(rng.sample(deck, rng.randint(1, 3)))))
    for pool in (hand, up):
        for _ in range(3):
            if pool:
                out.append(("play", tuple(rng.sample(pool, rng.randint(1, min(3, len(pool)))))))
    if len({c >> 2 for c in mine}) > 1:  # two ranks together
        a = rng.choice(mine)
        b = rng.choice([c for c in mine if c >> 2 != a >> 2])
        out.append(("play", (a, b)))
    for c in rng.sample(deck, 3):  # suit runs of the deck, and of the hand
        r, s = c >> 2, c & 3
        if r <= 12:
            out.append(("run", tuple((r + i) << 2 | s for i in range(rng.randint(2, 3)))))
    if len(mine) >= 2:
        out.append(("run", tuple(rng.sample(mine, 2))))
    out += [("play", (c,)) for c in mine[:3]] + [("play", (c, c)) for c in mine[:1]]
    out += [("flip", i) for i in range(-1, 7)]
    out += [("take",), ("take", pick(deck)), ("take", pick(up)), ("take", pick(hand)), ("draw",), ("gamble",)]
    for kind in ("swap", "place"):
        out += [(kind, pick(hand), rng.randint(-1, 5)), (kind, pick(deck), rng.randint(0, 4))]
    out += [("ready",), ("pass",), ("announce", pick(hand)), ("announce", pick(deck))]
    out += [
        None,
        "play",
        ("play",),
        ("play", (999,)),
        ("play", ()),
        (),
        ("nonsense",),
        ("play", "Ah"),
        ("flip", "1"),
        ("take", None),
        ["play"],
        {"kind": "play"},
        ("flip", 10**9),
        ("swap", deck[0], 10**9),
        ("play", (deck[0],) * 70),
        ("play", (pick(hand),), "extra"),
        ("ready", 1),
        ("take", 3, 4),
    ]
    return out


def _attempt(game: Game, seat: object, action: object, before: tuple, snap: tuple, where: str, full: bool) -> None:
    try:
        game.apply(seat, action)  # type: ignore[arg-type]
    except IllegalAction as exc:
        assert isinstance(exc.code, IllegalReason), f"{where}: code {exc.code!r} is not an IllegalReason"
        check_message(game, seat, action, exc)
    else:
        raise AssertionError(
            f"{where}: unlisted action {action!r} of seat {seat!r} was accepted "
            f"(legal: {game.legal_actions(seat) if type(seat) is int else ()})"
        )
    assert snapshot(game) == snap, f"{where}: refused {action!r} of seat {seat!r} changed the state"
    if full:
        assert public_state(game) == before, f"{where}: refused {action!r} changed a view"


def check_message(game: Game, seat: object, action: object, exc: IllegalAction) -> None:
    """An error message names only cards the seat named, holds, or everyone sees (errors.py)."""
    if exc.code == IllegalReason.MALFORMED_ACTION:
        return  # syntax help may quote example cards
    named = count_cards(exc.message)
    ok: set[int] = set(game.pile) | {c for _, c in game.announcements}
    for s in range(game.n):
        ok.update(face_up_cards(game, s))
    if type(seat) is int and 0 <= seat < game.n:
        ok.update(game.hand(seat))
    if isinstance(action, tuple):
        for part in action[1:]:
            if isinstance(part, tuple):
                ok.update(c for c in part if type(c) is int)
            elif type(part) is int:
                ok.add(part)
    bad = [c for c in named if c not in ok]
    assert not bad, f"error message {exc.message!r} names cards {bad} the seat does not know"


def check_refusals(game: Game, rng: random.Random, *, full_every: int = 6) -> int:
    """Sampled unlisted actions (and actions of seats that may not act) are refused, state unchanged."""
    before = public_state(game)
    snap = snapshot(game)
    where = f"{game.rules.preset}/{game.n} after {len(game.history)} actions"
    tried = 0
    for seat in game.to_act():
        legal = game.legal_actions(seat)
        for i, action in enumerate(candidate_actions(game, seat, rng)):
            if normalise(action) in legal:
                continue
            _attempt(game, seat, action, before, snap, where, full=i % full_every == 0)
            tried += 1
    acting = game.to_act()
    some = [a for s in acting for a in game.legal_actions(s)]
    others: list[Any] = [s for s in range(game.n) if s not in acting] + [-1, game.n, None, "0"]
    for k, seat in enumerate(others):
        assert game.legal_actions(seat) == (), f"{where}: seat {seat!r} has legal actions"
        for j, action in enumerate([*rng.sample(some, min(3, len(some))), ("ready",), ("pass",), ("take",)]):
            _attempt(game, seat, action, before, snap, where, full=j == k == 0)
            tried += 1
    assert public_state(game) == before
    return tried


# --------------------------------------------------------------------------- the game driver


def check_outcome(game: Game) -> None:
    out = game.outcome()
    assert game.is_over() and out is not None
    assert sorted(out.places) == list(range(game.n)), f"places {out.places} not a permutation"
    assert out.loser == out.places[-1]
    assert out.capped == game.capped
    k = len(game.finish)
    assert tuple(game.finish) == out.places[:k], "finishers must come first, in order"
    if game.capped:
        assert len(game.history) == game.rules.max_actions
        held = [game.cards_held(s) for s in out.places[k:]]
        assert held == sorted(held), f"C18: the rest are placed by cards held, got {held}"
    elif game.rules.goal == "winner":
        assert k == 1
    else:
        assert k == game.n - 1 and game.cards_held(out.loser) > 0


def play(
    game: Game,
    policy: Policy,
    rng: random.Random,
    *,
    views_every: int = 0,
    deep_p: float = 0.0,
    deep_first: int = 0,
    deep_max: int = 0,
    replay_mid: bool = False,
) -> dict[str, int]:
    """Play to the end checking invariants; returns counts of what was checked.

    Conservation and events after every action; all views every ``views_every`` actions;
    the deep checks (every listed action on a clone, sampled refusals) in the first
    ``deep_first`` states and then with probability ``deep_p`` (8x in endgame-like states),
    at most ``deep_max`` times.
    """
    stats: Counter[str] = Counter()
    check_conservation(game, "deal")
    limit = game.rules.max_actions + 1
    interesting = False
    mid_record: tuple[int, list[dict]] | None = None
    while not game.is_over():
        steps = len(game.history)
        assert steps < limit, "the game did not stop at max_actions"
        if steps < deep_first or (stats["deep"] < deep_max and rng.random() < (deep_p * 8 if interesting else deep_p)):
            check_legal_accepted(game)
            stats["refused"] += check_refusals(game, rng)
            stats["deep"] += 1
        if views_every and steps % views_every == 0:
            check_all_views(game)
            stats["views"] += 1
        if replay_mid and mid_record is None and steps >= 40 and rng.random() < 0.02:
            mid_record = (steps, all_views(game))
        seat = acting_seat(game, rng)
        action = policy(game, seat, rng)
        before = Before(game, seat, action)
        events = game.apply(seat, action)
        check_events(game, before, events)
        check_conservation(game, f"after {action} of seat {seat}")
        if game.phase == "play":
            cur = game.current
            interesting = game.source(cur) != "hand" or game.drew or game.forced >= 0
        else:
            interesting = True
    assert events[-1][0] == "game_over" and events[-1][4] == game.capped
    check_outcome(game)
    check_all_views(game)
    check_refusals(game, rng)
    check_replay(game)
    if mid_record is not None:
        upto, views = mid_record
        g = ReplayRecord.of(game).replay(upto)
        assert all_views(g) == views, "a partial replay differs from the state at that step"
    stats["actions"] = len(game.history)
    stats["capped"] = int(game.capped)
    return stats


def check_replay(game: Game) -> None:
    """A record replays to the same state, directly and through JSON."""
    rec = ReplayRecord.of(game)
    want = all_views(game)
    again = rec.replay()
    assert all_views(again) == want and again.outcome() == game.outcome()
    assert snapshot(again) == snapshot(game)
    wire = json.loads(json.dumps(rec.to_dict()))
    rec2 = ReplayRecord.from_dict(wire)
    assert rec2 == rec
    again2 = rec2.replay()
    assert all_views(again2) == want and again2.outcome() == game.outcome()


# =========================================================================== tests


@pytest.mark.parametrize(("preset", "n"), COMBOS, ids=COMBO_IDS)
def test_random_game_invariants(preset: str, n: int, request: pytest.FixtureRequest) -> None:
    """A seeded random game keeps every invariant: conservation, legal/refused, views, events, end, replay."""
    seed = seed_of("random", preset, n)
    rng = random.Random(seed)
    game = new_game(preset, n, seed)
    stats = play(game, random_policy, rng, views_every=25, deep_p=1 / 150, deep_first=6, deep_max=12, replay_mid=True)
    assert stats["deep"] >= 6 and stats["refused"] > 0
    request.node.user_properties.extend(stats.items())


@pytest.mark.parametrize(("preset", "n"), COMBOS, ids=COMBO_IDS)
def test_greedy_game_invariants(preset: str, n: int) -> None:
    """A greedy game (lowest play, take only if forced) keeps every invariant and ends, capped or not."""
    seed = seed_of("greedy", preset, n)
    rng = random.Random(seed)
    game = new_game(preset, n, seed)
    play(game, greedy_policy, rng, views_every=40, deep_p=1 / 200, deep_first=3, deep_max=6)


@pytest.mark.parametrize(("preset", "n"), COMBOS, ids=COMBO_IDS)
def test_view_leaks_every_step(preset: str, n: int) -> None:
    """At every step of a mostly greedy game (max_actions=250) no seat's or spectator's view names a hidden card."""
    seed = seed_of("leaks", preset, n)
    rng = random.Random(seed)
    game = new_game(preset, n, seed, {"max_actions": 250})
    play(game, mixed_policy, rng, views_every=1)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_hypothesis_games(data: st.DataObject, seed: int) -> None:
    """Any seed, preset, player count and goal: the invariants hold along a random or greedy game."""
    preset = data.draw(st.sampled_from(sorted(PRESETS)), label="preset")
    rules = make_rules(preset)
    n = data.draw(st.integers(rules.min_players, rules.max_players), label="seats")
    options = {
        "goal": data.draw(st.sampled_from(["loser", "winner"]), label="goal"),
        "max_actions": data.draw(st.sampled_from([300, 1000]), label="max_actions"),
    }
    policy = data.draw(st.sampled_from([random_policy, greedy_policy]), label="policy")
    game = new_game(preset, n, seed, options)
    play(game, policy, random.Random(seed), views_every=20, deep_p=1 / 100, deep_first=2, deep_max=6)


@pytest.mark.parametrize(("preset", "n"), COMBOS, ids=COMBO_IDS)
def test_every_game_ends(preset: str, n: int, request: pytest.FixtureRequest) -> None:
    """With the default max_actions every random and greedy game reaches 'over'; capped games place everyone."""
    capped = 0
    for i, policy in enumerate([random_policy, random_policy, greedy_policy]):
        seed = seed_of("ends", preset, n, i)
        rng = random.Random(seed)
        game = new_game(preset, n, seed)
        assert game.rules.max_actions == 5000
        events: list = []
        while not game.is_over():
            assert len(game.history) < 5000
            seat = acting_seat(game, rng)
            events = game.apply(seat, policy(game, seat, rng))
        check_outcome(game)
        assert game.places is not None
        assert events[-1] == ("game_over", None, game.places, game.places[-1], game.capped)
        check_conservation(game, "end")
        capped += game.capped
    request.node.user_properties.append(("capped_games", capped))  # allowed (C18), and counted


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_small_cap_places_everyone(preset: str) -> None:
    """C18: a game stopped by a small max_actions is over, capped, and places every seat by cards held."""
    rules = make_rules(preset, {"max_actions": 30})
    for n in (rules.min_players, rules.max_players):
        seed = seed_of("cap", preset, n)
        game = Game.new(rules, n, seed=seed)
        rng = random.Random(seed)
        while not game.is_over():
            seat = acting_seat(game, rng)
            game.apply(seat, random_policy(game, seat, rng))
        check_outcome(game)
        assert game.capped and len(game.history) == 30
        with pytest.raises(IllegalAction) as exc:
            game.apply(0, ("take",))
        assert exc.value.code == IllegalReason.GAME_OVER
        check_replay(game)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_same_seed_same_deal(preset: str) -> None:
    """Game.new with the same seed gives the same deck order and dealer; other seeds shuffle differently."""
    rules = make_rules(preset)
    n = rules.max_players
    decks = set()
    for seed in (0, 1, 2**32 - 1, 123456789):
        a, b = Game.new(rules, n, seed=seed), Game.new(rules, n, seed=seed)
        assert a.deck == b.deck and a.dealer == b.dealer
        assert all_views(a) == all_views(b) and snapshot(a) == snapshot(b)
        c = Game.new(rules, n, rng=random.Random(seed))
        assert c.deck == a.deck and c.dealer == a.dealer
        decks.add(a.deck)
    assert len(decks) == 4


@pytest.mark.parametrize(
    ("preset", "n"), [(p, make_rules(p).max_players) for p in sorted(PRESETS)], ids=sorted(PRESETS)
)
def test_same_actions_same_events(preset: str, n: int) -> None:
    """Two engines dealt the same deck and fed the same actions emit identical events at every step."""
    seed = seed_of("twins", preset, n)
    a, b = new_game(preset, n, seed), new_game(preset, n, seed)
    rng = random.Random(seed)
    while not a.is_over():
        seat = acting_seat(a, rng)
        action = random_policy(a, seat, rng)
        assert a.legal_actions(seat) == b.legal_actions(seat)
        assert a.apply(seat, action) == b.apply(seat, action)
    assert b.is_over() and a.outcome() == b.outcome() and a.history == b.history


def _in_play(preset: str = "classic", n: int = 2, seed: int = 1) -> Game:
    game = new_game(preset, n, seed)
    rng = random.Random(seed)
    while game.phase != "play":
        seat = acting_seat(game, rng)
        game.apply(seat, greedy_policy(game, seat, rng))
    return game


def test_type_confused_seats_refused() -> None:
    """A seat given as bool, float or str has no legal actions, so apply refuses it, state unchanged."""
    converters: list[Callable[[int], Any]] = [bool, float, str]
    for cur_as in converters:
        for warm in (False, True):
            game = _in_play()
            cur = game.current
            action = game.legal_actions(cur)[0]
            game = game.clone()
            if warm:
                game.legal_actions(cur)  # the legal list of the real seat is cached
            odd = cur_as(cur)
            assert game.legal_actions(odd) == ()
            snap = snapshot(game)
            with pytest.raises(IllegalAction):
                game.apply(odd, action)
            assert snapshot(game) == snap, f"refused seat {odd!r} changed the state"


def test_type_confused_actions_refused() -> None:
    """Actions equal to a listed one but with bool/float positions or cards are refused, state unchanged."""
    rng = random.Random(5)
    game = new_game("classic", 2, 5)
    while game.phase != "play" or game.source(game.current) != "face_down":
        seat = acting_seat(game, rng)
        game.apply(seat, random_policy(game, seat, rng))
    seat = game.current
    flip = game.legal_actions(seat)[0]
    odd_flips = [("flip", float(flip[1]))] + ([("flip", bool(flip[1]))] if flip[1] in (0, 1) else [])
    setup = new_game("classic", 2, 3)
    swap = next(a for a in setup.legal_actions(0) if a[0] == "swap")
    play_game = _in_play()
    play_ = next(a for a in play_game.legal_actions(play_game.current) if a[0] == "play")
    cases: list[tuple[Game, int, tuple]] = [(game, seat, a) for a in odd_flips]
    cases += [(setup, 0, ("swap", swap[1], float(swap[2]))), (setup, 0, ("swap", float(swap[1]), swap[2]))]
    cases += [(play_game, play_game.current, ("play", tuple(float(c) for c in play_[1])))]
    failures = []
    for g, s, odd in cases:
        for warm in (False, True):
            g2 = g.clone()
            if warm:
                g2.legal_actions(s)
            snap = snapshot(g2)
            try:
                g2.apply(s, odd)
                failures.append(f"{odd!r} accepted, recorded as {g2.history[-1]!r}")
            except IllegalAction:
                if snapshot(g2) != snap:
                    failures.append(f"{odd!r} refused but the state changed")
            except Exception as exc:
                failures.append(f"{odd!r} raised {type(exc).__name__}: {exc}; state changed: {snapshot(g2) != snap}")
    assert not failures, "; ".join(failures)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_legal_actions_come_in_the_documented_order(preset: str) -> None:
    """PROTOCOL.md (view.legal): plays by face rank (2 lowest, jokers last), within a rank
    fewer cards first, then suit order; take last; in setup ready first. Checked at every position of random
    games of every preset."""
    from server.engine.actions import PLAY, READY, TAKE
    from server.engine.cards import RANK

    rng = random.Random(f"order:{preset}")
    rules = make_rules(preset)
    for _ in range(4):
        game = Game.new(rules, rules.min_players + 1, rng=rng)
        while not game.is_over():
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            plays = [(RANK[a[1][0]], len(a[1]), a[1]) for a in legal if a[0] == PLAY]
            assert plays == sorted(plays), (preset, legal)
            kinds = [a[0] for a in legal]
            if TAKE in kinds:
                assert kinds[-1] == TAKE, (preset, legal)
            if READY in kinds:
                assert kinds[0] == READY, (preset, legal)
            game.apply(seat, rng.choice(legal))


# The options of RULES.md "Where the sources are silent", each with what makes it matter: a
# rank with the reverse power in every preset (reverse_per_card), runs with both counting rules
# (count_runs).
SILENT_OPTIONS: list[tuple[str, bool, dict[str, Any]]] = [
    ("reverse_per_card", value, {"powers": {"9": ["reverse"]}}) for value in (False, True)
] + [("count_runs", value, {"suit_runs": True, "match_count": True, "pair_skip": True}) for value in (True, False)]


@pytest.mark.parametrize(("option", "value", "context"), SILENT_OPTIONS, ids=[f"{o}={v}" for o, v, _ in SILENT_OPTIONS])
@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 9))
def test_silent_options_keep_the_cards_and_end(
    preset: str, option: str, value: bool, context: dict[str, Any], seed: int, seats: int
) -> None:
    """Random play under every preset and every value of the options of RULES.md "Where the
    sources are silent" keeps every card after every action and reaches the end (C17 or C18)."""
    rules = make_rules(preset, {**context, option: value})
    n = min(max(seats, rules.min_players), rules.max_players)
    game = Game.new(rules, n, seed=seed)
    rng = random.Random(seed)
    check_conservation(game, "deal")
    while not game.is_over():
        assert len(game.history) < rules.max_actions
        seat = acting_seat(game, rng)
        game.apply(seat, random_policy(game, seat, rng))
        check_conservation(game, f"{preset} {option}={value}, action {len(game.history)}")
    check_outcome(game)
