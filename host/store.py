"""Durable storage of rooms and their event logs (SQLModel; SQLite by default, any SQLAlchemy URL works).

A room is its creation record plus an ordered log of events. Every accepted event is appended here, and
committed, before any of its effects is sent to a client; a room is rebuilt by replaying its log.

A write that finds the database locked by someone else (another process, a backup) waits at most ``BUSY_TIMEOUT_S``:
the server has one event loop and a blocked SQLite call blocks all of it. An event that cannot be logged then is
refused with ``storage_busy`` (nothing applied); the clocks and the audience's answers are written on a later turn.

A PostgreSQL that does not answer at all (stopped, restarting, out of reach) is an *outage* (docs/scaling.md, "When
PostgreSQL or Redis stops"): the first write or read that finds it so marks the store down (``down_since``) and is
refused ``storage_down``; every write after it is refused at once, without trying, until the ticker's probe
(``probe``, one ``SELECT 1`` every ``PROBE_EVERY_MS``) finds it answering again. Meanwhile the rooms hold still
(host/clocks.py). Nothing is acknowledged that was not committed: an event whose commit failed is refused.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, UniqueConstraint, bindparam, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, Session, SQLModel, create_engine, select

import questions.store  # the pack tables live in the same database
from host.green import waits_cooperatively
from host.lease import Leases, RoomLease
from host.outage import Outage
from host.room import RoomError

log = logging.getLogger("throneroom.store")

BUSY_TIMEOUT_S = 0.2  # how long a SQLite write waits for a lock held elsewhere (SQLite's default is 5 s)
PG_LOCK_WAIT_S = 2.0  # PostgreSQL in a worker, whose waits are cooperative: how long a write waits for a lock held
# elsewhere (a clock tick or lease renewal holds the room's lease row; on a loaded machine for tenths of a second)
POOL_WAIT_S = 2.0  # PostgreSQL: how long a task waits for a free connection of the worker's pool
STATEMENT_TIMEOUT_S = 5.0  # PostgreSQL: a statement still running after this is cancelled (a stuck database)
MIGRATE_LOCK_TIMEOUT_S = 30.0  # PostgreSQL: how long a start waits for another worker's migration, or for a lock
# its own ALTERs need
PG_BUSY_STATES = {"55P03", "40001", "40P01"}  # lock_not_available (lock_timeout, NOWAIT), serialization_failure,
# deadlock_detected: a lock held elsewhere, which passes
TOUCH_EVERY_MS = 60_000  # a room's ``updated_ms`` (what its 48-hour expiry counts from) is written with an event at
# most this often: a second UPDATE on every action was a third of an append (the party benchmark's profile)
TOUCH_SQL = "UPDATE room SET updated_ms = ? WHERE code = ?"  # a SQLite file's appends (``append``)
TOUCHED_KEPT = 10_000  # rooms whose last such write this process remembers (then it forgets them all: each writes again)
CONNECT_TIMEOUT_S = 2  # PostgreSQL: a connection (a probe during an outage) waits at most this for the server
PROBE_EVERY_MS = 500  # during an outage, how often the ticker asks the database whether it answers again
PG_SCHEMA_LOCK = 7_154_931_022  # the advisory lock one start holds while it creates and migrates the tables


class RoomRecord(SQLModel, table=True):
    """A room as created: its code, the hash of the host token and the room's seed."""

    __tablename__ = "room"

    code: str = Field(primary_key=True, max_length=8)
    host_token_hash: str
    owner_hash: str | None = Field(default=None, max_length=64)  # host/room.py Room.owner; None: before owners
    seed: int = Field(sa_type=BigInteger)  # 63 bits (RoomService.seed_source)
    created_ms: int = Field(sa_type=BigInteger)  # epoch ms: beyond 32 bits (PostgreSQL's INTEGER)
    updated_ms: int = Field(index=True, sa_type=BigInteger)
    closed: bool = False


