// The owner's controls of the waiting room's seats: a "Remove" button beside each bot (while no
// game runs) and the number of seats (before the table's first game), within the preset's
// range of players from the catalogue. Each reports the owner's choice through a callback;
// the server's `table_update` then redraws the seats for everyone.

import { h } from "./ui.js";

/** The "Remove" button of the bot `name` in seat `seat` (0-based). */
export function removeBotButton(name, seat, onRemove) {
  return h("button", { type: "button", class: "remove-bot", id: `remove-bot-${seat}`, "aria-label": `Remove ${name}`, onclick: () => onRemove(seat) }, "Remove");
}

/** The preset's range of players, from the catalogue (2 to 5, the classic range, when the
 * catalogue does not say). */
export function playerRange(catalog, preset) {
  const p = (catalog.presets ?? []).find((x) => typeof x === "object" && x.name === preset);
  return p ? [p.min_players, p.max_players] : [2, 5];
}

/** The seat counts to offer for summary `s`: [{n, allowed}] from the preset's range (and the
 * table's own count, should it lie outside), a count that would leave out a taken seat not
 * allowed. Pure, for `node --test`. */
export function seatChoices(s, catalog) {
  const [low, high] = playerRange(catalog, s.preset);
  const lastTaken = s.seats.reduce((last, seat, i) => (seat ? i : last), -1);
  const out = [];
  for (let n = Math.min(low, s.seats.length); n <= Math.max(high, s.seats.length); n++) {
    out.push({ n, allowed: n > lastTaken && n >= low && n <= high });
  }
  return out;
}

/** The number of seats of summary `s` as a labelled menu; the counts not allowed are shown
 * disabled, so the owner sees that they exist. It always shows the table's count (data-server:
 * a redraw does not keep a choice the server refused). */
export function seatCount(s, catalog, onSet) {
  const options = seatChoices(s, catalog).map(({ n, allowed }) => h("option", { value: String(n), selected: n === s.seats.length, disabled: !allowed }, String(n)));
  const menu = h("select", { id: "seat-count", dataset: { server: "" }, onchange: (event) => onSet(Number(event.target.value)) }, options);
  return h("label", { class: "seat-count", for: "seat-count" }, "Seats ", menu);
}
