/* Throneroom: what the TV and phone pages share. Plain JavaScript, no build step, nothing from the internet.
 * Text always goes into the page through textContent (the h() helper), so every name is shown escaped. */
"use strict";

const TR = (() => {
  /* The page's language's catalog came with the page (its own script, /i18n/<lang>.<hash>.js, which fills
   * self.TR_CATALOGS); ``assets`` names the other languages' catalogs and each game's scripts and styles, loaded when
   * first needed (prepare, below; docs/decisions.md "Light pages"). */
  const catalogs = self.TR_CATALOGS || (self.TR_CATALOGS = {});
  const assetsNode = document.getElementById("assets");
  const assets = assetsNode ? JSON.parse(assetsNode.textContent) : {catalogs: {}, games: {}};
  let lang = document.documentElement.lang || "en";
  const PERSIAN = "۰۱۲۳۴۵۶۷۸۹";
  const ARABIC_INDIC = "٠١٢٣٤٥٦٧٨٩";
  const COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#F5F5F5"];
  const COLOUR_KEYS = ["orange", "sky", "green", "yellow", "blue", "vermillion", "purple", "white"];
  const SHAPE_KEYS = ["circle", "square", "triangle", "diamond", "star", "hexagon"];

  /* Numbers, plurals and lists go through the browser's Intl APIs in the page's language: Persian digits with ٬ and
   * ٫, Romanian "1.200" and "20 de puncte", English "1,200". Formatters are cached per language and options. */
  const formatters = new Map();
  function formatter(kind, options) {
    const id = kind + lang + JSON.stringify(options || {});
    if (!formatters.has(id)) {
      const make = {number: Intl.NumberFormat, plural: Intl.PluralRules, list: Intl.ListFormat}[kind];
      formatters.set(id, new make(lang, options || {}));
    }
    return formatters.get(id);
  }

  /* A number in the page's language (grouped: 1,200 / ۱٬۲۰۰ / 1.200); options are Intl.NumberFormat's. */
  function num(value, options) {
    const number = typeof value === "number" ? value : Number(value);
    if (value === null || value === undefined || value === "" || !Number.isFinite(number)) return String(value ?? "");
    return formatter("number", options).format(number);
  }

  /* A whole number as a count or ordinal in running text, without grouping (a year, a day, a round). */
  function plain(value) {
    return num(value, {useGrouping: false});
  }

  /* The digits of a text that is not a number by itself (a code, a time) in the page's script; a number is
   * formatted as one (num). */
  function digits(text) {
    if (typeof text === "number") return num(text);
    text = String(text);
    return lang === "fa" ? text.replace(/[0-9]/g, (d) => PERSIAN[+d]) : text;
  }

  /* A text's Persian and Arabic-Indic digits as Western ones (what a person typed, for parsing). */
  function western(text) {
    return String(text).replace(/[۰-۹]/g, (d) => String(PERSIAN.indexOf(d)))
      .replace(/[٠-٩]/g, (d) => String(ARABIC_INDIC.indexOf(d)));
  }

  /* The plural category of a count in the page's language (one, few, other…). */
  function pluralOf(count) {
    return formatter("plural").select(Number(count));
  }

  /* "A, B and C" in the page's language. */
  function list(items, type) {
    return formatter("list", {type: type || "conjunction"}).format(items.map(String));
  }

  /* A name that the players typed (or any text in its own script) inside a sentence: isolated, so that it keeps its
   * direction and its digits in any page (U+2068 FIRST STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE). */
  function iso(text) {
    return "\u2068" + text + "\u2069";
  }

  const missing = new Set();  /* keys asked for that the page's language lacks (the screen checker reads it) */

  function lookup(key) {
    const own = catalogs[lang] && catalogs[lang][key];
    if (own !== undefined) return own;
    missing.add(lang + ":" + key);
    return (catalogs.en || {})[key];
  }

  function has(key) {
    return !!((catalogs[lang] && catalogs[lang][key]) || (catalogs.en || {})[key]);
  }

  /* The message for a key in the page's language. A message may be plural: an object keyed by the Intl plural
   * categories ({"one": "…", "few": "…", "other": "…"}), chosen by the parameter ``n``. Number parameters are
   * formatted with num(); text parameters are put in as they are. */
  function t(key, params) {
    let text = lookup(key);
    if (text === undefined) return key;
    if (typeof text === "object") {
      const count = params && params.n !== undefined ? params.n : null;
      text = (count !== null && text[pluralOf(count)]) || text.other;
    }
    if (params) {
      for (const [name, value] of Object.entries(params)) {
        text = text.split("{" + name + "}").join(typeof value === "number" ? num(value) : String(value));
      }
    }
    return text;
  }

  /* Option letters: A B C D, or الف ب ج د on a Persian page. */
  const LETTERS = {fa: ["الف", "ب", "ج", "د", "ه", "و"]};
  function letter(index) {
    return (LETTERS[lang] || "ABCDEF")[index] || String(index + 1);
  }

  /* The names of room seats (players, then spectators) by id, each isolated for a sentence or a list; seats that
   * have left are skipped. */
  function namesOf(state, ids) {
    const people = (state.players || []).concat(state.spectators || []);
    return ids.map((id) => people.find((p) => p.id === id)).filter(Boolean).map((p) => iso(p.name));
  }

  /* How a game seat is called: the player's name, or "Bot 2" in the page's language for a bot. */
  function seatName(game, index) {
    const slot = game.slots[index];
    if (!slot.bot || slot.seat !== null && slot.seat !== undefined) return slot.name;
    const number = game.slots.slice(0, index + 1).filter((s) => s.bot && (s.seat === null || s.seat === undefined)).length;
    return t("common.bot_n", {n: number});
  }

  /* A game seat's mark (its colour and shape) and, with who(), its name beside it, whole and isolated. */
  function seatMark(game, index, size) {
    const slot = game.slots[index];
    return badge(slot.colour, slot.shape, size);
  }

  function who(game, index, size, className) {
    return h("span", {class: className || "who"}, seatMark(game, index, size), h("bdi", {class: "name"}, seatName(game, index)));
  }

  /* Files loaded after the page: a script or a style sheet, once per URL; the promise settles when it has run (or
   * failed: then a later prepare() tries again, and meanwhile the page shows what it can without it). */
  const loads = new Map();
  const loaded = new Set();
  function load(url, kind) {
    if (!loads.has(url)) {
      loads.set(url, new Promise((resolve) => {
        const el = kind === "style" ? h("link", {rel: "stylesheet", href: url}) : h("script", {src: url});
        el.addEventListener("load", () => { loaded.add(url); resolve(true); });
        el.addEventListener("error", () => { loads.delete(url); el.remove(); resolve(false); });
        (kind === "style" ? document.head : document.body).append(el);
      }));
    }
    return loads.get(url);
  }

  /* The files a screen needs before it is drawn: the catalogs of ``languages`` and the scripts and styles of the
   * games ``gameIds`` (a games module's game: the module's files). Null when all are here (draw now), else a promise
   * that settles when they have come. */
  function prepare(languages, gameIds) {
    const wanted = [];
    for (const language of languages || []) {
      const url = language && assets.catalogs[language];
      if (url && !catalogs[language]) wanted.push([url, "script"]);
    }
    for (const id of gameIds || []) {
      if (!id) continue;
      const files = assets.games[id] || assets.extra;
      if (!files) continue;
      for (const url of files.styles || []) if (!loaded.has(url)) wanted.push([url, "style"]);
      for (const url of files.scripts || []) if (!loaded.has(url)) wanted.push([url, "script"]);
    }
    return wanted.length ? Promise.all(wanted.map(([url, kind]) => load(url, kind))) : null;
  }

  /* A screen's next state waits for the files it needs (``prepare``'s promise, or null when none is missing): the
   * newest state waiting is drawn by ``draw`` once they are in, an older one never. Returns whether it must wait;
   * when it need not, a lobby's chosen game's files start loading, ahead of Start. One such object (``pending``) per screen. */
  function whenReady(pending, next, missing, draw) {
    if (missing) {
      pending.waiting = next;
      missing.then(() => { if (pending.waiting === next) { pending.waiting = null; draw(next); } });
      return false;
    }
    pending.waiting = null;
    if (next.phase === "lobby") prepare([], [next.selected_game]);
    return true;
  }

  /* Switch the page to another language, its catalog fetched first when the page does not have it yet. */
  async function useLang(next) {
    await prepare([next], []);
    setLang(next);
  }

  function setLang(next) {
    if (!catalogs[next]) return;
    lang = next;
    document.documentElement.lang = next;
    document.documentElement.dir = next === "fa" ? "rtl" : "ltr";
    document.cookie = "lang=" + next + ";path=/;max-age=31536000;samesite=lax";
    for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  }

  /* h("div", {class: "x", onclick: fn}, child, "text", [more]) builds DOM; strings become text nodes. */
  function h(tag, attrs, ...children) {
    const svgTags = ["svg", "path", "circle", "rect", "polygon", "g", "text", "defs", "line", "title", "tspan"];
    const el = svgTags.includes(tag)
      ? document.createElementNS("http://www.w3.org/2000/svg", tag)
      : document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
      else if (name === "text") el.textContent = value;
      else el.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function shapePath(shape) {
    switch (shape) {
      case 1: return h("rect", {x: 3, y: 3, width: 18, height: 18, rx: 2});
      case 2: return h("polygon", {points: "12,2 22,21 2,21"});
      case 3: return h("polygon", {points: "12,1 23,12 12,23 1,12"});
      case 4: return h("polygon", {points: "12,1 15,9 23,9 17,14 19,22 12,17 5,22 7,14 1,9 9,9"});
      case 5: return h("polygon", {points: "6,2 18,2 23,12 18,22 6,22 1,12"});
      default: return h("circle", {cx: 12, cy: 12, r: 10});
    }
  }

  /* A player's mark: colour and shape together, so colour is never the only cue. */
  function badge(colour, shape, size) {
    const label = t("colour." + COLOUR_KEYS[colour % 8]) + " " + t("shape." + SHAPE_KEYS[shape % 6]);
    const svg = h("svg", {viewBox: "0 0 24 24", class: "badge", width: size || 32, height: size || 32,
      role: "img", "aria-label": label});
    const path = shapePath(shape % 6);
    path.setAttribute("fill", COLOURS[colour % 8]);
    path.setAttribute("stroke", "#0b0f1a");
    path.setAttribute("stroke-width", "1.5");
    svg.append(path);
    return svg;
  }

  function clear(el, ...children) {
    el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
    return el;
  }

  /* A part of a screen rebuilt from build() only when what it shows changed (keyParts, compared as JSON): the nodes
   * of an unchanged part stay the same across state updates, so that a field keeps what is being typed and a tap is
   * never lost to a redraw that replaced its button between press and release. forget(el): rebuild it next time. */
  const builtFrom = new WeakMap();
  function update(el, keyParts, build) {
    const key = JSON.stringify(keyParts);
    if (builtFrom.get(el) === key) return;
    builtFrom.set(el, key);
    motion.on();  /* the TV's Motion setting as it is now (docs/motion.md) */
    clear(el, build());
  }
  function forget(el) { if (el) builtFrom.delete(el); }

  const storage = {
    get(key) { try { return JSON.parse(localStorage.getItem("throneroom." + key)); } catch (e) { return null; } },
    set(key, value) { try { localStorage.setItem("throneroom." + key, JSON.stringify(value)); } catch (e) { /* private mode */ } },
    remove(key) { try { localStorage.removeItem("throneroom." + key); } catch (e) { /* private mode */ } },
  };

  /* A Socket.IO connection that reconnects forever and says so on screen. */
  /* The room's code goes with the connection (?room=CODE): behind HAProxy it routes every socket of a room to the
   * one worker that holds the room (docs/scaling.md). */
  function connect(namespace, onConnect, code) {
    const socket = io(namespace, {transports: ["websocket", "polling"], tryAllTransports: true,
      reconnectionDelay: 500, reconnectionDelayMax: 2000, query: code ? {room: code} : {}});
    const banner = document.getElementById("offline");
    const lost = () => { if (banner) banner.hidden = false; if (offlineSince === null) offlineSince = performance.now(); };
    socket.on("connect", () => {  /* the countdowns stay stopped until the page has the server's state again */
      if (banner) banner.hidden = true;
      clock.start(socket);
      Promise.resolve(onConnect()).finally(() => { if (socket.connected) offlineSince = null; });
    });
    socket.on("disconnect", lost);
    /* The browser knows before the socket does that the network is gone (Wi-Fi off): say so at once, and try again
     * as soon as it is back. */
    window.addEventListener("offline", () => { lost(); socket.disconnect(); });
    window.addEventListener("online", () => { if (!socket.connected) socket.connect(); });
    return socket;
  }

  /* Emit with an acknowledgement; resolves to the server's {ok, ...} answer (or a timeout error). */
  function request(socket, event, payload) {
    return new Promise((resolve) => {
      socket.timeout(8000).emit(event, payload, (err, answer) => {
        resolve(err ? {ok: false, error: {code: "timeout", message: t("error.timeout")}} : answer);
      });
    });
  }

  function errorText(error) {
    if (!error) return "";
    const key = error.code.includes(".") ? error.code : "error." + error.code;  /* a game's own keys are dotted */
    return has(key) ? t(key, error.params) : error.message;
  }

  /* The room's game clock as this page estimates it: pings every two seconds, and the offset of the fastest
   * recent one (its error is at most half its round trip). Samples are dropped while the clock is stopped. */
  const clock = (() => {
    let samples = [];
    let timer = null;
    let socket = null;
    function ping() {
      if (!socket || !socket.connected) return;
      const sent = performance.now();
      socket.timeout(4000).emit("ping", {t: sent}, (err, answer) => {
        if (err || !answer || !answer.ok) return;
        const received = performance.now();
        if (!answer.running || answer.game_ms === null) { samples = []; return; }
        samples = samples.concat([{rtt: received - sent, offset: answer.game_ms - (sent + received) / 2, at: received}]).slice(-8);
      });
    }
    return {
      start(s) { socket = s; samples = []; clearInterval(timer); ping(); setTimeout(ping, 300); timer = setInterval(ping, 2000); },
      reset() { samples = []; ping(); },
      dropBefore(t) { samples = samples.filter((x) => x.at >= t); },  /* readings taken before t found stale */
      offset() { return samples.length ? samples.reduce((a, b) => (a.rtt <= b.rtt ? a : b)).offset : null; },
      gameNow() { const o = this.offset(); return o === null ? null : performance.now() + o; },
    };
  })();

  /* The local performance.now() at which a game time arrives: from the synced clock, else from the state.
   * A state is a reading of the room's clock too: when it arrived, the clock had passed game.now_ms and, running
   * since, had gone on at most by the state's way here. Pings taken before the room's clock stood still (between two
   * games, in a pause: a phone that pinged nobody meanwhile, or slept) put it further ahead than that: the readings
   * taken before the state came are dropped (the next ping, within two seconds, takes new ones; one taken after the
   * state is believed, even against a state that was long on its way) (issue [17], finding 3: a later game's first
   * question unlocked about a second early on the phones, and a tap at once was refused). */
  const STALE_MS = 200;
  function localTime(gameMs, game, receivedAt) {
    let offset = clock.offset();
    if (offset !== null && game && typeof game.now_ms === "number" && receivedAt + offset > game.now_ms + STALE_MS) {
      clock.dropBefore(receivedAt);
      offset = clock.offset();
    }
    return offset !== null ? gameMs - offset : receivedAt + (gameMs - game.now_ms);
  }

  /* While the connection is lost, nobody knows the server's clock: countdowns stop where they were (the banner says
   * "reconnecting…") instead of running out on their own, and take the server's time again on reconnecting. */
  let offlineSince = null;

  /* Countdown to a game time (the deadline by default). */
  function remainingMs(game, receivedAt, paused, target) {
    const until = target === undefined ? game && game.deadline_ms : target;
    if (!game || until === null || until === undefined) return null;
    if (paused) return Math.max(0, until - game.now_ms);
    const now = offlineSince === null ? performance.now() : offlineSince;
    return Math.max(0, localTime(until, game, receivedAt) - now);
  }

  /* A time left as a clock, "1:05" or "1:02:03", in the page's digits. */
  function clockText(ms) {
    const total = Math.ceil(ms / 1000);
    const two = (n) => String(n).padStart(2, "0");
    const [hours, minutes, secs] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
    return digits(hours ? `${hours}:${two(minutes)}:${two(secs)}` : `${minutes}:${two(secs)}`);
  }

  /* Every countdown on the page: [data-countdown] counts to the deadline in seconds, [data-countdown-to] to its own
   * game time, [data-clock-to] to its own game time as a clock, and a [data-ring] circle empties over its
   * [data-total] ms. */
  function tickCountdowns(state, receivedAt) {
    const game = state && state.game;
    const paused = state && state.paused;
    for (const el of document.querySelectorAll("[data-countdown]")) {
      const left = remainingMs(game, receivedAt, paused);
      el.textContent = left === null ? "" : digits(Math.ceil(left / 1000));
    }
    for (const el of document.querySelectorAll("[data-countdown-to]")) {
      const left = remainingMs(game, receivedAt, paused, Number(el.dataset.countdownTo));
      el.textContent = left === null ? "" : digits(Math.ceil(left / 1000));
    }
    for (const el of document.querySelectorAll("[data-clock-to]")) {
      const left = remainingMs(game, receivedAt, paused, Number(el.dataset.clockTo));
      const text = left === null ? "" : clockText(left);
      if (el.textContent !== text) el.textContent = text;
    }
    for (const ring of document.querySelectorAll("[data-ring]")) {
      const left = remainingMs(game, receivedAt, paused, Number(ring.dataset.ring));
      const front = ring.querySelector(".ring-front");
      if (front && left !== null) front.setAttribute("stroke-dashoffset", String(276.5 * (1 - Math.min(1, left / Number(ring.dataset.total)))));
    }
  }

  /* TR.sound, the cues and the music, is host/static/sound.js (loaded after this file), which sets it. */
  const sound = null;

  const games = {};  /* per-game renderers: games[id] = {tv(el, game, state), phone(el, game, state, act)} */

  /* A text that may come in several languages ({en, fa, ro}) in the current one. */
  function localized(text) {
    if (text === null || text === undefined) return "";
    if (typeof text === "string") return text;
    return text[lang] || text.en || Object.values(text)[0] || "";
  }

  /* Seconds with milliseconds, "1.482 s", in the page's language. */
  function seconds(ms) {
    return t("common.seconds", {s: num(ms / 1000, {minimumFractionDigits: 3, maximumFractionDigits: 3})});
  }

  /* Milliseconds, "85 ms", in the page's language. */
  function millis(ms) {
    return t("common.ms", {n: Math.round(ms)});
  }

  /* The number keypad of the question games (the Short Campaign's and the Quiz's): a display with thousands grouped in
   * the page's digits, the ten digits, backspace and send, and the handler for a hardware keyboard (Western, Persian
   * or Arabic-Indic digits, Backspace, Enter). ``entry.text`` keeps what is typed across redraws; ``send(text)`` gets
   * it on OK; ``lock`` marks the keys a game unlocks itself (data-lock). */
  function numberPad(entry, {disabled, lock, send}) {
    const digit = (d) => digits(String(d));
    const grouped = (text) => { const w = western(text); return w ? num(Number(w)) : "—"; };
    const display = h("output", {class: "pad-display", id: "pad-display", dir: "ltr"}, grouped(entry.text));
    const show = () => { display.textContent = grouped(entry.text); };
    const key = (name, label, onclick, extra) => h("button", {class: name === "ok" ? "key ok" : "key", "data-key": name,
      "data-lock": lock ? "" : null, disabled, onclick, ...extra}, label);
    const press = (d) => {
      if (entry.text.length >= 12) return;
      entry.text = entry.text === "0" ? digit(d) : entry.text + digit(d);
      show();
    };
    const keys = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => key(d, digit(d), () => press(d)));
    keys.push(key("back", "⌫", () => { entry.text = entry.text.slice(0, -1); show(); }, {"aria-label": t("camp.backspace")}),
      key(0, digit(0), () => press(0)),
      key("ok", t("camp.send"), () => { if (entry.text) send(entry.text); }));
    const keypad = h("div", {class: "keypad", dir: "ltr"}, keys);
    const keyboard = (e) => {
      const typed = e.key.length === 1 ? western(e.key) : "";
      const target = e.key === "Backspace" ? "back" : e.key === "Enter" ? "ok" : /^[0-9]$/.test(typed) ? typed : null;
      const button = target === null ? null : keypad.querySelector(`[data-key='${target}']:not([disabled])`);
      if (button && document.body.contains(keypad)) { e.preventDefault(); button.click(); }
    };
    return {display, keypad, keyboard};
  }

  /* A sheet over the page: the full text of a card, petition or action, or the rules of the game. It lives outside
   * the screens the state redraws (document.body), so an update never closes it while someone reads; one at a time;
   * Close, Escape or a tap outside closes it and gives the focus back. body: nodes or strings (a string is a
   * paragraph). */
  let sheetReturn = null;
  function closeSheet() {
    const open = document.getElementById("sheet");
    if (!open) return;
    open.remove();
    if (sheetReturn && document.body.contains(sheetReturn)) sheetReturn.focus();
    sheetReturn = null;
  }
  function sheet(title, body, attrs) {
    closeSheet();
    sheetReturn = document.activeElement;
    const close = h("button", {class: "sheet-close", id: "sheet-close", "aria-label": t("common.close"), onclick: closeSheet}, "✕");
    const box = h("div", Object.assign({class: "sheet-backdrop", id: "sheet", "data-overlay": ""}, attrs || {}),
      h("section", {class: "sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "sheet-title", dir: "auto"},
        h("header", {class: "sheet-head"}, h("h2", {id: "sheet-title"}, title), close),
        h("div", {class: "sheet-body", id: "sheet-body"}, [body].flat(Infinity).map((part) =>
          typeof part === "string" ? h("p", null, part) : part))));
    box.addEventListener("click", (e) => { if (e.target === box) closeSheet(); });
    document.body.append(box);
    close.focus();
    return box;
  }
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeSheet(); });

  /* A circled "i", drawn (the ⓘ character is missing from many fonts, and a box would tell nobody anything). */
  function infoMark() {
    return h("svg", {viewBox: "0 0 24 24", width: "1.1em", height: "1.1em", "aria-hidden": "true", class: "info-mark"},
      h("circle", {cx: 12, cy: 12, r: 10, fill: "none", stroke: "currentColor", "stroke-width": 2}),
      h("rect", {x: 10.8, y: 10, width: 2.4, height: 8, rx: 1, fill: "currentColor"}),
      h("circle", {cx: 12, cy: 6.8, r: 1.5, fill: "currentColor"}));
  }

  /* The ⓘ beside a card, petition or action: opens its text in a sheet. make() builds the body when tapped. */
  function infoButton(title, make, attrs) {
    return h("button", Object.assign({class: "info-button", type: "button", "aria-label": t("common.rules_of", {name: title}),
      onclick: (e) => { e.stopPropagation(); e.preventDefault(); sheet(title, make()); }}, attrs || {}), infoMark());
  }

  /* "How to play" during a game, on the TV and every phone: the lobby's how-to and what the game adds (its renderer's
   * rules(game): Hierarchy's cards, the Crown's statuses and feasts), in a sheet the updates leave open. */
  function rulesSheet(game) {
    const renderer = games[game.id];
    const key = "game." + game.id + ".howto";
    const steps = has(key) ? h("ol", {class: "howto-steps"}, t(key).split("|").map((line) => h("li", null, line.trim()))) : null;
    return sheet(t("tv.how_to_play") + " · " + t(game.name_key), [steps, renderer && renderer.rules ? renderer.rules(game) : null],
      {"data-rules": game.id});
  }

  /* A tap-and-hold (half a second) on el calls fn instead of the tap; the click that ends the hold is swallowed. */
  function longPress(el, fn) {
    let timer = null;
    let fired = false;
    const cancel = () => { clearTimeout(timer); timer = null; };
    el.addEventListener("pointerdown", () => { fired = false; cancel(); timer = setTimeout(() => { fired = true; fn(); }, 500); });
    for (const name of ["pointerup", "pointerleave", "pointercancel"]) el.addEventListener(name, cancel);
    el.addEventListener("click", (e) => { if (fired) { fired = false; e.stopImmediatePropagation(); e.preventDefault(); } }, true);
    el.addEventListener("contextmenu", (e) => e.preventDefault());  /* a long press must not open the browser's menu */
    return el;
  }

  /* ----- Motion (issue [18], docs/screens.md "Motion"): Web Animations only, so that document.getAnimations() sees
   * every one (the screens checker finishes them all before it judges a screen) and finish() shows the end state at
   * once. A screen is rebuilt often (update() above): each animation has an id, and a rebuild of the same thing goes
   * on where the last drawing was (or shows the end state once it is over); only a new id starts a new run. Nothing
   * here delays a game: the page always holds the end state (texts, places), the motion is only drawn over it, and
   * no animation blocks a tap. Off under prefers-reduced-motion, and on the TV when its Display sheet's Motion is
   * off (localStorage throneroom.tv.motion = "off"): then every helper shows the end state at once. */
  const motion = (() => {
    const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
    const runs = new Map();  /* an animation's id → when it started (document timeline ms) */
    const counts = new Map();  /* a number's key → {from, to} of its last count (countUp without a from) */
    const LIMIT = 4000;  /* the ids kept: a long evening's worth; the oldest go first */
    const EASE = "cubic-bezier(0.2, 0.7, 0.2, 1)";

    function tvOff() {
      if (!document.body || !document.body.classList.contains("tv")) return false;  /* a phone: only the OS setting */
      let raw = null;
      try { raw = localStorage.getItem("throneroom.tv.motion"); } catch (e) { /* private mode: on */ }
      return raw === "off" || raw === "\"off\"";  /* written as text or as JSON (TR.storage) */
    }

    /* Whether things move on this page now; keeps the root's class "motion-off" (style.css: no CSS animation or
     * transition then) in step. */
    let wasOff = null;
    function on() {
      const off = !!(reduced && reduced.matches) || tvOff();
      document.documentElement.classList.toggle("motion-off", off);
      if (off && wasOff === false) {  /* turned off while something moves: its end at once */
        for (const a of document.getAnimations()) { try { a.finish(); } catch (e) { /* an endless one */ } }
      }
      wasOff = off;
      return !off;
    }

    /* the document timeline's time: what animations run on (a paused timeline, as in the tests, stops it too) */
    function timelineNow() {
      const current = document.timeline && document.timeline.currentTime;
      return typeof current === "number" ? current : performance.now();
    }

    function keep(map, id, value) {
      map.delete(id);
      map.set(id, value);
      if (map.size > LIMIT) map.delete(map.keys().next().value);
    }

    /* After the page has put the new nodes in (a renderer builds them detached; update() puts them in the page in the
     * same task): measured then, before the browser paints. */
    function after(fn) { queueMicrotask(fn); }

    /* keyframes on el, once per id (no id: every time): a rebuild with the same id goes on from where the run is now,
     * and once it has ended draws nothing. Returns the Animation or null. */
    function play(el, id, keyframes, timing) {
      if (!el || typeof el.animate !== "function" || !on()) return null;
      const full = Object.assign({duration: 600, delay: 0, easing: EASE, fill: "backwards"}, timing);
      let elapsed = 0;
      if (id) {
        const nowMs = timelineNow();
        if (!runs.has(id)) keep(runs, id, nowMs);
        elapsed = nowMs - runs.get(id);
        if (elapsed >= full.delay + full.duration) return null;
      }
      const animation = el.animate(keyframes, full);
      if (elapsed > 0) animation.currentTime = elapsed;
      /* ended, or finished early (the screens checker, a test): a rebuild shows the end state from now on */
      if (id) animation.finished.then(() => { if (runs.has(id)) runs.set(id, -Infinity); }, () => { /* cancelled */ });
      return animation;
    }

    /* Forget the runs and counts whose id starts with prefix (a new game: its first screens run again). */
    function reset(prefix) {
      for (const map of [runs, counts]) for (const id of Array.from(map.keys())) if (id.startsWith(prefix)) map.delete(id);
    }

    function optionsOf(options) {
      return typeof options === "string" ? {key: options} : Object.assign({}, options || {});
    }

    /* A number that counts from `from` to `to`: the element's text is the end value at once (what a screen reader, a
     * test and the screens checker read; data-value holds the number), and while it counts a ghost of the running
     * value (its ::after, data-counting) is drawn over the hidden text; finish() ends both together. from null: from
     * the number this key showed last. format(n) → text (default TR.num). options: a key (string) or {key, delay,
     * duration}; the key names the number across rebuilds (default: the element's id). */
    function countUp(el, from, to, format, options) {
      const opts = optionsOf(options);
      const show = format || ((n) => num(n));
      const key = opts.key || el.id || "";
      if (key) {
        const last = counts.get(key);
        if (from === null || from === undefined) from = last ? (last.to === to ? last.from : last.to) : to;
        keep(counts, key, {from, to});
      }
      if (from === null || from === undefined) from = to;
      el.textContent = show(to);
      el.setAttribute("data-value", String(to));
      if (from === to || !on()) return;
      const id = key ? "count:" + key + ":" + from + ">" + to : null;
      const timing = {duration: opts.duration || 1100, delay: opts.delay || 0};
      after(() => {
        if (!el.isConnected) return;
        const colour = getComputedStyle(el).color;
        const hide = play(el, id && id + ":text", [{color: "transparent"}, {color: "transparent"}], timing);
        if (!hide) return;
        el.setAttribute("data-counting", show(from));  /* the ghost exists before its animation is made */
        void getComputedStyle(el, "::after").content;
        const ghost = el.animate([{opacity: 1, color: colour}, {opacity: 1, color: colour}],
          Object.assign({fill: "backwards", easing: EASE, pseudoElement: "::after"}, timing));
        ghost.currentTime = hide.currentTime;
        const done = () => { if (ghost.playState !== "running") el.removeAttribute("data-counting"); };
        const tick = () => {
          if (!el.isConnected || ghost.playState === "finished" || ghost.playState === "idle") { done(); return; }
          const progress = ghost.effect.getComputedTiming().progress;
          const text = show(Math.round(from + (to - from) * (progress === null ? 0 : progress)));
          if (el.getAttribute("data-counting") !== text) el.setAttribute("data-counting", text);
          requestAnimationFrame(tick);
        };
        ghost.finished.then(done, done);
        tick();
      });
    }

    /* elements appear one after another, gapMs apart, in the order given (the podium: third, second, first).
     * options: a key (string) or {key, delay (before the first), duration, keyframes}. */
    function reveal(elements, gapMs, options) {
      const opts = optionsOf(options);
      const list = Array.from(elements || []).filter(Boolean);
      const keyframes = opts.keyframes || [{opacity: 0, transform: "scale(0.7)", transformOrigin: "50% 100%"},
        {opacity: 1, transform: "none", transformOrigin: "50% 100%"}];
      after(() => list.forEach((el, i) => {
        if (el.isConnected) play(el, opts.key ? "reveal:" + opts.key + ":" + i : null, keyframes,
          {duration: opts.duration || 650, delay: (opts.delay || 0) + i * (gapMs || 0), easing: "cubic-bezier(0.2, 0.8, 0.3, 1.15)"});
      }));
    }

    /* Bars that grow from nothing to their length (from the line's start: the right in a right-to-left page), one
     * after another by gapMs. options: a key or {key, duration}. */
    function grow(bars, gapMs, options) {
      const opts = optionsOf(options);
      const list = Array.from(bars || []).filter(Boolean);
      after(() => list.forEach((el, i) => {
        if (!el.isConnected) return;
        const origin = getComputedStyle(el).direction === "rtl" ? "100% 50%" : "0% 50%";
        play(el, opts.key ? "grow:" + opts.key + ":" + i : null,
          [{transform: "scaleX(0)", transformOrigin: origin}, {transform: "scaleX(1)", transformOrigin: origin}],
          {duration: opts.duration || 900, delay: i * (gapMs || 0)});
      }));
    }

    /* First-Last-Invert-Play: each child of container keyed by keyAttr glides from where it was to where it is.
     * render(): a function that redraws or reorders the children (where they were is measured before it: a glide
     * cut short by a redraw goes on from where it was); or the children's keys in their previous order, for a
     * container drawn fresh in its new order: each child then glides from the place of the child now at its old
     * index. options: a key (string) or {key, duration}. Returns nothing; the animations are the children's. */
    function flip(container, keyAttr, render, options) {
      const opts = optionsOf(options);
      const children = () => Array.from(container.children).filter((c) => c.hasAttribute(keyAttr));
      const glide = (el, dx, dy, id) => {
        if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
        play(el, id, [{transform: `translate(${dx}px, ${dy}px)`}, {transform: "none"}],
          {duration: opts.duration || 800, easing: "cubic-bezier(0.3, 0.6, 0.2, 1)"});
      };
      if (typeof render === "function") {
        const first = new Map();
        if (on() && container.isConnected) for (const c of children()) first.set(c.getAttribute(keyAttr), c.getBoundingClientRect());
        render();
        after(() => {
          if (!container.isConnected) return;
          for (const c of children()) {
            const was = first.get(c.getAttribute(keyAttr));
            if (!was) continue;
            const now = c.getBoundingClientRect();
            glide(c, was.left - now.left, was.top - now.top, null);
          }
        });
        return;
      }
      const before = Array.from(render || []).map(String);
      if (!on()) return;
      after(() => {
        if (!container.isConnected) return;
        const rows = children();
        const rects = rows.map((c) => c.getBoundingClientRect());
        const signature = before.join(",") + ">" + rows.map((c) => c.getAttribute(keyAttr)).join(",");
        rows.forEach((c, i) => {
          const was = before.indexOf(c.getAttribute(keyAttr));
          if (was < 0 || was === i || was >= rows.length) return;
          glide(c, rects[was].left - rects[i].left, rects[was].top - rects[i].top,
            opts.key ? "flip:" + opts.key + ":" + signature + ":" + c.getAttribute(keyAttr) : null);
        });
      });
    }

    if (reduced && reduced.addEventListener) reduced.addEventListener("change", on);
    window.addEventListener("storage", on);
    on();
    window.addEventListener("tr-motion", on);  /* the TV's Display sheet changed Motion: stop or allow at once */
    return {on, play, reset, countUp, reveal, grow, flip};
  })();

  return {t, has, setLang, useLang, prepare, whenReady, get lang() { return lang; }, get offline() { return offlineSince !== null; }, num, plain, digits, western, pluralOf, list, iso, namesOf, letter, seatName, seatMark, who,
    missing, h, badge, clear, update, forget, storage, connect, request, errorText, remainingMs, tickCountdowns, localTime, clock,
    sound, motion, localized, seconds, millis, games, numberPad, sheet, closeSheet, rulesSheet, infoButton, longPress, COLOURS};
})();
