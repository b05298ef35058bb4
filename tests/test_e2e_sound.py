"""End to end: the sound of issue [18] (host/static/sound.js, docs/sound.md) on the real server in headless Chromium.

- Every cue named anywhere in the pages' code (``cue("...")`` in host/static/**/*.js and player/static/*.js) is in
  the registry TR.sound.CUES with a visual twin, and plays without error after a real click on the TV's "Sound on":
  the AudioContext runs and the cue makes audio nodes. An unknown name throws.
- The Display sheet: Sound, Music and Effects volumes and Motion, reached with the keyboard; the volumes and Motion
  persist in localStorage across a reload and set the gains.
- The music ducks under an effect (the duck's gain is lower while the effect sounds, back after).
- A real host-paced quiz: the lobby's loop, the question's bed, "lockin" when an answer comes in, "reveal" at the
  reveal, "leaderboard" and "podium" (each with its twin on screen as it plays, and each once however often the
  screen redraws); a phone whose owner turned sound on hears its own "lockin" and "right"; a phone left alone stays
  silent (no AudioContext at all).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import requests
import socketio
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, pack_zip

ROOT = Path(__file__).resolve().parent.parent
CONTRACT_CUES = {"lockin", "right", "wrong", "reveal", "leaderboard", "podium", "conquest", "card", "unlock", "tick", "tower"}
QUESTIONS = [
    {"type": "choice", "prompt": "Which planet is the largest?", "options": ["Mars", "Venus", "Jupiter"], "correct": 2},
    {"type": "choice", "prompt": "The Danube flows through Vienna.", "options": ["True", "False"], "correct": 0},
]


def cue_names_in_code() -> set[str]:
    """Every cue the pages' code asks for by name."""
    files = [*(ROOT / "host" / "static").rglob("*.js"), *(ROOT / "player" / "static").glob("*.js")]
    names: set[str] = set()
    for path in files:
        if path.name == "socket.io.min.js":
            continue
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"""\bcue\(\s*["']([A-Za-z_]+)["']""", text))
        for pair in re.findall(r"""\bcue\(\s*[^"'()]*\?\s*["']([A-Za-z_]+)["']\s*:\s*["']([A-Za-z_]+)["']""", text):
            names |= set(pair)  # cue(right ? "right" : "wrong", …)
    return names


def sound_on(tv: Page) -> None:
    """The TV's one clear tap: "Sound on" in the header; the AudioContext runs after it."""
    expect(tv.locator("#sound-on")).to_be_visible()
    assert tv.evaluate("TR.sound.context") is None  # nothing made before the tap
    tv.click("#sound-on")
    tv.wait_for_function("() => TR.sound.context === 'running'")
    expect(tv.locator("#sound-on")).to_be_hidden()


