"""End to end: audience play-along on the real server in headless Chromium (issue [8]). A TV, a player's phone and a
spectator's phone: the spectator answers the first question through the real keypad, sees its own points and
place after the reveal, and the TV shows the audience's top five with the spectator in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, set_setting, shot

pytestmark = pytest.mark.e2e


@pytest.fixture
def audience_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "audience.db", timer_scale=0.5, extra=["--seed", "7"])
    live.start()
    yield live
    live.stop()


def test_a_spectator_plays_along_and_the_tv_shows_the_audience_top_five(browser: Any,
                                                                         audience_server: LiveServer) -> None:
    url = audience_server.url
    tv, code = open_tv(browser, url)
    ana = new_page(browser, **PHONE)
    join(ana, f"{url}/join/{code}", "Ana")
    viewer = new_page(browser, **PHONE)
    join(viewer, f"{url}/join/{code}", "Vera", "#join-watch")
    tv.click("[data-game=campaign]")
    set_setting(tv, "bots", True)
    tv.click("#timers summary")
    set_setting(tv, "reveal_seconds", 20)  # x 0.5: ten seconds to look at the reveal
    tv.click("#start")

    expect(viewer.locator("#aud-banner")).to_be_visible()  # the question, with the players' own keypad
    expect(viewer.locator("#answer-pad")).to_be_visible()
    enabled_ok = viewer.locator("[data-key='ok']:not([disabled])")
    expect(enabled_ok).to_be_visible()
    shot(viewer, "audience-phone-question")
    for digit in "42":
        viewer.click(f"[data-key='{digit}']")
    enabled_ok.click()
    expect(viewer.locator("#sent")).to_be_visible()

    expect(ana.locator("[data-key='ok']:not([disabled])")).to_be_visible()
    for digit in "7":
        ana.click(f"[data-key='{digit}']")
    ana.click("[data-key='ok']")  # the bots answer too; the last answer brings the reveal

    expect(viewer.locator("#aud-result")).to_be_visible()
    expect(viewer.locator("#aud-points")).to_contain_text("+")
    expect(viewer.locator("#aud-rank")).to_be_visible()
    expect(viewer.locator("#aud-total")).to_be_visible()
    shot(viewer, "audience-phone-result")
    top = tv.locator("#audience-top")
    expect(top).to_be_visible()
    expect(top).to_contain_text("Vera")
    shot(tv, "audience-tv-top-five")
    assert "Vera" not in ana.locator("body").inner_text()  # the player's phone is not the audience's
    for page in (tv, ana, viewer):
        assert page.errors == []
