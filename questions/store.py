"""Question packs in the database (SQLModel): import all-or-nothing, list, read back, export, delete."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Field, Session, SQLModel, delete, select

from questions.model import Pack, Question


class PackRecord(SQLModel, table=True):
    """A pack: its name, language and credits."""

    __tablename__ = "pack"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    language: str = Field(index=True)
    author: str = ""
    licence: str = ""
    description: str = ""
    created_ms: int


class QuestionRecord(SQLModel, table=True):
    """One question of a pack, in the pack's order."""

    __tablename__ = "question"

    id: int | None = Field(default=None, primary_key=True)
    pack_id: int = Field(foreign_key="pack.id", index=True)
    position: int
    type: str
    prompt: str
    answer: int | None = None
    unit: str | None = None
    options: str | None = None  # JSON list
    correct: int | None = None
    category: str
    difficulty: str
    source: str | None = None


def save_pack(engine: Engine, pack: Pack) -> int:
    """Store a checked pack in one transaction; returns its id."""
    with Session(engine) as session:
        record = PackRecord(name=pack.name, language=pack.language, author=pack.author, licence=pack.licence,
                            description=pack.description, created_ms=time.time_ns() // 1_000_000)
        session.add(record)
        session.flush()
        for position, q in enumerate(pack.questions):
            session.add(QuestionRecord(pack_id=record.id, position=position, type=q.type, prompt=q.prompt,
                                       answer=q.answer, unit=q.unit,
                                       options=json.dumps(list(q.options), ensure_ascii=False) if q.options else None,
                                       correct=q.correct, category=q.category, difficulty=q.difficulty,
                                       source=q.source))
        session.commit()
        return int(record.id)


def list_packs(engine: Engine) -> list[dict[str, Any]]:
    """Every pack with its question counts by type."""
    with Session(engine) as session:
        packs = list(session.exec(select(PackRecord).order_by(PackRecord.id)))
        result = []
        for p in packs:
            types = [q for q in session.exec(select(QuestionRecord.type).where(QuestionRecord.pack_id == p.id))]
            result.append({"id": p.id, "name": p.name, "language": p.language, "author": p.author,
                           "licence": p.licence, "numeric": types.count("numeric"), "choice": types.count("choice")})
        return result


def load_pack(engine: Engine, pack_id: int) -> Pack | None:
    """A stored pack, read back whole."""
    with Session(engine) as session:
        record = session.get(PackRecord, pack_id)
        if record is None:
            return None
        rows = session.exec(select(QuestionRecord).where(QuestionRecord.pack_id == pack_id)
                            .order_by(QuestionRecord.position))
        questions = [Question(r.type, r.prompt, r.category, r.difficulty, r.answer, r.unit,
                              tuple(json.loads(r.options)) if r.options else (), r.correct, r.source) for r in rows]
        return Pack(record.name, record.language, questions, record.author, record.licence, record.description)


def delete_pack(engine: Engine, pack_id: int) -> bool:
    """Remove a pack and its questions; False if there was none."""
    with Session(engine) as session:
        record = session.get(PackRecord, pack_id)
        if record is None:
            return False
        session.exec(delete(QuestionRecord).where(QuestionRecord.pack_id == pack_id))
        session.delete(record)
        session.commit()
        return True
