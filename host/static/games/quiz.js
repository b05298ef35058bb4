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
    {colour: "#2b8015", text: "#ffffff", shape: "square"}  /* 5:1 with white (axe: 4.4 was short of 4.5) */,
    {colour: "#8a4fc4", text: "#ffffff", shape: "star"},
    {colour: "#12a6a6", text: "#111111", shape: "hexagon"},
  ];
  /* Teams' colours are none of the players' (common.js COLOURS), and each team's swatch carries its own pattern and
   * number besides (finding 4: team colours repeated player colours). */
  const TEAM_COLOURS = ["#ff4d6d", "#b5e61d", "#8c7bff", "#7fffd4"];
  const TEAM_PATTERNS = ["stripes", "dots", "checks", "waves"];

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

  /* An option's mark: its shape and letter, as on every tile. ``i`` is the option's place on the TV (ident()). */
  function optionMark(i) {
    return h("span", {class: "quiz-mark"}, shape(tile(i).shape), h("span", {class: "quiz-letter"}, TR.letter(i)));
  }

  /* The options in the order this screen shows them (view.question.shown: QUIZ-S13), as their logged indexes. */
  function shownOrder(q) {
    const n = (q.options || []).length;
    const shown = q.shown;
    const whole = Array.isArray(shown) && shown.length === n && new Set(shown).size === n && shown.every((i) => i >= 0 && i < n);
    return whole ? shown.slice() : Array.from({length: n}, (_, i) => i);
  }

  /* An option's identity on every screen (its colour, shape and letter): its place in the TV's order, so that the TV
   * reads A B C D from its start, and "B" on a phone is "B" on the TV. A seat's phone with the shuffle "phone" shows
   * its own order; the TV then shows the logged one (for an order question, which the TV shows shuffled too, the
   * phone falls back to the logged index: its items are not answered by letter). */
  function ident(game, q, i) {
    const seat = game.you !== null && game.you !== undefined;
    const settings = game.view.settings || {};
    if (seat && settings.shuffle === "phone") return i;
    const at = shownOrder(q).indexOf(i);
    return at < 0 ? i : at;
  }

  /* The separator between two parts of a line, per language ("·" reads as a zero in Persian: finding 8). */
  const sep = () => t("quiz.sep");

  /* Whether a bot plays this seat now or played it (QUIZ-S15): a filler bot's name says so already ("Bot 2"). */
  function botPlayed(game, slot) {
    const s = game.slots[slot];
    if (!s) return false;
    const filler = s.bot && (s.seat === null || s.seat === undefined);
    return !filler && !!(s.bot || s.away || (s.bot_moves || 0) > 0);
  }
  function botTag(game, slot) {
    return botPlayed(game, slot) ? h("span", {class: "quiz-bot", "data-bot": ""}, t("quiz.bot_tag")) : null;
  }
  function anyBot(game) {
    return game.slots.some((_, i) => botPlayed(game, i));
  }
  function botNote(game) {
    return anyBot(game) ? h("p", {class: "quiz-bot-note", id: "quiz-bot-note"}, t("quiz.bot_note")) : null;
  }

  function optionText(o) {
    return h("span", {class: "quiz-option-text", dir: "auto", "data-verbatim": ""}, localized(o));
  }

  function prompt(q, extra) {
    return h("p", {class: "quiz-prompt" + (extra ? " " + extra : ""), dir: "auto", "data-verbatim": "", "data-role": "question"}, localized(q.prompt));
  }

  const nameOf = (game, slot) => TR.seatName(game, slot);
  /* el.append() of what is there (DOM's append writes a null as the text "null") */
  const add = (el, ...parts) => el.append(...parts.flat().filter((x) => x !== null && x !== undefined && x !== false));
  const playerOf = (view, slot) => view.players.find((p) => p.slot === slot) || {slot, score: 0, streak: 0};

  function countLine(view) {
    return t("quiz.question_n", {i: view.index + 1, n: view.total});
  }

  /* How many questions were asked (revealed) so far: "Right 3 of 3" after the host ended a quiz at 3 (finding 5). */
  function closed(view) {
    if (typeof view.closed === "number") return view.closed;
    return view.phase === "question" ? view.index : view.index + 1;
  }

  /* The question's points badge: "Double points" / "No points" (QUIZ-S12). */
  function pointsBadge(q) {
    if (q.points === 2) return h("span", {class: "quiz-badge double", id: "quiz-points-badge"}, t("quiz.double_points"));
    if (q.points === 0) return h("span", {class: "quiz-badge none", id: "quiz-points-badge"}, t("quiz.no_points"));
    return null;
  }

  /* What to do, per kind, on the TV and on the phone. */
  function kindHint(q, where) {
    const key = {multi: "quiz.hint_multi", order: "quiz.hint_order", text: "quiz.hint_text", poll: "quiz.hint_poll"}[q.kind];
    if (q.kind === "numeric") {
      if (where === "phone") return null;
      return q.unit ? t("quiz.number_in", {unit: iso(localized(q.unit))}) : t("quiz.number_hint");
    }
    return key ? t(key + (where === "phone" ? "_phone" : "")) : null;
  }

  /* A short form of a typed text for a list (the whole of it is in the report). */
  function short(text, max) {
    const chars = Array.from(String(text));
    return chars.length > max ? chars.slice(0, max - 1).join("") + "…" : chars.join("");
  }

  /* A number answer with its unit, if the question has one ("8,848 m"). */
  function withUnit(q, value) {
    const unit = q && q.unit ? localized(q.unit) : "";
    return unit ? num(value) + "\u00a0" + iso(unit) : num(value);
  }

  /* "Your answer: B" / "The right answer: A" on a phone, the option's text on a line of its own (a Latin option in a
   * Persian sentence wraps unreadably); a number with its unit; several options as their letters, each with its
   * text; an order as its letters from first to last; a typed text as typed. */
  function answerLine(game, q, cls, key, value, id, withTexts) {
    const attrs = {class: cls, id: id || null};
    if (value === null || value === undefined) return null;
    if (q.kind === "numeric") return h("p", attrs, t(key, {x: withUnit(q, value)}));
    if (q.kind === "text") {
      const text = Array.isArray(value) ? value[0] : value;
      return h("p", attrs, t(key, {x: ""}).trim(), h("span", {class: "quiz-answer-text", dir: "auto", "data-verbatim": ""}, String(text)));
    }
    const list = Array.isArray(value) ? value : [value];
    const letters = list.map((i) => TR.letter(ident(game, q, i)));
    const joined = q.kind === "order" ? letters.join(document.documentElement.dir === "rtl" ? " ← " : " → ") : TR.list(letters);
    const texts = list.map((i) => h("span", {class: "quiz-answer-text"}, h("span", {class: "quiz-inline-mark", style: tileStyle(ident(game, q, i))},
      TR.letter(ident(game, q, i))), " ", optionText(q.options[i])));
    if (list.length <= 1) return h("p", attrs, t(key, {x: joined}), texts);
    /* several: the letters in the line, the texts in a region of their own that scrolls on a small phone */
    return h("div", {class: cls + " several", id: attrs.id}, h("p", null, t(key, {x: joined})),
      withTexts === false ? null : h("div", {class: "quiz-answer-texts scroll-region"}, texts));
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
        if (first || !onPhone()) TR.sound && TR.sound.cue("unlock", key);
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
    /* the marks are pictures to a screen reader, named in words ("up 2 places") */
    if (delta > 0) return h("span", {class: "quiz-move up", role: "img", "aria-label": t("quiz.moved_up", {n: delta}), title: t("quiz.moved_up", {n: delta})}, "▲", num(delta));
    if (delta < 0) return h("span", {class: "quiz-move down", role: "img", "aria-label": t("quiz.moved_down", {n: -delta}), title: t("quiz.moved_down", {n: -delta})}, "▼", num(-delta));
    return h("span", {class: "quiz-move same", "aria-hidden": "true"}, "–");
  }

  function teamName(index) {
    return t("quiz.team_n", {n: index + 1});
  }

  function teamSwatch(index) {
    return h("span", {class: "quiz-team-swatch " + TEAM_PATTERNS[index % TEAM_PATTERNS.length],
      style: "--team: " + TEAM_COLOURS[index % TEAM_COLOURS.length], "aria-hidden": "true"}, TR.digits(String(index + 1)));
  }

  /* ----- the TV ----- */

  /* The TV's sound (host/static/sound.js), each cue keyed by the question, so a redraw replays none; the podium's
   * fanfare is tv.js's, on the results. */
  function cues(game, view, state, receivedAt) {
    const q = view.question;
    TR.sound && TR.sound.music(view.phase === "question" && q && !(state && state.paused) ? "question" : null, {endsAt: q && q.closes_ms ? TR.localTime(q.closes_ms, game, receivedAt) : null});
    if (view.phase === "question" && view.answered && view.answered.length) TR.sound && TR.sound.cue("lockin", [view.index, view.answered.length]);
    if (view.phase === "reveal") TR.sound && TR.sound.cue("reveal", view.index);
    if (view.phase === "standings") TR.sound && TR.sound.cue("leaderboard", view.index);
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

  function head(view, text, right, badge) {
    return h("header", {class: "quiz-head"}, h("p", {class: "quiz-count", id: "quiz-count"}, countLine(view)), badge || null,
      text instanceof Node ? text : text ? h("p", {class: "quiz-phase"}, text) : null, right || null);
  }

  /* Who has answered: every player's mark and name, lit once they answered; "7 of 12". */
  function answeredStrip(game, view, state) {
    const done = new Set(view.answered || []);
    const many = view.players.length > 6;
    const audience = state && state.audience && state.audience.answered
      ? h("span", {class: "quiz-aud-count"}, t("aud.answered", {n: state.audience.answered})) : null;
    return h("section", {class: "quiz-answered" + (many ? " many" : ""), id: "quiz-answered"},
      /* {n} is who answered, so the verb agrees with it (Romanian "1 din 5 a răspuns"); {total}, who plays */
      h("p", {class: "quiz-answered-count", id: "quiz-answered-count"},
        t("quiz.answered_of", {n: done.size, total: view.players.length}), audience ? sep() : null, audience),
      h("ul", null, view.players.map((p) => h("li", {class: done.has(p.slot) ? "done" : "pending", "data-slot": p.slot},
        TR.seatMark(game, p.slot, 26), h("bdi", {class: "name"}, nameOf(game, p.slot)), botTag(game, p.slot)))));
  }

  function picture(q, where) {
    if (!q.image) return null;
    return h("img", {class: "quiz-image " + where, id: "quiz-image", src: q.image, alt: t("quiz.image_alt"), loading: "eager"});
  }

  /* The options as tiles in this screen's order, each with its identity (colour, shape, letter). */
  function tvTiles(game, q, extra) {
    const order = shownOrder(q);
    return h("ol", {class: "quiz-tiles" + (order.length > 4 ? " six" : "") + (extra ? " " + extra : ""), id: "quiz-tiles"},
      order.map((i) => h("li", {class: "quiz-tile", style: tileStyle(ident(game, q, i)), "data-option": i, "data-role": "option"},
        optionMark(ident(game, q, i)), optionText(q.options[i]))));
  }

  function questionTv(game, view, state, receivedAt) {
    const q = view.question;
    const wait = locked(game, q, receivedAt);
    const target = wait ? q.opens_ms : q.closes_ms;
    const total = wait ? q.opens_ms - game.now_ms : q.closes_ms - q.opens_ms;
    const clock = h("div", {class: "quiz-clock"}, ring(target, total),
      h("p", {class: "quiz-clock-label"}, wait ? t("quiz.get_ready") : t("quiz.answer_now")));
    const hint = kindHint(q, "tv");
    /* what to do on the phones, in the head's line beside the number: the height is the tiles' */
    const hintLine = hint ? h("p", {class: "quiz-phase quiz-number-hint", id: "quiz-hint"}, hint) : null;
    const body = h("div", {class: "quiz-body" + (q.image ? " has-image" : "")},
      h("div", {class: "quiz-stem"}, prompt(q)), picture(q, "tv"));
    const options = q.options && q.options.length && q.kind !== "numeric" && q.kind !== "text" ? tvTiles(game, q) : null;
    return h("section", {class: "quiz-tv quiz-question" + enter("q", q.id + ":" + view.index), id: "question", "data-kind": q.kind},
      head(view, hintLine, clock, pointsBadge(q)), body, options, answeredStrip(game, view, state));
  }

  /* A player's answer in the reveal's list, compact: the option's mark, the marks of several, how much of an order
   * was in place, the number, or the typed text (shortened). */
  function givenValue(game, q, r) {
    if (r.value === null || r.value === undefined) return null;
    if (q.kind === "numeric") return h("span", {class: "quiz-given", dir: "ltr"}, num(r.value));
    if (q.kind === "text") return h("span", {class: "quiz-given text", dir: "auto", "data-verbatim": ""}, short(r.value, 18));
    if (q.kind === "order") {
      const n = q.options.length;
      const placed = typeof r.credit === "number" ? Math.round(r.credit * n) : 0;
      return h("span", {class: "quiz-given"}, t("quiz.in_place_short", {right: placed, n}));
    }
    const list = Array.isArray(r.value) ? r.value : [r.value];
    return h("span", {class: "quiz-given marks"}, list.map((i) => h("span", {class: "quiz-inline-mark", style: tileStyle(ident(game, q, i))},
      TR.letter(ident(game, q, i)))));
  }

  function resultsGrid(game, view) {
    const q = view.question;
    const rows = view.reveal.results.slice().sort((a, b) => b.points - a.points || (a.ms ?? Infinity) - (b.ms ?? Infinity) || a.slot - b.slot);
    const cls = (r) => (r.value === null || r.value === undefined ? "none" : r.right ? "right" : q.kind === "poll" || r.right === null ? "voted"
      : r.points > 0 ? "part" : "wrong");
    return h("ul", {class: "quiz-results" + (rows.length > 8 ? " many" : rows.length > 4 ? " some" : ""), id: "quiz-results"},
      rows.map((r) => h("li", {class: cls(r) + (r.closest ? " closest" : ""), "data-slot": r.slot, "data-points": r.points},
        h("span", {class: "quiz-result-who"}, TR.seatMark(game, r.slot, 26), h("bdi", {class: "name"}, nameOf(game, r.slot)), botTag(game, r.slot)),
        h("span", {class: "quiz-result-line"},
          givenValue(game, q, r),
          r.closest && q.kind === "numeric" ? h("span", {class: "quiz-closest-tag"}, t("quiz.closest_tag")) : null,
          r.ms !== null && r.ms !== undefined ? h("span", {class: "quiz-time"}, secs(r.ms)) : null,
          h("span", {class: "quiz-points"}, r.value === null || r.value === undefined ? t("quiz.no_answer_short") : t("quiz.plus_points", {n: r.points}))))));
  }

  /* The options revealed: a bar and a count per option; the right one(s) marked (none in a poll). */
  /* Many options or players: the reveal's tiles and items on one line each, their texts shortened (the question
   * showed them whole; the report has them whole). */
  function optionShort(q, i, compact) {
    return compact ? h("span", {class: "quiz-option-text", dir: "auto", "data-verbatim": ""}, short(localized(q.options[i]), onPhone() ? 30 : 18)) : optionText(q.options[i]);
  }

  function revealTiles(game, q, reveal, compact) {
    const counts = reveal.counts || q.options.map(() => 0);
    const most = Math.max(1, ...counts);
    const rights = q.kind === "choice" ? [reveal.correct] : q.kind === "multi" ? (reveal.correct || []) : [];
    const order = shownOrder(q);
    return h("ol", {class: "quiz-tiles revealed" + (q.kind === "poll" ? " poll" : "") + (order.length > 4 ? " six" : "") + (compact ? " compact" : ""), id: "quiz-tiles"},
      order.map((i) => {
        const right = rights.includes(i);
        return h("li", {class: "quiz-tile " + (q.kind === "poll" ? "vote" : right ? "right" : "wrong"), style: tileStyle(ident(game, q, i)),
          "data-option": i, "data-count": counts[i] || 0, "data-role": "option"},
        optionMark(ident(game, q, i)), optionShort(q, i, compact),
        h("span", {class: "quiz-count-bar", "aria-hidden": "true"}, h("span", {class: "bar", style: `inline-size: ${Math.round(100 * (counts[i] || 0) / most)}%`})),
        h("span", {class: "quiz-picked"}, right ? h("span", {class: "quiz-tick", "aria-label": t("quiz.right_answer")}, "✓") : null,
          num(counts[i] || 0)));
      }));
  }

  /* An order question's right order (reveal.correct: its items' indexes, first place first; the engine scrambles
   * the items of an order question, so that no phone holds the answer before the reveal). */
  function sequenceOf(q, reveal) {
    const n = q.options.length;
    const c = reveal && reveal.correct;
    return Array.isArray(c) && c.length === n ? c : Array.from({length: n}, (_, i) => i);
  }

  function rightOrder(game, q, reveal, compact) {
    const sequence = sequenceOf(q, reveal);
    return h("ol", {class: "quiz-right-order" + (q.options.length > 4 ? " six" : "") + (compact ? " compact" : ""), id: "quiz-right-order"},
      sequence.map((i, k) => h("li", {class: "quiz-tile", style: tileStyle(ident(game, q, i)), "data-option": i},
        h("span", {class: "quiz-order-n"}, num(k + 1)), optionMark(ident(game, q, i)), optionShort(q, i, compact))));
  }

  /* A text question's answers as typed, grouped (the engine groups them by their normal form, QUIZ-S8), most first:
     at most `most` groups, the rest counted. Beside more than eight results the TV shows six (three rows at most,
     whatever their order), so the results below keep their room; among groups as large, the right ones first. */
  function textGroups(reveal, most) {
    const all = (reveal.groups || []).slice().sort((a, b) => b.count - a.count || Number(b.right) - Number(a.right));
    if (!all.length) return null;
    const groups = all.slice(0, most);
    const others = (reveal.others || 0) + all.slice(most).reduce((sum, g) => sum + g.count, 0);
    return h("ul", {class: "quiz-groups", id: "quiz-groups"}, groups.map((g) => h("li", {class: g.right ? "right" : "wrong", "data-count": g.count},
      h("span", {class: "quiz-group-mark", "aria-label": g.right ? t("quiz.right_answer") : t("quiz.wrong_answer")}, g.right ? "✓" : "✗"),
      h("span", {class: "quiz-group-text", dir: "auto", "data-verbatim": ""}, short(g.text, 22)),
      h("span", {class: "quiz-group-count"}, "×", num(g.count)))),
    others ? h("li", {class: "others"}, t("quiz.others", {n: others})) : null);
  }

  function revealTv(game, view, state) {
    const q = view.question;
    const reveal = view.reveal;
    const kind = reveal.kind || q.kind;
    const parts = [head(view, kind === "poll" ? t("quiz.poll_results") : t("quiz.the_answer"), nextButton(view, state), pointsBadge(q))];
    const stem = [prompt(q, "small")];
    if (kind === "numeric") {
      stem.push(h("p", {class: "quiz-correct", id: "quiz-correct"}, t("quiz.correct_number", {x: withUnit(q, reveal.correct)}),
        typeof reveal.margin === "number" ? h("span", {class: "quiz-margin", id: "quiz-margin"}, t("quiz.margin_line", {x: withUnit(q, reveal.margin)})) : null));
    } else if (kind === "text") {
      const accepted = Array.isArray(reveal.correct) ? reveal.correct : [reveal.correct];
      stem.push(h("p", {class: "quiz-correct", id: "quiz-correct"}, t("quiz.answer_label"), " ",
        h("span", {dir: "auto", "data-verbatim": ""}, short(accepted[0] || "", 40))));
    }
    parts.push(h("div", {class: "quiz-body" + (q.image ? " has-image" : "")}, h("div", {class: "quiz-stem"}, stem), picture(q, "tv small")));
    const compact = (q.options || []).length > 4 || view.players.length > 8;
    if (kind === "choice" || kind === "multi" || kind === "poll") parts.push(revealTiles(game, q, reveal, compact));
    else if (kind === "order") parts.push(rightOrder(game, q, reveal, compact));
    else if (kind === "text") parts.push(textGroups(reveal, view.players.length > 8 ? 6 : 12));
    parts.push(resultsGrid(game, view), botNote(game));
    return h("section", {class: "quiz-tv quiz-reveal" + enter("r", q.id + ":" + view.index), id: "question", "data-kind": kind}, parts);
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
      return h("li", {"data-slot": slot, "data-place": view.places[slot], "data-role": "row"},
        h("span", {class: "quiz-place"}, num(view.places[slot])), moveTag(moved[slot]),
        TR.seatMark(game, slot, 28), h("bdi", {class: "name"}, nameOf(game, slot)), botTag(game, slot),
        view.teams && p.team !== null && p.team !== undefined ? h("span", {class: "quiz-row-team"}, teamSwatch(p.team),
          h("span", {class: "quiz-team-label"}, teamName(p.team))) : null,
        p.streak >= 2 ? h("span", {class: "quiz-streak"}, t("quiz.streak", {n: p.streak})) : null,
        h("span", {class: "quiz-score", "data-role": "score"}, num(p.score)));
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
      h("div", {class: "quiz-standings-body" + (crowd ? " with-audience" : "")}, board(game, view, 12), crowd), botNote(game));
  }

  /* The final order and places: the game's outcome (view.final, QUIZ-S4: in teams the players by their team's place),
   * the same on the TV and every phone (finding 4); before the end, the live ranking. */
  function finalOrder(view, game) {
    const outcome = game && game.outcome;  /* the host ended it: the standings so far, the Outcome's as well */
    const f = view.final || (outcome ? {order: outcome.ranking, places: outcome.places} : null);
    if (f && Array.isArray(f.order) && Array.isArray(f.places) && f.order.length === f.places.length) {
      return {order: f.order, placeOf: (slot) => f.places[f.order.indexOf(slot)]};
    }
    return {order: view.ranking, placeOf: (slot) => view.places[slot]};
  }

  function statsTable(game, view) {
    const {order, placeOf} = finalOrder(view, game);
    const teams = !!view.teams;
    const columns = ["quiz.col_player", teams ? "quiz.col_team" : null, "quiz.col_score", "quiz.col_right", "quiz.col_time", "quiz.col_streak"].filter(Boolean);
    return h("table", {class: "quiz-stats" + (order.length <= 6 ? " few" : ""), id: "quiz-stats"},
      h("thead", null, h("tr", null, h("th", {class: "num"}, ""), columns.map((k, i) => h("th", {class: i && !(teams && i === 1) ? "num" : ""}, t(k))))),
      h("tbody", null, order.map((slot) => {
        const p = playerOf(view, slot);
        const asked = Math.max(0, closed(view) - (p.joined || 0));
        return h("tr", {"data-slot": slot, "data-place": placeOf(slot)}, h("td", {class: "num quiz-place"}, num(placeOf(slot))),
          h("td", {class: "who-cell"}, h("span", {class: "who"}, TR.seatMark(game, slot, 24), h("bdi", {class: "name"}, nameOf(game, slot)), botTag(game, slot))),
          teams ? h("td", {class: "team-cell", "data-team": p.team}, p.team === null || p.team === undefined ? "—"
            : h("span", {class: "quiz-row-team"}, teamSwatch(p.team), teamName(p.team))) : null,
          h("td", {class: "num score"}, num(p.score)),
          h("td", {class: "num right-of"}, t("quiz.right_of", {right: p.right || 0, n: asked})),
          h("td", {class: "num"}, p.avg_ms === null || p.avg_ms === undefined ? "—" : secs(p.avg_ms)),
          h("td", {class: "num"}, num(p.best_streak || 0)));
      })));
  }

  function secs(ms) {
    return t("quiz.seconds", {s: num(ms / 1000, {minimumFractionDigits: 1, maximumFractionDigits: 1})});
  }

  /* The podium: second, first, third from the reader's start; tied players share a step's place. */
  function podium(game, view) {
    const final = finalOrder(view, game);
    const top = final.order.slice(0, 3);
    const order = [1, 0, 2].filter((i) => i < top.length);
    return h("ol", {class: "quiz-podium", id: "quiz-podium"}, order.map((i) => {
      const slot = top[i];
      const place = final.placeOf(slot);
      return h("li", {class: "step step-" + (i + 1), "data-slot": slot, "data-place": place},
        h("span", {class: "who", "data-role": "row"}, TR.seatMark(game, slot, 40), h("bdi", {class: "name"}, nameOf(game, slot)), botTag(game, slot)),
        h("span", {class: "quiz-score", "data-role": "score"}, num(playerOf(view, slot).score)),
        h("span", {class: "block"}, h("span", {class: "quiz-podium-place"}, t("quiz.place_n", {n: place}))));
    }));
  }

  /* The teams' podium: each team with its members named (finding 4), best first. */
  function teamPodium(game, view) {
    return h("ol", {class: "quiz-podium teams", id: "quiz-podium"}, view.teams.slice().sort((a, b) => a.place - b.place || a.index - b.index)
      .slice(0, 4).map((team, i) => h("li", {class: "step step-" + Math.min(3, i + 1), "data-team": team.index, "data-place": team.place},
        h("span", {class: "who"}, teamSwatch(team.index), h("span", {class: "quiz-team-name"}, teamName(team.index))),
        h("span", {class: "quiz-team-members", id: "team-members-" + team.index}, team.members.map((slot) => h("span", {class: "quiz-member", "data-slot": slot},
          TR.seatMark(game, slot, 20), h("bdi", {class: "name"}, nameOf(game, slot)), botTag(game, slot)))),
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
      statsTable(game, view), botNote(game));
  }

  function tv(el, game, state, receivedAt) {
    el.classList.add("quiz");
    if (onPhone()) { watcher(el, game, state); return; }  /* a phone that watches: the phone's own view */
    const view = game.view;
    cues(game, view, state, receivedAt);
    if (view.phase === "over" || game.aborted || game.outcome) { el.append(overTv(game, view, state)); return; }
    if (view.phase === "question" && view.question) el.append(questionTv(game, view, state, receivedAt));
    else if (view.phase === "reveal" && view.reveal) el.append(revealTv(game, view, state));
    else el.append(standingsTv(game, view, state));
  }

  /* ----- the phone ----- */

  /* What the phone is doing with the open question, kept across redraws: the digits typed, the options picked, the
   * order tapped, the text typed; what was sent; whether the room refused a tap (said on the pad, the controls back). */
  let entry = {key: null, text: "", picks: [], seq: [], typed: "", sent: null, shownAt: null, refused: null};
  const IN = {};  /* entry.sent when the server has an answer whose value this page does not know */
  let keyboard = null;
  document.addEventListener("keydown", (e) => { if (keyboard) keyboard(e); });

  /* What the phone's screen shows, for phone.js's redraw check: not who else has answered (a redraw then would take a
   * text being typed or a slider being dragged from under the thumb), nor the audience's running count. */
  function screenKey(state) {
    const game = state.game;
    const view = Object.assign({}, game.view, {answered: null});
    const audience = state.audience ? Object.assign({}, state.audience, {answered: null}) : null;
    return [Object.assign({}, game, {now_ms: 0, view}), audience];
  }

  /* The answer as sent, on the "locked in" screen. */
  function sentView(game, q, value) {
    if (value === IN) return null;
    if (q.kind === "numeric") return h("p", {class: "quiz-given-big", dir: "ltr"}, withUnit(q, Number(value)));
    if (q.kind === "text") return h("p", {class: "quiz-given-text", dir: "auto", "data-verbatim": ""}, String(value));
    const list = Array.isArray(value) ? value : [Number(value)];
    return h(q.kind === "order" ? "ol" : "ul", {class: "quiz-sent-list" + (q.kind === "order" ? " order" : "")},
      list.map((i) => h("li", {class: "quiz-tile mine", style: tileStyle(ident(game, q, i))}, optionMark(ident(game, q, i)), optionText(q.options[i]))));
  }

  /* The open question on a phone: the tiles, the toggles and Send (several right), the items to tap in order, the
   * text field, or the keypad with the slider; "Answer locked in" once answered. ``yours`` is what the server has
   * (undefined: nothing yet). */
  function answerPad(game, view, q, yours, act, receivedAt, strict) {
    const key = q.id + ":" + view.index + ":" + q.opens_ms;
    if (entry.key !== key) entry = {key, text: "", picks: [], seq: [], typed: "", sent: null, shownAt: null, refused: null};
    keyboard = null;
    const wrap = h("div", {class: "quiz-pad" + enter("pad", key + ":" + (yours !== undefined || entry.sent !== null)), id: "answer-pad", "data-kind": q.kind});
    if (yours !== undefined || entry.sent !== null) {
      const value = yours !== undefined ? yours : entry.sent;
      add(wrap, h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "big-text quiz-locked", id: "sent"}, value === IN ? t("aud.answer_in") : t("quiz.locked_in")), sentView(game, q, value),
        h("p", {class: "muted"}, t("quiz.wait_others")));
      return wrap;
    }
    const wait = locked(game, q, receivedAt, strict);
    if (wait) entry.shownAt = null;
    else if (entry.shownAt === null) entry.shownAt = performance.now();
    const hint = kindHint(q, "phone");
    const badge = pointsBadge(q);
    add(wrap, h("div", {class: "quiz-phone-head"}, h("p", {class: "quiz-phone-count"}, countLine(view)),
      h("p", {class: "quiz-phone-clock", title: wait ? t("quiz.get_ready") : t("quiz.answer_now")},
        h("span", {class: "countdown small", "data-countdown-to": String(wait ? q.opens_ms : q.closes_ms)}))),
    h("div", {class: "quiz-prompt-box scroll-region"}, prompt(q, "phone")),
    hint || badge ? h("p", {class: "quiz-phone-hint", id: "quiz-hint"}, badge, badge && hint ? " " : null, hint) : null,
    entry.refused ? h("p", {class: "quiz-refused", id: "quiz-refused", role: "alert"}, entry.refused) : null);
    const send = (action, shown, again) => {
      const ms = Math.max(0, Math.round(performance.now() - (entry.shownAt || performance.now())));
      entry.sent = shown;
      entry.refused = null;
      TR.sound && TR.sound.cue("lockin");  /* silent unless this phone's owner turned sound on */
      window.dispatchEvent(new Event("tr-refresh"));  /* "locked in" at once, whether or not a new state follows */
      act(action, {ms}).then((answer) => {
        if (!answer || answer.ok) return;
        const code = answer.error && answer.error.code;
        /* a tap right at the unlock that reached the room just before it opened: the same tap, once more */
        if (!again && (code === "not_your_turn" || code === "not_yet") && entry.key === key) {
          setTimeout(() => { if (entry.key === key) send(action, shown, true); }, 300);
          return;
        }
        if (entry.key !== key) return;
        entry.sent = code === "already_answered" ? IN : null;
        /* refused: the controls come back, with what was picked, and the pad says so (not only the toast) */
        if (entry.sent === null) entry.refused = t("quiz.not_taken", {why: TR.errorText(answer.error)});
        window.dispatchEvent(new Event("tr-refresh"));
      });
    };
    const order = shownOrder(q);
    /* two columns only for many short options: long ones read on one line each, in a region that scrolls above the
     * Send button (never pushed off the screen) */
    const shortTexts = order.every((i) => Array.from(localized(q.options[i])).length <= 16);
    const six = (order.length > 4 && shortTexts ? " six" : "") + " scroll-region";
    if (q.kind === "choice" || q.kind === "poll") {
      add(wrap, h("div", {class: "quiz-buttons" + six, id: "quiz-buttons"}, order.map((i) => h("button", {
        class: "quiz-tile quiz-button", style: tileStyle(ident(game, q, i)), "data-choice": i, disabled: wait,
        "aria-label": TR.letter(ident(game, q, i)) + " " + localized(q.options[i]),
        onclick: () => send({choice: i}, i)}, optionMark(ident(game, q, i)), optionText(q.options[i])))));
      return wrap;
    }
    if (q.kind === "multi") {
      const sendButton = h("button", {class: "big primary quiz-send", id: "quiz-send", disabled: wait || !entry.picks.length,
        onclick: () => { if (entry.picks.length) send({multi: entry.picks.slice().sort((a, b) => a - b)}, entry.picks.slice().sort((a, b) => a - b)); }},
      t("quiz.send_picks", {n: entry.picks.length}));
      const buttons = order.map((i) => {
        const on = entry.picks.includes(i);
        const button = h("button", {class: "quiz-tile quiz-button toggle" + (on ? " on" : ""), style: tileStyle(ident(game, q, i)), "data-pick": i,
          "aria-pressed": on ? "true" : "false", disabled: wait,
          onclick: () => {
            const now = !entry.picks.includes(i);
            entry.picks = now ? entry.picks.concat([i]) : entry.picks.filter((x) => x !== i);
            button.classList.toggle("on", now);
            button.setAttribute("aria-pressed", now ? "true" : "false");
            sendButton.disabled = !entry.picks.length;
            sendButton.textContent = t("quiz.send_picks", {n: entry.picks.length});
          }},
        h("span", {class: "quiz-check", "aria-hidden": "true"}), optionMark(ident(game, q, i)), optionText(q.options[i]));
        return button;
      });
      add(wrap, h("div", {class: "quiz-buttons" + six, id: "quiz-buttons"}, buttons), sendButton);
      return wrap;
    }
    if (q.kind === "order") {
      const n = order.length;
      const buttons = {};
      const sendButton = h("button", {class: "big primary quiz-send", id: "quiz-send", disabled: wait || entry.seq.length !== n,
        onclick: () => { if (entry.seq.length === n) send({order: entry.seq.slice()}, entry.seq.slice()); }}, t("quiz.send_order"));
      const undo = h("button", {class: "quiz-undo", id: "quiz-undo", type: "button", disabled: wait || !entry.seq.length,
        onclick: () => { entry.seq = entry.seq.slice(0, -1); refresh(); }}, t("quiz.undo"));
      const clearAll = h("button", {class: "quiz-clear", id: "quiz-clear", type: "button", disabled: wait || !entry.seq.length,
        onclick: () => { entry.seq = []; refresh(); }}, t("quiz.clear"));
      function refresh() {
        for (const i of order) {
          const place = entry.seq.indexOf(i);
          const b = buttons[i];
          b.classList.toggle("placed", place >= 0);
          b.setAttribute("aria-pressed", place >= 0 ? "true" : "false");
          b.querySelector(".quiz-order-n").textContent = place >= 0 ? num(place + 1) : "";
        }
        sendButton.disabled = wait || entry.seq.length !== n;
        undo.disabled = clearAll.disabled = wait || !entry.seq.length;
      }
      for (const i of order) {
        buttons[i] = h("button", {class: "quiz-tile quiz-button orderable", style: tileStyle(ident(game, q, i)), "data-item": i, disabled: wait,
          "aria-pressed": "false",
          onclick: () => {
            if (entry.seq.includes(i)) return;  /* placed: Undo or Clear takes it back */
            entry.seq = entry.seq.concat([i]);
            if (entry.seq.length === n - 1) entry.seq = entry.seq.concat(order.filter((x) => !entry.seq.includes(x)));  /* the last goes last */
            refresh();
          }},
        h("span", {class: "quiz-order-n", "aria-hidden": "true"}), optionMark(ident(game, q, i)), optionText(q.options[i]));
      }
      refresh();
      add(wrap, h("div", {class: "quiz-buttons order" + six, id: "quiz-buttons"}, order.map((i) => buttons[i])),
        h("div", {class: "quiz-order-tools"}, undo, clearAll, sendButton));
      return wrap;
    }
    if (q.kind === "text") {
      const input = h("input", {type: "text", id: "quiz-text", class: "quiz-text", maxlength: 100, autocomplete: "off", autocorrect: "off",
        autocapitalize: "off", spellcheck: "false", enterkeyhint: "send", inputmode: "text", dir: "auto", "data-verbatim": "",
        "aria-label": t("quiz.type_answer"), placeholder: t("quiz.type_here"), value: entry.typed, disabled: wait,
        oninput: (e) => { entry.typed = e.target.value; sendButton.disabled = !entry.typed.trim(); }});
      const go = () => { const text = entry.typed.trim(); if (text) send({text}, text); };
      const sendButton = h("button", {class: "big primary quiz-send", id: "quiz-send", type: "submit", disabled: wait || !entry.typed.trim()}, t("camp.send"));
      add(wrap, h("form", {class: "quiz-text-form", id: "quiz-text-form", onsubmit: (e) => { e.preventDefault(); go(); }}, input, sendButton));
      return wrap;
    }
    /* a number: the keypad of every question game (TR.numberPad; its styles: .camp .keypad) and a slider beside it */
    const pad = TR.numberPad(entry, {disabled: wait, send: (text) => send({answer: text}, TR.western(text))});
    const slider = q.slider && typeof q.slider.low === "number" && typeof q.slider.high === "number" && q.slider.high > q.slider.low ? q.slider : null;
    let range = null;
    if (slider) {
      const typed = Number(TR.western(entry.text));
      const at = entry.text ? Math.min(slider.high, Math.max(slider.low, typed)) : slider.low + Math.round((slider.high - slider.low) / 2 / (slider.step || 1)) * (slider.step || 1);
      range = h("input", {type: "range", id: "quiz-slider", class: "quiz-slider", min: slider.low, max: slider.high, step: slider.step || 1,
        value: at, disabled: wait, "aria-label": t("quiz.slider"), "data-verbatim": "",  /* its value is no text on screen */
        oninput: (e) => {
          entry.text = TR.digits(String(Number(e.target.value)));
          pad.display.textContent = num(Number(e.target.value));
          e.target.setAttribute("aria-valuetext", withUnit(q, Number(e.target.value)));
        }});
      /* the keypad moves the slider: what is typed and where the slider stands are one value */
      pad.keypad.addEventListener("click", () => {
        if (entry.text) range.value = String(Math.min(slider.high, Math.max(slider.low, Number(TR.western(entry.text)))));
      });
    }
    add(wrap, h("div", {class: "camp quiz-numpad"}, h("div", {class: "quiz-display-line"}, pad.display,
      q.unit ? h("span", {class: "quiz-unit", dir: "auto", "data-verbatim": ""}, localized(q.unit)) : null),
    range ? h("div", {class: "quiz-slider-box"}, range, h("div", {class: "quiz-slider-ends"},
      h("span", null, withUnit(q, slider.low)), h("span", null, withUnit(q, slider.high)))) : null,
    pad.keypad));
    keyboard = pad.keyboard;
    return wrap;
  }

  function place(view, slot) {
    return t("quiz.your_place", {place: view.places[slot], n: view.players.length});
  }

  /* The verdict of a player's answer (finding 6: "Right!" only when right; "Closest!" where closest is not right). */
  function verdict(q, r) {
    if (r.value === null || r.value === undefined) return {cls: "bad", text: t("quiz.no_answer")};
    if (q.kind === "poll" || r.right === null) return {cls: "good", text: t("quiz.voted")};
    if (r.right) return {cls: "good", text: t("quiz.you_right")};
    if (q.kind === "numeric" && r.closest) return {cls: "near", text: t("quiz.you_closest")};
    if (r.points > 0) return {cls: "near", text: t("quiz.you_partly")};
    return {cls: "bad", text: t("quiz.you_wrong")};
  }

  /* How far a number was off, or how much of an order or a choice of several was right. */
  function howFar(q, r, reveal) {
    if (r.value === null || r.value === undefined) return null;
    if (q.kind === "numeric" && typeof reveal.correct === "number") {
      const off = Math.abs(Number(r.value) - reveal.correct);
      if (!off) return h("p", {class: "quiz-off", id: "my-off"}, t("quiz.exact"));
      return h("p", {class: "quiz-off", id: "my-off"}, t("quiz.off_by", {x: withUnit(q, off)}),
        typeof reveal.margin === "number" ? [sep(), t(off <= reveal.margin ? "quiz.within_margin" : "quiz.outside_margin", {x: withUnit(q, reveal.margin)})] : null);
    }
    if (q.kind === "order" && Array.isArray(r.value)) {
      const sequence = sequenceOf(q, reveal);
      const placed = r.value.filter((v, k) => v === sequence[k]).length;
      return h("p", {class: "quiz-off", id: "my-off"}, t("quiz.in_place", {right: placed, n: q.options.length}));
    }
    return null;
  }

  /* The result of the last question on a player's phone. */
  function phoneReveal(game, view, me) {
    const q = view.question;
    const reveal = view.reveal;
    const r = reveal.results.find((x) => x.slot === me) || {value: null, right: false, points: 0, streak: 0};
    const p = playerOf(view, me);
    if ((p.joined || 0) > view.index) {  /* a latecomer who came after this question closed (QUIZ-S14) */
      return h("div", {class: "quiz-result" + enter("res", view.index), id: "my-result"},
        h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "quiz-verdict", id: "verdict"}, t("quiz.joined_next")),
        answerLine(game, q, "quiz-truth", q.kind === "multi" ? "quiz.correct_are" : q.kind === "order" ? "quiz.correct_order" : "quiz.correct_is",
          q.kind === "poll" ? null : reveal.correct, "truth"));
    }
    const v = verdict(q, r);
    if (q.kind !== "poll" && r.right !== null) TR.sound && TR.sound.cue(v.cls === "bad" ? "wrong" : "right", view.index);
    const truthKey = q.kind === "multi" ? "quiz.correct_are" : q.kind === "order" ? "quiz.correct_order" : "quiz.correct_is";
    return h("div", {class: "quiz-result" + enter("res", view.index), id: "my-result"},
      h("p", {class: "quiz-phone-count"}, countLine(view)),
      h("p", {class: "quiz-verdict " + v.cls, id: "verdict"}, v.text),
      q.kind === "poll" ? null : h("p", {class: "quiz-gain", id: "my-points"}, t("quiz.gained_points", {n: r.points || 0})),
      (r.streak || 0) >= 2 && r.right ? h("p", {class: "quiz-streak-line", id: "my-streak"}, t("quiz.streak_line", {n: r.streak})) : null,
      howFar(q, r, reveal),
      answerLine(game, q, "quiz-yours", q.kind === "order" ? "quiz.your_order" : "quiz.your_answer", r.value, "my-answer", r.right ? undefined : false),
      r.right || q.kind === "poll" ? null : answerLine(game, q, "quiz-truth", truthKey, reveal.correct, "truth"),
      h("p", {class: "quiz-place-line", id: "my-place"}, place(view, me), sep(), t("quiz.points", {n: p.score})));
  }

  /* The leaderboard on a phone: the top five and, below, this player if not among them. */
  function phoneBoard(game, view, me) {
    const top = view.ranking.slice(0, 5);
    if (me !== null && me !== undefined && !top.includes(me)) top.push(me);
    return h("ol", {class: "quiz-phone-board", id: "standings"}, top.map((slot) => h("li", {class: slot === me ? "me" : "", "data-slot": slot},
      h("span", {class: "quiz-place"}, num(view.places[slot])), TR.seatMark(game, slot, 22),
      h("span", {class: "quiz-board-name"}, h("bdi", {class: "name"}, nameOf(game, slot)), botTag(game, slot)),
      h("span", {class: "quiz-score"}, num(playerOf(view, slot).score)))));
  }

  function myTeam(view, me, game) {
    if (!view.teams || me === null || me === undefined) return null;
    const team = view.teams.find((x) => x.members.includes(me));
    if (!team) return null;
    /* at the end the place is the game's outcome's (view.final), as on the TV's table and podium (finding 4) */
    const over = view.final || (game && game.outcome);
    const final = over ? finalOrder(view, game).placeOf(me) : null;
    if (final) {
      return h("p", {class: "quiz-my-team big", id: "my-team", "data-place": final}, teamSwatch(team.index),
        h("span", null, final === 1 ? t("quiz.team_won", {team: teamName(team.index)}) : t("quiz.team_place", {team: teamName(team.index), place: final})));
    }
    return h("p", {class: "quiz-my-team", id: "my-team"}, teamSwatch(team.index),
      h("span", null, teamName(team.index), ": ", t("quiz.place_n", {n: team.place}), sep(), t("quiz.points", {n: team.score})));
  }

  function phoneStats(game, view, me) {
    const p = playerOf(view, me);
    return h("dl", {class: "quiz-my-stats", id: "my-stats"},
      h("dt", null, t("quiz.col_score")), h("dd", null, num(p.score)),
      h("dt", null, t("quiz.col_right")), h("dd", {id: "my-right"}, t("quiz.right_of", {right: p.right || 0, n: Math.max(0, closed(view) - (p.joined || 0))})),
      h("dt", null, t("quiz.col_time")), h("dd", null, p.avg_ms === null || p.avg_ms === undefined ? "—" : secs(p.avg_ms)),
      h("dt", null, t("quiz.col_streak")), h("dd", null, num(p.best_streak || 0)));
  }

  function phone(el, game, state, act, receivedAt) {
    el.classList.add("quiz");
    const view = game.view;
    const me = game.you;
    keyboard = null;
    if (view.phase === "over" || game.aborted || game.outcome) {
      el.append(...[myTeam(view, me, game), phoneStats(game, view, me)].filter(Boolean));  /* the page says the place */
      return;
    }
    const q = view.question;
    if (view.phase === "question" && q && view.time_up) {  /* QUIZ-X1: its window passed while a longer one runs */
      el.append(...[myTeam(view, me, game), h("div", {class: "quiz-result", id: "time-up-box"},
        h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "big-text quiz-locked", id: "time-up", role: "status"}, t("xtime.time_up")))].filter(Boolean));
      return;
    }
    if (view.phase === "question" && q) {
      el.append(...[myTeam(view, me, game), answerPad(game, view, q, view.yours === null || view.yours === undefined ? undefined : view.yours, act, receivedAt)].filter(Boolean));
      return;
    }
    if (view.phase === "reveal" && view.reveal) { el.append(...[phoneReveal(game, view, me), myTeam(view, me, game)].filter(Boolean)); return; }
    el.append(h("div", {class: "quiz-phone-standings" + enter("st", view.index)},
      h("p", {class: "quiz-phone-count"}, t("quiz.leaderboard")),
      h("p", {class: "quiz-place-line big", id: "my-place"}, place(view, me), sep(), t("quiz.points", {n: playerOf(view, me).score})),
      myTeam(view, me, game), phoneBoard(game, view, me), nextButton(view, state)));
  }

  /* A phone that only watches (no audience board in this room, or a question the audience does not answer): what
   * happens now in a few lines. */
  function watcher(el, game, state) {
    const view = game.view;
    if (view.phase === "over" || game.aborted || game.outcome) { el.append(phoneBoard(game, view, null)); return; }
    const q = view.question;
    const parts = [h("p", {class: "quiz-phone-count"}, countLine(view))];
    if (q) parts.push(prompt(q, "phone"));
    if (view.phase === "question" && q && q.options && q.options.length && q.kind !== "numeric" && q.kind !== "text") {
      parts.push(h("ol", {class: "quiz-watch-options scroll-region"}, shownOrder(q).map((i) => h("li", {class: "quiz-tile", style: tileStyle(ident(game, q, i))},
        optionMark(ident(game, q, i)), optionText(q.options[i])))));
    } else if (view.phase === "reveal" && view.reveal && q && q.kind !== "poll") {
      const truthKey = q.kind === "multi" ? "quiz.correct_are" : q.kind === "order" ? "quiz.correct_order" : "quiz.correct_is";
      parts.push(answerLine(game, q, "quiz-truth good", truthKey, view.reveal.correct, "truth"));
    } else if (view.phase === "standings") parts.push(phoneBoard(game, view, null));
    parts.push(h("p", {class: "muted", id: "watch-tv"}, state && state.audience && state.audience.watch ? t("quiz.aud_watch") : t("quiz.watch_tv")));
    el.append(h("div", {class: "quiz-watching" + enter("watch", view.phase + view.index), id: "quiz-watching"}, parts));
  }

  /* A spectator's phone: the open question with the players' own controls (its answer goes to the audience, never to
   * the game), its own result after the reveal, the leaderboard in between. The audience answers choice, poll and
   * number questions; the others it watches on the TV (host/audience.py). */
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
    const answers = q && ["choice", "poll", "numeric"].includes(q.kind) && !state.audience.watch;
    if (view.phase === "question" && q && answers) {
      const yours = current && mine.yours !== null && mine.yours !== undefined ? mine.yours : undefined;
      el.append(...[total || h("p", {class: "quiz-aud-banner", id: "aud-banner"}, t("aud.play_along")),
        answerPad(game, view, q, yours, act, receivedAt, true)].filter(Boolean));
      return;
    }
    if (view.phase === "reveal" && view.reveal && q && answers) {
      const r = current ? mine.result : null;
      el.append(h("div", {class: "quiz-result" + enter("res", view.index), id: "aud-result"},
        h("p", {class: "quiz-phone-count"}, countLine(view)),
        h("p", {class: "quiz-verdict " + (r ? (r.right || q.kind === "poll" ? "good" : "bad") : ""), id: "aud-points"},
          r ? (q.kind === "poll" ? t("quiz.voted") : t("aud.got", {n: r.points})) : t("aud.no_answer")),
        r ? answerLine(game, q, "quiz-yours", "quiz.your_answer", r.value, "aud-answer") : null,
        q.kind === "poll" ? null : answerLine(game, q, "quiz-truth", "quiz.correct_is", view.reveal.correct, "truth"),
        total));
      return;
    }
    if (total) el.append(total);
    watcher(el, game, state);
  }

  /* ----- motion (issue [18]: TR.motion in common.js; docs/screens.md, "Motion") ----- */

  /* After a screen is drawn, the way to it: the reveal's bars grow; the leaderboard's rows glide from their places
   * before the last question to their new ones (on the TV and the phones' boards), the marks ▲2 / ▼1 coming in after,
   * the scores counting up from the totals before it; at the end the podium rises third, second, first, the rest of
   * the table after. Every screen holds its end state already (texts, places, the Next button), so that nothing waits
   * for the motion; the ids name the game's moment, so that a redraw goes on with a run and never starts it again. */
  const MOTION = "quiz:";
  const PODIUM_GAP_MS = 900;
  function moves(el, game, view) {
    if (!view) return;
    if (view.phase === "question" && view.index === 0) TR.motion.reset(MOTION);  /* a new game: its screens move again */
    const at = MOTION + view.index + ":" + (view.question ? view.question.id : "") + ":";
    const gained = (slot) => {
      const r = view.reveal && (view.reveal.results || []).find((x) => x.slot === slot);
      return r ? r.points || 0 : 0;
    };
    const count = (li, slot, key, delay) => {
      const score = li.querySelector(".quiz-score");
      const total = playerOf(view, slot).score;
      if (score) TR.motion.countUp(score, total - gained(slot), total, null, {key: at + key + ":" + slot, delay});
    };
    if (view.phase === "over" || game.aborted || game.outcome) {
      const podium = el.querySelector("#quiz-podium");
      if (!podium) return;
      /* lowest place first; tied steps (the same place) from the reader's end */
      const steps = Array.from(podium.children).map((li, i) => ({li, i, place: Number(li.dataset.place) || 0}))
        .sort((a, b) => b.place - a.place || b.i - a.i).map((x) => x.li);
      TR.motion.reveal(steps, PODIUM_GAP_MS, at + "podium");
      steps.forEach((li, i) => { if (li.dataset.slot !== undefined) count(li, Number(li.dataset.slot), "podium", i * PODIUM_GAP_MS); });
      TR.motion.reveal([el.querySelector("#audience-winner"), el.querySelector("#quiz-stats"), el.querySelector("#quiz-bot-note")].filter(Boolean),
        0, {key: at + "rest", delay: steps.length * PODIUM_GAP_MS, keyframes: [{opacity: 0}, {opacity: 1}]});
      return;
    }
    if (view.phase === "reveal") {
      TR.motion.grow(el.querySelectorAll("#quiz-tiles .quiz-count-bar .bar"), 120, at + "bars");
      return;
    }
    if (view.phase !== "standings") return;
    const previous = view.previous_places || [];
    for (const list of el.querySelectorAll("#quiz-board, #standings")) {
      const rows = Array.from(list.children).filter((li) => li.dataset.slot !== undefined);
      const keys = rows.map((li) => li.dataset.slot);
      /* the order before the last question (its places; tied rows in today's order) */
      const before = keys.slice().sort((a, b) => (previous[a] ?? 0) - (previous[b] ?? 0) || keys.indexOf(a) - keys.indexOf(b));
      TR.motion.flip(list, "data-slot", before, at + list.id);
      for (const li of rows) {
        const slot = Number(li.dataset.slot);
        count(li, slot, list.id, 0);
        TR.motion.reveal([li.querySelector(".quiz-move.up, .quiz-move.down")].filter(Boolean), 0,
          {key: at + list.id + ":mark:" + slot, delay: 650, keyframes: [{opacity: 0, transform: "scale(0.3)"}, {opacity: 1, transform: "none"}]});
      }
    }
  }

  const withMotion = (draw) => (el, game, ...rest) => { draw(el, game, ...rest); moves(el, game, game.view); };

  return {tv: withMotion(tv), phone: withMotion(phone), audience: withMotion(audience), screenKey};
})();
