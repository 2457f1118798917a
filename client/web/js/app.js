// The player's page: name -> lobby -> table. Phone first: every action is a tap (select cards,
// then play; a hand card then a face-up slot to swap in setup; a face-down card to turn it).
//
// What survives a reload, a locked phone or a server restart is in localStorage: the profile
// {name, guest, token}, where token is the login token of logged_in (never a password: a
// password is sent once, at the login typed on the name screen, and kept nowhere), and each
// seat's token. On every (re)connection the Link logs in with the login token (a guest adds a
// seat token it holds) and the page resumes every seat it holds, so a player returns to the seat
// without a tap. A token the server refuses (it ended with a logout) brings the name screen
// back. "Log out" ends the token on the server and forgets the profile and the seat tokens here
// (the seats stay held on the server, for a device that still holds them). sessionStorage keeps
// each table's history and chat for this tab. The page shows only what the server sent this seat.

import { ACTION_LABELS, eventText, parseAction, short, shortList } from "./cards.js";
import { Link, Refused, loadCatalog, serverUrl, wakeOnReturn } from "./net.js";
import { NAME_RULE, checkName } from "./names.js";
import { backEl, cardEl, clockEl, clocksOf, h, pileEl, seatEl, startClocks, tallyEl } from "./ui.js";

const HISTORY = 80; // lines kept per table
const store = {
  get(key, fallback) {
    try {
      return JSON.parse(localStorage.getItem(`shithead.${key}`)) ?? fallback;
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    localStorage.setItem(`shithead.${key}`, JSON.stringify(value));
  },
};

const app = {
  link: null,
  me: null, // logged_in
  catalog: { presets: ["classic"], bots: ["greedy"], join: location.origin + "/" },
  screen: "name",
  tables: [], // lobby list
  at: new Map(), // table id -> {summary, state, receivedAt, seat, history, chat, over, selected, refusal, watching}
  current: store.get("current", null), // the table on screen
  notice: "", // why the name screen is back (a refused login)
  suggestion: null, // a free name the server offered (NAME_TAKEN)
  typed: null, // the name last typed on the name screen (shown again after a refusal)
  confirmingLogout: false,
  lobbyTimer: null,
};

const root = () => document.getElementById("screen");

// ------------------------------------------------------------------ start

async function main() {
  document.body.classList.toggle("four-colour", store.get("fourColour", false));
  startClocks();
  app.catalog = (await loadCatalog()) ?? app.catalog; // or the defaults above
  app.link = new Link(serverUrl(), {
    onReady: (loggedIn) => {
      store.set("profile", { name: loggedIn.name, guest: loggedIn.guest, ...(loggedIn.token ? { token: loggedIn.token } : {}) });
      loggedInAgain(loggedIn);
    },
    onMessage: (msg) => pushed(msg),
    onStatus: (text) => status(text),
    onLoginFailed: (err) => loginRefused(err),
    seatToken: () => Object.values(store.get("seats", {}))[0],
  });
  wakeOnReturn(app.link);
  let profile = store.get("profile", null);
  if (profile && "password" in profile) {
    // Kept by an older version of this page: used once more to get a login token, stored no longer.
    const { password, ...rest } = profile;
    store.set("profile", rest);
    profile = { ...rest, password };
  }
  // (an account without a token, which a server that could not write gives: the password again)
  if (profile && (profile.token || profile.password || profile.guest !== false)) {
    app.link.start(profile);
    show("lobby");
  } else {
    if (profile) app.notice = "Log in again: type your password.";
    show("name");
  }
}

/** The server refused the login: the name screen again, saying why (and offering a free name). */
function loginRefused(err) {
  const sent = app.link.profile; // what the refused login was
  if (sent?.token && err.code === "AUTH_FAILED") {
    // The login token has ended (a logout, or a guest's token long unused): log in anew. The
    // seat tokens stay: a guest who logs in with its name and one of them gets its seat back.
    store.set("profile", { name: sent.name, guest: sent.guest });
    app.notice = "Your login has ended (you logged out, perhaps in another tab): log in again.";
  } else {
    app.notice = `Could not log in: ${err.message}`;
  }
  app.suggestion = err.code === "NAME_TAKEN" ? (err.error.suggestion ?? null) : null;
  app.me = null;
  show("name");
}

function status(text) {
  const el = document.getElementById("status");
  el.textContent = text;
  el.hidden = !text;
}

function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("shown"), 4000);
}

