"""Pure tests of server.tables.table.Table: fake sessions, explicit clocks, no sockets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ChatMessage, GameOver, Presence, PresenceEvent, State, TableUpdate
from protocol.names import name_key
from server.engine import ReplayRecord, event_to_dict, format_action, make_rules, parse_cards, stack_deck
from server.login.identity import house_identity
from server.tables.seating import hand_to_bot
from server.tables.table import Outbox, StateOut, Table, TableError, default_action
from tests.server.client import short_seeds

SEED = short_seeds("classic", 2, 1, max_len=200)[0]


@dataclass(eq=False)
class Fake:
    """What a table needs of a connection; compared by identity like a real session."""

    name: str
    bot: bool = False
    guest: bool = True
    house: str | None = None
    turn_states: bool = False
    address: str = "127.0.0.1"
    identity: str = ""
    """Who it is; by default its name's key, like an account's (so "ALICE" is "alice" logged in
    again, and the tables below, owned by "alice", are hers)."""

    def __post_init__(self) -> None:
        if not self.identity:
            self.identity = house_identity(self.name) if self.house is not None else name_key(self.name)


def table(seats: int = 2, **kw: Any) -> Table:
    kw.setdefault("seed", SEED)
    return Table(1, "t", "alice", make_rules("classic", kw.pop("options", {})), seats, **kw)


def seated(seats: int = 2, **kw: Any) -> tuple[Table, list[Fake], list[str]]:
    t = table(seats, **kw)
    people = [Fake(n) for n in ["alice", "bob", "carol", "dave"][:seats]]
    tokens = [t.join(p, None, kw.get("password_raw"), Outbox())[1] for p in people]
    return t, people, tokens


def states(out: Outbox, who: Any = None) -> list[State]:
    """The states queued (for ``who``), broadcast ones turned into the messages they stand for."""
    return [
        m.message() if isinstance(m, StateOut) else m
        for s, m in out.items
        if isinstance(m, State | StateOut) and (who is None or s is who)
    ]


def refused(code: ErrorCode, fn: Any, *args: Any) -> TableError:
    with pytest.raises(TableError) as info:
        fn(*args)
    assert info.value.code is code, info.value.message
    return info.value


def test_join_assigns_seats_and_tells_everyone() -> None:
    """join fills seats, returns a token, updates everyone; full/taken/out-of-range/duplicate refused."""
    t = table(3)
    a, b, c, d = Fake("alice"), Fake("bob"), Fake("carol"), Fake("dave")
    out = Outbox()
    assert t.join(a, 2, None, out)[0] == 2
    seat, token = t.join(b, None, None, out)
    assert seat == 0 and len(token) >= 20
    assert [type(m) for _, m in out.items] == [TableUpdate, TableUpdate, TableUpdate]
    assert [s for s, _ in out.items[1:]] == [b, a]
    refused(ErrorCode.SEAT_TAKEN, t.join, c, 2, None, Outbox())
    refused(ErrorCode.SEAT_TAKEN, t.join, c, 3, None, Outbox())
    refused(ErrorCode.SEAT_TAKEN, t.join, Fake("ALICE"), None, None, Outbox())
    refused(ErrorCode.SEAT_TAKEN, t.join, a, None, None, Outbox())
    t.join(c, None, None, Outbox())
    refused(ErrorCode.TABLE_FULL, t.join, d, None, None, Outbox())
    s = t.summary()
    assert [x["name"] for x in s["seats"]] == ["bob", "carol", "alice"] and s["free"] == 0


def test_password_and_leave_and_owner() -> None:
    """Table password checked on join/watch; leave frees the seat and passes ownership on."""
    from server.login.auth import token_hash

    t = Table(1, "t", "alice", make_rules("classic", {}), 2, password_hash=token_hash("pw"))
    a, b = Fake("alice"), Fake("bob")
    refused(ErrorCode.WRONG_PASSWORD, t.join, a, None, None, Outbox())
    refused(ErrorCode.WRONG_PASSWORD, t.join, a, None, "PW", Outbox())
    refused(ErrorCode.WRONG_PASSWORD, t.watch, b, "x", Outbox(), 10, 0.0)
    t.join(a, None, "pw", Outbox())
    t.join(b, None, "pw", Outbox())
    refused(ErrorCode.NOT_AT_TABLE, t.leave, Fake("carol"), Outbox())
    t.leave(a, Outbox())
    assert t.seats[0] is None and t.owner == "bob"
    assert t.summary()["password"] is True


def test_start_checks_and_deals() -> None:
    """Only the owner starts a full table once; each seat gets its own view at seq 1."""
    t = table(2)
    a, b = Fake("alice"), Fake("bob")
    t.join(a, None, None, Outbox())
    refused(ErrorCode.NOT_ENOUGH_PLAYERS, t.start, a, Outbox(), 0.0, 1)
    t.join(b, None, None, Outbox())
    refused(ErrorCode.NOT_OWNER, t.start, b, Outbox(), 0.0, 1)
    out = Outbox()
    t.start(a, out, 100.0, 7)
    refused(ErrorCode.ALREADY_STARTED, t.start, a, Outbox(), 100.0, 8)
    refused(ErrorCode.ALREADY_STARTED, t.join, Fake("carol"), None, None, Outbox())
    refused(ErrorCode.ALREADY_STARTED, t.leave, a, Outbox())
    for i, who in enumerate((a, b)):
        (st,) = states(out, who)
        assert st.seq == 1 and st.game == 7 and st.view["seat"] == i
        assert len(st.view["hand"]) == 3
        assert st.view["legal"][0] == "ready"
        assert st.events[0]["kind"] == "game_start" and st.events[0]["game"] == 7
        assert st.deadline == 60.0
    hands = [set(states(out, p)[0].view["hand"]) for p in (a, b)]
    assert not hands[0] & hands[1]
    assert t.summary()["status"] == "playing"


def test_act_errors() -> None:
    """act: NOT_STARTED, NOT_SEATED, ILLEGAL_ACTION with the engine's reason, state unchanged."""
    t, (a, _b), _ = seated()
    refused(ErrorCode.NOT_STARTED, t.act, a, 0, "ready", Outbox(), 0.0)
    t.start(a, Outbox(), 0.0, 1)
    refused(ErrorCode.NOT_SEATED, t.act, Fake("zed"), 1, "ready", Outbox(), 0.0)
    err = refused(ErrorCode.ILLEGAL_ACTION, t.act, a, 1, "take", Outbox(), 0.0)
    assert err.reason == "WRONG_PHASE"
    err = refused(ErrorCode.ILLEGAL_ACTION, t.act, a, 1, "dance", Outbox(), 0.0)
    assert err.reason == "MALFORMED_ACTION"
    assert t.seq == 1 and t.game.history == []


