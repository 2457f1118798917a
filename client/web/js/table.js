// The table on the player's page: the waiting room (seats, bots, Start, the last result with its
// final board) and the game (whose turn with the clock, the others' cards, the pile and what
// beats it, the feed of what happened, one's own cards and what one may do). It builds DOM from
// a table's data (`t`, kept by app.js) and reports taps through `ctx`; it keeps nothing itself.
//
// Layout (style.css): in play the screen is one grid that fits the viewport, so the pile, "to
// beat", the banner with its clock and the hand stay in view on a 360x640 phone, in landscape and
// at 200 % zoom; the feed takes what room is left and scrolls.

import { ACTION_LABELS, ordinal, parseAction, short, shortList } from "./cards.js";
import { refusalText, selectionProblem } from "./reasons.js";
import { removeBotButton, seatCount } from "./seating.js";
import { backEl, cardEl, clockEl, clocksOf, feedEl, h, pileEl, seatEl, tallyEl } from "./ui.js";

/**
 * The table screen. `ctx`: {me, catalog, render(), table(id) (the table's newest data),
 * request(msg) (a promise; rejects with Refused), toast(text), lobby(), leave(id),
 * openChat(id), invite(id), toggleColours(), fourColour, toggleAlert(), alert}. Taps change the table's own fields
 * (selected, refusal, confirmTake); what the server says goes through model.js.
 */
export function tableScreen(ctx, id, t) {
  const s = t.summary;
  const st = t.state;
  const owner = Boolean(s && ctx.me && s.owner === ctx.me.name);
  const playing = Boolean(st && st.view.phase !== "over");
  const unread = t.chat.length - (t.chatSeen ?? 0);
  const top = h(
    "header",
    { class: "table-head" },
    h("button", { class: "link back", type: "button", onclick: ctx.lobby, "aria-label": "Back to the lobby" }, "‹ Lobby"),
    h("h1", { class: "table-name", title: s ? s.name : "" }, s ? s.name : `Table ${id}`, st ? h("span", { class: "quiet" }, ` · game ${gameNumber(s, st)}`) : null),
    h(
      "button",
      { type: "button", id: "chat-toggle", class: "chat-toggle", "aria-expanded": String(Boolean(t.chatOpen)), onclick: () => ctx.openChat(id) },
      "Chat",
      unread > 0 && !t.chatOpen ? h("span", { class: "badge", id: "chat-badge", "aria-label": `${unread} unread` }, String(unread)) : null,
    ),
    h("button", { type: "button", id: "alert-toggle", class: "alert-toggle", "aria-pressed": String(ctx.alert), "aria-label": "Vibrate and beep on your turn", title: "Vibrate and beep on your turn", onclick: ctx.toggleAlert }, "♪"),
    h("button", { type: "button", class: "colours", "aria-pressed": String(ctx.fourColour), "aria-label": "Four-colour deck", title: "Four-colour deck", onclick: ctx.toggleColours }, "♣♦"),
    h("button", { class: "link", type: "button", onclick: () => ctx.leave(id) }, t.watching ? "Stop watching" : "Leave"),
  );
  const chat = t.chatOpen ? chatPanel(ctx, id, t) : null;
  if (!playing) return h("div", { class: "table-screen waiting-screen" }, top, chat, waitingRoom(ctx, id, t, owner));
  return h("div", { class: `table-screen playing ${t.seat === null ? "spectating" : ""}`.trim() }, top, chat, ...gameView(ctx, id, t));
}

function gameNumber(s, st) {
  return (s?.games_played ?? 0) + (st && st.view.phase !== "over" ? 1 : 0);
}

// ------------------------------------------------------------------ waiting room and game over

