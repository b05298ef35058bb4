"""End to end: the real server in its own process, a TV page and three phone pages in headless Chromium."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.conftest import LiveServer, Servers
from tests.e2e import PHONE, decode_qr, join, new_page, open_tv, set_setting, shot, type_join


def phone_to_move(phones: list[Page]) -> Page:
    for phone in phones:
        if phone.locator("#your-turn").count():
            return phone
    raise AssertionError("no phone shows its turn")


def test_a_room_from_qr_code_to_restart_and_kick(browser: Any, servers: Servers) -> None:
    server = servers.start()  # its own: it kills and restarts it
    tv, code = open_tv(browser, server.url)

    # The QR code on the TV, read from a screenshot as a phone camera would, is the join URL.
    join_url = decode_qr(tv.locator(".join .qr").screenshot())
    assert join_url == f"{server.url}/join/{code}"
    shot(tv, "tv-lobby-empty")

    ana, bob, cyrus = (new_page(browser, **PHONE) for _ in range(3))
    join(ana, join_url, "Ana")

    # A name already in the room is refused with a clear message, and another one works.
    bob.goto(join_url)
    bob.fill("#name", "ana")
    bob.click("#join-player")
    expect(bob.locator("#name-error")).to_contain_text("taken")
    bob.fill("#name", "Bob")
    bob.click("#join-player")
    expect(bob.locator("#waiting")).to_be_visible()
    join(cyrus, join_url, "Cyrus")
    expect(tv.locator("#player-list .player .name")).to_have_text(["Ana", "Bob", "Cyrus"])
    shot(tv, "tv-lobby")
    shot(ana, "phone-lobby")

    # A phone reload comes back to the same seat without typing anything.
    ana.reload()
    expect(ana.locator("#waiting")).to_be_visible()
    expect(ana.locator("#me")).to_contain_text("Ana")
    assert ana.locator("#join-form").count() == 0

    # The TV reload keeps the room and the host controls.
    tv.reload()
    expect(tv.locator("#room-code")).to_have_text(code)
    expect(tv.locator("#player-list .player")).to_have_count(3)

    # The host picks the test game and starts; everyone moves into it together.
    tv.click("[data-game=tally]")
    set_setting(tv, "bots", False)
    set_setting(tv, "turn_seconds", 120)
    set_setting(tv, "target", 40)
    tv.click("#start")
    phones = [ana, bob, cyrus]
    for page in [tv, *phones]:
        expect(page.locator("#tally-total")).to_have_text(re.compile(r"0\s*/\s*40"))
    mover = phone_to_move(phones)
    shot(mover, "phone-your-turn")
    mover.click("[data-add='1']")
    expect(tv.locator("#tally-total")).to_have_text(re.compile(r"1\s*/\s*40"))
    shot(tv, "tv-playing")

    # SIGKILL in the middle of the game; on restart every page comes back to the same room and state.
    server.kill()
    expect(tv.locator("#offline")).to_be_visible()
    server.start()
    expect(tv.locator("#offline")).to_be_hidden()
    for page in [tv, *phones]:
        expect(page.locator("#offline")).to_be_hidden()
        expect(page.locator("#tally-total")).to_have_text(re.compile(r"1\s*/\s*40"))
    expect(tv.locator("#player-list .player:not(.away)")).to_have_count(3)
    mover = phone_to_move(phones)
    mover.click("[data-add='2']")
    expect(tv.locator("#tally-total")).to_have_text(re.compile(r"3\s*/\s*40"))
    expect(tv.locator("#pause")).to_be_visible()  # still the host after the restart

    # Kick: the phone is told, the TV list shrinks, and a reload does not bring the seat back.
    tv.click("[data-seat='3'] .badge-button")  # in a game the people in the room are marks; the host's tap removes
    expect(cyrus.locator("#kicked")).to_be_visible()
    expect(tv.locator("#player-list .player")).to_have_count(2)
    cyrus.reload()
    expect(cyrus.locator("#join-form")).to_be_visible()

    # End the game and go back to the lobby: everyone is still in the room.
    tv.click("#end")
    expect(tv.locator("#lobby")).to_be_visible()
    tv.click("#lobby")
    expect(ana.locator("#waiting")).to_be_visible()
    expect(bob.locator("#waiting")).to_be_visible()
    expect(tv.locator("#player-list .player .name")).to_have_text(["Ana", "Bob"])


def test_pause_resume_skip_and_lock_from_the_tv(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    url = f"{server.url}/join/{code}"
    one, two = new_page(browser, **PHONE), new_page(browser, **PHONE)
    join(one, url, "One")
    join(two, url, "Two")
    tv.click("#lock")
    expect(tv.locator("#lock")).to_have_text(re.compile("Unlock"))
    late = new_page(browser, **PHONE)
    type_join(late, url, "Late")
    expect(late.locator("#name-error")).to_contain_text("locked")
    tv.click("[data-game=tally]")
    tv.click("#start")
    expect(one.locator("#tally-total")).to_be_visible()
    tv.click("#pause")
    expect(tv.locator("#paused")).to_be_visible()
    expect(one.locator(".paused-overlay")).to_be_visible()
    tv.click("#resume")
    expect(tv.locator("#paused")).to_have_count(0)
    tv.click("#skip")  # the turn's timer ends now: a random amount is added for the player to move
    expect(tv.locator("#tally-total")).not_to_have_text(re.compile(r"^0\s*/"))
    expect(tv.locator(".tally-history li")).to_have_count(1)


def test_persian_phone_and_room_language(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    phone = new_page(browser, locale="fa-IR", **PHONE)
    phone.goto(f"{server.url}/join/{code}")
    expect(phone.locator("html")).to_have_attribute("dir", "rtl")
    phone.fill("#name", "شیرین")
    phone.click("#join-player")
    expect(phone.locator("#waiting")).to_contain_text("۱")  # "1 player" in Persian digits
    shot(phone, "phone-persian")
    tv.select_option("#room-language", "ro")
    expect(tv.locator("html")).to_have_attribute("lang", "ro")
    expect(tv.locator("#start")).to_have_text("Începe")
    tv.select_option("#room-language", "fa")
    expect(tv.locator("html")).to_have_attribute("dir", "rtl")
    expect(tv.locator("#player-list .name")).to_have_text("شیرین")
    shot(tv, "tv-persian")
    # A number setting shows and takes Persian digits (a number field would show Western ones).
    tv.click("[data-game=campaign]")
    tv.click("#timers summary")
    expect(tv.locator("#set-numeric_seconds")).to_have_value(re.compile(r"^[۰-۹]+$"))
    tv.fill("#set-numeric_seconds", "۱۸")
    tv.dispatch_event("#set-numeric_seconds", "change")
    expect(tv.locator(".settings")).to_have_attribute("data-values", re.compile('"numeric_seconds":18'))
    expect(tv.locator("#set-numeric_seconds")).to_have_value("۱۸")


def test_names_are_shown_escaped(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    phone = new_page(browser, **PHONE)
    join(phone, f"{server.url}/join/{code}", "<img src=x>")
    expect(tv.locator("#player-list .name")).to_have_text("<img src=x>")
    assert tv.locator("#player-list img").count() == 0


def test_rename_from_the_phone_with_a_collision(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    url = f"{server.url}/join/{code}"
    ana, bob = new_page(browser, **PHONE), new_page(browser, **PHONE)
    join(ana, url, "Ana")
    join(bob, url, "Bob")
    bob.click("#me")
    bob.fill("#rename", "ANA")
    bob.click(".rename-form button[type=submit]")
    expect(bob.locator(".rename-form .field-error")).to_contain_text("taken")
    bob.fill("#rename", "Bobby")
    bob.click(".rename-form button[type=submit]")
    expect(bob.locator("#me")).to_contain_text("Bobby")
    expect(tv.locator("#player-list .player .name")).to_have_text(["Ana", "Bobby"])


def test_bots_play_a_whole_game_on_the_real_server(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url)
    tv.click("[data-game=tally]")
    set_setting(tv, "target", 5)
    tv.click("#start")  # nobody joined: two bots play, moved by the server's background task
    expect(tv.locator("#ranking li")).to_have_count(2, timeout=30_000)
    expect(tv.locator("#lobby")).to_be_visible()
