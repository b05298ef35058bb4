"""The lobby's "How to play" (issue [18]): when the host picks a game, its rules summary shows on the TV, on a
1280x720 projector and a 1366x768 laptop too (a rule of the stylesheet hid it at 800 px and less); the room's and
the game's settings wait behind one Settings door, for the host alone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import open_settings, open_tv, shot
from tests.test_e2e_layout import inside_viewport, robot_phones


@pytest.mark.parametrize("width,height", [(1280, 720), (1366, 768)])
def test_how_to_play_shows_when_the_host_picks_a_game(browser: Any, server: LiveServer, width: int, height: int) -> None:
    tv, code = open_tv(browser, server.url, width, height, settings=False)
    phones = robot_phones(server, code, ["Ana", "Radu", "Mia", "Tom"])
    try:
        tv.click("[data-game=quiz]")
        howto = tv.locator("#howto")
        expect(howto).to_be_visible()
        expect(howto.locator("li").first).to_be_visible()
        shot(tv, f"tv-lobby-howto-{width}x{height}")
        for selector in ("#howto h2", "#howto li >> nth=0", "#howto li >> nth=-1", "#start", "#room-code"):
            assert inside_viewport(tv, selector), (selector, width, height)
        # and in view inside the lobby's column (which scrolls): not under its Start row, no scrolling needed
        assert tv.evaluate("""() => {
            const howto = document.getElementById('howto').getBoundingClientRect();
            const column = document.querySelector('.lobby-scroll').getBoundingClientRect();
            return howto.top >= column.top - 1 && howto.bottom <= column.bottom + 1;
        }"""), (width, height)
        expect(tv.locator("#howto-more")).to_be_visible()  # every step, one tap away
        # the people and the game come first: the room's settings are not on the lobby until the door is opened
        expect(tv.locator("#seat-grace")).to_be_hidden()
        expect(tv.locator(".settings")).to_be_hidden()
        shot(tv, f"tv-lobby-howto-{width}x{height}")
        open_settings(tv)
        expect(tv.locator("#seat-grace")).to_be_visible()
        expect(tv.locator("#name-filter")).to_be_visible()
        expect(tv.locator(".settings")).to_be_visible()
        tv.click("#howto-more")
        expect(tv.locator("#sheet li")).to_have_count(len(tv.evaluate("TR.t('game.quiz.howto')").split("|")))
    finally:
        for phone in phones:
            phone.disconnect()
