"""A latecomer asks to join a house of a running Seizing the Crown (issue [11], finding 4; CROWN-D2, CROWN-D4,
CROWN-D5), in a real browser: the member's phone is asked, lets the latecomer in, and the latecomer's phone then
shows the house; another latecomer is refused, is told so with the picker again, and no message its socket received
ever carried that house's private view."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, shot
from tests.live import client

SMALL_PHONE = {**PHONE, "viewport": {"width": 360, "height": 640}}
PRIVATE_FIELDS = ("you", "status", "crowns", "debts", "disclosures", "chronicle", "prompts", "actions", "used")


def record_states(page: Any) -> list[dict]:
    """Every ``state`` message the page's sockets receive (Socket.IO text frames on its WebSocket)."""
    states: list[dict] = []

    def frame(payload: Any) -> None:
        text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
        if not text.startswith("42"):
            return
        message = json.loads(text[text.index("["):])
        if message and message[0] == "state":
            states.append(message[1])

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return states


def test_a_member_lets_a_latecomer_in_and_a_refused_one_never_sees_the_house(browser: Any,
                                                                              slow_server: LiveServer) -> None:
    url = slow_server.url
    tv, code = open_tv(browser, url)
    tv.click("[data-game=crown]")
    members = {}
    for name, house in (("Ana", 1), ("Bob", 2)):
        phone = new_page(browser, **SMALL_PHONE)
        join(phone, f"{url}/join/{code}", name)
        phone.click(f"[data-team='{house}']")  # CROWN-D2: in the lobby a pick is free
        expect(phone.locator(f"[data-team='{house}'].chosen")).to_be_visible()
        members[name] = phone
    tv.click("#start")
    expect(tv.locator(".c-tv")).to_be_visible()
    expect(members["Ana"].locator(".c-me")).to_be_visible()

    # Dan asks to join Ana's house; Ana's phone asks her, and she lets him in.
    dan = new_page(browser, **SMALL_PHONE)
    dan.goto(f"{url}/join/{code}")
    dan.fill("#name", "Dan")
    dan.click("#join-player")
    # The picker stays the same element while what it shows is the same: a redraw of the screen around it (another
    # latecomer joins) does not replace the button under Dan's thumb, whose tap was lost that way.
    expect(dan.locator("#team-picker")).to_be_visible()
    dan.evaluate("() => { document.getElementById('team-picker').dataset.kept = 'yes'; "
                 "document.getElementById('game-area').dataset.kept = 'yes'; }")
    eve = client(url, "/play")
    assert eve.call("join", {"code": code, "name": "Eve", "role": "player"}, namespace="/play", timeout=10)["ok"]
    dan.wait_for_function("() => !document.getElementById('game-area').dataset.kept")  # the screen was redrawn
    assert dan.evaluate("() => document.getElementById('team-picker').dataset.kept") == "yes"
    eve.disconnect()
    dan.click("#team-picker [data-team='1']")
    expect(dan.locator("#house-waiting")).to_contain_text("Waiting for")
    expect(dan.locator(".c-me")).to_have_count(0)
    ask = members["Ana"].locator("#c-ask")
    expect(ask).to_contain_text("\u2068Dan\u2069 asks to join your house")
    expect(members["Bob"].locator("#c-ask")).to_have_count(0)  # another house is not asked
    expect(tv.locator("body")).not_to_contain_text("asks to join")  # the TV shows nothing of it (CROWN-D3)
    shot(members["Ana"], "crown-houses-member-asked")
    shot(dan, "crown-houses-latecomer-waiting")
    members["Ana"].select_option("#phone-language", "fa")
    expect(ask).to_contain_text("می‌خواهد به خاندان شما بپیوندد")
    shot(members["Ana"], "crown-houses-member-asked-fa")
    members["Ana"].select_option("#phone-language", "en")
    ask.locator("[data-answer=let-in]").click()
    expect(dan.locator("#team-picker")).to_have_count(0)
    expect(dan.locator(".c-me")).to_be_visible()  # the house's private view (CROWN-D4)
    expect(dan.locator(".c-me-name")).to_have_text(members["Ana"].locator(".c-me-name").inner_text())
    expect(members["Ana"].locator("#c-ask")).to_have_count(0)
    expect(tv.locator(".c-card[data-house='1'] .c-card-players")).to_contain_text("Dan")
    shot(dan, "crown-houses-latecomer-let-in")

    # Mal asks to join Bob's house; Bob refuses: Mal is told, gets the picker again, and never got the house's view.
    mal = new_page(browser, **SMALL_PHONE)
    received = record_states(mal)
    mal.goto(f"{url}/join/{code}")
    mal.fill("#name", "Mal")
    mal.click("#join-player")
    mal.click("#team-picker [data-team='2']")
    expect(mal.locator("#house-waiting")).to_be_visible()
    members["Bob"].locator("#c-ask [data-answer=refuse]").click()
    expect(mal.locator("#house-refused")).to_contain_text("said no")
    expect(mal.locator("#team-picker [data-team='2']")).to_be_visible()
    expect(mal.locator(".c-me")).to_have_count(0)
    shot(mal, "crown-houses-latecomer-refused")
    games = [state["game"] for state in received if state.get("game")]
    assert len(games) >= 2, "no state message of the latecomer's socket was seen"
    for game in games:  # CROWN-D5: no message to the refused phone carried a house's private view
        assert game["you"] is None, game["you"]
        assert not set(PRIVATE_FIELDS) & set(game["view"]), set(PRIVATE_FIELDS) & set(game["view"])
        assert all(not slot["bot"] or slot["index"] not in (1, 2) for slot in game["slots"])
    for page in (tv, dan, mal, *members.values()):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
