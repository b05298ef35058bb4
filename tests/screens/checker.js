/* The screen checker: run in a page (TV or phone) by tests/screens/harness.py after every render it wants judged.
 * Returns a list of problems, each {kind, where, text, detail}; an empty list means the screen passes.
 *
 * What fails (issue [9]):
 *  - page-scroll     the page itself scrolls (the TV and the phone screens are laid out to fit; a long list scrolls
 *                    inside its own region);
 *  - off-screen      an element with text or a control lies (partly) outside the viewport;
 *  - clipped         it lies outside an ancestor that clips it (overflow hidden), so part of it cannot be seen;
 *  - scroll-x        it needs a sideways scroll to be reached (only vertical scroll regions are allowed);
 *  - primary-hidden  a primary button (class "primary"), or anything marked data-must-see (the card that decides
 *                    what may be played), is scrolled out of its region: what is needed to act must be on screen
 *                    without scrolling;
 *  - out-of-card     it sticks out of an ancestor box that is drawn (a background, a border): text over a card edge;
 *  - text-cut        its text is cut: scroll size larger than client size in a box that hides overflow, or an
 *                    ellipsis;
 *  - overlap         two texts or controls, neither inside the other, drawn over each other (an overlay marked
 *                    data-overlay, such as "Paused", covers the screen on purpose and is not judged);
 *  - latin-digit / latin-letter / latin-separator
 *                    on a Persian page, a Western digit, a Latin letter or a Latin separator between Persian digits in
 *                    the page's own text (names that players typed, isolated with U+2068…U+2069 or in a <bdi>, and
 *                    elements marked data-verbatim such as the join address are theirs and are not judged);
 *  - raw-key         a catalog key shown as text; missing-translation: a key the page's language lacks;
 *  - small-text      on the TV, text that players read (the stage, the join card, the players) below the minimum
 *                    size for three metres (opts.minPx, scaled with the viewport by the harness);
 *  - small-role      on the TV, an element marked data-role (question, option, row, score, log, map-label) whose
 *                    largest text is below its role's size for the sofa (opts.roleMin, px at this viewport; issue
 *                    [18]); SVG text (map labels) is measured as drawn, through its screen transform;
 *  - empty-stage     on the TV, the stage's main panel (data-main-panel) shows something but the box around all it
 *                    shows covers less than opts.fill of the panel (issue [18]: no more than a third left empty);
 *  - js-error        collected by the harness, not here.
 */
