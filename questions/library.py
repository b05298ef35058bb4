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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from sqlalchemy import Engine

from engine.core import Draw, Rng
from questions.formats import read_pack
from questions.model import Pack, PackError, Question
from questions.store import is_key, list_packs, load_pack, pack_access, preview_pack, stored_pack

BUILTIN_DIR = Path(__file__).with_name("packs")
log = logging.getLogger("throneroom.packs")


@dataclass(frozen=True)
class Entry:
    """A question with its stable id and its pack's language."""

    id: str
    language: str
    question: Question
    room: str | None = None  # the room that drew it (``Library.draw``): its images are served to that room only

    @property
    def pack_id(self) -> str:
        """The id of the pack the question is in (``db:<uuid>`` of ``db:<uuid>:17``)."""
        return self.id.rsplit(":", 1)[0]

    @property
    def image_url(self) -> str | None:
        """Where the TV loads the question's image (host/web.py serves a pack's images to a room that plays it, which
        the URL names), if it has one."""
        if not self.question.image:
            return None
        return f"/packs/{self.pack_id}/media/{quote(self.question.image)}" + (f"?room={self.room}" if self.room else "")


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


# (type, category), None for any, a tuple of types for any of them (a Draw's ``kinds`` without ``by_kind``): the unit
# a draw counts in
Stratum = tuple[str | tuple[str, ...] | None, str | None]


class Source(Protocol):
    """A pack as a draw reads it (questions/store.py ``StoredPack`` has the database's; ``MemoryPack`` here)."""

    language: str

    def census(self) -> dict[tuple[str, str], int]: ...

    def strata_of(self, positions: list[int]) -> dict[int, tuple[str, str]]: ...

    def ranks(self, stratum: Stratum, positions: list[int]) -> dict[int, int]: ...

    def at_ranks(self, stratum: Stratum, ranks: list[int]) -> list[int]: ...

    def questions(self, positions: list[int]) -> dict[int, Question]: ...


class MemoryPack:
    """A built-in pack (in memory) read as ``StoredPack`` reads a stored one."""

    def __init__(self, pack: Pack):
        self.pack = pack
        self.language = pack.language

    def census(self) -> dict[tuple[str, str], int]:
        counts: dict[tuple[str, str], int] = {}
        for q in self.pack.questions:
            counts[(q.type, q.category)] = counts.get((q.type, q.category), 0) + 1
        return counts

    def strata_of(self, positions: list[int]) -> dict[int, tuple[str, str]]:
        questions = self.pack.questions
        return {p: (questions[p].type, questions[p].category) for p in positions if 0 <= p < len(questions)}

    def _stratum(self, stratum: Stratum) -> list[int]:
        kind, category = stratum
        return [i for i, q in enumerate(self.pack.questions)
                if (kind is None or q.type == kind or (isinstance(kind, tuple) and q.type in kind))
                and (category is None or q.category == category)]

    def ranks(self, stratum: Stratum, positions: list[int]) -> dict[int, int]:
        wanted = set(positions)
        return {p: n for n, p in enumerate(self._stratum(stratum)) if p in wanted}

    def at_ranks(self, stratum: Stratum, ranks: list[int]) -> list[int]:
        places = self._stratum(stratum)
        return [places[n] for n in ranks if 0 <= n < len(places)]

    def questions(self, positions: list[int]) -> dict[int, Question]:
        return {p: self.pack.questions[p] for p in positions if 0 <= p < len(self.pack.questions)}


def sample(rng: Rng, n: int, k: int) -> list[int]:
    """``k`` different numbers of range(n) chosen at random (Floyd's algorithm: k draws, whatever n), in order."""
    if k >= n:
        return list(range(n))
    chosen: set[int] = set()
    for top in range(n - k, n):
        pick = rng.randbelow(top + 1)
        chosen.add(top if pick in chosen else pick)
    return sorted(chosen)


