"""End to end, the round-trip probe that rides on a state (host/broadcast.py): a real phone page in Chromium
acknowledges a state sent with an acknowledgement asked for, so the server times its round trip without a ``sync``
message of its own. Without that ack, a phone in a moving game would never be measured, and its answers would be
judged against the unknown round trip's 300 ms (docs/protocol.md, "Fair timing")."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import LiveServer
from tests.e2e import STATE_FRAME, join, new_page
from tests.live import HostedRoom

ACK = re.compile(r"^43/play,(\d+)\[")


def test_a_phone_page_acknowledges_a_state_that_carries_the_round_trip_probe(browser: Any, server: LiveServer) -> None:
    room = HostedRoom(server.url)
    received: list[str] = []
    sent: list[str] = []

    def watch(ws: Any) -> None:
        ws.on("framereceived", lambda payload: received.append(payload) if isinstance(payload, str) else None)
        ws.on("framesent", lambda payload: sent.append(payload) if isinstance(payload, str) else None)

    ana = new_page(browser)
    ana.on("websocket", watch)
    join(ana, f"{server.url}/join/{room.code}", "Ana")

    def probed_states() -> set[str]:
        return {m.group(2) for m in map(STATE_FRAME.match, received) if m and m.group(2)}  # with an ack id

    def acked() -> set[str]:
        return probed_states() & {m.group(1) for m in map(ACK.match, sent) if m}

    fans = []
    try:
        for i in range(40):  # a probe pass every 0.5 s marks Ana's phone; the next state carries it
            if acked():
                break
            fans += room.spectators([f"Fan {i}"])  # the room changes: Ana's phone gets a state
            ana.wait_for_timeout(250)  # (Playwright delivers the frames while it waits)
        assert probed_states(), "no state was sent to the player's phone with an acknowledgement asked for"
        assert acked(), f"the phone page did not acknowledge the probed states {sorted(probed_states())}"
    finally:
        for fan in fans:
            fan.disconnect()
        room.close()
