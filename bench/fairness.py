"""The fairness scenario (issue [3]'s accuracy figure): phones on a jittery network with known reaction times.

Each phone's messages, in and out, wait a random one-way delay drawn from the jitter range; its clock offset comes
from its own pings. For every pair of phones whose true reactions differ by ``MIN_GAP_MS`` or more, the room's
order by effective time is checked against the true order, next to the order by the server's receipt time.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import engineio
import socketio
from engineio import packet as eio_packet

MIN_GAP_MS = 20


class DelayedClient(socketio.Client):
    """A client whose incoming events wait their network delay in their own thread, and whose Engine.IO heartbeat
    answers (PONG, which the server times as the phone's round trip) wait the way down and the way up, and ``hold``
    more: what a phone that holds back its acknowledgements would hold back."""

    def __init__(self, delay: Any, hold: Any = lambda: 0.0, **kwargs: Any):
        self.network_delay = delay
        self.hold = hold
        # websocket-client checks every incoming frame's UTF-8 in pure Python: with nine phones in one process and a
        # state that grows each round, that alone saturated the test process by the last rounds, and its late
        # threads passed for network delay. The frames come from our own server, so the check is skipped.
        super().__init__(websocket_extra_options={"skip_utf8_validation": True}, **kwargs)

    def _engineio_client_class(self) -> Any:
        phone = self

        class Heartbeat(engineio.Client):  # type: ignore[misc]
            def _receive_packet(self, pkt: Any) -> None:
                if pkt.packet_type != eio_packet.PING:
                    return super()._receive_packet(pkt)

                def pong() -> None:
                    time.sleep(phone.network_delay() + phone.network_delay() + phone.hold())
                    self._send_packet(eio_packet.Packet(eio_packet.PONG, pkt.data))

                threading.Thread(target=pong, daemon=True).start()
                return None

        return Heartbeat

    def _handle_event(self, namespace: Any, id: Any, data: Any) -> None:
        def later() -> None:
            time.sleep(self.network_delay())
            super(DelayedClient, self)._handle_event(namespace, id, data)

        threading.Thread(target=later, daemon=True).start()


class SimPhone:
    """A phone on a jittery network that taps its true reaction time after the unlock it sees, and claims it
    (a ``liar`` claims 0 ms instead: the fair timing must not let it win)."""

    def __init__(self, url: str, code: str, name: str, rng: random.Random, low: int, high: int,
                 liar: bool = False):
        self.rng = random.Random(rng.random())
        self.low, self.high, self.liar = low, high, liar
        self.samples: list[tuple[float, float]] = []  # (rtt, offset) of recent pings
        self.handled_round = 0
        self.reaction: dict[int, float] = {}  # round -> true reaction ms, set by the caller
        self.true_taps: dict[int, float] = {}
        self.lock = threading.Lock()
        self.stop = False
        self.client = DelayedClient(self.delay, lambda: self.pong_hold(), reconnection=False)
        self.client.on("state", self._on_state, namespace="/play")
        self.client.on("sync", self._on_sync, namespace="/play")
        self.client.connect(url, namespaces=["/play"], transports=["websocket"])
        answer = self.client.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play",
                                  timeout=10)
        assert answer["ok"], answer
        self.pinger = threading.Thread(target=self._ping_loop, daemon=True)
        self.pinger.start()

    def delay(self) -> float:
        return self.rng.uniform(self.low, self.high) / 1000

    def _on_sync(self, _data: Any) -> dict[str, Any]:
        self._ack_up()
        return {}

    def _ack_up(self) -> None:
        """A round-trip probe (a ``sync``, or a state sent with an ack asked for) came down (DelayedClient): now the
        ack travels up, after what this phone holds it back. Each message is handled in a thread of its own."""
        time.sleep(self.delay() + self.ack_hold())

    def ack_hold(self) -> float:
        """How long this phone holds back its acknowledgement of the server's round-trip probe, in s (an honest
        phone answers at once; a scripted one may not, to look slower than it is)."""
        return 0.0

    def pong_hold(self) -> float:
        """How long this phone holds back its answer to the server's heartbeat (an Engine.IO PONG, which the server
        times as its round trip too), in s: as long as its acknowledgements, unless a test says otherwise."""
        return self.ack_hold()

    def claim(self, measured: float) -> float:
        """The time this phone claims for an answer it measured at ``measured`` ms (a ``liar`` claims 0)."""
        return 0 if self.liar else measured

    def _ping_loop(self) -> None:
        while not self.stop:
            sent = time.monotonic() * 1000
            time.sleep(self.delay())
            try:
                answer = self.client.call("ping", {"t": sent}, namespace="/play", timeout=5)
            except Exception:  # noqa: BLE001 - the run is over or the server went away
                return
            time.sleep(self.delay())
            received = time.monotonic() * 1000
            if answer.get("running") and answer.get("game_ms") is not None:
                with self.lock:
                    self.samples = (self.samples + [(received - sent, answer["game_ms"] - (sent + received) / 2)])[-8:]
            time.sleep(0.15)

    def offset(self) -> float | None:
        """Game clock minus local clock, from the fastest recent ping (its error is half its asymmetry)."""
        with self.lock:
            return min(self.samples)[1] if self.samples else None

    def _on_state(self, state: dict[str, Any]) -> dict[str, Any]:
        self._look(state)
        self._ack_up()  # a state may carry the server's probe (host/broadcast.py): its ack goes up as a sync's would
        return {}

    def _look(self, state: dict[str, Any]) -> None:
        game = state.get("game")
        if not game or game["id"] != "buzz" or state["phase"] != "playing":
            return
        view = game["view"]
        round_ = view["round"]
        if view["phase"] not in ("preview", "answer") or round_ <= self.handled_round or round_ not in self.reaction:
            return
        offset = self.offset()
        received = time.monotonic() * 1000
        if offset is None:  # no clock sync yet (the first question): as the page does, from the state's own clock
            offset = game["now_ms"] - received  # (host/static/common.js ``localTime``), late by its downlink
        self.handled_round = round_
        shown = max(received, view["opens_ms"] - offset)  # the unlock, or the arrival if later
        tap = shown + self.reaction[round_]

        def press() -> None:
            time.sleep(max(0.0, tap - time.monotonic() * 1000) / 1000)
            # The tap happens when this thread runs: on a busy test machine that can be some ms after it was due.
            # A real phone measures the tap it saw, so the claim and the true reaction are both the actual one
            # (otherwise the thread's lateness would pass for network delay the phone never had).
            tapped = time.monotonic() * 1000
            self.reaction[round_] = tapped - shown
            self.true_taps[round_] = tapped
            claimed = self.claim(self.reaction[round_])
            time.sleep(self.delay())  # uplink
            self.client.emit("action", {"action": {"answer": 1}, "ms": claimed, "step": None}, namespace="/play")

        threading.Thread(target=press, daemon=True).start()

    def close(self) -> None:
        self.stop = True
        self.client.disconnect()


def pair_orders(sims: list[SimPhone], results_by_round: list[list[dict[str, Any]]]) -> tuple[int, int, int]:
    """Over every round's results (seat i is ``sims[i]``): the pairs whose true reactions differ by ``MIN_GAP_MS``
    or more, and how many of them the effective times and the server's receipt times put in the true order."""
    engine_right = receipt_right = trials = 0
    for round_, results in enumerate(results_by_round, start=1):
        by_seat = {r["seat"]: r for r in results}
        for a in range(len(sims)):
            for b in range(a + 1, len(sims)):
                ra, rb = sims[a].reaction[round_], sims[b].reaction[round_]
                if abs(ra - rb) < MIN_GAP_MS or a not in by_seat or b not in by_seat:
                    continue
                trials += 1
                truth = ra < rb
                engine_right += (by_seat[a]["ms"] < by_seat[b]["ms"]) == truth
                receipt_right += (by_seat[a]["timing"]["receipt"] < by_seat[b]["timing"]["receipt"]) == truth
    return trials, engine_right, receipt_right


