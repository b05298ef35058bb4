"""End to end: a game night's continuity (issue [10]). The right people play whatever their phones do: a dead phone
takes its seat back from another device, the host swaps who plays, a latecomer plays along and gets the next game,
a restart keeps the running timer and plays the absent by bot, and an answer given offline is sent on reconnect.
Each test drives the real server with the TV and phones in headless Chromium (docs/seats.md)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
import socketio
from playwright.sync_api import expect

from host.clocks import CLOCK_SAVE_MS
from tests.cluster import wait_for
from tests.conftest import LiveServer, Servers, module_server
from tests.e2e import PHONE, WAIT_MS, join, new_page, open_tv, set_setting, shot, type_join


class HostEye:
    """The host's view of the room over its own socket, to read what the TV is told (the remaining time, the
    seats of the game) without scraping pixels."""

    def __init__(self, url: str, code: str, host_token: str):
        self.url, self.code, self.token = url, code, host_token
        self.client = socketio.Client(reconnection=False)
        self.client.connect(url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)

    def state(self) -> dict[str, Any]:
        answer = self.client.call("watch", {"code": self.code, "host_token": self.token}, namespace="/tv", timeout=10)
        assert answer["ok"], answer
        return answer["state"]

    def close(self) -> None:
        self.client.disconnect()


def host_eye(tv: Any, url: str, code: str) -> HostEye:
    token = json.loads(tv.evaluate(f"localStorage.getItem('throneroom.host.{code}')"))
    return HostEye(url, code, token)


def chip(tv: Any, name: str) -> Any:
    """A person's chip in the TV lobby, by their whole name."""
    return tv.locator("#player-list li.player").filter(has=tv.locator("bdi.name", has_text=re.compile(f"^{name}$")))


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from module_server(tmp_path_factory.mktemp("night"), seed=11)


def campaign_lobby(browser: Any, url: str, names: tuple[str, ...], **timers: int) -> tuple[Any, str, dict[str, Any]]:
    """A TV with the Short Campaign chosen, bots for empty seats, the given timers, and a phone joined per name:
    (tv, code, {name: phone})."""
    tv, code = open_tv(browser, url)
    phones = {}
    for name in names:
        phones[name] = new_page(browser, **PHONE)
        join(phones[name], f"{url}/join/{code}", name)
    tv.click("[data-game=campaign]")
    set_setting(tv, "bots", True)
    if timers:
        tv.click("#timers summary")
    for key, seconds in timers.items():
        set_setting(tv, key, seconds)
    return tv, code, phones