function waitingRoom(ctx, id, t, owner) {
  const s = t.summary;
  const seats = s?.seats ?? [];
  const seatRows = seats.map((seat, i) =>
    h(
      "li",
      { dataset: { seat: String(i) } },
      seat
        ? h("span", { class: "name", title: seat.name }, `${seat.name}${seat.bot ? " (bot)" : ""}${seat.away ? " (away)" : ""}${i === t.seat ? " (you)" : ""}`)
        : h("span", { class: "quiet" }, "free seat"),
      !seat && owner ? botPicker(ctx, id, i) : null,
      seat && seat.bot && owner && s.status === "waiting" ? removeBotButton(seat.name, i, (n) => act(ctx, { type: "remove_bot", table: id, seat: n })) : null,
    ),
  );
  const free = seats.filter((x) => !x).length;
  const why = !s ? "" : free ? `${free} seat${free === 1 ? " is" : "s are"} free: ${owner ? "add a bot or wait for players to join" : "waiting for players"}.` : "";
  const ownerName = s?.owner ?? "the owner";
  const over = t.state && t.state.view.phase === "over" ? t.state : null;
  return h(
    "div",
    { class: "waiting" },
    t.over || over ? gameOverEl(t) : null,
    over ? finalBoard(t) : null,
    owner
      ? h(
          "div",
          { class: "start-row" },
          h(
            "button",
            { class: "primary", id: "start", type: "button", disabled: !s || free > 0, "aria-describedby": "start-why", onclick: () => act(ctx, { type: "start", table: id }) },
            t.over || over ? "Deal the next game" : "Start the game",
          ),
          h("p", { class: "quiet", id: "start-why" }, why),
        )
      : h("p", { class: "quiet" }, why || `Waiting for ${ownerName} to ${t.over || over ? "deal the next game" : "start"}.`),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, s ? `${presetLabel(s.preset)}, ${seats.length} seats` : "Table"),
      owner && s && !s.games_played && !t.state ? seatCount(s, ctx.catalog, (n) => setSeats(ctx, id, n)) : null,
      h("ol", { class: "seats" }, seatRows),
    ),
    ctx.invite(id),
  );
}

/** "six_players" -> "Six players": a preset's name as a menu shows it. */
/** Overlap the rows of a hand that wraps into several rows (where the style gives its rows a
 * `--band`, at 200 % zoom) just enough that the last row ends inside the viewport: the space
 * above the hand varies with what the pile's facts say, so no fixed band fits every screen. A
 * row never shows less than MIN_BAND px of its cards (the rank). Call after the hand is drawn. */
export function fitHand(root) {
  const hand = root.querySelector(".hand.many");
  if (!hand) return;
  hand.style.removeProperty("--band");
  const cards = [...hand.querySelectorAll(".card")];
  const tops = [...new Set(cards.map((c) => c.getBoundingClientRect().top))].sort((a, b) => a - b);
  if (tops.length < 2) return;
  const band = (tops[tops.length - 1] - tops[0]) / (tops.length - 1);
  const bottom = cards[cards.length - 1].getBoundingClientRect().bottom + window.scrollY;
  const over = bottom + EDGE - document.documentElement.clientHeight;
  if (over > 0) hand.style.setProperty("--band", `${Math.max(MIN_BAND, band - over / (tops.length - 1))}px`);
}
const MIN_BAND = 16; // px
const EDGE = 2; // px kept between the last row and the bottom of the screen

export function presetLabel(name) {
  const words = String(name).replaceAll("_", " ");
  return words[0].toUpperCase() + words.slice(1);
}

function botPicker(ctx, id, seat) {
  // (an id, so that the choice survives the page being drawn again before the tap on "Add bot")
  const kind = h("select", { "aria-label": `Bot for seat ${seat + 1}`, class: "bot-kind", id: `bot-kind-${seat}` }, ctx.catalog.bots.map((b) => h("option", { value: b }, b)));
  return h("span", { class: "add-bot" }, kind, h("button", { type: "button", onclick: () => act(ctx, { type: "add_bot", table: id, bot: kind.value, seat }) }, "Add bot"));
}

/** Ask for `n` seats; refused, the menu goes back to the table's count (a redraw). */
async function setSeats(ctx, id, n) {
  try {
    await ctx.request({ type: "set_seats", table: id, seats: n });
  } catch (err) {
    ctx.toast(err.error ? refusalText(err.error) : err.message);
    ctx.render();
  }
}

async function act(ctx, msg) {
  try {
    await ctx.request(msg);
  } catch (err) {
    ctx.toast(err.error ? refusalText(err.error) : err.message);
  }
}

