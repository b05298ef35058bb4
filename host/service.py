"""The room service: the only way rooms change, one event at a time per room, logged before it is sent.

For every event it runs the same steps: find the room, check the event completely (``Room.plan``), append it
to the database log and commit, apply it, then tell the transport (``notify``) which room changed. Timeouts
and bot moves go through the same path from ``tick``, which the app calls from one background task.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import questions.store
from engine import registry
from engine.core import Timing
from host.audience import Audience, AudienceError
from host.houses import HouseRequests
from host.lease import RENEW_MS, TTL_MS, LeaseLost
from host.room import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Room,
    RoomError,
    clean_name,
    game_errors,
    hash_token,
    new_bot_rng,
    normalise_code,
)
from host.store import Store
from questions.library import Library

log = logging.getLogger("throneroom.rooms")

GRACE_MS = 250  # answers in flight at the deadline are still taken (design.md, fair timing)
MIN_REACTION_MS = 100  # nobody reads, decides and taps faster; a smaller claim is not believed
TIMING_SLACK_MS = 40  # the server's own scheduling and the phone's clock estimate wobble by this much
RTT_SAMPLES = 8
RTT_FLOOR_MS, RTT_CEILING_MS, RTT_UNKNOWN_MS = 20, 600, 300
HOST_EVENTS = ("lock", "language", "select_game", "settings", "packs", "start", "pause", "resume", "end", "lobby",
               "kick", "team", "lineup", "seat_grace")
CLAIM_TTL_MS = 10 * 60 * 1000  # a "that's me" the host has not answered is forgotten after this
MAX_CLAIMS = 12  # per room: a phone asking again replaces its own claim
PUBLIC_VIEW_FRESH_MS = 250  # a phone's public view at one room version is built once in this time (phone_public_view)
SUPPLY_FRESH_MS = 1000  # how long a lobby's list of packs is kept (pack_supply)
SUPPLY_KEPT = 1000  # and how many lists at most (one per host and choice of packs)
CLOCK_SAVE_MS = 200  # a running game's clock is written this often, so a restart resumes its timers exactly
ROOM_TTL_MS = 48 * 3600 * 1000  # a room without activity this long is deleted (docs/security.md); a restart restores
# the rooms active within it
EXPIRE_EVERY_MS = 60_000  # how often the ticker looks for rooms past their time
MAX_SPECTATORS = 500  # per room (a setting): every spectator is in the TV's state
AWAY_GRACE_MS = 15_000  # a player whose phone is gone this long is played by a bot until it comes back


class Clock:
    """Real time: a monotonic clock for durations and the wall clock for records."""

    def monotonic_ms(self) -> int:
        """Milliseconds on a clock that never goes back."""
        return time.monotonic_ns() // 1_000_000

    def wall_ms(self) -> int:
        """Milliseconds since the epoch."""
        return time.time_ns() // 1_000_000


class FakeClock(Clock):
    """A clock that moves only when a test says so."""

    def __init__(self, start_ms: int = 1_000_000):
        self.now = start_ms

    def advance(self, ms: int) -> None:
        """Move time forward."""
        self.now += ms

    def monotonic_ms(self) -> int:
        return self.now

    def wall_ms(self) -> int:
        return 1_700_000_000_000 + self.now


class RoomLocks(dict):
    """Each held room's lock, by code. A handler that reaches for the lock of a room this process no longer holds
    (another worker took it, or it expired, while the handler waited) is answered ``room_moved`` (the page reconnects
    and finds it), not an internal error: 5,000 phones joining while their room changed hands all got one."""

    def __missing__(self, code: str) -> threading.RLock:
        raise RoomError("room_moved", "this room is no longer on this server: reconnecting")


@dataclass
class Claim:
    """A phone that says it is the person of a seat whose phone is gone ("that's me"), waiting for the host."""

    id: int
    sid: str
    seat_id: int
    at_ms: int


@dataclass
class BotPlan:
    """A bot's next move, due at a game time, valid while the game's step is unchanged."""

    due_ms: int
    step: Any
    action: Any


class RoomService:
    """Owns the rooms of this process; see the module docstring."""

    def __init__(self, store: Store, clock: Clock | None = None, *, timer_scale: float = 1.0,
                 include_unlisted: bool = False, seed_source: Callable[[], int] | None = None,
                 max_spectators: int = MAX_SPECTATORS, room_ttl_ms: int = ROOM_TTL_MS):
        self.store = store
        self.clock = clock or Clock()
        self.timer_scale = timer_scale
        self.include_unlisted = include_unlisted
        self.seed_source = seed_source or (lambda: secrets.randbits(63))
        self.epoch = secrets.token_hex(4)  # versions count from zero again after a restart
        self.max_spectators = max_spectators
        self.room_ttl_ms = room_ttl_ms
        self.active_ms: dict[str, int] = {}  # code -> wall ms of the room's last event or connection
        self.running: set[str] = set()  # codes of the rooms whose game runs: the only ones the ticker looks at
        self.expired_checked: int | None = None  # monotonic ms of the last look for expired rooms
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, threading.RLock] = RoomLocks()
        self.anchors: dict[str, tuple[int, int]] = {}  # code -> (monotonic ms, game ms) at the last event
        self.connections: dict[str, dict[str, int | None]] = {}  # code -> sid -> seat id (None: a TV)
        self.sids: dict[str, tuple[str, int | None]] = {}  # sid -> (code, seat id)
        self.seat_sockets: dict[str, Counter[int]] = {}  # code -> seat id -> its phones connected (connected_seats)
        self.rtts: dict[str, deque[int]] = {}  # sid -> recent round trips measured by the server, ms
        self.away_since: dict[tuple[str, int], int] = {}  # (code, seat) -> monotonic ms its last phone left
        self.bot_plans: dict[tuple[str, int], BotPlan] = {}
        self.claims: dict[str, list[Claim]] = {}  # code -> phones waiting for the host to confirm a takeover
        self.next_claim_id = 1
        self.tell_phone: Callable[[str, str, dict[str, Any]], None] = lambda sid, event, data: None  # tell a phone
        self.houses = HouseRequests(self)  # latecomers asking a house with people to let them in (CROWN-D2)
        self.lineups_checked = 0  # when the ticker last looked for seat graces that ran out (_watch_lineups)
        self.supplies: dict[Any, tuple[int, dict[str, Any]]] = {}  # pack_supply's answers, with when
        # code -> (version, when, phone view, what the sockets derive from that view and keep with it: its JSON)
        self.public_views: dict[str, tuple[int, int, dict[str, Any], dict[str, Any]]] = {}
        self.clocks_saved: dict[str, int] = {}  # code -> the game clock last written (store.save_clocks)
        self.library = Library(store.engine)
        self.audience = Audience(store.engine)  # spectators' play-along (host/audience.py), outside the game
        self.notify: Callable[[str], None] = lambda code: None
        self.on_kick: Callable[[str, int], None] = lambda code, seat_id: None
        self.yield_now: Callable[[], None] = lambda: None  # the ticker lets others run between busy rooms
        self.sleep: Callable[[float], None] = time.sleep  # the app gives Socket.IO's own (waiting for a lease)
        self.on_moved: Callable[[str, list[str]], None] = lambda code, sids: None  # close a room's sockets
        self.renewed_ms: int | None = None  # monotonic ms of the last lease renewal (workers)
        self.on_taken: Callable[[str], None] = lambda code: None  # a worker loaded a room it now holds (host/relay.py)
        self._registry_lock = threading.Lock()

    # ----- rooms -----

    def create_room(self, came_from: Any = None) -> tuple[str, str]:
        """A new room: its code and the host token (only its hash is kept). ``came_from`` may be the room this TV
        leaves with "New room", ``{"code": ..., "host_token": ...}``: if the token is that room's host token, the new
        room keeps that room's owner identity (its host's packs, docs/packs.md); anything else is ignored."""
        host_token = secrets.token_urlsafe(24)
        owner = self._owner_from(came_from) or hash_token(host_token)
        seed = self.seed_source()
        with self._registry_lock:
            for _ in range(1000):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if code not in self.rooms and self.store.room(code) is None:
                    break
            else:
                raise RoomError("no_code", "every room code is in use: try again later (rooms end after "
                                f"{self.room_ttl_ms // 3_600_000} h without activity)")
            self.store.create_room(code, hash_token(host_token), seed, self.clock.wall_ms(), owner)
            if self.store.leases is None:  # a worker leaves the room to the worker its code routes to, which
                self._install(Room(code, seed, hash_token(host_token), self.timer_scale, self.include_unlisted,
                                   owner))  # loads it when its TV comes (docs/scaling.md)
        return code, host_token

    def _owner_from(self, came_from: Any) -> str | None:
        """The owner identity of the room a "New room" comes from, if its host token is given."""
        if not isinstance(came_from, dict):
            return None
        token = came_from.get("host_token")
        try:
            room = self.room(came_from.get("code"))
        except RoomError:
            return None
        return room.owner if self.is_host(room, token) else None

    def _install(self, room: Room, active_ms: int | None = None) -> None:
        self.rooms[room.code] = room
        self.active_ms[room.code] = active_ms if active_ms is not None else self.clock.wall_ms()
        self._track(room)
        self.locks[room.code] = threading.RLock()
        self.anchors[room.code] = (self.clock.monotonic_ms(), room.game_ms)
        self.connections.setdefault(room.code, {})

    def room(self, raw_code: Any) -> Room:
        """The room with this code, loaded from the database if this process has not seen it yet."""
        code = normalise_code(raw_code)
        room = self.rooms.get(code)
        if room is not None:
            return room
        if self.store.leases is not None:
            self._take(code)
        with self._registry_lock:
            room = self.rooms.get(code) or self._load(code)
        if room is None:
            if self.store.leases is not None and code in self.store.leases.held:  # a closed or expired room: let go
                with self.store.engine.begin() as connection:
                    self.store.leases.release(connection, code)
            raise RoomError("unknown_room", f"there is no room {code}", "code")
        return room

    def _take(self, code: str) -> None:
        """A worker: hold the room's lease before loading it, waiting while its holder hands it over (at its next
        renewal) or, if the holder died, until the lease expires; RoomError ``room_moving`` if it takes longer."""
        leases = self.store.leases
        assert leases is not None
        if code in leases.held:
            return
        if self.store.room(code) is None:  # no room: nothing to take (unknown_room follows)
            return
        deadline = self.clock.monotonic_ms() + TTL_MS + 2 * RENEW_MS
        while not leases.acquire(code):
            if self.clock.monotonic_ms() >= deadline:
                raise RoomError("room_moving", "this room is moving to another server: try again in a moment")
            self.sleep(0.1)

    def _load(self, code: str) -> Room | None:
        record = self.store.room(code)
        if record is None or record.closed:
            return None
        if record.updated_ms < self.clock.wall_ms() - self.room_ttl_ms:  # past its time: gone, and so is its code
            self.store.delete_rooms([code])
            self.audience.rooms.pop(code, None)
            return None
        room = Room(code, record.seed, record.host_token_hash, self.timer_scale, self.include_unlisted,
                    record.owner_hash)
        self.audience.preload(code)
        room.replaying = True  # events are taken as they were logged (a name as old code cleaned it: host/room.py)
        for event in self.store.events(code):
            try:
                room.plan(event.kind, event.data)()
            except RoomError as error:  # a log the current code cannot replay: keep what replays
                log.error("room %s: event %d (%s) does not replay: %s", code, event.seq, event.kind, error)
                break
            self.audience.observe(room, room.game_ms, replaying=True)
        room.replaying = False
        self.audience.replayed(code)
        saved = self.store.clock(code)
        if saved is not None and saved > room.game_ms:  # the clock ran on after the last event, until the stop
            room.game_ms = saved
        self._install(room, record.updated_ms)
        now = self.clock.monotonic_ms()
        for seat in room.active_seats():  # no phone is here yet: each is away from now, as if it just dropped
            self.away_since[(code, seat.id)] = now
        if self.store.leases is not None:
            self.on_taken(code)
        return room

    def resume_clocks(self) -> None:
        """Start every room's game clock again from where it stood, now that the server is serving: the seconds the
        server took to start count for no timer (a restart resumes each timer with the time it had)."""
        now = self.clock.monotonic_ms()
        for code, room in list(self.rooms.items()):
            with self.locks[code]:
                self.anchors[code] = (now, self.anchors[code][1])

    def restore_all(self) -> int:
        """Rebuild every room active within the rooms' time to live (two days); returns how many. Rooms past it are
        deleted (``expire``)."""
        self.expire()
        since = self.clock.wall_ms() - self.room_ttl_ms
        count = 0
        for code in self.store.room_codes(since):
            if code not in self.rooms:
                with self._registry_lock:
                    if self._load(code) is not None:
                        count += 1
        return count

    # ----- the one write path -----

    def game_now(self, room: Room) -> int:
        """The room's game clock: it runs only while a game runs unpaused, so pauses and restarts are free."""
        mono_at, game_at = self.anchors[room.code]
        if room.phase != "playing" or room.paused:
            return game_at
        return game_at + max(0, self.clock.monotonic_ms() - mono_at)

    def submit(self, room: Room, kind: str, data: dict[str, Any]) -> Any:
        """Check, log, apply and announce one event; RoomError (and nothing changed) if refused. Returns what
        applying it gave (a join: the new seat's id), taken under the room's lock."""
        with self.locks[room.code]:
            data = {**data, "gt": self.game_now(room)}
            effect = room.plan(kind, data)
            try:
                self.store.append(room.code, room.seq + 1, kind, data, self.clock.wall_ms())
            except LeaseLost:  # another worker took the room (this one was paused or cut off): it acts no more here
                log.warning("room %s: another worker took it; its %s is refused, nothing written", room.code, kind)
                self._moved(room.code)
                raise RoomError("room_moved", "this room moved to another server: reconnecting") from None
            result = effect()
            self.anchors[room.code] = (self.clock.monotonic_ms(), room.game_ms)
            self.active_ms[room.code] = self.clock.wall_ms()
            self._track(room)
            self.audience.observe(room, data["gt"])
        self.notify(room.code)
        return result

    # ----- people -----

    def is_host(self, room: Room, token: Any) -> bool:
        """Whether the token is this room's host token."""
        return isinstance(token, str) and secrets.compare_digest(hash_token(token), room.host_token_hash)

    def seat_by_token(self, room: Room, token: Any) -> int:
        """The id of the active seat this token belongs to."""
        if not isinstance(token, str) or not token:
            raise RoomError("bad_token", "token must be text", "token")
        seat = room.seat_by_token_hash(hash_token(token))
        if seat is None and room.seat_replaced_from(hash_token(token)) is not None:
            raise RoomError("replaced", "your seat moved to another phone", "token")
        if seat is None:
            raise RoomError("bad_token", "this phone has no seat in the room", "token")
        if seat.kicked:
            raise RoomError("kicked", "the host removed you from this room")
        return seat.id

    def join(self, room: Room, name: Any, role: Any, language: Any = None) -> tuple[int, str]:
        """Seat a new person; returns the seat id and the seat token (only its hash is kept)."""
        token = secrets.token_urlsafe(24)
        if role == "spectator" and room.spectator_count() >= self.max_spectators:
            raise RoomError("audience_full", f"the room already has {self.max_spectators} spectators", "role")
        try:  # the seat's id as the join gave it: read after the lock, another join may have come in between
            seat_id = self.submit(room, "join", {"name": name, "role": role, "language": language,
                                                 "token_hash": hash_token(token)})
        except RoomError as error:
            held = room.seat_named(clean_name(name)) if error.code == "name_taken" else None
            if held is not None and held.id not in self.connected_seats(room.code):  # its phone is gone: maybe
                raise RoomError("name_away", f"the name {held.name!r} is taken by a seat whose phone is gone: "
                                "if it is yours, say so", "name") from error  # it is this person on a new phone
            raise
        return seat_id, token

    def host_event(self, room: Room, kind: str, data: dict[str, Any]) -> None:
        """A host control; ``start`` gets a fresh seed, ``kick`` tells the kicked phone."""
        if kind not in HOST_EVENTS:
            raise RoomError("invalid_event", f"unknown host control {kind!r}")
        if kind == "start":
            seed = self.seed_source()
            data = {"seed": seed, "content": self._content(room, seed), "timer_scale": self.timer_scale,
                    "seats": self.lineup(room)}
        if kind == "lineup":
            self._check_lineup(room, data)
        if kind == "packs" and isinstance(data.get("packs"), list):
            unknown = [p for p in data["packs"] if not isinstance(p, str) or not self.library.has(p, room.owner)]
            if unknown:
                raise RoomError("unknown_pack", f"no such pack: {unknown[0]!r}", "packs")
        self.submit(room, kind, data)
        if kind == "kick":
            self.on_kick(room.code, data["seat"])

    def gone(self, room: Room, seat_id: int) -> bool:
        """Whether a seat's phone has been gone longer than the room's seat grace (not seated in the next game)."""
        if seat_id in self.connected_seats(room.code):
            return False
        since = self.away_since.get((room.code, seat_id))
        return since is not None and self.clock.monotonic_ms() - since >= room.seat_grace_s * 1000

    def lineup(self, room: Room) -> list[int]:
        """Who plays the selected game if it starts now (``Room.lineup``)."""
        return room.lineup(lambda seat_id: self.gone(room, seat_id))

    def _check_lineup(self, room: Room, data: dict[str, Any]) -> None:
        """A host's swap that brings someone in without naming who makes room, while every seat is taken, is refused
        (the room would not know whom to leave out)."""
        info = registry.info(room.selected_game) if room.selected_game else None
        seat = data.get("seat")
        known = isinstance(seat, int) and seat in room.seats  # an unknown seat is the room's to refuse, by name
        if known and data.get("play") is True and data.get("instead") is None and info is not None and not info.teams:
            seated = self.lineup(room)
            if seat not in seated and len(seated) >= info.max_players:
                raise RoomError("lineup_full", "every seat is taken: choose who watches instead", "instead")

    # ----- coming back on another phone ("that's me") -----

    def claim(self, room: Room, name: Any, sid: str) -> dict[str, Any]:
        """A phone says it is the person of the seat with this name, whose phone is gone: the host is asked to
        confirm (``answer_claim``). A name held by a connected phone stays refused."""
        seat = room.seat_named(clean_name(name))
        if seat is None:
            raise RoomError("no_such_name", "nobody has this name in the room: join with it", "name")
        if seat.id in self.connected_seats(room.code):
            raise RoomError("name_taken", f"the name {seat.name!r} is taken in this room", "name")
        with self.locks[room.code]:
            now = self.clock.monotonic_ms()
            claims = [c for c in self.claims.get(room.code, []) if c.sid != sid and now - c.at_ms < CLAIM_TTL_MS]
            if len(claims) >= MAX_CLAIMS:
                raise RoomError("too_many_claims", "the host has too many requests to answer; try again soon")
            claim = Claim(self.next_claim_id, sid, seat.id, now)
            self.next_claim_id += 1
            self.claims[room.code] = [*claims, claim]
            room.version += 1
        self.notify(room.code)
        return {"claim": claim.id, "seat": seat.id, "name": seat.name}

    def pending_claims(self, room: Room) -> list[dict[str, Any]]:
        """What the host's TV shows of the phones waiting for a "that's me" answer."""
        now = self.clock.monotonic_ms()
        return [{"id": c.id, "seat": c.seat_id, "name": room.seats[c.seat_id].name}
                for c in self.claims.get(room.code, []) if now - c.at_ms < CLAIM_TTL_MS and c.seat_id in room.seats]

    def drop_claims(self, sid: str) -> None:
        """A phone that asked and left: its claim goes."""
        for code, claims in list(self.claims.items()):
            kept = [c for c in claims if c.sid != sid]
            if len(kept) != len(claims):
                self.claims[code] = kept
                room = self.rooms.get(code)
                if room is not None:
                    room.version += 1
                self.notify(code)

    def answer_claim(self, room: Room, claim_id: Any, accept: Any) -> None:
        """The host's answer to a "that's me": yes moves the seat to the new phone (its token replaces the old one),
        no tells the phone to choose another name."""
        if not isinstance(accept, bool):
            raise RoomError("invalid", "accept must be true or false", "accept")
        claims = self.claims.get(room.code, [])
        claim = next((c for c in claims if c.id == claim_id), None)
        if claim is None:
            raise RoomError("no_claim", "this request is no longer waiting", "claim")
        self.claims[room.code] = [c for c in claims if c.id != claim_id]
        if not accept:
            room.version += 1
            self.notify(room.code)
            self.tell_phone(claim.sid, "claim_refused", {"code": room.code})
            return
        if claim.seat_id in self.connected_seats(room.code):
            self.notify(room.code)
            self.tell_phone(claim.sid, "claim_refused", {"code": room.code})
            raise RoomError("name_taken", "that person's phone came back meanwhile", "claim")
        token = secrets.token_urlsafe(24)
        self.submit(room, "takeover", {"seat": claim.seat_id, "token_hash": hash_token(token)})
        self.tell_phone(claim.sid, "claimed", {"code": room.code, "seat": claim.seat_id, "token": token})

    def _content(self, room: Room, seed: int) -> Any:
        """What the selected game draws from outside before it starts (its questions), logged with the start."""
        game = registry.get(room.selected_game) if room.selected_game else None
        if game is None:
            return None
        supply = None
        if game.needs():  # the chosen packs first, then (a game's top-up setting) the built-in ones (CAMP-D15)
            chosen = self.chosen_packs(room)
            if room.packs and not chosen:  # never other questions instead: not even the top-up's alone
                raise RoomError("invalid_settings", "the chosen question packs are gone (deleted, or no longer "
                                "shared): choose others", "packs")
            supply = {"questions": self.library.entries(chosen),
                      "top_up": self.library.entries(self.library.default_packs(room.language)),
                      "seen": room.seen_questions}
        with game_errors():
            return game.prepare(room.game_settings(game.info.id), seed, supply)

    def chosen_packs(self, room: Room) -> list[str]:
        """The room's question packs: as chosen in the lobby (those it still sees: a pack deleted or no longer
        shared drops out), else the built-in ones in the room's language."""
        if room.packs is None:
            return self.library.default_packs(room.language)
        return [p for p in room.packs if self.library.has(p, room.owner)]  # as chosen: the ids its questions had

    def pack_supply(self, room: Room) -> dict[str, Any]:
        """What the lobby shows of questions: every pack, the chosen ones, and how many questions they offer. Every
        lobby view shows it and it costs a few queries (a count over every question): it is kept for
        ``SUPPLY_FRESH_MS``, and until this process changes a pack (another worker's or the command line's change
        shows within that time)."""
        key = (room.owner, room.language if room.packs is None else tuple(room.packs), questions.store.writes())
        now = self.clock.monotonic_ms()
        kept = self.supplies.get(key)
        if kept is not None and now - kept[0] < SUPPLY_FRESH_MS:
            return kept[1]
        if len(self.supplies) >= SUPPLY_KEPT:  # bounded: the stale ones go first, then all
            self.supplies = {k: v for k, v in self.supplies.items() if now - v[0] < SUPPLY_FRESH_MS}
            if len(self.supplies) >= SUPPLY_KEPT:
                self.supplies.clear()
        supply = self._pack_supply(room)
        self.supplies[key] = (now, supply)
        return supply

    def _pack_supply(self, room: Room) -> dict[str, Any]:
        packs = self.library.packs(room.owner)  # only the packs this room's host may choose (docs/packs.md)
        chosen = self.library.current(self.chosen_packs(room), room.owner)  # a deleted or unshared pack drops out
        return {"packs": packs, "selected": chosen,
                "numeric": sum(p["numeric"] for p in packs if p["id"] in chosen),
                "choice": sum(p["choice"] for p in packs if p["id"] in chosen)}

    def skip(self, room: Room) -> None:
        """End the current timer now, as if it had run out (not while paused: a pause stops everything)."""
        if room.paused:
            raise RoomError("paused", "the game is paused: resume it first")
        self.submit(room, "timeout", {})

    def host_next(self, room: Room) -> None:
        """The host's Next (a host-paced quiz waits for it after each reveal): a logged event, like a timeout."""
        self.submit(room, "next", {})

    def act(self, room: Room, seat_id: int, payload: Any, sid: str | None = None) -> None:
        """A player's game action: ``{"action": ..., "step": optional, "ms": optional}``; ``ms`` is the phone's
        own measure of a timed answer, taken only within what the server saw (``measure``)."""
        if not isinstance(payload, dict) or "action" not in payload:
            raise RoomError("invalid", "payload must be an object with an action", "action")
        step = payload.get("step")
        if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
            raise RoomError("invalid", "step must be a whole number", "step")
        claimed = payload.get("ms")
        if claimed is not None and (isinstance(claimed, bool) or not isinstance(claimed, (int, float))
                                    or not 0 <= claimed <= 3_600_000):
            raise RoomError("invalid", "ms must be a number of milliseconds", "ms")
        session = room.session
        slot = session.slot_of(seat_id) if session is not None else None
        if slot is None:
            raise RoomError("not_in_game", "you are not playing in this game")
        data: dict[str, Any] = {"slot": slot, "action": payload["action"], "step": step, "by": seat_id}
        with self.locks[room.code]:
            self.catch_up(room)  # a window that has just opened (or closed) counts even if the ticker is late
            window = session.game.answer_window(session.state, slot) if not session.is_over else None
            if window is not None:
                data["timing"] = self.measure(window[0], self.game_now(room), claimed, sid).to_json()
            self.submit(room, "action", data)

    def audience_answer(self, room: Room, seat_id: int, payload: Any, sid: str | None = None) -> dict[str, Any]:
        """A spectator's answer to the open question (host/audience.py): measured like a player's, never logged
        in the room's event log and never changing the game; returns ``{"ms": effective}``."""
        with self.locks[room.code]:
            self.catch_up(room)  # a question that has just opened (or closed) counts even if the ticker is late
            now = self.game_now(room)
            try:
                taken = self.audience.answer(room, seat_id, payload, now,
                                             lambda unlock, claimed: self.measure(unlock, now, claimed, sid),
                                             GRACE_MS, self.clock.wall_ms())
            except AudienceError as error:
                raise RoomError(error.code, error.message, error.field) from error
        if self.audience.flush_due():  # a crowd's answers piled up (the ticker is late): written here, outside the
            self.audience.flush(wait=False)  # room's lock, unless another task writes them already: the room's
        return taken  # other answers went on waiting for the lock while the database wrote (5,000-phone benchmark)

    def measure(self, unlock_ms: int, receipt_ms: int, claimed: float | None, sid: str | None) -> Timing:
        """The fair effective time of an answer (design.md).

        The server saw ``seen = receipt - unlock``. The phone counted from its own unlock, which it placed with
        its clock estimate (off by at most half a round trip), and its answer then travelled up to a round trip:
        an honest claim lies in ``[seen - rtt, seen + rtt/2]`` (each widened by a small slack for the server's
        own scheduling) and is taken as it is. A claim slower than that is
        clamped to the upper edge; a claim faster than the network or than any person (under 100 ms) is not
        believed and gets the upper edge too, so a phone that claims 0 ms never beats an honest phone with the
        same true time. No claim (a phone without a clock, a bot): the server's own measure."""
        seen = max(0, receipt_ms - unlock_ms)
        rtt = self.rtt_bound(sid)
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
        return Timing(claim, receipt_ms, unlock_ms, claim, rtt, "")

    def record_rtt(self, sid: str, rtt_ms: float) -> None:
        """A round trip the server measured to this socket."""
        if sid in self.sids and 0 <= rtt_ms < 60_000:
            self.rtts.setdefault(sid, deque(maxlen=RTT_SAMPLES)).append(int(rtt_ms))

    def rtt_bound(self, sid: str | None) -> int:
        """The socket's recent round trip: the largest of the last few, within sane limits."""
        samples = self.rtts.get(sid) if sid else None
        if not samples:
            return RTT_UNKNOWN_MS
        return max(RTT_FLOOR_MS, min(RTT_CEILING_MS, max(samples)))

    # ----- connections (not logged: they are not part of the game) -----

    def connect(self, room: Room, sid: str, seat_id: int | None) -> None:
        """Record a socket as the TV (None) or a seat's phone; a socket follows one room at a time."""
        previous = self.sids.get(sid)
        if previous is not None and previous[0] != room.code:
            self.disconnect(sid)
        elif previous is not None and previous[1] is not None:  # the same socket, seated anew (a join after a watch)
            self._seat_socket(room.code, previous[1], -1)
        self.connections.setdefault(room.code, {})[sid] = seat_id
        self.sids[sid] = (room.code, seat_id)
        if seat_id is not None:
            self._seat_socket(room.code, seat_id, 1)
        self.active_ms[room.code] = self.clock.wall_ms()
        if seat_id is not None:
            self.away_since.pop((room.code, seat_id), None)
        room.version += 1
        self.notify(room.code)

    def disconnect(self, sid: str) -> str | None:
        """Forget a socket; returns the code of the room it was in."""
        found = self.sids.pop(sid, None)
        self.rtts.pop(sid, None)
        if found is None:
            return None
        code, seat_id = found
        self.connections.get(code, {}).pop(sid, None)
        if seat_id is not None:
            self._seat_socket(code, seat_id, -1)
        self.houses.left(code, sid, seat_id)  # its own request ends, and one to a house with no one here any more
        if code in self.active_ms:
            self.active_ms[code] = self.clock.wall_ms()  # the room's time to live counts from when the last one left
        if seat_id is not None and seat_id not in self.connected_seats(code):
            self.away_since[(code, seat_id)] = self.clock.monotonic_ms()
        room = self.rooms.get(code)
        if room is not None:
            room.version += 1
        self.notify(code)
        return code

    def where(self, sid: str) -> tuple[str, int | None] | None:
        """The room code and seat (None: a TV) a socket follows."""
        return self.sids.get(sid)

    def notify_lobbies(self) -> None:
        """Tell every room in its lobby that the list of packs changed."""
        for room in list(self.rooms.values()):
            if room.phase == "lobby" and self.connections.get(room.code):
                room.version += 1
                self.notify(room.code)

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

    # ----- views -----

    def view(self, room: Room, seat_id: int | None, as_host: bool = False) -> dict[str, Any]:
        """The whole state one audience receives: the TV (seat None) or one seat."""
        with self.locks[room.code]:
            seat = room.seats.get(seat_id) if seat_id is not None else None
            if seat is not None and seat.role == "spectator":
                return self.spectator_view(room, seat_id, self.phone_public_view(room))
            return self._view(room, seat_id, as_host)

    def phone_public_view(self, room: Room) -> dict[str, Any]:
        """The public view as phones get it: without the list of spectators (only their count), which a phone
        never shows and which would make every message of a room with a thousand spectators huge, and outside the
        lobby without the games' settings (two thirds of a message)."""
        now = self.clock.monotonic_ms()
        kept = self.public_views.get(room.code)
        if kept is not None and kept[0] == room.version and now - kept[1] < PUBLIC_VIEW_FRESH_MS:
            view = kept[2]  # a burst of answers or hellos, each acknowledged with a state: built once, not each time
            if view.get("game") is not None:  # (O(n) each in a room of n spectators), with the clock of now
                view = {**view, "game": {**view["game"], "now_ms": self.game_now(room)}}
            return view
        result = self._view(room, None, False, spectators=False)
        if room.phase != "lobby":
            result["games"] = [{"id": g["id"], "name_key": g["name_key"]} for g in result["games"]]
        self.public_views[room.code] = (room.version, now, result, {})
        return result

    def spectator_view(self, room: Room, seat_id: int, shared: dict[str, Any]) -> dict[str, Any]:
        """A spectator's state: the public view ``shared`` (the TV's, without host rights; the broadcast builds it
        once for all spectators) with the spectator's own seat and audience play-along part."""
        result = dict(shared)
        seat = room.seats[seat_id]
        result["me"] = {**seat.public(), "language": seat.language, "kicked": seat.kicked}
        if shared.get("audience") is not None:
            result["audience"] = {**shared["audience"], "you": self.audience.personal_view(room, seat_id)}
        return result

    def _view(self, room: Room, seat_id: int | None, as_host: bool, spectators: bool = True) -> dict[str, Any]:
        with self.locks[room.code]:  # a phone's view lists no spectators (see phone_public_view)
            result = room.lobby_view(self.connected_seats(room.code), spectators and seat_id is None)
            result["game"] = room.game_view(seat_id, self.game_now(room))
            if result["game"] is not None:
                for slot in result["game"]["slots"]:  # a bot plays for a player whose phones are all gone
                    slot["away"] = self.team_away(room, slot["members"])
            result["audience"] = self.audience.public_view(room) if result["game"] is not None else None
            if seat_id is not None:
                result["spectators"] = []  # see phone_public_view
                if room.phase != "lobby":  # a phone shows the games' settings only in the lobby
                    result["games"] = [{"id": g["id"], "name_key": g["name_key"]} for g in result["games"]]
            result["host"] = as_host
            result["storage"] = self.audience.trouble(room.code) if as_host else None  # answers unsaved: warn the host
            result["epoch"] = self.epoch
            if room.phase == "lobby":
                result["questions"] = self.pack_supply(room)
            if room.phase != "playing":  # who plays the next game, and whose phone has been gone too long to
                result["lineup"] = {"seats": self.lineup(room),  # be given a seat
                                    "gone": [s["id"] for s in result["players"] if self.gone(room, s["id"])]}
            if as_host:
                result["claims"] = self.pending_claims(room)
            if seat_id is not None:
                seat = room.seats.get(seat_id)
                result["me"] = None if seat is None else {**seat.public(), "language": seat.language,
                                                          "kicked": seat.kicked}
                result["house_requests"] = self.houses.view(room, seat_id)  # host/houses.py
                if result["audience"] is not None and room.session is not None and \
                        room.session.slot_of(seat_id) is None:  # a latecomer plays along with the audience
                    result["audience"] = {**result["audience"], "you": self.audience.personal_view(room, seat_id)}
            return result

    # ----- time -----

    def tick(self) -> None:
        """Fire due timeouts and bot moves in every room; write the audience's answers that arrived meanwhile."""
        scoring = {c for c, a in self.audience.rooms.items() if a.question is not None and not a.question.scored}
        codes = self.running | scoring  # no other room has anything due: idle rooms cost nothing
        for room in [self.rooms[c] for c in sorted(codes) if c in self.rooms]:
            seq = room.seq
            try:
                self._tick_room(room)
            except RoomError as error:  # a race with a person's action: the next tick looks again
                log.debug("room %s tick: %s", room.code, error.message)
            if room.seq != seq:  # it fired something: let its broadcast and waiting handlers go first
                self.yield_now()
            if room.code in self.audience.rooms:
                with self.locks[room.code]:
                    scored = self.audience.score_due(room, self.game_now(room), GRACE_MS)
                if scored:
                    room.version += 1
                    self.notify(room.code)
        self.audience.flush()
        self.houses.expire()
        self.save_clocks()
        self.renew_leases()
        self._watch_lineups()
        self.expire()

    def renew_leases(self) -> None:
        """A worker, once every ``RENEW_MS``: renew its rooms' leases; drop the rooms another worker took meanwhile,
        and hand over those another worker asked for (clock written and lease released in one transaction, then the
        room's sockets closed: they reconnect through HAProxy to the worker that asked)."""
        leases = self.store.leases
        now = self.clock.monotonic_ms()
        if leases is None or (self.renewed_ms is not None and now - self.renewed_ms < RENEW_MS):
            return
        self.renewed_ms = now
        try:
            renewal = leases.renew()
        except Exception:  # the database is out of reach: the leases run on until they expire; try again next tick
            log.warning("could not renew the room leases", exc_info=True)
            return
        for code in renewal.lost:
            log.warning("room %s: another worker took it", code)
            self._moved(code)
        for code in renewal.wanted:
            room = self.rooms.get(code)
            try:
                with self.locks.get(code) or threading.RLock():
                    clock = {code: self.game_now(room)} if room is not None else {}
                    self.store.save_clocks(clock, release=code)
            except Exception:
                log.warning("room %s: could not hand it over", code, exc_info=True)
                continue
            log.info("room %s: handed over to the worker that asked", code)
            self._moved(code)

    def _moved(self, code: str) -> None:
        """This worker no longer holds the room: forget it and close its sockets (they reconnect to its holder)."""
        if self.store.leases is not None:
            self.store.leases.held.pop(code, None)
        sids = list(self.connections.get(code, {}))
        with self._registry_lock:
            self._forget(code)
        for sid in sids:
            self.sids.pop(sid, None)
            self.rtts.pop(sid, None)
        self.on_moved(code, sids)

    def _watch_lineups(self) -> None:
        """A phone gone past the seat grace leaves the next game's lineup with no event: once a second, tell each room
        in which such a grace ran out since the last look (a few arithmetic steps per absent seat)."""
        now = self.clock.monotonic_ms()
        last = self.lineups_checked
        if now - last < 1000:
            return
        self.lineups_checked = now
        changed = set()
        for (code, _seat), since in list(self.away_since.items()):
            room = self.rooms.get(code)
            if room is not None and last < since + room.seat_grace_s * 1000 <= now:
                changed.add(code)
        for code in changed:
            room = self.rooms[code]
            if room.phase != "playing":
                room.version += 1
                self.notify(code)

    def save_clocks(self, every_ms: int = CLOCK_SAVE_MS) -> None:
        """Write the game clock of every room whose clock moved ``every_ms`` or more since it was last written (0:
        every room whose clock moved at all, as the server stops)."""
        due: dict[str, int] = {}
        for code in list(self.running if every_ms else self.rooms):  # a stopped clock was written at its last event
            room = self.rooms[code]  # (a stop, ``every_ms`` 0, looks at every room)
            now = self.game_now(room)
            if now - self.clocks_saved.get(code, room.game_ms) >= max(1, every_ms):
                due[code] = now
        if not due:
            return
        try:
            written, lost = self.store.save_clocks(due)
        except Exception:  # the database is busy: the next tick writes a newer clock anyway
            log.warning("could not write the game clocks of %d room(s)", len(due), exc_info=True)
            return
        self.clocks_saved.update({code: due[code] for code in written})
        for code in lost:
            log.warning("room %s: another worker took it", code)
            self._moved(code)

    def expire(self) -> list[str]:
        """Delete the rooms without activity (an event or a connection) for the rooms' time to live and no one
        connected, from memory and the database, so that their codes can be drawn again; once a minute, from the
        ticker. Returns their codes."""
        now = self.clock.monotonic_ms()
        if self.expired_checked is not None and now - self.expired_checked < EXPIRE_EVERY_MS:
            return []
        self.expired_checked = now
        before = self.clock.wall_ms() - self.room_ttl_ms
        stale = [code for code, at in list(self.active_ms.items())
                 if at < before and not self.connections.get(code) and code in self.rooms]
        with self._registry_lock:
            for code in stale:
                self._forget(code)
            try:
                gone = self.store.expire_rooms(before, keep=set(self.rooms))
            except Exception:  # the database is busy: the next look deletes them
                log.warning("could not delete expired rooms", exc_info=True)
                return stale
        if stale or gone:
            log.info("deleted %d room(s) without activity for %d h", len(set(stale) | set(gone)),
                     self.room_ttl_ms // 3_600_000)
        return sorted(set(stale) | set(gone))

    def _track(self, room: Room) -> None:
        """Keep ``running`` true to the room's phase (after every event)."""
        if room.phase == "playing":
            self.running.add(room.code)
        else:
            self.running.discard(room.code)

    def _forget(self, code: str) -> None:
        """Drop everything this process holds about a room."""
        for table in (self.rooms, self.locks, self.anchors, self.connections, self.seat_sockets, self.active_ms,
                      self.claims, self.clocks_saved, self.audience.rooms, self.public_views):
            table.pop(code, None)  # type: ignore[attr-defined]
        self.running.discard(code)
        for key in [k for k in self.away_since if k[0] == code]:
            del self.away_since[key]
        for key in [k for k in self.bot_plans if k[0] == code]:
            del self.bot_plans[key]

    def due_deadline(self, room: Room) -> int | None:
        """When the room's current timed step ends, with the grace for answers in flight."""
        session = room.session
        if session is None or session.is_over or room.paused:
            return None
        deadline = session.game.deadline(session.state)
        if deadline is not None and any(session.game.answer_window(session.state, s.index) for s in session.slots):
            deadline += GRACE_MS  # answers already on their way are still taken
        return deadline

    def catch_up(self, room: Room, limit: int = 20) -> None:
        """Fire every timeout that is due now, before anything else happens in the room."""
        for _ in range(limit):
            deadline = self.due_deadline(room)
            if deadline is None or self.game_now(room) < deadline:
                return
            self.submit(room, "timeout", {})

    def _tick_room(self, room: Room) -> None:
        session = room.session
        if session is None or session.is_over or room.paused:
            return
        deadline = self.due_deadline(room)
        if deadline is not None and self.game_now(room) >= deadline:
            self.submit(room, "timeout", {})
            return
        now = self.game_now(room)
        for slot in session.slots:
            if not slot.is_bot and not self.team_away(room, slot.members):
                continue
            key = (room.code, slot.index)
            if not session.game.can_act(session.state, slot.index):
                self.bot_plans.pop(key, None)
                continue
            step = session.game.step(session.state)
            plan = self.bot_plans.get(key)
            if plan is None or plan.step != (step if step is not None else room.seq):
                decision = session.game.bot_action(session.state, slot.index, new_bot_rng(room, slot.index))
                if decision is None:
                    continue
                action, delay = decision
                plan = BotPlan(now + max(0, int(delay)), step if step is not None else room.seq, action)
                self.bot_plans[key] = plan
            if now >= plan.due_ms:
                del self.bot_plans[key]
                self.submit(room, "action", {"slot": slot.index, "action": plan.action,
                                             "step": None, "by": "bot"})
                return

    def is_away(self, room: Room, seat_id: int | None) -> bool:
        """Whether a seat's phone has been gone longer than the grace, so a bot plays for it meanwhile (CAMP-D13);
        it takes the seat back the moment a phone of the seat reconnects."""
        if seat_id is None:
            return False
        since = self.away_since.get((room.code, seat_id))
        grace = max(3000, int(AWAY_GRACE_MS * self.timer_scale))
        return since is not None and self.clock.monotonic_ms() - since >= grace

    def team_away(self, room: Room, members: list[int]) -> bool:
        """Whether every phone playing a game seat is away (one seat, or all members of a team)."""
        return bool(members) and all(self.is_away(room, m) for m in members)

    def next_wakeup_ms(self) -> int:
        """How long the ticker may sleep: short while any game runs, longer otherwise."""
        running = any(not self.rooms[c].paused for c in self.running if c in self.rooms)
        return 50 if running else 250

