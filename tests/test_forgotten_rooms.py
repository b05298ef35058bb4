"""Nothing is left behind in memory by a room this process no longer holds, nor by a socket that left: every table
kept per room or per socket (the broadcaster's, the connections', the audience's, the clocks', the claims' and house
requests', the namespaces') drops its entry when the room is forgotten (it expired, or moved to another worker) or
the socket disconnects. A server up for weeks otherwise grew by some 7.7 KB for each expired room with spectators."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Any

from tests.conftest import Harness, control
from tests.test_audience import campaign_room, open_question, revealed, send

HOUR_MS = 3_600_000


def holders(harness: Harness) -> dict[str, Any]:
    """Every object of the app that keeps something per room or per socket, by name."""
    rt, service = harness.rt, harness.service
    found = {"runtime": rt, "broadcaster": rt.broadcaster, "service": service, "connections": service.connections,
             "clocks": service.clocks, "claims": service.claims, "houses": service.houses,
             "audience": service.audience}
    for namespace, handler in rt.socketio.server.namespace_handlers.items():
        found[f"namespace {namespace}"] = handler
    return found


def mentions(value: Any, needles: set[str], depth: int = 0) -> bool:
    """Whether a value holds one of the needles: as a string, a dict key or value, an element of a collection, a
    field of a record kept in one, or the ``code`` of an object kept in one (a Room)."""
    if depth > 6:
        return False
    if isinstance(value, str):
        return value in needles
    if getattr(value, "code", None) in needles:
        return True
    if isinstance(value, dict):
        return any(mentions(k, needles, depth + 1) or mentions(v, needles, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset, deque)):
        return any(mentions(v, needles, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(mentions(getattr(value, f.name), needles, depth + 1) for f in dataclasses.fields(value))
    return False


def leftovers(harness: Harness, needles: set[str]) -> list[str]:
    """The tables (``object.attribute``) that still hold one of the needles. Only collections are looked at: the
    holders' references to each other are not tables."""
    found = []
    for name, holder in holders(harness).items():
        for attribute, value in vars(holder).items():
            if isinstance(value, (dict, list, set, frozenset, deque)) and mentions(value, needles):
                found.append(f"{name}.{attribute}")
    return found


def test_the_check_sees_what_a_live_room_keeps():
    """The check is able to fail: while the room lives, its code and its sockets are found in the tables that keep
    them (a check that looked nowhere would pass the tests below for nothing)."""
    harness = Harness(TIMER_SCALE=0.5)
    code, _tv, phones = campaign_room(harness, ("Sam", "Tea"))
    open_question(harness, code, "numeric")
    assert send(phones["Sam"], {"answer": 5}, ms=300)["ok"]
    sids = set(harness.service.connections.of_room(code))
    kept = leftovers(harness, {code})
    for table in ("broadcaster.shown", "broadcaster.own_sent", "connections.sockets", "clocks.active_ms",
                  "audience.rooms", "service.rooms", "service.locks"):
        assert table in kept, kept
    assert {"connections.sids", "broadcaster.own_sent", "namespace /play.connected_sids"} <= set(
        leftovers(harness, sids))


def test_an_expired_room_with_spectators_leaves_nothing_behind():
    harness = Harness(TIMER_SCALE=0.5, ROOM_TTL_HOURS=1)
    service = harness.service
    code, tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    question = open_question(harness, code, "numeric")
    for phone in phones.values():
        assert send(phone, {"answer": 12}, ms=300)["ok"]
    revealed(harness, code, question["key"])
    harness.rt.broadcaster.probe_all()
    assert control(tv, "end")["ok"]  # the game ends; everyone goes home
    sids = set(service.connections.of_room(code))
    for phone in phones.values():
        phone.disconnect(namespace="/play")
    tv.disconnect(namespace="/tv")
    harness.clock.advance(HOUR_MS + 1)
    service.clocks.expired_checked = None
    service.tick()
    assert code not in service.rooms and service.store.room(code) is None  # it expired
    assert leftovers(harness, {code} | sids) == []


def test_a_socket_that_leaves_a_living_room_leaves_nothing_behind():
    harness = Harness(TIMER_SCALE=0.5)
    service = harness.service
    code, _tv, phones = campaign_room(harness, ("Sam", "Tea"))
    ana, _ = harness.join(code, "Ana")  # a player's phone: probed every pass until it has its first round trips
    question = open_question(harness, code, "numeric")
    assert send(phones["Sam"], {"answer": 5}, ms=300)["ok"]
    harness.rt.broadcaster.probe_all()
    before = set(service.connections.of_room(code))
    for phone in (phones["Sam"], ana):
        phone.disconnect(namespace="/play")
    gone = before - set(service.connections.of_room(code))
    assert len(gone) == 2
    revealed(harness, code, question["key"])
    assert code in service.rooms
    assert leftovers(harness, gone) == []
