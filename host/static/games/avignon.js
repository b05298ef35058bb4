/* Avignon 1378 on the TV (five lanes across five locations from Avignon to Rome, both conclaves, the deck and the
 * discards, whose turn, each action animated and explained in words) and on the phone (action type, then character,
 * then the petition's extra choice, then a Confirm / Change step that says what will happen; only legal choices are
 * offered, and the choices the no-undo and repetition rules remove are listed with the reason). Views come from
 * engine/avignon/game.py; the deck's order is never in them, and neither is a card a preview would draw.
 *
 * Screens (issue [9]): a lane holds one character, so a character's token shows its whole name and may reach over
 * the empty cells of its own lane (the cell it stands on is filled with its colour); nothing is cut with an ellipsis.
 * On the phone the board is compact, the current step's choices scroll in their own region and Back, Change and
 * Confirm stay in a bar at the bottom, under the thumb. Spectators' phones get the TV's view with the same compact
 * board. A game the host ended has no one to play: neither the board nor the phones offer a move any more.
 *
 * Animation: the module keeps the previous view; when a new one arrives, every card whose place changed (a lane's
 * cell, a conclave, the top of the discard pile, or the deck for a drawn card) gets --dx/--dy (from its old place to
 * its new one, measured on the new board) and a class whose CSS keyframes slide it home with transform/opacity only.
 * With prefers-reduced-motion the cards do not move: they only get a static outline (a-changed).
 *
 * Learning from the screens (issue [13]): the TV keeps a move log beside the board (moveLog: the engine state's
 * bounded history, newest first, by turn); on a phone every character can be read (a tap on it, an ⓘ beside each
 * choice, a tap-and-hold on the choice: cardSheet, with the text the view carries from cards.json), each action type
 * has its one line (actionSheet), and rules() adds the story, the actions and every petition to "How to play". */
"use strict";

