"""Malformed traffic against the real server: random events from real Socket.IO clients and raw garbage frames."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest
import socketio
import websocket

from tests.conftest import LiveServer
from tests.test_fuzz import bad_payload, junk


def client(server: LiveServer, namespace: str) -> socketio.Client:
    sio = socketio.Client(reconnection=False)
    sio.connect(server.url, namespaces=[namespace], transports=["websocket"])
    return sio


def room_snapshot(server: LiveServer, code: str) -> str:
    tv = client(server, "/tv")
    try:
        state = tv.call("watch", {"code": code}, namespace="/tv", timeout=10)["state"]
    finally:
        tv.disconnect()
    state.pop("version")
    state.pop("epoch")
    state["game"]["now_ms"] = 0
    for seat in state["players"] + state["spectators"]:
        seat.pop("connected")
    return json.dumps(state, sort_keys=True)


def raw_frames(rng: random.Random) -> list[str | bytes]:
    frames: list[str | bytes] = ["42[", "42", "4", "9", "", "42[\"join\"", "42/play,[1,2,3]", "40/nope,",
                                 "42/play,0[\"join\",{\"code\":null}]", "2probe", "6", "x" * 70_000,
                                 b"\x00\xff\xfe", "451-[\"join\",{\"_placeholder\":true,\"num\":9}]"]
    for _ in range(60):
        frames.append("42/play," + str(rng.randrange(100)) + json.dumps([rng.choice(["join", "action", "x"]),
                                                                          junk(rng)]))
        frames.append("".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 60))))
    return frames


def test_random_events_and_garbage_frames_leave_the_room_as_it_was(server: LiveServer):
    rng = random.Random(7)
    with urllib.request.urlopen(urllib.request.Request(server.url + "/api/rooms", method="POST")) as response:
        room = json.load(response)
    code = room["code"]
    host = client(server, "/tv")
    assert host.call("watch", {"code": code, "host_token": room["host_token"]}, namespace="/tv", timeout=10)["ok"]
    players = []
    for name in ("Ana", "Bob"):
        phone = client(server, "/play")
        assert phone.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play", timeout=10)["ok"]
        players.append(phone)
    assert host.call("control", {"control": "select_game", "game": "tally"}, namespace="/tv", timeout=10)["ok"]
    assert host.call("control", {"control": "settings", "game": "tally",
                                 "settings": {"bots": False, "turn_seconds": 120}}, namespace="/tv", timeout=10)["ok"]
    assert host.call("control", {"control": "start"}, namespace="/tv", timeout=10)["ok"]
    before = room_snapshot(server, code)

    stranger = client(server, "/play")
    viewer = client(server, "/tv")
    refused = 0
    for _ in range(600):
        if rng.random() < 0.5:
            event = rng.choice(["hello", "join", "rename", "language", "action", "nope", "connect", "disconnect"])
            answer = stranger.call(event, bad_payload(rng, event, code), namespace="/play", timeout=10)
        else:
            event = rng.choice(["watch", "control", "ping", "join"])
            payload = bad_payload(rng, event, code)
            if event == "watch":
                payload = {"code": rng.choice(["ZZZZ", 5, None, ""]), "host_token": "x"}
            answer = viewer.call(event, payload, namespace="/tv", timeout=10)
        assert answer["ok"] is False, (event, answer)
        refused += 1
    assert refused == 600

    for frame in raw_frames(rng):
        raw = websocket.create_connection(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket",
                                          timeout=5)
        try:
            raw.recv()  # the engine.io open packet
            raw.send("40/play,")
            if isinstance(frame, bytes):
                raw.send_binary(frame)
            else:
                raw.send(frame)
        except (websocket.WebSocketException, OSError):
            pass  # the server may close a connection that sends garbage: that is fine
        finally:
            raw.close()

    assert room_snapshot(server, code) == before
    assert players[0].call("ping", {"t": 1}, namespace="/play", timeout=10)["ok"]
    with urllib.request.urlopen(server.url + "/") as response:
        assert response.status == 200
    for sio in (host, stranger, viewer, *players):
        sio.disconnect()
    assert "Traceback" not in server.log.read_text()  # refused cleanly, not by an exception


def test_sockets_from_another_origin_are_refused(server: LiveServer):
    url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(url, origin="http://evil.example", timeout=5)
    same = websocket.create_connection(url, origin=server.url, timeout=5)
    assert same.recv().startswith("0{")  # the engine.io open packet
    same.close()
