"""Seizing the Crown through the real screens: a TV, five houses (a team of two phones in one, one phone in two
others, bots in the rest), the first council and two whole days played through the phones' buttons."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.conftest import LiveServer, module_server
from tests.e2e import PHONE, WAIT_MS, join, new_page, open_tv, set_setting, shot


@pytest.fixture(scope="module")
def crown_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A one-minute day lasts 15 s."""
    yield from module_server(tmp_path_factory.mktemp("crown"), timer_scale=0.25)


def answer_prompts(phone: Page) -> str | None:
    """Answer whatever the house is asked, through the buttons; returns what was answered."""
    try:
        prompt = phone.locator("[data-prompt]").first
        if not prompt.count():
            return None
        kind = prompt.get_attribute("data-prompt", timeout=1000)
        if kind == "vote":
            prompt.locator("[data-target]").first.click(timeout=1000)
            phone.click("#c-send", timeout=1000)
        elif kind == "veto":
            phone.click("#c-pass", timeout=1000)
            phone.click("#c-send", timeout=1000)  # every one-tap answer is confirmed (issue 15)
        elif kind in ("alliance", "hush"):
            prompt.locator("[data-answer=yes]").click(timeout=1000)
            phone.click("#c-send", timeout=1000)
        else:  # a conspiracy or a reaction to a veto: decline
            prompt.locator("[data-answer=no]").click(timeout=1000)
            phone.click("#c-send", timeout=1000)
        return kind
    except Exception:  # noqa: BLE001 - the window closed under our fingers: the next poll sees the new one
        return None


def vote(phone: Page, target: int) -> None:
    """Vote in a council and see the vote taken (the prompt goes). A state arriving between the tap on a house and
    the tap on Send redraws the prompt under the finger, as it can on a loaded machine: then vote again."""
    for _ in range(5):
        try:
            phone.locator(f"[data-prompt=vote] [data-target='{target}']").click(timeout=WAIT_MS)
            phone.click("#c-send", timeout=2000)
            expect(phone.locator("[data-prompt=vote]")).to_have_count(0, timeout=3000)
            return
        except (AssertionError, PlaywrightError):
            continue
    raise AssertionError("the phone's vote was never taken")


def do_action(phone: Page, kind: str) -> bool:
    """Take one action of the day through the action list, the target chooser and the confirmation."""
    try:
        if not phone.locator(f"#c-actions [data-kind={kind}]").count():
            return False
        phone.click(f"#c-actions [data-kind={kind}]", timeout=1000)
        phone.locator("#c-compose [data-target]").first.click(timeout=1000)
        expect(phone.locator("#c-confirm")).to_be_visible(timeout=1000)
        phone.click("#c-send", timeout=1000)
        return True
    except Exception:  # noqa: BLE001
        return False


def test_five_houses_play_two_days_with_a_team_of_two_phones(browser: Any, crown_server: LiveServer) -> None:
    url = crown_server.url
    tv, code = open_tv(browser, url)
    tv.click("[data-game=crown]")
    phones: dict[str, Page] = {}
    for name, house in (("Ana", 0), ("Bob", 0), ("Cy", 2), ("Dee", 4)):
        phone = new_page(browser, **PHONE)
        join(phone, f"{url}/join/{code}", name)
        phone.click(f"[data-team='{house}']")  # CROWN-D2: each player picks a house
        expect(phone.locator(f"[data-team='{house}'].chosen")).to_be_visible()
        phones[name] = phone
    tv.click("#timers summary")
    set_setting(tv, "day_minutes", 1)
    set_setting(tv, "council_seconds", 20)
    expect(tv.locator("#howto")).to_be_visible()
    shot(tv, "crown-tv-lobby")
    tv.click("#start")
    expect(tv.locator(".c-tv")).to_be_visible()
    expect(tv.locator(".c-card")).to_have_count(5)
    expect(tv.locator(".c-card[data-house='0'] .c-card-players")).to_have_text(re.compile(r"^\W*Ana\W+and\W+Bob\W*$"))
    expect(tv.locator(".c-card[data-house='1'] .c-card-players")).to_have_text(re.compile("bot"))

    # The first council (CROWN-A1): one vote per house, from either phone of the team; both see it at once.
    expect(phones["Ana"].locator("[data-prompt=vote]")).to_be_visible()
    expect(phones["Bob"].locator("[data-prompt=vote]")).to_be_visible()
    shot(phones["Ana"], "crown-phone-vote")
    phones["Bob"].locator("[data-prompt=vote] [data-target='2']").click()
    expect(phones["Bob"].locator("#c-confirm")).to_contain_text("House of the Tower")
    phones["Bob"].click("#c-send")
    expect(phones["Ana"].locator("[data-prompt=vote]")).to_have_count(0)  # the team's vote is cast for Ana too
    expect(tv.locator("#c-council")).to_contain_text("House of the Falcon")

    seen_days: set[int] = set()
    acted: dict[str, int] = {}
    answered: dict[str, int] = {}
    shots: set[str] = set()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        banner = tv.evaluate("() => (document.querySelector('.c-day') || {}).innerText || ''")
        day = int(re.sub(r"\D", "", banner) or 0)
        seen_days.add(day)
        if day >= 3:
            break
        phase = tv.evaluate("() => (document.querySelector('#c-phase') || {}).innerText || ''")
        label = re.sub(r"\W+", "-", f"day{day}-{phase}".lower())
        if label not in shots:
            shots.add(label)
            shot(tv, f"crown-tv-{len(shots):02d}-{label}")
        for name, phone in phones.items():
            kind = answer_prompts(phone)
            if kind:
                answered[kind] = answered.get(kind, 0) + 1
                continue
            wanted = {"Bob": "attack", "Ana": "spy", "Cy": "aid", "Dee": "propose_alliance"}[name]
            if do_action(phone, wanted):
                acted[wanted] = acted.get(wanted, 0) + 1
                if f"phone-{wanted}" not in shots:
                    shots.add(f"phone-{wanted}")
                    shot(phone, f"crown-phone-after-{wanted}")
            elif phone.locator("#c-done").count():
                with contextlib.suppress(Exception):  # the day ended under our fingers: the next poll sees it
                    phone.click("#c-done", timeout=1000)
        time.sleep(0.2)

    assert {1, 2, 3} <= seen_days, seen_days
    assert answered.get("vote", 0) >= 2, answered  # two Councils of Judgment at least
    assert acted.get("attack", 0) >= 1 and acted.get("spy", 0) >= 1, acted
    # The TV told everyone of the attack (public), but never of the spying (secret, CROWN-D3).
    feed = tv.locator("#c-feed").inner_text()
    assert "attacks" in feed or acted.get("attack", 0) >= 2
    private = ("spy_sent", "spy_result", "spy_refund", "feast_value", "banquet_value", "treason_spy")
    for key in private:
        assert tv.locator(f".c-tv [data-key='crown.log.{key}']").count() == 0, key
    assert "spies" not in tv.locator(".c-tv").inner_text().lower()
    # Both phones of the team keep one chronicle (CROWN-D2, D4): Ana's spying is in Bob's too.
    for name in ("Ana", "Bob"):
        phones[name].locator("#c-chronicle").evaluate("e => e.scrollIntoView()")  # the game runs on: the phone may
        # redraw between finding the element and scrolling to it, which a locator's evaluate retries
        expect(phones[name].locator("#c-chronicle [data-key='crown.log.spy_sent']").first).to_be_attached()
    shot(phones["Bob"], "crown-phone-team-chronicle")
    for page in (tv, *phones.values()):
        assert not page.errors, page.errors  # type: ignore[attr-defined]