class EventRecord(SQLModel, table=True):
    """One accepted event of a room, in order."""

    __tablename__ = "room_event"
    __table_args__ = (UniqueConstraint("room_code", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    room_code: str = Field(foreign_key="room.code", index=True)
    seq: int
    kind: str
    data: str  # JSON
    wall_ms: int = Field(sa_type=BigInteger)


class ClockRecord(SQLModel, table=True):
    """A room's game clock as last written while a game ran: a restart resumes the running timer from here, not
    from the last event (the clock runs between events)."""

    __tablename__ = "room_clock"

    room_code: str = Field(primary_key=True, max_length=8)
    game_ms: int = Field(sa_type=BigInteger)


def upsert_into(connection: Any, table: Any) -> Any:
    """An INSERT with ON CONFLICT for this connection's database (SQLite and PostgreSQL both have one, spelled by
    their own SQLAlchemy dialects)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


@dataclass(frozen=True)
class StoredEvent:
    """An event read back from the log."""

    seq: int
    kind: str
    data: dict[str, Any]
    wall_ms: int


def sqlite_url(path: str) -> str:
    """The SQLAlchemy URL of a SQLite file."""
    return f"sqlite:///{path}"


class Store(Outage):
    """The database behind the rooms."""

    def __init__(self, url: str, cooperative: bool | None = None):
        """``cooperative``: whether this process waits on PostgreSQL cooperatively (a worker under eventlet, see
        host/green.py), so a write may wait ``PG_LOCK_WAIT_S`` for a lock rather than ``BUSY_TIMEOUT_S``; None: ask."""
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
            if url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool
        elif url.startswith("postgresql"):  # several workers share it (docs/scaling.md): a lock held by another
            # waits PG_LOCK_WAIT_S in a worker, whose waits are cooperative, BUSY_TIMEOUT_S like SQLite's in a process
            # where a wait blocks everything (then storage_busy); a dropped connection is replaced, not reported
            kwargs["pool_pre_ping"] = True
            # a worker's tasks wait on PostgreSQL cooperatively (docs/scaling.md), so many hold a connection at once:
            # 10 kept and 30 more under load (two workers stay within PostgreSQL's default 100); a task that finds
            # none free within POOL_WAIT_S is refused storage_busy, not left hanging
            kwargs.update(pool_size=10, max_overflow=30, pool_timeout=POOL_WAIT_S)
            if cooperative is None:
                cooperative = waits_cooperatively()
            lock_wait_s = PG_LOCK_WAIT_S if cooperative else BUSY_TIMEOUT_S
            kwargs["connect_args"] = {"options": f"-c lock_timeout={round(lock_wait_s * 1000)}"
                                                 f" -c statement_timeout={round(STATEMENT_TIMEOUT_S * 1000)}",
                                      "connect_timeout": CONNECT_TIMEOUT_S}
        self.url = url
        self.engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            from sqlalchemy import event

            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()

        with self._schema_lock():
            SQLModel.metadata.create_all(self.engine)
            self.migrate()
        self.leases: Leases | None = None  # a worker's room leases (host/lease.py); None: ``serve`` owns every room
        self.touched: dict[str, int] = {}  # room code -> the updated_ms this process last wrote for it (``append``)
        # A SQLite file's appends go through one connection this store keeps, with the driver's own statement: the
        # pool's checkout and the statement's compilation were half an append's cost (the party benchmark's
        # profile). Not for an in-memory database, whose one connection the whole process shares.
        file_sqlite = url.startswith("sqlite") and url not in ("sqlite://", "sqlite:///:memory:")
        self.append_sql = "INSERT INTO room_event (room_code, seq, kind, data, wall_ms) VALUES (?, ?, ?, ?, ?)" \
            if file_sqlite else None
        self.held_connection: Any = None
        events = EventRecord.__table__
        self.insert_event = events.insert()  # one statement, compiled once: each append only binds its values
        rooms = RoomRecord.__table__
        self.touch_room = rooms.update().where(rooms.c.code == bindparam("touched_code")).values(
            updated_ms=bindparam("touched_ms"))
        self.can_go_down = url.startswith("postgresql")  # SQLite is a file: a failure there is not an outage
        Outage.__init__(self, log, "the database", "the rooms hold still until it does")
        self.on_down: Any = lambda: None  # told once when an outage begins (host/clocks.py holds the rooms)

    # ----- outages (docs/scaling.md, "When PostgreSQL or Redis stops") -----

    def went_down(self) -> bool:
        """The database did not answer: refuse writes from now on, until ``probe`` finds it again."""
        began = Outage.went_down(self)
        if began:
            self.on_down()
        return began

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """``busy_refused``, and a database that does not answer marks the store down and is refused
        ``storage_down``; while it is down, refused at once without trying."""
        if self.down_since is not None:
            raise storage_down()
        try:
            with busy_refused():
                yield
        except (OperationalError, DBAPIError) as error:
            if not self.can_go_down or not is_unreachable(error):
                raise
            self.went_down()
            raise storage_down() from error

    def probe(self) -> bool:
        """During an outage: whether the database answers again (one ``SELECT 1`` on a new connection; under
        eventlet the wait is cooperative); the store is up again if it does."""
        try:
            self.engine.dispose()  # the pool's connections died with the server: new ones
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception:  # noqa: BLE001 - still down (refused, reset, starting up, shutting down)
            return False
        self.came_back()
        return True

    def last_seqs(self, codes: list[str]) -> dict[str, int]:
        """The last logged sequence number of each of these rooms (after an outage: a commit whose answer was lost
        may have landed; the room is then loaded again from its log)."""
        if not codes:
            return {}
        query = text("SELECT room_code, max(seq) FROM room_event WHERE room_code IN :codes GROUP BY room_code")
        with self.engine.connect() as connection:
            rows = connection.execute(query.bindparams(bindparam("codes", expanding=True)),
                                      {"codes": list(codes)}).all()
        return {row[0]: int(row[1]) for row in rows}

    def create_room(self, code: str, host_token_hash: str, seed: int, now_ms: int,
                    owner_hash: str | None = None) -> None:
        """Record a new room; RoomError ``storage_busy`` if the database stayed locked (see ``append``)."""
        with self.guarded(), Session(self.engine) as session:
            session.add(RoomRecord(code=code, host_token_hash=host_token_hash, seed=seed,
                                   created_ms=now_ms, updated_ms=now_ms, owner_hash=owner_hash))
            session.commit()

    def room(self, code: str) -> RoomRecord | None:
        """The room record with this code, if any."""
        with self.guarded(), Session(self.engine) as session:
            return session.get(RoomRecord, code)

    def room_codes(self, updated_since_ms: int = 0) -> list[str]:
        """Codes of the open rooms active since the given wall time."""
        with Session(self.engine) as session:
            query = select(RoomRecord.code).where(RoomRecord.closed == False)
            query = query.where(RoomRecord.updated_ms >= updated_since_ms)
            return list(session.exec(query))

    def append(self, code: str, seq: int, kind: str, data: dict[str, Any], wall_ms: int) -> None:
        """Append one event and commit; raises if the sequence number is taken, and RoomError ``storage_busy`` (with
        nothing written) if the database stayed locked by someone else for ``BUSY_TIMEOUT_S``."""
        # Core statements built once, not the ORM: an append is on every action's path, and loading the room's row to
        # change one column cost a round trip and a unit of work each time (the 100-room party benchmark on workers).
        # The room's updated_ms moves with an event at most every TOUCH_EVERY_MS (it only dates the room's expiry).
        touch = wall_ms - self.touched.get(code, -TOUCH_EVERY_MS) >= TOUCH_EVERY_MS
        text_data = json.dumps(data, separators=(",", ":"))
        if self.append_sql is not None and self.leases is None:  # a SQLite file of ``serve`` (a worker fences
            # every append: below): its own connection, the driver's statement
            with self.guarded():
                driver = self.append_connection()
                try:  # the sqlite3 module itself (SQLAlchemy's transaction and statement layers were a third of an
                    driver.execute(self.append_sql, (code, seq, kind, text_data, wall_ms))  # append's cost)
                    if touch:
                        driver.execute(TOUCH_SQL, (wall_ms, code))
                    driver.commit()
                except sqlite3.Error as error:  # as SQLAlchemy would raise it: busy_refused and the callers know those
                    try:
                        driver.rollback()
                    except sqlite3.Error:
                        self.close_append_connection()
                    raise DBAPIError.instance(self.append_sql, None, error, sqlite3.Error) from error
                except BaseException:
                    self.close_append_connection()
                    raise
        else:
            with self.guarded(), self.engine.begin() as connection:
                if self.leases is not None:  # a worker writes only to the rooms it holds (LeaseLost: nothing written)
                    self.leases.fence(connection, code)
                connection.execute(self.insert_event, {"room_code": code, "seq": seq, "kind": kind,
                                                       "wall_ms": wall_ms, "data": text_data})
                if touch:
                    connection.execute(self.touch_room, {"touched_code": code, "touched_ms": wall_ms})
        if touch:
            if len(self.touched) >= TOUCHED_KEPT:
                self.touched.clear()
            self.touched[code] = wall_ms

    def append_connection(self) -> Any:
        """The sqlite3 connection a SQLite file's appends use (``append``): one of the pool's, with its pragmas, taken
        at the first append and kept."""
        if self.held_connection is None:
            self.held_connection = self.engine.raw_connection()
        return self.held_connection.driver_connection

    def close_append_connection(self) -> None:
        """Give back the appends' connection (an error left it in doubt, or the store closes)."""
        if self.held_connection is not None:
            try:
                self.held_connection.close()
            finally:
                self.held_connection = None

    def ping(self) -> None:
        """One round trip to the database (the health check): raises if it does not answer."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def events(self, code: str) -> Iterator[StoredEvent]:
        """The room's log in order."""
        with self.guarded(), Session(self.engine) as session:
            query = select(EventRecord).where(EventRecord.room_code == code).order_by(EventRecord.seq)
            rows = list(session.exec(query))
        for row in rows:
            yield StoredEvent(row.seq, row.kind, json.loads(row.data), row.wall_ms)

    def save_clocks(self, clocks: dict[str, int], release: str | None = None) -> tuple[list[str], list[str]]:
        """Write the game clocks of running rooms, all in one transaction; a worker writes only those of the rooms it
        still holds, and ``release`` gives up that room's lease in the same transaction (a hand-over). Returns the
        rooms whose clocks were written, and those whose lease this worker lost (a worker leaves a room it is writing
        to right now in neither: the next tick writes its clock)."""
        if not clocks and release is None:
            return [], []
        lost: list[str] = []
        with self.engine.begin() as connection:
            if self.leases is not None:  # a room being written right now is left for the next tick
                held_now, lost = self.leases.still_held(connection, sorted(clocks))
                clocks = {code: ms for code, ms in clocks.items() if code in held_now}
            if clocks and connection.dialect.name == "sqlite":  # the driver's own executemany: SQLAlchemy's
                # processing of 250 rooms' parameters five times a second was a percent of a party's CPU
                connection.exec_driver_sql(
                    "INSERT INTO room_clock (room_code, game_ms) VALUES (?, ?) "
                    "ON CONFLICT (room_code) DO UPDATE SET game_ms = excluded.game_ms", sorted(clocks.items()))
            elif clocks:  # one statement for every room (an upsert), not a read and a write for each
                rows = [{"room_code": code, "game_ms": ms} for code, ms in sorted(clocks.items())]
                upsert = upsert_into(connection, ClockRecord.__table__)
                connection.execute(upsert.on_conflict_do_update(index_elements=["room_code"],
                                                                set_={"game_ms": upsert.excluded.game_ms}), rows)
            if release is not None and self.leases is not None:
                self.leases.release(connection, release)
        return sorted(clocks), lost

    def clock(self, code: str) -> int | None:
        """The room's game clock as last written, if ever."""
        with Session(self.engine) as session:
            record = session.get(ClockRecord, code)
            return None if record is None else record.game_ms

    def migrate(self) -> None:
        """Bring an older database up to date: the rooms' owner identity (a room from before has none and is its
        own host's), and questions/store.py ``migrate`` (stable pack ids, pack owners)."""
        from sqlalchemy import inspect

        if "owner_hash" not in {c["name"] for c in inspect(self.engine).get_columns("room")}:
            with self.engine.begin() as connection:
                connection.execute(text("ALTER TABLE room ADD COLUMN owner_hash VARCHAR(64)"))
        self._widen_integers()
        questions.store.migrate(self.engine)

    @contextmanager
    def _schema_lock(self) -> Iterator[None]:
        """PostgreSQL: one start at a time creates and migrates the tables (workers starting together would each
        try to create them); a transaction-scoped advisory lock on a connection of its own. Others: nothing."""
        if self.engine.dialect.name != "postgresql":
            yield
            return
        with self.engine.connect() as guard, guard.begin():
            guard.execute(text(f"SET LOCAL lock_timeout = {round(MIGRATE_LOCK_TIMEOUT_S * 1000)}"))
            guard.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_SCHEMA_LOCK})
            yield

    def _widen_integers(self) -> None:
        """PostgreSQL: a column the models declare BIGINT (epoch ms, seeds, big answers) that an older version
        created as INTEGER is widened. SQLite's integers are all 64 bits: nothing to do there."""
        from sqlalchemy import Integer, inspect

        if self.engine.dialect.name != "postgresql":
            return
        inspector = inspect(self.engine)
        narrow = []
        for table in SQLModel.metadata.sorted_tables:
            if not inspector.has_table(table.name):
                continue
            found = {c["name"]: c["type"] for c in inspector.get_columns(table.name)}
            for column in table.columns:
                kind = found.get(column.name)
                if isinstance(column.type, BigInteger) and isinstance(kind, Integer) and \
                        not isinstance(kind, BigInteger):
                    narrow.append((table.name, column.name))
        if narrow:
            with self.engine.begin() as connection:
                connection.execute(text(f"SET LOCAL lock_timeout = {round(MIGRATE_LOCK_TIMEOUT_S * 1000)}"))
                for table_name, column_name in narrow:
                    connection.execute(text(f'ALTER TABLE "{table_name}" ALTER COLUMN "{column_name}" TYPE BIGINT'))

    def checkpoint(self) -> bool:
        """SQLite: move everything in the write-ahead log into the database file and empty the log
        (``wal_checkpoint(TRUNCATE)``), so that the .db file alone holds all the data (as a clean stop leaves it);
        whether it did (False if a reader or writer elsewhere kept it from finishing). Other databases: True."""
        if not self.url.startswith("sqlite"):
            return True
        with self.engine.connect() as connection:
            busy, _log, _moved = connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)")).one()
        return not busy

    def delete_rooms(self, codes: list[str]) -> None:
        """Delete these rooms and all that belongs to them, in one transaction."""
        if not codes:
            return
        with Session(self.engine) as session:
            _delete_rooms(session, list(codes))
            session.commit()

    def expire_rooms(self, before_ms: int, keep: set[str] | None = None) -> list[str]:
        """Delete the rooms whose last event is older than ``before_ms`` (wall ms), except those in ``keep``; returns
        their codes. Their codes can then be drawn again."""
        keep = set(keep or ())
        if self.leases is not None:  # a room another worker holds is in use there, whatever its last event
            keep |= self.leases.live(self.leases.wall_ms())
        with Session(self.engine) as session:
            codes = [c for c in session.exec(select(RoomRecord.code).where(RoomRecord.updated_ms < before_ms))
                     if c not in keep]
            if codes:
                _delete_rooms(session, codes)
                session.commit()
        return codes

    def close(self) -> None:
        """Release the database connections."""
        self.close_append_connection()
        self.engine.dispose()


