"""What the lobby tells the host about the next game before Start ([17]): how many questions the chosen packs hold,
how many of them the selected game will ask, and, where there is an honest estimate (the Quiz), about how long it
takes at this server's timer scale. The TV draws it (host/static/tv.js ``nextGame``); docs/packs.md, "Before Start".

The counts come from the packs themselves, all of a pack's questions whatever their kind, and from the time each
question carries (a Kahoot! time limit): read once per pack and kept (``PackStats``), as a pack never changes once
stored (a deleted pack's id is never given again).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from engine.core import Game
from questions.library import builtin_packs
from questions.store import PackRecord, QuestionRecord, is_key

STATS_KEPT = 10_000  # packs whose counts a process keeps (each is three numbers)


@dataclass(frozen=True)
class Stats:
    """A pack's (or several packs') questions: how many, how many carry their own time, and those times' sum (s)."""

    total: int = 0
    timed: int = 0
    time_sum: int = 0

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.total + other.total, self.timed + other.timed, self.time_sum + other.time_sum)


class PackStats:
    """``Stats`` of packs by id, read once each: a built-in pack from its file, a stored one with one count over its
    rows (never its questions)."""

    def __init__(self, engine: Engine | None):
        self.engine = engine
        self.kept: dict[str, Stats] = {}

    def of(self, pack_ids: list[str]) -> Stats:
        """The sum over these packs (ids as the library lists them: ``builtin:...``, ``db:<uuid>``)."""
        result = Stats()
        for pack_id in pack_ids:
            result += self._one(pack_id)
        return result

    def _one(self, pack_id: str) -> Stats:
        kept = self.kept.get(pack_id)
        if kept is not None:
            return kept
        stats = self._read(pack_id)
        if stats is None:  # not there (deleted meanwhile): counted as empty, and read again next time
            return Stats()
        if len(self.kept) >= STATS_KEPT:
            self.kept.clear()
        self.kept[pack_id] = stats
        return stats

    def _read(self, pack_id: str) -> Stats | None:
        pack = builtin_packs().get(pack_id)
        if pack is not None:
            times = [q.time for q in pack.questions if q.time]
            return Stats(len(pack.questions), len(times), sum(times))
        key = pack_id[3:] if pack_id.startswith("db:") else ""
        if self.engine is None or not is_key(key) or len(key) != 32:  # a uuid: a pack from before uuids is listed
            return None  # under its uuid (Library.current), never its number
        with Session(self.engine) as session:
            found = session.exec(select(PackRecord.id).where(PackRecord.uuid == key)).first()
            if found is None:
                return None
            row = session.exec(select(func.count(), func.count(col(QuestionRecord.time_limit)),
                                      func.coalesce(func.sum(col(QuestionRecord.time_limit)), 0))
                               .where(QuestionRecord.pack_id == found)).one()
        total, timed, time_sum = (int(value or 0) for value in row)
        return Stats(total, timed, time_sum)


def timer_ms(seconds: float, scale: float) -> float:
    """A timer as the game runs it (engine.core.Context.timer_ms, without the rounding)."""
    return max(50.0, seconds * 1000 * scale)


def quiz_seconds(settings: Mapping[str, Any], asks: int, stats: Stats, scale: float) -> tuple[int, bool]:
    """About how long a Quiz of ``asks`` questions takes at most (a question closes early once everyone answered),
    and whether the host paces it (then the reveals and leaderboards wait for the host's Next, and are left out).
    Each question: the "get ready" lock, its time (its own from the pack when the setting says so, on average over
    the chosen packs, else the setting's), the reveal; a leaderboard between questions (engine/quiz/game.py)."""
    from engine.quiz.game import READY_SECONDS

    seconds = settings["seconds"]
    answer = seconds
    if settings.get("pack_time") and stats.total:
        answer = (stats.time_sum + (stats.total - stats.timed) * seconds) / stats.total
    paced = settings.get("paced") == "host"
    each = timer_ms(READY_SECONDS, scale) + timer_ms(answer, scale)
    between = 0.0
    if not paced:
        each += timer_ms(settings["reveal_seconds"], scale)
        between = timer_ms(settings["standings_seconds"], scale) * max(0, asks - 1)
    return round((asks * each + between) / 1000), paced


ESTIMATES = {"quiz": quiz_seconds}  # games with an honest estimate of their length, by id


def next_game(game: Game[Any, Any], settings: Mapping[str, Any], stats: Stats, scale: float) -> dict[str, Any]:
    """The lobby's summary of the next game of a game that plays questions: ``total`` (questions in the chosen
    packs), and either ``asks`` (how many it will ask: its draw against what the packs hold) with ``why`` ("all",
    "count": the host's number, "short": fewer than the host's number, "cap": the game's most, "empty") and
    ``seconds`` (an estimate, or None) with ``paced``; or ``range`` ([lowest, highest] of a typical game, for a game
    that asks as it goes, such as the Short Campaign)."""
    needs = game.needs()
    plan: dict[str, Any] = {"game": game.info.id, "total": stats.total, "asks": None, "why": None, "range": None,
                            "seconds": None, "paced": False}
    if any(isinstance(span, list) for span in needs.values()):
        plan["range"] = [sum(s[0] if isinstance(s, list) else s for s in needs.values()),
                         sum(s[1] if isinstance(s, list) else s for s in needs.values())]
        return plan
    most = game.draw(settings).most
    asks = min(most, stats.total)
    count = settings.get("count")
    if not asks:
        why = "empty"
    elif isinstance(count, int) and count > stats.total:
        why = "short"
    elif asks == stats.total:
        why = "all"
    else:
        why = "count" if count else "cap"
    plan.update(asks=asks, why=why)
    estimate = ESTIMATES.get(game.info.id)
    if estimate is not None and asks:
        plan["seconds"], plan["paced"] = estimate(settings, asks, stats, scale)
    return plan
