"""Secrecy over the real sockets, with teams (CROWN-D2, CROWN-D5): every state message a phone receives carries its
own house's view and no other's, both phones of a team receive the same one, and the TV and spectators receive
only the public view. Houses act through their phones with random legal payloads while bots play the others."""

from __future__ import annotations

import json

from engine.core import Rng
from engine.crown.game import view_payloads
from tests.conftest import Harness, control

PRIVATE_FIELDS = ("you", "status", "crowns", "debts", "disclosures", "chronicle", "prompts", "actions", "used")


def test_each_phone_receives_only_its_own_house_and_teammates_the_same(monkeypatch):
    harness = Harness(TIMER_SCALE=0.05)
    code, tv = harness.host_room()
    assert control(tv, "select_game", game="crown")["ok"]
    phones = {name: harness.join(code, name)[0] for name in ("Ana", "Bob", "Cy")}
    watcher, _ = harness.join(code, "Wes", "spectator")
    houses = {"Ana": 1, "Bob": 1, "Cy": 3}
    for name, phone in phones.items():
        assert phone.emit("team", {"team": houses[name]}, namespace="/play", callback=True)["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    rng = Rng(11)
    checked = {"phone": 0, "public": 0, "pairs": 0}
    last: dict[str, dict] = {}
    for tick in range(4000):
        if room.phase != "playing" or room.session.state.day >= 4:
            break
        harness.clock.advance(150)
        harness.service.tick()
        for name, phone in phones.items():
            for message in phone.get_received("/play"):
                game = message["args"][0].get("game") if message["name"] == "state" else None
                if not game:
                    continue
                view = game["view"]
                assert game["you"] == houses[name] and view["you"] == houses[name]  # its own house, never another
                last[name] = view
                checked["phone"] += 1
        for client, ns in ((tv, "/tv"), (watcher, "/play")):
            for message in client.get_received(ns):
                game = message["args"][0].get("game") if message["name"] == "state" else None
                if not game:
                    continue
                assert game["you"] is None
                assert not set(PRIVATE_FIELDS) & set(game["view"]), set(PRIVATE_FIELDS) & set(game["view"])
                assert "prestige" not in json.dumps(message["args"][0])  # no prestige value, ever (CROWN-D5)
                checked["public"] += 1
        if "Ana" in last and "Bob" in last:
            assert last["Ana"] == last["Bob"]  # one private view for the whole team (CROWN-D2)
            checked["pairs"] += 1
        if tick % 5 == 0:  # a person on one of the phones does something legal now and then
            name = ("Ana", "Bob", "Cy")[rng.randbelow(3)]
            offers = view_payloads(last[name]) if name in last else []
            if offers:
                payload = offers[rng.randbelow(len(offers))]
                phones[name].emit("action", {"action": payload}, namespace="/play", callback=True)
    assert room.session.state.day >= 3, room.session.state.day
    assert checked["phone"] > 100 and checked["public"] > 100 and checked["pairs"] > 100, checked
