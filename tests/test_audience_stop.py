"""A server stopped the usual way (SIGTERM, as a service manager or Ctrl-C does) right after a spectator's answer
still writes that answer: audience answers are batched by the ticker, and the stop writes the last batch."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import socketio
from sqlmodel import Session, create_engine, select

from host.audience import AudienceAnswerRecord
from tests.conftest import Servers


def test_an_answer_accepted_just_before_a_stop_is_kept(tmp_path: Path, servers: Servers):
    server = servers.start("stop", timer_scale=0.5)
    try:
        with urllib.request.urlopen(urllib.request.Request(server.url + "/api/rooms", method="POST")) as response:
            room = json.load(response)
        host = socketio.Client(reconnection=False)
        host.connect(server.url, namespaces=["/tv"], transports=["websocket"])
        assert host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv")["ok"]
        viewers = []
        for name in ("Vera", "Walt", "Xena"):
            viewer = socketio.Client(reconnection=False)
            viewer.connect(server.url, namespaces=["/play"], transports=["websocket"])
            joined = viewer.call("join", {"code": room["code"], "name": name, "role": "spectator"}, namespace="/play")
            assert joined["ok"], joined
            viewers.append(viewer)
        control = lambda **c: host.call("control", c, namespace="/tv", timeout=10)
        assert control(control="select_game", game="campaign")["ok"]
        assert control(control="settings", game="campaign", settings={"bots": True})["ok"]
        assert control(control="start")["ok"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the first question is open to the audience
            answer = viewers[0].call("audience", {"action": {"answer": 7}}, namespace="/play")
            if answer["ok"]:
                break
            assert answer["error"]["code"] in ("not_yet", "no_question"), answer
            time.sleep(0.05)
        time.sleep(0.2)  # the ticker writes the first answer; the next two wait for its next turn...
        for viewer in viewers[1:]:
            assert viewer.call("audience", {"action": {"answer": 7}}, namespace="/play")["ok"]
        server.process.terminate()  # ... but the server is stopped at once
        server.process.wait(10)
        for client in (host, *viewers):
            client.disconnect()
    finally:
        server.stop()
    with Session(create_engine(f"sqlite:///{tmp_path / 'stop.db'}")) as session:
        rows = session.exec(select(AudienceAnswerRecord)).all()
    assert sorted(r.value for r in rows) == [7, 7, 7]
