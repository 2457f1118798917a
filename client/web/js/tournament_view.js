// What a tournament's page shows, pure (node-tested in tests/web/js/tournament_view.test.mjs):
// its progress in words, the standings as rows and as CSV, and the head-to-head crosstable.

import { toCsv } from "./ladder_view.js";

/** "running · 8 of 400 games · classic, 4 seats, round-robin" (paused, cancelled said). */
export function progressText(info) {
  const status = info.cancelled ? "cancelled" : info.paused ? "paused (its organiser has gone)" : info.status;
  return `${status} · ${info.games_finished} of ${info.games_total} games · ${info.preset}, ${info.seats} seats, ${info.schedule}`;
}

/** A number with its 95 % interval ("2.1 ± 0.7"), "–" when there is none yet. */
export function pm(value, interval, digits = 2) {
  if (value === null || value === undefined) return "–";
  return interval === null || interval === undefined ? value.toFixed(digits) : `${value.toFixed(digits)} ± ${interval.toFixed(digits)}`;
}

export const STANDING_COLUMNS = ["rank", "name", "rating", "rating_95", "games", "mean_place", "mean_place_95", "loss_rate", "loss_rate_95", "firsts", "timeouts", "illegal", "disconnects"];

/** The standings as CSV, one row per participant, the protocol's keys as the header. */
export function standingsCsv(info) {
  return toCsv(STANDING_COLUMNS, info.standings.map((r) => STANDING_COLUMNS.map((k) => r[k])));
}

/** The crosstable in standings order: {names, cells}, cells[i][j] the text of
 * head_to_head[names[i]][names[j]] ("−0.50": i finished half a place ahead of j on average;
 * "" on the diagonal and where they never met). */
export function crosstable(info) {
  const names = info.standings.map((r) => r.name);
  const h2h = info.head_to_head ?? {};
  const cells = names.map((a) =>
    names.map((b) => {
      if (a === b) return "";
      const v = h2h[a]?.[b];
      if (v === null || v === undefined) return "";
      return v > 0 ? `+${v.toFixed(2)}` : v < 0 ? `−${(-v).toFixed(2)}` : "0.00";
    }),
  );
  return { names, cells };
}

/** The file name of a download: "friday-bots-standings.csv". */
export function fileName(info, what, ext) {
  const slug = info.name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || `tournament-${info.tournament}`;
  return `${slug}-${what}.${ext}`;
}
