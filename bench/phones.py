"""Simulated phones and TVs: python-socketio asyncio clients, many per worker process.

Every client records each ``state`` message it receives (its room version and the local monotonic time). On
Linux ``time.monotonic`` is one clock for every process of the machine, so a send time taken in one worker and a
receipt time taken in another can be compared.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import random
import resource
import time
from typing import Any

import socketio

CONNECT_TIMEOUT = 60


def now_ms() -> float:
    """This machine's monotonic clock in ms (the same in every process)."""
    return time.monotonic() * 1000


def cpu_seconds() -> float:
    """CPU used by this process so far (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Client:
    """One socket on ``/tv`` or ``/play`` that remembers every state it received."""

    def __init__(self, url: str, namespace: str, reconnect: bool = False):
        self.url = url
        self.namespace = namespace
        # with ``reconnect``, as the pages: reconnect at once and then at most every 2 s, and say watch or hello again
        self.sio = (socketio.AsyncClient(reconnection=True, reconnection_delay=0.25, reconnection_delay_max=2)
                    if reconnect else socketio.AsyncClient(reconnection=False))
        self.rejoin: Any = None  # a coroutine function: what the page sends on every reconnect
        self.connects = 0
        self.rejoined: list[float] = []  # when each re-watch or re-hello was answered ok (now_ms)
        self.versions: list[int] = []  # versions of the states received, in order of arrival
        self.times: list[float] = []  # when each arrived (now_ms)
        self.syncs: list[float] = []  # when each round-trip probe of its own (``sync``) arrived (now_ms)
        self.sizes: list[tuple[float, int]] = []  # every state: when it arrived, its JSON's length
        self.state: dict[str, Any] | None = None
        self.on_state: Any = None
        self.disorder = 0  # states that arrived with a lower version than one before them
        self.sio.on("state", self._state, namespace=namespace)
        self.sio.on("sync", self._sync, namespace=namespace)
        self.sio.on("connect", self._connected, namespace=namespace)

    async def _connected(self) -> None:
        self.connects += 1
        if self.connects > 1 and self.rejoin is not None:  # a reconnect: answered later (not in the handler)
            asyncio.get_running_loop().create_task(self._rejoin())

    async def _rejoin(self) -> None:
        for _ in range(20):
            try:
                answer = await self.rejoin()
            except Exception:  # noqa: BLE001 - disconnected again or no answer: the next connect tries again
                return
            if answer.get("ok"):
                self.rejoined.append(now_ms())
                return
            await asyncio.sleep(0.5)  # e.g. the room is still being taken over

    async def _sync(self, _data: Any) -> dict[str, Any]:
        self.syncs.append(now_ms())
        return {}

    def _state(self, state: dict[str, Any]) -> None:
        version = state.get("version", -1)
        if self.versions and version < self.versions[-1]:
            self.disorder += 1
        self.versions.append(version)
        self.times.append(now_ms())
        # what the relay's states weigh (bench/relay.py): as Throneroom's. Every state is measured: one in four left a
        # short run's phones without one in the measured window (some 40 µs of the load generator's each)
        self.sizes.append((self.times[-1], len(json.dumps(state, separators=(",", ":")))))
        self.state = state
        if self.on_state is not None:
            self.on_state(state)

    async def connect(self) -> None:
        """Open the WebSocket."""
        await self.sio.connect(self.url, namespaces=[self.namespace], transports=["websocket"],
                               wait_timeout=CONNECT_TIMEOUT)

    async def call(self, event: str, data: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Send an event and wait for its acknowledgement."""
        return await self.sio.call(event, data, namespace=self.namespace, timeout=timeout)

    def received_at(self, version: int) -> float | None:
        """When this client first received a state of at least this version (versions only grow)."""
        running_max: list[int] = []
        best = -1
        for v in self.versions:  # arrival order; the running maximum is sorted
            best = max(best, v)
            running_max.append(best)
        i = bisect.bisect_left(running_max, version)
        return self.times[i] if i < len(self.times) else None

    async def close(self) -> None:
        """Disconnect."""
        with contextlib.suppress(Exception):  # the server may be gone already
            await self.sio.disconnect()


async def setup_call(client: Client, event: str, data: dict[str, Any], retries: list[int]) -> dict[str, Any]:
    """A set-up call (watch, join, control) that answers ``storage_busy`` ("try again") is tried again, as a person
    would, up to ten times; ``retries`` counts the repeats."""
    for _ in range(10):
        answer = await client.call(event, data, timeout=120)
        if answer.get("ok") or (answer.get("error") or {}).get("code") != "storage_busy":
            break
        retries[0] += 1
        await asyncio.sleep(0.5)
    return answer


