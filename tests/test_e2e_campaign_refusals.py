"""End to end (issue [10] #8): on a phone's map only the highlighted territories can be chosen, and a refusal from
the engine reaches the phone in the page's language, never as the engine's English message."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from host.i18n import catalog
from tests.conftest import LiveServer, module_server
from tests.e2e import PHONE, join, new_page, open_tv, set_setting, shot

TIMERS = {"preview_seconds": 0, "numeric_seconds": 8, "choice_seconds": 8, "pick_seconds": 60, "target_seconds": 60,
          "reveal_seconds": 1}


@pytest.fixture(scope="module")
def campaign_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from module_server(tmp_path_factory.mktemp("refusals"), seed=11)


def tampering_phone(browser: Any, tamper: dict[str, bool]) -> Page:
    """A phone whose WebSocket passes through the test: while ``tamper["on"]`` its pick names a territory that does
    not exist, as a phone with a stale or broken screen might send, so the engine refuses it."""
    page = new_page(browser, **PHONE)

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: Any) -> None:
            if tamper["on"] and isinstance(message, str) and '"pick":' in message:
                message = re.sub(r'"pick":"[^"]*"', '"pick":"nowhere"', message)
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/socket\.io/"), route)
    return page


def test_only_highlighted_territories_are_chosen_and_a_refusal_is_in_persian(browser: Any,
                                                                             campaign_server: LiveServer) -> None:
    url = campaign_server.url
    tv, code = open_tv(browser, url)
    tamper = {"on": False}
    phones = {}
    for name in ("Ana", "Bob"):
        phone = tampering_phone(browser, tamper)
        join(phone, f"{url}/join/{code}?lang=fa", name)
        phones[name] = phone
    tv.click("[data-game=campaign]")
    set_setting(tv, "bots", True)  # a bot fills the third seat (CAMP-D13): one of the two people always picks
    tv.click("#timers summary")
    for key, value in TIMERS.items():
        set_setting(tv, key, value)
    tv.click("#start")

    # The phones answer every quick question; whatever else runs (the bot thinking over its answer or its pick, a
    # reveal) the host skips with the TV's Skip timer rather than waiting it out: a bot's pick times out at random
    # (CAMP-D3), a question with the people's answers in closes.
    chooser: Page | None = None
    deadline = time.monotonic() + 120
    while chooser is None and time.monotonic() < deadline:
        acted = False
        for phone in phones.values():
            if phone.locator("#chooser").count():
                chooser = phone
                break
            if phone.locator("[data-key='ok']:not([disabled])").count():
                with contextlib.suppress(Exception):  # the question closed under our fingers
                    phone.click("[data-key='5']", timeout=1000)
                    phone.click("[data-key='ok']", timeout=1000)
                    acted = True
        if chooser is None and not acted:
            with contextlib.suppress(Exception):  # nothing timed at this moment: look again
                tv.click("#skip", timeout=1000)
        phones["Ana"].wait_for_timeout(200)
    assert chooser is not None, "no phone got to choose a territory"

    # The winner and the runner-up choose free territories bordering their empire (CAMP-R9, CAMP-R10): the map
    # lights exactly those; a tap on any other one selects nothing and confirms nothing.
    map_paths = chooser.locator("#chooser svg [data-territory]")
    expect(map_paths.first).to_be_visible()
    options = chooser.locator(".territory-button").evaluate_all("(els) => els.map((e) => e.dataset.territory)")
    lit = map_paths.evaluate_all("(els) => els.filter((e) => e.classList.contains('choosable')).map((e) => e.dataset.territory)")
    assert options and sorted(options) == sorted(lit)
    dark = map_paths.evaluate_all("(els) => els.filter((e) => !e.classList.contains('choosable')).map((e) => e.dataset.territory)")
    assert dark, "every territory is choosable: nothing to test"
    for territory in dark[:4]:
        chooser.locator(f"#chooser svg [data-territory='{territory}']").dispatch_event("click")
        expect(chooser.locator("#chooser .selected")).to_have_count(0)
        expect(chooser.locator("#confirm")).to_be_disabled()
    shot(chooser, "campaign-phone-dark-tap")

    # A refusal the engine sends (here a pick of a territory that does not exist) is shown in the page's language.
    tamper["on"] = True
    chooser.locator(".territory-button").first.click()
    expect(chooser.locator("#confirm")).to_be_enabled()
    chooser.click("#confirm")
    status = chooser.locator("#status.error")
    expect(status).not_to_be_empty()
    assert not re.search(r"[A-Za-z]", status.inner_text()), status.inner_text()  # not the engine's English
    assert status.inner_text() == catalog("fa").get("error.illegal_action")
    shot(chooser, "campaign-phone-refusal-fa")
    for page in (tv, *phones.values()):
        assert page.errors == []