TR.games.avignon = (() => {
  const {t, h, localized, iso} = TR;
  const PLACES = ["avignon", "nice", "genoa", "florence", "rome"];
  const ROLES = ["avignon", "rome"];
  const WIN_COUNT = 3;
  const MAX_STEPS_ANIMATED = 3;  /* a longer jump (a reconnect) is shown as it is, without motion */

  const cls = (c) => t("avig.class." + c);
  const place = (p) => t("avig.place." + p);
  const other = (role) => (role === "rome" ? "avignon" : "rome");
  const seatName = (game, seat) => TR.seatName(game, seat);
  const onPhone = () => document.body.classList.contains("phone");
  /* no motion: the person's reduced-motion setting, or the TV's Motion off (the class motion-off on <html>) */
  const reducedMotion = () => !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches)
    || document.documentElement.classList.contains("motion-off");
  const ended = (game, view) => view.winner !== null || !!game.aborted;

  const mark = TR.seatMark;
  const who = TR.who;

  /* A character: its colour and its whole name (the lane's other cells leave it room, see avignon.css). With
   * ``view`` (on a phone) it is its own ⓘ: a tap or a tap-and-hold opens its text (cardSheet). */
  function token(card, view) {
    const el = h("span", {class: "a-token a-" + card.class + (view ? " a-readable" : ""), "data-card": card.card, "data-class": card.class},
      h("span", {class: "a-token-name"}, cls(card.class)));
    if (!view) return el;
    const open = () => cardSheet(view, card.card);
    el.setAttribute("role", "button");
    el.setAttribute("tabindex", "0");
    el.setAttribute("aria-label", t("common.rules_of", {name: cls(card.class)}));
    el.addEventListener("click", (e) => { e.stopPropagation(); open(); });
    el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } });
    return TR.longPress(el, open);
  }

  /* ----- the text of a card, a petition or an action, at hand (issue [13]) ----- */

  /* What a character card says: its petition as printed (the engine's card data, cards.json, in the view: the one
   * source of card text) and, for the three classes that decide a game otherwise, what they do in a conclave. */
  function cardBody(view, card) {
    const kind = view.classes[card];
    return [h("p", {class: "a-sheet-text", "data-card-text": card}, localized(view.texts[card])),
      TR.has("avig.note." + kind) ? h("p", {class: "a-sheet-note"}, t("avig.note." + kind)) : null];
  }
  const cardTitle = (view, card) => t("avig.petition_of", {card: cls(view.classes[card])});
  function cardSheet(view, card) { TR.sheet(cardTitle(view, card), cardBody(view, card), {"data-sheet-card": card}); }
  const cardInfo = (view, card) => TR.infoButton(cardTitle(view, card), () => cardBody(view, card), {"data-info-card": card});
  /* An action type: one line on what it does (AVIG-R9..R12). */
  const actionSheet = (type) => TR.sheet(t("avig.action." + type), [h("p", {class: "a-sheet-text"}, t("avig.help." + type))]);
  const actionInfo = (type) => TR.infoButton(t("avig.action." + type), () => [h("p", {class: "a-sheet-text"}, t("avig.help." + type))],
    {"data-info-action": type});

  /* The game's own part of "How to play" (TR.rulesSheet, the TV's button and each phone's "?"): the story (AVIG-R0),
   * the four actions, and every character with its petition, from the view's card data. */
  function rules(game) {
    const view = game && game.view;
    if (!view || !view.texts) return null;
    const first = [];
    view.classes.forEach((kind, card) => { if (!first.some((c) => view.classes[c] === kind)) first.push(card); });
    const count = (kind) => view.classes.filter((k) => k === kind).length;
    return h("div", {class: "a-rules", id: "a-rules"},
      h("p", {class: "a-rules-intro"}, t("avig.rules.intro", {year: TR.plain(1378)})),
      h("h3", null, t("avig.rules.actions")),
      h("ul", null, ["pull", "push", "banish", "petition"].map((type) => h("li", {"data-rule-action": type},
        h("strong", null, t("avig.action." + type)), t("avig.sep_colon"), t("avig.help." + type)))),
      h("h3", null, t("avig.rules.characters")),
      h("ul", null, first.map((card) => h("li", {"data-rule-class": view.classes[card]},
        h("strong", null, t("avig.rules.class_count", {card: cls(view.classes[card]), n: count(view.classes[card])})),
        t("avig.sep_colon"), localized(view.texts[card]),
        TR.has("avig.note." + view.classes[card]) ? h("span", {class: "a-rules-note"}, " " + t("avig.note." + view.classes[card])) : null))),
      h("p", {class: "a-rules-log"}, t("avig.rules.log")));
  }

  /* ----- words: what an action is and what it does ----- */

  /* One effect of an action (an event of the engine's history or of a preview) in words; ``acted`` is the card the
   * action named, called "it" in its own effects. */
  function effectText(view, e, myRole, acted) {
    const card = e.card === undefined ? "" : cls(view.classes[e.card]);
    const it = acted !== undefined && e.card === acted;
    switch (e.kind) {
      case "move": return t(it ? "avig.fx.it_move" : "avig.fx.move", {card, lane: e.lane, from: place(e.from), to: place(e.location)});
      case "conclave": return t(it ? "avig.fx.it_conclave" : "avig.fx.conclave", {card, lane: e.lane, place: place(e.role)});
      case "draw": return e.card === undefined ? t("avig.fx.draw_secret", {lane: e.lane, place: place(e.location)})
        : t("avig.fx.draw", {card, lane: e.lane, place: place(e.location)});
      case "banish": return t(it ? "avig.fx.it_banish" : "avig.fx.banish", {card, lane: e.lane});
      case "swap": return t("avig.fx.swap", {card, lane: e.lane, other: cls(view.classes[e.other]), target: e.target,
        to: place(e.location), other_to: place(e.other_location)});
      case "reshuffle": return t("avig.fx.reshuffle");
      case "empty": return t("avig.fx.empty", {lane: e.lane});
      case "win": return myRole ? (e.role === myRole ? t("avig.fx.you_win") : t("avig.fx.they_win")) : null;
      default: return null;
    }
  }

  function effectsText(view, effects, myRole, acted) {
    return effects.map((e) => effectText(view, e, myRole, acted)).filter(Boolean).join(t("avig.sep"));
  }

  /* The words for an action: prefix "say" (the TV, past tense, with the player's name) or "do" (the phone). */
  function actionText(prefix, a, role, card, extra) {
    const params = Object.assign({card: cls(card), lane: a.lane}, extra || {});
    if (a.action === "pull") return t(`avig.${prefix}.pull`, Object.assign(params, {place: place(role)}));
    if (a.action === "push") return t(`avig.${prefix}.push`, Object.assign(params, {place: place(other(role))}));
    if (a.action === "banish") return t(`avig.${prefix}.banish`, params);
    if (a.direction) return t(`avig.${prefix}.petition_toward`, Object.assign(params, {target: a.target, place: place(a.direction)}));
    if (a.target) return t(`avig.${prefix}.petition_target`, Object.assign(params, {target: a.target}));
    return t(`avig.${prefix}.petition`, params);
  }

  /* The history as actions, each with the events it caused (the first entries may have lost their action). */
  function actionsOf(view) {
    const groups = [];
    let current = null;
    for (const e of view.history) {
      if (e.kind === "action") { current = {action: e, events: []}; groups.push(current); }
      else if (current && e.kind !== "over") current.events.push(e);
    }
    return groups;
  }

  /* The card an action acted on (its number), from the events it caused. */
  function actedCard(group) {
    const a = group.action;
    const e = group.events.find((x) => (x.kind === "petition" || x.kind === "move" || x.kind === "conclave" || x.kind === "banish")
      && x.lane === a.lane && x.card !== undefined);
    return e ? e.card : undefined;
  }

  function explain(game, view, group) {
    const a = group.action;
    const card = actedCard(group);
    if (card === undefined) return null;
    const name = t("avig.name_side", {name: iso(seatName(game, a.seat)), place: place(a.role)});
    const what = actionText("say", a, a.role, view.classes[card], {name}) + (a.timeout ? " " + t("avig.say.timeout") : "");
    const effects = effectsText(view, group.events, null, card);
    return effects ? t("avig.explain", {what, effects}) : what;
  }

  /* The last turn in words: its earlier action (muted) and its last one. */
  function lastTurn(game, view) {
    const groups = actionsOf(view);
    if (!groups.length) return null;
    const last = groups[groups.length - 1];
    const before = groups.length > 1 && groups[groups.length - 2].action.seat === last.action.seat ? groups[groups.length - 2] : null;
    const card = actedCard(last);
    return h("div", {class: "a-explain", id: "a-explain", "aria-live": "polite"},
      before ? h("p", {class: "a-earlier", "data-role": "log"}, explain(game, view, before)) : null,
      h("p", {class: "a-last", id: "a-last", "data-role": "log"}, explain(game, view, last)),
      last.action.action === "petition" && card !== undefined ? petitionText(view, card) : null);
  }

  /* A card's petition as printed on it (the card data's text, in the page's language). */
  function petitionText(view, card) {
    return h("p", {class: "a-petition-text"}, t("avig.petition_text", {card: cls(view.classes[card]), text: localized(view.texts[card])}));
  }

  /* ----- the move log (the TV): every action of the kept history, newest first, grouped by turn ----- */

  /* One effect in the log's short form; the acted card's own moves leave its name out. */
  function logEffect(view, e, acted) {
    const card = e.card === undefined ? "" : cls(view.classes[e.card]);
    const it = acted !== undefined && e.card === acted;
    switch (e.kind) {
      case "move": return t(it ? "avig.log.it_move" : "avig.log.move", {card, lane: e.lane, from: place(e.from), to: place(e.location)});
      case "conclave": return t(it ? "avig.log.it_conclave" : "avig.log.conclave", {card, lane: e.lane, place: place(e.role)});
      case "draw": return t("avig.log.draw", {card, lane: e.lane, place: place(e.location)});
      case "banish": return it ? null : t("avig.log.banished", {card, lane: e.lane});
      case "swap": return t("avig.log.swap", {card, lane: e.lane, other: cls(view.classes[e.other]), target: e.target});
      case "reshuffle": return t("avig.log.reshuffle");
      case "empty": return t("avig.log.empty", {lane: e.lane});
      default: return null;
    }
  }

  function logAction(view, group) {
    const a = group.action;
    const card = actedCard(group);
    if (card === undefined) return null;
    const params = {card: cls(view.classes[card]), lane: a.lane, target: a.target, place: a.direction ? place(a.direction) : ""};
    const key = a.action !== "petition" ? a.action : a.direction ? "petition_toward" : a.target ? "petition_target" : "petition";
    const fx = group.events.map((e) => logEffect(view, e, card)).filter(Boolean);
    if (a.timeout) fx.push(t("avig.log.timeout"));
    return h("li", {class: "a-log-action", "data-log": a.action, "data-role": "log"},
      h("span", {class: "a-log-what"}, t("avig.log." + key, params)),
      fx.length ? h("span", {class: "a-log-fx"}, fx.join(t("avig.sep"))) : null);
  }

  /* The log: newest turn first, and in a turn its newest action first; the game's start and end when kept. */
  function moveLog(game, view) {
    const groups = actionsOf(view);
    const turns = [];
    for (const g of groups) {
      const last = turns[turns.length - 1];
      if (last && last.turn === g.action.turn && last.seat === g.action.seat) last.groups.push(g);
      else turns.push({turn: g.action.turn, seat: g.action.seat, role: g.action.role, groups: [g]});
    }
    const items = turns.reverse().map((turn, i) => h("li", {class: "a-log-turn" + (i === 0 ? " newest" : ""), "data-turn": turn.turn},
      h("p", {class: "a-log-head", "data-role": "log"}, t("avig.log.turn", {n: turn.turn, name: iso(seatName(game, turn.seat)), place: place(turn.role)})),
      h("ol", {class: "a-log-actions"}, turn.groups.slice().reverse().map((g) => logAction(view, g)))));
    const over = view.history.find((e) => e.kind === "over");
    if (over) items.unshift(h("li", {class: "a-log-over", "data-role": "log"}, t("avig.log.over", {name: iso(seatName(game, over.winner)), reason: t("outcome.avignon." + over.reason)})));
    const begin = view.history.find((e) => e.kind === "start");
    if (begin) items.push(h("li", {class: "a-log-start", "data-role": "log"}, t("avig.log.start", {rome: iso(seatName(game, begin.rome)), avignon: iso(seatName(game, begin.avignon))})));
    return h("section", {class: "a-log", id: "a-log", "aria-label": t("avig.log.title")},
      h("h3", {class: "a-log-title"}, t("avig.log.title")),
      h("ol", {class: "a-log-list scroll-region", id: "a-log-list"}, items));
  }

  /* ----- the board ----- */

  function lastLanes(view) {
    const groups = actionsOf(view);
    if (!groups.length) return new Set();
    const a = groups[groups.length - 1].action;
    return new Set([a.lane, a.target].filter(Boolean));
  }

  /* The board, always drawn from Avignon (left) to Rome (right), as the map cards lie; ``compact`` on a phone: no
   * names in the conclaves (the badge tells whose it is) and smaller cells. */
  function board(game, view, options) {
    const opts = options || {};
    const lit = opts.lit || new Set();
    const tok = (c) => token(c, opts.compact ? view : null);  /* on a phone every card can be read (cardSheet) */
    const rows = view.lanes.map((lane) => h("div", {class: "a-lane" + (lit.has(lane.lane) ? " lit" : "") + (opts.pick === lane.lane ? " picked" : ""),
      "data-lane-row": lane.lane},
      h("span", {class: "a-lane-no"}, TR.plain(lane.lane)),
      PLACES.map((p, i) => {
        const here = lane.card !== null && lane.location === i;
        return h("span", {class: "a-cell" + (i === 0 ? " end first" : i === 4 ? " end last" : "") + (here ? " full" : "")
          + (opts.dest && opts.dest.has(lane.lane + "-" + i) ? " a-dest" : ""), "data-cell": lane.lane + "-" + i, "data-holds": here ? lane.class : null},
        here ? tok(lane) : null);
      })));
    const dir = document.documentElement.dir || "ltr";  /* the board runs left to right; its words in the page's direction */
    const conclave = (role) => h("div", {class: "a-conclave a-conclave-" + role, id: "a-conclave-" + role, dir},
      h("p", {class: "a-conclave-head"},
        opts.compact ? mark(game, view.roles[role], 20) : null,
        h("span", {class: "a-conclave-word"}, t("avig.conclave")),
        h("span", {class: "a-conclave-place"}, opts.mine === role ? t("avig.yours", {place: place(role)}) : place(role)),
        h("span", {class: "a-conclave-count", "data-role": opts.compact ? null : "score"}, t("avig.count", {n: view.conclaves[role].length, max: WIN_COUNT}))),
      opts.compact ? null : h("p", {class: "a-conclave-who"}, who(game, view.roles[role], 32)),
      h("div", {class: "a-conclave-cards"}, view.conclaves[role].map((c) => tok(c))));
    const topDiscard = view.discard.length ? view.discard[view.discard.length - 1] : null;
    const piles = h("div", {class: "a-piles", dir},
      h("div", {class: "a-pile a-deck-pile", id: "a-deck-pile"}, h("span", {class: "a-card-back", "aria-hidden": "true"}),
        h("span", null, t("avig.deck", {n: view.deck_count}))),
      h("div", {class: "a-pile a-discard-pile", id: "a-discard-pile"},
        topDiscard ? tok(topDiscard) : h("span", {class: "a-card-empty", "aria-hidden": "true"}),
        h("span", null, t("avig.discard", {n: view.discard.length}))));
    return h("div", {class: "a-board" + (opts.compact ? " compact" : ""), dir: "ltr"},
      conclave("avignon"),
      h("div", {class: "a-grid"}, h("div", {class: "a-head"}, h("span", {class: "a-lane-no"}),
        PLACES.map((p) => h("span", {class: "a-place" + (p === "avignon" || p === "rome" ? " end" : "")}, place(p)))), rows, piles),
      conclave("rome"));
  }

  /* ----- animation: diff the previous view against the new one ----- */

  let previous = null;  /* {id, step, view} of the last board drawn on this page */

  function placesOf(view) {
    const at = new Map();
    for (const lane of view.lanes) if (lane.card !== null) at.set(lane.card, {at: "cell", lane: lane.lane, loc: lane.location});
    for (const role of ROLES) for (const c of view.conclaves[role]) at.set(c.card, {at: "conclave", role});
    if (view.discard.length) at.set(view.discard[view.discard.length - 1].card, {at: "discard"});
    return at;
  }

  /* What moved between two views: [{card, kind: slide|score|discard|draw, from: "lane-loc" or "deck"}]. */
  function changes(before, after) {
    const was = placesOf(before);
    const moves = [];
    for (const [card, now] of placesOf(after)) {
      const old = was.get(card);
      const fromCell = old && old.at === "cell" ? old.lane + "-" + old.loc : null;
      if (now.at === "cell") {
        if (fromCell && fromCell !== now.lane + "-" + now.loc) moves.push({card, kind: "slide", from: fromCell});
        else if (!fromCell) moves.push({card, kind: "draw", from: "deck"});
      } else if (fromCell) {
        moves.push({card, kind: now.at === "conclave" ? "score" : "discard", from: fromCell});
      }
    }
    return moves;
  }

  function animate(root, game, view) {
    const id = JSON.stringify([view.names, view.roles]);
    const before = previous && previous.id === id && game.step > previous.step && game.step - previous.step <= MAX_STEPS_ANIMATED
      ? previous.view : null;
    if (!previous || previous.id !== id || game.step !== previous.step) previous = {id, step: game.step, view};
    if (!before) return;
    const moves = changes(before, view);
    if (!moves.length) return;
    const still = reducedMotion();
    const run = () => {
      if (!root.isConnected) return;
      const newest = root.querySelector(".a-log-turn.newest");
      if (newest && !still) newest.classList.add("a-log-arrive");
      for (const m of moves) {
        const el = root.querySelector(`.a-board [data-card="${m.card}"]`);
        const from = m.from === "deck" ? root.querySelector(".a-deck-pile .a-card-back") : root.querySelector(`[data-cell="${m.from}"]`);
        if (!el || !from) continue;
        if (still) { el.classList.add("a-changed"); continue; }
        const a = from.getBoundingClientRect();
        const b = el.getBoundingClientRect();
        el.style.setProperty("--dx", Math.round(a.left + a.width / 2 - (b.left + b.width / 2)) + "px");
        el.style.setProperty("--dy", Math.round(a.top + a.height / 2 - (b.top + b.height / 2)) + "px");
        el.classList.add("a-anim", "a-" + m.kind);
      }
    };
    /* the new board is in the page once the caller has swapped it in (synchronously, after this returns) */
    queueMicrotask(() => (root.isConnected ? run() : requestAnimationFrame(run)));
  }

  /* ----- the TV (and the phones of people who watch) ----- */

  /* Who is to play and how many actions are left; the winner; or, for a game the host ended, that no one plays. */
  function status(game, view) {
    if (view.winner !== null) {
      return h("p", {class: "a-status", id: "a-winner"}, mark(game, view.winner, 40),
        h("span", {class: "a-status-text"}, h("strong", null, t("avig.winner", {name: iso(seatName(game, view.winner))})),
          " ", h("span", {class: "a-reason"}, t("outcome.avignon." + view.reason))));
    }
    if (game.aborted) return h("p", {class: "a-status a-over", id: "a-ended"}, h("span", {class: "a-status-text"}, t("avig.ended")));
    return h("p", {class: "a-status", id: "a-to-play"}, mark(game, view.to_move, 36),
      h("span", {class: "a-status-text"}, h("strong", null, t("avig.to_play", {name: iso(seatName(game, view.to_move)), place: place(view.to_move_role)})),
        " ", h("span", {class: "a-left"}, t("avig.actions_left", {n: view.actions_allowed - view.used.length}))),
      h("span", {class: "a-countdown", "data-countdown": ""}));
  }

  function tv(el, game) {
    const view = game.view;
    if (game.step) TR.sound && TR.sound.cue("card", game.step);  /* a card played: one cue per step */
    const compact = onPhone();
    const after = h("div", {class: "a-after" + (compact ? " scroll-region" : "")}, lastTurn(game, view));
    const drawn = board(game, view, {lit: lastLanes(view), compact});
    /* the TV: the board on the left, the move log beside it, the last turn told under both (the whole width, so
     * its sentence stays short); a watching phone: the log after the last turn, in the same scrolling region */
    const root = compact
      ? h("div", {class: "a-tv" + (ended(game, view) ? " over" : ""), "data-step": game.step}, status(game, view), drawn, after)
      : h("div", {class: "a-tv" + (ended(game, view) ? " over" : ""), "data-step": game.step}, status(game, view),
        h("div", {class: "a-tv-main"}, h("div", {class: "a-tv-play"}, drawn), moveLog(game, view), after));
    if (compact) after.append(moveLog(game, view));
    el.append(root);
    animate(root, game, view);
  }

  /* ----- the phone ----- */

  let pick = {step: null, action: null, lane: null, option: null};
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  function phone(el, game, state, act) {
    if (pick.step !== game.step) pick = {step: game.step, action: null, lane: null, option: null};
    let root = null;
    const draw = () => {
      const next = build(game, act, draw);
      if (root) root.replaceWith(next); else el.append(next);
      root = next;
    };
    draw();
    animate(root, game, game.view);
  }

  /* The phone's screen for the current pick; ``redraw`` draws it again after a choice. */
  function build(game, act, redraw) {
    const view = game.view;
    const over = ended(game, view);
    const legal = over ? [] : view.legal || [];
    const plans = view.plans || [];
    const removed = view.removed || [];
    const myRole = view.role;
    const laneOf = (n) => view.lanes.find((l) => l.lane === n);
    const cardAt = (n) => laneOf(n).card;
    const doText = (a) => actionText("do", a, myRole, laneOf(a.lane).class);
    const whyText = (r) => t(r.key, {what: doText(r.action), opponent: place(r.params.opponent)});
    const removedItem = (r) => h("p", {class: "a-removed", "data-removed": r.action.action + "-" + r.action.lane, role: "note"},
      h("span", {class: "a-removed-mark", "aria-hidden": "true"}, "⊘"), h("span", null, whyText(r)));
    const reset = () => { pick = {step: game.step, action: null, lane: null, option: null}; };
    const go = (fn) => () => { fn(); redraw(); };

    const chosen = pick.option && plans.find((p) => same(p.action, pick.option));
    const dest = new Set(chosen ? chosen.effects.filter((e) => e.kind === "move" || e.kind === "swap").flatMap((e) => e.kind === "swap"
      ? [e.lane + "-" + PLACES.indexOf(e.location), e.target + "-" + PLACES.indexOf(e.other_location)] : [e.lane + "-" + PLACES.indexOf(e.location)]) : []);
    const left = view.actions_allowed - view.used.length;
    const top = legal.length
      ? h("p", {class: "a-me a-my-turn"}, h("span", null, h("strong", null, t("avig.your_turn")), " · ",
        t("avig.actions_left", {n: left})), h("span", {class: "a-countdown", "data-countdown": ""}))
      : h("p", {class: "a-me"}, h("span", null, t("avig.you_are", {place: myRole ? place(myRole) : "—"})));
    const root = h("div", {class: "a-phone", "data-step": game.step}, top,
      board(game, view, {lit: lastLanes(view), pick: pick.lane, dest, compact: true, mine: myRole}));
    if (!legal.length) {
      let note = null;
      if (view.winner !== null) note = h("p", {class: "a-waiting a-reason", id: "a-reason"}, t("outcome.avignon." + view.reason));
      else if (game.aborted) note = h("p", {class: "a-waiting a-reason", id: "a-ended"}, t("avig.ended"));
      else note = h("p", {class: "a-waiting", id: "a-waiting"}, t("avig.waiting", {name: iso(seatName(game, view.to_move))}));
      root.append(h("div", {class: "a-after scroll-region"}, note, lastTurn(game, view)));
      return root;
    }
    const panel = h("div", {class: "a-choices scroll-region", id: "a-choices"});
    const bar = h("div", {class: "a-bar", id: "a-bar"});
    root.append(panel, bar);
    const earlier = lastTurn(game, view);
    const back = (fn) => h("button", {class: "a-back", id: "a-back", onclick: go(fn)}, t("avig.back"));

    /* 1. the action type */
    if (!pick.action) {
      const types = ["pull", "push", "banish", "petition"].filter((k) => legal.some((a) => a.action === k) || removed.some((r) => r.action.action === k));
      const done = view.used.map((u) => t("avig.action." + u));
      panel.append(h("p", {class: "a-step"}, done.length ? t("avig.choose_second", {actions: TR.list(done)}) : t("avig.choose_action")),
        h("div", {class: "a-types"}, types.map((type) => {
          const open = legal.some((a) => a.action === type);
          const button = h("button", {class: "a-type" + (open ? "" : " ruled-out"), "data-action": type, "aria-describedby": open ? null : "a-ruled-" + type,
            onclick: go(() => { pick.action = type; })},
          h("span", null, t("avig.action." + type)), open ? null : h("span", {class: "a-ruled", id: "a-ruled-" + type}, t("avig.ruled_out")));
          return h("div", {class: "a-row"}, TR.longPress(button, () => actionSheet(type)), actionInfo(type));
        })));
      if (earlier) panel.append(earlier);
      bar.remove();
      return root;
    }
    const ofType = plans.filter((p) => p.action.action === pick.action);
    const removedOfType = removed.filter((r) => r.action.action === pick.action);

    /* 2. the character */
    if (!pick.lane) {
      const lanes = [...new Set(ofType.map((p) => p.action.lane))];
      const petition = pick.action === "petition";
      panel.append(h("p", {class: "a-step"}, t("avig.choose_card", {action: t("avig.action." + pick.action)})),
        h("div", {class: petition ? "a-list" : "a-lanes"}, lanes.map((n) => {
          const lane = laneOf(n);
          const button = h("button", {class: "a-pick a-option", "data-lane": n, onclick: go(() => {
            pick.lane = n;
            const options = ofType.filter((p) => p.action.lane === n);
            if (options.length === 1 && !removedOfType.some((r) => r.action.lane === n)) pick.option = options[0].action;
          })}, h("span", {class: "a-option-what"}, t("avig.lane_n", {lane: n})),
          h("span", {class: "a-option-card"}, t("avig.card_at", {card: cls(lane.class), place: place(lane.location_name)})),
          petition ? h("span", {class: "a-option-fx"}, localized(view.texts[lane.card])) : null);
          return h("div", {class: "a-row"}, TR.longPress(button, () => cardSheet(view, lane.card)), cardInfo(view, lane.card));
        })), ...removedOfType.filter((r) => !lanes.includes(r.action.lane)).map(removedItem));
      bar.append(back(() => { pick.action = null; }));
      return root;
    }

    /* 3. the petition's extra choice */
    if (!pick.option) {
      const options = ofType.filter((p) => p.action.lane === pick.lane);
      const how = (a) => (a.direction ? t("avig.opt.toward", {target: a.target, place: place(a.direction)})
        : a.target ? t("avig.opt.target", {target: a.target}) : doText(a));
      panel.append(h("div", {class: "a-row a-step-row"}, h("p", {class: "a-step"}, t("avig.choose_option", {what: doText({action: "petition", lane: pick.lane})})),
        cardInfo(view, cardAt(pick.lane))),
        ...options.map((p, i) => h("button", {class: "a-pick a-option", "data-option": i, onclick: go(() => { pick.option = p.action; })},
          h("span", {class: "a-option-what"}, how(p.action)),
          h("span", {class: "a-option-fx"}, effectsText(view, p.effects, myRole, cardAt(p.action.lane))))),
      ...removedOfType.filter((r) => r.action.lane === pick.lane).map(removedItem));
      bar.append(back(() => { pick.lane = null; }));
      return root;
    }

    /* 4. confirm or change: what will happen, and whether the turn ends */
    const plan = chosen;
    if (!plan) { reset(); return build(game, act, redraw); }
    const ends = plan.ends_turn;
    const wins = plan.effects.some((e) => e.kind === "win");
    const early = ends && left > 1 && !wins;
    panel.append(h("div", {class: "a-check", id: "a-check"},
      h("p", {class: "a-step"}, t("avig.check")),
      h("div", {class: "a-row"}, h("p", {class: "a-check-what"}, doText(plan.action)), cardInfo(view, cardAt(plan.action.lane))),
      plan.action.action === "petition" ? petitionText(view, cardAt(plan.action.lane)) : null,
      h("p", {class: "a-check-fx"}, t("avig.will_happen", {effects: effectsText(view, plan.effects, myRole, cardAt(plan.action.lane))})),
      h("p", {class: "a-check-turn" + (ends ? " ends" : ""), id: "a-check-turn"},
        wins ? t("avig.ends_game") : ends ? (early ? t("avig.ends_turn_early") : t("avig.ends_turn")) : t("avig.then_second"))));
    bar.append(
      h("button", {class: "a-change", id: "a-change", onclick: go(reset)}, t("avig.change")),
      h("button", {class: "primary", id: "a-confirm", onclick: (e) => {
        e.currentTarget.disabled = true;
        act(plan.action).then((answer) => { if (answer && !answer.ok) { reset(); redraw(); } });
      }}, ends ? t("avig.confirm_end") : t("avig.confirm")));
    return root;
  }

  return {tv, phone, rules};
})();