function table(id) {
  let t = app.at.get(id);
  if (!t) {
    // History and chat survive a reload of this tab (sessionStorage): the server does not resend them.
    const kept = JSON.parse(sessionStorage.getItem(`shithead.log.${id}`) ?? "null") ?? { history: [], chat: [] };
    t = { summary: null, state: null, receivedAt: 0, seat: null, ...kept, over: null, selected: [], refusal: "", watching: false };
    app.at.set(id, t);
  }
  return t;
}

function keepLog(id, t) {
  sessionStorage.setItem(`shithead.log.${id}`, JSON.stringify({ history: t.history, chat: t.chat }));
}

/** Logged in (first time or after a reconnect): take back every seat this browser holds. */
async function loggedInAgain(loggedIn) {
  app.me = loggedIn;
  const seats = store.get("seats", {});
  for (const [id, token] of Object.entries(seats)) {
    try {
      const joined = await app.link.request({ type: "resume", table: Number(id), token });
      table(joined.table).seat = joined.seat;
    } catch (err) {
      if (err instanceof Refused && ["BAD_TOKEN", "UNKNOWN_TABLE"].includes(err.code)) {
        forgetSeat(Number(id));
      } else return; // the connection dropped again: the next login tries again
    }
  }
  const watched = store.get("watching", null);
  if (watched !== null && !(watched in seats)) {
    try {
      await app.link.request({ type: "watch", table: watched });
      table(watched).watching = true;
    } catch {
      store.set("watching", null);
    }
  }
  if (app.current !== null && !app.at.has(app.current)) setCurrent(null);
  show(app.current !== null ? "table" : "lobby");
}

function keepSeat(id, token) {
  store.set("seats", { ...store.get("seats", {}), [id]: token });
}

function forgetSeat(id) {
  const seats = store.get("seats", {});
  delete seats[id];
  store.set("seats", seats);
}

function setCurrent(id) {
  app.current = id;
  store.set("current", id);
}

// ------------------------------------------------------------------ pushed messages

function pushed(msg) {
  switch (msg.type) {
    case "state": {
      const t = table(msg.table);
      const name = (seat) => msg.view.players[seat]?.name ?? `seat ${seat}`;
      if (t.state && t.state.game !== msg.game) t.over = null;
      t.state = msg;
      t.receivedAt = performance.now();
      t.seat = msg.view.seat;
      for (const e of msg.events) t.history.push(eventText(e, name));
      t.history.splice(0, Math.max(0, t.history.length - HISTORY));
      const hand = new Set(msg.view.hand ?? []);
      const up = new Set((msg.view.players[t.seat]?.face_up ?? []).flat());
      t.selected = t.selected.filter((s) => (s.from === "hand" ? hand : up).has(s.card));
      break;
    }
    case "table_update":
      table(msg.table).summary = msg.summary;
      break;
    case "game_over":
      table(msg.table).over = msg;
      break;
    case "chat_message": {
      const t = table(msg.table);
      t.chat.push(`${msg.name}: ${msg.text}`);
      t.chat.splice(0, Math.max(0, t.chat.length - HISTORY));
      break;
    }
    case "presence": {
      const words = { dropped: "lost the connection", returned: "is back", replaced: `is played by ${msg.bot ?? "a bot"}` };
      table(msg.table).history.push(`${msg.name} ${words[msg.event] ?? msg.event}`);
      break;
    }
    case "going_away":
      toast(msg.returning ? "The server is restarting: back in a moment" : "The server is going away");
      break;
    case "error":
      if (msg.code === "BAD_TOKEN" && msg.table !== undefined) {
        // Another tab or device resumed the seat with the same token: it plays there now.
        // The token stays (both tabs share it): "Back to my seat" takes the seat back here.
        app.at.delete(msg.table);
        toast("Your seat is now played from another tab or device");
        if (app.current === msg.table) setCurrent(null);
        show("lobby");
        return;
      }
      toast(msg.message);
      break;
    default:
      break;
  }
  if (["state", "chat_message", "presence"].includes(msg.type)) keepLog(msg.table, table(msg.table));
  if (app.screen === "table" && "table" in msg && msg.table === app.current) render();
}

