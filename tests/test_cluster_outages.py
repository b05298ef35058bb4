"""A cluster that rides out its own parts (issue [19], docs/scaling.md "When PostgreSQL or Redis stops"): two real
``throneroom worker`` processes behind a real HAProxy, sharing a real PostgreSQL and Redis started by the test on
loopback; one of those services is really stopped for 10 s mid-question and started again (same port, same data).

- PostgreSQL: the room holds still (its game clock advances by less than 1 s over the outage), the TV says why, no
  socket is cut (HAProxy keeps both workers: a database outage is not a dead worker), an answer sent during the outage
  is refused ``storage_down`` (never ``internal``) and taken when the phone asks again after, every answer
  acknowledged is in the log once, and every answer in the log was acknowledged.
- Redis: a room whose spectators are relayed through the other worker holds still too; a relayed answer sent during
  the outage is refused ``relay_down`` (never ``room_moving``, never ``too_late``) and taken once asked again, and
  the question's reveal counts every relayed answer.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import socketio
from playwright.sync_api import expect

from bench.services import PostgresServer, RedisServer, Service
from tests.cluster import Cluster, new_room, wait_for
from tests.conftest import TestBrowser
from tests.e2e import new_page, shot

OUTAGE_S = 10.0
BACK_WITHIN_S = 5.0  # every client connected again (or never cut) this long after the service's return
RETRY_S = 0.5  # how often a phone asks again after a refusal that says "try again" (the pages' own retry)


def stop(service: Service) -> None:
    """A real stop: the server process ends (PostgreSQL's fast shutdown, Redis's SIGTERM), its data kept."""
    process = service.process
    assert process is not None
    os.kill(process.pid, service.stop_signal)
    process.wait(30)
    service.process = None


def start_again(service: Service) -> None:
    """The same server again, on its port, with its data (a Redis without persistence comes back empty)."""
    service.process = service._spawn(service.command())
    wait_for(service._ready_quietly, f"{service.name} answering again", seconds=30)


class Page:
    """A page's socket (the TV's or a phone's), reconnecting by itself as the pages do; notes every state it was sent
    and when it lost its connection."""

    def __init__(self, base: str, namespace: str, code: str, extra: str = ""):
        self.namespace = namespace
        self.states: list[dict[str, Any]] = []
        self.drops: list[float] = []
        self.token: str | None = None
        self.client = socketio.Client(reconnection=True, reconnection_delay=0.2, reconnection_delay_max=1)
        self.client.on("state", self.states.append, namespace=namespace)
        self.client.on("disconnect", lambda *_: self.drops.append(time.monotonic()), namespace=namespace)
        self.client.connect(f"{base}?room={code}{extra}", namespaces=[namespace], transports=["websocket"],
                            wait_timeout=10)

    def call(self, event: str, data: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        return self.client.call(event, data, namespace=self.namespace, timeout=timeout)

    @property
    def connected(self) -> bool:
        return self.client.connected and self.namespace in self.client.namespaces

    def close(self) -> None:
        self.client.disconnect()


def question(state: dict[str, Any]) -> dict[str, Any]:
    return ((state.get("game") or {}).get("view") or {}).get("question") or {}


def persist(page: Page, event: str, payload: dict[str, Any], until: float, retry: set[str]) -> tuple[
        dict[str, Any], list[str]]:
    """Send until acknowledged, asking again after a refusal whose code is in ``retry`` (what the pages do); stops at
    any other refusal, or at ``until`` (monotonic). Returns the last answer and every refusal's code."""
    refusals: list[str] = []
    while True:
        try:
            answer = page.call(event, payload, timeout=20)
        except (socketio.exceptions.TimeoutError, socketio.exceptions.BadNamespaceError,
                socketio.exceptions.DisconnectedError):
            answer = {"ok": False, "error": {"code": "no_answer"}}
        if answer["ok"]:
            return answer, refusals
        refusals.append(answer["error"]["code"])
        if answer["error"]["code"] not in retry or time.monotonic() > until:
            return answer, refusals
        time.sleep(RETRY_S)


