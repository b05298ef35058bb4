"""Screen checker, the room itself (issue [9]): the landing page, the join form with an error, the lobby of a full
room with every game picked, renaming, a game's side panel with twelve people (its QR code must still decode), a
paused game, a game the host ended, and a removed phone, on every TV and phone size in every language
(tests/screens/)."""

from __future__ import annotations

from typing import Any

from host.room import clean_name
from tests.conftest import LiveServer
from tests.e2e import decode_qr
from tests.screens.harness import StressRoom, stress_names


def pick_language(page: Any, lang: str) -> None:
    """The phone's own language picker, as a person would use it."""
    page.evaluate("""(lang) => {
        const picker = document.getElementById('phone-language');
        if (picker.value !== lang) { picker.value = lang; picker.dispatchEvent(new Event('change')); }
    }""", lang)


def test_the_room_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "room")
    names = stress_names()
    url = slow_server.url

    landing = room.blank_phone()
    room.check_page("landing", "landing", landing, lambda lang: landing.goto(f"{url}/?lang={lang}"))

    room.phone("player", names[0])
    room.phone("spectator", names[1], role="spectator")
    for name in names[2:12]:
        room.robot(name)
    for name in ("Spectator One", "Spectator Two"):
        room.robot(name, role="spectator")

    newcomer = room.blank_phone()
    newcomer.goto(f"{url}/join/{room.code}")

    def taken_name(lang: str) -> None:  # the join form after a refused name: the error in the page's language
        newcomer.wait_for_selector("#join-form")
        pick_language(newcomer, lang)
        newcomer.fill("#name", names[3])
        newcomer.click("#join-player")
        newcomer.wait_for_function("() => document.getElementById('name-error').textContent.length > 0")

    room.check_page("join-form-name-taken", "newcomer", newcomer, taken_name)

    room.check("lobby-no-game")
    for game in ("campaign", "crown", "hierarchy", "avignon"):
        room.control("select_game", game=game)
        room.tv.wait_for_selector(f"[data-game={game}][aria-pressed=true]")
        if game == "campaign":  # the game and the people first, How to play under them; then the host's Settings door
            room.check(f"lobby-{game}-howto", phones=[])
            room.tv.click("#settings-button")
            room.tv.wait_for_function("() => document.getElementById('settings-door').open")
        room.check(f"lobby-{game}", phones=["player"])

    player = room.phones["player"]
    player.click("#me")
    player.wait_for_selector(".rename-form")
    room.check("rename", phones=["player"], tv=False)
    player.click(".rename-form button[type=button]")

    # A game with everyone in it: the TV's side panel keeps a QR code that a phone camera can read.
    room.control("select_game", game="tally")
    room.settings("tally", bots=False)
    room.control("start")
    room.tv.wait_for_selector("#tally-total")
    for width, height in ((1280, 720), (1920, 1080)):
        room.tv.set_viewport_size({"width": width, "height": height})
        assert decode_qr(room.tv.locator(".join .qr").screenshot()) == f"{url}/join/{room.code}", (width, height)
    room.check("in-game-side-panel")

    room.control("pause")
    room.tv.wait_for_selector("#paused")
    room.check("paused")
    room.control("resume")

    room.control("end")
    room.tv.wait_for_selector("#lobby")
    room.check("ended-by-host")

    room.control("lobby")
    room.tv.wait_for_selector("#start")
    spectators = room.room_state()["spectators"]
    seat_id = next(s["id"] for s in spectators if s["name"] == clean_name(names[1]))
    room.control("kick", seat=seat_id)
    room.phones["spectator"].wait_for_selector("#kicked")
    room.check("removed", phones=["spectator"], tv=False)
    room.finish()