def test_stale_seq_rules() -> None:
    """seq must be within [acted_seq, table.seq]; a duplicate act is never applied twice."""
    t, (a, b), _ = seated()
    t.start(a, Outbox(), 0.0, 1)
    refused(ErrorCode.STALE_SEQ, t.act, a, 2, "ready", Outbox(), 0.0)  # the future
    t.act(a, 1, "ready", Outbox(), 0.0)
    assert t.seq == 2
    refused(ErrorCode.STALE_SEQ, t.act, a, 1, "ready", Outbox(), 0.0)  # its own duplicate
    # b's options did not change when a readied: its answer to seq 1 still counts.
    assert t.seats[1].acted_seq == 1
    t.act(b, 1, "ready", Outbox(), 0.0)
    assert t.seq == 3 and len(t.game.history) == 2
    cur = t.game.current
    mover = (a, b)[cur]
    legal = t.game.legal_actions(cur)
    refused(ErrorCode.STALE_SEQ, t.act, mover, 2, format_action(legal[0]), Outbox(), 0.0)
    t.act(mover, 3, format_action(legal[0]), Outbox(), 0.0)
    refused(ErrorCode.STALE_SEQ, t.act, mover, 3, format_action(legal[0]), Outbox(), 0.0)
    assert len(t.game.history) == 3


