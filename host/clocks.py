"""Each room's game clock and what comes due on it, which the ticker (``RoomService.tick``, one background task of
host/app.py) fires: timeouts and bot moves, audience questions to score; and the ticker's upkeep of the rooms this
process holds: game clocks written (so a restart resumes every timer exactly), a worker's room leases renewed and
handed over (host/lease.py, docs/scaling.md), rooms without activity for their time to live deleted.

A game clock runs only while its game runs unpaused: it is anchored, at every event, to the monotonic clock, so
pauses and restarts cost no timer anything. Only the rooms whose game runs (``running``) are looked at each tick:
idle rooms cost nothing.

A room also *holds still* while what it needs does not answer (docs/scaling.md, "When PostgreSQL or Redis stops"):
every room while the database is down (nothing can be logged), and a room whose spectators are relayed through other
workers while Redis is down (their answers cannot reach it). A hold is no event (nothing could be logged): it is this
process's own state. The held room's game clock stops where it stood (so its timers and its bots' moves, due on that
clock, do not fire), the ticker leaves it alone, and its screens are told why (``hold_view``); when the hold ends the
clock goes on from where it stopped.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from host.lease import RENEW_MS
from host.room import Room, RoomError, new_bot_rng
from host.store import PROBE_EVERY_MS

if TYPE_CHECKING:
    from host.service import RoomService

log = logging.getLogger("throneroom.rooms")

GRACE_MS = 250  # answers in flight at the deadline are still taken (docs/decisions.md, "Fair timing")
CLOCK_SAVE_MS = 200  # a running game's clock is written this often, so a restart resumes its timers exactly
EXPIRE_EVERY_MS = 60_000  # how often the ticker looks for rooms past their time
HOLD_BACKDATE_MS = 1000  # an outage found by a failed write holds the clocks from the last moment the database
# answered (a clock write every CLOCK_SAVE_MS, an event), at most this far back


@dataclass
class BotPlan:
    """A bot's next move, due at a game time, valid while the game's step is unchanged."""

    due_ms: int
    step: Any
    action: Any


class Clocks:
    """The game clocks and the ticker's work for one service's rooms; see the module docstring."""

    def __init__(self, service: RoomService):
        self.service = service
        self.anchors: dict[str, tuple[int, int]] = {}  # code -> (monotonic ms, game ms) at the last event
        self.running: set[str] = set()  # codes of the rooms whose game runs: the only ones the ticker looks at
        self.active_ms: dict[str, int] = {}  # code -> wall ms of the room's last event or connection
        self.saved: dict[str, int] = {}  # code -> the game clock last written (store.save_clocks)
        self.save_pass_ms: int | None = None  # monotonic ms of the last pass that wrote the clocks (``save``)
        self.bot_plans: dict[tuple[str, int], BotPlan] = {}
        # code -> (seq, version, game ms, monotonic ms): the room had nothing due at that seq and version before that
        # game time and that time (``tick_room``): the ticker's twenty passes a second skip it until then
        self.quiet: dict[str, tuple[int, int, int, int]] = {}
        self.expired_checked: int | None = None  # monotonic ms of the last look for expired rooms
        self.renewed_ms: int | None = None  # monotonic ms of the last lease renewal (workers)
        self.held: dict[str, int] = {}  # code -> monotonic ms its clock stopped at (a hold, see the module docstring)
        self.hold_reasons: dict[str, set[str]] = {}  # code -> why: "database", "relay"
        self.db_ok_ms = 0  # monotonic ms the database last answered a write (backdates a hold)
        self.probed_ms: int | None = None  # monotonic ms of the last probe during an outage
        self.to_tell: set[str] = set()  # rooms whose hold began or ended, their screens not yet told
        service.store.on_down = self.database_down

    # ----- the game clock -----

    def game_now(self, room: Room) -> int:
        """The room's game clock: it runs only while a game runs unpaused, so pauses and restarts are free."""
        mono_at, game_at = self.anchors[room.code]
        if room.phase != "playing" or room.paused:
            return game_at
        now = self.service.clock.monotonic_ms()
        stopped = self.held.get(room.code)
        if stopped is not None:  # held: the clock stands where it stopped
            now = min(now, stopped)
        return game_at + max(0, now - mono_at)

    def add(self, room: Room, active_ms: int | None = None) -> None:
        """A room this process now holds: its clock starts from its game time now; its last activity was at wall ms
        ``active_ms`` (now if not given)."""
        clock = self.service.clock
        self.active_ms[room.code] = active_ms if active_ms is not None else clock.wall_ms()
        self.anchors[room.code] = (clock.monotonic_ms(), room.game_ms)
        self._track(room)

    def applied(self, room: Room) -> None:
        """An event was applied to the room (``RoomService.submit``): its clock goes on from the event's game time,
        and the room was active now."""
        clock = self.service.clock
        self.anchors[room.code] = (clock.monotonic_ms(), room.game_ms)
        self.active_ms[room.code] = clock.wall_ms()
        self.db_ok_ms = self.anchors[room.code][0]  # its event was just committed
        self._track(room)

    def touch(self, code: str, *, if_known: bool = False) -> None:
        """A socket came or went: the room was active now (with ``if_known``, only a room this process still
        holds)."""
        if not if_known or code in self.active_ms:
            self.active_ms[code] = self.service.clock.wall_ms()

    def _track(self, room: Room) -> None:
        """Keep ``running`` true to the room's phase (after every event)."""
        if room.phase == "playing":
            self.running.add(room.code)
        else:
            self.running.discard(room.code)

    def resume(self) -> None:
        """Start every room's game clock again from where it stood, now that the server is serving: the seconds the
        server took to start count for no timer (a restart resumes each timer with the time it had)."""
        service = self.service
        now = service.clock.monotonic_ms()
        for code, _room in list(service.rooms.items()):
            with service.locks[code]:
                self.anchors[code] = (now, self.anchors[code][1])

    def forget(self, code: str) -> None:
        """The room left this process: drop its clock, activity and bots' plans."""
        for table in (self.anchors, self.active_ms, self.saved, self.held, self.hold_reasons, self.quiet):
            table.pop(code, None)  # type: ignore[attr-defined]
        self.running.discard(code)
        for key in [k for k in self.bot_plans if k[0] == code]:
            del self.bot_plans[key]

    def next_wakeup_ms(self) -> int:
        """How long the ticker may sleep: short while any game runs, longer otherwise."""
        rooms = self.service.rooms
        running = any(not rooms[c].paused for c in self.running if c in rooms)
        return 50 if running else 250

    # ----- holds (docs/scaling.md, "When PostgreSQL or Redis stops") -----

    def hold(self, code: str, reason: str, since_ms: int | None = None) -> None:
        """Hold the room still for ``reason`` (its clock stopped at ``since_ms``, now if not given); its screens are
        told why."""
        room = self.service.rooms.get(code)
        if room is None:
            return
        now = self.service.clock.monotonic_ms()
        reasons = self.hold_reasons.setdefault(code, set())
        if reason in reasons:
            return
        reasons.add(reason)
        if code not in self.held:
            mono_at = self.anchors.get(code, (now, 0))[0]
            self.held[code] = max(mono_at, min(now, since_ms if since_ms is not None else now))
            log.warning("room %s holds still: %s", code, reason)
        self.to_tell.add(code)

    def release(self, code: str, reason: str) -> None:
        """End the room's hold for ``reason``; once nothing holds it, its clock goes on from where it stopped."""
        reasons = self.hold_reasons.get(code)
        if not reasons or reason not in reasons:
            return
        reasons.discard(reason)
        room = self.service.rooms.get(code)
        if not reasons:
            del self.hold_reasons[code]
            if room is not None:
                stood = self.game_now(room)  # still held here: where the clock stopped
                self.held.pop(code, None)
                self.anchors[code] = (self.service.clock.monotonic_ms(), stood)
                log.warning("room %s goes on", code)
            else:
                self.held.pop(code, None)
        if room is not None:
            self.to_tell.add(code)

    def tell_holds(self) -> None:
        """From the ticker: the screens of the rooms whose hold began or ended are sent their state (not from where
        the hold began: a failed write, under its room's lock)."""
        codes, self.to_tell = self.to_tell, set()
        for code in sorted(codes):
            room = self.service.rooms.get(code)
            if room is None:
                continue
            room.version += 1
            try:
                self.service.notify(code)
            except Exception:  # a lobby's view reads the packs: the database may be down; told at the next change
                log.warning("room %s: could not tell its screens of its hold", code, exc_info=True)

    def hold_view(self, code: str) -> dict[str, Any] | None:
        """What a room's screens show of its hold: why it holds still (the database first), or None."""
        reasons = self.hold_reasons.get(code)
        if not reasons:
            return None
        return {"reason": "database" if "database" in reasons else min(reasons)}

    def database_down(self) -> None:
        """The store found the database not answering (host/store.py): every room holds still, its clock stopped
        at the last moment the database answered (at most ``HOLD_BACKDATE_MS`` back)."""
        now = self.service.clock.monotonic_ms()
        since = max(self.db_ok_ms, now - HOLD_BACKDATE_MS)
        self.probed_ms = now
        for code in list(self.service.rooms):
            self.hold(code, "database", since)

    def unreachable(self, error: Exception) -> bool:
        """Whether a failed write of the ticker's found the database not answering (then the store is marked down,
        which holds every room)."""
        from host.store import is_unreachable

        store = self.service.store
        if store.can_go_down and is_unreachable(error):
            store.went_down()
            return True
        return False

    def refuse_while_down(self) -> None:
        """RoomError ``storage_down`` while the database is down (what cannot be written is not taken)."""
        if self.service.store.down:
            from host.store import storage_down

            raise storage_down()

    def probe_database(self) -> None:
        """During an outage, every ``PROBE_EVERY_MS``: ask the database; once it answers, the rooms take their
        leases again, a room whose log has an event this process never applied (a commit whose answer was lost) is
        loaded again from its log, and the others go on from where they stood."""
        service = self.service
        store = service.store
        now = service.clock.monotonic_ms()
        if self.probed_ms is not None and now - self.probed_ms < PROBE_EVERY_MS:
            return
        self.probed_ms = now
        if not store.probe():
            return
        self.db_ok_ms = service.clock.monotonic_ms()
        self.renewed_ms = None
        self.renew_leases()  # first: an expired lease this worker still holds is renewed before another takes it
        if store.down:  # gone again meanwhile
            return
        try:
            logged = store.last_seqs(sorted(service.rooms))
        except Exception:  # gone again: the next write finds it so
            log.warning("could not read the rooms' logs after the outage", exc_info=True)
            logged = {}
        for code, room in list(service.rooms.items()):
            if logged.get(code, room.seq) != room.seq:
                log.warning("room %s: its log has events this worker did not apply: loading it again", code)
                service.room_moved(code)
        for code in list(self.hold_reasons):
            self.release(code, "database")

    # ----- what comes due -----

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
            self.service.submit(room, "timeout", {})

    def fire_due(self) -> None:
        """Fire due timeouts and bot moves in every room whose game runs, and score the audience questions whose
        answers are all in (their grace over)."""
        service = self.service
        audience = service.audience
        scoring = {c for c, a in audience.rooms.items() if a.question is not None and not a.question.scored}
        codes = self.running | scoring  # no other room has anything due: idle rooms cost nothing
        for room in [service.rooms[c] for c in sorted(codes) if c in service.rooms]:
            seq = room.seq
            try:
                self.tick_room(room)
            except RoomError as error:  # a race with a person's action: the next tick looks again
                log.debug("room %s tick: %s", room.code, error.message)
            if room.seq != seq:  # it fired something: let its broadcast and waiting handlers go first
                service.yield_now()
            if audience.may_score(room.code):
                with service.locks[room.code]:
                    scored = audience.score_due(room, self.game_now(room), GRACE_MS)
                if scored:
                    room.version += 1
                    service.notify(room.code)

    def tick_room(self, room: Room) -> None:
        """Fire the room's timeout if it is due, else the first bot move that is due (a bot plays a seat whose
        phones are all away, too, where the game stands in for them: ``SlotBinding.bot_plays``): at most one event per
        tick and room."""
        session = room.session
        if session is None or session.is_over or room.paused or room.code in self.held:
            return
        quiet = self.quiet.get(room.code)
        if quiet is not None and quiet[0] == room.seq and quiet[1] == room.version and \
                self.game_now(room) < quiet[2] and self.service.clock.monotonic_ms() < quiet[3]:
            return  # nothing can be due yet: no event, no phone came or went, no deadline or bot move reached
        self.quiet.pop(room.code, None)
        seq = room.seq
        self._tick_room(room, session)
        if room.seq == seq and room.session is session and not session.is_over:
            self.quiet[room.code] = (room.seq, room.version, *self._quiet_until(room, session))

    def _quiet_until(self, room: Room, session: Any) -> tuple[int, int]:
        """After a tick that fired nothing: the game time before which nothing can come due in the room as it is (its
        deadline, its bots' planned moves), and the monotonic time before which no phone of it turns away (a bot then
        plays for it, or the step stops waiting for it). Anything else that could change it changes the room's seq or
        version."""
        never = 2**62
        game_ms = self.due_deadline(room)
        game_ms = never if game_ms is None else game_ms
        for (code, _slot), plan in self.bot_plans.items():
            if code == room.code:
                game_ms = min(game_ms, plan.due_ms)
        now = self.service.clock.monotonic_ms()
        grace = self.service.connections.away_grace_ms()
        mono_ms = never
        away_since = self.service.connections.away_since
        for slot in session.slots:
            for member in slot.members:
                since = away_since.get((room.code, member))
                if since is not None and since + grace > now:
                    mono_ms = min(mono_ms, since + grace)
        return game_ms, mono_ms

    def _tick_room(self, room: Room, session: Any) -> None:
        """What is due is decided here without the room's lock; each event goes in only if no other event came
        meanwhile (``submit``'s ``still``). A player's answer that held the lock had caught up with the same timeout
        (``catch_up``): fired again, it fell on the question just opened and closed it, as a host's Skip does."""
        service = self.service
        seq = room.seq

        def unchanged() -> bool:
            return room.seq == seq and room.session is session

        deadline = self.due_deadline(room)
        if deadline is not None and self.game_now(room) >= deadline:
            service.submit(room, "timeout", {}, still=unchanged)
            return
        now = self.game_now(room)
        stands_in = session.game.stands_in(session.state)  # the Quiz without bots: a seat gone answers nothing
        if not stands_in and deadline is not None and self.waits_only_for_gone(room):
            service.submit(room, "timeout", {},  # everyone here answered: no need to wait for those who left
                           still=lambda: unchanged() and self.waits_only_for_gone(room))
            return
        for slot in session.slots:
            if not slot.bot_plays(service.connections.team_away(room, slot.members), stands_in):
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
                service.submit(room, "action", {"slot": slot.index, "action": plan.action,
                                                "step": None, "by": "bot"}, still=unchanged)
                return

    def waits_only_for_gone(self, room: Room) -> bool:
        """Whether the open question waits only for seats no one plays now: in a game where no bot stands in for them
        (the Quiz without bots, QUIZ-S15) such a seat answers nothing, so once every seat with a phone here has
        answered the question closes (a logged timeout, as if its time ran out), as Kahoot! ends it when everyone
        left has answered. A seat whose phones dropped only a moment ago (within the bot grace) is waited for; a
        room where no seat has a phone here runs the timer out (a router restarting must not end the quiz)."""
        session = room.session
        if session is None:
            return False
        away = self.service.connections.team_away
        game, state = session.game, session.state
        waiting = [s for s in session.slots if game.answer_window(state, s.index) is not None]
        here = any(s.members and not away(room, s.members) for s in session.slots)
        return bool(waiting) and here and all(not s.filled and (s.is_bot or away(room, s.members)) for s in waiting)

    # ----- upkeep -----

    def save(self, every_ms: int = CLOCK_SAVE_MS) -> None:
        """Every ``every_ms``, write the game clock of every room whose clock moved since it was last written (0:
        now, every room's, as the server stops). One pass writes them all in one transaction: a pass at each tick
        that wrote the rooms whose own ``every_ms`` had run out made four commits of a quarter of the rooms where
        one does (the party benchmark's profile); a clock written is still at most ``every_ms`` and a tick old."""
        service = self.service
        if service.store.down:  # an outage: the probe instead (the clocks stand still meanwhile)
            self.probe_database()
        self.tell_holds()
        if service.store.down:
            return
        mono = service.clock.monotonic_ms()
        if every_ms and self.save_pass_ms is not None and mono - self.save_pass_ms < every_ms:
            return
        self.save_pass_ms = mono
        due: dict[str, int] = {}
        for code in list(self.running if every_ms else service.rooms):  # a stopped clock was written at its last
            room = service.rooms[code]  # event (a stop, ``every_ms`` 0, looks at every room)
            now = self.game_now(room)
            if now != self.saved.get(code, room.game_ms):
                due[code] = now
        if not due:
            return
        try:
            written, lost = service.store.save_clocks(due)
        except Exception as error:  # the database is busy: the next tick writes a newer clock anyway
            if self.unreachable(error):
                return
            log.warning("could not write the game clocks of %d room(s)", len(due), exc_info=True)
            return
        self.db_ok_ms = service.clock.monotonic_ms()
        self.saved.update({code: due[code] for code in written})
        for code in lost:
            log.warning("room %s: another worker took it", code)
            service.room_moved(code)

    def renew_leases(self) -> None:
        """A worker, once every ``RENEW_MS``: renew its rooms' leases; drop the rooms another worker took meanwhile,
        and hand over those another worker asked for (clock written and lease released in one transaction, then the
        room's sockets closed: they reconnect through HAProxy to the worker that asked)."""
        service = self.service
        leases = service.store.leases
        now = service.clock.monotonic_ms()
        if leases is None or service.store.down or (self.renewed_ms is not None and now - self.renewed_ms < RENEW_MS):
            return
        self.renewed_ms = now
        try:
            renewal = leases.renew()
        except Exception as error:  # the database is out of reach: the leases run on until they expire; the rooms
            if self.unreachable(error):  # hold still and the probe renews them as soon as it answers again
                return
            log.warning("could not renew the room leases", exc_info=True)
            return
        for code in renewal.lost:
            log.warning("room %s: another worker took it", code)
            service.room_moved(code)
        for code in renewal.wanted:
            room = service.rooms.get(code)
            try:
                with service.locks.get(code) or threading.RLock():
                    clock = {code: self.game_now(room)} if room is not None else {}
                    service.store.save_clocks(clock, release=code)
            except Exception:
                log.warning("room %s: could not hand it over", code, exc_info=True)
                continue
            log.info("room %s: handed over to the worker that asked", code)
            service.room_moved(code)

    def expire(self) -> list[str]:
        """Delete the rooms without activity (an event or a connection) for the rooms' time to live and no one
        connected, from memory and the database, so that their codes can be drawn again; once a minute, from the
        ticker. Returns their codes."""
        service = self.service
        now = service.clock.monotonic_ms()
        if service.store.down or (self.expired_checked is not None and now - self.expired_checked < EXPIRE_EVERY_MS):
            return []
        self.expired_checked = now
        before = service.clock.wall_ms() - service.room_ttl_ms
        stale = [code for code, at in list(self.active_ms.items())
                 if at < before and not service.connections.of_room(code) and code in service.rooms]
        with service.registry_lock:
            for code in stale:
                service.forget(code)
            try:
                gone = service.store.expire_rooms(before, keep=set(service.rooms))
            except Exception:  # the database is busy: the next look deletes them
                log.warning("could not delete expired rooms", exc_info=True)
                return stale
        if stale or gone:
            log.info("deleted %d room(s) without activity for %d h", len(set(stale) | set(gone)),
                     service.room_ttl_ms // 3_600_000)
        return sorted(set(stale) | set(gone))
