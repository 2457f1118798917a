// The ladder (issue 34): every table of `ladder_standings` (overall first, then one per preset),
// each bot's rank, rating ± its 95 % interval, games and health (timeouts, illegal actions,
// disconnects), the bots on the ladder now marked; a bot's name opens its page. Read again every
// 15 seconds while the page is shown (the ladder pushes nothing). /ladder?table=classic opens a
// preset's table.

import { healthText, ratingText } from "./ladder_view.js";
import { h } from "./ui.js";
import { openViewer } from "./viewer.js";

const REFRESH_MS = 15000;
const L = { link: null, standings: null, table: new URLSearchParams(location.search).get("table") ?? "overall", error: "", timer: null };

function show(...els) {
  document.getElementById("screen").replaceChildren(...els.filter(Boolean));
}

async function load() {
  clearTimeout(L.timer);
  try {
    L.standings = await L.link.request({ type: "ladder" });
    L.error = "";
  } catch (err) {
    L.error = `Could not read the ladder: ${err.message}`;
  }
  render();
  L.timer = setTimeout(() => document.visibilityState === "visible" && L.link.online && load(), REFRESH_MS);
}

function pick(table) {
  L.table = table;
  history.replaceState(null, "", table === "overall" ? "ladder" : `ladder?table=${encodeURIComponent(table)}`);
  render();
}

function tableEl(t, members) {
  if (!t.rows.length) return h("p", { class: "quiet", id: "l-empty" }, "No ladder game has been played yet.");
  const head = h("tr", {}, ["Rank", "Bot", "Rating ± 95 %", "Games", "Health"].map((c) => h("th", { scope: "col" }, c)));
  const rows = t.rows.map((r) =>
    h(
      "tr",
      { dataset: { name: r.name } },
      h("td", { class: "num" }, String(r.rank)),
      h(
        "th",
        { scope: "row", class: "l-bot" },
        h("a", { href: `bot?name=${encodeURIComponent(r.name)}` }, r.name),
        members.has(r.name) ? h("span", { class: "l-on", title: "on the ladder now" }, " ● on") : null,
      ),
      h("td", { class: "num l-rating" }, ratingText(r.rating, r.rating_95)),
      h("td", { class: "num l-games" }, String(r.games)),
      h("td", { class: `l-health${healthText(r) === "clean" ? "" : " warn"}` }, healthText(r)),
    ),
  );
  return h(
    "div",
    { class: "l-scroll", tabindex: "0", role: "region", "aria-labelledby": "l-caption" },
    h("table", { class: "l-table", id: "l-table" }, h("caption", { id: "l-caption" }, t.table === "overall" ? "Overall: every ladder game" : `${t.table} games only`), h("thead", {}, head), h("tbody", {}, rows)),
  );
}

function render() {
  if (L.error) return show(h("p", { class: "refusal", role: "alert" }, L.error));
  const s = L.standings;
  if (!s) return show(h("p", { class: "quiet" }, "Loading…"));
  const tables = s.tables;
  const t = tables.find((x) => x.table === L.table) ?? tables[0];
  const members = new Set(s.members);
  const tabs = tables.length > 1
    ? h(
        "nav",
        { class: "l-tabs", "aria-label": "Tables" },
        tables.map((x) => h("button", { type: "button", "aria-pressed": String(x === t), dataset: { table: x.table }, onclick: () => pick(x.table) }, x.table)),
      )
    : null;
  show(
    h("h1", {}, "Bot ladder"),
    h("p", { class: "quiet" }, `${s.members.length} bot${s.members.length === 1 ? "" : "s"} on the ladder now; the bundled bots in brackets are the baselines. A bot joins with ladder_join (docs/PROTOCOL.md, "The ladder").`),
    tabs,
    tableEl(t, members),
  );
}

L.link = openViewer({ onReady: () => load(), onRefused: (text) => show(h("p", { class: "refusal", role: "alert" }, text)) });
document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && L.link.online && load());
render();