async def connect_all(clients: list[Client], batch: int = 50) -> None:
    """Connect clients a batch at a time (a thousand handshakes at once would only measure the listen queue)."""
    for i in range(0, len(clients), batch):
        await asyncio.gather(*(c.connect() for c in clients[i:i + batch]))


def random_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A move among the seat's legal actions, as a player in a hurry would choose it."""
    legal = view.get("legal") or []
    if not legal:
        return None
    kind, value = rng.choice(legal)
    if kind == "answer":
        return {"answer": rng.randint(0, 2000)}
    return {kind: value}


def until_open(game: dict[str, Any]) -> float:
    """Seconds until a Short Campaign question in its preview opens (0 once open): it opens at its shown time with no
    new state (engine/core.py ``foreseen``), and a phone unlocks it by the clock as the page does
    (host/static/games/campaign.js ``current``)."""
    q = game["view"].get("question")
    return max(0, q["opens_ms"] - game["now_ms"]) / 1000 if q and game["view"].get("phase") == "preview" else 0.0


def opening(game: dict[str, Any]) -> tuple[dict[str, Any], float, int]:
    """A seat's view as its phone page acts on it, in how many seconds, and the ms it then has: a question previewed
    for this seat has its answers legal from its opening (``until_open``) for its whole window."""
    view = game["view"]
    q = view.get("question")
    if view.get("phase") != "preview" or not q or game.get("you") not in q["seats"]:
        return view, 0.0, (game["deadline_ms"] or 0) - game["now_ms"]
    legal = [["answer", None]] if q["kind"] == "numeric" else [["choice", i] for i in range(len(q["options"]))]
    return {**view, "legal": legal}, until_open(game), q["closes_ms"] - q["opens_ms"]


class Player:
    """A phone playing a Short Campaign seat with a bot's human-looking timing: it acts after a random part of
    the time left, and records the version its action produced (from the acknowledgement)."""

    def __init__(self, client: Client, rng: random.Random, stop_at: float):
        self.client = client
        self.rng = rng
        self.stop_at = stop_at
        self.handled: set[int] = set()
        self.actions: list[tuple[float, int, int, float]] = []  # (sent at, version it produced, step, acked at)
        self.sent: list[float] = []  # when each action was sent
        self.refused = 0  # answered with an error
        self.unanswered = 0  # no answer in time, or the socket was disconnected
        client.on_state = self.seen

    def seen(self, state: dict[str, Any]) -> None:
        game = state.get("game")
        if not game or state.get("phase") != "playing" or state.get("paused") or game.get("you") is None:
            return
        view, wait, left = opening(game)
        step = game["step"]
        if step in self.handled or not view.get("legal") or now_ms() > self.stop_at:
            return
        self.handled.add(step)
        delay = wait + self.rng.uniform(0.15, 0.6) * max(200, left) / 1000
        asyncio.get_running_loop().create_task(self.act(step, view, delay))

    async def act(self, step: int, view: dict[str, Any], delay: float) -> None:
        await asyncio.sleep(delay)
        action = random_action(view, self.rng)
        if action is None or now_ms() > self.stop_at:
            return
        sent = now_ms()
        self.sent.append(sent)
        try:
            answer = await self.client.call("action", {"action": action, "step": step, "ms": round(delay * 1000)},
                                            timeout=10)
        except Exception:  # noqa: BLE001 - a timeout, or a socket that is down
            self.unanswered += 1
            return
        if answer.get("ok"):
            self.actions.append((sent, answer["version"], step, now_ms()))
        else:
            self.refused += 1


# ----- party load: R rooms, a TV and three playing phones each -----

