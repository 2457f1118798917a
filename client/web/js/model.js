// A table as the player's page knows it, and what each message the server pushes does to it:
// `reduceTable(t, msg, now)` returns the new table and never changes the one it is given (like
// client/cli/model.py for the terminal). Pure: no DOM, no storage, no clock of its own (`now` is
// passed in), so that `node --test` runs it (tests/web/js/model.test.mjs). app.js keeps the
// tables, stores what survives a reload and draws the screen from them.

import { FEED_LINES, addToFeed } from "./feed.js";

/** How many chat lines a table keeps. */
export const CHAT_LINES = 80;

/** A table the page has just heard of; `kept` is what a reload of the tab kept (feed, chat,
 * chatSeen, lastActed). */
export function newTable(kept = {}) {
  return {
    summary: null,
    state: null,
    receivedAt: 0, // when the state came (ms, the clock `now` is read from): clocks count from it
    seat: null,
    feed: [],
    chat: [],
    chatSeen: 0, // chat lines read: the rest make the badge
    chatOpen: false,
    lastActed: 0, // the feed number of the reader's own last line: those after it are new
    ...kept,
    over: null, // the game_over message of the game on screen
    selected: [], // [{from: "hand" | "up", card}]
    refusal: "",
    confirmTake: null, // the pick-up being asked about
    watching: false,
    yourTurn: false, // the state just made it the reader's turn (the page says so aloud)
  };
}

/** What the page keeps of a table over a reload of the tab. */
export function keptOf(t) {
  const { feed, chat, chatSeen, lastActed } = t;
  return { feed, chat, chatSeen, lastActed };
}

/** The table after the pushed message `msg` (state, table_update, game_over, chat_message,
 * presence); other messages leave it as it is. */
export function reduceTable(t, msg, now) {
  switch (msg.type) {
    case "state":
      return withState(t, msg, now);
    case "table_update":
      return withAway({ ...t, summary: msg.summary });
    case "game_over":
      return { ...t, over: msg };
    case "chat_message": {
      const chat = [...t.chat, `${msg.name}: ${msg.text}`];
      const cut = Math.max(0, chat.length - CHAT_LINES);
      const seen = t.chatOpen ? chat.length : t.chatSeen;
      return { ...t, chat: chat.slice(cut), chatSeen: Math.max(0, seen - cut) };
    }
    case "presence": {
      const words = { dropped: "lost the connection", returned: "is back", replaced: `is played by ${msg.bot ?? "a bot"}` };
      const n = (t.feed.at(-1)?.n ?? 0) + 1;
      const line = { seat: null, you: false, kind: "presence", text: `${msg.name} ${words[msg.event] ?? msg.event}`, n };
      return { ...t, feed: [...t.feed, line].slice(-FEED_LINES) };
    }
    default:
      return t;
  }
}

function withState(t, msg, now) {
  const view = msg.view;
  const name = (seat) => view.players[seat]?.name ?? `seat ${seat}`;
  const seat = view.seat;
  const feed = addToFeed(t.feed, msg.events, name, seat);
  const wasActing = Boolean(t.state?.view.legal.length);
  // The cards still selected are those still held where they were chosen from.
  const hand = new Set(view.hand ?? []);
  const up = new Set((view.players[seat]?.face_up ?? []).flat());
  const selected = t.selected.filter((s) => (s.from === "hand" ? hand : up).has(s.card));
  return withAway({
    ...t,
    over: t.state && t.state.game !== msg.game ? null : t.over,
    state: msg,
    receivedAt: now,
    seat,
    feed,
    lastActed: feed.findLast((line) => line.you)?.n ?? t.lastActed,
    selected,
    confirmTake: view.legal.includes(t.confirmTake) ? t.confirmTake : null,
    yourTurn: view.legal.length > 0 && !wasActing && view.phase !== "setup",
  });
}

/** Who is away follows the newest summary: after a restart every seat is away until its
 * player is back, and the summary says so before the next state does. */
function withAway(t) {
  const seats = t.summary?.seats;
  if (!seats || !t.state) return t;
  const players = t.state.view.players.map((p) => {
    const s = seats[p.seat];
    return s && s.name === p.name && s.away !== p.away ? { ...p, away: s.away } : p;
  });
  return { ...t, state: { ...t.state, view: { ...t.state.view, players } } };
}
