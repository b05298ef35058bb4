/* The host on the sofa (docs/remote.md), on the host's TV: "Hand controls to a phone" shows a QR code of a one-time
 * hand-over code (in the URL's fragment, never the host token) to the host alone, in a sheet the host opens and
 * closes; once a phone holds the remote the header says whose, with "Take back" (one tap). tv.js calls
 * TR.handover.render(state, control) after each state; the TV keeps every control of its own throughout. */
"use strict";

TR.handover = (() => {
  const {t, h, clear, update} = TR;
  let slot = null;
  let sheet = null;
  let closeTimer = null;
  let control = null;

  function closeSheet() {
    clearTimeout(closeTimer);
    if (sheet) sheet.remove();
    sheet = null;
  }

  async function open() {
    const answer = await control("handover");
    if (answer.ok) showSheet(answer.handover);
  }

  /* The server draws the QR code (the same drawing as the join code's); it is parsed as SVG, never as HTML. */
  function qrNode(svgText) {
    const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
    const svg = doc.documentElement;
    if (!svg || svg.nodeName.toLowerCase() !== "svg") return h("span");
    svg.setAttribute("aria-hidden", "true");
    return document.importNode(svg, true);
  }

  function showSheet(offer) {
    closeSheet();
    const cancel = h("button", {id: "handover-cancel", class: "big", onclick: () => { control("handover_cancel"); closeSheet(); }}, t("remote.cancel"));
    sheet = h("div", {class: "handover-sheet", id: "handover-sheet", "data-overlay": "", role: "dialog", "aria-modal": "true", "aria-labelledby": "handover-title"},
      h("div", {class: "handover-card"},
        h("h2", {id: "handover-title"}, t("remote.sheet_title")),
        h("div", {class: "handover-qr", id: "handover-qr", "data-url-length": offer.url.length}, qrNode(offer.qr)),
        h("p", null, t("remote.scan", {n: Math.round(offer.expires_in_ms / 60000)})),
        h("p", {class: "muted"}, t("remote.scan_seated")),
        cancel));
    document.body.append(sheet);
    cancel.focus();
    closeTimer = setTimeout(closeSheet, offer.expires_in_ms);  /* the code has expired: nothing left to scan */
  }

  function render(state, send) {
    control = send;
    if (!slot) {
      slot = h("span", {id: "remote-slot", class: "remote-slot"});
      document.getElementById("host-controls").after(slot);
    }
    const remote = state.host ? state.remote || null : null;
    const holder = remote && remote.seat !== null ? remote : null;
    if (sheet && holder && !remote.waiting) closeSheet();  /* a phone took it: the QR code goes at once */
    update(slot, [state.host, holder && holder.name, TR.lang], () => {
      if (!state.host) return [];
      if (holder) {
        return h("span", {class: "remote-held", id: "remote-held", role: "status"},
          h("span", null, t("remote.held_by", {name: TR.iso(holder.name)})),
          h("button", {id: "remote-take-back", onclick: () => control("take_back").then((a) => { if (a.ok) TR.handover.said(); })}, t("remote.take_back")));
      }
      return h("button", {id: "handover-open", onclick: open}, t("remote.hand_over"));
    });
  }

  function said() {
    const status = document.getElementById("status");
    if (status) { status.textContent = t("remote.taken_back"); status.className = "status"; }
  }

  return {render, said};
})();
