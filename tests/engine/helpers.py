"""Shared helpers for engine tests: deal chosen cards, skip the setup, reach the endgame, act by text."""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import (
    Game,
    IllegalAction,
    IllegalReason,
    make_rules,
    parse_action,
    parse_cards,
    stack_deck,
    view_for,
)
from server.engine.cards import format_card
from server.engine.events import Event


def deal(
    preset: str = "classic", seats: int = 2, options: dict[str, Any] | None = None, *, dealer: int = 0, **cards: Any
) -> Game:
    """A new game whose deck deals the given cards (``hands``, ``face_up``, ``face_down``,
    ``stock``: see :func:`server.engine.stack_deck`); still in setup. Remaining positions are
    filled in deck order, so the deal is fully deterministic."""
    rules = make_rules(preset, options)
    deck = stack_deck(rules, seats, dealer, **cards)
    return Game(rules, seats, dealer, deck)


def start(
    preset: str = "classic", seats: int = 2, options: dict[str, Any] | None = None, *, dealer: int = 0, **cards: Any
) -> Game:
    """Like :func:`deal`, then every seat readies without exchanging (classic deal only), so
    the game is in play (or in the announce phase)."""
    game = deal(preset, seats, options, dealer=dealer, **cards)
    for s in range(seats):
        game.apply(s, ("ready",))
    return game


def act(game: Game, text: str, seat: int | None = None) -> list[Event]:
    """Apply the action written as ``text`` for ``seat`` (default: the current player)."""
    return game.apply(game.current if seat is None else seat, parse_action(text))


def kinds(events: list[Event]) -> list[str]:
    return [e[0] for e in events]


def cards(text: str) -> list[int]:
    return parse_cards(text)


def names(cs: list[int] | tuple[int, ...]) -> list[str]:
    return [format_card(c) for c in cs]


def legal_texts(game: Game, seat: int | None = None) -> set[str]:
    from server.engine import format_action

    return {format_action(a) for a in game.legal_actions(game.current if seat is None else seat)}


def all_cards(game: Game) -> list[int]:
    """Every card in every zone of the game, sorted (to check that cards are conserved)."""
    out = list(game.stock) + list(game.pile) + list(game.burned)
    for s in range(game.n):
        out += game.hand(s)
        out += [c for st in game.face_up[s] for c in st]
        out += [c for c in game.face_down[s] if c is not None]
    return sorted(out)


def refused(game: Game, text: str, seat: int | None = None) -> IllegalReason:
    """Apply an action that must be refused; return its code and check nothing changed."""
    s = game.current if seat is None else seat
    views = [view_for(game, x) for x in range(game.n)]
    version = game.version
    with pytest.raises(IllegalAction) as exc:
        act(game, text, s)
    assert game.version == version
    assert [view_for(game, x) for x in range(game.n)] == views
    return exc.value.code


def table(
    options: dict[str, Any] | None = None,
    *,
    preset: str = "classic",
    seats: int = 2,
    hands: dict[int, str] | None = None,
    up: dict[int, str] | None = None,
    down: dict[int, str] | None = None,
    stock: str = "",
) -> Game:
    """A started game (setup done) dealing the given cards, written as text."""

    def conv(spec: dict[int, str] | None) -> dict[int, list[int]]:
        return {s: cards(t) for s, t in (spec or {}).items()}

    return start(preset, seats, options, hands=conv(hands), face_up=conv(up), face_down=conv(down), stock=cards(stock))


def strip(
    game: Game, seat: int | None = None, *, hand: bool = False, face_up: bool = False, stock: bool = False
) -> None:
    """Test set-up shortcut to reach an endgame position (C13/C14) without dozens of real moves:
    move ``seat``'s hand and/or face-up cards, and/or the whole stock, onto the burned cards.
    Every card stays in the game (checked); ``version`` is bumped so the legal cache is dropped."""
    before = all_cards(game)
    if hand:
        assert seat is not None
        for grp in list(game.groups[seat].values()):
            game._remove(seat, grp)
            game.burned.extend(grp)
    if face_up:
        assert seat is not None
        for st in game.face_up[seat]:
            game.burned.extend(st)
            st.clear()
    if stock:
        game.burned.extend(game.stock)
        game.stock.clear()
    game.version += 1
    assert all_cards(game) == before
    assert len(before) == game.rules.deck_size()
