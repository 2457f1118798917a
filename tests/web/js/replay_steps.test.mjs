// Unit tests of the replay viewer's bookkeeping (client/web/js/replay_steps.js): the address of a
// position, the keys, the pages of steps asked for, the texts. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { PAGE, StepCache, actionLine, keyMove, overLine, pageStart, parseLocation, stepUrl } from "../../../client/web/js/replay_steps.js";

test("a position's address reads back", () => {
  assert.deepEqual(parseLocation(`?${stepUrl(57, 12).split("?")[1]}`), { game: 57, step: 12 });
  assert.deepEqual(parseLocation("?game=57"), { game: 57, step: null });
  assert.deepEqual(parseLocation("?game=x&step=-1"), { game: null, step: null });
  assert.deepEqual(parseLocation(""), { game: null, step: null });
});

test("keys move within the game and others do not move", () => {
  assert.equal(keyMove("ArrowRight", 3, 10), 4);
  assert.equal(keyMove("ArrowRight", 10, 10), 10);
  assert.equal(keyMove("ArrowLeft", 0, 10), 0);
  assert.equal(keyMove("PageDown", 5, 10), 10);
  assert.equal(keyMove("PageUp", 5, 10), 0);
  assert.equal(keyMove("Home", 7, 10), 0);
  assert.equal(keyMove("End", 7, 10), 10);
  assert.equal(keyMove("a", 7, 10), null);
});

test("the cache asks for the page holding a step, and for the next one near its end", () => {
  const c = new StepCache();
  assert.equal(c.need(0), 0);
  assert.equal(c.need(PAGE + 3), PAGE);
  assert.equal(pageStart(PAGE - 1), 0);
  const steps = Array.from({ length: PAGE }, (_, i) => ({ step: i }));
  c.add({ actions: 250, steps });
  assert.equal(c.need(5), null);
  assert.equal(c.get(5).step, 5);
  assert.equal(c.need(PAGE), PAGE);
  assert.equal(c.ahead(10), null); // far from the end of what is here
  assert.equal(c.ahead(PAGE - 5), PAGE);
  c.add({ actions: 250, steps: Array.from({ length: PAGE }, (_, i) => ({ step: PAGE + i })) });
  assert.equal(c.ahead(PAGE - 5), null); // (here already)
  c.add({ actions: 250, steps: Array.from({ length: 51 }, (_, i) => ({ step: 2 * PAGE + i })) });
  assert.equal(c.ahead(245), null); // no page after the end
});

test("a step's lines say what the terminal says", () => {
  const seats = [{ name: "alice" }, { name: "bob" }];
  assert.equal(actionLine({ step: 0, seats }, 1), "Dealt. bob dealt.");
  assert.equal(actionLine({ step: 4, seat: 0, action: "play 7h 7d", seats }), "alice: play 7h 7d");
  assert.equal(overLine({ places: null, seats }), null);
  assert.equal(overLine({ places: [1, 0], seats }), "Over: bob, alice. alice is the shithead.");
});
