/* Throneroom phone page: join with a name (or come back with the seat token kept in localStorage), then
 * show only what this player can do now. */
"use strict";

(() => {
  const {t, h, clear, badge, storage, request, errorText} = TR;
  const code = document.body.dataset.code;
  const screen = document.getElementById("screen");
  const toast = document.getElementById("status");
  let socket = null;
  let state = null;
  let receivedAt = 0;
  let seated = false;
  let renaming = false;
  let lastKey = null;
  let ready = false;  /* the server knows this socket's seat (hello or join answered) */
  let unseated = null;  /* while not seated, what the screen shows: "join", "kicked" or "no_room" (redrawn in a new language) */
  let typed = {name: null, error: ""};  /* the join form's name and error, kept across a change of language */

  const savedLang = storage.get("lang");
  if (savedLang) TR.setLang(savedLang);

  function say(text, isError) {
    toast.textContent = text || "";
    toast.className = isError ? "status error" : "status";
  }

  function languagePicker() {
    return h("select", {id: "phone-language", "aria-label": t("phone.language"), onchange: (e) => {
      TR.setLang(e.target.value);
      storage.set("lang", e.target.value);
      lastKey = null;
      if (seated) request(socket, "language", {language: e.target.value});
      redraw();
    }}, ["en", "fa", "ro"].map((l) => h("option", {value: l, selected: l === TR.lang}, t("language." + l))));
  }

  function header() {
    const bar = document.getElementById("phone-header");
    const me = state && state.me;
    clear(bar,
      me ? h("button", {class: "me", id: "me", onclick: () => { renaming = true; redraw(); },
        "aria-label": t("phone.rename")}, badge(me.colour, me.shape, 36),
        h("bdi", {class: "name"}, me.name)) : h("span", {class: "brand", "data-verbatim": ""}, "Throneroom"),
      h("span", {class: "header-side"}, h("span", {class: "room-code", dir: "ltr", "data-verbatim": ""}, code),
        languagePicker()));
  }

  function joinForm() {
    seated = false;
    unseated = "join";
    header();
    const input = h("input", {id: "name", name: "name", maxlength: 20, autocomplete: "nickname", required: true,
      dir: "auto", enterkeyhint: "go", "aria-describedby": "name-error", "data-verbatim": "",
      value: typed.name !== null ? typed.name : storage.get("name") || "",
      oninput: (e) => { typed.name = e.target.value; }});
    const error = h("p", {id: "name-error", class: "field-error", role: "alert"}, typed.error ? errorText(typed.error) : "");
    async function join(role) {
      const answer = await request(socket, "join", {code, name: input.value, role, language: TR.lang});
      typed = {name: input.value, error: answer.ok ? "" : answer.error};
      if (!answer.ok) { error.textContent = errorText(answer.error); input.focus(); return; }
      unseated = null;
      storage.set("seat." + code, answer.token);
      storage.set("name", input.value);
      seated = true;
      ready = true;
      render(answer.state);
    }
    const form = h("form", {class: "join-form", id: "join-form", onsubmit: (e) => { e.preventDefault(); join("player"); }},
      h("h1", null, t("phone.join_title", {code: TR.iso(code)})),
      h("label", {for: "name"}, t("phone.your_name")), input, error,
      h("button", {type: "submit", class: "big primary", id: "join-player"}, t("phone.join_play")),
      h("button", {type: "button", class: "big", id: "join-watch", onclick: () => join("spectator")}, t("phone.join_watch")));
    clear(screen, form);
  }

  function renameForm() {
    const input = h("input", {id: "rename", maxlength: 20, value: state.me.name, dir: "auto", "data-verbatim": ""});
    const error = h("p", {class: "field-error", role: "alert"});
    return h("form", {class: "rename-form", onsubmit: async (e) => {
      e.preventDefault();
      const answer = await request(socket, "rename", {name: input.value});
      if (!answer.ok) { error.textContent = errorText(answer.error); return; }
      renaming = false;
      storage.set("name", input.value);
      redraw();
    }}, h("label", {for: "rename"}, t("phone.rename")), input, error,
      h("div", {class: "row"}, h("button", {type: "submit", class: "primary"}, t("phone.save")),
        h("button", {type: "button", onclick: () => { renaming = false; redraw(); }}, t("phone.cancel"))));
  }

  function act(action, extra, event) {
    if (!ready) { say(t("common.reconnecting"), true); return Promise.resolve({ok: false}); }
    const payload = Object.assign({action}, extra || {});
    if (state.game && state.game.step !== null) payload.step = state.game.step;
    return request(socket, event || "action", payload).then((answer) => {
      if (!answer.ok) say(errorText(answer.error), true); else say("");
      return answer;
    });
  }

  function render(next) {
    if (state && next.epoch === state.epoch && next.version < state.version && seated) return;
    const key = renderKey(next);
    const same = seated && key === lastKey;
    state = next;
    receivedAt = performance.now();
    seated = true;
    if (same) return;  /* nothing this phone shows changed: keep the buttons under the player's thumb */
    lastKey = key;
    redraw();
  }

  /* What the phone's screen depends on; other phones connecting or the game clock moving change nothing. */
  function renderKey(next) {
    const game = next.game ? Object.assign({}, next.game, {now_ms: 0}) : null;
    return JSON.stringify([next.phase, next.paused, game, next.me, next.audience || null, next.selected_game, next.players.length,
      next.games.map((g) => g.name_key), next.players.map((p) => [p.name, p.team])]);
  }

  /* Team games (CROWN-D2): a big button per team with its colour and members; the player's own is marked. The
   * teams come in ``order`` (by default as the game numbers them). */
  function teamPicker(keys, colours, membersOf, mine, order) {
    return h("div", {class: "team-picker", id: "team-picker", role: "group", "aria-label": t("phone.pick_team")},
      h("p", {class: "big-text"}, t("phone.pick_team")),
      (order || keys.map((_, i) => i)).map((i) => h("button", {class: "team-button" + (mine === i ? " chosen" : ""), "data-team": i,
        "aria-pressed": mine === i ? "true" : "false", style: "--team: " + (colours[i] || "#888"),
        onclick: async () => {
          const answer = await request(socket, "team", {team: i});
          if (!answer.ok) say(errorText(answer.error), true); else say("");
        }},
        h("span", {class: "team-swatch", "aria-hidden": "true"}),
        h("span", {class: "team-name"}, t(keys[i])),
        h("span", {class: "team-members"}, membersOf(i)))));
  }

  function redraw() {
    if (unseated === "join") { joinForm(); return; }
    if (unseated === "kicked") { kicked(); return; }
    if (unseated === "no_room") { noRoom(); return; }
    if (!state || !seated) return;
    header();
    if (renaming) { clear(screen, renameForm()); return; }
    const game = state.game;
    if (state.phase === "lobby") {
      const selected = state.games.find((g) => g.id === state.selected_game);
      const teams = selected && selected.teams && state.me.role === "player";
      const members = (i) => TR.namesOf(state, state.players.filter((p) => p.team === i).map((p) => p.id));
      const names = (i) => (members(i).length ? TR.list(members(i)) : t("phone.team_empty"));
      clear(screen, h("div", {class: "waiting", id: "waiting"},
        h("p", {class: "big-text"}, state.me.role === "spectator" ? t("phone.watching") : t("phone.youre_in")),
        h("p", null, selected ? t("phone.next_game", {game: t(selected.name_key)}) : t("phone.waiting_host")),
        teams ? teamPicker(selected.team_keys, selected.team_colours, names, state.me.team) : null,
        h("p", {class: "muted"}, t("phone.players_here", {n: state.players.length}))));
      return;
    }
    const area = h("div", {class: "game-area", id: "game-area"});
    const renderer = TR.games[game.id];
    const playAlong = renderer && renderer.audience && game.you === null && state.me.role === "spectator" && state.audience;
    if (playAlong) renderer.audience(area, game, state, (action, extra) => act(action, extra, "audience"), receivedAt);
    else if (renderer && game.you === null) renderer.tv(area, game, state, receivedAt);  /* spectators: the TV's view */
    else if (renderer) renderer.phone(area, game, state, act, receivedAt);
    if (game.you === null && state.phase === "playing") {
      const mayJoin = game.team_keys.length && state.me.role === "player";  /* a latecomer may still join a team */
      area.prepend(h("p", {class: "muted", id: "not-playing"}, mayJoin ? t("phone.join_team_now") : t("phone.watching_game")));
      if (mayJoin) {
        const members = (i) => TR.namesOf(state, game.slots[i].members || []);
        const botPlayed = (i) => game.slots[i].bot || !members(i).length;
        const order = game.team_keys.map((_, i) => i).sort((a, b) => botPlayed(b) - botPlayed(a) || a - b);  /* a bot's team first */
        area.prepend(teamPicker(game.team_keys, game.team_colours,
          (i) => (botPlayed(i) ? t("tv.team_bot") : TR.list(members(i))), null, order));
      }
    }
    if (state.phase === "finished") {
      const place = game.outcome && game.you !== null ? game.outcome.ranking.indexOf(game.you) : -1;
      area.prepend(h("p", {class: "big-text", id: "result"},
        game.aborted ? t("tv.game_ended") : place === 0 ? t("phone.you_won") : place > 0 ? t("phone.your_place", {n: place + 1}) : t("tv.results")));
    }
    clear(screen, area, state.paused ? h("div", {class: "paused-overlay", "data-overlay": ""}, t("tv.paused")) : null);
  }

  function kicked() {
    storage.remove("seat." + code);
    seated = false;
    unseated = "kicked";
    state = null;
    header();
    clear(screen, h("div", {class: "centre", id: "kicked"}, h("p", {class: "big-text"}, t("phone.kicked"))));
  }

  function noRoom() {
    unseated = "no_room";
    header();
    clear(screen, h("div", {class: "centre"}, h("p", {class: "big-text"}, t("phone.no_room", {code: TR.iso(code)})),
      h("a", {href: "/", class: "button big"}, t("phone.home"))));
  }

  async function hello() {
    const token = storage.get("seat." + code);
    if (!token) { if (!seated) joinForm(); return; }
    const answer = await request(socket, "hello", {code, token});
    if (answer.ok) { ready = true; unseated = null; lastKey = null; render(answer.state); return; }
    if (answer.error.code === "kicked") { kicked(); return; }
    if (answer.error.code === "unknown_room") { noRoom(); return; }
    if (answer.error.code === "bad_token") storage.remove("seat." + code);
    joinForm();
  }

  socket = TR.connect("/play", hello);
  socket.on("state", (next) => { if (seated) render(next); });
  socket.on("kicked", kicked);
  socket.on("disconnect", () => { ready = false; });
  socket.on("sync", (data, ack) => { if (typeof ack === "function") ack({}); });  /* the server times the round trip */
  window.addEventListener("tr-refresh", () => { lastKey = null; redraw(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && socket && !socket.connected) socket.connect();
  });
  setInterval(() => TR.tickCountdowns(state, receivedAt), 100);
})();
