// Unit tests of the page's name rule (client/web/js/names.js): `node --test tests/web/js/`.
// tests/web/test_names_js.py runs them, and checks the same rule against protocol/names.py.

import assert from "node:assert/strict";
import test from "node:test";

import { MAX_NAME, NAME_RULE, checkName, nameError, normalizeName } from "../../../client/web/js/names.js";

test("the names people use are accepted as typed", () => {
  for (const name of ["Anna Maria", "Zoë", "Mum's phone", "Mum’s phone", "🦊 Fox", "José-Luis", "o.k_", "Ελένη", "李小龍", "नमस्ते"]) {
    assert.deepEqual(checkName(name), { name }, name);
  }
});

test("a name is taken in NFC, trimmed, with one space between words", () => {
  assert.equal(normalizeName("Zoe\u0308"), "Zoë");
  assert.equal(normalizeName("  Anna \t\n Maria  "), "Anna Maria");
  assert.equal(normalizeName("a\u00a0\u3000b"), "a b");
  assert.deepEqual(checkName("  Zoe\u0308 "), { name: "Zoë" });
});

test("emoji: one character each, with skin tones, variation selectors and joiners between emoji", () => {
  for (const name of ["👩‍👩‍👧", "👩🏽‍💻", "❤️‍🔥", "1️⃣ up", "🦊".repeat(MAX_NAME), "👍🏽".repeat(MAX_NAME / 2)]) {
    assert.equal(nameError(name), null, name);
  }
  assert.match(nameError("🦊".repeat(MAX_NAME + 1)), /at most 24 characters \(25 given\)/);
});

test("refusals say why", () => {
  assert.equal(nameError(""), "a name needs at least one character");
  assert.equal(checkName("   ").error, "a name needs at least one character");
  assert.match(nameError("x".repeat(25)), /at most 24/);
  assert.equal(nameError("\u0301a"), "a name cannot start with a combining mark");
  assert.equal(nameError("<b>"), `a name cannot hold '<' (U+003C); allowed: ${NAME_RULE}`);
  for (const name of ["a\u200bb", "a\u202eb", "a\u0000b", "\ufeffa", "a\u200db", "\u200d🦊", "🦊\u200d"]) {
    assert.match(nameError(name), /a control or format character/, JSON.stringify(name));
  }
  assert.match(nameError("a^b"), /'\^'/); // a modifier symbol that is not an emoji
  assert.equal(nameError(" a"), "a name must not start or end with spaces");
});

test("the rule as shown under the name field", () => {
  assert.equal(NAME_RULE, "1 to 24 characters: letters, digits, spaces, apostrophes, hyphens, underscores, full stops and emoji");
});
