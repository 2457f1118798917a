// Plain words for what the rules allow: why a selection of cards cannot be played (worked out
// on the page from the view's complete list of legal actions, so that Play is disabled with the
// reason before anything is sent), and a refusal from the server as a sentence (the engine's
// reason codes mapped to words; never a code such as "(DOES_NOT_BEAT)" or a rule number such
// as "(C12)"). Pure: no DOM, so that `node --test` runs it (tests/web/js/reasons.test.mjs).

import { card, parseAction, toBeat } from "./cards.js";

/** The engine's reasons (docs/PROTOCOL.md, "Cards and actions") in words. */
export const REASONS = {
  MALFORMED_ACTION: "The page sent something the server could not read. Try again.",
  GAME_OVER: "The game is over.",
  WRONG_PHASE: "That belongs to another part of the game.",
  NOT_YOUR_TURN: "It is not your turn.",
  ALREADY_READY: "You are ready: wait for the others.",
  SETUP_INCOMPLETE: "Put a card on each of your face-up places first.",
  CARD_NOT_HELD: "You do not hold that card.",
  WRONG_SOURCE: "Not from there: play your hand first, then your face-up cards, then the face-down ones.",
  MIXED_RANKS: "Cards played together must be of one rank.",
  DOES_NOT_BEAT: "That does not beat the pile.",
  TOO_FEW_CARDS: "Play at least as many cards as the last play.",
  MUST_PLAY_ANNOUNCED: "Your play must include the card you announced.",
  STACK_SPLIT: "A face-up stack is played whole.",
  NOT_A_RUN: "A run is two or more cards in a row of one suit.",
  HAND_TOO_LARGE: "Too many cards in your hand for that now.",
  MUST_PLAY: "You can play, so you may not pick up the pile.",
  EMPTY_PILE: "The pile is empty: there is nothing to pick up.",
  BAD_POSITION: "There is no card there.",
  STOCK_EMPTY: "The stock is empty.",
  OPTION_OFF: "This table's rules do not allow that.",
  NOT_ALLOWED: "That is not allowed now.",
};

/** Other refusals of a request, by error code, where the server's message is not for people. */
const CODES = {
  STALE_SEQ: "The table changed meanwhile: look again and choose.",
  NOT_ENOUGH_PLAYERS: "Every seat must be taken before the game can start.",
  ALREADY_STARTED: "The game has started: seats cannot change now.",
  NOT_OWNER: "Only the table's owner can do that.",
  NOT_A_BOT: "There is no bot in that seat any more.",
  INTERNAL_ERROR: "Something went wrong on the server. Try again.",
  STORAGE_FAILED: "The server cannot save right now; play goes on by itself in a moment.",
};

/** A refusal (an `error` message: {code, reason, message}) as one sentence for people. */
export function refusalText(error) {
  if (error.code === "ILLEGAL_ACTION") return REASONS[error.reason] ?? REASONS.NOT_ALLOWED;
  if (error.code in CODES) return CODES[error.code];
  return plain(error.message ?? "Refused.");
}

/** A server message without its codes: "(C12)", "(DOES_NOT_BEAT)", "option_name=3". */
export function plain(message) {
  const text = message
    .replace(/\s*\([A-Z][A-Z0-9_]*\)/g, "")
    .replace(/\s*\(C\d+\)/g, "")
    .trim();
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function rankWord(text) {
  const r = card(text).rank;
  return r === "Jo" ? "a joker" : `${r === "A" || r === "8" ? "an" : "a"} ${r}`;
}

/**
 * Why the selected cards cannot be played now, in words, or null when they can (or nothing is
 * selected). `selected` is [{from: "hand" | "up", card}], `view` the seat's view.
 */
export function selectionProblem(view, selected) {
  if (!selected.length) return null;
  const cards = selected.map((s) => s.card);
  const legal = view.legal ?? [];
  const plays = legal.filter((a) => /^(play|run|announce) /.test(a)).map((a) => parseAction(a).args);
  const same = (args) => args.length === cards.length && cards.every((c) => args.includes(c));
  if (plays.some(same)) return null;
  if (!legal.length) return "Wait for your turn.";
  if (view.phase === "setup") return "In the setup, tap a hand card and then a face-up card to swap them.";
  const fromUp = selected.some((s) => s.from === "up");
  const fromHand = selected.some((s) => s.from === "hand");
  if (fromUp && fromHand) return "Play from your hand or from the table, not both at once.";
  if (fromUp && (view.hand ?? []).length) return "Play your hand first: the face-up cards come after it.";
  const ranks = new Set(cards.map((c) => c[0]));
  if (ranks.size > 1) return "Cards played together must be of one rank.";
  if (view.must_play && !cards.includes(view.must_play)) return `Your play must include ${card(view.must_play).label}.`;
  const withRank = plays.filter((args) => args.every((c) => c[0] === cards[0][0]));
  if (!withRank.length) {
    const what = toBeat(view.to_beat);
    return `${rankWord(cards[0])[0].toUpperCase()}${rankWord(cards[0]).slice(1)} does not beat the pile: ${what}.`;
  }
  const counts = [...new Set(withRank.map((args) => args.length))].sort((a, b) => a - b);
  if (counts.every((n) => n > cards.length)) return `Play at least ${counts[0]} of them together.`;
  return "Not these cards together: choose again.";
}
