// "Your turn" for a player whose phone lies on the table: an optional short vibration and beep
// (off until the player turns them on; the choice is kept in localStorage). The beep needs an
// AudioContext, which a browser allows only from a tap: the tap that turns the alert on makes it.

const KEY = "shithead.turnAlert";
let audio = null;

/** Whether the player asked for the alert. */
export function alertOn() {
  return localStorage.getItem(KEY) === "true";
}

/** Turn the alert on or off (call it from a tap). */
export function setAlert(on) {
  localStorage.setItem(KEY, String(on));
  if (on && !audio && typeof AudioContext === "function") audio = new AudioContext();
}

/** Vibrate and beep, if the player asked for it. */
export function turnAlert() {
  if (!alertOn()) return;
  navigator.vibrate?.(150);
  if (!audio) return;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 880;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.25);
}
