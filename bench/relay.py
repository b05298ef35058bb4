"""The stack's floor (issue [14]): a bare Flask-SocketIO app on eventlet that speaks just enough of Throneroom's
socket protocol (docs/protocol.md) for the party-load generator (bench/phones.py) to play against it.

``python -m bench.relay --port N``. No engine, no database, no validation beyond the JSON shape of a payload. A room
is a list of sockets, a version and a step. Each action bumps the version, is acknowledged ``{"ok": true, "version":
v}`` as Throneroom does, and is forwarded to every socket of its room as a ``state`` message as long as
Throneroom's: the floor (bench/scenarios.py) gives it the mean lengths of a phone's and a TV's states that the load
generator measured on Throneroom in the run it is the floor of (by hand: ``--phone-bytes``, ``--tv-bytes``). The
generator's phones act once per ``game.step`` when their state offers them legal actions, after a random part of
the time to ``game.deadline_ms``: so a step lasts until every player of the room has acted on it, then the next
one opens with a deadline ``--step-ms`` away (the party scenario sets it so that the relay sees about as many
actions a second as Throneroom did).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.server import Server
from host.room import CODE_ALPHABET, CODE_LENGTH

PHONE_BYTES = 5900  # the lengths when the relay is run by hand: a Short Campaign's, measured on 2026-12-06
TV_BYTES = 5800
MAX_MESSAGE_BYTES = 65536
LEGAL = [["choice", 0], ["choice", 1], ["choice", 2], ["choice", 3]]


def now_ms() -> int:
    """The relay's game clock (monotonic, ms)."""
    return int(time.monotonic() * 1000)


def error(code: str, message: str, field_: str | None = None) -> dict[str, Any]:
    """A refusal, in Throneroom's shape."""
    return {"ok": False, "error": {"code": code, "message": message, "field": field_}}


@dataclass
class Room:
    """A room of the relay: who follows it, and counters."""

    code: str
    host_token: str
    version: int = 0
    phase: str = "lobby"
    step: int = 0
    deadline_ms: int = 0
    sockets: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # sid -> (namespace, seat or None)
    seats: dict[str, int] = field(default_factory=dict)  # seat token -> seat
    names: dict[int, str] = field(default_factory=dict)
    acted: set[int] = field(default_factory=set)  # seats that acted on the current step
    last: dict[str, Any] | None = None  # the newest action: {seat, action}


class Relay:
    """The rooms, and the states sent to their sockets."""

    def __init__(self, step_ms: int, phone_bytes: int, tv_bytes: int):
        self.step_ms = step_ms
        self.rooms: dict[str, Room] = {}
        self.where: dict[str, str] = {}  # sid -> room code
        self.epoch = secrets.token_hex(4)
        probe = Room("AAAA", "", phase="playing")
        self.pad = "x" * max(0, phone_bytes - self.size(probe, 1, ""))  # each screen's filler to its length
        self.board = "y" * max(0, tv_bytes - self.size(probe, None, ""))

    def size(self, room: Room, seat: int | None, pad: str) -> int:
        return len(json.dumps(self.state(room, seat, pad, now_ms()), separators=(",", ":")))

    def new_room(self) -> Room:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                room = self.rooms[code] = Room(code, secrets.token_hex(16))
                return room

    def room(self, code: str) -> Room:
        """The room of a code, made on first use (the relay does not check codes)."""
        return self.rooms.get(code) or self.rooms.setdefault(code, Room(code, secrets.token_hex(16)))

    def state(self, room: Room, seat: int | None, pad: str, at: int) -> dict[str, Any]:
        """A snapshot shaped like Throneroom's: the fields the generator reads, and filler to a similar size."""
        game = None
        if room.phase == "playing":
            legal = LEGAL if seat is not None and seat not in room.acted else []
            game = {"id": "relay", "step": room.step, "now_ms": at, "deadline_ms": room.deadline_ms, "you": seat,
                    "view": {"legal": legal, "last": room.last, "acted": sorted(room.acted), "pad": pad}}
        return {"code": room.code, "version": room.version, "epoch": self.epoch, "language": "en", "locked": False,
                "phase": room.phase, "paused": False, "host": False,
                "players": [{"id": s, "name": n, "role": "player"} for s, n in room.names.items()],
                "spectators": [], "spectator_count": 0, "me": None if seat is None else {"id": seat},
                "game": game}

    def state_for(self, room: Room, sid: str) -> dict[str, Any]:
        """The state of one socket: a phone's carries its seat and legal moves; each screen's is filled to its length."""
        namespace, seat = room.sockets.get(sid, ("/play", None))
        return self.state(room, seat, self.board if namespace == "/tv" else self.pad, now_ms())

    def follow(self, room: Room, sid: str, namespace: str, seat: int | None) -> None:
        old = self.where.get(sid)
        if old is not None and old != room.code:
            self.rooms[old].sockets.pop(sid, None)
        self.where[sid] = room.code
        room.sockets[sid] = (namespace, seat)
        room.version += 1

    def players(self, room: Room) -> set[int]:
        return {seat for _, seat in room.sockets.values() if seat is not None}

    def act(self, room: Room, seat: int, action: Any) -> None:
        room.version += 1
        room.last = {"seat": seat, "action": action}
        room.acted.add(seat)
        if self.players(room) <= room.acted:  # every player acted: the next step
            self.next_step(room)

    def next_step(self, room: Room) -> None:
        room.step += 1
        room.acted = set()
        room.deadline_ms = now_ms() + self.step_ms


