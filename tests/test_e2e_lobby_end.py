"""End to end ([10]): a wrong room code is told at once, the lobby shows timers as they will run, and *End game*
shows the standings so far on the TV and the phones."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT, LiveServer, module_server
from tests.e2e import PHONE, join, new_page, open_tv

SAW_NAME_FORM = """
window.sawNameForm = false;
new MutationObserver(() => { if (document.getElementById("name")) window.sawNameForm = true; })
  .observe(document, {childList: true, subtree: true});
"""


def catalog(language: str) -> dict[str, Any]:
    return json.loads((ROOT / "host" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scaled_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose timers run at 0.3 of the settings (``--timer-scale 0.3``)."""
    yield from module_server(tmp_path_factory.mktemp("scaled"), timer_scale=0.3)


def test_a_wrong_code_is_told_on_the_landing_page_before_any_name_form(browser: Any, server: LiveServer) -> None:
    page = new_page(browser, **PHONE)
    page.add_init_script(SAW_NAME_FORM)
    page.goto(server.url + "/")
    page.fill("#code", "zzzz")
    page.click("#go")
    expect(page.locator("#code-error")).to_have_text(catalog("en")["error.unknown_room"])
    assert page.url.rstrip("/") == server.url and page.locator("#name").count() == 0
    assert page.evaluate("window.sawNameForm") is False

    # In the page's language (a Persian landing page tells it in Persian).
    page.goto(server.url + "/?lang=fa")
    page.fill("#code", "ZZZZ")
    page.press("#code", "Enter")
    expect(page.locator("#code-error")).to_have_text(catalog("fa")["error.unknown_room"])

    # A code of an existing room, typed in lower case, still leads to its name form.
    _, code = open_tv(browser, server.url)
    page.fill("#code", code.lower())
    page.click("#go")
    expect(page.locator("#name")).to_be_visible()
    assert page.url == f"{server.url}/join/{code}"


def test_the_join_url_of_a_missing_room_says_so_at_once(browser: Any, server: LiveServer) -> None:
    page = new_page(browser, **PHONE)
    page.add_init_script(SAW_NAME_FORM)
    response = page.goto(server.url + "/join/ZZZZ")
    assert response is not None and response.status == 404
    assert "There is no room" in response.text()  # told by the server, before any script runs
    expect(page.locator("#no-room")).to_contain_text("There is no room")
    expect(page.locator("#phone-language")).to_be_visible()  # the page's script has run too
    assert page.locator("#name").count() == 0
    assert page.evaluate("window.sawNameForm") is False


def test_the_lobby_shows_timers_as_they_will_run(browser: Any, scaled_server: LiveServer) -> None:
    tv, _ = open_tv(browser, scaled_server.url)
    tv.click("[data-game=campaign]")
    tv.click("#timers summary")
    # What the host types stays in the game's own seconds; beside it, how long it will really last here.
    expect(tv.locator("#set-numeric_seconds")).to_have_value("10")
    expect(tv.locator("#scaled-numeric_seconds")).to_contain_text(re.compile(r"\b3 s\b"))
    expect(tv.locator("#scaled-reveal_seconds")).to_contain_text(re.compile(r"1\.2 s\b"))
    expect(tv.locator("#timer-scale-note")).to_contain_text("0.3")
    tv.click("[data-game=crown]")
    tv.click("#timers summary")
    expect(tv.locator("#scaled-day_minutes")).to_contain_text(re.compile(r"1\.2 min\b"))


def test_the_lobby_of_a_normal_server_shows_no_scaled_timers(browser: Any, server: LiveServer) -> None:
    tv, _ = open_tv(browser, server.url)
    tv.click("[data-game=campaign]")
    tv.click("#timers summary")
    expect(tv.locator("#set-numeric_seconds")).to_have_value("10")
    assert tv.locator("[id^=scaled-], #timer-scale-note").count() == 0


def test_end_game_shows_the_standings_so_far(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    ana = new_page(browser, **PHONE)
    join(ana, f"{server.url}/join/{code}", "Ana")
    tv.click("[data-game=campaign]")
    tv.click("#start")  # Ana and two bots
    expect(ana.locator("#mini-scores")).to_be_visible()
    tv.click("#end")
    # CAMP-D12: the TV ranks all three seats; the phone tells its place, and no prompt of the game that ended.
    expect(tv.locator("#ranking li")).to_have_count(3)
    expect(tv.locator(".finished-head h1")).to_have_text("The host ended the game")
    expect(ana.locator("#result")).to_contain_text("The host ended the game")
    expect(ana.locator("#place")).to_contain_text(re.compile(r"#[123]"))
    expect(ana.locator("#standings li")).to_have_count(3)
    # Tied seats share a place, the same on the TV and the phone (1, 1, 1 while nobody has scored).
    tv_places = tv.locator("#ranking li").evaluate_all("items => items.map((li) => li.dataset.place)")
    expect(ana.locator("#standings .place")).to_have_text(tv_places)
    expect(ana.locator("#game-area")).not_to_contain_text("picks a territory")
    expect(ana.locator("#game-area")).not_to_contain_text("to play")
    assert not tv.errors and not ana.errors
