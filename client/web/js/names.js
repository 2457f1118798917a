// Player names: the rule of protocol/names.py, checked on the page before a name is sent, with
// the server's own words. The server checks again (BAD_NAME); this only spares a round trip and
// says the rule up front. Pure: no DOM, so that `node --test` runs it (tests/web/js/).
//
// A name is taken in Unicode NFC with white space trimmed and every inner run made one space;
// it then has 1..24 characters (code points, not UTF-16 units: an emoji counts one); each is a
// letter, a digit, a space, an apostrophe (' or ’), a hyphen, an underscore, a full stop or an
// emoji (with skin tones, variation selectors and combining marks after a base); a zero-width
// joiner only between two emoji.

export const MAX_NAME = 24;

/** The rule in one line, as the page shows it under the name field (protocol/names.py NAME_RULE). */
export const NAME_RULE = `1 to ${MAX_NAME} characters: letters, digits, spaces, apostrophes, hyphens, underscores, full stops and emoji`;

// Python's str.isspace() characters (what `\s` matches in protocol/names.py), which are not quite
// JavaScript's \s (that one has U+FEFF, and lacks U+001C..U+001F and U+0085).
const SPACES = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;
const PUNCTUATION = new Set(["'", "’", "-", "_", ".", " "]);
const ZWJ = "\u200d";
const KEYCAP = "\u20e3";
const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;
const MARK = /^\p{M}$/u;
const OTHER = /^\p{C}$/u; // control, format, unassigned, private use, surrogate
const SYMBOL = /^\p{So}$/u;

/** `raw` as the server keeps and shows it: NFC, trimmed, inner white space one space. */
export function normalizeName(raw) {
  return raw.normalize("NFC").replace(SPACES, " ").replace(/^ | $/g, "");
}

function isEmoji(ch) {
  // Emoji are "other symbols" (So); the skin-tone modifiers U+1F3FB..U+1F3FF are modifier symbols.
  const cp = ch.codePointAt(0);
  return SYMBOL.test(ch) || (cp >= 0x1f3fb && cp <= 0x1f3ff);
}

/** Whether the zero-width joiner at chars[i] stands between two emoji (a variation selector
 * may come between the first emoji and the joiner). */
function joinsEmoji(chars, i) {
  let b = i;
  while (b > 0 && chars[b - 1] === "\ufe0f") b -= 1;
  return b > 0 && i + 1 < chars.length && isEmoji(chars[b - 1]) && isEmoji(chars[i + 1]);
}

function hex(ch) {
  return ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
}

/** Why `name` (already normalized) is not a valid name, in the server's words, or null when it is. */
export function nameError(name) {
  const chars = [...name]; // code points
  if (!chars.length) return "a name needs at least one character";
  if (chars.length > MAX_NAME) return `a name has at most ${MAX_NAME} characters (${chars.length} given)`;
  if (name !== normalizeName(name)) return "a name must not start or end with spaces";
  for (const [i, ch] of chars.entries()) {
    if (LETTER_OR_NUMBER.test(ch) || PUNCTUATION.has(ch) || isEmoji(ch)) continue;
    if (MARK.test(ch) || ch === KEYCAP) {
      if (i === 0) return "a name cannot start with a combining mark";
      continue;
    }
    if (ch === ZWJ && joinsEmoji(chars, i)) continue;
    const what = OTHER.test(ch) ? "a control or format character" : ch === "\\" ? "'\\\\'" : `'${ch}'`; // (Python's repr)
    return `a name cannot hold ${what} (U+${hex(ch)}); allowed: ${NAME_RULE}`;
  }
  return null;
}

/** The name to send for what was typed, or the reason it cannot be: {name} or {error}. */
export function checkName(raw) {
  const name = normalizeName(raw);
  const error = nameError(name);
  return error === null ? { name } : { name, error };
}
