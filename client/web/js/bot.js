// A bot's page (issue 34): its rows in the ladder's tables (rank, rating ± 95 %, games, health),
// the plot of its overall rating over its games with the 95 % band, and its recent ladder games,
// each opening in the replay viewer. /bot?name=mybot

import { agoText, healthText, placeText, plot, ratingText } from "./ladder_view.js";
import { h } from "./ui.js";
import { openViewer } from "./viewer.js";

const SVG = "http://www.w3.org/2000/svg";
const B = { link: null, name: new URLSearchParams(location.search).get("name"), history: null, standings: null, error: "" };

function show(...els) {
  document.getElementById("screen").replaceChildren(...els.filter(Boolean));
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

async function load() {
  try {
    [B.history, B.standings] = await Promise.all([B.link.request({ type: "ladder_games", name: B.name, limit: 50 }), B.link.request({ type: "ladder" })]);
    B.error = "";
  } catch (err) {
    B.error = `Could not read the ladder: ${err.message}`;
  }
  render();
}

function plotEl(points) {
  const W = 320;
  const H = 160;
  const p = plot(points, { width: W, height: H });
  if (!p) return h("p", { class: "quiet" }, "No rating yet: no ladder game.");
  const last = points.at(-1);
  const label = `Overall rating over ${last.games} game${last.games === 1 ? "" : "s"}: from ${ratingText(points[0].rating, points[0].rating_95)} after its game ${points[0].games} to ${ratingText(last.rating, last.rating_95)} now.`;
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "b-plot", id: "b-plot" },
    s("path", { d: p.band, class: "b-band" }),
    ...p.ticks.map((t) => s("line", { x1: "28", x2: String(W - 28), y1: t.y.toFixed(1), y2: t.y.toFixed(1), class: "b-grid" })),
    ...p.ticks.map((t) => s("text", { x: "24", y: (t.y + 4).toFixed(1), "text-anchor": "end", class: "b-tick" }, t.label)),
    s("path", { d: p.line, class: "b-line" }),
    ...p.xy.map(([x, y]) => s("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: "2", class: "b-dot" })),
    s("text", { x: "28", y: String(H - 6), class: "b-tick" }, `game ${p.first}`),
    s("text", { x: String(W - 28), y: String(H - 6), "text-anchor": "end", class: "b-tick" }, `game ${p.last}`),
  );
  return h("figure", { class: "b-figure" }, svg, h("figcaption", { class: "quiet" }, `${label} The band is the 95 % interval.`));
}

function rowsEl() {
  const mine = B.standings.tables.map((t) => ({ table: t.table, row: t.rows.find((r) => r.name === B.name), of: t.rows.length })).filter((x) => x.row);
  if (!mine.length) return null;
  return h(
    "div",
    { class: "l-scroll", tabindex: "0", role: "region", "aria-labelledby": "b-rows-caption" },
    h(
      "table",
      { class: "l-table", id: "b-rows" },
      h("caption", { id: "b-rows-caption" }, "Ratings"),
      h("thead", {}, h("tr", {}, ["Table", "Rank", "Rating ± 95 %", "Games", "Health"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        mine.map(({ table, row, of }) =>
          h("tr", { dataset: { table } }, h("th", { scope: "row" }, table), h("td", { class: "num" }, `${row.rank} of ${of}`), h("td", { class: "num" }, ratingText(row.rating, row.rating_95)), h("td", { class: "num" }, String(row.games)), h("td", {}, healthText(row))),
        ),
      ),
    ),
  );
}

function gamesEl(games) {
  if (!games.length) return h("p", { class: "quiet" }, "No ladder game yet.");
  const now = Date.now() / 1000;
  return h(
    "ol",
    { class: "b-games", id: "b-games" },
    games.map((g) => {
      const others = g.players.filter((p) => p !== B.name);
      return h(
        "li",
        { dataset: { game: String(g.game) } },
        h("a", { href: `replay?game=${g.game}` }, `Game ${g.game}`),
        ` · ${g.preset} · `,
        h("strong", {}, placeText(g.place, g.players.length)),
        ` · against ${others.join(", ")} · ${agoText(g.finished, now)}`,
      );
    }),
  );
}

function render() {
  if (!B.name) return show(h("section", { class: "panel" }, h("h1", {}, "Which bot?"), h("p", {}, "Pick one on ", h("a", { href: "ladder" }, "the ladder"), ".")));
  if (B.error) return show(h("p", { class: "refusal", role: "alert" }, B.error));
  if (!B.history) return show(h("p", { class: "quiet" }, "Loading…"));
  document.getElementById("who").textContent = B.name;
  document.title = `${B.name} on the ladder`;
  const on = B.standings.members.includes(B.name);
  show(
    h("h1", {}, B.name),
    h("p", { class: "quiet" }, on ? "On the ladder now. " : "Not on the ladder now. ", h("a", { href: "ladder" }, "The whole ladder")),
    rowsEl(),
    h(
      "div",
      { class: "b-cols" }, // (side by side on a wide screen)
      h("section", { "aria-labelledby": "b-plot-heading" }, h("h2", { id: "b-plot-heading" }, "Rating history"), plotEl(B.history.ratings)),
      h("section", { "aria-labelledby": "b-games-heading" }, h("h2", { id: "b-games-heading" }, "Recent games"), gamesEl(B.history.games)),
    ),
  );
}

B.link = openViewer({ onReady: () => B.name && load(), onRefused: (text) => show(h("p", { class: "refusal", role: "alert" }, text)) });
render();