def test_tick_applies_default_action_after_the_clock() -> None:
    """tick applies default_action only after action_seconds + bank, counting timeouts."""
    t, (a, b), _ = seated(action_seconds=10.0, bank_seconds=5.0)
    out = Outbox()
    t.start(a, out, 100.0, 1)
    assert states(out, a)[0].deadline == 15.0
    assert t.tick(114.9, 120.0, Outbox()) is None and t.seq == 1
    out = Outbox()
    expected = default_action(t.game, 0)
    # What that action does, worked out on a replayed copy of the game.
    twin = ReplayRecord.of(t.game).replay(len(t.game.history))
    effects = [event_to_dict(e) for e in twin.apply(0, expected)]
    t.tick(115.0, 120.0, out)
    sent = states(out, b)
    st = sent[0]
    assert st.events[0] == {"kind": "timeout", "seat": 0, "action": format_action(expected), "count": 1}
    assert list(st.events[1:]) == effects
    # In setup the clock plays the seat's whole setup at once (its swaps, then ready): one timeout.
    played = [x.events[0]["action"] for x in sent]
    assert played[-1] == "ready" and all(p.startswith("swap ") for p in played[:-1])
    assert all(x.events[0]["count"] == 1 for x in sent) and t.seq == 1 + len(sent)
    assert t.seats[0].timeouts == 1 and t.seats[0].bank == 0.0
    assert 0 not in t.game.to_act() and t.game.phase == "setup"
    # Setup is simultaneous: the second seat's clock ran out as well; the next tick does its setup.
    out = Outbox()
    t.tick(115.5, 120.0, out)
    assert {x.events[0]["seat"] for x in states(out, a)} == {1} and t.seats[1].timeouts == 1
    assert t.game.phase != "setup"
    last = 115.5
    # In play the clock starts again with each turn (a seat that timed out has no bank left).
    cur = t.game.current
    before = t.seats[cur].timeouts
    dl = t.deadline(cur)
    assert dl == last + 10.0 + t.seats[cur].bank
    assert t.tick(dl - 0.01, 120.0, Outbox()) is None
    out = Outbox()
    t.tick(dl, 120.0, out)
    ev = states(out, a)[0].events[0]
    assert ev["kind"] == "timeout" and ev["seat"] == cur and ev["count"] == before + 1


def test_gone_player_gets_default_actions_after_grace() -> None:
    """A disconnected seat is away and gets the default action once reconnect_grace has passed."""
    t, (a, b), _ = seated(action_seconds=60.0)
    t.start(a, Outbox(), 0.0, 1)
    out = Outbox()
    t.disconnected(a, out, 1.0)
    assert t.summary()["seats"][0]["away"] is True
    assert [(r, type(m)) for r, m in out.items] == [(b, Presence), (b, TableUpdate)]
    assert out.items[0][1] == Presence(table=1, seat=0, name="alice", event=PresenceEvent.DROPPED)
    assert t.tick(1.5, 2.0, Outbox()) is None and t.seq == 1
    out = Outbox()
    t.tick(3.01, 2.0, out)
    assert t.seq > 1 and t.seats[0].timeouts == 1  # its whole setup, as one timeout
    st = states(out, b)[0]
    assert st.events[0]["kind"] == "timeout" and st.view["players"][0]["away"] is True
    assert states(out, b)[-1].events[0]["action"] == "ready"
    assert not states(out, a)


def test_resume_and_bad_token() -> None:
    """resume with the right token and name gives a snapshot; anything else is BAD_TOKEN."""
    t, (a, _b), tokens = seated()
    t.start(a, Outbox(), 0.0, 1)
    t.disconnected(a, Outbox(), 1.0)
    refused(ErrorCode.BAD_TOKEN, t.resume, Fake("alice"), "nope", Outbox(), 2.0)
    refused(ErrorCode.BAD_TOKEN, t.resume, Fake("mallory"), tokens[0], Outbox(), 2.0)
    refused(ErrorCode.BAD_TOKEN, t.resume, Fake("alice"), tokens[1], Outbox(), 2.0)
    a2 = Fake("alice")
    out = Outbox()
    assert t.resume(a2, tokens[0], out, 2.0)[0] == 0
    (snap,) = states(out, a2)
    assert snap.seq == 1 and snap.events == ({"kind": "back", "seat": 0},) and snap.view["seat"] == 0
    assert t.seat_of(a2) == 0 and t.seat_of(a) is None
    assert t.summary()["seats"][0]["away"] is False


