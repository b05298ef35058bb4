"""One owner per room across workers: a lease on each room, held in the shared database (docs/scaling.md).

Only ``throneroom worker`` uses leases; a single ``throneroom serve`` owns every room of its database by itself.

A lease is a row of ``room_lease``: the worker holding it, an ``epoch`` that grows by one every time the lease changes
hands, and when it expires unless renewed. A worker takes the lease of a room before it loads the room, renews all its
leases in one statement every ``RENEW_MS`` (from the ticker), and *fences* every write it makes for a room: the write's
transaction first renews that one lease, on the condition that the row still names this worker and the epoch it took;
if it does not (the worker was paused or cut off long enough for another to take the room), the write is rolled back
and the worker drops the room (``LeaseLost``). Two workers therefore never both append to one room's log, even while
HAProxy still sends traffic to a worker it believes dead.

A worker that needs a room another live worker holds writes its id into ``wanted_by``; the holder, at its next renewal,
hands the room over: it writes the room's game clock, releases the lease (no holder) and closes the room's sockets, which
reconnect through HAProxy to the worker that asked. A holder that died simply stops renewing: its leases expire after
``TTL_MS`` and the next worker to need the room takes it.

A database outage (docs/scaling.md, "When PostgreSQL or Redis stops") outlasts ``TTL_MS`` as soon as it lasts more
than a few seconds: every lease in the table has expired when the database answers again. Nobody could take one
meanwhile (taking is a write), and the holder, whose rooms held still the whole time, renews its leases first thing
when its probe finds the database back (``renew`` renews the rows that name it and its epoch, expired or not), so its
rooms stay where they are. Another worker that asks for one of those rooms in the moment between (a relayed phone's
hello) may take it, as after any expiry; the fence then refuses the old holder's next write, which drops the room and
closes its sockets, and they reconnect to the new holder: nothing acknowledged is lost, the room moves once.

Expiry compares the workers' wall clocks (milliseconds since the epoch): the machines of one deployment must keep their
clocks in step (NTP), well within the lease's time to live.
"""

from __future__ import annotations

import logging
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, Column, bindparam, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Field, SQLModel

log = logging.getLogger("throneroom.lease")

TTL_MS = 3000  # a lease not renewed for this long may be taken by another worker
RENEW_MS = 1000  # how often a worker renews its leases (and hands over the rooms others asked for)


class RoomLease(SQLModel, table=True):
    """Which worker holds a room (docs/scaling.md)."""

    __tablename__ = "room_lease"

    room_code: str = Field(primary_key=True, max_length=8)
    holder: str | None = Field(default=None, max_length=64)
    epoch: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    expires_ms: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    wanted_by: str | None = Field(default=None, max_length=64)


class LeaseLost(Exception):
    """This worker no longer holds the room's lease: it must not act on the room."""

    def __init__(self, code: str):
        super().__init__(f"the lease of room {code} is held by another worker")
        self.code = code


def new_worker_id() -> str:
    """A worker's identity in the lease table: new for every process, so a restarted worker never mistakes a lease of
    its previous life for its own."""
    return "w-" + secrets.token_hex(6)


@dataclass
class Renewal:
    """What a renewal found: rooms whose lease this worker lost, and rooms another worker asked for."""

    lost: list[str] = field(default_factory=list)
    wanted: list[str] = field(default_factory=list)


