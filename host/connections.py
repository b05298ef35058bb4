"""Who is connected to the rooms of this process: the TVs' and phones' sockets, each seat's phones, since when a seat's
phones are all gone, and each socket's round trips, with which an answer's claimed time is judged (``measure``, the
fair timing of docs/decisions.md and docs/protocol.md section 10).

Connections are not logged: they are not part of the game. A room restored from its log has none yet, and every
seat counts as just dropped (``all_away``) until a phone of it comes back.
"""

from __future__ import annotations

import bisect
import logging
import math
from collections import Counter, deque
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from engine.core import Timing
from host.room import Room

if TYPE_CHECKING:
    from host.service import RoomService

MIN_REACTION_MS = 100  # nobody reads, decides and taps faster; a smaller claim is not believed
TIMING_SLACK_MS = 40  # the server's own scheduling and the phone's clock estimate wobble by this much
RTT_SAMPLES = 8  # a phone's bound is the largest of its last RTT_SAMPLES round trips (its heartbeat's: one every 5 s)
RTT_FLOOR_MS, RTT_CEILING_MS, RTT_UNKNOWN_MS = 20, 600, 300
# A round trip is measured by the phone's own acknowledgements, which a scripted phone can hold back to widen what
# the server believes of it. Its believed round trip is therefore capped by what the room's other phones show of the
# network: at most ROOM_RTT_FACTOR times the median of theirs, and never under BELIEVED_RTT_FLOOR_MS (docs/decisions.md,
# "Fair timing against a liar").
ROOM_RTT_FACTOR = 2
BELIEVED_RTT_FLOOR_MS = 100
ROOM_RTT_FRESH_MS = 1000  # a room's round trips are gathered at most once a second (a crowd's answers come in bursts)
DOUBT_FLAGS = ("faster_than_network", "faster_than_human", "rtt_not_believed")  # a claim that was not taken
DOUBTS_SHOWN = 2  # a seat whose claims were not believed this often in a game is shown to the host
log = logging.getLogger("throneroom.timing")
AWAY_GRACE_MS = 15_000  # a player whose phone is gone this long is played by a bot until it comes back
LINEUP_CHECK_MS = 1000  # how often the ticker looks for seat graces that ran out (``watch_lineups``)


class RoundTrips(deque[int]):
    """A socket's last RTT_SAMPLES round trips as the server measured them, in ms, and when the newest was (``at``,
    monotonic ms): a socket whose newest is old is probed (host/broadcast.py ``probe_all``)."""

    def __init__(self, samples: Iterable[int] = ()):
        super().__init__(samples, maxlen=RTT_SAMPLES)
        self.at = 0

    def add(self, rtt_ms: float, now_ms: int) -> None:
        self.append(int(rtt_ms))
        self.at = now_ms


