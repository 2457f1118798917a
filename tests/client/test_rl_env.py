"""``client.rl.shithead_v0``: the PettingZoo AEC environment passes PettingZoo's own API and
seed tests, offers every preset, honours seeds, ends games with place rewards, and observes
only what a seat's view holds."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

#: api_test warns that an observation is a dict rather than an array: the dict holding
#: "observation" and "action_mask" is PettingZoo's own convention for masked actions (it exempts
#: its card games from the warning by name only).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from client.rl import shithead_v0  # noqa: E402
from client.rl.actions import N_ACTIONS, action_index  # noqa: E402
from client.rl.observe import OBS_SIZE, encode  # noqa: E402
from client.rl.policy_bot import RandomPolicy  # noqa: E402
from server.engine import format_card, make_rules, preset_info, preset_names, stack_deck, view_for  # noqa: E402


def test_api_test_passes() -> None:
    """PettingZoo's api_test, as the issue asks: the default environment, 300 cycles."""
    api_test(shithead_v0.env(), num_cycles=300)


@pytest.mark.parametrize(("preset", "players"), [("wikibooks", 4), ("guarducci", 3), ("karma", 5)])
def test_api_test_passes_for_other_presets(preset: str, players: int) -> None:
    """api_test under presets with announcements and drawing, suit runs and jokers, stacking."""
    api_test(shithead_v0.env(preset=preset, players=players), num_cycles=100)


def test_api_test_passes_through_game_ends() -> None:
    """api_test on games short enough to end inside it (max_actions 60: capped games), so its
    checks of the end (every agent terminated, stepping None, leaving) run too."""
    env = shithead_v0.env(players=3, options={"max_actions": 60})
    api_test(env, num_cycles=100)
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, _, terminated, _, info = env.last()
        env.step(None if terminated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == [] and info["capped"]


@pytest.mark.parametrize("preset", ["classic", "egilsson", "smeghead"])
def test_seed_test_passes(preset: str) -> None:
    """PettingZoo's seed_test: two environments reset with one seed run alike step by step."""
    seed_test(lambda: shithead_v0.env(preset=preset, players=3), num_cycles=200)


def test_every_preset_is_selectable_within_its_seat_range() -> None:
    """Every preset of the engine's catalogue makes an environment at both ends of its seat
    range; one seat more or fewer, or an unknown preset (the message lists the known ones), is
    a ValueError."""
    for preset in preset_names():
        info = preset_info(preset)
        for players in (info.min_players, info.max_players):
            env = shithead_v0.env(preset=preset, players=players)
            env.reset(seed=1)
            assert env.agents == [f"player_{i}" for i in range(players)]
            assert env.unwrapped.view(env.agent_selection)["preset"] == preset
        for players in (info.min_players - 1, info.max_players + 1):
            with pytest.raises(ValueError):
                shithead_v0.env(preset=preset, players=players)
    with pytest.raises(ValueError, match=r"classic.*linz"):
        shithead_v0.env(preset="nope")
    with pytest.raises(ValueError):
        shithead_v0.env(options={"goal": "nobody"})
    env = shithead_v0.env(options={"goal": "winner"})
    assert env.unwrapped.rules.goal == "winner"


def test_spaces_are_cached_fixed_and_seedable() -> None:
    """observation_space and action_space return the same objects every call, of the fixed sizes
    for any preset; seeding an action space makes its masked samples repeat."""
    small, large = shithead_v0.env(), shithead_v0.env(preset="wikibooks", players=9)
    for env in (small, large):
        for agent in env.possible_agents:
            assert env.action_space(agent) is env.action_space(agent)
            assert env.observation_space(agent) is env.observation_space(agent)
            assert env.action_space(agent).n == N_ACTIONS
            assert env.observation_space(agent)["observation"].shape == (OBS_SIZE,)
    small.reset(seed=0)
    mask = small.observe(small.agent_selection)["action_mask"]
    space = small.action_space(small.agent_selection)
    space.seed(5)
    first = [space.sample(mask) for _ in range(10)]
    space.seed(5)
    assert [space.sample(mask) for _ in range(10)] == first


def observations(env: Any) -> list[Any]:
    return [env.observe(a)["observation"] for a in env.possible_agents]


def test_a_seed_deals_the_same_game_again() -> None:
    """reset(seed=s) twice gives the same deal (hidden cards included) and observations; another
    seed another deal; reset() after a seeded reset goes on from that seed's generator."""
    env = shithead_v0.env(preset="smeghead", players=4)
    env.reset(seed=11)
    first_hands = [env.unwrapped.game.hand(s) for s in range(4)]
    first = observations(env)
    follow = (env.reset(), [env.unwrapped.game.hand(s) for s in range(4)])[1]
    env.reset(seed=11)
    assert [env.unwrapped.game.hand(s) for s in range(4)] == first_hands
    assert all(np.array_equal(x, y) for x, y in zip(observations(env), first, strict=True))
    env.reset()
    assert [env.unwrapped.game.hand(s) for s in range(4)] == follow
    env.reset(seed=12)
    assert [env.unwrapped.game.hand(s) for s in range(4)] != first_hands


def play_out(env: Any, seed: int) -> dict[str, float]:
    """Play one game with random masked policies to its end, all agents stepping None at the
    end; returns each agent's summed rewards (from last())."""
    policy = RandomPolicy(seed)
    env.reset(seed=seed)
    total: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        assert not truncated
        if terminated:
            assert info["place"] >= 1
            env.step(None)
        else:
            assert obs["action_mask"].any()
            env.step(policy(obs["observation"], obs["action_mask"]))
    return total


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("alt_deal", 4), ("linz", 3), ("six_players", 6)])
def test_games_end_with_zero_sum_place_rewards(preset: str, players: int) -> None:
    """A whole game: the agents leave after the end, each summed reward is its place's reward
    (+1 first .. -1 last), and they add up to zero."""
    env = shithead_v0.env(preset=preset, players=players)
    total = play_out(env, seed=4)
    assert env.agents == []
    places = env.unwrapped.game.outcome().places
    for place, seat in enumerate(places, 1):
        assert total[f"player_{seat}"] == pytest.approx(shithead_v0.place_reward(place, players))
    assert sum(total.values()) == pytest.approx(0.0)
    assert total[f"player_{places[0]}"] == 1.0 and total[f"player_{places[-1]}"] == -1.0


