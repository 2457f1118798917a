// Unit tests of ScreenAwake (client/web/js/wake.js) against a fake navigator.wakeLock and
// document: asked for once while wanted and visible, released when no longer wanted, asked for
// again when the page is shown after the browser dropped it, silent where the API is missing.

import assert from "node:assert/strict";
import test from "node:test";

import { ScreenAwake } from "../../../client/web/js/wake.js";

function fakes({ refuse = false } = {}) {
  const calls = [];
  const listeners = {};
  const doc = { visibilityState: "visible", addEventListener: (type, f) => (listeners[type] = f) };
  const nav = {
    wakeLock: {
      async request(kind) {
        calls.push(`request ${kind}`);
        if (refuse) throw new Error("NotAllowedError");
        const lock = {
          onrelease: null,
          addEventListener: (type, f) => (lock.onrelease = f),
          async release() {
            calls.push("release");
          },
        };
        return lock;
      },
    },
  };
  return { calls, doc, nav, show: (state) => ((doc.visibilityState = state), listeners.visibilitychange()) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("asked for once while wanted, released when the game is over", async () => {
  const f = fakes();
  const awake = new ScreenAwake(f.nav, f.doc);
  awake.want(true);
  awake.want(true); // (every redraw says so again)
  await settle();
  awake.want(true);
  await settle();
  assert.deepEqual(f.calls, ["request screen"]);
  awake.want(false);
  await settle();
  assert.deepEqual(f.calls, ["request screen", "release"]);
});

test("asked for again when the page is shown after the browser dropped it", async () => {
  const f = fakes();
  const awake = new ScreenAwake(f.nav, f.doc);
  awake.want(true);
  await settle();
  awake.lock.onrelease(); // the browser drops it: the page was hidden
  f.show("hidden");
  await settle();
  assert.deepEqual(f.calls, ["request screen"]); // (not while hidden)
  f.show("visible");
  await settle();
  assert.deepEqual(f.calls, ["request screen", "request screen"]);
});

test("a game that ends while the browser is asked releases the lock it then gets", async () => {
  const f = fakes();
  const awake = new ScreenAwake(f.nav, f.doc);
  awake.want(true);
  awake.want(false);
  await settle();
  assert.deepEqual(f.calls, ["request screen", "release"]);
  assert.equal(awake.lock, null);
});

test("no API, or a refusal: nothing thrown, nothing held", async () => {
  const missing = new ScreenAwake({}, { visibilityState: "visible", addEventListener() {} });
  missing.want(true);
  const f = fakes({ refuse: true });
  const refused = new ScreenAwake(f.nav, f.doc);
  refused.want(true);
  await settle();
  assert.equal(refused.lock, null);
  assert.deepEqual(f.calls, ["request screen"]);
});
