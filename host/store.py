"""Durable storage of rooms and their event logs (SQLModel; SQLite by default, any SQLAlchemy URL works).

A room is its creation record plus an ordered log of events. Every accepted event is appended here, and
committed, before any of its effects is sent to a client; a room is rebuilt by replaying its log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import UniqueConstraint
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, Session, SQLModel, create_engine, select

import questions.store  # noqa: F401  (the pack tables live in the same database)


class RoomRecord(SQLModel, table=True):
    """A room as created: its code, the hash of the host token and the room's seed."""

    __tablename__ = "room"

    code: str = Field(primary_key=True, max_length=8)
    host_token_hash: str
    seed: int
    created_ms: int
    updated_ms: int = Field(index=True)
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
    wall_ms: int


class ClockRecord(SQLModel, table=True):
    """A room's game clock as last written while a game ran: a restart resumes the running timer from here, not
    from the last event (the clock runs between events)."""

    __tablename__ = "room_clock"

    room_code: str = Field(primary_key=True, max_length=8)
    game_ms: int


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


class Store:
    """The database behind the rooms."""

    def __init__(self, url: str):
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
            if url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool
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

        SQLModel.metadata.create_all(self.engine)

    def create_room(self, code: str, host_token_hash: str, seed: int, now_ms: int) -> None:
        """Record a new room."""
        with Session(self.engine) as session:
            session.add(RoomRecord(code=code, host_token_hash=host_token_hash, seed=seed,
                                   created_ms=now_ms, updated_ms=now_ms))
            session.commit()

    def room(self, code: str) -> RoomRecord | None:
        """The room record with this code, if any."""
        with Session(self.engine) as session:
            return session.get(RoomRecord, code)

    def room_codes(self, updated_since_ms: int = 0) -> list[str]:
        """Codes of the open rooms active since the given wall time."""
        with Session(self.engine) as session:
            query = select(RoomRecord.code).where(RoomRecord.closed == False)
            query = query.where(RoomRecord.updated_ms >= updated_since_ms)
            return list(session.exec(query))

    def append(self, code: str, seq: int, kind: str, data: dict[str, Any], wall_ms: int) -> None:
        """Append one event and commit; raises if the sequence number is taken."""
        with Session(self.engine) as session:
            session.add(EventRecord(room_code=code, seq=seq, kind=kind,
                                    data=json.dumps(data, separators=(",", ":")), wall_ms=wall_ms))
            record = session.get(RoomRecord, code)
            if record is not None:
                record.updated_ms = wall_ms
                session.add(record)
            session.commit()

    def events(self, code: str) -> Iterator[StoredEvent]:
        """The room's log in order."""
        with Session(self.engine) as session:
            query = select(EventRecord).where(EventRecord.room_code == code).order_by(EventRecord.seq)
            rows = list(session.exec(query))
        for row in rows:
            yield StoredEvent(row.seq, row.kind, json.loads(row.data), row.wall_ms)

    def save_clocks(self, clocks: dict[str, int]) -> None:
        """Write the game clocks of running rooms, all in one transaction."""
        if not clocks:
            return
        with Session(self.engine) as session:
            for code, game_ms in clocks.items():
                record = session.get(ClockRecord, code)
                if record is None:
                    session.add(ClockRecord(room_code=code, game_ms=game_ms))
                else:
                    record.game_ms = game_ms
                    session.add(record)
            session.commit()

    def clock(self, code: str) -> int | None:
        """The room's game clock as last written, if ever."""
        with Session(self.engine) as session:
            record = session.get(ClockRecord, code)
            return None if record is None else record.game_ms

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()
