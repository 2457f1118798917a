"""Builders for the CLI tests: summaries, players and views shaped as ``docs/PROTOCOL.md``
shows them (plain dicts, as the SDK hands them out inside messages), and typed ``State``
messages around them, with only the fields a test cares about given."""

from __future__ import annotations

from typing import Any

from protocol.messages import State


def summary(
    table: int = 1,
    names: list[str | None] | None = None,
    *,
    owner: str = "alice",
    status: str = "waiting",
    preset: str = "classic",
    **extra: Any,
) -> dict[str, Any]:
    """A table summary; ``names`` gives the seats (None: free). Names ending in a digit after
    ``-`` are bots (``greedy-2``)."""
    names = names if names is not None else ["alice", None]
    seats = [
        None if n is None else {"name": n, "bot": "-" in n, "guest": False, "away": False, "timeouts": 0} for n in names
    ]
    out = {
        "table": table,
        "name": "demo",
        "owner": owner,
        "preset": preset,
        "options": {},
        "seats": seats,
        "free": sum(1 for n in names if n is None),
        "bots": sum(1 for s in seats if s and s["bot"]),
        "spectators": 0,
        "status": status,
        "games_played": 0,
        "password": False,
        "action_seconds": 60.0,
        "bank_seconds": 0.0,
        "fixed_seed": None,
        "fixed_deck": False,
    }
    out.update(extra)
    return out


def player(
    seat: int,
    name: str,
    *,
    hand: int = 3,
    up: list[list[str]] | None = None,
    down: list[bool] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One entry of ``view.players``."""
    out = {
        "seat": seat,
        "hand_count": hand,
        "face_up": up if up is not None else [["4h"], ["4s"], ["Ad"]],
        "face_down": down if down is not None else [True, True, True],
        "out": False,
        "place": None,
        "ready": True,
        "name": name,
        "bot": "-" in name,
        "away": False,
        "timeouts": 0,
    }
    out.update(extra)
    return out


def view(
    players: list[dict[str, Any]],
    *,
    seat: int | None = 0,
    hand: list[str] | None = None,
    legal: list[str] | None = None,
    phase: str = "play",
    turn: int | None = 0,
    pile: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A ``view``; ``to_beat`` follows the top of the pile (classic ``at_least``)."""
    pile = pile if pile is not None else []
    top = pile[-1][0] if pile else None
    out = {
        "phase": phase,
        "preset": "classic",
        "dealer": 0,
        "turn": turn,
        "direction": 1,
        "players": players,
        "pile": pile,
        "to_beat": {"rule": "at_least" if top else "any", "rank": top, "also": [], "min_cards": 1},
        "stock_count": 20,
        "burned_count": 0,
        "announcements": [],
        "must_play": None,
        "drew_this_turn": False,
        "action_count": 10,
        "max_actions": 5000,
        "result": None,
        "seat": seat,
        "hand": (hand if hand is not None else []) if seat is not None else None,
        "legal": legal if legal is not None else [],
    }
    out.update(extra)
    return out


def state(
    v: dict[str, Any],
    *,
    seq: int = 5,
    game: int = 1,
    table: int = 1,
    events: list[dict[str, Any]] | None = None,
    deadline: float | None = None,
) -> State:
    """A ``state`` message around view ``v``."""
    return State(table=table, seq=seq, game=game, view=v, events=events or [], deadline=deadline)


def midgame(**extra: Any) -> State:
    """A four-player classic game in play, seen by alice (seat 0) on her turn."""
    players = [
        player(0, "alice", hand=7, up=[["Ts"], ["4s"], ["Ad"]]),
        player(1, "greedy-1", hand=3, up=[["5h"], ["Js"], ["2c"]]),
        player(2, "carol", hand=12, up=[[], [], ["Qd"]], down=[True, True, False], away=True, timeouts=1),
        player(3, "dave", hand=0, up=[[], [], []], down=[False, False, False], out=True, place=1),
    ]
    v = view(
        players,
        hand=["3s", "4c", "4d", "6h", "9c", "Qh", "Kd"],
        pile=["5c", "7h", "7d", "9s"],
        legal=["play 9c", "play Qh", "play Kd", "take"],
        turn=0,
        stock_count=22,
        burned_count=12,
        **extra,
    )
    return state(
        v,
        seq=45,
        game=2,
        deadline=42.0,
        events=[
            {"kind": "played", "seat": 1, "cards": ["9s"], "source": "hand"},
            {"kind": "drew", "seat": 1, "count": 1},
        ],
    )
