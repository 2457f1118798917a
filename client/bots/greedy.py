"""The greedy bot: the engine's one greedy policy, fed the wire view (PROTOCOL.md §6-7).

The heuristic itself, in words and in code, is :mod:`server.engine.policies` (the server's
default action, ``shithead-sim --policy greedy`` and the search bot's playouts are the same
policy, so a test can hold them all to the same choices). This module only supplies what the
view does not spell out: the rules in force. The view names the ``preset``; the bot takes the
preset's rules from the engine's catalogue (the powers of its ranks and its burn count) and
compiles them for the view's number of players. Option overrides made at table creation are
not in the view: pass them as ``options`` when they are known. An unknown preset (a newer
server) is played with the classic rules.

The bot is deterministic: it never uses its rng.
"""

from __future__ import annotations

import logging
import random
from typing import Any, ClassVar

from client.bot import Bot
from protocol.payloads import View
from server.engine import Rules, RulesError, make_rules
from server.engine.policies import greedy_for_view

__all__ = ["GreedyBot"]

log = logging.getLogger(__name__)


class GreedyBot(Bot):
    """:func:`server.engine.policies.greedy_for_view` on every view.

    ``options``: rule overrides known to be in force at the table (the view shows only the
    preset); they are applied on top of the view's preset."""

    name: ClassVar[str] = "greedy"

    def __init__(self, rng: random.Random | None = None, *, options: dict[str, Any] | None = None) -> None:
        super().__init__(rng)
        self.options = options
        self._rules: dict[str, Rules] = {}

    def rules_for(self, preset: str | None) -> Rules:
        """The rules assumed for a view of ``preset`` (built once per preset)."""
        key = preset or "classic"
        rules = self._rules.get(key)
        if rules is None:
            try:
                rules = make_rules(key, self.options)
            except RulesError as exc:
                log.warning("cannot use the rules of preset %r (%s); playing with the classic rules", key, exc)
                rules = make_rules("classic")
            self._rules[key] = rules
        return rules

    def choose(self, view: View) -> str:
        """The greedy action among ``view["legal"]``."""
        legal: list[str] = view["legal"]
        return legal[greedy_for_view(view, self.rules_for(view.get("preset")))]
