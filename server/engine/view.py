"""What one seat, or a spectator, may know: the only way state leaves the engine to a player.

:func:`view_for` returns plain data (cards in text form) that can go over the wire as it is.
A seat sees its own hand; everyone sees every face-up card, the pile, counts of hands,
face-down cards (as positions still covered, never their cards), the stock and burned cards,
whose turn it is, the direction, what must be beaten, and public announcements. A
spectator (``seat=None``) sees no hand at all. Nobody sees a face-down card or the order of
the stock; both are revealed only by the events of the moment they are played.
"""

from __future__ import annotations

from typing import Any

from .actions import Action, format_action
from .cards import CARD_LIMIT, RANK, format_card, rank_char
from .game import ANNOUNCING, OVER, Game
from .powers import AT_MOST, BELOW

# Card texts by card number, built once (views format thousands of cards a second).
_CARD_TEXT = tuple(format_card(c) if RANK[c] >= 2 else "" for c in range(CARD_LIMIT))


def _cards(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [_CARD_TEXT[c] for c in cards]


def to_beat(game: Game) -> dict[str, Any]:
    """What the next play must do: ``rule`` is ``any``, ``at_least``, ``at_most`` or ``below``
    ``rank``; ``also`` lists ranks allowed besides (after a lower card); ``min_cards`` is the
    least number of cards (``match_count``); ``counts_as`` the value a joker counts as."""
    pw = game.pw
    eff = game.eff
    min_cards = game.last_len if game.rules.match_count and game.last_len > 1 else 1
    if eff == 0:
        return {"rule": "any", "rank": None, "also": [], "min_cards": min_cards}
    duty = pw.lower[eff]
    rule = "at_most" if duty == AT_MOST else "below" if duty == BELOW else "at_least"
    out: dict[str, Any] = {
        "rule": rule,
        "rank": rank_char(eff),
        "also": sorted((rank_char(r) for r in pw.allows[eff]), key=lambda ch: "23456789TJQKAX".index(ch))
        if duty
        else [],
        "min_cards": min_cards,
    }
    if pw.value[eff] != eff:
        out["counts_as"] = rank_char(pw.value[eff])
    return out


def player_view(game: Game, s: int) -> dict[str, Any]:
    """What everyone sees of seat ``s``: the items of the view's ``players`` list."""
    ct = _CARD_TEXT
    places = game.places
    out_ = game.out
    return {
        "seat": s,
        "hand_count": game.hand_n[s],
        "face_up": [[ct[c] for c in st] for st in game.face_up[s]],
        "face_down": [c is not None for c in game.face_down[s]],
        "out": out_[s],
        "place": places.index(s) + 1 if places is not None else (game.finish.index(s) + 1 if out_[s] else None),
        "ready": game.ready[s],
    }


def player_key(game: Game, s: int) -> tuple[Any, ...]:
    """A value that changes whenever :func:`player_view` of ``s`` changes (for caching it)."""
    return (
        game.hand_n[s],
        tuple(map(tuple, game.face_up[s])),
        tuple(game.face_down[s]),
        game.out[s],
        game.ready[s],
        game.places,
    )


def public_view(
    game: Game, decorations: list[dict[str, Any]] | None = None, *, players: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything every seat and spectator may see: the view without ``seat``, ``hand`` and
    ``legal``. A server builds it once per change and adds :func:`seat_part` per seat.
    ``decorations``: per seat, entries a server adds to that player (name, away...).
    ``players``: the ``players`` list if the caller built it already (from :func:`player_view`)."""
    ct = _CARD_TEXT
    places = game.places
    if players is None:
        players = [player_view(game, s) for s in range(game.n)]
        if decorations is not None:
            for p, extra in zip(players, decorations, strict=True):
                p.update(extra)
    phase = game.phase
    view: dict[str, Any] = {
        "phase": phase,
        "preset": game.rules.preset,
        "dealer": game.dealer,
        "turn": game.current if game.current >= 0 and phase != OVER else None,
        "direction": game.direction,
        "players": players,
        "pile": [ct[c] for c in game.pile],
        "to_beat": to_beat(game),
        "stock_count": len(game.stock),
        "burned_count": len(game.burned),
        "announcements": [{"seat": s, "card": ct[c]} for s, c in game.announcements],
        "must_play": ct[game.forced] if game.forced >= 0 else None,
        "drew_this_turn": game.drew,
        "action_count": len(game.history),
        "max_actions": game.rules.max_actions,
        "result": None if places is None else game.outcome().to_dict(),  # type: ignore[union-attr]
    }
    if phase == ANNOUNCING:
        view["announce_turn"] = game.current
    return view


def seat_part(game: Game, seat: int | None, legal: tuple[Action, ...] | None = None) -> dict[str, Any]:
    """What only ``seat`` sees (its hand and legal actions); for a spectator (None): nothing.
    ``legal``: the seat's legal actions if the caller has them already."""
    if seat is None:
        return {"seat": None, "hand": None, "legal": []}
    if legal is None:
        legal = game.legal_actions(seat)
    return {"seat": seat, "hand": _cards(game.hand(seat)), "legal": [format_action(a) for a in legal]}


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (0..n-1), or of a spectator when ``seat`` is ``None``."""
    if seat is not None and not (type(seat) is int and 0 <= seat < game.n):
        raise ValueError(f"no seat {seat!r} at this table of {game.n}")
    view = public_view(game)
    view.update(seat_part(game, seat))
    return view


def spectator_view(game: Game) -> dict[str, Any]:
    """The view of somebody who holds no seat: no hand cards at all."""
    return view_for(game, None)
