"""End to end: a whole Quiz (issue [12]) on the real server, a TV and three phone pages in headless Chromium.

The host uploads a five-question .zip pack (a JSON pack and one picture) through the HTTP API with the room's host
token, picks it alone, sets the quiz host-paced and starts. Every phone answers every question through its real
tiles and keypad (one phone in Persian at 360x640); the TV shows who has answered, the picture, the reveal's counts
per option and each player's points, the leaderboard after the host's Next, and at the end the podium and every
player's statistics. Screenshots of each stage land in test-artifacts/ for people to look at."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import requests
import socketio
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import open_tv, quiz_phones, shot
from tests.screens.harness import CHECKER

QUESTIONS = [
    {"type": "choice", "prompt": "Which planet is this?", "options": ["Mars", "Venus", "Jupiter", "Saturn"],
     "correct": 2, "image": "planet.png"},
    {"type": "numeric", "prompt": "How many metres high is Mount Everest?", "answer": 8849, "unit": "m"},
    {"type": "choice", "prompt": "The Danube flows through Vienna.", "options": ["True", "False"], "correct": 0},
    {"type": "choice", "prompt": "Which of these is a prime number?", "options": ["21", "27", "29"], "correct": 2},
    {"type": "numeric", "prompt": "In which year did the Berlin Wall fall?", "answer": 1989},
]
# What each phone answers: Ana is always right (and first), Zahra right on every choice and second closest on
# numbers, Bob wrong on every choice and farthest on numbers.
NUMBERS = {"Ana": 0, "Zahra": 40, "Bob": 900}


def png(width: int = 320, height: int = 200) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "#10204a")
    ImageDraw.Draw(image).ellipse((100, 40, 220, 160), fill="#e0a860")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def pack_zip() -> bytes:
    pack = {"format": "throneroom-pack/1", "name": "Office quiz", "language": "en", "questions": QUESTIONS}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pack.json", json.dumps(pack))
        archive.writestr("planet.png", png())
    return out.getvalue()


THINK_MS = {"Ana": 0, "Zahra": 900, "Bob": 0}  # from the moment the phone unlocks: Ana is the quickest, by far


def answer(phone: Page, name: str, index: int) -> None:
    """The phone answers question ``index`` through its real buttons, once they are unlocked and the person has
    thought for THINK_MS. Zahra used to answer as soon as the TV showed Ana's answer: her fair time (counted from
    her own phone's unlock) came out only about 100 ms behind Ana's in some questions, less than a loaded machine's
    pages vary in how long a click takes, and Zahra led the board in one run of the suite."""
    q = QUESTIONS[index]
    if q["type"] == "choice":
        choice = q["correct"] if name != "Bob" else (q["correct"] + 1) % len(q["options"])
        phone.wait_for_selector(f"[data-choice='{choice}']:not([disabled])")
        phone.wait_for_timeout(THINK_MS[name])
        phone.click(f"[data-choice='{choice}']:not([disabled])")
    else:
        phone.wait_for_selector("[data-key='ok']:not([disabled])")
        phone.wait_for_timeout(THINK_MS[name])
        for digit in str(q["answer"] + NUMBERS[name]):
            phone.click(f"[data-key='{digit}']")
        phone.click("[data-key='ok']")
    expect(phone.locator("#sent, #my-result").first).to_be_visible()  # the last answer closes it at once


def screen_problems(page: Page, lang: str, kind: str, width: int, height: int) -> list[dict[str, Any]]:
    min_px = 24 * height / 1080 if kind == "tv" else 0
    return page.evaluate(CHECKER, {"lang": lang, "kind": kind, "minPx": min_px, "width": width})


def test_a_whole_quiz_from_an_uploaded_pack(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, 1280, 720)
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    upload = requests.post(server.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("office.zip", pack_zip())}, timeout=60)
    assert upload.status_code == 201, upload.text
    pack_id = upload.json()["pack"]["id"]

    phones: dict[str, Page] = quiz_phones(browser, server.url, code)
    zahra = phones["Zahra"]

    host = socketio.Client(reconnection=False)
    host.connect(server.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    try:
        assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
        for control in ({"control": "select_game", "game": "quiz"},
                        {"control": "packs", "packs": [pack_id]},
                        {"control": "settings", "game": "quiz", "settings": {"order": "pack", "paced": "host"}}):
            reply = host.call("control", control, namespace="/tv", timeout=10)
            assert reply["ok"], (control, reply)
    finally:
        host.disconnect()
    expect(tv.locator("#start")).to_be_enabled()
    shot(tv, "quiz-tv-lobby")
    tv.click("#start")

    scores_seen: dict[str, int] = {}
    for index, q in enumerate(QUESTIONS):
        # ----- the question: the prompt, the picture, the tiles; who has answered lights up -----
        expect(tv.locator("#quiz-count")).to_have_text(f"Question {index + 1} of 5")
        expect(tv.locator(".quiz-question .quiz-prompt")).to_have_text(q["prompt"])
        if q["type"] == "choice":
            expect(tv.locator("#quiz-tiles .quiz-tile")).to_have_count(len(q["options"]))
        if "image" in q:
            image = tv.locator("#quiz-image")
            expect(image).to_have_attribute("alt", "The question's picture")
            tv.wait_for_function("() => { const i = document.getElementById('quiz-image'); return i && i.complete && i.naturalWidth === 320; }")
        shot(tv, f"quiz-tv-{index + 1}-question")
        tv.click("#skip")  # the host cuts the "get ready" short: the question opens now, with its whole time
        answer(phones["Ana"], "Ana", index)
        expect(tv.locator("#quiz-answered li.done")).to_have_count(1)
        answer(phones["Zahra"], "Zahra", index)
        expect(tv.locator("#quiz-answered-count")).to_have_text("2 of 3 answered")
        expect(tv.locator("#quiz-answered li.done")).to_have_count(2)
        expect(tv.locator("#quiz-answered li.pending")).to_have_count(1)
        shot(tv, f"quiz-tv-{index + 1}-answered")
        if index == 0:
            expect(zahra.locator("#sent")).to_have_text("پاسخ شما ثبت شد")
            shot(zahra, "quiz-phone-fa-locked-in")
        answer(phones["Bob"], "Bob", index)  # the last answer closes the question at once

        # ----- the reveal: the right option, how many picked each, everyone's points -----
        expect(tv.locator(".quiz-reveal")).to_be_visible()
        if q["type"] == "choice":
            right = tv.locator(f"#quiz-tiles [data-option='{q['correct']}']")
            expect(right).to_have_class(re.compile(r"\bright\b"))
            expect(right).to_have_attribute("data-count", "2")
            wrong = (q["correct"] + 1) % len(q["options"])
            expect(tv.locator(f"#quiz-tiles [data-option='{wrong}']")).to_have_attribute("data-count", "1")
        else:
            expect(tv.locator("#quiz-correct")).to_contain_text(f"{q['answer']:,}")
        expect(tv.locator("#quiz-results li")).to_have_count(3)
        expect(tv.locator("#quiz-results li.right")).to_have_count(2)
        expect(phones["Ana"].locator("#verdict")).to_have_text("Right!")
        # a wrong option scores nothing; a number is right within its margin (10 % of the answer by default) and
        # scores nothing outside it (QUIZ-S2, issue [17] finding 6): Zahra's 40 off is right, Bob's 900 off is not
        expect(phones["Bob"].locator("#verdict")).to_have_class(re.compile(r"\bbad\b"))
        expect(zahra.locator("#verdict")).to_have_class(re.compile(r"\bgood\b"))
        shot(tv, f"quiz-tv-{index + 1}-reveal")
        if index == 0:
            shot(zahra, "quiz-phone-fa-reveal")
            assert screen_problems(zahra, "fa", "phone", 360, 640) == []
            assert screen_problems(tv, "en", "tv", 1280, 720) == []

        # ----- host-paced: the game waits for the host's Next -----
        next_button = tv.locator("#quiz-next")
        last = index == len(QUESTIONS) - 1
        expect(next_button).to_contain_text("Final results" if last else "Leaderboard")
        next_button.click()
        if last:
            break
        expect(tv.locator("#quiz-board li")).to_have_count(3)
        rows = tv.locator("#quiz-board li")
        expect(rows.nth(0)).to_contain_text("Ana")
        scores_seen = {rows.nth(i).locator("bdi.name").inner_text(): int(re.sub(r"\D", "", rows.nth(i).locator(".quiz-score").inner_text()))
                       for i in range(3)}
        expect(zahra.locator("#my-place")).to_contain_text("رتبهٔ")
        shot(tv, f"quiz-tv-{index + 1}-leaderboard")
        tv.locator("#quiz-next").click()

    # ----- the end: the podium and every player's statistics -----
    expect(tv.locator("#quiz-podium")).to_be_visible()
    expect(tv.locator("#quiz-podium .step-1")).to_contain_text("Ana")
    expect(tv.locator("#quiz-podium .step-2")).to_contain_text("Zahra")
    expect(tv.locator("#quiz-podium .step-3")).to_contain_text("Bob")
    stats = tv.locator("#quiz-stats tbody tr")
    expect(stats).to_have_count(3)
    expect(stats.nth(0)).to_contain_text("5 of 5")  # Ana: every answer right
    expect(stats.nth(2)).to_contain_text("0 of 5")  # Bob: none
    final = {stats.nth(i).locator("bdi.name").inner_text(): int(re.sub(r"\D", "", stats.nth(i).locator("td.score").inner_text()))
             for i in range(3)}
    assert final["Ana"] > final["Zahra"] > final["Bob"] == 0, final  # Bob: every option wrong, every number far off
    assert all(final[name] >= scores_seen[name] for name in final), (final, scores_seen)
    shot(tv, "quiz-tv-podium")
    for phone in phones.values():
        expect(phone.locator("#my-stats")).to_be_visible()
    expect(phones["Ana"].locator("#result")).to_have_text("You won!")
    shot(zahra, "quiz-phone-fa-final")
    assert screen_problems(zahra, "fa", "phone", 360, 640) == []
    assert screen_problems(tv, "en", "tv", 1280, 720) == []
    for page in (tv, *phones.values()):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
