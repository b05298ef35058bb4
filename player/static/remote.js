/* The host remote on a phone (docs/remote.md): a phone that opened the TV's hand-over QR code
 * (/join/CODE#remote=HANDOVER) says the code once it is seated, and while its seat holds the remote it gets a "Host"
 * button in its header that opens the remote: every control of the TV (Start, Pause/Resume, Skip, Next, End game,
 * choose the game, remove someone, answer "that's me") and, in the Quiz, the quizmaster's card with the right answer
 * before the reveal. The server sends the remote's view (``remote`` events) to this seat's phones alone. phone.js
 * calls TR.remote.attach(socket, hooks) and puts TR.remote.button() in its header. */
"use strict";

TR.remote = (() => {
  const {t, h, clear, errorText, localized} = TR;
  const code = document.body.dataset.code;
  let socket = null;
  let hooks = null;
  let view = null;  /* the remote's own view while this seat holds it (host/remote.py view), else null */
  let state = null;  /* the room's newest state, as this phone gets it */
  let open = false;
  let panel = null;
  let drawnKey = null;
  let handover = null;  /* a hand-over code from the URL's fragment, said once the phone has a seat */
  let claiming = false;
  let settingsOpen = false;  /* the lobby's settings section, as the host left it */
  let roomOpen = false;  /* the room's controls, as the host left them */

  /* The code in the address (the QR code opened in this tab, or in a tab already open here: only its fragment
   * changed) is taken and removed from the address bar; a seated phone says it at once, another once seated. */
  function fromAddress() {
    const found = /^#remote=([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
    if (!found) return;
    handover = found[1];
    history.replaceState(null, "", location.pathname + location.search);
    if (socket && state && state.me && !claiming) claim();
  }
  fromAddress();
  window.addEventListener("hashchange", fromAddress);

  function attach(s, h0) {
    socket = s;
    hooks = h0;
    socket.on("state", (next) => {
      if (state && next.epoch === state.epoch && next.version < state.version) return;
      state = next;
      if (handover && !claiming && state.me) claim();
      if (view) draw();
    });
    socket.on("remote", received);
    window.addEventListener("tr-refresh", () => { drawnKey = null; if (view) draw(); });
  }

  async function claim() {
    claiming = true;
    const answer = await hooks.ask("remote_claim", {handover});
    claiming = false;
    if (!answer.ok && ["use_room_route", "timeout", "room_moving"].includes(answer.error.code)) return;  /* said again with the next state */
    handover = null;
    if (!answer.ok) hooks.say(() => errorText(answer.error), true);
  }

  /* A short word in the phone's toast, gone after a moment unless something else was said meanwhile. */
  function note(key) {
    hooks.say(() => t(key));
    setTimeout(() => {
      const toast = document.getElementById("status");
      if (toast && toast.textContent === t(key)) hooks.say("");
    }, 3000);
  }

  function received(data) {
    if (!data || data.code !== code) return;
    if (!data.on) {
      const had = view !== null;
      view = null;
      open = false;
      drawnKey = null;
      if (panel) { panel.hidden = true; clear(panel); }
      document.body.classList.remove("remote-open");
      hooks.header();
      if (had) note("remote.gone");
      return;
    }
    const first = view === null;
    view = data;
    if (first) {
      open = true;  /* the controls were just handed over: show them */
      hooks.header();
      note("remote.got");
    }
    draw();
  }

  function button() {
    if (!view) return null;
    return h("button", {class: "remote-button" + (open ? " on" : ""), id: "remote-open", "aria-pressed": open ? "true" : "false",
      "aria-controls": "remote", onclick: () => { open = !open; drawnKey = null; hooks.header(); draw(); }}, t("remote.host"));
  }

  /* What the header's button depends on. */
  function key() { return [view !== null, open]; }

  function send(control, extra) {
    return hooks.ask("remote_control", Object.assign({control}, extra || {})).then((answer) => {
      if (!answer.ok) hooks.say(() => errorText(answer.error), true);
      return answer;
    });
  }

  /* The quizmaster's card: the question and its right answer, here before the TV reveals it. */
  function answerText(n) {
    const option = (i) => localized(n.options[i]);
    if (n.kind === "choice") return t("remote.answer", {answer: option(n.answer)});
    if (n.kind === "multi") return t("remote.answer", {answer: TR.list(n.answer.map(option))});
    if (n.kind === "order") return t("remote.answer", {answer: n.answer.map(option).join(" → ")});
    if (n.kind === "numeric") {
      return n.unit ? t("remote.answer_number", {answer: n.answer, unit: localized(n.unit)}) : t("remote.answer", {answer: n.answer});
    }
    if (n.kind === "text") return t("remote.answer", {answer: TR.list(n.answer.map(localized), "disjunction")});
    return t("remote.poll");
  }

  /* The answer first, the one thing only this phone shows: the card scrolls in its own region under a long question
   * (remote.css), and the question itself is on the TV too. */
  function notesCard(n) {
    return h("section", {class: "remote-notes", id: "remote-notes", "aria-labelledby": "remote-notes-title"},
      h("h3", {id: "remote-notes-title"}, t("remote.answer_title")),
      h("p", {class: "remote-answer", id: "remote-answer", dir: "auto", "data-verbatim": ""}, answerText(n)),
      n.kind === "numeric" && n.margin ? h("p", {class: "muted"}, t("remote.margin", {margin: n.margin})) : null,
      n.revealed ? h("p", {class: "muted", id: "remote-revealed"}, t("remote.revealed")) : null,
      h("p", {class: "muted"}, t("remote.question_n", {n: n.index + 1, total: n.total})),
      h("p", {class: "remote-prompt", dir: "auto", "data-verbatim": ""}, localized(n.prompt)));
  }

  function claimCard(c) {
    return h("section", {class: "remote-claim", id: "remote-claim", role: "alert"},
      h("p", null, t("tv.claim_title", {name: TR.iso(c.name)})),
      h("div", {class: "remote-row"},
        h("button", {class: "big primary", id: "remote-claim-yes", onclick: () => send("claim", {claim: c.id, accept: true})}, t("tv.claim_yes")),
        h("button", {class: "big", id: "remote-claim-no", onclick: () => send("claim", {claim: c.id, accept: false})}, t("tv.claim_no"))));
  }

  /* The selected game's settings, as the TV's lobby has them (a number typed in any of the page's digits). */
  function settings(game) {
    if (!game || !game.settings || !game.settings.length || !game.values) return null;
    const set = (key, value) => send("settings", {game: game.id, settings: {[key]: value}});
    const rows = game.settings.map((s) => {
      const value = game.values[s.key];
      const id = "remote-set-" + s.key;
      let input;
      if (s.kind === "bool") {
        input = h("input", {type: "checkbox", id, checked: value, onchange: (e) => set(s.key, e.target.checked)});
      } else if (s.kind === "int") {
        input = h("input", {type: "text", id, value: TR.plain(value), inputmode: "numeric", autocomplete: "off", size: 5,
          onchange: (e) => {
            const western = TR.western(e.target.value).trim();
            if (!/^[0-9]{1,9}$/.test(western)) { hooks.say(() => t("error.whole_number"), true); e.target.value = TR.plain(value); return; }
            set(s.key, Number(western));
          }});
      } else {
        input = h("select", {id, onchange: (e) => set(s.key, e.target.value)},
          s.choices.map((c) => h("option", {value: c, selected: c === value}, t("choice." + c))));
      }
      return h("label", {class: "remote-setting", for: id}, h("span", null, t(s.label_key)), input,
        s.kind === "int" ? h("span", {class: "muted"}, t("tv.range", {min: s.min, max: s.max})) : null);
    });
    return h("details", {class: "remote-settings", id: "remote-settings", open: settingsOpen,
      ontoggle: (e) => { settingsOpen = e.currentTarget.open; }},
    h("summary", null, t("tv.settings", {game: t(game.name_key)})), rows);
  }

  function gameControls() {
    const phase = state.phase;
    const game = state.game;
    if (phase === "lobby" || phase === "finished") {
      const games = state.games.filter((g) => g.playable !== false);
      return [
        h("label", {class: "remote-game", for: "remote-game"}, h("span", null, t("remote.game")),
          h("select", {id: "remote-game", onchange: (e) => send("select_game", {game: e.target.value})},
            state.selected_game ? null : h("option", {value: "", selected: true, disabled: true}, t("tv.choose_game")),
            games.map((g) => h("option", {value: g.id, selected: g.id === state.selected_game}, t(g.name_key))))),
        phase === "lobby" ? settings(state.games.find((g) => g.id === state.selected_game)) : null,
        h("button", {class: "big primary", id: "remote-start", disabled: !state.selected_game, onclick: () => send("start")}, t("tv.start")),
        phase === "finished" ? h("button", {class: "big", id: "remote-lobby", onclick: () => send("lobby")}, t("tv.back_to_lobby")) : null];
    }
    const shown = game && game.view;
    const waiting = !!(shown && shown.waiting_for_host);
    /* the Quiz's Next says where it goes, as the TV's does */
    const label = game && game.id === "quiz" && waiting
      ? (shown.phase === "reveal" ? (shown.index + 1 >= shown.total ? "quiz.next_results" : "quiz.next_board") : "quiz.next_question")
      : "remote.next";
    /* "7 of 12 answered": the count comes with the remote's own view (the Quiz's host notes), as a player's phone
     * state no longer lists who else answered */
    const count = view.notes && typeof view.notes.answered === "number" ? view.notes.answered : null;
    const answered = game && game.id === "quiz" && shown && shown.phase === "question" && count !== null
      ? h("p", {class: "muted", id: "remote-answered", role: "status"}, t("quiz.answered_of", {n: count, total: shown.players.length}))
      : null;
    return [
      answered,
      h("button", {class: "big primary", id: "remote-next", disabled: !waiting || state.paused, onclick: () => send("next")}, t(label)),
      h("div", {class: "remote-row"},
        state.paused
          ? h("button", {class: "big", id: "remote-resume", onclick: () => send("resume")}, t("tv.resume"))
          : h("button", {class: "big", id: "remote-pause", onclick: () => send("pause")}, t("tv.pause")),
        h("button", {class: "big", id: "remote-skip", disabled: state.paused || !game || game.deadline_ms === null, onclick: () => send("skip")}, t("tv.skip"))),
      h("button", {class: "big danger", id: "remote-end", onclick: () => { if (confirm(t("tv.end_confirm"))) send("end"); }}, t("tv.end"))];
  }

  /* The room's own controls, as the TV's header and lobby have them: the lock, the room's language and, in the
   * lobby, the packs the next game draws from (issue [18]: the remote has every control of the TV). */
  function room() {
    const lock = h("button", {id: "remote-lock", class: view.locked ? "toggle on" : "toggle",
      onclick: () => send("lock", {locked: !view.locked})}, view.locked ? t("tv.unlock") : t("tv.lock"));
    const language = h("label", {class: "remote-setting", for: "remote-language"}, h("span", null, t("tv.language")),
      h("select", {id: "remote-language", onchange: (e) => send("language", {language: e.target.value})},
        ["en", "fa", "ro"].map((l) => h("option", {value: l, selected: l === view.language}, t("language." + l)))));
    const supply = view.packs;
    const packs = supply && supply.packs.length ? h("fieldset", {class: "remote-packs", id: "remote-packs"},
      h("legend", null, t("tv.packs")),
      supply.packs.map((p) => h("label", {class: "remote-pack", for: "remote-pack-" + p.id},
        h("input", {type: "checkbox", id: "remote-pack-" + p.id, "data-pack": p.id, checked: supply.selected.includes(p.id),
          onchange: (e) => send("packs", {packs: supply.packs.map((q) => q.id)
            .filter((id) => (id === p.id ? e.target.checked : supply.selected.includes(id)))})}),
        h("bdi", {class: "pack-name"}, p.name), h("span", {class: "muted"}, t("tv.pack_total", {n: p.total ?? p.numeric + p.choice}))))) : null;
    /* drawn only while open: a closed disclosure's content still has boxes the screens checker would judge */
    return h("details", {class: "remote-settings", id: "remote-room", open: roomOpen,
      ontoggle: (e) => { if (roomOpen !== e.currentTarget.open) { roomOpen = e.currentTarget.open; drawnKey = null; draw(); } }},
    h("summary", null, t("remote.room")), roomOpen ? [h("div", {class: "remote-row"}, lock), language, packs] : null);
  }

  /* Each person: their extended time (the host's alone to see, as on the TV) and the host's "remove". */
  function people() {
    const others = state.players.filter((p) => !state.me || p.id !== state.me.id);
    const everyone = state.players;
    if (!everyone.length) return null;
    const factors = view.extra_time || {};
    return h("section", {class: "remote-people", "aria-labelledby": "remote-people-title"},
      h("h3", {id: "remote-people-title"}, t("remote.people")),
      h("ul", null, everyone.map((p) => h("li", {"data-seat": p.id},
        TR.badge(p.colour, p.shape, 28), h("bdi", {class: "name"}, p.name),
        h("select", {class: "remote-xtime", "data-xtime-select": p.id, "aria-label": t("xtime.button", {name: TR.iso(p.name)}),
          onchange: (e) => send("extra_time", {seat: p.id, factor: Number(e.target.value)})},
        [1, 1.5, 2].map((f) => h("option", {value: f, selected: Number(factors[p.id] || 1) === f},
          f === 1 ? t("xtime.standard") : t("xtime.factor", {f})))),
        others.includes(p) ? h("button", {class: "remote-kick", "data-kick": p.id, "aria-label": t("tv.kick_name", {name: p.name}),
          onclick: () => { if (confirm(t("tv.kick_confirm", {name: p.name}))) send("kick", {seat: p.id}); }}, "✕") : null))));
  }

  function draw() {
    if (!panel) {
      panel = h("section", {id: "remote", class: "remote-panel", "aria-labelledby": "remote-title", hidden: ""});
      document.getElementById("screen").after(panel);
    }
    if (!view || !open || !state) {
      panel.hidden = true;
      document.body.classList.remove("remote-open");
      drawnKey = null;
      return;
    }
    const game = state.game;
    const k = JSON.stringify([view.claims, view.notes, state.phase, state.paused, state.selected_game, state.games.map((g) => g.id),
      state.players.map((p) => [p.id, p.name]), game && game.deadline_ms === null, game && game.view && game.view.waiting_for_host,
      game && game.view && [game.view.phase, game.view.index],
      state.phase === "lobby" ? (state.games.find((g) => g.id === state.selected_game) || {}).values || null : null, TR.lang,
      view.locked, view.language, view.packs, view.extra_time]);
    panel.hidden = false;
    document.body.classList.add("remote-open");
    if (k === drawnKey) return;  /* the buttons stay under the thumb while nothing they do changed */
    drawnKey = k;
    clear(panel,
      h("header", {class: "remote-head"},
        h("h2", {id: "remote-title"}, t("remote.title")),
        h("button", {id: "remote-close", onclick: () => { open = false; hooks.header(); draw(); }}, t("remote.my_game"))),
      view.claims.length ? claimCard(view.claims[0]) : null,
      view.notes ? notesCard(view.notes) : null,
      h("div", {class: "remote-controls"}, gameControls()),
      people(),
      room(),
      h("button", {class: "remote-give-back", id: "remote-give-back", onclick: () => hooks.ask("remote_release", {})}, t("remote.give_back")));
  }

  return {attach, button, key};
})();
