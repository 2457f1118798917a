// DOM building blocks shared by the player's page (app.js) and the table screen (tv.js):
// cards, a seat's public cards, the pile and the running clocks. They show only what a view
// holds: a view for a spectator has no hand, and nothing here invents a hidden card.

import { card, clockText, ordinal, short, toBeat } from "./cards.js";

/** document.createElement with attributes ("on*" functions become listeners; `style` a map of
 * properties, custom ones too) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") for (const [name, v] of Object.entries(value)) el.style.setProperty(name, v); // (CSSOM: the page's CSP allows no style attribute)
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A face-up card; a button when `onTap` is given. */
export function cardEl(text, { selected = false, playable = false, onTap = null, size = "", id = undefined } = {}) {
  const c = card(text);
  const cls = ["card", `suit-${c.suitLetter}`, size, selected ? "selected" : "", playable ? "playable" : ""];
  return h(
    onTap ? "button" : "span",
    {
      id: onTap ? id : undefined,
      class: cls.filter(Boolean).join(" "),
      dataset: { card: text },
      "aria-label": c.label,
      role: onTap ? undefined : "img",
      "aria-pressed": onTap ? String(selected) : undefined,
      type: onTap ? "button" : undefined,
      onclick: onTap ?? undefined,
    },
    h("span", { class: "rank" }, c.rank),
    h("span", { class: "suit" }, c.suit),
  );
}

/** A face-down card (position `pos`); a button when `onTap` is given. */
export function backEl({ onTap = null, pos = null, size = "", id = undefined } = {}) {
  return h(onTap ? "button" : "span", {
    id: onTap ? id : undefined,
    role: onTap ? undefined : "img",
    class: `card back ${size}`.trim(),
    type: onTap ? "button" : undefined,
    "aria-label": pos === null ? "face-down card" : `face-down card ${pos + 1}`,
    dataset: pos === null ? undefined : { pos: String(pos) },
    onclick: onTap ?? undefined,
  });
}

/** The seats whose clock runs, by seat: {seat: {ends (ms, performance.now clock), bank}}. */
export function clocksOf(state, receivedAt) {
  const out = {};
  for (const c of state?.view?.clocks ?? []) out[c.seat] = { ends: receivedAt + c.left * 1000, bank: c.bank };
  return out;
}

/** A clock that counts down by itself (see startClocks). */
export function clockEl(clock) {
  const left = (clock.ends - performance.now()) / 1000;
  return h(
    "span",
    { class: `clock${paused ? " paused" : left < 10 ? " low" : ""}`, dataset: { ends: String(clock.ends) } },
    paused ? "paused: reconnecting" : clockText(left),
  );
}

let paused = false;

/** Stop the clocks while the connection is down (`true`): the server's clocks may not be
 * running, and a clock counting down to a red 0:00 would mislead. The next state from the
 * server brings the true times. */
export function pauseClocks(on) {
  paused = on;
  tick();
}

function tick() {
  for (const el of document.querySelectorAll(".clock[data-ends]")) {
    if (paused) {
      el.textContent = "paused: reconnecting";
      el.classList.add("paused");
      el.classList.remove("low");
      continue;
    }
    const left = (Number(el.dataset.ends) - performance.now()) / 1000;
    el.textContent = clockText(left);
    el.classList.remove("paused");
    el.classList.toggle("low", left < 10);
  }
}

/** Count every visible clock down, four times a second, for as long as the page lives. */
export function startClocks() {
  setInterval(tick, 250);
}

/** The public part of one seat: name, marks, clock, face-up stacks, and how many cards lie face
 * down and are held in hand (counts: an opponent's face-down cards take no room on a phone).
 * A long name is cut with an ellipsis; its whole is in the title and read out. */