async def party_rooms(job: dict[str, Any], ready: Any, go: Any, started: Any = None, play: Any = None) -> dict[str, Any]:
    """Set up this worker's rooms, wait for the start signal, start their games, then play for the duration and
    measure. With ``started`` and ``play`` (the party scenario), the measured play begins once every process has
    started all its games (``play``): starting 500 games took longer than the whole window on a slow machine."""
    rng = random.Random(job["seed"])
    reconnect = bool(job.get("failover"))
    rooms = []
    for room in job["rooms"]:
        url = f"{job['url']}?room={room['code']}"  # HAProxy routes a room's sockets by it (deploy/haproxy.cfg)
        tv = Client(url, "/tv", reconnect)
        phones = [Client(url, "/play", reconnect) for _ in range(3)]
        rooms.append((room, tv, phones))
    await connect_all([c for _, tv, phones in rooms for c in (tv, *phones)])
    seats: dict[int, int] = {}  # id(phone client) -> its seat
    busy = [0]  # set-up calls answered storage_busy and repeated
    for room, tv, phones in rooms:
        watch = {"code": room["code"], "host_token": room["host_token"]}
        answer = await setup_call(tv, "watch", watch, busy)
        assert answer["ok"], answer
        tv.rejoin = lambda tv=tv, watch=watch: tv.call("watch", watch, timeout=30)
        for i, phone in enumerate(phones):
            answer = await setup_call(phone, "join", {"code": room["code"], "name": f"P{i}", "role": "player"}, busy)
            assert answer["ok"], answer
            seats[id(phone)] = answer["seat"]
            hello = {"code": room["code"], "token": answer["token"]}
            phone.rejoin = lambda phone=phone, hello=hello: phone.call("hello", hello, timeout=30)
        for control in ({"control": "select_game", "game": "campaign"},
                        {"control": "settings", "game": "campaign", "settings": {"bots": False}}):
            answer = await setup_call(tv, "control", control, busy)
            assert answer["ok"], answer
    ready.put(len(rooms))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    cpu0, wall0 = cpu_seconds(), now_ms()
    stop_at = wall0 + job["duration_s"] * 1000 if started is None else float("inf")  # (else set at ``play``)
    players = []
    for _, tv, phones in rooms:
        players += [Player(p, random.Random(rng.random()), stop_at) for p in phones]
    spacing = min(5.0, job["duration_s"] / 4) / len(rooms)  # parties do not all start in the same second
    for _, tv, _ in rooms:
        answer = await setup_call(tv, "control", {"control": "start"}, busy)
        assert answer["ok"], answer
        await asyncio.sleep(spacing)
    measure_from = now_ms() + 1000  # the play, not the game starts (each draws its questions from the packs)
    if started is not None:  # the window begins when every process has started its games
        started.put(len(rooms))
        await asyncio.get_running_loop().run_in_executor(None, play.wait)
        cpu0, wall0 = cpu_seconds(), now_ms()
        measure_from = wall0
        stop_at = wall0 + job["duration_s"] * 1000
        for player in players:
            player.stop_at = stop_at
    await asyncio.sleep(max(0.0, (stop_at - now_ms()) / 1000))
    await asyncio.sleep(job["settle_s"])  # updates still on their way
    cpu = cpu_seconds() - cpu0
    wall = (now_ms() - wall0) / 1000
    by_phone = {id(p.client): p for p in players}
    if reconnect:  # the failover scenario: every record, judged by the parent, which knows when it killed whom
        raw = [{"code": room["code"],
                "clients": [{"versions": c.versions, "times": c.times, "seat": seats.get(id(c)),
                             "rejoined": c.rejoined} for c in (tv, *phones)],
                "actions": [[seats[id(p)], *a] for p in phones for a in by_phone[id(p)].actions],
                "sent": sum(len(by_phone[id(p)].sent) for p in phones),
                "refused": sum(by_phone[id(p)].refused for p in phones),
                "unanswered": sum(by_phone[id(p)].unanswered for p in phones)} for room, tv, phones in rooms]
        await asyncio.gather(*(c.close() for _, tv, phones in rooms for c in (tv, *phones)))
        return {"rooms": raw, "cpu": cpu, "wall": wall, "busy": busy[0]}
    latencies: list[float] = []
    lost = actions = refused = unanswered = sent_count = disorder = states = pushed = 0
    sizes: dict[str, list[int]] = {"tv": [], "phone": []}  # the measured states' JSON lengths, by screen
    for _, tv, phones in rooms:
        clients = [tv, *phones]
        for client in clients:
            sizes["tv" if client is tv else "phone"] += [n for t, n in client.sizes if measure_from <= t <= stop_at]
        shown = {id(c): set(c.versions) for c in phones}
        states += sum(len(c.versions) for c in clients)
        pushed += sum(measure_from <= t <= stop_at for c in clients for t in (*c.times, *c.syncs))
        disorder += sum(c.disorder for c in clients)
        for phone in phones:
            player = by_phone[id(phone)]
            refused += player.refused
            unanswered += player.unanswered
            sent_count += sum(1 for t in player.sent if t >= measure_from)
            for sent, version, _step, _acked in player.actions:
                if sent < measure_from:
                    continue
                actions += 1
                arrivals = []
                for other in clients:
                    if other is phone:
                        continue
                    at = other.received_at(version)
                    if other is not tv and version not in shown[id(other)]:
                        continue  # a phone whose screen the action did not change is sent no state for it
                        # (host/broadcast.py): nothing to wait for, and nothing lost (docs/bench.md)
                    if at is None:
                        lost += 1
                    else:
                        arrivals.append(at)
                if arrivals:
                    latencies.append(max(arrivals) - sent)
    await asyncio.gather(*(c.close() for _, tv, phones in rooms for c in (tv, *phones)))
    return {"latencies": latencies, "lost": lost, "actions": actions, "sent": sent_count, "refused": refused,
            "unanswered": unanswered, "busy": busy[0], "states": states, "disorder": disorder, "cpu": cpu, "wall": wall,
            "pushed": pushed, "sizes": sizes}