def run(server: Any, low: int, high: int, phones: int, rounds: int, seed: int) -> dict[str, Any]:
    """One jitter range: the share of pairs ordered right by effective time and by server receipt."""
    rng = random.Random(seed)
    room = server.create_room()
    host = socketio.Client(reconnection=False)
    host.connect(server.url, namespaces=["/tv"], transports=["websocket"])
    assert host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv")["ok"]
    sims = [SimPhone(server.url, room["code"], f"P{i}", rng, low, high) for i in range(phones)]
    for round_ in range(1, rounds + 1):
        for sim, reaction in zip(sims, rng.sample(range(150, 900, 7), phones)):
            sim.reaction[round_] = float(reaction)
    answer_ms = 1200 + 2 * high + 900

    def control(**c: Any) -> dict[str, Any]:
        return host.call("control", c, namespace="/tv", timeout=10)

    assert control(control="select_game", game="buzz")["ok"]
    assert control(control="settings", game="buzz", settings={
        "bots": False, "rounds": rounds, "preview_ms": 450 + 2 * high, "answer_ms": answer_ms, "reveal_ms": 150})["ok"]
    time.sleep(0.5)
    assert control(control="start")["ok"]
    final = None
    deadline = time.monotonic() + 60 + rounds * (answer_ms + 1500) / 1000
    while time.monotonic() < deadline:
        state = host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv")["state"]
        if state["phase"] == "finished":
            final = state["game"]["view"]
            break
        time.sleep(0.3)
    for sim in sims:
        sim.close()
    host.disconnect()
    if final is None:
        raise RuntimeError("the fairness game did not finish")
    trials, engine_right, receipt_right = pair_orders(sims, final["results"])
    answers = [r for results in final["results"] for r in results]
    taken = sum(1 for r in answers if r["timing"] and not r["timing"]["flag"])  # honest claims the server believed
    return {"jitter": f"{low}-{high} ms", "pairs": trials,
            "effective": round(100 * engine_right / trials, 1) if trials else None,
            "receipt": round(100 * receipt_right / trials, 1) if trials else None,
            "taken": round(100 * taken / len(answers), 1) if answers else None}