export function seatEl(p, { turn = false, clock = null, size = "small", you = false } = {}) {
  const marks = [p.bot ? "bot" : "", p.away ? "away" : "", p.out ? ordinal(p.place) : ""].filter(Boolean);
  const down = p.face_down.filter(Boolean).length;
  const name = p.name ?? "(free seat)";
  return h(
    "section",
    { class: `seat ${turn ? "turn" : ""} ${p.away ? "away" : ""}`.trim(), dataset: { seat: String(p.seat) }, "aria-label": `${name}${you ? " (you)" : ""}${turn ? ", to play" : ""}` },
    h("header", {}, h("span", { class: "name", title: name }, you ? `${name} (you)` : name)),
    h(
      "div",
      { class: "table-cards" },
      p.face_up.map((stack) =>
        h("span", { class: "stack" }, stack.length ? stack.map((c) => cardEl(c, { size })) : h("span", { class: `card empty ${size}` })),
      ),
    ),
    h(
      "div",
      { class: "seat-foot" },
      h("span", { class: "counts" }, `${p.hand_count} hand · ${down} down${marks.length ? ` · ${marks.join(" · ")}` : ""}`),
      clock ? clockEl(clock) : null, // (below the cards: the name keeps the tile's width)
    ),
  );
}

let lastPile = "";

/** The pile's top cards, its size, what beats it, the stock and the burned cards. */
export function pileEl(view, { size = "" } = {}) {
  const top = view.pile.slice(-3);
  // The top card slides in when it is new since the last drawing (style.css: not under
  // prefers-reduced-motion).
  const key = `${view.pile.length}:${top.join(",")}`;
  const fresh = key !== lastPile && top.length > 0;
  lastPile = key;
  return h(
    "section",
    { class: "pile-area", "aria-label": "pile" },
    h(
      "div",
      { class: "pile" },
      top.length
        ? top.map((c, i) => cardEl(c, { size: `${size} ${i === top.length - 1 ? `top${fresh ? " fresh" : ""}` : "under"}` }))
        : h("span", { class: `card empty ${size}` }),
    ),
    h(
      "div",
      { class: "pile-facts" },
      h("div", { class: "to-beat" }, `To beat: ${toBeat(view.to_beat)}`),
      h("div", {}, `Pile ${view.pile.length} · stock ${view.stock_count} · burned ${view.burned_count}`),
      view.must_play ? h("div", {}, `Must play ${short(view.must_play)}`) : null,
    ),
  );
}

/** The series so far: one row per seat with its places and losses. */
export function tallyEl(tally) {
  if (!tally) return null;
  const n = tally.players.length;
  // (no column for the last place: it is the shithead's, counted in the last column)
  const head = h("tr", {}, h("th", { scope: "col" }, "Player"), Array.from({ length: n - 1 }, (_, i) => h("th", { scope: "col" }, ordinal(i + 1))), h("th", { scope: "col" }, "Shithead"));
  const rows = tally.players.map((name, seat) =>
    h("tr", {}, h("th", { scope: "row", title: name }, name), tally.places[seat].slice(0, n - 1).map((k) => h("td", {}, String(k))), h("td", {}, String(tally.losses[seat]))),
  );
  const games = tally.losses.reduce((a, b) => a + b, 0);
  return h("table", { class: "tally", dataset: { games: String(games) } }, h("caption", { class: "sr-only" }, `The series: ${games} game${games === 1 ? "" : "s"}`), h("thead", {}, head), h("tbody", {}, rows));
}

/** The last plays, newest first; those since the reader's own last line (`t.lastActed`, kept
 * by app.js) are marked new. */
export function feedEl(t, { heading = false } = {}) {
  const since = t.lastActed ?? 0;
  const lines = [...t.feed].reverse();
  return h(
    "section",
    { class: "feed", "aria-labelledby": "feed-heading", tabindex: "0" }, // (it scrolls: the keyboard reaches it)
    h("h2", { id: "feed-heading", class: heading ? "" : "sr-only" }, "Last plays"),
    h(
      "ol",
      { class: "feed-lines", id: "feed" },
      lines.map((line) =>
        h("li", { class: [line.n > since && t.seat !== null ? "new" : "", line.you ? "you" : ""].filter(Boolean).join(" "), dataset: { n: String(line.n), seat: String(line.seat ?? "") } }, line.text),
      ),
    ),
  );
}