// ------------------------------------------------------------------ screens

function show(screen) {
  app.screen = screen;
  clearInterval(app.lobbyTimer);
  if (screen === "lobby") {
    refreshTables();
    app.lobbyTimer = setInterval(refreshTables, 3000);
  }
  render();
}

/** Draw the screen again from the data; what the player is typing, where the focus is and which
 * panels are open survive it (elements with an id keep their value). */
function render() {
  const el = root();
  const keep = new Map();
  for (const x of el.querySelectorAll("input[id], select[id], details[id]")) keep.set(x.id, x.tagName === "DETAILS" ? x.open : x.value);
  const focused = document.activeElement?.id;
  el.replaceChildren(app.screen === "name" ? nameScreen() : app.screen === "lobby" ? lobbyScreen() : tableScreen());
  for (const [id, value] of keep) {
    const x = document.getElementById(id);
    if (!x) continue;
    if (x.tagName === "DETAILS") x.open = value;
    else x.value = value;
  }
  if (focused) document.getElementById(focused)?.focus();
  if (app.confirmingLogout) el.prepend(logoutQuestion());
  document.getElementById("who").textContent = app.me ? app.me.name : "";
  document.getElementById("logout").hidden = !app.me;
}

async function refreshTables() {
  if (!app.link.online) return;
  try {
    const tables = (await app.link.request({ type: "list_tables" })).tables;
    const changed = JSON.stringify(tables) !== JSON.stringify(app.tables);
    app.tables = tables;
    if (changed && app.screen === "lobby") render();
  } catch {
    // offline for a moment: the next tick tries again
  }
}

function nameScreen() {
  // (no maxlength: it counts UTF-16 units, and would cut a name of emoji the rule allows)
  const typed = app.typed ?? store.get("profile", null)?.name ?? "";
  const name = h("input", { id: "name", name: "name", autocomplete: "nickname", required: true, value: typed, placeholder: "Your name", "aria-describedby": "name-rule" });
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password", placeholder: "Password (for an account; empty: guest)" });
  const refusal = h("p", { class: "refusal", role: "alert", id: "name-refusal" });
  const go = (event) => {
    event.preventDefault();
    const checked = checkName(name.value);
    if (checked.error) {
      refusal.textContent = `Not a name here: ${checked.error}`;
      return;
    }
    app.typed = name.value;
    app.notice = "";
    app.suggestion = null;
    app.link.start(password.value ? { name: checked.name, password: password.value } : { name: checked.name, guest: true });
    password.value = ""; // (kept nowhere: the Link sends it once, then logs in with the token)
    show("lobby");
  };
  const useSuggestion = () => {
    name.value = app.suggestion;
    app.suggestion = null;
    refusal.textContent = "";
    suggestion.remove();
    name.focus();
  };
  const suggestion = app.suggestion
    ? h("button", { type: "button", id: "suggestion", onclick: useSuggestion }, `Use “${app.suggestion}”`)
    : null;
  return h(
    "form",
    { class: "panel name-screen", onsubmit: go },
    h("h1", {}, "Shithead"),
    h("p", {}, "Palace, Karma, Shed, Vändtia: the card game. Pick a name to sit down."),
    app.notice ? h("p", { class: "refusal", role: "alert", id: "login-refusal" }, app.notice) : null,
    suggestion,
    h("label", { for: "name" }, "Name"),
    name,
    h("p", { class: "hint quiet", id: "name-rule" }, NAME_RULE),
    refusal,
    h("label", { for: "password" }, "Password (optional)"),
    password,
    h("button", { type: "submit", class: "primary", id: "enter" }, "Enter"),
  );
}

