"""Thousands of random and malformed events: every one is answered with a refusal and no room changes."""

from __future__ import annotations

import json
import random
import string
from typing import Any

from tests.conftest import Harness, control

EVENTS_PLAY = ["hello", "join", "rename", "language", "action", "ping"]
EVENTS_TV = ["watch", "control", "ping"]
CONTROLS = ["lock", "language", "select_game", "settings", "start", "pause", "resume", "skip", "end", "lobby", "kick"]


def junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value: deep, long, odd."""
    kind = rng.randrange(10 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**63, -(2**70), 10**30, 3])
    if kind == 3:
        return rng.choice([0.5, -1e308, float("1e-9"), 1.5])
    if kind == 4:
        return "".join(rng.choice(string.printable + "\u202e\u0000é漢😀") for _ in range(rng.choice([0, 1, 5, 30, 300])))
    if kind == 5:
        return rng.choice(["", "player", "spectator", "fa", "tally", "ZZZZ", "x" * 5000])
    if kind in (6, 7):
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["code", "name", "role", "token", "host_token", "action", "step", "control", "game", "settings",
            "seat", "locked", "language", "t", "add", "target", "bots"]
    return {rng.choice(keys): junk(rng, depth + 1) for _ in range(rng.randrange(5))}


def bad_payload(rng: random.Random, event: str, code: str) -> Any:
    """A payload for a known event that is wrong in one way or many."""
    pick = rng.randrange(6)
    if pick == 0:
        return junk(rng)
    if event == "join":
        return {"code": rng.choice([code, code.lower(), "ZZZZ", 5, None]),
                "name": rng.choice(["", " ", "x" * 21, None, 7, ["a"], "Ana"]),  # "Ana" is taken
                "role": rng.choice(["player", "admin", None, 1])}
    if event == "rename":
        return {"name": rng.choice(["", "x" * 25, None, {}, "BOB", "\u200b"])}
    if event == "action":
        return {"action": rng.choice([{"add": 3}, {"add": "1"}, {"add": True}, {}, None, {"add": 1, "x": 2}]),
                "step": rng.choice([None, -1, "0", 1.5, 99])}
    if event == "hello":
        return {"code": rng.choice([code, "ZZZZ", None]), "token": rng.choice(["", "nope", None, 5])}
    if event == "watch":
        return {"code": rng.choice([code, "ZZZZ", "", None]), "host_token": rng.choice(["bad", 5, ""])}
    if event == "language":
        return {"language": rng.choice(["de", "", None, 3, "EN"])}
    if event == "control":
        name = rng.choice(CONTROLS + ["nuke", None, 3])
        extra = junk(rng)
        return {"control": name, **(extra if isinstance(extra, dict) else {})}
    return {"t": rng.choice(["x", None, [], {}])}


def snapshot(harness: Harness, code: str) -> str:
    room = harness.service.room(code)
    views = [harness.service.view(room, seat) for seat in (None, *room.seats)]
    for view in views:
        if view["game"]:
            view["game"]["now_ms"] = 0
    return json.dumps([room.seq, views], sort_keys=True, default=str)


def test_thousands_of_bad_events_change_nothing(harness: Harness):
    rng = random.Random(20261130)
    code, host_tv = harness.host_room()
    assert control(host_tv, "select_game", game="tally")["ok"]
    assert control(host_tv, "settings", game="tally", settings={"bots": False})["ok"]
    ana, _ = harness.join(code, "Ana")
    bob, _ = harness.join(code, "Bob")
    assert control(host_tv, "start")["ok"]
    state = harness.service.room(code).session.state
    waiting = bob if harness.service.room(code).session.slots[state.current].seat_id == 1 else ana  # not to move
    viewer_tv = harness.tv()
    assert viewer_tv.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    stranger = harness.phone()
    before = snapshot(harness, code)

    answered = 0
    for i in range(3000):
        who = rng.choice(["stranger", "waiting", "viewer_tv", "host_tv"])
        if who in ("stranger", "waiting"):
            client, namespace = (stranger if who == "stranger" else waiting), "/play"
            event = rng.choice(EVENTS_PLAY + ["", "state", "connect", "x" * 100, "control"])
        else:
            client, namespace = (viewer_tv if who == "viewer_tv" else host_tv), "/tv"
            event = rng.choice(EVENTS_TV + ["join", "action", "nope"])
        if who == "host_tv" and event == "control":
            payload = {"control": rng.choice(["settings", "kick", "lock", "language", "nuke"]),
                       "game": rng.choice(["chess", None, 1]), "seat": rng.choice([99, "1", None, -1]),
                       "locked": rng.choice(["yes", None, 1]), "language": rng.choice(["de", None])}
        elif event == "ping":
            payload = {"t": rng.choice(["x", None, [], {}])}
        else:
            payload = bad_payload(rng, event, code)
        answer = client.emit(event, payload, namespace=namespace, callback=True)
        assert isinstance(answer, dict) and answer.get("ok") is False, (i, who, event, payload, answer)
        assert set(answer["error"]) - {"params"} == {"code", "message", "field"}  # params: numbers a message shows
        answered += 1

    assert answered == 3000
    assert snapshot(harness, code) == before
    assert ana.emit("ping", {"t": 1}, namespace="/play", callback=True)["ok"]  # still answering
    assert harness.app.test_client().get("/").status_code == 200
