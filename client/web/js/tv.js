// The table screen for a TV: one table read from a sofa, as a spectator sees it (the server sends
// a watcher no hand and no hidden card, so none can reach this page). Sized by the screen (type
// and cards in viewport units, style.css "the TV page"): a banner "ALICE TO PLAY 0:18" (or the
// game's end, in the largest type), every seat's public cards, the pile and what beats it, the
// last plays newest first (as many as fit), the series' tally at all times, and the code a new
// guest scans to sit down. It follows the table from game to game by itself. /tv?table=N, or /tv
// to pick a table.

import { shortList } from "./cards.js";
import { addToFeed } from "./feed.js";
import { loadCatalog } from "./net.js";
import { clockEl, clocksOf, feedEl, h, pauseClocks, pileEl, seatEl, startClocks, tallyEl } from "./ui.js";
import { openViewer } from "./viewer.js";
import { ScreenAwake } from "./wake.js";

const awake = new ScreenAwake(); // (the TV stays on while it shows a table)

const params = new URLSearchParams(location.search);
const tv = {
  link: null,
  table: params.has("table") ? Number(params.get("table")) : null,
  tables: [],
  summary: null,
  state: null,
  receivedAt: 0,
  feed: [],
  over: null,
  tally: null,
  catalog: { join: location.origin + "/" },
};

// The last plays and the tally survive a reload of the TV (the server resends neither).
const kept = () => `shithead.tv.${tv.table}`;

async function main() {
  startClocks();
  restore();
  tv.catalog = (await loadCatalog()) ?? tv.catalog; // or the default address above
  // A viewer (viewer.js): the screen only watches, so it is let in whether or not the server
  // admits guests, and a reload is simply a new viewer.
  tv.link = openViewer({
    onReady: () => follow(),
    onMessage: (msg) => pushed(msg),
    onStatus: (text) => pauseClocks(Boolean(text)),
    onRefused: (text) => show(h("p", { class: "refusal" }, text)),
  });
}

function restore() {
  if (tv.table === null) return;
  try {
    const saved = JSON.parse(sessionStorage.getItem(kept()) ?? "null");
    if (saved) Object.assign(tv, { feed: saved.feed ?? [], tally: saved.tally ?? null });
  } catch {
    // nothing kept
  }
}

function keep() {
  sessionStorage.setItem(kept(), JSON.stringify({ feed: tv.feed, tally: tv.tally }));
}

/** Watch the table (again, after a reconnect), or follow the lobby to pick one: the server
 * answers with the tables and pushes them as they change (`watch_lobby`, `lobby_update`). */
async function follow() {
  if (tv.table === null) {
    try {
      tv.tables = (await tv.link.request({ type: "watch_lobby" })).tables;
    } catch {
      return;
    }
    render();
    return;
  }
  try {
    await tv.link.request({ type: "unwatch_lobby" }); // (a table was picked: no more lists)
    await tv.link.request({ type: "watch", table: tv.table });
  } catch (err) {
    const other = () => {
      tv.table = null;
      history.replaceState(null, "", "tv");
      follow();
    };
    show(
      h(
        "section",
        { class: "panel" },
        h("p", { class: "refusal" }, `Cannot watch table ${tv.table}: ${err.message}`),
        h("button", { class: "primary", onclick: other }, "Pick another table"),
      ),
    );
  }
}

function pick(id) {
  tv.table = id;
  history.replaceState(null, "", `?table=${id}`);
  restore();
  follow();
}

function pushed(msg) {
  if (msg.type === "lobby_update") {
    tv.tables = msg.tables;
    if (tv.table === null) render();
    return;
  }
  if (msg.table !== tv.table) return;
  if (msg.type === "state") {
    if (tv.state && tv.state.game !== msg.game) tv.over = null;
    const first = tv.state === null;
    tv.state = msg;
    tv.receivedAt = performance.now();
    const name = (seat) => msg.view.players[seat]?.name ?? `seat ${seat}`;
    if (first && !msg.events.length && !tv.feed.length && msg.view.pile.length) {
      // Joined in the middle of a game: what lies on the pile is the last plays there is to show.
      tv.feed = [{ seat: null, you: false, kind: "pile", text: `On the pile: ${shortList(msg.view.pile.slice(-6))} (newest last)`, n: 1 }];
    }
    tv.feed = addToFeed(tv.feed, msg.events, name, null);
  } else if (msg.type === "table_update") {
    tv.summary = msg.summary;
  } else if (msg.type === "game_over") {
    tv.over = msg;
    tv.tally = msg.tally;
  } else if (msg.type === "presence") {
    const words = { dropped: "lost the connection", returned: "is back", replaced: `is played by ${msg.bot ?? "a bot"}` };
    const n = (tv.feed.at(-1)?.n ?? 0) + 1;
    tv.feed = [...tv.feed, { seat: null, you: false, kind: "presence", text: `${msg.name} ${words[msg.event] ?? msg.event}`, n }];
  }
  keep();
  render();
}

