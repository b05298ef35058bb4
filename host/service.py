"""The room service: the only way rooms change, one event at a time per room, logged before it is sent.

For every event it runs the same steps: find the room, check the event completely (``Room.plan``), append it
to the database log and commit, apply it, then tell the transport (``notify``, host/broadcast.py) which room changed.
Timeouts and bot moves go through the same path from ``tick``, which the app calls from one background task.

``RoomService`` holds the rooms of this process (created, loaded from their logs, taken from another worker), their
events and what each audience is shown of them; it composes the parts that keep their own state:
``connections`` (host/connections.py: sockets, seats' phones, round trips and the fair timing of answers),
``clocks`` (host/clocks.py: game clocks, what comes due on them, clock saving, leases and expiry), ``claims``
(host/claims.py: "that's me"), ``houses`` (host/houses.py) and ``audience`` (host/audience.py).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import questions.store
from engine import registry
from engine.core import Rng
from host.audience import Audience, AudienceError
from host.claims import Claims
from host.clocks import GRACE_MS, Clocks
from host.connections import Connections
from host.houses import HouseRequests
from host.lease import RENEW_MS, TTL_MS, LeaseLost
from host.plan import PackStats, next_game
from host.remote import Remotes
from host.room import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Room,
    RoomError,
    clean_name,
    game_errors,
    hash_token,
    normalise_code,
)
from host.store import Store
from questions.library import Library

log = logging.getLogger("throneroom.rooms")

HOST_EVENTS = ("lock", "language", "select_game", "settings", "packs", "start", "pause", "resume", "end", "lobby",
               "kick", "team", "lineup", "seat_grace", "name_filter", "extra_time")
PUBLIC_VIEW_FRESH_MS = 250  # a phone's public view at one room version is built once in this time (phone_public_view)
SUPPLY_FRESH_MS = 1000  # how long a lobby's list of packs is kept (pack_supply)
SUPPLY_KEPT = 1000  # and how many lists at most (one per host and choice of packs)
DRAW_SALT = 0xD7A3  # a start's sample of the packs is drawn from its seed with this (Library.draw)
ROOM_TTL_MS = 48 * 3600 * 1000  # a room without activity this long is deleted (docs/security.md); a restart restores
# the rooms active within it
MAX_SPECTATORS = 500  # per room (a setting): every spectator is in the TV's state


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
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, threading.RLock] = RoomLocks()
        self.registry_lock = threading.Lock()  # held while rooms are added to or dropped from ``rooms``
        self.supplies: dict[Any, tuple[int, dict[str, Any]]] = {}  # pack_supply's answers, with when
        # code -> (version, when, phone view, what the sockets derive from that view and keep with it: its JSON)
        self.public_views: dict[str, tuple[int, int, dict[str, Any], dict[str, Any]]] = {}
        self.library = Library(store.engine)
        self.pack_stats = PackStats(store.engine)  # each chosen pack's counts, for the lobby's summary (host/plan.py)
        self.connections = Connections(self)  # sockets, seats' phones, round trips (host/connections.py)
        self.clocks = Clocks(self)  # game clocks, what comes due, leases, expiry (host/clocks.py)
        self.claims = Claims(self)  # "that's me" waiting for the host (host/claims.py)
        self.houses = HouseRequests(self)  # latecomers asking a house with people to let them in (CROWN-D2)
        self.remotes = Remotes(self)  # the host remote a phone may hold (host/remote.py)
        self.audience = Audience(store.engine)  # spectators' play-along (host/audience.py), outside the game
        # The transport (host/broadcast.py Broadcaster, wired by host/app.py); without it, nobody is told anything.
        self.notify: Callable[[str], None] = lambda code: None  # a room changed: send its sockets their views
        self.on_foreseen: Callable[[str], None] = lambda code: None  # it changed as its screens show by themselves
        self.on_kick: Callable[[str, int], None] = lambda code, seat_id: None  # tell a kicked seat's phones
        self.tell_phone: Callable[[str, str, dict[str, Any]], None] = lambda sid, event, data: None  # tell a phone
        self.on_moved: Callable[[str, list[str]], None] = lambda code, sids: None  # close a room's sockets
        self.on_forgotten: Callable[[str, list[str]], None] = lambda code, sids: None  # the transport drops what it
        # keeps for a room this process no longer holds (``forget``), and for its sockets
        self.on_left: Callable[[str, str], None] = lambda code, sid: None  # and for a socket that left (a disconnect)
        self.yield_now: Callable[[], None] = lambda: None  # the ticker lets others run between busy rooms
        self.sleep: Callable[[float], None] = time.sleep  # the app gives Socket.IO's own (waiting for a lease)
        self.on_taken: Callable[[str], None] = lambda code: None  # a worker loaded a room it now holds (host/relay.py)

    # ----- rooms -----

    def create_room(self, came_from: Any = None) -> tuple[str, str]:
        """A new room: its code and the host token (only its hash is kept). ``came_from`` may be the room this TV
        leaves with "New room", ``{"code": ..., "host_token": ...}``: if the token is that room's host token, the new
        room keeps that room's owner identity (its host's packs, docs/packs.md); anything else is ignored."""
        host_token = secrets.token_urlsafe(24)
        owner = self._owner_from(came_from) or hash_token(host_token)
        seed = self.seed_source()
        with self.registry_lock:
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
        self.locks[room.code] = threading.RLock()
        self.clocks.add(room, active_ms)

    def room(self, raw_code: Any) -> Room:
        """The room with this code, loaded from the database if this process has not seen it yet."""
        code = normalise_code(raw_code)
        room = self.rooms.get(code)
        if room is not None:
            return room
        if self.store.leases is not None:
            self._take(code)
        with self.registry_lock:
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
        self.connections.all_away(room)
        if self.store.leases is not None:
            self.on_taken(code)
        return room

    def restore_all(self) -> int:
        """Rebuild every room active within the rooms' time to live (two days); returns how many. Rooms past it are
        deleted (``Clocks.expire``)."""
        self.clocks.expire()
        since = self.clock.wall_ms() - self.room_ttl_ms
        count = 0
        for code in self.store.room_codes(since):
            if code not in self.rooms:
                with self.registry_lock:
                    if self._load(code) is not None:
                        count += 1
        return count

    def forget(self, code: str) -> list[str]:
        """Drop everything this process holds about a room (under ``registry_lock``), in every table kept per room or
        per socket (tests/test_forgotten_rooms.py): a server up for weeks must not grow with each room that expired or
        moved away. Returns its sockets."""
        for table in (self.rooms, self.locks, self.public_views):
            table.pop(code, None)  # type: ignore[attr-defined]
        self.audience.forget(code)
        self.clocks.forget(code)
        self.claims.forget(code)
        self.houses.forget(code)
        self.remotes.forget(code)
        sids = self.connections.forget(code)
        self.on_forgotten(code, sids)
        return sids

    def room_moved(self, code: str) -> None:
        """This worker no longer holds the room: forget it and close its sockets (they reconnect to its holder)."""
        if self.store.leases is not None:
            self.store.leases.held.pop(code, None)
        with self.registry_lock:
            sids = self.forget(code)
        self.on_moved(code, sids)

    # ----- the one write path -----

    def submit(self, room: Room, kind: str, data: dict[str, Any], still: Callable[[], bool] | None = None) -> Any:
        """Check, log, apply and announce one event; RoomError (and nothing changed) if refused. Returns what
        applying it gave (a join: the new seat's id), taken under the room's lock. A timeout whose change every
        screen makes by itself at the time it showed (``Game.foreseen``: a question's preview or "get ready" that ends
        on time) is not announced: a quarter of the party benchmark's states, which told nothing new
        (docs/decisions.md). ``still``: for an event decided without the room's lock (the ticker's), whether it still
        holds once the lock is taken; if not, nothing is done and None returned."""
        with self.locks[room.code]:
            if still is not None and not still():
                return None
            data = {**data, "gt": self.clocks.game_now(room)}
            before = room.session.state if kind == "timeout" and room.session is not None else None
            effect = room.plan(kind, data)
            try:
                self.store.append(room.code, room.seq + 1, kind, data, self.clock.wall_ms())
            except LeaseLost:  # another worker took the room (this one was paused or cut off): it acts no more here
                log.warning("room %s: another worker took it; its %s is refused, nothing written", room.code, kind)
                self.room_moved(room.code)
                raise RoomError("room_moved", "this room moved to another server: reconnecting") from None
            result = effect()
            self.clocks.applied(room)
            self.audience.observe(room, data["gt"])
            session = room.session
            foreseen = before is not None and session is not None and session.game.foreseen(before, session.state)
        if foreseen:
            self.on_foreseen(room.code)
        else:
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
        if seat.freed:
            raise RoomError("seat_freed", "you were away before playing and your place went to someone who came: "
                            "join again", "token")
        if seat.kicked:
            raise RoomError("kicked", "the host removed you from this room")
        return seat.id

    def making_room(self, room: Room, submit: Callable[[], Any]) -> Any:
        """``submit()`` (a join, or a spectator coming in to play); refused ``room_full``, once a seat is freed
        (``free_seat``) it is tried again: twelve guests who joined and left must not keep the room full until the
        host kicks each."""
        try:
            return submit()
        except RoomError as error:
            if error.code != "room_full" or not self.free_seat(room):
                raise
        return submit()

    def free_seat(self, room: Room) -> bool:
        """Free the seat of a player who never had a place in a game and whose phone has been gone longer than the
        room's seat grace (the one gone longest), logged as ``free`` (docs/seats.md, "Freed"); False if there is
        none. A seat that played keeps its place (its score, its house) however long its phone is gone."""
        with self.locks[room.code]:
            away = self.connections.away_since
            idle = [s for s in room.players() if not s.played and self.connections.gone(room, s.id)]
            if not idle:
                return False
            seat = min(idle, key=lambda s: (away.get((room.code, s.id), 0), s.id))
            self.submit(room, "free", {"seat": seat.id})
            away.pop((room.code, seat.id), None)
            return True

    def join(self, room: Room, name: Any, role: Any, language: Any = None) -> tuple[int, str]:
        """Seat a new person; returns the seat id and the seat token (only its hash is kept)."""
        token = secrets.token_urlsafe(24)
        if role == "spectator" and room.spectator_count() >= self.max_spectators:
            raise RoomError("audience_full", f"the room already has {self.max_spectators} spectators", "role")
        data = {"name": name, "role": role, "language": language, "token_hash": hash_token(token)}
        try:  # the seat's id as the join gave it: read after the lock, another join may have come in between
            seat_id = self.making_room(room, lambda: self.submit(room, "join", dict(data)))
        except RoomError as error:
            held = room.seat_named(clean_name(name)) if error.code == "name_taken" else None
            if held is not None and held.id not in self.connections.connected_seats(room.code):
                # its phone is gone: maybe it is this person on a new phone
                raise RoomError("name_away", f"the name {held.name!r} is taken by a seat whose phone is gone: "
                                "if it is yours, say so", "name") from error
            raise
        if room.seats[seat_id].role == "player":
            self.seat_latecomer(room, seat_id)
        return seat_id, token

    def seat_latecomer(self, room: Room, seat_id: int) -> bool:
        """A player who just joined while a game runs that takes latecomers (the Quiz, QUIZ-S14) plays the rest of
        it: a ``latecomer`` event gives them a game seat (logged, so a restart keeps it). A game that takes none, or
        is full, leaves them watching until the next game, as before (docs/seats.md, "Latecomers"). Whether they got
        a seat."""
        with self.locks[room.code]:
            session = room.session
            if session is None or session.is_over or not session.game.takes_latecomers(session.state):
                return False
            try:
                self.submit(room, "latecomer", {"seat": seat_id})
            except RoomError as error:  # full, or the game ended meanwhile: they watch it
                log.info("room %s: latecomer %s watches: %s", room.code, seat_id, error.message)
                return False
            return True

    def host_event(self, room: Room, kind: str, data: dict[str, Any], by: int | None = None) -> None:
        """A host control; ``start`` gets a fresh seed, ``kick`` tells the kicked phone. ``by``: the seat whose phone
        sent it with the host remote (host/remote.py), logged as ``remote``; None from the host's TV."""
        if kind not in HOST_EVENTS:
            raise RoomError("invalid_event", f"unknown host control {kind!r}")
        if kind == "start":
            seed = self.seed_source()
            data = {"seed": seed, "content": self._content(room, seed), "timer_scale": self.timer_scale,
                    "seats": self.lineup(room)}
        if by is not None:
            data = {**data, "remote": by}
        if kind == "lineup":
            self._check_lineup(room, data)
        if kind == "packs" and isinstance(data.get("packs"), list):
            unknown = [p for p in data["packs"] if not isinstance(p, str) or not self.library.has(p, room.owner)]
            if unknown:
                raise RoomError("unknown_pack", f"no such pack: {unknown[0]!r}", "packs")
        self.making_room(room, lambda: self.submit(room, kind, data))  # a spectator the host brings in to play
        if kind == "lock" and room.locked:  # a locked room takes no one: the "that's me" waiting end
            self.claims.drop(room, "locked")
        if kind == "start":
            self.connections.new_game(room.code)
        if kind == "kick":
            self.on_kick(room.code, data["seat"])

    def lineup(self, room: Room) -> list[int]:
        """Who plays the selected game if it starts now (``Room.lineup``)."""
        return room.lineup(lambda seat_id: self.connections.gone(room, seat_id))

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

    # ----- question packs -----

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
            # only a sample of the packs is read, as the game asks (engine.core.Draw): a pack may hold 20,000
            # questions and a room may choose 50; the other rooms run between the packs' reads
            how, rng = game.draw(room.game_settings(game.info.id)), Rng(seed ^ DRAW_SALT)
            supply = {"questions": self.library.draw(chosen, how, room.seen_questions, rng, room.code,
                                                     self.yield_now),
                      "top_up": self.library.draw(self.library.default_packs(room.language), how,
                                                  room.seen_questions, rng, room.code, self.yield_now),
                      "seen": room.seen_questions}
        with game_errors():
            return game.prepare(room.game_settings(game.info.id), seed, supply)

    def chosen_packs(self, room: Room) -> list[str]:
        """The room's question packs: as chosen in the lobby (those it still sees: a pack deleted or no longer
        shared drops out), else the built-in ones in the room's language."""
        if room.packs is None:
            return self.library.default_packs(room.language)
        return [p for p in room.packs if self.library.has(p, room.owner)]  # as chosen: the ids its questions had

    def next_game(self, room: Room, chosen: list[str]) -> dict[str, Any] | None:
        """What the lobby says of the selected game before Start, if it plays questions (host/plan.py)."""
        game = registry.get(room.selected_game) if room.selected_game else None
        if game is None or not game.needs():
            return None
        return next_game(game, room.game_settings(game.info.id), self.pack_stats.of(chosen), room.timer_scale)

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
        return {"packs": packs, "selected": chosen, "total": self.pack_stats.of(chosen).total,
                "numeric": sum(p["numeric"] for p in packs if p["id"] in chosen),
                "choice": sum(p["choice"] for p in packs if p["id"] in chosen)}

    def pack_uploaded(self, room: Room, pack_id: str) -> str:
        """A pack the host just uploaded becomes the next game's choice (docs/packs.md, "An upload is the next game's
        pack"), logged as a ``packs`` event marked ``uploaded``: it replaces the room's choice ("replaced"), or, if
        the host ticked or unticked packs since the last start (``Room.packs_by_hand``), is added to it ("added").
        While a game runs nothing changes ("unchanged"), nor when the choice is full (50 packs)."""
        with self.locks[room.code]:
            if room.phase == "playing":
                return "unchanged"
            added = room.packs_by_hand
            chosen = [p for p in self.library.current(self.chosen_packs(room), room.owner) if p != pack_id]
            packs = [*chosen, pack_id] if added else [pack_id]
            try:
                self.submit(room, "packs", {"packs": packs, "uploaded": pack_id})
            except RoomError as error:
                log.info("room %s: the upload %s is not chosen: %s", room.code, pack_id, error.message)
                return "unchanged"
            return "added" if added else "replaced"

    def notify_lobbies(self) -> None:
        """Tell every room in its lobby that the list of packs changed."""
        for room in list(self.rooms.values()):
            if room.phase == "lobby" and self.connections.of_room(room.code):
                room.version += 1
                self.notify(room.code)

    # ----- the game -----

    def skip(self, room: Room, by: int | None = None) -> None:
        """End the current timer now, as if it had run out (not while paused: a pause stops everything). ``by``: as
        in ``host_event``."""
        if room.paused:
            raise RoomError("paused", "the game is paused: resume it first")
        self.submit(room, "timeout", {} if by is None else {"remote": by})

    def host_next(self, room: Room, by: int | None = None) -> None:
        """The host's Next (a host-paced quiz waits for it after each reveal): a logged event, like a timeout."""
        self.submit(room, "next", {} if by is None else {"remote": by})

    def act(self, room: Room, seat_id: int, payload: Any, sid: str | None = None) -> None:
        """A player's game action: ``{"action": ..., "step": optional, "ms": optional}``; ``ms`` is the phone's
        own measure of a timed answer, taken only within what the server saw (``Connections.measure``)."""
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
            self.clocks.catch_up(room)  # a window that has just opened (or closed) counts even if the ticker is late
            window = session.game.answer_window(session.state, slot) if not session.is_over else None
            if window is not None:
                now = self.clocks.game_now(room)
                timing = self.connections.measure(window[0], now, claimed, sid)
                data["timing"] = timing.to_json()
                self.connections.doubt(room, seat_id, sid, timing)
            self.submit(room, "action", data)

    def audience_answer(self, room: Room, seat_id: int, payload: Any, sid: str | None = None) -> dict[str, Any]:
        """A spectator's answer to the open question (host/audience.py): measured like a player's, never logged
        in the room's event log and never changing the game; returns ``{"ms": effective}``."""
        self.clocks.refuse_while_down()  # the database is down: what could not be written is not taken
        with self.locks[room.code]:
            self.clocks.catch_up(room)  # a question just opened (or closed) counts even if the ticker is late
            now = self.clocks.game_now(room)
            measure = self.connections.measure
            try:
                taken = self.audience.answer(room, seat_id, payload, now,
                                             lambda unlock, claimed: measure(unlock, now, claimed, sid),
                                             GRACE_MS, self.clock.wall_ms())
            except AudienceError as error:
                raise RoomError(error.code, error.message, error.field) from error
        if self.audience.flush_due():  # a crowd's answers piled up (the ticker is late): written here, outside the
            self.audience.flush(wait=False)  # room's lock, unless another task writes them already: the room's
        return taken  # other answers went on waiting for the lock while the database wrote (5,000-phone benchmark)

    # ----- views -----

    def view(self, room: Room, seat_id: int | None, as_host: bool = False,
             shared: dict[Any, Any] | None = None) -> dict[str, Any]:
        """The whole state one audience receives: the TV (seat None) or one seat. ``shared``: a broadcast's cache of
        what every view of the room has in common at this moment (``_view``), so that one change builds it once."""
        with self.locks[room.code]:
            seat = room.seats.get(seat_id) if seat_id is not None else None
            if seat is not None and seat.role == "spectator":
                return self.spectator_view(room, seat_id, self.phone_public_view(room))
            return self._view(room, seat_id, as_host, shared=shared)

    def phone_public_view(self, room: Room) -> dict[str, Any]:
        """The public view as phones get it: without the list of spectators (only their count), which a phone
        never shows and which would make every message of a room with a thousand spectators huge, and outside the
        lobby without the games' settings (two thirds of a message)."""
        now = self.clock.monotonic_ms()
        kept = self.public_views.get(room.code)
        if kept is not None and kept[0] == room.version and now - kept[1] < PUBLIC_VIEW_FRESH_MS:
            view = kept[2]  # a burst of answers or hellos, each acknowledged with a state: built once, not each time
            if view.get("game") is not None:  # (O(n) each in a room of n spectators), with the clock of now
                view = {**view, "game": {**view["game"], "now_ms": self.clocks.game_now(room)}}
            return view
        result = self._view(room, None, False, spectators=False)
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

    def _view(self, room: Room, seat_id: int | None, as_host: bool, spectators: bool = True,
              shared: dict[Any, Any] | None = None) -> dict[str, Any]:
        """One audience's state (``view``). The parts that are the same for every screen and phone of the room at
        this moment (the lobby part, who is offline, the audience's board, the packs, the lineup) are built once per
        broadcast when given its ``shared`` cache: building each again for the TV and every phone was a fifth of an
        action's cost (the party benchmark's profile, docs/bench.md). They are never changed once built: each view
        is a new dict over them."""
        def part(key: Any, make: Callable[[], Any]) -> Any:
            if shared is None:
                return make()
            if key not in shared:
                shared[key] = make()
            return shared[key]

        with self.locks[room.code]:  # a phone's view lists no spectators (see phone_public_view): the TV's does
            listed = spectators and seat_id is None
            lobby = part(("lobby", listed), lambda: self._lobby_part(room, listed))
            result = dict(lobby)
            # the seats, with who is offline and whether a bot plays for a player whose phones are all gone, where
            # the game stands in (QUIZ-S15): the same for every screen, built once per broadcast
            slots = part("slots", lambda: room.game_slots(self._offline(room))) if room.session is not None else None
            result["game"] = room.game_view(seat_id, self.clocks.game_now(room), slots)
            result["audience"] = part("audience", lambda: self.audience.public_view(room)) \
                if result["game"] is not None else None
            if seat_id is not None:
                result["spectators"] = []  # see phone_public_view
            result["host"] = as_host
            result["storage"] = self.audience.trouble(room.code) if as_host else None  # answers unsaved: warn the host
            result["hold"] = self.clocks.hold_view(room.code)  # why the room holds still (a service down), if it does
            if result["hold"] is not None:  # its clock stands still: the pages' countdowns stop as in a pause
                result["paused"] = True
            result["epoch"] = self.epoch
            if room.phase == "lobby":
                result["questions"] = part(("questions", as_host), lambda: self._questions_part(room, as_host))
            if room.phase != "playing":  # who plays the next game, and whose phone has been gone too long to
                result["lineup"] = part("lineup", lambda: {  # be given a seat
                    "seats": self.lineup(room),
                    "gone": [s["id"] for s in lobby["players"] if self.connections.gone(room, s["id"])]})
            if as_host:
                result["claims"] = self.claims.view(room)
                result["remote"] = self.remotes.tv_view(room)  # who holds the host remote (host/remote.py)
                result["timing_doubts"] = self.connections.doubts_view(room)  # phones whose claims are not believed
                # extended time per room seat (docs/decisions.md, "Extended time"): the host's screen only
                result["extra_time"] = {str(k): v for k, v in sorted(room.time_factors.items())}
            if seat_id is not None:
                seat = room.seats.get(seat_id)
                result["me"] = None if seat is None else {**seat.public(), "language": seat.language,
                                                          "kicked": seat.kicked}
                result["house_requests"] = self.houses.view(room, seat_id)  # host/houses.py
                if result["audience"] is not None and room.session is not None and \
                        room.session.slot_of(seat_id) is None:  # a latecomer plays along with the audience
                    result["audience"] = {**result["audience"], "you": self.audience.personal_view(room, seat_id)}
            return result

    def _lobby_part(self, room: Room, listed: bool) -> dict[str, Any]:
        """``Room.lobby_view`` as one kind of screen gets it: ``listed``, with the first spectators by name (the
        TV)."""
        return room.lobby_view(self.connections.connected_seats(room.code), listed)

    def _offline(self, room: Room) -> dict[int, tuple[bool, bool]]:
        """Per game seat: whether every phone of it is gone past the bot grace, and whether a bot plays for it
        meanwhile (the game stands in for absent players)."""
        session = room.session
        if session is None:
            return {}
        stands_in = session.game.stands_in(session.state)
        result = {}
        for slot in session.slots:
            offline = self.connections.team_away(room, slot.members)
            result[slot.index] = (offline, offline and stands_in)
        return result

    def _questions_part(self, room: Room, as_host: bool) -> dict[str, Any]:
        """What a lobby shows of questions: the packs on offer (to the host's screen, its private uploads too; the
        others learn only what the room plays: a pack's id is what its images are fetched by), and the plan."""
        supply = self.pack_supply(room)
        if not as_host:
            supply = {**supply, "packs": [p for p in supply["packs"] if p["id"] in supply["selected"]]}
        return {**supply, "plan": self.next_game(room, supply["selected"])}

    # ----- the ticker -----

    def tick(self) -> None:
        """One turn of the ticker (host/app.py, one background task): fire what is due in the rooms (timeouts, bot
        moves, audience questions to score), then the upkeep: the audience's answers that arrived meanwhile written,
        house requests ended, game clocks written, a worker's leases renewed, lineups told of seat graces that ran
        out, rooms past their time deleted."""
        self.clocks.fire_due()
        self.audience.flush()
        self.houses.expire()
        self.clocks.save()
        self.clocks.renew_leases()
        self.connections.watch_lineups()
        self.clocks.expire()