/** The result, in the second person for the reader: places, the shithead, the series so far. */
function gameOverEl(t) {
  const o = t.over;
  const result = o?.result ?? t.state?.view.result;
  if (!result) return null;
  const names = o?.result.players ?? t.state.view.players.map((p) => p.name);
  const you = (seat) => seat === t.seat;
  const loser = result.loser;
  const heading = you(loser) ? "Game over: you are the shithead" : `Game over: ${names[loser]} is the shithead`;
  return h(
    "section",
    { class: "panel game-over", role: "status", "aria-labelledby": "game-over-heading" },
    h("h2", { id: "game-over-heading" }, heading),
    h(
      "ol",
      { class: "places" },
      result.places.map((seat) => h("li", { class: seat === loser ? "loser" : "" }, you(seat) ? `${names[seat]} (you)` : names[seat])),
    ),
    o ? tallyEl(o.tally) : null,
    o?.game !== undefined ? h("p", { class: "replay-link" }, h("a", { href: `replay?game=${o.game}`, target: "_blank", rel: "noopener" }, "Replay this game"), " (every hand open)") : null,
  );
}

/** The last game's board as it ended: every seat's cards left, and the pile. */
function finalBoard(t) {
  const v = t.state.view;
  return h(
    "section",
    { class: "panel final-board", "aria-labelledby": "final-board-heading" },
    h("h2", { id: "final-board-heading" }, "How the game ended"),
    h("div", { class: "opponents board" }, v.players.map((p) => seatEl(p, { you: p.seat === t.seat }))),
    v.hand?.length ? h("p", { class: "left-in-hand" }, "Left in your hand: ", v.hand.map((c) => cardEl(c, { size: "small" }))) : null,
    pileEl(v),
  );
}

// ------------------------------------------------------------------ the game

/** Whose turn it is, with that seat's clock, as one line: the banner. */
function banner(t, clocks) {
  const v = t.state.view;
  const mine = t.seat;
  const acting = v.legal.length > 0;
  const name = (seat) => v.players[seat]?.name ?? `seat ${seat}`;
  let text;
  let seat = v.turn;
  if (v.phase === "setup") {
    seat = mine !== null && mine in clocks ? mine : null;
    text = mine === null ? "Setup: the players choose their face-up cards" : acting ? "Setup: swap, then Ready" : "Setup: waiting for the others";
  } else if (acting) {
    text = "Your turn";
  } else {
    text = seat === null ? "" : `${name(seat)} to play`;
  }
  const clock = seat !== null && seat !== undefined ? clocks[seat] : null;
  return h(
    "div",
    { class: `turn-banner ${acting ? "yours" : ""}`.trim(), id: "turn-banner", dataset: { turn: String(seat ?? "") } },
    h("span", { class: "turn-text" }, text),
    clock ? clockEl(clock) : null,
  );
}

function gameView(ctx, id, t) {
  const st = t.state;
  const v = st.view;
  const clocks = clocksOf(st, t.receivedAt);
  const mine = t.seat;
  const n = v.players.length;
  const others = v.players.filter((p) => p.seat !== mine);
  if (mine !== null) others.sort((a, b) => ((a.seat - mine + n) % n) - ((b.seat - mine + n) % n));
  const opponents = h(
    "section",
    { class: "opponents", "aria-label": "the other players", tabindex: "0" }, // (it may scroll sideways)
    // (in setup everybody's clock runs: the banner shows one's own, the tiles none)
    others.map((p) => seatEl(p, { turn: p.seat === v.turn, clock: v.phase === "setup" ? null : clocks[p.seat] })),
  );
  const centre = h("section", { class: "centre", "aria-label": "pile and last plays" }, pileEl(v), feedEl(t));
  const parts = [banner(t, clocks), opponents, centre];
  if (mine !== null) parts.push(myArea(ctx, id, t, clocks));
  return parts;
}

