"""host/broadcast.py ``Broadcaster``, through Flask-SocketIO's test clients on a fake clock."""

from __future__ import annotations

from typing import Any

from host.broadcast import PLAYER_PROBE_PASSES, SPECTATOR_PROBE_PASSES, WARM_SAMPLES
from tests.conftest import Harness


def test_round_trips_are_measured_often_for_players_and_at_once_for_a_newcomer_rarely_for_spectators():
    """``probe_all``: a player every PLAYER_PROBE_PASSES passes (fair timing among players) and at every pass until
    it has WARM_SAMPLES measures (a phone that joined a moment before the start had honest claims judged against one
    round trip, and flagged: tests/test_fair_timing.py); a spectator every SPECTATOR_PROBE_PASSES passes, or every
    PLAYER_PROBE_PASSES until it has a first measure (a crowd of thousands probed every two seconds held the worker's
    loop)."""
    harness = Harness()
    code, _tv = harness.host_room()
    player, player_joined = harness.join(code, "Ana")
    newcomer, _ = harness.join(code, "Bob")
    fan, fan_joined = harness.join(code, "Fan", role="spectator")
    new_fan, _ = harness.join(code, "New", role="spectator")
    connections = harness.service.connections
    sid_of_seat = {seat: sid for sid, (c, seat) in connections.sids.items()}
    for _ in range(WARM_SAMPLES):
        connections.record_rtt(sid_of_seat[player_joined["seat"]], 40)  # measured enough already
    connections.record_rtt(sid_of_seat[fan_joined["seat"]], 40)  # measured once already
    for client in (player, newcomer, fan, new_fan):
        client.get_received("/play")
    passes = 2 * SPECTATOR_PROBE_PASSES
    for _ in range(passes):
        harness.rt.broadcaster.probe_all()

    def probes(client: Any) -> int:
        return sum(m["name"] == "sync" for m in client.get_received("/play"))

    assert probes(player) == passes // PLAYER_PROBE_PASSES
    assert probes(newcomer) == passes, "a player's phone with too few round trips was not probed at every pass"
    assert probes(fan) == 2, "a measured spectator was probed more (or less) than every SPECTATOR_PROBE_PASSES"
    assert probes(new_fan) == passes // PLAYER_PROBE_PASSES  # until its first measure comes back
