"""The questions a room can draw from: the built-in packs shipped in questions/packs/ and the packs hosts
uploaded (in the database). Pack ids are ``builtin:<file name>`` and ``db:<uuid>`` (32 hex digits, never given to
another pack, even after a delete); a pack uploaded before uuids also answers to its old ``db:<number>``, so a room
that chose it by that number still gets that very pack (questions/store.py). Question ids add the question's place in
its pack (``builtin:en-numbers:17``), so a room can tell which questions it has seen.

Which packs a room is offered depends on who asks: the methods take ``viewer``, the owner identity of the room
(host/room.py ``Room.owner``). A room sees the built-in packs, its owner's uploads, the uploads their owners shared and
the packs without an owner (from before owners, or the command line); a pack it cannot see is, for it, as if it were
not there. ``viewer`` None sees every pack (the server itself, the command line)."""

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
from questions.store import is_key, list_packs, load_pack, pack_access

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


def visible(owner: str | None, shared: bool, viewer: str | None) -> bool:
    """Whether a room with the owner identity ``viewer`` is offered a stored pack (None: everything is)."""
    return viewer is None or owner is None or shared or owner == viewer


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

    def packs(self, viewer: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the packs ``viewer`` sees: id, name, language, counts by type, and whose it is: ``builtin``,
        ``mine`` (the viewer's own upload) and ``shared`` (offered to every room: shared by its owner, or without
        one; a built-in pack is not "shared")."""
        result = []
        for pack_id, pack in builtin_packs().items():
            numeric = sum(q.type == "numeric" for q in pack.questions)
            result.append({"id": pack_id, "name": pack.name, "language": pack.language, "numeric": numeric,
                           "choice": len(pack.questions) - numeric, "builtin": True, "mine": False, "shared": False})
        if self.engine is not None:
            for row in list_packs(self.engine):
                if not visible(row["owner"], row["shared"], viewer):
                    continue
                result.append({"id": f"db:{row['id']}", "name": row["name"], "language": row["language"],
                               "numeric": row["numeric"], "choice": row["choice"], "builtin": False,
                               "mine": viewer is not None and row["owner"] == viewer,
                               "shared": row["owner"] is None or row["shared"]})
        return result

    def owner_of(self, pack_id: Any) -> tuple[str, str | None, bool] | None:
        """A stored pack's current id, owner identity (None: none) and whether it is shared; None for a built-in
        pack or one that is not there."""
        key = self._db_key(pack_id)
        found = pack_access(self.engine, key) if key is not None and self.engine is not None else None
        return None if found is None else (f"db:{found[0]}", found[1], found[2])

    def _db_key(self, pack_id: Any) -> str | None:
        """The store's key of a ``db:`` pack id of the right form, else None."""
        if self.engine is None or not isinstance(pack_id, str) or not pack_id.startswith("db:"):
            return None
        key = pack_id[3:]
        return key if is_key(key) else None

    def current_id(self, pack_id: Any, viewer: str | None = None) -> str | None:
        """The id a known pack is listed under (``db:<number>`` of a pack from before uuids gives its ``db:<uuid>``);
        None if there is no such pack (never was, or deleted) or ``viewer`` does not see it."""
        if isinstance(pack_id, str) and pack_id in builtin_packs():
            return pack_id
        found = self.owner_of(pack_id)
        if found is None or not visible(found[1], found[2], viewer):
            return None
        return found[0]

    def current(self, pack_ids: list[str], viewer: str | None = None) -> list[str]:
        """These packs as listed, in order, without the ones that are gone or that ``viewer`` does not see (what a
        lobby shows as chosen, and what a game draws from)."""
        result: list[str] = []
        for pack_id in pack_ids:
            found = self.current_id(pack_id, viewer)
            if found is not None and found not in result:
                result.append(found)
        return result

    def has(self, pack_id: str, viewer: str | None = None) -> bool:
        """Whether a pack id is known (to ``viewer``)."""
        return self.current_id(pack_id, viewer) is not None

    def pack(self, pack_id: str, viewer: str | None = None) -> Pack | None:
        """One pack, whole (if ``viewer`` sees it)."""
        if pack_id in builtin_packs():
            return builtin_packs()[pack_id]
        key = self._db_key(pack_id)
        if key is None or self.engine is None or (viewer is not None and self.current_id(pack_id, viewer) is None):
            return None
        return load_pack(self.engine, key)

    def entries(self, pack_ids: list[str]) -> list[Entry]:
        """The questions of these packs, with their ids."""
        result: list[Entry] = []
        for pack_id in pack_ids:
            pack = self.pack(pack_id)
            if pack is not None:
                result.extend(Entry(f"{pack_id}:{i}", pack.language, q) for i, q in enumerate(pack.questions))
        return result

    def default_packs(self, language: str) -> list[str]:
        """The built-in packs in a language (English if it has none)."""
        chosen = [pid for pid, pack in builtin_packs().items() if pack.language == language]
        return chosen or [pid for pid, pack in builtin_packs().items() if pack.language == "en"]
