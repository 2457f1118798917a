"""A learning environment for Shithead (issue 13): PettingZoo's AEC API over the real engine.

Install the ``rl`` extra (``pip install -e '.[rl]'``: PettingZoo, which brings Gymnasium and
NumPy). The modules, each usable alone:

* :mod:`client.rl.actions`: the fixed discrete action space, index <-> action text (pure Python).
* :mod:`client.rl.observe`: the observation encoder, a wire view -> a fixed-size NumPy vector,
  and the action mask of a view.
* :mod:`client.rl.shithead_v0`: the environment, ``shithead_v0.env(preset=..., players=...)``.
* :mod:`client.rl.policy_bot`: :class:`~client.rl.policy_bot.PolicyBot`, any policy over the
  action space as a :class:`client.bot.Bot` that plays on a real server.

This package imports nothing itself, so ``client.rl.actions`` works without the extra.
``docs/RL.md`` describes the spaces and the rewards.
"""
