/* Throneroom TV page: creates or rejoins the room, shows the lobby, the running game and the results,
 * and (with the host token in this browser's storage) the host controls. */
"use strict";

(() => {
  const {t, h, clear, update, forget, badge, storage, request, errorText, num, plain} = TR;
  const body = document.body;
  const code = body.dataset.code || null;
  const screen = document.getElementById("screen");
  const status = document.getElementById("status");
  let socket = null;
  let state = null;
  let receivedAt = 0;
  let isHost = false;
  let timersOpen = false;
  let swapIn = null;  /* the host chose someone to play the next game and now picks who watches instead */
  const MOVING = ["room_moving", "room_moved"];  /* docs/scaling.md: a room taken over by another worker */

  function say(text, isError) {
    status.textContent = text || "";
    status.className = isError ? "status error" : "status";
  }

  async function boot() {
    if (!code) {
      const last = storage.get("host.last");
      if (last && last.code) {
        const answer = await fetch("/api/rooms/" + encodeURIComponent(last.code)).then((r) => r.json()).catch(() => null);
        if (answer && answer.ok) { location.replace("/tv/" + last.code); return; }
      }
      await newRoom();
      return;
    }
    socket = TR.connect("/tv", watch, code);
    socket.on("state", (next) => render(next));
  }

  async function newRoom() {
    /* After "New room" the TV names the room it leaves, with its host token: the new room keeps that host's
     * identity and so its packs (docs/packs.md); the server ignores a token that is not that room's. */
    const from = storage.get("host.from");
    const token = from && from.code ? storage.get("host." + from.code) : null;
    const response = await fetch("/api/rooms", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(token ? {from: {code: from.code, host_token: token}} : {})}).catch(() => null);
    if (!response || !response.ok) {  /* too many rooms from this device, every code in use: say which */
      const answer = response ? await response.json().catch(() => null) : null;
      const why = answer && answer.error ? TR.errorText(answer.error) : t(response ? "error.internal" : "error.timeout");
      clear(screen, h("div", {class: "centre"}, h("h1", {text: why}),
        h("button", {class: "big", onclick: () => location.reload()}, t("tv.new_room"))));
      return;
    }
    const room = await response.json();
    storage.set("host." + room.code, room.host_token);
    storage.set("host.last", {code: room.code});
    storage.remove("host.from");
    location.replace("/tv/" + room.code);
  }

  async function watch() {
    const token = storage.get("host." + code);
    let answer = await request(socket, "watch", {code, host_token: token || undefined});
    if (!answer.ok && answer.error.code === "not_host") {
      storage.remove("host." + code);
      answer = await request(socket, "watch", {code});
    }
    if (!answer.ok && MOVING.includes(answer.error.code)) {  /* the room changes server: ask again shortly */
      setTimeout(() => { if (socket.connected) watch(); }, 500);
      return;
    }
    if (!answer.ok) {
      clear(screen, h("div", {class: "centre"},
        h("h1", {text: t("tv.no_room", {code})}),
        h("button", {class: "big", onclick: () => { storage.remove("host.last"); location.href = "/tv"; }},
          t("tv.new_room"))));
      return;
    }
    isHost = answer.state.host;
    if (isHost) storage.set("host.last", {code});
    render(answer.state);
  }

  function control(name, extra) {
    return request(socket, "control", Object.assign({control: name}, extra || {})).then((answer) => {
      /* a refusal of the chosen packs says what to do; another error about packs (unknown_pack) says its own */
      const short = answer.error && answer.error.field === "packs" && answer.error.code === "invalid_settings";
      if (!answer.ok) say(short ? t("tv.packs_short") : errorText(answer.error), true);
      else say("");
      return answer;
    });
  }

  /* A state is drawn once what it needs is here: the room language's catalog and the shown game's scripts and
   * styles, fetched the first time (TR.prepare); a newer state that comes meanwhile replaces it. */
  const unready = {waiting: null};  /* a state waiting for its files (TR.whenReady) */
  function render(next) {
    if (state && next.epoch === state.epoch && next.version < state.version) return;
    if (!TR.whenReady(unready, next, TR.prepare([next.language], [next.game && next.game.id]), render)) return;
    if (next !== state) receivedAt = performance.now();  /* a redraw of the same state (tr-refresh) keeps its clock */
    state = next;
    isHost = state.host;
    if (state.language !== TR.lang) TR.setLang(state.language);
    update(document.getElementById("host-controls"), [isHost, state.language, state.locked, TR.lang],
      renderHeader);
    if (state.phase !== "lobby") swapIn = null;
    if (state.phase === "lobby") renderLobby();
    else if (state.phase === "playing") renderPlaying();
    else renderFinished();
    if (TR.sound) TR.sound.room(state.phase);  /* the lobby's music; silence on the results */
    if (TR.sound && state.phase === "finished" && state.game && !state.game.aborted) TR.sound.cue("podium", [state.epoch, state.game.id, state.game.step]);
    renderClaims();
    renderStorage();
    renderHold();
    renderTimingDoubts();
    if (TR.handover) TR.handover.render(state, control);  /* the host remote (handover.js, docs/remote.md) */
  }

  /* Players whose claimed answer times the server did not believe (a round trip the room's network does not back,
   * or claims faster than the network or than a person): the host is told who, and by how much. */
  function renderTimingDoubts() {
    const doubts = isHost && state.phase === "playing" ? state.timing_doubts || [] : [];
    const worst = doubts.length ? doubts.reduce((a, b) => (a.rtt >= b.rtt ? a : b)) : null;
    headerNotice("timing-warning", "status", worst && t("tv.timing_doubt",
      {names: TR.list(doubts.map((d) => TR.iso(d.name))), rtt: worst.rtt, room: worst.room_rtt}));
  }

  /* The audience's answers could not be saved for a while (the database is locked elsewhere): the host is told until
   * they are written (host/audience.py trouble). */
  function renderStorage() {
    const trouble = isHost ? state.storage : null;
    headerNotice("storage-warning", "alert", trouble && t("tv.storage_busy", {n: trouble.waiting}));
  }

  /* [issue 19, outages] Why the room holds still: the database (or, for a room whose audience is spread over the
   * workers, Redis) is not answering, and the game waits for it with its clock stopped (docs/scaling.md, "When
   * PostgreSQL or Redis stops"). Shown on every TV, not only the host's; gone once the room goes on. */
  function renderHold() {
    const hold = state.hold;
    headerNotice("hold-notice", "alert", hold && holdText());
  }

  function holdText() {
    return t("outage." + (state.hold.reason === "relay" ? "relay" : "database"));
  }

  /* A notice in the header, on a line of its own under the controls (style.css .header-notice: it never covers a
   * control the host needs, and the stage shrinks to make room: --tv-u), or none when ``text`` is empty. */
  function headerNotice(id, role, text) {
    let box = document.getElementById(id);
    if (!text) { if (box) box.remove(); return; }
    if (!box) {
      box = h("span", {id, class: "header-notice", role});
      document.getElementById("host-controls").before(box);
    }
    box.textContent = text;
  }

  /* The screen is a layout of regions; a region is rebuilt only when what it shows changed, so a phone
   * joining does not disturb the host typing a setting, and the QR code does not flicker. */
  let layout = null;
  const regions = {};

  function useLayout(name, build) {
    if (layout === name) return;
    layout = name;
    clear(screen, build());
  }

  function region(name, className) {
    regions[name] = h("div", {"data-region": name, class: className || ""});
    return regions[name];
  }

  function gameKey() {
    return state.game && Object.assign({}, state.game, {now_ms: 0});
  }

  function renderHeader() {
    if (!isHost) return [];
    const langSelect = h("select", {id: "room-language", "aria-label": t("tv.language"),
      onchange: (e) => control("language", {language: e.target.value})},
      ["en", "fa", "ro"].map((l) => h("option", {value: l, selected: l === state.language}, t("language." + l))));
    const lock = h("button", {id: "lock", class: state.locked ? "toggle on" : "toggle",
      onclick: () => control("lock", {locked: !state.locked})}, state.locked ? t("tv.unlock") : t("tv.lock"));
    const fresh = h("button", {id: "new-room", onclick: () => {
      if (confirm(t("tv.new_room_confirm"))) {
        storage.set("host.from", {code: state.code});
        storage.remove("host.last");
        location.href = "/tv";
      }
    }}, t("tv.new_room"));
    return [langSelect, lock, fresh];  /* sound and the Display sheet: sound.js, beside these (#display-controls) */
  }

  function joinPanel(compact) {
    const url = body.dataset.publicUrl + "/join/" + state.code;
    return h("section", {class: compact ? "join compact" : "join", "data-read-from-sofa": ""},
      h("p", {class: "join-title"}, t("tv.join_title")),
      h("img", {class: "qr", src: "/qr/" + state.code + ".svg", alt: t("tv.qr_alt", {url})}),
      h("p", {class: "code-label"}, t("tv.code")),
      h("p", {class: "code", id: "room-code", dir: "ltr", "data-verbatim": ""}, state.code),
      h("p", {class: "url", dir: "ltr", "data-verbatim": ""}, url),
      state.locked ? h("p", {class: "locked-note"}, t("tv.locked_note")) : null);
  }

  /* In the lobby of a team game each player shows their team; the host moves players with a menu. */
  function teamTag(p) {
    const game = state.phase === "lobby" && state.games.find((g) => g.id === state.selected_game);
    if (!game || !game.teams) return null;
    const colour = p.team === null ? "transparent" : game.team_colours[p.team];
    if (!isHost) {
      return h("span", {class: "team-tag", style: "--team: " + colour}, p.team === null ? t("tv.team_none") : t(game.team_keys[p.team]));
    }
    return h("select", {class: "team-tag", style: "--team: " + colour, "aria-label": t("tv.team_of", {name: p.name}),
      onchange: (e) => control("team", {seat: p.id, team: e.target.value === "" ? null : Number(e.target.value)})},
      h("option", {value: "", selected: p.team === null}, t("tv.team_none")),
      game.team_keys.map((key, i) => h("option", {value: String(i), selected: p.team === i}, t(key))));
  }

  function kick(p) {
    if (confirm(t("tv.kick_confirm", {name: TR.iso(p.name)}))) control("kick", {seat: p.id});
  }

  /* Who plays the next game (the lineup): everyone connected, in joining order, but those who sit it out and those
   * whose phone is gone past the grace; a game with fewer seats takes the first. The host swaps someone watching with
   * someone playing: "Play" on the one who watches, then "Watches instead" on the one who makes room. */
  function lineupOf() {
    const game = state.games.find((g) => g.id === state.selected_game);
    const lineup = state.lineup || {seats: [], gone: []};
    const full = Boolean(game && !game.teams && lineup.seats.length >= game.max_players);
    return {lineup, full};
  }

  function bringIn(p) {
    const {full} = lineupOf();
    if (full) { swapIn = p.id; forget(regions.players); renderLobby(); return; }
    control("lineup", {seat: p.id, play: true});
  }

  function swapTo(p) {
    const seat = swapIn;
    swapIn = null;
    forget(regions.players);
    control("lineup", {seat, play: true, instead: p.id});
  }

  function lineupNote(p, plays, lineup) {
    if (!p.connected) return lineup.gone.includes(p.id) ? t("tv.gone") : t("tv.away");
    if (!state.selected_game) return null;
    return plays ? null : p.sits_out ? t("tv.sits_out") : t("tv.no_seat");
  }

  function lineupButton(p, plays) {
    if (!isHost || !state.selected_game) return null;
    if (swapIn !== null) {
      return plays ? h("button", {class: "lineup-button", "data-fine": "", "data-swap": p.id, onclick: () => swapTo(p)}, t("tv.watches_instead"))
        : null;
    }
    return plays ? h("button", {class: "lineup-button", "data-fine": "", "data-watch": p.id, onclick: () => control("lineup", {seat: p.id, play: false})}, t("tv.watch"))
      : h("button", {class: "lineup-button", "data-fine": "", "data-play": p.id, onclick: () => bringIn(p)}, t("tv.play"));
  }

  /* Extended time (docs/decisions.md, "Extended time"): the host's menu for one person. The room sees the TV, so
   * closed it is a clock icon that says nothing of the factor; opened, a select of standard, ×1.5 and ×2 time. */
  const XTIME_FACTORS = [1, 1.5, 2];
  function xtimeMenu(p) {
    if (!isHost) return null;
    const current = Number((state.extra_time || {})[p.id] || 1);
    const label = t("xtime.button", {name: TR.iso(p.name)});
    const select = h("select", {class: "xtime-select", "aria-label": label, "data-xtime-select": p.id,
      onchange: (e) => control("extra_time", {seat: p.id, factor: Number(e.target.value)})},
      XTIME_FACTORS.map((f) => h("option", {value: String(f), selected: f === current},
        f === 1 ? t("xtime.standard") : t("xtime.factor", {f}))));
    return h("details", {class: "xtime", "data-fine": "", "data-xtime": p.id},
      h("summary", {"aria-label": label, title: label}, h("svg", {class: "xtime-icon", viewBox: "0 0 24 24", "aria-hidden": "true"},
        h("circle", {cx: 12, cy: 13, r: 8}), h("path", {d: "M12 9 V13 L15 15 M10 3 H14"}))),
      h("div", {class: "xtime-menu"}, select, h("p", {class: "muted xtime-hint"}, t("xtime.hint"))));
  }

  /* The lobby: every person as a chip with their mark and whole name (a name has at most 20 characters, and a chip
   * is as wide as its name), whether they play the next game, the host's lineup buttons and ✕ and, in a team game,
   * the team. Spectators are listed by name (the first twelve) so the host can bring one in. */
  function playerList() {
    const {lineup} = lineupOf();
    const items = state.players.map((p) => {
      const plays = lineup.seats.includes(p.id);
      const note = lineupNote(p, plays, lineup);
      return h("li", {class: (p.connected ? "player" : "player away") + (teamTag(p) ? " has-team" : "") + (plays ? "" : " sits-out"),
        "data-seat": p.id, "data-plays": plays ? "yes" : "no"},
        badge(p.colour, p.shape, 44),
        h("bdi", {class: "name"}, p.name),
        note ? h("span", {class: "away-note"}, note) : null,
        lineupButton(p, plays),
        isHost ? h("button", {class: "kick", "data-fine": "", "aria-label": t("tv.kick_name", {name: TR.iso(p.name)}), title: t("tv.kick"),
          onclick: () => kick(p)}, "✕") : null,
        xtimeMenu(p),
        teamTag(p));
    });
    const empty = state.players.length ? null : h("li", {class: "empty"}, t("tv.no_players"));
    const shown = state.spectators.slice(0, 12);
    const watchers = isHost && state.selected_game && shown.length ? h("ul", {class: "watchers", id: "watcher-list"}, shown.map((p) =>
      h("li", {class: "watcher", "data-seat": p.id}, badge(p.colour, p.shape, 28), h("bdi", {class: "name"}, p.name), lineupButton(p, false)))) : null;
    return h("section", {class: state.players.length > 6 ? "players many" : "players", "data-read-from-sofa": ""},
      h("h2", null, t("tv.players", {n: state.players.length, max: state.max_players})),
      swapIn !== null ? h("p", {class: "swap-hint", id: "swap-hint"}, t("tv.swap_hint"),
        h("button", {class: "lineup-button", onclick: () => { swapIn = null; forget(regions.players); renderLobby(); }}, t("tv.cancel"))) : null,
      h("ul", {id: "player-list"}, items, empty),
      state.spectator_count ? h("p", {class: "spectators"}, t("tv.spectators", {n: state.spectator_count})) : null,
      watchers);
  }

  function grace() {
    return h("label", {class: "seat-grace", "data-fine": ""}, t("tv.seat_grace"),
      h("input", {id: "seat-grace", type: "text", inputmode: "numeric", value: plain(state.seat_grace_s), dir: "ltr",
        onchange: (e) => {
          const seconds = wholeNumber(e.target.value);
          if (seconds === null) { say(t("error.invalid"), true); return; }
          control("seat_grace", {seconds});
        }}));
  }

  /* The nickname filter (docs/security.md, "Nicknames"): on unless the host turns it off, for the names to come. */
  function nameFilter() {
    return h("label", {class: "seat-grace name-filter", "data-fine": ""},
      h("input", {id: "name-filter", type: "checkbox", checked: state.name_filter !== false,
        onchange: (e) => control("name_filter", {on: e.target.checked})}), t("tv.name_filter"));
  }

  /* The room's own settings (host only, behind the lobby's Settings door): how long a seat waits for its phone, and
   * the nickname filter. */
  function roomSettings() {
    if (!isHost) return null;
    return h("section", {class: "room-settings-panel", id: "room-settings-panel"}, grace(), nameFilter());
  }

  /* "That's me": a phone says it is someone whose phone is gone; the host confirms with one tap (any screen). One
   * line at the foot of the screen however many ask (the server keeps one request per name): the oldest request
   * with its two buttons, and how many more wait. The buttons of a request just shown are held for a second, so a
   * tap meant for the one before (answered, or ended by its person's phone coming back) does not answer it. */
  function renderClaims() {
    let box = document.getElementById("claims");
    const claims = isHost ? state.claims || [] : [];
    if (!claims.length) { if (box) box.remove(); return; }
    /* a line of the page under the screen, which makes room for it: it never covers a host's button (Start, End) */
    if (!box) { box = h("div", {id: "claims", class: "claims", role: "alertdialog", "aria-labelledby": "claim-title"}); document.body.append(box); }
    const c = claims[0];
    const key = JSON.stringify([c, claims.length, TR.lang]);
    if (box.dataset.key === key) return;  /* the buttons stay under the host's finger while states come and go */
    const fresh = box.dataset.claim !== String(c.id);
    box.dataset.key = key;
    box.dataset.claim = String(c.id);
    const buttons = [
      h("button", {class: "primary", "data-claim-yes": c.id, disabled: fresh, onclick: () => control("claim", {claim: c.id, accept: true})}, t("tv.claim_yes")),
      h("button", {"data-claim-no": c.id, disabled: fresh, onclick: () => control("claim", {claim: c.id, accept: false})}, t("tv.claim_no"))];
    if (fresh) setTimeout(() => buttons.forEach((b) => { b.disabled = false; }), 1000);
    clear(box, h("div", {class: "claim", "data-claim": c.id},
      h("p", {id: "claim-title"}, t("tv.claim_title", {name: TR.iso(c.name)})), buttons,
      claims.length > 1 ? h("span", {class: "claims-more", id: "claims-more"}, t("tv.claims_more", {n: claims.length - 1})) : null));
  }

  /* During a game the side panel keeps its room for the QR code: the people in the room collapse to their marks
   * (the game shows the names of those who play); a dimmed mark with a dot is a phone that is reconnecting. The
   * host removes someone by their mark. */
  function playerBadges() {
    const items = state.players.map((p) => {
      const label = p.name + (p.connected ? "" : " · " + t("tv.away"));
      const mark = [badge(p.colour, p.shape, 40), p.connected ? null : h("span", {class: "away-dot", "aria-hidden": "true"})];
      return h("li", {class: p.connected ? "player" : "player away", "data-seat": p.id, title: label},
        isHost ? h("button", {class: "badge-button", "aria-label": t("tv.kick_name", {name: TR.iso(p.name)}), onclick: () => kick(p)}, mark)
          : h("span", {class: "badge-only", role: "img", "aria-label": label}, mark), xtimeMenu(p));
    });
    const empty = state.players.length ? null : h("p", {class: "empty"}, t("tv.bots_only"));
    return h("section", {class: "players badges", "data-read-from-sofa": ""},
      h("h2", null, t("tv.players", {n: state.players.length, max: state.max_players})),
      h("ul", {id: "player-list"}, items), empty,
      state.spectator_count ? h("p", {class: "spectators"}, t("tv.spectators", {n: state.spectator_count})) : null);
  }

  function gameCards() {
    return h("section", {class: "games"},
      h("h2", null, t("tv.choose_game")),
      h("div", {class: "game-cards" + (state.selected_game ? " picked" : "")}, state.games.map((g) => h("button", {
        class: "game-card" + (state.selected_game === g.id ? " selected" : "") + (g.playable ? "" : " soon"),
        "data-game": g.id, disabled: !isHost, "aria-pressed": state.selected_game === g.id ? "true" : "false",
        onclick: () => control("select_game", {game: g.id})},
        h("span", {class: "game-name"}, t(g.name_key)),
        h("span", {class: "game-count"}, g.teams ? t("tv.teams", {n: g.max_players})
          : g.min_players === g.max_players ? t("tv.players_exact", {n: g.min_players})
            : t("tv.players_range", {min: g.min_players, max: g.max_players})),
        h("span", {class: "game-blurb"}, t(g.blurb_key)),
        g.playable ? null : h("span", {class: "soon-note"}, t("tv.coming_soon"))))));
  }

  function settingsPanel(game) {
    const rows = game.settings.map((s) => {
      const value = game.values[s.key];
      let input;
      if (s.kind === "bool") {
        input = h("input", {type: "checkbox", id: "set-" + s.key, checked: value, disabled: !isHost,
          onchange: (e) => control("settings", {game: game.id, settings: {[s.key]: e.target.checked}})});
      } else if (s.kind === "int") {  /* a text field, so that a Persian page shows Persian digits */
        input = h("input", {type: "text", id: "set-" + s.key, value: plain(value), disabled: !isHost, inputmode: "numeric",
          autocomplete: "off", size: 5, "aria-describedby": "range-" + s.key,
          onchange: (e) => {
            const number = wholeNumber(e.target.value);
            if (number === null) { say(t("error.whole_number"), true); e.target.value = plain(value); return; }
            control("settings", {game: game.id, settings: {[s.key]: number}}).then((a) => { if (!a.ok) e.target.value = plain(value); });
          }});
      } else {
        input = h("select", {id: "set-" + s.key, disabled: !isHost,
          onchange: (e) => control("settings", {game: game.id, settings: {[s.key]: e.target.value}})},
          s.choices.map((c) => h("option", {value: c, selected: c === value}, t("choice." + c))));
      }
      return h("label", {class: "setting" + (s.group ? " in-group" : ""), for: "set-" + s.key, "data-group": s.group},
        h("span", null, t(s.label_key)), input,
        s.kind === "int" ? h("span", {class: "range", id: "range-" + s.key}, t("tv.range", {min: s.min, max: s.max})) : null,
        scaledTimer(s, value));
    });
    const main = rows.filter((r) => !r.dataset.group);
    const timers = rows.filter((r) => r.dataset.group === "timers");
    const note = scaled() && game.settings.some((s) => s.unit)
      ? h("p", {class: "hint", id: "timer-scale-note"}, t("tv.timer_scale_note", {scale: num(state.timer_scale)})) : null;
    if (timers.length) {
      main.push(h("details", {class: "setting-group", id: "timers", open: timersOpen,
        ontoggle: (e) => { timersOpen = e.currentTarget.open; }}, h("summary", null, t("tv.timers")), note, timers));
    } else if (note) main.push(note);
    return h("section", {class: "settings", "data-values": JSON.stringify(game.values)}, h("h2", null, t("tv.settings", {game: t(game.name_key)})), main);
  }

  /* Whether this server runs its timers at another speed than the settings say (throneroom serve --timer-scale). */
  function scaled() {
    return typeof state.timer_scale === "number" && state.timer_scale !== 1;
  }

  /* Beside a timer setting on a scaled server: how long it will really last. What the host types stays in the game's
   * own units (docs/decisions.md, [10]); the game rounds the same way (engine.core.Context.timer_ms). */
  function scaledTimer(s, value) {
    const unitMs = {s: 1000, min: 60000}[s.unit];
    if (!unitMs || !scaled() || typeof value !== "number") return null;
    const ms = value ? Math.max(50, Math.round(value * unitMs * state.timer_scale)) : 0;
    return h("span", {class: "scaled", id: "scaled-" + s.key},
      t(s.unit === "min" ? "tv.runs_minutes" : "tv.runs_seconds", {n: num(ms / unitMs, {maximumFractionDigits: 2})}));
  }

  /* A whole number typed in any of the page's digits (Western, Persian, Arabic-Indic), or null. */
  function wholeNumber(text) {
    const western = TR.western(text).trim();
    return /^[0-9]{1,9}$/.test(western) ? Number(western) : null;
  }

  /* A short "how to play" for the chosen game, from its catalog entry (lines separated by "|"). */
  function howToPlay(game) {
    const key = "game." + game.id + ".howto";
    if (!TR.has(key)) return null;
    const lines = t(key).split("|").map((line) => line.trim());
    const list = (shown) => h("ol", null, shown.map((line) => h("li", null, line)));
    /* the first two steps on the lobby, where they fit a 1280x720 screen under the people and the games, at the size
     * read from the sofa; every step in a sheet one tap away (issue [18]) */
    const more = lines.length > 2 ? h("button", {class: "small", id: "howto-more",
      onclick: () => TR.sheet(t("tv.how_to_play") + " · " + t(game.name_key), list(lines))}, t("stage.all_rules")) : null;
    return h("section", {class: "howto", id: "howto", "data-read-from-sofa": ""}, h("h2", null, t("tv.how_to_play")), list(lines.slice(0, 2)), more);
  }

  /* Question packs: choose, preview, upload, delete (host only). The report of a rejected upload stays until the
   * next upload. */
  let packReport = null;

  function hostHeaders() {
    return {"X-Room-Code": state.code, "X-Host-Token": storage.get("host." + state.code) || ""};
  }

  let packFile = null;  /* the upload form's file input (packsPanel) */
  let packDraft = {language: null, shared: false};  /* what the host chose in the upload form, until it uploads */

  async function uploadPack(form) {
    const data = new FormData(form);
    packReport = {busy: true};
    render(state);
    let answer;
    try {
      const response = await fetch("/api/packs", {method: "POST", body: data, headers: hostHeaders()});
      answer = await response.json().catch(() => ({ok: false, problems: [{where: "upload", field: "", message: t("error.internal")}]}));
    } catch (e) {
      answer = {ok: false, problems: [{where: "upload", field: "", message: t("error.timeout")}]};
    }
    packReport = answer;
    if (answer.ok) {  /* the server has chosen it for the next game (answer.selection; docs/packs.md) */
      packFile.value = "";
      packDraft = {language: null, shared: false};
    }
    forget(regions.packs);
    render(state);
  }

  async function previewPack(id) {
    const response = await fetch("/api/packs/" + encodeURIComponent(id), {headers: hostHeaders()});
    if (!response.ok) { await refusedPack(response); return; }  /* 404, or 429 rate_limited */
    const pack = await response.json();
    packReport = {preview: pack};
    forget(regions.packs);
    render(state);
  }

  async function deletePack(id, name) {
    if (!confirm(t("tv.pack_delete_confirm", {name: TR.iso(name)}))) return;
    await control("packs", {packs: state.questions.selected.filter((p) => p !== id)});
    const response = await fetch("/api/packs/" + encodeURIComponent(id), {method: "DELETE", headers: hostHeaders()});
    if (!response.ok) await refusedPack(response);
  }

  /* The owner offers one of its packs to every room, or takes it back (a room that chose it loses it). */
  async function sharePack(id, shared) {
    const response = await fetch("/api/packs/" + encodeURIComponent(id), {method: "PATCH",
      headers: Object.assign({"Content-Type": "application/json"}, hostHeaders()), body: JSON.stringify({shared})});
    if (!response.ok) await refusedPack(response);
  }

  async function refusedPack(response) {
    const answer = await response.json().catch(() => null);
    say(answer && answer.error ? errorText(answer.error) : t(response.status === 404 ? "error.unknown_pack" : "error.internal"), true);
  }

  /* A place in a pack file as a report names it ("row 4", "line 12", "questions[3]", "file"), and a field
   * ("answer", "options[2]"), in the page's language; a name the TV does not know (a file's) is shown as it is. */
  function packPlace(where) {
    const found = /^(line|row) (\d+)$/.exec(where) || /^(questions|results)\[(\d+)\]$/.exec(where);
    if (found) return t("pack.where." + (found[1] === "line" || found[1] === "row" ? found[1] : "question"), {n: Number(found[2])});
    return TR.has("pack.where." + where) ? t("pack.where." + where) : TR.iso(where);
  }

  function packField(field) {
    const option = /^options\[(\d+)\]$/.exec(field);
    if (option) return t("pack.field.option", {n: Number(option[1])});
    const key = "pack.field." + field.replace(/ /g, "_");
    return TR.has(key) ? t(key) : TR.iso(field);
  }

  /* One problem of an upload's report: its catalog message (pack.problem.<code>, its args; quoted values isolated),
   * else the message the server wrote; with its place and field. */
  function problemText(p) {
    let message = p.message;
    if (p.code && TR.has("pack.problem." + p.code)) {
      const args = {};
      for (const [name, value] of Object.entries(p.args || {})) {
        args[name] = name === "other" ? packPlace(String(value)) : typeof value === "string" ? TR.iso(value) : value;
      }
      message = t("pack.problem." + p.code, args);
    } else if (p.code && TR.has("error." + p.code)) message = errorText({code: p.code, message: p.message});
    if (!p.where || p.where === "upload") return message;
    const where = packPlace(p.where);
    return p.field ? t("pack.problem_at", {where, field: packField(p.field), message}) : t("pack.problem_in", {where, message});
  }

  /* What the selected game asks (game.<id>.needs: a typical game's [lowest, highest] of each kind, or a plain
   * count) beside what the chosen packs have, and for a game with a top-up setting where the rest comes from. */
  function needsLine(game, q) {
    const needs = game.needs;
    const params = {numeric: q.numeric, choice: q.choice, n: q.total ?? q.numeric + q.choice};
    for (const [kind, span] of Object.entries(needs)) {
      params[kind + "_min"] = Array.isArray(span) ? span[0] : span;
      params[kind + "_max"] = Array.isArray(span) ? span[1] : span;
    }
    const lines = [h("span", {class: "pack-needs", id: "pack-needs"}, t("game." + game.id + ".needs", params))];
    if (game.values && "top_up" in game.values) {
      lines.push(" ", h("span", {class: "pack-top-up", id: "pack-top-up"},
        t("game." + game.id + (game.values.top_up ? ".needs_top_up" : ".needs_again"))));
    }
    return lines;
  }

  /* The kind of question the chosen packs lack so that Start would be refused, or null: with ranges (a game that
   * plays with any number), only a kind with none at all and no top-up; with a plain count, fewer than that. */
  function packsLacking(game, q) {
    const needs = game.needs || {};
    return Object.keys(needs).find((k) => Array.isArray(needs[k])
      ? game.values && game.values.top_up === false && !q[k] : q[k] < needs[k]) || null;
  }

  /* Whose a pack is, as the lobby marks it: built-in, yours (shared or not), or shared by another host. */
  function whose(pack) {
    if (pack.builtin) return "builtin";
    return pack.mine ? (pack.shared ? "mine_shared" : "mine") : "shared";
  }

  function packsPanel(game) {
    const q = state.questions;
    const selected = new Set(q.selected);
    const toggle = (id, on) => control("packs", {packs: on ? q.selected.concat([id]) : q.selected.filter((p) => p !== id)});
    const supply = h("p", {class: "pack-supply" + (packsLacking(game, q) ? " short" : ""), id: "pack-supply"},
      needsLine(game, q));
    const list = h("ul", {class: "pack-list", id: "pack-list"}, q.packs.map((p) => h("li", {"data-pack": p.id},
      h("label", null, h("input", {type: "checkbox", checked: selected.has(p.id), disabled: !isHost,
        onchange: (e) => toggle(p.id, e.target.checked)}),
      h("bdi", {class: "pack-name"}, p.name), h("span", {class: "pack-lang"}, t("language." + p.language)),
      h("span", {class: "pack-count"}, t("tv.pack_total", {n: p.total ?? p.numeric + p.choice})),
      h("span", {class: "pack-owner muted"}, t("pack.badge." + whose(p)))),
      isHost ? h("button", {class: "small", onclick: () => previewPack(p.id)}, t("tv.pack_preview")) : null,
      isHost && p.mine ? h("button", {class: "small pack-share", "aria-pressed": p.shared ? "true" : "false",
        onclick: () => sharePack(p.id, !p.shared)}, t(p.shared ? "pack.unshare" : "pack.share")) : null,
      isHost && p.mine ? h("button", {class: "small danger", onclick: () => deletePack(p.id, p.name)}, t("tv.pack_delete")) : null)));
    /* the file input is one element, kept, and the choices are remembered: the panel is drawn again whenever the packs
     * or the room's language change, which must not undo what the host is choosing */
    packFile = packFile || h("input", {type: "file", name: "file", id: "pack-file", required: true,
      accept: ".json,.yaml,.yml,.csv,.xlsx,.gift,.txt,.zip"});
    packFile.setAttribute("aria-label", t("access.pack_file"));  /* its name in the room's language now (axe: label) */
    const language = packDraft.language || state.language;
    const upload = isHost ? h("form", {class: "pack-upload", id: "pack-upload", onsubmit: (e) => { e.preventDefault(); uploadPack(e.currentTarget); }},
      packFile,
      h("label", null, t("pack.language_label") + " ", h("select", {name: "language", id: "pack-language",
        onchange: (e) => { packDraft.language = e.target.value; }},
      ["en", "fa", "ro"].map((l) => h("option", {value: l, selected: l === language}, t("language." + l))))),
      h("label", null, h("input", {type: "checkbox", name: "shared", value: "true", id: "pack-shared", checked: packDraft.shared,
        onchange: (e) => { packDraft.shared = e.target.checked; }}), " ", t("pack.share_label")),
      h("button", {type: "submit", id: "pack-upload-button"}, t("tv.pack_upload"))) : null;
    let report = null;
    if (packReport && packReport.busy) report = h("p", {class: "muted"}, t("common.loading"));
    else if (packReport && packReport.preview) {
      const pv = packReport.preview;
      /* each question with its kind and its worth (double or no points), never its answer; the separator is the
       * language's ("·" reads as a zero in Persian) */
      const sep = t("quiz.sep");
      const worth = (x) => x.points === 2 ? t("quiz.double_points") : x.points === 0 ? t("quiz.no_points") : null;
      report = h("div", {class: "pack-preview", id: "pack-preview"}, h("h3", null, h("bdi", null, pv.name), sep, num(pv.count)),
        h("ol", null, pv.questions.map((x) => h("li", {"data-kind": x.type},
          h("span", {class: "pack-kind"}, TR.has("report.kind." + x.type) ? t("report.kind." + x.type) : x.type),
          worth(x) ? h("span", {class: "pack-worth"}, worth(x)) : null, " ", h("bdi", {dir: "auto"}, x.prompt),
          x.options.length ? h("span", {class: "muted"}, " (", ...x.options.flatMap((o, i) => i ? [sep, h("bdi", null, o)] : [h("bdi", null, o)]), ")") : null))),
        h("button", {class: "small", onclick: () => { packReport = null; forget(regions.packs); render(state); }}, t("phone.cancel")));
    } else if (packReport && packReport.ok) {
      const chosen = {replaced: "tv.upload_replaced", added: "tv.upload_added"}[packReport.selection];
      report = h("div", {class: "pack-report ok", id: "pack-report"}, t("tv.pack_imported", {name: TR.iso(packReport.pack.name)}),
        chosen ? h("p", {id: "pack-chosen"}, t(chosen, {name: TR.iso(packReport.pack.name)})) : null,
        packReport.warnings.length ? h("ul", null, packReport.warnings.map((w) => h("li", {class: "warning"}, problemText(w)))) : null);
    } else if (packReport && packReport.problems) {
      report = h("div", {class: "pack-report bad", id: "pack-report"}, h("p", null, t("tv.pack_rejected")),
        h("ul", null, packReport.problems.map((p) => h("li", {class: p.warning ? "warning" : "error"},
          problemText(p)))));
    }
    return h("section", {class: "packs", id: "packs"}, h("h2", null, t("tv.packs")), supply, list, upload, report);
  }

  /* The lobby puts the game and the people first (issue [18]); the room's settings, the game's settings and the
   * question packs are the host's, behind one Settings door (a disclosure that stays as the host left it). */
  let settingsOpen = false;
  let settingsDoor = null;

  function renderLobby() {
    useLayout("lobby", () => {
      settingsDoor = h("details", {class: "settings-door", id: "settings-door", open: settingsOpen,
        ontoggle: (e) => { settingsOpen = e.currentTarget.open; }},
      h("summary", {id: "settings-button", class: "button"}, t("stage.settings")), region("room"), region("settings"), region("packs"));
      return h("div", {class: "lobby"}, region("join", "join-region"),
        h("div", {class: "lobby-main"},
          h("div", {class: "lobby-scroll scroll-region"}, region("players"), region("games"), region("howto"), settingsDoor),
          region("start", "start-row")));
    });
    const game = state.games.find((g) => g.id === state.selected_game);
    const lang = TR.lang;
    settingsDoor.hidden = !isHost;
    settingsDoor.querySelector(":scope > summary").textContent = t("stage.settings");
    update(regions.join, [state.code, state.locked, lang], () => joinPanel(false));
    update(regions.players, [state.players, isHost && state.spectators.slice(0, 12), state.spectator_count, isHost, lang,
      state.selected_game, state.lineup, swapIn, state.extra_time], playerList);
    update(regions.games, [state.games.map((g) => [g.id, g.playable]), state.selected_game, isHost, lang],
      gameCards);
    update(regions.howto, [game && game.id, lang], () => game ? howToPlay(game) : null);
    update(regions.room, [isHost, state.seat_grace_s, state.name_filter, lang], roomSettings);
    update(regions.settings, [game && game.id, game && game.values, isHost, lang, state.timer_scale],
      () => game && isHost ? settingsPanel(game) : null);
    const short = game && game.needs && state.questions ? packsLacking(game, state.questions) : null;
    update(regions.packs, [game && game.id, game && game.needs, game && game.values && game.values.top_up,
      state.questions && Object.assign({}, state.questions, {plan: null}), isHost, lang, packReport, state.language],
      () => isHost && game && game.needs && Object.keys(game.needs).length && state.questions ? packsPanel(game) : null);
    update(regions.start, [game && game.id, game && game.playable, isHost, lang, short, nextGameKey(game)], () => {
      let hint = null;
      if (!game) hint = t("tv.pick_game_hint");
      else if (!game.playable) hint = t("tv.not_ready", {game: t(game.name_key)});
      else if (short) hint = Array.isArray(game.needs[short]) ? t("game." + game.id + ".no_" + short) : t("tv.packs_short");
      return [isHost ? h("button", {id: "start", class: "big primary", disabled: !(game && game.playable),
        onclick: () => control("start")}, t("tv.start")) : null, hint ? h("p", {class: "hint"}, hint) : null,
      hint ? null : nextGame(game)];
    });
  }

  /* Before Start, what the next game will be (host/plan.py, state.questions.plan): the chosen packs, how many
   * questions it asks (its count setting against what the packs hold, at most 200 for the Quiz; a range for a game
   * that asks as it goes) and, where the server has an honest estimate (the Quiz), about how long it takes at most. */
  function nextGameKey(game) {
    const q = state.questions;
    return game && q && q.plan ? [q.plan, q.selected, q.packs.filter((p) => q.selected.includes(p.id)).map((p) => p.name)] : null;
  }

  function nextGame(game) {
    const q = state.questions;
    const plan = q && q.plan;
    if (!game || !plan || plan.game !== game.id) return null;
    const names = q.selected.map((id) => q.packs.find((p) => p.id === id)).filter(Boolean)
      .map((p) => t("tv.next_pack_name", {name: TR.iso(p.name)}));
    const shown = names.length > 3 ? names.slice(0, 2).concat([t("tv.next_more_packs", {n: names.length - 2})]) : names;
    const packs = names.length ? t("tv.next_packs", {packs: TR.list(shown)}) : t("tv.next_no_packs");
    let count;
    if (plan.range) count = t("tv.next_asks_range", {min: plan.range[0], max: plan.range[1]});
    else if (plan.why === "empty") count = t("tv.next_asks_none");
    else count = t("tv.next_asks_" + plan.why, {n: plan.asks, total: plan.total, count: game.values.count});
    const time = plan.seconds ? t(plan.paced ? "tv.next_time_paced" : "tv.next_time", {duration: duration(plan.seconds)}) : null;
    return h("div", {class: "next-game" + (plan.why === "empty" ? " short" : ""), id: "next-game", "data-read-from-sofa": ""},
      h("p", {id: "next-packs"}, packs),
      h("p", null, h("span", {id: "next-count"}, count), time ? h("span", {id: "next-time"}, time) : null));
  }

  /* A length of time in the page's language: whole minutes (hours and minutes from an hour on), seconds under a
   * minute; Intl.DurationFormat where the browser has it, else Intl.NumberFormat's units. */
  function duration(seconds) {
    const minutes = Math.round(seconds / 60);
    const parts = seconds < 60 ? {seconds: Math.max(1, Math.round(seconds))}
      : minutes >= 60 ? {hours: Math.floor(minutes / 60), minutes: minutes % 60} : {minutes};
    if (typeof Intl.DurationFormat === "function") return new Intl.DurationFormat(TR.lang, {style: "long"}).format(parts);
    const units = {hours: "hour", minutes: "minute", seconds: "second"};
    return Object.entries(parts).filter(([, n]) => n).map(([k, n]) => num(n, {style: "unit", unit: units[k], unitDisplay: "long"})).join(" ");
  }

  function howButton() {
    return h("button", {id: "how-to-play", class: "how-button", onclick: () => TR.rulesSheet(state.game)}, t("tv.how_to_play"));
  }

  function controlBar() {
    if (!isHost) return h("nav", {class: "control-bar"}, howButton());
    /* [issue 19, outages] while a service is down the room holds still by itself: Resume would be refused, so the
     * button waits, named by why (the header says it too); a pause of the host's own shows Resume again after */
    const held = state.hold ? {disabled: true, title: holdText()} : {};
    return h("nav", {class: "control-bar"}, howButton(),
      state.paused
        ? h("button", Object.assign({id: "resume", class: "primary", onclick: () => control("resume")}, held), t("tv.resume"))
        : h("button", Object.assign({id: "pause", onclick: () => control("pause")}, held), t("tv.pause")),
      h("button", {id: "skip", disabled: state.paused || !state.game || state.game.deadline_ms === null,
        onclick: () => control("skip")}, t("tv.skip")),
      h("button", {id: "end", class: "danger", onclick: () => {
        if (confirm(t("tv.end_confirm"))) control("end");
      }}, t("tv.end")));
  }

  function gameArea() {
    const renderer = TR.games[state.game.id];
    const area = h("div", {class: "game-area", id: "game-area"});
    if (renderer) renderer.tv(area, state.game, state, receivedAt);
    else area.append(h("p", {class: "centre"}, t(state.game.name_key)));
    return area;
  }

  function renderPlaying() {
    useLayout("playing", () => h("div", {class: "playing"},
      h("div", {class: "side"}, region("join", "join-region"), region("players"), region("controls", "control-bar-region")),
      region("stage", "stage")));  /* the host's bar under the people, beside the stage: the stage takes the height */
    regions.stage.setAttribute("data-read-from-sofa", "");
    regions.stage.setAttribute("data-main-panel", "");  /* the 10-foot rule: what the stage shows fills it */
    const lang = TR.lang;
    update(regions.join, [state.code, state.locked, lang], () => joinPanel(true));
    update(regions.players, [state.players, state.spectator_count, isHost, lang, state.extra_time], playerBadges);
    update(regions.stage, [gameKey(), state.audience || null, state.paused, state.hold || null, lang], () => [gameArea(),
      state.paused ? h("div", {class: "paused-overlay", id: "paused", "data-overlay": ""},
        state.hold ? t("tv.held") : t("tv.paused")) : null]);
    update(regions.controls, [isHost, state.paused, state.hold || null, state.game.deadline_ms === null, lang], controlBar);
  }

  /* The results: the title and the host's "Back to the lobby" on one line at the top (never below the fold), the
   * ranking beside the game's own final board; nobody scrolls a TV, so every place of the ranking must be in view. */
  function renderFinished() {
    useLayout("finished", () => region("finished", "finished"));
    regions.finished.setAttribute("data-read-from-sofa", "");
    update(regions.finished, [gameKey(), state.audience || null, isHost, TR.lang], () => {
      const game = state.game;
      const outcome = game.outcome;
      const placeOf = (i) => (outcome.places && outcome.places[i]) || i + 1;  /* tied seats share a place */
      const list = outcome ? outcome.ranking.map((index, i) => {
        const slot = game.slots[index];
        const place = placeOf(i);
        if (game.team_keys.length) {  /* a team game ranks teams by colour and name (the board beside names members) */
          return h("li", {"data-must-see": "", "data-place": place}, h("span", {class: "place"}, num(place)),
            h("span", {class: "team-swatch big", style: "--team: " + game.team_colours[index], "aria-hidden": "true"}),
            h("span", {class: "team-name"}, t(game.team_keys[index])));
        }
        return h("li", {"data-must-see": "", "data-place": place}, h("span", {class: "place"}, num(place)), badge(slot.colour, slot.shape, 48),
          h("bdi", {class: "name"}, TR.seatName(game, index)));
      }) : [];
      list.forEach((li) => li.setAttribute("data-role", "row"));
      return [h("header", {class: "finished-head"}, h("h1", null, game.aborted ? t("tv.game_ended") : t("tv.results")),
        isHost && game.id === "quiz" ? reportControl() : null,
        isHost ? h("button", {id: "lobby", class: "big primary", onclick: () => control("lobby")}, t("tv.back_to_lobby")) : null),
      h("div", {class: "finished-body" + (outcome ? "" : " no-ranking")},
        outcome ? h("ol", {class: "ranking", id: "ranking"}, list) : null,
        gameArea())];
    });
  }

  /* The host's "Download the report" of a finished Quiz (host/report.py): CSV or Excel, fetched with the host's
   * credentials (never in a URL) and saved under the name the server gives. */
  function reportControl() {
    return h("div", {class: "report-download", id: "report-download", role: "group", "aria-label": t("tv.report_download")},
      h("span", {class: "report-label"}, t("tv.report_download")),
      h("button", {id: "report-csv", dir: "ltr", "data-verbatim": "", onclick: () => downloadReport("csv")}, "CSV"),  // a format's name
      h("button", {id: "report-xlsx", onclick: () => downloadReport("xlsx")}, t("tv.report_xlsx")));
  }

  async function downloadReport(format) {
    let response = null;
    try {
      response = await fetch("/api/rooms/" + encodeURIComponent(state.code) + "/report." + format, {headers: hostHeaders()});
    } catch (e) { /* offline: said below */ }
    if (!response || !response.ok) {
      const answer = response ? await response.json().catch(() => null) : null;
      say(answer && answer.error ? errorText(answer.error) : t("tv.report_failed"), true);
      return;
    }
    const found = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    const url = URL.createObjectURL(await response.blob());
    const link = h("a", {href: url, download: found ? found[1] : "throneroom-report." + format, hidden: ""});
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  TR.hostControl = control;  /* a game's own host button (the Quiz's Next) sends its control like the bar's */
  setInterval(() => TR.tickCountdowns(state, receivedAt), 100);
  window.addEventListener("tr-refresh", () => { forget(regions.stage); forget(regions.finished); if (state) render(state); });

  boot();
})();
