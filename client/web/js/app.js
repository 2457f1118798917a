// The player's page: name -> lobby -> table. Phone first: every action is a tap (select cards,
// then play; a hand card then a face-up slot to swap in setup; a face-down card to turn it).
//
// What survives a reload, a locked phone or a server restart is in localStorage: the profile
// {name, guest, token}, where token is the login token of logged_in (never a password: a
// password is sent once, at the login typed on the name screen, and kept nowhere), each seat's
// token, and the server's own password if it has one (asked when the server refuses a login
// without it; the read-only pages of viewer.js read it too). On every (re)connection the Link
// logs in with the login token (a guest adds a seat token it holds) and the page resumes every
// seat it holds, so a player returns to the seat without a tap. A token the server refuses (it
// ended with a logout) brings the name screen back. "Log out" ends the token on the server and
// forgets the profile and the seat tokens here (the seats stay held on the server, for a device
// that still holds them). sessionStorage keeps each table's feed and chat for this tab. The page
// shows only what the server sent this seat.
//
// The screens are built by lobby.js and table.js from the data kept here; every message draws
// the screen again, keeping the focus, what is typed and which panels are open.

import { alertOn, setAlert, turnAlert } from "./alert.js";
import { inviteEl, invitedTable } from "./invite.js";
import { lobbyScreen } from "./lobby.js";
import { keptOf, newTable, reduceTable } from "./model.js";
import { Link, Refused, loadCatalog, serverUrl, wakeOnReturn } from "./net.js";
import { NAME_RULE, checkName } from "./names.js";
import { refusalText } from "./reasons.js";
import { fitHand, tableScreen } from "./table.js";
import { h, pauseClocks, startClocks } from "./ui.js";
import { ScreenAwake } from "./wake.js";

const awake = new ScreenAwake();

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
  at: new Map(), // table id -> {summary, state, receivedAt, seat, feed, chat, chatSeen, over, selected, refusal, watching}
  current: store.get("current", null), // the table on screen
  notice: "", // why the name screen is back (a refused login)
  suggestion: null, // a free name the server offered (NAME_TAKEN)
  typed: null, // the name last typed on the name screen (shown again after a refusal)
  confirmingLogout: false,
  followsLobby: false, // this connection was asked to follow the lobby (watch_lobby)
  invited: invitedTable(location), // a table whose invitation link opened this page
};

const root = () => document.getElementById("screen");

// ------------------------------------------------------------------ start

async function main() {
  document.body.classList.toggle("four-colour", store.get("fourColour", false));
  document.getElementById("colours").setAttribute("aria-pressed", String(store.get("fourColour", false)));
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
    app.link.start(withServerPassword(profile));
    show("lobby");
  } else {
    if (profile) app.notice = "Log in again: type your password.";
    show("name");
  }
}

/** `profile` with the server password this device was given, if any. The server password is
 * the LAN's shared secret (like the Wi-Fi's): kept on the device, so that a reload or a read-only
 * page (viewer.js) logs in without asking again; a refusal of it forgets it. */
function withServerPassword(profile) {
  const serverPassword = store.get("serverPassword", null);
  return serverPassword ? { ...profile, serverPassword } : profile;
}

/** The server refused the login: the name screen again, saying why (and offering a free name). */
function loginRefused(err) {
  const sent = app.link.profile; // what the refused login was
  if (err.code === "SERVER_PASSWORD_REQUIRED" || (err.code === "AUTH_FAILED" && err.error.reason === "SERVER_PASSWORD")) {
    // The server's own password, not this login's: ask for it; a login token was not looked at.
    store.set("serverPassword", null);
    app.askServerPassword = true;
    app.notice = err.code === "SERVER_PASSWORD_REQUIRED"
      ? "This server has a password of its own: ask the host for it."
      : "That is not the server's password: ask the host for it again.";
  } else if (sent?.token && err.code === "AUTH_FAILED") {
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
  // (on a phone held sideways or a zoomed page the new field is below the fold: bring it up)
  if (app.askServerPassword) document.getElementById("server-password")?.focus();
}

function status(text) {
  const el = document.getElementById("status");
  el.textContent = text;
  el.hidden = !text;
  pauseClocks(Boolean(text) && app.me !== null); // offline: the clocks stop until the server's next state
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
    t = newTable(JSON.parse(sessionStorage.getItem(`shithead.log.${id}`) ?? "null") ?? {});
    app.at.set(id, t);
  }
  return t;
}

