"""Fair timing on the real server (design.md): simulated phones with injected network delay and known reaction
times. The room's effective times must order them as their true reactions, where server receipt times would not,
and a phone claiming 0 ms must not beat an honest phone with the same true time."""

from __future__ import annotations

import gc
import json
import random
import threading
import time
import urllib.request
from typing import Any

import pytest
import socketio

from tests.conftest import LiveServer

pytestmark = pytest.mark.e2e

HONEST = 8
ROUNDS = 24
MIN_GAP_MS = 20


class DelayedClient(socketio.Client):
    """A client whose incoming events wait their network delay in their own thread (acks are sent after it, as
    the reply of a phone far away would be), so one slow message does not hold up the next."""

    def __init__(self, delay: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.network_delay = delay

    def _handle_event(self, namespace: Any, id: Any, data: Any) -> None:
        def later() -> None:
            time.sleep(self.network_delay())
            super(DelayedClient, self)._handle_event(namespace, id, data)

        threading.Thread(target=later, daemon=True).start()


class SimPhone:
    """A phone on a jittery network: every message in or out waits a random delay from its own range."""

    def __init__(self, server: LiveServer, code: str, name: str, rng: random.Random, low: int, high: int,
                 liar: bool = False):
        self.rng = random.Random(rng.random())
        self.low, self.high, self.liar = low, high, liar
        self.samples: list[tuple[float, float]] = []  # (rtt, offset) of recent pings
        self.handled_round = 0
        self.reaction: dict[int, float] = {}  # round -> true reaction ms, set by the test
        self.true_taps: dict[int, float] = {}
        self.lock = threading.Lock()
        self.client = DelayedClient(self.delay, reconnection=False)
        self.client.on("state", self._on_state, namespace="/play")
        self.client.on("sync", self._on_sync, namespace="/play")
        self.client.connect(server.url, namespaces=["/play"], transports=["websocket"])
        answer = self.client.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play",
                                  timeout=10)
        assert answer["ok"], answer
        self.stop = False
        self.pinger = threading.Thread(target=self._ping_loop, daemon=True)
        self.pinger.start()

    def delay(self) -> float:
        return self.rng.uniform(self.low, self.high) / 1000

    def _on_sync(self, data: Any) -> dict[str, Any]:
        time.sleep(self.delay())  # the probe came down (DelayedClient); now the ack travels up
        return {}

    def _ping_loop(self) -> None:
        while not self.stop:
            sent = time.monotonic() * 1000
            time.sleep(self.delay())  # uplink
            try:
                answer = self.client.call("ping", {"t": sent}, namespace="/play", timeout=5)
            except Exception:  # noqa: BLE001 - the test is over or the server went away
                return
            time.sleep(self.delay())  # downlink
            received = time.monotonic() * 1000
            if answer.get("running") and answer.get("game_ms") is not None:
                rtt = received - sent
                with self.lock:
                    self.samples = (self.samples + [(rtt, answer["game_ms"] - (sent + received) / 2)])[-8:]
            time.sleep(0.15)

    def offset(self) -> float | None:
        """Game clock minus local clock, from the fastest recent ping (its error is half its asymmetry)."""
        with self.lock:
            return min(self.samples)[1] if self.samples else None

    def _on_state(self, state: dict[str, Any]) -> None:
        game = state.get("game")
        if not game or game["id"] != "buzz" or state["phase"] != "playing":
            return
        view = game["view"]
        round_ = view["round"]
        if view["phase"] not in ("preview", "answer") or round_ <= self.handled_round or round_ not in self.reaction:
            return
        offset = self.offset()
        if offset is None:
            return
        self.handled_round = round_
        now = time.monotonic() * 1000
        unlock_local = view["opens_ms"] - offset
        shown = max(now, unlock_local)  # the keypad unlocks at the unlock, or on arrival if that is later
        tap = shown + self.reaction[round_]
        self.true_taps[round_] = tap
        claimed = 0 if self.liar else self.reaction[round_]

        def press() -> None:
            time.sleep(max(0.0, tap - time.monotonic() * 1000) / 1000)
            time.sleep(self.delay())  # uplink
            self.client.emit("action", {"action": {"answer": 1}, "ms": claimed, "step": None}, namespace="/play")

        threading.Thread(target=press, daemon=True).start()

    def close(self) -> None:
        self.stop = True
        self.client.disconnect()


