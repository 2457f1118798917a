// The replay viewer (issue 34): any finished game, step by step, forward and back, with every
// hand and every face-down card open (the game is over: the server answers get_replay for
// finished games only, so nothing of a game in progress can reach this page). /replay?game=57
// opens game 57 at its deal, /replay?game=57&step=12 at its 12th action: the address follows
// the step, so the address bar (or the "Link to this position" below) shares a position.
// Keys: ←/→ a step, PgUp/PgDn ten, Home/End the deal and the end (as `shithead replay`).

import { ordinal } from "./cards.js";
import { StepCache, actionLine, keyMove, overLine, parseLocation, stepUrl } from "./replay_steps.js";
import { cardEl, h } from "./ui.js";
import { openViewer } from "./viewer.js";

const where = parseLocation(location.search);
const r = {
  link: null,
  game: where.game,
  step: where.step ?? 0,
  cache: new StepCache(),
  meta: null, // {table_name, preset, dealer, actions}
  error: "",
  loading: null, // the start of the page being fetched
};

function show(...els) {
  document.getElementById("screen").replaceChildren(...els.filter(Boolean));
}

async function fetchPage(start) {
  if (r.loading === start) return;
  r.loading = start;
  try {
    const answer = await r.link.request({ type: "get_replay", game: r.game, start, count: 100 });
    r.meta = { table_name: answer.table_name, preset: answer.preset, dealer: answer.dealer, actions: answer.actions };
    r.cache.add(answer);
    r.error = "";
    if (r.step > answer.actions) go(answer.actions);
  } catch (err) {
    r.error = err.code === "UNKNOWN_GAME" ? `There is no finished game ${r.game} on this server (a game is shown once it is over).` : `Could not load game ${r.game}: ${err.message}`;
  } finally {
    if (r.loading === start) r.loading = null;
  }
  render();
}

/** Show `step` (fetching its page if needed) and put it in the address. */
function go(step) {
  r.step = step;
  history.replaceState(null, "", stepUrl(r.game, step));
  const need = r.cache.need(step);
  if (need !== null) fetchPage(need);
  else {
    const ahead = r.cache.ahead(step);
    if (ahead !== null) fetchPage(ahead);
  }
  render();
}

function cards(list, label, cls, fan = false) {
  const shown = list.length ? list.map((c) => (c === null ? h("span", { class: "card empty small", role: "img", "aria-label": "taken" }) : cardEl(c, { size: "small" }))) : [h("span", { class: "quiet" }, "none")];
  // A hand overlaps like a fan when it would not fit its row (pages.css: .r-fan uses --n).
  const attrs = fan ? { class: "r-cards r-fan", style: { "--n": String(Math.max(1, list.length)) } } : { class: "r-cards" };
  return h("div", { class: `r-row ${cls}` }, h("span", { class: "r-label" }, label), h("span", attrs, shown));
}

function seatPanel(s, i, step) {
  const marks = [];
  if (step.turn === i) marks.push("to play");
  if (s.place !== null) marks.push(step.places && step.places.at(-1) === i ? "the shithead" : `out ${ordinal(s.place)}`);
  else if (s.out) marks.push("out");
  return h(
    "section",
    { class: `r-seat${step.turn === i ? " turn" : ""}`, dataset: { seat: String(i) }, "aria-labelledby": `seat-${i}` },
    h(
      "div",
      { class: "r-seat-head" },
      h("h2", { id: `seat-${i}` }, h("span", { class: "name", title: s.name }, s.name), marks.length ? h("span", { class: "r-mark" }, ` · ${marks.join(" · ")}`) : null),
      // ("Up" and "Down" on the screen, "Face up" and "Face down" to a screen reader)
      h("div", { class: "r-table" }, cards(s.face_up.flat(), [h("span", { class: "sr-only" }, "Face "), "up"], "r-up"), cards(s.face_down, [h("span", { class: "sr-only" }, "Face "), "down"], "r-down")),
    ),
    cards(s.hand, "Hand", "r-hand", true),
  );
}

