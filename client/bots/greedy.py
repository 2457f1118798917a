"""The greedy bot: a fixed heuristic that reads only the wire view (PROTOCOL.md §6-7).

**Card values.** Ranks are ordered ``2 3 4 5 6 7 8 9 T J Q K A`` (a joker above the ace). Some
ranks have powers, which the view does not spell out; the bot takes them from the preset
named in ``view["preset"]`` (RULES.md §4: the 2 resets and the 10 burns everywhere; jokers are
glass in ``six_players`` and skip in ``guarducci``; 7s and 8s are ``lower`` or ``glass`` in
``gultnieks``, ``guarducci`` and ``linz``; the 5 is ``lower_strict`` in ``egilsson``). Option
overrides made at table creation are not in the view and are not known. Each card gets a
*keep value*:

* **power cards** (reset, burn or glass: the 2, the 10, glass 7s/8s, glass jokers):
  100 + rank: kept for when nothing else goes;
* **awkward cards** (lower, lower-strict, skip, reverse, play-anywhere, without one of the
  powers above): 50 + rank: played after the plain cards;
* **plain cards**: their rank, 1 (the 3) to 12 (the ace); a powerless joker 13.

Within each group the order is the rank order with the 2 lowest, so of two power cards the
2 goes before the 10.

**Setup** (``swap``, ``place``, ``ready``): a ``place`` that setup requires (``ready`` not yet
legal) puts the most valuable hand card face up. Otherwise the bot makes the ``swap`` that
raises the face-up row's value most (hand card's value minus the value of the card it
replaces), as long as some swap raises it, and an optional ``place`` (``karma_stacking``) only
for a power card or a king or better. Then ``ready``. Every swap raises the row's value, so
setup ends; a cap of 30 setup actions per game guards against the unforeseen.

**Announcing** (``opening: announce``): announce the plain card of lowest value, else pass.

**Play**, first rule that applies:

1. *Burn by completion*: a play of the rank on top of the pile that brings the equal cards
   on top to four (five in ``wikibooks``) burns the pile and gives another turn: do it, with
   the fewest cards that complete it.
2. *Plain cards*: the lowest plain rank that is legal, with every card of it that may go
   together (the longest such play; a suit run counts by its first card).
3. *Awkward cards*: likewise, the lowest.
4. ``draw`` (``draw_before_play``), when legal: a look at the stock before a power card goes.
5. *Power cards*: on a pile of 5 or more cards a burning card if one is legal (clears a big
   pile), else the cheapest power card, one card only.
6. ``gamble`` (``stock_gamble``).
7. ``flip``: the first face-down position (nothing is known about them).
8. *Pick up*: ``take``; with face-up cards, ``take`` giving up the face-up card of lowest value.
9. Anything else: the first legal action.

So the bot picks up only when nothing else is legal, and keeps its 2s and 10s as long as
something else goes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from client.bot import Bot

__all__ = ["GreedyBot", "PRESET_POWERS", "card_value"]

RANKS = "23456789TJQKA"
#: Powers that make a card worth keeping to the end.
KEEP_POWERS = frozenset({"reset", "burn", "glass"})
_CLASSIC = {"2": frozenset({"reset"}), "T": frozenset({"burn"})}
#: Ranks with powers per preset (RULES.md §4); presets not listed play with the classic 2 and 10.
PRESET_POWERS: dict[str, dict[str, frozenset[str]]] = {
    "six_players": {**_CLASSIC, "X": frozenset({"glass", "reverse"})},
    "gultnieks": {**_CLASSIC, "7": frozenset({"lower"}), "8": frozenset({"reverse", "glass"})},
    "guarducci": {
        **_CLASSIC,
        "7": frozenset({"glass"}),
        "8": frozenset({"lower"}),
        "X": frozenset({"skip", "anywhere"}),
    },
    "egilsson": {**_CLASSIC, "5": frozenset({"lower_strict", "anywhere"})},
    "linz": {**_CLASSIC, "7": frozenset({"lower"}), "8": frozenset({"glass"})},
}
#: Equal cards in a row that burn the pile, where not 4.
BURN_COUNT = {"wikibooks": 5}
BIG_PILE = 5
MAX_SETUP_ACTIONS = 30
POWER = 100
AWKWARD = 50


def powers_of(preset: str | None) -> dict[str, frozenset[str]]:
    """The powers by rank character of ``preset`` (classic's for an unknown preset)."""
    return PRESET_POWERS.get(preset or "", _CLASSIC)


def card_value(card: str, powers: dict[str, frozenset[str]]) -> int:
    """The keep value of ``card`` (see the module docstring): higher is better kept."""
    rank = card[0]
    base = RANKS.index(rank) if rank in RANKS else len(RANKS)  # a joker ranks above the ace
    found = powers.get(rank, frozenset())
    if found & KEEP_POWERS:
        return POWER + base
    if found:
        return AWKWARD + base
    return base


class GreedyBot(Bot):
    """The heuristic of the module docstring; deterministic (it never uses its rng)."""

    name: ClassVar[str] = "greedy"

    def __init__(self, rng: Any = None) -> None:
        super().__init__(rng)
        self._setup_actions = 0

    def on_game_start(self, view: dict[str, Any]) -> None:
        self._setup_actions = 0

    def choose(self, view: dict[str, Any]) -> str:
        """The action the heuristic picks from ``view["legal"]``."""
        legal: list[str] = list(view["legal"])
        powers = powers_of(view.get("preset"))
        kinds = {a.split()[0] for a in legal}
        if kinds & {"swap", "place", "ready"}:
            return self._setup(view, legal, powers)
        if kinds & {"announce", "pass"}:
            return _announce(legal, powers)
        return _play(view, legal, powers)

    # ------------------------------------------------------------------ setup

    def _setup(self, view: dict[str, Any], legal: list[str], powers: dict[str, frozenset[str]]) -> str:
        self._setup_actions += 1
        ready = "ready" in legal
        if ready and self._setup_actions > MAX_SETUP_ACTIONS:
            return "ready"
        places = [a.split() for a in legal if a.startswith("place ")]
        if places and not ready:
            # Required placements: the best card goes face up.
            best = max(places, key=lambda w: card_value(w[1], powers))
            return " ".join(best)
        row = _own_face_up(view)
        best_gain, best_action = 0, None
        for action in legal:
            words = action.split()
            if words[0] == "swap":
                slot = int(words[2])
                stack = row[slot] if slot < len(row) else []
                if not stack:
                    continue
                gain = card_value(words[1], powers) - card_value(stack[0], powers)
            elif words[0] == "place":
                value = card_value(words[1], powers)
                if value < POWER and value < RANKS.index("K"):
                    continue
                gain = value
            else:
                continue
            if gain > best_gain:
                best_gain, best_action = gain, action
        if best_action is not None:
            return best_action
        return "ready" if ready else legal[0]


def _own_face_up(view: dict[str, Any]) -> list[list[str]]:
    seat = view.get("seat")
    for p in view.get("players") or []:
        if p.get("seat") == seat:
            return [list(stack) for stack in p.get("face_up") or []]
    return []


def _announce(legal: list[str], powers: dict[str, frozenset[str]]) -> str:
    cards = [a.split()[1] for a in legal if a.startswith("announce ")]
    plain = [c for c in cards if card_value(c, powers) < AWKWARD]
    if plain:
        return "announce " + min(plain, key=lambda c: card_value(c, powers))
    return "pass" if "pass" in legal else legal[0]


def _top_run(pile: list[str]) -> tuple[str | None, int]:
    """The rank on top of the pile and how many cards of it lie on top in a row."""
    if not pile:
        return None, 0
    rank = pile[-1][0]
    count = 0
    for card in reversed(pile):
        if card[0] != rank:
            break
        count += 1
    return rank, count


def _play(view: dict[str, Any], legal: list[str], powers: dict[str, frozenset[str]]) -> str:
    plays: list[tuple[str, list[str], int]] = []  # (action, cards, value of its first card)
    for action in legal:
        words = action.split()
        if words[0] in ("play", "run") and len(words) > 1:
            plays.append((action, words[1:], card_value(words[1], powers)))
    pile = list(view.get("pile") or [])
    # 1. Burn by completing a run of equal cards on the pile.
    burn_count = BURN_COUNT.get(view.get("preset") or "", 4)
    top, count = _top_run(pile)
    completing = [
        p for p in plays if p[0].startswith("play ") and p[1][0][0] == top and count + len(p[1]) >= burn_count
    ]
    if completing:
        return min(completing, key=lambda p: (len(p[1]), p[2]))[0]
    # 2-3. Plain cards, then awkward ones: the lowest, all copies together.
    for lo, hi in ((0, AWKWARD), (AWKWARD, POWER)):
        group = [p for p in plays if lo <= p[2] < hi]
        if group:
            return min(group, key=lambda p: (p[2], -len(p[1])))[0]
    # 4. A look at the stock before spending a power card.
    if "draw" in legal:
        return "draw"
    # 5. Power cards: burn a big pile, else the cheapest, one card.
    if plays:
        if len(pile) >= BIG_PILE:
            burners = [p for p in plays if "burn" in powers.get(p[1][0][0], frozenset())]
            if burners:
                return min(burners, key=lambda p: len(p[1]))[0]
        return min(plays, key=lambda p: (p[2], len(p[1])))[0]
    # 6-7. Blind chances.
    if "gamble" in legal:
        return "gamble"
    flips = [a for a in legal if a.startswith("flip ")]
    if flips:
        return flips[0]
    # 8. Pick up, giving up the least valuable face-up card if one must go with it.
    if "take" in legal:
        return "take"
    takes = [a for a in legal if a.startswith("take ")]
    if takes:
        return min(takes, key=lambda a: card_value(a.split()[1], powers))
    return legal[0]