function lobbyScreen() {
  if (!app.me) return h("section", { class: "panel" }, h("p", { class: "quiet", id: "connecting" }, "Connecting to the server…"));
  const mine = store.get("seats", {});
  const rows = app.tables.map((t) => {
    const seated = t.seats.filter(Boolean).length;
    const mineHere = String(t.table) in mine;
    return h(
      "li",
      { class: "table-row", dataset: { table: String(t.table) } },
      h("div", { class: "what" }, h("strong", {}, t.name), h("span", {}, ` ${t.preset} · ${seated}/${t.seats.length} seated · ${t.status}${t.password ? " · password" : ""}`)),
      h(
        "div",
        { class: "row-actions" },
        mineHere
          ? h("button", { class: "primary", onclick: () => takeBack(t.table) }, "Back to my seat")
          : t.free > 0 && t.status === "waiting"
            ? h("button", { class: "primary", onclick: () => join(t.table) }, "Join")
            : null,
        h("button", { onclick: () => watch(t.table) }, "Watch"),
      ),
    );
  });
  const presets = h("select", { id: "preset", name: "preset" }, app.catalog.presets.map((p) => h("option", { value: p }, p)));
  const seats = h("select", { id: "seats", name: "seats" }, [2, 3, 4, 5, 6].map((n) => h("option", { value: String(n), selected: n === 4 }, `${n} seats`)));
  const tname = h("input", { id: "table-name", maxlength: "40", value: `${app.me?.name ?? store.get("profile", null)?.name ?? "My"}'s table` });
  const clock = h("select", { id: "clock" }, [15, 30, 60, 120, 600].map((s) => h("option", { value: String(s), selected: s === 60 }, `${s} s a move`)));
  const options = h("input", { id: "options", placeholder: 'Options, e.g. {"burn_count": 0}' });
  const refusal = h("p", { class: "refusal", role: "alert" });
  const create = async (event) => {
    event.preventDefault();
    let opts;
    try {
      opts = options.value.trim() ? JSON.parse(options.value) : undefined;
    } catch {
      refusal.textContent = "The options must be JSON, like {\"burn_count\": 0}";
      return;
    }
    try {
      const made = await app.link.request({
        type: "create_table",
        name: tname.value.trim() || "table",
        preset: presets.value,
        seats: Number(seats.value),
        action_seconds: Number(clock.value),
        ...(opts ? { options: opts } : {}),
      });
      await join(made.table);
    } catch (err) {
      refusal.textContent = err.message;
    }
  };
  return h(
    "div",
    { class: "lobby" },
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Tables"),
      rows.length ? h("ul", { class: "tables" }, rows) : h("p", { class: "quiet" }, "No table yet: open one below."),
    ),
    h(
      "form",
      { class: "panel create", onsubmit: create },
      h("h2", {}, "New table"),
      h("label", { for: "table-name" }, "Name"),
      tname,
      h("div", { class: "pair" }, presets, seats),
      clock,
      options,
      refusal,
      h("button", { type: "submit", class: "primary", id: "create" }, "Open the table"),
    ),
    h(
      "section",
      { class: "panel join-code" },
      h("h2", {}, "Next guest"),
      h("img", { src: "join.svg", alt: `QR code of ${app.catalog.join}`, width: "160", height: "160" }),
      h("p", {}, "Scan, or open ", h("a", { href: app.catalog.join }, app.catalog.join)),
    ),
    h(
      "p",
      { class: "quiet" },
      "Logged in as ",
      h("strong", { id: "me" }, app.me?.name ?? "…"),
      app.me?.guest ? " (guest)" : "",
      " · ",
      h("button", { class: "link", onclick: askLogout }, "change name"),
    ),
  );
}

