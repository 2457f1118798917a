// What the ladder's pages show, pure (node-tested in tests/web/js/ladder_view.test.mjs): ratings
// with their interval, a bot's health in words, a game's place, the rating plot's geometry and
// results as CSV.

import { ordinal } from "./cards.js";

/** "29.4 ± 3.1" */
export function ratingText(rating, interval) {
  return `${rating.toFixed(1)} ± ${interval.toFixed(1)}`;
}

/** A bot's health in a table row: "clean", or its timeouts, illegal actions and disconnects. */
export function healthText(row) {
  const parts = [];
  const say = (n, one, many) => n && parts.push(`${n} ${n === 1 ? one : many}`);
  say(row.timeouts, "timeout", "timeouts");
  say(row.illegal, "illegal", "illegal");
  say(row.disconnects, "disconnect", "disconnects");
  return parts.length ? parts.join(", ") : "clean";
}

/** "2nd of 4" */
export function placeText(place, of) {
  return `${ordinal(place)} of ${of}`;
}

/** How long ago a Unix time was, in words ("just now", "5 min ago", "3 h ago", "2 days ago"). */
export function agoText(then, now) {
  const s = Math.max(0, now - then);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const d = Math.floor(s / 86400);
  return `${d} day${d === 1 ? "" : "s"} ago`;
}

/**
 * The rating plot of `points` ({games, rating, rating_95}, oldest first) in a box of `width` x
 * `height` units with `pad` around: the line through the ratings (SVG path), the 95 % band
 * around it (a closed path), the points' coordinates, and the y-axis ticks ({y, label}).
 */
export function plot(points, { width = 320, height = 160, pad = 28 } = {}) {
  if (!points.length) return null;
  const lo = Math.min(...points.map((p) => p.rating - p.rating_95));
  const hi = Math.max(...points.map((p) => p.rating + p.rating_95));
  const span = hi - lo || 1;
  const first = points[0].games;
  const last = points.at(-1).games;
  const x = (g) => (last === first ? pad + (width - 2 * pad) / 2 : pad + ((g - first) / (last - first)) * (width - 2 * pad));
  const y = (v) => pad + (1 - (v - lo) / span) * (height - 2 * pad);
  const xy = points.map((p) => [x(p.games), y(p.rating)]);
  const f = (n) => n.toFixed(1);
  const line = xy.map(([a, b], i) => `${i ? "L" : "M"}${f(a)} ${f(b)}`).join(" ");
  const upper = points.map((p) => `${f(x(p.games))} ${f(y(p.rating + p.rating_95))}`);
  const lower = points.map((p) => `${f(x(p.games))} ${f(y(p.rating - p.rating_95))}`).reverse();
  const band = `M${upper.join(" L")} L${lower.join(" L")} Z`;
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => ({ y: y(v), label: v.toFixed(0) }));
  return { line, band, xy, ticks, first, last };
}

/** Rows as CSV (RFC 4180: fields with a comma, quote or line break are quoted). */
export function toCsv(columns, rows) {
  const cell = (v) => {
    const s = v === null || v === undefined ? "" : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [columns, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}
