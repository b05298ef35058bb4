"""End to end: audience play-along on the real server in headless Chromium (issue [8]). A TV, a player's phone and a
spectator's phone: the spectator answers the first question through the real keypad, sees its own points and
place after the reveal, and the TV shows the audience's top five with the spectator in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import LiveServer, module_server
from tests.e2e import PHONE, join, new_page, open_tv, set_setting, shot

TR_SENT = "Sent: 42"


@pytest.fixture(scope="module")
def audience_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from module_server(tmp_path_factory.mktemp("audience"), timer_scale=0.5, seed=7)


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



def lossy_phone(browser: Any, lost: dict[str, Any]) -> Any:
    """A phone whose WebSocket passes through the test, which loses the server's acknowledgement of the first
    audience answer (``lost["ack"]`` notes it), as a bad connection may."""
    page = new_page(browser, **PHONE)

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: Any) -> None:
            found = re.match(r'42/play,(\d+)\["audience"', message) if isinstance(message, str) else None
            if found and lost.get("id") is None:
                lost["id"] = found.group(1)
            server.send(message)

        def from_server(message: Any) -> None:
            if lost.get("id") is not None and not lost.get("ack") and isinstance(message, str) \
                    and message.startswith(f"43/play,{lost['id']}["):
                lost["ack"] = message
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/socket\.io/"), route)
    return page


def test_a_spectator_sees_sent_as_soon_as_the_server_takes_the_answer(browser: Any, server: LiveServer) -> None:
    """Issue [10] #7: "Sent" and no pad as soon as the answer is sent, while no player has answered (so no state
    follows the spectator's answer but its own); and a tap whose acknowledgement was lost still shows the answer as
    in, never the pad again (which could only be refused: "You have already answered")."""
    url = server.url
    tv, code = open_tv(browser, url)
    ana = new_page(browser, **PHONE)
    join(ana, f"{url}/join/{code}", "Ana")
    lost: dict[str, Any] = {}
    viewer = lossy_phone(browser, lost)
    join(viewer, f"{url}/join/{code}", "Vera", "#join-watch")
    tv.click("[data-game=campaign]")
    set_setting(tv, "bots", True)
    tv.select_option("#set-bot_level", "easy")
    expect(tv.locator(".settings")).to_have_attribute("data-values", re.compile('"bot_level":"easy"'))
    tv.click("#timers summary")
    set_setting(tv, "preview_seconds", 0)
    for key in ("numeric_seconds", "choice_seconds"):
        set_setting(tv, key, 120)  # the bots think for at least 40% of it: nobody answers before the spectator
    tv.click("#start")

    enabled_ok = viewer.locator("[data-key='ok']:not([disabled])")
    expect(enabled_ok).to_be_visible()
    for digit in "42":
        viewer.click(f"[data-key='{digit}']")
    enabled_ok.click()
    expect(viewer.locator("#sent")).to_contain_text(TR_SENT)
    expect(viewer.locator("[data-key]")).to_have_count(0)  # nothing to tap twice
    expect(tv.locator("#question .answered li.done")).to_have_count(0)  # no player has answered

    # The acknowledgement never came: the request gives up after 8 s, but the server's own state for this phone
    # (sent to it alone with every accepted answer) already says the answer is in: the pad does not come back, so
    # nothing can be answered twice ("You have already answered").
    expect(viewer.locator("#status.error")).to_be_visible(timeout=20_000)  # the request gives up after 8 s
    assert lost.get("ack"), "the first answer's acknowledgement was not the one lost"
    expect(viewer.locator("#sent")).to_contain_text(TR_SENT)
    expect(viewer.locator("#sent")).to_contain_text("42")
    expect(viewer.locator("[data-key]")).to_have_count(0)
    expect(tv.locator("#question .answered li.done")).to_have_count(0)  # still no player has answered
    for page in (tv, ana, viewer):
        assert page.errors == []