/** The seat's own cards and what it may do: tap cards, then a button. */
function myArea(ctx, id, t, clocks) {
  const v = t.state.view;
  const me = v.players[t.seat];
  const legal = v.legal;
  const acting = legal.length > 0;
  const setup = v.phase === "setup";
  const playable = new Set(legal.flatMap((a) => (a.startsWith("play ") || a.startsWith("run ") ? parseAction(a).args : [])));
  const isSel = (from, c) => t.selected.some((s) => s.from === from && s.card === c);
  const toggle = (from, c) => {
    const had = isSel(from, c);
    t.selected = t.selected.filter((s) => s.from === from && s.card !== c);
    if (!had) t.selected.push({ from, card: c });
    t.refusal = "";
    t.confirmTake = null;
    ctx.render();
  };
  const tapSlot = (slot, c) => {
    const fromHand = t.selected.filter((s) => s.from === "hand");
    if (setup && fromHand.length === 1) {
      const handCard = fromHand[0].card;
      const place = `place ${handCard} ${slot}`;
      send(ctx, id, t, legal.includes(place) || c === null ? place : `swap ${handCard} ${slot}`);
      return;
    }
    if (c !== null) toggle("up", c);
  };
  const hand = v.hand ?? [];
  const handEl = h(
    "div",
    { class: hand.length > 9 ? "hand many" : "hand", role: "group", "aria-label": `your hand, ${hand.length} card${hand.length === 1 ? "" : "s"}`, style: { "--n": String(Math.max(hand.length, 1)) } },
    hand.map((c, i) => cardEl(c, { id: `card-hand-${i}`, selected: isSel("hand", c), playable: playable.has(c), onTap: () => toggle("hand", c) })),
  );
  const flips = new Set(legal.filter((a) => a.startsWith("flip ")).map((a) => Number(parseAction(a).args[0])));
  const ups = h(
    "div",
    { class: "my-table", role: "group", "aria-label": "your cards on the table" },
    me.face_up.map((stack, slot) =>
      h(
        "span",
        { class: "stack", dataset: { slot: String(slot) } },
        stack.length
          ? stack.map((c, j) => cardEl(c, { id: `card-up-${slot}-${j}`, size: "small", selected: isSel("up", c), playable: playable.has(c), onTap: () => tapSlot(slot, c) }))
          : setup
            ? h("button", { type: "button", class: "card empty small", id: `card-up-${slot}`, "aria-label": `empty place ${slot + 1}`, onclick: () => tapSlot(slot, null) })
            : h("span", { class: "card empty small" }),
      ),
    ),
    h(
      "span",
      { class: "downs" },
      // Face-down cards are buttons only when turning one over is a legal move (never in setup).
      me.face_down.map((down, pos) =>
        down ? backEl({ pos, size: "small", id: `card-down-${pos}`, onTap: flips.has(pos) ? () => send(ctx, id, t, `flip ${pos}`) : null }) : null,
      ),
    ),
  );
  const marks = [me.out ? `out, ${ordinal(me.place)}` : ""].filter(Boolean);
  return h(
    "section",
    { class: `mine ${acting ? "turn" : ""}`.trim(), "aria-labelledby": "mine-heading", dataset: { seq: String(t.state.seq), phase: v.phase } },
    h(
      "header",
      {},
      h("h2", { class: "name", id: "mine-heading", title: me.name }, `${me.name} (you)`),
      acting ? h("span", { class: "your-move" }, "your move") : null,
      marks.length ? h("span", { class: "marks" }, marks.join(" · ")) : null,
    ),
    ups,
    handEl,
    t.refusal ? h("p", { class: "refusal", role: "alert", id: "refusal" }, t.refusal) : null,
    actionsEl(ctx, id, t, setup),
  );
}

// ------------------------------------------------------------------ actions

/** The action the selection asks for: the legal one with exactly these cards, else a plain play. */
export function selectedAction(t) {
  const cards = t.selected.map((s) => s.card);
  if (!cards.length) return null;
  const legal = t.state.view.legal;
  const same = (a) => {
    const args = parseAction(a).args;
    return args.length === cards.length && cards.every((c) => args.includes(c));
  };
  const found = legal.find((a) => /^(play|run|announce) /.test(a) && same(a));
  if (found) return found;
  if (t.state.view.phase === "announce" && cards.length === 1) return `announce ${cards[0]}`;
  return `play ${cards.join(" ")}`;
}

