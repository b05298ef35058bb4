/* The classic Quiz (issue [12]) on the TV and on the phone. Views come from engine/quiz/game.py
 * (docs/quiz.md, the contract in the view's shape); nothing here decides anything.
 *
 * TV: the question large (with its picture beside it), the options as coloured tiles that also carry a shape and a
 * letter (colour is never the only cue), the countdown ring, who has answered; then the reveal (the right option,
 * a bar per option with how many picked it, each player's points), the leaderboard with each player's movement, and
 * at the end a podium and every player's statistics. In host-paced mode the host's TV shows a big Next button.
 * Phone: the same tiles (with the option's text: the phone may be far from the TV), or the campaign's keypad for a
 * number; "Answer locked in"; then right or wrong, the points, the streak and the place. Spectators play along with
 * the audience (host/audience.py) on the same controls.
 *
 * Numbers go through TR.num in the page's language; prompts and options come from packs in their own language and
 * are marked data-verbatim; names that players typed go in a <bdi> or, in a sentence, through TR.iso. */
"use strict";

TR.games.quiz = (() => {
  const {t, h, num, iso, localized} = TR;
  const onPhone = () => document.body.classList.contains("phone");

  /* The options' tiles: colour, a shape and a letter together (colour-blind safe). Dark text on light tiles. */
  const TILES = [
    {colour: "#d0243f", text: "#ffffff", shape: "triangle"},
    {colour: "#1c64c8", text: "#ffffff", shape: "diamond"},
    {colour: "#e0a800", text: "#111111", shape: "circle"},
    {colour: "#2f8a17", text: "#ffffff", shape: "square"},
    {colour: "#8a4fc4", text: "#ffffff", shape: "star"},
    {colour: "#12a6a6", text: "#111111", shape: "hexagon"},
  ];
  const TEAM_COLOURS = ["#e8743b", "#3fb7d9", "#c55fd6", "#9ccc3a"];

  function shape(name) {
    const drawn = {
      triangle: h("polygon", {points: "12,2 23,21 1,21"}),
      diamond: h("polygon", {points: "12,1 23,12 12,23 1,12"}),
      circle: h("circle", {cx: 12, cy: 12, r: 10.5}),
      square: h("rect", {x: 2.5, y: 2.5, width: 19, height: 19, rx: 2}),
      star: h("polygon", {points: "12,1 15,9 23,9 17,14 19,22 12,17 5,22 7,14 1,9 9,9"}),
      hexagon: h("polygon", {points: "6,2 18,2 23,12 18,22 6,22 1,12"}),
    }[name];
    drawn.setAttribute("fill", "currentColor");
    return h("svg", {viewBox: "0 0 24 24", class: "quiz-shape", "aria-hidden": "true"}, drawn);
  }

  const tile = (i) => TILES[i % TILES.length];
  const tileStyle = (i) => `--tile: ${tile(i).colour}; --tile-text: ${tile(i).text}`;

  /* An option's mark: its shape and letter, as on every tile. */
  function optionMark(i) {
    return h("span", {class: "quiz-mark"}, shape(tile(i).shape), h("span", {class: "quiz-letter"}, TR.letter(i)));
  }

  function optionText(o) {
    return h("span", {class: "quiz-option-text", dir: "auto", "data-verbatim": ""}, localized(o));
  }

  function prompt(q, extra) {
    return h("p", {class: "quiz-prompt" + (extra ? " " + extra : ""), dir: "auto", "data-verbatim": ""}, localized(q.prompt));
  }

  const nameOf = (game, slot) => TR.seatName(game, slot);
  const playerOf = (view, slot) => view.players.find((p) => p.slot === slot) || {slot, score: 0, streak: 0};

  function countLine(view) {
    return t("quiz.question_n", {i: view.index + 1, n: view.total});
  }

  /* A number answer with its unit, if the question has one ("8,848 m"). */
  function withUnit(q, value) {
    const unit = q && q.unit ? localized(q.unit) : "";
    return unit ? num(value) + "\u00a0" + iso(unit) : num(value);
  }

  /* "Your answer: B" / "The right answer: A" on a phone, the option's text on a line of its own (a Latin option in a
   * Persian sentence wraps unreadably); a number with its unit. */
  function answerLine(q, cls, key, value) {
    if (q.kind === "numeric") return h("p", {class: cls}, t(key, {x: withUnit(q, value)}));
    return h("p", {class: cls}, t(key, {x: TR.letter(value)}), h("span", {class: "quiz-answer-text"}, optionText(q.options[value])));
  }

  /* The seconds a question's lock or window has left, as a ring that empties (tickCountdowns in common.js). */
  function ring(target, total) {
    return h("div", {class: "quiz-ring", "data-ring": String(target), "data-total": String(Math.max(1, total))},
      h("svg", {viewBox: "0 0 100 100", "aria-hidden": "true"}, h("circle", {cx: 50, cy: 50, r: 44, class: "ring-back"}),
        h("circle", {cx: 50, cy: 50, r: 44, class: "ring-front", "stroke-dasharray": "276.5", "stroke-dashoffset": "0"})),
      h("span", {class: "ring-text", "data-countdown-to": String(target)}));
  }

  /* Whether the question is still in its "get ready" lock, and a redraw when the lock ends (no new state comes then). */
  let unlockTimer = {key: null, id: null};
  const PHONE_MARGIN_MS = 250;  /* a phone unlocks a moment after the room does: its clock is an estimate */
  function locked(game, q, receivedAt, strict) {
    /* the room opened it (its deadline is now the close, maybe early: the host skipped the lock); the audience takes
     * answers only from the question's own opening time (host/audience.py), so its pad keeps to the clock */
    if (!strict && game.deadline_ms !== null && game.deadline_ms !== undefined && game.deadline_ms !== q.opens_ms) return false;
    const at = TR.localTime(q.opens_ms, game, receivedAt) + (onPhone() ? PHONE_MARGIN_MS : 0);
    const wait = at - performance.now();
    const key = q.id + ":" + q.opens_ms;
    if (wait > 0) {  /* armed at every drawing: the clock's estimate may move a little between two */
      clearTimeout(unlockTimer.id);
      const first = unlockTimer.key !== key;
      unlockTimer = {key, id: setTimeout(() => {
        if (first || !onPhone()) TR.sound.play("unlock");
        window.dispatchEvent(new Event("tr-refresh"));
      }, wait + 20)};
    }
    return wait > 0;
  }

  /* A part fades in when it first appears, not when the same thing is drawn again. */
  const entered = {};
  function enter(part, key) {
    const fresh = entered[part] !== key;
    entered[part] = key;
    return fresh ? " enter" : "";
  }

  /* How many places each player moved with the last question (the engine keeps the places before it). */
  function movement(view) {
    const before = view.previous_places;
    if (!before || view.index === 0) return {};
    const moved = {};
    view.players.forEach((p) => { moved[p.slot] = before[p.slot] - view.places[p.slot]; });
    return moved;
  }

  function moveTag(delta) {
    if (delta === undefined) return h("span", {class: "quiz-move"});
    if (delta > 0) return h("span", {class: "quiz-move up", title: t("quiz.moved_up", {n: delta})}, "▲", num(delta));
    if (delta < 0) return h("span", {class: "quiz-move down", title: t("quiz.moved_down", {n: -delta})}, "▼", num(-delta));
    return h("span", {class: "quiz-move same", "aria-hidden": "true"}, "–");
  }

  function teamName(index) {
    return t("quiz.team_n", {n: index + 1});
  }

  function teamSwatch(index) {
    return h("span", {class: "quiz-team-swatch", style: "--team: " + TEAM_COLOURS[index % TEAM_COLOURS.length], "aria-hidden": "true"});
  }

  /* ----- the TV ----- */

  let heard = null;
  function cues(view) {
    const key = view.phase + ":" + view.index;
    if (key === heard) return;
    heard = key;
    if (view.phase === "reveal") TR.sound.play("reveal");
    if (view.phase === "over") TR.sound.play("end");
  }

  /* The host's big Next (host-paced mode): the host control "next"; others read that the game waits for the host. */
  function nextButton(view, state) {
    if (!view.waiting_for_host) return null;
    if (!state || !state.host || onPhone() || !TR.hostControl) {
      return h("p", {class: "quiz-wait-host", id: "quiz-wait-host"}, t("quiz.waiting_for_host"));
    }
    const last = view.index + 1 >= view.total;
    const label = view.phase === "reveal" ? (last ? "quiz.next_results" : "quiz.next_board") : "quiz.next_question";
    return h("button", {class: "big primary quiz-next", id: "quiz-next", onclick: (e) => {
      e.currentTarget.disabled = true;
      TR.hostControl("next").then((answer) => { if (!answer.ok) e.currentTarget.disabled = false; });
    }}, t(label), h("span", {class: "quiz-next-arrow", "aria-hidden": "true"}, document.documentElement.dir === "rtl" ? "←" : "→"));
  }

  function head(view, text, right) {
    return h("header", {class: "quiz-head"}, h("p", {class: "quiz-count", id: "quiz-count"}, countLine(view)),
      text ? h("p", {class: "quiz-phase"}, text) : null, right || null);
  }

  /* Who has answered: every player's mark and name, lit once they answered; "7 of 12". */
  function answeredStrip(game, view, state) {
    const done = new Set(view.answered || []);
    const many = view.players.length > 6;
    const audience = state && state.audience && state.audience.answered
      ? h("span", {class: "quiz-aud-count"}, t("aud.answered", {n: state.audience.answered})) : null;
    return h("section", {class: "quiz-answered" + (many ? " many" : ""), id: "quiz-answered"},
      h("p", {class: "quiz-answered-count", id: "quiz-answered-count"},
        t("quiz.answered_of", {answered: done.size, n: view.players.length}), audience ? " · " : null, audience),
      h("ul", null, view.players.map((p) => h("li", {class: done.has(p.slot) ? "done" : "pending", "data-slot": p.slot},
        TR.seatMark(game, p.slot, 26), h("bdi", {class: "name"}, nameOf(game, p.slot))))));
  }

  function picture(q, where) {
    if (!q.image) return null;
    return h("img", {class: "quiz-image " + where, id: "quiz-image", src: q.image, alt: t("quiz.image_alt"), loading: "eager"});
  }

  function questionTv(game, view, state, receivedAt) {
    const q = view.question;
    const wait = locked(game, q, receivedAt);
    const target = wait ? q.opens_ms : q.closes_ms;
    const total = wait ? q.opens_ms - game.now_ms : q.closes_ms - q.opens_ms;
    const clock = h("div", {class: "quiz-clock"}, ring(target, total),
      h("p", {class: "quiz-clock-label"}, wait ? t("quiz.get_ready") : t("quiz.answer_now")));
    const body = h("div", {class: "quiz-body" + (q.image ? " has-image" : "")},
      h("div", {class: "quiz-stem"}, prompt(q),
        q.kind === "numeric" ? h("p", {class: "quiz-number-hint"}, q.unit ? t("quiz.number_in", {unit: iso(localized(q.unit))}) : t("quiz.number_hint")) : null),
      picture(q, "tv"));
    const options = q.kind === "choice" ? h("ol", {class: "quiz-tiles" + (q.options.length > 4 ? " six" : ""), id: "quiz-tiles"},
      q.options.map((o, i) => h("li", {class: "quiz-tile", style: tileStyle(i), "data-option": i}, optionMark(i), optionText(o)))) : null;
    return h("section", {class: "quiz-tv quiz-question" + enter("q", q.id + ":" + view.index), id: "question"},
      head(view, null, clock), body, options, answeredStrip(game, view, state));
  }

  function resultsGrid(game, view) {
    const q = view.question;
    const rows = view.reveal.results.slice().sort((a, b) => b.points - a.points || a.slot - b.slot);
    return h("ul", {class: "quiz-results" + (rows.length > 8 ? " many" : rows.length > 4 ? " some" : ""), id: "quiz-results"},
      rows.map((r) => h("li", {class: r.right ? "right" : r.value === null ? "none" : "wrong", "data-slot": r.slot},
        TR.seatMark(game, r.slot, 26), h("bdi", {class: "name"}, nameOf(game, r.slot)),
        q.kind === "numeric" && r.value !== null ? h("span", {class: "quiz-given"}, num(r.value)) : null,
        h("span", {class: "quiz-points"}, r.value === null ? t("quiz.no_answer_short") : t("quiz.plus_points", {n: r.points})))));
  }

  function revealTv(game, view, state) {
    const q = view.question;
    const reveal = view.reveal;
    const parts = [head(view, t("quiz.the_answer"), nextButton(view, state))];
    if (q.kind === "choice") {
      const counts = reveal.counts || q.options.map(() => 0);
      const most = Math.max(1, ...counts);
      parts.push(h("div", {class: "quiz-body" + (q.image ? " has-image" : "")}, h("div", {class: "quiz-stem"}, prompt(q, "small")),
        picture(q, "tv small")));
      parts.push(h("ol", {class: "quiz-tiles revealed" + (q.options.length > 4 ? " six" : ""), id: "quiz-tiles"},
        q.options.map((o, i) => h("li", {class: "quiz-tile " + (i === reveal.correct ? "right" : "wrong"), style: tileStyle(i), "data-option": i,
          "data-count": counts[i] || 0},
        optionMark(i), optionText(o),
        h("span", {class: "quiz-count-bar", "aria-hidden": "true"}, h("span", {class: "bar", style: `inline-size: ${Math.round(100 * (counts[i] || 0) / most)}%`})),
        h("span", {class: "quiz-picked"}, i === reveal.correct ? h("span", {class: "quiz-tick", "aria-label": t("quiz.right_answer")}, "✓") : null,
          num(counts[i] || 0))))));
    } else {
      parts.push(h("div", {class: "quiz-body" + (q.image ? " has-image" : "")}, h("div", {class: "quiz-stem"}, prompt(q, "small"),
        h("p", {class: "quiz-correct", id: "quiz-correct"}, t("quiz.correct_number", {x: withUnit(q, reveal.correct)}))),
      picture(q, "tv small")));
    }
    parts.push(resultsGrid(game, view));
    return h("section", {class: "quiz-tv quiz-reveal" + enter("r", q.id + ":" + view.index), id: "question"}, parts);
  }

  function teamCards(game, view) {
    if (!view.teams) return null;
    return h("section", {class: "quiz-teams", id: "quiz-teams"}, view.teams.slice().sort((a, b) => a.place - b.place || a.index - b.index)
      .map((team) => h("div", {class: "quiz-team", "data-team": team.index, style: "--team: " + TEAM_COLOURS[team.index % TEAM_COLOURS.length]},
        h("p", {class: "quiz-team-line"}, h("span", {class: "quiz-place"}, num(team.place)), teamSwatch(team.index),
          h("span", {class: "quiz-team-name"}, teamName(team.index)), h("span", {class: "quiz-score"}, num(team.score))),
        h("p", {class: "quiz-members"}, team.members.map((slot) => TR.seatMark(game, slot, 24))))));
  }

  function board(game, view, limit) {
    const moved = movement(view);
    const shown = view.ranking.slice(0, limit || 12);
    return h("ol", {class: "quiz-board" + (shown.length > 6 ? " many" : ""), id: "quiz-board"}, shown.map((slot) => {
      const p = playerOf(view, slot);
      return h("li", {"data-slot": slot, "data-place": view.places[slot]},
        h("span", {class: "quiz-place"}, num(view.places[slot])), moveTag(moved[slot]),
        TR.seatMark(game, slot, 28), h("bdi", {class: "name"}, nameOf(game, slot)),
        view.teams && p.team !== null && p.team !== undefined ? h("span", {class: "quiz-row-team"}, teamSwatch(p.team), teamName(p.team)) : null,
        p.streak >= 2 ? h("span", {class: "quiz-streak"}, t("quiz.streak", {n: p.streak})) : null,
        h("span", {class: "quiz-score"}, num(p.score)));
    }));
  }

  function audienceTop(state) {
    const a = state && state.audience;
    if (!a || !a.top || !a.top.length) return null;
    return h("section", {class: "quiz-aud", id: "audience-top"}, h("h2", null, t("aud.top_five")),
      h("ol", null, a.top.map((p) => h("li", {"data-seat": p.id},
        h("span", {class: "quiz-place"}, num(p.place)), TR.badge(p.colour, p.shape, 24), h("bdi", {class: "name"}, p.name),
        h("span", {class: "quiz-aud-points"}, t("aud.points", {n: p.points}),
          p.gained && a.revealed ? h("span", {class: "quiz-gained"}, " ", t("aud.gained", {n: p.gained})) : null)))));
  }

  function standingsTv(game, view, state) {
    const crowd = audienceTop(state);
    return h("section", {class: "quiz-tv quiz-standings" + enter("s", view.index), id: "quiz-standings"},
      head(view, t("quiz.leaderboard"), nextButton(view, state)),
      teamCards(game, view),
      h("div", {class: "quiz-standings-body" + (crowd ? " with-audience" : "")}, board(game, view, 12), crowd));
  }

  function statsTable(game, view) {
    const columns = ["quiz.col_player", "quiz.col_score", "quiz.col_right", "quiz.col_time", "quiz.col_streak"];
    return h("table", {class: "quiz-stats", id: "quiz-stats"},
      h("thead", null, h("tr", null, h("th", {class: "num"}, ""), columns.map((k, i) => h("th", {class: i ? "num" : ""}, t(k))))),
      h("tbody", null, view.ranking.map((slot) => {
        const p = playerOf(view, slot);
        return h("tr", {"data-slot": slot}, h("td", {class: "num quiz-place"}, num(view.places[slot])),
          h("td", {class: "who-cell"}, h("span", {class: "who"}, TR.seatMark(game, slot, 24), h("bdi", {class: "name"}, nameOf(game, slot)))),
          h("td", {class: "num score"}, num(p.score)),
          h("td", {class: "num"}, t("quiz.right_of", {right: p.right || 0, n: view.total})),
          h("td", {class: "num"}, p.avg_ms === null || p.avg_ms === undefined ? "—" : secs(p.avg_ms)),
          h("td", {class: "num"}, num(p.best_streak || 0)));
      })));
  }

  function secs(ms) {
    return t("quiz.seconds", {s: num(ms / 1000, {minimumFractionDigits: 1, maximumFractionDigits: 1})});
  }

  /* The podium: second, first, third from the reader's start; tied players share a step's place. */
  function podium(game, view) {
    const top = view.ranking.slice(0, 3);
    const order = [1, 0, 2].filter((i) => i < top.length);
    return h("ol", {class: "quiz-podium", id: "quiz-podium"}, order.map((i) => {
      const slot = top[i];
      const place = view.places[slot];
      return h("li", {class: "step step-" + (i + 1), "data-slot": slot, "data-place": place},
        h("span", {class: "who"}, TR.seatMark(game, slot, 40), h("bdi", {class: "name"}, nameOf(game, slot))),
        h("span", {class: "quiz-score"}, num(playerOf(view, slot).score)),
        h("span", {class: "block"}, h("span", {class: "quiz-podium-place"}, t("quiz.place_n", {n: place}))));
    }));
  }

  function teamPodium(game, view) {
    return h("ol", {class: "quiz-podium teams", id: "quiz-podium"}, view.teams.slice().sort((a, b) => a.place - b.place || a.index - b.index)
      .slice(0, 4).map((team, i) => h("li", {class: "step step-" + Math.min(3, i + 1), "data-team": team.index, "data-place": team.place},
        h("span", {class: "who"}, teamSwatch(team.index), h("span", {class: "quiz-team-name"}, teamName(team.index))),
        h("span", {class: "quiz-score"}, num(team.score)),
        h("span", {class: "block"}, h("span", {class: "quiz-podium-place"}, t("quiz.place_n", {n: team.place}))))));
  }

  function audienceWinner(state) {
    const a = state && state.audience;
    if (!a || !a.top || !a.top.length) return null;
    const best = a.top[0];
    return h("section", {class: "quiz-aud winner", id: "audience-winner"}, h("h2", null, t("aud.winner")),
      h("p", {class: "quiz-aud-winner"}, TR.badge(best.colour, best.shape, 30),
        h("span", null, t("aud.winner_line", {name: iso(best.name), n: best.points}))));
  }

  function overTv(game, view, state) {
    return h("section", {class: "quiz-tv quiz-over", id: "quiz-over"},
      h("div", {class: "quiz-over-top"}, view.teams ? teamPodium(game, view) : podium(game, view), audienceWinner(state)),
      statsTable(game, view));
  }

  function tv(el, game, state, receivedAt) {
    el.classList.add("quiz");
    if (onPhone()) { watcher(el, game, state); return; }  /* a phone that watches: the phone's own view */
    const view = game.view;
    cues(view);
    if (view.phase === "over" || game.aborted || game.outcome) { el.append(overTv(game, view, state)); return; }
    if (view.phase === "question" && view.question) el.append(questionTv(game, view, state, receivedAt));
    else if (view.phase === "reveal" && view.reveal) el.append(revealTv(game, view, state));
    else el.append(standingsTv(game, view, state));
  }

  /* ----- the phone ----- */

  let entry = {key: null, text: "", sent: null, shownAt: null};
  const IN = {};  /* entry.sent when the server has an answer whose value this page does not know */
  let keyboard = null;
  document.addEventListener("keydown", (e) => { if (keyboard) keyboard(e); });

  function sentLine(q, value) {
    if (value === IN) return t("aud.answer_in");
    if (q.kind === "numeric") return withUnit(q, Number(value));
    return null;
  }

  /* The open question on a phone: the tiles or the keypad; "Answer locked in" once answered. ``yours`` is what the
   * server has (undefined: nothing yet). */
  function answerPad(game, view, q, yours, act, receivedAt, strict) {
    const key = q.id + ":" + view.index + ":" + q.opens_ms;
    if (entry.key !== key) entry = {key, text: "", sent: null, shownAt: null};
    keyboard = null;
    const wrap = h("div", {class: "quiz-pad" + enter("pad", key + ":" + (yours !== undefined || entry.sent !== null)), id: "answer-pad"});
    if (yours !== undefined || entry.sent !== null) {
      const value = yours !== undefined ? yours : entry.sent;
      const given = value === IN ? null : q.kind === "choice"
        ? h("div", {class: "quiz-tile mine", style: tileStyle(Number(value))}, optionMark(Number(value)), optionText(q.options[Number(value)]))
        : h("p", {class: "quiz-given-big", dir: "ltr"}, sentLine(q, value));
      wrap.append(h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "big-text quiz-locked", id: "sent"}, value === IN ? t("aud.answer_in") : t("quiz.locked_in")), given,
        h("p", {class: "muted"}, t("quiz.wait_others")));
      return wrap;
    }
    const wait = locked(game, q, receivedAt, strict);
    if (wait) entry.shownAt = null;
    else if (entry.shownAt === null) entry.shownAt = performance.now();
    wrap.append(h("div", {class: "quiz-phone-head"}, h("p", {class: "quiz-phone-count"}, countLine(view)),
      h("p", {class: "quiz-phone-clock", title: wait ? t("quiz.get_ready") : t("quiz.answer_now")},
        h("span", {class: "countdown small", "data-countdown-to": String(wait ? q.opens_ms : q.closes_ms)}))),
    h("div", {class: "quiz-prompt-box scroll-region"}, prompt(q, "phone")));
    const send = (action, shown, again) => {
      const ms = Math.max(0, Math.round(performance.now() - (entry.shownAt || performance.now())));
      entry.sent = shown;
      window.dispatchEvent(new Event("tr-refresh"));  /* "locked in" at once, whether or not a new state follows */
      act(action, {ms}).then((answer) => {
        if (!answer || answer.ok) return;
        const code = answer.error && answer.error.code;
        /* a tap right at the unlock that reached the room just before it opened: the same tap, once more */
        if (!again && (code === "not_your_turn" || code === "not_yet") && entry.key === key) {
          setTimeout(() => { if (entry.key === key) send(action, shown, true); }, 300);
          return;
        }
        entry.sent = code === "already_answered" ? IN : null;
        window.dispatchEvent(new Event("tr-refresh"));
      });
    };
    if (q.kind === "choice") {
      wrap.append(h("div", {class: "quiz-buttons" + (q.options.length > 4 ? " six" : ""), id: "quiz-buttons"}, q.options.map((o, i) => h("button", {
        class: "quiz-tile quiz-button", style: tileStyle(i), "data-choice": i, disabled: wait, "aria-label": TR.letter(i) + " " + localized(o),
        onclick: () => send({choice: i}, i)}, optionMark(i), optionText(o)))));
      return wrap;
    }
    /* a number: the keypad of every question game (TR.numberPad; its styles: .camp .keypad) */
    const pad = TR.numberPad(entry, {disabled: wait, send: (text) => send({answer: text}, TR.western(text))});
    wrap.append(h("div", {class: "camp quiz-numpad"}, h("div", {class: "quiz-display-line"}, pad.display,
      q.unit ? h("span", {class: "quiz-unit", dir: "auto", "data-verbatim": ""}, localized(q.unit)) : null), pad.keypad));
    keyboard = pad.keyboard;
    return wrap;
  }

  function place(view, slot) {
    return t("quiz.your_place", {place: view.places[slot], n: view.players.length});
  }

  /* The result of the last question on a player's phone. */
  function phoneReveal(game, view, me) {
    const q = view.question;
    const r = view.reveal.results.find((x) => x.slot === me) || {value: null, right: false, points: 0, streak: 0};
    const p = playerOf(view, me);
    const near = !r.right && r.value !== null && r.points > 0;  /* a number that was not the closest still scores */
    return h("div", {class: "quiz-result" + enter("res", view.index), id: "my-result"},
      h("p", {class: "quiz-phone-count"}, countLine(view)),
      h("p", {class: "quiz-verdict " + (r.right ? "good" : near ? "near" : "bad"), id: "verdict"},
        r.right ? t("quiz.you_right") : r.value === null ? t("quiz.no_answer") : near ? t("quiz.you_near") : t("quiz.you_wrong")),
      h("p", {class: "quiz-gain", id: "my-points"}, t("quiz.gained_points", {n: r.points || 0})),
      (r.streak || p.streak) >= 2 ? h("p", {class: "quiz-streak-line", id: "my-streak"}, t("quiz.streak_line", {n: r.streak || p.streak})) : null,
      r.value === null ? null : answerLine(q, "quiz-yours", "quiz.your_answer", r.value),
      r.right ? null : answerLine(q, "quiz-truth", "quiz.correct_is", view.reveal.correct),
      h("p", {class: "quiz-place-line", id: "my-place"}, place(view, me), " · ", t("quiz.points", {n: p.score})));
  }

  /* The leaderboard on a phone: the top five and, below, this player if not among them. */
  function phoneBoard(game, view, me) {
    const top = view.ranking.slice(0, 5);
    if (me !== null && me !== undefined && !top.includes(me)) top.push(me);
    return h("ol", {class: "quiz-phone-board", id: "standings"}, top.map((slot) => h("li", {class: slot === me ? "me" : "", "data-slot": slot},
      h("span", {class: "quiz-place"}, num(view.places[slot])), TR.seatMark(game, slot, 22), h("bdi", {class: "name"}, nameOf(game, slot)),
      h("span", {class: "quiz-score"}, num(playerOf(view, slot).score)))));
  }

  function myTeam(view, me) {
    if (!view.teams || me === null || me === undefined) return null;
    const team = view.teams.find((x) => x.members.includes(me));
    if (!team) return null;
    return h("p", {class: "quiz-my-team", id: "my-team"}, teamSwatch(team.index),
      h("span", null, t("quiz.team_line", {team: teamName(team.index), place: team.place, points: team.score})));
  }

  function phoneStats(game, view, me) {
    const p = playerOf(view, me);
    return h("dl", {class: "quiz-my-stats", id: "my-stats"},
      h("dt", null, t("quiz.col_score")), h("dd", null, num(p.score)),
      h("dt", null, t("quiz.col_right")), h("dd", null, t("quiz.right_of", {right: p.right || 0, n: view.total})),
      h("dt", null, t("quiz.col_time")), h("dd", null, p.avg_ms === null || p.avg_ms === undefined ? "—" : secs(p.avg_ms)),
      h("dt", null, t("quiz.col_streak")), h("dd", null, num(p.best_streak || 0)));
  }

  function phone(el, game, state, act, receivedAt) {
    el.classList.add("quiz");
    const view = game.view;
    const me = game.you;
    keyboard = null;
    if (view.phase === "over" || game.aborted || game.outcome) {
      el.append(...[myTeam(view, me), phoneStats(game, view, me)].filter(Boolean));  /* the page says the place */
      return;
    }
    const q = view.question;
    if (view.phase === "question" && q) {
      el.append(...[myTeam(view, me), answerPad(game, view, q, view.yours === null || view.yours === undefined ? undefined : view.yours, act, receivedAt)].filter(Boolean));
      return;
    }
    if (view.phase === "reveal" && view.reveal) { el.append(...[phoneReveal(game, view, me), myTeam(view, me)].filter(Boolean)); return; }
    el.append(h("div", {class: "quiz-phone-standings" + enter("st", view.index)},
      h("p", {class: "quiz-phone-count"}, t("quiz.leaderboard")),
      h("p", {class: "quiz-place-line big", id: "my-place"}, place(view, me), " · ", t("quiz.points", {n: playerOf(view, me).score})),
      myTeam(view, me), phoneBoard(game, view, me), nextButton(view, state)));
  }

  /* A phone that only watches (no audience board in this room): what happens now in a few lines. */
  function watcher(el, game, state) {
    const view = game.view;
    if (view.phase === "over" || game.aborted || game.outcome) { el.append(phoneBoard(game, view, null)); return; }
    const q = view.question;
    const parts = [h("p", {class: "quiz-phone-count"}, countLine(view))];
    if (q) parts.push(prompt(q, "phone"));
    if (view.phase === "question" && q && q.kind === "choice") {
      parts.push(h("ol", {class: "quiz-watch-options"}, q.options.map((o, i) => h("li", {class: "quiz-tile", style: tileStyle(i)}, optionMark(i), optionText(o)))));
    } else if (view.phase === "reveal" && view.reveal && q) {
      parts.push(answerLine(q, "quiz-truth good", "quiz.correct_is", view.reveal.correct));
    } else if (view.phase === "standings") parts.push(phoneBoard(game, view, null));
    parts.push(h("p", {class: "muted"}, t("quiz.watch_tv")));
    el.append(h("div", {class: "quiz-watching" + enter("watch", view.phase + view.index), id: "quiz-watching"}, parts));
  }

  /* A spectator's phone: the open question with the players' own controls (its answer goes to the audience, never to
   * the game), its own result after the reveal, the leaderboard in between. */
  function audience(el, game, state, act, receivedAt) {
    el.classList.add("quiz");
    const view = game.view;
    const q = view.question;
    const mine = state.audience.you || {};
    const current = q && mine.key === view.index;  /* the audience's question is the quiz's (engine: key = index) */
    const total = mine.place ? h("p", {class: "quiz-aud-total", id: "aud-total"},
      t("aud.total", {points: mine.points, place: mine.place, n: mine.players})) : null;
    if (view.phase === "over" || game.aborted || game.outcome) {
      const top = audienceTop(state);  /* titled "Audience top five": said once */
      el.append(...[mine.place || !top ? h("p", {class: "big-text quiz-aud-final", id: "aud-final"}, mine.place
        ? t("aud.final", {place: mine.place, n: mine.players, points: mine.points}) : t("aud.top_five")) : null, top].filter(Boolean));
      return;
    }
    if (view.phase === "question" && q) {
      const yours = current && mine.yours !== null && mine.yours !== undefined ? mine.yours : undefined;
      el.append(...[total || h("p", {class: "quiz-aud-banner", id: "aud-banner"}, t("aud.play_along")),
        answerPad(game, view, q, yours, act, receivedAt, true)].filter(Boolean));
      return;
    }
    if (view.phase === "reveal" && view.reveal && q) {
      const r = current ? mine.result : null;
      const given = r ? (q.kind === "numeric" ? withUnit(q, r.value) : TR.letter(r.value)) : null;
      el.append(h("div", {class: "quiz-result" + enter("res", view.index), id: "aud-result"},
        h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "quiz-verdict " + (r ? (r.right ? "good" : "bad") : ""), id: "aud-points"},
          r ? t("aud.got", {n: r.points}) : t("aud.no_answer")),
        r ? h("p", {class: "quiz-yours"}, t("aud.your_answer", {x: given})) : null,
        answerLine(q, "quiz-truth", "quiz.correct_is", view.reveal.correct),
        total));
      return;
    }
    if (total) el.append(total);
    watcher(el, game, state);
  }

  return {tv, phone, audience};
})();