def taking_turns(counts: dict[Any, int], most: int, rng: Rng) -> dict[Any, int]:
    """How many of each group the first ``most`` of a deck holds whose groups take turns (one of each in a random
    order, round after round, a group that runs out dropping out): as many of each, give or take one."""
    left = dict(counts)
    taken = dict.fromkeys(counts, 0)
    total = min(most, sum(counts.values()))
    while total > 0:
        groups = sorted((g for g, n in left.items() if n > 0), key=repr)
        if len(groups) > total:  # the last round, cut short: which groups get one more is drawn
            rng.shuffle(groups)
            groups = groups[:total]
        for group in groups:
            left[group] -= 1
            taken[group] += 1
        total -= len(groups)
    return taken


def full_rank(unseen_rank: int, seen_ranks: list[int]) -> int:
    """The rank among all of a stratum's questions of its ``unseen_rank``-th unseen one (``seen_ranks`` sorted)."""
    rank = unseen_rank
    for seen in seen_ranks:
        if seen > rank:
            break
        rank += 1
    return rank


class Library:
    """Every pack this server knows; the database part is read on demand."""

    def __init__(self, engine: Engine | None):
        self.engine = engine

    def packs(self, viewer: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the packs ``viewer`` sees: id, name, language, its numeric and choice questions, its questions
        of every kind (``kinds``: {kind: count}) and all of them (``total``), and whose it is: ``builtin``,
        ``mine`` (the viewer's own upload) and ``shared`` (offered to every room: shared by its owner, or without
        one; a built-in pack is not "shared")."""
        result = []
        for pack_id, pack in builtin_packs().items():
            kinds = pack.kinds()
            result.append({"id": pack_id, "name": pack.name, "language": pack.language,
                           "numeric": kinds.get("numeric", 0), "choice": kinds.get("choice", 0), "kinds": kinds,
                           "total": len(pack.questions), "builtin": True, "mine": False, "shared": False})
        if self.engine is not None:
            for row in list_packs(self.engine):
                if not visible(row["owner"], row["shared"], viewer):
                    continue
                result.append({"id": f"db:{row['id']}", "name": row["name"], "language": row["language"],
                               "numeric": row["numeric"], "choice": row["choice"], "kinds": row["kinds"],
                               "total": row["total"], "builtin": False,
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

    def preview(self, pack_id: str, viewer: str | None, first: int = 20) -> dict[str, Any] | None:
        """A pack's name, language, number of questions and its ``first`` questions (if ``viewer`` sees it): what
        the lobby's preview shows, read with a count and a LIMIT, never the whole pack."""
        if pack_id in builtin_packs():
            pack = builtin_packs()[pack_id]
            return {"name": pack.name, "language": pack.language, "count": len(pack.questions),
                    "questions": pack.questions[:first]}
        key = self._db_key(pack_id)
        found = preview_pack(self.engine, key, first) if key is not None and self.engine is not None else None
        if found is None or not visible(found["owner"], found["shared"], viewer):
            return None
        return {k: found[k] for k in ("name", "language", "count", "questions")}

    def _source(self, pack_id: str, pause: Callable[[], Any]) -> Source | None:
        if pack_id in builtin_packs():
            return MemoryPack(builtin_packs()[pack_id])
        key = self._db_key(pack_id)
        return None if key is None or self.engine is None else stored_pack(self.engine, key, pause)

    def draw(self, pack_ids: list[str], how: Draw, seen: set[str], rng: Rng, room: str | None = None,
             pause: Callable[[], Any] = lambda: None) -> list[Entry]:
        """A sample of these packs' questions as a game's ``Draw`` asks, in the packs' order, reading only the
        questions it takes (and a few counts per pack): at most ``how.most`` unseen ones per kind (or in all), then
        seen ones up to ``how.most``. The sample is drawn over the packs together, each question as likely as any
        other of its stratum, from ``rng`` (the start's seed: the same packs and seed give the same sample).
        ``room`` is the drawing room's code, which its questions' image URLs carry; ``pause()`` runs between packs
        (the server's loop lets the other rooms run)."""
        kinds = tuple(sorted(how.kinds)) if how.kinds is not None else None  # None: every kind

        def stratum_of(kind: str, category: str) -> Stratum:
            return (kind if how.by_kind else kinds, category if how.categories and not how.in_order else None)

        def drawn(kind: str) -> bool:
            return kinds is None or kind in kinds

        sources: list[tuple[str, Source]] = []
        unseen: dict[Stratum, list[int]] = {}  # per stratum, each source's number of unseen questions
        seen_at: list[dict[int, Stratum]] = []  # per source, its seen questions' places and strata
        for pack_id in dict.fromkeys(pack_ids):
            source = self._source(pack_id, pause)
            if source is None:
                continue
            pause()
            index = len(sources)
            sources.append((pack_id, source))
            places = sorted({int(i[len(pack_id) + 1:]) for i in seen if i.startswith(pack_id + ":")
                             and i[len(pack_id) + 1:].isascii() and i[len(pack_id) + 1:].isdigit()
                             and len(i) - len(pack_id) <= 7})
            seen_here = {p: stratum_of(*s) for p, s in source.strata_of(places).items() if drawn(s[0])} \
                if places else {}
            seen_at.append(seen_here)
            for (kind, category), count in source.census().items():
                if not drawn(kind):  # a kind the game does not ask (Draw.kinds)
                    continue
                counts = unseen.setdefault(stratum_of(kind, category), [])
                counts.extend([0] * (index + 1 - len(counts)))
                counts[index] += count
            for stratum in seen_here.values():
                unseen[stratum][index] -= 1
        for counts in unseen.values():
            counts.extend([0] * (len(sources) - len(counts)))
        wanted: list[dict[Stratum, list[int]]] = [{} for _ in sources]  # per source and stratum: unseen ranks
        again: list[list[int]] = [[] for _ in sources]  # per source: seen places taken
        for drawn_kind in sorted({s[0] for s in unseen} | {s[0] for here in seen_at for s in here.values()}, key=repr):
            strata = sorted((s for s in unseen if s[0] == drawn_kind), key=repr)
            totals = {s: sum(unseen[s]) for s in strata}
            if how.in_order or not how.categories:
                quotas = {s: min(how.most, n) for s, n in totals.items()}  # one stratum per kind
            else:
                quotas = taking_turns(totals, how.most, rng)
            for stratum, quota in quotas.items():
                ranks = range(quota) if how.in_order else sample(rng, totals[stratum], quota)
                first, index = 0, 0  # a rank over the packs together: which pack's, and its rank there
                for rank in ranks:
                    while rank >= first + unseen[stratum][index]:
                        first += unseen[stratum][index]
                        index += 1
                    wanted[index].setdefault(stratum, []).append(rank - first)
            left = how.most - sum(quotas.values())
            old = [(index, place, stratum) for index, here in enumerate(seen_at)
                   for place, stratum in sorted(here.items()) if stratum[0] == drawn_kind]
            if left > 0 and old:
                if how.in_order:
                    taken = old[:left]
                else:
                    by_stratum: dict[Stratum, list[tuple[int, int, Stratum]]] = {}
                    for item in old:
                        by_stratum.setdefault(item[2], []).append(item)
                    shares = taking_turns({s: len(v) for s, v in by_stratum.items()}, left, rng) \
                        if how.categories else {s: min(left, len(v)) for s, v in by_stratum.items()}
                    taken = [by_stratum[s][i] for s, n in shares.items() for i in sample(rng, len(by_stratum[s]), n)]
                for index, place, _ in taken:
                    again[index].append(place)
        result: list[Entry] = []
        for index, (pack_id, source) in enumerate(sources):
            places = list(again[index])
            for stratum, ranks in wanted[index].items():
                pause()
                seen_places = [p for p, s in seen_at[index].items() if s == stratum]
                seen_ranks = sorted(source.ranks(stratum, seen_places).values()) if seen_places else []
                places.extend(source.at_ranks(stratum, [full_rank(r, seen_ranks) for r in ranks]))
            if places:
                pause()
                found = source.questions(sorted(set(places)))
                result.extend(Entry(f"{pack_id}:{p}", source.language, found[p], room) for p in sorted(found))
        return result

    def default_packs(self, language: str) -> list[str]:
        """The built-in packs in a language (English if it has none)."""
        chosen = [pid for pid, pack in builtin_packs().items() if pack.language == language]
        return chosen or [pid for pid, pack in builtin_packs().items() if pack.language == "en"]