def test_an_illegal_index_is_refused_and_changes_nothing() -> None:
    """An index outside the mask raises ValueError and leaves the game and the agent to act as
    they were; None is refused while the agent must act (by the raw environment; the wrapper
    asserts first); the wrapper refuses indices outside the space."""
    env = shithead_v0.env()
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.unwrapped.view(agent)
    with pytest.raises(ValueError, match="may not"):
        env.step(illegal)
    with pytest.raises(ValueError):
        env.unwrapped.step(None)
    assert env.agent_selection == agent and env.unwrapped.view(agent) == before
    with pytest.raises(AssertionError):
        env.step(N_ACTIONS)


def test_observations_are_the_views_encoding_and_only_the_actor_has_a_mask() -> None:
    """Each agent's observation is encode(view_for(game, seat)); the acting agent's mask is its
    legal set; every other agent's mask is empty, even in the simultaneous setup."""
    env = shithead_v0.env(preset="alt_deal", players=3)
    env.reset(seed=8)
    game = env.unwrapped.game
    assert len(game.to_act()) == 3
    for seat, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)
        assert np.array_equal(obs["observation"], encode(view_for(game, seat)))
        legal = {action_index(t) for t in view_for(game, seat)["legal"]}
        expected = legal if agent == env.agent_selection else set()
        assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected
    assert env.agent_selection == "player_0"


def test_agents_differing_only_in_hidden_cards_observe_the_same() -> None:
    """Two environments dealt (reset option ``deck``) the same visible cards for player_0 but
    different opponents' hands, face-down cards and stock give player_0 equal observations and
    masks while it does its setup."""
    rules = make_rules("classic")
    face_up = {0: ["4c", "Kd", "2h"], 1: ["6s", "Jc", "Ah"], 2: ["3d", "3h", "9s"]}
    decks = [
        stack_deck(
            rules,
            3,
            1,
            hands={0: ["5c", "8d", "9h"], 1: opponent, 2: other},
            face_up=face_up,
            face_down={0: down[:3], 1: down[3:]},
            stock=stock,
        )
        for opponent, other, down, stock in (
            (["8c", "8h", "Qs"], ["7c", "7d", "Js"], ["Ts", "Td", "Tc", "5h", "5s", "Qh"], ["As", "Ks"]),
            (["4d", "5s", "Jh"], ["2c", "2d", "Qc"], ["6c", "6d", "7h", "Ts", "Td", "8s"], ["Th", "Qd"]),
        )
    ]
    envs = [shithead_v0.env(players=3) for _ in decks]
    for env, deck in zip(envs, decks, strict=True):
        env.reset(options={"deck": [format_card(c) for c in deck], "dealer": 1})
    a, b = envs
    assert a.unwrapped.game.hand(1) != b.unwrapped.game.hand(1)
    for action in ("swap 9h 1", "swap Kd 2", "ready"):
        assert a.agent_selection == b.agent_selection == "player_0"
        oa, ob = a.observe("player_0"), b.observe("player_0")
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert not np.array_equal(a.observe("player_1")["observation"], b.observe("player_1")["observation"])
        a.step(action_index(action))
        b.step(action_index(action))
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])


def test_render_shows_public_state_only() -> None:
    """render_mode='ansi' returns a text of the public state: hand counts, and of the cards only
    the face-up ones (after a few actions, the pile's too), never a hand or face-down card."""
    env = shithead_v0.env(render_mode="ansi")
    policy = RandomPolicy(1)
    env.reset(seed=2)
    for _ in range(12):
        obs = env.observe(env.agent_selection)
        env.step(policy(obs["observation"], obs["action_mask"]))
    text = env.render()
    game = env.unwrapped.game
    assert f"player_0: hand {game.hand_n[0]}" in text and f"player_1: hand {game.hand_n[1]}" in text
    public = {format_card(c) for row in game.face_up for st in row for c in st} | {format_card(c) for c in game.pile}
    shown = set(re.findall(r"\b[2-9TJQKAX][cdhsrb]\b", text))
    assert shown and shown <= public
    with pytest.raises(ValueError):
        shithead_v0.env(render_mode="human")
