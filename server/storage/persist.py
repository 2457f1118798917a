"""What of a table and a tournament is written to the database, and how it is rebuilt.

Pure conversions between live objects and JSON-friendly data (no I/O, no clock: times come in
as arguments). :mod:`server.storage.store` keeps the data, :mod:`server.shell.app` decides when to write it.

A table is kept as

* a **snapshot** (:func:`table_snapshot`): settings, owner, seats (names, token hashes, bundled
  bot kinds, counters), the series (dealer, tally, games played), ``seq``, the last game's
  ``game_over`` and ``n``, the number of actions of the game in progress when it was taken;
* its latest **deal** (:func:`deal_of`): game id, dealer, deck, when it was dealt, the ``seq``
  of its first state, and the series' random state after dealing (:func:`rng_state`);
* the game's **actions**, one row each: seat, text, time since the deal, whether the clock
  played it, and the acting seat's bank after it.

:func:`restore_table` deals the same deck and applies the same actions (the engine replays a
record exactly), so the game is back at the same position with the same ``seq``. Clocks go on
with what was left at the crash plus a grace period; every seat is away until its player
resumes.
"""

from __future__ import annotations

import dataclasses
import random
from array import array
from collections import deque
from collections.abc import Sequence
from typing import Any

from protocol.messages import GameOver
from protocol.names import name_key
from server.engine import Game, SeriesTally, format_card, make_rules, parse_action, parse_card
from server.engine.game import SETUP
from server.login.identity import GUEST, account_identity, house_identity
from server.tables.table import Seat, Table
from server.tournament.director import Finished, Participant, Settings, Tournament
from server.tournament.ranges import contains, merge
from server.tournament.schedule import schedule
from server.tournament.standings import RatedGame

SNAPSHOT_VERSION = 1


class RestoreError(Exception):
    """Stored data that cannot be rebuilt (the message says what and where)."""


# --------------------------------------------------------------------------- tables


def table_snapshot(t: Table) -> dict[str, Any]:
    """Everything of ``t`` but its game's actions (see the module docstring)."""
    game = t.game
    over = t.last_game_over
    return {
        "v": SNAPSHOT_VERSION,
        "id": t.id,
        "name": t.name,
        "owner": t.owner,
        "owner_id": t.owner_id,
        "preset": t.rules.preset,
        "options": t.rules.overrides(),
        "nseats": t.nseats,
        "password_hash": t.password_hash.hex() if t.password_hash else None,
        "action_seconds": t.action_seconds,
        "bank_seconds": t.bank_seconds,
        "seed": t.seed,
        "deck": [format_card(c) for c in t.deck] if t.deck is not None else None,
        "seats": [None if s is None else _seat(s) for s in t.seats],
        "dealer": t.series.dealer,
        "tally": t.series.tally.to_dict(),
        "games_played": t.games_played,
        "game_id": t.game_id,
        "seq": t.seq,
        "running": t.running,
        "n": len(game.history) if game is not None and t.running else 0,
        "game_over": None if over is None else {"game": over.game, "result": over.result, "tally": over.tally},
        "tournament": list(t.tournament) if t.tournament is not None else None,
        "owner_gone": t.owner_gone,
    }


def _seat(s: Seat) -> dict[str, Any]:
    return {
        "name": s.name,
        "identity": s.identity,
        "bot": s.bot,
        "guest": s.guest,
        "house": s.house,
        "token_hash": s.token_hash.hex(),
        "timeouts": s.timeouts,
        "illegal": s.illegal,
        "drops": s.drops,
        "bank": s.bank,
        "stand_in": s.stand_in,
        "stand_in_kind": s.stand_in_kind,
    }


def _legacy_identity(name: str, *, guest: bool, house: str | None) -> str:
    """The identity of a seat or owner in a snapshot written before identities: a bundled bot's,
    an account's, or a guest's that only the seat's token can prove (the guest who logs in with
    it gets this identity: :mod:`server.login.accounts`)."""
    if house is not None:
        return house_identity(name)
    return GUEST + "legacy-" + name_key(name) if guest else account_identity(name)


def deal_of(t: Table, started_wall: float) -> dict[str, Any]:
    """The deal of the game just started at ``t`` (``started_wall``: its wall-clock time)."""
    game = t.game
    assert game is not None
    return {
        "game_id": t.game_id,
        "dealer": game.dealer,
        "deck": [format_card(c) for c in game.deck],
        "started": started_wall,
        "seq_start": t.seq,
    }


def rng_state(rng: object) -> bytes | None:
    """The state of a :class:`random.Random` as bytes (None for another kind of generator)."""
    if type(rng) is not random.Random:
        return None
    version, internal, gauss = rng.getstate()
    if version != 3 or gauss is not None:
        return None
    return array("I", internal).tobytes()


