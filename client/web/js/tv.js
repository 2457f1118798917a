// The table screen for a TV: one table in large type, as a spectator sees it (the server sends
// a watcher no hand and no hidden card, so none can reach this page). It follows the table from
// game to game by itself, with the clocks, the last plays and the tally, and shows the code a
// new guest scans to sit down. /tv?table=N, or /tv to pick a table.

import { eventText } from "./cards.js";
import { Link, loadCatalog, serverUrl, wakeOnReturn } from "./net.js";
import { clocksOf, h, pileEl, seatEl, startClocks, tallyEl } from "./ui.js";

const LAST_PLAYS = 12;
const params = new URLSearchParams(location.search);
const tv = {
  link: null,
  table: params.has("table") ? Number(params.get("table")) : null,
  tables: [],
  summary: null,
  state: null,
  receivedAt: 0,
  plays: [],
  over: null,
  catalog: { join: location.origin + "/" },
};

// The screen logs in as a guest of its own, "tv-1234", and keeps that guest's login token (never
// a password), so that after a reconnect or in a second tab it is the same guest again: a guest
// name is one guest's while it is on the server, and a second "tv-1234" would be refused.
const LOGIN = "shithead.tvLogin";

function profile() {
  try {
    const kept = JSON.parse(localStorage.getItem(LOGIN));
    if (kept?.name) return kept;
  } catch {
    // not JSON: a new guest below
  }
  return { name: localStorage.getItem("shithead.tvName") ?? `tv-${Math.floor(Math.random() * 10000)}`, guest: true };
}

/** A refused login: a new guest if the token has ended or the name is somebody else's now. */
function loginRefused(err) {
  const had = tv.link.profile; // what the refused login was
  if (err.code === "AUTH_FAILED" && had?.token) {
    localStorage.removeItem(LOGIN);
    tv.link.start({ name: had.name, guest: true });
  } else if (err.code === "NAME_TAKEN" && err.error.suggestion) {
    localStorage.removeItem(LOGIN);
    tv.link.start({ name: err.error.suggestion, guest: true });
  } else {
    show(h("p", { class: "refusal" }, `Could not log in: ${err.message}`));
  }
}

async function main() {
  startClocks();
  tv.catalog = (await loadCatalog()) ?? tv.catalog; // or the default address above
  tv.link = new Link(serverUrl(), {
    onReady: (loggedIn) => {
      localStorage.setItem(LOGIN, JSON.stringify({ name: loggedIn.name, guest: true, ...(loggedIn.token ? { token: loggedIn.token } : {}) }));
      follow();
    },
    onMessage: (msg) => pushed(msg),
    onStatus: (text) => {
      const el = document.getElementById("status");
      el.textContent = text;
      el.hidden = !text;
    },
    onLoginFailed: (err) => loginRefused(err),
  });
  wakeOnReturn(tv.link);
  tv.link.start(profile());
  setInterval(() => {
    if (tv.table === null && tv.link.online) follow();
  }, 3000);
}

/** Watch the table (again, after a reconnect), or list the tables to pick one. */
async function follow() {
  if (tv.table === null) {
    try {
      tv.tables = (await tv.link.request({ type: "list_tables" })).tables;
    } catch {
      return;
    }
    render();
    return;
  }
  try {
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
  follow();
}

function pushed(msg) {
  if (msg.table !== tv.table) return;
  if (msg.type === "state") {
    if (tv.state && tv.state.game !== msg.game) tv.over = null;
    tv.state = msg;
    tv.receivedAt = performance.now();
    const name = (seat) => msg.view.players[seat]?.name ?? `seat ${seat}`;
    for (const e of msg.events) tv.plays.push(eventText(e, name));
    tv.plays.splice(0, Math.max(0, tv.plays.length - LAST_PLAYS));
  } else if (msg.type === "table_update") {
    tv.summary = msg.summary;
  } else if (msg.type === "game_over") {
    tv.over = msg;
  }
  render();
}

function show(el) {
  document.getElementById("screen").replaceChildren(el);
}

function joinCode() {
  return h(
    "section",
    { class: "panel join-code" },
    h("img", { src: "join.svg", alt: `QR code of ${tv.catalog.join}` }),
    h("p", {}, "Join: ", h("strong", {}, tv.catalog.join)),
  );
}

function render() {
  if (tv.table === null) {
    const rows = tv.tables.map((t) =>
      h("li", { class: "table-row" }, h("span", {}, `${t.name} · ${t.preset} · ${t.status}`), h("button", { class: "primary", onclick: () => pick(t.table) }, "Show")),
    );
    show(h("div", { class: "tv-grid" }, h("section", { class: "panel" }, h("h2", {}, "Which table?"), rows.length ? h("ul", { class: "tables" }, rows) : h("p", { class: "quiet" }, "No table yet.")), joinCode()));
    return;
  }
  const s = tv.summary;
  document.getElementById("who").textContent = s ? `${s.name} · ${s.preset} · game ${s.games_played + (tv.state && tv.state.view.phase !== "over" ? 1 : 0)}` : "";
  const st = tv.state;
  const side = h("aside", {}, joinCode(), tv.over ? h("section", { class: "panel" }, h("h2", {}, "Series"), tallyEl(tv.over.tally)) : null);
  if (!st) {
    show(h("div", { class: "tv-grid" }, h("section", { class: "panel" }, h("h2", {}, s ? s.name : `Table ${tv.table}`), h("p", { class: "quiet" }, "Waiting for the first game…")), side));
    return;
  }
  const v = st.view;
  const clocks = clocksOf(st, tv.receivedAt);
  const main = h(
    "section",
    { class: "tv-table" },
    h("div", { class: "opponents" }, v.players.map((p) => seatEl(p, { turn: p.seat in clocks, clock: clocks[p.seat] }))),
    h("div", { class: "middle" }, pileEl(v)),
    tv.over && v.phase === "over"
      ? h("section", { class: "panel game-over" }, h("h2", {}, `Game over: ${tv.over.result.players[tv.over.result.loser]} is the shithead`))
      : null,
    h("section", { class: "panel" }, h("h2", {}, "Last plays"), h("ol", { class: "history" }, tv.plays.map((line) => h("li", {}, line)))),
  );
  show(h("div", { class: "tv-grid" }, main, side));
}

main();
