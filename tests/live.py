"""Helpers for tests against a real server process (the ``server``, ``slow_server`` and ``servers`` fixtures): a room
made over HTTP with its host's TV socket, spectators' phones, and an audience question open to them."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import socketio


def client(url: str, namespace: str) -> socketio.Client:
    """A python-socketio client connected to one namespace over WebSocket, without reconnection."""
    sio = socketio.Client(reconnection=False)
    sio.connect(url, namespaces=[namespace], transports=["websocket"])
    return sio


class HostedRoom:
    """A room made with ``POST /api/rooms`` and watched by its host's TV."""

    def __init__(self, url: str):
        self.url = url
        with urllib.request.urlopen(urllib.request.Request(url + "/api/rooms", method="POST")) as response:
            room = json.load(response)
        self.code, self.token = room["code"], room["host_token"]
        self.host = client(url, "/tv")
        assert self.watch()["ok"]

    def watch(self) -> dict[str, Any]:
        """Watch again as the host: the answer holds the room's whole state."""
        answer: dict[str, Any] = self.host.call("watch", {"code": self.code, "host_token": self.token},
                                                namespace="/tv", timeout=10)
        return answer

    def control(self, **control: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self.host.call("control", control, namespace="/tv", timeout=10)
        return answer

    def play(self, game: str, settings: dict[str, Any]) -> None:
        """Select ``game`` with ``settings`` and start it."""
        assert self.control(control="select_game", game=game)["ok"]
        assert self.control(control="settings", game=game, settings=settings)["ok"]
        assert self.control(control="start")["ok"]

    def finished(self, timeout: float) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Wait until the game is over: (its final view or None if it did not end in time, the host's last state)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.watch()["state"]
            if state["phase"] == "finished":
                return state["game"]["view"], state
            if time.monotonic() > deadline:
                return None, state
            time.sleep(0.5)

    def spectators(self, names: list[str]) -> list[socketio.Client]:
        """Phones that joined as spectators."""
        phones = []
        for name in names:
            phone = client(self.url, "/play")
            joined = phone.call("join", {"code": self.code, "name": name, "role": "spectator"}, namespace="/play")
            assert joined["ok"], joined
            phones.append(phone)
        return phones

    def close(self) -> None:
        self.host.disconnect()


def first_audience_answer(phone: socketio.Client, answer: int = 7, timeout: float = 30) -> None:
    """A spectator answers the game's first question as soon as it is open to the audience."""
    deadline = time.monotonic() + timeout
    while True:
        taken = phone.call("audience", {"action": {"answer": answer}}, namespace="/play")
        if taken["ok"]:
            return
        assert taken["error"]["code"] in ("not_yet", "no_question"), taken
        assert time.monotonic() < deadline, "no question opened to the audience"
        time.sleep(0.05)