// ------------------------------------------------------------------ logging out

/** "Log out" (in the header): at once, or after a question if this device holds a seat. */
function askLogout() {
  if (Object.keys(store.get("seats", {})).length) {
    app.confirmingLogout = true;
    render();
    window.scrollTo(0, 0);
  } else logOut();
}

function logoutQuestion() {
  const n = Object.keys(store.get("seats", {})).length;
  const stay = () => {
    app.confirmingLogout = false;
    render();
  };
  return h(
    "section",
    { class: "panel confirm", role: "alertdialog", "aria-labelledby": "logout-question" },
    h("p", { id: "logout-question" }, `You have a seat at ${n === 1 ? "a table" : `${n} tables`}. Log out anyway?`),
    h("p", { class: "quiet" }, "The seat stays yours on the server, but this device forgets it: only a device that still holds it can take it back."),
    h("div", { class: "row-actions" }, h("button", { class: "primary", id: "logout-confirm", onclick: logOut }, "Log out"), h("button", { id: "logout-cancel", onclick: stay }, "Stay")),
  );
}

/** End the login on the server (its token stops working) and forget it here, with the seat
 * tokens, the watched table and the tables' logs: this device no longer knows the player. */
async function logOut() {
  app.confirmingLogout = false;
  const told = await app.link.logout();
  forgetPlayer();
  app.notice = told ? "" : "Logged out on this device. The server could not be reached to end the login there.";
  show("name");
}

function forgetPlayer() {
  store.set("profile", null);
  store.set("seats", {});
  store.set("watching", null);
  setCurrent(null);
  for (const key of Object.keys(sessionStorage)) if (key.startsWith("shithead.log.")) sessionStorage.removeItem(key);
  app.at.clear();
  app.tables = [];
  app.me = null;
  app.typed = null;
  app.suggestion = null;
}

// Logged out in another tab of this browser: this one follows.
window.addEventListener("storage", (event) => {
  if (event.key === "shithead.profile" && event.newValue === "null" && app.me) {
    app.link.stop();
    forgetPlayer();
    app.notice = "";
    show("name");
  }
});

async function join(id) {
  try {
    const joined = await app.link.request({ type: "join", table: id });
    keepSeat(joined.table, joined.token);
    table(joined.table).seat = joined.seat;
    openTable(joined.table);
  } catch (err) {
    toast(err.message);
  }
}

/** Open a table where this browser holds a seat, resuming it first if this tab lost it. */
async function takeBack(id) {
  if (!app.at.has(id)) {
    try {
      const joined = await app.link.request({ type: "resume", table: id, token: store.get("seats", {})[id] });
      table(joined.table).seat = joined.seat;
    } catch (err) {
      if (err instanceof Refused && ["BAD_TOKEN", "UNKNOWN_TABLE"].includes(err.code)) forgetSeat(id);
      toast(err.message);
      return;
    }
  }
  openTable(id);
}

async function watch(id) {
  try {
    await app.link.request({ type: "watch", table: id });
    table(id).watching = true;
    store.set("watching", id);
    openTable(id);
  } catch (err) {
    toast(err.message);
  }
}

function openTable(id) {
  setCurrent(id);
  show("table");
}

async function leave(id) {
  try {
    await app.link.request({ type: "leave", table: id });
  } catch (err) {
    if (!(err instanceof Refused && err.code === "NOT_AT_TABLE")) {
      toast(err.message); // e.g. a seat cannot be given up while its game runs
      return;
    }
  }
  forgetSeat(id);
  if (store.get("watching", null) === id) store.set("watching", null);
  app.at.delete(id);
  setCurrent(null);
  show("lobby");
}

