/* Short Campaign on the TV (the living map, the question on stage, the scores) and on the phone (keypad,
 * options, a map to tap). Views come from engine/campaign/game.py; nothing here decides anything. */
"use strict";

TR.games.campaign = (() => {
  const {t, h, badge, clear, localized, seconds, digits} = TR;
  const maps = {};  /* map id -> drawing, fetched once */
  const waiting = {};

  function loadMap(id) {
    if (maps[id]) return maps[id];
    if (!waiting[id]) {
      waiting[id] = fetch("/campaign/maps/" + encodeURIComponent(id) + ".json").then((r) => r.json()).then((m) => {
        maps[id] = m;
        window.dispatchEvent(new Event("tr-refresh"));  /* the page draws again, now with the map */
      });
    }
    return null;
  }

  const slotOf = (game, seat) => game.slots[seat];
  const colourOf = (game, seat) => TR.COLOURS[slotOf(game, seat).colour % 8];
  const nameOf = (game, seat) => slotOf(game, seat).name;

  function who(game, seat, size) {
    const slot = slotOf(game, seat);
    return h("span", {class: "who"}, badge(slot.colour, slot.shape, size || 28), h("span", {dir: "auto"}, slot.name));
  }

  /* ----- the map ----- */

  function towers(x, y, count, size) {
    const group = h("g", {class: "towers"});
    for (let i = 0; i < 3; i++) {
      const standing = i < count;
      const tx = x + (i - 1) * size * 1.2 - size / 2;
      group.append(h("path", {d: `M${tx},${y} v${-size} h${size * 0.25} v${size * 0.22} h${size * 0.17} v${-size * 0.22}`
        + ` h${size * 0.16} v${size * 0.22} h${size * 0.17} v${-size * 0.22} h${size * 0.25} v${size} Z`,
      class: standing ? "tower" : "tower down"}));
    }
    return group;
  }

  /* The map is drawn once per page and map, then updated in place, so owners' colours fade in (CSS transitions
   * need the same element) instead of flashing. ``options.persist`` names the kept drawing. */
  const kept = {};

  function drawMap(drawing, view, game, options) {
    const o = options || {};
    const key = o.persist ? o.persist + ":" + drawing.id : null;
    let entry = key ? kept[key] : null;
    if (!entry) {
      const [x0, y0, w, hgt] = drawing.view_box;
      const svg = h("svg", {viewBox: `${x0} ${y0} ${w} ${hgt}`, class: "camp-map", role: "img",
        "aria-label": localized(drawing.name), preserveAspectRatio: "xMidYMid meet"});
      for (const item of drawing.background || []) svg.append(h("path", {d: item.path, class: "bg bg-" + item.kind}));
      const layer = h("g", {class: "territories"});
      const labels = h("g", {class: "labels"});
      const paths = {};
      for (const territory of drawing.territories) {
        paths[territory.id] = h("path", {d: territory.path, class: "territory free", fill: "#34405e",
          "data-territory": territory.id}, h("title", null, localized(territory.name)));
        if (o.onpick) paths[territory.id].addEventListener("click", () => entry.onpick && entry.onpick(territory.id));
        layer.append(paths[territory.id]);
      }
      svg.append(layer, labels);
      entry = {svg, paths, labels, onpick: null};
      if (key) kept[key] = entry;
    }
    entry.onpick = o.onpick || null;
    const state = {};
    view.territories.forEach((t) => { state[t.id] = t; });
    const choosable = new Set(o.choosable || []);
    const target = view.attack && view.attack.target;
    const labels = [];
    for (const territory of drawing.territories) {
      const s = state[territory.id];
      const path = entry.paths[territory.id];
      path.setAttribute("fill", s.owner === null ? "#34405e" : colourOf(game, s.owner));
      path.setAttribute("class", ["territory", s.owner === null ? "free" : "owned",
        choosable.has(territory.id) ? "choosable" : "", territory.id === target ? "target" : "",
        o.selected === territory.id ? "selected" : ""].join(" "));
      const [lx, ly] = territory.label;
      const label = h("g", {class: "label", "pointer-events": "none"});
      const name = localized(territory.name);
      if (o.names !== false) label.append(h("text", {x: lx, y: ly - 8, class: "t-name" + (name.length > 11 ? " long" : "")}, name));
      if (s.owner !== null) {
        label.append(h("text", {x: lx, y: ly + 26, class: "t-value"}, digits(s.value)));
        const mark = badge(slotOf(game, s.owner).colour, slotOf(game, s.owner).shape, 26);
        mark.setAttribute("x", lx - 13);
        mark.setAttribute("y", ly + 34);
        if (s.castle !== null && !s.demolished) label.append(towers(lx, ly - 34, s.towers, 22));
        else if (s.demolished) label.append(h("text", {x: lx, y: ly - 38, class: "t-ruin"}, "⌂"));
        label.append(mark);
      }
      labels.push(label);
    }
    clear(entry.labels, labels);
    return entry.svg;
  }

  function mapOrWait(view, game, options) {
    const drawing = loadMap(view.map);
    return drawing ? drawMap(drawing, view, game, options) : h("p", {class: "muted"}, t("common.loading"));
  }

  /* ----- the question ----- */

  function countdownRing(target, total, label) {
    const ring = h("div", {class: "ring", "data-ring": String(target), "data-total": String(Math.max(1, total))},
      h("svg", {viewBox: "0 0 100 100"}, h("circle", {cx: 50, cy: 50, r: 44, class: "ring-back"}),
        h("circle", {cx: 50, cy: 50, r: 44, class: "ring-front", "stroke-dasharray": "276.5", "stroke-dashoffset": "0"})),
      h("span", {class: "ring-text", "data-countdown-to": String(target)}));
    if (label) ring.append(h("span", {class: "ring-label"}, label));
    return ring;
  }

  function purposeLine(game, view) {
    const q = view.question;
    if (q.purpose === "expansion") return t("camp.expansion_question", {n: view.round});
    if (q.purpose === "duel") return t("camp.duel", {a: nameOf(game, view.attack.attacker), d: nameOf(game, view.attack.defender)});
    if (q.purpose === "tiebreak") return t("camp.tiebreak");
    return t("camp.final_question");
  }

  function questionCard(game, view, forPhone) {
    const q = view.question;
    const card = h("section", {class: "q-card" + (q.revealed ? " revealed" : ""), id: "question"});
    card.append(h("p", {class: "q-purpose"}, purposeLine(game, view)),
      h("p", {class: "q-prompt", dir: "auto"}, localized(q.prompt)));
    if (!q.revealed) {
      const locked = view.phase === "preview";
      card.append(h("div", {class: "q-status"},
        countdownRing(locked ? q.opens_ms : q.closes_ms, locked ? q.opens_ms - game.now_ms : q.closes_ms - q.opens_ms,
          locked ? t("camp.get_ready") : null),
        h("div", {class: "answered"}, q.seats.map((seat) => h("span", {class: q.answered.includes(seat) ? "done" : "pending"},
          who(game, seat, 30), q.answered.includes(seat) ? " ✓" : "")))));
      if (q.kind === "choice" && !forPhone) {
        card.append(h("ol", {class: "options"}, q.options.map((o, i) => h("li", null,
          h("span", {class: "letter"}, "ABCDEF"[i]), h("span", {dir: "auto"}, localized(o))))));
      }
      return card;
    }
    if (q.kind === "numeric") {
      card.append(h("p", {class: "q-correct"}, t("camp.correct_number", {n: digits(q.correct.toLocaleString("en"))})));
      const rows = q.ranking.map((seat, place) => {
        const a = q.answers.find((x) => x.seat === seat);
        return h("tr", {class: place === 0 && a ? "first" : ""},
          h("td", null, digits(place + 1)), h("td", null, who(game, seat, 30)),
          h("td", {class: "num"}, a ? digits(a.value.toLocaleString("en")) : "—"),
          h("td", {class: "num"}, a ? t("camp.off_by", {n: digits(a.distance.toLocaleString("en"))}) : t("camp.no_answer")),
          h("td", {class: "num"}, a ? seconds(a.ms) : ""));
      });
      card.append(h("table", {class: "reveal-table"}, h("tbody", null, rows)));
      if (q.drawn) card.append(h("p", {class: "muted"}, t("camp.drawn")));
    } else {
      card.append(h("ol", {class: "options revealed"}, q.options.map((o, i) => h("li", {class: i === q.correct ? "right" : "wrong"},
        h("span", {class: "letter"}, i === q.correct ? "✓" : "ABCDEF"[i]), h("span", {dir: "auto"}, localized(o)),
        h("span", {class: "pickers"}, q.answers.filter((a) => a.value === i).map((a) => who(game, a.seat, 26)))))));
    }
    return card;
  }

  /* ----- the TV ----- */

  function banner(game, view) {
    if (view.phase === "pick") {
      return h("p", {class: "banner"}, who(game, view.picks[0], 36), " ", t("camp.picks"),
        h("span", {class: "banner-time", "data-countdown": ""}));
    }
    if (view.phase === "target") {
      return h("p", {class: "banner"}, who(game, view.attack.attacker, 36), " ", t("camp.chooses_target"),
        h("span", {class: "banner-time", "data-countdown": ""}));
    }
    if (view.attack && view.attack.target) {
      const drawing = maps[view.map];
      const territory = drawing && drawing.territories.find((x) => x.id === view.attack.target);
      return h("p", {class: "banner"}, who(game, view.attack.attacker, 36), " ⚔ ", who(game, view.attack.defender, 36),
        territory ? h("span", {class: "muted"}, " · ", localized(territory.name)) : null,
        view.attack.castle ? h("span", {class: "muted"}, " · ", t("camp.castle_assault")) : null);
    }
    return null;
  }

  function scoreboard(game, view) {
    return h("section", {class: "scores"}, view.players.map((p) => h("div", {
      class: "score-card" + (p.eliminated ? " out" : "") + (view.attack && view.attack.attacker === p.seat ? " active" : ""),
      "data-seat": p.seat, style: `border-color: ${colourOf(game, p.seat)}`},
    who(game, p.seat, 40),
    h("span", {class: "score", "data-score": p.score}, digits(p.score.toLocaleString("en"))),
    h("span", {class: "score-towers"}, p.eliminated ? t("camp.eliminated") : "♜".repeat(p.towers),
      slotOf(game, p.seat).away ? h("span", {class: "away-note"}, " · ", t("camp.bot_covers")) : null))));
  }

  function orderStrip(game, view) {
    if (!view.orders.length) return null;
    return h("section", {class: "orders"}, h("h2", null, t("camp.battle_order")),
      view.orders.map((order, i) => h("p", {class: "order" + (view.stage === "battle" && view.round === i + 1 ? " now" : "")},
        h("span", {class: "round-no"}, t("camp.round_n", {n: i + 1})),
        order.map((seat, k) => h("span", {class: "order-seat" + (view.round === i + 1 && view.turn === k ? " turn" : "")},
          badge(slotOf(game, seat).colour, slotOf(game, seat).shape, 24))))));
  }

  function historyLine(game, entry) {
    const n = (seat) => nameOf(game, seat);
    const territory = (id) => { const d = maps[game.view.map]; const x = d && d.territories.find((y) => y.id === id); return x ? localized(x.name) : id; };
    switch (entry.kind) {
      case "pick": return t(entry.timeout ? "camp.h_pick_timeout" : "camp.h_pick", {name: n(entry.seat), place: territory(entry.territory)});
      case "attack": return t("camp.h_attack", {name: n(entry.seat), other: n(entry.defender), place: territory(entry.territory)});
      case "conquest": return t("camp.h_conquest", {name: n(entry.seat), place: territory(entry.territory)});
      case "repelled": return t("camp.h_repelled", {name: n(entry.seat), other: n(entry.attacker)});
      case "tower": return t("camp.h_tower", {name: n(entry.seat), n: entry.towers});
      case "eliminated": return t("camp.h_eliminated", {name: n(entry.seat), other: n(entry.by)});
      default: return null;
    }
  }

  function feed(game, view) {
    const lines = view.history.slice().reverse().map((e) => historyLine(game, e)).filter(Boolean).slice(0, 5);
    return h("ul", {class: "feed"}, lines.map((line) => h("li", null, line)));
  }

  /* ----- the audience play-along (host/audience.py) ----- */

  function audienceTop(state, title) {
    const a = state.audience;
    if (!a || !a.top.length) return null;
    return h("section", {class: "aud-top", id: "audience-top"}, h("h2", null, title || t("aud.top_five")),
      h("ol", null, a.top.map((p) => h("li", {class: "aud-row", "data-seat": p.id},
        h("span", {class: "aud-place"}, digits(p.place)),
        h("span", {class: "who"}, badge(p.colour, p.shape, 26), h("span", {dir: "auto"}, p.name)),
        h("span", {class: "num aud-points"}, t("aud.points", {n: digits(p.points)})),
        p.gained && a.revealed ? h("span", {class: "aud-gained"}, t("aud.gained", {n: digits(p.gained)})) : null))));
  }

  function audienceWinner(state) {
    const a = state.audience;
    if (!a || !a.top.length) return null;
    const best = a.top[0];
    return h("section", {class: "aud-winner", id: "audience-winner"}, h("h2", null, t("aud.winner")),
      h("p", {class: "aud-winner-line"}, badge(best.colour, best.shape, 36), " ",
        h("span", {dir: "auto"}, t("aud.winner_line", {name: best.name, n: digits(best.points)}))),
      audienceTop(state));
  }

  function finalScreen(game, view, state) {
    const stats = view.stats || [];
    const table = h("table", {class: "stats"},
      h("thead", null, h("tr", null, ["", "camp.s_score", "camp.s_right", "camp.s_mean", "camp.s_taken", "camp.s_defended"]
        .map((k) => h("th", null, k ? t(k) : "")))),
      h("tbody", null, view.final_ranking.map((seat) => {
        const s = stats.find((x) => x.seat === seat) || {};
        return h("tr", null, h("td", null, who(game, seat, 30)),
          h("td", {class: "num"}, digits(view.players[seat].score.toLocaleString("en"))),
          h("td", {class: "num"}, digits(s.right || 0) + " / " + digits(s.answers || 0)),
          h("td", {class: "num"}, s.mean_ms === null || s.mean_ms === undefined ? "—" : seconds(s.mean_ms)),
          h("td", {class: "num"}, digits(s.taken || 0)), h("td", {class: "num"}, digits(s.defended || 0)));
      })));
    const log = h("details", {class: "answer-log", id: "answer-log"}, h("summary", null, t("camp.answer_log")),
      h("table", null, h("thead", null, h("tr", null, ["camp.l_question", "camp.l_player", "camp.l_answer", "camp.l_effective",
        "camp.l_claimed", "camp.l_seen", "camp.l_rtt", "camp.l_flag"].map((k) => h("th", null, t(k))))),
      h("tbody", null, (view.answer_log || []).flatMap((q, i) => q.answers.map((a) => {
        const tm = a.timing || {};
        return h("tr", null, h("td", null, digits(i + 1) + " · " + t("camp.p_" + q.purpose)), h("td", null, nameOf(game, a.seat)),
          h("td", {class: "num"}, digits(a.value)), h("td", {class: "num"}, seconds(a.ms)),
          h("td", {class: "num"}, tm.claimed === null || tm.claimed === undefined ? "—" : seconds(tm.claimed)),
          h("td", {class: "num"}, tm.receipt === undefined ? "—" : seconds(tm.receipt - tm.unlock)),
          h("td", {class: "num"}, tm.rtt === undefined || tm.rtt === null ? "—" : digits(tm.rtt) + " ms"),
          h("td", null, tm.flag ? t("camp.flag_" + tm.flag) : ""));
      })))));
    return h("section", {class: "camp-final"}, table, state ? audienceWinner(state) : null, log);
  }

  let heard = {phase: null, last: null};

  function cues(view) {
    if (view.phase !== heard.phase) {
      if (view.phase === "answer") TR.sound.play("unlock");
      if (view.phase === "reveal") TR.sound.play("reveal");
      if (view.phase === "over") TR.sound.play("end");
    }
    const seen = view.history.map((e) => JSON.stringify(e));
    const fresh = heard.last === null ? [] : view.history.slice(seen.lastIndexOf(heard.last) + 1);
    if (fresh.some((e) => e.kind === "conquest" || e.kind === "eliminated")) TR.sound.play("conquest");
    else if (fresh.some((e) => e.kind === "tower")) TR.sound.play("tower");
    heard = {phase: view.phase, last: seen.length ? seen[seen.length - 1] : heard.last};
  }

  function tv(el, game, state, receivedAt) {
    const view = game.view;
    cues(view);
    if (view.stage === "over" || game.aborted) {
      el.append(h("div", {class: "camp-tv over"}, h("div", {class: "camp-map-wrap small"}, mapOrWait(view, game, {persist: "tv"})),
        finalScreen(game, view, state)));
      return;
    }
    const crowd = state.audience && view.phase === "reveal" ? audienceTop(state) : null;
    const options = {choosable: view.options, persist: "tv"};
    const top = view.question ? questionCard(game, view, false) : banner(game, view);
    el.append(h("div", {class: "camp-tv"},
      h("div", {class: "camp-main"},
        h("p", {class: "stage-line"}, view.stage === "expansion" ? t("camp.stage_expansion", {n: view.round})
          : view.stage === "battle" ? t("camp.stage_battle", {n: view.round}) : t("camp.stage_final")),
        top ? h("div", {class: "camp-top" + (view.question ? " has-question" : "")}, top) : null,
        h("div", {class: "camp-map-wrap" + (view.question ? " dim" : "")}, mapOrWait(view, game, options))),
      h("aside", {class: "camp-side"}, scoreboard(game, view), crowd || orderStrip(game, view), crowd ? null : feed(game, view))));
  }

  /* ----- the phone ----- */

  let entry = {step: null, text: "", sent: null, shownAt: null};
  let chosen = {step: null, territory: null};
  const PERSIAN = "۰۱۲۳۴۵۶۷۸۹";

  function keyDigit(d) { return TR.lang === "fa" ? PERSIAN[d] : String(d); }

  function grouped(text) {
    const western = text.replace(/[۰-۹]/g, (c) => String(PERSIAN.indexOf(c)));
    if (!western) return "";
    return digits(Number(western).toLocaleString("en"));
  }

  function unlockAt(game, q, receivedAt, onUnlock) {
    const at = TR.localTime(q.opens_ms, game, receivedAt);
    const wait = at - performance.now();
    if (wait > 0) setTimeout(onUnlock, wait);
    return Math.max(at, performance.now());
  }

  function phone(el, game, state, act, receivedAt) {
    const view = game.view;
    const me = game.you;
    const q = view.question;
    el.append(h("div", {class: "camp-phone-scores"}, view.players.map((p) => h("span", {class: "mini-score" + (p.seat === me ? " me" : "")},
      badge(slotOf(game, p.seat).colour, slotOf(game, p.seat).shape, 22), digits(p.score.toLocaleString("en"))))));
    if (view.stage === "over") {
      el.append(h("p", {class: "big-text"}, t("camp.final_score", {n: digits(view.players[me].score.toLocaleString("en"))})));
      return;
    }
    if (q && q.seats.includes(me)) { el.append(answerPad(game, view, q, act, receivedAt)); return; }
    if (view.phase === "pick" && view.picks[0] === me) { el.append(chooser(game, view, "pick", act)); return; }
    if (view.phase === "target" && view.attack.attacker === me) { el.append(chooser(game, view, "target", act)); return; }
    el.append(h("div", {class: "watching", id: "camp-watching"}, banner(game, view) || (q ? h("p", null, purposeLine(game, view)) : null),
      h("p", {class: "muted"}, t("camp.watch_tv"))));
  }

  function answerPad(game, view, q, act, receivedAt) {
    const wrap = h("div", {class: "pad-wrap", id: "answer-pad"});
    wrap.append(h("p", {class: "q-purpose"}, purposeLine(game, view)), h("p", {class: "q-prompt small", dir: "auto"}, localized(q.prompt)));
    if (entry.step !== q.opens_ms) entry = {step: q.opens_ms, text: "", sent: null, shownAt: null};
    if (q.revealed) {
      const mine = (q.answers || []).find((a) => a.seat === game.you);
      const right = q.kind === "numeric" ? q.ranking[0] === game.you : mine && mine.value === q.correct;
      wrap.append(h("p", {class: "big-text " + (right ? "good" : "bad"), id: "my-result"},
        right ? t("camp.you_right") : mine ? t("camp.you_wrong") : t("camp.no_answer")),
      h("p", null, t("camp.correct_is", {x: q.kind === "numeric" ? digits(q.correct.toLocaleString("en")) : localized(q.options[q.correct])})));
      return wrap;
    }
    if (q.yours !== undefined || entry.sent !== null) {
      const value = q.yours !== undefined ? q.yours : entry.sent;
      wrap.append(h("p", {class: "big-text", id: "sent"}, t("camp.sent", {x: q.kind === "numeric"
        ? digits(Number(value).toLocaleString("en")) : "ABCDEF"[value]})), h("p", {class: "muted"}, t("camp.wait_others")));
      return wrap;
    }
    const locked = view.phase === "preview";
    const enable = () => { entry.shownAt = performance.now(); for (const b of wrap.querySelectorAll("[data-lock]")) b.disabled = false; TR.sound.play("unlock"); };
    if (locked) entry.shownAt = unlockAt(game, q, receivedAt, enable);
    else if (entry.shownAt === null) entry.shownAt = performance.now();
    wrap.append(h("p", {class: "countdown small", "data-countdown-to": String(locked ? q.opens_ms : q.closes_ms)}));
    const send = (action, shown) => {
      const ms = Math.max(0, Math.round(performance.now() - entry.shownAt));
      entry.sent = shown;
      act(action, {ms}).then((answer) => { if (!answer.ok) entry.sent = null; });
    };
    if (q.kind === "choice") {
      wrap.append(h("div", {class: "choice-grid" + (q.options.length > 4 ? " many" : "")}, q.options.map((o, i) => h("button", {
        class: "choice-button", "data-choice": i, "data-lock": "", disabled: locked,
        onclick: () => send({choice: i}, i)}, h("span", {class: "letter"}, "ABCDEF"[i]), h("span", {dir: "auto"}, localized(o))))));
      return wrap;
    }
    const display = h("output", {class: "pad-display", id: "pad-display", dir: "ltr"}, grouped(entry.text) || "—");
    const press = (d) => { if (entry.text.length < 12) { entry.text = entry.text === "0" ? keyDigit(d) : entry.text + keyDigit(d); display.textContent = grouped(entry.text); } };
    const keys = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => h("button", {class: "key", "data-key": d, "data-lock": "", disabled: locked, onclick: () => press(d)}, keyDigit(d)));
    keys.push(h("button", {class: "key", "data-key": "back", "data-lock": "", disabled: locked, "aria-label": t("camp.backspace"),
      onclick: () => { entry.text = entry.text.slice(0, -1); display.textContent = grouped(entry.text) || "—"; }}, "⌫"));
    keys.push(h("button", {class: "key", "data-key": 0, "data-lock": "", disabled: locked, onclick: () => press(0)}, keyDigit(0)));
    keys.push(h("button", {class: "key ok", "data-key": "ok", "data-lock": "", disabled: locked, onclick: () => {
      if (entry.text) send({answer: entry.text}, entry.text.replace(/[۰-۹]/g, (c) => String(PERSIAN.indexOf(c))));
    }}, t("camp.send")));
    wrap.append(display, h("div", {class: "keypad", dir: "ltr"}, keys));
    keyboard = (e) => {  /* a hardware keyboard: Western, Persian or Arabic-Indic digits, Backspace, Enter */
      const western = "0123456789".indexOf(e.key) >= 0 ? Number(e.key) : PERSIAN.indexOf(e.key) >= 0 ? PERSIAN.indexOf(e.key)
        : "٠١٢٣٤٥٦٧٨٩".indexOf(e.key);
      const target = e.key === "Backspace" ? "back" : e.key === "Enter" ? "ok" : western >= 0 ? String(western) : null;
      const button = target === null ? null : wrap.querySelector(`[data-key='${target}']:not([disabled])`);
      if (button && document.body.contains(wrap)) { e.preventDefault(); button.click(); }
    };
    return wrap;
  }

  let keyboard = null;
  document.addEventListener("keydown", (e) => { if (keyboard) keyboard(e); });

  /* A spectator's phone: the open question with the players' own controls (its answer goes to the audience, never
   * to the game), its own result after the reveal, and the public view in between. */
  function audience(el, game, state, act, receivedAt) {
    const view = game.view;
    const q = view.question;
    const mine = state.audience.you || {};
    const total = mine.place ? h("p", {class: "aud-total", id: "aud-total"},
      t("aud.total", {points: digits(mine.points), place: digits(mine.place), n: digits(mine.players)})) : null;
    if (view.stage === "over") {
      el.append(h("p", {class: "big-text", id: "aud-final"}, mine.place
        ? t("aud.final", {place: digits(mine.place), n: digits(mine.players), points: digits(mine.points)})
        : t("aud.top_five")), audienceTop(state));
      return;
    }
    if (q && !q.revealed) {
      const asked = mine.key === q.opens_ms && mine.yours !== null && mine.yours !== undefined
        ? Object.assign({}, q, {yours: mine.yours}) : Object.assign({}, q, {yours: undefined});
      el.append(h("p", {class: "aud-banner", id: "aud-banner"}, t("aud.play_along")), total || "",
        answerPad(game, view, asked, act, receivedAt));
      return;
    }
    if (q && q.revealed && mine.key === q.opens_ms) {
      const r = mine.result;
      const truth = q.kind === "numeric" ? digits(q.correct.toLocaleString("en")) : localized(q.options[q.correct]);
      const given = r ? (q.kind === "numeric" ? digits(r.value.toLocaleString("en")) : "ABCDEF"[r.value]) : null;
      const good = r && (q.kind === "numeric" ? r.rank === 1 : r.right);
      el.append(h("div", {class: "pad-wrap aud-result", id: "aud-result"},
        h("p", {class: "q-prompt small", dir: "auto"}, localized(q.prompt)),
        h("p", {class: "big-text " + (r ? (good ? "good" : "bad") : ""), id: "aud-points"},
          r ? t("aud.got", {n: digits(r.points)}) : t("aud.no_answer")),
        r ? h("p", null, t("aud.your_answer", {x: given})) : null,
        h("p", null, t("camp.correct_is", {x: truth})),
        r ? h("p", {id: "aud-rank"}, t("aud.placed", {rank: digits(r.rank), n: digits(mine.of)})) : null,
        total));
      return;
    }
    if (total) el.append(total);
    tv(el, game, state, receivedAt);
  }

  function chooser(game, view, kind, act) {
    const step = view.step;
    if (chosen.step !== step) chosen = {step, territory: null};
    const drawing = maps[view.map];
    const nameOfTerritory = (id) => { const x = drawing && drawing.territories.find((y) => y.id === id); return x ? localized(x.name) : id; };
    const wrap = h("div", {class: "chooser", id: "chooser"},
      h("p", {class: "big-text"}, kind === "pick" ? t("camp.your_pick") : t("camp.your_attack")),
      h("p", {class: "countdown small", "data-countdown": ""}));
    const confirm = h("button", {class: "big primary", id: "confirm", disabled: !chosen.territory, onclick: () => {
      if (chosen.territory) act({[kind]: chosen.territory});
    }}, chosen.territory ? t(kind === "pick" ? "camp.confirm_pick" : "camp.confirm_attack", {place: nameOfTerritory(chosen.territory)}) : t("camp.tap_territory"));
    wrap.append(h("div", {class: "phone-map"}, mapOrWait(view, game, {choosable: view.options, selected: chosen.territory, names: false,
      onpick: (id) => { chosen.territory = id; wrap.replaceWith(chooser(game, view, kind, act)); }})),
    h("div", {class: "territory-list"}, view.options.map((id) => h("button", {class: "territory-button" + (chosen.territory === id ? " selected" : ""),
      "data-territory": id, onclick: () => { chosen.territory = id; wrap.replaceWith(chooser(game, view, kind, act)); }}, nameOfTerritory(id)))),
    confirm);
    return wrap;
  }

  return {tv, phone, audience};
})();
