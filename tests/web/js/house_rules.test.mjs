// Unit tests of the new-table form's house rules (client/web/js/house_rules.js): only what the
// player changed from the preset is sent. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { optionChanges } from "../../../client/web/js/house_rules.js";

const preset = { burn_count: 4, ten_anywhere: true, goal: "loser" };

test("nothing changed: no options at all", () => {
  assert.equal(optionChanges(preset, { burn_count: 4, ten_anywhere: true, goal: "loser" }), undefined);
});

test("each value that differs from the preset's, typed as read, and nothing else", () => {
  assert.deepEqual(optionChanges(preset, { burn_count: 0, ten_anywhere: false, goal: "loser" }), { burn_count: 0, ten_anywhere: false });
});

test("a control for an option the preset does not list is not sent", () => {
  assert.equal(optionChanges(preset, { burn_count: 4, unknown: 3 }), undefined);
});
