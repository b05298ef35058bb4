"""Socket.IO for the TV (namespace ``/tv``), the shared handler base, and the broadcast of room states.

Handlers are thin: check the payload's shape, call the room service, answer with an acknowledgement
``{"ok": true, ...}`` or ``{"ok": false, "error": {"code", "message", "field"}}``. Every event is answered,
unknown ones included, and no exception escapes a handler.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import current_app, request
from flask_socketio import Namespace

from host.room import RoomError

log = logging.getLogger("throneroom.sockets")

CONTROLS = ("lock", "language", "select_game", "settings", "packs", "start", "pause", "resume", "skip", "end",
            "lobby", "kick", "team")
CONTROL_FIELDS = {"lock": ("locked",), "language": ("language",), "select_game": ("game",),
                  "settings": ("game", "settings"), "packs": ("packs",), "kick": ("seat",),
                  "team": ("seat", "team")}  # only these are logged


def runtime() -> Any:
    """The app's runtime (service, socketio, public URL)."""
    return current_app.extensions["throneroom"]


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

    def __init__(self, namespace: str):
        super().__init__(namespace)
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
        handler = getattr(self, "on_" + event, None) if isinstance(event, str) else None
        if not isinstance(event, str) or event.startswith("_") or event in ("connect", "disconnect"):
            handler = None

        def guarded(payload: Any) -> Any:
            if handler is None:
                return refuse(RoomError("unknown_event", f"unknown event {str(event)[:40]!r}"))
            try:
                return handler(payload)
            except RoomError as error:
                return refuse(error)
            except Exception:  # bad input must never break the server: log it and answer
                log.exception("event %s failed", event)
                return refuse(RoomError("internal", "the server could not handle this event"))

        return self.socketio._handle_event(guarded, event, self.namespace, sid, data)

    def on_disconnect(self, reason: Any = None) -> None:
        rt = runtime()
        rt.host_sids.discard(request.sid)
        rt.service.disconnect(request.sid)

    def on_ping(self, data: Any) -> dict[str, Any]:
        """Clock sync: echo the client's time with the server's monotonic ms."""
        data = payload_dict(data, "t")
        if not isinstance(data["t"], (int, float)) or isinstance(data["t"], bool):
            raise RoomError("invalid", "t must be a number", "t")
        service = runtime().service
        found = service.where(request.sid)
        room = service.rooms.get(found[0]) if found else None
        return ok(t=data["t"], server_ms=service.clock.monotonic_ms(),
                  game_ms=None if room is None else service.game_now(room),
                  running=room is not None and room.phase == "playing" and not room.paused)


class TvNamespace(SafeNamespace):
    """The TV: watch a room (anyone) and control it (with the host token)."""

    def on_watch(self, data: Any) -> dict[str, Any]:
        """``{code, host_token?}``: follow a room; with the right token, become its host."""
        data = payload_dict(data, "code")
        rt = runtime()
        rt.host_sids.discard(request.sid)  # host rights belong to one room: watching again starts over
        room = rt.service.room(data["code"])
        token = data.get("host_token")
        as_host = token is not None and rt.service.is_host(room, token)
        if token is not None and not as_host:
            raise RoomError("not_host", "this is not the room's host token", "host_token")
        if as_host:
            rt.host_sids.add(request.sid)
        rt.service.connect(room, request.sid, None)
        return ok(state=rt.service.view(room, None, as_host))

    def on_control(self, data: Any) -> dict[str, Any]:
        """``{control, ...}``: a host control; see docs/protocol.md."""
        data = payload_dict(data, "control")
        rt = runtime()
        code = self._room_code()
        if request.sid not in rt.host_sids:
            raise RoomError("not_host", "only the host's screen may do this")
        control = data["control"]
        if control not in CONTROLS:
            raise RoomError("invalid", f"control must be one of {', '.join(CONTROLS)}", "control")
        room = rt.service.room(code)
        if control == "skip":
            rt.service.skip(room)
        else:
            args = {k: data[k] for k in CONTROL_FIELDS.get(control, ()) if k in data}
            rt.service.host_event(room, control, args)
        return ok()

    def _room_code(self) -> str:
        found = runtime().service.where(request.sid)
        if found is None:
            raise RoomError("not_watching", "watch a room first")
        return found[0]


def install_broadcast(rt: Any) -> None:
    """Send every audience of a room its own view whenever the room changes."""
    service = rt.service
    socketio = rt.socketio

    def notify(code: str) -> None:
        room = service.rooms.get(code)
        if room is None:
            return
        cache: dict[Any, dict[str, Any]] = {}
        for sid, seat_id in list(service.connections.get(code, {}).items()):
            as_host = seat_id is None and sid in rt.host_sids
            key = (seat_id, as_host)
            if key not in cache:
                cache[key] = service.view(room, seat_id, as_host)
            namespace = "/tv" if seat_id is None else "/play"
            socketio.emit("state", cache[key], to=sid, namespace=namespace)

    def on_kick(code: str, seat_id: int) -> None:
        for sid, seat in list(service.connections.get(code, {}).items()):
            if seat == seat_id:
                socketio.emit("kicked", {"code": code}, to=sid, namespace="/play")
                service.disconnect(sid)

    def probe(sid: str) -> None:
        """Measure the round trip to one phone: the server times its own message and the phone's ack."""
        sent = service.clock.monotonic_ms()

        def answered(*_: Any) -> None:
            service.record_rtt(sid, service.clock.monotonic_ms() - sent)

        socketio.emit("sync", {"server_ms": sent}, to=sid, namespace="/play", callback=answered)

    def probe_all() -> None:
        for sid, (_, seat_id) in list(service.sids.items()):
            if seat_id is not None:
                probe(sid)

    service.notify = notify
    service.on_kick = on_kick
    rt.probe = probe
    rt.probe_all = probe_all
