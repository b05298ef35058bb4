"""Random and malformed Crown actions from a house's phone (CROWN-D2 teams included): each is refused with a clear
error or taken as a legal action; none breaks the server, and a refused one changes nothing."""

from __future__ import annotations

import json
import random

from engine.core import GameError
from engine.crown.game import CrownGame
from tests.conftest import Harness, control
from tests.test_fuzz import junk

KINDS = ["attack", "spy", "feast", "banquet", "aid", "propose_alliance", "answer_alliance", "propose_conspiracy",
         "answer_conspiracy", "demand_hush", "answer_hush", "debt_attack", "debt_take", "debt_vote", "vote", "veto",
         "pass", "react", "done", "nuke", None, 3]
FIELDS = ["target", "option", "when", "proposer", "accept", "offer", "demander", "pay", "debtor", "choice",
          "replacement", "defect", "kind"]


def crown_junk(rng: random.Random):
    if rng.random() < 0.3:
        return junk(rng)
    payload = {"kind": rng.choice(KINDS)}
    for _ in range(rng.randrange(4)):
        payload[rng.choice(FIELDS)] = rng.choice([0, 1, 4, 5, -1, 99, None, True, "a", "pre", "x" * 300, [], {}, 2.5])
    return payload


def test_parse_action_refuses_junk_only_with_game_errors():
    game = CrownGame()
    rng = random.Random(7)
    for _ in range(5000):
        try:
            game.parse_action(crown_junk(rng))
        except GameError:
            pass  # InvalidAction: the only way to refuse


def test_junk_actions_over_sockets_are_answered_and_a_refused_one_changes_nothing(harness: Harness):
    code, tv = harness.host_room()
    assert control(tv, "select_game", game="crown")["ok"]
    ana, _ = harness.join(code, "Ana")
    bob, _ = harness.join(code, "Bob")
    for phone in (ana, bob):
        assert phone.emit("team", {"team": 2}, namespace="/play", callback=True)["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    rng = random.Random(20261130)
    accepted = refused = 0
    for i in range(1500):
        if i % 50 == 0:
            harness.clock.advance(700)
            harness.service.tick()  # bots and timeouts move the game through its phases
        before = (room.seq, json.dumps(harness.service.view(room, None)["game"]["view"], sort_keys=True))
        payload = crown_junk(rng)
        answer = (ana if i % 2 else bob).emit("action", {"action": payload}, namespace="/play", callback=True)
        assert isinstance(answer, dict) and "ok" in answer, (i, payload, answer)
        if answer["ok"]:
            accepted += 1
            continue
        refused += 1
        assert answer["error"]["code"] != "internal", (i, payload, answer)
        assert set(answer["error"]) == {"code", "message", "field"}
        after = (room.seq, json.dumps(harness.service.view(room, None)["game"]["view"], sort_keys=True))
        assert after == before, (i, payload)
    assert refused > 1000 and accepted >= 1, (accepted, refused)
