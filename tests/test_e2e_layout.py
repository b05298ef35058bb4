"""End to end: the pages fit a 720p, 1080p and 4K TV and small phones; a dropped Wi-Fi heals by itself."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import socketio
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, new_page, open_tv, shot

WAIT = 15_000


def robot_phones(server: LiveServer, code: str, names: list[str]) -> list[socketio.Client]:
    """Phones without a browser: real Socket.IO clients over loopback."""
    clients = []
    for name in names:
        client = socketio.Client(reconnection=False)
        client.connect(server.url, namespaces=["/play"], transports=["websocket"])
        answer = client.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play", timeout=10)
        assert answer["ok"], answer
        clients.append(client)
    return clients


def inside_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] + 1 \
        and box["y"] + box["height"] <= size["height"] + 1


NAMES = ["Ana", "Bogdan", "Cătălina", "Darius", "Elena", "Farhad", "Gelareh", "Horia", "Ioana", "Kaveh",
         "Ladan", "Maximilian-Alexandru"[:20]]


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080), (3840, 2160)])
def test_the_tv_lobby_fits_the_screen_with_twelve_players(browser: Any, server: LiveServer, width: int, height: int):
    tv, code = open_tv(browser, server.url, width, height)
    phones = robot_phones(server, code, NAMES)
    try:
        expect(tv.locator("#player-list .player")).to_have_count(12)
        tv.click("[data-game=campaign]")
        expect(tv.locator(".settings")).to_be_visible()
        for selector in ("#room-code", ".join .qr", "#start", "[data-game=avignon]"):
            assert inside_viewport(tv, selector), (selector, width, height)
        scroll = tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert scroll[0] <= width and scroll[1] <= height
        code_px = tv.evaluate("parseFloat(getComputedStyle(document.getElementById('room-code')).fontSize)")
        assert code_px >= height * 0.06  # the code reads from across the room
        shot(tv, f"tv-lobby-{height}p")
    finally:
        for phone in phones:
            phone.disconnect()


@pytest.mark.parametrize("width,height", [(320, 568), (390, 844), (667, 375)])
def test_the_phone_join_form_is_in_thumb_reach(browser: Any, server: LiveServer, width: int, height: int):
    _tv, code = open_tv(browser, server.url, 1280, 720)
    phone = new_page(browser, viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    phone.goto(f"{server.url}/join/{code}")
    for selector in ("#name", "#join-player", "#join-watch"):
        assert inside_viewport(phone, selector), (selector, width, height)
        assert phone.locator(selector).bounding_box()["height"] >= 44
    phone.fill("#name", "Thumb")
    phone.tap("#join-player")
    expect(phone.locator("#waiting")).to_be_visible()
    shot(phone, f"phone-{width}x{height}")


def test_a_dropped_wifi_comes_back_to_the_current_state(browser: Any, server: LiveServer):
    tv, code = open_tv(browser, server.url, 1280, 720)
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    phone.set_default_timeout(WAIT)
    phone.goto(f"{server.url}/join/{code}")
    phone.fill("#name", "Roamer")
    phone.click("#join-player")
    expect(phone.locator("#waiting")).to_be_visible()
    others = robot_phones(server, code, ["Steady"])
    try:
        context.set_offline(True)
        expect(tv.locator("[data-seat='1']")).to_have_class(re.compile("away"))
        tv.click("[data-game=tally]")
        tv.click("#start")
        expect(tv.locator("#tally-total")).to_be_visible()
        context.set_offline(False)
        expect(phone.locator("#tally-total")).to_be_visible()  # the game started while it was away
        expect(tv.locator("[data-seat='1']")).not_to_have_class(re.compile("away"))
    finally:
        for other in others:
            other.disconnect()


def test_a_spectator_phone_shows_the_public_view(browser: Any, server: LiveServer):
    tv, code = open_tv(browser, server.url, 1280, 720)
    players = robot_phones(server, code, ["P1", "P2"])
    watcher = new_page(browser, **PHONE)
    try:
        watcher.goto(f"{server.url}/join/{code}")
        watcher.fill("#name", "Watcher")
        watcher.click("#join-watch")
        expect(watcher.locator("#waiting")).to_be_visible()
        tv.click("[data-game=tally]")
        tv.click("#start")
        expect(watcher.locator("#not-playing")).to_be_visible()
        expect(watcher.locator("#tally-total")).to_be_visible()
        assert watcher.locator("[data-add]").count() == 0  # nothing to press
    finally:
        for player in players:
            player.disconnect()


def test_artifacts_folder_is_ignored_by_git():
    ignored = (Path(__file__).resolve().parent.parent / ".gitignore").read_text()
    assert "/test-artifacts/" in ignored


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080), (3840, 2160)])
def test_the_campaign_fits_the_tv(browser: Any, server: LiveServer, width: int, height: int):
    tv, _ = open_tv(browser, server.url, width, height)
    tv.click("[data-game=campaign]")
    tv.click("#start")  # three bots
    expect(tv.locator("#question")).to_be_visible()
    expect(tv.locator(".camp-map")).to_be_visible()
    for selector in ("#question", ".camp-map", ".score-card >> nth=2", "#pause"):
        assert inside_viewport(tv, selector), (selector, width, height)
    scroll = tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll[0] <= width and scroll[1] <= height
    prompt_px = tv.evaluate("parseFloat(getComputedStyle(document.querySelector('.q-prompt')).fontSize)")
    assert prompt_px >= height * 0.045  # the question reads from the sofa
    shot(tv, f"tv-campaign-{height}p")
