"""End to end, a Short Campaign question that opens at the end of its preview with no state of its own
(engine/core.py ``Game.foreseen``): the TV page and the phone pages in Chromium count down to the shown instant and
draw the open question by themselves (host/static/games/campaign.js ``current``), and a phone's answer, sent with the
step its page saw, is taken. The server's frames are counted: none reaches a page between the preview and the
answer."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_settings, set_setting, state_frames


def test_pages_open_the_previewed_question_by_the_clock(browser: Any, server: LiveServer) -> None:  # CAMP-D2
    tv = new_page(browser, viewport={"width": 1280, "height": 720})
    tv_states = state_frames(tv)
    tv.goto(server.url + "/tv")
    tv.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
    open_settings(tv)
    code = tv.locator("#room-code").inner_text()
    phones = {}
    for name in ("Ana", "Bob", "Cy"):
        phones[name] = new_page(browser, **PHONE)
        phones[name].states = state_frames(phones[name])
        join(phones[name], f"{server.url}/join/{code}", name)
    tv.click("[data-game=campaign]")
    set_setting(tv, "bots", False)
    expect(tv.locator("#set-preview_seconds")).to_have_value("3")  # the default preview: not set here
    tv.click("#start")

    ring = tv.locator("#question .ring")
    expect(ring).to_be_visible(timeout=15_000)  # the first question, previewed: "get ready", the phones locked
    ana = phones["Ana"]
    expect(ana.locator("[data-key='ok']")).to_be_disabled()
    before = ring.get_attribute("data-ring")  # the countdown to the unlock
    tv_seen, ana_seen = len(tv_states), len(ana.states)

    expect(ring).not_to_have_attribute("data-ring", before, timeout=6000)  # now to the question's end
    expect(tv.locator("#question .ring-label")).not_to_be_empty()
    expect(ana.locator("[data-key='ok']")).to_be_enabled()
    assert len(tv_states) == tv_seen and len(ana.states) == ana_seen, "a state was sent at the unlock"

    for digit in "42":
        ana.click(f"[data-key='{digit}']")
    ana.click("[data-key='ok']")
    expect(ana.locator("#sent")).to_be_visible()
    expect(tv.locator("#question .answered li.done")).to_have_count(1)  # the server took it: the TV says so
    expect(ana.locator(".field-error, [role=alert]:not(:empty)")).to_have_count(0)
    for page in (tv, *phones.values()):
        assert not page.errors, page.errors
