"""Team play in a real browser (CROWN-D2): phones pick a team in the lobby, the host moves a player from the TV,
and a latecomer joins a team of the running game from their phone. Uses the unlisted three-team Tally."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, shot


def test_phones_pick_teams_the_host_moves_one_and_a_latecomer_joins(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    phones = []
    ANA_AND_BOB = "\u2068Ana\u2069 and \u2068Bob\u2069"  # Intl.ListFormat, each name isolated
    for name in ("Ana", "Bob", "Cy"):
        phone = new_page(browser, **PHONE)
        join(phone, f"{server.url}/join/{code}", name)
        phones.append(phone)
    tv.click("[data-game=teamtally]")
    phones[0].click("[data-team='1']")
    phones[1].click("[data-team='1']")
    expect(phones[1].locator("[data-team='1'].chosen")).to_be_visible()
    expect(phones[2].locator("[data-team='1'] .team-members")).to_have_text(ANA_AND_BOB)
    tv.locator("#player-list li").nth(2).locator("select.team-tag").select_option("2")  # the host moves Cy
    expect(phones[2].locator("[data-team='2'].chosen")).to_be_visible()
    shot(tv, "teams-tv-lobby")
    shot(phones[0], "teams-phone-lobby")
    tv.click("#start")
    expect(phones[0].locator("#team-picker")).to_have_count(0)

    late = new_page(browser, **PHONE)
    late.goto(f"{server.url}/join/{code}")
    late.fill("#name", "Dan")
    late.click("#join-player")
    expect(late.locator("#team-picker [data-team='0'] .team-members")).to_have_text("played by a bot")
    expect(late.locator("#team-picker [data-team='1'] .team-members")).to_have_text(ANA_AND_BOB)
    shot(late, "teams-phone-latecomer")
    late.click("[data-team='0']")
    expect(late.locator("#team-picker")).to_have_count(0)
    expect(late.locator("#not-playing")).to_have_count(0)  # Dan now plays for the red team
    for page in (tv, *phones, late):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
