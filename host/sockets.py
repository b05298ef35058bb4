"""Socket.IO for the TV (namespace ``/tv``), the shared handler base, and the encoding of room states on the wire
(the broadcast that sends them: host/broadcast.py).

Handlers are thin: check the payload's shape, call the room service, answer with an acknowledgement
``{"ok": true, ...}`` or ``{"ok": false, "error": {"code", "message", "field"}}``. Every event is answered,
unknown ones included, and no exception escapes a handler.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from typing import Any

import orjson
from flask import request
from flask_socketio import Namespace
from socketio.packet import Packet
from sqlalchemy.exc import TimeoutError as PoolTimeout

from host.room import RoomError, check_text, normalise_code

log = logging.getLogger("throneroom.sockets")

CONTROLS = ("lock", "language", "select_game", "settings", "packs", "start", "pause", "resume", "skip", "next", "end",
            "lobby", "kick", "team", "lineup", "seat_grace", "claim", "name_filter", "extra_time")
CONTROL_FIELDS = {"lock": ("locked",), "language": ("language",), "select_game": ("game",),
                  "settings": ("game", "settings"), "packs": ("packs",), "kick": ("seat",),
                  "team": ("seat", "team"), "lineup": ("seat", "play", "instead"),
                  "seat_grace": ("seconds",), "name_filter": ("on",),
                  "extra_time": ("seat", "factor")}  # only these are logged

TV_CONTROLS = ("handover", "handover_cancel", "take_back")  # the host remote (host/remote.py): the host's TV alone hands it over

OWN_KEYS = ("me", "audience")  # what differs between two spectators' states


def dumps(value: Any) -> str:
    """Compact JSON text, as every state goes on the wire. orjson encodes a room state several times faster than the
    standard module, which was the largest single cost of an action (the party benchmark's profile, docs/bench.md);
    integer keys become strings as the standard module makes them. What orjson refuses (a string UTF-8 cannot carry,
    an integer beyond 64 bits) is encoded by the standard module, as before."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(value, separators=(",", ":"))


class Spliced(dict):
    """A spectator's state (a plain dict to everyone reading it) whose public part was encoded once for every
    spectator of the room: on the wire it is that JSON with the spectator's own keys appended. Its ``audience`` is
    the room's public audience part with the spectator's ``you`` added last: given ``audience_json`` (that public
    part's JSON, encoded once too), only ``you`` is encoded here. The own part is encoded once (a state is not
    changed once made)."""

    def __init__(self, state: dict[str, Any], shared_json: str, audience_json: str | None = None):
        super().__init__(state)
        self.shared_json = shared_json
        self.audience_json = audience_json
        self._own: str | None = None

    @classmethod
    def relayed(cls, shared_json: str, own_json: str) -> Spliced:
        """A state that another worker encoded (host/relay.py): sent on as it came, its two parts already JSON;
        nothing on the relaying worker reads it as a dict, which stays empty."""
        state = cls({}, shared_json)
        state._own = own_json
        return state

    def own_json(self) -> str:
        """The JSON text of the spectator's own keys."""
        if self._own is None:
            parts = []
            for key in OWN_KEYS:
                if key not in self:
                    continue
                value = self[key]
                if key == "audience" and self.audience_json is not None and self.audience_json != "{}" \
                        and isinstance(value, dict) and next(reversed(value), None) == "you":
                    text = self.audience_json[:-1] + ',"you":' + dumps(value["you"]) + "}"
                else:
                    text = dumps(value)
                parts.append(f'"{key}":{text}')
            self._own = "{" + ",".join(parts) + "}"
        return self._own

    def encoded(self) -> str:
        """The JSON text of the whole state."""
        own = self.own_json()
        return self.shared_json[:-1] + "," + own[1:] if len(own) > 2 else self.shared_json


def audience_json(shared: dict[str, Any]) -> str | None:
    """The JSON of a public view's audience part, which every spectator's state carries with its own ``you`` added
    (``Spliced``); None if there is none."""
    audience = shared.get("audience")
    if not isinstance(audience, dict) or "you" in audience:
        return None
    return dumps(audience)


class WireJson:
    """The JSON of Socket.IO packets: the standard module, except that a ``Spliced`` state reuses its shared part."""

    @staticmethod
    def dumps(data: Any, **kwargs: Any) -> str:
        if type(data) is list and len(data) == 2 and isinstance(data[1], Spliced):
            return "[" + dumps(data[0]) + "," + data[1].encoded() + "]"
        return dumps(data)

    @staticmethod
    def loads(text: str | bytes, **kwargs: Any) -> Any:
        try:
            return orjson.loads(text)
        except ValueError:  # text orjson refuses (a lone surrogate escaped: check_text answers it naming the field)
            return json.loads(text, **kwargs)


class WirePacket(Packet):
    """Socket.IO packets without the search for binary attachments (Throneroom never sends any; the search walked
    every state once per socket) and with ``WireJson``. Binary packets from clients are still decoded as before."""

    uses_binary_events = False
    json = WireJson


def shared_json(state: dict[str, Any]) -> str:
    """The JSON of the part of a state that all spectators share."""
    return dumps({k: v for k, v in state.items() if k not in OWN_KEYS})


NOW_MARK = -7_270_000_000_000_001  # stands for the clock in a kept encoding of a public view (spectator_state)


def public_parts(service: Any, room: Any) -> tuple[dict[str, Any], str, str | None]:
    """The public view as phones get it (host/service.py ``phone_public_view``, kept at most 250 ms per room
    version), its JSON with the clock of now, and its audience part's JSON (``audience_json``): both encoded once per
    kept view, the clock spliced in. Each of 2,500 answers in a second encoded the whole public view again (the
    5,000-phone benchmark's room worker)."""
    shared = service.phone_public_view(room)
    derived = service.public_views[room.code][3]
    if "json" not in derived:
        game = shared.get("game")
        if game is None:
            derived["json"] = (shared_json(shared), None)
        else:  # a quoted key cannot occur inside a JSON string (its quotes are escaped there): one match, the clock's
            head, _, tail = shared_json({**shared, "game": {**game, "now_ms": NOW_MARK}}).partition(
                f'"now_ms":{NOW_MARK}')
            derived["json"] = (head, tail)
        derived["audience"] = audience_json(shared)
    head, tail = derived["json"]
    encoded = head if tail is None else f'{head}"now_ms":{shared["game"]["now_ms"]}{tail}'
    return shared, encoded, derived["audience"]


def spectator_state(service: Any, room: Any, seat_id: int) -> Spliced:
    """One spectator's state for its own socket (its answer's "Sent"), its public part as ``public_parts`` gives it."""
    shared, encoded, audience = public_parts(service, room)
    return Spliced(service.spectator_view(room, seat_id, shared), encoded, audience)


def ok(**extra: Any) -> dict[str, Any]:
    """A positive acknowledgement."""
    return {"ok": True, **extra}


def refuse(error: RoomError) -> dict[str, Any]:
    """A negative acknowledgement."""
    return {"ok": False, "error": error.to_json()}


def payload_dict(data: Any, *required: str) -> dict[str, Any]:
    """The payload as an object holding the required keys, or RoomError naming what is missing."""
    if not isinstance(data, dict):
        raise RoomError("invalid", "payload must be an object")
    for key in required:
        if key not in data:
            raise RoomError("invalid", f"{key} is required", key)
    return data


class SafeNamespace(Namespace):
    """A namespace whose every event gets an acknowledgement and whose errors never escape.

    A client may send events named "connect" or "disconnect" itself; those are refused like any unknown
    event, and only the server's own connect and disconnect reach the handlers.
    """

    # The events pages send most, a move, a clock sync and an audience answer (a crowd's, in the same second), are
    # handled by ``light_<event>(sid, payload)`` without Flask-SocketIO's request context for each (a request object,
    # a URL adapter, a routing match, a session: a twentieth of the party benchmark's server); answered and guarded as
    # any other event.
    LIGHT_EVENTS = ("action", "ping", "audience")

    def __init__(self, namespace: str, rt: Any):
        super().__init__(namespace)
        self.rt = rt  # the app's runtime (host/app.py: service, socketio, broadcaster, relay)
        self.connected_sids: set[str] = set()

    def trigger_event(self, event: str, *args: Any) -> Any:
        sid = args[0]
        data = args[1] if len(args) > 1 else None
        if event == "connect" and sid not in self.connected_sids:
            self.connected_sids.add(sid)
            return super().trigger_event(event, *args)
        if event == "disconnect" and not self.server.manager.is_connected(sid, self.namespace):
            self.connected_sids.discard(sid)  # a real disconnect: python-socketio marked it pending first
            return super().trigger_event(event, *args)
        light = getattr(self, "light_" + event, None) if event in self.LIGHT_EVENTS else None
        if light is not None:
            handler = functools.partial(light, sid)
        elif isinstance(event, str) and not event.startswith("_") and event not in ("connect", "disconnect"):
            handler = getattr(self, "on_" + event, None)
        else:
            handler = None

        def guarded(payload: Any) -> Any:
            if handler is None:
                return refuse(RoomError("unknown_event", f"unknown event {str(event)[:40]!r}"))
            try:
                check_text(payload)  # a lone surrogate anywhere: ``invalid`` naming it, before any handler reads it
                return handler(payload)
            except RoomError as error:
                return refuse(error)
            except PoolTimeout:  # a worker's database connections all in use (docs/scaling.md): "try again"
                log.warning("event %s: no free database connection", event)
                return refuse(RoomError("storage_busy", "the server could not do that just now: try again"))
            except Exception:  # bad input must never break the server: log it and answer
                log.exception("event %s failed", event)
                return refuse(RoomError("internal", "the server could not handle this event"))

        if light is None:
            return self.socketio._handle_event(guarded, event, self.namespace, sid, data)
        if not self.server.get_environ(sid, namespace=self.namespace):
            return "", 400  # a socket Socket.IO has no record of, as Flask-SocketIO answers it
        return guarded(data)

    def room_of(self, raw_code: Any) -> Any:
        """The room a watch, hello or join names. Behind HAProxy (a worker) the connection must have been routed for
        that room (its ``room`` query parameter, docs/scaling.md): a worker never takes a room it was not sent, which
        would move the room away from the worker its code routes to."""
        self.check_route(raw_code)
        return self.rt.service.room(raw_code)

    def check_route(self, raw_code: Any) -> None:
        """RoomError ``wrong_route`` if a worker's connection was opened for another room than ``raw_code``."""
        if self.rt.service.store.leases is not None:
            routed = request.args.get("room", "")
            try:
                same = normalise_code(routed) == normalise_code(raw_code)
            except RoomError:
                same = False
            if not same:
                raise RoomError("wrong_route", "this connection was opened for another room: reconnect with "
                                "?room=CODE", "code")

    def on_disconnect(self, reason: Any = None) -> None:
        rt = self.rt
        if rt.stopping:  # the server closes every socket as it stops (host/app.py shutdown): no room to tell
            return
        rt.host_sids.discard(request.sid)
        if rt.relay is not None and request.sid in rt.relay.local:
            rt.relay.left(request.sid)  # a phone relayed to its room's owner (host/relay.py)
            return
        rt.service.connections.disconnect(request.sid)
        rt.service.claims.left(request.sid)

    def light_ping(self, sid: str, data: Any) -> dict[str, Any]:
        """Clock sync: echo the client's time with the server's monotonic ms (a light event: no request context)."""
        data = payload_dict(data, "t")
        t = data["t"]  # echoed: NaN or Infinity (which Python's json reads) would make the answer invalid JSON
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not (math.isfinite(t) and abs(t) <= 1e15):
            raise RoomError("invalid", "t must be a finite number of milliseconds", "t")
        service = self.rt.service
        relay = self.rt.relay
        if relay is not None and sid in relay.local:  # the owner's clock, as its last message here showed it
            game_ms, running = relay.game_now(relay.local[sid][0])
            return ok(t=data["t"], server_ms=service.clock.monotonic_ms(), game_ms=game_ms, running=running)
        found = service.connections.where(sid)
        room = service.rooms.get(found[0]) if found else None
        return ok(t=data["t"], server_ms=service.clock.monotonic_ms(),
                  game_ms=None if room is None else service.clocks.game_now(room),
                  running=room is not None and room.phase == "playing" and not room.paused)


class TvNamespace(SafeNamespace):
    """The TV: watch a room (anyone) and control it (with the host token)."""

    def on_watch(self, data: Any) -> dict[str, Any]:
        """``{code, host_token?}``: follow a room; with the right token, become its host."""
        data = payload_dict(data, "code")
        rt = self.rt
        rt.host_sids.discard(request.sid)  # host rights belong to one room: watching again starts over
        room = self.room_of(data["code"])
        token = data.get("host_token")
        as_host = token is not None and rt.service.is_host(room, token)
        if token is not None and not as_host:
            raise RoomError("not_host", "this is not the room's host token", "host_token")
        if not as_host:  # anyone may watch, within bounds: a host's own screen always gets in
            watching = [sid for sid, seat in rt.service.connections.of_room(room.code).items()
                        if seat is None and sid not in rt.host_sids and sid != request.sid]
            if len(watching) >= rt.max_watchers:
                raise RoomError("watchers_full", f"the room already has {rt.max_watchers} screens watching it")
            rt.limits.hit("watch", request.remote_addr)
        if as_host:
            rt.host_sids.add(request.sid)
        rt.service.connections.connect(room, request.sid, None)
        return ok(state=rt.service.view(room, None, as_host))

    def on_control(self, data: Any) -> dict[str, Any]:
        """``{control, ...}``: a host control; see docs/protocol.md."""
        data = payload_dict(data, "control")
        rt = self.rt
        code = self._room_code()
        if request.sid not in rt.host_sids:
            raise RoomError("not_host", "only the host's screen may do this")
        control = data["control"]
        if control in TV_CONTROLS:  # the host remote (host/remote.py, docs/remote.md)
            room = rt.service.room(code)
            rt.limits.hit("control", request.remote_addr, room.code)
            if control == "take_back":
                rt.service.remotes.take_back(room)
                return ok()
            if control == "handover_cancel":  # the TV closed its QR code unused: the code works no more
                rt.service.remotes.cancel(room)
                return ok()
            offer = rt.service.remotes.offer(room)
            room.version += 1  # the TV's view says a code waits
            rt.service.notify(room.code)
            url = f"{rt.public_url}/join/{room.code}#remote={offer['handover']}"  # a fragment: never sent to a server
            from host.web import qr_of

            return ok(handover={"url": url, "qr": qr_of.__wrapped__(url).decode(),  # not kept in qr_of's cache
                                "expires_in_ms": offer["expires_in_ms"]})
        apply_control(rt, rt.service.room(code), data, request.remote_addr)
        return ok()

    def _room_code(self) -> str:
        found = self.rt.service.connections.where(request.sid)
        if found is None:
            raise RoomError("not_watching", "watch a room first")
        return found[0]


def apply_control(rt: Any, room: Any, data: dict[str, Any], address: str | None, by: int | None = None) -> None:
    """One host control (``data["control"]`` and its fields, docs/protocol.md §3.3), from the host's TV or (``by``,
    a seat id, logged with it) from the phone holding the host remote (host/remote.py)."""
    control = data["control"]
    if control not in CONTROLS:
        raise RoomError("invalid", f"control must be one of {', '.join(CONTROLS)}", "control")
    rt.limits.hit("control", address, room.code)  # each is logged and broadcast, a start draws questions
    if control == "skip":
        rt.service.skip(room, by)
    elif control == "next":  # a host-paced game waits for it after each reveal
        rt.service.host_next(room, by)
    elif control == "claim":  # the host's answer to a "that's me" (not logged; a yes logs the takeover)
        rt.service.claims.answer(room, data.get("claim"), data.get("accept"))
    else:
        args = {k: data[k] for k in CONTROL_FIELDS.get(control, ()) if k in data}
        rt.service.host_event(room, control, args, by)