// ------------------------------------------------------------------ the table

function tableScreen() {
  const id = app.current;
  const t = table(id);
  const s = t.summary;
  const st = t.state;
  const owner = s && app.me && s.owner === app.me.name;
  const playing = st && st.view.phase !== "over";
  const top = h(
    "header",
    { class: "table-head" },
    h("button", { class: "link", onclick: () => show("lobby") }, "‹ Lobby"),
    h("strong", {}, s ? s.name : `Table ${id}`),
    t.watching ? h("span", { class: "quiet" }, "watching") : null,
    h("button", { class: "link", onclick: () => leave(id) }, t.watching ? "Stop watching" : "Leave"),
  );
  if (!playing) return h("div", { class: "table-screen" }, top, waitingRoom(id, t, owner));
  return h("div", { class: "table-screen" }, top, gameView(id, t), h("details", { class: "panel log", id: "log" }, h("summary", {}, "History and chat"), historyEl(t), chatEl(id, t)));
}

/** Before a game and between games: seats, bots, start, the last result. */
function waitingRoom(id, t, owner) {
  const s = t.summary;
  const seats = (s?.seats ?? []).map((seat, i) =>
    h(
      "li",
      { dataset: { seat: String(i) } },
      seat ? `${seat.name}${seat.bot ? " (bot)" : ""}${seat.away ? " (away)" : ""}${i === t.seat ? " (you)" : ""}` : h("span", { class: "quiet" }, "free seat"),
      !seat && owner ? botPicker(id, i) : null,
    ),
  );
  const seated = (s?.seats ?? []).filter(Boolean).length;
  return h(
    "div",
    { class: "waiting" },
    t.over ? gameOverEl(t) : null,
    h("section", { class: "panel" }, h("h2", {}, s ? `${s.preset}, ${s.seats.length} seats` : "Table"), h("ol", { class: "seats" }, seats)),
    owner
      ? h(
          "button",
          { class: "primary", id: "start", disabled: seated < 2, onclick: () => act0({ type: "start", table: id }) },
          t.over ? "Deal the next game" : "Start the game",
        )
      : h("p", { class: "quiet" }, t.over ? "Waiting for the owner to deal the next game" : "Waiting for the owner to start"),
    h("details", { class: "panel log", id: "log" }, h("summary", {}, "History and chat"), historyEl(t), chatEl(id, t)),
  );
}

function botPicker(id, seat) {
  // (an id, so that the choice survives the page being drawn again before the tap on "Add bot")
  const kind = h("select", { "aria-label": "bot", class: "bot-kind", id: `bot-kind-${seat}` }, app.catalog.bots.map((b) => h("option", { value: b }, b)));
  return h("span", { class: "add-bot" }, kind, h("button", { onclick: () => act0({ type: "add_bot", table: id, bot: kind.value, seat }) }, "Add bot"));
}

async function act0(msg) {
  try {
    await app.link.request(msg);
  } catch (err) {
    toast(err.message);
  }
}

function gameOverEl(t) {
  const o = t.over;
  const names = o.result.players;
  return h(
    "section",
    { class: "panel game-over", role: "status" },
    h("h2", {}, `Game over: ${names[o.result.loser]} is the shithead`),
    h("ol", {}, o.result.places.map((seat) => h("li", { class: seat === o.result.loser ? "loser" : "" }, names[seat]))),
    tallyEl(o.tally),
  );
}

