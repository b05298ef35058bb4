"""End to end: the phone is open to every guest (issue [18]) on the real server in headless Chromium.

- While the host pauses, the phone's Paused cover lets the header's "?" (How to play) through (the finding).
- Every control a phone shows has an accessible name, as Chromium's own accessibility tree computes it (what TalkBack
  and VoiceOver read), on every screen of a Quiz with every kind of question.
- Every change of what the phone shows is said once through its polite live region (#announce): joined, the question
  open, the answer locked in, paused, the verdict, the end; a state that changes nothing on the phone says nothing.
- The phone's display setting (larger text, high contrast) opens from the header, puts its classes on <body>, is
  remembered across a reload, and the screens still fit (the screen checker) in large text, with no serious axe
  violation in high contrast."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import requests
import socketio
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, SMALL_PHONE, join, new_page, open_tv, set_setting, start_with_phones
from tests.screens import axe
from tests.screens.harness import CHECKER

CATALOG = Path(__file__).resolve().parent.parent / "host/i18n"
QUESTIONS = [
    {"type": "choice", "prompt": "Which river flows through Vienna?", "options": ["Danube", "Rhine", "Volga"],
     "correct": 0},
    {"type": "numeric", "prompt": "How many metres high is Mount Everest?", "answer": 8849, "unit": "m"},
    {"type": "multi", "prompt": "Which of these are prime?", "options": ["2", "4", "5", "9"], "rights": [0, 2]},
    {"type": "order", "prompt": "Put these in order, the smallest first.", "options": ["one", "two", "three"]},
    {"type": "text", "prompt": "Which city is the capital of Romania?", "accepted": ["Bucharest"]},
    {"type": "poll", "prompt": "Which season do you like best?", "options": ["Spring", "Summer", "Autumn"]},
]
# The roles of controls: a person must hear what each one is.
CONTROL_ROLES = {"button", "textbox", "combobox", "checkbox", "slider", "spinbutton", "radio", "link", "listbox",
                 "switch", "searchbox", "menuitem", "tab"}


def catalog(lang: str = "en") -> dict[str, Any]:
    messages: dict[str, Any] = json.loads((CATALOG / f"{lang}.json").read_text(encoding="utf-8"))
    for path in sorted(CATALOG.glob(f"*.{lang}.json")):
        messages.update(json.loads(path.read_text(encoding="utf-8")))
    return messages


def nameless_controls(page: Page) -> list[str]:
    """The controls on the page without an accessible name, from Chromium's accessibility tree (the names a screen
    reader reads), each as its role and HTML."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        found = []
        for node in nodes:
            role = (node.get("role") or {}).get("value")
            if node.get("ignored") or role not in CONTROL_ROLES:
                continue
            if str((node.get("name") or {}).get("value") or "").strip():
                continue
            html = "?"
            if "backendDOMNodeId" in node:
                remote = cdp.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})["object"]
                html = cdp.send("Runtime.callFunctionOn", {"objectId": remote["objectId"], "returnByValue": True,
                                "functionDeclaration": "function () { return this.outerHTML.slice(0, 160); }"})["result"]["value"]
            found.append(f"{role}: {html}")
        return found
    finally:
        cdp.detach()


def controls_count(page: Page) -> int:
    return page.locator("#screen button, #screen input, #screen select, #phone-header button, #phone-header select").count()


class Host:
    """The host's controls from a socket of their own (the TV's host token)."""

    def __init__(self, url: str, code: str, token: str):
        self.client = socketio.Client(reconnection=False)
        self.client.connect(url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
        assert self.client.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]

    def __call__(self, name: str, **extra: Any) -> None:
        reply = self.client.call("control", {"control": name, **extra}, namespace="/tv", timeout=10)
        assert reply["ok"], (name, extra, reply)


def quiz_room(browser: Any, server: LiveServer, **phone: Any) -> tuple[Page, Page, Host]:
    """A TV, Ana's phone seated, and the host with the six-kind pack picked, host-paced, without bots."""
    tv, code = open_tv(browser, server.url, 1280, 720)
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    pack = {"format": "throneroom-pack/1", "name": "Kinds", "language": "en", "questions": QUESTIONS}
    upload = requests.post(server.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("kinds.json", json.dumps(pack).encode())}, timeout=60)
    assert upload.status_code == 201, upload.text
    ana = new_page(browser, **(phone or PHONE))
    join(ana, f"{server.url}/join/{code}", "Ana")
    host = Host(server.url, code, token)
    host("select_game", game="quiz")
    host("packs", packs=[upload.json()["pack"]["id"]])
    host("settings", game="quiz", settings={"order": "pack", "paced": "host", "bots": False})
    return tv, ana, host


def said(page: Page) -> list[str]:
    return page.evaluate("() => window.__said")


