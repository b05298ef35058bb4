"""The host's TV names a player whose answer times the server does not believe (issue [16], docs/decisions.md "Fair
timing against a liar"): a scripted phone that holds back its round-trip acknowledgements 650 ms and claims 50 ms
for every answer, against an honest one. The TV, 1280x720, shows it in its header with the round trips, in Persian
with Persian digits. (The timing itself is judged in tests/test_fair_timing_liar.py, alone on the machine; this
phone's claims are refused whatever the machine's load: no person answers in 50 ms.)"""

from __future__ import annotations

import random
import time

from playwright.sync_api import expect

from bench.fairness import SimPhone
from tests.conftest import LiveServer, TestBrowser
from tests.e2e import new_page, shot
from tests.live import HostedRoom

HONEST, LIAR = "Harriet Honest-Smith", "Samuel Scripted-Jon"  # names of 20 and 19 characters
ROUNDS = 4


class ClaimsFifty(SimPhone):
    """Probes acknowledged 650 ms late (its round trip seems 600 ms, the ceiling), and 50 ms claimed every time."""

    def ack_hold(self) -> float:
        return 0.65

    def claim(self, measured: float) -> float:
        return 50.0


def test_the_hosts_tv_names_a_player_whose_answer_times_are_not_believed(server: LiveServer, browser: TestBrowser):
    room = HostedRoom(server.url)
    tv = new_page(browser, viewport={"width": 1280, "height": 720})  # the host's own TV: its token in its storage
    tv.goto(server.url + "/")
    tv.evaluate("([code, token]) => localStorage.setItem('throneroom.host.' + code, JSON.stringify(token))",
                [room.code, room.token])
    tv.goto(f"{server.url}/tv/{room.code}")
    rng = random.Random(16)
    honest = SimPhone(server.url, room.code, HONEST, rng, 2, 10)
    liar = ClaimsFifty(server.url, room.code, LIAR, rng, 2, 10)
    for round_ in range(1, ROUNDS + 1):
        honest.reaction[round_], liar.reaction[round_] = 300.0, 600.0
    try:
        assert room.control(control="select_game", game="buzz")["ok"]
        assert room.control(control="settings", game="buzz", settings={
            "bots": False, "rounds": ROUNDS, "preview_ms": 300, "answer_ms": 3000, "reveal_ms": 3000})["ok"]
        time.sleep(2.5)  # both phones measured a few times (a probe every half second until four)
        warning = tv.locator("#timing-warning")
        expect(warning).to_have_count(0)
        assert room.control(control="start")["ok"]
        expect(warning).to_contain_text(LIAR, timeout=30_000)  # after its second answer not believed
        assert room.control(control="language", language="fa")["ok"]
        expect(warning).to_contain_text("۶۰۰")  # its round trip, in the page's digits
        shot(tv, "timing-doubt-fa-1280x720")
        assert room.control(control="end")["ok"]
        expect(warning).to_have_count(0)  # the game is over: the notice goes
    finally:
        for phone in (honest, liar):
            phone.close()
        room.close()
