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
 * card is, right above the player's own hand and the controls of the current action, which never scroll. */
"use strict";

TR.games.hierarchy = (() => {
  const {t, h, badge, localized} = TR;
  const slotOf = (game, seat) => game.slots[seat];
  const colourOf = (game, seat) => TR.COLOURS[slotOf(game, seat).colour % 8];
  const onPhone = () => document.body.classList.contains("phone");

  /* A player: their mark and their name (or "Bot 1" in the page's language), isolated in any script. */
  const who = (game, seat, size) => TR.who(game, seat, size, "h-who-mark");

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

  /* A card of the line: its owner's mark and colour, number, crown and name; an Impostor also says so. */
  function lineCard(game, entry, top) {
    const slot = slotOf(game, entry.owner);
    return h("div", {class: "h-card" + (entry.royal ? " royal" : "") + (entry.copy ? " copy" : "") + (top ? " top" : ""),
      "data-card": entry.id, "data-line-card": entry.card, style: `--owner: ${colourOf(game, entry.owner)}`,
      "aria-current": top ? "true" : null, "data-must-see": top ? "" : null},
    h("span", {class: "h-card-head"}, h("span", {class: "h-owner"}, badge(slot.colour, slot.shape, 16)),
      h("span", {class: "h-number"}, numberText(entry)), crown(entry)),
    h("span", {class: "h-name"}, breakable(localized(entry.name))),
    entry.copy ? h("span", {class: "h-copy"}, breakable(cardName(game, entry.card))) : null);
  }

  /* A card in a hand: number, crown and name in one chip (on the phone's own hand, a tile to tap). */
  function handCard(game, card, owner, attrs) {
    return h("div", Object.assign({class: "h-chip" + (card.royal ? " royal" : ""), "data-card": card.id,
      style: `--owner: ${colourOf(game, owner)}`}, attrs || {}),
    h("span", {class: "h-chip-head"}, h("span", {class: "h-number"}, numberText(card)), crown(card)),
    h("span", {class: "h-name"}, breakable(localized(card.name))));
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

  /* The last play and what followed it (the Surgeon's returns, a player who cannot play), each explained. */
  function lastPlay(game, view) {
    const history = view.history;
    if (!history.length) return null;
    let from = history.length - 1;
    while (from > 0 && history[from].kind !== "play") from -= 1;
    return h("div", {class: "h-last", id: "h-last", "aria-live": "polite"}, history.slice(from).map((entry) =>
      h("p", {class: "h-last-" + entry.kind}, sentence(game, entry.message),
        entry.timed_out ? h("span", {class: "h-timed-out"}, " ", t("hier.timed_out")) : null)));
  }

  /* Whether the game is over: won, or ended by the host (then nobody is "to play"). */
  function isOver(game, state) {
    return game.view.winner !== null || !!game.aborted || (state && state.phase === "finished");
  }

  function statusLine(game, state) {
    const view = game.view;
    if (view.winner !== null) {
      return h("p", {class: "h-status won", id: "h-winner"}, who(game, view.winner, 40), " ", h("span", null, t("hier.wins")));
    }
    if (isOver(game, state)) return h("p", {class: "h-status", id: "h-ended"}, t("hier.no_winner"));
    return h("p", {class: "h-status"}, who(game, view.actor, 36), " ",
      h("span", null, view.pending ? t("hier.returns") : t("hier.to_play")),
      h("span", {class: "h-time", "data-countdown": ""}));
  }

  function handPanel(game, view, p, state) {
    const active = !isOver(game, state) && view.actor === p.seat;
    return h("section", {class: "h-hand-row" + (active ? " active" : ""), "data-seat": p.seat},
      h("p", {class: "h-who"}, who(game, p.seat, 30), h("span", {class: "muted"}, " · ", t("hier.cards_left", {n: p.hand.length}))),
      h("div", {class: "h-hand"}, p.hand.map((c) => handCard(game, c, p.seat))));
  }

  /* The TV (and a spectator's phone): whose move, the line, the last play, both hands, the burned pile. */
  function tv(el, game, state) {
    const view = game.view;
    el.append(h("div", {class: "h-tv" + (onPhone() ? " scroll-region" : ""), "data-hier-step": game.step},
      statusLine(game, state),
      h("section", {class: "h-board"}, lineHead(view), lineView(game, view)),
      lastPlay(game, view),
      h("div", {class: "h-hands"}, view.players.map((p) => handPanel(game, view, p, state))),
      burnedView(game, view)));
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

  function returnsView(game, view, returns, act) {
    const label = (id) => {
      const entry = view.line.find((e) => e.card === id);
      return entry && entry.copy ? capital(t("hier.ref.copy", {name: cardName(game, entry.id, "bare")})) : cardName(game, id);
    };
    return h("div", {class: "h-choices", id: "h-returns"},
      h("div", {class: "h-choice-grid" + (returns.some((a) => label(a.return).length > 14) ? " wide" : "")},
        returns.map((a) => h("button", {class: "big primary", "data-return": a.return,
          onclick: (e) => { e.currentTarget.disabled = true; act({return: a.return}); }}, label(a.return)))));
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
        h("summary", null, who(game, opponent, 24), h("span", {class: "muted"}, " · ", t("hier.cards_left", {n: view.players[opponent].hand.length}))),
        h("div", {class: "h-hand"}, view.players[opponent].hand.map((c) => handCard(game, c, opponent)))),
      burnedView(game, view), lastPlay(game, view), lineHead(view), lineView(game, view)));

    /* What this player does now: whose move, the own hand (lit and tappable on the player's turn, dimmed
     * otherwise), and the explanation or the choices of the tapped card. */
    let status;
    if (over) status = null;
    else if (returns.length) status = h("p", {class: "h-turn", id: "h-return-title"}, t("hier.choose_return"), h("span", {class: "h-time", "data-countdown": ""}));
    else if (myTurn) status = h("p", {class: "h-turn", id: "h-your-turn"}, t("hier.your_turn"), h("span", {class: "h-time", "data-countdown": ""}));
    else status = h("p", {class: "h-turn waiting", id: "h-waiting"}, view.pending ? t("hier.waiting_return") : t("hier.waiting", {name: TR.iso(TR.seatName(game, view.actor))}));
    const pick = (card) => { chosen.card = card; el.dispatchEvent(new Event("h-redraw")); };
    const tile = (c) => {
      if (!myTurn) return handCard(game, c, me, {class: "h-chip idle" + (c.royal ? " royal" : "")});
      return handCard(game, c, me, {
        class: "h-chip" + (c.royal ? " royal" : "") + (blocked[c.id] ? " blocked" : " playable") + (chosen.card === c.id ? " chosen" : ""),
        role: "button", tabindex: "0", "aria-pressed": chosen.card === c.id ? "true" : "false",
        onclick: () => pick(c.id), onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(c.id); } }});
    };
    const mine = hand.length ? h("div", {class: "h-hand mine" + (myTurn ? " turn" : ""), id: myTurn ? "h-my-hand" : "h-hand-mine"}, hand.map(tile)) : null;
    let answer = null;
    if (returns.length) answer = returnsView(game, view, returns, act);
    else if (myTurn && chosen.card && blocked[chosen.card]) {
      answer = h("p", {class: "h-why", id: "h-why", role: "alert"}, sentence(game, blocked[chosen.card]));
    } else if (myTurn && chosen.card) {
      const options = legal.filter((a) => a.play === chosen.card);
      if (options.length) answer = optionsView(game, options, act);
    } else if (myTurn) answer = h("p", {class: "h-hint muted", id: "h-hint"}, t("hier.tap_card"));
    el.append(h("div", {class: "h-phone", "data-hier-step": game.step}, table,
      over && !hand.length ? null : h("div", {class: "h-act"}, status, mine, answer)));
    el.addEventListener("h-redraw", () => { el.replaceChildren(); phone(el, game, state, act); }, {once: true});
  }

  return {tv, phone};
})();
