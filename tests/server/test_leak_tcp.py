"""No frame ever tells a client a card it must not know: checked over several full games
against the frames themselves and against the server-side truth (the stored record)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

from server.engine import Game, ReplayRecord, event_to_dict, format_card, view_for
from server.engine.cards import build_deck
from tests.server.client import TestClient, make_table, play_until_over, short_seeds
from tests.server.helpers import cards_in, cards_in_text

SERVER_KINDS = {"timeout", "game_start", "back"}
"""Event kinds the server adds to the engine's events."""
TABLES = [(3, "msgpack"), (4, "json"), (3, "mixed"), (4, "ws"), (3, "json"), (4, "mixed")]
"""Seats and wire modes of the six tables: "ws" is JSON over the WebSocket (server/shell/web.py),
"mixed" one seat of each mode in turn."""
SEEDS = {3: short_seeds("classic", 3, 3, max_len=300), 4: short_seeds("classic", 4, 3, max_len=300)}
DECK = [format_card(c) for c in build_deck(1, 0)]


def positions(record: ReplayRecord) -> list[Game]:
    """The game after 0, 1, ... n actions."""
    game = Game(record.rules(), record.seats, record.dealer, list(record.deck))
    out = [game.clone()]
    for seat, action in record.actions:
        game.apply(seat, action)
        out.append(game.clone())
    return out


def public_cards(game: Game) -> set[str]:
    """Cards every seat sees: face-up stacks, the pile and announcements."""
    cards = {c for row in game.face_up for st in row for c in st} | set(game.pile)
    cards |= {c for _, c in game.announcements}
    return {format_card(c) for c in cards}


def hidden_from(game: Game, seat: int | None) -> set[str]:
    """Cards ``seat`` (None: a spectator) must not know: other hands, face-down, stock."""
    cards = set(game.stock) | {c for row in game.face_down for c in row if c is not None}
    for s in range(game.n):
        if s != seat:
            cards |= set(game.hand(s))
    return {format_card(c) for c in cards}


def visible_in_frame(f: dict[str, Any]) -> set[str]:
    """What the frame itself shows its receiver: own hand, face-up, pile, announcements and
    the cards named in this frame's events."""
    v = f["view"]
    out = set(v["hand"] or [])
    out |= {c for p in v["players"] for st in p["face_up"] for c in st}
    out |= set(v["pile"]) | {a["card"] for a in v["announcements"]}
    out |= cards_in(f["events"])
    return out


def strip_server_fields(view: dict[str, Any]) -> dict[str, Any]:
    view = dict(view)
    del view["clocks"]  # the table's, not the engine's (checked on its own)
    view["players"] = [
        {k: v for k, v in p.items() if k not in ("name", "bot", "away", "timeouts")} for p in view["players"]
    ]
    return view


def check_client(c: TestClient, table: int, seat: int | None, pos: list[Game], record: ReplayRecord) -> int:
    """Check every frame ``c`` received; return how many error texts were checked."""
    n_prev = -1
    last_state: dict[str, Any] | None = None
    errors_checked = 0
    for f in c.frames:
        kind = f["type"]
        if kind == "state":
            assert f["table"] == table
            n = f["view"]["action_count"]
            assert n == n_prev + 1, "every seat and watcher sees every position in order"
            n_prev = n
            game = pos[n]
            # 1. The frame's own consistency: nothing beyond what it shows as visible.
            frame_cards = cards_in(f)
            assert frame_cards <= visible_in_frame(f), (c.name, n, frame_cards - visible_in_frame(f))
            # 2. The view is exactly the engine's view for this seat at this position.
            assert strip_server_fields(f["view"]) == view_for(game, seat), (c.name, n)
            assert [k["seat"] for k in f["view"]["clocks"]] == sorted(game.to_act()), (c.name, n)
            # 3. The events are the engine's events of the action that led here.
            engine_events = [e for e in f["events"] if e["kind"] not in SERVER_KINDS]
            if n > 0:
                before = pos[n - 1].clone()
                actor, action = record.actions[n - 1]
                assert engine_events == [event_to_dict(e) for e in before.apply(actor, action)]
            else:
                assert engine_events == []
            # 4. Server truth: no hidden card outside what this action revealed to everyone.
            leaked = (frame_cards & hidden_from(game, seat)) - cards_in(engine_events)
            assert not leaked, (c.name, seat, n, leaked)
            if seat is None:
                assert f["view"]["hand"] is None and f["view"]["legal"] == []
                hands = {format_card(x) for s in range(game.n) for x in game.hand(s)}
                assert not (cards_in({k: v for k, v in f.items() if k != "events"}) & hands)
            last_state = f
        elif kind == "error":
            request = c.sent.get(f.get("id"), {})
            named = cards_in(request)
            named_ok = cards_in_text(f["message"])
            if last_state is None:
                assert not set(named_ok) - named
                continue
            game = pos[last_state["view"]["action_count"]]
            own = {format_card(x) for x in game.hand(seat)} if seat is not None else set()
            allowed = own | public_cards(game) | named
            assert not set(named_ok) - allowed, (c.name, f, request)
            assert not (set(named_ok) & hidden_from(game, seat)) - named
            errors_checked += 1
        elif kind in ("record",):
            continue
        else:
            assert not cards_in(f), (c.name, f)
    assert n_prev == len(record.actions)
    return errors_checked


