// The protocol over the server's WebSocket (docs/PROTOCOL.md, "WebSocket"): one JSON message per
// text frame, requests matched to their answers by id, pushed messages handed to a listener.
//
// A Link keeps its connection: when it drops (a locked phone, a server restart) it connects
// again with back-off, says hello, logs in again and tells its owner ("ready"), who resumes its
// seats. It logs in with the login token the server gave (logged_in.token) once it has one: a
// password is sent at one login, and forgotten when its token comes. Nothing here knows the game.

const PING_SECONDS = 60; // well inside the server's idle_timeout (300 s by default)
const REQUEST_SECONDS = 20;
const BACKOFF = [250, 500, 1000, 2000, 3000, 5000]; // ms between attempts, then the last again
// Refusals of a login that trying again cannot cure: the player must change something.
const LOGIN_REFUSALS = [
  "AUTH_FAILED",
  "SERVER_PASSWORD_REQUIRED",
  "GUESTS_NOT_ALLOWED",
  "LOGIN_THROTTLED",
  "BAD_NAME",
  "NAME_TAKEN",
  "BAD_MESSAGE",
];

/** A refusal from the server: the `error` message, thrown by Link.request. */
export class Refused extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.reason = error.reason;
    this.error = error;
  }
}

export class Link {
  /**
   * @param {string} url ws:// address of the server's /ws
   * @param {object} handlers onReady(loggedIn), onMessage(msg), onStatus(text), onLoginFailed(refused),
   *   and optionally seatToken(): a seat token this player holds, if any (sent with the login: a
   *   guest is then recognised as the guest who holds that seat)
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.profile = null;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.attempt = 0;
    this.online = false;
    this.stopped = false;
    this.timer = null;
    this.pinger = null;
    this.delay = 0; // ms the server asked to wait before the next login (LOGIN_THROTTLED)
  }

  /** Connect (again) and log in as `profile`: {name, token} (a login token), {name, password}
   * (an account), {name, guest: true}, or {name, viewer: true} (a viewer, which only reads: the
   * server names it and gives it no token); serverPassword? too. Once logged in, the Link's
   * profile is {name, guest, token} (the password is dropped) if the server gave a token. */
  start(profile) {
    this.profile = profile;
    this.stopped = false;
    this.attempt = 0;
    if (this.ws) this.ws.close();
    else this._connect();
  }

  /** The page is back (a phone unlocked, a tab shown again): a connection that died meanwhile
   * may not have said so yet. Reconnect at once if offline; if online, prove it with a ping. */
  async wake() {
    if (this.stopped || !this.profile) return; // (not started yet: nobody to log in)
    if (!this.ws) {
      this.attempt = 0;
      this._connect();
      return;
    }
    if (!this.online) return;
    const ws = this.ws;
    const answered = this.request({ type: "ping" }).then(() => true, () => false);
    const late = new Promise((resolve) => setTimeout(() => resolve(false), 5000));
    if (!(await Promise.race([answered, late])) && ws === this.ws) ws.close(); // onclose reconnects
  }

  /** Close for good. */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }

  /** Log out: the server ends this login's token (answers ok, then closes), and the Link stops
   * for good. Resolves to whether the server was told (false when offline). */
  async logout() {
    this.stopped = true; // the server closes after its ok: no reconnecting
    clearTimeout(this.timer);
    let told = false;
    try {
      if (this.online) {
        await this.request({ type: "logout" });
        told = true;
      }
    } catch {
      // offline, or refused: the page forgets the token all the same
    }
    this.profile = null;
    if (this.ws) this.ws.close();
    return told;
  }

  _connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.handlers.onStatus(this.attempt ? "reconnecting…" : "connecting…");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => this._handshake(ws);
    ws.onmessage = (event) => this._received(JSON.parse(event.data));
    ws.onclose = () => this._closed(ws);
  }

  async _handshake(ws) {
    try {
      await this.request({ type: "hello", version: 1, client: "shithead-web 1" });
      const p = this.profile;
      const login = { name: p.name };
      if (p.viewer) login.viewer = true;
      else if (p.token) login.login_token = p.token;
      else if (p.password) login.password = p.password;
      else login.guest = true;
      const seat = this.handlers.seatToken?.();
      if (seat) login.token = seat;
      if (p.serverPassword) login.server_password = p.serverPassword;
      const loggedIn = await this.request({ type: "login", ...login });
      if (ws !== this.ws) return;
      if (loggedIn.token) {
        // From now on the token logs in (the password is forgotten).
        this.profile = { name: loggedIn.name, guest: loggedIn.guest, token: loggedIn.token, serverPassword: p.serverPassword };
      }
      this.online = true;
      this.attempt = 0;
      this.handlers.onStatus("");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_SECONDS * 1000);
      this.handlers.onReady(loggedIn);
    } catch (err) {
      if (err instanceof Refused && err.code === "LOGIN_THROTTLED" && this.profile?.token) {
        // Failed logins to this name (a stranger's guesses) delay every login to it, a token's
        // too; the token is still good: log in again once the delay has passed.
        this.delay = (err.error.retry_after ?? 1) * 1000;
        ws.close();
      } else if (err instanceof Refused && LOGIN_REFUSALS.includes(err.code)) {
        this.stopped = true; // a login that cannot work: ask the player, do not retry
        this.handlers.onStatus("");
        this.handlers.onLoginFailed(err);
        ws.close();
      }
      // otherwise the connection dropped: _closed retries
    }
  }

  _closed(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.online = false;
    clearInterval(this.pinger);
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error("connection lost"));
    }
    this.pending.clear();
    if (this.stopped) return;
    this.handlers.onStatus(this.delay ? "login delayed by the server: retrying…" : "offline: reconnecting…");
    const delay = Math.max(BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)], this.delay);
    this.delay = 0;
    this.attempt += 1;
    this.timer = setTimeout(() => this._connect(), delay);
  }

  _received(msg) {
    const waiting = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (waiting) {
      this.pending.delete(msg.id);
      clearTimeout(waiting.timer);
      if (msg.type === "error") waiting.reject(new Refused(msg));
      else waiting.resolve(msg);
      return;
    }
    this.handlers.onMessage(msg);
  }

  /** Send without waiting for the answer (it arrives as a pushed message, if any). */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify({ id: this.nextId++, ...msg }));
    return true;
  }

  /** Send and wait for the answer; rejects with Refused for an `error`. */
  request(msg) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected"));
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${msg.type}`));
      }, REQUEST_SECONDS * 1000);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ ...msg, id }));
    });
  }
}

/** Call `link.wake()` whenever the page becomes visible again or the device goes online. */
export function wakeOnReturn(link) {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") link.wake();
  });
  window.addEventListener("online", () => link.wake());
  window.addEventListener("pageshow", () => link.wake());
}

/** The WebSocket address of the server that served this page. */
export function serverUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

/**
 * The server's catalog.json ({presets, bots, join}): what this server offers and the address a
 * phone opens. Resolves to null, never rejects, when it cannot be had (no answer, not 200, not
 * JSON): the page then keeps its defaults.
 */
export async function loadCatalog() {
  try {
    const res = await fetch("catalog.json", { cache: "no-store" });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}