# ----- big room: one game, three players, N audience phones -----

class Spectator:
    """An audience phone: answers the first question once it unlocks, at a random moment in the same second."""

    def __init__(self, client: Client, rng: random.Random):
        self.client = client
        self.rng = rng
        self.key: int | None = None
        self.sent: float | None = None
        self.acked: float | None = None
        self.accepted = False
        self.refusal: str | None = None  # why its answer was not accepted (an error code, or the exception)
        self.reveal_at: float | None = None
        self.result_at: float | None = None
        client.on_state = self.seen

    def seen(self, state: dict[str, Any]) -> None:
        game = state.get("game")
        if not game or not game["view"].get("question"):
            return
        q = game["view"]["question"]
        if self.key is None and game["view"]["phase"] in ("preview", "answer"):  # a preview: unlocked by the clock
            self.key = q["opens_ms"]
            asyncio.get_running_loop().create_task(self.answer(q, game["step"], until_open(game)))
        if q["opens_ms"] == self.key and q["revealed"] and self.reveal_at is None:
            self.reveal_at = now_ms()
        you = (state.get("audience") or {}).get("you") or {}
        if self.key is not None and you.get("key") == self.key and you.get("result") and self.result_at is None:
            self.result_at = now_ms()

    async def answer(self, q: dict[str, Any], step: int, wait: float = 0.0) -> None:
        delay = self.rng.uniform(0, 1.0)
        await asyncio.sleep(wait + delay)
        action = {"answer": self.rng.randint(0, 2000)} if q["kind"] == "numeric" else {
            "choice": self.rng.randrange(len(q["options"]))}
        self.sent = now_ms()
        try:
            answer = await self.client.call("audience", {"action": action, "step": step,
                                                         "ms": round(delay * 1000) + 150})
        except Exception as error:  # noqa: BLE001 - a timeout, a socket closed: not accepted
            self.refusal = type(error).__name__
            return
        self.acked = now_ms()
        self.accepted = bool(answer.get("ok"))
        if not self.accepted:
            self.refusal = (answer.get("error") or {}).get("code", "?")


