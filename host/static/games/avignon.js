/* Avignon 1378 on the TV (five lanes across five places from Avignon to Rome, both conclaves, the deck and the
 * discards, whose turn and what just happened) and on the phone (action type, then character, then the petition's
 * extra choice, then confirm; only legal choices are offered). Views come from engine/avignon/game.py; the deck's
 * order is never in them. */
"use strict";

TR.games.avignon = (() => {
  const {t, h, badge, digits} = TR;
  const slotOf = (game, seat) => game.slots[seat];
  const PLACES = ["avignon", "nice", "genoa", "florence", "rome"];

  function who(game, seat, size) {
    const slot = slotOf(game, seat);
    return h("span", {class: "who"}, badge(slot.colour, slot.shape, size || 28), h("span", {dir: "auto"}, slot.name));
  }

  const cls = (c) => t("avig.class." + c);

  function token(card) {
    return h("span", {class: "a-token a-" + card.class, "data-class": card.class}, cls(card.class));
  }

  function board(game, view, highlight) {
    const rows = view.lanes.map((lane) => h("div", {class: "a-lane" + (highlight === lane.lane ? " lit" : ""), "data-lane": lane.lane},
      h("span", {class: "a-lane-no"}, digits(lane.lane)),
      PLACES.map((place, i) => h("span", {class: "a-cell" + (i === 0 || i === 4 ? " end" : "")},
        lane.card !== null && lane.location === i ? token(lane) : null))));
    const conclave = (role) => h("div", {class: "a-conclave", id: "a-conclave-" + role},
      h("p", {class: "a-conclave-title"}, who(game, view.roles[role], 26), " · ", t("avig.place." + role)),
      h("div", {class: "a-conclave-cards"}, view.conclaves[role].map(token)));
    return h("div", {class: "a-board", dir: "ltr"},
      conclave("avignon"),
      h("div", {class: "a-grid"}, h("div", {class: "a-head"}, h("span", {class: "a-lane-no"}),
        PLACES.map((p) => h("span", {class: "a-place"}, t("avig.place." + p)))), rows),
      conclave("rome"));
  }

  function lastAction(game, view) {
    const last = [...view.history].reverse().find((e) => e.kind === "action");
    if (!last) return null;
    const lane = view.lanes.find((l) => l.lane === last.lane);
    return h("p", {class: "h-last", id: "a-last"}, t("avig.did." + last.action,
      {name: slotOf(game, last.seat).name, lane: digits(last.lane)}));
  }

  function tv(el, game) {
    const view = game.view;
    const status = view.winner !== null
      ? h("p", {class: "banner", id: "a-winner"}, who(game, view.winner, 40), " ", t("avig.wins"), " · ",
        t("outcome.avignon." + view.reason))
      : h("p", {class: "banner"}, who(game, view.to_move, 36), " · ", t("avig.place." + view.to_move_role), " · ",
        t("avig.actions_left", {n: view.actions_allowed - view.used.length}), h("span", {class: "banner-time", "data-countdown": ""}));
    el.append(h("div", {class: "a-tv"}, status, board(game, view), lastAction(game, view),
      h("p", {class: "muted"}, t("avig.deck", {n: view.deck_count}), " · ", t("avig.discard", {n: view.discard.length}))));
  }

  let pick = {step: null, action: null, lane: null};

  function phone(el, game, state, act) {
    const view = game.view;
    if (pick.step !== game.step) pick = {step: game.step, action: null, lane: null};
    const legal = view.legal || [];
    el.append(h("div", {class: "a-phone"}, h("p", {class: "muted"}, t("avig.you_are", {place: t("avig.place." + view.role)})),
      board(game, view, pick.lane), lastAction(game, view)));
    if (view.winner !== null) return;
    if (!legal.length) {
      el.append(h("p", {class: "big-text", id: "a-waiting"}, t("hier.waiting", {name: slotOf(game, view.to_move).name})));
      return;
    }
    const redraw = () => { el.replaceChildren(); phone(el, game, state, act); };
    const types = [...new Set(legal.map((a) => a.action))];
    const step = h("div", {class: "h-choices", id: "a-choices"});
    el.append(h("p", {class: "big-text"}, t("hier.your_turn"), " · ", t("avig.actions_left", {n: view.actions_allowed - view.used.length})),
      h("p", {class: "countdown small", "data-countdown": ""}), step);
    if (!pick.action) {
      step.append(h("p", null, t("avig.choose_action")), ...types.map((type) => h("button", {class: "big", "data-action": type,
        onclick: () => { pick.action = type; redraw(); }}, t("avig.action." + type))));
      return;
    }
    const forAction = legal.filter((a) => a.action === pick.action);
    if (!pick.lane) {
      const lanes = [...new Set(forAction.map((a) => a.lane))];
      step.append(h("p", null, t("avig.choose_card")), ...lanes.map((n) => {
        const lane = view.lanes.find((l) => l.lane === n);
        return h("button", {class: "big", "data-lane": n, onclick: () => { pick.lane = n; redraw(); }},
          t("avig.lane_card", {lane: digits(n), card: cls(lane.class), place: t("avig.place." + lane.location_name)}));
      }), h("button", {onclick: () => { pick.action = null; redraw(); }}, t("phone.cancel")));
      return;
    }
    const options = forAction.filter((a) => a.lane === pick.lane);
    step.append(h("p", null, t("avig.confirm")), ...options.map((a, i) => {
      const bits = [t("avig.action." + a.action), t("avig.lane_n", {lane: digits(a.lane)})];
      if (a.target) bits.push(t("avig.target", {lane: digits(a.target)}));
      if (a.direction) bits.push(t("avig.toward", {place: t("avig.place." + a.direction)}));
      return h("button", {class: "big primary", "data-option": i, onclick: (e) => { e.currentTarget.disabled = true; act(a); }}, bits.join(" · "));
    }), h("button", {onclick: () => { pick.lane = null; redraw(); }}, t("phone.cancel")));
  }

  return {tv, phone};
})();