function keepLog(id, t) {
  sessionStorage.setItem(`shithead.log.${id}`, JSON.stringify(keptOf(t)));
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
  if (app.invited !== null) await followInvitation();
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
  if (["state", "table_update", "game_over", "chat_message", "presence"].includes(msg.type)) {
    const t = reduceTable(table(msg.table), msg, performance.now());
    app.at.set(msg.table, t);
    if (msg.type === "state" && t.yourTurn) {
      announce("Your turn");
      turnAlert();
    }
    if (msg.type !== "table_update" && msg.type !== "game_over") keepLog(msg.table, t);
  }
  switch (msg.type) {
    case "lobby_update":
      setTables(msg.tables);
      break;
    case "going_away":
      toast(msg.returning ? "The server is restarting: back in a moment" : "The server is going away");
      break;
    case "error":
      if (msg.code === "BAD_TOKEN" && msg.table !== undefined) {
        // Another tab or device resumed the seat with the same token: it plays there now.
        // The token stays (both tabs share it): "Back to my seat" takes the seat back here.
        app.at.delete(msg.table);
        toast("Your seat is now played from another tab or device.");
        if (app.current === msg.table) setCurrent(null);
        show("lobby");
        return;
      }
      toast(refusalText(msg));
      break;
    default:
      break;
  }
  if (app.screen === "table" && "table" in msg && msg.table === app.current) render();
}

/** Say `text` to a screen reader (a polite live region outside the screen that is redrawn). */
function announce(text) {
  const el = document.getElementById("announce");
  if (!el) return;
  el.textContent = "";
  requestAnimationFrame(() => (el.textContent = text));
}

// ------------------------------------------------------------------ screens

function show(screen) {
  app.screen = screen;
  followLobby(screen === "lobby");
  render();
}

/** Draw the screen again from the data; what the player is typing, where the focus is and which
 * panels are open survive it (elements with an id keep their value, but for a control that
 * shows what the server says, marked data-server: the table's number of seats). */
function render() {
  const el = root();
  const keep = new Map();
  for (const x of el.querySelectorAll("input[id], select[id]:not([data-server]), details[id]")) keep.set(x.id, x.tagName === "DETAILS" ? x.open : x.type === "checkbox" ? x.checked : x.value);
  const focused = document.activeElement?.id;
  el.replaceChildren(app.screen === "name" ? nameScreen() : app.screen === "lobby" ? lobbyScreen(lobbyCtx()) : currentTable());
  for (const [id, value] of keep) {
    const x = document.getElementById(id);
    if (!x) continue;
    if (x.tagName === "DETAILS") x.open = value;
    else if (x.type === "checkbox") x.checked = value;
    else x.value = value;
  }
  if (focused) document.getElementById(focused)?.focus();
  if (app.confirmingLogout) el.prepend(logoutQuestion());
  document.getElementById("who").textContent = app.me ? app.me.name : "";
  document.getElementById("logout").hidden = !app.me;
  document.body.classList.toggle("at-table", app.screen === "table");
  const inGame = Boolean(el.querySelector(".table-screen.playing"));
  document.body.classList.toggle("in-game", inGame);
  awake.want(inGame); // (a phone on the table stays on while a game is played here)
  fitHand(el);
}

function currentTable() {
  return tableScreen(tableCtx(), app.current, table(app.current));
}

function lobbyCtx() {
  return {
    me: app.me,
    tables: app.tables,
    catalog: app.catalog,
    mySeats: store.get("seats", {}),
    join,
    takeBack,
    watch,
    askLogout,
    create: async (request) => {
      try {
        const made = await app.link.request({ type: "create_table", ...request });
        await join(made.table);
      } catch (err) {
        throw new Error(err.error ? refusalText(err.error) : err.message);
      }
    },
  };
}

function tableCtx() {
  return {
    me: app.me,
    catalog: app.catalog,
    render,
    table, // (the newest data of a table: messages replace it)
    request: (msg) => app.link.request(msg),
    toast,
    lobby: () => show("lobby"),
    leave,
    fourColour: document.body.classList.contains("four-colour"),
    alert: alertOn(),
    toggleAlert: () => {
      setAlert(!alertOn());
      render();
    },
    toggleColours,
    openChat: (id) => {
      const t = table(id);
      t.chatOpen = !t.chatOpen;
      t.chatSeen = t.chat.length;
      keepLog(id, t);
      render();
      if (t.chatOpen) document.getElementById("chat-text")?.focus();
    },
    invite: (id) => inviteEl(app.catalog.join, id),
  };
}

/** Follow the lobby while it is on the screen: the server answers with the tables and then
 * pushes them as they change (`watch_lobby`, `lobby_update`); leaving it says so
 * (`unwatch_lobby`). Offline, nothing is asked: the next login shows the screen again. */
async function followLobby(on) {
  if (!app.link.online || (!on && !app.followsLobby)) return;
  app.followsLobby = on;
  try {
    const answer = await app.link.request({ type: on ? "watch_lobby" : "unwatch_lobby" });
    if (on) setTables(answer.tables);
  } catch {
    // the connection dropped: the next login follows again
  }
}

