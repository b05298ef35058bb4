"""A phone's round trip comes from its Engine.IO heartbeat (host/broadcast.py ``time_heartbeat``; docs/decisions.md,
"Round trips from the heartbeat"): the server's PING every 5 s, which the socket.io client answers with a PONG as it
arrives, is timed, so a measured phone is sent no probe of ours (the relay pays that heartbeat too). Probes only warm
a new player's phone up and stand in where no heartbeat is measured (tests/test_broadcast.py)."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from bench.fairness import SimPhone
from host.broadcast import WARM_SAMPLES
from tests.conftest import LiveServer
from tests.live import HostedRoom, client

HEARTBEAT_S = 5  # host/app.py ping_interval


class SlowHeartbeat(SimPhone):
    """A phone that acknowledges probes and states at once but answers the heartbeat 400 ms late: what the server
    measures of it once its heartbeats come shows which of the two it times."""

    def pong_hold(self) -> float:
        return 0.4


@pytest.mark.serial
def test_a_phones_round_trip_is_what_its_heartbeat_takes(server: LiveServer) -> None:
    # fair timing: a claim's window is the phone's measured round trip (docs/decisions.md "Fair timing")
    rng = random.Random(20261206)
    room = HostedRoom(server.url)
    honest = SimPhone(server.url, room.code, "Harriet Honest-Smith", rng, 2, 6)
    slow = SlowHeartbeat(server.url, room.code, "Sol Slow-Heartbeat", rng, 2, 6)
    rounds = 6
    for round_ in range(1, rounds + 1):
        honest.reaction[round_] = slow.reaction[round_] = float(rng.randrange(300, 500, 5))
    assert room.control(control="select_game", game="buzz")["ok"]
    assert room.control(control="settings", game="buzz", settings={
        "bots": False, "rounds": rounds, "preview_ms": 300, "answer_ms": 1500, "reveal_ms": 100})["ok"]
    time.sleep(2 * HEARTBEAT_S + 1)  # the warm-up probes (four each, one every half second), then two heartbeats
    assert room.control(control="start")["ok"]
    final, _state = room.finished(60)
    for phone in (honest, slow):
        phone.close()
    room.close()
    assert final is not None, "the game did not finish"
    last = {r["seat"]: r["timing"] for r in final["results"][-1]}
    assert last[1]["rtt"] >= 400, f"the held heartbeat was not measured: {last[1]}"
    assert last[0]["rtt"] < 150, last[0]
    assert last[1]["flag"] == "" and last[0]["flag"] == "", last  # both honest: both claims taken


def test_a_phone_its_heartbeat_measures_is_sent_no_probe(server: LiveServer) -> None:
    """A player's phone idle in the lobby: four warm-up probes (``sync``) within its first seconds, then none for two
    heartbeats and more. It was probed every 2 s before; were its heartbeat not measured, its round trip would go
    stale and be probed again (probe_all)."""
    room = HostedRoom(server.url)
    phone = client(server.url, "/play")
    syncs: list[float] = []
    lock = threading.Lock()

    def on_sync(_data: Any) -> dict[str, Any]:
        with lock:
            syncs.append(time.monotonic())
        return {}

    phone.on("sync", on_sync, namespace="/play")
    assert phone.call("join", {"code": room.code, "name": "Ana", "role": "player"}, namespace="/play",
                      timeout=10)["ok"]
    joined = time.monotonic()
    time.sleep(3 * HEARTBEAT_S)
    phone.disconnect()
    room.close()
    with lock:
        after = [t - joined for t in syncs]
    assert len([t for t in after if t < 3]) >= WARM_SAMPLES - 1, after  # (one may ride on the join's own state)
    assert [t for t in after if t >= 3] == [], f"probes after the warm-up, at {after} s"
