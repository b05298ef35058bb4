"""Issue [11] finding 1, against the real server: while one room plays, a guest uploads every hostile pack file
(tests/data/hostile/); the playing room's phones keep getting their answers within 250 ms throughout (the issue asks
for exactly this figure), and every upload gets a report, never a 500. Then an honest pack of 20,000 questions
imports while the room plays (its storing, one bulk insert, is the one part done on the server's loop: its figure is
printed with the others).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from typing import Any

import pytest
import requests
import socketio

from questions.model import MAX_QUESTIONS
from tests.conftest import LiveServer, Servers
from tests.data.hostile.generate import all_files
from tests.test_hostile_packs import EXPECTED, honest_pack

WORST_ALLOWED_MS = 250  # issue [11]: the playing room's action-to-update latency, throughout


def client(url: str, namespace: str) -> socketio.Client:
    sio = socketio.Client(reconnection=False)
    sio.connect(url, namespaces=[namespace], transports=["websocket"])
    return sio


def new_room(url: str) -> dict[str, Any]:
    response = requests.post(url + "/api/rooms", timeout=30)
    assert response.status_code == 201, response.text
    return response.json()


class Player:
    """A playing room (the test game, two phones) that keeps acting and times each answer: a phone's move and its
    acknowledgement (sent once the room's new state has gone out), and a ping. It runs in a process of its own
    (``play``), so that the uploading side of the test (building and sending 5 MB bodies) cannot slow its clock."""

    def __init__(self, url: str):
        room = new_room(url)
        self.host = client(url, "/tv")
        assert self.host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv",
                              timeout=30)["ok"]
        self.phones = []
        for name in ("Ana", "Bob"):
            phone = client(url, "/play")
            assert phone.call("join", {"code": room["code"], "name": name, "role": "player"}, namespace="/play",
                              timeout=30)["ok"]
            self.phones.append(phone)
        self.control("select_game", game="tally")
        self.control("settings", game="tally", settings={"bots": False, "turn_seconds": 120, "target": 50})
        self.control("start")
        self.samples: list[tuple[float, float, str]] = []  # (when it was sent, ms to the answer, what)
        self.moves = 0

    def control(self, name: str, **extra: Any) -> None:
        answer = self.host.call("control", {"control": name, **extra}, namespace="/tv", timeout=30)
        assert answer["ok"], answer

    def timed(self, what: str, sio: socketio.Client, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        sent = time.monotonic()
        answer = sio.call(event, payload, namespace="/play", timeout=60)
        self.samples.append((sent, (time.monotonic() - sent) * 1000, what))
        return answer

    def run(self, stop: Any) -> None:
        turn = 0
        while not stop.is_set():
            phone = self.phones[turn % 2]
            answer = self.timed("move", phone, "action", {"action": {"add": 1}})
            if answer["ok"]:
                self.moves += 1
            elif answer["error"]["code"] not in ("not_your_turn", "illegal"):  # the game ended: play another
                self.control("lobby")
                self.control("start")
            turn += 1
            self.timed("ping", phone, "ping", {"t": 1})
            time.sleep(0.01)
        for sio in (self.host, *self.phones):
            sio.disconnect()


def play(url: str, ready: Any, stop: Any, results: Any) -> None:
    """The playing room, in its own process: its samples (or its failure) go back through ``results``."""
    try:
        player = Player(url)
        ready.set()
        player.run(stop)
        results.put(("ok", player.samples, player.moves))
    except BaseException as error:  # noqa: BLE001 - the test reports it
        results.put(("failed", repr(error), 0))
        ready.set()


def worst_between(samples: list[tuple[float, float, str]], start: float, end: float) -> float:
    return max((ms for sent, ms, _ in samples if start <= sent <= end), default=0.0)


def upload(server: LiveServer, room: dict[str, Any], name: str, data: bytes,
           address: str | None = None) -> requests.Response:
    """``address``: the device it comes from, as a proxy says (a server started with ``--trust-proxy 1``)."""
    return requests.post(server.url + "/api/packs", headers={"X-Room-Code": room["code"],
                                                             "X-Host-Token": room["host_token"],
                                                             **({"X-Forwarded-For": address} if address else {})},
                         files={"file": (name, data)}, timeout=120)


@pytest.mark.serial
def test_hostile_uploads_never_hold_up_a_playing_room(server: LiveServer):
    context = multiprocessing.get_context("spawn")
    ready, stop, results = context.Event(), context.Event(), context.Queue()
    player = context.Process(target=play, args=(server.url, ready, stop, results), daemon=True)
    player.start()
    assert ready.wait(60)
    guest = new_room(server.url)  # anyone gets a host token: the uploads come from another "room"
    time.sleep(1)  # a baseline before the first upload
    times: dict[str, tuple[float, float, int, int]] = {}
    uploads = [*all_files().items(), ("honest_20000.json", honest_pack(MAX_QUESTIONS))]
    try:
        for name, data in uploads:
            start = time.monotonic()
            response = upload(server, guest, name, data)
            times[name] = (start, time.monotonic(), response.status_code, len(response.content))
            assert response.status_code != 500, (name, response.text[:500])
            answer = response.json()
            if name == "honest_20000.json":
                assert response.status_code == 201, answer
                assert answer["pack"]["numeric"] + answer["pack"]["choice"] == MAX_QUESTIONS
                continue
            fragment, imports = EXPECTED[name]
            if imports:  # an odd but harmless file: imported with a warning that says what was ignored
                assert response.status_code == 201 and any(fragment in w["message"] for w in answer["warnings"]), \
                    (name, answer)
            else:
                assert 400 <= response.status_code < 500 and not answer["ok"], (name, response.status_code)
                assert any(fragment in p["message"] for p in answer["problems"]), (name, answer)
                assert len(response.content) < 10_000, (name, len(response.content))
        time.sleep(0.5)  # the answers in flight when the last upload was answered
    finally:
        stop.set()
        status, samples, moves = results.get(timeout=120)
        player.join(60)
    assert status == "ok", samples
    assert moves > 0
    worst = {name: worst_between(samples, start, end + 0.2) for name, (start, end, _, _) in times.items()}
    lines = [f"{name}: worst {worst[name]:.0f} ms while it was read (HTTP {status}, answer {size:,} bytes)"
             for name, (_, _, status, size) in sorted(times.items(), key=lambda item: -worst[item[0]])]
    first = samples[0][0]
    slowest = sorted(samples, key=lambda sample: -sample[1])[:5]
    print("\nthe playing room's slowest answer during each upload:\n" + "\n".join(lines))
    print(f"{len(samples)} answers timed; the slowest: "
          + ", ".join(f"{what} {ms:.0f} ms at {sent - first:.1f} s" for sent, ms, what in slowest))
    hostile_start, hostile_end = times[uploads[0][0]][0], times["honest_20000.json"][0]
    assert worst_between(samples, hostile_start, hostile_end) < WORST_ALLOWED_MS, "\n".join(lines)
    assert "Traceback" not in server.log.read_text()


def test_one_device_holds_one_reader_and_a_third_upload_at_once_is_told_to_try_again(servers: Servers):
    """Issue [16]: two slow files from one device held both reader places, so the host's own upload got 503 for as
    long as the guest kept sending. The device's second file is now refused (429) while its first is read, another
    device still gets the other place, and a third device, both places taken, is told to try again (503)."""
    live = servers.start(extra=["--trust-proxy", "1"])
    guest = new_room(live.url)
    slow = b"questions: [" + b"x, " * 1_500_000 + b"x]\n"  # over ten seconds of reading: the uploads overlap
    answers: dict[str, int] = {}

    def send(who: str, address: str) -> None:
        answers[who] = upload(live, guest, "slow.yaml", slow, address).status_code

    def reading(who: str, address: str) -> threading.Thread:
        thread = threading.Thread(target=send, args=(who, address))
        thread.start()
        time.sleep(1)  # its file is in the reader now, or it has been answered
        return thread

    threads = [reading("guest", "10.0.0.66"), reading("guest again", "10.0.0.66"), reading("host", "10.0.0.20"),
               reading("third device", "10.0.0.30")]
    for thread in threads:
        thread.join(180)
    assert answers == {"guest again": 429, "third device": 503, "guest": 422, "host": 422}, answers
