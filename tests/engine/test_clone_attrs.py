"""Game.clone names every attribute (the compiled Game has no ``__dict__`` to copy). Checked on
the pure build, where ``vars`` lists them; the compiled pass plays clones in the other tests."""

from __future__ import annotations

import pytest

from server.engine import Game, make_rules


@pytest.mark.pure_only
@pytest.mark.parametrize("preset", ["classic", "guarducci"])
def test_clone_copies_every_attribute(preset: str) -> None:
    game = Game.new(make_rules(preset), 4, seed=3)
    for _ in range(12):
        seat = game.current if game.phase != "setup" else game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    copy = game.clone()
    assert set(vars(copy)) == set(vars(game))
    same = {k for k, v in vars(game).items() if k != "_cache_version" and vars(copy)[k] != v}
    assert not same
