"""Rule sets: the options of docs/RULES.md §3, the presets of §4, and their validation.

House rules are data. A :class:`Rules` value is frozen and hashable; :func:`make_rules`
builds one from a preset name plus option overrides and raises :class:`RulesError` with a
message naming the option and its allowed values when anything is wrong.

``powers`` maps a rank character (``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``, ``X`` for
jokers) to a tuple of power names. An override of ``powers`` is merged rank by rank into the
preset's powers; give a rank an empty list to take its powers away. Besides the powers of
docs/RULES.md §3 (``reset``, ``burn``, ``lower``, ``lower_strict``, ``glass``, ``reverse``, ``skip``)
there is ``anywhere`` (playable on anything, but not transparent), which the ``egilsson`` 5
and the ``guarducci`` jokers need.

Two options spell out what docs/RULES.md says in prose per preset:

* ``lower_allows``: rank -> ranks also allowed after that ``lower`` card ("after a 7: 7 or
  lower, an 8 or a 10" is ``{"7": "8T"}``). Under a lower duty nothing else may follow, not
  even a card that is otherwise playable on anything; that is how ``guarducci``'s "a 10 may
  not follow an 8" falls out.
* ``glass_on_empty``: ``any`` (a glass card on an empty pile is beaten by anything) or
  ``rank`` (it counts as its own rank there, as ``guarducci``'s 7).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from .cards import CardError, parse_rank, rank_char
from .errors import RulesError

POWER_NAMES = ("reset", "burn", "lower", "lower_strict", "glass", "reverse", "skip", "anywhere")

MAX_DECKS = 3
"""Beyond three decks a single rank can be played in thousands of distinct ways."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete, validated rule set. Build it with :func:`make_rules`."""

    preset: str = "classic"
    decks: int = 1
    jokers: int = 0
    face_down: int = 3
    face_up: int = 3
    hand: int = 3
    refill_to: int = 3
    deal_style: str = "classic"
    draw_before_play: bool = False
    opening: str = "threes"
    ten_anywhere: bool = True
    burn_count: int = 4
    voluntary_pickup: bool = True
    faceup_fail: str = "take_one"
    after_pickup: str = "next"
    goal: str = "loser"
    karma_stacking: bool = False
    match_count: bool = False
    pair_skip: bool = False
    suit_runs: bool = False
    count_runs: bool = True
    """Whether a suit run counts its cards for ``match_count`` and ``pair_skip`` (a two-card
    run skips; a run must meet the count and sets it). ``False``: those rules concern only
    cards of one rank, so a run meets no count, sets none and is no pair. RULES.md, "Where the
    sources are silent" S7."""
    stock_gamble: bool = False
    reverse_per_card: bool = False
    """Whether a play of several reverse cards reverses the direction once per card (two
    cancel out) instead of once per play. RULES.md, "Where the sources are silent" S1."""
    powers: tuple[tuple[str, tuple[str, ...]], ...] = (("2", ("reset",)), ("T", ("burn",)))
    lower_allows: tuple[tuple[str, str], ...] = ()
    glass_on_empty: str = "any"
    joker_as: str = "plain"
    next_dealer: str = "rotate"
    max_actions: int = 5000
    flush_player: bool = False
    min_players: int = 2
    max_players: int = 5

    def options(self) -> dict[str, Any]:
        """All options as plain data (JSON/msgpack friendly), without the preset's player range."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in ("preset", "min_players", "max_players"):
                continue
            v = getattr(self, f.name)
            if f.name == "powers":
                v = {r: list(p) for r, p in v}
            elif f.name == "lower_allows":
                v = dict(v)
            out[f.name] = v
        return out

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rule set's preset."""
        base = make_rules(self.preset).options()
        return {k: v for k, v in self.options().items() if base[k] != v}

    def powers_of(self, rank: int) -> tuple[str, ...]:
        """The power names of a rank number (2..15)."""
        ch = rank_char(rank)
        for r, p in self.powers:
            if r == ch:
                return p
        return ()

    def cards_per_player(self) -> int:
        return self.face_down + self.face_up + self.hand

    def deck_size(self) -> int:
        return 52 * self.decks + self.jokers


# --------------------------------------------------------------------------- option table