def listen(page: Page) -> None:
    """Keep every text the live region is given, in order."""
    page.evaluate("""() => {
        window.__said = [];
        const region = document.getElementById('announce');
        const keep = () => { if (region.textContent) window.__said.push(region.textContent); };
        keep();
        new MutationObserver(keep).observe(region, {childList: true, characterData: true, subtree: true});
    }""")


def wait_said(page: Page, text: str, how: str = "includes") -> None:
    """Wait until the live region says ``text`` (how: includes, startsWith, or not: it no longer starts with it)."""
    check = {"includes": "s.includes(t)", "startsWith": "s.startsWith(t)", "not": "!s.startsWith(t)"}[how]
    try:  # in what was said since the last wait: a sentence may be replaced by the next at once
        page.wait_for_function(f"(t) => {{ const i = window.__said.slice(window.__seen || 0).findIndex((s) => {check});"
                               " if (i < 0) return false; window.__seen = (window.__seen || 0) + i + 1; return true; }",
                               arg=text)
    except Exception as error:
        raise AssertionError(f"not said ({how}) {text!r}; said: {said(page)}") from error


def test_the_paused_cover_lets_how_to_play_through(server: LiveServer, browser: Any) -> None:
    tv, (ana,) = start_with_phones(browser, server.url, "quiz", ("Ana",))
    expect(ana.locator("#phone-rules")).to_be_visible()
    tv.click("#pause")
    expect(ana.locator(".paused-overlay")).to_be_visible()
    # what a finger on the "?" touches is the "?" itself, not the cover
    assert ana.evaluate("""() => {
        const b = document.getElementById('phone-rules');
        const r = b.getBoundingClientRect();
        return b.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
    }"""), "the Paused cover lies over the header's ?"
    ana.click("#phone-rules")
    expect(ana.locator("#sheet[data-rules=quiz]")).to_be_visible()
    ana.click("#sheet-close")
    expect(ana.locator(".paused-overlay")).to_be_visible()  # still paused: the cover is there, under the header
    assert not ana.errors and not tv.errors


def test_every_phone_control_has_a_name_and_every_change_is_said_once(server: LiveServer, browser: Any) -> None:
    en = catalog()
    tv, ana, host = quiz_room(browser, server)
    listen(ana)
    assert nameless_controls(ana) == []  # the lobby
    ana.wait_for_function("() => window.__said.length > 0 || document.getElementById('announce').textContent")
    tv.click("#start")
    checked = 0
    for index, q in enumerate(QUESTIONS):
        expect(ana.locator("#game-area")).to_be_visible()
        host("skip")  # the "get ready" lock ends: the question opens
        wait_said(ana, q["prompt"])
        ana.wait_for_selector("#screen button:not([disabled]), #screen input:not([disabled])")
        assert nameless_controls(ana) == [], (index, q["type"])
        checked += controls_count(ana)
        assert axe.judge(ana, "access-quiz") == [], (index, q["type"])
        if q["type"] == "multi":  # a picked toggle keeps its tile's colours (it took the TV's red .toggle.on)
            ana.click("[data-pick='0']")
            expect(ana.locator("[data-pick='0']")).to_have_attribute("aria-pressed", "true")
            ana.select_option("#phone-language", "fa")  # axe leaves one-letter texts (A) to a person: الف it judges
            expect(ana.locator("html")).to_have_attribute("lang", "fa")  # its catalog fetched first
            expect(ana.locator("[data-pick='0']")).to_have_attribute("aria-pressed", "true")
            assert axe.judge(ana, "access-quiz") == [], "a picked toggle"
            ana.select_option("#phone-language", "en")
        if index == 0:
            # the open question is said with its prompt; a tap locks the answer in, and that is said
            ana.click("[data-choice='0']")
            wait_said(ana, en["quiz.locked_in"])
            wait_said(ana, en["quiz.you_right"])  # the only player has answered: the question closes, the verdict
            host("pause")
            wait_said(ana, en["tv.paused"], "startsWith")
            assert nameless_controls(ana) == []
            host("resume")
            wait_said(ana, en["tv.paused"], "not")
        else:
            host("skip")
            ana.wait_for_selector("#my-result")
        ana.wait_for_selector("#my-result")
        assert nameless_controls(ana) == [], (index, "reveal")
        host("next")  # the leaderboard, or after the last question the end
        if index == len(QUESTIONS) - 1:
            break
        ana.wait_for_selector("#standings")
        assert nameless_controls(ana) == [], (index, "standings")
        host("next")
    ana.wait_for_selector("#result")
    wait_said(ana, en["phone.you_won"])  # the end: the only player won
    assert nameless_controls(ana) == [], "the end"
    assert checked > 10  # the question screens had their controls (tiles, keypad, slider, toggles, field…)
    ana.wait_for_function("() => document.getElementById('announce').textContent.length > 0")

    # A state that changes nothing this phone shows (the room locked) says nothing more.
    before = said(ana)
    tv.click("#lock")
    ana.wait_for_timeout(300)  # the page handles a frame after the browser received it; nothing is expected
    assert said(ana) == before
    # Each change was said once: never the same sentence twice in a row.
    texts = said(ana)
    assert all(a != b for a, b in pairwise(texts)), texts
    assert any(en["phone.youre_in"] in s for s in texts), texts
    assert not ana.errors and not tv.errors


