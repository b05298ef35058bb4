"""End to end: the Quiz's motion (issue [18], TR.motion in host/static/common.js, docs/screens.md "Motion") on the real
server, three TV pages and three phones in headless Chromium.

One host-paced quiz of three questions is watched by three TVs at 1280x720: the host's with motion on, one whose
browser asks for reduced motion (prefers-reduced-motion: reduce) and one whose Display setting has Motion off
(localStorage throneroom.tv.motion = "off"). Before each screen that moves, the test stops the moving TV's (and Ana's
phone's) animation clock through the DevTools protocol (Animation.setPlaybackRate 0), so that what is drawn at the
start of each motion is looked at, not raced; then it finishes every animation, as the screens checker does, and
looks at the end state.

- The reveal: each option's bar starts at nothing and grows to its share.
- The leaderboard after a question that changed the order: the rows that moved glide from their old places (the row
  that went up starts below, the one that went down above), their marks say ▲1 / ▼1 with words for a screen reader,
  and each score starts at the total the previous leaderboard showed and ends at exactly the new one.
- A redraw of the same leaderboard in the middle of it goes on with the glides and counts; once they are finished, a
  redraw moves nothing again.
- The end: the podium shows third, then second, then first, then the table (seen by moving the clock to each step).
- The two still TVs run no animation at all and show every end state at once; Motion turned off on the moving TV
  ends what still moves at once."""

from __future__ import annotations

import re
from typing import Any

import requests
import socketio
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import new_page, open_tv, pack_zip, quiz_phones, shot

TV_SIZE = {"width": 1280, "height": 720}
QUESTIONS = [
    {"type": "choice", "prompt": "Which river flows through Vienna?", "options": ["Danube", "Rhine", "Elbe", "Loire"], "correct": 0},
    {"type": "choice", "prompt": "Which planet is the largest?", "options": ["Jupiter", "Mars", "Venus"], "correct": 0, "points": 2},
    {"type": "choice", "prompt": "Which of these is a prime number?", "options": ["29", "21", "27"], "correct": 0},
]
# The option each player taps per question: Bob leads after the first, Ana takes the lead with the double points of
# the second (Bob and Zahra drop a place), and Bob keeps second place with the third.
PICKS = {"Ana": (1, 0, 0), "Bob": (0, 1, 0), "Zahra": (1, 2, 1)}


def freeze(page: Page) -> Any:
    """Stop the page's animation clock: animations started from now on stay at their start until thaw()."""
    session = page.context.new_cdp_session(page)
    session.send("Animation.enable")
    session.send("Animation.setPlaybackRate", {"playbackRate": 0})
    return session


def thaw(session: Any) -> None:
    session.send("Animation.setPlaybackRate", {"playbackRate": 1})


def finish_all(page: Page) -> None:
    """What the screens checker does before it judges a screen: every animation to its end."""
    page.evaluate("() => { for (const a of document.getAnimations()) a.finish(); }")


