/* Hierarchy on the TV (the line of power, both hands, the burned pile, the last play explained) and on the phone
 * (the hand, playable cards lit, a tap on the others explains why not, the Impostor's copy, the Tower's burn and
 * the Surgeon's returns). Everything in this game is public. Views come from engine/hierarchy/game.py. */
"use strict";

TR.games.hierarchy = (() => {
  const {t, h, badge, localized, digits} = TR;
  const slotOf = (game, seat) => game.slots[seat];
  const colourOf = (game, seat) => TR.COLOURS[slotOf(game, seat).colour % 8];

  function who(game, seat, size) {
    const slot = slotOf(game, seat);
    return h("span", {class: "who"}, badge(slot.colour, slot.shape, size || 28), h("span", {dir: "auto"}, slot.name));
  }

  function cardFace(card, owner, game, extra) {
    const number = card.number === "?" ? "?" : digits(card.number);
    return h("div", Object.assign({class: "h-card" + (card.royal ? " royal" : ""), "data-card": card.id,
      style: owner === null || owner === undefined ? "" : `border-color: ${colourOf(game, owner)}`}, extra || {}),
    h("span", {class: "h-number"}, number), card.royal ? h("span", {class: "h-crown", title: t("hier.royal")}, "♛") : null,
    h("span", {class: "h-name"}, localized(card.name)));
  }

  function lineView(game, view) {
    if (!view.line.length) return h("p", {class: "muted h-empty"}, t("hier.empty_line"));
    return h("div", {class: "h-line", id: "h-line"}, view.line.map((e, i) => cardFace(
      {id: e.id, name: e.name, number: e.number, royal: e.royal}, e.owner, game,
      {class: "h-card in-line" + (e.royal ? " royal" : "") + (i === view.line.length - 1 ? " top" : ""),
        style: `border-color: ${colourOf(game, e.owner)}; --i: ${i}`})));
  }

  function lastPlay(view) {
    const last = view.history.length ? view.history[view.history.length - 1] : null;
    return last && last.text ? h("p", {class: "h-last", id: "h-last"}, last.text) : null;
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
      lineView(game, view), lastPlay(view),
      hands[0], hands[1],
      view.burned.length ? h("p", {class: "h-burned"}, t("hier.burned"), " ",
        view.burned.map((b) => h("span", {class: "h-burned-card"}, localized(b.name)))) : null));
  }

  let chosen = {step: null, card: null, why: null};

  function phone(el, game, state, act) {
    const view = game.view;
    const me = game.you;
    if (chosen.step !== game.step) chosen = {step: game.step, card: null, why: null};
    const legal = view.legal || [];
    const opponent = 1 - me;
    el.append(h("div", {class: "h-phone"},
      h("p", {class: "muted"}, t("hier.line_count", {n: view.line_count})),
      lineView(game, view), lastPlay(view),
      h("details", {class: "h-opponent"}, h("summary", null, t("hier.their_hand", {name: slotOf(game, opponent).name})),
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
    const pick = (card) => { chosen.card = card; chosen.why = blocked[card] || null; el.dispatchEvent(new Event("h-redraw")); };
    const handRow = h("div", {class: "h-hand mine", id: "h-my-hand"}, hand.map((c) => cardFace(c, me, game, {
      class: "h-card mine" + (c.royal ? " royal" : "") + (blocked[c.id] ? " blocked" : " playable") + (chosen.card === c.id ? " chosen" : ""),
      role: "button", tabindex: "0", "data-card": c.id, onclick: () => pick(c.id)})));
    el.append(h("p", {class: "big-text"}, t("hier.your_turn")), h("p", {class: "countdown small", "data-countdown": ""}), handRow);
    if (chosen.card && chosen.why) el.append(h("p", {class: "h-why", id: "h-why", role: "alert"}, chosen.why));
    if (chosen.card && !chosen.why) {
      const options = legal.filter((a) => a.play === chosen.card);
      const label = (a) => a.copy ? t("hier.copy", {card: localized(view.line.find((e) => e.id === a.copy || e.card === a.copy).name)})
        : a.burn ? t("hier.burn", {card: localized(hand.find((c) => c.id === a.burn).name)}) : t("hier.play", {card: localized(hand.find((c) => c.id === a.play).name)});
      el.append(h("div", {class: "h-choices", id: "h-options"}, options.map((a, i) => h("button", {
        class: "big primary" + (i ? "" : " first"), "data-option": i, onclick: (e) => { e.currentTarget.disabled = true; act(a); }}, label(a)))));
    }
    el.addEventListener("h-redraw", () => { el.replaceChildren(); phone(el, game, state, act); }, {once: true});
  }

  return {tv, phone};
})();