function setTables(tables) {
  const changed = JSON.stringify(tables) !== JSON.stringify(app.tables);
  app.tables = tables;
  if (changed && app.screen === "lobby") render();
}

function nameScreen() {
  // (no maxlength: it counts UTF-16 units, and would cut a name of emoji the rule allows)
  const typed = app.typed ?? store.get("profile", null)?.name ?? "";
  const name = h("input", { id: "name", name: "name", autocomplete: "nickname", required: true, value: typed, placeholder: "Your name", "aria-describedby": "name-rule" });
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password", placeholder: "Empty: play as a guest" });
  const refusal = h("p", { class: "refusal", role: "alert", id: "name-refusal" });
  const serverPassword = app.askServerPassword
    ? h("input", { id: "server-password", type: "password", autocomplete: "off", required: true, placeholder: "Ask the host" })
    : null;
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
    if (serverPassword) {
      store.set("serverPassword", serverPassword.value);
      app.askServerPassword = false;
    }
    // The same name with no password typed, after a refusal of the server password only: the
    // login token this device holds (a guest stays the same guest, an account needs no password).
    const kept = store.get("profile", null);
    const again = kept?.token && !password.value && kept.name === checked.name;
    const profile = again ? kept : password.value ? { name: checked.name, password: password.value } : { name: checked.name, guest: true };
    app.link.start(withServerPassword(profile));
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
    serverPassword ? h("label", { for: "server-password" }, "The server's password") : null,
    serverPassword,
    h("button", { type: "submit", class: "primary", id: "enter" }, "Enter"),
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
    toast(err.error ? refusalText(err.error) : err.message);
  }
}

/** The page was opened by a table's invitation link: sit down there if a seat is free, else
 * watch it; a seat this browser holds there is simply opened. */
async function followInvitation() {
  const id = app.invited;
  app.invited = null;
  history.replaceState(null, "", location.pathname);
  if (String(id) in store.get("seats", {}) || (app.at.has(id) && app.at.get(id).watching)) {
    openTable(id);
    return;
  }
  try {
    const joined = await app.link.request({ type: "join", table: id });
    keepSeat(joined.table, joined.token);
    table(joined.table).seat = joined.seat;
    openTable(joined.table);
  } catch (err) {
    if (err instanceof Refused && ["TABLE_FULL", "ALREADY_STARTED"].includes(err.code)) await watch(id);
    else toast(err.error ? refusalText(err.error) : err.message);
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
      toast(err.error ? refusalText(err.error) : err.message);
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
    toast(err.error ? refusalText(err.error) : err.message);
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
      toast(err.error ? refusalText(err.error) : err.message); // e.g. a seat cannot be given up while its game runs
      return;
    }
  }
  forgetSeat(id);
  if (store.get("watching", null) === id) store.set("watching", null);
  app.at.delete(id);
  setCurrent(null);
  show("lobby");
}

// ------------------------------------------------------------------ keyboard and settings

// On a desktop: the arrow keys move between one's cards, Space or Enter on a card selects it,
// Enter elsewhere plays the selection, Escape clears it (or the question before a pick-up), P
// asks to pick up the pile (and P again, or Enter on the question, does it).
document.addEventListener("keydown", (event) => {
  if (app.screen !== "table" || event.target.closest("input, select, textarea")) return;
  const t = app.at.get(app.current);
  if (!t) return;
  const key = event.key;
  if (key === "ArrowLeft" || key === "ArrowRight") {
    const cards = [...document.querySelectorAll(".mine button.card")];
    if (!cards.length) return;
    const at = cards.indexOf(document.activeElement);
    const next = at < 0 ? 0 : (at + (key === "ArrowRight" ? 1 : -1) + cards.length) % cards.length;
    cards[next].focus();
  } else if (key === "Escape" && (t.selected.length || t.confirmTake)) {
    t.selected = [];
    t.confirmTake = null;
    render();
  } else if (key === "Enter" && document.getElementById("play") && !event.target.closest("button")) {
    document.getElementById("play").click();
  } else if (key.toLowerCase() === "p" && !event.ctrlKey && !event.metaKey && !event.altKey) {
    (document.getElementById("take-confirm") ?? document.querySelector('[data-action^="take"]'))?.click();
  } else return;
  event.preventDefault();
});

window.addEventListener("resize", () => fitHand(root()));
document.getElementById("logout").addEventListener("click", askLogout);

function toggleColours() {
  const on = !document.body.classList.contains("four-colour");
  document.body.classList.toggle("four-colour", on);
  document.getElementById("colours").setAttribute("aria-pressed", String(on));
  store.set("fourColour", on);
  if (app.screen === "table") render();
}

document.getElementById("colours").addEventListener("click", toggleColours);

main();
