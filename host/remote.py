"""The host on the sofa (issue [18], docs/remote.md): the host's TV hands its controls to one phone of the room.

The TV asks for a hand-over code (``offer``) and shows it as a QR code of ``/join/CODE#remote=HANDOVER``: the code
sits in the URL's fragment, which a browser never sends to a server nor in a ``Referer``. It is not the host token
(which never leaves the TV's browser): it works once, for ``HANDOVER_TTL_MS``, and a newer code replaces it. The phone
that opens it (seated in the room, by ``hello`` or ``join``) says it (``claim``): its seat gets the host remote, which
is logged as a ``remote`` event (``{"seat": id}``) so that a restart keeps it, and a phone of that seat coming back
(a reload, a lost connection) still holds it. One seat holds it at a time: a new hand-over replaces the last. The TV
takes it back with one tap (``take_back``, logged ``{"seat": null}``) and the phone may give it back (``release``).

The seat's phones get the remote's own view as a ``remote`` event (``view``: the host's "that's me" requests, and the
game's ``host_notes``, the Quiz's right answer before its reveal), sent to those sockets alone after each of the
room's broadcasts (host/broadcast.py); never in a room's ``state``. ``{"on": false}`` tells them it is gone.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from host.room import Room, RoomError, hash_token

if TYPE_CHECKING:
    from host.service import RoomService

HANDOVER_TTL_MS = 2 * 60 * 1000  # a hand-over code works this long, once
HANDOVER_MAX_CHARS = 64  # a longer one is refused before it is hashed


@dataclass
class Handover:
    """A hand-over code the host's TV shows, waiting for a phone (only its hash is kept)."""

    code_hash: str
    at_ms: int


class Remotes:
    """The hand-over codes of every room of one service, and the remote's own messages; the holder itself is the
    room's ``remote_seat`` (host/room.py), logged."""

    def __init__(self, service: RoomService):
        self.service = service
        self.pending: dict[str, Handover] = {}  # room code -> the code its TV shows now (one per room)

    def offer(self, room: Room) -> dict[str, Any]:
        """A new hand-over code for the room's TV; it replaces one not used yet."""
        code = secrets.token_urlsafe(16)
        self.pending[room.code] = Handover(hash_token(code), self.service.clock.monotonic_ms())
        return {"handover": code, "expires_in_ms": HANDOVER_TTL_MS}

    def claim(self, room: Room, seat_id: int, handover: Any) -> None:
        """A seated phone says the hand-over code its TV showed: its seat holds the remote (logged), and the phones
        of the seat that held it before are told it is gone."""
        if not isinstance(handover, str) or not handover or len(handover) > HANDOVER_MAX_CHARS:
            raise RoomError("invalid", "handover must be the code the TV showed", "handover")
        with self.service.locks[room.code]:
            pending = self.pending.get(room.code)
            now = self.service.clock.monotonic_ms()
            if pending is not None and now - pending.at_ms >= HANDOVER_TTL_MS:
                del self.pending[room.code]
                pending = None
            if pending is None or not secrets.compare_digest(hash_token(handover), pending.code_hash):
                raise RoomError("bad_handover", "this hand-over code is used, expired or not this room's: ask the "
                                "host's TV for a new one", "handover")
            before = room.remote_seat
            del self.pending[room.code]  # used: once only (before the broadcast: the TV's view says it is used)
            try:
                self.service.submit(room, "remote", {"seat": seat_id})
            except RoomError:  # refused (the room moved away): nothing used
                self.pending[room.code] = pending
                raise
        if before is not None and before != seat_id:
            self.tell_off(room, before)

    def cancel(self, room: Room) -> None:
        """The TV closed its hand-over code unused: it works no more (a phone holding the remote keeps it)."""
        with self.service.locks[room.code]:
            if self.pending.pop(room.code, None) is None:
                raise RoomError("not_now", "no hand-over code is waiting")
            room.version += 1
        self.service.notify(room.code)

    def take_back(self, room: Room) -> None:
        """The TV takes the remote back (and forgets a code not used yet): the holder's phones are told at once and
        their controls are refused from now on."""
        with self.service.locks[room.code]:
            had_code = self.pending.pop(room.code, None) is not None
            before = room.remote_seat
            if before is None and not had_code:
                raise RoomError("not_now", "no phone holds the host remote")
            if before is not None:
                self.service.submit(room, "remote", {"seat": None})
        if before is not None:
            self.tell_off(room, before)
        else:
            room.version += 1  # the TV's view drops the code's "waiting"
            self.service.notify(room.code)

    def release(self, room: Room, seat_id: int) -> None:
        """The phone holding the remote gives it back to the TV."""
        with self.service.locks[room.code]:
            if room.remote_seat != seat_id:
                raise RoomError("not_host", "this phone does not hold the host remote")
            self.service.submit(room, "remote", {"seat": None})
        self.tell_off(room, seat_id)

    def require(self, room: Room, seat_id: int) -> None:
        """RoomError ``not_host`` unless this seat holds the room's remote."""
        if room.remote_seat != seat_id:
            raise RoomError("not_host", "only the host's screen or the phone holding the host remote may do this")

    def tv_view(self, room: Room) -> dict[str, Any] | None:
        """What the host's TV shows of the remote: who holds it (or None), and whether a code waits for a phone."""
        seat = room.seats.get(room.remote_seat) if room.remote_seat is not None else None
        pending = self.pending.get(room.code)
        waiting = pending is not None and self.service.clock.monotonic_ms() - pending.at_ms < HANDOVER_TTL_MS
        if seat is None and not waiting:
            return None
        return {"seat": None if seat is None else seat.id, "name": None if seat is None else seat.name,
                "waiting": waiting}

    def view(self, room: Room) -> dict[str, Any]:
        """The remote's own view, for the holder's phones only: the "that's me" requests the host answers, the
        game's ``host_notes`` (the Quiz's answer before the reveal) and what the room's controls need."""
        session = room.session
        notes = None
        if session is not None and not session.is_over:
            notes = session.game.host_notes(session.state)
        # the room's controls as the host's TV has them (issue [18]: every control of the TV): the lock, the language,
        # each seat's extended time (the host's screens only) and, in the lobby, the packs the host may choose from
        packs = self.service.pack_supply(room) if room.phase == "lobby" else None
        return {"code": room.code, "on": True, "seat": room.remote_seat, "claims": self.service.claims.view(room),
                "notes": notes, "version": room.version, "locked": room.locked, "language": room.language,
                "extra_time": {str(k): v for k, v in sorted(room.time_factors.items())},
                "packs": None if packs is None else {"packs": packs["packs"], "selected": packs["selected"]}}

    def holder_sids(self, room: Room) -> list[str]:
        """The sockets of the seat holding the remote."""
        if room.remote_seat is None:
            return []
        return [sid for sid, seat in self.service.connections.of_room(room.code).items() if seat == room.remote_seat]

    def tell_off(self, room: Room, seat_id: int) -> None:
        """Tell a seat's phones that they hold the remote no more."""
        for sid, seat in list(self.service.connections.of_room(room.code).items()):
            if seat == seat_id:
                self.service.tell_phone(sid, "remote", {"code": room.code, "on": False})

    def forget(self, code: str) -> None:
        """The room left this process: its waiting code goes with it (the holder is in its log)."""
        self.pending.pop(code, None)
