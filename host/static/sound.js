/* Throneroom's sound: every cue and both music beds are synthesised here, in the browser, with the Web Audio API —
 * original, made for this project, no sound files and nothing from the internet (docs/sound.md).
 *
 *   TR.sound.cue(name, key)    an effect cue; with ``key``, a cue already played under the same key is not played again
 *                              (a redraw of the same state replays nothing). An unknown name throws.
 *   TR.sound.music(name, opts) the music bed: "lobby", "question" or null (silence); opts.endsAt (performance.now()
 *                              time the question closes) raises the tension in its last five seconds by itself.
 *   TR.sound.tension(on)       the question bed's last seconds: faster, brighter, a soft tick each second.
 *   TR.sound.room(phase)       tv.js's one call per state: the lobby's loop in the lobby, silence after a game.
 *
 * The browser lets a page make sound only after a gesture: the TV shows a clear "Sound on" button in its header while
 * sound is off, and the AudioContext is created (or resumed) only inside that tap; the choice is remembered per TV
 * (localStorage throneroom.tv.sound). A phone stays silent until its owner turns sound on (throneroom.phone.sound).
 * Music and effects have their own gain (volumes 0..100 in throneroom.tv.music / throneroom.tv.effects); the music is
 * ducked (lowered smoothly) under each effect. Every cue has a visual twin (CUES[name].twin), the thing on screen it
 * accompanies. */
"use strict";