def start_campaign(tv: Page, numeric_seconds: int) -> None:
    for control, extra in (("select_game", {"game": "campaign"}),
                           ("settings", {"game": "campaign", "settings": {"bots": False,
                                                                          "numeric_seconds": numeric_seconds}}),
                           ("start", {})):
        answer = tv.call("control", {"control": control, **extra})
        assert answer["ok"], (control, answer)


def answers_logged(cluster: Cluster, code: str) -> list[dict[str, Any]]:
    return [json.loads(data) for _, kind, data in cluster.events(code) if kind == "action"]


class Outage:
    """Stops a service now and starts it again ``OUTAGE_S`` later in a thread of its own, while the test's phones
    go on; ``stopped_at`` and ``back_at`` (monotonic) when it stopped and answered again."""

    def __init__(self, service: Service):
        import threading

        self.service = service
        stop(service)
        self.stopped_at = time.monotonic()
        self.back_at: float | None = None
        self.thread = threading.Thread(target=self._return, daemon=True)
        self.thread.start()

    def _return(self) -> None:
        time.sleep(max(0.0, self.stopped_at + OUTAGE_S - time.monotonic()))
        start_again(self.service)
        self.back_at = time.monotonic()

    def over(self) -> float:
        self.thread.join(60)
        assert self.back_at is not None, "the service did not come back"
        return self.back_at


def game_time(tv: Page, code: str, token: str) -> tuple[int, dict[str, Any]]:
    state = tv.call("watch", {"code": code, "host_token": token})["state"]
    return state["game"]["now_ms"], state


