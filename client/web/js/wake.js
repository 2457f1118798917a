// Keeps the screen on while it is wanted (the Screen Wake Lock API): a phone lying on the table
// must not lock between the player's turns, nor a TV page go dark in the middle of a game. The
// browser drops the lock whenever the page is hidden; it is asked for again when the page is
// shown while still wanted. Where the API is missing (or refused: low battery, no permission)
// nothing happens and nothing is said: the screen just follows the device's own settings.

export class ScreenAwake {
  /** `nav` and `doc`: the browser's navigator and document (others in unit tests). */
  constructor(nav = globalThis.navigator, doc = globalThis.document) {
    this.nav = nav;
    this.doc = doc;
    this.wanted = false;
    this.lock = null;
    this.asking = null;
    doc?.addEventListener?.("visibilitychange", () => this.want(this.wanted));
  }

  /** Whether the screen should stay on (a game in progress here); call it after every change. */
  want(on) {
    this.wanted = Boolean(on);
    if (this.wanted) this.#request();
    else this.#release();
  }

  async #request() {
    if (this.lock || this.asking || !this.nav?.wakeLock || this.doc?.visibilityState !== "visible") return;
    try {
      this.asking = this.nav.wakeLock.request("screen");
      const lock = await this.asking;
      this.lock = lock;
      lock.addEventListener?.("release", () => {
        if (this.lock === lock) this.lock = null;
      });
      if (!this.wanted) this.#release(); // (the game ended while the browser was asked)
    } catch {
      this.lock = null; // refused: the device's own settings apply
    } finally {
      this.asking = null;
    }
  }

  #release() {
    const lock = this.lock;
    this.lock = null;
    lock?.release?.().catch?.(() => {});
  }
}
