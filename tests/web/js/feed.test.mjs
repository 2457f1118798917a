// Unit tests of the feed (client/web/js/feed.js): one line per action, the reader in the second
// person, own flips and timeouts included. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { FEED_LINES, addToFeed, feedLines } from "../../../client/web/js/feed.js";

const NAMES = ["alice", "greedy-1", "random-2"];
const name = (seat) => NAMES[seat];
const texts = (events, me = 0) => feedLines(events, name, me).map((l) => l.text);

test("a play with its burn and draw is one line, in the second person for the reader", () => {
  const events = [
    { kind: "played", seat: 0, cards: ["Tc", "Td"], source: "hand" },
    { kind: "burned", seat: 0, count: 12 },
    { kind: "drew", seat: 0, count: 2 },
  ];
  assert.deepEqual(texts(events), ["You played 10♣ 10♦, burned the pile (12 cards), drew 2"]);
  assert.deepEqual(texts(events, 1), ["alice played 10♣ 10♦, burned the pile (12 cards), drew 2"]);
  assert.deepEqual(texts(events, null), ["alice played 10♣ 10♦, burned the pile (12 cards), drew 2"]);
});

test("a clock that ran out says so, with the action played for the seat", () => {
  const events = [
    { kind: "timeout", seat: 0, action: "take", count: 2 },
    { kind: "took", seat: 0, cards: ["6d", "9c"] },
  ];
  assert.deepEqual(texts(events), ["You ran out of time: picked up the pile (2 cards)"]);
  assert.deepEqual(texts(events, 2), ["alice ran out of time: picked up the pile (2 cards)"]);
});

test("one's own blind flip shows, whether it goes or not", () => {
  assert.deepEqual(
    texts([
      { kind: "flipped", seat: 0, position: 1, card: "6d" },
      { kind: "played", seat: 0, cards: ["6d"], source: "face_down" },
    ]),
    ["You played 6♦ blind"],
  );
  assert.deepEqual(
    texts([
      { kind: "flipped", seat: 0, position: 1, card: "3s" },
      { kind: "took", seat: 0, cards: ["6d", "9c", "3s"] },
    ]),
    ["You turned over 3♠, picked up the pile (3 cards)"],
  );
});

test("each seat's action is its own line; being out, skipped and the end read as sentences", () => {
  const events = [
    { kind: "played", seat: 1, cards: ["8d"], source: "face_up" },
    { kind: "out", seat: 1, place: 1 },
    { kind: "skipped", seat: 0 },
    { kind: "game_over", seat: null, places: [1, 2, 0], loser: 0, capped: false },
  ];
  assert.deepEqual(texts(events), ["greedy-1 played 8♦ from the table, is out, 1st", "You are skipped", "Game over: you are the shithead"]);
  assert.equal(texts(events, 2).at(-1), "Game over: alice is the shithead");
});

test("the game's start and first player", () => {
  const events = [
    { kind: "game_start", seat: null, game: 4, number: 2, dealer: 2 },
    { kind: "first_player", seat: 0, card: "3c" },
  ];
  assert.deepEqual(texts(events), ["Game 2 begins: random-2 deals", "You start (3♣)"]);
  assert.deepEqual(texts(events, 2), ["Game 2 begins: you deal", "alice starts (3♣)"]);
});

test("addToFeed numbers the lines and keeps the last FEED_LINES", () => {
  let feed = [];
  for (let i = 0; i < FEED_LINES + 5; i++) feed = addToFeed(feed, [{ kind: "drew", seat: 1, count: 1 }], name, 0);
  assert.equal(feed.length, FEED_LINES);
  assert.equal(feed.at(-1).n, FEED_LINES + 5);
  assert.equal(feed[0].n, 6);
  assert.equal(feed.at(-1).text, "greedy-1 drew 1");
});
