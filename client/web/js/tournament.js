// A tournament's page (issue 34): live standings (rating ± 95 %, mean place and loss rate with
// their intervals, firsts, health), the head-to-head crosstable, the games in progress (each a
// link to the TV page, which shows a table as a spectator sees it: no hidden card), and the
// results to download as CSV (the standings) or JSON (everything the server says of it).
// /tournament?id=3; /tournament lists the server's tournaments. It follows the lobby
// (watch_lobby): a tournament's games open and close tables, and each change reads the
// tournament again; a slow timer reads it too while it runs.

import { fileName, crosstable, pm, progressText, standingsCsv } from "./tournament_view.js";
import { healthText, ratingText } from "./ladder_view.js";
import { h } from "./ui.js";
import { openViewer } from "./viewer.js";

const id = new URLSearchParams(location.search).get("id");
const T = { link: null, id: id !== null && /^\d+$/.test(id) ? Number(id) : null, info: null, list: null, error: "", busy: false, again: false, timer: null, all: false };

function show(...els) {
  document.getElementById("screen").replaceChildren(...els.filter(Boolean));
}

/** Read the tournament (or the list); a change while a read is under way reads once more. */
async function load() {
  if (T.busy) {
    T.again = true;
    return;
  }
  T.busy = true;
  clearTimeout(T.timer);
  try {
    if (T.id === null) T.list = (await T.link.request({ type: "list_tournaments" })).tournaments;
    else T.info = (await T.link.request({ type: "get_tournament", tournament: T.id })).info;
    T.error = "";
  } catch (err) {
    T.error = err.code === "UNKNOWN_TOURNAMENT" ? `There is no tournament ${T.id} on this server.` : `Could not read the tournament: ${err.message}`;
  } finally {
    T.busy = false;
  }
  render();
  if (T.again) {
    T.again = false;
    load();
  } else if (T.info?.status !== "finished") {
    T.timer = setTimeout(() => T.link.online && load(), 10000);
  }
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function scrollTable(caption, idBase, head, rows, cls = "") {
  return h(
    "div",
    { class: "l-scroll", tabindex: "0", role: "region", "aria-labelledby": `${idBase}-caption` },
    h("table", { class: `l-table ${cls}`.trim(), id: idBase }, h("caption", { id: `${idBase}-caption` }, caption), h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows)),
  );
}

// On a phone the standings show rank, participant, rating, mean place and health (when not
// every row is "clean"); games, loss rate and firsts (class "l-more", hidden by pages.css up to
// 45rem wide) come with "All columns".
const MORE = new Set(["Games", "Loss rate", "Firsts"]);

function standingsEl(info) {
  if (!info.standings.length) return h("p", { class: "quiet" }, "No game has finished yet.");
  // (a column of "clean" says nothing a phone needs: it is shown when a participant misbehaved)
  const clean = info.standings.every((r) => healthText(r) === "clean");
  const more = (c) => MORE.has(c) || (c === "Health" && clean);
  const head = ["Rank", "Participant", "Rating ± 95 %", "Games", "Mean place", "Loss rate", "Firsts", "Health"].map((c) => h("th", { scope: "col", class: more(c) ? "l-more" : undefined }, c));
  const rows = info.standings.map((r) =>
    h(
      "tr",
      { dataset: { name: r.name } },
      h("td", { class: "num" }, String(r.rank)),
      h("th", { scope: "row", class: "l-bot" }, r.name),
      h("td", { class: "num" }, ratingText(r.rating, r.rating_95)),
      h("td", { class: "num l-more" }, String(r.games)),
      h("td", { class: "num" }, pm(r.mean_place, r.mean_place_95)),
      h("td", { class: "num l-more" }, pm(r.loss_rate, r.loss_rate_95)),
      h("td", { class: "num l-more" }, String(r.firsts)),
      h("td", { class: clean ? "l-more" : undefined }, healthText(r)),
    ),
  );
  const all = h("button", { type: "button", class: "l-all", id: "t-all", "aria-pressed": String(T.all), onclick: () => { T.all = !T.all; render(); } }, "All columns");
  return [all, scrollTable("Standings, best rating first", "t-standings", head, rows, T.all ? "all" : "")];
}