(() => {
  const {t, h} = TR;
  const onTv = document.body.classList.contains("tv");
  const KEYS = {sound: onTv ? "throneroom.tv.sound" : "throneroom.phone.sound", music: "throneroom.tv.music",
    effects: "throneroom.tv.effects", motion: "throneroom.tv.motion"};
  const DEFAULTS = {music: 40, effects: 70};
  const PHONE_EFFECTS = 60;  /* a phone has no volume of its own: the phone's own volume buttons do that */

  /* The settings are plain strings ("on", "40"), as the contract says; a value written as JSON ('"on"') reads too. */
  function read(key, fallback) {
    try {
      let value = localStorage.getItem(key);
      if (value === null) return fallback;
      if (value.startsWith("\"")) value = JSON.parse(value);
      return value;
    } catch (e) { return fallback; }
  }
  function write(key, value) {
    try { localStorage.setItem(key, String(value)); } catch (e) { /* private mode: for this visit only */ }
  }
  function level(name) {
    const n = Number(read(KEYS[name], DEFAULTS[name]));
    return Number.isFinite(n) ? Math.min(100, Math.max(0, Math.round(n))) : DEFAULTS[name];
  }

  /* ----- the instruments ----- */

  const NOTE = (name) => {  /* "A4" → 440 Hz, "C#5", "Bb3" */
    const m = /^([A-G])([#b]?)(-?\d)$/.exec(name);
    const semis = {C: -9, D: -7, E: -5, F: -4, G: -2, A: 0, B: 2}[m[1]] + (m[2] === "#" ? 1 : m[2] === "b" ? -1 : 0);
    return 440 * Math.pow(2, (semis + (Number(m[3]) - 4) * 12) / 12);
  };

  let ctx = null;
  let nodes = null;  /* {master, music, duck, bed, effects} */
  let noiseBuffer = null;
  let meter = null;
  let created = 0;  /* audio nodes made for sounds (tests read it: a cue that plays makes nodes) */

  /* One note: an oscillator (and a second an octave up for a bell) through a low-pass filter and a soft envelope. */
  function tone(dest, {freq, at, dur, peak, type, attack, cutoff, bell, glide}) {
    const osc = ctx.createOscillator();
    const env = ctx.createGain();
    const filter = ctx.createBiquadFilter();
    created += 3;
    osc.type = type || "triangle";
    osc.frequency.setValueAtTime(freq, at);
    if (glide) osc.frequency.exponentialRampToValueAtTime(glide, at + dur);
    filter.type = "lowpass";
    filter.frequency.value = cutoff || 2400;
    filter.Q.value = 0.5;
    const rise = attack || 0.012;
    env.gain.setValueAtTime(0, at);
    env.gain.linearRampToValueAtTime(peak, at + rise);
    env.gain.setTargetAtTime(0, at + rise, Math.max(0.015, (dur - rise) / 5));  /* ~0 by the stop: no click */
    osc.connect(filter).connect(env).connect(dest);
    osc.start(at);
    osc.stop(at + dur + 0.1);
    if (bell) {
      const shine = ctx.createOscillator();
      const shineEnv = ctx.createGain();
      created += 2;
      shine.type = "sine";
      shine.frequency.setValueAtTime(freq * 2, at);
      shineEnv.gain.setValueAtTime(0, at);
      shineEnv.gain.linearRampToValueAtTime(peak * 0.35, at + 0.005);
      shineEnv.gain.setTargetAtTime(0, at + 0.005, dur / 6);
      shine.connect(shineEnv).connect(dest);
      shine.start(at);
      shine.stop(at + dur + 0.1);
    }
  }

  /* A held chord tone for the pads: slow attack and release, a little detune for warmth. */
  function pad(dest, {freq, at, dur, peak, cutoff}) {
    for (const detune of [-6, 6]) {
      const osc = ctx.createOscillator();
      const env = ctx.createGain();
      const filter = ctx.createBiquadFilter();
      created += 3;
      osc.type = "sawtooth";
      osc.frequency.value = freq;
      osc.detune.value = detune;
      filter.type = "lowpass";
      filter.frequency.value = cutoff || 900;
      env.gain.setValueAtTime(0, at);
      env.gain.linearRampToValueAtTime(peak / 2, at + Math.min(0.5, dur / 3));
      env.gain.setValueAtTime(peak / 2, at + dur * 0.75);
      env.gain.linearRampToValueAtTime(0, at + dur + 0.4);
      osc.connect(filter).connect(env).connect(dest);
      osc.start(at);
      osc.stop(at + dur + 0.5);
    }
  }

  /* A breath of noise: a shaker, a card's flick, a drum's skin (band-passed around ``freq``). */
  function noise(dest, {at, dur, peak, freq, q}) {
    if (!noiseBuffer) {
      noiseBuffer = ctx.createBuffer(1, ctx.sampleRate, ctx.sampleRate);
      const data = noiseBuffer.getChannelData(0);
      let seed = 12345;  /* the same noise every time: a tiny linear congruential generator */
      for (let i = 0; i < data.length; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; data[i] = seed / 1073741824 - 1; }
    }
    const source = ctx.createBufferSource();
    const filter = ctx.createBiquadFilter();
    const env = ctx.createGain();
    created += 3;
    source.buffer = noiseBuffer;
    filter.type = "bandpass";
    filter.frequency.value = freq || 6000;
    filter.Q.value = q || 0.8;
    env.gain.setValueAtTime(0, at);
    env.gain.linearRampToValueAtTime(peak, at + 0.004);
    env.gain.setTargetAtTime(0, at + 0.004, dur / 4);
    source.connect(filter).connect(env).connect(dest);
    source.start(at, Math.random() * 0.5);
    source.stop(at + dur + 0.05);
  }

  /* A soft drum: a sine that falls in pitch. */
  function thump(dest, at, peak) {
    tone(dest, {freq: 150, glide: 50, at, dur: 0.35, peak, type: "sine", attack: 0.004, cutoff: 800});
  }

  /* ----- the cues: each schedules its notes from ``at`` into ``out`` and says how long it lasts (for the duck) ----- */

  const notes = (list) => list.split(" ").map(NOTE);
  const CUES = {
    lockin: {twin: "#quiz-answered-count, .camp .answered, #sent",
      says: "an answer is in: the TV's count of answers goes up (a mark lights); on the phone, \"Answer locked in\"",
      play(out, at) {
        notes("E5 A5").forEach((f, i) => tone(out, {freq: f, at: at + i * 0.07, dur: 0.22, peak: 0.22, type: "sine", bell: true}));
        return 0.3;
      }},
    right: {twin: "#verdict.good, #my-result.good",
      says: "the phone's verdict \"Right!\" in green",
      play(out, at) {
        notes("C5 E5 G5 C6").forEach((f, i) => tone(out, {freq: f, at: at + i * 0.075, dur: 0.5, peak: 0.18, bell: true}));
        return 0.7;
      }},
    wrong: {twin: "#verdict.bad, #verdict.near, #my-result.bad",
      says: "the phone's verdict \"Not this time\" (or \"Closest\"/\"Partly\")",
      play(out, at) {
        tone(out, {freq: NOTE("E4"), at, dur: 0.3, peak: 0.18, cutoff: 1200});
        tone(out, {freq: NOTE("C4"), glide: NOTE("B3"), at: at + 0.16, dur: 0.5, peak: 0.18, cutoff: 1000});
        return 0.6;
      }},
    reveal: {twin: "#quiz-results, .quiz-reveal, .camp .reveal-table, .camp .options.revealed, #truth",
      says: "the reveal: the right answer marked, the bars and everyone's result",
      play(out, at) {
        noise(out, {at, dur: 0.6, peak: 0.05, freq: 3000, q: 0.4});
        notes("G4 C5 E5 G5 D6").forEach((f, i) => tone(out, {freq: f, at: at + 0.05 + i * 0.05, dur: 0.9, peak: 0.11, bell: true}));
        return 0.9;
      }},
    leaderboard: {twin: "#standings, .quiz-standings, #quiz-board",
      says: "the leaderboard: the rows with their places and scores",
      play(out, at) {
        const beat = 0.12;
        thump(out, at, 0.25);
        notes("G4 C5 E5").forEach((f, i) => tone(out, {freq: f, at: at + i * beat, dur: 0.25, peak: 0.15, type: "square", cutoff: 1600}));
        tone(out, {freq: NOTE("G5"), at: at + 3 * beat, dur: 0.6, peak: 0.14, type: "square", cutoff: 1800});
        noise(out, {at: at + 3 * beat, dur: 0.3, peak: 0.05, freq: 7000});
        return 0.9;
      }},
    podium: {twin: "#ranking, #quiz-over, .camp-final, [data-place='1']",
      says: "the results: the podium and the ranking",
      play(out, at) {
        /* a short fanfare: three pick-ups and a held major chord, brass-like (filtered sawtooth) */
        const brass = (f, when, dur, peak) => tone(out, {freq: f, at: when, dur, peak, type: "sawtooth", attack: 0.03, cutoff: 2000});
        const beat = 0.14;
        [0, 1, 2].forEach((i) => brass(NOTE("G4"), at + i * beat, 0.16, 0.11));
        notes("C4 G4 C5 E5").forEach((f) => brass(f, at + 3 * beat, 1.3, 0.08));
        [0, 1].forEach((i) => thump(out, at + i * 3 * beat, 0.3));
        brass(NOTE("F5"), at + 3 * beat + 0.9, 0.18, 0.08);
        notes("C4 A4 C5 F5").forEach((f) => brass(f, at + 3 * beat + 1.05, 0.5, 0.05));
        notes("C4 G4 C5 E5 G5").forEach((f) => brass(f, at + 3 * beat + 1.3, 1.2, 0.07));
        thump(out, at + 3 * beat + 1.3, 0.3);
        noise(out, {at: at + 3 * beat + 1.3, dur: 1, peak: 0.04, freq: 8000, q: 0.3});
        return 3 * beat + 2.5;
      }},
    conquest: {twin: ".camp .feed, .camp-map",
      says: "a territory changes hands: its colour on the map and the line in the feed",
      play(out, at) {
        thump(out, at, 0.35);
        thump(out, at + 0.18, 0.3);
        notes("D4 A4 D5").forEach((f, i) => tone(out, {freq: f, at: at + 0.05 + i * 0.12, dur: 0.5, peak: 0.12, type: "sawtooth", attack: 0.02, cutoff: 1400}));
        tone(out, {freq: NOTE("F#5"), at: at + 0.42, dur: 0.6, peak: 0.1, type: "sawtooth", attack: 0.02, cutoff: 1600});
        return 1;
      }},
    card: {twin: ".h-log-list, .a-log, .c-feed, [data-hier-step], [data-step]",
      says: "a card is played: the line of play and the move log's newest line",
      play(out, at) {
        noise(out, {at, dur: 0.12, peak: 0.12, freq: 4500, q: 1.2});
        tone(out, {freq: NOTE("A5"), at: at + 0.04, dur: 0.18, peak: 0.08, type: "sine", bell: true});
        return 0.2;
      }},
    unlock: {twin: ".quiz-clock-label, #answer-pad, .camp .q-card",
      says: "the question opens: the options unlock, \"Answer now\"",
      play(out, at) {
        tone(out, {freq: NOTE("A5"), at, dur: 0.35, peak: 0.16, type: "sine", bell: true});
        return 0.3;
      }},
    tick: {twin: "[data-countdown-to]", duck: false,
      says: "the countdown's number, each of the last five seconds",
      play(out, at) {
        tone(out, {freq: 1500, at, dur: 0.05, peak: 0.1, type: "sine", attack: 0.002});
        noise(out, {at, dur: 0.03, peak: 0.05, freq: 2500, q: 3});
        return 0.05;
      }},
    tower: {twin: ".camp-map, .camp .feed",
      says: "a tower is built: the tower mark on the map and its line in the feed",
      play(out, at) {
        tone(out, {freq: NOTE("G3"), at, dur: 0.4, peak: 0.16, bell: true, cutoff: 1200});
        tone(out, {freq: NOTE("D4"), at: at + 0.18, dur: 0.6, peak: 0.16, bell: true, cutoff: 1200});
        thump(out, at + 0.18, 0.2);
        return 0.8;
      }},
  };
  const ALIASES = {end: "podium"};  /* the old TR.sound.play("end") */

  /* ----- the music beds: a scheduler looks half a second ahead and lays down each eighth note ----- */

  const BEDS = {
    lobby: {bpm: 92, chords: [["C3", "E4 G4 B4", "C5 E5 G5 B5"], ["A2", "E4 A4 C5", "A4 C5 E5 A5"],
      ["F2", "F4 A4 C5", "A4 C5 F5 A5"], ["G2", "D4 G4 B4", "G4 B4 D5 G5"]],
    step(out, at, eighth, bar, len, tense) {
      const [root, padNotes, arp] = this.chords[bar % this.chords.length];
      if (eighth === 0) notes(padNotes).forEach((f) => pad(out, {freq: f, at, dur: len * 8, peak: 0.05, cutoff: 1100}));
      if (eighth === 0 || eighth === 3 || eighth === 4) tone(out, {freq: NOTE(root) * 2, at, dur: 0.45, peak: 0.16, type: "sine", cutoff: 600});
      if (eighth % 2 === 1) tone(out, {freq: notes(arp)[[0, 2, 1, 3][(eighth >> 1) % 4]], at, dur: 0.5, peak: 0.045, type: "sine", bell: true});
      if (eighth % 2 === 1) noise(out, {at, dur: 0.05, peak: 0.018, freq: 8000});
      return tense;
    }},
    question: {bpm: 112, chords: [["A2", "E4 A4 C5", "A4"], ["F2", "F4 A4 C5", "A4"], ["C3", "E4 G4 C5", "G4"],
      ["E2", "E4 G#4 B4", "G#4"]],
    step(out, at, eighth, bar, len, tense) {
      const [root, padNotes, top] = this.chords[bar % this.chords.length];
      if (eighth === 0) notes(padNotes).forEach((f) => pad(out, {freq: f, at, dur: len * 8, peak: tense ? 0.04 : 0.03, cutoff: tense ? 1800 : 800}));
      tone(out, {freq: NOTE(root) * 2, at, dur: len * 0.9, peak: tense ? 0.13 : 0.1, type: "sawtooth", attack: 0.005, cutoff: tense ? 1400 : 500});
      if (eighth % 2 === 0) noise(out, {at, dur: 0.03, peak: tense ? 0.03 : 0.015, freq: 9000});
      if (eighth === 0 || eighth === 4) thump(out, at, tense ? 0.2 : 0.12);
      if (tense) {  /* the last seconds: sixteenths on top, a semitone higher each bar the clock runs */
        tone(out, {freq: NOTE(top) * 2, at, dur: len * 0.45, peak: 0.05, type: "triangle", cutoff: 2400});
        tone(out, {freq: NOTE(top) * 2, at: at + len / 2, dur: len * 0.45, peak: 0.035, type: "triangle", cutoff: 2400});
      }
      return tense;
    }},
  };

  const bed = {name: null, timer: null, next: 0, eighth: 0, bar: 0, tense: false, tensionTimer: null, endsAt: null};
  function schedule() {
    if (!ctx || !bed.name || ctx.state !== "running") return;
    const music = BEDS[bed.name];
    while (bed.next < ctx.currentTime + 0.5) {
      const len = 60 / (music.bpm * (bed.tense ? 1.2 : 1)) / 2;
      music.step(nodes.bed, Math.max(bed.next, ctx.currentTime + 0.02), bed.eighth, bed.bar, len, bed.tense);
      bed.next += len;
      bed.eighth = (bed.eighth + 1) % 8;
      if (bed.eighth === 0) bed.bar += 1;
    }
  }

  function startBed() {
    if (!ctx || !bed.name || bed.timer) return;
    nodes.bed.gain.cancelScheduledValues(ctx.currentTime);
    nodes.bed.gain.setTargetAtTime(bed.tense ? 1.3 : 1, ctx.currentTime, 0.3);
    bed.next = ctx.currentTime + 0.05;
    bed.eighth = 0;
    bed.bar = 0;
    bed.timer = setInterval(schedule, 100);
    schedule();
  }

  function stopBed() {
    clearInterval(bed.timer);
    bed.timer = null;
    if (ctx) {  /* a fade, not a cut: the notes already laid down fade with the bed */
      nodes.bed.gain.cancelScheduledValues(ctx.currentTime);
      nodes.bed.gain.setTargetAtTime(0, ctx.currentTime, 0.25);
    }
  }

  /* ----- the context, the gains and the duck ----- */

  const DUCK = 0.3;  /* the music's share under an effect */
  function gainOf(volume, top) { return Math.pow(volume / 100, 2) * top; }  /* a volume slider that feels even */
  function applyVolumes() {
    if (!ctx) return;
    const now = ctx.currentTime;
    nodes.music.gain.setTargetAtTime(onTv ? gainOf(level("music"), 0.8) : 0, now, 0.05);
    nodes.effects.gain.setTargetAtTime(gainOf(onTv ? level("effects") : PHONE_EFFECTS, 1), now, 0.05);
  }

  function makeContext() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return false;
    if (!ctx) {
      ctx = new Context();
      const master = ctx.createGain();
      const squeeze = ctx.createDynamicsCompressor();  /* keeps chords and fanfares below clipping, gently */
      squeeze.threshold.value = -14;
      squeeze.ratio.value = 3;
      master.gain.value = 0.9;
      nodes = {master, music: ctx.createGain(), duck: ctx.createGain(), bed: ctx.createGain(), effects: ctx.createGain()};
      nodes.music.gain.value = 0;
      nodes.effects.gain.value = 0;
      nodes.bed.connect(nodes.duck).connect(nodes.music).connect(master);
      nodes.effects.connect(master);
      master.connect(squeeze).connect(ctx.destination);
      meter = ctx.createAnalyser();  /* what reaches the speakers, for peak() */
      meter.fftSize = 2048;
      squeeze.connect(meter);
      applyVolumes();
      ctx.onstatechange = () => { if (ctx.state === "running") startBed(); drawControls(); };
    }
    if (ctx.state === "suspended") ctx.resume();
    return true;
  }

  let duckUntil = 0;
  function duck(seconds) {
    const now = ctx.currentTime;
    const param = nodes.duck.gain;
    duckUntil = Math.max(duckUntil, now + seconds);
    param.cancelScheduledValues(now);
    param.setValueAtTime(param.value, now);
    param.setTargetAtTime(DUCK, now, 0.04);
    param.setTargetAtTime(1, duckUntil, 0.35);
  }

  /* ----- the public face ----- */

  const heard = {};  /* cue name → the key it last played under */
  const played = [];  /* the cues that sounded, newest last (bounded): {name, key, at, nodes, twin} */
  const asked = [];  /* every cue asked for, sounding or not (a silent phone too) */
  function remember(list, entry) { list.push(entry); if (list.length > 100) list.shift(); }

  /* Whether a cue's twin is on screen: an element that matches its selector and takes room (not hidden). */
  function twinShown(name) {
    return Array.from(document.querySelectorAll(CUES[name].twin)).some((el) => el.getClientRects().length > 0);
  }

  function enabled() { return read(KEYS.sound, "off") === "on"; }

  function cue(name, key) {
    const real = ALIASES[name] || name;
    const spec = Object.prototype.hasOwnProperty.call(CUES, real) ? CUES[real] : null;
    if (!spec) throw new Error("TR.sound.cue: unknown cue " + JSON.stringify(name));
    if (key !== undefined && key !== null) {
      const id = typeof key === "string" ? key : JSON.stringify(key);
      if (heard[real] === id) return false;
      heard[real] = id;
    }
    const entry = {name: real, key: key === undefined ? null : key, twin: null, nodes: 0};
    remember(asked, entry);
    /* the twin is on screen once the renderer that asked has drawn (later in the same task) */
    setTimeout(() => { entry.twin = twinShown(real); }, 0);
    if (!enabled() || !ctx || ctx.state !== "running") return false;
    const before = created;
    const at = ctx.currentTime + 0.01;
    const length = spec.play(nodes.effects, at);
    if (spec.duck !== false && bed.name) duck(length);
    entry.nodes = created - before;
    entry.at = at;
    remember(played, entry);
    return true;
  }

  function music(name, options) {
    if (name !== null && name !== undefined && !BEDS[name]) throw new Error("TR.sound.music: unknown bed " + JSON.stringify(name));
    name = onTv ? name || null : null;  /* the phones play no music: the TV has the room's */
    const endsAt = options && typeof options.endsAt === "number" && Number.isFinite(options.endsAt) ? options.endsAt : null;
    if (name !== bed.name) {
      stopBed();
      bed.name = name;
      bed.tense = false;
      startBed();
    }
    if (name !== "question") { armTension(null); return; }
    /* the same close, estimated again from a newer state (the clock moves a little): the tension stays as armed */
    if (endsAt === null ? bed.endsAt !== null : bed.endsAt === null || Math.abs(endsAt - bed.endsAt) > 250) armTension(endsAt);
  }

  /* The question bed turns tense five seconds before ``endsAt`` (performance.now() time), with a tick each second. */
  let ticks = [];
  function armTension(endsAt) {
    bed.endsAt = endsAt;
    clearTimeout(bed.tensionTimer);
    ticks.forEach(clearTimeout);
    ticks = [];
    tension(false);
    if (endsAt === null) return;
    const wait = endsAt - 5000 - performance.now();
    bed.tensionTimer = setTimeout(() => tension(true), Math.max(0, wait));
    for (let s = 5; s >= 1; s--) {
      const when = endsAt - s * 1000 - performance.now();
      if (when >= -50) ticks.push(setTimeout(() => { if (bed.name === "question") cue("tick"); }, Math.max(0, when)));
    }
  }

  function tension(on) {
    on = !!on;
    if (bed.tense === on) return;
    bed.tense = on;
    if (ctx && bed.name) nodes.bed.gain.setTargetAtTime(on ? 1.3 : 1, ctx.currentTime, 0.4);
  }

  /* tv.js's one call per state: the lobby's loop in the lobby; the lobby's loop stops when a game starts (the game
   * then asks for its own bed); silence on the results (the podium's fanfare plays there). */
  function room(phase) {
    if (phase === "lobby") { music("lobby"); delete heard.podium; }  /* the next game's results: a fanfare again */
    else if (phase !== "playing" || bed.name === "lobby") music(null);
  }

  function turnOn() {
    write(KEYS.sound, "on");
    if (!makeContext()) return;
    applyVolumes();
    startBed();
    drawControls();
  }

  function turnOff() {
    write(KEYS.sound, "off");
    if (ctx) { clearInterval(bed.timer); bed.timer = null; ctx.suspend(); }
    drawControls();
  }

  function setVolume(name, value) {
    const n = Math.min(100, Math.max(0, Math.round(Number(value))));
    if (!Number.isFinite(n)) return;
    write(KEYS[name], n);
    applyVolumes();
  }

  /* ----- the TV's header: "Sound on" while sound is off, and "Display" (the sheet) ----- */

  /* The buttons are made once and only updated (shown, hidden, their words in the room's language): a tap that
   * wakes the sound must not lose its click to a redraw of the button under the finger. */
  let controls = null;
  function drawControls() {
    if (controls) {
      const on = enabled() && ctx && ctx.state === "running";
      controls.soundOn.hidden = !!on;
      controls.soundOn.lastChild.textContent = t("sound.turn_on");
      controls.display.textContent = t("sound.display");
    }
    const box = document.getElementById("display-sheet");
    if (box) syncSheet(box);
  }

  function field(id, label, input) {
    return h("div", {class: "display-field"}, h("label", {for: id}, label), input);
  }

  function syncSheet(box) {
    const on = enabled() && !!ctx && ctx.state === "running";
    const toggle = box.querySelector("#sound-toggle");
    toggle.checked = on;
    for (const name of ["music", "effects"]) {
      box.querySelector("#" + name + "-volume").value = String(level(name));
      box.querySelector("#" + name + "-volume-value").textContent = TR.num(level(name) / 100, {style: "percent"});
    }
  }

  function openSheet() {
    const range = (name) => {
      const input = h("input", {type: "range", id: name + "-volume", min: "0", max: "100", step: "5", value: String(level(name)),
        oninput: (e) => { setVolume(name, e.target.value); syncSheet(document.getElementById("display-sheet")); }});
      return [input, h("output", {id: name + "-volume-value", for: name + "-volume", class: "display-value"})];
    };
    const motionOff = read(KEYS.motion, "on") === "off";
    const body = h("form", {class: "display-form", id: "display-sheet", onsubmit: (e) => e.preventDefault()},
      h("div", {class: "display-field check"},
        h("input", {type: "checkbox", id: "sound-toggle", onchange: (e) => (e.target.checked ? turnOn() : turnOff())}),
        h("label", {for: "sound-toggle"}, t("sound.sound"))),
      field("music-volume", t("sound.music"), range("music")),
      field("effects-volume", t("sound.effects"), range("effects")),
      h("div", {class: "display-field check"},
        h("input", {type: "checkbox", id: "motion-toggle", checked: !motionOff, onchange: (e) => {
          write(KEYS.motion, e.target.checked ? "on" : "off");
          window.dispatchEvent(new Event("tr-motion"));  /* whoever animates may listen; TR.motion.on() reads storage */
        }}),
        h("label", {for: "motion-toggle"}, t("sound.motion"))),
      h("p", {class: "muted"}, t("sound.note")));
    TR.sheet(t("sound.display"), body, {"data-display": ""});
    syncSheet(body);
  }

  /* ----- the phone's toggle: a small button in its header ----- */

  /* A speaker, drawn (emoji are missing from many fonts): with waves when on, crossed out when off. */
  function speaker(on) {
    const svg = (tag, attrs) => {
      const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      return el;
    };
    const icon = svg("svg", {viewBox: "0 0 24 24", width: "1.3em", height: "1.3em", "aria-hidden": "true", class: "speaker"});
    icon.append(svg("path", {d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor"}));
    const line = {fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round"};
    if (on) {
      icon.append(svg("path", Object.assign({d: "M15.5 8.5a5 5 0 0 1 0 7"}, line)), svg("path", Object.assign({d: "M18.5 5.5a9 9 0 0 1 0 13"}, line)));
    } else {
      icon.append(svg("path", Object.assign({d: "M16 9l6 6M22 9l-6 6"}, line)));
    }
    return icon;
  }

  function phoneToggle() {
    const button = h("button", {id: "phone-sound", class: "phone-sound", type: "button"});
    const show = () => {
      const on = enabled();
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.setAttribute("aria-label", t("sound.phone"));
      button.title = t(on ? "sound.phone_on" : "sound.phone_off");
      TR.clear(button, speaker(on));
    };
    button.addEventListener("click", () => { if (enabled()) turnOff(); else turnOn(); show(); });
    show();
    return button;
  }

  if (onTv) {
    const header = document.querySelector(".tv-header");
    if (header) {
      controls = {
        soundOn: h("button", {id: "sound-on", class: "primary sound-on", type: "button", onclick: () => turnOn()},
          h("span", {"aria-hidden": "true"}, "♪ "), h("span", null, t("sound.turn_on"))),
        display: h("button", {id: "display-settings", type: "button", "aria-haspopup": "dialog", onclick: openSheet}, t("sound.display")),
      };
      const box = h("span", {id: "display-controls", class: "display-controls"}, controls.soundOn, controls.display);
      const before = document.getElementById("host-controls");
      if (before) before.before(box); else header.append(box);
      drawControls();
      /* the language may change with the room's: the buttons follow (TR.setLang rewrites [data-t] only) */
      new MutationObserver(() => drawControls()).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
    }
  }
  /* A TV or phone that had sound on gets it back at the first tap or key anywhere (the browser wants a gesture; a
   * browser that allows sound at once, a kiosk, plays from the start). Until then the TV shows "Sound on". */
  if (enabled()) {
    const wake = () => {
      if (!enabled()) return;
      makeContext();
      startBed();
    };
    try { makeContext(); } catch (e) { /* not allowed yet */ }
    document.addEventListener("pointerdown", wake, {once: true, capture: true});
    document.addEventListener("keydown", wake, {once: true, capture: true});
  }

  TR.sound = {
    CUES, cue, music, tension, room, twinShown, phoneToggle, openSheet, turnOn, turnOff, setVolume,
    played, asked,
    get enabled() { return enabled() && !!ctx && ctx.state === "running"; },
    get bed() { return bed.name; },
    get tense() { return bed.tense; },
    get context() { return ctx ? ctx.state : null; },
    get nodes() { return created; },
    /* what the gains are now (for the tests and anyone curious): the music's, the duck's, the effects' */
    levels() {
      return ctx ? {music: nodes.music.gain.value, duck: nodes.duck.gain.value, bed: nodes.bed.gain.value, effects: nodes.effects.gain.value,
        time: ctx.currentTime} : null;
    },
    /* the loudest sample of the last ~40 ms that reached the speakers (0..1; 1 would clip) */
    peak() {
      if (!meter) return null;
      const data = new Float32Array(meter.fftSize);
      meter.getFloatTimeDomainData(data);
      return data.reduce((most, x) => Math.max(most, Math.abs(x)), 0);
    },
    /* the old interface (common.js before [18]): play(kind) and muted */
    play(kind) { return cue(kind); },
    get muted() { return !enabled(); },
    set muted(value) { if (value) turnOff(); else turnOn(); },
  };
})();
