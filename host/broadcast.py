"""What the server sends the sockets by itself: every socket of a room its own view whenever the room changes, round
trip probes, and the messages that go to one phone (kicked, a claim's or a house's answer). ``Broadcaster`` is the
room service's transport: host/app.py wires its methods as the service's ``notify``, ``on_kick``, ``tell_phone`` and
``on_moved``, and the app's probe task calls ``probe_all``.

A broadcast is built once per audience and room: the TV's state once for all screens, the public view once for all
spectators (encoded once, each spectator's own part spliced in: host/sockets.py ``Spliced``), and a phone that would
show nothing new gets no message: a spectator's, or a player's whose state, clock and version aside, is the one it
was last sent (another player's answer, which a Short Campaign or Quiz phone does not show). The TV is sent every
change.
Under eventlet a big room's changes are coalesced (``notify``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from engineio import packet as eio_packet

from host.sockets import Spliced, public_parts, shared_json

log = logging.getLogger("throneroom.sockets")

# Round trips. Every phone's Engine.IO heartbeat (a PING from the server every ``ping_interval``, 5 s, answered with a
# PONG by the socket.io client itself) is timed as its round trip (``time_heartbeat``): the relay pays that heartbeat
# too, so a phone is measured without a message of ours. Probes (probe_all, a pass every PROBE_EVERY_MS of
# host/app.py, 0.5 s) only fill the gaps: a player's phone at every pass until it has WARM_SAMPLES measures (a phone
# that joined a moment before a game started had its honest claims judged against one or two round trips, and
# flagged; its first heartbeat comes 5 s after it connects), and any phone whose newest round trip is older than the
# heartbeat's interval and HEARTBEAT_SLACK_MS (one that never answers pings in time, a test client without Engine.IO)
# at every PLAYER_PROBE_PASSES-th pass (2 s). A player's probe rides on the next state the phone gets (sent with an
# acknowledgement asked for), or is a ``sync`` message of its own once PROBE_WAIT_PASSES passes went by without a
# state to that phone (one pass while it warms up). Probing every player every 2 s on top of the heartbeat was about
# two messages in per action and a fifth of the party benchmark's CPU (docs/decisions.md, "Round trips from the
# heartbeat").
PLAYER_PROBE_PASSES = 4
PROBE_WAIT_PASSES = 3
WARM_SAMPLES = 4
HEARTBEAT_SLACK_MS = 2000
PACE_EVERY = 100  # a big room's broadcast lets the other green threads run after this many sockets (send_states)
COALESCE_FROM = 32  # sockets in a room from which its broadcasts are coalesced (notify)


def unclocked(state: dict[str, Any]) -> dict[str, Any]:
    """A state as its screen shows it: without the room's version and the game clock's reading, which move with every
    change and every second. Two states equal this way draw the same screen."""
    game = state.get("game")
    return {**state, "version": 0, "game": game and {**game, "now_ms": 0}}


class Broadcaster:
    """The broadcast of room states and the server's other messages to the sockets of one app (``rt``: its
    host/app.py ``Runtime``); see the module docstring."""

    def __init__(self, rt: Any):
        self.rt = rt
        self.service = rt.service
        self.socketio = rt.socketio
        coalesce = rt.coalesce_broadcasts
        self.coalesce: bool = coalesce if coalesce is not None else self.socketio.async_mode == "eventlet"
        self.pending: set[str] = set()  # big rooms with a change not yet sent
        self.sending: set[str] = set()  # big rooms whose states a green thread is sending now
        self.shown: dict[str, str] = {}  # room code -> what its spectators' phones last got, clock and version aside
        self.own_sent: dict[str, dict[str, str]] = {}  # room code -> sid -> that spectator's own part last sent
        self.player_sent: dict[str, dict[str, Any]] = {}  # room code -> sid -> a player's state last sent, clock
        # and version aside (``send_states``)
        self.warming: set[str] = set()  # players' phones with fewer than WARM_SAMPLES round trips: probed every pass
        self.due: dict[str, int] = {}  # players' phones whose probe waits for their next state -> the pass at which
        # it is sent as a sync of its own if none came (probe_all, send_states)
        self.passes = 0  # probe passes so far (probe_all)

    # ----- room states -----

    def notify(self, code: str) -> None:
        """Tell a room's audiences that it changed. In a big room under eventlet the sending is left to a green
        thread of its own that runs as soon as the handler yields: changes that arrive together (a thousand
        phones joining) are sent once, with the newest state, instead of once each (O(n) instead of O(n²)
        messages). Smaller rooms are told at once: the few ms the deferral costs would shift fair timing."""
        if not self.coalesce or len(self.service.connections.of_room(code)) < COALESCE_FROM:
            self.send_states(code)  # a party-sized room: at once, from the handler itself, as it always was
            return
        if code in self.pending:
            return
        self.pending.add(code)
        if code not in self.sending:  # else the green thread sending it now sends again once done
            self.socketio.start_background_task(self.send_pending, code)

    def send_pending(self, code: str) -> None:
        """A big room's green thread: send its newest states until no change is left unsent."""
        self.sending.add(code)
        try:
            while code in self.pending:  # one sender per room at a time: a phone never gets an older state after a
                self.pending.discard(code)  # newer; a change from here on has it sent again
                try:
                    self.send_states(code, pace=True)
                except Exception:  # one room's trouble must not silence the others
                    log.exception("room %s: sending its state failed", code)
        finally:
            self.sending.discard(code)

    def foreseen(self, code: str) -> None:
        """The room changed in a way every screen makes by itself at the time it showed (the service's
        ``on_foreseen``: a Short Campaign preview or a Quiz "get ready" that ends on time, ``Game.foreseen``): nothing is
        sent, but each phone's view as its page now draws it is noted as shown, so that the next change sends a phone
        only what it does not show yet (``send_states``)."""
        self.send_states(code, shown_only=True)

    def send_states(self, code: str, pace: bool = False, shown_only: bool = False) -> None:
        """Every socket of the room gets its view. With ``pace`` (a big room's coalesced send), the loop lets the
        other green threads run every ``PACE_EVERY`` sockets: five thousand views in one go held up the ticker long
        enough for the worker to lose its lease on the room (the 5,000-phone benchmark on workers). With
        ``shown_only`` (``foreseen``), the phones' views are noted as shown and nothing is sent."""
        service, socketio, relay = self.service, self.socketio, self.rt.relay
        room = service.rooms.get(code)
        if room is None:
            return
        cache: dict[Any, dict[str, Any]] = {}
        common: dict[Any, Any] = {}  # what all the room's views have in common, built once (RoomService._view)
        spectators_changed = True
        own_before, own_now = self.own_sent.get(code, {}), {}
        player_before, player_now = self.player_sent.get(code, {}), {}
        relayed: dict[str, Any] | None = {} if relay is not None else None
        for i, (sid, seat_id) in enumerate(list(service.connections.of_room(code).items())):
            if pace and i and i % PACE_EVERY == 0:
                socketio.sleep(0)
            as_host = seat_id is None and sid in self.rt.host_sids
            key = (seat_id, as_host)
            seat = room.seats.get(seat_id) if seat_id is not None else None
            if seat is not None and seat.role == "spectator":  # the public view, built and encoded once
                if "spectators" not in cache:
                    shared, encoded, audience = public_parts(service, room)
                    cache["spectators"] = shared
                    seen = shared_json({**unclocked(shared), "spectator_count": 0})
                    spectators_changed = self.shown.get(code) != seen
                    self.shown[code] = seen
                state = Spliced(service.spectator_view(room, seat_id, cache["spectators"]), encoded, audience)
                own = state.own_json()
                own_now[sid] = own
                if shown_only or not spectators_changed and own_before.get(sid) == own:
                    continue  # nothing this phone shows changed (someone joined, say): no message to it
                if relayed is not None and sid in relay.remote:
                    relayed[sid] = state  # a phone on another worker: one message per worker (host/relay.py)
                    continue
                socketio.emit("state", state, to=sid, namespace="/play", ignore_queue=True)
                continue
            if seat_id is None and shown_only:
                continue
            if key not in cache:
                cache[key] = service.view(room, seat_id, as_host, shared=common)
            if seat_id is None:
                socketio.emit("state", cache[key], to=sid, namespace="/tv", ignore_queue=True)
                continue
            seen = player_now[sid] = unclocked(cache[key])
            if shown_only or player_before.get(sid) == seen:
                continue  # nothing this player's phone shows changed (another player answered, say): no message
            if sid in self.due and not pace:  # its round trip is due: timed on this state (a paced send's sockets
                del self.due[sid]  # wait for the rest of their batch, which would count as network time)
                self.timed("state", cache[key], sid)
            else:
                socketio.emit("state", cache[key], to=sid, namespace="/play", ignore_queue=True)
        self.own_sent[code] = own_now
        self.player_sent[code] = player_now
        if shown_only:
            return
        if relayed:
            relay.send_states(code, relayed)
        self.send_remote(room)

    def send_remote(self, room: Any) -> None:
        """The host remote's own view (host/remote.py: the host's requests, the Quiz's answer before its reveal) to
        the phones of the seat holding it, and to no other socket: never a part of any ``state``."""
        sids = self.service.remotes.holder_sids(room)
        if sids:
            view = self.service.remotes.view(room)
            for sid in sids:
                self.tell_phone(sid, "remote", view)

    def forget(self, code: str, sids: list[str]) -> None:
        """The room left this process (it expired, or moved to another worker; the service's ``on_forgotten``): drop
        what is kept for it and its sockets. Without this, each expired room with spectators stayed here for good
        (its spectators' last public view, some kilobytes)."""
        self.shown.pop(code, None)
        self.own_sent.pop(code, None)
        self.player_sent.pop(code, None)
        self.pending.discard(code)  # a green thread about to send it finds nothing to send (``send_pending``)
        self.warming.difference_update(sids)
        for sid in sids:
            self.due.pop(sid, None)

    def left(self, code: str, sid: str) -> None:
        """A socket left its room (the service's ``on_left``): drop what is kept for it."""
        for kept in (self.own_sent.get(code), self.player_sent.get(code)):
            if kept is not None:
                kept.pop(sid, None)
        self.warming.discard(sid)
        self.due.pop(sid, None)

    # ----- round trips -----

    def timer(self, sid: str) -> Any:
        """The acknowledgement callback that times a message sent to one phone now: the server's own clock from the
        send to the phone's ack is the socket's round trip."""
        clock = self.service.clock
        sent = clock.monotonic_ms()

        def answered(*_: Any) -> None:
            self.measured(sid, clock.monotonic_ms() - sent)

        return answered

    def measured(self, sid: str, rtt_ms: float) -> None:
        """A round trip the server measured to one of this worker's phones (an acknowledged probe, a heartbeat)."""
        self.service.connections.record_rtt(sid, rtt_ms)
        if self.rt.relay is not None:  # a phone this worker relays: its round trip goes with its answers
            self.rt.relay.record_rtt(sid, rtt_ms)

    def time_heartbeat(self, sid: str) -> None:
        """Time this phone's Engine.IO heartbeat as its round trip, from now on (the ``/play`` namespace's connect):
        python-engineio notes when it sent its PING (``last_ping``, its own clock) and clears that at the PONG, which
        the socket.io client sends as soon as the PING arrives, before any of the page's own code runs. The socket's
        ``receive`` is wrapped for that, as python-engineio offers no hook for the PONG. A socket without Engine.IO (a
        test client) is left to the probes."""
        server = self.socketio.server
        eio_sid = server.manager.eio_sid_from_sid(sid, "/play")
        socket = server.eio.sockets.get(eio_sid) if eio_sid is not None else None
        if socket is None:
            return
        receive = socket.receive

        def timed(pkt: Any) -> Any:
            pinged = socket.last_ping  # None but between a PING and its PONG
            if pkt.packet_type == eio_packet.PONG and pinged:
                self.measured(sid, (time.time() - pinged) * 1000)
            return receive(pkt)

        socket.receive = timed

    def probe(self, sid: str) -> None:
        """Measure the round trip to one phone with a message of its own: ``sync``, which the phone acknowledges."""
        self.timed("sync", {"server_ms": self.service.clock.monotonic_ms()}, sid)
        self.warm(sid)

    def timed(self, event: str, data: Any, sid: str) -> None:
        """Send one phone of this worker a message it acknowledges, its round trip timed (``timer``), through
        python-socketio's own emit: Flask-SocketIO's runs every acknowledgement's callback in a Flask request context
        of its own, the URL matched again, which a timer does not need: 2.5 % of the server's samples in the party
        benchmark's profile, of the 3.4 % that the acknowledgements took in all."""
        self.socketio.server.emit(event, data, to=sid, namespace="/play", callback=self.timer(sid), ignore_queue=True)

    def warm(self, sid: str) -> None:
        """A player's phone with fewer than WARM_SAMPLES round trips is probed at every pass until it has them."""
        if sid not in self.warming and self.is_player(sid) and \
                len(self.service.connections.rtts.get(sid, ())) < WARM_SAMPLES:
            self.warming.add(sid)

    def probe_all(self) -> None:
        """One probe pass (every PROBE_EVERY_MS, host/app.py): probe the phones whose round trips are due (see the
        constants above), letting the other green threads run every ``PACE_EVERY`` probes (five thousand spectators
        probed in one go held the worker's loop for more than a second). Only every PLAYER_PROBE_PASSES-th pass looks
        at every phone; the others probe just the players' phones still warming up (a look at 7,500 sockets every
        half second cost a crowd's worker a tenth of its time). A player's probe is left to its next state (``due``,
        taken by send_states); one that no state took within PROBE_WAIT_PASSES passes (one while the phone warms up)
        is sent then as a ``sync`` of its own."""
        connections, relay = self.service.connections, self.rt.relay
        self.passes += 1
        sent = 0
        everyone = (self.passes - 1) % PLAYER_PROBE_PASSES == 0  # the first pass looks at everyone
        now = self.service.clock.monotonic_ms()
        stale_ms = int(float(self.socketio.server.eio.ping_interval) * 1000) + HEARTBEAT_SLACK_MS

        def stale(trips: Any) -> bool:  # no round trip yet, or none for longer than the heartbeat brings one
            return not trips or now - trips.at > stale_ms

        def send(sid: str) -> None:
            nonlocal sent
            self.probe(sid)
            sent += 1
            if sent % PACE_EVERY == 0:
                self.socketio.sleep(0)

        for sid in [sid for sid, by in self.due.items() if by <= self.passes]:  # no state went to it meanwhile
            del self.due[sid]
            if sid in connections.sids:
                send(sid)  # a message of its own

        def player(sid: str) -> None:
            warming = len(connections.rtts.get(sid, ())) < WARM_SAMPLES
            self.due.setdefault(sid, self.passes + (1 if warming else PROBE_WAIT_PASSES))
            self.warm(sid)

        for sid in list(self.warming):
            if sid not in connections.sids or len(connections.rtts.get(sid, ())) >= WARM_SAMPLES or \
                    not self.is_player(sid):
                self.warming.discard(sid)
            elif not everyone:  # (else probed below with everyone)
                player(sid)
        if not everyone:
            return
        for sid, (code, seat_id) in list(connections.sids.items()):
            trips = connections.rtts.get(sid)
            if seat_id is None or not self.local(sid) or len(trips or ()) >= WARM_SAMPLES and not stale(trips):
                continue  # a TV, a relayed phone, or a phone its heartbeat measures
            room = self.service.rooms.get(code)
            seat = room.seats.get(seat_id) if room is not None else None
            if seat is not None and seat.role != "spectator":
                player(sid)
            elif seat is None or stale(trips):  # a spectator: one round trip will do till the heartbeat's come
                send(sid)
        if relay is not None:  # relayed phones are all spectators
            for sid in list(relay.local):
                if stale(relay.rtts.get(sid)):
                    send(sid)

    def is_player(self, sid: str) -> bool:
        """Whether a socket is a phone of this worker seated as a player (not a TV, not a spectator)."""
        code, seat_id = self.service.connections.sids.get(sid, (None, None))
        room = self.service.rooms.get(code) if seat_id is not None else None
        seat = room.seats.get(seat_id) if room is not None else None
        return seat is not None and seat.role != "spectator" and self.local(sid)

    # ----- single phones and closing -----

    def local(self, sid: str) -> bool:
        """Whether a socket is this worker's own (else a phone relayed by another worker: host/relay.py)."""
        return self.rt.relay is None or sid not in self.rt.relay.remote

    def tell_phone(self, sid: str, event: str, data: dict[str, Any]) -> None:
        """One message to one phone (a claim's answer, a house request's): a relayed phone gets it through
        Flask-SocketIO's message queue."""
        self.socketio.emit(event, data, to=sid, namespace="/play", ignore_queue=self.local(sid))

    def kick(self, code: str, seat_id: int) -> None:
        """The host removed a seat: each of its phones is told ``kicked`` and disconnected from the room."""
        for sid, seat in list(self.service.connections.of_room(code).items()):
            if seat == seat_id:  # a relayed phone gets it through Flask-SocketIO's message queue
                self.socketio.emit("kicked", {"code": code}, to=sid, namespace="/play", ignore_queue=self.local(sid))
                self.service.connections.disconnect(sid)

    def moved(self, code: str, sids: list[str]) -> None:
        """The room left this worker (handed over, or taken by another): close its sockets at the Engine.IO level, as a
        stop does, so that the pages reconnect by themselves, through HAProxy, to the worker that now holds it."""
        if self.rt.relay is not None:
            for sid in sids:
                self.rt.relay.forget(sid)  # relayed phones: told by the new holder's announcement (host/relay.py)
        self.close_sockets(sids)

    def close_sockets(self, sids: list[str]) -> None:
        """Close these sockets of this worker at the Engine.IO level: their pages reconnect by themselves."""
        server = self.socketio.server
        eio = server.eio
        for sid in sids:
            self.rt.host_sids.discard(sid)
            for namespace in ("/tv", "/play"):
                eio_sid = server.manager.eio_sid_from_sid(sid, namespace)
                socket = eio.sockets.get(eio_sid) if eio_sid else None
                if socket is not None:
                    try:
                        socket.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)
                    except Exception:  # one broken socket must not keep the others open
                        log.warning("could not close socket %s", sid, exc_info=True)