(opts) => {
  const problems = [];
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const TOL = 1.5;
  const KEY_SPACES = ["common", "tv", "phone", "camp", "hier", "avig", "crown", "crownui", "aud", "error", "game",
    "sound", "access", "remote", "duel", "xtime", "stage", "cards", "motion",
    "setting", "outcome", "choice", "colour", "shape", "language", "index", "tally", "buzz", "quiz"];
  const keyPattern = new RegExp("\\b(" + KEY_SPACES.join("|") + ")\\.[a-z0-9_]+(\\.[a-z0-9_]+)*\\b");

  function describe(el) {
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    const classes = typeof el.className === "string" ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
    if (classes.length) name += "." + classes.join(".");
    const parent = el.parentElement && el.parentElement !== document.body ? el.parentElement : null;
    if (parent && !el.id) {
      let up = parent.tagName.toLowerCase();
      if (parent.id) up += "#" + parent.id;
      else if (typeof parent.className === "string" && parent.className.trim()) up += "." + parent.className.trim().split(/\s+/)[0];
      name = up + " > " + name;
    }
    return name;
  }

  function ownText(el) {
    let text = "";
    for (const node of el.childNodes) if (node.nodeType === Node.TEXT_NODE) text += node.textContent;
    return text.replace(/\s+/g, " ").trim();
  }

  function report(kind, el, detail) {
    const text = (ownText(el) || el.innerText || el.value || el.getAttribute("aria-label") || "").replace(/\s+/g, " ").trim().slice(0, 60);
    problems.push({kind, where: describe(el), text, detail: detail || ""});
  }

  function isControl(el) {
    const tag = el.tagName;
    return tag === "BUTTON" || tag === "SELECT" || tag === "TEXTAREA" || tag === "SUMMARY"
      || (tag === "INPUT" && el.type !== "hidden") || (tag === "A" && el.hasAttribute("href"))
      || el.getAttribute("role") === "button";
  }

  function visible(el, style) {
    if (style.visibility === "hidden" || style.visibility === "collapse") return false;
    if (Number(style.opacity) === 0) return false;
    return el.getClientRects().length > 0;
  }

  function drawnBox(style) {
    const bg = style.backgroundColor;
    const hasBg = bg && bg !== "transparent" && !/rgba\(.*,\s*0\)$/.test(bg);
    const hasImage = style.backgroundImage && style.backgroundImage !== "none";
    const border = ["Top", "Right", "Bottom", "Left"].some((side) => parseFloat(style["border" + side + "Width"]) > 0
      && style["border" + side + "Style"] !== "none" && !/rgba\(.*,\s*0\)$/.test(style["border" + side + "Color"])
      && style["border" + side + "Color"] !== "transparent");
    return hasBg || hasImage || border;
  }

  function inside(r, box) {
    return r.left >= box.left - TOL && r.right <= box.right + TOL && r.top >= box.top - TOL && r.bottom <= box.bottom + TOL;
  }

  function insideX(r, box) {
    return r.left >= box.left - TOL && r.right <= box.right + TOL;
  }

  const doc = document.documentElement;
  if (opts.width && vw > opts.width + 1) {  /* a phone widens its layout when something is too wide, and zooms out */
    problems.push({kind: "page-scroll", where: "html", text: "", detail: `the layout widened to ${vw} px on a ${opts.width} px screen`});
  }
  if (doc.scrollWidth > vw + 1) problems.push({kind: "page-scroll", where: "html", text: "", detail: `scrollWidth ${doc.scrollWidth} > ${vw}`});
  if (doc.scrollHeight > vh + 1) problems.push({kind: "page-scroll", where: "html", text: "", detail: `scrollHeight ${doc.scrollHeight} > ${vh}`});

  const styles = new Map();
  const styleOf = (el) => { if (!styles.has(el)) styles.set(el, getComputedStyle(el)); return styles.get(el); };
  const persian = opts.lang === "fa";
  const minPx = opts.minPx || 0;
  const placed = [];  /* every text or control on screen, for the overlap check */

  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;  /* drawings: their own coordinates */
    if (el.closest("script, style, template, noscript, option, datalist")) continue;
    const style = styleOf(el);
    if (!visible(el, style)) continue;
    const text = ownText(el);
    const control = isControl(el);
    if (!text && !control) continue;
    if (el.closest("[aria-hidden=true]") && !control) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const fixed = style.position === "fixed";

    /* Where it may be seen: every clipping ancestor, then the viewport. */
    let seen = true;
    for (let a = el.parentElement; a && a !== document.body && a !== doc; a = a.parentElement) {
      const as = styleOf(a);
      const clipsX = as.overflowX !== "visible";
      const clipsY = as.overflowY !== "visible";
      if (!clipsX && !clipsY) continue;
      const box = a.getBoundingClientRect();
      const scrollsY = (as.overflowY === "auto" || as.overflowY === "scroll") && a.scrollHeight > a.clientHeight + 1;
      const scrollsX = (as.overflowX === "auto" || as.overflowX === "scroll") && a.scrollWidth > a.clientWidth + 1;
      if (scrollsX && !a.hasAttribute("data-scroll-x")) { report("scroll-x", el, describe(a) + " scrolls sideways"); seen = false; break; }
      if (scrollsY) {
        if (!insideX(r, box)) { report("clipped", el, "sticks out of the sides of " + describe(a)); seen = false; break; }
        if (!inside(r, box)) {
          if ((control && el.classList.contains("primary")) || el.closest("[data-must-see]")) {
            report("primary-hidden", el, "scrolled out of " + describe(a));
          }
          seen = false;  /* scrolled away in a region meant to scroll: judged when scrolled to */
          break;
        }
        continue;
      }
      if (!inside(r, box)) { report("clipped", el, "cut by " + describe(a)); seen = false; break; }
    }
    if (!seen) continue;
    if (r.left < -TOL || r.top < -TOL || r.right > vw + TOL || r.bottom > vh + TOL) {
      report("off-screen", el, `box ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)} in ${vw}x${vh}`);
      continue;
    }

    if (!fixed && !el.closest("[data-overlay]")) placed.push({el, r});

    /* Inside every drawn box around it (not the page's own background, and not for fixed overlays). */
    if (!fixed) {
      for (let a = el.parentElement; a && a !== document.body && a !== doc; a = a.parentElement) {
        const as = styleOf(a);
        if (as.position === "fixed") break;
        if (!drawnBox(as)) continue;
        const box = a.getBoundingClientRect();
        if (!inside(r, box)) { report("out-of-card", el, "outside " + describe(a)); break; }
      }
    }

    /* Cut text. */
    if (text && !control) {
      const hides = style.overflowX !== "visible" || style.overflowY !== "visible";
      if (style.textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth + 1) report("text-cut", el, "ellipsis");
      else if (hides && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 2)) {
        report("text-cut", el, `scroll ${el.scrollWidth}x${el.scrollHeight} > client ${el.clientWidth}x${el.clientHeight}`);
      }
    }
    if (control && (el.tagName === "BUTTON" || el.getAttribute("role") === "button")) {
      if (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "visible") report("text-cut", el, "button text wider than the button");
    }

    /* A Persian page speaks Persian: its own text has no Western digit, Latin letter or Latin separator. */
    if (persian && !el.closest("bdi, [data-verbatim]")) {
      const own = (text + (el.tagName === "INPUT" && el.type !== "checkbox" && el.type !== "file" ? " " + el.value : ""))
        .replace(/\u2068[^\u2069]*\u2069/g, "");
      if (/[0-9]/.test(own)) report("latin-digit", el, own.slice(0, 60));
      else if (/[A-Za-z]/.test(own)) report("latin-letter", el, own.slice(0, 60));
      else if (/[۰-۹][.,][۰-۹]/.test(own)) report("latin-separator", el, own.slice(0, 60));
    }

    if (text && keyPattern.test(text.replace(/\u2068[^\u2069]*\u2069/g, ""))) report("raw-key", el, text.slice(0, 60));

    /* The TV is read from the sofa. */
    if (minPx && text && el.closest("[data-read-from-sofa]") && !el.closest("[data-fine]")) {
      const size = parseFloat(style.fontSize);
      if (size < minPx - 0.5) report("small-text", el, `${size.toFixed(1)} px < ${minPx.toFixed(1)} px`);
    }
  }

  for (let i = 0; i < placed.length; i++) {
    const a = placed[i];
    for (let j = i + 1; j < placed.length; j++) {
      const b = placed[j];
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const hgt = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w <= 3 || hgt <= 3) continue;
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      report("overlap", a.el, "under " + describe(b.el) + " «" + (ownText(b.el) || b.el.innerText || "").slice(0, 30) + "»");
    }
  }

  /* The 10-foot rule (issue [18]): each role's text at the size read from the sofa, and a stage that fills its panel. */
  const roleMin = opts.roleMin || null;
  if (roleMin) {
    for (const el of document.querySelectorAll("[data-role]")) {
      const min = roleMin[el.dataset.role];
      if (!min) { report("small-role", el, `unknown role ${el.dataset.role}`); continue; }
      if (!el.getClientRects().length || !visible(el, styleOf(el)) || el.closest("[aria-hidden=true]")) continue;
      let largest = 0;
      for (const part of [el, ...el.querySelectorAll("*")]) {
        const ps = styleOf(part);
        if (!visible(part, ps) || !(ownText(part) || (part === el && el.textContent.trim()))) continue;
        let size = parseFloat(ps.fontSize);
        if (part instanceof SVGGraphicsElement && part.getScreenCTM()) {
          const m = part.getScreenCTM();
          size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
        }
        largest = Math.max(largest, size);
      }
      if (largest && largest < min - 0.5) report("small-role", el, `${el.dataset.role} ${largest.toFixed(1)} px < ${min.toFixed(1)} px`);
    }
  }
  if (opts.fill) {
    for (const panel of document.querySelectorAll("[data-main-panel]")) {
      const ps = styleOf(panel);
      if (!visible(panel, ps)) continue;
      const outer = panel.getBoundingClientRect();
      const box = {left: outer.left + parseFloat(ps.paddingLeft), right: outer.right - parseFloat(ps.paddingRight),
        top: outer.top + parseFloat(ps.paddingTop), bottom: outer.bottom - parseFloat(ps.paddingBottom)};
      const area = Math.max(1, (box.right - box.left) * (box.bottom - box.top));
      let left = Infinity, right = -Infinity, top = Infinity, bottom = -Infinity;
      for (const el of panel.querySelectorAll("*")) {
        if (el.closest("[data-overlay]")) continue;
        const style = styleOf(el);
        if (style.position === "fixed" || !visible(el, style) || (el.closest("svg") && el.tagName.toLowerCase() !== "svg")) continue;
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) continue;
        const tag = el.tagName.toLowerCase();
        const shows = ownText(el) || isControl(el) || ["img", "svg", "canvas", "video"].includes(tag)
          || (drawnBox(style) && r.width * r.height < 0.9 * area);
        if (!shows) continue;
        left = Math.min(left, Math.max(r.left, box.left)); right = Math.max(right, Math.min(r.right, box.right));
        top = Math.min(top, Math.max(r.top, box.top)); bottom = Math.max(bottom, Math.min(r.bottom, box.bottom));
      }
      if (left === Infinity) continue;  /* nothing to show */
      const share = Math.max(0, right - left) * Math.max(0, bottom - top) / area;
      if (share < opts.fill - 0.005) {
        report("empty-stage", panel, `content covers ${Math.round(100 * share)} % of the panel (< ${Math.round(100 * opts.fill)} %)`);
      }
    }
  }

  const tr = typeof TR === "undefined" ? null : TR;  /* common.js's global */
  if (tr) {
    for (const entry of tr.missing) {
      if (entry.startsWith(opts.lang + ":")) problems.push({kind: "missing-translation", where: "catalog", text: entry, detail: ""});
    }
  }
  return problems;
}
