"""The questions a room can draw from: the built-in packs shipped in questions/packs/ and the packs hosts
uploaded (in the database). Pack ids are ``builtin:<file name>`` and ``db:<uuid>`` (32 hex digits, never given to
another pack, even after a delete); a pack uploaded before uuids also answers to its old ``db:<number>``, so a room
that chose it by that number still gets that very pack (questions/store.py). Question ids add the question's place in
its pack (``builtin:en-numbers:17``), so a room can tell which questions it has seen."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine

from questions.formats import read_pack
from questions.model import Pack, PackError, Question
from questions.store import current_key, is_key, list_packs, load_pack

BUILTIN_DIR = Path(__file__).with_name("packs")
log = logging.getLogger("throneroom.packs")


@dataclass(frozen=True)
class Entry:
    """A question with its stable id and its pack's language."""

    id: str
    language: str
    question: Question

    @property
    def pack_id(self) -> str:
        """The id of the pack the question is in (``db:<uuid>`` of ``db:<uuid>:17``)."""
        return self.id.rsplit(":", 1)[0]

    @property
    def image_url(self) -> str | None:
        """Where the TV loads the question's image (host/web.py serves the pack's images), if it has one."""
        if not self.question.image:
            return None
        return f"/packs/{self.pack_id}/media/{quote(self.question.image)}"


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

    def _db_key(self, pack_id: Any) -> str | None:
        """The store's key of a ``db:`` pack id of the right form, else None."""
        if self.engine is None or not isinstance(pack_id, str) or not pack_id.startswith("db:"):
            return None
        key = pack_id[3:]
        return key if is_key(key) else None

    def current_id(self, pack_id: Any) -> str | None:
        """The id a known pack is listed under (``db:<number>`` of a pack from before uuids gives its ``db:<uuid>``);
        None if there is no such pack (never was, or deleted)."""
        if isinstance(pack_id, str) and pack_id in builtin_packs():
            return pack_id
        key = self._db_key(pack_id)
        found = current_key(self.engine, key) if key is not None else None
        return None if found is None else f"db:{found}"

    def current(self, pack_ids: list[str]) -> list[str]:
        """These packs as listed, in order, without the ones that are gone (what a lobby shows as chosen)."""
        result: list[str] = []
        for pack_id in pack_ids:
            found = self.current_id(pack_id)
            if found is not None and found not in result:
                result.append(found)
        return result

    def has(self, pack_id: str) -> bool:
        """Whether a pack id is known."""
        return self.current_id(pack_id) is not None

    def pack(self, pack_id: str) -> Pack | None:
        """One pack, whole."""
        if pack_id in builtin_packs():
            return builtin_packs()[pack_id]
        key = self._db_key(pack_id)
        return load_pack(self.engine, key) if key is not None else None

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
