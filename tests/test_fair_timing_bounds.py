"""The fair-timing window against a phone that controls its own round trip (issue [16]; docs/decisions.md, "Fair
timing against a liar"), in-process: the round trip a claim may use is capped by what the room's other phones show
of the network, an honest phone on a slow network is then judged about as by the server's receipt (not punished),
and the host is shown a phone whose claims are not believed."""

from __future__ import annotations

import logging
from typing import Any

from host.connections import BELIEVED_RTT_FLOOR_MS, DOUBTS_SHOWN, RTT_CEILING_MS, TIMING_SLACK_MS
from tests.conftest import Harness, control


def seated_room(names: tuple[str, ...]) -> tuple[Harness, str, Any, dict[str, str]]:
    """A room with phones joined under ``names``: (harness, code, tv, name -> the phone's sid)."""
    harness = Harness()
    code, tv = harness.host_room()
    phones = [harness.join(code, name)[0] for name in names]
    room = harness.service.room(code)
    by_seat = {seat: sid for sid, seat in harness.service.connections.of_room(code).items() if seat is not None}
    sids = {room.seats[seat].name: sid for seat, sid in by_seat.items()}
    tv.phones = phones  # kept alive with the TV
    return harness, code, tv, sids


def measured(harness: Harness, sid: str, *rtts: int) -> None:
    for rtt in rtts:
        harness.service.connections.record_rtt(sid, rtt)


def test_a_round_trip_the_room_does_not_back_is_capped():
    harness, _code, _tv, sids = seated_room(("Ana", "Bob", "Cyd"))
    connections = harness.service.connections
    measured(harness, sids["Ana"], 8, 12, 15)
    measured(harness, sids["Bob"], 20, 25, 30)
    measured(harness, sids["Cyd"], 650, 700, 660)  # its acknowledgements held back (or a very slow phone)
    harness.clock.advance(2000)  # the room's round trips are gathered afresh
    assert connections.room_rtt(sids["Cyd"]) == 20  # the others' median (Ana's bound is the 20 ms floor), not its own
    assert connections.believed_rtt(sids["Cyd"]) == (RTT_CEILING_MS, BELIEVED_RTT_FLOOR_MS)
    assert connections.believed_rtt(sids["Ana"]) == (20, None)  # a phone as fast as its room keeps its own
    seen = 900
    # The scripted phone's lie (500 ms under what it saw) would be inside its own 600 ms window: it is taken only at
    # the capped edge.
    timing = connections.measure(1000, 1000 + seen, seen - 500, sids["Cyd"])
    assert (timing.flag, timing.effective) == ("rtt_not_believed", seen - BELIEVED_RTT_FLOOR_MS - TIMING_SLACK_MS)
    # Inside the capped window the claim stands, and below its own window it gets the slow edge, as before.
    assert connections.measure(1000, 1000 + seen, seen - 100, sids["Cyd"]).flag == ""
    assert connections.measure(1000, 1000 + seen, seen - 700, sids["Cyd"]).flag == "faster_than_network"
    # An honest phone of the room is not affected.
    assert connections.measure(1000, 1000 + seen, seen - 15, sids["Ana"]).flag == ""


def test_a_room_whose_phones_are_all_slow_keeps_their_windows():
    harness, _code, _tv, sids = seated_room(("Ana", "Bob", "Cyd"))
    connections = harness.service.connections
    for name, rtt in (("Ana", 400), ("Bob", 450), ("Cyd", 500)):  # a bad network for everyone
        measured(harness, sids[name], rtt)
    harness.clock.advance(2000)
    assert connections.believed_rtt(sids["Cyd"]) == (500, None)  # 2 x 400 is more than its own
    assert connections.measure(0, 1000, 1000 - 480, sids["Cyd"]).flag == ""


def test_a_phone_alone_is_judged_by_its_own_round_trip():
    harness, _code, _tv, sids = seated_room(("Ana",))
    measured(harness, sids["Ana"], 300)
    assert harness.service.connections.believed_rtt(sids["Ana"]) == (300, None)


def test_the_host_is_shown_a_player_whose_claims_are_not_believed(caplog):
    harness, code, tv, sids = seated_room(("Ana", "Bob"))
    measured(harness, sids["Ana"], 10)
    measured(harness, sids["Bob"], 650)
    harness.clock.advance(2000)
    assert control(tv, "select_game", game="buzz")["ok"]
    assert control(tv, "settings", game="buzz", settings={"bots": False, "rounds": 5, "preview_ms": 100,
                                                          "answer_ms": 5000, "reveal_ms": 100})["ok"]
    assert control(tv, "start")["ok"]
    service = harness.service
    room = service.room(code)
    bob = next(seat.id for seat in room.seats.values() if seat.name == "Bob")
    with caplog.at_level(logging.WARNING, logger="throneroom.timing"):
        for _ in range(DOUBTS_SHOWN):
            harness.clock.advance(200)
            service.tick()  # the round unlocks
            harness.clock.advance(900)
            service.act(room, bob, {"action": {"answer": 1}, "ms": 300}, sids["Bob"])  # 900 seen, 300 claimed
            harness.clock.advance(5000)
            service.tick()  # the round closes, the next previews
    state = service.view(room, None, as_host=True)
    assert [(d["name"], d["flag"], d["rtt"], d["room_rtt"]) for d in state["timing_doubts"]] == \
        [("Bob", "rtt_not_believed", RTT_CEILING_MS, 20)]
    assert service.view(room, None, as_host=False).get("timing_doubts") is None  # only the host's TV
    assert "not believed (rtt_not_believed)" in caplog.text and "'Bob'" in caplog.text
    assert control(tv, "end")["ok"] and control(tv, "lobby")["ok"] and control(tv, "start")["ok"]
    assert service.view(room, None, as_host=True)["timing_doubts"] == []  # judged afresh each game