async def test_no_frame_leaks_a_hidden_card(app: Any, players: Any, connect: Any) -> None:
    """Over six concurrent games no state, error or other frame names a card its receiver may not know."""
    tables = []
    for k, (seats, modes) in enumerate(TABLES):
        mode_list = (["msgpack", "json", "ws"] * 2)[:seats] if modes == "mixed" else modes
        clients = await players(app, [f"leak{k}_{i}" for i in range(seats)], mode_list)
        watcher = await connect(app, ("msgpack", "json", "ws")[k % 3], f"rail{k}")
        await watcher.login()
        t = await make_table(clients, start=False, seed=SEEDS[seats][k // 2])
        await watcher.ok({"type": "watch", "table": t}, "watching")
        tables.append((t, clients, watcher))

    def probe(c: TestClient, f: dict[str, Any]) -> None:
        """Now and then an illegal request: a random card, on turn or not. The draws depend on
        the client and the state only, not on how frames of different clients interleave."""
        rng = random.Random(f"{c.name}:{f['seq']}")
        if f["view"]["seat"] is None or rng.random() > 0.15:
            return
        card = rng.choice(DECK)
        text = rng.choice(
            [
                f"play {card}",
                f"take {card}",
                f"swap {card} 0",
                "flip 0",
                "take",
                f"play {card} {rng.choice(DECK)}",
                f"announce {card}",
                "ready",
            ]
        )
        if text not in f["view"]["legal"]:
            c.send({"type": "act", "table": f["table"], "seq": f["seq"], "action": text})

    for t, clients, _ in tables:
        await clients[0].ok({"type": "start", "table": t}, "ok")
    outs = await asyncio.gather(
        *(play_until_over([*clients, watcher], t, timeout=60, on_state=probe) for t, clients, watcher in tables)
    )
    reader = await connect(app, "msgpack", "auditor")
    await reader.login()
    checked_errors = 0
    codes: Counter[str] = Counter()
    for (t, clients, watcher), out in zip(tables, outs, strict=True):
        assert all(code == "ILLEGAL_ACTION" for _, e in out["errors"] for code in [e["code"]]), out["errors"]
        codes.update(e["reason"] for _, e in out["errors"])
        game_id = out["game_over"][0]["game"]
        stored = (await reader.ok({"type": "get_record", "game": game_id}, "record"))["record"]
        record = ReplayRecord.from_dict(stored["record"])
        pos = positions(record)
        assert list(pos[-1].outcome().places) == out["game_over"][0]["result"]["places"]
        for seat, c in enumerate(clients):
            checked_errors += check_client(c, t, seat, pos, record)
        check_client(watcher, t, None, pos, record)
    assert checked_errors > 50 and {"NOT_YOUR_TURN", "CARD_NOT_HELD"} <= set(codes), codes
