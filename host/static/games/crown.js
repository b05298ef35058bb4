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
  const WIN_CROWNS = 10;  /* CROWN-R76: the ruler wins with this many crowns */

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

  /* A vote reads in its council's words (issue 15): the view names each vote's council (params.council), and each
   * council has its own sentence (crown.log.vote.judgment condemns, crown.log.vote.transfer elects a ruler…). */
  function entryKey(entry) {
    const council = (entry.params || {}).council;
    return typeof council === "string" && TR.has(entry.key + "." + council) ? entry.key + "." + council : entry.key;
  }

  function entryText(game, entry) {
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
    return t(entryKey(entry), params);
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
          view.reign_day > 0 ? h("span", {class: "c-reign"}, t("crownui.reign", {day: TR.plain(view.reign_day)})) : null,
          /* the ruler's crowns: the game's score, read from the sofa (issue [18]) */
          h("span", {class: "c-ruler-crowns", id: "c-ruler-crowns", "data-role": "score"}, crownCount(view.ruler_crowns))));
  }

  function houseCard(game, state, i, landed) {
    const view = game.view;
    const data = view.houses[i];
    const pacts = view.pacts.filter((p) => p.includes(i)).map((p) => (p[0] === i ? p[1] : p[0]));
    /* R75: crown totals are public when announced (before a power council, and at the end); the ruler's always */
    const announced = view.crowns_announced && (view.crowns_announced.day === view.day || view.phase === "over")
      ? view.crowns_announced.crowns[i] : null;
    const crowns = view.ruler === i && view.phase !== "over" ? view.ruler_crowns : announced;
    const ruling = view.ruler === i;
    const bot = game.slots[i] ? game.slots[i].bot : data.bot;  /* the room's seat: a latecomer may have taken a bot's house */
    const hit = landed && landed.struck.has(i) ? " c-struck" : landed && landed.chosen.has(i) ? " c-chosen" : "";
    return h("li", {class: "c-card" + (ruling ? " ruling" : "") + (bot ? " bot" : "") + hit, "data-house": i,
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

  /* The council as it votes: each vote in its council's words (condemns, supports); the verdict large. After a veto
   * the house finally condemned is the verdict and the veto is told beneath it, as the story (issue 15). */
  function councilPanel(game, fresh) {
    const view = game.view;
    const council = view.council;
    if (!council) return null;
    const kind = council.kind;
    const votes = council.votes.map((v, n) => h("li", {class: "c-vote" + (n >= fresh ? " c-new" : ""), "data-voter": v.voter}, house(game, v.voter),
      h("span", {class: "c-verb" + (v.choice === null ? " c-abstain" : "")},
        t(v.choice === null ? "crownui.verb_none." + kind : "crownui.verb." + kind)),
      v.choice === null ? null : house(game, v.choice),
      v.forced_by === null || v.forced_by === undefined ? null
        : h("span", {class: "c-forced"}, t("crownui.forced_by", {house: TR.iso(houseName(game, v.forced_by))}))));
    const waiting = council.voters.filter((x) => !council.votes.some((v) => v.voter === x));
    const condemned = council.condemned;
    const final = council.final;
    const known = (x) => x !== null && x !== undefined;
    let verdict = null;
    if (council.vetoed && known(final)) {
      verdict = [h("p", {class: "c-verdict", id: "c-verdict", "data-house": final}, t("crownui.condemned"), " ", house(game, final)),
        h("p", {class: "c-veto-story", id: "c-veto-story"}, t("crownui.veto_story",
          {ruler: known(view.ruler) ? TR.iso(houseName(game, view.ruler)) : "", vetoed: TR.iso(houseName(game, condemned))}))];
    } else if (known(condemned)) {
      verdict = h("p", {class: "c-verdict", id: "c-verdict", "data-house": condemned}, t("crownui.condemned"), " ",
        house(game, condemned), view.phase === "veto" ? h("span", {class: "c-verdict-note"}, t("crownui.veto_pending")) : null);
    }
    return h("section", {class: "c-council", id: "c-council", "data-council": kind},
      h("h2", null, t("crownui.votes_title." + kind), council.round > 1 ? t("crownui.sep") + t("crownui.round", {n: TR.plain(council.round)}) : null),
      votes.length ? h("ol", {class: "c-votes", "data-role": "log"}, votes) : null,
      !known(final) && !game.aborted && !known(condemned) && waiting.length ? h("p", {class: "c-waiting"}, t("crownui.waiting_votes"), " ",
        waiting.map((x) => house(game, x))) : null,
      verdict);
  }

  function attacksPanel(game, fresh) {
    const attacks = game.view.attacks || [];
    if (!attacks.length) return null;
    return h("section", {class: "c-attacks", id: "c-attacks"}, h("h2", null, t("crownui.attacks_today")),
      h("ul", {"data-role": "log"}, attacks.map((a, n) => h("li", {class: "c-attack" + (n >= fresh ? " c-new" : "")}, house(game, a.attacker),
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
    const items = view.feed.map((entry, i) => ({entry, n: first + i})).slice(-count).reverse();
    return h("ol", {class: "c-feed scroll-region", id}, items.map((item) => h("li", {class: "c-entry" + (item.n >= fresh ? " new" : ""),
      "data-key": entryKey(item.entry), "data-role": highlight ? "log" : null}, dayChip(item.entry.day), h("span", {class: "c-entry-text"}, entryText(game, item.entry)))));
  }

  /* What the TV drew last (issue [18]: a play lands on the board once): how many of today's attacks and of the
   * sitting council's votes it has shown. A new attack lands on its target's card (it shakes), a new vote on the
   * card of the house it names (it glows); a redraw of the same state, or the first drawing of a page, replays
   * nothing. */
  let seenPlays = null;

  function freshPlays(game) {
    const view = game.view;
    const attacks = (view.attacks || []).length;
    const council = view.council ? [view.day, view.council.kind, view.council.round].join(":") : null;
    const now = {game: game.slots.map((s) => s.seat).join(","), day: view.day, attacks, council,
      votes: view.council ? view.council.votes.length : 0};
    const before = seenPlays;
    seenPlays = now;
    if (!before || before.game !== now.game) return {attacks, votes: now.votes};
    return {attacks: before.day === now.day ? Math.min(before.attacks, attacks) : 0,
      votes: before.council === council ? Math.min(before.votes, now.votes) : 0};
  }

  function landed(game, fresh) {
    const view = game.view;
    const struck = new Set((view.attacks || []).slice(fresh.attacks).map((a) => a.target));
    const chosen = new Set(view.council ? view.council.votes.slice(fresh.votes).map((v) => v.choice).filter((x) => x !== null) : []);
    return {struck, chosen};
  }

  function tv(el, game, state, receivedAt) {
    const view = game.view;
    if (view.feed_total) TR.sound && TR.sound.cue("card", view.feed_total);  /* an action played: one cue per line of news */
    const key = game.slots.map((s) => s.seat).join(",") + view.rulers.length;
    if (seenFeed.game !== key && seenFeed.total > view.feed_total) seenFeed = {game: key, total: 0};
    const feed = feedList(game, 25, "c-feed", true);
    seenFeed = {game: key, total: view.feed_total};
    const over = view.phase === "over";
    const fresh = freshPlays(game);
    const lands = landed(game, fresh);
    const winner = view.winner === null || view.winner === undefined ? null
      : h("p", {class: "c-winner", id: "c-winner"}, house(game, view.winner), " ", t("crownui.wins"),
        view.reason ? h("span", {class: "c-reason"}, t("outcome.crown." + view.reason)) : null);
    el.append(h("div", {class: "c-tv" + (over ? " over" : "")},
      h("ul", {class: "c-cards", id: "c-cards"}, view.houses.map((_, i) => houseCard(game, state, i, lands))),
      h("div", {class: "c-centre"}, banner(game), winner, councilPanel(game, fresh.votes), attacksPanel(game, fresh.attacks),
        h("section", {class: "c-feed-box"}, h("h2", null, t("crownui.news")), feed))));
  }

  /* ----- the rules at hand (issue 15): a short illustrated explanation (TR.rulesSheet, on the TV and every phone)
   * and one paragraph for each action and prompt (the ⓘ beside it). From docs/rules/crown.md. ----- */

  const MARKS = {ruler: "M6.5 16 L5.5 8.5 L9.5 11 L12 6.5 L14.5 11 L18.5 8.5 L17.5 16 Z", loyal: "M7.5 12.5 L10.5 15.5 L16.5 8.5",
    enemy: "M8.5 8.5 L15.5 15.5 M15.5 8.5 L8.5 15.5"};

  /* A house of a status, drawn: a shield in the status's colour with its mark (the ruler's crown, a tick, a cross). */
  function shield(status) {
    return h("svg", {class: "c-shield c-" + status, viewBox: "0 0 24 24", "aria-hidden": "true"},
      h("path", {class: "c-shield-body", d: "M12 1.5 L21.5 4.5 V11 C21.5 16.8 17.6 20.8 12 22.8 C6.4 20.8 2.5 16.8 2.5 11 V4.5 Z"}),
      h("path", {class: "c-shield-mark", d: MARKS[status]}));
  }

  function chip(status) {
    return h("span", {class: "c-chip c-" + status}, shield(status), h("span", null, t("crown.status." + status)));
  }

  /* A figure: pairs of statuses joined by a mark (= same front, ≠ opposing, ⚔ an attack), and what it means. */
  function figure(pairs, mark, text, warning) {
    return h("div", {class: "c-fig" + (warning ? " c-fig-warn" : "")},
      h("span", {class: "c-fig-pairs"}, pairs.map(([a, b]) => h("span", {class: "c-fig-pair"}, chip(a),
        h("span", {class: "c-fig-mark", "aria-hidden": "true"}, mark), chip(b)))),
      h("span", {class: "c-fig-text"}, text));
  }

  function part(id, title, ...body) {
    return h("section", {class: "c-rules-part", id: "c-rules-" + id}, h("h3", null, title), body);
  }

  const ACTION_KINDS = ["attack", "spy", "feast", "banquet", "aid", "propose_alliance", "propose_conspiracy", "demand_hush",
    "debt_attack", "debt_take", "debt_vote", "done"];

  function rules() {
    const p = (key) => h("p", null, t(key));
    const items = (keys) => h("ul", {class: "c-rules-list"}, keys.map((key) => h("li", null, t(key))));
    return h("div", {class: "c-rules", id: "c-rules"},
      part("statuses", t("crownui.rules.statuses_title"),
        h("div", {class: "c-fig-row"}, chip("ruler"), chip("loyal"), chip("enemy")), p("crownui.rules.statuses")),
      part("fronts", t("crownui.rules.fronts_title"),
        figure([["loyal", "loyal"], ["loyal", "ruler"], ["enemy", "enemy"]], "=", t("crownui.rules.same_front")),
        figure([["loyal", "enemy"], ["ruler", "enemy"]], "≠", t("crownui.rules.opposing"))),
      part("attacks", t("crownui.rules.attacks_title"),
        figure([["loyal", "loyal"]], "⚔", t("crownui.rules.attack_same")),
        figure([["enemy", "loyal"]], "⚔", t("crownui.rules.attack_opposing")),
        figure([["loyal", "ruler"]], "⚔", t("crownui.rules.attack_treason"), true),
        figure([["ruler", "loyal"]], "⚔", t("crownui.rules.attack_by_ruler")),
        p("crownui.rules.attacks")),
      part("feasts", t("crownui.rules.feasts_title"), p("crownui.rules.feast"),
        items(["crownui.rules.feast_a", "crownui.rules.feast_b"]), p("crownui.rules.banquet")),
      part("treason", t("crownui.rules.treason_title"), p("crownui.rules.treason"),
        items(["crownui.rules.treason_attack", "crownui.rules.treason_spy", "crownui.rules.treason_vote",
          "crownui.rules.treason_hush", "crownui.rules.treason_conspiracy", "crownui.rules.treason_veto"]),
        p("crownui.rules.loyal_again")),
      part("councils", t("crownui.rules.councils_title"), p("crownui.rules.judgment"), p("crownui.rules.veto"),
        p("crownui.rules.transfer")),
      part("crowns", t("crownui.rules.crowns_title"), p("crownui.rules.crowns")),
      part("actions", t("crownui.rules.actions_title"), h("dl", {class: "c-rules-actions"}, ACTION_KINDS.map((kind) =>
        [h("dt", null, t("crown.action." + kind)), h("dd", null, t("crownui.info." + kind))]))));
  }

  /* The ⓘ beside an action or a prompt: its one paragraph. */
  function info(title, key) {
    return TR.infoButton(title, () => [t(key)], {"data-info": key.slice("crownui.info.".length)});
  }

  /* ----- phone ----- */

  let pick = {step: null, choice: null};  /* the action being composed, kept across redraws of the same step */
  const open = {night: true, today: true, chronicle: true, debts: true, seen: true, feed: false};
  let redraw = () => {};
  /* A teammate's action took what this phone was composing (issue 15): who, told until this phone starts another. */
  let notice = null;
  let actedSeen = null;  /* the house's count of actions taken, as of the last drawing */

  function choose(choice) {
    pick.choice = choice;
    notice = null;
    redraw();
  }

  function choiceButton(label, onclick, extra) {
    return h("button", Object.assign({class: "c-choice", type: "button", onclick}, extra || {}), label);
  }

  /* Houses to choose; in a council each button says what the vote does (condemn, support: verbs.house), and
   * abstaining says what it means (verbs.none). */
  function targetButtons(game, targets, chosen, name, extra, verbs) {
    const label = (x) => {
      if (x === null) return verbs ? verbs.none : t("crown.label.abstain");
      return verbs ? [h("span", {class: "c-verb"}, verbs.house), house(game, x)] : house(game, x);
    };
    return h("div", {class: "c-targets c-houses", role: "group"}, targets.map((x) => choiceButton(label(x),
      () => { chosen(x); }, {"data-target": x === null ? "none" : x,
        "aria-label": x === null ? (verbs ? verbs.none : t("crown.label.abstain")) : (verbs ? verbs.house + " " : "") + houseName(game, x),
        "data-name": name})), extra || null);
  }

  function councilVerbs(kind) {
    return {house: t("crownui.vote_button." + kind), none: t("crownui.vote_none." + kind)};
  }

  /* What an action does to the game, said before it is sent (issue 15): its consequence, and a warning when it is
   * treason for this house (CROWN-R34 attack, R48 spying, R21 a vote, R56 a conspiracy, R61 defecting). */
  function consequences(game, payload) {
    const view = game.view;
    const name = (i) => TR.iso(houseName(game, i));
    const loyal = view.status === "loyal";
    const ruler = view.ruler;
    const council = view.council ? view.council.kind : null;
    const out = [];
    const say = (key, params, warning) => out.push({key, params: params || {}, warning: !!warning});
    switch (payload.kind) {
      case "attack":
        if (payload.target === ruler && loyal) say("crownui.warn.treason_attack", {}, true);
        say(view.status === "ruler" ? "crownui.effect.attack_by_ruler" : "crownui.effect.attack");
        break;
      case "spy":
        if (payload.target === ruler && loyal) say("crownui.warn.treason_spy", {}, true);
        say("crownui.effect.spy");
        break;
      case "feast": say("crownui.effect.feast_" + payload.option); break;
      case "banquet": say("crownui.effect.banquet"); break;
      case "aid": say("crownui.effect.aid"); break;
      case "propose_alliance": say("crownui.effect.propose_alliance"); break;
      case "propose_conspiracy": say("crownui.effect.propose_conspiracy"); break;
      case "demand_hush": say("crownui.effect.demand_hush"); break;
      case "debt_attack": say("crownui.effect.debt_attack"); break;
      case "debt_take": say("crownui.effect.debt_take"); break;
      case "debt_vote": say("crownui.effect.debt_vote"); break;
      case "vote":
        if (council === "judgment" && payload.choice !== null && payload.choice === ruler && loyal) say("crownui.warn.treason_vote", {}, true);
        say(council === "judgment" ? "crownui.effect.vote_judgment" : "crownui.effect.vote_power");
        break;
      case "veto": say("crownui.effect.veto", {house: name(payload.replacement)}); break;
      case "pass": say("crownui.effect.pass"); break;
      case "answer_alliance": say(payload.accept ? "crownui.effect.alliance_accept" : "crownui.effect.alliance_reject", {house: name(payload.proposer)}); break;
      case "answer_conspiracy": say(payload.accept ? "crownui.effect.conspiracy_accept" : "crownui.effect.conspiracy_reject", {}, payload.accept && loyal); break;
      case "answer_hush": say(payload.pay ? "crownui.effect.hush_pay" : "crownui.effect.hush_refuse", {house: name(payload.demander)}); break;
      case "react": say(payload.defect ? "crownui.effect.defect" : "crownui.effect.stay", {}, payload.defect); break;
      default: break;
    }
    return out;
  }

  /* The summary shown before an action is sent: what it does, what it costs, who learns of it, what follows. */
  function summary(game, payload, offer) {
    const parts = [];
    const name = (i) => TR.iso(houseName(game, i));
    const council = game.view.council;
    const kind = council ? council.kind : "judgment";
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
      debt_vote: () => (payload.choice === null ? t("crownui.do.debt_abstain." + kind, {debtor: name(payload.debtor)})
        : t("crownui.do.debt_vote." + kind, {debtor: name(payload.debtor), house: name(payload.choice)})),
      vote: () => (payload.choice === null ? t("crownui.do.abstain." + kind) : t("crownui.do.vote." + kind, {house: name(payload.choice)})),
      veto: () => t("crownui.do.veto", {house: name(payload.replacement)}),
      pass: () => t("crownui.do.pass"),
      answer_alliance: () => t(payload.accept ? "crownui.do.alliance_accept" : "crownui.do.alliance_reject", {house: name(payload.proposer)}),
      answer_conspiracy: () => t(payload.accept ? "crownui.do.conspiracy_accept" : "crownui.do.conspiracy_reject"),
      answer_hush: () => t(payload.pay ? "crownui.do.hush_pay" : "crownui.do.hush_refuse", {house: name(payload.demander)}),
      react: () => t(payload.defect ? "crownui.do.defect" : "crownui.do.stay"),
    }[payload.kind];
    parts.push(h("p", {class: "c-summary-what"}, what ? what() : t("crown.action." + payload.kind)));
    for (const c of consequences(game, payload)) {
      parts.push(h("p", c.warning ? {class: "c-warning", role: "alert", "data-warning": c.key.split(".").pop()}
        : {class: "c-effect", "data-effect": c.key.split(".").pop()}, t(c.key, c.params)));
    }
    if (offer && offer.cost) parts.push(h("p", {class: "c-cost"}, t("crown.label.cost", {n: offer.cost})));
    if (offer && offer.public !== undefined) {
      const note = offer.public && offer.secret && offer.secret.length ? "crownui.partly_secret_note"  /* a feast: A13 */
        : offer.public ? "crownui.public_note" : "crownui.secret_note";
      parts.push(h("p", {class: offer.public ? "c-public" : "c-secret"}, t(note)));
    }
    parts.push(h("p", {class: "c-final"}, t("crownui.final")));
    return parts;
  }

  function confirmPanel(game, payload, offer, act, back) {
    return h("section", {class: "c-confirm", id: "c-confirm", "data-kind": payload.kind},
      h("div", {class: "c-summary scroll-region"}, summary(game, payload, offer)),  /* long on a small phone: it scrolls */
      h("div", {class: "c-confirm-row"},
        h("button", {class: "primary big", id: "c-send", type: "button", onclick: () => {
          pick = {step: game.step, choice: null};
          act(payload);
        }}, t("crownui.confirm")),
        h("button", {class: "big", id: "c-change", type: "button", onclick: back || (() => choose(null))}, t("crownui.back"))));
  }

  /* The choices an offer needs, one at a time; returns the panel for the next missing choice, or the payload. */
  function compose(game, offer, made) {
    const kind = offer.kind;
    const ask = (title, body) => h("section", {class: "c-compose", id: "c-compose"},
      h("div", {class: "c-head-row"}, h("h3", null, title), info(offerLabel(game, offer), "crownui.info." + kind)), body,
      h("button", {class: "c-back", id: "c-back", type: "button", onclick: () => choose(null)}, t("crownui.cancel")));
    const set = (field) => (value) => choose(Object.assign({}, made, {[field]: value}));
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
        const council = game.view.council ? game.view.council.kind : "judgment";
        return ask(t("crownui.debt_vote_for", {debtor: TR.iso(houseName(game, offer.debtor))}),
          targetButtons(game, offer.choices, set("choice"), null, null, councilVerbs(council)));
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

  /* The actions of the day, each with its ⓘ; the ruler's aid marked as required (CROWN-R59), a Banquet that an attack
   * has already voided shown but not offered (CROWN-R45, A16: certain to be void). */
  function actionList(game, act) {
    const view = game.view;
    const offers = view.actions.map((offer, index) => ({offer, index})).filter((o) => o.offer.kind !== "done");
    const done = view.actions.find((a) => a.kind === "done");
    const meta = (offer) => {
      if (offer.void) return t("crownui.banquet_void");
      return [offer.cost ? t("crown.label.cost", {n: offer.cost}) + t("crownui.sep") : "",
        offer.public ? t("crown.label.public") : t("crown.label.secret")];
    };
    const list = offers.length ? h("section", {class: "c-actions scroll-region", id: "c-actions"},
      h("h3", null, t("crownui.you_may")),
      h("div", {class: "c-action-grid"}, offers.map(({offer, index}) => h("div", {class: "c-action-cell"},
        h("button", {class: "c-action" + (offer.mandatory ? " c-mandatory" : ""), type: "button", "data-kind": offer.kind,
          "data-offer": index, disabled: !!offer.void, "data-void": offer.void ? "" : null,
          onclick: () => { pick = {step: game.step, choice: null}; choose({offer: {kind: offer.kind, debtor: offer.debtor}}); }},
        h("span", {class: "c-action-name"}, offerLabel(game, offer)),
        offer.mandatory ? h("span", {class: "c-required", id: "c-required"}, t("crownui.required")) : null,
        h("span", {class: "c-action-meta"}, meta(offer))),
        info(offerLabel(game, offer), "crownui.info." + offer.kind))))) : null;
    const end = done ? h("button", {class: "c-done-button", id: "c-done", type: "button", onclick: () => act({kind: "done"})}, t("crown.action.done"))
      : view.phase === "day" && view.done ? h("p", {class: "muted c-note", id: "c-is-done"}, t("crownui.you_are_done")) : null;
    return [list, end];
  }

  /* The answer a prompt is waiting for: the payload of a yes or a no. */
  function answerPayload(prompt, yes) {
    switch (prompt.kind) {
      case "alliance": return {kind: "answer_alliance", proposer: prompt.proposer, accept: yes};
      case "conspiracy": return {kind: "answer_conspiracy", offer: prompt.offer, accept: yes};
      case "hush": return {kind: "answer_hush", demander: prompt.demander, pay: yes};
      case "reaction": return {kind: "react", defect: yes};
      default: return null;
    }
  }

  /* Whether an answer being confirmed still answers an open prompt. */
  function promptOf(view, answer) {
    return view.prompts.find((p) => {
      if (answer.kind === "pass") return p.kind === "veto";
      const again = answerPayload(p, true);
      return again && again.kind === answer.kind && Object.keys(again).every((k) =>
        ["accept", "pay", "defect"].includes(k) || again[k] === answer[k]);
    });
  }

  function promptCard(game, prompt, act, more) {
    const body = [];
    const answering = pick.choice && pick.choice.answer && promptOf(game.view, pick.choice.answer) === prompt ? pick.choice.answer : null;
    /* An answer cannot be taken back: a tap chooses it, a second tap confirms it, after its consequence is told. */
    const yesNo = (yes, no) => h("div", {class: "c-confirm-row"},
      h("button", {class: "primary big", type: "button", "data-answer": "yes", onclick: () => choose({answer: answerPayload(prompt, true)})}, yes),
      h("button", {class: "big", type: "button", "data-answer": "no", onclick: () => choose({answer: answerPayload(prompt, false)})}, no));
    const name = (i) => TR.iso(houseName(game, i));
    const publicOf = (answer) => ({public: answer.kind === "answer_alliance" || answer.kind === "pass"});
    let title;
    let infoKey = "crownui.info.prompt_" + prompt.kind;
    if (prompt.kind === "alliance") {
      title = t("crown.prompt.alliance", {proposer: name(prompt.proposer)});
      body.push(answering ? confirmPanel(game, answering, publicOf(answering), act) : yesNo(t("crown.label.accept"), t("crown.label.reject")));
    } else if (prompt.kind === "conspiracy") {
      title = t("crown.prompt.conspiracy");
      body.push(answering ? confirmPanel(game, answering, publicOf(answering), act)
        : [h("p", {class: "c-note"}, t("crownui.conspiracy_note")), yesNo(t("crown.label.accept"), t("crown.label.reject"))]);
    } else if (prompt.kind === "hush") {
      title = t("crown.prompt.hush", {demander: name(prompt.demander)});
      body.push(answering ? confirmPanel(game, answering, publicOf(answering), act)
        : [h("p", {class: "c-note"}, t("crownui.hush_note")), yesNo(t("crown.label.pay"), t("crown.label.refuse"))]);
    } else if (prompt.kind === "reaction") {
      title = t("crown.prompt.reaction");
      body.push(answering ? confirmPanel(game, answering, publicOf(answering), act) : yesNo(t("crown.label.defect"), t("crown.label.stay")));
    } else if (prompt.kind === "vote") {
      title = t("crownui.vote_title." + prompt.council);
      infoKey = "crownui.info.vote_" + prompt.council;
      const chosen = pick.choice && pick.choice.vote !== undefined ? pick.choice.vote : undefined;
      if (chosen === undefined) {
        body.push(targetButtons(game, prompt.choices, (x) => { pick = {step: game.step, choice: null}; choose({vote: x}); }, "vote", null,
          councilVerbs(prompt.council)));
      } else {
        body.push(confirmPanel(game, {kind: "vote", choice: chosen}, {public: true}, act));
      }
    } else if (prompt.kind === "veto") {
      title = t("crown.prompt.veto", {condemned: name(prompt.condemned)});
      const chosen = pick.choice && pick.choice.veto !== undefined ? pick.choice.veto : undefined;
      const pass = h("button", {class: "c-choice", id: "c-pass", type: "button", onclick: () => choose({answer: {kind: "pass"}})}, t("crown.action.pass"));
      if (prompt.refused) body.push(h("p", {class: "c-warning"}, t("crown.log.veto_refused")));
      if (answering) {
        body.push(confirmPanel(game, answering, publicOf(answering), act));
      } else if (chosen !== undefined) {
        body.push(confirmPanel(game, {kind: "veto", replacement: chosen}, {cost: prompt.cost, public: true}, act));
      } else if (prompt.replacements.length && !prompt.refused) {
        body.push(targetButtons(game, prompt.replacements, (x) => { pick = {step: game.step, choice: null}; choose({veto: x}); }, "veto", pass));
      } else {
        body.push(h("div", {class: "c-targets"}, pass));
      }
    }
    const own = prompt.deadline_ms !== null && prompt.deadline_ms !== undefined && prompt.deadline_ms !== game.deadline_ms;
    return h("section", {class: "c-prompt", "data-prompt": prompt.kind, role: "alert"},
      h("div", {class: "c-head-row"}, h("h3", null, title), info(title, infoKey)),
      own ? h("p", {class: "c-prompt-time"}, t("crownui.answer_within"), " ", clock(prompt.deadline_ms)) : null,
      body,
      more && !answering ? h("p", {class: "c-more"}, t("crownui.more_prompts", {n: more})) : null);
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

  /* What the house is trying to achieve (issue [18]), by its status (CROWN-R73, R74, R76, R20, R37) and the room's
   * last day (CROWN-D6): the first line of the house's books, right under the house (in the region that scrolls, so
   * that a prompt and its buttons keep their room on a small phone); its ⓘ tells how (the crowns of a reign, how a
   * ruler falls). */
  function goalLine(game) {
    const view = game.view;
    if (game.aborted || view.phase === "over") return null;
    const key = view.phase === "initial" || view.ruler === null || view.ruler === undefined ? "initial" : view.status;
    const text = t("crownui.goal." + key, {win: WIN_CROWNS, crowns: view.crowns})
      + (view.last_day ? " " + t("crownui.goal.last_day", {day: TR.plain(view.last_day)}) : "");
    return h("div", {class: "c-goal-row"}, h("p", {class: "c-goal", id: "c-goal", "data-goal": key}, text),
      TR.infoButton(t("crownui.goal.title"), () => [t("crownui.goal.how." + key)], {"data-info": "goal"}));
  }

  /* What happened to the house overnight (issue [18]): the night's public outcomes and what named the house, then
   * what only the house knows (the view's ``overnight``, engine/crown/game.py house_overnight). */
  function nightList(game) {
    const night = game.view.overnight;
    const rows = (list) => list.map((e) => h("li", {class: "c-entry", "data-key": entryKey(e)},
      h("span", {class: "c-entry-text"}, entryText(game, e))));
    if (!night.public.length && !night.secret.length) return h("p", {class: "muted"}, t("crownui.night.nothing"));
    return h("div", {id: "c-night"},
      night.public.length ? [h("h4", {class: "c-today-head"}, t("crownui.night.public")),
        h("ol", {class: "c-feed", id: "c-night-public"}, rows(night.public))] : null,
      night.secret.length ? [h("h4", {class: "c-today-head c-secret"}, t("crownui.night.secret")),
        h("ol", {class: "c-feed", id: "c-night-secret"}, rows(night.secret))] : null);
  }

  /* A book section; a closed one has no content at all (closed content would still take part in the layout). */
  function details(name, title, content) {
    return h("details", {class: "c-details", id: "c-section-" + name, open: open[name],
      ontoggle: (e) => { if (open[name] !== e.target.open) { open[name] = e.target.open; redraw(); } }},
    h("summary", null, title), open[name] ? content() : null);
  }

  /* "Your house today" (issue 15): what the house did today and what was done to it, newest first: what everyone
   * saw, then what only the house knows (the view keeps the two apart). */
  function todayList(game) {
    const today = game.view.today_log || {public: [], secret: []};
    const rows = (list) => list.slice().reverse().map((e) => h("li", {class: "c-entry", "data-key": entryKey(e)},
      h("span", {class: "c-entry-text"}, entryText(game, e))));
    if (!today.public.length && !today.secret.length) return h("p", {class: "muted", id: "c-today-empty"}, t("crownui.today_nothing"));
    return h("div", {id: "c-today"},
      today.public.length ? [h("h4", {class: "c-today-head"}, t("crownui.today_public")),
        h("ol", {class: "c-feed", id: "c-today-public"}, rows(today.public))] : null,
      today.secret.length ? [h("h4", {class: "c-today-head c-secret"}, t("crownui.today_secret")),
        h("ol", {class: "c-feed", id: "c-today-secret"}, rows(today.secret))] : null);
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
    const night = view.overnight && !game.aborted
      ? details("night", t("crownui.night.title", {day: TR.plain(view.overnight.day)}), () => nightList(game)) : null;
    if (night) night.id = "c-overnight";
    return h("div", {class: "c-book scroll-region", id: "c-book"}, goalLine(game), night,
      details("today", t("crownui.today"), () => todayList(game)),
      details("chronicle", t("crown.label.chronicle"), () => (chronicle.length ? h("ol", {class: "c-feed", id: "c-chronicle"}, chronicle)
        : h("p", {class: "muted"}, t("crownui.nothing_yet")))),
      details("debts", t("crownui.debts"), () => (debtRows.length ? h("ul", {class: "c-list", id: "c-debts"}, debtRows)
        : h("p", {class: "muted"}, t("crownui.no_debts")))),
      details("seen", t("crown.label.prestige_seen"), () => (seen.length ? h("ul", {class: "c-list", id: "c-seen"}, seen)
        : h("p", {class: "muted"}, t("crownui.nothing_seen")))),
      details("feed", t("crownui.news"), () => feedList(game, 40, "c-phone-feed")));
  }

  /* Whether what the phone is composing is still open in this view. */
  function stillOpen(view, choice) {
    if (choice.offer) return view.actions.some((a) => a.kind === choice.offer.kind && a.debtor === choice.offer.debtor && !a.void);
    if (choice.answer) return !!promptOf(view, choice.answer);
    if (choice.vote !== undefined) return view.prompts.some((p) => p.kind === "vote");
    if (choice.veto !== undefined) return view.prompts.some((p) => p.kind === "veto");
    return false;
  }

  /* What the house does now, at the bottom of the screen: the first open prompt (the others follow), the action
   * being composed or confirmed, or the list of actions and "done". */
  function task(game, send) {
    const view = game.view;
    const out = [];
    if (game.aborted) return out;  /* the host ended the game: no prompt and no action is open any more */
    const wanted = pick.choice && pick.choice.offer;  /* the offer is found again by kind: the list may change meanwhile */
    const composing = wanted ? view.actions.find((a) => a.kind === wanted.kind && a.debtor === wanted.debtor && !a.void) : null;
    if (composing) {
      const result = compose(game, composing, pick.choice);
      out.push(result instanceof Node ? result : confirmPanel(game, result, composing, send, () => {
        const back = Object.assign({}, pick.choice);  /* one step back: the last choice made is asked again */
        for (const field of ["when", "target", "choice", "debtor"]) {
          if (back[field] !== undefined && (field !== "debtor" || composing.kind === "debt_take")) { delete back[field]; break; }
        }
        choose(back);
      }));
      return out;
    }
    const answering = pick.choice && pick.choice.answer ? promptOf(view, pick.choice.answer) : null;
    const first = answering || view.prompts[0];
    if (first) out.push(promptCard(game, first, send, view.prompts.length - 1));
    const confirming = first && pick.choice && (answering || pick.choice.vote !== undefined || pick.choice.veto !== undefined);
    if (confirming) return out;  /* an answer being confirmed has the screen to itself; Back shows the rest again */
    if (view.actions.length || (view.phase === "day" && view.done)) out.push(...actionList(game, send));
    else if (!view.prompts.length && view.phase !== "over" && !game.aborted) {  /* an ended game waits for nothing */
      out.push(h("p", {class: "muted c-wait", id: "c-wait"}, t("crownui.wait." + view.phase)));
    }
    return out;
  }

  /* A teammate acted for the house while this phone was composing, and what it composed is gone (issue 15): say who
   * (CROWN-D2: the first valid action wins), instead of letting the panel vanish. */
  function noticeTeammate(game, state) {
    const acted = game.acted;
    const count = acted ? acted.count : 0;
    const fresh = actedSeen !== null && count > actedSeen;
    actedSeen = count;
    const me = state && state.me ? state.me.id : null;
    if (!fresh || !pick.choice || acted.by === me || acted.by === null || acted.by === undefined) return;
    if (pick.step === game.step && stillOpen(game.view, pick.choice)) return;
    const names = TR.namesOf(state, [acted.by]);
    notice = {step: game.step, name: names.length ? names[0] : null};
    pick = {step: game.step, choice: null};
  }

  function phone(el, game, state, act, receivedAt) {
    const view = game.view;
    const me = view.houses[view.you];
    redraw = () => el.dispatchEvent(new Event("c-redraw"));
    noticeTeammate(game, state);
    if (pick.step !== game.step) pick = {step: game.step, choice: null};
    if (notice && notice.step !== game.step) notice = null;
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
      const told = notice ? h("p", {class: "c-teammate", id: "c-teammate", role: "status"},
        notice.name ? t("crownui.teammate_did", {name: notice.name}) : t("crownui.teammate_did_someone")) : null;
      parts.push(books(game), asks.length && !game.aborted ? askCard(asks[0], act, asks.length - 1) : null, told, ...task(game, send));
      el.replaceChildren(h("div", {class: "c-phone", style: `--house: ${me.colour}`}, parts));
      TR.tickCountdowns(state, receivedAt);  /* a redraw on the page shows its clocks at once */
    };
    el.addEventListener("c-redraw", draw);
    draw();
  }

  return {tv, phone, rules, asks: true};  /* asks: the phone draws a latecomer's request itself (askCard) */
})();