function controls(total) {
  const button = (label, text, to, id) => h("button", { type: "button", id, "aria-label": label, disabled: to === r.step || to < 0 || to > total, onclick: () => go(to) }, text);
  return h(
    "nav",
    { class: "r-controls", "aria-label": "Steps" },
    button("The deal", "«", 0, "r-first"),
    button("Previous action", "◀", Math.max(0, r.step - 1), "r-prev"),
    h("output", { id: "r-count", "aria-live": "polite" }, `${r.step} / ${total}`),
    button("Next action", "▶", Math.min(total, r.step + 1), "r-next"),
    button("The end", "»", total, "r-last"),
    h("input", {
      type: "range",
      id: "r-slider",
      min: "0",
      max: String(total),
      value: String(r.step),
      "aria-label": "Action",
      oninput: (e) => go(Number(e.target.value)),
    }),
  );
}

function askForGame() {
  const input = h("input", { id: "r-game", type: "number", min: "0", inputmode: "numeric", required: true });
  const open = (e) => {
    e.preventDefault();
    if (input.value === "") return;
    r.game = Number(input.value);
    r.cache = new StepCache();
    go(0);
  };
  show(
    h(
      "form",
      { class: "panel r-ask", onsubmit: open },
      h("h1", {}, "Replay a game"),
      h("label", { for: "r-game" }, "Game number (from a ladder, a tournament or a table's game over)"),
      input,
      h("button", { class: "primary", type: "submit" }, "Open"),
    ),
  );
}

function render() {
  if (r.game === null) return askForGame();
  const step = r.cache.get(r.step);
  if (r.error) return show(h("section", { class: "panel" }, h("h1", {}, "Replay"), h("p", { class: "refusal", role: "alert" }, r.error)));
  if (!step || !r.meta) return show(h("p", { class: "quiet" }, "Loading…"));
  const m = r.meta;
  document.getElementById("who").textContent = `Replay · game ${r.game}`;
  document.title = `${m.table_name || `Game ${r.game}`}: action ${r.step} of ${m.actions}`;
  const over = overLine(step);
  const pile = step.pile.slice(-8);
  const link = new URL(stepUrl(r.game, r.step), location.href).href;
  // The steps, the action and the pile together (on a phone they stay in view while the seats
  // scroll under them), then the seats, then the link (pages.css lays them out by the screen).
  show(
    h("h1", { class: "r-title" }, m.table_name || `Game ${r.game}`, h("span", { class: "quiet" }, ` · ${m.preset} · game ${r.game}`)),
    h(
      "div",
      { class: "r-board" },
      h(
        "div",
        { class: "r-top" },
        controls(m.actions),
        h(
          "div",
          { class: "r-now" },
          h("div", { class: "r-said" }, h("p", { class: "r-action", id: "r-action" }, actionLine(step, m.dealer)), over ? h("p", { class: "r-over", id: "r-over" }, over) : null),
          h(
            "section",
            { class: "r-pile", "aria-labelledby": "pile-heading" },
            h("h2", { id: "pile-heading" }, `Pile (${step.pile.length})`),
            h("div", { class: "r-cards", id: "r-pile-cards" }, pile.length ? pile.map((c) => cardEl(c, { size: "small" })) : h("span", { class: "quiet" }, "empty")),
            h("p", { id: "r-facts" }, `Stock ${step.stock} · burned ${step.burned}${step.pile.length > 8 ? " · the top 8 shown, newest last" : ""}`),
          ),
        ),
      ),
      h("div", { class: `r-seats n${step.seats.length}` }, step.seats.map((s, i) => seatPanel(s, i, step))),
      h("p", { class: "r-share" }, h("a", { href: link, id: "r-link" }, "Link to this position")),
    ),
  );
}

document.addEventListener("keydown", (e) => {
  if (r.game === null || !r.meta || e.target.closest?.("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
  const to = keyMove(e.key, r.step, r.meta.actions);
  if (to === null) return;
  e.preventDefault();
  if (to !== r.step) go(to);
});

r.link = openViewer({
  onReady: () => {
    if (r.game !== null) go(r.step);
    else render();
  },
  onRefused: (text) => show(h("p", { class: "refusal", role: "alert" }, text)),
});
render();
