"""The pure rules engine of Shithead: every rule, option and preset of docs/RULES.md.

Standard library only; no I/O; randomness comes in as an argument. Typical use::

    from server.engine import make_rules, Game, view_for

    rules = make_rules("classic", {"goal": "winner"})
    game = Game.new(rules, 4, seed=7)
    seat = game.to_act()[0]
    events = game.apply(seat, game.legal_actions(seat)[0])
    view = view_for(game, seat)
"""

from .actions import Action, format_action, parse_action
from .cards import build_deck, format_card, format_cards, parse_card, parse_cards
from .deal import stack_deck
from .errors import IllegalAction, IllegalReason, RulesError
from .events import Event, event_to_dict
from .game import Game
from .outcome import GameOutcome
from .record import Positions, ReplayRecord
from .rules import OPTION_NAMES, PRESETS, Preset, Rules, check_seats, make_rules, preset_info, preset_names
from .series import Series, SeriesTally
from .view import spectator_view, view_for

__all__ = [
    "OPTION_NAMES",
    "PRESETS",
    "Action",
    "Event",
    "Game",
    "GameOutcome",
    "IllegalAction",
    "IllegalReason",
    "Positions",
    "Preset",
    "ReplayRecord",
    "Rules",
    "RulesError",
    "Series",
    "SeriesTally",
    "build_deck",
    "check_seats",
    "event_to_dict",
    "format_action",
    "format_card",
    "format_cards",
    "make_rules",
    "parse_action",
    "parse_card",
    "parse_cards",
    "preset_info",
    "preset_names",
    "spectator_view",
    "stack_deck",
    "view_for",
]