_ENUMS: dict[str, tuple[str, ...]] = {
    "deal_style": ("classic", "choose"),
    "opening": ("threes", "announce"),
    "faceup_fail": ("take_one", "leave"),
    "after_pickup": ("next", "previous"),
    "goal": ("loser", "winner"),
    "glass_on_empty": ("any", "rank"),
    "joker_as": ("plain", "glass", "seven", "two"),
    "next_dealer": ("rotate", "loser"),
}
_BOOLS = (
    "draw_before_play",
    "ten_anywhere",
    "voluntary_pickup",
    "karma_stacking",
    "match_count",
    "pair_skip",
    "suit_runs",
    "count_runs",
    "stock_gamble",
    "reverse_per_card",
    "flush_player",
)
_INTS: dict[str, tuple[int, int]] = {
    "decks": (1, MAX_DECKS),
    "jokers": (0, 8),
    "face_down": (0, 10),
    "face_up": (0, 10),
    "hand": (1, 20),
    "refill_to": (1, 20),
    "burn_count": (0, 12),
    "max_actions": (1, 1_000_000),
}
OPTION_NAMES: tuple[str, ...] = tuple(
    f.name for f in fields(Rules) if f.name not in ("preset", "min_players", "max_players")
)


def _classic_powers() -> dict[str, list[str]]:
    return {"2": ["reset"], "T": ["burn"]}


# The catalogue of presets. Each: (overrides of the classic options, min players, max players,
# one-line description). Read it through preset_names() and preset_info().
PRESETS: dict[str, tuple[dict[str, Any], int, int, str]] = {
    "classic": ({}, 2, 5, "the common game: 3 face down, 3 face up, 3 in hand; a 2 resets the pile, a 10 burns it"),
    "encyclopedia": (
        {"match_count": True},
        2,
        5,
        "after a play of two or more cards, the next play must have at least as many",
    ),
    "six_players": (
        {"jokers": 2, "powers": {"X": ["glass", "reverse"]}},
        2,
        6,
        "for up to six: two jokers added, each playable on anything, see-through, and reversing the play",
    ),
    "alt_deal": ({"deal_style": "choose"}, 2, 5, "you get 6 cards in hand and choose 3 of them to put face up"),
    "gultnieks": (
        {"powers": {"7": ["lower"], "8": ["reverse", "glass"]}, "lower_allows": {"7": "8T"}},
        2,
        5,
        "after a 7 the next play is a 7 or lower (or an 8 or a 10); an 8 is see-through and reverses the play",
    ),
    "karma": (
        {"karma_stacking": True, "after_pickup": "previous"},
        2,
        5,
        "equal face-up cards stack on one pile; after a pick-up, the player who made the last play leads",
    ),
    "smeghead": (
        {"decks": 2, "face_down": 4, "face_up": 4, "hand": 4, "flush_player": True},
        2,
        8,
        "for up to eight: two decks, 4 face down, 4 face up, 4 in hand; "
        "the first to burn the pile is named the flush player",
    ),
    "west_kent": (
        {"face_down": 5, "face_up": 5, "hand": 5},
        2,
        3,
        "for two or three: 5 face down, 5 face up, 5 in hand",
    ),
    "guarducci": (
        {
            "jokers": 2,
            "powers": {"7": ["glass"], "8": ["lower"], "X": ["skip", "anywhere"]},
            "lower_allows": {"8": "X"},
            "glass_on_empty": "rank",
            "joker_as": "glass",
            "suit_runs": True,
            "after_pickup": "previous",
        },
        2,
        5,
        "a 7 is see-through, after an 8 play lower, jokers skip a player; runs in one suit; "
        "after a pick-up the last player to play leads",
    ),
    "finnish": ({"face_down": 4, "face_up": 4, "hand": 3}, 2, 4, "4 face down, 4 face up, 3 in hand"),
    "ten_two_slide": ({"hand": 4}, 2, 5, "3 face down, 3 face up, 4 in hand"),
    "egilsson": (
        {"powers": {"5": ["lower_strict", "anywhere"]}, "stock_gamble": True},
        2,
        5,
        "a 5 goes on anything and the next play must be below 5; you may gamble on the stock's top card",
    ),
    "wikibooks": (
        {
            "decks": 2,
            "deal_style": "choose",
            "face_down": 3,
            "face_up": 3,
            "hand": 5,
            "refill_to": 3,
            "draw_before_play": True,
            "ten_anywhere": False,
            "burn_count": 5,
            "voluntary_pickup": False,
            "faceup_fail": "leave",
            "opening": "announce",
            "next_dealer": "loser",
        },
        2,
        9,
        "German rules: two decks, choose your face-up cards, announce the first card, five in a row burn",
    ),
    "linz": (
        {
            "face_down": 3,
            "face_up": 3,
            "hand": 5,
            "draw_before_play": True,
            "powers": {"7": ["lower"], "8": ["glass"]},
            "lower_allows": {"7": "8T"},
            "burn_count": 4,
            "faceup_fail": "leave",
            "voluntary_pickup": False,
        },
        2,
        4,
        "Linz club rules: 5 in hand, after a 7 play lower, an 8 is see-through, draw before you play",
    ),
}