function show(el) {
  document.getElementById("screen").replaceChildren(el);
}

function joinCode() {
  return h(
    "section",
    { class: "join-code tv-join" },
    h("img", { src: "join.svg", alt: `QR code of ${tv.catalog.join}` }),
    h("p", {}, "Join: ", h("strong", {}, tv.catalog.join)),
  );
}

/** The series so far: the tally of the last game_over, or nothing played yet (all zero). */
function tallyPanel() {
  const s = tv.summary;
  let tally = tv.tally;
  if (!tally && s && s.games_played === 0) {
    const players = s.seats.map((seat, i) => seat?.name ?? `seat ${i + 1}`);
    tally = { players, places: players.map(() => players.map(() => 0)), losses: players.map(() => 0) };
  }
  return h(
    "section",
    { class: "tv-tally", "aria-labelledby": "tally-heading" },
    h("h2", { id: "tally-heading" }, "Series"),
    tally ? tallyEl(tally) : h("p", { class: "quiet" }, `${s?.games_played ?? 0} games played: the tally comes with the next game's end.`),
  );
}

/** The banner: whose turn with the clock, or the game's end, in the largest type on the page. */
function banner() {
  const st = tv.state;
  const s = tv.summary;
  if (!st) return h("div", { class: "tv-banner", id: "tv-banner" }, h("span", {}, s ? "Waiting for the first game" : "…"));
  const v = st.view;
  const clocks = clocksOf(st, tv.receivedAt);
  const name = (seat) => v.players[seat]?.name ?? `seat ${seat}`;
  if (v.phase === "over") {
    const loser = v.result?.loser ?? tv.over?.result.loser;
    return h("div", { class: "tv-banner over", id: "tv-banner", role: "status" }, h("span", { class: "game-over" }, `Game over: ${name(loser)} is the shithead`));
  }
  if (v.phase === "setup") {
    const any = Object.values(clocks)[0];
    return h("div", { class: "tv-banner", id: "tv-banner" }, h("span", {}, "Setup: choosing face-up cards"), any ? clockEl(any) : null);
  }
  const seat = v.turn;
  return h("div", { class: "tv-banner", id: "tv-banner", dataset: { turn: String(seat) } }, h("span", { class: "who" }, `${name(seat)} to play`), clocks[seat] ? clockEl(clocks[seat]) : null);
}

/** Who sits at table `t` (its summary), as the lobby says it. */
function whoSits(t) {
  const who = t.seats.filter(Boolean).map((s) => `${s.name}${s.bot ? " (bot)" : ""}`);
  return who.length ? h("span", { class: "who-sits" }, ` · ${who.join(", ")}`) : null;
}

function render() {
  awake.want(tv.table !== null);
  if (tv.table === null) {
    const rows = tv.tables.map((t) =>
      h(
        "li",
        { class: "table-row", dataset: { table: String(t.table) } },
        h("span", {}, `${t.name} · ${t.preset} · ${t.status}`, whoSits(t)),
        h("button", { class: "primary", onclick: () => pick(t.table) }, "Show"),
      ),
    );
    show(h("div", { class: "tv-pick" }, h("section", { class: "panel" }, h("h1", {}, "Which table?"), rows.length ? h("ul", { class: "tables" }, rows) : h("p", { class: "quiet" }, "No table yet.")), joinCode()));
    return;
  }
  const s = tv.summary;
  const st = tv.state;
  document.getElementById("who").textContent = s ? `${s.name} · ${s.preset} · game ${s.games_played + (st && st.view.phase !== "over" ? 1 : 0)}` : "";
  const v = st?.view;
  const clocks = st ? clocksOf(st, tv.receivedAt) : {};
  const table = v
    ? h(
        "section",
        { class: "tv-table", "aria-label": "the table" },
        h("div", { class: "opponents", style: { "--seats": String(v.players.length) } }, v.players.map((p) => seatEl(p, { turn: p.seat === v.turn, clock: v.phase === "play" ? clocks[p.seat] : null }))),
        h("div", { class: "tv-pile" }, pileEl(v)),
      )
    : h("section", { class: "tv-table" }, h("p", { class: "quiet" }, s ? `${s.seats.filter(Boolean).length} of ${s.seats.length} seats taken` : ""));
  const places = tv.over && v?.phase === "over" ? h("ol", { class: "places" }, tv.over.result.places.map((seat) => h("li", {}, tv.over.result.players[seat]))) : null;
  const side = h(
    "aside",
    { class: "tv-side" },
    h("div", { class: "tv-plays" }, places, feedEl({ feed: tv.feed, seat: null, lastActed: 0 }, { heading: true })),
    tallyPanel(),
    joinCode(),
  );
  show(h("div", { class: "tv-screen" }, h("h1", { class: "sr-only" }, s ? s.name : `Table ${tv.table}`), banner(), table, side));
}

main();