def set_rng_state(rng: random.Random, data: bytes) -> None:
    internal = array("I")
    internal.frombytes(data)
    rng.setstate((3, tuple(internal), None))


ActionRow = tuple[int, int, str, float, bool, float]
"""A stored action: index, seat, text, seconds since the deal, played by the clock, bank after."""


def restore_table(
    snap: dict[str, Any],
    deal: dict[str, Any] | None,
    rng: bytes | None,
    actions: list[ActionRow],
    *,
    now: float,
    crashed_wall: float,
    grace: float,
) -> Table:
    """Rebuild a table from its rows (see the module docstring).

    ``now`` is the monotonic time, ``crashed_wall`` (wall-clock) when the
    server last ran (its last heartbeat, or later action); ``grace`` seconds are added to
    every running clock. Raises :class:`RestoreError` if the rows do not replay."""
    where = f"table {snap.get('id')}"
    try:
        if snap.get("v") != SNAPSHOT_VERSION:
            raise RestoreError(f"{where}: unknown snapshot version {snap.get('v')!r}")
        rules = make_rules(snap["preset"], dict(snap["options"]))
        deck = [parse_card(c) for c in snap["deck"]] if snap["deck"] is not None else None
        t = Table(
            snap["id"],
            snap["name"],
            snap["owner"],
            rules,
            snap["nseats"],
            password_hash=bytes.fromhex(snap["password_hash"]) if snap["password_hash"] else None,
            action_seconds=snap["action_seconds"],
            bank_seconds=snap["bank_seconds"],
            seed=snap["seed"],
            deck=deck,
            owner_id=snap.get("owner_id"),
        )
        for i, d in enumerate(snap["seats"]):
            if d is not None:
                t.seats[i] = Seat(
                    d["name"],
                    d["bot"],
                    d["guest"],
                    bytes.fromhex(d["token_hash"]),
                    None,
                    identity=d.get("identity") or _legacy_identity(d["name"], guest=d["guest"], house=d["house"]),
                    away_since=now,
                    house=d["house"],
                    timeouts=d["timeouts"],
                    illegal=d["illegal"],
                    drops=d["drops"],
                    bank=d["bank"],
                    stand_in=d["stand_in"],
                    stand_in_kind=d["stand_in_kind"],
                )
        if "owner_id" not in snap:
            # Written before identities: the owner is the seat of that name, or an account.
            seated = [s.identity for s in t.seats if s is not None and s.name == t.owner]
            t.owner_id = seated[0] if seated else account_identity(t.owner)
        series = t.series
        series.dealer = snap["dealer"]
        tally = snap["tally"]
        series.tally = SeriesTally(t.nseats, [list(p) for p in tally["places"]], list(tally["losses"]), tally["capped"])
        if rng is not None:
            set_rng_state(series.rng, rng)
        t.owner_gone = snap["owner_gone"]
        t.games_played = snap["games_played"]
        t.game_id = snap["game_id"]
        t.seq = snap["seq"]
        if snap["game_over"] is not None:
            g = snap["game_over"]
            t.last_game_over = GameOver(table=t.id, game=g["game"], result=g["result"], tally=g["tally"])
        if snap["tournament"] is not None:
            t.tournament = (snap["tournament"][0], snap["tournament"][1])
        if snap["running"]:
            if deal is None or deal["game_id"] != snap["game_id"]:
                raise RestoreError(f"{where}: the game in progress has no deal")
            _replay(t, snap, deal, actions, now=now, crashed_wall=crashed_wall, grace=grace)
        elif deal is not None and deal["game_id"] == snap["game_id"] and actions:
            # The last game is over: rebuilt as it ended, for players who come back to it.
            _replay(t, snap, deal, actions, now=now, crashed_wall=crashed_wall, grace=grace, over=True)
    except RestoreError:
        raise
    except Exception as exc:  # malformed rows: one table is lost, not the server
        raise RestoreError(f"{where}: {type(exc).__name__}: {exc}") from exc
    return t


