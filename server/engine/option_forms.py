"""The options of the rules as a form can offer them: each scalar option (a number, a yes/no or
one of a few words) with its kind, its allowed values and a short label and one line in plain
words (from docs/RULES.md §3), for the web client's house-rules controls (catalog.json).

``powers`` and ``lower_allows`` are maps, not one value: they are left to the raw JSON a client
may still send, and so is ``max_actions`` (a safety cap, not a rule people choose).
"""

from __future__ import annotations

from typing import Any

from .rules import _BOOLS, _ENUMS, _INTS, OPTION_NAMES, make_rules

__all__ = ["OPTION_WORDS", "option_forms", "preset_values"]

OPTION_WORDS: dict[str, tuple[str, str]] = {
    "decks": ("Decks", "Number of 52-card decks shuffled together."),
    "jokers": ("Jokers", "Jokers added to the deck."),
    "face_down": ("Face-down cards", "Cards dealt face down to each player."),
    "face_up": ("Face-up cards", "Cards dealt face up on top of them."),
    "hand": ("Hand", "Cards dealt to each player's hand."),
    "refill_to": ("Refill the hand to", "While the stock lasts, a player draws back up to this many cards."),
    "deal_style": ("Deal", "classic: face-up cards are dealt; choose: players pick which of their cards go face up."),
    "draw_before_play": (
        "Draw before playing",
        "A player may draw from the stock, one card at a time, before playing.",
    ),
    "opening": (
        "First play",
        "threes: the holder of the lowest card starts; announce: players announce a card to open with.",
    ),
    "ten_anywhere": ("A 10 goes on anything", "Off: a 10 may not be played on a J, Q, K or A."),
    "burn_count": ("Cards in a row that burn", "Equal cards in a row that burn the pile (0: never by count)."),
    "voluntary_pickup": ("Pick up at will", "Off: a player picks up the pile only when they cannot play."),
    "faceup_fail": (
        "A face-up card that fails",
        "take_one: it is picked up with the pile; leave: it stays and the pile is picked up.",
    ),
    "after_pickup": ("After a pick-up", "next: the next player leads; previous: the one who made the last play leads."),
    "goal": (
        "Goal",
        "loser: play until one player is left holding cards; winner: the first player out wins and the game ends.",
    ),
    "karma_stacking": ("Stack equal face-up cards", "Equal face-up cards may be stacked and played as one group."),
    "match_count": ("Match the count", "After a play of two or more cards, the next play must have at least as many."),
    "pair_skip": ("A pair skips", "A play of exactly two cards skips the next player."),
    "suit_runs": ("Runs in a suit", "A play may be a run of consecutive ranks in one suit."),
    "count_runs": ("Runs count their cards", "A run counts its cards for 'match the count' and 'a pair skips'."),
    "stock_gamble": (
        "Gamble on the stock",
        "Instead of playing, turn over the top card of the stock: played if it beats the pile.",
    ),
    "reverse_per_card": ("Each reverse card reverses", "Two reverse cards played together cancel out."),
    "glass_on_empty": ("A glass card on an empty pile", "any: anything beats it; rank: it counts as its own rank."),
    "joker_as": (
        "Jokers play as",
        "plain: the highest card, no power; or the power of a glass card, a seven or a two.",
    ),
    "next_dealer": ("Next dealer", "rotate: the deal passes to the left; loser: the last game's loser deals."),
    "flush_player": ("Name the flush player", "The game's result names the first player to burn the pile."),
}
"""Option -> (label, one line of help), for every option a form offers."""


def option_forms() -> list[dict[str, Any]]:
    """Each option a form offers, in the rules' order: ``{"name", "label", "help", "kind"}``
    with ``kind`` ``bool``, ``int`` (plus ``min`` and ``max``) or ``choice`` (plus ``choices``)."""
    out: list[dict[str, Any]] = []
    for name in OPTION_NAMES:
        if name not in OPTION_WORDS:
            continue
        label, help_ = OPTION_WORDS[name]
        entry: dict[str, Any] = {"name": name, "label": label, "help": help_}
        if name in _BOOLS:
            entry["kind"] = "bool"
        elif name in _INTS:
            entry.update(kind="int", min=_INTS[name][0], max=_INTS[name][1])
        else:
            entry.update(kind="choice", choices=list(_ENUMS[name]))
        out.append(entry)
    return out


def preset_values(preset: str) -> dict[str, Any]:
    """The values of a preset's options that :func:`option_forms` offers (a form's defaults)."""
    options = make_rules(preset).options()
    return {name: options[name] for name in OPTION_WORDS}