@dataclass(frozen=True, slots=True)
class Preset:
    """One named rule set of the catalogue (RULES.md §4): what a client shows and a server checks."""

    name: str
    description: str
    """One line, for menus and help texts."""
    min_players: int
    max_players: int
    options: Mapping[str, Any]
    """The preset's option values that differ from ``classic`` (read-only)."""


def preset_names() -> tuple[str, ...]:
    """The names of every preset, ``classic`` first, in the catalogue's order. This catalogue
    (:data:`PRESETS`) is the only one: clients, docs and tools take the names from here."""
    return tuple(PRESETS)


def preset_info(name: str) -> Preset:
    """The :class:`Preset` called ``name``; raises :class:`RulesError` for an unknown name
    (the message lists the known ones)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise RulesError("preset", f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
    options, lo, hi, description = PRESETS[name]
    return Preset(name, description, lo, hi, MappingProxyType(copy.deepcopy(options)))


def _allowed(name: str) -> str:
    if name in _ENUMS:
        return " | ".join(_ENUMS[name])
    if name in _BOOLS:
        return "true | false"
    if name in _INTS:
        lo, hi = _INTS[name]
        extra = " (0 turns burning by count off)" if name == "burn_count" else ""
        return f"an integer {lo}..{hi}{extra}"
    if name == "powers":
        return "a map of rank (2-9, T, J, Q, K, A, X) to a list of: " + ", ".join(POWER_NAMES)
    if name == "lower_allows":
        return 'a map of rank to a string of ranks, e.g. {"7": "8T"}'
    return "?"


def _check_scalar(name: str, value: Any) -> Any:
    if name in _BOOLS:
        if not isinstance(value, bool):
            raise RulesError(name, f"option {name!r} must be true or false, not {value!r}")
        return value
    if name in _INTS:
        lo, hi = _INTS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(name, f"option {name!r} must be {_allowed(name)}, not {value!r}")
        if name == "burn_count" and value == 1:
            raise RulesError(name, f"option 'burn_count' must be 0 (off) or 2..{hi}, not 1")
        return value
    if name in _ENUMS:
        if value not in _ENUMS[name]:
            raise RulesError(name, f"option {name!r} must be one of {_allowed(name)}, not {value!r}")
        return value
    raise AssertionError(name)


def _rank_key(name: str, key: Any) -> str:
    if not isinstance(key, str):
        raise RulesError(name, f"option {name!r}: rank keys must be strings, not {key!r}")
    try:
        r = parse_rank(key)
    except CardError:
        raise RulesError(name, f"option {name!r}: unknown rank {key!r}; use 2-9, T, J, Q, K, A or X") from None
    return rank_char(r)


def _merge_powers(base: dict[str, list[str]], value: Any) -> dict[str, list[str]]:
    if not isinstance(value, Mapping):
        raise RulesError("powers", f"option 'powers' must be {_allowed('powers')}")
    merged = dict(base)
    for key, plist in value.items():
        rk = _rank_key("powers", key)
        if isinstance(plist, str) or not isinstance(plist, (list, tuple)):
            raise RulesError("powers", f"option 'powers': the powers of {rk} must be a list, not {plist!r}")
        for p in plist:
            if p not in POWER_NAMES:
                raise RulesError(
                    "powers", f"option 'powers': unknown power {p!r} for {rk}; allowed: {', '.join(POWER_NAMES)}"
                )
        merged[rk] = list(dict.fromkeys(plist))
    return merged


def _check_lower_allows(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise RulesError("lower_allows", f"option 'lower_allows' must be {_allowed('lower_allows')}")
    out: dict[str, str] = {}
    for key, ranks in value.items():
        rk = _rank_key("lower_allows", key)
        if not isinstance(ranks, str):
            raise RulesError("lower_allows", f"option 'lower_allows': the ranks after {rk} must be a string")
        chars = []
        for ch in ranks.replace(" ", ""):
            chars.append(_rank_key("lower_allows", ch))
        out[rk] = "".join(dict.fromkeys(chars))
    return out


def make_rules(preset: object = "classic", options: object = None) -> Rules:
    """Return the :class:`Rules` of ``preset`` with ``options`` applied on top.

    Raises :class:`RulesError` for an unknown preset or option, a value of the wrong type or
    outside its range, or an impossible combination. The player count is checked separately
    by :func:`check_seats`, because a rule set does not know how many will sit down.
    ``preset`` and ``options`` are typed ``object``: they come from outside and are checked here.
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError("preset", f"unknown preset {preset!r}; allowed: {', '.join(PRESETS)}")
    base, lo, hi, _ = PRESETS[preset]
    opts = dict(base)
    if options is not None and not isinstance(options, Mapping):
        raise RulesError("options", f"options must be a map of option name to value, not {type(options).__name__}")
    given = dict(options or {})
    for name in given:
        if not isinstance(name, str) or name not in OPTION_NAMES:
            raise RulesError(str(name), f"unknown option {name!r}; known options: {', '.join(OPTION_NAMES)}")

    powers = _merge_powers(_classic_powers(), opts.pop("powers", {}))
    if "powers" in given:
        powers = _merge_powers(powers, given.pop("powers"))
    lower_allows = _check_lower_allows(opts.pop("lower_allows", {}))
    if "lower_allows" in given:
        lower_allows = _check_lower_allows(given.pop("lower_allows"))
    opts.update(given)

    values: dict[str, Any] = {}
    for name, v in opts.items():
        values[name] = _check_scalar(name, v)
    # refill_to follows hand unless set (RULES.md: "refill_to = hand").
    if "refill_to" not in values:
        values["refill_to"] = values.get("hand", 3)

    powers = {r: p for r, p in powers.items() if p}
    for rk, plist in powers.items():
        if "lower" in plist and "lower_strict" in plist:
            raise RulesError("powers", f"option 'powers': {rk} cannot be both lower and lower_strict")
        if "reset" in plist and ("lower" in plist or "lower_strict" in plist):
            raise RulesError("powers", f"option 'powers': {rk} cannot be both reset and lower")
    for rk in lower_allows:
        if not {"lower", "lower_strict"} & set(powers.get(rk, ())):
            raise RulesError(
                "lower_allows", f"option 'lower_allows' names {rk}, which has no lower or lower_strict power"
            )

    rules = Rules(
        preset=preset,
        powers=tuple(sorted((r, tuple(p)) for r, p in powers.items())),
        lower_allows=tuple(sorted(lower_allows.items())),
        min_players=lo,
        max_players=hi,
        **values,
    )
    if rules.cards_per_player() * rules.min_players > rules.deck_size():
        raise RulesError(
            "hand",
            f"impossible deal: {rules.cards_per_player()} cards each "
            f"(face_down + face_up + hand) for {rules.min_players} players needs more "
            f"than the {rules.deck_size()} cards of {rules.decks} deck(s) and "
            f"{rules.jokers} joker(s)",
        )
    return rules


def check_seats(rules: Rules, seats: object) -> int:
    """``seats``, checked: raise :class:`RulesError` unless ``seats`` players can play under ``rules``."""
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise RulesError("seats", f"the number of players must be an integer, not {seats!r}")
    if not rules.min_players <= seats <= rules.max_players:
        raise RulesError(
            "seats", f"preset {rules.preset!r} is for {rules.min_players} to {rules.max_players} players, not {seats}"
        )
    need = rules.cards_per_player() * seats
    if need > rules.deck_size():
        raise RulesError(
            "decks",
            f"impossible deal: {seats} players x {rules.cards_per_player()} "
            f"cards = {need}, but decks={rules.decks} and jokers={rules.jokers} "
            f"give only {rules.deck_size()} cards",
        )
    return seats