def midway(page: Page, ms: int) -> None:
    """Every animation stopped at ms from its start (for a screenshot of the motion under way)."""
    page.evaluate(f"() => {{ for (const a of document.getAnimations()) {{ a.pause(); a.currentTime = {ms}; }} }}")
    page.wait_for_function("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


def animations(page: Page) -> int:
    return int(page.evaluate("() => document.getAnimations().length"))


def number(text: str) -> int:
    return int(re.sub(r"\D", "", text) or "0")


def board(page: Page) -> dict[str, dict[str, Any]]:
    """Each leaderboard row by name: its index, animations, first keyframe, mark, score text, value and ghost."""
    return {row["name"]: row for row in page.evaluate("""() => Array.from(document.querySelectorAll('#quiz-board li')).map((li, i) => {
        const score = li.querySelector('.quiz-score');
        const mark = li.querySelector('.quiz-move');
        const own = li.getAnimations();
        return {name: li.querySelector('bdi.name').textContent, index: i, slot: li.dataset.slot, moving: own.length,
          first: own.length ? own[0].effect.getKeyframes()[0].transform : null,
          mark: mark.textContent, label: mark.getAttribute('aria-label'),
          text: score.textContent, value: score.dataset.value, ghost: score.getAttribute('data-counting'),
          ghostOpacity: getComputedStyle(score, '::after').opacity, colour: getComputedStyle(score).color};
    })""")}


def still(page: Page) -> None:
    """A TV without motion: nothing animates, no number is counting, every podium step and bar is at its end."""
    assert animations(page) == 0
    assert page.evaluate("() => document.querySelectorAll('[data-counting]').length") == 0
    assert page.evaluate("() => document.documentElement.classList.contains('motion-off')")


def answer(phone: Page, choice: int) -> None:
    phone.click(f"[data-choice='{choice}']:not([disabled])")
    expect(phone.locator("#sent, #my-result").first).to_be_visible()


def test_the_quiz_moves_on_one_tv_and_stands_still_on_the_others(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, TV_SIZE["width"], TV_SIZE["height"])
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    upload = requests.post(server.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("motion.zip", pack_zip("Motion quiz", QUESTIONS))}, timeout=60)
    assert upload.status_code == 201, upload.text
    pack_id = upload.json()["pack"]["id"]

    reduced = new_page(browser, viewport=TV_SIZE, reduced_motion="reduce")
    reduced.goto(f"{server.url}/tv/{code}")
    setting_off = new_page(browser, viewport=TV_SIZE)
    setting_off.goto(f"{server.url}/tv/{code}")
    setting_off.evaluate("localStorage.setItem('throneroom.tv.motion', 'off')")  # what the Display sheet's Motion writes
    still_tvs = (reduced, setting_off)
    for page in still_tvs:
        expect(page.locator("#room-code")).to_have_text(code)
    assert tv.evaluate("TR.motion.on()") and not reduced.evaluate("TR.motion.on()") and not setting_off.evaluate("TR.motion.on()")

    phones = quiz_phones(browser, server.url, code)
    host = socketio.Client(reconnection=False)
    host.connect(server.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    try:
        assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
        for control in ({"control": "select_game", "game": "quiz"},
                        {"control": "packs", "packs": [pack_id]},
                        {"control": "settings", "game": "quiz", "settings": {"order": "pack", "paced": "host", "bots": False}}):
            reply = host.call("control", control, namespace="/tv", timeout=10)
            assert reply["ok"], (control, reply)
    finally:
        host.disconnect()
    expect(tv.locator("#start")).to_be_enabled()
    tv.click("#start")

    shown: dict[str, int] = {}  # the totals the last leaderboard showed
    for index, q in enumerate(QUESTIONS):
        expect(tv.locator("#quiz-count")).to_have_text(f"Question {index + 1} of 3")
        tv.click("#skip")  # no "get ready": the question opens now
        for name in ("Ana", "Bob", "Zahra"):
            if name == "Zahra":
                tv_clock = freeze(tv)  # the last answer closes the question: the reveal comes with the clock stopped
            answer(phones[name], PICKS[name][index])

        # ----- the reveal: every bar starts at nothing and grows to its share -----
        expect(tv.locator(".quiz-reveal")).to_be_visible()
        bars = tv.evaluate("""() => Array.from(document.querySelectorAll('#quiz-tiles .quiz-tile')).map((tile) => {
            const bar = tile.querySelector('.bar');
            const own = bar.getAnimations();
            return {count: Number(tile.dataset.count), moving: own.length, first: own.length ? own[0].effect.getKeyframes()[0].transform : null,
              transform: getComputedStyle(bar).transform};
        })""")
        assert all(b["moving"] == 1 and b["first"] == "scaleX(0)" for b in bars), bars
        assert all(b["transform"] in ("matrix(0, 0, 0, 1, 0, 0)",) for b in bars), bars  # drawn at nothing, for now
        finish_all(tv)
        grown = tv.evaluate("""() => Array.from(document.querySelectorAll('#quiz-tiles .quiz-tile')).map((tile) => {
            const bar = tile.querySelector('.bar');
            return {count: Number(tile.dataset.count), transform: getComputedStyle(bar).transform,
              share: bar.getBoundingClientRect().width / tile.querySelector('.quiz-count-bar').getBoundingClientRect().width};
        })""")
        most = max(b["count"] for b in grown)
        for b in grown:
            assert b["transform"] == "none", grown
            if b["count"]:
                assert abs(b["share"] - b["count"] / most) < 0.02, grown
        for page in still_tvs:
            expect(page.locator(".quiz-reveal")).to_be_visible()
            still(page)
            assert page.evaluate("() => Array.from(document.querySelectorAll('#quiz-tiles .bar')).every((b) => getComputedStyle(b).transform === 'none')")

        phone_clock = freeze(phones["Ana"])
        tv.locator("#quiz-next").click()
        if index == len(QUESTIONS) - 1:
            break

        # ----- the leaderboard: rows glide to their new places, scores count up from the last board's -----
        expect(tv.locator("#quiz-board li")).to_have_count(3)
        expect(phones["Ana"].locator("#standings li")).to_have_count(3)
        rows = board(tv)
        totals = {name: number(row["text"]) for name, row in rows.items()}
        for name, row in rows.items():
            assert row["value"] == str(totals[name]), rows  # the number in the page is the new total from the start
            if row["ghost"] is not None:  # counting: the running value is drawn, the end value hidden under it
                assert row["ghostOpacity"] == "1" and row["colour"] == "rgba(0, 0, 0, 0)", row
            before = shown.get(name, 0)
            if totals[name] != before:
                assert row["ghost"] == f"{before:,}", (name, row)  # what is drawn starts at the last board's total
                assert row["ghost"] and row["ghost"] != row["text"]
            else:
                assert row["ghost"] is None, (name, row)
        if index == 0:
            assert min(rows, key=lambda n: rows[n]["index"]) == "Bob"
            assert all(row["moving"] == 0 for row in rows.values()), rows  # nobody had a place before
        else:
            order = sorted(rows, key=lambda n: rows[n]["index"])
            assert order == ["Ana", "Bob", "Zahra"], order
            # Bob led and Ana was second (tied with Zahra): Ana's row comes up from below, Bob's goes down from above
            assert rows["Ana"]["moving"] == 1 and rows["Bob"]["moving"] == 1 and rows["Zahra"]["moving"] == 0, rows
            dy = {name: float(re.findall(r"-?[\d.]+", rows[name]["first"])[1]) for name in ("Ana", "Bob")}
            assert dy["Ana"] > 0 > dy["Bob"], dy
            assert (rows["Ana"]["mark"], rows["Ana"]["label"]) == ("▲1", "up 1 place"), rows["Ana"]
            assert (rows["Bob"]["mark"], rows["Bob"]["label"]) == ("▼1", "down 1 place"), rows["Bob"]
            assert (rows["Zahra"]["mark"], rows["Zahra"]["label"]) == ("▼1", "down 1 place"), rows["Zahra"]
            # Ana's phone: her board's rows glide too
            ana_slot = rows["Ana"]["slot"]
            assert phones["Ana"].evaluate(f"() => document.querySelector(\"#standings li[data-slot='{ana_slot}']\").getAnimations().length") == 1
            # a redraw of the same leaderboard (as tr-refresh does) goes on with the glides and counts, not from nothing
            tv.evaluate("() => { document.querySelector('#quiz-board').dataset.old = '1'; window.dispatchEvent(new Event('tr-refresh')); }")
            redrawn = board(tv)
            assert tv.evaluate("() => !document.querySelector('#quiz-board').dataset.old")  # new rows indeed
            assert [redrawn[n]["moving"] for n in ("Ana", "Bob", "Zahra")] == [1, 1, 0], redrawn
            assert redrawn["Ana"]["ghost"] is not None, redrawn
            midway(tv, 450)
            shot(tv, "motion-tv-leaderboard-midway")
        # finished as the screens checker finishes them (and looks at once): exactly the new totals, nothing over them
        ended = tv.evaluate("""() => {
            for (const a of document.getAnimations()) a.finish();
            return Array.from(document.querySelectorAll('#quiz-board .quiz-score')).map((s) => ({text: s.textContent,
              ghost: s.hasAttribute('data-counting') ? getComputedStyle(s, '::after').opacity : null, colour: getComputedStyle(s).color}));
        }""")
        assert sorted(number(e["text"]) for e in ended) == sorted(totals.values()), ended
        assert all(e["ghost"] in (None, "0") and e["colour"] != "rgba(0, 0, 0, 0)" for e in ended), ended
        assert any(e["ghost"] == "0" for e in ended), ended  # a ghost was there, and is not drawn any more
        thaw(tv_clock)
        thaw(phone_clock)
        finish_all(phones["Ana"])
        tv.wait_for_function("() => !document.querySelector('[data-counting]')")  # and is gone soon after
        # finished is finished: a redraw of the same leaderboard moves nothing again
        tv.evaluate("() => window.dispatchEvent(new Event('tr-refresh'))")
        tv.wait_for_function("() => new Promise((done) => requestAnimationFrame(() => done(true)))")
        assert animations(tv) == 0
        for page in still_tvs:
            expect(page.locator("#quiz-board li")).to_have_count(3)
            still(page)
            assert {name: number(row["text"]) for name, row in board(page).items()} == totals
        shown = totals
        tv.locator("#quiz-next").click()

    # ----- the end: the podium shows third, second, first, then the table -----
    expect(tv.locator("#quiz-podium .step")).to_have_count(3)
    expect(tv.locator("#quiz-podium .step-1")).to_contain_text("Ana")
    expect(tv.locator("#quiz-podium .step-2")).to_contain_text("Bob")
    expect(tv.locator("#quiz-podium .step-3")).to_contain_text("Zahra")
    seen = tv.evaluate("""() => {
        const parts = {third: '#quiz-podium .step-3', second: '#quiz-podium .step-2', first: '#quiz-podium .step-1', table: '#quiz-stats'};
        const els = Object.fromEntries(Object.entries(parts).map(([k, s]) => [k, document.querySelector(s)]));
        const all = document.getAnimations();
        const starts = Object.values(els).map((el) => { const a = el.getAnimations()[0]; const t = a.effect.getComputedTiming(); return t.delay + t.duration; });
        const frames = [];
        for (const at of [0].concat(starts)) {  /* the clock at the start, then at the end of each one's coming in */
            for (const a of all) { a.pause(); a.currentTime = at; }
            frames.push(Object.fromEntries(Object.entries(els).map(([k, el]) => [k, Number(getComputedStyle(el).opacity) > 0.99])));
        }
        for (const a of all) a.currentTime = starts[1] + 300;
        return frames;
    }""")
    shot(tv, "motion-tv-podium-midway")  # the clock stopped where second place is up and first is rising
    assert seen == [
        {"third": False, "second": False, "first": False, "table": False},
        {"third": True, "second": False, "first": False, "table": False},
        {"third": True, "second": True, "first": False, "table": False},
        {"third": True, "second": True, "first": True, "table": False},
        {"third": True, "second": True, "first": True, "table": True},
    ], seen
    # the Display sheet's Motion turned off now: what still moves ends at once, and the TV stands still from then on
    assert animations(tv) > 0
    tv.evaluate("() => { localStorage.setItem('throneroom.tv.motion', 'off'); TR.motion.on(); }")
    thaw(tv_clock)
    still(tv)
    assert tv.evaluate("() => Array.from(document.querySelectorAll('#quiz-podium .step, #quiz-stats')).every((e) => getComputedStyle(e).opacity === '1')")
    for page in still_tvs:
        expect(page.locator("#quiz-podium .step")).to_have_count(3)
        still(page)
        assert page.evaluate("() => Array.from(document.querySelectorAll('#quiz-podium .step, #quiz-stats')).every((e) => getComputedStyle(e).opacity === '1')")


CAMPAIGN_TIMERS = {"preview_seconds": 3, "numeric_seconds": 24, "choice_seconds": 24, "pick_seconds": 24,
                   "target_seconds": 24, "reveal_seconds": 20}  # x 0.05: 1 s of reveal, time for a count to be seen

# Every score the TV's scoreboard draws (per seat, in order) and every count that starts on it: the seat, the value
# drawn first and the number in the page (a redraw in the middle of a count goes on with it: not a new start).
RECORD_SCORES = """() => {
    window.scoresSeen = {};
    window.countsSeen = [];
    const started = new Set();
    const seatOf = (el) => el.closest('[data-seat]').dataset.seat;
    const note = (el) => {
        const seat = seatOf(el);
        const list = window.scoresSeen[seat] = window.scoresSeen[seat] || [];
        if (list[list.length - 1] !== el.dataset.score) list.push(el.dataset.score);
    };
    new MutationObserver((records) => {
        for (const r of records) {
            if (r.type === 'attributes' && r.target.matches('#scores .score') && r.oldValue === null && r.target.hasAttribute('data-counting')) {
                const seat = seatOf(r.target);
                const list = window.scoresSeen[seat] || [];
                if (started.has(seat + '>' + r.target.dataset.value)) continue;  /* a redraw going on with a count */
                started.add(seat + '>' + r.target.dataset.value);
                window.countsSeen.push({seat, first: r.target.getAttribute('data-counting'), to: r.target.dataset.value,
                    before: list.length > 1 ? list[list.length - 2] : null});
            }
            for (const n of r.addedNodes || []) if (n.querySelectorAll) n.querySelectorAll('#scores .score').forEach(note);
        }
    }).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-counting'], attributeOldValue: true});
}"""


def test_campaign_scores_count_from_the_last_shown(browser: Any, servers: Any) -> None:
    from tests.e2e import PHONE, join, set_setting
    from tests.test_e2e_campaign import play_turn

    server = servers.start("campaign", timer_scale=0.05, seed=42)
    tv, code = open_tv(browser, server.url, TV_SIZE["width"], TV_SIZE["height"])
    players = []
    for name in ("Ana", "Bob"):
        phone = new_page(browser, **PHONE)
        join(phone, f"{server.url}/join/{code}", name)
        players.append(phone)
    tv.click("[data-game=campaign]")
    tv.click("#timers summary")
    for key, value in CAMPAIGN_TIMERS.items():
        set_setting(tv, key, value)
    tv.evaluate(RECORD_SCORES)
    tv.click("#start")
    expect(tv.locator(".camp-tv")).to_be_visible()
    for _ in range(400):  # turns until two scores have changed on the TV (a bot fills the third seat)
        if tv.evaluate("() => window.countsSeen.length") >= 2 or tv.locator("#ranking").count():
            break
        for phone, typed in zip(players, ("4", "27"), strict=True):
            play_turn(phone, typed)
    counts = tv.evaluate("() => window.countsSeen")
    assert len(counts) >= 2, counts
    for count in counts:  # each count starts at the score this seat showed before and ends at its new one
        assert count["before"] is not None and number(count["first"]) == int(count["before"]), count
        assert int(count["to"]) != int(count["before"]), count
    tv.wait_for_function("() => !document.querySelector('#scores [data-counting]')")
    assert tv.evaluate("() => Array.from(document.querySelectorAll('#scores .score')).every((s) => s.textContent.replace(/\\D/g, '') === s.dataset.value)")