def day_one_close(db: Path, code: str) -> tuple[Any, Any]:
    """Replay the room's event log: the game state just before day 1's window closed, and the event closing it."""
    from engine.crown.game import DAY
    from host.room import Room
    from host.store import Store, sqlite_url

    store = Store(sqlite_url(str(db)))
    try:
        record = store.room(code)
        assert record is not None
        room = Room(code, record.seed, record.host_token_hash, include_unlisted=True)
        for event in store.events(code):
            before = room.session.state if room.session is not None else None
            room.plan(event.kind, event.data)()
            after = room.session.state if room.session is not None else None
            if before is not None and before.phase == DAY and before.day == 1 and after.phase != DAY:
                return before, event
    finally:
        store.engine.dispose()
    raise AssertionError("day 1 never closed in the log")


def test_the_day_ends_when_both_houses_with_people_are_done_without_waiting_for_bots(
        browser: Any, crown_server: LiveServer) -> None:
    # CROWN-D1: two phones in two houses, three bot houses; both press done and the TV moves on from the day at
    # once, in a 20-minute day (5 minutes at this server's timer scale) whose bots would keep acting for seconds
    url = crown_server.url
    tv, code = open_tv(browser, url)
    tv.click("[data-game=crown]")
    phones: list[Page] = []
    for name, house in (("Ana", 0), ("Bob", 1)):
        phone = new_page(browser, **PHONE)
        join(phone, f"{url}/join/{code}", name)
        phone.click(f"[data-team='{house}']")
        expect(phone.locator(f"[data-team='{house}'].chosen")).to_be_visible()
        phones.append(phone)
    tv.click("#timers summary")
    set_setting(tv, "day_minutes", 20)
    set_setting(tv, "council_seconds", 300)
    tv.click("#start")
    expect(tv.locator(".c-card.bot")).to_have_count(3)
    for phone in phones:  # the first council waits for every house: the phones vote at once
        vote(phone, 2)
    day_actions = "Day actions"
    deadline = time.monotonic() + 60  # a tie opens a second round of votes: the phones vote again
    while tv.locator("#c-phase").inner_text() != day_actions:
        assert time.monotonic() < deadline, "the first council never ended"
        for phone in phones:
            if phone.locator("[data-prompt=vote]").count():
                answer_prompts(phone)
        time.sleep(0.1)
    for phone in phones:
        phone.click("#c-done")  # a bot's alliance proposal that came first is answered below
    # a wait for one screen update on a machine busy with other tests (seen taking over 5 s): far shorter than the
    # day's 5 minutes, which the bots would fill
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and tv.locator("#c-phase").inner_text() == day_actions:
        for phone in phones:  # only the day's prompts: a vote would move the next council on
            if phone.locator("[data-prompt=alliance], [data-prompt=conspiracy], [data-prompt=hush]").count():
                answer_prompts(phone)
        time.sleep(0.1)
    assert tv.locator("#c-phase").inner_text() == "Council of Judgment", "the day waited for the bot houses"

    # The log says why: the window closed while a bot house had not pressed done (it was never waited for).
    before, closing = day_one_close(crown_server.db, code)
    assert before.bots == (False, False, True, True, True)
    bots_done = {h for h in (2, 3, 4) if before.today["done"][h]}
    if closing.kind == "action" and closing.data["action"] == {"kind": "done"}:
        bots_done.add(closing.data["slot"])  # the closing event counts too
    assert not {2, 3, 4} <= bots_done, f"day 1 closed only when every bot house was done: {closing.data}"
    for page in (tv, *phones):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
