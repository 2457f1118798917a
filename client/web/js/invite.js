// A table's invitation: the address that opens this page at that table (`/?table=N`: the page
// logs the guest in, then sits them down if a seat is free, or lets them watch), as a link to
// copy or share and as a QR code to scan across the table.

import { qrSvg } from "./qr.js";
import { h } from "./ui.js";

/** The address that opens the page at table `id`, from the server's join address. */
export function inviteUrl(joinUrl, id) {
  const url = new URL(joinUrl);
  url.searchParams.set("table", String(id));
  return url.href;
}

/** The table an invitation link opened this page at (`?table=N`), or null. */
export function invitedTable(location) {
  const raw = new URLSearchParams(location.search).get("table");
  return raw !== null && /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

/** The invitation panel of the waiting room. */
export function inviteEl(joinUrl, id) {
  const url = inviteUrl(joinUrl, id);
  const copy = async (event) => {
    const button = event.currentTarget;
    try {
      if (navigator.share) await navigator.share({ title: "Shithead", text: "Sit down at my table", url });
      else await navigator.clipboard.writeText(url);
      button.textContent = navigator.share ? "Shared" : "Copied";
    } catch {
      button.textContent = "Select the address to copy it";
    }
  };
  const code = h("div", { class: "qr", role: "img", "aria-label": `QR code of ${url}` });
  code.innerHTML = qrSvg(url); // (an SVG made here from the address: no text from elsewhere)
  return h(
    "section",
    { class: "panel invite", "aria-labelledby": "invite-heading" },
    h("h2", { id: "invite-heading" }, "Invite to this table"),
    code,
    h("p", {}, h("a", { href: url, id: "invite-link" }, url)),
    h("button", { type: "button", id: "invite-copy", onclick: copy }, "Copy or share the link"),
  );
}
