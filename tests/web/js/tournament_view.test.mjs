// Unit tests of a tournament page's texts, CSV and crosstable (client/web/js/tournament_view.js).
// `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { STANDING_COLUMNS, crosstable, fileName, pm, progressText, standingsCsv } from "../../../client/web/js/tournament_view.js";

const row = (rank, name, extra = {}) => ({ rank, name, rating: 27.1, rating_95: 3.2, sigma: 1.6, games: 8, mean_place: 1.5, mean_place_95: 0.4, loss_rate: 0.5, loss_rate_95: 0.35, firsts: 4, timeouts: 0, illegal: 0, disconnects: 0, ...extra });
const info = {
  tournament: 3,
  name: "Friday bots, #2",
  status: "running",
  paused: false,
  cancelled: false,
  preset: "classic",
  seats: 2,
  schedule: "round-robin",
  games_total: 10,
  games_finished: 4,
  standings: [row(1, "greedy"), row(2, "ran,dom", { mean_place: null, mean_place_95: null })],
  head_to_head: { greedy: { "ran,dom": -0.5 }, "ran,dom": { greedy: 0.5 } },
};

test("progress in words", () => {
  assert.equal(progressText(info), "running · 4 of 10 games · classic, 2 seats, round-robin");
  assert.equal(progressText({ ...info, paused: true }).split(" · ")[0], "paused (its organiser has gone)");
  assert.equal(progressText({ ...info, status: "finished", cancelled: true }).split(" · ")[0], "cancelled");
  assert.equal(pm(1.5, 0.4), "1.50 ± 0.40");
  assert.equal(pm(null, null), "–");
});

test("the standings as CSV: the protocol's keys, one row each, quoted where needed", () => {
  const lines = standingsCsv(info).split("\r\n");
  assert.equal(lines[0], STANDING_COLUMNS.join(","));
  assert.equal(lines[1], "1,greedy,27.1,3.2,8,1.5,0.4,0.5,0.35,4,0,0,0");
  assert.equal(lines[2], '2,"ran,dom",27.1,3.2,8,,,0.5,0.35,4,0,0,0');
  assert.equal(lines.length, 4); // (and the last line's end)
});

test("the crosstable in standings order, signed, blank on the diagonal", () => {
  assert.deepEqual(crosstable(info), { names: ["greedy", "ran,dom"], cells: [["", "−0.50"], ["+0.50", ""]] });
  assert.deepEqual(crosstable({ ...info, head_to_head: {} }).cells, [["", ""], ["", ""]]);
  assert.equal(fileName(info, "standings", "csv"), "friday-bots-2-standings.csv");
  assert.equal(fileName({ ...info, name: "!!" }, "x", "json"), "tournament-3-x.json");
});