@contextmanager
def busy_refused() -> Iterator[None]:
    """Turn a write the database refused because it is locked elsewhere (``is_busy``) into RoomError
    ``storage_busy``, which every client shows as "try again"; any other database error passes as it is."""
    try:
        yield
    except OperationalError as error:
        if not is_busy(error):
            raise
        raise RoomError("storage_busy", "the server could not save that: try again") from error
    except PoolTimeout as error:  # every connection of the pool in use (a worker under heavy load): passes too
        raise RoomError("storage_busy", "the server could not save that: try again") from error


def storage_down() -> RoomError:
    return RoomError("storage_down", "the database is not answering: the game waits; try again in a moment")


def is_unreachable(error: Exception) -> bool:
    """Whether a database error says the server does not answer (refused, closed, reset, shutting down), rather than
    a lock held elsewhere (``is_busy``) or a statement it refused."""
    if isinstance(error, OperationalError) and is_busy(error):
        return False
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    original = getattr(error, "orig", error)
    state = getattr(original, "sqlstate", None)
    if state is not None:  # PostgreSQL's classes 08 (connection exception) and 57P (operator intervention: a
        return str(state).startswith(("08", "57P"))  # shutdown, a crash, "cannot connect now")
    return isinstance(error, OperationalError)  # no state at all: the connection itself failed


def is_busy(error: OperationalError) -> bool:
    """Whether a database error is a lock held elsewhere (SQLite's "database is locked", "database table is locked"
    or a busy snapshot; PostgreSQL's lock timeout, "could not obtain lock", serialization failure or deadlock), which
    passes, rather than a broken database."""
    original = getattr(error, "orig", error)
    if getattr(original, "sqlstate", None) in PG_BUSY_STATES:  # psycopg
        return True
    text_ = str(original).lower()
    return "locked" in text_ or "busy" in text_


def _delete_rooms(session: Session, codes: list[str]) -> None:
    """Everything a database holds about these rooms (their log, clock, audience answers and record)."""
    from sqlalchemy import delete

    from host.audience import AudienceAnswerRecord

    for first in range(0, len(codes), 500):  # SQLite takes at most 999 parameters per statement
        chunk = codes[first:first + 500]
        for table, column in ((EventRecord, EventRecord.room_code), (ClockRecord, ClockRecord.room_code),
                              (RoomLease, RoomLease.room_code),
                              (AudienceAnswerRecord, AudienceAnswerRecord.room_code), (RoomRecord, RoomRecord.code)):
            session.exec(delete(table).where(column.in_(chunk)))  # type: ignore[call-overload,attr-defined]
