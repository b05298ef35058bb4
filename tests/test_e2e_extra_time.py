"""End to end: extended time (docs/decisions.md, "Extended time"; QUIZ-X1) on the real server in headless Chromium.

The host gives Ana x2 from the TV's lobby (the clock menu on her chip); in a Quiz on a short timer Bob's window closes at
the standard time and his phone says so, while Ana's phone still takes her answer; neither Bob's phone, the TV's
public screen nor a screen that only watches shows anything of Ana's extra time. During the game the host gives Bob
x1.5 from his badge."""

from __future__ import annotations

import json
from typing import Any

import requests
import socketio
from playwright.sync_api import expect

from tests.conftest import Servers
from tests.e2e import PHONE, WAIT_MS, join, new_page, open_tv, shot

PACK = {"format": "throneroom-pack/1", "name": "Short quiz", "language": "en", "questions": [
    {"type": "choice", "prompt": "Which planet is closest to the Sun?", "options": ["Venus", "Mercury", "Mars"],
     "correct": 1},
    {"type": "choice", "prompt": "The Danube flows through Vienna.", "options": ["True", "False"], "correct": 0},
]}
SCALE = 0.25  # the Quiz's 20 s become 5 s: Ana's x2 window is 10 s


def test_the_host_gives_one_phone_double_time_and_only_that_phone_answers_after_the_standard_window(
        browser: Any, servers: Servers) -> None:
    live = servers.start(timer_scale=SCALE)
    tv, code = open_tv(browser, live.url, 1280, 720)
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    upload = requests.post(live.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("short.json", json.dumps(PACK).encode())}, timeout=60)
    assert upload.status_code == 201, upload.text
    phones = {}
    for name in ("Ana", "Bob"):
        phones[name] = new_page(browser, **PHONE)
        join(phones[name], f"{live.url}/join/{code}", name)
    ana, bob = phones["Ana"], phones["Bob"]

    watched: list[Any] = []  # every state a screen that only watches the room receives
    watcher = socketio.Client(reconnection=False)
    watcher.on("state", lambda state: watched.append(state), namespace="/tv")
    watcher.connect(live.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    try:
        assert watcher.call("watch", {"code": code}, namespace="/tv", timeout=10)["ok"]
        host = socketio.Client(reconnection=False)
        host.connect(live.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
        try:
            assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
            for control in ({"control": "select_game", "game": "quiz"},
                            {"control": "packs", "packs": [upload.json()["pack"]["id"]]},
                            {"control": "settings", "game": "quiz", "settings": {"order": "pack", "paced": "host"}}):
                assert host.call("control", control, namespace="/tv", timeout=10)["ok"], control
        finally:
            host.disconnect()

        # ----- the lobby: the host opens Ana's clock menu and picks x2; closed again, the menu tells the room nothing -----
        chip = tv.locator("#player-list li.player", has_text="Ana")
        seat = chip.get_attribute("data-seat")
        menu = tv.locator(f"[data-xtime='{seat}']")
        expect(menu.locator("summary")).to_have_attribute("aria-label", "Answer time for \u2068Ana\u2069")
        expect(tv.locator(f"[data-xtime-select='{seat}']")).to_be_hidden()
        menu.locator("summary").click()
        shot(tv, "xtime-tv-lobby-menu")
        tv.select_option(f"[data-xtime-select='{seat}']", "2")
        # the server's answer redraws the chips: the menu is closed again, and holds the factor the server has
        expect(tv.locator(f"[data-xtime-select='{seat}']")).to_be_hidden()
        expect(tv.locator(f"[data-xtime-select='{seat}']")).to_have_value("2")
        assert "×2" not in tv.locator("body").inner_text()

        tv.click("#start")
        for phone in (ana, bob):
            phone.wait_for_selector("[data-choice='1']:not([disabled])")
        # the TV and Bob count down to the standard close, Ana's phone to her own (twice as long)
        ring = int(tv.locator(".quiz-ring").first.get_attribute("data-ring"))
        bob_close = int(bob.locator("[data-countdown-to]").first.get_attribute("data-countdown-to"))
        ana_close = int(ana.locator("[data-countdown-to]").first.get_attribute("data-countdown-to"))
        assert ring == bob_close and ana_close - bob_close == 5_000, (ring, bob_close, ana_close)

        # ----- the standard window passes: Bob's phone says time is up; Ana's still takes her answer -----
        expect(bob.locator("#time-up")).to_be_visible(timeout=WAIT_MS)  # a wait for the server, not a timing claim
        expect(bob.locator("[data-choice]")).to_have_count(0)
        expect(tv.locator(".quiz-reveal")).to_have_count(0)  # the question is still open on the TV
        expect(ana.locator("[data-choice='1']:not([disabled])")).to_be_visible()
        shot(bob, "xtime-phone-time-up")
        ana.click("[data-choice='1']")
        expect(ana.locator("#sent, #my-result").first).to_be_visible()
        expect(tv.locator(".quiz-reveal")).to_be_visible(timeout=WAIT_MS)  # nobody else may answer: it closes at once
        expect(ana.locator("#my-result")).to_be_visible()
        shot(tv, "xtime-tv-reveal")

        # ----- during the game: Bob's badge has the same menu; x1.5 from his next question -----
        bob_seat = tv.locator("#player-list li.player", has=tv.locator("[aria-label='Remove \u2068Bob\u2069']")) \
            .get_attribute("data-seat")
        badge_menu = tv.locator(f"[data-xtime='{bob_seat}']")
        badge_menu.locator("summary").click()
        expect(tv.locator(f"[data-xtime-select='{bob_seat}']")).to_have_value("1")
        shot(tv, "xtime-tv-game-menu")
        tv.select_option(f"[data-xtime-select='{bob_seat}']", "1.5")
        expect(tv.locator(f"[data-xtime-select='{bob_seat}']")).to_be_hidden()  # redrawn by the server's answer
        expect(tv.locator(f"[data-xtime-select='{bob_seat}']")).to_have_value("1.5")

        for page in (bob, tv):
            text = page.locator("body").inner_text()
            assert "×2" not in text and "×" not in text.replace("✕", ""), text[:400]
        assert bob.errors == [] and ana.errors == [] and tv.errors == []
    finally:
        watcher.disconnect()
    assert watched and all("extra_time" not in json.dumps(s) for s in watched)
    assert not any(str(ana_close) in json.dumps(s) for s in watched)
