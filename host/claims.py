"""Coming back on another phone ("that's me", docs/seats.md): a phone without a seat says it is the person of a seat
whose phone is gone, and the host's TV confirms or refuses.

A claim is not logged: it changes nothing until the host says yes, which logs the ``takeover`` (the seat's token
replaced by the new phone's). A claim ends when answered, after ``CLAIM_TTL_MS``, when its phone leaves, when a phone
of the seat itself is back (the person was not lost after all: a host's late tap must not give their seat to whoever
asked) and when the room is locked (a locked room takes no one, so no claim either). A seat has one claim waiting: a
second phone asking for the same name is told ``claim_waiting`` until the host answered the first, so the claim under
the host's finger is the one the TV shows. A phone asking again replaces its own claim, and a room holds at most
``MAX_CLAIMS``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from host.room import Room, RoomError, clean_name, hash_token

if TYPE_CHECKING:
    from host.service import RoomService

CLAIM_TTL_MS = 10 * 60 * 1000  # a "that's me" the host has not answered is forgotten after this
MAX_CLAIMS = 12  # per room: a phone asking again replaces its own claim


@dataclass
class Claim:
    """A phone that says it is the person of a seat whose phone is gone ("that's me"), waiting for the host."""

    id: int
    sid: str
    seat_id: int
    at_ms: int


class Claims:
    """The claims of every room of one service, waiting for their hosts."""

    def __init__(self, service: RoomService):
        self.service = service
        self.waiting: dict[str, list[Claim]] = {}  # code -> phones waiting for the host to confirm a takeover
        self.next_id = 1

    def ask(self, room: Room, name: Any, sid: str) -> dict[str, Any]:
        """A phone says it is the person of the seat with this name, whose phone is gone: the host is asked to
        confirm (``answer``). A name held by a connected phone stays refused."""
        service = self.service
        seat = room.seat_named(clean_name(name))
        if room.locked:
            raise RoomError("room_locked", "the room is locked: ask the host to unlock it")
        if seat is None:
            raise RoomError("no_such_name", "nobody has this name in the room: join with it", "name")
        if seat.id in service.connections.connected_seats(room.code):
            raise RoomError("name_taken", f"the name {seat.name!r} is taken in this room", "name")
        with service.locks[room.code]:
            now = service.clock.monotonic_ms()
            claims = [c for c in self.waiting.get(room.code, []) if c.sid != sid and now - c.at_ms < CLAIM_TTL_MS]
            if any(c.seat_id == seat.id for c in claims):
                raise RoomError("claim_waiting", f"someone else already said they are {seat.name!r}: the host "
                                "answers them first", "name")
            if len(claims) >= MAX_CLAIMS:
                raise RoomError("too_many_claims", "the host has too many requests to answer; try again soon")
            claim = Claim(self.next_id, sid, seat.id, now)
            self.next_id += 1
            self.waiting[room.code] = [*claims, claim]
            room.version += 1
        service.notify(room.code)
        return {"claim": claim.id, "seat": seat.id, "name": seat.name}

    def view(self, room: Room) -> list[dict[str, Any]]:
        """What the host's TV shows of the phones waiting for a "that's me" answer."""
        now = self.service.clock.monotonic_ms()
        return [{"id": c.id, "seat": c.seat_id, "name": room.seats[c.seat_id].name}
                for c in self.waiting.get(room.code, []) if now - c.at_ms < CLAIM_TTL_MS and c.seat_id in room.seats
                and not room.seats[c.seat_id].kicked]

    def drop(self, room: Room, reason: str, seat_id: int | None = None) -> None:
        """End the claims waiting for one seat (its own phone is back: ``reason`` "back") or for every seat (the room
        was locked: "locked"); each asking phone is told ``claim_refused`` with the reason."""
        claims = self.waiting.get(room.code, [])
        ended = [c for c in claims if seat_id is None or c.seat_id == seat_id]
        if not ended:
            return
        self.waiting[room.code] = [c for c in claims if c not in ended]
        room.version += 1
        self.service.notify(room.code)
        for claim in ended:
            self.service.tell_phone(claim.sid, "claim_refused", {"code": room.code, "reason": reason})

    def left(self, sid: str) -> None:
        """A phone that asked and left: its claim goes."""
        service = self.service
        for code, claims in list(self.waiting.items()):
            kept = [c for c in claims if c.sid != sid]
            if len(kept) != len(claims):
                self.waiting[code] = kept
                room = service.rooms.get(code)
                if room is not None:
                    room.version += 1
                service.notify(code)

    def answer(self, room: Room, claim_id: Any, accept: Any) -> None:
        """The host's answer to a "that's me": yes moves the seat to the new phone (its token replaces the old one),
        no tells the phone to choose another name."""
        service = self.service
        if not isinstance(accept, bool):
            raise RoomError("invalid", "accept must be true or false", "accept")
        claims = self.waiting.get(room.code, [])
        claim = next((c for c in claims if c.id == claim_id), None)
        if claim is None or service.clock.monotonic_ms() - claim.at_ms >= CLAIM_TTL_MS:
            raise RoomError("no_claim", "this request is no longer waiting", "claim")
        self.waiting[room.code] = [c for c in claims if c.id != claim_id]
        if not accept:
            room.version += 1
            service.notify(room.code)
            service.tell_phone(claim.sid, "claim_refused", {"code": room.code, "reason": "refused"})
            return
        if claim.seat_id in service.connections.connected_seats(room.code):
            service.notify(room.code)
            service.tell_phone(claim.sid, "claim_refused", {"code": room.code, "reason": "back"})
            raise RoomError("name_taken", "that person's phone came back meanwhile", "claim")
        token = secrets.token_urlsafe(24)
        service.submit(room, "takeover", {"seat": claim.seat_id, "token_hash": hash_token(token)})
        service.tell_phone(claim.sid, "claimed", {"code": room.code, "seat": claim.seat_id, "token": token})

    def forget(self, code: str) -> None:
        """The room left this process: its claims go with it."""
        self.waiting.pop(code, None)