def test_spectator_only_gets_spectator_views() -> None:
    """Watchers only ever get spectator views, with the players' events, through a whole game."""
    t, (a, b), _ = seated()
    w = Fake("walt")
    refused(ErrorCode.SEAT_TAKEN, t.watch, a, None, Outbox(), 10, 0.0)
    t.watch(w, None, Outbox(), 10, 0.0)
    refused(ErrorCode.TABLE_FULL, t.watch, Fake("wilma"), None, Outbox(), 1, 0.0)
    out = Outbox()
    t.start(a, out, 0.0, 1)
    now = 0.0
    finished = None
    while finished is None:
        for seat in t.game.to_act():
            finished = t.act((a, b)[seat], t.seq, format_action(t.game.legal_actions(seat)[0]), out, now)
            break
    ws = states(out, w)
    assert len(ws) == len(t.game.history) + 1
    assert all(
        s.view["seat"] is None and s.view["hand"] is None and s.view["legal"] == [] and s.deadline is None for s in ws
    )
    assert [(s.seq, s.events) for s in ws] == [(s.seq, s.events) for s in states(out, a)]
    # Everyone sees the clocks of the seats to act, the watcher too.
    assert [s.view["clocks"] for s in ws] == [s.view["clocks"] for s in states(out, a)]
    assert [s.view["clocks"] for s in ws] == [s.view["clocks"] for s in states(out, b)]
    overs = [(s, m) for s, m in out.items if isinstance(m, GameOver)]
    assert {id(s) for s, _ in overs} == {id(a), id(b), id(w)}
    # The finished game's record replays to its result.
    assert list(ReplayRecord.from_dict(finished.record).replay().outcome().places) == finished.result["places"]
    assert t.games_played == 1 and t.summary()["status"] == "waiting"


def test_games_are_numbered_per_table_and_ids_across_the_server() -> None:
    """game_start.number and game_over.number count the table's games 1, 2 ...; the game id is
    whatever the server hands out (issue 12)."""
    t, (a, b), _ = seated()
    for number, game_id in ((1, 40), (2, 77)):
        out = Outbox()
        t.start(a, out, 0.0, game_id)
        while (
            t.act(
                (a, b)[t.game.to_act()[0]], t.seq, format_action(t.game.legal_actions(t.game.to_act()[0])[0]), out, 0.0
            )
            is None
        ):
            pass
        (first, *_) = states(out, a)
        assert first.game == game_id and first.events[0]["kind"] == "game_start"
        assert first.events[0]["number"] == number  # type: ignore[typeddict-item]
        (over,) = [m for s, m in out.items if isinstance(m, GameOver) and s is a]
        assert (over.game, over.number) == (game_id, number) and t.games_played == number


def test_chat_goes_to_everyone_at_the_table() -> None:
    """chat reaches seated players and watchers; others get NOT_AT_TABLE."""
    t, (a, b), _ = seated()
    w = Fake("walt")
    t.watch(w, None, Outbox(), 10, 0.0)
    out = Outbox()
    t.chat(w, "hello", out)
    assert [s for s, _ in out.items] == [a, b, w]
    assert all(isinstance(m, ChatMessage) and m.seat is None and m.name == "walt" for _, m in out.items)
    refused(ErrorCode.NOT_AT_TABLE, t.chat, Fake("eve"), "hi", Outbox())