def test_larger_text_and_high_contrast_from_the_header(server: LiveServer, browser: Any) -> None:
    en = catalog()
    tv, ana, host = quiz_room(browser, server, **SMALL_PHONE)
    body_size = "() => parseFloat(getComputedStyle(document.body).fontSize)"
    normal = ana.evaluate(body_size)
    ana.click("#phone-display")
    sheet = ana.locator("#sheet[data-display]")
    expect(sheet).to_be_visible()
    expect(sheet.locator("#sheet-title")).to_have_text(en["access.display"])
    assert nameless_controls(ana) == []
    sheet.get_by_label(en["access.text_large"]).check()
    assert ana.evaluate("() => document.body.classList.contains('text-large')")
    assert abs(ana.evaluate(body_size) / normal - 1.25) < 0.01
    sheet.get_by_label(en["access.contrast_high"]).check()
    assert ana.evaluate("() => document.body.classList.contains('contrast-high')")
    assert ana.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 0)"
    assert ana.evaluate("() => localStorage.getItem('throneroom.phone.text')") == '"large"'
    assert ana.evaluate("() => localStorage.getItem('throneroom.phone.contrast')") == '"high"'
    ana.click("#sheet-close")

    ana.reload()  # remembered: on again from the first paint
    expect(ana.locator("#waiting")).to_be_visible()
    assert ana.evaluate("() => document.body.classList.contains('text-large') && document.body.classList.contains('contrast-high')")

    # The screens still fit in large text at 360x640: the lobby, the open question, the verdict, the board.
    def fits(stage: str) -> None:
        problems = ana.evaluate(CHECKER, {"lang": "en", "kind": "phone", "minPx": 0, "width": 360})
        assert problems == [], (stage, problems)
        assert axe.judge(ana, "access-large-contrast") == [], stage  # and no serious axe violation in black and white

    fits("lobby")
    tv.click("#start")
    expect(ana.locator("#game-area")).to_be_visible()
    # in a game the header's "?" opens How to play with the same settings after the rules (the name keeps its width)
    ana.click("#phone-rules")
    expect(ana.locator("#sheet [data-display] #display-text")).to_be_checked()
    ana.click("#sheet-close")
    host("skip")
    ana.wait_for_selector("[data-choice='0']:not([disabled])")
    fits("question")
    ana.click("[data-choice='0']")  # the only player: the answer closes the question
    ana.wait_for_selector("#my-result")
    fits("reveal")
    host("next")
    ana.wait_for_selector("#standings")
    fits("standings")

    # Off again (in the game: from the "?"): the classes go, the setting is remembered as normal.
    ana.click("#phone-rules")
    in_game = ana.locator("#sheet [data-display]")
    in_game.get_by_label(en["access.text_large"]).uncheck()
    in_game.get_by_label(en["access.contrast_high"]).uncheck()
    assert ana.evaluate("() => document.body.classList.contains('text-large') || document.body.classList.contains('contrast-high')") is False
    assert ana.evaluate("() => localStorage.getItem('throneroom.phone.text')") == '"normal"'
    assert not ana.errors and not tv.errors


def test_a_turn_game_says_whose_turn_it_is(server: LiveServer, browser: Any) -> None:
    """Hierarchy, two phones: the one whose turn it is hears "Your turn", the other who is playing; never a countdown."""
    en = catalog()
    tv, code = open_tv(browser, server.url)
    phones = {}
    for name in ("Ana", "Bob"):
        phones[name] = new_page(browser, **PHONE)
        join(phones[name], f"{server.url}/join/{code}", name)
        listen(phones[name])
    tv.click("[data-game=hierarchy]")
    set_setting(tv, "bots", False)
    tv.click("#start")
    for page in phones.values():
        expect(page.locator("#game-area")).to_be_visible()
    turn = next(iter(p for p in phones.values() if p.locator("#h-your-turn").count()), None)
    if turn is None:
        phones["Ana"].wait_for_selector("#h-your-turn, #h-waiting")
        turn = next(p for p in phones.values() if p.locator("#h-your-turn").count())
    other = next(p for p in phones.values() if p is not turn)
    wait_said(turn, en["hier.your_turn"])
    waiting = en["hier.waiting"].split("{name}")[1]  # " is playing…"
    wait_said(other, waiting)
    for page in phones.values():
        texts = said(page)
        assert all(a != b for a, b in pairwise(texts)), texts
        assert not any(re.search(r"\d\.?$", s) for s in texts), texts  # no countdown read out
        assert not page.errors
