"""``client.rl.policy_bot``: a policy over the environment's action space plays on a real server
(bound to 127.0.0.1) as a bot, seeing the same observation and mask the environment gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from client.bots.greedy import GreedyBot  # noqa: E402
from client.rl.actions import action_text  # noqa: E402
from client.rl.observe import action_mask, encode  # noqa: E402
from client.rl.policy_bot import PolicyBot, RandomPolicy  # noqa: E402
from server.engine import Game, make_rules, view_for  # noqa: E402
from server.shell.app import App  # noqa: E402
from tests.client.helpers import check_places, program_against_greedy, run_all, seat_runners  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "rl_random.py"


class Checked(RandomPolicy):
    """A random policy that checks what it is given: the float32 observation and a non-empty
    int8 mask of the fixed sizes, and counts its decisions."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.decisions = 0

    def __call__(self, observation: Any, mask: Any, /) -> int:
        assert observation.dtype == np.float32 and mask.dtype == np.int8 and mask.any()
        self.decisions += 1
        return super().__call__(observation, mask)


def test_the_bot_answers_the_text_of_the_policys_index() -> None:
    """choose() encodes the view with the environment's encoder, passes the view's mask, and
    returns the text of the chosen index, which is legal."""
    game = Game.new(make_rules("wikibooks"), 3, seed=2)
    view = view_for(game, 1)
    seen: list[Any] = []

    def policy(observation: Any, mask: Any, /) -> int:
        seen.append((observation, mask))
        return int(np.flatnonzero(mask)[-1])

    text = PolicyBot(policy).choose(view)
    [(observation, mask)] = seen
    assert np.array_equal(observation, encode(view)) and np.array_equal(mask, action_mask(view))
    assert text == action_text(int(np.flatnonzero(mask)[-1])) and text in view["legal"]


def test_an_illegal_choice_is_an_error() -> None:
    """A policy choosing an index outside the mask makes choose() raise ValueError (the runner
    then counts it as illegal and plays the first legal action)."""
    view = view_for(Game.new(make_rules("classic"), 2, seed=1), 0)
    with pytest.raises(ValueError, match="not legal"):
        PolicyBot(lambda o, m, /: int(np.flatnonzero(m == 0)[0])).choose(view)


@pytest.mark.parametrize("preset", ["classic", "wikibooks"])
async def test_a_policy_plays_games_on_a_real_server(server: App, connect: Any, preset: str) -> None:
    """A random policy behind PolicyBot plays two whole games against a greedy bot on a server:
    every answer legal, every game placed."""
    policy = Checked(seed=3)
    _, runners = await seat_runners(connect, server, [PolicyBot(policy), GreedyBot()], preset=preset, games=2, seed=5)
    stats = await run_all(runners)
    check_places(stats, 2)
    assert stats[0].illegal == 0 and stats[0].acts == policy.decisions > 0


async def test_the_example_serves_its_policy_on_a_server(server: App, connect: Any) -> None:
    """``docs/rl_random.py serve`` with shithead-bot's flags joins the free seat of a table and
    plays a whole game against a greedy bot, without an illegal action, and exits with 0."""
    stats, status, out, err, table = await program_against_greedy(
        server, connect, [sys.executable, str(EXAMPLE), "serve"], name="rl", games=1
    )
    assert status == 0, err
    assert stats.games == 1
    assert out.startswith(f"rl: 1 games at table {table}"), out
    assert "0 illegal" in out


def test_the_example_plays_random_games_in_the_environment(capsys: pytest.CaptureFixture[str]) -> None:
    """``docs/rl_random.py`` plays its games in the environment: one line per game, rewards that
    sum to zero."""
    pytest.importorskip("pettingzoo")
    namespace: dict[str, Any] = {}
    exec(compile(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE), "exec"), namespace)
    assert namespace["main"](["--preset", "linz", "--players", "4", "--games", "2", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("linz game") for line in lines)
    for line in lines:
        rewards = [float(word.split(":")[1]) for word in line.split("rewards ")[1].split()]
        assert len(rewards) == 4 and sum(rewards) == pytest.approx(0.0)
