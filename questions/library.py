"""The questions a room can draw from: the built-in packs shipped in questions/packs/ and the packs hosts
uploaded (in the database). Pack ids are ``builtin:<file name>`` and ``db:<number>``; question ids add the
question's place in its pack (``builtin:en-numbers:17``), so a room can tell which questions it has seen."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from questions.formats import read_pack
from questions.model import Pack, PackError, Question
from questions.store import list_packs, load_pack

BUILTIN_DIR = Path(__file__).with_name("packs")
log = logging.getLogger("throneroom.packs")


@dataclass(frozen=True)
class Entry:
    """A question with its stable id and its pack's language."""

    id: str
    language: str
    question: Question


@cache
def builtin_packs() -> dict[str, Pack]:
    """The packs shipped with Throneroom, checked once."""
    packs = {}
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        try:
            packs[f"builtin:{path.stem}"] = read_pack(path.read_bytes(), path.name)
        except PackError as error:  # a broken built-in file must not take the server down; the tests catch it
            log.error("built-in pack %s is not valid: %s", path.name, error)
    return packs


class Library:
    """Every pack this server knows; the database part is read on demand."""

    def __init__(self, engine: Engine | None):
        self.engine = engine

    def packs(self) -> list[dict[str, Any]]:
        """Summaries: id, name, language, counts by type, built-in or not."""
        result = []
        for pack_id, pack in builtin_packs().items():
            numeric = sum(q.type == "numeric" for q in pack.questions)
            result.append({"id": pack_id, "name": pack.name, "language": pack.language, "numeric": numeric,
                           "choice": len(pack.questions) - numeric, "builtin": True})
        if self.engine is not None:
            for row in list_packs(self.engine):
                result.append({"id": f"db:{row['id']}", "name": row["name"], "language": row["language"],
                               "numeric": row["numeric"], "choice": row["choice"], "builtin": False})
        return result

    def has(self, pack_id: str) -> bool:
        """Whether a pack id is known."""
        return any(p["id"] == pack_id for p in self.packs())

    def pack(self, pack_id: str) -> Pack | None:
        """One pack, whole."""
        if pack_id in builtin_packs():
            return builtin_packs()[pack_id]
        if pack_id.startswith("db:") and pack_id[3:].isdigit() and self.engine is not None:
            return load_pack(self.engine, int(pack_id[3:]))
        return None

    def entries(self, pack_ids: list[str]) -> list[Entry]:
        """The questions of these packs, with their ids."""
        result = []
        for pack_id in pack_ids:
            pack = self.pack(pack_id)
            if pack is not None:
                result.extend(Entry(f"{pack_id}:{i}", pack.language, q) for i, q in enumerate(pack.questions))
        return result

    def default_packs(self, language: str) -> list[str]:
        """The built-in packs in a language (English if it has none)."""
        chosen = [pid for pid, pack in builtin_packs().items() if pack.language == language]
        return chosen or [pid for pid, pack in builtin_packs().items() if pack.language == "en"]
