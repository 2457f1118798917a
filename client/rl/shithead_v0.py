"""``shithead_v0``: Shithead as a PettingZoo AEC environment, on the real rules engine.

    from client.rl import shithead_v0

    env = shithead_v0.env(preset="karma", players=3)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Contracts:

* **Agents** are ``player_0`` .. ``player_{n-1}``, seat ``i`` being ``player_i``. The agent to
  act is the engine's first seat in ``to_act()``: in play and announcing the seat whose turn it
  is; in the simultaneous setup the lowest seat still setting up, so each seat does its whole
  setup in turn (setup is simultaneous in the rules, so the order changes nothing a seat could
  not see anyway: face-up cards are public).
* **Actions**: ``Discrete(N_ACTIONS)`` from :mod:`client.rl.actions`, the same for every preset.
  Only indices in the action mask are legal; :meth:`raw_env.step` raises ``ValueError`` for any
  other (the game is left as it was) and ``IndexError`` outside the space.
* **Observations**: ``{"observation": float32[OBS_SIZE], "action_mask": int8[N_ACTIONS]}``,
  both computed by :mod:`client.rl.observe` from ``view_for(game, seat)`` alone, the view the
  seat would get from a server. The mask is all zeros for an agent that is not to act.
* **Rewards** come once, when the game ends: place ``p`` of ``n`` gets ``(n + 1 - 2p) / (n - 1)``,
  +1 for the first out, -1 for the last (the shithead), linear between, summing to zero. Every
  other step rewards 0. A game stopped by the rules' ``max_actions`` (C18) ends the same way
  (places by cards held), with ``info["capped"]`` True.
* **Terminations** become True for every agent at the game's end (then each steps ``None`` and
  leaves ``agents``, as PettingZoo wants); **truncations** stay False (the engine ends every
  game itself, at ``max_actions`` at the latest). ``infos`` are ``{}`` until the end, then
  ``{"place": p, "loser": bool, "capped": bool}``.
* **Seeds**: ``reset(seed=s)`` deals the same cards and dealer every time; ``reset()`` without a
  seed goes on drawing from the generator of the last seeded reset (a fresh one at first).
  ``reset(options={"deck": [...], "dealer": d})`` deals an explicit deck order (card texts, top
  card first, as ``server.engine.stack_deck`` builds them); other option keys are ignored with a
  warning.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from server.engine import (
    Game,
    IllegalAction,
    Rules,
    check_seats,
    make_rules,
    parse_action,
    parse_card,
    spectator_view,
    view_for,
)

from .actions import N_ACTIONS, action_text
from .observe import OBS_SIZE, action_mask, encode

__all__ = ["env", "place_reward", "raw_env"]

log = logging.getLogger(__name__)

Observation = dict[str, npt.NDArray[Any]]
ObsType = dict[str, Any]
"""The observation type as the spaces declare it (a ``gymnasium.spaces.Dict`` sample)."""

RESET_OPTIONS = ("deck", "dealer")
"""The keys :meth:`raw_env.reset` reads from ``options``."""


def place_reward(place: int, players: int) -> float:
    """The reward of finishing in ``place`` (1 = first out) among ``players``: +1 .. -1, linear,
    zero-sum over the places of a game."""
    return (players + 1 - 2 * place) / (players - 1)


def env(**kwargs: Any) -> AECEnv[str, ObsType, np.int64]:
    """The environment as PettingZoo's conventions wrap it: :class:`raw_env` (same arguments)
    inside ``AssertOutOfBoundsWrapper`` (an index outside the space is refused) and
    ``OrderEnforcingWrapper`` (no ``step`` before ``reset``)."""
    wrapped: AECEnv[str, ObsType, np.int64] = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv[str, ObsType, np.int64]):
    """Shithead under ``preset`` (any of ``server.engine.preset_names()``) with ``players``
    seats and the rule ``options`` overrides of ``make_rules``. Raises ``ValueError`` (the
    engine's ``RulesError``) for an unknown preset (listing the known ones), an invalid option
    or a seat count the preset does not allow."""

    metadata: dict[str, Any] = {"name": "shithead_v0", "render_modes": ["ansi"], "is_parallelizable": False}  # noqa: RUF012 (PettingZoo's AECEnv declares it an attribute)

    def __init__(
        self,
        preset: str = "classic",
        players: int = 2,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # AECEnv.__init__ is unannotated
        self.rules: Rules = make_rules(preset, options)
        check_seats(self.rules, players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.players = players
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gymnasium.spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._rng = random.Random()
        self._game: Game | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same (cached) space object on every call, so that seeding it sticks."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same (cached) ``Discrete(N_ACTIONS)`` on every call, so that seeding it sticks."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the game

    @property
    def game(self) -> Game:
        """The running game (after :meth:`reset`). For analysis and tests: a learner that reads it
        sees hidden cards; observations never do."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def view(self, agent: str) -> dict[str, Any]:
        """The wire view of ``agent``'s seat (``view_for``): what :meth:`observe` encodes."""
        return view_for(self.game, self._seat[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (see the module's contract for ``seed`` and ``options``)."""
        if seed is not None:
            self._rng = random.Random(seed)
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            log.warning("reset ignores options %s (it reads %s)", unknown, ", ".join(RESET_OPTIONS))
        dealer = options.get("dealer")
        if options.get("deck") is not None:
            deck = [parse_card(t) if isinstance(t, str) else int(t) for t in options["deck"]]
            self._game = Game.new(self.rules, self.players, dealer=dealer, deck=deck)
        else:
            self._game = Game.new(self.rules, self.players, dealer=dealer, rng=self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: dict[str, Any]() for agent in self.agents}
        self.agent_selection = self._next_agent()

    def _next_agent(self) -> str:
        return self.possible_agents[self.game.to_act()[0]]

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation and action mask, from its seat's view only."""
        view = self.view(agent)
        over = self.terminations.get(agent, True) or self.truncations.get(agent, True)  # absent: it has left
        acting = agent == self.agent_selection and not over
        mask = action_mask(view) if acting else np.zeros(N_ACTIONS, dtype=np.int8)
        return {"observation": encode(view), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play action index ``action`` for :attr:`agent_selection` (``None`` for an agent whose
        game is over). Raises ``ValueError`` for an index not in the mask (nothing changes)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent}'s game is over: its only action is None, not {action!r}")
            self._was_dead_step(None)  # type: ignore[arg-type]  # PettingZoo annotates it as an action; it takes None
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent whose game is over")
        text = action_text(int(action))
        game = self.game
        try:
            game.apply(self._seat[agent], parse_action(text))
        except IllegalAction as exc:
            raise ValueError(f"{agent} may not {text!r} now (index {int(action)}): {exc.message}") from exc
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        outcome = game.outcome()
        if outcome is None:
            self.agent_selection = self._next_agent()
        else:
            n = self.players
            for a in self.agents:
                seat = self._seat[a]
                place = outcome.place_of(seat)
                self.rewards[a] = place_reward(place, n)
                self.terminations[a] = True
                self.infos[a] = {"place": place, "loser": outcome.loser == seat, "capped": outcome.capped}
        self._accumulate_rewards()

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the public state as text (no hidden card, no hand); else
        None (with a warning, as PettingZoo's environments do)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        v = spectator_view(self.game)
        lines = [
            f"{v['preset']} {v['phase']}: turn {v['turn']}, direction {v['direction']}, "
            f"stock {v['stock_count']}, burned {v['burned_count']}, actions {v['action_count']}",
            f"pile ({len(v['pile'])}): {' '.join(v['pile'][-8:]) or '-'}   to beat: {v['to_beat']['rule']} "
            f"{v['to_beat']['rank'] or ''}",
        ]
        for p in v["players"]:
            up = " ".join("+".join(st) for st in p["face_up"] if st) or "-"
            down = sum(p["face_down"])
            place = f" place {p['place']}" if p["place"] is not None else ""
            lines.append(f"  player_{p['seat']}: hand {p['hand_count']}, face up {up}, face down {down}{place}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release (no window, no process)."""
