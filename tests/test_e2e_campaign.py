"""End to end: a whole Short Campaign on the real server, a TV and three phone pages in headless Chromium.

Two phones play through the real keypad, option buttons and map chooser (one reloads in the middle of a question),
the third watches, and a bot takes the empty seat. The final scores on the TV must equal the engine's, rebuilt from
the room's log in the database. Screenshots of each stage land in test-artifacts/ for people to review."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from host.service import RoomService
from host.store import Store, sqlite_url
from tests.conftest import LiveServer, Servers
from tests.e2e import PHONE, join, new_page, open_tv, set_setting, shot

TIMERS = {"preview_seconds": 3, "numeric_seconds": 24, "choice_seconds": 24, "pick_seconds": 24,
          "target_seconds": 24, "reveal_seconds": 4}  # x 0.05: 150 ms to read, 1.2 s to answer or choose


@pytest.fixture
def fast_server(servers: Servers) -> LiveServer:
    """A server of its own for each test (the first one stops it to read its database)."""
    return servers.start("campaign", timer_scale=0.05, seed=42)


def play_turn(phone: Page, number: str) -> str | None:
    """Whatever this phone can do now, through its real buttons; returns what it did."""
    try:
        if phone.locator("[data-key='ok']:not([disabled])").count():
            for digit in number:
                phone.click(f"[data-key='{digit}']", timeout=1000)
            phone.click("[data-key='ok']", timeout=1000)
            return "keypad"
        if phone.locator("[data-choice]:not([disabled])").count():
            phone.click("[data-choice='1']", timeout=1000)
            return "choice"
        if phone.locator(".territory-button").count():
            phone.click(".territory-button", timeout=1000)
            phone.click("#confirm", timeout=1000)
            return "chooser"
    except Exception:  # noqa: BLE001 - the step closed under our fingers: the next poll sees the new one
        return None
    return None


def test_a_whole_campaign_through_the_real_screens(browser: Any, fast_server: LiveServer) -> None:
    tv, code = open_tv(browser, fast_server.url)
    phones = {}
    for name, role in (("Ana", "#join-player"), ("Bob", "#join-player"), ("Cy", "#join-watch")):
        phone = new_page(browser, **PHONE)
        join(phone, f"{fast_server.url}/join/{code}", name, role)
        phones[name] = phone
    tv.click("[data-game=campaign]")
    tv.click("#timers summary")
    for key, value in TIMERS.items():
        set_setting(tv, key, value)
    expect(tv.locator("#howto")).to_be_visible()
    shot(tv, "campaign-tv-lobby")
    tv.click("#start")
    expect(tv.locator(".camp-tv")).to_be_visible()
    expect(phones["Cy"].locator("#not-playing")).to_be_visible()

    seen_tv: set[str] = set()
    seen_phone: set[str] = set()
    did: dict[str, int] = {}
    reloaded = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if tv.locator("#ranking").count():
            break
        # One atomic read of the page: the TV re-renders between two locator calls, so separate reads can race.
        stage, kind = tv.evaluate("""() => {
            const line = document.querySelector('.stage-line');
            const q = document.querySelector('#question');
            return [line ? line.innerText : '', !q ? 'map' : q.classList.contains('revealed') ? 'reveal' : 'question'];
        }""")
        label = re.sub(r"\W+", "-", f"{stage}-{kind}".lower()).strip("-")
        if label not in seen_tv:
            seen_tv.add(label)
            shot(tv, f"campaign-tv-{len(seen_tv):02d}-{label}")
        for name in ("Ana", "Bob"):
            phone = phones[name]
            if name == "Bob" and not reloaded and phone.locator("[data-key='ok']:not([disabled])").count():
                phone.reload()  # in the middle of a question: the phone must come back to its seat
                reloaded = True
                expect(phone.locator("#game-area")).to_be_visible()
                continue
            done = play_turn(phone, "4" if name == "Ana" else "27")
            if done:
                did[done] = did.get(done, 0) + 1
                if done not in seen_phone:
                    seen_phone.add(done)
                    shot(phone, f"campaign-phone-{done}")
    expect(tv.locator("#ranking li")).to_have_count(3)
    shot(tv, "campaign-tv-final")
    shot(phones["Ana"], "campaign-phone-final")
    assert reloaded and did.get("keypad", 0) >= 2 and did.get("choice", 0) >= 1 and did.get("chooser", 0) >= 1, did

    # The final scores on the TV are the engine's, rebuilt from the room's log.
    rows = tv.locator(".stats tbody tr")
    shown = {}
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        shown[cells.nth(0).inner_text().strip()] = int(re.sub(r"\D", "", cells.nth(1).inner_text()))
    fast_server.stop()
    rebuilt = RoomService(Store(sqlite_url(str(fast_server.db))), include_unlisted=True).room(code)
    state = rebuilt.session.state
    engine_scores = {slot.name: state.score[slot.index] for slot in rebuilt.session.slots}
    assert shown == engine_scores
    assert sorted(engine_scores) == ["Ana", "Bob", "Bot 1"]
    for p in (tv, *phones.values()):
        assert not p.errors, p.errors  # type: ignore[attr-defined]


def test_a_pack_uploaded_on_the_tv_is_played(browser: Any, fast_server: LiveServer, tmp_path: Path) -> None:
    rows = ["type,prompt,answer,option1,option2,option3,correct,category"]
    rows += [f"numeric,Uploaded number question {i}?,{i * 7},,,,,science" for i in range(50)]
    rows += [f"choice,Uploaded choice question {i}?,,yes {i},no {i},maybe {i},1,history" for i in range(50)]
    good = tmp_path / "party-pack.csv"
    good.write_text("\n".join(rows) + "\n", encoding="utf-8")
    bad = tmp_path / "broken.csv"
    bad.write_text("type,prompt,answer\nnumeric,Fine?,1\nnumeric,Broken?,lots\n", encoding="utf-8")

    tv, _ = open_tv(browser, fast_server.url)
    tv.click("[data-game=campaign]")
    expect(tv.locator("#packs")).to_be_visible()
    tv.set_input_files("#pack-file", str(bad))
    tv.click("#pack-upload-button")
    expect(tv.locator("#pack-report")).to_contain_text("row 3")  # the report names the row and nothing is stored
    before = tv.locator("#pack-list li").count()
    tv.set_input_files("#pack-file", str(good))
    tv.click("#pack-upload-button")
    expect(tv.locator("#pack-report")).to_contain_text("party pack")
    expect(tv.locator("#pack-list li")).to_have_count(before + 1)
    shot(tv, "packs-uploaded")
    for box in tv.locator("#pack-list li input[type=checkbox]").all():  # play with the uploaded pack alone
        label = box.locator("xpath=..").inner_text()
        if ("party pack" in label) != box.is_checked():
            box.click()
            tv.wait_for_timeout(300)
    expect(tv.locator("#pack-supply")).to_contain_text("50")
    tv.click("#start")
    expect(tv.locator("#question .q-prompt")).to_contain_text("Uploaded number question")


def test_the_lobby_says_what_a_game_asks_and_where_the_rest_comes_from(browser: Any, server: LiveServer) -> None:
    # CAMP-D15: any pack plays; the lobby shows what a game asks beside what the chosen packs have
    tv, _ = open_tv(browser, server.url)
    tv.click("[data-game=campaign]")
    needs = tv.locator("#pack-needs")
    expect(needs).to_contain_text(re.compile(r"A game asks about \d+–\d+ number questions and \d+–\d+ multiple-choice"))
    expect(needs).to_contain_text("the chosen packs have")
    expect(tv.locator("#pack-top-up")).to_contain_text("built-in questions in the room's language")
    set_setting(tv, "top_up", False)
    expect(tv.locator("#pack-top-up")).to_contain_text("come round again")
    for box in tv.locator("#pack-list li input[type=checkbox]").all():  # no pack at all, and nothing tops up
        if box.is_checked():
            box.click()
            tv.wait_for_timeout(300)
    expect(needs).to_contain_text("the chosen packs have 0 and 0")
    expect(tv.locator(".start-row .hint")).to_contain_text("no number questions: turn top-up on")
    tv.click("#start")
    expect(tv.locator("#status")).to_contain_text("no number questions")  # refused, in the page's language
    set_setting(tv, "top_up", True)
    expect(tv.locator(".start-row .hint")).to_have_count(0)
    tv.select_option("#room-language", "fa")
    expect(needs).to_contain_text("۱۲")  # the figures in Persian digits
    expect(needs).not_to_contain_text(re.compile("[0-9]"))
    expect(tv.locator("#pack-top-up")).to_contain_text("زبان اتاق")
    shot(tv, "lobby-needs-persian")
    assert not tv.errors, tv.errors  # type: ignore[attr-defined]
