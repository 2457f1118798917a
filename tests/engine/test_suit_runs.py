"""suit_runs: the runs in the legal list are exactly the runs the rule allows, in order.

The engine finds runs incrementally over a bit set of the hand (``GameState._run_plays``);
this test finds them the slow way, straight from docs/RULES.md, at every position of random
games under rule sets that reach each path of that code: jokers and glass (``guarducci``), two
decks (copies of a card), burns by count and by four of a kind, ``draw_before_play`` (runs
with a minimum length after a draw), ``match_count`` with and without ``count_runs``, an
announced opening card, and runs from the face-up cards.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.engine import Game, make_rules
from server.engine.actions import RUN
from server.engine.cards import ACE, NEXT_RANK, RANK
from server.engine.state import run_length

RULE_SETS: list[tuple[str, dict[str, Any], int]] = [
    ("guarducci", {}, 4),
    ("guarducci", {}, 2),
    ("classic", {"suit_runs": True}, 3),
    ("smeghead", {"suit_runs": True}, 4),
    ("wikibooks", {"suit_runs": True}, 3),
    ("linz", {"suit_runs": True}, 3),
    ("encyclopedia", {"suit_runs": True}, 3),
    ("encyclopedia", {"suit_runs": True, "count_runs": False, "pair_skip": True}, 3),
]


def reference_runs(game: Game, seat: int) -> list[tuple[int, ...]]:
    """The legal runs of ``seat``, by trying every run of held cards from scratch: each card
    must beat the pile as the cards before it left it, none but the last may burn it, and the
    run must be long enough (a draw, ``match_count``) and hold an announced card."""
    if game.phase != "play" or seat != game.current:
        return []
    if game.hand_n[seat]:
        held = set(game.hand(seat))
        min_len = game.hand_n[seat] - game.rules.refill_to if game.drew else 1
    else:
        held = {st[0] for st in game.face_up[seat] if len(st) == 1}
        min_len = 1
    pw, bc = game.pw, game.rules.burn_count
    found = []
    for first in sorted(held):
        run = [first]
        while run[-1] + NEXT_RANK in held and RANK[run[-1] + NEXT_RANK] <= ACE:
            run.append(run[-1] + NEXT_RANK)
            floor = game.count_floor(RANK[first]) if game.rules.count_runs else 1
            if len(run) < max(min_len, floor):
                continue
            if game.forced >= 0 and game.forced not in run:
                continue
            eff, pile, ok = game.eff, list(game.pile), True
            for i, c in enumerate(run):
                r = RANK[c]
                if not pw.beats[eff][r]:
                    ok = False
                    break
                pile.append(c)
                last = i == len(run) - 1
                if not last and (pw.burn[r] or (bc and run_length(pile, r, pw.glass, bc) >= bc)):
                    ok = False
                    break
                if pw.glass[r]:
                    if len(pile) == 1:
                        eff = r if pw.glass_floor[r] else 0
                elif pw.reset[r]:
                    eff = 0
                else:
                    eff = r
            if ok:
                found.append(tuple(run))
    return found


@pytest.mark.parametrize(("preset", "options", "players"), RULE_SETS, ids=[f"{p}-{n}" for p, _, n in RULE_SETS])
def test_legal_runs_equal_the_rule(preset: str, options: dict[str, Any], players: int) -> None:
    rules = make_rules(preset, options)
    positions = with_runs = 0
    for seed in range(6):
        rng = random.Random(seed)
        game = Game.new(rules, players, rng=rng)
        while game.phase != "over":
            seat = game.current if game.phase != "setup" else game.to_act()[0]
            legal = game.legal_actions(seat)
            runs = [a[1] for a in legal if a[0] == RUN]
            assert runs == reference_runs(game, seat), (preset, seed, len(game.history))
            positions += 1
            with_runs += bool(runs)
            game.apply(seat, rng.choice(legal))
    # The games reached positions with runs to compare (not only empty lists).
    assert with_runs > 50, (positions, with_runs)
