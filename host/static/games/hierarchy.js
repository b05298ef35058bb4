/* Hierarchy on the TV (the line of power, both hands, the burned pile, the last play explained) and on the phone
 * (the hand, playable cards lit, a tap on the others explains why not, the Impostor's copy, the Tower's burn and
 * the Surgeon's returns). Everything in this game is public. Views come from engine/hierarchy/game.py.
 *
 * Explanations arrive as data, {key, params} (engine/hierarchy/rules.py, Reason), and are rendered here in the
 * page's language: a card param by its name (the Romanian bare form where a sentence needs it), a number in the
 * page's digits, a seat by the player's name, a nested reason as its own sentence.
 *
 * Layout (issue [9]): every card is as wide as the longest card name of the page's language needs, so a name is
 * never cut and never shrunk. On the TV the line wraps into rows of whole cards at the body size (read from the
 * sofa), the top card lifted and ringed; the hands are rows of cards in a chip form. On the phone the table (the
 * opponent's hand, the last play, the line) is a region that scrolls and stays anchored at its bottom, where the top
 * card is, right above the player's own hand and the controls of the current action, which never scroll.
 *
 * Learning by playing (issue [13]): the players' sides, Gold and Purple (HIER-R5), are named on screen and drawn in
 * their own colours with a mark that is not a colour (◆ Gold, ● Purple), on the cards, the hands and the move log.
 * On a phone every card has an ⓘ (and a tap-and-hold) opening its full text; the text, numbers and royal marks come
 * from the engine's card data (the view's `cards` table, cards.json), never from this file or a catalog. The TV
 * shows a card reference (every card's number and name; docs/games.md says why no text fits there) and the move log
 * (the engine's bounded history, newest first); the how-to sheet lists every card's full text (rules(game)). */
"use strict";