class Connections:
    """The sockets of one service's rooms; see the module docstring."""

    def __init__(self, service: RoomService):
        self.service = service
        self.sockets: dict[str, dict[str, int | None]] = {}  # code -> sid -> seat id (None: a TV)
        self.sids: dict[str, tuple[str, int | None]] = {}  # sid -> (code, seat id)
        self.seat_sockets: dict[str, Counter[int]] = {}  # code -> seat id -> its phones connected (connected_seats)
        self.rtts: dict[str, RoundTrips] = {}  # sid -> recent round trips measured by the server
        self.away_since: dict[tuple[str, int], int] = {}  # (code, seat) -> monotonic ms its last phone left
        self.lineups_checked = 0  # when the ticker last looked for seat graces that ran out (watch_lineups)
        self.room_rtts: dict[str, tuple[int, list[int]]] = {}  # code -> (when gathered, its sockets' bounds sorted)
        self.doubts: dict[str, dict[int, dict[str, int | str]]] = {}  # code -> seat -> claims not believed (doubt)

    # ----- sockets -----

    def connect(self, room: Room, sid: str, seat_id: int | None) -> None:
        """Record a socket as the TV (None) or a seat's phone; a socket follows one room at a time."""
        service = self.service
        previous = self.sids.get(sid)
        if previous is not None and previous[0] != room.code:
            self.disconnect(sid)
        elif previous is not None and previous[1] is not None:  # the same socket, seated anew (a join after a watch)
            self._seat_socket(room.code, previous[1], -1)
        self.sockets.setdefault(room.code, {})[sid] = seat_id
        self.sids[sid] = (room.code, seat_id)
        if seat_id is not None:
            self._seat_socket(room.code, seat_id, 1)
        service.clocks.touch(room.code)
        if seat_id is not None:
            self.away_since.pop((room.code, seat_id), None)
            service.claims.drop(room, "back", seat_id)  # a "that's me" for this seat from another phone ends
        room.version += 1
        service.notify(room.code)

    def disconnect(self, sid: str) -> str | None:
        """Forget a socket; returns the code of the room it was in."""
        service = self.service
        found = self.sids.pop(sid, None)
        self.rtts.pop(sid, None)
        if found is None:
            return None
        code, seat_id = found
        self.sockets.get(code, {}).pop(sid, None)
        service.on_left(code, sid)  # the transport's own tables (host/broadcast.py)
        if seat_id is not None:
            self._seat_socket(code, seat_id, -1)
        service.houses.left(code, sid, seat_id)  # its own request ends, and one to a house with no one here any more
        service.clocks.touch(code, if_known=True)  # the room's time to live counts from when the last one left
        if seat_id is not None and seat_id not in self.connected_seats(code):
            self.away_since[(code, seat_id)] = service.clock.monotonic_ms()
        room = service.rooms.get(code)
        if room is not None:
            room.version += 1
        service.notify(code)
        return code

    def where(self, sid: str) -> tuple[str, int | None] | None:
        """The room code and seat (None: a TV) a socket follows."""
        return self.sids.get(sid)

    def of_room(self, code: str) -> dict[str, int | None]:
        """A room's sockets, sid -> seat id (None: a TV); the live table, to be copied before anything it calls
        connects or disconnects a socket."""
        return self.sockets.get(code, {})

    def connected_seats(self, code: str) -> Collection[int]:
        """The seats with at least one connected phone (kept as phones come and go: a room of thousands asks it for
        each of its players at every view)."""
        return self.seat_sockets.get(code, {}).keys()

    def _seat_socket(self, code: str, seat_id: int, change: int) -> None:
        """One more (``1``) or one fewer (``-1``) connected phone of a seat."""
        counts = self.seat_sockets.setdefault(code, Counter())
        counts[seat_id] += change
        if counts[seat_id] <= 0:
            del counts[seat_id]

    def forget(self, code: str) -> list[str]:
        """Drop everything about a room's sockets (the room left this process); returns the sockets it had."""
        sids = list(self.sockets.pop(code, {}))
        self.seat_sockets.pop(code, None)
        self.room_rtts.pop(code, None)
        self.doubts.pop(code, None)
        for key in [k for k in self.away_since if k[0] == code]:
            del self.away_since[key]
        for sid in sids:
            self.sids.pop(sid, None)
            self.rtts.pop(sid, None)
        return sids

    # ----- seats whose phones are gone -----

    def all_away(self, room: Room) -> None:
        """A room just loaded: no phone is here yet, each active seat is away from now, as if it just dropped."""
        now = self.service.clock.monotonic_ms()
        for seat in room.active_seats():
            self.away_since[(room.code, seat.id)] = now

    def is_away(self, room: Room, seat_id: int | None) -> bool:
        """Whether a seat's phone has been gone longer than the grace, so a bot plays for it meanwhile (CAMP-D13);
        it takes the seat back the moment a phone of the seat reconnects."""
        if seat_id is None:
            return False
        since = self.away_since.get((room.code, seat_id))
        return since is not None and self.service.clock.monotonic_ms() - since >= self.away_grace_ms()

    def away_grace_ms(self) -> int:
        """How long a seat's phones must be gone before the seat counts as away (``is_away``)."""
        return max(3000, int(AWAY_GRACE_MS * self.service.timer_scale))

    def team_away(self, room: Room, members: list[int]) -> bool:
        """Whether every phone playing a game seat is away (one seat, or all members of a team)."""
        return bool(members) and all(self.is_away(room, m) for m in members)

    def gone(self, room: Room, seat_id: int) -> bool:
        """Whether a seat's phone has been gone longer than the room's seat grace (not seated in the next game)."""
        if seat_id in self.connected_seats(room.code):
            return False
        since = self.away_since.get((room.code, seat_id))
        return since is not None and self.service.clock.monotonic_ms() - since >= room.seat_grace_s * 1000

    def watch_lineups(self) -> None:
        """A phone gone past the seat grace leaves the next game's lineup with no event: once a second (the ticker),
        tell each room in which such a grace ran out since the last look (a few arithmetic steps per absent seat)."""
        service = self.service
        now = service.clock.monotonic_ms()
        last = self.lineups_checked
        if now - last < LINEUP_CHECK_MS:
            return
        self.lineups_checked = now
        changed = set()
        for (code, _seat), since in list(self.away_since.items()):
            room = service.rooms.get(code)
            if room is not None and last < since + room.seat_grace_s * 1000 <= now:
                changed.add(code)
        for code in changed:
            room = service.rooms[code]
            if room.phase != "playing":
                room.version += 1
                service.notify(code)

    # ----- round trips and fair timing -----

    def record_rtt(self, sid: str, rtt_ms: float) -> None:
        """A round trip the server measured to this socket."""
        if sid in self.sids and 0 <= rtt_ms < 60_000:
            self.rtts.setdefault(sid, RoundTrips()).add(rtt_ms, self.service.clock.monotonic_ms())

    def relayed_rtt(self, sid: str, rtt_ms: int) -> None:
        """A relayed phone's round trip as the worker relaying it measured it (host/relay.py, sent with its answer):
        it stands alone for the phone's recent round trips."""
        self.rtts[sid] = RoundTrips([rtt_ms])

    def rtt_bound(self, sid: str | None) -> int:
        """The socket's recent round trip: the largest of the last few, within sane limits."""
        samples = self.rtts.get(sid) if sid else None
        if not samples:
            return RTT_UNKNOWN_MS
        return max(RTT_FLOOR_MS, min(RTT_CEILING_MS, max(samples)))

    def room_rtt(self, sid: str | None) -> int | None:
        """What the room's other phones show of the network: the median of their round trip bounds (None when no
        other phone of the room has been measured). Gathered once a second per room, so a crowd's burst of answers
        costs one pass over the room's sockets, then a binary search each."""
        found = self.sids.get(sid) if sid else None
        if found is None:
            return None
        code = found[0]
        now = self.service.clock.monotonic_ms()
        kept = self.room_rtts.get(code)
        if kept is None or now - kept[0] >= ROOM_RTT_FRESH_MS:
            bounds = sorted(self.rtt_bound(other) for other in self.sockets.get(code, {}) if self.rtts.get(other))
            kept = self.room_rtts[code] = (now, bounds)
        bounds = kept[1]
        own = self.rtt_bound(sid) if self.rtts.get(sid) else None
        mine = bisect.bisect_left(bounds, own) if own is not None and own in bounds else None
        others = len(bounds) - (mine is not None)
        if others <= 0:
            return None
        middle = (others - 1) // 2  # the lower median of the others: the list without this socket's own bound
        return bounds[middle if mine is None or middle < mine else middle + 1]

    def believed_rtt(self, sid: str | None) -> tuple[int, int | None]:
        """The socket's own round trip bound, and the part of it the server believes for the fast edge of a claim's
        window: capped at ``ROOM_RTT_FACTOR`` times the room's (``room_rtt``), not under ``BELIEVED_RTT_FLOOR_MS``
        (None: not capped, as for a phone alone in its room or a room whose phones are all as slow)."""
        own = self.rtt_bound(sid)
        room = self.room_rtt(sid)
        if room is None:
            return own, None
        cap = max(BELIEVED_RTT_FLOOR_MS, ROOM_RTT_FACTOR * room)
        return own, (cap if own > cap else None)

    def measure(self, unlock_ms: int, receipt_ms: int, claimed: float | None, sid: str | None) -> Timing:
        """The fair effective time of an answer (docs/decisions.md, "Fair timing").

        The server saw ``seen = receipt - unlock``. The phone counted from its own unlock, which it placed with
        its clock estimate (off by at most half a round trip), and its answer then travelled up to a round trip:
        an honest claim lies in ``[seen - rtt, seen + rtt/2]`` (each widened by a small slack for the server's
        own scheduling) and is taken as it is. A claim slower than that is
        clamped to the upper edge; a claim faster than the network or than any person (under 100 ms) is not
        believed and gets the upper edge too, so a phone that claims 0 ms never beats an honest phone with the
        same true time. No claim (a phone without a clock, a bot): the server's own measure.

        The round trip is the phone's own acknowledgements', which a scripted phone can delay. Where it is more
        than the room's network backs (``believed_rtt``), a claim between the capped fast edge and the phone's own
        is taken at the capped edge (flag ``rtt_not_believed``): a liar gains at most that edge over what the
        server saw, and an honest phone on a slow network is judged about as by the server's receipt."""
        seen = max(0, receipt_ms - unlock_ms)
        rtt, cap = self.believed_rtt(sid)
        upper = seen + rtt // 2 + TIMING_SLACK_MS
        if claimed is None or not math.isfinite(claimed) or abs(claimed) > 3_600_000:  # NaN, Infinity: no claim
            return Timing(seen, receipt_ms, unlock_ms, None, rtt, "no_claim")
        claim = round(claimed)
        if claim > upper:
            return Timing(upper, receipt_ms, unlock_ms, claim, rtt, "slower_than_seen")
        if claim < seen - rtt - TIMING_SLACK_MS:
            return Timing(upper, receipt_ms, unlock_ms, claim, rtt, "faster_than_network")
        if claim < MIN_REACTION_MS:
            return Timing(upper, receipt_ms, unlock_ms, claim, rtt, "faster_than_human")
        if cap is not None and claim < seen - cap - TIMING_SLACK_MS:
            return Timing(seen - cap - TIMING_SLACK_MS, receipt_ms, unlock_ms, claim, cap, "rtt_not_believed")
        return Timing(claim, receipt_ms, unlock_ms, claim, rtt, "")

    # ----- phones whose timing is not believed -----

    def doubt(self, room: Room, seat_id: int, sid: str | None, timing: Timing) -> None:
        """Note a player's answer whose claim was not taken (``DOUBT_FLAGS``): logged with why, and once it happened
        ``DOUBTS_SHOWN`` times in the game, shown on the host's TV (``doubts_view``)."""
        if timing.flag not in DOUBT_FLAGS:
            return
        seats = self.doubts.setdefault(room.code, {})
        entry = seats.setdefault(seat_id, {"count": 0})
        own = self.rtt_bound(sid)
        entry.update(count=int(entry["count"]) + 1, flag=timing.flag, rtt=own, room_rtt=self.room_rtt(sid) or 0)
        seat = room.seats.get(seat_id)
        log.warning("room %s: the timing of seat %s (%r) was not believed (%s): claimed %s ms, the server saw %s ms, "
                    "its round trip %s ms, the room's %s ms; effective %s ms", room.code, seat_id,
                    seat.name if seat else None, timing.flag, timing.claimed, timing.receipt - timing.unlock, own,
                    entry["room_rtt"] or "unknown", timing.effective)
        if entry["count"] == DOUBTS_SHOWN:
            room.version += 1  # the host's TV now shows it

    def new_game(self, code: str) -> None:
        """A game starts: its players' timing is judged afresh."""
        self.doubts.pop(code, None)

    def doubts_view(self, room: Room) -> list[dict[str, int | str]]:
        """The host's TV: the players whose claims were not believed at least ``DOUBTS_SHOWN`` times this game."""
        return [{"seat": seat, "name": room.seats[seat].name, **entry}
                for seat, entry in sorted(self.doubts.get(room.code, {}).items())
                if int(entry["count"]) >= DOUBTS_SHOWN and seat in room.seats]