class Leases:
    """The leases of one worker; ``held`` maps each room code it holds to the epoch it took."""

    def __init__(self, engine: Any, worker_id: str, wall_ms: Any, ttl_ms: int = TTL_MS):
        self.engine = engine
        self.worker_id = worker_id
        self.wall_ms = wall_ms  # () -> ms since the epoch
        self.ttl_ms = ttl_ms
        self.held: dict[str, int] = {}
        self.taking = threading.Lock()  # one acquisition at a time: two tasks taking one room bump its epoch once

    def acquire(self, code: str) -> bool:
        """Take the room's lease if it is free, expired or already this worker's; else ask its holder for it (the
        holder hands it over at its next renewal) and return False."""
        with self.taking:
            if code in self.held:  # another task of this worker took it meanwhile
                return True
            try:
                return self._acquire(code)
            except DBAPIError as error:  # the database does not answer: refused storage_down, not an internal error
                from host.store import is_unreachable, storage_down

                if not is_unreachable(error):
                    raise
                raise storage_down() from error

    def _acquire(self, code: str) -> bool:
        now = self.wall_ms()
        params = {"code": code, "me": self.worker_id, "now": now, "expires": now + self.ttl_ms}
        with self.engine.begin() as connection:
            taken = connection.execute(text(
                "UPDATE room_lease SET holder = :me, epoch = epoch + 1, expires_ms = :expires, wanted_by = NULL "
                "WHERE room_code = :code AND (holder IS NULL OR holder = :me OR expires_ms < :now)"), params).rowcount
            if taken:
                epoch = connection.execute(text("SELECT epoch FROM room_lease WHERE room_code = :code"),
                                           params).scalar_one()
        if not taken:
            try:
                with self.engine.begin() as connection:
                    connection.execute(text(
                        "INSERT INTO room_lease (room_code, holder, epoch, expires_ms) "
                        "VALUES (:code, :me, 1, :expires)"), params)
                epoch = 1
            except IntegrityError:  # someone holds it: ask for it
                with self.engine.begin() as connection:
                    connection.execute(text("UPDATE room_lease SET wanted_by = :me WHERE room_code = :code "
                                            "AND holder IS NOT NULL AND holder <> :me"), params)
                return False
        self.held[code] = int(epoch)
        log.info("took room %s (epoch %d)", code, epoch)
        return True

    def fence(self, connection: Any, code: str) -> None:
        """Inside a write transaction for this room: renew its lease on condition that this worker still holds it
        with the epoch it took; LeaseLost (the caller rolls back) if not."""
        epoch = self.held.get(code)
        if epoch is None:
            raise LeaseLost(code)
        renewed = connection.execute(text(
            "UPDATE room_lease SET expires_ms = :expires WHERE room_code = :code AND holder = :me AND epoch = :epoch"),
            {"expires": self.wall_ms() + self.ttl_ms, "code": code, "me": self.worker_id, "epoch": epoch}).rowcount
        if not renewed:
            self.held.pop(code, None)
            raise LeaseLost(code)

    def still_held(self, connection: Any, codes: list[str]) -> tuple[list[str], list[str]]:
        """Inside a write transaction: which of these rooms this worker still holds with the epoch it took, their rows
        locked until the transaction ends (PostgreSQL; SQLite has one writer at a time anyway), and which it lost.
        A row another transaction has locked (this worker's own write to the room, fenced, or another worker's
        acquisition) is skipped, in neither list: waiting for it could hold up every room's clock."""
        if not codes:
            return [], []
        sqlite = connection.dialect.name == "sqlite"
        query = text("SELECT room_code, epoch FROM room_lease WHERE holder = :me AND room_code IN :codes"
                     + ("" if sqlite else " FOR UPDATE SKIP LOCKED")).bindparams(bindparam("codes", expanding=True))
        rows = connection.execute(query, {"me": self.worker_id, "codes": list(codes)}).all()
        held = [code for code, epoch in rows if self.held.get(code) == epoch]
        rest = [code for code in codes if code not in {row[0] for row in rows}]
        if rest and not sqlite:  # skipped or not ours: look again without locking
            query = text("SELECT room_code FROM room_lease WHERE holder = :me AND room_code IN :codes").bindparams(
                bindparam("codes", expanding=True))
            mine = {row[0] for row in connection.execute(query, {"me": self.worker_id, "codes": rest}).all()}
            rest = [code for code in rest if code not in mine]
        lost = [code for code in codes if code in rest or (code not in held and code in {r[0] for r in rows})]
        return held, lost

    def renew(self) -> Renewal:
        """Renew every lease this worker holds, in one statement; report the rooms lost meanwhile (another worker
        took them: this one was paused or cut off past the lease's time) and those another worker asked for."""
        result = Renewal()
        if not self.held:
            return result
        now = self.wall_ms()
        with self.engine.begin() as connection:
            # A row locked by a write in progress (this worker's own fenced write renews it anyway, or another
            # worker taking an expired lease) is skipped rather than waited for.
            renew = ("UPDATE room_lease SET expires_ms = :expires WHERE holder = :me" if connection.dialect.name ==
                     "sqlite" else "UPDATE room_lease SET expires_ms = :expires WHERE room_code IN (SELECT room_code "
                     "FROM room_lease WHERE holder = :me FOR UPDATE SKIP LOCKED)")
            connection.execute(text(renew), {"expires": now + self.ttl_ms, "me": self.worker_id})
            rows = connection.execute(text("SELECT room_code, epoch, wanted_by FROM room_lease WHERE holder = :me"),
                                      {"me": self.worker_id}).all()
        mine = {code: (epoch, wanted) for code, epoch, wanted in rows}
        for code, epoch in list(self.held.items()):
            found = mine.get(code)
            if found is None or found[0] != epoch:
                result.lost.append(code)
                del self.held[code]
            elif found[1] is not None:
                result.wanted.append(code)
        return result

    def release(self, connection: Any, code: str) -> None:
        """Inside a write transaction: give the room's lease up (no holder, so the worker that asked takes it at
        once); the caller has written what must be written first, in the same transaction."""
        epoch = self.held.pop(code, None)
        if epoch is None:
            return
        connection.execute(text("UPDATE room_lease SET holder = NULL, wanted_by = NULL, expires_ms = 0 "
                                "WHERE room_code = :code AND holder = :me AND epoch = :epoch"),
                           {"code": code, "me": self.worker_id, "epoch": epoch})

    def release_all(self) -> None:
        """A worker that stops gives up every lease, so its rooms move at once instead of after ``TTL_MS``."""
        if not self.held:
            return
        with self.engine.begin() as connection:
            for code in list(self.held):
                self.release(connection, code)

    def live(self, now_ms: int) -> set[str]:
        """The rooms any worker holds a live lease on (kept when rooms without activity are deleted)."""
        with self.engine.connect() as connection:
            rows = connection.execute(text("SELECT room_code FROM room_lease WHERE holder IS NOT NULL "
                                           "AND expires_ms >= :now"), {"now": now_ms}).all()
        return {row[0] for row in rows}
