"""Audience phones on any worker (docs/scaling.md): a big room's spectators spread over all workers, while the room
itself lives on the one worker that holds its lease (its *owner*).

A spectator's phone, once seated, reconnects with ``?room=CODE&audience=PEER``: HAProxy spreads those connections over
the workers by the phone's own random ``PEER``. A worker that gets such a phone for a room another live worker holds
*relays* it instead of taking the room:

- the phone's ``hello``, answers and leaving go to the owner as entries of the room's Redis stream ``tr:room:CODE``
  (``XADD``, trimmed), which the owner reads with one blocking ``XREAD`` over all its rooms' streams; the owner times
  and scores an answer as its own (the relaying worker measures the phone's round trip and sends it along);
- the owner answers a request, and sends the states of the phones a worker relays, on that worker's Redis channel
  ``tr:worker:ID``: one message per broadcast and worker, carrying the spectators' shared state once and each phone's
  own part (host/sockets.py ``Spliced``), which the relaying worker splices and sends to its local sockets. A message
  through Flask-SocketIO's own queue would cost one Redis message per phone, and a reveal to 5,000 phones as many.
  Requests read together are answered together: one message of replies per worker and, for the answers among them,
  one message with the answering phones' new own parts ("Sent") and their shared state encoded once;
- single messages to one relayed phone (kicked, a claim's answer) go through Flask-SocketIO's Redis message queue,
  which delivers to whichever worker holds the socket;
- a worker that takes a room announces it on ``tr:owners``: the workers relaying that room's phones close their
  sockets, which reconnect and say hello to the new owner. A relayed hello the owner does not answer in
  ``REPLY_TIMEOUT_S`` (an answer: ``ANSWER_TIMEOUT_S``) is answered ``room_moving`` (the page asks again); if no live
  worker holds the room any more (its owner died), the phone's socket is closed too: at its next hello the relaying
  worker takes the room itself.

While Redis does not answer (docs/scaling.md, "When PostgreSQL or Redis stops"), a relaying worker answers its phones'
requests ``relay_down`` at once (the phone page asks again), and the waiting ones too once its listener loses Redis;
an owning worker whose stream reads fail holds still each of its rooms that has phones relayed from elsewhere
(host/clocks.py ``hold``): its question stays open, with the time it had, until their answers can reach it again.

Everything here runs in Socket.IO background tasks (``start_background_task``); with eventlet the worker's standard
sockets are cooperative (host/cli.py ``green_sockets``), so a blocking Redis read waits without holding the others up.
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any

from host.connections import RoundTrips
from host.outage import Outage

log = logging.getLogger("throneroom.relay")

STREAM_MAXLEN = 20_000  # entries a room's request stream keeps (approximately): far more than one reveal's answers
STREAM_TTL_S = 3600  # a room's stream is deleted an hour after its last request
MAX_REQUEST_BYTES = 2048  # a relayed request's JSON: an answer is a few dozen bytes (so a stream holds 40 MB at most)
REPLY_TIMEOUT_S = 4.0  # a relayed hello the owner does not answer in this time: the phone asks again or reconnects
ANSWER_TIMEOUT_S = 12.0  # the same for an answer: a live owner working through a crowd's answers still takes it
READ_BLOCK_MS = 200  # how long the owner's XREAD waits for requests
REPLY_EVERY = 50  # relayed requests handled between two messages of replies (and "Sent" states) to their workers
OWNERS = "tr:owners"
REDIS_CONNECTIONS = 50  # a worker's connections to Redis for the relay; a task finding none free waits for one
REDIS_WAIT_S = 5.0  # at most this long (then its request is answered room_moving, as for a Redis gone)
REDIS_CONNECT_S = 2.0  # a new connection to Redis waits at most this (a Redis out of reach answers relay_down)


def relay_down() -> dict[str, Any]:
    """The answer to a relayed phone's request while Redis does not answer: the phone page asks again."""
    return {"ok": False, "error": {"code": "relay_down", "field": None,
                                   "message": "this server cannot reach the room's own server just now: "
                                              "trying again"}}


def stream_key(code: str) -> str:
    return f"tr:room:{code}"


