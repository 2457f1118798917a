"""The two exception types of the engine and the stable codes of illegal actions.

* :class:`RulesError`: a rule set could not be built (unknown option, bad value, impossible
  combination, player count outside the preset's range). Its message names the option and
  the allowed values.
* :class:`IllegalAction`: an action was refused. Its :attr:`~IllegalAction.code` (an :class:`IllegalReason`) is stable
  (it goes over the wire); the message is for people. The game state is left exactly as it
  was. Messages only ever name cards the acting seat itself named or holds, never hidden
  cards.
"""

from __future__ import annotations

from enum import StrEnum


class RulesError(ValueError):
    """A rule set is invalid. ``option`` names the offending option (or ``"preset"``/``"seats"``)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option
        self.message = message


class IllegalReason(StrEnum):
    """Why an action was refused: the ``reason`` of an ``ILLEGAL_ACTION`` error (distinct from the
    wire's own :class:`protocol.errors.ErrorCode`). The values are part of the wire protocol: never rename."""

    MALFORMED_ACTION = "MALFORMED_ACTION"
    """Not an action at all, or a card/position that does not parse."""
    GAME_OVER = "GAME_OVER"
    WRONG_PHASE = "WRONG_PHASE"
    """A setup action during play, a play during setup, and so on."""
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    ALREADY_READY = "ALREADY_READY"
    SETUP_INCOMPLETE = "SETUP_INCOMPLETE"
    """Ready before every face-up slot holds a card (``deal_style: choose``)."""
    CARD_NOT_HELD = "CARD_NOT_HELD"
    WRONG_SOURCE = "WRONG_SOURCE"
    """Cards from the face-up row while the hand still holds cards (C12/C13), and similar."""
    MIXED_RANKS = "MIXED_RANKS"
    DOES_NOT_BEAT = "DOES_NOT_BEAT"
    TOO_FEW_CARDS = "TOO_FEW_CARDS"
    """``match_count``: the play has fewer cards than the previous one."""
    MUST_PLAY_ANNOUNCED = "MUST_PLAY_ANNOUNCED"
    STACK_SPLIT = "STACK_SPLIT"
    """``karma_stacking``: a face-up stack is played as one group or not at all."""
    NOT_A_RUN = "NOT_A_RUN"
    HAND_TOO_LARGE = "HAND_TOO_LARGE"
    """``draw_before_play``: after drawing, the play must leave at most ``refill_to`` cards."""
    MUST_PLAY = "MUST_PLAY"
    """``voluntary_pickup: false``: picking up while a play is possible."""
    EMPTY_PILE = "EMPTY_PILE"
    """Picking up an empty pile is not a move (C11)."""
    BAD_POSITION = "BAD_POSITION"
    STOCK_EMPTY = "STOCK_EMPTY"
    OPTION_OFF = "OPTION_OFF"
    """The action needs a rule option the table does not use."""
    NOT_ALLOWED = "NOT_ALLOWED"
    """Any other refusal; the message says why."""


class IllegalAction(Exception):
    """An action was refused; the state is unchanged. ``code`` is an :class:`IllegalReason`."""

    def __init__(self, code: IllegalReason, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
