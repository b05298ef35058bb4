/* Seizing the Crown on the TV (CROWN-D3: day, phase and countdown, the ruler, the five houses, today's attacks,
 * the council's votes as they are cast, the public feed, crown totals when announced; nothing secret) and on a
 * house's phones (CROWN-D4: its status, crowns, debts, the prestige values disclosed to it, its private chronicle,
 * the prompts it must answer and the actions it may take, each confirmed before it is sent).
 * Views come from engine/crown/game.py (docs/crown-engine.md); the phones of one house all get the same view. */
"use strict";

TR.games.crown = (() => {
  const {t, h, digits} = TR;
  const HOUSE_PARAMS = ["attacker", "target", "house", "ruler", "proposer", "voter", "choice", "creditor", "debtor",
    "former", "vetoed", "replacement", "partner", "demander", "payer"];

  /* ----- houses ----- */

  function crestShape(crest) {
    switch (crest) {
      case "falcon": return [h("path", {d: "M1 11 L9 8.5 L12 3 L15 8.5 L23 11 L15 13 L13.5 21 L12 18.5 L10.5 21 L9 13 Z"})];
      case "rose": return [0, 72, 144, 216, 288].map((a) => h("circle", {cx: 12 + 5 * Math.cos(a * Math.PI / 180),
        cy: 12 + 5 * Math.sin(a * Math.PI / 180), r: 5})).concat([h("circle", {cx: 12, cy: 12, r: 3, class: "inner"})]);
      case "tower": return [h("path", {d: "M5 22 V8 H7 V4 H9.5 V7 H11 V4 H13 V7 H14.5 V4 H17 V8 H19 V22 H14 V17 a2 2 0 0 0 -4 0 V22 Z"})];
      case "serpent": return [h("path", {d: "M17 3 C 8 3, 6 8, 11 11 S 16 20, 6 21", fill: "none", "stroke-width": 3.5,
        "stroke-linecap": "round", class: "stroke"}), h("circle", {cx: 17, cy: 3.5, r: 2.6})];
      default: return [h("circle", {cx: 12, cy: 12, r: 5.5})].concat([0, 45, 90, 135, 180, 225, 270, 315].map((a) => {
        const r = a * Math.PI / 180;
        return h("line", {x1: 12 + 8 * Math.cos(r), y1: 12 + 8 * Math.sin(r), x2: 12 + 11 * Math.cos(r), y2: 12 + 11 * Math.sin(r),
          "stroke-width": 2.2, "stroke-linecap": "round", class: "stroke"});
      }));
    }
  }

  function crest(house, size) {
    return h("svg", {class: "c-crest", viewBox: "0 0 24 24", width: size, height: size, "aria-hidden": "true",
      style: `--house: ${house.colour}`}, crestShape(house.crest));
  }

  function houseName(game, i) {
    return t(game.view.houses[i].name_key);
  }

  /* A house as it reads on screen: its crest and name in its colour. */
  function house(game, i, size) {
    const data = game.view.houses[i];
    return h("span", {class: "c-house", "data-house": i, style: `--house: ${data.colour}`}, crest(data, size || 28),
      h("span", {class: "c-house-name"}, t(data.name_key)));
  }

  /* ----- texts ----- */

  function entryText(game, entry) {
    const params = {};
    for (const [name, value] of Object.entries(entry.params || {})) {
      if (HOUSE_PARAMS.includes(name) && typeof value === "number") params[name] = "\u2068" + houseName(game, value) + "\u2069";
      else if (name === "status") params[name] = t("crown.status." + value);
      else if (name === "option") params[name] = t("crown.option." + value);
      else if (name === "when" || name === "point") params[name] = t("crown.when." + value);
      else if (typeof value === "number") params[name] = digits(value);
      else params[name] = value;
    }
    return t(entry.key, params);
  }

  function countdown(game) {
    return game.deadline_ms === null ? null : h("span", {class: "c-countdown", "data-countdown": ""});
  }

  function banner(game) {
    const view = game.view;
    return h("header", {class: "c-banner"},
      h("span", {class: "c-day"}, view.day > 0 ? t("crown.label.day", {number: digits(view.day)}) : null),
      h("span", {class: "c-phase", id: "c-phase"}, t(view.phase_key)),
      countdown(game),
      view.ruler === null ? null : h("span", {class: "c-ruler", id: "c-ruler"}, h("span", {class: "c-crown-mark"}, "♛"),
        house(game, view.ruler, 34),
        h("span", {class: "c-reign"}, t("crownui.reign", {day: digits(view.reign_day), crowns: digits(view.ruler_crowns)}))));
  }

  /* ----- TV ----- */

  function houseCard(game, i) {
    const view = game.view;
    const data = view.houses[i];
    const slot = game.slots[i];
    const pacts = view.pacts.filter((p) => p.includes(i)).map((p) => p[0] === i ? p[1] : p[0]);
    const announced = view.crowns_announced && (view.crowns_announced.day === view.day || view.phase === "over")
      ? view.crowns_announced : null;  /* R75: shown on the day they are announced, and at the end */
    return h("li", {class: "c-card" + (view.ruler === i ? " ruling" : ""), "data-house": i, style: `--house: ${data.colour}`},
      crest(data, 72),
      h("div", {class: "c-card-text"},
        h("p", {class: "c-card-name"}, t(data.name_key), view.ruler === i ? h("span", {class: "c-crown-mark", title: t("crown.status.ruler")}, " ♛") : null),
        h("p", {class: "c-card-players", dir: "auto"}, slot.bot ? t("crownui.bot") : slot.name),
        h("p", {class: "c-card-extra"},
          view.phase === "day" && data.done ? h("span", {class: "c-done"}, "✓ ", t("crownui.done")) : null,
          pacts.length ? h("span", {class: "c-pact"}, t("crownui.pact", {houses: pacts.map((x) => houseName(game, x)).join(", ")})) : null),
        announced ? h("p", {class: "c-card-crowns"}, t("crownui.crowns_at", {crowns: digits(announced.crowns[i]), day: digits(announced.day)})) : null));
  }

  function councilPanel(game) {
    const council = game.view.council;
    if (!council) return null;
    const votes = council.votes.map((v) => h("li", {class: "c-vote"}, house(game, v.voter, 30), h("span", {class: "c-arrow"}, "→"),
      v.choice === null ? h("span", {class: "muted"}, t("crown.label.abstain")) : house(game, v.choice, 30),
      v.forced_by === null || v.forced_by === undefined ? null : h("span", {class: "c-forced"}, t("crownui.forced_by", {house: houseName(game, v.forced_by)}))));
    const waiting = council.voters.filter((x) => !council.votes.some((v) => v.voter === x));
    return h("section", {class: "c-council", id: "c-council"},
      h("h2", null, t("crownui.council." + council.kind), council.round > 1 ? t("crownui.round", {n: digits(council.round)}) : null),
      h("ol", {class: "c-votes"}, votes),
      !council.final && waiting.length ? h("p", {class: "muted c-waiting"}, t("crownui.waiting_votes"), " ",
        waiting.map((x) => house(game, x, 24))) : null,
      council.condemned === null || council.condemned === undefined ? null
        : h("p", {class: "c-verdict"}, t("crownui.condemned"), " ", house(game, council.condemned, 34)));
  }

  function attacksPanel(game) {
    const attacks = game.view.attacks || [];
    if (!attacks.length) return null;
    return h("section", {class: "c-attacks", id: "c-attacks"}, h("h2", null, t("crownui.attacks_today")),
      h("ul", null, attacks.map((a) => h("li", {class: "c-attack"}, house(game, a.attacker, 30), h("span", {class: "c-swords"}, "⚔"),
        house(game, a.target, 30)))));
  }

  let seenFeed = {game: null, total: 0};

  function feedList(game, count, id) {
    const view = game.view;
    const first = view.feed_total - view.feed.length;  /* the feed holds the newest entries only */
    const fresh = seenFeed.total;
    const items = view.feed.map((entry, i) => ({entry, n: first + i})).slice(-count).reverse();
    return h("ol", {class: "c-feed", id}, items.map(({entry, n}) => h("li", {class: "c-entry" + (n >= fresh ? " new" : ""),
      "data-key": entry.key},
    h("span", {class: "c-entry-day"}, entry.day ? digits(entry.day) : "·"), h("span", {class: "c-entry-text"}, entryText(game, entry)))));
  }

  function tv(el, game) {
    const view = game.view;
    const key = game.slots.map((s) => s.seat).join(",") + view.rulers.length;
    if (seenFeed.game !== key && seenFeed.total > view.feed_total) seenFeed = {game: key, total: 0};
    const feed = feedList(game, 12, "c-feed");
    seenFeed = {game: key, total: view.feed_total};
    const winner = view.winner === null || view.winner === undefined ? null
      : h("p", {class: "banner c-winner", id: "c-winner"}, house(game, view.winner, 56), " ", t("crownui.wins"), " · ",
        t("outcome.crown." + view.reason));
    el.append(h("div", {class: "c-tv"}, banner(game), winner,
      h("div", {class: "c-main"},
        h("ul", {class: "c-cards", id: "c-cards"}, view.houses.map((_, i) => houseCard(game, i))),
        h("div", {class: "c-centre"}, councilPanel(game), attacksPanel(game),
          h("section", {class: "c-feed-box"}, h("h2", null, t("crownui.news")), feed)))));
  }

  /* ----- phone ----- */

  let pick = {step: null, choice: null};  /* the action being composed, kept across redraws of the same step */
  const open = {chronicle: true, debts: true, seen: true, feed: false};

  function choiceButton(label, onclick, extra) {
    return h("button", Object.assign({class: "c-choice", onclick}, extra || {}), label);
  }

  function targetButtons(game, targets, chosen, name) {
    return h("div", {class: "c-targets", role: "group"}, targets.map((x) => choiceButton(
      x === null ? t("crown.label.abstain") : house(game, x, 30),
      () => { chosen(x); }, {"data-target": x === null ? "none" : x, "aria-label": x === null ? t("crown.label.abstain") : houseName(game, x), "data-name": name})));
  }

  /* The summary shown before an action is sent: what it does, what it costs, who learns of it. */
  function summary(game, payload, offer) {
    const parts = [];
    const what = {
      attack: () => t("crownui.do.attack", {house: houseName(game, payload.target)}),
      spy: () => t("crownui.do.spy", {house: houseName(game, payload.target)}),
      aid: () => t("crownui.do.aid", {house: houseName(game, payload.target)}),
      propose_alliance: () => t("crownui.do.propose_alliance", {house: houseName(game, payload.target)}),
      propose_conspiracy: () => t("crownui.do.propose_conspiracy", {house: houseName(game, payload.target)}),
      demand_hush: () => t("crownui.do.demand_hush", {house: houseName(game, payload.target)}),
      feast: () => t("crownui.do.feast", {option: t("crown.option." + payload.option), when: t("crown.when." + payload.when)}),
      banquet: () => t("crownui.do.banquet", {when: t("crown.when." + payload.when)}),
      debt_attack: () => t("crownui.do.debt_attack", {debtor: houseName(game, payload.debtor), house: houseName(game, payload.target)}),
      debt_take: () => t("crownui.do.debt_take", {debtor: houseName(game, payload.debtor)}),
      debt_vote: () => payload.choice === null ? t("crownui.do.debt_vote_abstain", {debtor: houseName(game, payload.debtor)})
        : t("crownui.do.debt_vote", {debtor: houseName(game, payload.debtor), house: houseName(game, payload.choice)}),
      vote: () => payload.choice === null ? t("crownui.do.abstain") : t("crownui.do.vote", {house: houseName(game, payload.choice)}),
      veto: () => t("crownui.do.veto", {house: houseName(game, payload.replacement)}),
    }[payload.kind];
    parts.push(h("p", {class: "c-summary-what"}, what ? what() : t("crown.action." + payload.kind)));
    if (offer && offer.cost) parts.push(h("p", null, t("crown.label.cost", {cost: digits(offer.cost)})));
    if (offer && offer.public !== undefined) {
      const note = offer.public && offer.secret && offer.secret.length ? "crownui.partly_secret_note"  /* a feast: A13 */
        : offer.public ? "crownui.public_note" : "crownui.secret_note";
      parts.push(h("p", {class: offer.public ? "c-public" : "c-secret"}, t(note)));
    }
    if (offer && offer.irreversible) parts.push(h("p", {class: "c-warning", role: "alert"}, t("crown.label.irreversible")));
    return parts;
  }

  function confirmPanel(game, payload, offer, act) {
    return h("section", {class: "c-confirm", id: "c-confirm"}, summary(game, payload, offer),
      h("div", {class: "c-confirm-row"},
        h("button", {class: "primary big", id: "c-send", onclick: () => {
          pick = {step: game.step, choice: null};
          act(payload);
        }}, t("crownui.confirm")),
        h("button", {class: "big", id: "c-change", onclick: () => { pick.choice = null; redraw(); }}, t("crownui.change"))));
  }

  let redraw = () => {};

  /* The choices an offer needs, one at a time; returns the panel for the next missing choice, or the payload. */
  function compose(game, offer, made) {
    const kind = offer.kind;
    const ask = (title, body) => h("section", {class: "c-compose", id: "c-compose"}, h("h3", null, title), body,
      h("button", {class: "c-back", id: "c-back", onclick: () => { pick.choice = null; redraw(); }}, t("phone.cancel")));
    const set = (field) => (value) => { pick.choice = Object.assign({}, made, {[field]: value}); redraw(); };
    if (kind === "feast") {
      if (made.option === undefined) {
        return ask(t("crown.action.feast"), h("div", {class: "c-targets"}, offer.options.map((o) =>
          choiceButton(t("crown.option." + o), () => set("option")(o), {"data-option": o}))));
      }
      if (made.when === undefined) {
        return ask(t("crownui.when_title"), h("div", {class: "c-targets"}, offer.when.map((w) =>
          choiceButton(t("crown.when." + w), () => set("when")(w), {"data-when": w}))));
      }
      return {kind, option: made.option, when: made.when};
    }
    if (kind === "banquet") {
      if (made.when === undefined) {
        return ask(t("crown.action.banquet"), h("div", {class: "c-targets"}, offer.when.map((w) =>
          choiceButton(t("crown.when." + w), () => set("when")(w), {"data-when": w}))));
      }
      return {kind, when: made.when};
    }
    if (kind === "debt_take") {
      if (made.debtor === undefined) return ask(t("crown.action.debt_take"), targetButtons(game, offer.debtors, set("debtor")));
      return {kind, debtor: made.debtor};
    }
    if (kind === "debt_vote") {
      if (made.choice === undefined) return ask(t("crownui.debt_vote_for", {debtor: houseName(game, offer.debtor)}), targetButtons(game, offer.choices, set("choice")));
      return {kind, debtor: offer.debtor, choice: made.choice};
    }
    if (kind === "debt_attack") {
      if (made.target === undefined) return ask(t("crownui.debt_attack_for", {debtor: houseName(game, offer.debtor)}), targetButtons(game, offer.targets, set("target")));
      return {kind, debtor: offer.debtor, target: made.target};
    }
    if (made.target === undefined) return ask(t("crown.action." + kind), targetButtons(game, offer.targets, set("target")));
    return {kind, target: made.target};
  }

  function offerLabel(game, offer) {
    if (offer.kind === "debt_vote") return t("crownui.offer.debt_vote", {debtor: houseName(game, offer.debtor)});
    if (offer.kind === "debt_attack") return t("crownui.offer.debt_attack", {debtor: houseName(game, offer.debtor)});
    return t("crown.action." + offer.kind);
  }

  function actionList(game, act) {
    const view = game.view;
    const offers = view.actions.map((offer, index) => ({offer, index})).filter((o) => o.offer.kind !== "done");
    const done = view.actions.find((a) => a.kind === "done");
    return h("section", {class: "c-actions", id: "c-actions"},
      offers.length ? h("h3", null, t("crownui.you_may")) : null,
      h("div", {class: "c-action-grid"}, offers.map(({offer, index}) => h("button", {class: "c-action", "data-kind": offer.kind,
        "data-offer": index, onclick: () => { pick = {step: game.step, choice: {offer: {kind: offer.kind, debtor: offer.debtor}}}; redraw(); }},
      h("span", {class: "c-action-name"}, offerLabel(game, offer)),
      h("span", {class: "c-action-meta"}, offer.cost ? t("crown.label.cost", {cost: digits(offer.cost)}) + " · " : "",
        offer.public ? t("crown.label.public") : t("crown.label.secret"))))),
      done ? h("button", {class: "big c-done-button", id: "c-done", onclick: () => act({kind: "done"})}, t("crown.action.done"))
        : view.phase === "day" && view.done ? h("p", {class: "muted", id: "c-is-done"}, t("crownui.you_are_done")) : null);
  }

  function promptCard(game, prompt, act) {
    const body = [];
    const yesNo = (yes, no, make) => h("div", {class: "c-confirm-row"},
      h("button", {class: "primary big", "data-answer": "yes", onclick: () => act(make(true))}, yes),
      h("button", {class: "big", "data-answer": "no", onclick: () => act(make(false))}, no));
    let title;
    if (prompt.kind === "alliance") {
      title = t("crown.prompt.alliance", {proposer: houseName(game, prompt.proposer)});
      body.push(yesNo(t("crown.label.accept"), t("crown.label.reject"), (b) => ({kind: "answer_alliance", proposer: prompt.proposer, accept: b})));
    } else if (prompt.kind === "conspiracy") {
      title = t("crown.prompt.conspiracy");
      body.push(h("p", {class: "muted"}, t("crownui.conspiracy_note")));
      body.push(yesNo(t("crown.label.accept"), t("crown.label.reject"), (b) => ({kind: "answer_conspiracy", offer: prompt.offer, accept: b})));
    } else if (prompt.kind === "hush") {
      title = t("crown.prompt.hush", {demander: houseName(game, prompt.demander)});
      body.push(h("p", {class: "muted"}, t("crownui.hush_note")));
      body.push(yesNo(t("crown.label.pay"), t("crown.label.refuse"), (b) => ({kind: "answer_hush", demander: prompt.demander, pay: b})));
    } else if (prompt.kind === "reaction") {
      title = t("crown.prompt.reaction");
      body.push(yesNo(t("crown.label.defect"), t("crown.label.stay"), (b) => ({kind: "react", defect: b})));
    } else if (prompt.kind === "vote") {
      title = t("crownui.vote_title." + prompt.council);
      const chosen = pick.choice && pick.choice.vote !== undefined ? pick.choice.vote : undefined;
      if (chosen === undefined) {
        body.push(targetButtons(game, prompt.choices, (x) => { pick = {step: game.step, choice: {vote: x}}; redraw(); }, "vote"));
      } else {
        body.push(confirmPanel(game, {kind: "vote", choice: chosen}, {public: true}, act));
      }
    } else if (prompt.kind === "veto") {
      title = t("crown.prompt.veto", {condemned: houseName(game, prompt.condemned)});
      const chosen = pick.choice && pick.choice.veto !== undefined ? pick.choice.veto : undefined;
      if (prompt.refused) body.push(h("p", {class: "c-warning"}, t("crown.log.veto_refused")));
      if (chosen === undefined) {
        if (prompt.replacements.length && !prompt.refused) {
          body.push(h("p", null, t("crownui.veto_pick")),
            targetButtons(game, prompt.replacements, (x) => { pick = {step: game.step, choice: {veto: x}}; redraw(); }, "veto"));
        }
        body.push(h("button", {class: "big", id: "c-pass", onclick: () => act({kind: "pass"})}, t("crown.action.pass")));
      } else {
        body.push(confirmPanel(game, {kind: "veto", replacement: chosen}, {cost: prompt.cost, public: true}, act));
      }
    }
    return h("section", {class: "c-prompt", "data-prompt": prompt.kind, role: "alert"},
      h("h3", null, title),
      prompt.deadline_ms === null || prompt.deadline_ms === undefined ? null
        : h("p", {class: "c-prompt-time"}, t("crownui.answer_within"), " ", h("span", {class: "c-countdown", "data-countdown-to": prompt.deadline_ms})),
      body);
  }

  function details(name, title, content) {
    return h("details", {class: "c-details", id: "c-section-" + name, open: open[name],
      ontoggle: (e) => { open[name] = e.target.open; }}, h("summary", null, title), content);
  }

  function myPanels(game) {
    const view = game.view;
    const debts = view.debts;
    const debtRows = [
      ...debts.owed_to_you.map((d) => h("li", null, t("crownui.owes_you", {house: houseName(game, d.house), n: digits(d.count)}))),
      ...debts.you_owe.map((d) => h("li", null, t("crownui.you_owe", {house: houseName(game, d.house), n: digits(d.count)})))];
    const seen = view.disclosures.slice().reverse().map((d) => h("li", null,
      t("crownui.seen", {house: houseName(game, d.house), prestige: digits(d.prestige), day: digits(d.day),
        point: t("crown.when." + d.point), source: t("crownui.source." + d.source)})));
    const chronicle = view.chronicle.slice().reverse().map((e) => h("li", {class: "c-entry", "data-key": e.key},
      h("span", {class: "c-entry-day"}, digits(e.day)), h("span", {class: "c-entry-text"}, entryText(game, e))));
    return [
      details("debts", t("crownui.debts"), debtRows.length ? h("ul", {class: "c-list"}, debtRows) : h("p", {class: "muted"}, t("crownui.no_debts"))),
      details("seen", t("crown.label.prestige_seen"), seen.length ? h("ul", {class: "c-list", id: "c-seen"}, seen) : h("p", {class: "muted"}, t("crownui.nothing_seen"))),
      details("chronicle", t("crown.label.chronicle"), chronicle.length ? h("ol", {class: "c-feed", id: "c-chronicle"}, chronicle) : h("p", {class: "muted"}, t("crownui.nothing_yet"))),
      details("feed", t("crownui.news"), feedList(game, 40, "c-phone-feed")),
    ];
  }

  function phone(el, game, state, act, receivedAt) {
    const view = game.view;
    const me = view.houses[view.you];
    redraw = () => el.dispatchEvent(new Event("c-redraw"));
    if (pick.step !== game.step) pick = {step: game.step, choice: null};
    const send = (payload) => act(payload).then((answer) => { if (answer && answer.ok) pick = {step: game.step, choice: null}; return answer; });

    const draw = () => {
      const head = h("header", {class: "c-me", style: `--house: ${me.colour}`}, crest(me, 56),
        h("div", null, h("p", {class: "c-me-name"}, t(me.name_key)),
          h("p", {class: "c-me-status"}, h("span", {class: "c-status c-" + view.status, id: "c-status"}, t("crown.status." + view.status)),
            " · ", h("span", {id: "c-crowns"}, t("crownui.crowns", {n: digits(view.crowns)})))));
      const phase = h("p", {class: "c-phone-phase"}, view.day > 0 ? t("crown.label.day", {number: digits(view.day)}) + " · " : "",
        t(view.phase_key), " ", countdown(game));
      const parts = [head, phase];
      if (view.winner !== null && view.winner !== undefined) {
        parts.push(h("p", {class: "big-text c-winner"}, house(game, view.winner, 40), " ", t("crownui.wins")));
      }
      parts.push(...view.prompts.map((p) => promptCard(game, p, send)));
      const wanted = pick.choice && pick.choice.offer;  /* the offer is found again by kind: the list may change meanwhile */
      const composing = wanted ? view.actions.find((a) => a.kind === wanted.kind && a.debtor === wanted.debtor) : null;
      if (composing) {
        const result = compose(game, composing, pick.choice);
        parts.push(result instanceof Node ? result : confirmPanel(game, result, composing, send));
      } else if (view.actions.length || (view.phase === "day" && view.done)) {
        parts.push(actionList(game, send));
      } else if (!view.prompts.length && view.phase !== "over") {
        parts.push(h("p", {class: "muted c-wait", id: "c-wait"}, t("crownui.wait." + view.phase)));
      }
      parts.push(...myPanels(game));
      el.replaceChildren(h("div", {class: "c-phone", style: `--house: ${me.colour}`}, parts));
      TR.tickCountdowns(state, receivedAt);
    };
    el.addEventListener("c-redraw", draw);
    draw();
  }

  return {tv, phone};
})();
