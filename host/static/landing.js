/* Throneroom landing page: the typed code is checked before the page is left, so a mistyped code is told here, by
 * its field, in the page's language (and not after a name was typed on the room's page). Without this script, or
 * when the check cannot be made, the form goes to /join, which checks the code too. */
"use strict";

(() => {
  const form = document.getElementById("code-form");
  const input = document.getElementById("code");
  const error = document.getElementById("code-error");
  if (!form || !input || !error) return;
  let busy = false;

  function show(answerError) {
    error.textContent = TR.errorText(answerError);
    error.hidden = false;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }

  input.addEventListener("input", () => {
    error.hidden = true;
    error.textContent = "";
    input.removeAttribute("aria-invalid");
  });

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (busy) return;
    const typed = input.value.split(/\s+/).join("");
    if (!/^[A-Za-z]{1,6}$/.test(typed)) { show({code: "invalid_code", message: ""}); return; }
    busy = true;
    let answer = null;
    try {
      const response = await fetch("/api/rooms/" + encodeURIComponent(typed), {cache: "no-store"});
      answer = await response.json();
    } catch (err) {
      answer = null;  /* no answer: let the server's /join decide */
    }
    busy = false;
    if (answer && answer.ok) {
      const token = TR.storage.get("seat." + answer.code);
      if (answer.locked && !token) { show({code: "room_locked", message: ""}); return; }  /* only its players may come back */
      location.href = "/join/" + answer.code;
    } else if (answer && answer.error && answer.error.code) show(answer.error);
    else form.submit();
  });
})();
