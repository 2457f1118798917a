"""Any policy over the environment's action space, as a bot that plays on a real server.

A *policy* is a callable ``policy(observation, action_mask) -> index``: the same float32
observation and int8 mask that ``shithead_v0`` gives an agent (:mod:`client.rl.observe`), and an
index into :mod:`client.rl.actions`. :class:`PolicyBot` computes both from the wire view the
server sends (the encoder is the environment's, so a trained policy sees on the server exactly
what it saw in training) and answers with the action text of the chosen index.

    from client.rl.policy_bot import PolicyBot, run
    raise SystemExit(run(my_policy))   # shithead-bot's flags: --port, --create, --games ...
"""

from __future__ import annotations

import random
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from client.bot import Bot
from client.hosting.command import main
from protocol.payloads import View

from .actions import action_text
from .observe import Mask, Vector, action_mask, encode

__all__ = ["Policy", "PolicyBot", "RandomPolicy", "run"]


class Policy(Protocol):
    """Chooses an action index; should choose one whose mask entry is 1."""

    def __call__(self, observation: Vector, action_mask: Mask, /) -> int | np.integer[Any]: ...


class RandomPolicy:
    """A uniformly random legal index, from its own seeded generator (the baseline, and the
    policy of docs/rl_random.py)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: Vector, action_mask: Mask, /) -> int:
        legal: npt.NDArray[np.intp] = np.flatnonzero(action_mask)
        return int(self.rng.choice(legal))


class PolicyBot(Bot):
    """A :class:`client.bot.Bot` that asks ``policy`` (see :class:`Policy`).

    :meth:`choose` raises ``ValueError`` when the policy picks an index that is not legal in
    the view; the runner then logs it and plays the first legal action instead (counted as
    illegal in its statistics), as it does for any bot's bad answer."""

    name = "policy"

    def __init__(self, policy: Policy, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self.policy = policy

    def choose(self, view: View) -> str:
        mask = action_mask(view)
        index = int(self.policy(encode(view), mask))
        if not 0 <= index < mask.size or not mask[index]:
            raise ValueError(f"the policy chose index {index}, which is not legal here; legal: {view['legal']}")
        return action_text(index)


def run(policy: Policy, argv: list[str] | None = None) -> int:
    """Run ``policy`` as ``shithead-bot`` does a bundled bot, with its flags (``argv``; the
    command line when None): ``--host``, ``--port``, ``--create``, ``--games``... Returns the
    exit status."""
    return main(argv, bot=PolicyBot(policy))
