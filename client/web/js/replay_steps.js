// The replay viewer's bookkeeping, pure (node-tested in tests/web/js/replay_steps.test.mjs): the
// page's address for a position, the keys that move, which page of steps to ask the server for
// (get_replay answers at most PAGE steps), and a step's texts.

export const PAGE = 100;

/** {game, step} from a location's search string ("?game=57&step=12"); null fields when absent
 * or not whole numbers. */
export function parseLocation(search) {
  const p = new URLSearchParams(search);
  const num = (key) => {
    const v = p.get(key);
    return v !== null && /^\d{1,10}$/.test(v) ? Number(v) : null;
  };
  return { game: num("game"), step: num("step") };
}

/** The shareable address of a position (relative to the page). */
export function stepUrl(game, step) {
  return `replay?game=${game}&step=${step}`;
}

/** The step a key moves to from `step` (0..total), or null for a key that does not move. */
export function keyMove(key, step, total) {
  const to = {
    ArrowRight: step + 1,
    ArrowLeft: step - 1,
    PageDown: step + 10,
    PageUp: step - 10,
    Home: 0,
    End: total,
  }[key];
  if (to === undefined) return null;
  return Math.max(0, Math.min(total ?? 0, to));
}

/** The first step of the page of steps that holds `step`. */
export function pageStart(step) {
  return Math.floor(step / PAGE) * PAGE;
}

/** Steps kept by number; what to ask for next. */
export class StepCache {
  constructor() {
    this.steps = new Map();
    this.total = null; // the game's number of actions, once known
  }

  /** Keep the steps of a `replay` answer. */
  add(answer) {
    this.total = answer.actions;
    for (const s of answer.steps) this.steps.set(s.step, s);
  }

  get(step) {
    return this.steps.get(step) ?? null;
  }

  /** The `start` of the page to ask for to show `step`, or null if it is here. */
  need(step) {
    return this.steps.has(step) ? null : pageStart(step);
  }

  /** The next page to fetch ahead of `step` (when within 20 steps of the end of what is
   * here), or null. */
  ahead(step) {
    const next = pageStart(step) + PAGE;
    if (this.total === null || next > this.total || this.steps.has(next)) return null;
    return next - step <= 20 ? next : null;
  }
}

/** "alice: play 7h 7d", or "Dealt: bob dealt." at step 0 (the terminal's replay says the same). */
export function actionLine(step, dealer) {
  if (step.step === 0) return dealer === null || dealer === undefined ? "Dealt." : `Dealt. ${step.seats[dealer]?.name ?? `seat ${dealer}`} dealt.`;
  return `${step.seats[step.seat]?.name ?? `seat ${step.seat}`}: ${step.action}`;
}

/** "Over: alice, carol, bob. bob is the shithead." once over, else null. */
export function overLine(step) {
  if (!step.places) return null;
  const names = step.places.map((s) => step.seats[s]?.name ?? `seat ${s}`);
  return `Over: ${names.join(", ")}. ${names.at(-1)} is the shithead.`;
}