def played(page: Page, name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = page.evaluate(
        "(name) => TR.sound.played.filter((e) => e.name === name).map((e) => ({key: e.key, nodes: e.nodes, twin: e.twin}))", name)
    return entries


def test_every_cue_in_the_code_is_registered_and_plays_with_nodes_after_sound_on(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url, 1280, 720)
    registry = tv.evaluate("Object.fromEntries(Object.entries(TR.sound.CUES).map(([k, v]) => [k, v.twin]))")
    used = cue_names_in_code()
    assert CONTRACT_CUES <= used | set(registry), "a cue of the contract is missing"
    assert {"lockin", "reveal", "right", "wrong", "podium", "leaderboard", "card", "conquest", "unlock"} <= used
    assert used <= set(registry), f"cues asked for but not registered: {sorted(used - set(registry))}"
    assert CONTRACT_CUES <= set(registry)
    assert all(isinstance(twin, str) and twin for twin in registry.values()), registry

    # before the tap: a cue is silent and makes no AudioContext (the browser's autoplay rule)
    assert tv.evaluate("TR.sound.cue('reveal')") is False
    assert tv.evaluate("TR.sound.context") is None
    sound_on(tv)
    assert tv.evaluate("localStorage.getItem('throneroom.tv.sound')") == "on"
    for name in sorted(registry):
        before = tv.evaluate("TR.sound.nodes")
        assert tv.evaluate("(name) => TR.sound.cue(name)", name) is True, name
        assert tv.evaluate("TR.sound.nodes") > before, f"{name} made no audio node"
        assert played(tv, name)[-1]["nodes"] > 0
    assert tv.evaluate("TR.sound.context") == "running"
    # the old interface still works: play("end") is the podium's fanfare
    assert tv.evaluate("TR.sound.play('end')") is True
    assert played(tv, "podium")

    # an unknown name throws, with the name in the message
    error = tv.evaluate("() => { try { TR.sound.cue('kazoo'); return null; } catch (e) { return e.message; } }")
    assert error is not None and "kazoo" in error
    error = tv.evaluate("() => { try { TR.sound.music('disco'); return null; } catch (e) { return e.message; } }")
    assert error is not None and "disco" in error

    # a cue under the same key twice plays once (a redraw of the same state)
    assert tv.evaluate("TR.sound.cue('card', 41)") is True
    assert tv.evaluate("TR.sound.cue('card', 41)") is False
    assert tv.evaluate("TR.sound.cue('card', 42)") is True


def test_the_music_ducks_under_an_effect_and_the_question_bed_turns_tense(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url, 1280, 720)
    sound_on(tv)
    tv.wait_for_function("() => TR.sound.bed === 'lobby'")  # the lobby's loop, from the room's state
    tv.wait_for_function("() => TR.sound.levels().music > 0.05 && TR.sound.levels().duck > 0.95")
    # the lobby's loop reaches the speakers, softly
    tv.wait_for_function("() => TR.sound.peak() > 0.005")
    tv.evaluate("TR.sound.cue('podium')")  # the longest effect: about three seconds
    tv.wait_for_function("() => TR.sound.levels().duck < 0.5")  # ducked while it sounds…
    # the fanfare over the music at the default volumes is heard and never clips
    loudest = tv.evaluate("""async () => {  // the loudest sample over the fanfare's three seconds
        let most = 0;
        for (let i = 0; i < 60; i++) { most = Math.max(most, TR.sound.peak()); await new Promise((r) => setTimeout(r, 50)); }
        return most;
    }""")
    assert 0.05 < loudest < 0.9, loudest
    assert tv.evaluate("TR.sound.levels().music") > 0.05  # (the music's own volume is untouched)
    tv.wait_for_function("() => TR.sound.levels().duck > 0.95")  # …and back after it
    # a tick is not ducked (it is part of the tension)
    tv.evaluate("TR.sound.cue('tick')")
    assert tv.evaluate("TR.sound.levels().duck") > 0.95

    # the question's bed: tense in the last five seconds, with a tick each second
    tv.evaluate("TR.sound.music('question', {endsAt: performance.now() + 30000})")
    assert tv.evaluate("TR.sound.bed") == "question"
    assert tv.evaluate("TR.sound.tense") is False
    tv.evaluate("TR.sound.music('question', {endsAt: performance.now() + 6500})")  # a new close: armed again
    assert tv.evaluate("TR.sound.tense") is False
    tv.wait_for_function("() => TR.sound.tense === true")
    tv.wait_for_function("() => TR.sound.played.filter((e) => e.name === 'tick').length >= 3")
    tv.evaluate("TR.sound.music(null)")
    assert tv.evaluate("TR.sound.tense") is False
    assert tv.evaluate("TR.sound.bed") is None


def test_the_display_sheet_sets_volumes_and_motion_by_keyboard_and_they_persist(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url, 1280, 720)
    # the defaults of the contract
    assert tv.evaluate("[localStorage.getItem('throneroom.tv.music'), localStorage.getItem('throneroom.tv.sound')]") == [None, None]
    tv.focus("#display-settings")
    tv.keyboard.press("Enter")
    sheet = tv.locator("#sheet[data-display]")
    expect(sheet).to_be_visible()
    expect(sheet.locator("#sheet-title")).to_have_text("Display")
    for field, label in (("#sound-toggle", "Sound"), ("#music-volume", "Music volume"), ("#effects-volume", "Effects volume"),
                         ("#motion-toggle", "Motion (scores count, rows slide)")):
        expect(tv.get_by_label(label, exact=True)).to_have_attribute("id", field[1:])
    expect(tv.locator("#music-volume")).to_have_value("40")
    expect(tv.locator("#effects-volume")).to_have_value("70")
    expect(tv.locator("#motion-toggle")).to_be_checked()

    # Sound on from the sheet, by keyboard: a real gesture, so the context runs
    tv.focus("#sound-toggle")
    tv.keyboard.press("Space")
    tv.wait_for_function("() => TR.sound.context === 'running'")
    expect(tv.locator("#sound-toggle")).to_be_checked()
    expect(tv.locator("#sound-on")).to_be_hidden()
    # music down four steps of five, effects up two, motion off
    tv.focus("#music-volume")
    for _ in range(4):
        tv.keyboard.press("ArrowLeft")
    tv.focus("#effects-volume")
    for _ in range(2):
        tv.keyboard.press("ArrowRight")
    expect(tv.locator("#music-volume-value")).to_have_text("20%")
    tv.focus("#motion-toggle")
    tv.keyboard.press("Space")
    expect(tv.locator("#motion-toggle")).not_to_be_checked()
    stored = tv.evaluate("['music', 'effects', 'motion', 'sound'].map((k) => localStorage.getItem('throneroom.tv.' + k))")
    assert stored == ["20", "80", "off", "on"]
    # the gains follow: music at (20/100)² of its top, effects at (80/100)²
    tv.wait_for_function("() => Math.abs(TR.sound.levels().music - 0.2 * 0.2 * 0.8) < 0.005")
    tv.wait_for_function("() => Math.abs(TR.sound.levels().effects - 0.8 * 0.8) < 0.01")

    # the TV remembers: after a reload the sheet shows the same, and the sound is on again after any tap
    tv.reload()
    expect(tv.locator("#display-settings")).to_be_visible()
    tv.click("#display-settings")
    expect(tv.locator("#music-volume")).to_have_value("20")
    expect(tv.locator("#effects-volume")).to_have_value("80")
    expect(tv.locator("#motion-toggle")).not_to_be_checked()
    tv.wait_for_function("() => TR.sound.context === 'running'")  # the tap on Display woke it
    tv.wait_for_function("() => Math.abs(TR.sound.levels().music - 0.032) < 0.005")
    # sound off from the sheet: "Sound on" is back in the header
    tv.click("#sound-toggle")
    assert tv.evaluate("localStorage.getItem('throneroom.tv.sound')") == "off"
    tv.keyboard.press("Escape")
    expect(tv.locator("#sound-on")).to_be_visible()


def test_the_display_sheet_speaks_persian_with_persian_digits(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url, 1280, 720)
    tv.select_option("#room-language", "fa")
    tv.wait_for_function("() => document.documentElement.lang === 'fa'")
    expect(tv.locator("#sound-on")).to_contain_text("روشن کردن صدا")
    tv.click("#display-settings")
    expect(tv.locator("#sheet-title")).to_have_text("نمایش")
    expect(tv.locator("#music-volume-value")).to_have_text(re.compile("^۴۰"))
    expect(tv.locator("#effects-volume-value")).to_have_text(re.compile("^۷۰"))


def host_setup(url: str, code: str, token: str, pack_id: str) -> None:
    host = socketio.Client(reconnection=False)
    host.connect(url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    try:
        assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
        for control in ({"control": "select_game", "game": "quiz"}, {"control": "packs", "packs": [pack_id]},
                        {"control": "settings", "game": "quiz", "settings": {"order": "pack", "paced": "host", "bots": False}}):
            reply = host.call("control", control, namespace="/tv", timeout=10)
            assert reply["ok"], (control, reply)
    finally:
        host.disconnect()


def twin_on_screen(page: Page, name: str) -> bool:
    return bool(page.evaluate("(name) => TR.sound.twinShown(name)", name))


def test_a_real_quiz_plays_its_cues_with_their_twins_and_a_phone_is_silent_until_its_owner_says(
        browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, 1280, 720)
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    upload = requests.post(server.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("sound.zip", pack_zip("Sound check", QUESTIONS))}, timeout=60)
    assert upload.status_code == 201, upload.text
    ana, bob = new_page(browser, **PHONE), new_page(browser, **PHONE)
    join(ana, f"{server.url}/join/{code}", "Ana")
    join(bob, f"{server.url}/join/{code}", "Bob")
    # phones are silent by default: the toggle (in the phone's Display sheet) says off, and nothing audio exists
    for phone in (ana, bob):
        phone.click("#phone-display")
        expect(phone.locator("#phone-sound")).to_have_attribute("aria-pressed", "false")
        expect(phone.locator("#phone-sound")).to_have_accessible_name("Sound on this phone")
        assert phone.evaluate("TR.sound.context") is None
    ana.click("#phone-sound")
    expect(ana.locator("#phone-sound")).to_have_attribute("aria-pressed", "true")
    for phone in (ana, bob):
        phone.click("#sheet-close")
    ana.wait_for_function("() => TR.sound.context === 'running'")
    assert ana.evaluate("localStorage.getItem('throneroom.phone.sound')") == "on"
    assert bob.evaluate("localStorage.getItem('throneroom.phone.sound')") is None

    sound_on(tv)
    tv.wait_for_function("() => TR.sound.bed === 'lobby'")
    host_setup(server.url, code, token, upload.json()["pack"]["id"])
    expect(tv.locator("#start")).to_be_enabled()
    tv.click("#start")

    for index, q in enumerate(QUESTIONS):
        expect(tv.locator("#quiz-count")).to_have_text(f"Question {index + 1} of {len(QUESTIONS)}")
        tv.wait_for_function("() => TR.sound.bed === 'question'")  # the lobby's loop gave way to the question's bed
        tv.click("#skip")  # the "get ready" cut short
        ana.click(f"[data-choice='{q['correct']}']:not([disabled])")
        expect(ana.locator("#sent")).to_be_visible()
        # the TV hears the answer come in, with the count on screen (its twin), once however often it redraws
        expect(tv.locator("#quiz-answered-count")).to_have_text("1 of 2 answered")
        tv.wait_for_function("(i) => TR.sound.played.some((e) => e.name === 'lockin' && e.key[0] === i)", arg=index)
        lockins = [e for e in played(tv, "lockin") if e["key"][0] == index]
        assert [e["key"][1] for e in lockins] == [1] and lockins[0]["twin"] is True, lockins
        bob.click(f"[data-choice='{(q['correct'] + 1) % len(q['options'])}']:not([disabled])")  # the last answer: the reveal
        expect(tv.locator(".quiz-reveal")).to_be_visible()
        tv.wait_for_function("(i) => TR.sound.played.filter((e) => e.name === 'reveal' && e.key === i).length === 1", arg=index)
        reveal = [e for e in played(tv, "reveal") if e["key"] == index]
        assert reveal[0]["twin"] is True and twin_on_screen(tv, "reveal")
        assert tv.evaluate("TR.sound.bed") is None  # the bed stops with the reveal
        if index == 0:  # the same reveal drawn again (in Romanian, then in English) plays nothing again
            for lang in ("ro", "en"):
                tv.select_option("#room-language", lang)
                tv.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
                expect(tv.locator(".quiz-reveal")).to_be_visible()
            assert len(played(tv, "reveal")) == 1
        # Ana's phone: its own lock-in and its own "Right!", the twin on screen
        ana.wait_for_function("(i) => TR.sound.played.some((e) => e.name === 'right' && e.key === i)", arg=index)
        assert next(e for e in played(ana, "right") if e["key"] == index)["twin"] is True
        assert twin_on_screen(ana, "right")
        assert len(played(ana, "lockin")) == index + 1
        # Bob's phone asked for "wrong" (its twin is on screen) but made no sound and no AudioContext
        bob.wait_for_function("(i) => TR.sound.asked.some((e) => e.name === 'wrong' && e.key === i && e.twin === true)", arg=index)
        assert bob.evaluate("[TR.sound.context, TR.sound.played.length]") == [None, 0]
        # the leaderboard after the host's Next (the last question goes straight to the results)
        tv.locator("#quiz-next").click()
        if index + 1 < len(QUESTIONS):
            tv.wait_for_function("(i) => TR.sound.played.some((e) => e.name === 'leaderboard' && e.key === i)", arg=index)
            assert played(tv, "leaderboard")[-1]["twin"] is True and twin_on_screen(tv, "leaderboard")
            tv.locator("#quiz-next").click()

    # the results: the podium's fanfare, once, with the ranking on screen; the question bed is gone
    expect(tv.locator("#quiz-over")).to_be_visible()
    tv.wait_for_function("() => TR.sound.played.some((e) => e.name === 'podium')")
    assert len(played(tv, "podium")) == 1 and played(tv, "podium")[0]["twin"] is True
    assert twin_on_screen(tv, "podium")
    assert tv.evaluate("TR.sound.bed") is None
    # redraws of the same screen replay nothing: every reveal once
    assert [e["key"] for e in played(tv, "reveal")] == list(range(len(QUESTIONS)))
    assert bob.evaluate("TR.sound.context") is None
    assert not tv.errors and not ana.errors and not bob.errors


def test_a_card_played_in_hierarchy_sounds_once_per_step_with_the_line_on_screen(browser: Any, server: LiveServer) -> None:
    from tests.e2e import start_with_phones
    from tests.test_e2e_hierarchy import take_turn

    tv, phones = start_with_phones(browser, server.url, "hierarchy")
    expect(tv.locator(".h-tv")).to_be_visible()
    sound_on(tv)
    assert tv.evaluate("TR.sound.bed") is None  # no music bed in a card game: the lobby's loop stopped
    for _ in range(40):  # a few looks at each phone, until two cards are down (the turn may move under the fingers)
        if len({json.dumps(e["key"]) for e in played(tv, "card")}) >= 2:
            break
        for phone in phones:
            try:
                take_turn(phone)
            except Exception:  # noqa: BLE001, S110 - the turn moved on: the next pass looks again
                pass
    cards = played(tv, "card")
    steps = [e["key"] for e in cards]
    assert len(steps) >= 2, cards
    assert len(steps) == len(set(steps)), f"a step played twice: {steps}"  # redraws replay nothing
    tv.wait_for_function("() => TR.sound.played.filter((e) => e.name === 'card').every((e) => e.twin === true)")
    assert twin_on_screen(tv, "card")