def test_a_dead_phone_comes_back_on_another_device_and_the_host_decides_who_plays(browser: Any,
                                                                                  night: LiveServer) -> None:
    # [10] #1: the friend whose phone died types the same name on a borrowed phone and gets the seat back; the
    # lobby shows who will play, the host swaps a spectator in, and a phone gone past the grace gets no seat.
    url = night.url
    tv, code, phones = campaign_lobby(browser, url, ("Ana", "Bogdan", "Cyrus", "Dana"))
    join_url = f"{url}/join/{code}"
    expect(chip(tv, "Dana")).to_have_attribute("data-plays", "no")  # three seats: the first three in joining order
    expect(chip(tv, "Cyrus")).to_have_attribute("data-plays", "yes")
    expect(phones["Dana"].locator("#lineup-me")).to_contain_text("taken")

    old_device = phones["Bogdan"].context
    phones["Bogdan"].close()  # the battery dies
    expect(chip(tv, "Bogdan")).to_have_class(re.compile(r"\baway\b"))
    borrowed = new_page(browser, **PHONE)
    type_join(borrowed, join_url, "Bogdan")
    expect(borrowed.locator("#name-error")).to_contain_text("Is it you?")
    borrowed.click("#its-me")
    expect(borrowed.locator("#claim-wait")).to_be_visible()
    expect(tv.locator("#claims")).to_contain_text("Bogdan")
    shot(tv, "continuity-claim-tv")
    tv.click("[data-claim-yes]")
    expect(borrowed.locator("#waiting")).to_be_visible()
    expect(borrowed.locator("#me")).to_contain_text("Bogdan")
    expect(tv.locator("#claims")).to_have_count(0)
    expect(chip(tv, "Bogdan")).not_to_have_class(re.compile(r"\baway\b"))
    expect(chip(tv, "Bogdan")).to_have_attribute("data-plays", "yes")
    stale = old_device.new_page()  # the old phone, charged again: its token no longer plays
    stale.goto(join_url)
    expect(stale.locator("#replaced")).to_be_visible()

    # The host brings Dana in instead of Cyrus: Play on Dana, then "watches instead" on Cyrus.
    chip(tv, "Dana").locator("[data-play]").click()
    expect(tv.locator("#swap-hint")).to_be_visible()
    chip(tv, "Cyrus").locator("[data-swap]").click()
    expect(chip(tv, "Dana")).to_have_attribute("data-plays", "yes")
    expect(chip(tv, "Cyrus")).to_have_attribute("data-plays", "no")
    expect(phones["Cyrus"].locator("#lineup-me")).to_contain_text("You watch the next game")

    # Ana's phone goes; with a grace of one second she is not given a seat, and a bot fills it.
    tv.fill("#seat-grace", "1")
    tv.locator("#seat-grace").dispatch_event("change")
    phones["Ana"].close()
    expect(chip(tv, "Ana")).to_have_attribute("data-plays", "no")
    expect(chip(tv, "Ana")).to_contain_text("gone")
    shot(tv, "continuity-lineup-tv")
    eye = host_eye(tv, url, code)
    try:
        tv.click("#start")
        expect(tv.locator("#game-area")).to_be_visible()
        game = wait_for(lambda: eye.state()["game"], "the game")
        names = [slot["name"] for slot in game["slots"]]
        assert names[:2] == ["Bogdan", "Dana"] and game["slots"][2]["bot"], names
        expect(phones["Cyrus"].locator("#not-playing")).to_be_visible()
        expect(borrowed.locator("#not-playing")).to_have_count(0)  # the new phone plays Bogdan's seat
    finally:
        eye.close()


def test_a_latecomer_plays_along_and_gets_a_seat_in_the_next_game(browser: Any, night: LiveServer) -> None:
    # [10] #2: a friend who arrives mid-game and taps the big "Join and play" gets a working phone at once
    # (audience play-along in the Short Campaign) and is told they play from the next game; so they do.
    url = night.url
    tv, code, _ = campaign_lobby(browser, url, ("Ana",))
    tv.click("#start")
    expect(tv.locator("#game-area")).to_be_visible()
    late = new_page(browser, **PHONE)
    type_join(late, f"{url}/join/{code}", "Eve")
    expect(late.locator("#not-playing")).to_contain_text("next game")
    expect(late.locator("#aud-banner, #audience-top, #aud-total, .camp").first).to_be_visible()
    expect(late.locator("#answer-pad")).to_be_visible(timeout=60_000)  # the first question: she answers it too
    shot(late, "continuity-latecomer-phone")
    assert late.errors == []
    watcher = new_page(browser, **PHONE)
    type_join(watcher, f"{url}/join/{code}", "Vera", "#join-watch")
    expect(watcher.locator("#not-playing")).to_contain_text("watching")
    tv.click("#end")
    expect(tv.locator(".finished")).to_be_visible()
    tv.click("#lobby")
    expect(chip(tv, "Eve")).to_be_visible()
    watcher.click("#sit-in")  # a spectator is offered the next game in the lobby
    expect(chip(tv, "Eve")).to_have_attribute("data-plays", "yes")
    expect(chip(tv, "Vera")).to_have_attribute("data-plays", "yes")
    expect(late.locator("#lineup-me")).to_contain_text("You play the next game")


def countdowns(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-countdown], [data-countdown-to], [data-clock-to]",
                                     "els => els.map(e => e.textContent)")


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def remaining_ms(state: dict[str, Any]) -> int | None:
    game = state["game"]
    if game is None or game["deadline_ms"] is None or state["paused"]:
        return None
    return game["deadline_ms"] - game["now_ms"]


