// The connection of the read-only pages (the replay viewer, the ladder, a bot's page, a
// tournament's page: issue 34). No login is asked of the reader: the page logs in as a guest of
// its own, "viewer-1234", and keeps that guest's login token (never a password) so that a
// reload or a second tab is the same guest again. The pages only send requests that read
// (get_replay, ladder, ladder_games, get_tournament, list_tournaments), which the protocol
// answers for anyone logged in; they hold no seat and see no card of a game in progress.

import { Link, serverUrl, wakeOnReturn } from "./net.js";

const LOGIN = "shithead.viewerLogin";

function profile() {
  try {
    const login = JSON.parse(localStorage.getItem(LOGIN));
    if (login?.name && login?.token) return login;
  } catch {
    // not JSON: a new guest below
  }
  return { name: `viewer-${Math.floor(Math.random() * 10000)}`, guest: true };
}

/**
 * Connect and log in; `onReady()` after every (re)connection, `onStatus(text)` with the
 * connection's state ("" when online), `onRefused(text)` when no login can work (a server
 * that admits no guests). Returns the Link, whose request() the page uses.
 */
export function openViewer({ onReady, onStatus = () => {}, onRefused = () => {}, onMessage = () => {} }) {
  const link = new Link(serverUrl(), {
    onReady: (loggedIn) => {
      localStorage.setItem(LOGIN, JSON.stringify({ name: loggedIn.name, guest: true, ...(loggedIn.token ? { token: loggedIn.token } : {}) }));
      onReady(loggedIn);
    },
    onMessage,
    onStatus: (text) => {
      const el = document.getElementById("status");
      if (el) {
        el.textContent = text;
        el.hidden = !text;
      }
      onStatus(text);
    },
    onLoginFailed: (err) => {
      const had = link.profile;
      if (err.code === "AUTH_FAILED" && had?.token) {
        localStorage.removeItem(LOGIN);
        link.start({ name: had.name, guest: true });
      } else if (err.code === "NAME_TAKEN" && err.error.suggestion) {
        localStorage.removeItem(LOGIN);
        link.start({ name: err.error.suggestion, guest: true });
      } else {
        onRefused(`This server does not let the page in: ${err.message}`);
      }
    },
  });
  wakeOnReturn(link);
  link.start(profile());
  return link;
}
