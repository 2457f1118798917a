// The lobby on the player's page: the open tables with who sits where, a form that opens a new
// table from the server's catalogue (each preset's name, description and player range, so the
// seats offered are the ones the preset allows; its house rules as controls set to the preset's
// values, house_rules.js), and the code the next guest scans. It builds
// DOM and reports through `ctx`; app.js keeps the data.

import { houseRulesEls, optionChanges, readControls, setControls } from "./house_rules.js";
import { presetLabel } from "./table.js";
import { h } from "./ui.js";

/** The catalogue's presets as {name, description, min_players, max_players} (an older server
 * sends bare names: 2 to 5 players then, the classic range). */
export function presetsOf(catalog) {
  return (catalog.presets ?? ["classic"]).map((p) => (typeof p === "string" ? { name: p, description: "", min_players: 2, max_players: 5 } : p));
}

/** `ctx`: {me, tables, catalog, mySeats (table id -> token), join(id), takeBack(id), watch(id),
 * create(request) (a promise; rejects with a message), askLogout()}. */
export function lobbyScreen(ctx) {
  if (!ctx.me) return h("section", { class: "panel" }, h("p", { class: "quiet", id: "connecting" }, "Connecting to the server…"));
  return h(
    "div",
    { class: "lobby" },
    h("h1", { class: "sr-only" }, "Lobby"),
    tablesEl(ctx),
    createForm(ctx),
    h(
      "section",
      { class: "panel join-code", "aria-labelledby": "next-guest" },
      h("h2", { id: "next-guest" }, "Next guest"),
      h("img", { src: "join.svg", alt: `QR code of ${ctx.catalog.join}`, width: "160", height: "160" }),
      h("p", {}, "Scan, or open ", h("a", { href: ctx.catalog.join }, ctx.catalog.join)),
    ),
    h(
      "p",
      { class: "quiet" },
      "Logged in as ",
      h("strong", { id: "me" }, ctx.me.name),
      ctx.me.guest ? " (guest)" : "",
      " · ",
      h("button", { class: "link", type: "button", onclick: ctx.askLogout }, "change name"),
    ),
    h("p", { class: "quiet pages" }, "To read: ", h("a", { href: "ladder" }, "the bot ladder"), " · ", h("a", { href: "tournament" }, "tournaments"), " · ", h("a", { href: "replay" }, "a game's replay")),
  );
}

function tablesEl(ctx) {
  const rows = ctx.tables.map((t) => {
    const seated = t.seats.filter(Boolean);
    const mineHere = String(t.table) in ctx.mySeats;
    const who = seated.map((s) => `${s.name}${s.bot ? " (bot)" : ""}`).join(", ");
    return h(
      "li",
      { class: "table-row", dataset: { table: String(t.table) } },
      h(
        "div",
        { class: "what" },
        h("strong", { class: "name", title: t.name }, t.name),
        h("span", {}, ` ${presetLabel(t.preset)} · ${seated.length}/${t.seats.length} seated · ${t.status === "playing" ? "playing" : "waiting"}${t.password ? " · password" : ""}`),
        who ? h("div", { class: "who-sits" }, who) : null,
      ),
      h(
        "div",
        { class: "row-actions" },
        mineHere
          ? h("button", { class: "primary", type: "button", onclick: () => ctx.takeBack(t.table) }, "Back to my seat")
          : t.free > 0 && t.status === "waiting"
            ? h("button", { class: "primary", type: "button", onclick: () => ctx.join(t.table) }, "Join")
            : null,
        h("button", { type: "button", onclick: () => ctx.watch(t.table) }, "Watch"),
      ),
    );
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "tables-heading" },
    h("h2", { id: "tables-heading" }, "Tables"),
    rows.length ? h("ul", { class: "tables" }, rows) : h("p", { class: "quiet" }, "No table yet: open one below."),
  );
}

function createForm(ctx) {
  const presets = presetsOf(ctx.catalog);
  const kept = document.getElementById("preset")?.value;
  const chosen = () => presets.find((p) => p.name === presetSel.value) ?? presets[0];
  const presetSel = h(
    "select",
    { id: "preset", name: "preset", "aria-describedby": "preset-about", onchange: () => fill(true) },
    presets.map((p) => h("option", { value: p.name, selected: p.name === kept }, presetLabel(p.name))),
  );
  const about = h("p", { class: "hint quiet", id: "preset-about" });
  const seats = h("select", { id: "seats", name: "seats" });
  const forms = ctx.catalog.options ?? [];
  const rules = h("div", { class: "house-rule-list" }, houseRulesEls(forms, chosen().values ?? {}));
  const fill = (changed = false) => {
    const p = chosen();
    if (changed) setControls(rules, forms, p.values ?? {});
    const what = p.description ? `${p.description[0].toUpperCase()}${p.description.slice(1)}. ` : "";
    about.textContent = `${what}${p.min_players} to ${p.max_players} players.`;
    const was = Number(seats.value || document.getElementById("seats")?.value) || 4;
    const want = Math.min(Math.max(was, p.min_players), p.max_players);
    seats.replaceChildren(
      ...Array.from({ length: p.max_players - p.min_players + 1 }, (_, i) => p.min_players + i).map((n) => h("option", { value: String(n), selected: n === want }, `${n} players`)),
    );
  };
  const tname = h("input", { id: "table-name", maxlength: "40", value: `${ctx.me.name}'s table` });
  const clock = h("select", { id: "clock" }, [15, 30, 60, 120, 600].map((s) => h("option", { value: String(s), selected: s === 60 }, s < 120 ? `${s} s a move` : `${s / 60} min a move`)));
  const options = h("input", { id: "options", placeholder: '{"powers": {"7": ["lower"]}}', "aria-describedby": "options-about", autocomplete: "off" });
  const refusal = h("p", { class: "refusal", role: "alert" });
  const create = async (event) => {
    event.preventDefault();
    let opts = optionChanges(chosen().values ?? {}, readControls(rules, forms));
    try {
      if (options.value.trim()) opts = { ...opts, ...JSON.parse(options.value) };
    } catch {
      refusal.textContent = 'Other changes are written like {"powers": {"7": ["lower"]}}.';
      return;
    }
    try {
      const request = { name: tname.value.trim() || "table", preset: presetSel.value, seats: Number(seats.value), action_seconds: Number(clock.value) };
      await ctx.create(opts ? { ...request, options: opts } : request);
    } catch (err) {
      refusal.textContent = err.message;
    }
  };
  const form = h(
    "form",
    { class: "panel create", onsubmit: create, "aria-labelledby": "new-table" },
    h("h2", { id: "new-table" }, "New table"),
    h("label", { for: "table-name" }, "Name"),
    tname,
    h("label", { for: "preset" }, "Rules"),
    presetSel,
    about,
    h("div", { class: "pair" }, h("label", { for: "seats" }, "Players", seats), h("label", { for: "clock" }, "Clock", clock)),
    h(
      "details",
      { class: "house-rules", id: "house-rules" },
      h("summary", {}, "House rules"),
      rules,
      h("label", { for: "options" }, "Other changes"),
      options,
      h("p", { class: "hint quiet", id: "options-about" }, "The powers of the cards and the rest, written as in docs/RULES.md; leave empty to keep them."),
    ),
    refusal,
    h("button", { type: "submit", class: "primary", id: "create" }, "Open the table"),
  );
  fill();
  return form;
}
