// Unit tests of the page's table model (client/web/js/model.js): what each pushed message does
// to a table, without a browser. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { CHAT_LINES, keptOf, newTable, reduceTable } from "../../../client/web/js/model.js";

const player = (seat, name, over = {}) => ({ seat, name, hand_count: 3, face_up: [["9c"]], face_down: [true], out: false, place: null, away: false, bot: false, ...over });
const state = (seq, over = {}, events = []) => ({
  type: "state",
  table: 1,
  seq,
  game: 7,
  events,
  view: {
    phase: "play",
    seat: 0,
    turn: 1,
    hand: ["4h", "Kd"],
    legal: [],
    players: [player(0, "alice"), player(1, "bob")],
    pile: [],
    ...over,
  },
});

test("a state: the feed grows, the clock's start is `now`, nothing else is changed in place", () => {
  const t0 = newTable();
  const t1 = reduceTable(t0, state(1, {}, [{ kind: "played", seat: 1, cards: ["7h"], source: "hand" }]), 500);
  assert.equal(t0.state, null); // (the old table is untouched)
  assert.equal(t1.receivedAt, 500);
  assert.equal(t1.seat, 0);
  assert.deepEqual(t1.feed.map((l) => l.text), ["bob played 7♥"]);
});

test("your turn is flagged once, when it begins (not in setup); your own line ends what is new", () => {
  let t = reduceTable(newTable(), state(1), 0);
  assert.equal(t.yourTurn, false);
  t = reduceTable(t, state(2, { turn: 0, legal: ["play Kd", "take"] }), 0);
  assert.equal(t.yourTurn, true);
  t = reduceTable(t, state(3, { turn: 0, legal: ["play Kd", "take"] }), 0);
  assert.equal(t.yourTurn, false);
  t = reduceTable(t, state(4, { turn: 1, hand: ["4h"] }, [{ kind: "played", seat: 0, cards: ["Kd"], source: "hand" }]), 0);
  assert.equal(t.lastActed, t.feed.at(-1).n);
  const setup = reduceTable(newTable(), state(1, { phase: "setup", legal: ["ready"] }), 0);
  assert.equal(setup.yourTurn, false);
});

test("a selection keeps only cards still held; a pick-up question ends when no longer legal", () => {
  let t = reduceTable(newTable(), state(1, { turn: 0, legal: ["play Kd", "take"] }), 0);
  t = { ...t, selected: [{ from: "hand", card: "Kd" }, { from: "hand", card: "4h" }], confirmTake: "take" };
  t = reduceTable(t, state(2, { turn: 1, hand: ["4h"] }), 0);
  assert.deepEqual(t.selected, [{ from: "hand", card: "4h" }]);
  assert.equal(t.confirmTake, null);
});

test("away follows the newest summary (no stale 'away' after a player is back)", () => {
  let t = reduceTable(newTable(), state(1, { players: [player(0, "alice"), player(1, "bob", { away: true })] }), 0);
  const seats = [{ name: "alice", away: false }, { name: "bob", away: false }];
  t = reduceTable(t, { type: "table_update", table: 1, summary: { seats } }, 0);
  assert.equal(t.state.view.players[1].away, false);
});

test("a new game clears the last game_over; chat counts unread lines; presence is a feed line", () => {
  let t = reduceTable(newTable(), state(1), 0);
  t = reduceTable(t, { type: "game_over", table: 1, game: 7 }, 0);
  assert.ok(t.over);
  t = reduceTable(t, { ...state(2), game: 8 }, 0);
  assert.equal(t.over, null);
  for (let i = 0; i < CHAT_LINES + 2; i++) t = reduceTable(t, { type: "chat_message", table: 1, name: "bob", text: `hi ${i}` }, 0);
  assert.equal(t.chat.length, CHAT_LINES);
  assert.equal(t.chat.length - t.chatSeen, CHAT_LINES); // all unread
  t = reduceTable({ ...t, chatOpen: true }, { type: "chat_message", table: 1, name: "bob", text: "seen" }, 0);
  assert.equal(t.chatSeen, t.chat.length);
  t = reduceTable(t, { type: "presence", table: 1, name: "bob", event: "dropped" }, 0);
  assert.equal(t.feed.at(-1).text, "bob lost the connection");
  assert.deepEqual(Object.keys(keptOf(t)).sort(), ["chat", "chatSeen", "feed", "lastActed"]);
});
