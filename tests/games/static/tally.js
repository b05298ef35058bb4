/* Tally, the test game (tests/games/tally.py): the total, whose turn, and two buttons on the phone of the player to move.
 * Loaded only by a server started with --games-module tests.games. */
"use strict";

TR.games.tally = (() => {
  const {t, h, badge} = TR;

  function turnLine(game) {
    const slot = game.slots[game.view.current];
    return h("p", {class: "turn"}, badge(slot.colour, slot.shape, 40),
      h("span", null, t("tally.turn", {name: TR.iso(TR.seatName(game, game.view.current))})));
  }

  function total(game) {
    return h("p", {class: "tally-total", id: "tally-total"},
      t("tally.total", {total: game.view.total, target: game.view.target}));
  }

  return {
    tv(el, game) {
      el.append(total(game));
      if (game.view.winner === null && !game.aborted) {
        el.append(turnLine(game), h("p", {class: "countdown", "data-countdown": ""}));
      }
      el.append(h("ol", {class: "tally-history"}, game.view.history.slice(-6).map(([seat, amount, timedOut]) =>
        h("li", null, badge(game.slots[seat].colour, game.slots[seat].shape, 28),
          h("bdi", null, TR.seatName(game, seat)), " +", TR.num(amount),
          timedOut ? h("span", {class: "muted"}, " ", t("tally.timeout")) : null))));
    },
    phone(el, game, state, act) {
      el.append(total(game));
      if (game.view.winner !== null || game.aborted) return;
      const legal = game.view.legal || [];
      if (legal.length) {
        el.append(h("p", {class: "big-text", id: "your-turn"}, t("tally.your_turn")),
          h("p", {class: "countdown", "data-countdown": ""}),
          h("div", {class: "choices"}, legal.map((amount) => h("button", {class: "choice big primary",
            "data-add": amount, onclick: (e) => { e.currentTarget.disabled = true; act({add: amount}); }},
          "+" + TR.digits(amount)))));
      } else {
        el.append(turnLine(game), h("p", {class: "countdown", "data-countdown": ""}));
      }
    },
  };
})();