function gameView(id, t) {
  const st = t.state;
  const v = st.view;
  const clocks = clocksOf(st, t.receivedAt);
  const mine = t.seat;
  const n = v.players.length;
  const others = v.players.filter((p) => p.seat !== mine);
  if (mine !== null) others.sort((a, b) => ((a.seat - mine + n) % n) - ((b.seat - mine + n) % n));
  const opponents = h("div", { class: "opponents" }, others.map((p) => seatEl(p, { turn: p.seat in clocks, clock: clocks[p.seat] })));
  const middle = h("div", { class: "middle" }, pileEl(v), h("p", { class: "last-event" }, t.history.at(-1) ?? ""));
  if (mine === null) return h("div", { class: "game" }, opponents, middle);
  return h("div", { class: "game" }, opponents, middle, myArea(id, t, clocks));
}

/** The seat's own cards and what it may do: selection, then a button. */
function myArea(id, t, clocks) {
  const v = t.state.view;
  const me = v.players[t.seat];
  const legal = v.legal;
  const acting = legal.length > 0;
  const setup = v.phase === "setup";
  const playable = new Set(legal.flatMap((a) => (a.startsWith("play ") || a.startsWith("run ") ? parseAction(a).args : [])));
  const isSel = (from, c) => t.selected.some((s) => s.from === from && s.card === c);
  const toggle = (from, c) => {
    const had = isSel(from, c);
    t.selected = t.selected.filter((s) => s.from === from && !(s.card === c));
    if (!had) t.selected.push({ from, card: c });
    t.refusal = "";
    render();
  };
  const tapSlot = (slot, c) => {
    const fromHand = t.selected.filter((s) => s.from === "hand");
    if (setup && fromHand.length === 1) {
      const handCard = fromHand[0].card;
      const place = `place ${handCard} ${slot}`;
      send(id, t, legal.includes(place) || c === null ? place : `swap ${handCard} ${slot}`);
      return;
    }
    if (c !== null) toggle("up", c);
  };
  const hand = h(
    "div",
    { class: "hand", "aria-label": "your hand" },
    (v.hand ?? []).map((c) => cardEl(c, { selected: isSel("hand", c), playable: playable.has(c), onTap: () => toggle("hand", c) })),
  );
  const ups = h(
    "div",
    { class: "my-table" },
    me.face_up.map((stack, slot) =>
      h(
        "span",
        { class: "stack", dataset: { slot: String(slot) } },
        stack.length
          ? stack.map((c) => cardEl(c, { selected: isSel("up", c), playable: playable.has(c), onTap: () => tapSlot(slot, c) }))
          : h("button", { class: "card empty", "aria-label": `empty slot ${slot + 1}`, onclick: () => tapSlot(slot, null) }),
      ),
    ),
    h("span", { class: "downs" }, me.face_down.map((down, pos) => (down ? backEl({ pos, onTap: () => send(id, t, `flip ${pos}`) }) : null))),
  );
  return h(
    "section",
    { class: `mine ${acting ? "turn" : ""}`.trim(), "aria-label": "your seat", dataset: { seq: String(t.state.seq), phase: v.phase } },
    h(
      "header",
      {},
      h("span", { class: "name" }, `${me.name} (you)`),
      acting ? h("span", { class: "your-move" }, "your move") : null,
      clocks[t.seat] ? clockEl(clocks[t.seat]) : null,
      me.out ? h("span", { class: "marks" }, `out`) : null,
    ),
    ups,
    hand,
    t.refusal ? h("p", { class: "refusal", role: "alert", id: "refusal" }, t.refusal) : null,
    actionsEl(id, t, setup),
  );
}

// ------------------------------------------------------------------ actions

/** The action the selection asks for: the legal one with exactly these cards, else a plain play. */
function selectedAction(t) {
  const cards = t.selected.map((s) => s.card);
  if (!cards.length) return null;
  const legal = t.state.view.legal;
  const same = (a) => {
    const args = parseAction(a).args;
    return args.length === cards.length && cards.every((c) => args.includes(c));
  };
  const found = legal.find((a) => /^(play|run|announce) /.test(a) && same(a));
  if (found) return found;
  if (t.state.view.phase === "announce" && cards.length === 1) return `announce ${cards[0]}`;
  return `play ${cards.join(" ")}`;
}