function crossEl(info) {
  const { names, cells } = crosstable(info);
  if (names.length < 2) return null;
  const head = [h("td", {}), ...names.map((n, j) => h("th", { scope: "col", title: n }, String(j + 1)))];
  const rows = names.map((n, i) => h("tr", {}, h("th", { scope: "row", class: "l-bot" }, `${i + 1}. ${n}`), cells[i].map((c) => h("td", { class: "num" }, c || "·"))));
  return h(
    "section",
    { "aria-labelledby": "t-cross-heading" },
    h("h2", { id: "t-cross-heading" }, "Head to head"),
    h("p", { class: "quiet" }, "The row's mean place minus the column's, over the games they played together (negative: the row finished ahead). Columns are numbered as the rows."),
    scrollTable("Head to head, mean place difference", "t-cross", head, rows),
  );
}

function runningEl(info) {
  if (info.status !== "running") return null;
  return h(
    "section",
    { "aria-labelledby": "t-running-heading" },
    h("h2", { id: "t-running-heading" }, "Games in progress"),
    info.tables.length
      ? h("ul", { class: "t-running", id: "t-running" }, info.tables.map((t) => h("li", {}, h("a", { href: `tv?table=${t}` }, `Table ${t}`), " on the TV page")))
      : h("p", { class: "quiet" }, info.paused ? "None: paused." : "None at this moment."),
  );
}

function resultsEl(info) {
  return h(
    "section",
    { "aria-labelledby": "t-results-heading" },
    h("h2", { id: "t-results-heading" }, info.status === "finished" ? "Results" : "Results so far"),
    h(
      "div",
      { class: "t-downloads" },
      h("button", { type: "button", id: "t-csv", onclick: () => download(fileName(info, "standings", "csv"), "text/csv", standingsCsv(info)) }, "Standings (CSV)"),
      h("button", { type: "button", id: "t-json", onclick: () => download(fileName(info, "tournament", "json"), "application/json", JSON.stringify(info, null, 2)) }, "Everything (JSON)"),
    ),
  );
}

function listEl(list) {
  if (!list.length) return h("p", { class: "quiet" }, "No tournament on this server.");
  return h("ul", { class: "b-games", id: "t-list" }, list.map((t) => h("li", {}, h("a", { href: `tournament?id=${t.tournament}` }, t.name), ` · ${progressText(t)}`)));
}

function render() {
  if (T.error) return show(h("p", { class: "refusal", role: "alert" }, T.error));
  if (T.id === null) return show(h("h1", {}, "Tournaments"), T.list ? listEl(T.list) : h("p", { class: "quiet" }, "Loading…"));
  const info = T.info;
  if (!info) return show(h("p", { class: "quiet" }, "Loading…"));
  document.getElementById("who").textContent = info.name;
  document.title = `${info.name}: tournament`;
  show(
    h("h1", {}, info.name),
    h("p", { id: "t-progress", dataset: { status: info.status } }, progressText(info)),
    h("progress", { max: String(info.games_total), value: String(info.games_finished), "aria-label": "Games finished" }),
    h("section", { "aria-labelledby": "t-standings-heading" }, h("h2", { id: "t-standings-heading" }, "Standings"), standingsEl(info)),
    h("div", { class: "t-cols" }, crossEl(info), h("div", {}, runningEl(info), resultsEl(info))), // (side by side on a wide screen)
  );
}

T.link = openViewer({
  onReady: async () => {
    load();
    try {
      await T.link.request({ type: "watch_lobby" }); // (tables open and close: read again)
    } catch {
      // the slow timer still reads it
    }
  },
  onMessage: (msg) => msg.type === "lobby_update" && load(),
  onRefused: (text) => show(h("p", { class: "refusal", role: "alert" }, text)),
});
render();
