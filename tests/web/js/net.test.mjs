// Unit tests of the page's Link (client/web/js/net.js) against a scripted server behind a fake
// WebSocket: how it logs in (a login token once it has one, never the password again), what it
// does with a refused login, and logout. `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import { Link } from "../../../client/web/js/net.js";

/** A WebSocket whose other end is `FakeSocket.server(msg, socket)`, which answers with socket.reply(msg). */
class FakeSocket {
  static OPEN = 1;
  static server = null;
  static opened = [];

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.opened.push(this);
    queueMicrotask(() => {
      this.readyState = FakeSocket.OPEN;
      this.onopen?.();
    });
  }

  send(text) {
    const msg = JSON.parse(text);
    this.sent.push(msg);
    queueMicrotask(() => FakeSocket.server(msg, this));
  }

  reply(msg) {
    if (this.readyState === FakeSocket.OPEN) this.onmessage({ data: JSON.stringify(msg) });
  }

  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    queueMicrotask(() => this.onclose?.());
  }
}
globalThis.WebSocket = FakeSocket;

/** The messages of type `type` sent on every connection so far. */
function sent(type) {
  return FakeSocket.opened.flatMap((s) => s.sent).filter((m) => m.type === type);
}

/** A Link whose handlers resolve promises: ready() (next logged_in), failed() (next refusal). */
function link(extra = {}) {
  const waiting = { ready: [], failed: [] };
  const next = (kind) => new Promise((resolve) => waiting[kind].push(resolve));
  const l = new Link("ws://test/ws", {
    onReady: (loggedIn) => waiting.ready.shift()?.(loggedIn),
    onMessage: () => {},
    onStatus: () => {},
    onLoginFailed: (err) => waiting.failed.shift()?.(err),
    ...extra,
  });
  return { l, ready: () => next("ready"), failed: () => next("failed") };
}

const TOKEN = "login-token-1";

/** A server: welcome; login with the password or the live token -> logged_in with the token
 * (a viewer: a name of the server's, no token); `refuse(login)` may return an error to send
 * instead; logout ends the token, then closes. */
function serve({ refuse = () => null } = {}) {
  const live = new Set([TOKEN]);
  FakeSocket.opened = [];
  FakeSocket.server = (msg, socket) => {
    if (msg.type === "hello") socket.reply({ type: "welcome", id: msg.id });
    else if (msg.type === "login") {
      const error = refuse(msg) ?? (msg.login_token && !live.has(msg.login_token) ? { code: "AUTH_FAILED", message: "ended" } : null);
      if (error) socket.reply({ type: "error", id: msg.id, ...error });
      else if (msg.viewer) socket.reply({ type: "logged_in", id: msg.id, name: `viewer-${sent("login").length}`, guest: false, bot: false, viewer: true });
      else socket.reply({ type: "logged_in", id: msg.id, name: msg.name, guest: !!msg.guest, bot: false, token: msg.login_token ?? TOKEN });
    } else if (msg.type === "logout") {
      live.delete(TOKEN);
      socket.reply({ type: "ok", id: msg.id });
      socket.close();
    }
  };
  return live;
}

test("the password is sent once; every later login is with the login token and a seat token", async () => {
  serve();
  const { l, ready } = link({ seatToken: () => "seat-7" });
  l.start({ name: "carol", password: "secret" });
  await ready();
  assert.deepEqual(l.profile, { name: "carol", guest: false, token: TOKEN, serverPassword: undefined });
  FakeSocket.opened.at(-1).close(); // the connection drops
  await ready();
  const [first, second] = sent("login");
  assert.equal(first.password, "secret");
  assert.equal(second.password, undefined);
  assert.equal(second.login_token, TOKEN);
  assert.equal(second.token, "seat-7");
  assert.equal(second.name, "carol");
  l.stop();
});

test("a viewer logs in as a viewer at every connection, with nothing else and nothing kept", async () => {
  serve();
  const { l, ready } = link();
  l.start({ name: "viewer", viewer: true });
  assert.equal((await ready()).name, "viewer-1");
  FakeSocket.opened.at(-1).close(); // the connection drops: a new viewer
  assert.equal((await ready()).name, "viewer-2");
  assert.deepEqual(sent("login").map(({ id, ...login }) => login), [
    { type: "login", name: "viewer", viewer: true },
    { type: "login", name: "viewer", viewer: true },
  ]);
  assert.deepEqual(l.profile, { name: "viewer", viewer: true });
  l.stop();
});

test("a refused token stops the Link and says so (no retrying in a loop)", async () => {
  serve();
  const { l, failed } = link();
  l.start({ name: "carol", token: "ended-token" });
  const err = await failed();
  assert.equal(err.code, "AUTH_FAILED");
  assert.equal(l.stopped, true);
  assert.equal(sent("login").length, 1);
});

test("NAME_TAKEN and BAD_NAME go to the player, with the suggestion", async () => {
  serve({ refuse: (login) => (login.name === "Dana" ? { code: "NAME_TAKEN", message: "taken", suggestion: "Dana 2" } : { code: "BAD_NAME", message: "no" }) });
  const { l, failed } = link();
  l.start({ name: "Dana", guest: true });
  const taken = await failed();
  assert.equal(taken.code, "NAME_TAKEN");
  assert.equal(taken.error.suggestion, "Dana 2");
  l.start({ name: "<b>", guest: true });
  assert.equal((await failed()).code, "BAD_NAME");
});

test("a token login delayed by the failed-login throttle is tried again, not given up", async () => {
  let delayed = 1;
  serve({ refuse: () => (delayed-- > 0 ? { code: "LOGIN_THROTTLED", message: "wait", retry_after: 0.01 } : null) });
  const { l, ready } = link();
  l.start({ name: "carol", token: TOKEN });
  await ready();
  assert.equal(sent("login").length, 2);
  l.stop();
});

test("logout ends the token on the server and the Link does not come back", async (t) => {
  const live = serve();
  const { l, ready } = link();
  l.start({ name: "carol", token: TOKEN });
  await ready();
  t.mock.timers.enable({ apis: ["setTimeout"] });
  assert.equal(await l.logout(), true);
  assert.equal(live.has(TOKEN), false);
  assert.equal(l.profile, null);
  await new Promise((resolve) => setImmediate(resolve)); // the close has been seen
  assert.equal(l.ws, null);
  t.mock.timers.tick(60_000); // any reconnection would have been due by now
  assert.equal(FakeSocket.opened.length, 1);
});
