// Unit tests of the waiting room's seat controls (client/web/js/seating.js): the preset's range
// from the catalogue and the seat counts the owner may choose. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { playerRange, seatChoices } from "../../../client/web/js/seating.js";

const catalog = {
  presets: [
    { name: "classic", description: "", min_players: 2, max_players: 5 },
    { name: "west_kent", description: "", min_players: 2, max_players: 3 },
  ],
};
const bot = { name: "greedy-1", bot: true };
const person = { name: "alice", bot: false };

test("the range is the catalogue's, 2 to 5 when it does not say", () => {
  assert.deepEqual(playerRange(catalog, "west_kent"), [2, 3]);
  assert.deepEqual(playerRange({ presets: ["classic"] }, "classic"), [2, 5]);
});

test("every count of the range, less those that would leave out a taken seat", () => {
  const s = { preset: "classic", seats: [person, null, bot] };
  assert.deepEqual(
    seatChoices(s, catalog).map(({ n, allowed }) => [n, allowed]),
    [
      [2, false],
      [3, true],
      [4, true],
      [5, true],
    ],
  );
  const free = { preset: "west_kent", seats: [person, null, null] };
  assert.deepEqual(seatChoices(free, catalog).map(({ n }) => n), [2, 3]);
  assert.ok(seatChoices(free, catalog).every(({ allowed }) => allowed));
});
