/* Hierarchy on the TV (the line of power, both hands, the burned pile, the last play explained) and on the phone
 * (the hand, playable cards lit, a tap on the others explains why not, the Impostor's copy, the Tower's burn and
 * the Surgeon's returns). Everything in this game is public. Views come from engine/hierarchy/game.py.
 *
 * Explanations arrive as data, {key, params} (engine/hierarchy/rules.py, Reason), and are rendered here in the
 * page's language: a card param by its name (the Romanian bare form where a sentence needs it), a number in the
 * page's digits, a seat by the player's name, a nested reason as its own sentence. */
"use strict";

TR.games.hierarchy = (() => {
  const {t, h, badge, localized, digits} = TR;
  const slotOf = (game, seat) => game.slots[seat];
  const colourOf = (game, seat) => TR.COLOURS[slotOf(game, seat).colour % 8];

  function who(game, seat, size) {
    const slot = slotOf(game, seat);
    return h("span", {class: "who"}, badge(slot.colour, slot.shape, size || 28), h("span", {dir: "auto"}, slot.name));
  }

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
    if (value.seat !== undefined) return "\u2068" + slotOf(game, value.seat).name + "\u2069";  /* isolated: any script */
    if (value.reason) return sentence(game, value.reason, true);
    return "";
  }

  /* One explanation as text in the page's language; a whole sentence starts with a capital. */
  function sentence(game, reason, inner) {
    const params = {};
    for (const [name, value] of Object.entries(reason.params || {})) params[name] = paramText(game, value);
    const text = t(reason.key, params);
    return inner ? text : text.charAt(0).toLocaleUpperCase(TR.lang) + text.slice(1);
  }

  /* ----- cards ----- */

  function cardFace(card, owner, game, extra) {
    const number = card.number === "?" ? "?" : digits(card.number);
    return h("div", Object.assign({class: "h-card" + (card.royal ? " royal" : ""), "data-card": card.id,
      style: owner === null || owner === undefined ? "" : `border-color: ${colourOf(game, owner)}`}, extra || {}),
    h("span", {class: "h-number"}, number), card.royal ? h("span", {class: "h-crown", title: t("hier.royal")}, "♛") : null,
    h("span", {class: "h-name"}, localized(card.name)));
  }

  function lineView(game, view) {
    if (!view.line.length) return h("p", {class: "muted h-empty"}, t("hier.empty_line"));
    return h("div", {class: "h-line", id: "h-line"}, view.line.map((e, i) => {
      const slot = slotOf(game, e.owner);
      const face = cardFace({id: e.id, name: e.name, number: e.number, royal: e.royal}, e.owner, game,
        {class: "h-card in-line" + (e.royal ? " royal" : "") + (e.copy ? " copy" : "") + (i === view.line.length - 1 ? " top" : ""),
          style: `border-color: ${colourOf(game, e.owner)}; --i: ${i}`, "data-line-card": e.card});
      face.prepend(h("span", {class: "h-owner"}, badge(slot.colour, slot.shape, 16)));  /* whose card, not by colour alone */
      if (e.copy) face.append(h("span", {class: "h-copy"}, "?\u00a0" + cardName(game, e.card)));  /* the Impostor */
      return face;
    }));
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

  function tv(el, game) {
    const view = game.view;
    const hands = view.players.map((p) => h("section", {class: "h-hand-row" + (view.actor === p.seat && view.winner === null ? " active" : "")},
      h("p", {class: "h-who"}, who(game, p.seat, 34), h("span", {class: "muted"}, " · ", t("hier.cards_left", {n: p.hand.length}))),
      h("div", {class: "h-hand"}, p.hand.map((c) => cardFace(c, p.seat, game)))));
    const status = view.winner !== null
      ? h("p", {class: "banner", id: "h-winner"}, who(game, view.winner, 40), " ", t("hier.wins"))
      : h("p", {class: "banner"}, who(game, view.actor, 36), " ",
        view.pending ? t("hier.returns") : t("hier.to_play"), h("span", {class: "banner-time", "data-countdown": ""}));
    el.append(h("div", {class: "h-tv"}, status,
      h("p", {class: "h-count"}, t("hier.line_count", {n: view.line_count})),
      lineView(game, view), lastPlay(game, view),
      hands[0], hands[1],
      view.burned.length ? h("p", {class: "h-burned"}, t("hier.burned"), " ",
        view.burned.map((b) => h("span", {class: "h-burned-card"}, localized(b.name)))) : null));
  }

  let chosen = {step: null, card: null};
  let opponentOpen = true;  /* the opponent's hand: shown (everything is public), folded only if the player folds it */

  function phone(el, game, state, act) {
    const view = game.view;
    const me = game.you;
    if (chosen.step !== game.step) chosen = {step: game.step, card: null};
    const legal = view.legal || [];
    const opponent = 1 - me;
    el.append(h("div", {class: "h-phone"},
      h("p", {class: "muted"}, t("hier.line_count", {n: view.line_count})),
      lineView(game, view), lastPlay(game, view),
      h("details", {class: "h-opponent", id: "h-opponent", open: opponentOpen, ontoggle: (e) => { opponentOpen = e.currentTarget.open; }},
        h("summary", null, t("hier.their_hand", {name: slotOf(game, opponent).name})),
        h("div", {class: "h-hand small"}, view.players[opponent].hand.map((c) => cardFace(c, opponent, game))))));
    if (view.winner !== null) return;
    const returns = legal.filter((a) => a.return);
    if (returns.length) {
      el.append(h("div", {class: "h-choices", id: "h-returns"}, h("p", {class: "big-text"}, t("hier.choose_return")),
        returns.map((a) => h("button", {class: "big", "data-return": a.return, onclick: () => act({return: a.return})},
          localized(view.line.find((e) => e.card === a.return).name)))));
      return;
    }
    if (view.actor !== me) {
      el.append(h("p", {class: "big-text", id: "h-waiting"}, view.pending ? t("hier.waiting_return") : t("hier.waiting", {name: slotOf(game, view.actor).name})));
      return;
    }
    const hand = view.players[me].hand;
    const blocked = view.blocked || {};
    const pick = (card) => { chosen.card = card; el.dispatchEvent(new Event("h-redraw")); };
    const handRow = h("div", {class: "h-hand mine", id: "h-my-hand"}, hand.map((c) => cardFace(c, me, game, {
      class: "h-card mine" + (c.royal ? " royal" : "") + (blocked[c.id] ? " blocked" : " playable") + (chosen.card === c.id ? " chosen" : ""),
      role: "button", tabindex: "0", "data-card": c.id, onclick: () => pick(c.id)})));
    el.append(h("p", {class: "big-text"}, t("hier.your_turn")), h("p", {class: "countdown small", "data-countdown": ""}), handRow);
    const why = chosen.card && blocked[chosen.card];
    let answer = null;  /* the explanation or the choices, brought into view under the hand */
    if (why) answer = h("p", {class: "h-why", id: "h-why", role: "alert"}, sentence(game, why));
    if (chosen.card && !why) {
      const options = legal.filter((a) => a.play === chosen.card);
      const name = (id) => cardName(game, id);
      const label = (a) => a.copy && a.burn ? t("hier.act.copy_burn", {copy: cardName(game, a.copy, "bare"), card: name(a.burn)})
        : a.copy ? t("hier.act.copy", {card: cardName(game, a.copy, "bare")})
          : a.burn ? t("hier.burn", {card: name(a.burn)}) : t("hier.play", {card: name(a.play)});
      answer = h("div", {class: "h-choices", id: "h-options"}, options.map((a, i) => h("button", {
        class: "big primary" + (i ? "" : " first"), "data-option": i, onclick: (e) => { e.currentTarget.disabled = true; act(a); }}, label(a))));
    }
    if (answer) {
      el.append(answer);
      requestAnimationFrame(() => answer.scrollIntoView({block: "nearest"}));
    }
    el.addEventListener("h-redraw", () => { el.replaceChildren(); phone(el, game, state, act); }, {once: true});
  }

  return {tv, phone};
})();