@pytest.mark.serial  # the game clock's advance over the outage is measured to within a second
def test_a_database_stop_mid_question_holds_the_room_still_cuts_nobody_and_loses_nothing(tmp_path: Path,
                                                                                         browser: TestBrowser) -> None:
    with PostgresServer() as pg, RedisServer() as rs, \
            Cluster(pg.new_database(), rs.url, tmp_path, count=2) as cluster:
        code, token = new_room(cluster.url)
        tv = Page(cluster.url, "/tv", code)
        assert tv.call("watch", {"code": code, "host_token": token})["ok"]
        # the host's own TV in a browser too, at 1280x720 (its token in its storage, as on the device that made it)
        screen = new_page(browser, viewport={"width": 1280, "height": 720})
        screen.goto(cluster.url + "/")
        screen.evaluate("([code, token]) => localStorage.setItem('throneroom.host.' + code, JSON.stringify(token))",
                        [code, token])
        screen.goto(f"{cluster.url}/tv/{code}")
        screen.wait_for_selector("#room-code")
        phones = {}
        for name in ("Ana", "Bob", "Cy"):
            phone = Page(cluster.url, "/play", code)
            joined = phone.call("join", {"code": code, "name": name, "role": "player"})
            assert joined["ok"], joined
            phones[name] = phone
        start_campaign(tv, numeric_seconds=12)

        def opened() -> dict[str, Any] | None:
            state = tv.call("watch", {"code": code, "host_token": token})["state"]
            asked = question(state)
            return state if state["game"]["view"].get("phase") == "answer" and asked.get("kind") == "numeric" \
                and not asked.get("revealed") else None

        state = wait_for(opened, "the first numeric question open", seconds=30)
        slot = {s["name"]: s["index"] for s in state["game"]["slots"]}
        step = state["game"]["step"]
        acknowledged = {}
        ana = phones["Ana"].call("action", {"action": {"answer": "4"}, "step": step})
        assert ana["ok"], ana
        acknowledged["Ana"] = "4"

        game_before, _ = game_time(tv, code, token)
        outage = Outage(pg)
        # Bob answers while the database is down: refused with a reason that says why (never "internal", never
        # acknowledged unlogged), and taken when his phone asks again once the database is back.
        time.sleep(1.0)
        held = tv.call("watch", {"code": code, "host_token": token})
        assert held["ok"], held  # the TV's socket is still served, and still shows the room
        # The browser TV says why the room holds still, over the stage and in its header; the host's Resume waits
        # (it would be refused): the room goes on by itself (host/static/tv.js renderHold, controlBar)
        expect(screen.locator("#hold-notice")).to_contain_text("database", timeout=5000)
        expect(screen.locator("#paused")).to_have_text("On hold")
        expect(screen.locator("#resume")).to_be_disabled()
        shot(screen, "outage-database-tv-1280x720")
        bob, bob_refusals = persist(phones["Bob"], "action", {"action": {"answer": "7"}, "step": step},
                                    until=outage.stopped_at + OUTAGE_S + 20, retry={"storage_down"})
        back_at = outage.over()
        assert bob_refusals and set(bob_refusals) == {"storage_down"}, bob_refusals
        assert bob["ok"], bob
        acknowledged["Bob"] = "7"
        game_after, after = game_time(tv, code, token)
        # The game clock stood still over the outage: less than a second of game time over more than ten of wall time.
        assert game_after - game_before < 1000, (game_before, game_after, round((back_at - outage.stopped_at) * 1000))
        print(f"\n[outage] database down {back_at - outage.stopped_at:.1f} s: game clock +{game_after - game_before} ms; "
              f"Bob refused storage_down {len(bob_refusals)} times, then taken")
        assert any((s.get("hold") or {}).get("reason") == "database" for s in tv.states), \
            "the TV was never told why the room held still"

        # Nobody was cut: HAProxy kept both workers (a database outage is not a dead worker); in any case every page
        # is connected again within BACK_WITHIN_S of the database's return.
        wait_for(lambda: all(p.connected for p in (tv, *phones.values())), "every page connected",
                 seconds=max(0.1, back_at + BACK_WITHIN_S - time.monotonic()))
        drops = {name: p.drops for name, p in {"tv": tv, **phones}.items() if p.drops}
        assert not drops, drops
        expect(screen.locator("#hold-notice")).to_have_count(0)  # the room goes on: the notice and the overlay go
        expect(screen.locator("#paused")).to_have_count(0)
        expect(screen.locator("#pause")).to_be_enabled()

        # The room goes on where it was: Cy answers within the question's time left, and the question is revealed.
        cy = phones["Cy"].call("action", {"action": {"answer": "9"}, "step": step})
        assert cy["ok"], cy
        acknowledged["Cy"] = "9"
        assert not question(after).get("revealed"), question(after)
        revealed = wait_for(lambda: (q := question(tv.call("watch", {"code": code, "host_token": token})["state"]))
                            .get("revealed") and q, "the reveal", seconds=30)
        values = {a["seat"]: a["value"] for a in revealed["answers"]}
        assert values == {slot["Ana"]: 4, slot["Bob"]: 7, slot["Cy"]: 9}, revealed["answers"]
        # Every acknowledged answer is in the log once; every answer in the log was acknowledged.
        logged = [(d["slot"], d["action"]["answer"]) for d in answers_logged(cluster, code)
                  if isinstance(d.get("action"), dict) and "answer" in d["action"]]
        assert sorted(logged) == sorted((slot[n], v) for n, v in acknowledged.items()), logged
        tv.close()
        for phone in phones.values():
            phone.close()