def test_a_restart_keeps_the_running_timer_and_a_bot_plays_for_a_phone_that_is_gone(browser: Any,
                                                                                     servers: Servers) -> None:
    # [10] #3 and #4: after a restart the timer resumes with the time it had (bounds below), the TV and
    # phones freeze their countdowns while the server is down, and a player whose phone is gone is played by a bot.
    with servers.serving("restart", timer_scale=0.3, seed=5) as live:
        url = live.url  # x 0.3: 18 s to choose a territory or answer
        tv, code, phones = campaign_lobby(browser, url, ("Ana", "Bob"), pick_seconds=60, numeric_seconds=60,
                                          choice_seconds=60)
        bob = phones["Bob"]
        eye = host_eye(tv, url, code)
        tv.click("#start")
        wait_for(lambda: (remaining_ms(eye.state()) or 0) > 6000, "a timer with more than six seconds left")
        bob.close()  # Bob's phone is gone for good
        expect(tv.locator("[data-countdown], [data-countdown-to], [data-clock-to]").first).to_be_visible()
        # What was left at the power cut, known within how long the read took: the state was made between
        # asked_at and read_at, so at the kill at most (killed - asked_at) and at least (killed - read_at) had run.
        asked_at = time.monotonic()
        left = remaining_ms(eye.state())
        read_at = time.monotonic()
        live.kill()  # a power cut: no chance to write anything more
        killed = time.monotonic()
        assert left is not None
        at_kill = (left - ms(killed - asked_at), left - ms(killed - read_at))
        eye.close()
        shown = countdowns(tv)
        time.sleep(2.5)
        assert countdowns(tv) == shown, (shown, countdowns(tv))  # frozen while the server is down, not 2 s less
        expect(tv.locator("#offline")).to_be_visible()
        live.start()  # returns once the server listens with its clocks running again (--port-file is written last)
        back_at = time.monotonic()
        eye = host_eye(tv, url, code)
        asked_at = time.monotonic()
        left = remaining_ms(eye.state())
        read_at = time.monotonic()
        assert left is not None
        at_restart = (left + ms(asked_at - back_at), left + ms(read_at - back_at))
        # The clock is saved every CLOCK_SAVE_MS (200 ms): a power cut gives back at most the time since the last
        # save, and takes none. Besides the reads' own spans above, 300 ms cover a save that came late on a busy
        # machine; losing time, or gaining more than that, fails.
        assert at_restart[1] >= at_kill[0], ("the restart took time from the timer", at_kill, at_restart)
        assert at_restart[0] <= at_kill[1] + CLOCK_SAVE_MS + 300, ("the restart gave time back", at_kill, at_restart)
        expect(tv.locator("#offline")).to_be_hidden(timeout=WAIT_MS)

        def bob_away() -> bool:
            game = eye.state()["game"]
            return any(slot["name"] == "Bob" and slot["away"] for slot in game["slots"])

        wait_for(bob_away, "Bob's seat played by a bot after the restart", seconds=30)
        eye.close()


def test_an_answer_given_offline_is_sent_when_the_connection_is_back(browser: Any, servers: Servers) -> None:
    # [10] #6: the Wi-Fi drops mid-question; the answer typed meanwhile is kept ("waiting for the connection") and
    # sent on reconnect, within the question's time, and the red banner goes with the reconnect.
    with servers.serving("offline", seed=3) as live:
        url = live.url
        tv, code, phones = campaign_lobby(browser, url, ("Ana",), numeric_seconds=40)
        ana = phones["Ana"]
        eye = host_eye(tv, url, code)
        tv.click("#start")
        expect(ana.locator("[data-key='ok']:not([disabled])")).to_be_visible(timeout=60_000)
        # mid-question: the phone has the open question's state, not only its own countdown's unlock (an answer
        # tapped before that state arrives carries the preview's step, which the room refuses as stale: a separate
        # matter, seen once under load in CI and left for its own issue)
        closes = eye.state()["game"]["view"]["question"]["closes_ms"]
        expect(ana.locator("#answer-pad .countdown")).to_have_attribute("data-countdown-to", str(closes))
        ana.context.set_offline(True)
        expect(ana.locator("#offline")).to_be_visible()
        ana.click("[data-key='4']")
        ana.click("[data-key='2']")
        ana.click("[data-key='ok']")
        expect(ana.locator("#status")).to_contain_text("Waiting for the connection")
        time.sleep(1)
        ana.context.set_offline(False)
        expect(ana.locator("#status")).to_contain_text("Sent")
        expect(ana.locator("#offline")).to_be_hidden()

        def answered() -> bool:
            question = eye.state()["game"]["view"].get("question") or {}
            return 0 in (question.get("answered") or []) or bool(question.get("revealed"))

        wait_for(answered, "Ana's answer taken by the server")
        assert ana.errors == []
        eye.close()
