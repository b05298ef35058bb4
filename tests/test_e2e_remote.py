"""End to end: the host on the sofa (issue [18], docs/remote.md), on the real server with a TV and two phone pages in
headless Chromium.

The host taps "Hand controls to a phone" on the TV; Ana's phone (360x640) reads the QR code the TV shows (decoded
from a screenshot, as a camera would) and gets the host remote beside her player screen. From it she chooses the
Quiz, starts it, pauses and resumes, skips each question's timer, reads each right answer before the TV reveals it,
and takes every Next of a host-paced quiz to its end; then starts again and ends the game. Bob's phone and the TV
never receive an answer early (every WebSocket frame they get is kept and read). A reload of Ana's page brings the
remote back (it belongs to her seat). The TV takes the remote back with
one tap: Ana's "Host" button and panel go at once, and a control from her seat is refused ``not_host``."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import requests
import socketio
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, SMALL_PHONE, decode_qr, join, new_page, open_tv, shot
from tests.screens.harness import SETTLE_AND_CHECK

QUESTIONS = [
    {"type": "choice", "prompt": "Which planet is the largest?", "options": ["Mars", "Venus", "Jupiter"], "correct": 2},
    {"type": "numeric", "prompt": "How many metres high is Mount Everest?", "answer": 8849, "unit": "m"},
    {"type": "choice", "prompt": "The Danube flows through Vienna.", "options": ["True", "False"], "correct": 0},
]
ANSWERS = ["Answer: Jupiter", "Answer: 8,849 m", "Answer: True"]


def upload(url: str, code: str, token: str) -> str:
    pack = {"format": "throneroom-pack/1", "name": "Pub quiz", "language": "en", "questions": QUESTIONS}
    answer = requests.post(url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("pack.json", json.dumps(pack).encode())}, timeout=60)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["pack"]["id"])


def frames(page: Page) -> list[str]:
    """Every WebSocket frame the page receives from now on (kept in the list returned)."""
    kept: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: kept.append(str(payload))))
    return kept


def judged(page: Page, kind: str, width: int, langs: tuple[str, ...] = ("en",)) -> None:
    """The screens checker (tests/screens/checker.js) passes this screen in each language: nothing cut, overlapping,
    off screen or scrolled out of reach, no Latin digit on a Persian page. A phone switches its own language."""
    for lang in langs:
        if kind == "phone":
            page.select_option("#phone-language", lang)
            expect(page.locator("#remote-title")).to_have_text(
                {"en": "Host remote", "fa": "کنترل میزبان", "ro": "Telecomanda gazdei"}[lang])
        problems = page.evaluate(SETTLE_AND_CHECK, {"lang": lang, "kind": kind, "minPx": 0, "width": width})
        assert not problems, (lang, problems[:3])


def test_the_host_hands_the_controls_to_a_phone_runs_a_quiz_from_it_and_takes_them_back(
        browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, 1280, 720)
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    pack = upload(server.url, code, token)
    ana = new_page(browser, **SMALL_PHONE)
    bob = new_page(browser, **PHONE)
    bob_frames = frames(bob)
    join(ana, f"{server.url}/join/{code}", "Ana")
    join(bob, f"{server.url}/join/{code}", "Bob")
    host = socketio.Client(reconnection=False)  # the room's packs and settings, as the TV's lobby sets them
    host.connect(server.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    try:
        assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
        for control in ({"control": "packs", "packs": [pack]},
                        {"control": "settings", "game": "quiz",
                         "settings": {"order": "pack", "paced": "host", "bots": False}}):
            assert host.call("control", control, namespace="/tv", timeout=10)["ok"], control
    finally:
        host.disconnect()
    tv_frames = frames(tv)
    tv.reload()  # the TV's own socket from now on is recorded too
    expect(tv.locator("#handover-open")).to_be_visible()
    expect(ana.locator("#remote-open")).to_have_count(0)

    # ----- the hand-over: a QR code on the TV only, read by Ana's phone -----
    tv.click("#handover-open")
    expect(tv.locator("#handover-sheet")).to_be_visible()
    shot(tv, "remote-tv-handover")
    judged(tv, "tv", 1280)
    url = decode_qr(tv.locator("#handover-qr").screenshot())
    assert urlsplit(url).path == f"/join/{code}" and urlsplit(url).fragment.startswith("remote=")
    assert token not in url
    ana.goto(url)  # the camera opens the link: the phone comes back to its seat and says the code
    expect(ana.locator("#remote")).to_be_visible()
    expect(ana.locator("#remote-open")).to_have_attribute("aria-pressed", "true")
    assert "#" not in ana.url  # the code left the address bar
    expect(tv.locator("#handover-sheet")).to_have_count(0)
    expect(tv.locator("#remote-held")).to_contain_text("\u2068Ana\u2069's phone has the host controls")
    expect(bob.locator("#remote-open")).to_have_count(0)
    judged(tv, "tv", 1280)  # the header's "Ana's phone has the host controls" and "Take back" fit beside the rest
    shot(ana, "remote-phone-lobby")
    judged(ana, "phone", 360, ("fa", "ro", "en"))

    # ----- Ana runs the quiz from the sofa -----
    ana.select_option("#remote-game", "quiz")
    expect(tv.locator("[data-game=quiz]")).to_have_class(re.compile(r"\bselected\b"))
    ana.click("#remote-settings summary")  # the lobby's settings, as on the TV
    ana.fill("#remote-set-seconds", "60")
    ana.press("#remote-set-seconds", "Enter")
    expect(tv.locator("#set-seconds")).to_have_value("60")
    ana.uncheck("#remote-set-streak")
    expect(tv.locator("#set-streak")).not_to_be_checked()
    expect(ana.locator("#remote-settings")).to_have_attribute("open", "")
    judged(ana, "phone", 360, ("fa", "ro", "en"))
    # the room's controls too (issue [18]: every control of the TV): the lock, the packs, each seat's extended time
    ana.click("#remote-room summary")
    expect(ana.locator(f"[data-pack='{pack}']")).to_be_checked()
    ana.click("#remote-lock")
    expect(tv.locator("#lock")).to_have_text("Unlock room")
    expect(ana.locator("#remote-lock")).to_have_text("Unlock room")
    bob_seat = ana.locator("[data-xtime-select]").nth(1).get_attribute("data-xtime-select")
    ana.select_option(f"[data-xtime-select='{bob_seat}']", "2")
    expect(tv.locator(f"select[data-xtime-select='{bob_seat}']")).to_have_value("2")
    expect(ana.locator(f"[data-xtime-select='{bob_seat}']")).to_have_value("2")  # the remote drew the change
    for attempt in range(3):  # the remote may draw the room's state once more meanwhile: its section is new then
        try:
            ana.locator("#remote-room").scroll_into_view_if_needed(timeout=5000)
            break
        except PlaywrightError:
            if attempt == 2:
                raise
    shot(ana, "remote-phone-room")
    judged(ana, "phone", 360, ("fa", "ro", "en"))
    ana.select_option(f"[data-xtime-select='{bob_seat}']", "1")
    ana.click("#remote-lock")
    expect(tv.locator("#lock")).to_have_text("Lock room")
    ana.click("#remote-start")
    expect(tv.locator("#quiz-count")).to_have_text("Question 1 of 3")
    for index, q in enumerate(QUESTIONS):
        expect(tv.locator("#quiz-count")).to_have_text(f"Question {index + 1} of 3")
        expect(ana.locator("#remote-answer")).to_have_text(ANSWERS[index])  # before the reveal, on her phone only
        expect(ana.locator("#remote-revealed")).to_have_count(0)
        if index == 1:
            judged(ana, "phone", 360, ("fa", "ro", "en"))  # a number with its unit, in Persian digits too
        if index == 0:
            shot(ana, "remote-phone-quizmaster")
            ana.click("#remote-pause")
            expect(tv.locator("#paused")).to_be_visible()
            ana.click("#remote-resume")
            expect(tv.locator("#paused")).to_have_count(0)
        ana.click("#remote-skip")  # the "get ready" cut short: the question opens
        expect(tv.locator(".quiz-reveal")).to_have_count(0)
        if q["type"] == "numeric":  # Bob and the TV have had the whole open question: not its answer
            assert not [f for f in bob_frames + tv_frames if "8849" in f]
        if q["type"] == "choice":
            bob.click(f"[data-choice='{q['correct']}']:not([disabled])")
        else:
            bob.wait_for_selector("[data-key='ok']:not([disabled])")
            for digit in "8800":
                bob.click(f"[data-key='{digit}']")
            bob.click("[data-key='ok']")
        expect(ana.locator("#remote-answered")).to_have_text("1 of 2 answered")
        ana.click("#remote-skip")  # Ana plays quizmaster: she closes the question herself
        expect(tv.locator(".quiz-reveal")).to_be_visible()
        expect(ana.locator("#remote-revealed")).to_be_visible()
        if q["type"] == "numeric":  # the reveal carries it: the frames read above would have shown it
            assert [f for f in bob_frames if "8849" in f]
        last = index + 1 == len(QUESTIONS)
        expect(ana.locator("#remote-next")).to_have_text("Final results" if last else "Leaderboard")
        ana.click("#remote-next")
        if not last:
            expect(tv.locator("#quiz-board")).to_be_visible()
            expect(ana.locator("#remote-next")).to_have_text("Next question")
            ana.click("#remote-next")
    expect(tv.locator(".finished-head h1")).to_have_text("Results")
    expect(ana.locator("#remote-start")).to_be_visible()

    # ----- Ana's own game stays one tap away; then a second game, ended from the sofa -----
    ana.click("#remote-close")
    expect(ana.locator("#remote")).to_be_hidden()
    expect(ana.locator("#result")).to_be_visible()
    ana.click("#remote-open")
    ana.click("#remote-start")
    expect(tv.locator("#quiz-count")).to_have_text("Question 1 of 3")
    ana.click("#remote-end")  # confirmed (the test pages accept dialogs)
    expect(tv.locator(".finished-head h1")).to_have_text("The host ended the game")
    remote_frames = [f for f in bob_frames + tv_frames if '["remote",' in f or '"notes"' in f]  # its event, its card
    assert not remote_frames, remote_frames[:1]
    assert not [f for f in bob_frames + tv_frames if re.search(r'[{,]"correct":', f) and '"phase":"question"' in f]
    assert [f for f in bob_frames if re.search(r'[{,]"correct":', f)]  # the reveals carry it: the search finds it

    # ----- the remote belongs to Ana's seat: a reload of her page brings it back -----
    ana.reload()
    expect(ana.locator("#remote-open")).to_be_visible()
    expect(ana.locator("#remote-start")).to_be_visible()

    # ----- the TV takes the remote back with one tap -----
    tv.click("#remote-take-back")
    expect(ana.locator("#remote-open")).to_have_count(0)
    expect(ana.locator("#remote")).to_be_hidden()
    expect(tv.locator("#handover-open")).to_be_visible()
    seat = ana.evaluate(f"JSON.parse(localStorage.getItem('throneroom.seat.{code}'))")
    phone = socketio.Client(reconnection=False)  # Ana's seat, as her phone's next control would reach the server
    phone.connect(server.url + f"?room={code}", namespaces=["/play"], transports=["websocket"], wait_timeout=10)
    try:
        assert phone.call("hello", {"code": code, "token": seat}, namespace="/play", timeout=10)["ok"]
        refused = phone.call("remote_control", {"control": "lobby"}, namespace="/play", timeout=10)
        assert refused["error"]["code"] == "not_host"
    finally:
        phone.disconnect()
    tv.click("#lobby")  # the TV kept its controls throughout
    expect(tv.locator("#start")).to_be_visible()
    for page in (tv, ana, bob):
        assert not page.errors, page.errors
