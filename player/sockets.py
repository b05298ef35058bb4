"""Socket.IO for the phones (namespace ``/play``): join, come back with a seat token, act in the game."""

from __future__ import annotations

from typing import Any

from flask import request

from host.room import Room, RoomError, clean_name, normalise_code
from host.sockets import SafeNamespace, apply_control, ok, payload_dict, spectator_state


class PlayerNamespace(SafeNamespace):
    """A phone: a player or a spectator of one room."""

    def on_connect(self, _auth: Any = None) -> None:
        """A phone's socket: its round trip is measured by its Engine.IO heartbeat from now on (host/broadcast.py)."""
        self.rt.broadcaster.time_heartbeat(request.sid)

    def on_hello(self, data: Any) -> dict[str, Any]:
        """``{code, token}``: come back to one's seat after a reload or a lost connection."""
        data = payload_dict(data, "code", "token")
        rt = self.rt
        if rt.relay is not None and request.args.get("audience"):  # a spectator's phone spread over the workers
            code = normalise_code(data["code"])
            if rt.relay.holder_elsewhere(code):
                self.check_route(code)  # the room stays where it is
                return rt.relay.hello(request.sid, code, data["token"])
        room = self.room_of(data["code"])
        seat_id = rt.service.seat_by_token(room, data["token"])
        return ok(seat=seat_id, state=self._attach(room, seat_id), **self._spread(room, seat_id))

    def on_join(self, data: Any) -> dict[str, Any]:
        """``{code, name, role, language?}``: take a new seat; the answer carries the seat token."""
        data = payload_dict(data, "code", "name")
        rt, room = self.rt, self._newcomer(data)
        seat_id, token = rt.service.join(room, data["name"], data.get("role", "player"), data.get("language"))
        return ok(seat=seat_id, token=token, state=self._attach(room, seat_id), **self._spread(room, seat_id))

    def _spread(self, room: Room, seat_id: int) -> dict[str, Any]:
        """``spread: true`` tells a spectator's phone behind HAProxy to reconnect with its own ``?audience=PEER``, so
        that a big room's audience spreads over every worker (docs/scaling.md). A spectator holding the host remote,
        and any while a hand-over code waits (it may be the one about to say it), stays on the room's own worker,
        where the remote's events are taken (docs/remote.md)."""
        service = self.rt.service
        spread = self.rt.relay is not None and room.seats[seat_id].role == "spectator" and \
            room.remote_seat != seat_id and room.code not in service.remotes.pending
        return {"spread": True} if spread else {}

    def on_claim(self, data: Any) -> dict[str, Any]:
        """``{code, name}``: "that's me": this phone is the person of the seat with this name, whose phone is gone;
        the host's TV asks to confirm, and the answer comes as ``claimed`` (with the seat's new token) or
        ``claim_refused``."""
        data = payload_dict(data, "code", "name")
        rt, room = self.rt, self._newcomer(data)
        return ok(**rt.service.claims.ask(room, data["name"], request.sid))

    def on_sit_out(self, data: Any) -> dict[str, Any]:
        """``{out}``: watch the next game (true) or play it (false); a spectator asking to play becomes a player."""
        data = payload_dict(data, "out")
        room, seat_id = self._require_seat()
        self.rt.limits.hit("seat", request.remote_addr, room.code, seat_id)  # logged and broadcast: within a rate
        service = self.rt.service  # a spectator asking to play in a full room may take a seat left unused
        service.making_room(room, lambda: service.submit(room, "sit_out", {"seat": seat_id, "out": data["out"]}))
        return ok()

    def on_rename(self, data: Any) -> dict[str, Any]:
        """``{name}``: change one's display name."""
        data = payload_dict(data, "name")
        room, seat_id = self._require_seat()
        if room.seats[seat_id].name == clean_name(data["name"]):
            return ok()  # the name it has: nothing to log
        self.rt.limits.hit("rename", request.remote_addr, room.code, seat_id)  # logged and broadcast: within a rate
        self.rt.service.submit(room, "rename", {"seat": seat_id, "name": data["name"]})
        return ok()

    def on_language(self, data: Any) -> dict[str, Any]:
        """``{language}``: this phone's own language."""
        data = payload_dict(data, "language")
        room, seat_id = self._require_seat()
        self.rt.limits.hit("seat", request.remote_addr, room.code, seat_id)
        self.rt.service.submit(room, "seat_language", {"seat": seat_id, "language": data["language"]})
        return ok()

    def on_team(self, data: Any) -> dict[str, Any]:
        """``{team}``: pick one's team for a game played in teams (null: no preference). In a running game a team
        with people is only asked: the answer is ``{request}`` and its members let the latecomer in (host/houses.py);
        a pick never carries who agreed (``by``)."""
        data = payload_dict(data, "team")
        room, seat_id = self._require_seat()
        self.rt.limits.hit("seat", request.remote_addr, room.code, seat_id)
        return ok(**self.rt.service.houses.ask(room, seat_id, data["team"], request.sid))

    def on_house_answer(self, data: Any) -> dict[str, Any]:
        """``{request, accept}``: a member's answer to a latecomer asking to join the house (CROWN-D2)."""
        data = payload_dict(data, "request", "accept")
        room, seat_id = self._require_seat()
        self.rt.service.houses.answer(room, seat_id, data["request"], data["accept"])
        return ok()

    def light_action(self, sid: str, data: Any) -> dict[str, Any]:
        """``{action, step?}``: a move in the running game (a light event: no request context)."""
        room, seat_id = self._require_seat(sid)
        self.rt.service.act(room, seat_id, data, sid)
        return ok(version=room.version)

    def light_audience(self, sid: str, data: Any) -> dict[str, Any]:
        """``{action, step?, ms?}``: a spectator's answer to the open question (audience play-along; a light event,
        a crowd's answers arrive in the same second)."""
        rt = self.rt
        relay = rt.relay
        if relay is not None and sid in relay.local:  # timed and scored by the room's owner
            return relay.answer(sid, data)
        room, seat_id = self._require_seat(sid)
        answer = rt.service.audience_answer(room, seat_id, data, sid)
        # The answer changes only this phone's own part: it alone gets its new state ("Sent" even if the ack is
        # lost), without a broadcast to a room of a thousand spectators.
        state = spectator_state(rt.service, room, seat_id) if room.seats[seat_id].role == "spectator" \
            else rt.service.view(room, seat_id)  # (a latecomer player playing along: its own view)
        rt.socketio.emit("state", state, to=sid, namespace="/play", ignore_queue=True)
        return ok(**answer)

    def on_remote_claim(self, data: Any) -> dict[str, Any]:
        """``{handover}``: the hand-over code the host's TV showed (its QR code's ``#remote=``): this seat's phones
        hold the host remote from now on (host/remote.py, docs/remote.md). The remote's view follows as ``remote``."""
        data = payload_dict(data, "handover")
        room, seat_id = self._require_seat()
        self.rt.limits.hit("seat", request.remote_addr, room.code, seat_id)  # logged and broadcast: within a rate
        self.rt.service.remotes.claim(room, seat_id, data["handover"])
        return ok()

    def on_remote_control(self, data: Any) -> dict[str, Any]:
        """``{control, ...}``: a host control from the phone holding the host remote, the TV's ``control`` with the
        same fields and checks; refused ``not_host`` from any other phone. Logged with ``remote``: the seat."""
        data = payload_dict(data, "control")
        room, seat_id = self._require_seat()
        rt = self.rt
        rt.service.remotes.require(room, seat_id)
        apply_control(rt, room, data, request.remote_addr, by=seat_id)
        return ok()

    def on_remote_release(self, data: Any) -> dict[str, Any]:
        """``{}``: the phone holding the host remote gives it back to the TV."""
        payload_dict(data)
        room, seat_id = self._require_seat()
        self.rt.service.remotes.release(room, seat_id)
        return ok()

    def _newcomer(self, data: dict[str, Any]) -> Room:
        """The room a phone without a seat asks to be seated in (``join``, ``claim``), counted against its address's
        join rate and the room's (docs/security.md)."""
        room = self.room_of(data["code"])
        if self._seat() is not None:
            raise RoomError("already_seated", "this connection already has a seat")
        self.rt.limits.hit("join", request.remote_addr, room.code)
        return room

    def _attach(self, room: Room, seat_id: int) -> dict[str, Any]:
        rt = self.rt
        rt.service.connections.connect(room, request.sid, seat_id)
        rt.broadcaster.probe(request.sid)  # a first round trip at once, then every two seconds
        return rt.service.view(room, seat_id)

    def _seat(self, sid: str | None = None) -> tuple[str, int] | None:
        """The room and seat of this socket (``sid``: given by a light event; else the request's)."""
        found = self.rt.service.connections.where(sid or request.sid)
        if found is None or found[1] is None:
            return None
        return found[0], found[1]

    def _require_seat(self, sid: str | None = None) -> tuple[Room, int]:
        sid = sid or request.sid
        relay = self.rt.relay
        if relay is not None and sid in relay.local:  # a relayed spectator only answers (host/relay.py)
            raise RoomError("use_room_route", "reconnect to the room's own server for this")
        found = self._seat(sid)
        if found is None:
            raise RoomError("not_joined", "join the room first")
        code, seat_id = found
        room = self.rt.service.room(code)
        if room.seats[seat_id].kicked:
            raise RoomError("kicked", "the host removed you from this room")
        return room, seat_id
