"""Question packs in the database (SQLModel): import all-or-nothing, list, read back, export, delete.

A pack uploaded from a TV belongs to its host: ``owner_hash`` is the owner identity of the room it came from (the
SHA-256 of a host token, host/room.py ``Room.owner``), and only rooms of that owner see it unless ``shared`` is set.
A pack without an owner (stored before owners, or imported from the command line) counts as shared and is deleted
only from the command line (docs/packs.md, "Who sees a pack").

A stored pack is known by its ``uuid`` (a random UUID4 in hex), which is never given to another pack: SQLite gives the
integer ``id`` of a deleted row to the next one, so that number is only the questions' link to their pack. Packs
stored before the uuid existed keep their old number in ``legacy_id`` (``migrate``), so a room that chose one by
that number still finds that very pack; packs made since have none, and never answer to a number.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import BigInteger, Engine, Index, UniqueConstraint, bindparam, inspect, text
from sqlmodel import Field, Session, SQLModel, col, delete, select

from questions.model import Pack, Question, extra_fields


class PackRecord(SQLModel, table=True):
    """A pack: its name, language and credits."""

    __tablename__ = "pack"

    id: int | None = Field(default=None, primary_key=True)  # internal: SQLite reuses it (see the module's doc)
    uuid: str = Field(default_factory=lambda: uuid.uuid4().hex, unique=True, index=True, max_length=32)
    legacy_id: int | None = Field(default=None, index=True, sa_type=BigInteger)  # the id of a pack stored before
    # uuids (SQLite's ids are 64 bits)
    ready: bool = True  # False while its questions are being written (``save_pack``): no one sees it until then
    name: str
    language: str = Field(index=True)
    author: str = ""
    licence: str = ""
    description: str = ""
    created_ms: int = Field(sa_type=BigInteger)  # epoch ms: beyond 32 bits (PostgreSQL's INTEGER)
    owner_hash: str | None = Field(default=None, index=True, max_length=64)  # None: from before owners, or the CLI
    shared: bool = False  # offered to every room, not only its owner's
    # its questions of each type, counted once when it is stored (``migrate`` counts those of older packs): the lobby
    # lists every pack often, and counting 20,000 questions each time is a pass over them
    numeric_count: int | None = None
    choice_count: int | None = None
    # and its questions of every kind as a JSON object {"numeric": n, "text": n, ...} (the lobby's total counts them
    # all: ``kind_counts``); packs stored before the newer kinds get it from ``migrate``
    kind_counts: str | None = None


class QuestionRecord(SQLModel, table=True):
    """One question of a pack, in the pack's order."""

    __tablename__ = "question"
    # a pack is read a few rows at a time (``preview_pack``, ``StoredPack``): its first ones, the questions at given
    # places, the n-th of a kind and category; these indexes find them without a pass over its 20,000 rows
    __table_args__ = (Index("ix_question_pack_position", "pack_id", "position"),
                      Index("ix_question_pack_stratum", "pack_id", "type", "category", "position"))

    id: int | None = Field(default=None, primary_key=True)
    pack_id: int = Field(foreign_key="pack.id", index=True)
    position: int
    type: str
    prompt: str
    answer: int | None = Field(default=None, sa_type=BigInteger)  # up to 999,999,999,999 (CAMP-D14)
    unit: str | None = None
    options: str | None = None  # JSON list
    correct: int | None = None
    category: str
    difficulty: str
    source: str | None = None
    time_limit: int | None = None  # the question's own seconds (Question.time)
    image: str | None = None  # the file name of its image among the pack's images (PackImageRecord)
    # the newer kinds' fields that differ from their defaults, as a JSON object (``Question.extra``: margin, low,
    # high, rights, accepted, points); None for a question that has none
    extra: str | None = None