def _replay(
    t: Table,
    snap: dict[str, Any],
    deal: dict[str, Any],
    actions: list[ActionRow],
    *,
    now: float,
    crashed_wall: float,
    grace: float,
    over: bool = False,
) -> None:
    game = Game(t.rules, t.nseats, deal["dealer"], [parse_card(c) for c in deal["deck"]])
    seen = snap["n"]
    turn_t = 0.0
    for expect, (n, seat, text, at, timeout, bank) in enumerate(actions):
        if n != expect:
            raise RestoreError(f"table {t.id}: action {expect} is missing")
        game.apply(seat, parse_action(text))
        t.action_times.append(at)
        st = t.seats[seat]
        if st is not None and not over:
            st.bank = bank
            if timeout and n >= seen:
                st.timeouts += 1
        if game.phase != SETUP:
            turn_t = at
    if game.is_over() != over:
        raise RestoreError(f"table {t.id}: the game {'is not' if over else 'is'} over after its actions")
    t.game = game
    t.seq = deal["seq_start"] + len(actions)
    if over:
        return
    t.series.game = game
    # Game time does not count the time the server was down: the clock of the seat to act
    # resumes with what it had left at the crash, plus the grace.
    ran = max(crashed_wall - deal["started"], turn_t, t.action_times[-1] if t.action_times else 0.0)
    t.started_at = now - ran
    t.started_wall = deal["started"]  # (started_at leaves out the time the server was down)
    t.turn_started = t.started_at + turn_t + grace
    to_act = game.to_act()
    for i, st in enumerate(t.seats):
        if st is not None:
            st.legal = game.legal_actions(i) if i in to_act else ()
            st.acted_seq = t.seq


# --------------------------------------------------------------------------- tournaments


def tournament_snapshot(t: Tournament) -> dict[str, Any]:
    """Settings, participants in registration order, status and running games. The finished
    games are not in it: each is written once, as it ends (:func:`finished_game`), so the
    snapshot rewritten after every game keeps its size however long the tournament runs."""
    return {
        "v": SNAPSHOT_VERSION,
        "id": t.id,
        "organiser": t.organiser,
        "organiser_id": t.organiser_id,
        "settings": dataclasses.asdict(t.settings),
        "participants": [{"name": p.name, "bot": p.bot, "house": p.house} for p in t.participants.values()],
        "status": t.status,
        "paused": t.paused,
        "cancelled": t.cancelled,
        "running": {str(table): spec.number for table, spec in t.running.items()},
    }


def finished_game(fin: Finished) -> dict[str, Any]:
    """A finished tournament game as the database keeps it (one row per game)."""
    return fin.to_dict()


def restore_tournament(snap: dict[str, Any], finished: Sequence[dict[str, Any]] = ()) -> Tournament:
    """Rebuild a tournament from its snapshot and its finished games (:func:`finished_game`, in
    any order); its running games' tables are restored separately."""
    where = f"tournament {snap.get('id')}"
    try:
        if snap.get("v") != SNAPSHOT_VERSION:
            raise RestoreError(f"{where}: unknown snapshot version {snap.get('v')!r}")
        sd = dict(snap["settings"])
        for key in ("participants", "bots"):
            if sd.get(key) is not None:
                sd[key] = tuple(sd[key])
        # Ranges; snapshots written before them list the numbers.
        done = sd.get("done") or ()
        sd["done"] = merge(ranges=done) if done and isinstance(done[0], (list, tuple)) else merge(done)
        settings = Settings(**sd)
        # (snapshots before identities: the organiser was an account of that name, or a guest
        # whom nobody can prove to be now)
        t = Tournament(
            snap["id"],
            snap["organiser"],
            settings,
            organiser_id=snap.get("organiser_id") or account_identity(snap["organiser"]),
        )
        for p in snap["participants"]:
            t.participants[p["name"]] = Participant(p["name"], p["bot"], p["house"], connected=False)
        t.status = snap["status"]
        t.paused = bool(snap.get("paused", False))  # (both absent from snapshots written before them)
        t.cancelled = bool(snap.get("cancelled", False))
        if t.status == "registering":
            return t
        names = list(settings.participants) if settings.participants is not None else list(t.participants)
        games = schedule(
            names,
            table_size=settings.seats,
            games=settings.games,
            master_seed=settings.master_seed,
            kind=settings.schedule,
            hero=settings.hero,
            permute=settings.permute,
        )
        by_number = {g.number: g for g in games}
        t.open_results(games)
        for f in finished:
            result = RatedGame(
                f["number"],
                f["deal"],
                tuple(f["seats"]),
                tuple(f["places"]),
                f["capped"],
                tuple(f["timeouts"]),
                tuple(f["illegal"]),
                tuple(f["disconnects"]),
            )
            t.count(Finished(by_number[f["number"]], result, f["actions"], f["server_game"]))
        t.running = {int(table): by_number[number] for table, number in snap["running"].items()}
        taken = {f["number"] for f in finished} | {s.number for s in t.running.values()}
        if t.status != "finished":  # (a cancelled one has games left, and plays none of them)
            t.pending = deque(g for g in games if g.number not in taken and not contains(settings.done, g.number))
    except RestoreError:
        raise
    except Exception as exc:
        raise RestoreError(f"{where}: {type(exc).__name__}: {exc}") from exc
    return t