def create_app(relay: Relay) -> tuple[Any, Any]:
    """The Flask app and its SocketIO, configured as Throneroom's (host/app.py)."""
    from flask import Flask, jsonify, request
    from flask_socketio import SocketIO

    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="eventlet", max_http_buffer_size=MAX_MESSAGE_BYTES,
                        cors_allowed_origins=None, async_handlers=False, ping_interval=5, ping_timeout=10)

    def broadcast(room: Room) -> None:
        for sid, (namespace, _) in list(room.sockets.items()):
            socketio.emit("state", relay.state_for(room, sid), to=sid, namespace=namespace)

    def payload(data: Any, *required: str) -> dict[str, Any] | None:
        if not isinstance(data, dict) or any(key not in data for key in required):
            return None
        return data

    @app.get("/")
    def index() -> Any:
        return "relay"

    @app.post("/api/rooms")
    def create_room() -> Any:
        room = relay.new_room()
        return jsonify({"code": room.code, "host_token": room.host_token}), 201

    def ping(data: Any = None) -> dict[str, Any]:
        got = payload(data, "t")
        if got is None:
            return error("invalid", "t is required", "t")
        return {"ok": True, "t": got["t"], "server_ms": now_ms()}

    def sid() -> str:
        return request.sid  # type: ignore[attr-defined]

    def disconnect(*_: Any) -> None:
        code = relay.where.pop(sid(), None)
        if code is not None and code in relay.rooms:
            room = relay.rooms[code]
            room.sockets.pop(sid(), None)
            room.version += 1
            broadcast(room)

    def enter(room: Room, namespace: str, seat: int | None) -> None:
        relay.follow(room, sid(), namespace, seat)

    for namespace in ("/tv", "/play"):
        socketio.on_event("ping", ping, namespace=namespace)
        socketio.on_event("disconnect", disconnect, namespace=namespace)

    @socketio.on("watch", namespace="/tv")
    def watch(data: Any = None) -> dict[str, Any]:
        got = payload(data, "code")
        if got is None:
            return error("invalid", "code is required", "code")
        room = relay.room(str(got["code"]))
        enter(room, "/tv", None)
        broadcast(room)
        return {"ok": True, "state": relay.state_for(room, sid())}

    @socketio.on("control", namespace="/tv")
    def control(data: Any = None) -> dict[str, Any]:
        got = payload(data, "control")
        code = relay.where.get(sid())
        if got is None:
            return error("invalid", "control is required", "control")
        if code is None:
            return error("not_watching", "watch a room first")
        room = relay.rooms[code]
        if got["control"] == "start":
            room.phase = "playing"
            relay.next_step(room)
        elif got["control"] in ("lobby", "end"):
            room.phase = "lobby"
        room.version += 1
        broadcast(room)
        return {"ok": True}

    @socketio.on("join", namespace="/play")
    def join(data: Any = None) -> dict[str, Any]:
        got = payload(data, "code", "name")
        if got is None:
            return error("invalid", "code and name are required", "code")
        room = relay.room(str(got["code"]))
        seat = len(room.seats) + 1
        token = secrets.token_hex(16)
        room.seats[token] = seat
        room.names[seat] = str(got["name"])
        enter(room, "/play", seat)
        broadcast(room)
        return {"ok": True, "seat": seat, "token": token, "state": relay.state_for(room, sid())}

    @socketio.on("hello", namespace="/play")
    def hello(data: Any = None) -> dict[str, Any]:
        got = payload(data, "code", "token")
        if got is None:
            return error("invalid", "code and token are required", "code")
        room = relay.room(str(got["code"]))
        seat = room.seats.get(str(got["token"]))
        if seat is None:
            return error("bad_token", "no seat has this token", "token")
        enter(room, "/play", seat)
        broadcast(room)
        return {"ok": True, "seat": seat, "state": relay.state_for(room, sid())}

    @socketio.on("action", namespace="/play")
    def action(data: Any = None) -> dict[str, Any]:
        code = relay.where.get(sid())
        room = relay.rooms.get(code) if code is not None else None
        seat = room.sockets.get(sid(), ("", None))[1] if room is not None else None
        if room is None or seat is None:
            return error("not_joined", "join a room first")
        got = payload(data, "action")
        if got is None or not (got.get("step") is None or isinstance(got.get("step"), int)):
            return error("invalid", "action is required; step is an integer or null", "action")
        relay.act(room, seat, got["action"])
        version = room.version
        broadcast(room)
        return {"ok": True, "version": version}

    return app, socketio