def test_summary_shows_fixed_seed_and_deck() -> None:
    """summary shows the fixed seed, or that the deck is fixed (not the deck), and the clocks."""
    s = table(2, seed=42, action_seconds=5.0, bank_seconds=30.0).summary()
    assert s["fixed_seed"] == 42 and s["fixed_deck"] is False
    assert s["action_seconds"] == 5.0 and s["bank_seconds"] == 30.0 and s["preset"] == "classic"
    rules = make_rules("classic", {})
    deck = stack_deck(rules, 2, 0, hands={0: parse_cards("3c 4c 5c"), 1: parse_cards("3d 4d 5d")})
    t = Table(2, "d", "alice", rules, 2, deck=deck)
    s = t.summary()
    assert s["fixed_seed"] is None and s["fixed_deck"] is True
    assert not any(isinstance(v, list) and len(v) > 10 for v in s.values())
    # Both games of a fixed-deck table are dealt from that deck.
    a, b = Fake("alice"), Fake("bob")
    t.join(a, None, None, Outbox())
    t.join(b, None, None, Outbox())
    t.start(a, Outbox(), 0.0, 1)
    assert list(t.game.deck) == deck


def test_a_table_plays_a_series() -> None:
    """Two games in a row: the tally counts both; a seeded table deals the same series again."""

    def play(t: Table, people: list[Fake]) -> list[GameOver]:
        overs = []
        for game_id in (1, 2):
            out = Outbox()
            t.start(people[0], out, 0.0, game_id)
            finished = None
            while finished is None:
                seat = t.game.to_act()[0]
                finished = t.act(people[seat], t.seq, format_action(t.game.legal_actions(seat)[0]), out, 1.0)
            overs.append(next(m for s, m in out.items if isinstance(m, GameOver) and s is people[0]))
        return overs

    t1, p1, _ = seated()
    t2, p2, _ = seated()
    o1, o2 = play(t1, p1), play(t2, p2)
    assert [o.result for o in o1] == [o.result for o in o2]
    assert sum(o1[1].tally["losses"]) == 2 and o1[1].tally["players"] == ["alice", "bob"]


# ---------------------------------------------------------------------- people and bots


def presences(out: Outbox, who: Any) -> list[tuple[int, str, str | None]]:
    return [(m.seat, str(m.event), m.bot) for r, m in out.items if r is who and isinstance(m, Presence)]


def test_ownership_passes_only_to_a_connected_person() -> None:
    """The owner leaves: a seated bot is passed over; with no person here, the next to arrive owns it."""
    t = table(3)
    alice, bot, carol = Fake("alice"), Fake("greedy-1", bot=True, house="greedy"), Fake("carol", guest=False)
    for p in (alice, bot, carol):
        t.join(p, None, None, Outbox())
    t.disconnected(carol, Outbox(), 1.0)
    t.leave(alice, Outbox())
    assert t.owner == "alice" and t.owner_gone  # the bot is not a candidate, carol is away
    out = Outbox()
    carol2 = Fake("carol", guest=False)
    t.resume(carol2, None, out, 2.0)  # (a registered account: by name)
    assert t.owner == "carol" and not t.owner_gone
    assert t.summary()["owner"] == "carol"


def test_an_owner_away_past_the_grace_hands_over_to_a_person_here() -> None:
    t, (a, _b), _ = seated()
    t.disconnected(a, Outbox(), 10.0)
    t.check_owner(11.0, 5.0, Outbox())
    assert t.owner == "alice"  # within the grace
    out = Outbox()
    t.check_owner(15.0, 5.0, out)
    assert t.owner == "bob" and [type(m) for _, m in out.items] == [TableUpdate]


