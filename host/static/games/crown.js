/* Seizing the Crown on the TV (CROWN-D3: day, phase and countdown, the ruler, the five houses with their players,
 * today's attacks, the council's votes as they are cast, the public feed, crown totals when announced; nothing
 * secret) and on a house's phones (CROWN-D4: its status, crowns, debts, the prestige values disclosed to it, its
 * private chronicle, the prompts it must answer and the actions it may take, each confirmed before it is sent).
 * Views come from engine/crown/game.py (docs/crown-engine.md); the phones of one house all get the same view.
 *
 * Layout (issue [9]): the TV shows the five house cards in a column beside the banner, the council or today's
 * attacks and the announcements (a region that scrolls by itself); every text is at least the TV's body size. A
 * phone shows its house on top, then its books (chronicle, debts, prestige seen, announcements) in a region that
 * scrolls, and at the bottom, under the thumb, the one thing to do now: a prompt, the action being composed and its
 * confirmation, or the list of actions. House and player names go into sentences isolated (TR.iso), never
 * declined: each language's messages are written so that any name fits. */
"use strict";

TR.games.crown = (() => {
  const {t, h} = TR;
  const HOUSE_PARAMS = ["attacker", "target", "house", "ruler", "proposer", "voter", "choice", "creditor", "debtor",
    "former", "vetoed", "replacement", "partner", "demander", "payer"];
  const COUNT_PARAMS = ["crowns", "amount", "prestige", "count"];  /* the count a plural message agrees with */

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

  /* A crest, sized by its context's CSS (in em, so that it grows with the text beside it). */
  function crest(house, label) {
    const attrs = {class: "c-crest", viewBox: "0 0 24 24", style: `--house: ${house.colour}`};
    if (label) Object.assign(attrs, {role: "img", "aria-label": label});
    else attrs["aria-hidden"] = "true";
    return h("svg", attrs, crestShape(house.crest));
  }

  function houseName(game, i) {
    return t(game.view.houses[i].name_key);
  }

  /* A house as it reads on screen: its crest and name in its colour. */
  function house(game, i) {
    const data = game.view.houses[i];
    return h("span", {class: "c-house", "data-house": i, style: `--house: ${data.colour}`}, crest(data),
      h("span", {class: "c-house-name"}, t(data.name_key)));
  }

  /* The people who play a house, by name from the room's list of players ("bot" for a bot's house). */
  function players(game, state, i) {
    const slot = game.slots[i];
    if (!slot || slot.bot) return t("crownui.bot");
    const names = TR.namesOf(state || {}, slot.members || []);
    return TR.list(names.length ? names : [TR.iso(slot.name)]);
  }

  /* ----- clocks: a countdown reads as a clock (1:05, 39:58), never as a bare number (TR.tickCountdowns fills it) ----- */

  function clock(target, label) {
    if (target === null || target === undefined) return null;
    return h("span", {class: "c-clock", dir: "ltr", "data-clock-to": target, role: "timer", "aria-label": label || t("crownui.time_left")});
  }

  /* ----- texts ----- */

  /* A vote in a Council of Judgment condemns: its entry says so (the engine uses one key for every council). */
  const CONDEMN_KEYS = {"crown.log.vote": "crownui.log.vote_condemn", "crown.log.debt_vote": "crownui.log.debt_vote_condemn"};

  function entryText(game, entry, judgment) {
    const params = {};
    for (const [name, value] of Object.entries(entry.params || {})) {
      if (HOUSE_PARAMS.includes(name) && typeof value === "number") params[name] = TR.iso(houseName(game, value));
      else if (name === "status") params[name] = t("crown.status." + value);
      else if (name === "option") params[name] = t("crown.option." + value);
      else if (name === "when" || name === "point") params[name] = t("crown.when." + value);
      else if (typeof value === "number") params[name] = name === "number" || name === "reign_day" ? TR.plain(value) : value;
      else if (!Array.isArray(value)) params[name] = value;
    }
    const count = COUNT_PARAMS.find((name) => typeof (entry.params || {})[name] === "number");
    if (count) params.n = entry.params[count];
    return t(judgment && CONDEMN_KEYS[entry.key] ? CONDEMN_KEYS[entry.key] : entry.key, params);
  }

  /* For each entry of the public feed, whether it belongs to a Council of Judgment (read from the feed's order). */
  function judgmentEntries(feed) {
    let judgment = false;
    return feed.map((entry) => {
      if (entry.key === "crown.log.judgment_opened") judgment = true;
      else if (/^crown\.log\.(initial_opened|transfer_opened|day_started)$/.test(entry.key)) judgment = false;
      return judgment;
    });
  }

  function crownCount(n) {
    return t("crownui.crown_count", {n});
  }

  function dayChip(day) {
    return h("span", {class: "c-entry-day", "aria-label": day ? t("crown.label.day", {number: TR.plain(day)}) : null},
      day ? TR.plain(day) : "");
  }

  /* ----- TV ----- */

  function banner(game) {
    const view = game.view;
    return h("header", {class: "c-banner"},
      h("p", {class: "c-when"},
        view.day > 0 ? h("span", {class: "c-day"}, t("crown.label.day", {number: TR.plain(view.day)})) : null,
        h("span", {class: "c-phase", id: "c-phase"}, t(view.phase_key)),
        clock(game.deadline_ms)),
      view.ruler === null || view.ruler === undefined || view.phase === "over" ? null  /* the end: the winner instead */
        : h("p", {class: "c-ruler", id: "c-ruler"}, h("span", {class: "c-crown-mark", "aria-hidden": "true"}, "♛"),
          house(game, view.ruler),
          h("span", {class: "c-reign"}, view.reign_day > 0 ? t("crownui.reign", {day: TR.plain(view.reign_day)}) + t("crownui.sep") : "",
            crownCount(view.ruler_crowns))));
  }

  function houseCard(game, state, i) {
    const view = game.view;
    const data = view.houses[i];
    const pacts = view.pacts.filter((p) => p.includes(i)).map((p) => (p[0] === i ? p[1] : p[0]));
    /* R75: crown totals are public when announced (before a power council, and at the end); the ruler's always */
    const announced = view.crowns_announced && (view.crowns_announced.day === view.day || view.phase === "over")
      ? view.crowns_announced.crowns[i] : null;
    const crowns = view.ruler === i && view.phase !== "over" ? view.ruler_crowns : announced;
    const ruling = view.ruler === i;
    const bot = game.slots[i] ? game.slots[i].bot : data.bot;  /* the room's seat: a latecomer may have taken a bot's house */
    return h("li", {class: "c-card" + (ruling ? " ruling" : "") + (bot ? " bot" : ""), "data-house": i,
      style: `--house: ${data.colour}`},
    crest(data),
    h("div", {class: "c-card-text"},
      h("p", {class: "c-card-head"},
        h("span", {class: "c-card-name"}, t(data.name_key)),
        ruling ? h("span", {class: "c-ruler-tag"}, t("crown.status.ruler")) : null,
        view.phase === "day" && data.done ? h("span", {class: "c-done"}, "✓ ", t("crownui.done")) : null,
        crowns === null || crowns === undefined ? null : h("span", {class: "c-card-crowns"}, "♛ ", crownCount(crowns))),
      h("p", {class: "c-card-players" + (bot ? " c-bot" : "")}, players(game, state, i)),
      pacts.length ? h("p", {class: "c-card-pacts"}, t("crownui.pact"), " ",
        pacts.map((x) => crest(view.houses[x], houseName(game, x)))) : null));
  }

  function councilPanel(game) {
    const council = game.view.council;
    if (!council) return null;
    const votes = council.votes.map((v) => h("li", {class: "c-vote"}, house(game, v.voter),
      h("span", {class: "c-arrow", "aria-hidden": "true"}, "→"),
      v.choice === null ? h("span", {class: "c-abstain"}, t("crown.label.abstain")) : house(game, v.choice),
      v.forced_by === null || v.forced_by === undefined ? null
        : h("span", {class: "c-forced"}, t("crownui.forced_by", {house: TR.iso(houseName(game, v.forced_by))}))));
    const waiting = council.voters.filter((x) => !council.votes.some((v) => v.voter === x));
    const condemned = council.condemned;
    return h("section", {class: "c-council", id: "c-council"},
      h("h2", null, t(council.kind === "judgment" ? "crownui.votes_condemn" : "crownui.votes"), council.round > 1 ? t("crownui.sep") + t("crownui.round", {n: TR.plain(council.round)}) : null),
      votes.length ? h("ol", {class: "c-votes"}, votes) : null,
      !council.final && !game.aborted && condemned === null && waiting.length ? h("p", {class: "c-waiting"}, t("crownui.waiting_votes"), " ",
        waiting.map((x) => house(game, x))) : null,
      condemned === null || condemned === undefined ? null
        : h("p", {class: "c-verdict" + (council.vetoed ? " vetoed" : "")}, t("crownui.condemned"), " ", house(game, condemned)),
      council.vetoed && council.final !== null && council.final !== undefined
        ? h("p", {class: "c-verdict"}, t("crownui.veto_instead"), " ", house(game, council.final)) : null);
  }

  function attacksPanel(game) {
    const attacks = game.view.attacks || [];
    if (!attacks.length) return null;
    return h("section", {class: "c-attacks", id: "c-attacks"}, h("h2", null, t("crownui.attacks_today")),
      h("ul", null, attacks.map((a) => h("li", {class: "c-attack"}, house(game, a.attacker),
        h("span", {class: "c-swords", "aria-hidden": "true"}, "⚔"), house(game, a.target),
        a.forced_by === null || a.forced_by === undefined ? null
          : h("span", {class: "c-forced"}, t("crownui.forced_by", {house: TR.iso(houseName(game, a.forced_by))}))))));
  }

  let seenFeed = {game: null, total: 0};

  /* The newest public entries first; on the TV those that arrived since its last drawing are highlighted. */
  function feedList(game, count, id, highlight) {
    const view = game.view;
    const first = view.feed_total - view.feed.length;  /* the feed holds the newest entries only */
    const fresh = highlight ? seenFeed.total : Infinity;
    const judgment = judgmentEntries(view.feed);
    const items = view.feed.map((entry, i) => ({entry, n: first + i, judgment: judgment[i]})).slice(-count).reverse();
    return h("ol", {class: "c-feed scroll-region", id}, items.map((item) => h("li", {class: "c-entry" + (item.n >= fresh ? " new" : ""),
      "data-key": item.entry.key}, dayChip(item.entry.day), h("span", {class: "c-entry-text"}, entryText(game, item.entry, item.judgment)))));
  }

  function tv(el, game, state, receivedAt) {
    const view = game.view;
    const key = game.slots.map((s) => s.seat).join(",") + view.rulers.length;
    if (seenFeed.game !== key && seenFeed.total > view.feed_total) seenFeed = {game: key, total: 0};
    const feed = feedList(game, 25, "c-feed", true);
    seenFeed = {game: key, total: view.feed_total};
    const over = view.phase === "over";
    const winner = view.winner === null || view.winner === undefined ? null
      : h("p", {class: "c-winner", id: "c-winner"}, house(game, view.winner), " ", t("crownui.wins"),
        view.reason ? h("span", {class: "c-reason"}, t("outcome.crown." + view.reason)) : null);
    el.append(h("div", {class: "c-tv" + (over ? " over" : "")},
      h("ul", {class: "c-cards", id: "c-cards"}, view.houses.map((_, i) => houseCard(game, state, i))),
      h("div", {class: "c-centre"}, banner(game), winner, councilPanel(game), attacksPanel(game),
        h("section", {class: "c-feed-box"}, h("h2", null, t("crownui.news")), feed))));
  }

  /* ----- phone ----- */

  let pick = {step: null, choice: null};  /* the action being composed, kept across redraws of the same step */
  const open = {chronicle: true, debts: true, seen: true, feed: false};
  let redraw = () => {};

  function choiceButton(label, onclick, extra) {
    return h("button", Object.assign({class: "c-choice", type: "button", onclick}, extra || {}), label);
  }

  function targetButtons(game, targets, chosen, name, extra) {
    return h("div", {class: "c-targets c-houses", role: "group"}, targets.map((x) => choiceButton(
      x === null ? t("crown.label.abstain") : house(game, x),
      () => { chosen(x); }, {"data-target": x === null ? "none" : x, "aria-label": x === null ? t("crown.label.abstain") : houseName(game, x),
        "data-name": name})), extra || null);
  }

  /* The summary shown before an action is sent: what it does, what it costs, who learns of it. */
  function summary(game, payload, offer) {
    const parts = [];
    const name = (i) => TR.iso(houseName(game, i));
    const council = game.view.council;
    const what = {
      attack: () => t("crownui.do.attack", {house: name(payload.target)}),
      spy: () => t("crownui.do.spy", {house: name(payload.target)}),
      aid: () => t("crownui.do.aid", {house: name(payload.target)}),
      propose_alliance: () => t("crownui.do.propose_alliance", {house: name(payload.target)}),
      propose_conspiracy: () => t("crownui.do.propose_conspiracy", {house: name(payload.target)}),
      demand_hush: () => t("crownui.do.demand_hush", {house: name(payload.target)}),
      feast: () => t("crownui.do.feast", {option: t("crown.option." + payload.option), when: t("crown.when." + payload.when)}),
      banquet: () => t("crownui.do.banquet", {when: t("crown.when." + payload.when)}),
      debt_attack: () => t("crownui.do.debt_attack", {debtor: name(payload.debtor), house: name(payload.target)}),
      debt_take: () => t("crownui.do.debt_take", {debtor: name(payload.debtor)}),
      debt_vote: () => payload.choice === null ? t("crownui.do.debt_vote_abstain", {debtor: name(payload.debtor)})
        : t(council && council.kind === "judgment" ? "crownui.do.debt_vote_condemn" : "crownui.do.debt_vote",
          {debtor: name(payload.debtor), house: name(payload.choice)}),
      vote: () => payload.choice === null ? t("crownui.do.abstain")
        : council && council.kind === "judgment" ? t("crownui.do.vote_condemn", {house: name(payload.choice)})
          : t("crownui.do.vote", {house: name(payload.choice)}),
      veto: () => t("crownui.do.veto", {house: name(payload.replacement)}),
    }[payload.kind];
    parts.push(h("p", {class: "c-summary-what"}, what ? what() : t("crown.action." + payload.kind)));
    if (offer && offer.cost) parts.push(h("p", {class: "c-cost"}, t("crown.label.cost", {n: offer.cost})));
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
        h("button", {class: "primary big", id: "c-send", type: "button", onclick: () => {
          pick = {step: game.step, choice: null};
          act(payload);
        }}, t("crownui.confirm")),
        h("button", {class: "big", id: "c-change", type: "button", onclick: () => { pick.choice = null; redraw(); }}, t("crownui.change"))));
  }

  /* The choices an offer needs, one at a time; returns the panel for the next missing choice, or the payload. */
  function compose(game, offer, made) {
    const kind = offer.kind;
    const ask = (title, body) => h("section", {class: "c-compose", id: "c-compose"}, h("h3", null, title), body,
      h("button", {class: "c-back", id: "c-back", type: "button", onclick: () => { pick.choice = null; redraw(); }}, t("crownui.cancel")));
    const set = (field) => (value) => { pick.choice = Object.assign({}, made, {[field]: value}); redraw(); };
    const whenButtons = (options) => h("div", {class: "c-targets"}, options.map((w) =>
      choiceButton(t("crown.when." + w), () => set("when")(w), {"data-when": w})));
    if (kind === "feast") {
      if (made.option === undefined) {
        return ask(t("crown.action.feast"), h("div", {class: "c-targets"}, offer.options.map((o) =>
          choiceButton(t("crown.option." + o), () => set("option")(o), {"data-option": o}))));
      }
      if (made.when === undefined) return ask(t("crownui.when_title"), whenButtons(offer.when));
      return {kind, option: made.option, when: made.when};
    }
    if (kind === "banquet") {
      if (made.when === undefined) return ask(t("crown.action.banquet"), whenButtons(offer.when));
      return {kind, when: made.when};
    }
    if (kind === "debt_take") {
      if (made.debtor === undefined) return ask(t("crown.action.debt_take"), targetButtons(game, offer.debtors, set("debtor")));
      return {kind, debtor: made.debtor};
    }
    if (kind === "debt_vote") {
      if (made.choice === undefined) {
        return ask(t("crownui.debt_vote_for", {debtor: TR.iso(houseName(game, offer.debtor))}), targetButtons(game, offer.choices, set("choice")));
      }
      return {kind, debtor: offer.debtor, choice: made.choice};
    }
    if (kind === "debt_attack") {
      if (made.target === undefined) {
        return ask(t("crownui.debt_attack_for", {debtor: TR.iso(houseName(game, offer.debtor))}), targetButtons(game, offer.targets, set("target")));
      }
      return {kind, debtor: offer.debtor, target: made.target};
    }
    if (made.target === undefined) return ask(t("crown.action." + kind), targetButtons(game, offer.targets, set("target")));
    return {kind, target: made.target};
  }

  function offerLabel(game, offer) {
    if (offer.kind === "debt_vote") return t("crownui.offer.debt_vote", {debtor: TR.iso(houseName(game, offer.debtor))});
    if (offer.kind === "debt_attack") return t("crownui.offer.debt_attack", {debtor: TR.iso(houseName(game, offer.debtor))});
    return t("crown.action." + offer.kind);
  }

  function actionList(game, act) {
    const view = game.view;
    const offers = view.actions.map((offer, index) => ({offer, index})).filter((o) => o.offer.kind !== "done");
    const done = view.actions.find((a) => a.kind === "done");
    const list = offers.length ? h("section", {class: "c-actions scroll-region", id: "c-actions"},
      h("h3", null, t("crownui.you_may")),
      h("div", {class: "c-action-grid"}, offers.map(({offer, index}) => h("button", {class: "c-action", type: "button",
        "data-kind": offer.kind, "data-offer": index,
        onclick: () => { pick = {step: game.step, choice: {offer: {kind: offer.kind, debtor: offer.debtor}}}; redraw(); }},
      h("span", {class: "c-action-name"}, offerLabel(game, offer)),
      h("span", {class: "c-action-meta"}, offer.cost ? t("crown.label.cost", {n: offer.cost}) + t("crownui.sep") : "",
        offer.public ? t("crown.label.public") : t("crown.label.secret")))))) : null;
    const end = done ? h("button", {class: "c-done-button", id: "c-done", type: "button", onclick: () => act({kind: "done"})}, t("crown.action.done"))
      : view.phase === "day" && view.done ? h("p", {class: "muted c-note", id: "c-is-done"}, t("crownui.you_are_done")) : null;
    return [list, end];
  }

  function promptCard(game, prompt, act, more) {
    const body = [];
    const yesNo = (yes, no, make) => h("div", {class: "c-confirm-row"},
      h("button", {class: "primary big", type: "button", "data-answer": "yes", onclick: () => act(make(true))}, yes),
      h("button", {class: "big", type: "button", "data-answer": "no", onclick: () => act(make(false))}, no));
    const name = (i) => TR.iso(houseName(game, i));
    let title;
    if (prompt.kind === "alliance") {
      title = t("crown.prompt.alliance", {proposer: name(prompt.proposer)});
      body.push(yesNo(t("crown.label.accept"), t("crown.label.reject"), (b) => ({kind: "answer_alliance", proposer: prompt.proposer, accept: b})));
    } else if (prompt.kind === "conspiracy") {
      title = t("crown.prompt.conspiracy");
      body.push(h("p", {class: "c-note"}, t("crownui.conspiracy_note")));
      body.push(yesNo(t("crown.label.accept"), t("crown.label.reject"), (b) => ({kind: "answer_conspiracy", offer: prompt.offer, accept: b})));
    } else if (prompt.kind === "hush") {
      title = t("crown.prompt.hush", {demander: name(prompt.demander)});
      body.push(h("p", {class: "c-note"}, t("crownui.hush_note")));
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
      title = t("crown.prompt.veto", {condemned: name(prompt.condemned)});
      const chosen = pick.choice && pick.choice.veto !== undefined ? pick.choice.veto : undefined;
      const pass = h("button", {class: "c-choice", id: "c-pass", type: "button", onclick: () => act({kind: "pass"})}, t("crown.action.pass"));
      if (prompt.refused) body.push(h("p", {class: "c-warning"}, t("crown.log.veto_refused")));
      if (chosen !== undefined) {
        body.push(confirmPanel(game, {kind: "veto", replacement: chosen}, {cost: prompt.cost, public: true}, act));
      } else if (prompt.replacements.length && !prompt.refused) {
        body.push(targetButtons(game, prompt.replacements, (x) => { pick = {step: game.step, choice: {veto: x}}; redraw(); }, "veto", pass));
      } else {
        body.push(h("div", {class: "c-targets"}, pass));
      }
    }
    const own = prompt.deadline_ms !== null && prompt.deadline_ms !== undefined && prompt.deadline_ms !== game.deadline_ms;
    return h("section", {class: "c-prompt", "data-prompt": prompt.kind, role: "alert"},
      h("h3", null, title),
      own ? h("p", {class: "c-prompt-time"}, t("crownui.answer_within"), " ", clock(prompt.deadline_ms)) : null,
      body,
      more ? h("p", {class: "c-more"}, t("crownui.more_prompts", {n: more})) : null);
  }

  /* A latecomer asks to join the house ([11], CROWN-D2): any member lets them in or refuses (the room logs who let them
   * in). Shown above the house's own task; the next one follows once it is answered. */
  function askCard(ask, act, more) {
    const reply = (accept) => act(null, {request: ask.id, accept}, "house_answer");
    return h("section", {class: "c-prompt c-ask", id: "c-ask", "data-request": ask.id, role: "alert"},
      h("h3", null, t("crownui.asks_to_join", {name: TR.iso(ask.name)})),
      h("p", {class: "c-note"}, t("crownui.asks_note")),
      h("div", {class: "c-confirm-row"},
        h("button", {class: "primary big", type: "button", "data-answer": "let-in", onclick: () => reply(true)}, t("crownui.let_in")),
        h("button", {class: "big", type: "button", "data-answer": "refuse", onclick: () => reply(false)}, t("crownui.refuse_in"))),
      more ? h("p", {class: "c-more"}, t("crownui.more_prompts", {n: more})) : null);
  }

  /* A book section; a closed one has no content at all (closed content would still take part in the layout). */
  function details(name, title, content) {
    return h("details", {class: "c-details", id: "c-section-" + name, open: open[name],
      ontoggle: (e) => { if (open[name] !== e.target.open) { open[name] = e.target.open; redraw(); } }},
    h("summary", null, title), open[name] ? content() : null);
  }

  function books(game) {
    const view = game.view;
    const debts = view.debts;
    const name = (i) => TR.iso(houseName(game, i));
    const debtRows = [
      ...debts.owed_to_you.map((d) => h("li", null, t("crownui.owes_you", {house: name(d.house), n: d.count}))),
      ...debts.you_owe.map((d) => h("li", null, t("crownui.you_owe", {house: name(d.house), n: d.count})))];
    const seen = view.disclosures.slice().reverse().map((d) => h("li", null,
      t("crownui.seen", {house: name(d.house), n: d.prestige, day: TR.plain(d.day),
        point: t("crown.when." + d.point), source: t("crownui.source." + d.source)})));
    const chronicle = view.chronicle.slice().reverse().map((e) => h("li", {class: "c-entry", "data-key": e.key},
      dayChip(e.day), h("span", {class: "c-entry-text"}, entryText(game, e))));
    return h("div", {class: "c-book scroll-region", id: "c-book"},
      details("chronicle", t("crown.label.chronicle"), () => (chronicle.length ? h("ol", {class: "c-feed", id: "c-chronicle"}, chronicle)
        : h("p", {class: "muted"}, t("crownui.nothing_yet")))),
      details("debts", t("crownui.debts"), () => (debtRows.length ? h("ul", {class: "c-list", id: "c-debts"}, debtRows)
        : h("p", {class: "muted"}, t("crownui.no_debts")))),
      details("seen", t("crown.label.prestige_seen"), () => (seen.length ? h("ul", {class: "c-list", id: "c-seen"}, seen)
        : h("p", {class: "muted"}, t("crownui.nothing_seen")))),
      details("feed", t("crownui.news"), () => feedList(game, 40, "c-phone-feed")));
  }

  /* What the house does now, at the bottom of the screen: the first open prompt (the others follow), the action
   * being composed or confirmed, or the list of actions and "done". */
  function task(game, send) {
    const view = game.view;
    const out = [];
    if (game.aborted) return out;  /* the host ended the game: no prompt and no action is open any more */
    const wanted = pick.choice && pick.choice.offer;  /* the offer is found again by kind: the list may change meanwhile */
    const composing = wanted ? view.actions.find((a) => a.kind === wanted.kind && a.debtor === wanted.debtor) : null;
    if (composing) {
      const result = compose(game, composing, pick.choice);
      out.push(result instanceof Node ? result : confirmPanel(game, result, composing, send));
      return out;
    }
    if (view.prompts.length) out.push(promptCard(game, view.prompts[0], send, view.prompts.length - 1));
    if (view.actions.length || (view.phase === "day" && view.done)) out.push(...actionList(game, send));
    else if (!view.prompts.length && view.phase !== "over" && !game.aborted) {  /* an ended game waits for nothing */
      out.push(h("p", {class: "muted c-wait", id: "c-wait"}, t("crownui.wait." + view.phase)));
    }
    return out;
  }

  function phone(el, game, state, act, receivedAt) {
    const view = game.view;
    const me = view.houses[view.you];
    redraw = () => el.dispatchEvent(new Event("c-redraw"));
    if (pick.step !== game.step) pick = {step: game.step, choice: null};
    const send = (payload) => act(payload).then((answer) => { if (answer && answer.ok) pick = {step: game.step, choice: null}; return answer; });

    const draw = () => {
      const head = h("header", {class: "c-me", style: `--house: ${me.colour}`}, crest(me),
        h("div", {class: "c-me-text"}, h("p", {class: "c-me-name"}, t(me.name_key)),
          h("p", {class: "c-me-status"}, h("span", {class: "c-status c-" + view.status, id: "c-status"}, t("crown.status." + view.status)),
            h("span", {id: "c-crowns"}, "♛ ", crownCount(view.crowns)))),
        clock(game.deadline_ms));
      const phase = game.aborted ? null : h("p", {class: "c-phone-phase"},
        view.day > 0 ? t("crown.label.day", {number: TR.plain(view.day)}) + t("crownui.sep") : "", t(view.phase_key));
      const parts = [head, phase];
      if (view.winner !== null && view.winner !== undefined) {
        parts.push(h("p", {class: "c-winner c-phone-winner"}, house(game, view.winner), " ", t("crownui.wins")));
      }
      const asks = (state && state.house_requests && state.house_requests.asks) || [];
      parts.push(books(game), asks.length && !game.aborted ? askCard(asks[0], act, asks.length - 1) : null, ...task(game, send));
      el.replaceChildren(h("div", {class: "c-phone", style: `--house: ${me.colour}`}, parts));
      TR.tickCountdowns(state, receivedAt);  /* a redraw on the page shows its clocks at once */
    };
    el.addEventListener("c-redraw", draw);
    draw();
  }

  return {tv, phone, asks: true};  /* asks: the phone draws a latecomer's request itself (askCard) */
})();
