// The connection of the read-only pages (the replay viewer, the ladder, a bot's page, a
// tournament's page, the TV: issue 34). No login is asked of the reader: the page logs in as a
// viewer (docs/PROTOCOL.md, "Viewers"), which a server admits even when it refuses guests. The
// server names the viewer and gives it no token, so nothing is kept in the browser and nothing
// can collide: a reload or a reconnect is a new viewer. A viewer only reads (get_replay, ladder,
// ladder_games, get_tournament, list_tournaments, watch, watch_lobby...): it holds no seat, and
// a table it watches sends it what every spectator gets, no hand.

import { Link, serverUrl, wakeOnReturn } from "./net.js";

/**
 * Connect and log in as a viewer. `onReady(loggedIn)` after every (re)connection,
 * `onMessage(msg)` with each pushed message, `onStatus(text)` with the connection's state (""
 * when online; the page's #status shows it too), `onRefused(text)` when the server does not let
 * a viewer in (a server password this device has not been given: the game page asks for it and
 * keeps it, see app.js). Returns the Link, whose request() the page uses.
 */
export function openViewer({ onReady, onStatus = () => {}, onRefused = () => {}, onMessage = () => {} }) {
  const link = new Link(serverUrl(), {
    onReady,
    onMessage,
    onStatus: (text) => {
      const el = document.getElementById("status");
      if (el) {
        el.textContent = text;
        el.hidden = !text;
      }
      onStatus(text);
    },
    onLoginFailed: (err) =>
      onRefused(
        err.code === "SERVER_PASSWORD_REQUIRED" || (err.code === "AUTH_FAILED" && err.error.reason === "SERVER_PASSWORD")
          ? "This server has a password: enter it once on this device on the game page (/), then come back."
          : `This server does not let the page in: ${err.message}`,
      ),
  });
  wakeOnReturn(link);
  const profile = { name: "viewer", viewer: true }; // (the name is the server's to give)
  const kept = serverPassword();
  link.start(kept ? { ...profile, serverPassword: kept } : profile);
  return link;
}

/** The server password the game page was given on this device (app.js keeps it), or null. */
function serverPassword() {
  try {
    return JSON.parse(localStorage.getItem("shithead.serverPassword"));
  } catch {
    return null;
  }
}
