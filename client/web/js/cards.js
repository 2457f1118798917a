// Cards, actions and events as people read them: rank and suit symbols (readable without
// colour), the pile's rule in words, one line per event. Pure functions over the protocol's
// texts (docs/PROTOCOL.md, "Cards and actions" and "Events"); the DOM is built in ui.js.

const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A", X: "Jo" }; // Jo: a joker
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠", r: "", b: "" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades", r: "red", b: "black" };

/** {rank, suit, suitLetter, label} of a card text such as "Td" or "Xr". */
export function card(text) {
  const r = text[0];
  const s = text[1];
  const rank = RANKS[r] ?? r;
  const suit = SUITS[s] ?? "";
  const label = r === "X" ? `${SUIT_NAMES[s]} joker` : `${rank} of ${SUIT_NAMES[s]}`;
  return { text, rank, suit, suitLetter: s, label };
}

/** A card in one line of text: "10♦". */
export function short(text) {
  const c = card(text);
  return c.rank + c.suit;
}

export function shortList(cards) {
  return cards.map(short).join(" ");
}

/** What the next play must beat, in words. */
export function toBeat(tb) {
  if (!tb || tb.rule === "any") return "anything goes";
  const rank = RANKS[tb.rank] ?? tb.rank;
  const also = tb.also && tb.also.length ? ` (or ${tb.also.map((r) => RANKS[r] ?? r).join(", ")})` : "";
  const words = { at_least: `${rank} or higher`, at_most: `${rank} or lower${also}`, below: `below ${rank}${also}` };
  const more = tb.min_cards > 1 ? `, at least ${tb.min_cards} cards` : "";
  return (words[tb.rule] ?? tb.rule) + more;
}

/** The verb and the cards of an action text: "play 7h 7d" -> {verb: "play", cards: ["7h", "7d"]}. */
export function parseAction(text) {
  const [verb, ...rest] = text.split(" ");
  return { verb, args: rest };
}

/** The button label of an action without cards. */
export const ACTION_LABELS = {
  take: "Pick up the pile",
  draw: "Draw a card",
  gamble: "Gamble on the stock",
  ready: "Ready",
  pass: "Announce nothing",
};

/** One line of history for an event; `name(seat)` gives a seat's player. */
export function eventText(e, name) {
  const who = e.seat === null || e.seat === undefined ? "" : name(e.seat);
  switch (e.kind) {
    case "game_start":
      return `Game ${e.number ?? ""} begins (${name(e.dealer)} deals)`;
    case "swapped":
      return `${who} swapped ${short(e.to_hand)} for ${short(e.to_face_up)}`;
    case "placed":
      return `${who} placed ${short(e.card)}`;
    case "ready":
      return `${who} is ready`;
    case "drew":
      return `${who} drew ${e.count}`;
    case "announced":
      return `${who} announced ${short(e.card)}`;
    case "passed":
      return `${who} announced nothing`;
    case "first_player":
      return `${who} starts${e.card ? ` (${short(e.card)})` : ""}`;
    case "played": {
      const from = { face_up: " from the table", face_down: " blind", stock: " from the stock" }[e.source] ?? "";
      return `${who} played ${shortList(e.cards)}${from}`;
    }
    case "flipped":
      return `${who} turned over ${short(e.card)}`;
    case "gambled":
      return `${who} turned over ${short(e.card)} from the stock`;
    case "burned":
      return `${who} burned the pile (${e.count} cards)`;
    case "took":
      return `${who} picked up ${e.cards.length} card${e.cards.length === 1 ? "" : "s"}`;
    case "reversed":
      return `${who} reversed the direction`;
    case "skipped":
      return `${who} is skipped`;
    case "out":
      return `${who} is out, ${ordinal(e.place)}`;
    case "game_over":
      return `Game over: ${name(e.loser)} is the shithead${e.capped ? " (move limit)" : ""}`;
    case "timeout":
      return `${who} ran out of time: ${e.action}`;
    case "back":
      return `${who} is back`;
    default:
      return `${who} ${e.kind}`;
  }
}

export function ordinal(n) {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** Seconds as "0:42". */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