@pytest.fixture
def no_gc_pauses():
    """The simulated phones live in the test process, which is large after hundreds of tests: a full garbage
    collection there would hold a phone's answer back after it measured its time, a network delay the server could
    not see. Real phones have no such pause, so the test keeps the collector out of the way while it runs."""
    gc.collect()
    gc.freeze()
    gc.disable()
    yield
    gc.enable()
    gc.unfreeze()


def test_effective_times_order_phones_by_true_reaction(server: LiveServer, no_gc_pauses: None):
    rng = random.Random(20261130)
    with urllib.request.urlopen(urllib.request.Request(server.url + "/api/rooms", method="POST")) as response:
        room = json.load(response)
    host = socketio.Client(reconnection=False)
    host.connect(server.url, namespaces=["/tv"], transports=["websocket"])
    assert host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv")["ok"]
    phones = []
    for i in range(HONEST):
        low = rng.randint(5, 100)
        phones.append(SimPhone(server, room["code"], f"P{i}", rng, low, min(150, low + rng.randint(10, 50))))
    liar = SimPhone(server, room["code"], "Liar", rng, 5, 150, liar=True)
    twin = phones[-1]  # the liar's true reaction always equals this honest phone's
    for round_ in range(1, ROUNDS + 1):
        times = rng.sample(range(150, 900, 7), HONEST)  # people take 150 ms or more
        for phone, reaction in zip(phones, times):
            phone.reaction[round_] = float(reaction)
        liar.reaction[round_] = twin.reaction[round_]
    control = lambda **c: host.call("control", c, namespace="/tv", timeout=10)
    assert control(control="select_game", game="buzz")["ok"]
    assert control(control="settings", game="buzz", settings={
        "bots": False, "rounds": ROUNDS, "preview_ms": 450, "answer_ms": 1800, "reveal_ms": 150})["ok"]
    time.sleep(0.5)
    assert control(control="start")["ok"]

    final = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        watch = host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv")
        if watch["state"]["phase"] == "finished":
            final = watch["state"]["game"]["view"]
            break
        time.sleep(0.5)
    for phone in (*phones, liar):
        phone.close()
    host.disconnect()
    assert final is not None, "the game did not finish"

    seat_of = {id(p): i for i, p in enumerate(phones)} | {id(liar): HONEST}
    engine_right = receipt_right = trials = liar_wins = liar_rounds = 0
    for round_, results in enumerate(final["results"], start=1):
        by_seat = {r["seat"]: r for r in results}
        for a in range(HONEST):
            for b in range(a + 1, HONEST):
                ra, rb = phones[a].reaction[round_], phones[b].reaction[round_]
                if abs(ra - rb) < MIN_GAP_MS or a not in by_seat or b not in by_seat:
                    continue
                trials += 1
                truth = ra < rb
                engine_right += (by_seat[a]["ms"] < by_seat[b]["ms"]) == truth
                receipt_right += (by_seat[a]["timing"]["receipt"] < by_seat[b]["timing"]["receipt"]) == truth
        twin_seat, liar_seat = seat_of[id(twin)], seat_of[id(liar)]
        if twin_seat in by_seat and liar_seat in by_seat:
            liar_rounds += 1
            assert by_seat[liar_seat]["timing"]["flag"] in ("faster_than_network", "faster_than_human")
            ranked = [r["seat"] for r in results]
            liar_wins += ranked.index(liar_seat) < ranked.index(twin_seat)
    flags: dict[str, int] = {}
    for results in final["results"]:
        for r in results:
            if r["seat"] < HONEST:
                flags[r["timing"]["flag"] or "taken"] = flags.get(r["timing"]["flag"] or "taken", 0) + 1
    engine_accuracy, receipt_accuracy = engine_right / trials, receipt_right / trials
    print(f"\nfair timing over {trials} pairs (true gap >= {MIN_GAP_MS} ms, one-way delay 5-150 ms): "
          f"effective-time order {engine_accuracy:.1%}, server-receipt order {receipt_accuracy:.1%}; "
          f"the liar beat its honest twin in {liar_wins} of {liar_rounds} rounds; honest claims: {flags}")
    assert trials >= 500
    assert engine_accuracy >= 0.99
    assert receipt_accuracy < 0.99
    assert liar_rounds >= ROUNDS - 2 and liar_wins == 0
