/* Short Campaign on the TV (the living map, the question on stage, the scores) and on the phone (keypad,
 * options, a map to tap). Views come from engine/campaign/game.py; nothing here decides anything.
 *
 * Layout (issue [9]): on the TV the game's area is the map with the question above it and a side column sized for
 * its content: the scores (the whole score on the card's first line, the player's whole name on its own line, which
 * wraps and is never cut), the battle order and the latest events (a region that scrolls, newest first). Every text
 * players read is at least the TV's body size. The phone shows only what its player does now: the keypad, the
 * options, or the map chooser, whose list of territories (grouped by owner, with the owner's mark and name) scrolls
 * inside its own region above a Confirm button that never leaves the screen; a tap updates the selection in place.
 * Anyone who only watches (a spectator between questions, a late joiner, a player whose turn it is not) gets one
 * sentence about what happens now, the map and the scores.
 *
 * Numbers are formatted by TR.num in the page's language; question prompts and options come from question packs in
 * their own language and are marked data-verbatim; names that players typed go in a <bdi> or, in a sentence,
 * through TR.iso. */
"use strict";

TR.games.campaign = (() => {
  const {t, h, badge, clear, localized, seconds, num, iso} = TR;
  const maps = {};  /* map id -> drawing, fetched once */
  const waiting = {};
  const onPhone = () => document.body.classList.contains("phone");

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
  const nameOf = (game, seat) => TR.seatName(game, seat);
  const said = (game, seat) => iso(nameOf(game, seat));  /* a name inside a sentence, in any script */

  const mark = TR.seatMark;
  const who = TR.who;  /* a player: their mark and whole name */

  function territoryName(view, id) {
    const drawing = maps[view.map];
    const x = drawing && drawing.territories.find((y) => y.id === id);
    return x ? localized(x.name) : id;
  }

  /* A part of the screen fades in when it first appears, not again when the same thing is drawn once more (an
   * answer arriving, a tap, a language change): ``enter(part, key)`` gives the class that animates, once per key. */
  const entered = {};
  function enter(part, key) {
    const fresh = entered[part] !== key;
    entered[part] = key;
    return fresh ? " enter" : "";
  }

  /* A list that shows whole items only (the TV's log, the audience's top rows): the items that do not fit in its
   * box are hidden from the end, again whenever the box changes size, so no line is ever cut in the middle. */
  const wholes = typeof ResizeObserver === "undefined" ? null : new ResizeObserver((entries) => {
    for (const e of entries) { if (e.target.isConnected) fitWhole(e.target); else wholes.unobserve(e.target); }
  });
  function fitWhole(list) {
    const items = [...list.children];
    for (const item of items) item.style.display = "";
    const bottom = list.getBoundingClientRect().bottom + 0.5;
    for (let i = items.length - 1; i >= 0 && items[i].getBoundingClientRect().bottom > bottom; i--) items[i].style.display = "none";
  }
  function keepWhole(list) {
    if (wholes) wholes.observe(list);
    requestAnimationFrame(() => { if (list.isConnected) fitWhole(list); });
    return list;
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
   * need the same element) instead of flashing. ``options.persist`` names the kept drawing.
   *
   * On the TV (``options.fit``) the labels keep the 10-foot size whatever the map's scale (issue [18]): each label is
   * a group at its territory's label point, scaled so that a name reads at LABEL_VH of the screen's height (20 px at
   * 1280x720), measured through the drawing's screen transform after every layout (fitLabels). Other options:
   * ``names`` (false: no names), ``values`` (false: no values), ``only`` (a set of ids: labels for these alone),
   * ``focus`` (ids the view box is zoomed to, with a margin; the others are faded). A territory whose owner changed
   * since the last drawing gets the class ``conquered`` (a short CSS animation) until the next change: re-drawing the
   * same state keeps the class, so the animation does not play again. */
  const kept = {};
  const NAME_UNITS = 28;  /* a name's font size in the map's units, before the label's scale */
  const LABEL_VH = 0.0295;  /* a name on the TV: 21.2 px at 720 (the rule's 20 px), 31.9 px at 1080 (its 30 px) */

  function fitLabels(svg) {
    if (!svg.isConnected) return;
    const m = svg.getScreenCTM();
    const scale = m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 0;
    if (!scale) return;
    const k = Math.min(12, Math.max(0.3, (LABEL_VH * window.innerHeight) / (NAME_UNITS * scale)));  /* a small map: big names */
    const value = `scale(${k.toFixed(4)})`;
    for (const g of svg.querySelectorAll(".label-in")) if (g.getAttribute("transform") !== value) g.setAttribute("transform", value);
  }

  function boxOf(drawing, ids) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const territory of drawing.territories) {
      if (!ids.has(territory.id)) continue;
      const n = territory.path.match(/-?\d+(?:\.\d+)?/g).map(Number);
      for (let i = 0; i + 1 < n.length; i += 2) {
        x0 = Math.min(x0, n[i]); x1 = Math.max(x1, n[i]); y0 = Math.min(y0, n[i + 1]); y1 = Math.max(y1, n[i + 1]);
      }
    }
    if (x0 === Infinity) return drawing.view_box;
    const pad = 0.14 * Math.max(x1 - x0, y1 - y0);
    return [x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad];
  }

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
        /* only a lit territory answers a tap (issue [10]): any other one selects nothing */
        paths[territory.id].addEventListener("click", () => {
          if (entry.onpick && entry.choosable.has(territory.id)) entry.onpick(territory.id);
        });
        layer.append(paths[territory.id]);
      }
      svg.append(layer, labels);
      entry = {svg, paths, labels, onpick: null, choosable: new Set(), owners: {}, conquered: new Set(), box: null};
      if (o.fit && typeof ResizeObserver !== "undefined") new ResizeObserver(() => fitLabels(svg)).observe(svg);
      if (key) kept[key] = entry;
    }
    const choosable = new Set(o.choosable || []);
    entry.onpick = o.onpick || null;
    entry.choosable = choosable;
    const focus = o.focus ? new Set(o.focus) : null;
    const box = (focus ? boxOf(drawing, focus) : drawing.view_box).map((v) => Math.round(v)).join(" ");
    if (entry.box !== box) { entry.svg.setAttribute("viewBox", box); entry.box = box; }
    const state = {};
    view.territories.forEach((x) => { state[x.id] = x; });
    const changed = drawing.territories.filter((x) => entry.owners[x.id] !== undefined && entry.owners[x.id] !== state[x.id].owner);
    if (changed.length) entry.conquered = new Set(changed.map((x) => x.id));
    const target = view.attack && view.attack.target;
    const labels = [];
    for (const territory of drawing.territories) {
      const s = state[territory.id];
      entry.owners[territory.id] = s.owner;
      const path = entry.paths[territory.id];
      path.setAttribute("fill", s.owner === null ? "#34405e" : colourOf(game, s.owner));
      path.setAttribute("class", ["territory", s.owner === null ? "free" : "owned",
        choosable.has(territory.id) ? "choosable" : "", territory.id === target ? "target" : "",
        o.selected === territory.id ? "selected" : "", entry.conquered.has(territory.id) ? "conquered" : "",
        focus && !focus.has(territory.id) ? "faded" : ""].join(" ").replace(/ +/g, " ").trim());
      if (o.only && !o.only.has(territory.id)) continue;
      const [lx, ly] = territory.label;
      const label = h("g", {class: "label", transform: `translate(${lx} ${ly})`, "pointer-events": "none"});
      const inner = h("g", {class: "label-in"});
      label.append(inner);
      const name = localized(territory.name);
      if (o.names !== false) {
        inner.append(h("text", {x: 0, y: -8, class: "t-name", ...(o.fit ? {"data-role": "map-label"} : {})}, name));
      }
      if (s.owner !== null) {
        if (o.values !== false) inner.append(h("text", {x: 0, y: 20, class: "t-value"}, num(s.value)));
        const owner = mark(game, s.owner, 26);
        owner.setAttribute("x", -13);
        owner.setAttribute("y", o.values === false ? -13 : 27);
        if (s.castle !== null && !s.demolished) inner.append(towers(0, o.values === false ? -20 : -34, s.towers, 22));
        else if (s.demolished) inner.append(h("text", {x: 0, y: -38, class: "t-ruin"}, "⌂"));
        inner.append(owner);
      }
      labels.push(label);
    }
    clear(entry.labels, labels);
    if (o.fit) requestAnimationFrame(() => fitLabels(entry.svg));
    return entry.svg;
  }

  function mapOrWait(view, game, options) {
    const drawing = loadMap(view.map);
    return drawing ? drawMap(drawing, view, game, options) : h("p", {class: "muted"}, t("common.loading"));
  }

  /* ----- what happens now, in one sentence ----- */

  /* What the question is for; ``me`` (a phone's own seat) says "you" where a sentence is about its player. */
  function purposeLine(game, view, me) {
    const q = view.question;
    if (q.purpose === "expansion") return t("camp.expansion_question", {n: view.round});
    if (q.purpose === "final") {
      const seats = q.seats.slice();
      return t("duel.final_tied", {names: TR.list(seats.map((s) => said(game, s))), score: view.players[seats[0]].score});
    }
    const a = view.attack.attacker;
    const d = view.attack.defender;
    const names = {a: said(game, a), d: said(game, d)};
    if (q.purpose === "duel") {
      if (me === a) return t("duel.you_attack", names);
      if (me === d) return t("duel.attacks_you", names);
      return t("camp.duel", names);
    }
    if (me === a) return t("duel.tiebreak_you_attack", names);
    if (me === d) return t("duel.tiebreak_you_defend", names);
    return t("camp.tiebreak", names);
  }

  /* How the last duel ended (the view's ``result``), in words: who took what from whom, "you" on one's own phone. */
  function resultText(game, view, me) {
    const r = view.result;
    if (!r) return "";
    const p = {a: said(game, r.attacker), d: said(game, r.defender), place: territoryName(view, r.territory)};
    const own = me === r.attacker ? "_by_you" : "";
    switch (r.kind) {
      case "taken": return t(me === r.defender ? "duel.taken_from_you" : "duel.taken" + own, p);
      case "held": return t(me === r.defender ? "duel.held_by_you" : me === r.attacker ? "duel.held_against_you" : "duel.held", p);
      case "tower": return t(me === r.defender ? "duel.tower_from_you" : "duel.tower" + own, {...p, n: r.towers});
      default: return t(me === r.defender ? "duel.eliminated_you" : "duel.eliminated" + own, p);
    }
  }

  /* The result is news from the moment a duel is settled until the next question opens (a castle assault's next
   * duel, the final question: while they are previewed). */
  const resultNews = (view) => !!view.result && (!view.question || view.phase === "preview");

  function resultBanner(game, view, me, phone) {
    const r = view.result;
    const winner = r.kind === "held" ? r.defender : r.attacker;
    const good = me === undefined || me === null ? "" : me === winner ? " good" : me === r.attacker || me === r.defender ? " bad" : "";
    return h(phone ? "p" : "section", {class: "camp-result" + good + enter(phone ? "result-phone" : "result", r.key),
      id: "duel-result", "data-result": r.kind, role: phone ? "status" : null},
    phone ? null : mark(game, winner, 48), h("span", {class: "result-text"}, resultText(game, view, me)));
  }

  function stageLine(view) {
    if (view.stage === "expansion") return t("camp.stage_expansion", {n: view.round});
    if (view.stage === "battle") return t("camp.stage_battle", {n: view.round});
    if (view.stage === "final") return t("camp.stage_final");
    return "";
  }

  /* Who acts (their seat) and the sentence that says what they do, while no question is on. */
  function actionNow(game, view) {
    if (view.phase === "pick" && view.picks.length) {
      return {seat: view.picks[0], text: t("camp.picks", {name: said(game, view.picks[0])})};
    }
    if (view.phase === "target" && view.attack) {
      return {seat: view.attack.attacker, text: t("camp.chooses_target", {name: said(game, view.attack.attacker)})};
    }
    return null;
  }

  function attackLine(game, view) {
    const attack = view.attack;
    if (!attack || attack.target === null || attack.defender === null) return null;
    if (!attack.castle) return t("camp.attack_on", {place: territoryName(view, attack.target)});
    return t("camp.assault_on", {place: territoryName(view, attack.target), n: view.players[attack.defender].towers});
  }

  /* ----- the question ----- */

  function countdownRing(target, total) {
    return h("div", {class: "ring", "data-ring": String(target), "data-total": String(Math.max(1, total))},
      h("svg", {viewBox: "0 0 100 100", "aria-hidden": "true"}, h("circle", {cx: 50, cy: 50, r: 44, class: "ring-back"}),
        h("circle", {cx: 50, cy: 50, r: 44, class: "ring-front", "stroke-dasharray": "276.5", "stroke-dashoffset": "0"})),
      h("span", {class: "ring-text", "data-countdown-to": String(target)}));
  }

  function prompt(q, extra, role) {
    return h("p", {class: "q-prompt" + (extra ? " " + extra : ""), dir: "auto", "data-verbatim": "", "data-role": role || null},
      localized(q.prompt));
  }

  function optionText(o) {
    return h("span", {class: "option-text", dir: "auto", "data-verbatim": ""}, localized(o));
  }

  function correctText(q) {
    return q.kind === "numeric" ? num(q.correct) : TR.letter(q.correct) + " · " + iso(localized(q.options[q.correct]));
  }

  function questionCard(game, view, state) {
    const q = view.question;
    const card = h("section", {class: "q-card" + (q.revealed ? " revealed" : "") + enter("card", q.opens_ms + ":" + q.revealed),
      id: "question"}, h("p", {class: "q-purpose"}, purposeLine(game, view)), prompt(q, null, q.revealed ? null : "question"));
    const line = duelFought(view) ? null : attackLine(game, view);
    if (line) card.insertBefore(h("p", {class: "q-where"}, line), card.lastChild);
    if (!q.revealed) {
      const locked = view.phase === "preview";
      const audience = state && state.audience && state.audience.answered
        ? h("p", {class: "aud-count"}, t("aud.answered", {n: state.audience.answered})) : null;
      card.append(h("div", {class: "q-status"},
        h("div", {class: "ring-box"},
          countdownRing(locked ? q.opens_ms : q.closes_ms, locked ? q.opens_ms - game.now_ms : q.closes_ms - q.opens_ms),
          h("p", {class: "ring-label"}, locked ? t("camp.get_ready") : t("camp.answer_now"))),
        h("ul", {class: "answered"}, q.seats.map((seat) => {
          const done = q.answered.includes(seat);
          return h("li", {class: done ? "done" : "pending", "data-seat": seat}, who(game, seat, 30),
            h("span", {class: "answer-state"}, done ? t("camp.has_answered") : t("camp.thinking")));
        }), audience ? h("li", {class: "aud-line"}, audience) : null)));
      if (q.kind === "choice") {
        card.append(h("ol", {class: "options" + (q.options.length > 4 ? " many" : "")}, q.options.map((o, i) => h("li", {"data-role": "option"},
          h("span", {class: "letter"}, TR.letter(i)), optionText(o)))));
      }
      return card;
    }
    if (q.kind === "numeric") {
      card.append(h("p", {class: "q-correct"}, t("camp.correct_number", {n: q.correct})));
      /* Three columns, so a long answer never squeezes the names: the place, the player with how far off and how
       * fast under the name, and the answer, large (the row's headline at the 10-foot size). */
      const rows = q.ranking.map((seat, place) => {
        const a = q.answers.find((x) => x.seat === seat);
        return h("tr", {class: place === 0 && a ? "first" : "", "data-role": "row"},
          h("td", {class: "place"}, num(place + 1)),
          h("td", {class: "who-cell"}, who(game, seat, 30), h("span", {class: "reveal-detail"}, a
            ? t("camp.col_off") + " " + num(a.distance) + " · " + t("camp.col_time") + " " + seconds(a.ms) : t("camp.no_answer"))),
          h("td", {class: "num answer"}, a ? num(a.value) : "—"));
      });
      const head = ["", "camp.l_player", "camp.l_answer"];
      card.append(h("table", {class: "reveal-table"},
        h("thead", null, h("tr", null, head.map((k, i) => h("th", {class: i > 1 ? "num" : ""}, k ? t(k) : "")))),
        h("tbody", null, rows)));
      if (q.drawn) card.append(h("p", {class: "muted"}, t("camp.drawn")));
    } else {
      card.append(h("ol", {class: "options revealed" + (q.options.length > 4 ? " many" : "")}, q.options.map((o, i) => h("li", {class: i === q.correct ? "right" : "wrong", "data-role": "option"},
        h("span", {class: "letter"}, i === q.correct ? "✓" : TR.letter(i)), optionText(o),
        h("span", {class: "pickers"}, q.answers.filter((a) => a.value === i).map((a) => mark(game, a.seat, 26)))))));
    }
    return card;
  }

  /* ----- the TV ----- */

  function banner(game, view) {
    const now = actionNow(game, view);
    if (!now) return null;
    return h("div", {class: "banner" + enter("banner", view.step)}, mark(game, now.seat, 40),
      h("p", {class: "banner-text"}, now.text), h("span", {class: "banner-time", "data-countdown": ""}));
  }

  function awayOf(game, state, seat) {
    const slot = slotOf(game, seat);
    if (!state || slot.seat === null || slot.seat === undefined) return false;
    const person = (state.players || []).find((p) => p.id === slot.seat);
    return !!person && !person.connected;
  }

  /* A score counts from what this TV showed last to the new one (TR.motion, docs/motion.md); a new game (its steps
   * start again) counts from its own first scores. */
  let shownStep = -1;
  function counted(span, seat, score) {
    TR.motion.countUp(span, null, score, null, "camp:score:" + seat);
    return span;
  }

  function scoreboard(game, view, state) {
    if (view.step < shownStep) TR.motion.reset("camp:");
    shownStep = view.step;
    return h("section", {class: "scores", id: "scores"}, view.players.map((p) => h("div", {
      class: "score-card" + (p.eliminated ? " out" : "") + (view.attack && view.attack.attacker === p.seat ? " active" : ""),
      "data-seat": p.seat, style: `--seat: ${colourOf(game, p.seat)}`},
    h("div", {class: "score-line"}, mark(game, p.seat, 40),
      counted(h("span", {class: "score", "data-score": p.score, "data-role": "score"}, num(p.score)), p.seat, p.score),
      p.eliminated ? h("span", {class: "score-out"}, t("camp.eliminated"))
        : h("span", {class: "score-towers", role: "img", "aria-label": t("camp.towers", {n: p.towers})}, "♜".repeat(p.towers))),
    h("bdi", {class: "name"}, nameOf(game, p.seat)),
    awayOf(game, state, p.seat) ? h("span", {class: "away-note"}, t("camp.bot_covers")) : null)));
  }

  function orderStrip(game, view) {
    if (!view.orders.length) return null;
    return h("section", {class: "orders"}, h("h2", null, t("camp.battle_order")),
      h("ol", null, view.orders.map((order, i) => h("li", {class: "order" + (view.stage === "battle" && view.round === i + 1 ? " now" : "")},
        h("span", {class: "round-no"}, t("camp.round_n", {n: i + 1})),
        h("span", {class: "order-seats"}, order.map((seat, k) => h("span", {class: "order-seat"
          + (view.round === i + 1 && view.turn === k ? " turn" : "") + (view.players[seat].eliminated ? " out" : "")},
        mark(game, seat, 24))))))));
  }

  function historyLine(game, view, entry) {
    const n = (seat) => said(game, seat);
    const place = (id) => territoryName(view, id);
    switch (entry.kind) {
      case "pick": return t(entry.timeout ? "camp.h_pick_timeout" : "camp.h_pick", {name: n(entry.seat), place: place(entry.territory)});
      case "attack": return t("camp.h_attack", {name: n(entry.seat), other: n(entry.defender), place: place(entry.territory)});
      case "conquest": return t("camp.h_conquest", {name: n(entry.seat), place: place(entry.territory)});
      case "repelled": return t("camp.h_repelled", {name: n(entry.seat), other: n(entry.attacker)});
      case "tower": return t("camp.h_tower", {name: n(entry.defender), n: entry.towers});
      case "eliminated": return t("camp.h_eliminated", {name: n(entry.seat), other: n(entry.by)});
      default: return null;
    }
  }

  function feed(game, view) {
    const lines = view.history.slice().reverse().map((e) => historyLine(game, view, e)).filter(Boolean).slice(0, 6);
    if (!lines.length) return null;
    return keepWhole(h("ul", {class: "feed", id: "feed"}, lines.map((line, i) => h("li", {class: i === 0 ? "latest" : "", "data-role": "log"}, line))));
  }

  /* ----- the audience play-along (host/audience.py) ----- */

  function audienceTop(state, title) {
    const a = state.audience;
    if (!a || !a.top.length) return null;
    return h("section", {class: "aud-top", id: "audience-top"}, h("h2", null, title || t("aud.top_five")),
      keepWhole(h("ol", null, a.top.map((p) => h("li", {class: "aud-row", "data-seat": p.id, "data-role": "row"},
        h("span", {class: "aud-place"}, num(p.place)),
        h("span", {class: "who"}, badge(p.colour, p.shape, 26), h("bdi", {class: "name"}, p.name)),
        h("span", {class: "aud-points"}, t("aud.points", {n: p.points}),
          p.gained && a.revealed ? h("span", {class: "aud-gained"}, " ", t("aud.gained", {n: p.gained})) : null))))));
  }

  function audienceWinner(state) {
    const a = state.audience;
    if (!a || !a.top.length) return null;
    const best = a.top[0];
    return h("section", {class: "aud-winner", id: "audience-winner"}, h("h2", null, t("aud.winner")),
      h("p", {class: "aud-winner-line"}, badge(best.colour, best.shape, 36),
        h("span", null, t("aud.winner_line", {name: iso(best.name), n: best.points}))),
      audienceTop(state));
  }

  /* ----- the end ----- */

  /* The seats best first: the room's outcome (also the standings of a game the host ended), else the engine's final
   * ranking, else by score. */
  function standingsOrder(view, game) {
    if (game && game.outcome) return game.outcome.ranking;
    if (view.final_ranking && view.final_ranking.length) return view.final_ranking;
    return view.players.map((p) => p.seat).sort((a, b) => view.players[b].score - view.players[a].score);
  }

  function statsTable(game, view) {
    const stats = view.stats || [];
    const columns = ["camp.l_player", "camp.s_score", "duel.s_answers", "camp.s_mean", "camp.s_taken", "camp.s_defended"];
    return h("table", {class: "stats", id: "stats"},
      h("thead", null, h("tr", null, columns.map((k, i) => h("th", {class: i ? "num" : ""}, t(k))))),
      h("tbody", null, standingsOrder(view, game).map((seat) => {
        const s = stats.find((x) => x.seat === seat);
        const p = view.players[seat];
        return h("tr", {class: p.eliminated ? "out" : "", "data-role": "row", "data-seat": seat}, h("td", {class: "who-cell"}, who(game, seat, 30)),
          h("td", {class: "num score"}, num(p.score)),
          h("td", {class: "num right-closest"}, s ? t("duel.right_closest", {right: s.right, closest: s.closest || 0, n: s.answers}) : "—"),
          h("td", {class: "num"}, s && s.mean_ms !== null && s.mean_ms !== undefined ? seconds(s.mean_ms) : "—"),
          h("td", {class: "num"}, s ? num(s.taken) : "—"), h("td", {class: "num"}, s ? num(s.defended) : "—"));
      })));
  }

  /* The answer log, every timing figure of every answer: fine print the host may open (its table is built when
   * it is opened, so a closed log lays nothing out). */
  function answerLog(game, view) {
    if (!view.answer_log || !view.answer_log.length) return null;
    const figure = (value, format) => (value === null || value === undefined || Number.isNaN(value) ? "—" : format(value));
    const table = () => h("div", {class: "log-scroll scroll-region"}, h("table", null,
      h("thead", null, h("tr", null, ["camp.l_question", "camp.l_player", "camp.l_answer", "camp.l_effective",
        "camp.l_claimed", "camp.l_seen", "camp.l_rtt", "camp.l_flag"].map((k) => h("th", null, t(k))))),
      h("tbody", null, view.answer_log.flatMap((q, i) => q.answers.map((a) => {
        const tm = a.timing || {};
        return h("tr", null, h("td", null, num(i + 1) + " · " + t("camp.p_" + q.purpose)),
          h("td", null, h("bdi", {class: "name"}, nameOf(game, a.seat))),
          h("td", {class: "num"}, q.purpose === "duel" ? TR.letter(a.value) : num(a.value)), h("td", {class: "num"}, seconds(a.ms)),
          h("td", {class: "num"}, figure(tm.claimed, seconds)),
          h("td", {class: "num"}, figure(tm.receipt === undefined ? null : tm.receipt - tm.unlock, seconds)),
          h("td", {class: "num"}, figure(tm.rtt, TR.millis)),
          h("td", null, tm.flag ? t("camp.flag_" + tm.flag) : ""));
      })))));
    const log = h("details", {class: "answer-log", id: "answer-log", "data-fine": "", open: logOpen, ontoggle: (e) => {
      logOpen = e.currentTarget.open;
      if (logOpen && !e.currentTarget.querySelector(".log-scroll")) e.currentTarget.append(table());
    }}, h("summary", null, t("camp.answer_log")));
    if (logOpen) log.append(table());
    return log;
  }

  /* Each tie the final quick question decided (CAMP-R24, D12), said on the results. */
  function tiebreakNotes(game, view) {
    const groups = (view.settled || []).filter((g) => g.seats.length > 1);
    if (!groups.length) return null;
    return h("div", {class: "tiebreak-notes", id: "tiebreak-note"}, groups.map((g) => h("p", {class: "tiebreak-note"},
      t("duel.tied_final", {names: TR.list(g.seats.map((s) => said(game, s))), score: g.score, winner: said(game, g.seats[0])}))));
  }

  function finalScreen(game, view, state) {
    return h("section", {class: "camp-final"}, tiebreakNotes(game, view), statsTable(game, view),
      h("div", {class: "final-board"}, h("div", {class: "camp-map-wrap"}, mapOrWait(view, game, {persist: "tv", fit: true, names: false, values: false})),
        state ? audienceWinner(state) : null),
      answerLog(game, view));
  }

  /* A question's preview that ends at its own time comes with no new state (engine/core.py ``foreseen``): from that
   * instant every screen draws the game as the open question, and asks for one redraw then (a timer that fires a
   * little early asks again). Not while the room is paused or holds still: its clock stands. */
  let unlock = {at: null, timer: null};
  function current(game, state, receivedAt) {
    const view = game && game.view;
    const q = view && view.question;
    if (!q || view.phase !== "preview" || (state && (state.paused || state.hold))) return game;
    const at = TR.localTime(q.opens_ms, game, receivedAt);
    if (performance.now() >= at) {
      return Object.assign({}, game, {deadline_ms: q.closes_ms, view: Object.assign({}, view, {phase: "answer"})});
    }
    if (unlock.at !== q.opens_ms) {
      clearTimeout(unlock.timer);
      unlock = {at: q.opens_ms, timer: setTimeout(() => {
        unlock.at = null;
        window.dispatchEvent(new Event("tr-refresh"));
      }, at - performance.now() + 5)};
    }
    return game;
  }

  let logOpen = false;
  let heard = {phase: null, last: null};

  function cues(view) {
    if (view.phase !== heard.phase) {
      if (view.phase === "answer") TR.sound && TR.sound.cue("unlock");
      if (view.phase === "reveal") TR.sound && TR.sound.cue("reveal");
    }
    const seen = view.history.map((e) => JSON.stringify(e));
    const fresh = heard.last === null ? [] : view.history.slice(seen.lastIndexOf(heard.last) + 1);
    if (fresh.some((e) => e.kind === "conquest" || e.kind === "eliminated")) TR.sound && TR.sound.cue("conquest");
    else if (fresh.some((e) => e.kind === "tower")) TR.sound && TR.sound.cue("tower");
    heard = {phase: view.phase, last: seen.length ? seen[seen.length - 1] : heard.last};
  }

  function tv(el, game, state, receivedAt) {
    el.classList.add("camp");
    game = current(game, state, receivedAt);
    if (onPhone()) { watcher(el, game, state); return; }  /* a phone that watches: the phone's own view */
    const view = game.view;
    cues(view);
    const q = view.question;
    TR.sound && TR.sound.music(q && !q.revealed && !(state && state.paused) ? "question" : null, {endsAt: q && q.closes_ms ? TR.localTime(q.closes_ms, game, receivedAt) : null});
    if (q && q.answered && q.answered.length) TR.sound && TR.sound.cue("lockin", [q.opens_ms, q.answered.length]);
    if (view.stage === "over" || game.aborted) {
      el.append(finalScreen(game, view, state));
      return;
    }
    const crowd = state && state.audience && view.phase === "reveal" ? audienceTop(state) : null;
    const top = view.question ? questionCard(game, view, state) : banner(game, view);
    const news = resultNews(view) ? resultBanner(game, view) : null;
    const fought = duelFought(view);
    /* During a question the map is only the scene (no names, no values: too small to read from the sofa); during a
     * duel the side column shows the two sides and the fought-over territory zoomed, with its name. */
    const map = crowd || h("div", {class: "camp-map-wrap" + (view.question ? " dim" : "")},
      mapOrWait(view, game, {choosable: view.options, persist: "tv", fit: true,
        ...(view.question ? {names: false, values: false} : {})}));
    el.append(h("div", {class: "camp-tv" + (fought ? " dueling" : "") + (view.question ? " asking" : "")},
      h("div", {class: "camp-main"},
        h("p", {class: "stage-line"}, stageLine(view)),
        news,
        top ? h("div", {class: "camp-top" + (view.question ? " has-question" : "")}, top) : null,
        fought ? null : map),
      h("aside", {class: "camp-side"}, scoreboard(game, view, state),
        fought ? duelBoard(game, view) : [orderStrip(game, view), feed(game, view)])));
  }

  /* A duel (or its tiebreak) being fought: its question is on and its target chosen. */
  const duelFought = (view) => !!(view.question && ["duel", "tiebreak"].includes(view.question.purpose)
    && view.attack && view.attack.target !== null && view.attack.defender !== null);

  /* The duel on the TV, large: attacker against defender, and the map zoomed to the target and the attacker's land
   * next to it (the two sides of the border being fought over), with their names at the 10-foot size. */
  function duelBoard(game, view) {
    const attack = view.attack;
    const drawing = loadMap(view.map);
    let zoomed = h("p", {class: "muted"}, t("common.loading"));
    if (drawing) {
      const near = new Set((drawing.territories.find((x) => x.id === attack.target) || {}).neighbours || []);
      const from = view.territories.filter((x) => x.owner === attack.attacker && near.has(x.id)).map((x) => x.id);
      const focus = [attack.target, ...from];
      zoomed = drawMap(drawing, view, game, {persist: "duel", fit: true, focus, only: new Set(focus)});
    }
    return h("section", {class: "duel-board", id: "duel-board", "data-target": attack.target},
      h("p", {class: "duel-sides"}, who(game, attack.attacker, 30), h("span", {class: "duel-vs", "aria-hidden": "true"}, "⚔"),
        who(game, attack.defender, 30)),
      h("div", {class: "duel-map"}, zoomed),
      h("p", {class: "duel-target"}, attackLine(game, view)));
  }

  /* ----- the phone ----- */

  let entry = {step: null, text: "", sent: null, shownAt: null};
  const IN = {};  /* entry.sent when the server has an answer whose value this page does not know */
  let chosen = {step: null, territory: null};

  function unlockAt(game, q, receivedAt, onUnlock) {
    const at = TR.localTime(q.opens_ms, game, receivedAt);
    const wait = at - performance.now();
    if (wait > 0) setTimeout(onUnlock, wait);
    return Math.max(at, performance.now());
  }

  function miniScores(game, view, me) {
    return h("div", {class: "camp-phone-scores", id: "mini-scores"}, view.players.map((p) => h("span", {
      class: "mini-score" + (p.seat === me ? " me" : "") + (p.eliminated ? " out" : ""), "data-seat": p.seat},
    mark(game, p.seat, 22), h("span", {class: "mini-points"}, num(p.score)))));
  }

  /* The final standings on a phone: place, mark, name, score. */
  function phoneStandings(game, view, me) {
    const places = (game.outcome && game.outcome.places) || [];  /* tied seats share a place */
    return h("ol", {class: "phone-standings", id: "standings"}, standingsOrder(view, game).map((seat, i) => h("li", {
      class: (seat === me ? "me" : "") + (view.players[seat].eliminated ? " out" : "")},
    h("span", {class: "place"}, num(places[i] || i + 1)), who(game, seat, 26),
    h("span", {class: "num"}, num(view.players[seat].score)))));
  }

  /* What a phone that does not act now shows: one sentence about what happens, the question if one is on, the map
   * and the scores. */
  function watcher(el, game, state, me) {
    const view = game.view;
    const q = view.question;
    el.append(miniScores(game, view, me));
    if (view.stage === "over" || game.aborted) {
      el.append(phoneStandings(game, view, me));
      return;
    }
    const now = actionNow(game, view);
    const parts = [h("p", {class: "watch-stage"}, stageLine(view))];
    if (resultNews(view)) parts.push(resultBanner(game, view, me, true));
    if (q) {
      parts.push(h("p", {class: "watch-line"}, purposeLine(game, view, me)), prompt(q, "small"));
      if (q.revealed) parts.push(h("p", {class: "watch-correct"}, t("camp.correct_is", {x: correctText(q)})));
      else if (q.kind === "choice") {
        parts.push(h("ol", {class: "watch-options"}, q.options.map((o, i) => h("li", null,
          h("span", {class: "letter"}, TR.letter(i)), optionText(o)))));
      }
    } else if (now) {
      parts.push(h("p", {class: "watch-line"}, mark(game, now.seat, 26), " ", now.text));
    }
    parts.push(h("p", {class: "muted"}, t("camp.watch_tv")));
    el.append(h("div", {class: "phone-map watch-map"}, mapOrWait(view, game, {persist: "watch"})),
      h("div", {class: "watching" + enter("watching", view.step), id: "camp-watching"}, parts));
  }

  function phone(el, game, state, act, receivedAt) {
    el.classList.add("camp");
    game = current(game, state, receivedAt);
    const view = game.view;
    const me = game.you;
    const q = view.question;
    if (view.stage === "over" || game.aborted) {
      el.append(miniScores(game, view, me), h("p", {class: "big-text", id: "final-score"}, t("camp.final_score", {n: view.players[me].score})),
        phoneStandings(game, view, me));
      return;
    }
    const news = resultNews(view) ? resultBanner(game, view, me, true) : null;
    if (q && q.seats.includes(me)) { el.append(miniScores(game, view, me), news || "", answerPad(game, view, q, act, receivedAt, me)); return; }
    if (view.phase === "pick" && view.picks[0] === me) { el.append(miniScores(game, view, me), chooser(game, view, "pick", act)); return; }
    if (view.phase === "target" && view.attack.attacker === me) { el.append(miniScores(game, view, me), news || "", chooser(game, view, "target", act)); return; }
    watcher(el, game, state, me);
  }

  function answerPad(game, view, q, act, receivedAt, me) {
    const wrap = h("div", {class: "pad-wrap" + enter("pad", q.opens_ms + ":" + q.revealed + ":" + (q.yours !== undefined)), id: "answer-pad"});
    wrap.append(h("p", {class: "q-purpose"}, purposeLine(game, view, me)), prompt(q, "small"));
    if (entry.step !== q.opens_ms) entry = {step: q.opens_ms, text: "", sent: null, shownAt: null};
    if (q.revealed) {
      /* A number question: "Right!" for the exact number, "Closest!" for the nearest answer that is not exact
       * (it wins the round all the same, CAMP-D5), else "Not this time". */
      const mine = (q.answers || []).find((a) => a.seat === game.you);
      const right = mine && (q.kind === "numeric" ? mine.distance === 0 : mine.value === q.correct);
      const closest = !right && mine && q.kind === "numeric" && q.ranking[0] === game.you;
      TR.sound && TR.sound.cue(right || closest ? "right" : "wrong", q.opens_ms);
      wrap.append(h("p", {class: "big-text " + (right || closest ? "good" : "bad"), id: "my-result", "data-verdict": right ? "right" : closest ? "closest" : mine ? "wrong" : "none"},
        right ? t("camp.you_right") : closest ? t("duel.closest") : mine ? t("camp.you_wrong") : t("camp.no_answer")),
      h("p", null, t("camp.correct_is", {x: correctText(q)})));
      return wrap;
    }
    if (q.yours !== undefined || entry.sent !== null) {
      const value = q.yours !== undefined ? q.yours : entry.sent;
      wrap.append(h("p", {class: "big-text", id: "sent"}, value === IN ? t("aud.answer_in") : t("camp.sent", {x: q.kind === "numeric"
        ? num(Number(value)) : TR.letter(value)})), h("p", {class: "muted"}, t("camp.wait_others")));
      return wrap;
    }
    if (q.time_up) {  /* CAMP-X1: its own window passed while a longer one still runs */
      wrap.append(h("p", {class: "big-text", id: "time-up", role: "status"}, t("xtime.time_up")));
      return wrap;
    }
    const locked = view.phase === "preview";
    const enable = () => { entry.shownAt = performance.now(); for (const b of wrap.querySelectorAll("[data-lock]")) b.disabled = false; TR.sound && TR.sound.cue("unlock"); };
    if (locked) entry.shownAt = unlockAt(game, q, receivedAt, enable);
    else if (entry.shownAt === null) entry.shownAt = performance.now();
    wrap.append(h("p", {class: "countdown small", "data-countdown-to": String(locked ? q.opens_ms : q.closes_ms)}));
    const send = (action, shown) => {
      const ms = Math.max(0, Math.round(performance.now() - entry.shownAt));
      entry.sent = shown;
      TR.sound && TR.sound.cue("lockin");  /* silent unless this phone's owner turned sound on */
      window.dispatchEvent(new Event("tr-refresh"));  /* "Sent" at once, whether or not a new state follows */
      act(action, {ms}).then((answer) => {
        if (answer.ok) return;
        /* The server already has an answer of this spectator (an earlier tap whose acknowledgement was lost): it
         * is in, and no state will say so until the next broadcast, so the pad must not come back. */
        entry.sent = answer.error && answer.error.code === "already_answered" ? IN : null;
        window.dispatchEvent(new Event("tr-refresh"));
      });
    };
    if (q.kind === "choice") {
      wrap.append(h("div", {class: "choice-grid" + (q.options.length > 4 ? " many" : "")}, q.options.map((o, i) => h("button", {
        class: "choice-button", "data-choice": i, "data-lock": "", disabled: locked,
        onclick: () => send({choice: i}, i)}, h("span", {class: "letter"}, TR.letter(i)), optionText(o)))));
      return wrap;
    }
    const pad = TR.numberPad(entry, {disabled: locked, lock: true, send: (text) => send({answer: text}, TR.western(text))});
    wrap.append(pad.display, pad.keypad);
    keyboard = pad.keyboard;
    return wrap;
  }

  let keyboard = null;
  document.addEventListener("keydown", (e) => { if (keyboard) keyboard(e); });

  /* A spectator's phone: the open question with the players' own controls (its answer goes to the audience, never
   * to the game), its own result after the reveal, and the watcher's view in between. */
  function audience(el, game, state, act, receivedAt) {
    el.classList.add("camp");
    game = current(game, state, receivedAt);
    const view = game.view;
    const q = view.question;
    const mine = state.audience.you || {};
    const total = mine.place ? h("p", {class: "aud-total", id: "aud-total"},
      t("aud.total", {points: mine.points, place: mine.place, n: mine.players})) : null;
    if (view.stage === "over" || game.aborted) {
      el.append(h("p", {class: "big-text aud-final", id: "aud-final"}, mine.place
        ? t("aud.final", {place: mine.place, n: mine.players, points: mine.points})
        : t("aud.top_five")), h("div", {class: "aud-phone-top scroll-region"}, audienceTop(state)));
      return;
    }
    if (q && !q.revealed) {
      const asked = mine.key === q.opens_ms && mine.yours !== null && mine.yours !== undefined
        ? Object.assign({}, q, {yours: mine.yours}) : Object.assign({}, q, {yours: undefined});
      el.append(...[h("p", {class: "aud-banner", id: "aud-banner"}, t("aud.play_along")), total,
        answerPad(game, view, asked, act, receivedAt)].filter(Boolean));
      return;
    }
    if (q && q.revealed && mine.key === q.opens_ms) {
      const r = mine.result;
      const given = r ? (q.kind === "numeric" ? num(r.value) : TR.letter(r.value)) : null;
      const good = r && (q.kind === "numeric" ? r.rank === 1 : r.right);
      el.append(h("div", {class: "pad-wrap aud-result" + enter("pad", q.opens_ms + ":result"), id: "aud-result"},
        prompt(q, "small"),
        h("p", {class: "big-text " + (r ? (good ? "good" : "bad") : ""), id: "aud-points"},
          r ? t("aud.got", {n: r.points}) : t("aud.no_answer")),
        r ? h("p", null, t("aud.your_answer", {x: given})) : null,
        h("p", null, t("camp.correct_is", {x: correctText(q)})),
        r ? h("p", {id: "aud-rank"}, t("aud.placed", {rank: r.rank, n: mine.of})) : null,
        total));
      return;
    }
    if (total) el.append(total);
    watcher(el, game, state);
  }

  /* The map chooser: the map (tap a lit territory) and the same territories as buttons, grouped by owner with the
   * owner's mark and name, in a region that scrolls; the Confirm button below never scrolls away. A tap changes
   * the selection in place. */
  function chooser(game, view, kind, act) {
    const step = view.step;
    if (chosen.step !== step) chosen = {step, territory: null};
    const owners = {};
    view.territories.forEach((x) => { owners[x.id] = x; });
    const buttons = {};
    const confirmText = (id) => (id ? t(kind === "pick" ? "camp.confirm_pick" : "camp.confirm_attack", {place: territoryName(view, id)})
      : t("camp.tap_territory"));
    const confirm = h("button", {class: "big primary", id: "confirm", disabled: !chosen.territory, onclick: () => {
      if (chosen.territory) act({[kind]: chosen.territory});
    }}, confirmText(chosen.territory));
    let svg = null;
    const select = (id) => {
      if (!view.options.includes(id)) return;
      chosen.territory = id;
      for (const [tid, button] of Object.entries(buttons)) {
        button.classList.toggle("selected", tid === id);
        button.setAttribute("aria-pressed", tid === id ? "true" : "false");
      }
      if (svg) for (const path of svg.querySelectorAll("[data-territory]")) path.classList.toggle("selected", path.dataset.territory === id);
      confirm.disabled = false;
      confirm.textContent = confirmText(id);
    };
    const button = (id) => {
      const x = owners[id];
      buttons[id] = h("button", {class: "territory-button" + (chosen.territory === id ? " selected" : ""), "data-territory": id,
        "aria-pressed": chosen.territory === id ? "true" : "false", onclick: () => select(id)},
      h("span", {class: "t-label"}, territoryName(view, id)),
      x && x.owner !== null ? h("span", {class: "t-worth"}, x.castle !== null && !x.demolished ? "♜".repeat(x.towers) : num(x.value)) : null);
      return buttons[id];
    };
    const groups = [];
    for (const id of view.options) {
      const owner = owners[id] ? owners[id].owner : null;
      let group = groups.find((g) => g.owner === owner);
      if (!group) { group = {owner, ids: []}; groups.push(group); }
      group.ids.push(id);
    }
    const list = h("div", {class: "territory-list scroll-region", id: "territory-list"}, groups.map((g) => h("section", {class: "t-group"},
      g.owner === null ? null : h("p", {class: "t-owner"}, who(game, g.owner, 22)),
      h("div", {class: "t-buttons"}, g.ids.map(button)))));
    svg = mapOrWait(view, game, {persist: "phone", choosable: view.options, selected: chosen.territory, names: false, onpick: select});
    return h("div", {class: "chooser" + enter("chooser", step), id: "chooser"},
      h("div", {class: "chooser-head"}, h("p", {class: "chooser-title"}, kind === "pick" ? t("camp.your_pick") : t("camp.your_attack")),
        h("p", {class: "countdown small", "data-countdown": ""})),
      h("div", {class: "phone-map"}, svg), list, confirm);
  }

  return {tv, phone, audience};
})();
