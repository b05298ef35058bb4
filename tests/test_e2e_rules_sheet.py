"""End to end: the rules can be opened during a game ([13]) on the TV ("How to play" in the control bar) and on
every phone screen (the "?" in the header); the sheet survives the state updates that redraw the screen, and
Escape or Close shuts it. The games add their own parts (cards, statuses) through their renderer's rules()."""

from __future__ import annotations

import json
import time
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e import PHONE, STATE_FRAME, join, new_page, open_tv, set_setting, shot

CATALOG = Path(__file__).resolve().parent.parent / "host/i18n"


def howto_lines(game: str, language: str) -> list[str]:
    """The lobby's how-to of a game in a language, line by line."""
    catalog: dict[str, str] = {}
    for path in [CATALOG / f"{language}.json", *CATALOG.glob(f"*.{language}.json")]:  # the main one and the fragments
        catalog.update(json.loads(path.read_text(encoding="utf-8")))
    return [line.strip() for line in catalog[f"game.{game}.howto"].split("|")]


def test_rules_open_during_a_game_on_the_tv_and_on_a_phone(server, browser):
    tv, code = open_tv(browser, server.url)
    ana, bob = new_page(browser, **PHONE), new_page(browser, **PHONE)
    locked = []  # the states Bob's phone received with the room locked
    bob.on("websocket", lambda ws: ws.on("framereceived", lambda frame: locked.append(1) if (
        isinstance(frame, str) and STATE_FRAME.match(frame) and '"locked":true' in frame) else None))
    join(ana, f"{server.url}/join/{code}", "Ana")
    join(bob, f"{server.url}/join/{code}", "Bob")
    tv.click("[data-game=quiz]")
    set_setting(tv, "bots", False)
    tv.click("#start")
    expect(tv.locator("#game-area")).to_be_visible()
    assert not tv.locator("#sheet").count()
    tv.click("#how-to-play")
    sheet = tv.locator("#sheet[data-rules=quiz]")
    expect(sheet).to_be_visible()
    for line in howto_lines("quiz", "en"):
        expect(sheet.locator("li", has_text=line)).to_have_count(1)
    ana.locator("[data-choice]:not([disabled]), .keypad [data-key='1']:not([disabled])").first.wait_for(timeout=20_000)
    if ana.locator("[data-choice]").count():  # an answer redraws the TV's stage
        ana.click("[data-choice='0']")
    else:
        ana.click(".keypad [data-key='1']")
        ana.click(".keypad [data-key='ok']")
    expect(tv.locator("#quiz-answered li.done")).to_have_count(1)
    expect(sheet).to_be_visible()  # the update did not close it
    shot(tv, "rules-sheet-tv")
    tv.keyboard.press("Escape")
    expect(tv.locator("#sheet")).to_have_count(0)

    # A state that changes what the phone shows (the pause) redraws its screen but not its header, which shows the
    # same: a tap on the "?" is never lost to a redraw that replaced the button between press and release (a flaky
    # screen check, [15]). A new language redraws the phone at once, and its next state changes nothing it shows.
    bob.evaluate("() => { document.getElementById('phone-rules').kept = true; }")
    tv.click("#pause")
    expect(bob.locator(".paused-overlay")).to_be_visible()
    assert bob.evaluate("() => document.getElementById('phone-rules').kept === true"), "the pause rebuilt the header"
    bob.evaluate("""() => {  // paused: the question's time does not run out meanwhile
        const picker = document.getElementById('phone-language');
        picker.value = 'fa';
        picker.dispatchEvent(new Event('change'));  // drawn in Persian once its catalog is here, and the server told
    }""")
    bob.wait_for_function("() => document.documentElement.lang === 'fa'")
    bob.evaluate("() => { document.getElementById('game-area').kept = true; }")
    tv.click("#lock")  # a state that changes nothing a phone shows
    deadline = time.monotonic() + 10
    while not locked:
        assert time.monotonic() < deadline, "no state came with the room locked"
        bob.wait_for_timeout(50)
    bob.wait_for_timeout(200)  # the page handles the frame after the browser has received it
    assert bob.evaluate("() => document.getElementById('game-area').kept === true"), "the next state redrew the phone"
    tv.click("#resume")
    expect(bob.locator(".paused-overlay")).to_have_count(0)
    bob.click("#phone-rules")
    phone_sheet = bob.locator("#sheet[data-rules=quiz]")
    expect(phone_sheet).to_be_visible()
    expect(phone_sheet.locator("li").first).to_have_text(howto_lines("quiz", "fa")[0])
    shot(bob, "rules-sheet-phone-fa")
    bob.click("#sheet-close")
    expect(bob.locator("#sheet")).to_have_count(0)
    assert not tv.errors and not ana.errors and not bob.errors