function actionsEl(id, t, setup) {
  const legal = t.state.view.legal;
  const buttons = [];
  const chosen = selectedAction(t);
  if (chosen && !setup) {
    const verb = parseAction(chosen).verb;
    const label = verb === "announce" ? "Announce" : "Play";
    buttons.push(h("button", { class: "primary", id: "play", onclick: () => send(id, t, chosen) }, `${label} ${shortList(parseAction(chosen).args)}`));
  }
  const upPick = t.selected.filter((s) => s.from === "up");
  for (const a of legal) {
    const { verb, args } = parseAction(a);
    if (args.length === 0 && verb in ACTION_LABELS) {
      buttons.push(h("button", { class: verb === "ready" ? "primary" : "", dataset: { action: a }, onclick: () => send(id, t, a) }, ACTION_LABELS[verb]));
    } else if (verb === "take" && (upPick.length === 0 || args[0] === upPick[0].card)) {
      // Nothing on the table beats the pile: one of those cards goes to the pile, then all of it to the hand.
      buttons.push(h("button", { dataset: { action: a }, onclick: () => send(id, t, a) }, `Pick up with ${short(args[0])}`));
    }
  }
  const hint = setup
    ? "Setup: tap a hand card, then a card on the table to swap them. Ready when done."
    : legal.length
      ? "Tap cards to choose, then play."
      : "";
  const keys = legal.length && !setup ? h("span", { class: "keys" }, " Keys: Enter plays, Esc clears, P picks up.") : null;
  return h("div", { class: "actions" }, buttons, hint ? h("p", { class: "hint quiet" }, hint, keys) : null);
}

/** Send `action`; a refusal is shown with its reason until the next tap. */
async function send(id, t, action) {
  const seq = t.state.seq;
  t.refusal = "";
  try {
    await app.link.request({ type: "act", table: id, seq, action });
    t.selected = [];
  } catch (err) {
    if (err instanceof Refused) {
      if (err.code === "STALE_SEQ") return; // the newer state is on its way
      t.refusal = `Refused: ${err.message}${err.reason ? ` (${err.reason})` : ""}`;
    } else {
      t.refusal = "Not sent: the connection is down (it comes back by itself)";
    }
  }
  render();
}

function historyEl(t) {
  return h("ol", { class: "history", "aria-label": "history" }, t.history.slice(-30).map((line) => h("li", {}, line)));
}

function chatEl(id, t) {
  const text = h("input", { id: "chat-text", maxlength: "280", placeholder: "Say something", "aria-label": "chat" });
  const say = async (event) => {
    event.preventDefault();
    const line = text.value.trim();
    if (!line) return;
    text.value = "";
    await act0({ type: "chat", table: id, text: line });
  };
  return h("form", { class: "chat", onsubmit: say }, h("ol", {}, t.chat.slice(-20).map((line) => h("li", {}, line))), text);
}

// ------------------------------------------------------------------ keyboard and settings

// On a desktop: Enter plays the selected cards, Escape clears the selection, P picks up the
// pile (Tab and Space reach and press every card and button as well).
document.addEventListener("keydown", (event) => {
  if (app.screen !== "table" || event.target.closest("input, select, textarea")) return;
  const t = app.at.get(app.current);
  if (!t) return;
  if (event.key === "Escape" && t.selected.length) {
    t.selected = [];
    render();
  } else if (event.key === "Enter" && document.getElementById("play") && !event.target.closest("button")) {
    document.getElementById("play").click();
  } else if (event.key.toLowerCase() === "p") {
    document.querySelector('[data-action^="take"]')?.click();
  } else return;
  event.preventDefault();
});

document.getElementById("logout").addEventListener("click", askLogout);

document.getElementById("colours").addEventListener("click", () => {
  const on = !document.body.classList.contains("four-colour");
  document.body.classList.toggle("four-colour", on);
  store.set("fourColour", on);
});

main();
