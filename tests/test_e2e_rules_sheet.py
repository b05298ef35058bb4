"""End to end: the rules can be opened during a game ([13]) on the TV ("How to play" in the control bar) and on
every phone screen (the "?" in the header); the sheet survives the state updates that redraw the screen, and
Escape or Close shuts it. The games add their own parts (cards, statuses) through their renderer's rules()."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e import shot, start_with_phones

CATALOG = Path(__file__).resolve().parent.parent / "host/i18n"


def howto_lines(game: str, language: str) -> list[str]:
    """The lobby's how-to of a game in a language, line by line."""
    catalog: dict[str, str] = {}
    for path in [CATALOG / f"{language}.json", *CATALOG.glob(f"*.{language}.json")]:  # the main one and the fragments
        catalog.update(json.loads(path.read_text(encoding="utf-8")))
    return [line.strip() for line in catalog[f"game.{game}.howto"].split("|")]


def test_rules_open_during_a_game_on_the_tv_and_on_a_phone(server, browser):
    tv, (ana, bob) = start_with_phones(browser, server.url, "quiz")
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

    bob.select_option("#phone-language", "fa")
    bob.click("#phone-rules")
    phone_sheet = bob.locator("#sheet[data-rules=quiz]")
    expect(phone_sheet).to_be_visible()
    expect(phone_sheet.locator("li").first).to_have_text(howto_lines("quiz", "fa")[0])
    shot(bob, "rules-sheet-phone-fa")
    bob.click("#sheet-close")
    expect(bob.locator("#sheet")).to_have_count(0)
    assert not tv.errors and not ana.errors and not bob.errors