def inbox_key(worker_id: str) -> str:
    return f"tr:worker:{worker_id}"


class Relay(Outage):
    """One worker's part of the audience across workers: relaying its phones of rooms held elsewhere, and serving the
    relayed phones of the rooms it holds."""

    def __init__(self, runtime: Any, redis_url: str, worker_id: str):
        import redis

        self.rt = runtime
        self.worker_id = worker_id
        # A blocking pool: thousands of phones saying hello or answering at once each took a connection of redis-py's
        # default pool, which refuses the 101st (MaxConnectionsError): 503 requests failed in the 5,000-phone
        # benchmark. Here a burst waits its turn, cooperatively, for one of REDIS_CONNECTIONS connections.
        pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=REDIS_CONNECTIONS,
                                                     timeout=REDIS_WAIT_S, socket_connect_timeout=REDIS_CONNECT_S)
        self.redis = redis.Redis(connection_pool=pool)
        # relaying side: phones of this worker whose room another worker holds
        self.local: dict[str, tuple[str, int | None]] = {}  # sid -> (code, seat id once the owner said hello)
        self.rtts: dict[str, RoundTrips] = {}  # sid -> round trips measured here
        self.waiting: dict[str, list[Any]] = {}  # request id -> [event, answer]
        self.clocks: dict[str, tuple[int, int, bool]] = {}  # code -> (monotonic ms here, game ms, running)
        # owning side: relayed phones of the rooms this worker holds
        self.remote: dict[str, str] = {}  # sid -> the worker relaying it
        self.read_from: dict[str, str] = {}  # code -> last stream id read
        self.replies: dict[str, dict[str, Any]] = {}  # worker -> request id -> answer, not yet sent
        self.answered: dict[str, set[str]] = {}  # code -> relayed phones that answered, their "Sent" not yet sent
        self.running = False
        Outage.__init__(self, log, "Redis", "relayed phones are answered relay_down until it does")
        self.holding: set[str] = set()  # rooms of this worker held still because their relayed phones cannot reach it
        self.listening = False  # this worker's inbox is subscribed: an owner's reply to a request can reach it

    def start(self) -> None:
        """The two background tasks: the inbox listener and the reader of this worker's rooms' streams."""
        if self.running:
            return
        self.running = True
        self.rt.socketio.start_background_task(self._listen)
        self.rt.socketio.start_background_task(self._read_streams)

    def stop(self) -> None:
        self.running = False

    def _publish(self, channel: str, message: dict[str, Any]) -> None:
        try:
            self.redis.publish(channel, json.dumps(message, separators=(",", ":")))
        except Exception:  # Redis gone: the phones' requests time out and they reconnect
            log.warning("could not publish on %s", channel, exc_info=True)

    # ----- relaying side -----

    def holder_elsewhere(self, code: str) -> bool:
        """Whether another worker holds a live lease on the room (then this one relays its audience phones)."""
        leases = self.rt.service.store.leases
        if leases is None or code in leases.held:
            return False
        from sqlalchemy import text

        with leases.engine.connect() as connection:
            row = connection.execute(text("SELECT holder, expires_ms FROM room_lease WHERE room_code = :c"),
                                     {"c": code}).first()
        return row is not None and row[0] is not None and row[0] != self.worker_id and row[1] >= leases.wall_ms()

    def request(self, code: str, op: str, sid: str, timeout: float = REPLY_TIMEOUT_S, **fields: Any) -> dict[str, Any]:
        """Send a phone's request to the room's owner and wait for its answer (``room_moving`` if none comes in
        ``timeout`` seconds: if no live worker holds the room, the phone's socket is closed then, so that it
        reconnects and finds the room's holder afresh)."""
        ident = secrets.token_hex(8)
        event = self.rt.socketio.server.eio.create_event()
        self.waiting[ident] = [event, None]
        entry = json.dumps({"op": op, "sid": sid, "worker": self.worker_id, "reply": ident, **fields},
                           separators=(",", ":"))
        if len(entry) > MAX_REQUEST_BYTES:
            self.waiting.pop(ident, None)
            return {"ok": False, "error": {"code": "invalid", "field": None, "message": "this request is too large"}}
        if not self.listening:  # Redis is back for writes, but this worker's inbox is not subscribed again yet: the
            # owner's reply (published, not kept) would be lost and the phone kept waiting; it asks again instead
            self.waiting.pop(ident, None)
            return relay_down()
        try:
            self._append(code, entry)
        except Exception:  # noqa: BLE001 - Redis does not answer: say so at once, the phone asks again (not room_moving)
            self.waiting.pop(ident, None)
            (log.debug if self.down else log.warning)(
                "room %s: could not send a phone's %s to its owner: Redis does not answer", code, op)
            self.went_down()
            return relay_down()
        try:
            answered = event.wait(timeout)
        finally:
            answer = self.waiting.pop(ident, [None, None])[1]
        if not answered or answer is None:
            if not self.holder_elsewhere(code):  # its worker died or let it go: reconnect and find it afresh
                self.rt.socketio.start_background_task(self.close, [sid])
            # (else its worker is busy, e.g. a crowd saying hello at once: the phone asks again on this socket)
            return {"ok": False, "error": {"code": "room_moving", "field": None,
                                           "message": "this room is moving to another server: try again in a moment"}}
        return answer

    def hello(self, sid: str, code: str, token: Any) -> dict[str, Any]:
        """A spectator's phone comes back to its seat in a room held elsewhere."""
        self.local[sid] = (code, None)
        answer = self.request(code, "hello", sid, token=token)
        if answer.get("ok"):
            self.local[sid] = (code, answer.get("seat"))
            self.rt.broadcaster.probe(sid)
        else:
            self.local.pop(sid, None)
        return answer

    def answer(self, sid: str, payload: Any) -> dict[str, Any]:
        """A relayed spectator's answer to the open question, with the round trip measured here."""
        code, _seat = self.local[sid]
        samples = self.rtts.get(sid)
        # An answer waits longer than a hello: 2,000 answers in a second kept a busy owner past 4 s, and the phone was
        # told room_moving (its pad came back) for an answer the owner then took and scored.
        return self.request(code, "answer", sid, ANSWER_TIMEOUT_S, payload=payload,
                            rtt=max(samples) if samples else None)

    def left(self, sid: str) -> None:
        """A relayed phone's socket closed: tell the owner (no answer awaited)."""
        found = self.local.pop(sid, None)
        self.rtts.pop(sid, None)
        if found is None:
            return
        try:
            self._append(found[0], json.dumps({"op": "leave", "sid": sid, "worker": self.worker_id}))
        except Exception:
            log.warning("room %s: could not tell its owner a phone left", found[0], exc_info=True)

    def _append(self, code: str, entry: str) -> None:
        """Add a request to the room's stream, bounded in length and in time."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xadd(stream_key(code), {"m": entry}, maxlen=STREAM_MAXLEN, approximate=True)
        pipe.expire(stream_key(code), STREAM_TTL_S)
        pipe.execute()

    def record_rtt(self, sid: str, rtt_ms: float) -> None:
        if sid in self.local and 0 <= rtt_ms < 60_000:
            self.rtts.setdefault(sid, RoundTrips()).add(rtt_ms, self.rt.service.clock.monotonic_ms())

    def game_now(self, code: str) -> tuple[int | None, bool]:
        """The room's game clock as the owner's last message here showed it, run on since (for the phones' clock
        sync): the owner's clock, to within Redis's delivery time."""
        found = self.clocks.get(code)
        if found is None:
            return None, False
        at, game_ms, running = found
        return (game_ms + max(0, self.rt.service.clock.monotonic_ms() - at) if running else game_ms), running

    def close(self, sids: list[str]) -> None:
        """Close these phones' sockets (Engine.IO level: they reconnect by themselves)."""
        self.rt.broadcaster.close_sockets(sids)

    def _listen(self) -> None:
        """This worker's inbox (answers and states from owners) and the owners' announcements."""
        while self.running:
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(inbox_key(self.worker_id), OWNERS)
                self.listening = True
                self.came_back()
                for message in pubsub.listen():
                    if not self.running:
                        break
                    try:
                        self._on_message(json.loads(message["data"]))
                    except Exception:  # one bad message must not stop the listener
                        log.exception("relay message failed")
            except Exception:  # noqa: BLE001 - Redis restarted: subscribe again
                self.listening = False
                (log.debug if self.down else log.warning)("relay listener lost Redis; subscribing again")
                self.went_down()
                for waiting in list(self.waiting.values()):  # their answers will not come: asked again by the phones
                    if waiting[1] is None:
                        waiting[1] = relay_down()
                        waiting[0].set()
                self.rt.socketio.sleep(0.5)

    def _on_message(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "replies":
            for ident, answer in message["answers"].items():
                waiting = self.waiting.get(ident)
                if waiting is not None:
                    waiting[1] = answer
                    waiting[0].set()
        elif op == "states":
            self._deliver(message)
        elif op == "owner":  # a worker took a room: the phones relayed for it say hello again (to it)
            code = message["code"]
            if message["worker"] != self.worker_id or code in self.rt.service.rooms:
                sids = [sid for sid, (c, _) in self.local.items() if c == code]
                for sid in sids:
                    self.local.pop(sid, None)
                if sids:
                    self.close(sids)

    def _deliver(self, message: dict[str, Any]) -> None:
        """An owner's broadcast to the phones relayed here: the shared state once, each phone's own part."""
        from host.sockets import Spliced

        code = message["code"]
        clock = message.get("clock")
        if clock is not None:
            self.clocks[code] = (self.rt.service.clock.monotonic_ms(), clock[0], bool(clock[1]))
        shared = message["shared"]
        for sid, own in message["own"].items():
            if sid in self.local:
                self.rt.socketio.emit("state", Spliced.relayed(shared, own), to=sid, namespace="/play",
                                      ignore_queue=True)
            self.rt.service.yield_now()

    # ----- owning side -----

    def took(self, code: str) -> None:
        """This worker took a room: read its stream from now on, and tell the workers relaying its phones."""
        self.read_from.setdefault(code, self._stream_start())
        self._publish(OWNERS, {"op": "owner", "code": code, "worker": self.worker_id})

    def _stream_start(self) -> str:
        """Where a new owner starts reading a room's stream: two seconds back, so that a request sent while the room
        changed hands is answered (one answered twice is harmless: a hello again, an answer refused as a repeat)."""
        try:
            seconds, micros = self.redis.time()
            return f"{max(0, seconds * 1000 + micros // 1000 - 2000)}-0"
        except Exception:  # noqa: BLE001 - Redis out of reach: from the newest entry on
            return "$"

    def _read_streams(self) -> None:
        """Read the requests of the phones relayed to this worker's rooms, and handle each."""
        while self.running:
            held = self.rt.service.store.leases.held if self.rt.service.store.leases is not None else {}
            for code in [c for c in self.read_from if c not in held]:
                del self.read_from[code]  # no longer ours
            if not self.read_from:
                self.rt.socketio.sleep(READ_BLOCK_MS / 1000)
                continue
            try:
                batches = self.redis.xread({stream_key(c): i for c, i in self.read_from.items()}, count=1000,
                                           block=READ_BLOCK_MS)
            except Exception:  # noqa: BLE001 - Redis does not answer
                (log.debug if self.down else log.warning)(
                    "could not read the rooms' request streams: Redis does not answer")
                self.went_down()
                self._hold_relayed()
                self.rt.socketio.sleep(0.5)
                continue
            if self.holding:  # Redis answers again: the rooms held for their relayed phones go on
                self.came_back()
                for code in sorted(self.holding):
                    self.rt.service.clocks.release(code, "relay")
                self.holding.clear()
            handled = 0
            for stream, entries in batches or []:
                code = (stream.decode() if isinstance(stream, bytes) else stream).removeprefix("tr:room:")
                for entry_id, fields in entries:
                    if code in self.read_from:
                        self.read_from[code] = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                    try:
                        self._handle(code, json.loads(fields[b"m"] if b"m" in fields else fields["m"]))
                    except Exception:
                        log.exception("room %s: a relayed request failed", code)
                    handled += 1
                    if handled % REPLY_EVERY == 0:
                        self._reply()
                    self.rt.service.yield_now()
            self._reply()

    def _hold_relayed(self) -> None:
        """Redis does not answer: hold still every room of this worker with phones relayed from elsewhere (their
        answers cannot reach it); host/clocks.py ``hold``."""
        service = self.rt.service
        codes = set()
        for sid in list(self.remote):
            found = service.connections.where(sid)
            if found is not None and found[0] in service.rooms:
                codes.add(found[0])
        for code in sorted(codes - self.holding):
            service.clocks.hold(code, "relay")
        self.holding |= codes

    def _handle(self, code: str, entry: dict[str, Any]) -> None:
        from host.room import RoomError

        service = self.rt.service
        op, sid, worker = entry.get("op"), entry.get("sid"), entry.get("worker")
        if not isinstance(sid, str) or not isinstance(worker, str):
            return
        if op == "leave":
            if self.remote.pop(sid, None) is not None:
                service.connections.disconnect(sid)
            return
        room = service.rooms.get(code)
        if room is None:
            return  # not ours (any more): the relaying worker times out and its phone reconnects
        try:
            if op == "hello":
                seat_id = service.seat_by_token(room, entry.get("token"))
                if room.seats[seat_id].role != "spectator":
                    raise RoomError("use_room_route", "a player's phone connects to its room's own server")
                self.remote[sid] = worker
                service.connections.connect(room, sid, seat_id)
                answer = {"ok": True, "seat": seat_id, "spread": True, "state": service.view(room, seat_id)}
            elif op == "answer":
                found = service.connections.where(sid)
                if found is None or found[0] != code or sid not in self.remote:
                    raise RoomError("not_joined", "join the room first")
                rtt = entry.get("rtt")
                if isinstance(rtt, int) and 0 <= rtt < 60_000:
                    service.connections.relayed_rtt(sid, rtt)
                assert found[1] is not None
                answer = {"ok": True, **service.audience_answer(room, found[1], entry.get("payload"), sid)}
                self.answered.setdefault(code, set()).add(sid)  # "Sent": its own part, with the replies
            else:
                raise RoomError("unknown_event", f"unknown relayed request {str(op)[:20]!r}")
        except RoomError as error:
            answer = {"ok": False, "error": error.to_json()}
        reply = entry.get("reply")
        if isinstance(reply, str):
            self.replies.setdefault(worker, {})[reply] = answer

    def _reply(self) -> None:
        """Send the replies of the requests handled since the last time, one message per worker, and the new states
        of the phones that answered: their own parts, the shared state encoded once per room."""
        from host.sockets import spectator_state

        service = self.rt.service
        answered, self.answered = self.answered, {}
        for code, sids in answered.items():
            room = service.rooms.get(code)
            if room is None:
                continue
            try:
                states = {}
                for sid in sids:
                    found = service.connections.where(sid)
                    if found is not None and found[0] == code and found[1] in room.seats:
                        states[sid] = spectator_state(service, room, found[1])
                self.send_states(code, states)
            except Exception:  # the replies below must go out whatever happened to one room's states
                log.exception("room %s: the states of its relayed answers failed", code)
        replies, self.replies = self.replies, {}
        for worker, answers in replies.items():
            self._publish(inbox_key(worker), {"op": "replies", "answers": answers})

    def send_states(self, code: str, states: dict[str, Any]) -> None:
        """Send states to relayed phones, one message per relaying worker: ``states`` maps sid -> a ``Spliced``
        state, all of one public view (the message carries the shared part once: the last one's, whose clock is the
        newest, and each phone's own part)."""
        room = self.rt.service.rooms.get(code)
        clock = None
        if room is not None:
            clock = [self.rt.service.clocks.game_now(room),
                     room.phase == "playing" and not room.paused and code not in self.rt.service.clocks.held]
        batches: dict[str, dict[str, str]] = {}
        shared = ""
        for sid, state in states.items():
            worker = self.remote.get(sid)
            if worker is not None:
                batches.setdefault(worker, {})[sid] = state.own_json()
                shared = state.shared_json
        for worker, own in batches.items():
            self._publish(inbox_key(worker), {"op": "states", "code": code, "shared": shared, "own": own,
                                              "clock": clock})

    def forget(self, sid: str) -> None:
        self.remote.pop(sid, None)
