// Unit tests of the plain words (client/web/js/reasons.js): a selection checked against the
// view's legal actions, and refusals without codes. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { REASONS, plain, refusalText, selectionProblem } from "../../../client/web/js/reasons.js";

const view = (over = {}) => ({
  phase: "play",
  hand: ["5c", "9d", "9h", "Ks"],
  legal: ["play 9d", "play 9h", "play 9d 9h", "play Ks", "take"],
  to_beat: { rule: "at_least", rank: "9", also: [], min_cards: 1 },
  must_play: null,
  ...over,
});
const pick = (...cards) => cards.map((c) => ({ from: "hand", card: c }));

test("a legal selection has no problem; nothing selected neither", () => {
  assert.equal(selectionProblem(view(), pick("9d", "9h")), null);
  assert.equal(selectionProblem(view(), pick("Ks")), null);
  assert.equal(selectionProblem(view(), []), null);
});

test("a card that does not beat the pile says what does", () => {
  assert.equal(selectionProblem(view(), pick("5c")), "A 5 does not beat the pile: 9 or higher.");
});

test("mixed ranks, the wrong source, another's turn", () => {
  assert.equal(selectionProblem(view(), pick("9d", "Ks")), "Cards played together must be of one rank.");
  assert.match(selectionProblem(view(), [{ from: "up", card: "Ah" }]), /hand first/);
  assert.equal(selectionProblem(view({ legal: [] }), pick("Ks")), "Wait for your turn.");
});

test("no reason holds a code", () => {
  const problems = [pick("5c"), pick("9d", "Ks"), [{ from: "up", card: "Ah" }]].map((s) => selectionProblem(view(), s));
  for (const text of [...problems, ...Object.values(REASONS)]) assert.doesNotMatch(text, /[A-Z]{2,}_|\(C\d+\)/);
});

test("a refusal from the server becomes a sentence", () => {
  assert.equal(refusalText({ code: "ILLEGAL_ACTION", reason: "DOES_NOT_BEAT", message: "a 5 does not beat the pile" }), REASONS.DOES_NOT_BEAT);
  assert.equal(refusalText({ code: "ILLEGAL_ACTION", reason: "SOMETHING_NEW", message: "x" }), REASONS.NOT_ALLOWED);
  assert.equal(refusalText({ code: "NOT_ENOUGH_PLAYERS", message: "every seat must be taken" }), "Every seat must be taken before the game can start.");
  assert.equal(plain("you still hold cards in hand: play from the hand (C12) (WRONG_SOURCE)"), "You still hold cards in hand: play from the hand");
});