class PackImageRecord(SQLModel, table=True):
    """An image of a pack from a .zip (questions/archive.py), by its file name; written and deleted with the pack."""

    __tablename__ = "pack_image"
    __table_args__ = (UniqueConstraint("pack_uuid", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    pack_uuid: str = Field(index=True, max_length=32)
    name: str
    media_type: str
    data: bytes


# a draw's unit: (type, category), None for any, a tuple of types for any of them (questions/library.py)
Stratum = tuple[str | tuple[str, ...] | None, str | None]

STORE_CHUNK = 1000  # questions written per transaction (``save_pack``)
_written = [0]  # pack writes of this process so far: what lists packs may keep its answer until this changes


def writes() -> int:
    """How many times this process has changed the packs (stored, shared or unshared, deleted): a list of packs
    kept from before is stale once this moves (host/service.py ``pack_supply``)."""
    return _written[0]


def _changed() -> None:
    _written[0] += 1


def save_pack(engine: Engine, pack: Pack, pause: Callable[[], Any] = lambda: None, *, owner: str | None = None,
              shared: bool = False) -> str:
    """Store a checked pack, all or nothing; returns its key (the uuid). ``owner`` is the owner identity of the
    room that uploaded it (None: no owner, as the command line stores it), ``shared`` whether other rooms see it.

    The questions are written a thousand per transaction, with ``pause()`` between them (the server passes its
    loop's yield), so a pack of 20,000 questions never holds the database's write lock, nor the loop, for more than a
    few milliseconds at a time: the rooms' own writes go on between. The pack is written hidden (``ready`` false) and
    shown by the last transaction; a failure deletes what was written, and a pack left hidden by a crash is deleted
    at the next start (``migrate``)."""
    from json.encoder import encode_basestring  # what json.dumps(options, ensure_ascii=False) writes, faster

    values = [(position, q.type, q.prompt, q.answer, q.unit,
               "[" + ", ".join(map(encode_basestring, q.options)) + "]" if q.options else None,
               q.correct, q.category, q.difficulty, q.source, q.time, q.image,
               json.dumps(extra, ensure_ascii=False) if (extra := q.extra()) else None)
              for position, q in enumerate(pack.questions)]
    columns = ("pack_id", "position", "type", "prompt", "answer", "unit", "options", "correct", "category",
               "difficulty", "source", "time_limit", "image", "extra")
    with Session(engine) as session:
        kinds = pack.kinds()
        record = PackRecord(name=pack.name, language=pack.language, author=pack.author, licence=pack.licence,
                            description=pack.description, created_ms=time.time_ns() // 1_000_000,
                            uuid=uuid.uuid4().hex, ready=False, owner_hash=owner, shared=shared,
                            numeric_count=kinds.get("numeric", 0), choice_count=kinds.get("choice", 0),
                            kind_counts=json.dumps(kinds, sort_keys=True))
        session.add(record)
        session.commit()
        pack_id, key = record.id, str(record.uuid)
    try:
        for first in range(0, len(values), STORE_CHUNK):
            pause()
            rows = [(pack_id, *row) for row in values[first:first + STORE_CHUNK]]
            with engine.begin() as connection:
                if connection.dialect.paramstyle == "qmark":  # SQLite: one executemany straight to the driver
                    connection.exec_driver_sql(
                        f"INSERT INTO question ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
                else:
                    connection.execute(QuestionRecord.__table__.insert(),  # type: ignore[attr-defined]
                                       [dict(zip(columns, row)) for row in rows])
        for batch in _image_batches(getattr(pack, "images", None) or []):  # a .zip's images, hidden with the pack
            pause()
            with engine.begin() as connection:
                connection.execute(PackImageRecord.__table__.insert(),  # type: ignore[attr-defined]
                                   [{"pack_uuid": key, "name": i.name, "media_type": i.media_type, "data": i.data}
                                    for i in batch])
        pause()
        with engine.begin() as connection:
            connection.execute(text("UPDATE pack SET ready = :yes WHERE id = :id"), {"yes": True, "id": pack_id})
    except BaseException:
        _drop(engine, pack_id, key)
        raise
    _changed()
    return key


IMAGE_CHUNK_BYTES = 4 * 1024 * 1024  # image bytes written per transaction (``save_pack``)


def _image_batches(images: list[Any]) -> list[list[Any]]:
    """The images in batches of about IMAGE_CHUNK_BYTES (one image at least), in order."""
    batches: list[list[Any]] = []
    size = IMAGE_CHUNK_BYTES
    for image in images:
        if size + len(image.data) > IMAGE_CHUNK_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(image)
        size += len(image.data)
    return batches


def _drop(engine: Engine, pack_id: Any, key: str) -> None:
    """Delete a pack's rows, as far as the database lets us (a half-written pack; ``migrate`` retries)."""
    try:
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM pack_image WHERE pack_uuid = :key"), {"key": key})
            connection.execute(text("DELETE FROM question WHERE pack_id = :id"), {"id": pack_id})
            connection.execute(text("DELETE FROM pack WHERE id = :id"), {"id": pack_id})
    except Exception:  # the original error matters more; the next start deletes it
        logging.getLogger("throneroom.packs").warning("could not delete half-written pack %s", pack_id, exc_info=True)


def migrate(engine: Engine) -> int:
    """Bring a database from before stable pack ids up to date (SQLite and PostgreSQL alike): add the ``uuid`` and
    ``legacy_id`` columns, give every pack without a uuid one and keep its number as its legacy id; returns how
    many packs it gave a uuid. Safe to run on every start: on an up-to-date database it changes nothing."""
    columns = {c["name"] for c in inspect(engine).get_columns("pack")}
    question_columns = {c["name"] for c in inspect(engine).get_columns("question")}
    images = inspect(engine).has_table("pack_image")  # made by create_all (host/store.py) before this runs
    indexes = {i["name"] for i in inspect(engine).get_indexes("pack")}
    indexes |= {i["name"] for i in inspect(engine).get_indexes("question")}
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # an ALTER waits for the other workers' reads and writes
            connection.execute(text("SET LOCAL lock_timeout = 30000"))  # longer than their 200 ms (host/store.py)
        if "time_limit" not in question_columns:  # questions stored before packs had images and their own times
            connection.execute(text("ALTER TABLE question ADD COLUMN time_limit INTEGER"))
        if "image" not in question_columns:
            connection.execute(text("ALTER TABLE question ADD COLUMN image VARCHAR"))
        if "extra" not in question_columns:  # questions stored before the newer kinds: none of their fields
            connection.execute(text("ALTER TABLE question ADD COLUMN extra VARCHAR"))
        if "uuid" not in columns:
            connection.execute(text("ALTER TABLE pack ADD COLUMN uuid VARCHAR(32)"))
        if "legacy_id" not in columns:
            connection.execute(text("ALTER TABLE pack ADD COLUMN legacy_id BIGINT"))
        if "ready" not in columns:
            connection.execute(text("ALTER TABLE pack ADD COLUMN ready BOOLEAN NOT NULL DEFAULT TRUE"))
        if "owner_hash" not in columns:  # packs stored before owners have none: shared, deleted from the CLI only
            connection.execute(text("ALTER TABLE pack ADD COLUMN owner_hash VARCHAR(64)"))
        if "shared" not in columns:
            connection.execute(text("ALTER TABLE pack ADD COLUMN shared BOOLEAN NOT NULL DEFAULT FALSE"))
        for counted in ("numeric_count", "choice_count"):  # packs stored before their counts were: counted below
            if counted not in columns:
                connection.execute(text(f"ALTER TABLE pack ADD COLUMN {counted} INTEGER"))
        if "kind_counts" not in columns:
            connection.execute(text("ALTER TABLE pack ADD COLUMN kind_counts VARCHAR"))
        hidden = list(connection.execute(text("SELECT id FROM pack WHERE ready = :no"), {"no": False}).scalars())
        for pack_id in hidden:  # a pack whose writing a crash cut short: it was never shown, it never will be
            if images:
                connection.execute(text("DELETE FROM pack_image WHERE pack_uuid IN (SELECT uuid FROM pack "
                                        "WHERE id = :id)"), {"id": pack_id})
            connection.execute(text("DELETE FROM question WHERE pack_id = :id"), {"id": pack_id})
            connection.execute(text("DELETE FROM pack WHERE id = :id"), {"id": pack_id})
        uncounted = list(connection.execute(text("SELECT id FROM pack WHERE numeric_count IS NULL "
                                                 "OR choice_count IS NULL OR kind_counts IS NULL")).scalars())
        for pack_id in uncounted:
            counts: dict[str, int] = {row[0]: int(row[1]) for row in connection.execute(
                text("SELECT type, COUNT(*) FROM question WHERE pack_id = :id GROUP BY type"), {"id": pack_id})}
            connection.execute(text("UPDATE pack SET numeric_count = :numeric, choice_count = :choice, "
                                    "kind_counts = :kinds WHERE id = :id"),
                               {"numeric": counts.get("numeric", 0), "choice": counts.get("choice", 0),
                                "kinds": json.dumps(counts, sort_keys=True), "id": pack_id})
        old = list(connection.execute(text("SELECT id FROM pack WHERE uuid IS NULL")).scalars())
        for pack_id in old:
            connection.execute(text("UPDATE pack SET uuid = :uuid, legacy_id = :id WHERE id = :id"),
                               {"uuid": uuid.uuid4().hex, "id": pack_id})
        for name, create in (("ix_pack_uuid", "CREATE UNIQUE INDEX IF NOT EXISTS ix_pack_uuid ON pack (uuid)"),
                             ("ix_pack_legacy_id", "CREATE INDEX IF NOT EXISTS ix_pack_legacy_id ON pack (legacy_id)"),
                             ("ix_pack_owner_hash",
                              "CREATE INDEX IF NOT EXISTS ix_pack_owner_hash ON pack (owner_hash)"),
                             ("ix_question_pack_position", ("CREATE INDEX IF NOT EXISTS ix_question_pack_position "
                                                            "ON question (pack_id, position)")),
                             ("ix_question_pack_stratum", ("CREATE INDEX IF NOT EXISTS ix_question_pack_stratum "
                                                           "ON question (pack_id, type, category, position)"))):
            if name not in indexes:  # PostgreSQL locks the table even for an index it already has: only if missing
                connection.execute(text(create))
    return len(old)


def is_key(key: Any) -> bool:
    """Whether this is the form of a stored pack's key: its uuid (32 lower-case hex digits) or, for a pack stored
    before uuids, its old number."""
    if not isinstance(key, str):
        return False
    if len(key) == 32:
        return all(c in "0123456789abcdef" for c in key)
    return 0 < len(key) <= 18 and key.isascii() and key.isdigit()


def _find(session: Session, key: str) -> PackRecord | None:
    """The pack with this key (see ``is_key``), if any."""
    if not is_key(key):
        return None
    if len(key) == 32:
        query = select(PackRecord).where(PackRecord.uuid == key)
    else:
        query = select(PackRecord).where(PackRecord.legacy_id == int(key))
    return session.exec(query.where(PackRecord.ready == True)).first()


def pack_access(engine: Engine, key: str) -> tuple[str, str | None, bool] | None:
    """The pack with this key as (uuid, owner identity or None, shared), if there is such a pack."""
    with Session(engine) as session:
        record = _find(session, key)
        return None if record is None else (str(record.uuid), record.owner_hash, bool(record.shared))


def set_shared(engine: Engine, key: str, shared: bool) -> bool:
    """Mark a pack shared with every room or not; False if there is no such pack."""
    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return False
        record.shared = shared
        session.add(record)
        session.commit()
    _changed()
    return True


def list_packs(engine: Engine) -> list[dict[str, Any]]:
    """Every pack with its question counts by type (stored with it: no pass over its questions), its owner identity
    (None: none) and whether it is shared."""
    with Session(engine) as session:
        packs = list(session.exec(select(PackRecord).where(PackRecord.ready == True)
                                  .order_by(col(PackRecord.id))))
        result = []
        for p in packs:
            kinds = _kinds(p)
            result.append({"id": p.uuid, "name": p.name, "language": p.language, "author": p.author,
                           "licence": p.licence, "numeric": kinds.get("numeric", 0), "choice": kinds.get("choice", 0),
                           "kinds": kinds, "total": sum(kinds.values()), "owner": p.owner_hash,
                           "shared": bool(p.shared)})
        return result


def _kinds(record: PackRecord) -> dict[str, int]:
    """A pack's questions of each kind, as stored with it (``kind_counts``; before it, the numeric and choice
    counts, which were then all of them)."""
    if record.kind_counts:
        try:
            found = json.loads(record.kind_counts)
            if isinstance(found, dict):
                return {str(k): int(v) for k, v in found.items() if int(v) > 0}
        except (ValueError, TypeError):  # pragma: no cover - written by save_pack or migrate only
            pass
    kinds = {"numeric": record.numeric_count or 0, "choice": record.choice_count or 0}
    return {k: v for k, v in kinds.items() if v}


def load_pack(engine: Engine, key: str) -> Pack | None:
    """A stored pack by its key (``is_key``), read back whole."""
    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return None
        rows = session.exec(select(QuestionRecord).where(QuestionRecord.pack_id == record.id)
                            .order_by(col(QuestionRecord.position)))
        questions = [Question(r.type, r.prompt, r.category, r.difficulty, r.answer, r.unit,
                              tuple(json.loads(r.options)) if r.options else (), r.correct, r.source, r.time_limit,
                              r.image, **extra_fields(json.loads(r.extra)) if r.extra else {}) for r in rows]
        return Pack(record.name, record.language, questions, record.author, record.licence, record.description)


QUESTION_COLUMNS = ("position", "type", "prompt", "answer", "unit", "options", "correct", "category", "difficulty",
                    "source", "time_limit", "image", "extra")
IN_CHUNK = 500  # values bound in one ``IN (...)``: far below any database's limit on parameters


def _question(row: Any) -> Question:
    """A question from a row of QUESTION_COLUMNS."""
    return Question(row[1], row[2], row[7], row[8], row[3], row[4], tuple(json.loads(row[5])) if row[5] else (),
                    row[6], row[9], row[10], row[11], **extra_fields(json.loads(row[12])) if row[12] else {})


def preview_pack(engine: Engine, key: str, first: int) -> dict[str, Any] | None:
    """A stored pack's name, language, owner identity, whether it is shared, its number of questions and its
    ``first`` questions, if there is such a pack: a count and a LIMIT, never the whole pack (the lobby's preview
    asks it often, a pack may hold 20,000)."""
    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return None
        connection = session.connection()
        count = sum(_kinds(record).values())  # stored with it: no pass over 20,000
        rows = connection.execute(text(f"SELECT {', '.join(QUESTION_COLUMNS)} FROM question WHERE pack_id = :id "
                                       "ORDER BY position LIMIT :first"), {"id": record.id, "first": first})
        return {"name": record.name, "language": record.language, "owner": record.owner_hash,
                "shared": bool(record.shared), "count": count, "questions": [_question(row) for row in rows]}


class StoredPack:
    """A stored pack read a few rows at a time, for a game's draw (questions/library.py ``Library.draw``): how many
    questions it has of each type and category, where given questions fall, and the questions at given places.
    A *stratum* is a (type, category) pair, either of which may be None for "any"; a question's rank in a stratum is
    its index among the stratum's questions in the pack's order, counted by the database (a window function over an
    index), so that picking the 17,000th numeric question reads one row, not 17,000. Each query reads at most
    IN_CHUNK places at a time, with ``pause()`` between (the server's loop lets the other rooms run)."""

    def __init__(self, engine: Engine, row_id: int, language: str, pause: Callable[[], Any] = lambda: None):
        self.engine = engine
        self.row_id = row_id
        self.language = language
        self.pause = pause

    def census(self) -> dict[tuple[str, str], int]:
        """The number of questions of each (type, category)."""
        with self.engine.connect() as connection:
            rows = connection.execute(text("SELECT type, category, COUNT(*) FROM question WHERE pack_id = :id "
                                           "GROUP BY type, category"), {"id": self.row_id})
            return {(row[0], row[1]): int(row[2]) for row in rows}

    def strata_of(self, positions: list[int]) -> dict[int, tuple[str, str]]:
        """The (type, category) of the questions at these places (those that exist)."""
        return {row[0]: (row[1], row[2]) for row in self._chunked(
            "SELECT position, type, category FROM question WHERE pack_id = :id AND position IN :values", positions)}

    def _numbered(self, stratum: Stratum) -> bool:
        """Whether a question's rank among all of the pack's is its place: ``save_pack`` numbers them from 0 without
        gaps (checked, not assumed: a pack whose places have gaps is ranked by the database)."""
        if stratum != (None, None):
            return False
        with self.engine.connect() as connection:
            row = connection.execute(text("SELECT MIN(position), MAX(position), COUNT(*) FROM question "
                                          "WHERE pack_id = :id"), {"id": self.row_id}).one()
        return row[2] == 0 or (row[0] == 0 and row[1] == row[2] - 1)

    def ranks(self, stratum: Stratum, positions: list[int]) -> dict[int, int]:
        """The rank in the stratum of each of these places (all in the stratum)."""
        if self._numbered(stratum):
            return {p: p for p in positions}
        return {row[0]: int(row[1]) for row in self._chunked(
            f"SELECT position, n FROM ({self._ranked(stratum)}) AS ranked WHERE position IN :values", positions,
            stratum)}

    def at_ranks(self, stratum: Stratum, ranks: list[int]) -> list[int]:
        """The places of the stratum's questions of these ranks."""
        if self._numbered(stratum):
            return list(ranks)
        return [row[0] for row in self._chunked(f"SELECT position FROM ({self._ranked(stratum)}) AS ranked "
                                                "WHERE n IN :values", ranks, stratum)]

    def questions(self, positions: list[int]) -> dict[int, Question]:
        """The questions at these places, by place."""
        return {row[0]: _question(row) for row in self._chunked(
            f"SELECT {', '.join(QUESTION_COLUMNS)} FROM question WHERE pack_id = :id AND position IN :values",
            positions)}

    @staticmethod
    def _ranked(stratum: Stratum) -> str:
        kind, category = stratum
        return ("SELECT position, ROW_NUMBER() OVER (ORDER BY position) - 1 AS n FROM question WHERE pack_id = :id"
                + (" AND type IN :kinds" if isinstance(kind, tuple) else " AND type = :kind" if kind is not None
                   else "")
                + (" AND category = :category" if category is not None else ""))

    def _chunked(self, sql: str, values: list[int], stratum: Stratum = (None, None)) -> list[Any]:
        query = text(sql).bindparams(bindparam("values", expanding=True))
        params: dict[str, Any] = {"id": self.row_id}
        if isinstance(stratum[0], tuple):  # any of these kinds
            query = query.bindparams(bindparam("kinds", expanding=True))
            params["kinds"] = list(stratum[0])
        elif stratum[0] is not None:
            params["kind"] = stratum[0]
        if stratum[1] is not None:
            params["category"] = stratum[1]
        rows: list[Any] = []
        with self.engine.connect() as connection:
            for first in range(0, len(values), IN_CHUNK):
                if first:
                    self.pause()
                rows.extend(connection.execute(query, {**params, "values": values[first:first + IN_CHUNK]}))
        return rows


def stored_pack(engine: Engine, key: str, pause: Callable[[], Any] = lambda: None) -> StoredPack | None:
    """The stored pack with this key (``is_key``) for a draw, if there is such a pack."""
    with Session(engine) as session:
        record = _find(session, key)
        return None if record is None or record.id is None else StoredPack(engine, record.id, record.language, pause)


def load_image(engine: Engine, key: str, name: str) -> tuple[str, bytes] | None:
    """(media type, bytes) of an image of a stored pack (by the pack's key, ``is_key``), if both exist."""
    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return None
        row = session.exec(select(PackImageRecord.media_type, PackImageRecord.data)
                           .where(PackImageRecord.pack_uuid == record.uuid, PackImageRecord.name == name)).first()
        return None if row is None else (row[0], bytes(row[1]))


def load_images(engine: Engine, key: str) -> dict[str, Any]:
    """Every image of a stored pack by name (``questions.archive.PackImage``), for an export; empty if none."""
    from questions.archive import PackImage

    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return {}
        rows = session.exec(select(PackImageRecord).where(PackImageRecord.pack_uuid == record.uuid)
                            .order_by(PackImageRecord.name))
        return {r.name: PackImage(r.name, r.media_type, bytes(r.data)) for r in rows}


def delete_pack(engine: Engine, key: str) -> bool:
    """Remove a pack (by its key, ``is_key``), its questions and its images; False if there was none."""
    with Session(engine) as session:
        record = _find(session, key)
        if record is None:
            return False
        session.exec(delete(QuestionRecord).where(col(QuestionRecord.pack_id) == record.id))
        session.exec(delete(PackImageRecord).where(col(PackImageRecord.pack_uuid) == record.uuid))
        session.delete(record)
        session.commit()
    _changed()
    return True