TR.games.hierarchy = (() => {
  const {t, h, localized} = TR;
  const onPhone = () => document.body.classList.contains("phone");
  const LONG_LINE = 11;  /* from this many cards the TV draws the line's cards lower (.h-line.long) */
  const SHORT_LINE = 6;  /* up to this many, larger (.h-line.short, .shortish): the board has the room (issue [18]) */

  /* ----- the sides: Gold and Purple (HIER-R5), their colour in CSS (.side-gold, .side-purple), a mark beside it ----- */

  const SIDE_MARKS = {gold: "◆", purple: "●"};
  const sideOf = (game, seat) => game.view.players[seat].colour;
  const sideClass = (side) => " side-" + side;
  const sideMark = (side) => h("span", {class: "h-side-mark" + sideClass(side), "aria-hidden": "true"}, SIDE_MARKS[side] || "");
  /* "◆ Gold": the side's mark and name, in its colour. */
  const sideTag = (side) => h("span", {class: "h-side" + sideClass(side), "data-side": side}, sideMark(side), t("hier.side." + side));

  /* A player: their name (or "Bot 1" in the page's language), isolated in any script; their side's tag follows it
   * (the room's colour badge is left out here: in this game a player's colour is their side's). */
  const who = (game, seat) => h("span", {class: "h-who-mark"}, h("bdi", {class: "name"}, TR.seatName(game, seat)));

  /* ----- explanations ----- */

  function cardName(game, id, form) {
    const card = (game.view.names || {})[id];
    if (!card) return id;
    return (form === "bare" && card.bare[TR.lang]) || localized(card.name);
  }

  function cardPhrase(game, p) {
    if (p.copy) return t("hier.ref.copy", {name: cardName(game, p.copy, "bare")});
    return t("hier.ref.card", {name: cardName(game, p.card, p.form)});
  }

  function paramText(game, value) {
    if (value === null || typeof value !== "object") return value;
    if (value.card) return cardPhrase(game, value);
    if (value.cards) {
      return value.cards.map((id) => cardPhrase(game, {card: id, form: value.form}))
        .reduce((a, b) => t(value.join === "or" ? "hier.join.or" : "hier.join.and", {a, b}));
    }
    if (value.seat !== undefined) return TR.iso(TR.seatName(game, value.seat));  /* isolated: any script */
    if (value.reason) return sentence(game, value.reason, true);
    return "";
  }

  const capital = (text) => text.charAt(0).toLocaleUpperCase(TR.lang) + text.slice(1);

  /* One explanation as text in the page's language; a whole sentence starts with a capital. */
  function sentence(game, reason, inner) {
    const params = {};
    for (const [name, value] of Object.entries(reason.params || {})) params[name] = paramText(game, value);
    const text = t(reason.key, params);
    return inner ? text : capital(text);
  }

  /* ----- a card's full text (the view's cards table, from cards.json) ----- */

  const cardData = (game, id) => (game.view.cards || {})[id];

  /* One card in a sheet: its number, royal mark and name, then its whole text in the page's language. */
  function cardText(game, id) {
    const data = cardData(game, id);
    if (!data) return null;
    return h("section", {class: "h-sheet-card", "data-sheet-card": id},
      h("p", {class: "h-sheet-head"}, h("span", {class: "h-sheet-number"}, data.number === "?" ? "?" : TR.plain(data.number)),
        h("strong", {class: "h-sheet-name"}, cardName(game, id)),
        data.royal ? h("span", {class: "h-sheet-royal"}, h("span", {"aria-hidden": "true"}, "♛ "), t("hier.royal")) : null),
      h("p", {class: "h-sheet-text"}, localized(data.text)));
  }

  /* The sheet of a card (an Impostor in the line also shows the card it copies). */
  function openCard(game, id, copy) {
    const title = copy ? capital(t("hier.ref.copy", {name: cardName(game, copy, "bare")})) : cardName(game, id);
    return TR.sheet(title, cardBody(game, id, copy), {"data-card-sheet": id});
  }

  function cardBody(game, id, copy) {
    return [cardText(game, id), copy ? h("p", {class: "h-sheet-copy"}, t("hier.sheet_copies", {card: cardName(game, copy)})) : null,
      copy ? cardText(game, copy) : null];
  }

  /* On a phone, every card opens its text: an ⓘ on it and a tap-and-hold anywhere on it. */
  function infoFor(game, id, copy) {
    if (!onPhone() || !cardData(game, id)) return null;
    const title = copy ? capital(t("hier.ref.copy", {name: cardName(game, copy, "bare")})) : cardName(game, id);
    return TR.infoButton(title, () => cardBody(game, id, copy), {"data-info": id});
  }

  function withInfo(game, el, id, copy) {
    if (onPhone() && cardData(game, id)) TR.longPress(el, () => openCard(game, id, copy));
    return el;
  }

  /* ----- cards ----- */

  /* Where a long card name may break on a phone's small card: the catalog's hier.breaks lists words with their
   * break points ("Uzurpa-torul"); each becomes a soft hyphen, so the word breaks only when it must. */
  const breaksCache = {};
  function breakable(name) {
    if (!onPhone()) return name;
    if (!breaksCache[TR.lang]) {
      const map = {};
      for (const word of t("hier.breaks").split(/\s+/)) {
        if (/\p{L}-\p{L}/u.test(word)) map[word.replace(/-/g, "")] = word.replace(/-/g, "\u00ad");
      }
      breaksCache[TR.lang] = map;
    }
    return name.split(" ").map((word) => breaksCache[TR.lang][word] || word).join(" ");
  }

  function numberText(card) {
    return card.number === "?" ? "?" : TR.plain(card.number);
  }

  const crown = (card) => card.royal ? h("span", {class: "h-crown", title: t("hier.royal"), "aria-label": t("hier.royal")}, "♛") : null;

  /* A card of the line: its side's mark and colour, number, crown and name; an Impostor also says so. */
  function lineCard(game, entry, top) {
    const side = sideOf(game, entry.owner);
    const info = infoFor(game, entry.card, entry.copy);
    return withInfo(game, h("div", {class: "h-card" + sideClass(side) + (entry.royal ? " royal" : "") + (entry.copy ? " copy" : "")
      + (top ? " top" : ""),
    "data-card": entry.id, "data-line-card": entry.card, "data-side": side,
    "aria-current": top ? "true" : null, "data-must-see": top ? "" : null},
    h("span", {class: "h-card-head"}, h("span", {class: "h-owner"}, sideMark(side)),
      h("span", {class: "h-number"}, numberText(entry)), crown(entry)),
    h("span", {class: "h-name"}, breakable(localized(entry.name))),
    entry.copy ? h("span", {class: "h-copy"}, breakable(cardName(game, entry.card))) : null, info), entry.card, entry.copy);
  }

  /* A card in a hand: number, crown and name in one chip, in its owner's side colour (on the phone's own hand, a
   * tile to tap); on a phone its ⓘ ends the chip (in a corner of the own hand's tiles, away from the tap). */
  function handCard(game, card, owner, attrs) {
    const side = sideOf(game, owner);
    let info = infoFor(game, card.id);
    const extra = Object.assign({}, attrs || {});
    if (info && extra.role === "button") {  /* a tile to tap holds no button of its own (axe: nested-interactive): its ⓘ is
      * a mark that opens the same sheet; a screen reader finds the card's text in How to play */
      const button = info;
      info = h("span", {class: button.className, "data-info": card.id, "aria-hidden": "true", onclick: (e) => {
        e.stopPropagation(); e.preventDefault(); button.click(); }}, ...button.childNodes);
    }
    const cls = (extra.class || "h-chip" + (card.royal ? " royal" : "")) + sideClass(side) + (info ? " with-info" : "");
    delete extra.class;
    return withInfo(game, h("div", Object.assign({class: cls, "data-card": card.id, "data-side": side}, extra),
      h("span", {class: "h-chip-head"}, h("span", {class: "h-number"}, numberText(card)), crown(card)),
      h("span", {class: "h-name"}, breakable(localized(card.name))), info), card.id);
  }

  function lineView(game, view) {
    if (!view.line.length) return h("p", {class: "h-empty", id: "h-line"}, t("hier.empty_line"));
    return h("div", {class: "h-line", id: "h-line"}, view.line.map((e, i) => lineCard(game, e, i === view.line.length - 1)));
  }

  function lineHead(view) {
    if (!view.line.length) return null;  /* the empty line says so itself */
    const tower = view.line.some((e) => e.id === "tower");
    return h("p", {class: "h-count"}, t("hier.line_count", {n: view.line_count}),
      tower ? h("span", {class: "h-count-note"}, " · ", t("hier.tower_two")) : null);
  }

  function burnedView(game, view) {
    if (!view.burned.length) return null;
    return h("div", {class: "h-burned", id: "h-burned"}, h("span", {class: "h-burned-title"}, t("hier.burned")),
      view.burned.map((b) => handCard(game, b, b.owner, {class: "h-chip burned" + (b.royal ? " royal" : "")})));
  }

  /* One entry of the move log as a sentence in the page's language (a timed-out move says so). */
  function logSentence(game, entry) {
    return [sentence(game, entry.message), entry.timed_out ? h("span", {class: "h-timed-out"}, " ", t("hier.timed_out")) : null];
  }

  /* The move log on the TV: every play (an Impostor with its copy, a Tower with its burn), every Surgeon return and
   * the end, newest first, each with the side and name of who made it. The engine keeps it in the game's state,
   * bounded, so a restart replays it; the region scrolls if a long game outgrows it. */
  function moveLog(game, view) {
    const history = view.history || [];
    return h("section", {class: "h-log", id: "h-log", "aria-label": t("hier.log_title")},
      h("h2", {class: "h-panel-title"}, t("hier.log_title")),
      history.length ? h("ol", {class: "h-log-list scroll-region", reversed: ""}, history.slice().reverse().map((entry) => {
        const side = sideOf(game, entry.seat);
        return h("li", {class: "h-log-entry" + sideClass(side), "data-kind": entry.kind, "data-role": "log"},
          sideMark(side), h("span", {class: "h-log-text"}, entry.kind === "lost" ? null  /* its sentence names both players */
            : [h("bdi", {class: "h-log-who"}, TR.seatName(game, entry.seat)), " "], logSentence(game, entry)));
      })) : h("p", {class: "h-log-empty muted"}, t("hier.log_empty")));
  }

  /* The card reference on the TV: all fourteen cards in card order, number, crown and name (a burned card struck
   * through: it is out of the game); each card's full text is in the how-to sheet (rules below) and on the phones. */
  function reference(game, view) {
    const cards = view.cards || {};
    const burned = new Set(view.burned.map((b) => b.card));
    return h("section", {class: "h-ref", id: "h-ref", "aria-label": t("hier.ref_title")},
      h("ul", {class: "h-ref-list"}, Object.keys(cards).map((id) => h("li", {
        class: "h-ref-card" + (cards[id].royal ? " royal" : "") + (burned.has(id) ? " burned" : ""), "data-ref": id},
      h("span", {class: "h-ref-number"}, cards[id].number === "?" ? "?" : TR.plain(cards[id].number)),
      h("span", {class: "h-ref-name"}, cardName(game, id)),
      cards[id].royal ? h("span", {class: "h-ref-crown", "aria-hidden": "true"}, "♛") : null))));
  }

  /* The last play and what followed it (the Surgeon's returns, a player who cannot play), each explained; beside
   * the TV's move log (``logged``) the end of the game is told by the status and the log, not here again. */
  function lastPlay(game, view, logged) {
    const history = view.history;
    if (!history.length) return null;
    let from = history.length - 1;
    while (from > 0 && history[from].kind !== "play") from -= 1;
    const shown = history.slice(from).filter((entry) => !logged || entry.kind !== "lost");
    if (!shown.length) return null;
    return h("div", {class: "h-last", id: "h-last", "aria-live": "polite"}, shown.map((entry) =>
      h("p", {class: "h-last-" + entry.kind, "data-role": logged ? "log" : null}, sentence(game, entry.message),
        entry.timed_out ? h("span", {class: "h-timed-out"}, " ", t("hier.timed_out")) : null)));
  }

  /* Whether the game is over: won, or ended by the host (then nobody is "to play"). */
  function isOver(game, state) {
    return game.view.winner !== null || !!game.aborted || (state && state.phase === "finished");
  }

  function statusLine(game, state) {
    const view = game.view;
    if (view.winner !== null) {
      return h("p", {class: "h-status won", id: "h-winner"}, who(game, view.winner, 40), sideTag(sideOf(game, view.winner)), " ",
        h("span", null, t("hier.wins")));
    }
    if (isOver(game, state)) return h("p", {class: "h-status", id: "h-ended"}, t("hier.no_winner"));
    return h("p", {class: "h-status"}, who(game, view.actor, 36), sideTag(sideOf(game, view.actor)), " ",
      h("span", null, view.pending ? t("hier.returns") : t("hier.to_play")),
      h("span", {class: "h-time", "data-countdown": ""}));
  }

  function handPanel(game, view, p, state) {
    const active = !isOver(game, state) && view.actor === p.seat;
    return h("section", {class: "h-hand-row" + (active ? " active" : ""), "data-seat": p.seat},
      h("p", {class: "h-who"}, who(game, p.seat, 30), sideTag(p.colour), h("span", {class: "muted"}, " · ", t("hier.cards_left", {n: p.hand.length}))),
      h("div", {class: "h-hand", "data-hand-of": p.seat}, p.hand.map((c) => handCard(game, c, p.seat))));
  }

  /* ----- motion (issue [18]): a play moves on the board ----- */

  /* What this page drew last: the step and where each card was (the line, the burned pile, each hand). A card that
   * is new in the line flies in from its owner's hand and turns face up; a burned card drops onto the pile; a card a
   * Surgeon returned rises into its hand. Only between two consecutive drawings of one game (a step or a few later);
   * a reconnect's jump moves nothing. A redraw of the same step (a language, a resize, the host's pause) does not
   * replay a move: one still under way goes on where it was (a negative animation-delay), one that is over stays
   * over. Each moved card is marked data-moved (its kind) for the whole step. With reduced motion or the TV's Motion
   * off the cards are simply there (the CSS stops the animations). */
  const MAX_STEPS_ANIMATED = 3;
  const MOVE_MS = {played: 650, burning: 700, returned: 650};  /* each move's keyframes (hierarchy.css) */
  let drawnBefore = null;
  let moving = [];  /* this step's moves: {kind, where: "line" | "burned" | seat, id, owner, start} */

  function placesOf(view) {
    return {line: view.line.map((e) => e.card), burned: view.burned.map((b) => b.id),
      hands: view.players.map((p) => p.hand.map((c) => c.id))};
  }

  /* The moves between the last drawing and this one (none if they are not consecutive steps of one game). */
  function movesSince(before, view, step) {
    const same = before && before.first === view.first;
    if (!same || step <= before.step || step - before.step > MAX_STEPS_ANIMATED) return [];
    const start = performance.now();
    const inLine = new Set(before.places.line);
    const burned = new Set(before.places.burned);
    const inHand = before.places.hands.map((ids) => new Set(ids));
    return [
      ...view.line.filter((e) => !inLine.has(e.card)).map((e) => ({kind: "played", where: "line", id: e.card, owner: e.owner, start})),
      ...view.burned.filter((b) => !burned.has(b.id)).map((b) => ({kind: "burning", where: "burned", id: b.id, start})),
      ...view.players.flatMap((p) => p.hand.filter((c) => inHand[p.seat] && !inHand[p.seat].has(c.id))
        .map((c) => ({kind: "returned", where: p.seat, id: c.id, start}))),
    ];
  }

  function moveCards(root, game) {
    const view = game.view;
    const now = {step: game.step, first: view.first, places: placesOf(view)};
    const before = drawnBefore;
    drawnBefore = now;
    if (!before || before.step !== now.step || before.first !== now.first) moving = movesSince(before, view, game.step);
    if (!moving.length) return;
    const run = () => {
      if (!root.isConnected) return;
      const from = (el, source) => {  /* --dx, --dy: from the middle of ``source`` to the card's own place */
        if (!source) return;
        const a = source.getBoundingClientRect();
        const b = el.getBoundingClientRect();
        if (!a.width || !a.height) return;  /* a folded hand (a phone's opponent): the card turns in its place */
        el.style.setProperty("--dx", Math.round(a.left + a.width / 2 - (b.left + b.width / 2)) + "px");
        el.style.setProperty("--dy", Math.round(a.top + a.height / 2 - (b.top + b.height / 2)) + "px");
      };
      for (const m of moving) {
        /* a line card by the card it is (an Impostor's data-card is the card it copies) */
        const el = root.querySelector(m.where === "line" ? `#h-line [data-line-card="${m.id}"]`
          : m.where === "burned" ? `#h-burned [data-card="${m.id}"]` : `[data-hand-of="${m.where}"] [data-card="${m.id}"]`);
        if (!el) continue;
        el.dataset.moved = m.kind;
        const elapsed = performance.now() - m.start;
        if (elapsed >= MOVE_MS[m.kind]) continue;  /* over (its own length: a redraw just after its end would
                                                       replay its last milliseconds): a redraw leaves it in place */
        if (m.kind === "played") from(el, root.querySelector(`[data-hand-of="${m.owner}"]`));
        if (m.kind === "returned") from(el, root.querySelector("#h-line"));
        el.style.animationDelay = -Math.round(elapsed) + "ms";  /* a redraw goes on where the move was */
        el.classList.add("h-anim", "h-" + m.kind);
      }
    };
    /* the caller puts the new board in the page right after this returns: measure it there */
    queueMicrotask(() => (root.isConnected ? run() : requestAnimationFrame(run)));
  }

  /* The TV: whose move; the line, the last play and the burned pile beside the move log; both hands; the card
   * reference. A spectator's phone shows the game without the log and the reference (its cards open their text). */
  function tv(el, game, state) {
    const view = game.view;
    if (game.step) TR.sound && TR.sound.cue("card", game.step);  /* a card played (or passed): one cue per step */
    const hands = h("div", {class: "h-hands"}, view.players.map((p) => handPanel(game, view, p, state)));
    if (onPhone()) {
      const root = h("div", {class: "h-tv scroll-region", "data-hier-step": game.step}, statusLine(game, state),
        h("section", {class: "h-board"}, lineHead(view), lineView(game, view)), lastPlay(game, view), hands, burnedView(game, view));
      el.append(root);
      moveCards(root, game);
      return;
    }
    /* beside the log the line has less room: the burned pile shares the line's head, and a long line (LONG_LINE
     * cards or more, three rows in Romanian) gets lower cards, so the last play stays above the hands */
    const line = lineView(game, view);
    if (view.line.length >= LONG_LINE) line.classList.add("long");
    else if (view.line.length && view.line.length <= SHORT_LINE) line.classList.add(view.line.length <= 3 ? "short" : "shortish");
    const root = h("div", {class: "h-tv h-tv-wide", "data-hier-step": game.step}, statusLine(game, state),
      h("section", {class: "h-board"}, h("div", {class: "h-board-head"}, lineHead(view), burnedView(game, view)), line,
        lastPlay(game, view, true)),
      moveLog(game, view), hands, isOver(game, state) ? null : reference(game, view));  /* the results need the room */
    el.append(root);
    moveCards(root, game);
  }

  /* The how-to sheet's part (TR.rulesSheet): the sides, then every card with its number, royal mark, name and full
   * text, from the engine's card data. */
  function rules(game) {
    const view = game && game.view;
    if (!view || !view.cards) return null;
    return [h("p", {class: "h-rules-story", id: "h-rules-story"}, t("hier.rules.story")),  /* HIER-R0: the story */
      h("h3", null, t("hier.sides_title")),
      h("p", {class: "h-sheet-sides"}, sideTag("gold"), " ", sideTag("purple"), " ", t("hier.sides_text")),
      h("h3", null, t("hier.cards_title")),
      h("div", {class: "h-sheet-cards", id: "h-rules-cards"}, Object.keys(view.cards).map((id) => cardText(game, id)))];
  }

  /* ----- the phone ----- */

  let chosen = {step: null, card: null};
  let opponentOpen = true;  /* the opponent's hand: shown (everything is public), folded only if the player folds it */

  /* The buttons for the chosen card: one "Play …" button, or a choice among copies (the Impostor), burns (the
   * Tower on a higher card) or both; each button plays at once. */
  function optionsView(game, options, act) {
    const name = (id) => cardName(game, id);
    const press = (a) => (e) => { e.currentTarget.disabled = true; act(a); };
    const button = (a, i, label) => h("button", {class: "big primary" + (i ? "" : " first"), "data-option": i, onclick: press(a)}, label);
    let heading = null;
    let labels;
    const copies = new Set(options.map((a) => a.copy || ""));
    const burns = options.some((a) => a.burn);
    if (options.length === 1) {
      const a = options[0];
      labels = [a.copy && a.burn ? t("hier.act.copy_burn", {copy: cardName(game, a.copy, "bare"), card: name(a.burn)})
        : a.copy ? t("hier.act.copy", {card: cardName(game, a.copy, "bare")})
          : a.burn ? t("hier.burn", {card: name(a.burn)}) : t("hier.play", {card: name(a.play)})];
    } else if (burns && copies.size === 1) {
      const copy = options[0].copy;
      heading = copy ? t("hier.pick_burn_copy", {copy: cardName(game, copy, "bare")}) : t("hier.pick_burn");
      labels = options.map((a) => name(a.burn));
    } else if (!burns) {
      heading = t("hier.pick_copy");
      labels = options.map((a) => name(a.copy));
    } else {
      labels = options.map((a) => a.burn ? t("hier.act.copy_burn", {copy: cardName(game, a.copy, "bare"), card: name(a.burn)})
        : t("hier.act.copy", {card: cardName(game, a.copy, "bare")}));
    }
    const wide = labels.length === 1 || labels.some((l) => l.length > 14);
    return h("div", {class: "h-choices", id: "h-options"}, heading ? h("p", {class: "h-choices-title"}, heading) : null,
      h("div", {class: "h-choice-grid" + (wide ? " wide" : "")}, options.map((a, i) => button(a, i, labels[i]))));
  }

  /* A Surgeon return: the choice among the line's cards, then a confirm that tells what happens (the card goes back to
   * its owner's hand, for good) with a Change button back to the choice. Nothing is sent before the confirm. */
  let returning = {step: null, card: null};

  function returnsView(game, view, returns, act, redraw) {
    const label = (id) => {
      const entry = view.line.find((e) => e.card === id);
      return entry && entry.copy ? capital(t("hier.ref.copy", {name: cardName(game, entry.id, "bare")})) : cardName(game, id);
    };
    if (returning.step !== game.step || !returns.some((a) => a.return === returning.card)) returning = {step: game.step, card: null};
    const card = returning.card;
    if (card) {
      const entry = view.line.find((e) => e.card === card);
      const owner = entry ? entry.owner : 1 - game.you;
      const phrase = entry && entry.copy ? t("hier.ref.copy", {name: cardName(game, entry.id, "bare")})
        : t("hier.ref.card", {name: cardName(game, card)});
      const what = owner === game.you ? t("hier.return_confirm_mine", {card: phrase})
        : t("hier.return_confirm", {card: phrase, name: TR.iso(TR.seatName(game, owner))});
      return h("div", {class: "h-choices h-confirm", id: "h-return-confirm-panel"},
        h("p", {class: "h-confirm-text", id: "h-return-confirm-text"}, capital(what), " ", h("strong", null, t("hier.cannot_undo"))),
        h("div", {class: "h-choice-grid"},
          h("button", {class: "big", id: "h-return-change", onclick: () => { returning.card = null; redraw(); }}, t("hier.change")),
          h("button", {class: "big primary", id: "h-return-confirm", "data-confirm-return": card,
            onclick: (e) => { e.currentTarget.disabled = true; act({return: card}); }}, t("hier.return_it"))));
    }
    return h("div", {class: "h-choices", id: "h-returns"},
      h("div", {class: "h-choice-grid" + (returns.some((a) => label(a.return).length > 14) ? " wide" : "")},
        returns.map((a) => h("button", {class: "big primary", "data-return": a.return,
          onclick: () => { returning = {step: game.step, card: a.return}; redraw(); }}, label(a.return)))));
  }

  function phone(el, game, state, act) {
    const view = game.view;
    const me = game.you;
    const opponent = 1 - me;
    if (chosen.step !== game.step) chosen = {step: game.step, card: null};
    const over = isOver(game, state);
    const legal = over ? [] : (view.legal || []);
    const returns = legal.filter((a) => a.return);
    const myTurn = !over && view.actor === me && !view.pending;
    const blocked = view.blocked || {};
    const hand = view.players[me].hand;

    /* The table: scrolls inside its own region, anchored at its bottom, where the line's top card is. */
    const table = h("div", {class: "h-table scroll-region"}, h("div", {class: "h-table-inner"},
      h("details", {class: "h-opponent", id: "h-opponent", open: opponentOpen, ontoggle: (e) => { opponentOpen = e.currentTarget.open; }},
        h("summary", null, who(game, opponent, 24), sideTag(sideOf(game, opponent)),
          h("span", {class: "muted"}, " · ", t("hier.cards_left", {n: view.players[opponent].hand.length}))),
        h("div", {class: "h-hand", "data-hand-of": opponent}, view.players[opponent].hand.map((c) => handCard(game, c, opponent)))),
      burnedView(game, view), lastPlay(game, view), lineHead(view), lineView(game, view)));

    /* What this player does now: whose move, the own hand (lit and tappable on the player's turn, dimmed
     * otherwise), and the explanation or the choices of the tapped card. */
    let status;
    if (over) status = null;
    else if (returns.length) status = h("p", {class: "h-turn", id: "h-return-title"}, t("hier.choose_return"), h("span", {class: "h-time", "data-countdown": ""}));
    else if (myTurn) status = h("p", {class: "h-turn", id: "h-your-turn"}, t("hier.your_turn"), h("span", {class: "h-time", "data-countdown": ""}));
    else status = h("p", {class: "h-turn waiting", id: "h-waiting"}, view.pending ? t("hier.waiting_return") : t("hier.waiting", {name: TR.iso(TR.seatName(game, view.actor))}));
    const redraw = () => el.dispatchEvent(new Event("h-redraw"));
    const pick = (card) => { chosen.card = card; redraw(); };
    const tile = (c) => {
      if (!myTurn) return handCard(game, c, me, {class: "h-chip idle" + (c.royal ? " royal" : "")});
      return handCard(game, c, me, {
        class: "h-chip" + (c.royal ? " royal" : "") + (blocked[c.id] ? " blocked" : " playable") + (chosen.card === c.id ? " chosen" : ""),
        role: "button", tabindex: "0", "aria-pressed": chosen.card === c.id ? "true" : "false",
        onclick: () => pick(c.id), onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(c.id); } }});
    };
    const mine = hand.length ? h("div", {class: "h-hand mine" + (myTurn ? " turn" : ""), id: myTurn ? "h-my-hand" : "h-hand-mine",
      "data-hand-of": me}, hand.map(tile)) : null;
    let answer = null;
    if (returns.length) answer = returnsView(game, view, returns, act, redraw);
    else if (myTurn && chosen.card && blocked[chosen.card]) {
      answer = h("p", {class: "h-why", id: "h-why", role: "alert"}, sentence(game, blocked[chosen.card]));
    } else if (myTurn && chosen.card) {
      const options = legal.filter((a) => a.play === chosen.card);
      if (options.length) answer = optionsView(game, options, act);
    } else if (myTurn) answer = h("p", {class: "h-hint muted", id: "h-hint"}, t("hier.tap_card"));
    /* "You play Purple": the player's side, its mark and colour, above the own hand. */
    const yours = h("p", {class: "h-you-side", id: "h-you-side", "data-side": sideOf(game, me)},
      t("hier.you_play"), " ", sideTag(sideOf(game, me)));
    const root = h("div", {class: "h-phone", "data-hier-step": game.step}, table,
      over && !hand.length ? null : h("div", {class: "h-act"}, status, yours, mine, answer));
    el.append(root);
    moveCards(root, game);
    el.addEventListener("h-redraw", () => { el.replaceChildren(); phone(el, game, state, act); }, {once: true});
  }

  return {tv, phone, rules};
})();