def test_a_stand_in_plays_for_an_absent_player_who_takes_the_seat_back() -> None:
    t, (a, b), tokens = seated()
    t.start(a, Outbox(), 0.0, 1)
    out = Outbox()
    t.disconnected(b, out, 1.0)
    assert presences(out, a) == [(1, "dropped", None)]
    refused(ErrorCode.NOT_OWNER, hand_to_bot, t, b, 1, "greedy-7", "greedy", 200.0, 120.0)
    refused(ErrorCode.SEAT_TAKEN, hand_to_bot, t, a, 1, "greedy-7", "greedy", 60.0, 120.0)  # too soon
    refused(ErrorCode.SEAT_TAKEN, hand_to_bot, t, a, 0, "greedy-7", "greedy", 200.0, 120.0)  # alice is here
    bot_token = hand_to_bot(t, a, 1, "greedy-7", "greedy", 200.0, 120.0)
    bot = Fake("greedy-7", bot=True, house="greedy")
    refused(ErrorCode.BAD_TOKEN, t.resume, bot, tokens[1], Outbox(), 201.0)  # not the player's token
    out = Outbox()
    assert t.resume(bot, bot_token, out, 201.0) == (1, None)
    assert presences(out, a) == [(1, "replaced", "greedy-7")]
    seat = t.summary()["seats"][1]
    assert seat["name"] == "bob" and seat["stand_in"] == "greedy-7" and seat["away"] is False
    assert t.seat_of(bot) == 1
    # bob comes back: at once, and the bot's connection is handed back to the caller to close.
    bob2 = Fake("bob")
    out = Outbox()
    assert t.resume(bob2, tokens[1], out, 300.0) == (1, bot)
    assert presences(out, a) == [(1, "returned", "greedy-7")]
    assert t.seat_of(bob2) == 1 and t.seat_of(bot) is None
    assert t.summary()["seats"][1]["stand_in"] is None
    refused(ErrorCode.BAD_TOKEN, t.resume, bot, bot_token, Outbox(), 301.0)  # the stand-in's token is void


def test_house_bots_do_not_keep_a_table_open() -> None:
    t = table(2)
    alice, bot = Fake("alice"), Fake("greedy-1", bot=True, house="greedy")
    t.join(alice, None, None, Outbox())
    t.join(bot, None, None, Outbox())
    assert not t.abandoned(0.0, 5.0)
    t.disconnected(alice, Outbox(), 1.0)
    assert not t.abandoned(1.0, 5.0) and t.abandoned(6.5, 5.0)
    # A bot program of someone else's (not the server's own) keeps it open like a person.
    t2 = table(2)
    prog = Fake("mybot", bot=True)
    t2.join(prog, None, None, Outbox())
    assert not t2.abandoned(0.0, 5.0) and not t2.abandoned(100.0, 5.0)
    # Its owner connected to the server (who can start the next game from the lobby) keeps a
    # table of house bots open; from when they have gone, it lasts the grace.
    t3 = table(2)
    for name in ("greedy-2", "random-3"):
        t3.join(Fake(name, bot=True, house="greedy"), None, None, Outbox())
    assert not t3.abandoned(0.0, 5.0, owner_connected=True) and not t3.abandoned(100.0, 5.0, owner_connected=True)
    assert not t3.abandoned(101.0, 5.0) and t3.abandoned(106.5, 5.0)


def test_every_seat_and_watcher_sees_the_clocks_of_the_seats_to_act() -> None:
    """``view.clocks``: each seat to act with its time left (bank included, as its own
    ``deadline``) and its bank, in every state, for players and watchers alike."""
    t, (a, b), _ = seated(action_seconds=30.0, bank_seconds=10.0)
    w = Fake("walt")
    t.watch(w, None, Outbox(), 10, 0.0)
    t.start(a, Outbox(), 0.0, 1)
    out = Outbox()
    # Setup: both seats act at once, on one clock from the deal. Bob readies after 12 s.
    t.act(b, t.seq, "ready", out, 12.0)
    for who in (a, b, w):
        (state,) = states(out, who)
        assert state.view["clocks"] == [{"seat": 0, "left": 28.0, "bank": 10.0}]
    (mine,) = states(out, a)
    assert mine.deadline == 28.0  # the seat's own deadline says the same
    # Alice readies 5 s into her bank: the play starts, on a fresh clock, her bank now 5 s.
    out = Outbox()
    t.act(a, t.seq, "ready", out, 35.0)
    game = t.game
    assert game is not None
    first = game.to_act()[0]
    bank = 5.0 if first == 0 else 10.0
    for who in (a, b, w):
        assert states(out, who)[-1].view["clocks"] == [{"seat": first, "left": 30.0 + bank, "bank": bank}]
    # A watcher arriving later gets the clocks too, counted from its arrival.
    late = Fake("lena")
    out = Outbox()
    t.watch(late, None, out, 10, 40.0)
    (snap,) = states(out, late)
    assert snap.view["clocks"] == [{"seat": first, "left": 25.0 + bank, "bank": bank}]