class RelayServer(Server):
    """The relay in its own process, started and measured like the server under test (``log``: the file of its
    output; the database path of ``Server`` with a .log suffix)."""

    def __init__(self, log: Path, step_ms: int, phone_bytes: int | None = None, tv_bytes: int | None = None):
        super().__init__(log, seed=None)
        self.step_ms = step_ms
        self.phone_bytes = phone_bytes or PHONE_BYTES
        self.tv_bytes = tv_bytes or TV_BYTES

    def command(self) -> list[str]:
        return [sys.executable, "-m", "bench.relay", "--port", "{port}", "--step-ms", str(self.step_ms),
                "--phone-bytes", str(self.phone_bytes), "--tv-bytes", str(self.tv_bytes)]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.relay``."""
    parser = argparse.ArgumentParser(prog="python -m bench.relay", description="The bare relay (docs/bench.md)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0: any free port (written to --port-file)")
    parser.add_argument("--port-file", type=Path, help="once listening, write the port to this file")
    parser.add_argument("--step-ms", type=int, default=3000, help="time from a step's start to its deadline")
    parser.add_argument("--phone-bytes", type=int, default=PHONE_BYTES, help="size of a phone's state (JSON)")
    parser.add_argument("--tv-bytes", type=int, default=TV_BYTES, help="size of a TV's state (JSON)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
    app, socketio = create_app(Relay(args.step_ms, args.phone_bytes, args.tv_bytes))
    from host.cli import listen_in_background, write_port_file

    port, ended = listen_in_background(socketio, app, args.host, args.port)  # as throneroom serve
    if port is None:
        print(f"relay: cannot listen on {args.host}:{args.port}: {ended[0]}", file=sys.stderr)
        return 1
    print(f"relay on http://{args.host}:{port}", flush=True)
    if args.port_file is not None:
        write_port_file(args.port_file, port)
    while not ended:
        socketio.sleep(1)
    return 0 if ended[0] is None else 1


if __name__ == "__main__":
    sys.exit(main())