async def big_room(job: dict[str, Any], ready: Any, go: Any, answered: Any, close: Any,
                   closed_at: Any) -> dict[str, Any]:
    """This worker's share of the audience (and, in worker 0, the TV and the three players)."""
    rng = random.Random(job["seed"])
    routed = f"{job['url']}?room={job['code']}"  # as the pages open their sockets (docs/scaling.md)
    spectators = [Spectator(Client(routed, "/play"), random.Random(rng.random())) for _ in range(job["n"])]
    lead = job["lead"]
    tv = Client(routed, "/tv") if lead else None
    players = [Client(routed, "/play") for _ in range(3)] if lead else []
    clients = [s.client for s in spectators] + players + ([tv] if tv else [])
    await connect_all(players + ([tv] if tv else []))  # a spectator connects as it joins, below
    if tv is not None:
        answer = await tv.call("watch", {"code": job["code"], "host_token": job["host_token"]})
        assert answer["ok"], answer
        for i, player in enumerate(players):
            assert (await player.call("join", {"code": job["code"], "name": f"Player {i}"}))["ok"]
    retries = [0]  # joins answered storage_busy, relayed hellos answered room_moving: asked again

    async def join(i: int, s: Spectator) -> None:
        # as a phone: open the socket and join at once (thousands of sockets connected and idle for minutes before
        # their turn only measured the room's worker answering their pings)
        await s.client.connect()
        answer = await setup_call(s.client, "join", {"code": job["code"], "name": f"A{job['worker']}-{i}",
                                                     "role": "spectator"}, retries)
        assert answer["ok"], answer
        if job.get("spread") and answer.get("spread"):  # as the phone page: reconnect with its own ?audience=PEER,
            await s.client.close()  # on a socket that reconnects by itself whenever it is closed, saying hello again
            hello_data = {"code": job["code"], "token": answer["token"]}
            client = Client(f"{routed}&audience=b{job['worker']}x{i}x{rng.randrange(10**9)}", "/play", reconnect=True)
            client.rejoin = lambda client=client: client.call("hello", hello_data, timeout=30)
            client.on_state = s.seen
            s.client = client
            clients.append(client)
            await client.connect()
            for _ in range(120):  # as the page: a busy room's worker answers room_moving, asked again after 0.5 s
                try:
                    hello = await client.call("hello", hello_data, timeout=30)
                except Exception:  # noqa: BLE001 - the socket was closed meanwhile: it reconnects, asked again
                    retries[0] += 1
                    await asyncio.sleep(0.5)
                    continue
                if hello.get("ok") or (hello.get("error") or {}).get("code") not in ("room_moving", "storage_busy"):
                    break
                retries[0] += 1
                await asyncio.sleep(0.5)
            assert hello["ok"], hello

    for first in range(0, len(spectators), 25):  # 25 at a time, as a crowd scanning the QR code would
        await asyncio.gather(*(join(first + i, s) for i, s in enumerate(spectators[first:first + 25])))
    ready.put(len(spectators))
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, go.wait)
    cpu0, wall0 = cpu_seconds(), now_ms()
    if tv is not None:
        for control in ({"control": "select_game", "game": "campaign"},
                        {"control": "settings", "game": "campaign",
                         "settings": {"bots": False, "preview_seconds": 2, "numeric_seconds": 60}},
                        {"control": "start"}):
            answer = await tv.call("control", control)
            assert answer["ok"], answer
    deadline = now_ms() + job["timeout_s"] * 1000
    while now_ms() < deadline and not all(s.acked is not None for s in spectators):
        await asyncio.sleep(0.05)
    answered.put(sum(s.accepted for s in spectators))
    if tv is not None:  # the players answer; the last one's answer closes the question and brings the reveal
        await loop.run_in_executor(None, close.wait)
        for i, player in enumerate(players):
            game = player.state["game"]
            # as the page: a question in its preview is answered once it opens by the player's own clock, whatever
            # the audience did (a CI run had a player's answer refused not_your_turn after every spectator's ack)
            await asyncio.sleep(max(0.0, until_open(game) - (now_ms() - player.times[-1]) / 1000))
            if i == len(players) - 1:
                closed_at.value = now_ms()
            answer = await player.call("action", {"action": {"answer": 100 * (i + 1)}, "step": game["step"]})
            if not answer["ok"]:  # what the player's screen showed, and what the audience was told, to read the cause
                q = game["view"].get("question") or {}
                raise AssertionError(
                    f"player {i}'s answer refused: {answer['error']}; its screen at step {game['step']}, phase "
                    f"{game['view'].get('phase')}, question opens {q.get('opens_ms')} closes {q.get('closes_ms')}, "
                    f"game clock {game['now_ms']} received {round(now_ms() - player.times[-1])} ms ago; the audience's "
                    f"refusals: {[s.refusal for s in spectators if s.refusal is not None]}")
    else:
        await loop.run_in_executor(None, close.wait)
    deadline = now_ms() + job["timeout_s"] * 1000
    while now_ms() < deadline and not all(s.result_at is not None for s in spectators if s.accepted):
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    cpu = cpu_seconds() - cpu0
    wall = (now_ms() - wall0) / 1000
    result = {
        "sent": [s.sent for s in spectators if s.sent is not None],
        "acked": [s.acked for s in spectators if s.acked is not None],
        "accepted": sum(s.accepted for s in spectators),
        "reveal": [s.reveal_at for s in spectators if s.reveal_at is not None],
        "result": [s.result_at for s in spectators if s.result_at is not None],
        "missed_reveal": sum(s.reveal_at is None for s in spectators),
        "missed_result": sum(s.result_at is None for s in spectators if s.accepted),
        "disorder": sum(c.disorder for c in clients), "retries": retries[0],
        "refusals": [s.refusal for s in spectators if s.refusal is not None],
        "cpu": cpu, "wall": wall,
    }
    await asyncio.gather(*(c.close() for c in clients))
    return result


def worker(kind: str, job: dict[str, Any], results: Any, *events: Any) -> None:
    """A load-generator process: runs one job on its own event loop and puts its figures on ``results``."""
    handler = {"party": party_rooms, "big": big_room}[kind]
    try:
        results.put(asyncio.run(handler(job, *events)))
    except BaseException as error:  # reported to the parent, which fails the scenario
        results.put({"error": f"{type(error).__name__}: {error}"})
        raise
