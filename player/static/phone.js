/* Throneroom phone page: join with a name (or come back with the seat token kept in localStorage), then
 * show only what this player can do now. */
"use strict";

(() => {
  const {t, h, clear, update, badge, storage, request, errorText} = TR;
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
  let unseated = null;  /* while not seated, what the screen shows: "join", "claim", "replaced", "kicked" or "no_room" */
  const outbox = [];  /* actions given while the connection was lost, sent in order as soon as it is back */
  let sayTimer = null;
  let typed = {name: null, error: ""};  /* the join form's name and error, kept across a change of language */
  let houseNote = null;  /* why the team a latecomer asked did not let them in (a function: says it in the language now) */

  /* this phone's own language, when it is not the page's: its catalog is fetched before anything is drawn (start) */
  const savedLang = storage.get("lang");
  const langReady = savedLang && savedLang !== TR.lang ? TR.useLang(savedLang) : null;

  /* Larger text and high contrast (issue [18]): this phone's own choice, remembered (throneroom.phone.text,
   * throneroom.phone.contrast), applied as classes on <body> before anything is drawn. */
  const display = {
    get large() { return storage.get("phone.text") === "large"; },
    get high() { return storage.get("phone.contrast") === "high"; },
    apply() {
      document.body.classList.toggle("text-large", this.large);
      document.body.classList.toggle("contrast-high", this.high);
    },
  };
  display.apply();

  function displayToggles() {
    const toggle = (id, key, on, off, label, checked) => h("label", {class: "display-toggle", for: id},
      h("input", {type: "checkbox", id, checked, onchange: (e) => {
        storage.set(key, e.target.checked ? on : off);
        display.apply();
      }}), h("span", null, label));
    /* sound: off until this phone's owner turns it on (host/static/sound.js); here, not in the header, whose width
     * is the name's */
    const sound = TR.sound ? h("div", {class: "display-toggle"}, TR.sound.phoneToggle(), h("span", null, t("sound.phone"))) : null;
    return [sound, toggle("display-text", "phone.text", "large", "normal", t("access.text_large"), display.large),
      toggle("display-contrast", "phone.contrast", "high", "normal", t("access.contrast_high"), display.high),
      h("p", {class: "muted"}, t("access.display_note"))];
  }
  function displaySheet() {
    TR.sheet(t("access.display"), displayToggles(), {"data-display": ""});
  }
  /* In a game the header keeps its width for the name: the "?" opens How to play with the display settings after it. */
  function rulesAndDisplay() {
    TR.rulesSheet(state.game);
    document.getElementById("sheet-body").append(h("section", {class: "display-part", "data-display": ""},
      h("h3", null, t("access.display")), displayToggles()));
  }

  /* A half-filled circle, the usual mark of contrast and display settings (no letters: it reads in every script). */
  function displayMark() {
    return h("svg", {viewBox: "0 0 24 24", width: "1.1em", height: "1.1em", "aria-hidden": "true"},
      h("circle", {cx: 12, cy: 12, r: 10, fill: "none", stroke: "currentColor", "stroke-width": 2}),
      h("path", {d: "M12 2 a10 10 0 0 1 0 20 z", fill: "currentColor"}));
  }

  /* The toast: ``text`` is a function, so a change of language says it again in the new one. */
  let said = null;
  function say(text, isError) {
    said = typeof text === "function" ? {text, isError} : null;
    toast.textContent = (typeof text === "function" ? text() : text) || "";
    toast.className = isError ? "status error" : "status";
  }

  function languagePicker() {
    return h("select", {id: "phone-language", "aria-label": t("phone.language"), onchange: async (e) => {
      const chosen = e.target.value;
      await TR.useLang(chosen);  /* its catalog fetched first, the first time */
      if (TR.lang !== chosen) return;  /* it could not be fetched (offline): the phone stays in its language */
      storage.set("lang", chosen);
      if (seated) ask("language", {language: chosen});
      if (said) say(said.text, said.isError);
      redraw();
      if (state && seated) lastKey = renderKey(state);  /* drawn in the new language: the next state need not redraw */
    }}, ["en", "fa", "ro"].map((l) => h("option", {value: l, selected: l === TR.lang}, t("language." + l))));
  }

  function header() {
    const me = state && state.me;
    const inGame = !!(state && state.game && state.phase !== "lobby");
    const remote = TR.remote && me ? TR.remote : null;  /* the host remote's "Host" button (remote.js) */
    update(document.getElementById("phone-header"), [me && [me.name, me.colour, me.shape], inGame, TR.lang, remote && remote.key()], () => [
      me ? h("button", {class: "me", id: "me", onclick: () => { renaming = true; redraw(); },
        "aria-label": t("phone.rename")}, badge(me.colour, me.shape, 36),
        h("bdi", {class: "name"}, me.name)) : h("span", {class: "brand", "data-verbatim": ""}, "Throneroom"),
      inGame ? h("button", {class: "info-button", id: "phone-rules", "aria-label": t("tv.how_to_play"),
        onclick: rulesAndDisplay}, "?") : null,  /* the rules, from every screen of a game, and the display settings */
      inGame ? null : h("button", {class: "info-button", id: "phone-display", type: "button", "aria-label": t("access.display"),
        onclick: displaySheet}, displayMark()),
      remote && remote.button(),
      h("span", {class: "header-side"},
        h("span", {class: "room-code", dir: "ltr", "data-verbatim": ""}, code),
        languagePicker())]);
  }

  /* How many characters the server counts in a typed name (host/room.py clean_name: NFKC, invisible characters
   * out, one space between words), and the field's counter "7/20": a name is never cut (finding 8 of [17]: a
   * maxlength cut a 22-character name into someone else's), it says it is too long, here and from the server. */
  const NAME_MAX = 20;
  function nameLength(text) {
    const cleaned = text.normalize("NFKC").replace(/[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, (c) => (c === "\u200c" || c === "\u200d" ? c : ""));
    return Array.from(cleaned.trim().split(/\s+/).join(" ")).length;
  }
  function nameCounter(input, error, id) {
    const counter = h("span", {class: "name-count", id, "aria-live": "polite"});
    let said = false;  /* the error shown is the counter's own "too long" */
    const count = () => {
      const n = nameLength(input.value);
      counter.textContent = t("phone.name_count", {n, max: NAME_MAX});
      const over = n > NAME_MAX;
      counter.classList.toggle("over", over);
      if (over) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
      if (over) { error.textContent = errorText({code: "name_too_long", params: {max: NAME_MAX, n}}); said = true; }
      else if (said) { error.textContent = ""; said = false; }
    };
    input.addEventListener("input", count);
    count();
    return counter;
  }

  function joinForm() {
    seated = false;
    unseated = "join";
    header();
    const input = h("input", {id: "name", name: "name", autocomplete: "nickname", required: true,
      dir: "auto", enterkeyhint: "go", "aria-describedby": "name-error", "data-verbatim": "",
      value: typed.name !== null ? typed.name : storage.get("name") || "",
      oninput: (e) => { typed.name = e.target.value; }});
    const error = h("p", {id: "name-error", class: "field-error", role: "alert"}, typed.error ? errorText(typed.error) : "");
    const counter = nameCounter(input, error, "name-count");
    async function join(role) {
      const answer = await request(socket, "join", {code, name: input.value, role, language: TR.lang});
      typed = {name: input.value, error: answer.ok ? "" : answer.error};
      if (!answer.ok && answer.error.code === "name_away") { joinForm(); return; }  /* offers "that's me" */
      if (!answer.ok) { error.textContent = errorText(answer.error); input.focus(); return; }
      unseated = null;
      storage.set("seat." + code, answer.token);
      storage.set("name", input.value);
      seated = true;
      ready = true;
      render(answer.state);
      if (answer.spread) route(true);
    }
    /* The name is a seat whose phone is gone: this may be its person on another phone. */
    const itsMe = typed.error && typed.error.code === "name_away"
      ? h("button", {type: "button", class: "big primary", id: "its-me", onclick: () => claim(input.value)}, t("phone.its_me"))
      : null;
    const form = h("form", {class: "join-form", id: "join-form", onsubmit: (e) => { e.preventDefault(); join("player"); }},
      h("h1", null, t("phone.join_title", {code: TR.iso(code)})),
      h("div", {class: "name-label"}, h("label", {for: "name"}, t("phone.your_name")), counter), input, error, itsMe,
      h("button", {type: "submit", class: "big primary", id: "join-player"}, t("phone.join_play")),
      h("button", {type: "button", class: "big", id: "join-watch", onclick: () => join("spectator")}, t("phone.join_watch")));
    clear(screen, form);
  }

  /* "That's me": the host's TV asks to confirm; the answer comes as "claimed" (with the seat's token) or
   * "claim_refused". */
  async function claim(name) {
    const answer = await request(socket, "claim", {code, name});
    if (!answer.ok) { typed = {name, error: answer.error}; joinForm(); return; }
    unseated = "claim";
    typed = {name, error: ""};
    claimScreen();
  }

  function claimScreen() {
    header();
    clear(screen, h("div", {class: "centre", id: "claim-wait"},
      h("p", {class: "big-text"}, t("phone.claim_wait", {name: TR.iso(typed.name || "")})),
      h("button", {class: "big", id: "claim-cancel", onclick: () => {
        socket.disconnect().connect();  /* the server forgets a request whose phone left */
        unseated = "join"; joinForm();
      }}, t("phone.cancel"))));
  }

  function replaced() {
    storage.remove("seat." + code);
    seated = false;
    unseated = "replaced";
    state = null;
    header();
    clear(screen, h("div", {class: "centre", id: "replaced"}, h("p", {class: "big-text"}, t("phone.replaced")),
      h("button", {class: "big", id: "join-again", onclick: () => { unseated = "join"; joinForm(); }}, t("phone.join_again"))));
  }

  function renameForm() {
    const input = h("input", {id: "rename", value: state.me.name, dir: "auto", "data-verbatim": ""});
    const error = h("p", {class: "field-error", id: "rename-error", role: "alert"});
    const counter = nameCounter(input, error, "rename-count");
    return h("form", {class: "rename-form", onsubmit: async (e) => {
      e.preventDefault();
      const answer = await ask("rename", {name: input.value});
      if (!answer.ok) { error.textContent = errorText(answer.error); return; }
      renaming = false;
      storage.set("name", input.value);
      redraw();
    }}, h("div", {class: "name-label"}, h("label", {for: "rename"}, t("phone.rename")), counter), input, error,
      h("div", {class: "row"}, h("button", {type: "submit", class: "primary"}, t("phone.save")),
        h("button", {type: "button", onclick: () => { renaming = false; redraw(); }}, t("phone.cancel"))));
  }

  /* Every action is acknowledged on the phone at once: "sent", or the server's reason in the page's language. One
   * given while the connection is lost (with the time the phone measured) waits, said so, and is sent as soon as the
   * connection is back; the server takes it if its question is still open (fair timing, docs/seats.md). */
  function act(action, extra, event) {
    const payload = Object.assign({action}, extra || {});
    if (state.game && state.game.step !== null) payload.step = state.game.step;
    if (!ready) {
      say(() => t("phone.waiting_connection"), false);
      return new Promise((resolve) => outbox.push({event: event || "action", payload, resolve}));
    }
    return send(event || "action", payload);
  }

  const RETRY = ["storage_down", "relay_down"];  /* [issue 19, outages] the database or Redis is not answering */
  function send(event, payload) {
    return request(socket, event, payload).then((answer) => {
      clearTimeout(sayTimer);
      if (!answer.ok && RETRY.includes(answer.error.code)) {  /* [issue 19, outages] a service is down: ask again */
        say(() => errorText(answer.error), true);
        return new Promise((resolve) => setTimeout(resolve, 1000)).then(() => send(event, payload));
      }
      if (!answer.ok) { say(() => errorText(answer.error), true); return answer; }
      say(() => t("phone.sent_ok"));
      sayTimer = setTimeout(() => say(""), 2500);
      return answer;
    });
  }

  async function flush() {
    while (outbox.length && ready) {
      const item = outbox.shift();
      item.resolve(await send(item.event, item.payload));
    }
  }

  /* Whether this person plays the next game: the lobby's lineup (who plays if the host starts now). */
  function nextGameLine() {
    const me = state.me;
    const lineup = state.lineup;
    if (!lineup) return null;
    const seated = lineup.seats.includes(me.id);
    const line = me.role === "spectator" ? t("phone.lineup_spectator") : seated ? t("phone.lineup_play")
      : me.sits_out ? t("phone.lineup_sit_out") : t("phone.lineup_full");
    const button = me.role === "spectator" || me.sits_out
      ? h("button", {class: "big", id: "sit-in", onclick: () => sitOut(false)}, t("phone.play_next"))
      : seated ? h("button", {class: "big", id: "sit-out", onclick: () => sitOut(true)}, t("phone.watch_next")) : null;
    return h("div", {class: "lineup-me", id: "lineup-me"}, h("p", null, line), button);
  }

  function sitOut(out) {
    return ask("sit_out", {out}).then((answer) => {
      if (!answer.ok) say(errorText(answer.error), true); else say("");
    });
  }

  /* A state is drawn once the shown game's scripts and styles are here, fetched the first time (TR.prepare); a newer
   * state that comes meanwhile replaces it. */
  const unready = {waiting: null};  /* a state waiting for its files (TR.whenReady) */
  function render(next) {
    if (state && next.epoch === state.epoch && next.version < state.version && seated) return;
    if (!TR.whenReady(unready, next, TR.prepare([], [next.game && next.game.id]), render)) return;
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
    /* a game may say what its phone screens show (the Quiz: not who else answered, so that a text being typed or a
     * slider being dragged is not redrawn away under the thumb) */
    const renderer = next.game && TR.games[next.game.id];
    const own = renderer && renderer.screenKey ? renderer.screenKey(next) : null;
    const game = own ? own : next.game ? Object.assign({}, next.game, {now_ms: 0}) : null;
    const me = Object.assign({}, next.me, {language: TR.lang});  /* drawn in the phone's language, not the server's */
    return JSON.stringify([next.phase, next.paused, game, me, own ? null : next.audience || null, next.selected_game, next.players.length,
      next.games.map((g) => g.name_key), next.players.map((p) => [p.name, p.team]), next.lineup || null, next.house_requests || null, houseNote && houseNote()]);
  }

  /* Team games (CROWN-D2): a big button per team with its colour and members; the player's own is marked. The
   * teams come in ``order`` (by default as the game numbers them). The picker is the same element across redraws
   * while what it shows is the same: a latecomer's tap on a house, during a game whose bots keep redrawing the
   * screen, was lost when its button was replaced between press and release (a fresh-clone run of the houses test). */
  let keptPicker = {key: null, node: null};
  function teamPicker(keys, colours, membersOf, mine, order) {
    const teams = order || keys.map((_, i) => i);
    const key = JSON.stringify([keys, colours, teams, teams.map(membersOf), mine, TR.lang]);
    if (keptPicker.key !== key) keptPicker = {key, node: buildTeamPicker(keys, colours, membersOf, mine, teams)};
    return keptPicker.node;
  }

  function buildTeamPicker(keys, colours, membersOf, mine, order) {
    return h("div", {class: "team-picker", id: "team-picker", role: "group", "aria-label": t("phone.pick_team")},
      h("p", {class: "big-text"}, t("phone.pick_team")),
      order.map((i) => h("button", {class: "team-button" + (mine === i ? " chosen" : ""), "data-team": i,
        "aria-pressed": mine === i ? "true" : "false", style: "--team: " + (colours[i] || "#888"),
        onclick: async () => {
          houseNote = null;  /* a new pick: the last house's answer is old news */
          const answer = await ask("team", {team: i});
          if (!answer.ok) say(errorText(answer.error), true); else say("");
          if (answer.ok && answer.request) { lastKey = null; redraw(); }
        }},
        h("span", {class: "team-swatch", "aria-hidden": "true"}),
        h("span", {class: "team-name"}, t(keys[i])),
        h("span", {class: "team-members"}, membersOf(i)))));
  }

  /* A member of a team with people is asked to let a latecomer in ([11], CROWN-D2); a game may draw it itself. */
  function askCard(ask) {
    const reply = (accept) => act(null, {request: ask.id, accept}, "house_answer");
    return h("section", {class: "house-ask", id: "house-ask", "data-request": ask.id, role: "alert"},
      h("p", {class: "big-text"}, t("phone.asks_to_join", {name: TR.iso(ask.name)})),
      h("div", {class: "row"},
        h("button", {class: "big primary", type: "button", "data-answer": "let-in", onclick: () => reply(true)}, t("crownui.let_in")),
        h("button", {class: "big", type: "button", "data-answer": "refuse", onclick: () => reply(false)}, t("crownui.refuse_in"))));
  }

  function redraw() {
    if (unseated === "join") { joinForm(); return; }
    if (unseated === "kicked") { kicked(); return; }
    if (unseated === "claim") { claimScreen(); return; }
    if (unseated === "replaced") { replaced(); return; }
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
        nextGameLine(),
        h("p", {class: "muted"}, t("phone.players_here", {n: state.players.length}))));
      return;
    }
    const area = h("div", {class: "game-area", id: "game-area"});
    const renderer = TR.games[game.id];
    /* Everyone without a seat in this game plays along with the audience where the game has one: spectators, and
     * latecomers, who play from the next game. */
    const playAlong = renderer && renderer.audience && game.you === null && state.audience;
    if (playAlong) renderer.audience(area, game, state, (action, extra) => act(action, extra, "audience"), receivedAt);
    else if (renderer && game.you === null) renderer.tv(area, game, state, receivedAt);  /* spectators: the TV's view */
    else if (renderer) renderer.phone(area, game, state, act, receivedAt);
    if (game.you === null && state.phase === "playing") {
      const mayJoin = game.team_keys.length && state.me.role === "player";  /* a latecomer may still join a team */
      const note = mayJoin ? t("phone.join_team_now") : state.me.role === "player" ? t("phone.play_from_next") : t("phone.watching_game");
      area.prepend(h("p", {class: "muted", id: "not-playing"}, note));  /* a spectator asks to play in the lobby */
      if (mayJoin) {
        const members = (i) => TR.namesOf(state, game.slots[i].members || []);
        const botPlayed = (i) => game.slots[i].bot || !members(i).length;
        const order = game.team_keys.map((_, i) => i).sort((a, b) => botPlayed(b) - botPlayed(a) || a - b);  /* a bot's team first */
        const asking = state.house_requests && state.house_requests.asking;  /* a team with people answers first ([11]) */
        const note = asking ? h("p", {class: "muted", id: "house-waiting", role: "status"},
          t("phone.house_waiting", {team: TR.iso(t(game.team_keys[asking.team]))}))
          : houseNote ? h("p", {class: "field-error", id: "house-refused", role: "alert"}, houseNote()) : null;
        if (note) area.prepend(note);
        area.prepend(teamPicker(game.team_keys, game.team_colours,
          (i) => (botPlayed(i) ? t("tv.team_bot") : TR.list(members(i))), asking ? asking.team : null, order));
      }
    }
    const asks = game.you !== null && state.phase === "playing" && state.house_requests ? state.house_requests.asks : [];
    if (asks.length && !(renderer && renderer.asks)) area.prepend(askCard(asks[0]));  /* a game without its own card */
    if (state.phase === "finished") {
      const index = game.outcome && game.you !== null ? game.outcome.ranking.indexOf(game.you) : -1;
      const places = (game.outcome && game.outcome.places) || [];
      const place = index < 0 ? 0 : places[index] || index + 1;  /* tied seats share a place */
      const shared = places.filter((p) => p === place).length > 1;
      area.prepend(...[h("p", {class: "big-text", id: "result"},
        game.aborted ? t("tv.game_ended") : place === 1 ? t("phone.you_won") : place ? t("phone.your_place", {n: place}) : t("tv.results")),
      game.aborted && place ? h("p", {id: "place"}, t(shared ? "phone.place_shared_when_ended" : "phone.place_when_ended", {n: place})) : null]
        .filter(Boolean));
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
    clear(screen, h("div", {class: "centre", id: "no-room"}, h("p", {class: "big-text"}, t("phone.no_room", {code: TR.iso(code)})),
      h("a", {href: "/", class: "button big"}, t("phone.home"))));
  }

  /* Behind HAProxy a spectator's phone spreads over the workers: it reconnects with its own ?audience=PEER, and the
   * worker it lands on relays it to the room's own (docs/scaling.md). A relayed phone that asks for more than
   * answering is told use_room_route: it reconnects to the room's own worker, and the person taps again. */
  function route(spread) {
    const query = socket.io.opts.query || {};
    if (Boolean(query.audience) === Boolean(spread)) return false;
    let peer = storage.get("peer");
    if (spread && typeof peer !== "string") { peer = Math.random().toString(36).slice(2, 12); storage.set("peer", peer); }
    socket.io.opts.query = spread ? {room: code, audience: peer} : {room: code};
    ready = false;
    socket.disconnect().connect();
    return true;
  }

  function ask(event, payload) {
    return request(socket, event, payload).then((answer) => {
      if (!answer.ok && answer.error && answer.error.code === "use_room_route") route(false);
      return answer;
    });
  }

  async function hello() {
    const token = storage.get("seat." + code);
    if (!token) { if (!seated) joinForm(); return; }
    const answer = await request(socket, "hello", {code, token});
    if (answer.ok && route(Boolean(answer.spread))) return;  /* the audience spreads; a player comes home */
    if (answer.ok) {
      ready = true; unseated = null; lastKey = null;
      if (!outbox.length) say("");
      render(answer.state);
      flush();
      return;
    }
    if (answer.error.code === "use_room_route") { route(false); return; }
    if (["room_moving", "room_moved", ...RETRY].includes(answer.error.code)) {  /* the room changes server (docs/scaling.md) */
      setTimeout(() => { if (socket.connected) hello(); }, 500);
      return;
    }
    if (answer.error.code === "kicked") { kicked(); return; }
    if (answer.error.code === "replaced") { replaced(); return; }
    if (answer.error.code === "unknown_room") { noRoom(); return; }
    if (answer.error.code === "bad_token") storage.remove("seat." + code);
    if (answer.error.code === "seat_freed") {  /* gone too long before playing: a newcomer took the place */
      storage.remove("seat." + code);
      seated = false;
      typed = {name: null, error: answer.error};
    }
    joinForm();
  }

  /* Screen readers (TalkBack, VoiceOver; issue [18]): each change of what the phone shows is said once, in a short
   * sentence, through one polite live region (#announce): "Paused", then the screen's own headlines in reading order
   * (its heading, the question's count and prompt, "Sent", the verdict, the place). A redraw that shows the same
   * sentences says nothing; countdowns, buttons, lists and texts that announce themselves (role alert or status) are
   * left out. A game may mark what to say with data-announce. */
  const announcer = document.getElementById("announce");
  const SKIP = "button, label, li, select, output, [role=alert], [role=status], [aria-live], [aria-hidden=true], "
    + "[data-countdown], [data-countdown-to], [data-clock-to], .paused-overlay";
  let announced = "";
  function headline() {
    const marked = screen.querySelectorAll("[data-announce]");
    const parts = [];
    if (seated && !unseated && state && state.paused) parts.push(t("tv.paused"));
    for (const el of marked.length ? marked : screen.querySelectorAll("h1, h2, h3, p, legend")) {
      if (!marked.length && el.closest(SKIP)) continue;
      const text = spoken(el).replace(/[\u2068\u2069]/g, "").replace(/\s+/g, " ").trim();
      if (!text || parts.includes(text)) continue;
      parts.push(text);
      if (parts.length >= 4) break;
    }
    return parts.reduce((all, part) => (!all ? part : /[.!?؟…:]$/.test(all) ? all + " " + part : all + ". " + part), "").slice(0, 300);
  }
  /* An element's text without its countdowns and other skipped parts (a number ticking inside a sentence). */
  function spoken(el) {
    let text = "";
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement === el || !node.parentElement.closest(SKIP)) text += node.textContent;
    }
    return text;
  }
  let pending = false;
  function announce() {
    pending = false;
    const text = headline();
    if (!announcer || !text || text === announced) return;
    announced = text;
    announcer.textContent = text;
  }
  if (announcer) {
    new MutationObserver(() => { if (!pending) { pending = true; requestAnimationFrame(announce); } })
      .observe(screen, {childList: true, subtree: true});
  }

  function start() {
    if (document.body.dataset.room === "missing") { noRoom(); return; }  /* the server said so: no socket, no name form */
    socket = TR.connect("/play", hello, code);
    socket.on("state", (next, ack) => {  /* a state may carry the server's round-trip probe: acknowledged first */
      if (typeof ack === "function") ack({});
      if (seated) render(next);
    });
    if (TR.remote) TR.remote.attach(socket, {ask, say, header});  /* the host remote (remote.js, docs/remote.md) */
    socket.on("kicked", kicked);
    socket.on("claimed", (data) => {  /* the host said yes: this phone now holds the seat */
      if (!data || data.code !== code || typeof data.token !== "string") return;
      storage.set("seat." + code, data.token);
      storage.set("name", typed.name);
      hello();
    });
    socket.on("house_answered", (data) => {  /* the house a latecomer asked let them in (the state shows it) or not */
      if (!data || data.code !== code || data.accepted || !state || !state.game) return;
      const keys = state.game.team_keys;
      const team = () => TR.iso(t(keys[data.team] || ""));
      houseNote = data.reason === "timeout" ? () => t("phone.house_no_answer", {team: team()})
        : data.reason === "nobody_here" ? () => errorText({code: "house_nobody_here"})
          : data.reason === "refused" ? () => t("phone.house_said_no", {team: team()}) : null;
      lastKey = null;
      redraw();
    });
    socket.on("claim_refused", (data) => {  /* the host said no, the person's own phone is back, or the room was locked */
      if (unseated !== "claim") return;
      const reason = data && data.reason;
      const why = reason === "back" ? "name_taken" : reason === "locked" ? "room_locked" : "claim_refused";
      typed = {name: typed.name, error: {code: why, message: ""}};
      joinForm();
    });
    socket.on("disconnect", () => { ready = false; });
    socket.on("sync", (data, ack) => { if (typeof ack === "function") ack({}); });  /* the server times the round trip */
    window.addEventListener("tr-refresh", () => { lastKey = null; if (said) say(said.text, said.isError); redraw(); });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && socket && !socket.connected) socket.connect();
    });
    setInterval(() => TR.tickCountdowns(state, receivedAt), 100);
  }
  if (langReady) langReady.then(start); else start();
})();
