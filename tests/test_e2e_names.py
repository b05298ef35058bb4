"""End to end, the phone's name field at 360x640 (issue [17], finding 8): a 22-character name is not cut into someone
else's (the field counts "22/20" and says it is too long, and so does the server), a rude name gets a polite reason in
the phone's language, and the host's switch on the TV lets a name through (docs/security.md, "Nicknames")."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import join, new_page, open_tv, shot

SMALL_PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2}


def test_a_long_name_is_counted_not_cut_and_a_rude_one_is_refused_politely(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, 1280, 720)
    url = f"{server.url}/join/{code}"
    ana = new_page(browser, **SMALL_PHONE)
    join(ana, url, "Ana-Maria Popescu-Io")  # 20 characters: the most a name has

    bob = new_page(browser, **SMALL_PHONE)
    bob.goto(url)
    field = bob.locator("#name")
    field.click()
    expect(bob.locator("#name-count")).to_have_text("0/20")
    bob.keyboard.type("Ana-Maria Popescu-Ionu")  # 22 characters, typed key by key
    expect(field).to_have_value("Ana-Maria Popescu-Ionu")  # nothing cut: a maxlength made it the name above
    expect(bob.locator("#name-count")).to_have_text("22/20")
    expect(bob.locator("#name-count")).to_have_class(re.compile(r"\bover\b"))
    expect(bob.locator("#name-error")).to_contain_text("at most 20 characters")
    expect(field).to_have_attribute("aria-invalid", "true")
    shot(bob, "phone-360-name-too-long")
    bob.click("#join-player")
    expect(bob.locator("#name-error")).to_contain_text("at most 20 characters")  # the server's word: not "taken"
    expect(bob.locator("#name-error")).not_to_contain_text("taken")
    expect(field).to_have_value("Ana-Maria Popescu-Ionu")
    for _ in range(2):
        field.press("Backspace")
    expect(bob.locator("#name-count")).to_have_text("20/20")
    expect(bob.locator("#name-error")).to_have_text("")
    bob.click("#join-player")
    expect(bob.locator("#name-error")).to_contain_text("taken")  # now it is the same name, and it says so

    # A rude name, however spelled, gets a polite reason that does not repeat it.
    field.fill("F.u.c.k 2")
    bob.click("#join-player")
    expect(bob.locator("#name-error")).to_have_text("This name is not allowed in this room. Please choose another one.")
    shot(bob, "phone-360-name-not-allowed")

    # In Persian: the counter and the reasons in Persian, with Persian digits.
    bob.select_option("#phone-language", "fa")
    expect(bob.locator("html")).to_have_attribute("lang", "fa")  # its catalog fetched first (the form drawn again)
    field = bob.locator("#name")
    field.fill("کس‌کش")
    expect(bob.locator("#name-count")).to_have_text("۵ از ۲۰")
    bob.click("#join-player")
    expect(bob.locator("#name-error")).to_have_text("این نام در این اتاق پذیرفته نیست. لطفاً نام دیگری انتخاب کنید.")
    shot(bob, "phone-360-name-not-allowed-fa")
    field.fill("س" * 22)
    expect(bob.locator("#name-count")).to_have_text("۲۲ از ۲۰")
    expect(bob.locator("#name-error")).to_contain_text("۲۰")
    shot(bob, "phone-360-name-too-long-fa")

    # The host turns the filter off on the TV: the name comes in; on again, the next rude name does not.
    toggle = tv.locator("#name-filter")
    expect(toggle).to_be_checked()
    shot(tv, "tv-1280-lobby-name-filter")
    toggle.uncheck()
    expect(toggle).not_to_be_checked()
    bob.select_option("#phone-language", "en")
    bob.locator("#name").fill("Dick Francis")
    bob.click("#join-player")
    expect(bob.locator("#waiting")).to_be_visible()
    expect(tv.locator("#player-list .player .name")).to_have_text(["Ana-Maria Popescu-Io", "Dick Francis"])
    toggle.check()
    expect(toggle).to_be_checked()
    cy = new_page(browser, **SMALL_PHONE)
    cy.goto(url)
    cy.fill("#name", "Dick")
    cy.click("#join-player")
    expect(cy.locator("#name-error")).to_contain_text("not allowed")

    # Renaming: the same counter, and the same refusals.
    bob.click("#me")
    rename = bob.locator("#rename")
    rename.fill("Dick Francis, the 3rd")
    expect(bob.locator("#rename-count")).to_have_text("21/20")
    expect(bob.locator("#rename-error")).to_contain_text("at most 20 characters")
    shot(bob, "phone-360-rename-too-long")
    rename.fill("sh1t")
    bob.click(".rename-form button[type=submit]")
    expect(bob.locator("#rename-error")).to_contain_text("not allowed")
