"""Latecomers who ask to join a house of a running team game (CROWN-D2, issue [11]).

In the lobby a player picks any team. In a running game a team a bot plays takes a latecomer at once, but a team
with people holds secrets (its private view, CROWN-D4), so a latecomer's pick becomes a request that one of its
members answers on their phone. A yes logs the ``team`` event with ``by``, the member who agreed, which the room
checks (``Room._plan_team``); a request is never logged. It ends when answered, after ``REQUEST_TTL_MS``, when the
requester's socket leaves, when no member of the house is connected any more, or when the game ends; a seat has one
request at a time (a new pick replaces it) and a room at most ``MAX_REQUESTS``.

The requester's phone and the members' phones see the request in their state (``house_requests``) and get a push
(``house_request`` to the members, ``house_answered`` to the requester); the TV shows nothing of it (CROWN-D3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from host.room import Room, RoomError

if TYPE_CHECKING:
    from host.service import RoomService

REQUEST_TTL_MS = 60_000
MAX_REQUESTS = 6  # per room: a party has few latecomers at a time


@dataclass
class HouseRequest:
    """A latecomer (``seat_id``, on socket ``sid``) waiting for a member of team ``team`` to let them in."""

    id: int
    sid: str
    seat_id: int
    team: int
    at_ms: int


class HouseRequests:
    """The requests of every room of one service (not logged: a request changes nothing until it is answered)."""

    def __init__(self, service: RoomService):
        self.service = service
        self.pending: dict[str, list[HouseRequest]] = {}  # room code -> requests
        self.next_id = 1

    # ----- asking -----

    def ask(self, room: Room, seat_id: int, team: Any, sid: str) -> dict[str, Any]:
        """A pick of a team: taken at once where the room takes it without anyone's consent (the lobby, a bot's
        team), else a request to the team's connected members. Returns ``{"joined": True}`` or ``{"request": id}``
        (the lobby: ``{}``); RoomError for every refusal, ``house_nobody_here`` when no member is connected."""
        service = self.service
        with service.locks[room.code]:
            lobby = room.phase == "lobby"
            try:
                room.plan("team", {"seat": seat_id, "team": team})  # a check only: the effect is thrown away
            except RoomError as error:
                if error.code != "house_consent":
                    raise
            else:
                self._end(room, lambda r: r.seat_id == seat_id, None)  # a bot's team instead of the one asked
                service.submit(room, "team", {"seat": seat_id, "team": team})
                return {} if lobby else {"joined": True}
            assert room.session is not None
            members = room.session.slots[team].members
            here = self._member_sids(room.code, members)
            if not here:
                raise RoomError("house_nobody_here", "no one of that house is here to let you in; pick another house",
                                "team")
            self._end(room, lambda r: r.seat_id == seat_id, None)  # one request per seat: the new pick replaces it
            if len(self.pending.get(room.code, [])) >= MAX_REQUESTS:
                raise RoomError("too_many_requests", "too many people are asking to join a house; try again soon")
            request = HouseRequest(self.next_id, sid, seat_id, team, service.clock.monotonic_ms())
            self.next_id += 1
            self.pending.setdefault(room.code, []).append(request)
            room.version += 1
            name = room.seats[seat_id].name
        service.notify(room.code)
        for member_sid in here:
            service.tell_phone(member_sid, "house_request",
                             {"code": room.code, "request": request.id, "name": name, "team": team})
        return {"request": request.id}

    def answer(self, room: Room, seat_id: int, request_id: Any, accept: Any) -> None:
        """A member's answer: yes logs the latecomer's ``team`` event with ``by`` (the room checks it), no tells the
        latecomer's phone."""
        if not isinstance(accept, bool):
            raise RoomError("invalid", "accept must be true or false", "accept")
        service = self.service
        with service.locks[room.code]:
            self.expire_room(room)
            requests = self.pending.get(room.code, [])
            request = next((r for r in requests if r.id == request_id and type(request_id) is int), None)
            if request is None:
                raise RoomError("no_request", "this request is no longer waiting", "request")
            session = room.session
            if session is None or seat_id not in session.slots[request.team].members:
                raise RoomError("not_your_house", "only a member of that house may answer", "request")
            self.pending[room.code] = [r for r in requests if r is not request]
            if not accept:
                room.version += 1
            else:
                try:
                    service.submit(room, "team", {"seat": request.seat_id, "team": request.team, "by": seat_id})
                except RoomError:
                    room.version += 1
                    service.notify(room.code)
                    self._tell(room, request, False, "ended")
                    raise
        if not accept:
            service.notify(room.code)
        self._tell(room, request, accept, None if accept else "refused")

    # ----- ending -----

    def left(self, code: str, sid: str, seat_id: int | None) -> None:
        """A socket left (host/connections.py ``disconnect``, before it tells the room): its own requests end, and so do
        the requests to a house none of whose members is connected any more."""
        room = self.service.rooms.get(code)
        if room is None or not self.pending.get(code):
            return
        with self.service.locks[code]:
            session = room.session
            self._end(room, lambda r: r.sid == sid, None)

            def nobody(r: HouseRequest) -> bool:
                return session is None or not self._member_sids(code, session.slots[r.team].members)

            self._end(room, nobody, "nobody_here")

    def forget(self, code: str) -> None:
        """The room left this process: its requests go with it (nobody is left to answer them)."""
        self.pending.pop(code, None)

    def expire(self) -> None:
        """End the requests that ran out or lost their reason, in every room (the service's ticker)."""
        for code in [c for c, requests in self.pending.items() if requests]:
            room = self.service.rooms.get(code)
            if room is None:
                self.pending.pop(code, None)
                continue
            with self.service.locks[code]:
                changed = self.expire_room(room)
            if changed:
                self.service.notify(code)

    def expire_room(self, room: Room) -> bool:
        """End one room's requests that ran out (``timeout``) or whose game ended or requester got a house
        (``ended``); whether any ended."""
        now = self.service.clock.monotonic_ms()
        session = room.session
        before = len(self.pending.get(room.code, []))

        def over(r: HouseRequest) -> bool:
            seat = room.seats.get(r.seat_id)
            return (room.phase != "playing" or session is None or seat is None or seat.kicked
                    or session.slot_of(r.seat_id) is not None)

        self._end(room, over, "ended")
        self._end(room, lambda r: now - r.at_ms >= REQUEST_TTL_MS, "timeout")
        return len(self.pending.get(room.code, [])) != before

    def _end(self, room: Room, which: Any, reason: str | None) -> None:
        """Drop the room's requests ``which`` selects; with a reason, tell each requester's phone."""
        requests = self.pending.get(room.code, [])
        ended = [r for r in requests if which(r)]
        if not ended:
            return
        self.pending[room.code] = [r for r in requests if not which(r)]
        room.version += 1
        if reason is not None:
            for request in ended:
                self._tell(room, request, False, reason)

    def _tell(self, room: Room, request: HouseRequest, accepted: bool, reason: str | None) -> None:
        self.service.tell_phone(request.sid, "house_answered", {"code": room.code, "request": request.id,
                                                              "team": request.team, "accepted": accepted,
                                                              "reason": reason})

    def _member_sids(self, code: str, members: list[int]) -> list[str]:
        """The connected sockets of a team's members."""
        return [sid for sid, seat in self.service.connections.of_room(code).items() if seat in members]

    # ----- what a phone sees -----

    def view(self, room: Room, seat_id: int) -> dict[str, Any] | None:
        """A phone's part: the request it waits on (``asking``) and those its house is asked (``asks``); None when
        there are none. Nothing of it goes to the TV."""
        session = room.session
        requests = self.pending.get(room.code)
        if not requests or session is None or room.phase != "playing":
            return None
        now = self.service.clock.monotonic_ms()
        live = [r for r in requests if now - r.at_ms < REQUEST_TTL_MS]
        mine = next((r for r in live if r.seat_id == seat_id), None)
        slot = session.slot_of(seat_id)
        asks = [{"id": r.id, "seat": r.seat_id, "name": room.seats[r.seat_id].name}
                for r in live if slot is not None and r.team == slot and r.seat_id in room.seats]
        if mine is None and not asks:
            return None
        return {"asking": None if mine is None else {"id": mine.id, "team": mine.team}, "asks": asks}