@pytest.mark.serial  # a 10 s outage inside a question's time, with phones asking again every second
def test_a_redis_stop_holds_a_room_with_relayed_spectators_and_their_answers_arrive(tmp_path: Path) -> None:
    with PostgresServer() as pg, RedisServer() as rs, \
            Cluster(pg.new_database(), rs.url, tmp_path, count=2) as cluster:
        code, token = new_room(cluster.url)
        owner = cluster.worker_of(f"/api/rooms/{code}")
        other = next(name for name in cluster.workers if name != owner)
        tv = Page(cluster.url, "/tv", code)
        assert tv.call("watch", {"code": code, "host_token": token})["ok"]
        players = []
        for name in ("Ana", "Bob", "Cy"):  # they never answer: the question stays open its whole time
            phone = Page(cluster.url, "/play", code)
            assert phone.call("join", {"code": code, "name": name, "role": "player"})["ok"]
            players.append(phone)
        spectators = []
        for i in range(3):  # each joins at the room's worker, then is relayed by the other one (?audience=PEER)
            joining = Page(cluster.url, "/play", code)
            joined = joining.call("join", {"code": code, "name": f"Vera{i}", "role": "spectator"})
            assert joined["ok"] and joined.get("spread") is True, joined
            joining.close()
            phone = Page(f"http://127.0.0.1:{cluster.workers[other].port}", "/play", code, f"&audience=p{i}")
            hello = phone.call("hello", {"code": code, "token": joined["token"]})
            assert hello["ok"], hello
            phone.token = joined["token"]
            spectators.append(phone)
        assert cluster.holder(code) == owner
        start_campaign(tv, numeric_seconds=8)

        def open_question() -> dict[str, Any] | None:
            for state in reversed(spectators[0].states):
                mine = (state.get("audience") or {}).get("you") or {}
                if mine.get("key") is not None and not state["audience"]["revealed"] \
                        and state["game"]["view"].get("phase") in ("preview", "answer"):
                    return state
            return None

        state = wait_for(open_question, "the audience question on a relayed phone", seconds=30)
        view = state["game"]["view"]
        if view["phase"] == "preview":  # it opens at its shown time with no state of its own (Game.foreseen): the
            time.sleep((view["question"]["opens_ms"] - state["game"]["now_ms"]) / 1000 + 0.2)  # phone waits for it
        key, step = state["audience"]["you"]["key"], state["game"]["step"]
        first = spectators[0].call("audience", {"action": {"answer": 5}, "step": step})
        assert first["ok"], first

        outage = Outage(rs)
        time.sleep(1.0)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(spectators) - 1) as pool:  # each phone asks again on its own
            results = list(pool.map(lambda i: persist(spectators[i], "audience",
                                                      {"action": {"answer": 5 + i}, "step": step},
                                                      until=outage.stopped_at + OUTAGE_S + 20, retry={"relay_down"}),
                                    range(1, len(spectators))))
        back_at = outage.over()
        for answer, refusals in results:
            # refused with a reason the phone retries on, never room_moving nor too_late; then taken
            assert answer["ok"], (answer, refusals)
            assert refusals and set(refusals) == {"relay_down"}, refusals
        wait_for(lambda: all(p.connected for p in (tv, *players, *spectators)), "every page connected",
                 seconds=max(0.1, back_at + BACK_WITHIN_S - time.monotonic()))

        def revealed(phone: Page) -> dict[str, Any] | None:
            for state in reversed(phone.states):
                audience = state.get("audience") or {}
                mine = audience.get("you") or {}
                if mine.get("key") == key and audience.get("revealed") and mine.get("result") is not None:
                    return mine
            return None

        for phone in spectators:  # every relayed answer counted at the reveal (each phone has its own result)
            wait_for(lambda p=phone: revealed(p), "the reveal with this relayed phone's own result", seconds=40)
        for page in (tv, *players, *spectators):
            page.close()


def test_a_hold_stops_the_game_clock_and_its_timers_and_the_room_goes_on_from_where_it_stood() -> None:
    """In process, with a fake clock: what a hold does to one room (host/clocks.py), whatever held it."""
    from host.room import RoomError
    from host.service import FakeClock
    from tests.test_room_service import make_service, started

    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats = started(service, players=2, bots=False)
    deadline = service.clocks.due_deadline(room)
    assert deadline is not None
    clock.advance(1000)
    stood = service.clocks.game_now(room)
    service.clocks.hold(room.code, "relay")
    assert service.view(room, None)["hold"] == {"reason": "relay"}
    assert service.view(room, None)["paused"] is True  # the pages' countdowns stand still
    seq = room.seq
    clock.advance(10 * deadline)  # far past the timer: it does not run out, no bot or timeout fires
    service.tick()
    assert service.clocks.game_now(room) == stood and room.seq == seq
    service.clocks.hold(room.code, "database")
    service.clocks.release(room.code, "relay")  # still held: by the database
    assert service.view(room, None)["hold"] == {"reason": "database"}
    service.store.down_since = 1.0  # as host/store.py marks an outage
    try:
        with pytest.raises(RoomError) as refused:
            service.audience_answer(room, seats[0], {"action": {"answer": 1}})
        assert refused.value.code == "storage_down"
    finally:
        service.store.down_since = None
    service.clocks.release(room.code, "database")
    assert service.view(room, None)["hold"] is None and service.view(room, None)["paused"] is False
    assert service.clocks.game_now(room) == stood
    clock.advance(500)
    assert service.clocks.game_now(room) == stood + 500  # on from where it stood
