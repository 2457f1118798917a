// Unit tests of the ladder pages' texts and plot (client/web/js/ladder_view.js).
// `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { agoText, healthText, placeText, plot, ratingText, toCsv } from "../../../client/web/js/ladder_view.js";

test("ratings, health, places and times in words", () => {
  assert.equal(ratingText(29.412, 3.108), "29.4 ± 3.1");
  assert.equal(healthText({ timeouts: 0, illegal: 0, disconnects: 0 }), "clean");
  assert.equal(healthText({ timeouts: 1, illegal: 2, disconnects: 0 }), "1 timeout, 2 illegal");
  assert.equal(healthText({ timeouts: 0, illegal: 0, disconnects: 3 }), "3 disconnects");
  assert.equal(placeText(2, 4), "2nd of 4");
  assert.equal(agoText(1000, 1030), "just now");
  assert.equal(agoText(1000, 1000 + 5 * 60), "5 min ago");
  assert.equal(agoText(0, 3 * 3600), "3 h ago");
  assert.equal(agoText(0, 86400), "1 day ago");
});

test("the plot puts higher ratings higher, the band around the line, games left to right", () => {
  const points = [
    { games: 1, rating: 25, rating_95: 10 },
    { games: 2, rating: 30, rating_95: 8 },
    { games: 4, rating: 20, rating_95: 6 },
  ];
  const p = plot(points, { width: 300, height: 150, pad: 25 });
  const [a, b, c] = p.xy;
  assert.ok(b[1] < a[1] && c[1] > a[1]); // (SVG y grows down)
  assert.equal(a[0], 25);
  assert.equal(c[0], 275);
  assert.ok(Math.abs(b[0] - (25 + 250 / 3)) < 1e-9); // games 2 of 1..4
  assert.ok(p.line.startsWith("M25.0 ") && (p.line.match(/L/g) ?? []).length === 2);
  assert.ok(p.band.endsWith("Z"));
  assert.deepEqual(p.ticks.map((t) => t.label), ["14", "26", "38"]); // lowest band edge .. highest
  assert.equal(plot([]), null);
  const one = plot([{ games: 7, rating: 25, rating_95: 5 }], { width: 100, height: 100, pad: 10 });
  assert.equal(one.xy[0][0], 50); // a single point in the middle
});

test("CSV quotes what must be quoted", () => {
  assert.equal(toCsv(["name", "rating"], [["a,b", 1.5], ['say "hi"', null]]), 'name,rating\r\n"a,b",1.5\r\n"say ""hi""",\r\n');
});
