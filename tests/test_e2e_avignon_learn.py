"""End to end (issue [13], learn by playing): Avignon 1378 can be learned from the screens. On a phone every
character card and every action has its text at hand (an ⓘ beside each choice, a tap or a tap-and-hold on a card),
in the page's language and from the engine's one card file (cards.json); "How to play" on the TV and the phones tells
the story (AVIG-R0) and every character's petition; the TV keeps a move log, newest first, that a restart rebuilds
from the engine state; and no action leaves a phone without its Confirm step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer, Servers
from tests.e2e import shot, start_with_phones

CARDS = json.loads((Path(__file__).resolve().parent.parent / "engine" / "avignon" / "cards.json").read_text("utf-8"))["cards"]
PREFERRED = ("petition", "pull", "banish", "push")


def my_turn(phones: list) -> Any:
    """The phone whose player is to move (its choices are on screen)."""
    for _ in range(150):
        for phone in phones:
            if phone.locator("#a-choices [data-action]").count():
                return phone
        phones[0].wait_for_timeout(100)
    raise AssertionError("no phone shows its choices")


def tv_step(tv: Any) -> int:
    return int(tv.locator(".a-tv").get_attribute("data-step"))


def hold(page: Any, locator: Any) -> None:
    """A tap-and-hold: press, keep the finger down past the half second TR.longPress waits for, lift."""
    box = locator.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(800)
    page.mouse.up()


def close_sheet(page: Any) -> None:
    page.locator("#sheet-close").click()
    expect(page.locator("#sheet")).to_have_count(0)


def test_card_and_action_texts_on_a_phone_in_english_and_persian_and_how_to_play(browser: Any,
                                                                                server: LiveServer) -> None:
    tv, phones = start_with_phones(browser, server.url, "avignon")
    rome = my_turn(phones)
    step = tv_step(tv)

    # Each action type has its one line (AVIG-R9..R12): the ⓘ beside it, or a tap-and-hold on the action itself.
    rome.locator("#a-choices [data-info-action=push]").click()
    expect(rome.locator("#sheet-body")).to_contain_text("Reprimand: move one character one location toward your opponent")
    close_sheet(rome)
    hold(rome, rome.locator("#a-choices [data-action=banish]"))
    expect(rome.locator("#sheet-body")).to_contain_text("the top card of the deck takes its exact place")
    close_sheet(rome)
    expect(rome.locator("#a-choices [data-action=pull]")).to_be_visible()  # the hold chose nothing

    # Each character offered has its ⓘ with the card's text from cards.json (AVIG-D1), in English.
    rome.locator("#a-choices [data-action=pull]").click()
    row = rome.locator("#a-choices .a-row").filter(has=rome.locator("[data-lane='1']"))
    info = row.locator("[data-info-card]")
    card = int(info.get_attribute("data-info-card"))
    info.click()
    expect(rome.locator("#sheet-body")).to_contain_text(CARDS[card]["text"]["en"])
    shot(rome, "avignon-learn-card-en")
    close_sheet(rome)
    # A tap-and-hold on the choice opens the same card, and does not choose it.
    hold(rome, rome.locator("#a-choices [data-lane='1']"))
    expect(rome.locator("#sheet-body")).to_contain_text(CARDS[card]["text"]["en"])
    close_sheet(rome)
    expect(rome.locator("#a-check")).to_have_count(0)

    # Every card on the board can be read too: a tap on it (AVIG-R23, AVIG-A11: no card is turned to be read).
    token = rome.locator(".a-board [data-cell='4-2'] .a-token")
    board_card = int(token.get_attribute("data-card"))
    token.click()
    expect(rome.locator("#sheet-body")).to_contain_text(CARDS[board_card]["text"]["en"])
    close_sheet(rome)

    # Nothing was sent by any of this: every action still passes the Check / Confirm step.
    rome.locator("#a-choices [data-lane='1']").click()
    expect(rome.locator("#a-check")).to_be_visible()
    rome.locator("#a-check [data-info-card]").click()
    expect(rome.locator("#sheet-body")).to_contain_text(CARDS[card]["text"]["en"])
    close_sheet(rome)
    assert tv_step(tv) == step
    rome.locator("#a-change").click()

    # In Persian: the same card's text in Persian, from the same file.
    rome.select_option("#phone-language", "fa")
    expect(rome.locator("#a-choices [data-action=pull]")).to_contain_text("کشیدن")
    rome.locator("#a-choices [data-action=pull]").click()
    row = rome.locator("#a-choices .a-row").filter(has=rome.locator("[data-lane='1']"))
    row.locator("[data-info-card]").click()
    expect(rome.locator("#sheet-body")).to_contain_text(CARDS[card]["text"]["fa"])
    expect(rome.locator("#sheet-body")).not_to_contain_text(CARDS[card]["text"]["en"])
    shot(rome, "avignon-learn-card-fa")
    close_sheet(rome)

    # "How to play" on the phone (its "?"): the story (AVIG-R0) and every character's petition, in Persian.
    rome.locator("#phone-rules").click()
    rules = rome.locator("#sheet-body")
    expect(rules).to_contain_text("پاپ بعدی")
    for kind in ("monk", "archbishop", "bishop", "knight", "noble", "peasant"):
        text = next(c["text"] for c in CARDS if c["class"] == kind)
        expect(rules.locator(f"[data-rule-class={kind}]")).to_contain_text(text["fa"])
    rules.locator("[data-rule-class=peasant]").scroll_into_view_if_needed()
    shot(rome, "avignon-learn-rules-fa")
    close_sheet(rome)

    # ... and on the TV, in English.
    tv.locator("#how-to-play").click()
    rules = tv.locator("#sheet-body")
    expect(rules).to_contain_text("St Peter's church")
    expect(rules).to_contain_text("Reprimand: move one character")
    for kind in ("monk", "archbishop", "bishop", "knight", "noble", "peasant"):
        text = next(c["text"] for c in CARDS if c["class"] == kind)
        expect(rules.locator(f"[data-rule-class={kind}]")).to_contain_text(text["en"])
    shot(tv, "avignon-learn-rules-tv")
    close_sheet(tv)
    assert tv_step(tv) == step
    for page in (tv, *phones):
        assert not page.errors, page.errors  # type: ignore[attr-defined]


def act(phone: Any, preferred: tuple[str, ...]) -> str:
    """One action through the phone's buttons: the first open type of ``preferred``, its first character and
    option, then Confirm. Returns the type."""
    expect(phone.locator("#a-choices [data-action]").first).to_be_visible()
    for kind in preferred:
        if phone.locator(f"#a-choices [data-action={kind}]:not(.ruled-out)").count():
            break
    else:
        raise AssertionError("none of the wanted action types is open")
    phone.locator(f"#a-choices [data-action={kind}]").click()
    phone.locator("#a-choices [data-lane]").first.click()
    if phone.locator("#a-choices [data-option]").count():
        phone.locator("#a-choices [data-option]").first.click()
    phone.locator("#a-confirm").click()
    expect(phone.locator("#a-check")).to_have_count(0)
    return kind


def test_the_tv_move_log_after_a_petition_a_pull_a_banish_and_a_push_survives_a_restart(browser: Any,
                                                                                        servers: Servers) -> None:
    with servers.serving("log", seed=7) as live:
        tv, phones = start_with_phones(browser, live.url, "avignon")
        expect(tv.locator("#a-log")).to_be_visible()
        # AVIG-R3, AVIG-R8: Rome starts with one action, a petition (AVIG-R12; one is always open at the start)
        rome = my_turn(phones)
        avignon = phones[1] if rome is phones[0] else phones[0]
        assert act(rome, ("petition",)) == "petition"
        newest = tv.locator("#a-log-list > li").first
        expect(newest).to_have_attribute("data-turn", "1")
        expect(newest).to_contain_text("Petition: ")
        # AVIG-R7: Avignon's two different actions, a pull and a banish (AVIG-R9, AVIG-R11)
        first = act(avignon, ("pull", "banish", "push"))
        second = act(avignon, tuple(k for k in ("banish", "pull", "push") if k != first))
        # Rome: a push (AVIG-R10) if it is open
        third = act(my_turn(phones), ("push", "pull", "banish"))
        expect(tv.locator("#a-log-list > li").first).to_have_attribute("data-turn", "3")
        turns = tv.locator("#a-log-list > li.a-log-turn")
        expect(turns).to_have_count(3)
        # newest first: turn 3, then turn 2 (its second action first), then turn 1; the start at the bottom
        assert [turns.nth(i).get_attribute("data-turn") for i in range(3)] == ["3", "2", "1"]
        logged = turns.nth(1).locator(".a-log-action")
        assert [logged.nth(i).get_attribute("data-log") for i in range(logged.count())] == [second, first]
        assert turns.nth(0).locator(".a-log-action").first.get_attribute("data-log") == third
        words = {"pull": "Pull: ", "push": "Push: ", "banish": "Banish: "}
        expect(turns.nth(1)).to_contain_text(words[first])
        expect(turns.nth(1)).to_contain_text(words[second])
        expect(turns.nth(2)).to_contain_text("Petition: ")
        for kind in {first, second} & {"pull", "push"}:
            expect(turns.nth(1).locator(f"[data-log={kind}]")).to_contain_text("→")  # from where to where
        expect(tv.locator("#a-log-list > li").last).to_contain_text("plays Rome and starts")
        expect(turns.nth(0).locator(".a-log-head")).to_contain_text("Turn 3")
        shot(tv, "avignon-learn-log-1080")
        text = tv.locator("#a-log-list").text_content()

        # A restart replays the game: the log comes back from the engine state, the same.
        live.kill()
        expect(tv.locator("#offline")).to_be_visible()
        live.start()
        expect(tv.locator("#offline")).to_be_hidden()
        expect(tv.locator("#a-log-list")).to_have_text(text)

        # 1280x720 and Persian: the log beside the board, in the page's language.
        tv.set_viewport_size({"width": 1280, "height": 720})
        tv.select_option("#room-language", "fa")
        expect(tv.locator("#a-log .a-log-title")).to_have_text("حرکت‌ها")
        shot(tv, "avignon-learn-log-720-fa")
        for page in (tv, *phones):
            assert not page.errors, page.errors  # type: ignore[attr-defined]