function actionsEl(ctx, id, t, setup) {
  const v = t.state.view;
  const legal = v.legal;
  const buttons = [];
  let reason = "";
  let hinting = false; // the reason is only how to play, not why not
  const plays = legal.some((a) => /^(play|run|announce) /.test(a));
  if (!setup && (plays || t.selected.length)) {
    const chosen = selectedAction(t);
    reason = chosen ? (selectionProblem(v, t.selected) ?? "") : legal.length ? "Tap the cards to play." : "";
    hinting = !chosen;
    const verb = chosen ? parseAction(chosen).verb : "play";
    const label = `${verb === "announce" ? "Announce" : "Play"}${chosen ? ` ${shortList(parseAction(chosen).args)}` : ""}`;
    buttons.push(
      h("button", { type: "button", class: "primary", id: "play", disabled: !chosen || Boolean(reason) || !legal.length, "aria-describedby": "play-reason", onclick: () => send(ctx, id, t, chosen) }, label),
    );
  }
  const upPick = t.selected.filter((s) => s.from === "up");
  const others = legal.some((a) => !a.startsWith("take"));
  for (const a of legal) {
    const { verb, args } = parseAction(a);
    if (verb === "take" && t.confirmTake === a) {
      const n = v.pile.length + args.length;
      buttons.push(
        h("button", { type: "button", class: "danger", id: "take-confirm", dataset: { confirm: a }, onclick: () => send(ctx, id, t, a) }, `Yes, pick up ${n} card${n === 1 ? "" : "s"}`),
        h("button", { type: "button", id: "take-cancel", onclick: () => ((t.confirmTake = null), ctx.render()) }, "Keep playing"),
      );
    } else if (verb === "take" && (upPick.length === 0 || args[0] === upPick[0].card)) {
      // Picking up is asked twice when something else could be done instead.
      const tap = others ? () => ((t.confirmTake = a), ctx.render(), document.getElementById("take-confirm")?.focus()) : () => send(ctx, id, t, a);
      buttons.push(h("button", { type: "button", dataset: { action: a }, onclick: tap }, args.length ? `Pick up with ${short(args[0])}` : ["Pick up", h("span", { class: "long" }, " the pile")]));
    } else if (args.length === 0 && verb in ACTION_LABELS && verb !== "take") {
      buttons.push(h("button", { type: "button", class: verb === "ready" ? "primary" : "", dataset: { action: a }, onclick: () => send(ctx, id, t, a) }, ACTION_LABELS[verb]));
    }
  }
  const hint = setup ? "Tap a hand card, then a card on the table, to swap them. Ready when done." : "";
  return h(
    "div",
    { class: "actions" },
    buttons,
    h("p", { class: reason && !hinting ? "reason" : "reason hint", id: "play-reason", "aria-live": "polite" }, reason || hint),
  );
}

/** Send `action`; a refusal is shown in words until the next tap. */
export async function send(ctx, id, t, action) {
  const seq = t.state.seq;
  t.refusal = "";
  t.confirmTake = null;
  let refusal = "";
  try {
    await ctx.request({ type: "act", table: id, seq, action });
  } catch (err) {
    if (err.error) {
      if (err.code === "STALE_SEQ") return; // the newer state is on its way
      refusal = refusalText(err.error);
    } else {
      refusal = "Not sent: the connection is down (it comes back by itself).";
    }
  }
  const now = ctx.table(id); // (a message may have come meanwhile: the table's newest data)
  if (refusal) now.refusal = refusal;
  else now.selected = [];
  ctx.render();
}

// ------------------------------------------------------------------ chat

function chatPanel(ctx, id, t) {
  const text = h("input", { id: "chat-text", maxlength: "280", placeholder: "Say something", "aria-label": "Chat message", autocomplete: "off" });
  const say = async (event) => {
    event.preventDefault();
    const line = text.value.trim();
    if (!line) return;
    text.value = "";
    await act(ctx, { type: "chat", table: id, text: line });
  };
  return h(
    "section",
    { class: "panel chat", id: "chat", "aria-labelledby": "chat-heading" },
    h("header", { class: "chat-head" }, h("h2", { id: "chat-heading" }, "Chat"), h("button", { type: "button", class: "link", id: "chat-close", onclick: () => ctx.openChat(id) }, "Close")),
    h("ol", { class: "chat-lines", tabindex: "0", "aria-label": "chat lines" }, [...t.chat].reverse().slice(0, 30).map((line) => h("li", {}, line))),
    h("form", { onsubmit: say }, text, h("button", { type: "submit" }, "Send")),
  );
}
