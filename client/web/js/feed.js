// The feed of what happened at a table: the state's events (docs/PROTOCOL.md, "Events") made
// into lines people read, one line per action (a play with its burn, its draw and its "out"; a
// clock that ran out with the action played for the seat; a blind flip with what became of it),
// in the second person for the reader's own seat ("You played 7♥, drew 1"). Pure: no DOM, so
// that `node --test` runs it (tests/web/js/feed.test.mjs). The pages show the lines newest first.

import { ordinal, short, shortList } from "./cards.js";

/** How many lines a page keeps per table. */
export const FEED_LINES = 60;

// Events that continue the line of the action before them when they are about the same seat.
const FOLLOWERS = new Set(["drew", "burned", "out", "reversed", "took", "played"]);

/** The predicate of one event: [third person, second person] (the subject goes before it). */
function predicate(e, name) {
  switch (e.kind) {
    case "swapped":
      return same(`swapped ${short(e.to_hand)} for ${short(e.to_face_up)}`);
    case "placed":
      return same(`placed ${short(e.card)} face up`);
    case "ready":
      return be("ready");
    case "drew":
      return same(`drew ${e.count}`);
    case "announced":
      return same(`announced ${short(e.card)}`);
    case "passed":
      return same("announced nothing");
    case "first_player": {
      const card = e.card ? ` (${short(e.card)})` : "";
      return [`starts${card}`, `start${card}`];
    }
    case "played": {
      const from = { face_up: " from the table", face_down: " blind", stock: " from the stock" }[e.source] ?? "";
      return same(`played ${shortList(e.cards)}${from}`);
    }
    case "flipped":
      return same(`turned over ${short(e.card)}`);
    case "gambled":
      return same(`turned over ${short(e.card)} from the stock`);
    case "burned":
      return same(`burned the pile (${e.count} cards)`);
    case "took":
      return same(`picked up the pile (${e.cards.length} card${e.cards.length === 1 ? "" : "s"})`);
    case "reversed":
      return same("reversed the direction");
    case "skipped":
      return be("skipped");
    case "out":
      return be(`out, ${ordinal(e.place)}`);
    case "timeout":
      return same("ran out of time");
    case "back":
      return be("back");
    default:
      return same(e.kind);
  }
  function same(text) {
    return [text, text];
  }
  function be(what) {
    return [`is ${what}`, `are ${what}`];
  }
}

/**
 * The feed lines of `events`, in the order they happened: [{seat, you, kind, text}].
 * `name(seat)` gives a seat's player, `me` the reader's seat (null: a spectator).
 */
export function feedLines(events, name, me = null) {
  const lines = [];
  let open = null; // the line that following events of the same seat extend
  for (const e of events) {
    if (e.kind === "game_start") {
      lines.push({ seat: null, you: false, kind: e.kind, text: `Game ${e.number ?? ""} begins: ${e.dealer === me ? "you deal" : `${name(e.dealer)} deals`}`.replace("  ", " ") });
      open = null;
      continue;
    }
    if (e.kind === "game_over") {
      const loser = e.loser === me ? "you are" : `${name(e.loser)} is`;
      lines.push({ seat: e.loser, you: e.loser === me, kind: e.kind, text: `Game over: ${loser} the shithead${e.capped ? " (move limit reached)" : ""}` });
      open = null;
      continue;
    }
    const you = e.seat === me && me !== null;
    const [other, second] = predicate(e, name);
    const part = you ? second : other;
    if (open && open.seat === e.seat && FOLLOWERS.has(e.kind) && !open.closed) {
      if (open.kind === "flipped" && e.kind === "played") {
        open.parts[open.parts.length - 1] = part; // "turned over 6♦" + "played 6♦ blind": the play says it all
      } else {
        open.parts.push(part);
      }
      open.text = render(open);
      continue;
    }
    open = { seat: e.seat, you, kind: e.kind, subject: you ? "You" : name(e.seat), parts: [part], closed: false };
    open.text = render(open);
    lines.push(open);
    if (!["timeout", "played", "flipped", "gambled", "took", "announced"].includes(e.kind)) open.closed = true;
  }
  return lines.map(({ seat, you, kind, text }) => ({ seat, you, kind, text }));
}

function render(line) {
  if (line.kind === "timeout" && line.parts.length > 1) {
    const [first, ...rest] = line.parts;
    return `${line.subject} ${first}: ${rest.join(", ")}`;
  }
  return `${line.subject} ${line.parts.join(", ")}`;
}

/**
 * `feed` (oldest first) with the lines of one state's events added, at most FEED_LINES kept.
 * Each line gets a number `n`, counting up, so that a page can mark those since a moment.
 */
export function addToFeed(feed, events, name, me = null) {
  let n = feed.length ? feed[feed.length - 1].n : 0;
  const added = feedLines(events, name, me).map((line) => ({ ...line, n: ++n }));
  return [...feed, ...added].slice(-FEED_LINES);
}
