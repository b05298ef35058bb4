"""Audience play-along (issue [8]): spectators answer every question of a running game on their phones too.

Their answers never touch the game: they live here, beside the room, not in the engine or the room's event log.
A game takes part by setting ``audience_play_along`` and offering ``audience_question(state)`` (both declared on
``engine.core.Game``; the Short Campaign and the Quiz do): the open question's identity (``key``), kind, window,
whether it is open, and its correct answer once revealed.

- An answer is measured with the same fair timing as a player's (host/connections.py ``measure`` with the socket's
  round trip) and taken while the question is open, or within the grace after it closed if the tap came before the
  close; once per spectator and question.
- Answers are appended to their own table in batches (``flush``): the ticker writes whatever arrived since its last
  turn in one transaction, and a question is always written before it is scored. An accepted answer can thus be
  lost only if the process dies within one tick of it (a clean stop flushes); see docs/decisions.md. A batch the
  database refuses (locked by another process, say) stays waiting and is written on a later turn: an acknowledged
  answer is never dropped. Up to ``MAX_WAITING`` answers may wait; beyond that new ones are refused with
  ``storage_busy``, and once answers have waited ``TROUBLE_AFTER_S`` the host's TV says so (``trouble``).
- A stop (``save_before_stop``) waits up to ``STOP_WRITE_WAIT_S`` for a database locked elsewhere; if it is still
  locked then, a SQLite database's waiting answers go to a file beside it (``<db>.unsaved-answers.json``), which the
  next start reads back, writes and deletes (``_read_spill``): a stop loses no acknowledged answer either.
- At the reveal the question is scored (``score_question``) and the running leaderboard updated. A restarted server
  rebuilds all of it: the room service replays the room's log and calls ``observe`` after each event, with the
  room's stored answers preloaded, so every question is scored again exactly as it was live.
- Kinds (issue [17]): ``choice`` and ``poll`` are answered with an option (a poll scores nothing), ``numeric`` with a
  number (scored by its margin when the game gives one, QUIZ-S2, else by closeness as the Campaign's); the audience
  does not answer ``multi``, ``order`` and ``text``: its phones are told to watch the TV (``watch``).
- Each scored question's summary (how many answered, how many were right) and the leaderboard's top are kept per
  game (``summary``): the Quiz's report (host/report.py) gives them, also after the next game started.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, col, select

from engine.core import Timing

log = logging.getLogger("throneroom.audience")

TOP_SHOWN = 5
ANSWERED_KINDS = ("numeric", "choice", "poll")  # the kinds the audience answers: the others it watches on the TV
KEPT_GAMES = 4  # the summaries of a room's last games kept (``RoomAudience.kept``): the report of the last Quiz
NUMERIC_POINTS = 150  # the closest answer of a numeric question; the farthest gets 150/n
CHOICE_POINTS = 100  # a right answer to a multiple-choice question ...
SPEED_POINTS = 50  # ... plus up to this much for being among the fastest right answers
FLUSH_AT = 500  # answers waiting: the handler of the last one writes them rather than wait for the ticker
MAX_WAITING = 50_000  # answers waiting for the database (it refused them): beyond this, new ones are refused
TROUBLE_AFTER_S = 5.0  # answers unsaved this long: the host's TV shows a warning until they are written
RETRY_AFTER_S = 1.0  # after a refused write, the next try waits this long (each try may stall the loop briefly)
STOP_WRITE_WAIT_S = 5.0  # a stop waits this long for a database locked elsewhere (a backup, a database browser)...
SPILL_SUFFIX = ".unsaved-answers.json"  # ... then the answers go to this file beside the database, read back at start
ROW_FIELDS = {"room_code": str, "game": int, "question": int, "seat": int, "value": int, "wall_ms": int, "timing": str}


class AudienceAnswerRecord(SQLModel, table=True):
    """One spectator's answer to one question of one game, as measured."""

    __tablename__ = "audience_answer"

    id: int | None = Field(default=None, primary_key=True)
    room_code: str = Field(index=True, max_length=8)
    game: int  # the room's game number (Room.games_started)
    question: int  # the question's key in that game
    seat: int
    value: int = Field(sa_type=BigInteger)  # a numeric answer: up to 999,999,999,999 (CAMP-D14)
    timing: str  # JSON, Timing.to_json()
    wall_ms: int = Field(sa_type=BigInteger)  # epoch ms: beyond 32 bits (PostgreSQL's INTEGER)


@dataclass(frozen=True)
class AudienceAnswer:
    """A spectator's answer and its fair timing."""

    seat: int
    value: int
    timing: Timing


@dataclass
class Result:
    """How one answer did: its place among the question's answers and the points it earned."""

    seat: int
    value: int
    ms: int
    rank: int  # 1 = best
    points: int
    right: bool  # multiple choice: the right option; numeric: the exact number (within the margin, with one)
    distance: int | None = None

    def to_json(self) -> dict[str, Any]:
        """As sent to the spectator's phone."""
        data = {"value": self.value, "ms": self.ms, "rank": self.rank, "points": self.points, "right": self.right}
        if self.distance is not None:
            data["distance"] = self.distance
        return data


@dataclass
class Question:
    """The audience's side of one question."""

    key: int
    kind: str
    options: int
    opens_ms: int
    closes_ms: int
    answers: dict[int, AudienceAnswer] = field(default_factory=dict)
    closed_at: int | None = None  # game ms of the event that revealed it (None: not revealed yet)
    correct: Any = None  # the right option or number once revealed (a poll has none)
    margin: int | None = None  # a numeric question's margin (QUIZ-S2), once revealed, if the game gives one
    results: dict[int, Result] = field(default_factory=dict)
    scored: bool = False


@dataclass
class Standing:
    """A spectator's running total in the current game."""

    seat: int
    points: int = 0
    ms: int = 0  # effective ms of the answers that scored: the leaderboard's tiebreak
    answered: int = 0
    right: int = 0


@dataclass
class RoomAudience:
    """The audience of one room's current (or last) game."""

    game: int = 0
    question: Question | None = None
    standings: dict[int, Standing] = field(default_factory=dict)
    board: list[int] = field(default_factory=list)  # seats, best first
    places: dict[int, int] = field(default_factory=dict)  # seat -> place on the board (1 = best)
    preloaded: dict[tuple[int, int], list[AudienceAnswer]] = field(default_factory=dict)  # replay only
    questions: list[dict[str, Any]] = field(default_factory=list)  # each scored question's summary (``summary``)
    kept: dict[int, dict[str, Any]] = field(default_factory=dict)  # game number -> its summary, the last games'


class AudienceError(Exception):
    """Raised with a room error code; the room service turns it into a RoomError."""

    def __init__(self, code: str, message: str, field_name: str | None = None):
        super().__init__(message)
        self.code, self.message, self.field = code, message, field_name


def score_question(question: Question, correct: Any, margin: int | None = None) -> dict[int, Result]:
    """Rank a question's audience answers as the players are ranked and award points (docs/decisions.md).

    Numeric without a margin (the Campaign): closest first, then the faster effective time; every answer scores, from
    NUMERIC_POINTS for the best down to NUMERIC_POINTS/n for the last. Numeric with a margin m (the Quiz, QUIZ-S2):
    the answers within it (distance d <= m) are right and rank first, by distance then time, each worth
    (CHOICE_POINTS + its speed bonus) x (1 - d / 2m), rounded half up (m = 0: exact answers only, whole points); the
    speed bonus is SPEED_POINTS down to SPEED_POINTS/n by effective time among the n right ones; the others rank
    after them, by distance then time, with no points. Multiple choice: right answers first, by effective time, each
    worth CHOICE_POINTS plus a speed bonus from SPEED_POINTS down to SPEED_POINTS/n; wrong answers rank after them,
    by time, with no points. A poll: no right answer, no points, ranked by time. Exact ties (same distance, same ms)
    go to the lower seat number, the earlier joiner."""
    answers = list(question.answers.values())
    results: dict[int, Result] = {}
    if question.kind == "poll":
        for place, a in enumerate(sorted(answers, key=lambda a: (a.timing.effective, a.seat))):
            results[a.seat] = Result(a.seat, a.value, a.timing.effective, place + 1, 0, False)
        return results
    if question.kind == "numeric" and margin is not None:
        within = [a for a in answers if abs(a.value - correct) <= margin]
        outside = sorted((a for a in answers if abs(a.value - correct) > margin),
                         key=lambda a: (abs(a.value - correct), a.timing.effective, a.seat))
        quick = {a.seat: i for i, a in enumerate(sorted(within, key=lambda a: (a.timing.effective, a.seat)))}
        n = len(within)
        ranked = sorted(within, key=lambda a: (abs(a.value - correct), a.timing.effective, a.seat))
        for place, a in enumerate(ranked):
            d = abs(a.value - correct)
            full = CHOICE_POINTS + round(SPEED_POINTS * (n - quick[a.seat]) / n)
            points = full if margin == 0 else (2 * full * (2 * margin - d) + 2 * margin) // (4 * margin)
            results[a.seat] = Result(a.seat, a.value, a.timing.effective, place + 1, points, True, d)
        for place, a in enumerate(outside):
            results[a.seat] = Result(a.seat, a.value, a.timing.effective, n + place + 1, 0, False,
                                     abs(a.value - correct))
        return results
    if question.kind == "numeric":
        ordered = sorted(answers, key=lambda a: (abs(a.value - correct), a.timing.effective, a.seat))
        n = len(ordered)
        for place, a in enumerate(ordered):
            results[a.seat] = Result(a.seat, a.value, a.timing.effective, place + 1,
                                     round(NUMERIC_POINTS * (n - place) / n), a.value == correct,
                                     abs(a.value - correct))
        return results
    right = sorted((a for a in answers if a.value == correct), key=lambda a: (a.timing.effective, a.seat))
    wrong = sorted((a for a in answers if a.value != correct), key=lambda a: (a.timing.effective, a.seat))
    n = len(right)
    for place, a in enumerate(right):
        results[a.seat] = Result(a.seat, a.value, a.timing.effective, place + 1,
                                 CHOICE_POINTS + round(SPEED_POINTS * (n - place) / n), True)
    for place, a in enumerate(wrong):
        results[a.seat] = Result(a.seat, a.value, a.timing.effective, n + place + 1, 0, False)
    return results


def beside_database(engine: Any, suffix: str) -> Path | None:
    """The file beside a SQLite database's own with ``suffix`` added to its name; None for an in-memory database or a
    database server (nothing of theirs is on this machine's disk to put it beside)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    path = Path(database)
    return path.with_name(path.name + suffix)


def valid_row(row: Any) -> bool:
    """Whether a row read back from the spill file is an answer as ``answer`` queues it (the file may have been
    edited, or cut short by a full disk)."""
    if not isinstance(row, dict) or set(row) != set(ROW_FIELDS):
        return False
    if any(type(row[name]) is not kind for name, kind in ROW_FIELDS.items()):
        return False
    try:
        return Timing.from_json(json.loads(row["timing"])) is not None
    except (ValueError, TypeError, KeyError, AttributeError):
        return False


class Audience:
    """Every room's audience in this process, and their answers' storage."""

    def __init__(self, engine: Any):
        self.engine = engine
        AudienceAnswerRecord.__table__.create(engine, checkfirst=True)  # type: ignore[attr-defined]
        self.rooms: dict[str, RoomAudience] = {}
        self.pending: list[dict[str, Any]] = []
        self.written = 0  # answers written so far (the benchmark reports it)
        self.flushes = 0
        self.failed_flushes = 0
        self.max_waiting = MAX_WAITING
        self.trouble_after_s = TROUBLE_AFTER_S
        self.retry_after_s = RETRY_AFTER_S
        self.failed_at: float | None = None  # monotonic time of the last refused write
        self.log_refusals = True  # off while a stop tries again and again (``save_before_stop``)
        self.waiting_since: dict[str, float] = {}  # room code -> monotonic time its oldest unsaved answer came
        self.trouble_shown: set[str] = set()  # rooms whose TV was last told of the warning (``score_due``)
        self._write_lock = threading.Lock()
        self.spill_path = beside_database(engine, SPILL_SUFFIX)  # where a stop puts what the database refused
        self.spilled = False  # ``pending`` begins with answers read back from it: it goes once they are written
        self._read_spill()

    # ----- storage -----

    def flush(self, force: bool = False, wait: bool = True) -> int:
        """Write every waiting answer in one transaction; returns how many. If the database refuses (a lock held
        elsewhere, say), the answers stay waiting: an acknowledged answer is never dropped. The next try comes
        ``retry_after_s`` later (``force``: at once), so a long lock costs the event loop one short wait a second
        rather than one per turn of the ticker. Without ``wait``, nothing is done while another task writes."""
        if not self._write_lock.acquire(blocking=wait):
            return 0
        try:
            return self._flush(force)
        finally:
            self._write_lock.release()

    def _flush(self, force: bool) -> int:
        if not self.pending:
            return 0
        if not force and self.failed_at is not None and time.monotonic() - self.failed_at < self.retry_after_s:
            return 0
        rows = self.pending[:]  # answers taken while this writes are appended after them
        try:
            with Session(self.engine) as session:
                session.execute(insert(AudienceAnswerRecord), rows)
                session.commit()
        except SQLAlchemyError as error:
            self.failed_flushes += 1
            self.failed_at = time.monotonic()
            if not self.log_refusals:
                return 0
            log.warning("could not write %d audience answer(s), will try again: %s", len(rows),
                        str(getattr(error, "orig", error)) or type(error).__name__)
            return 0
        del self.pending[:len(rows)]
        self.failed_at = None
        if self.spilled:  # the answers a stop left in the file are in the database now (they came first)
            self._remove_spill()
        still = {row["room_code"] for row in self.pending}
        for code in list(self.waiting_since):
            if code not in still:
                del self.waiting_since[code]
        self.written += len(rows)
        self.flushes += 1
        return len(rows)

    def save_before_stop(self, wait_s: float = STOP_WRITE_WAIT_S, sleep: Any = time.sleep) -> None:
        """A stop (host/app.py ``shutdown``): write every waiting answer, trying again for up to ``wait_s`` while the
        database is locked elsewhere (a backup, another program: each try waits SQLite's busy timeout); if it still
        refuses, put them in the spill file beside the database, which the next start reads back. Only a database
        with no file here (PostgreSQL) that stays locked loses them, and the log says how many."""
        started = time.monotonic()
        self.flush(force=True)
        self.log_refusals = False  # the first refusal was logged; the end says how it went
        try:
            while self.pending and time.monotonic() - started < wait_s:
                sleep(0.1)
                self.flush(force=True)
        finally:
            self.log_refusals = True
        waited = time.monotonic() - started
        if not self.pending:
            if waited >= 0.5:
                log.info("wrote the waiting audience answers after %.1f s (the database was locked)", waited)
            return
        count = len(self.pending)
        if self.spill_path is None:
            log.error("stopped with %d audience answer(s) the database would not take in %.0f s: they are lost",
                      count, waited)
            return
        temporary = self.spill_path.with_name(self.spill_path.name + ".tmp")
        try:  # whole or not at all: a reader never finds half a file
            with open(temporary, "w", encoding="utf-8") as out:
                json.dump({"audience_answers": self.pending}, out, separators=(",", ":"))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.spill_path)
        except OSError as error:
            log.error("stopped with %d audience answer(s) the database would not take in %.0f s, and they could not "
                      "be written to %s either (%s): they are lost", count, waited, self.spill_path, error)
            return
        log.error("the database stayed locked for %.0f s: %d audience answer(s) written to %s instead; the next start "
                  "writes them to the database", waited, count, self.spill_path)

    def _read_spill(self) -> None:
        """At start: the answers a stop could not write (``save_before_stop``) wait again, ahead of any new ones, and
        are written now if the database takes them (else by the ticker, like any refused batch); the file goes once
        they are in. Answers already stored (a start that wrote them and died before deleting the file) and answers
        of rooms deleted since are left out. A file that cannot be read is set aside, never deleted."""
        path = self.spill_path
        if path is None or not path.exists():
            return
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))["audience_answers"]
            if not isinstance(rows, list):
                raise TypeError("audience_answers is not a list")
        except (OSError, ValueError, KeyError, TypeError) as error:
            aside = path.with_name(path.name + ".unreadable")
            log.error("cannot read the audience answers a stop left in %s (%s): moved to %s", path, error, aside)
            try:
                os.replace(path, aside)
            except OSError:
                log.exception("could not move %s aside", path)
            return
        good = [row for row in rows if valid_row(row)]
        if len(good) != len(rows):
            log.error("%d malformed audience answer(s) in %s left out", len(rows) - len(good), path)
        waiting = self._not_stored(good)
        log.info("read %d audience answer(s) a stop left in %s (%d already stored or of rooms deleted since)",
                 len(waiting), path, len(good) - len(waiting))
        self.spilled = True
        if not waiting:
            self._remove_spill()
            return
        self.pending[:0] = waiting
        now = time.monotonic()
        for row in waiting:
            self.waiting_since.setdefault(row["room_code"], now)
        self.flush(force=True)

    def _not_stored(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows read back from the spill file that are not in the database yet and whose room still is (all of
        them if the database cannot be read)."""
        from host.store import RoomRecord

        codes = sorted({row["room_code"] for row in rows})
        rooms: set[str] = set()
        stored: set[tuple[str, int, int, int]] = set()
        table = AudienceAnswerRecord
        try:
            with Session(self.engine) as session:
                for first in range(0, len(codes), 500):  # SQLite takes at most 999 parameters per statement
                    chunk = codes[first:first + 500]
                    rooms.update(session.exec(select(RoomRecord.code).where(col(RoomRecord.code).in_(chunk))))
                    query = select(table.room_code, table.game, table.question, table.seat)
                    stored.update(tuple(r) for r in session.exec(query.where(col(table.room_code).in_(chunk))))
        except SQLAlchemyError:
            log.warning("could not compare the answers read back with the database's", exc_info=True)
            return rows
        return [row for row in rows if row["room_code"] in rooms and
                (row["room_code"], row["game"], row["question"], row["seat"]) not in stored]

    def _remove_spill(self) -> None:
        self.spilled = False
        assert self.spill_path is not None
        try:
            self.spill_path.unlink(missing_ok=True)
        except OSError:
            log.exception("could not delete %s: its answers are stored; delete it by hand", self.spill_path)
            return
        log.info("the audience answers read back from %s are stored; the file is deleted", self.spill_path)

    def trouble(self, code: str) -> dict[str, Any] | None:
        """For the host's TV: None, or ``{waiting, seconds}`` once this room's audience answers have waited
        ``trouble_after_s`` or more unsaved (the database refused them): how many answers wait in all, and how long
        this room's oldest has."""
        since = self.waiting_since.get(code)
        if since is None:
            return None
        seconds = time.monotonic() - since
        if seconds < self.trouble_after_s:
            return None
        return {"waiting": len(self.pending), "seconds": int(seconds)}

    def preload(self, code: str) -> None:
        """Before a room's log is replayed: its stored answers, to be scored again as the replay reaches them, and
        those still waiting for the database (read back from the spill file while it is locked, say)."""
        self.flush()
        audience = self.rooms.setdefault(code, RoomAudience())
        with Session(self.engine) as session:
            query = select(AudienceAnswerRecord).where(AudienceAnswerRecord.room_code == code)
            rows = [(r.game, r.question, r.seat, r.value, r.timing)
                    for r in session.exec(query.order_by(col(AudienceAnswerRecord.id)))]
        rows += [(r["game"], r["question"], r["seat"], r["value"], r["timing"])
                 for r in self.pending if r["room_code"] == code]
        for game, question, seat, value, timing_json in rows:
            timing = Timing.from_json(json.loads(timing_json))
            if timing is None:
                continue
            audience.preloaded.setdefault((game, question), []).append(AudienceAnswer(seat, value, timing))

    def forget(self, code: str) -> None:
        """The room left this process (expired, or moved to another worker): drop its audience and its warning. Its
        answers still waiting for the database stay waiting (with ``waiting_since``) until they are written: they were
        acknowledged."""
        self.rooms.pop(code, None)
        self.trouble_shown.discard(code)

    def replayed(self, code: str) -> None:
        """The replay is over: forget the preloaded answers."""
        audience = self.rooms.get(code)
        if audience is not None:
            audience.preloaded.clear()

    # ----- following the game -----

    def observe(self, room: Any, now_ms: int, replaying: bool = False) -> None:
        """After each event of a room (live and on replay): follow the game's question and note its reveal; a
        replay scores it at once, live it is scored by ``score_due`` once the grace is over."""
        session = room.session
        game_no = room.games_started
        audience = self.rooms.get(room.code)
        if session is None or not session.game.audience_play_along:
            return
        if audience is None:
            audience = self.rooms[room.code] = RoomAudience(game=game_no)
        if audience.game != game_no:  # a new game: a new leaderboard (the last one's summary is kept)
            if audience.questions or audience.standings:
                audience.kept[audience.game] = self._summary(room, audience)
                for old in sorted(audience.kept)[:-KEPT_GAMES]:
                    del audience.kept[old]
            audience.game, audience.question = game_no, None
            audience.standings, audience.board, audience.places, audience.questions = {}, [], {}, []
        asked = session.game.audience_question(session.state)
        question = audience.question
        if question is not None and not question.scored and question.closed_at is not None and (
                replaying or asked is None or asked["key"] != question.key):
            self._score(room.code, audience, question)  # the game moved on within the grace: score it now
        if asked is None:
            return
        if question is None or question.key != asked["key"]:
            question = Question(asked["key"], asked["kind"], asked["options"], asked["opens_ms"], asked["closes_ms"])
            for answer in audience.preloaded.pop((game_no, question.key), []):
                question.answers.setdefault(answer.seat, answer)
            audience.question = question
        elif question.closed_at is None:  # the game is the window's authority: a host's Skip of the "get ready"
            question.opens_ms, question.closes_ms = asked["opens_ms"], asked["closes_ms"]  # opens it now, for all
        if asked["revealed"] and question.closed_at is None:
            question.closed_at, question.correct = now_ms, asked.get("correct")
            question.margin = self._margin(session, asked) if question.kind == "numeric" else None
            if replaying:  # every answer it ever got is already here
                self._score(room.code, audience, question)

    @staticmethod
    def _margin(session: Any, asked: dict[str, Any]) -> int | None:
        """A revealed numeric question's margin (QUIZ-S2): the audience question's, else the reveal's in the game's
        view (the Quiz's); None for a game without margins (the Campaign: closest wins)."""
        margin = asked.get("margin")
        if margin is None:
            reveal = session.game.view(session.state, None).get("reveal")
            margin = reveal.get("margin") if isinstance(reveal, dict) else None
        return margin if isinstance(margin, int) and not isinstance(margin, bool) and margin >= 0 else None

    def may_score(self, code: str) -> bool:
        """Whether ``score_due`` could change anything in this room now: a closed question not scored yet, or answers
        waiting unsaved (the storage warning may come), or the warning shown. Cheap and without the room's lock: the
        ticker asks it of every running room twenty times a second, and most have nothing to score."""
        audience = self.rooms.get(code)
        question = audience.question if audience is not None else None
        return question is not None and not question.scored and question.closed_at is not None \
            or code in self.waiting_since or code in self.trouble_shown

    def score_due(self, room: Any, now_ms: int, grace_ms: int) -> bool:
        """Score the room's revealed question once the grace for answers in flight is over; whether the room's view
        changed: it scored, or the storage warning (``trouble``) came or went since the last call."""
        troubled = self.trouble(room.code) is not None
        if troubled != (room.code in self.trouble_shown):
            (self.trouble_shown.add if troubled else self.trouble_shown.discard)(room.code)
            self._score_due(room, now_ms, grace_ms)
            return True
        return self._score_due(room, now_ms, grace_ms)

    def _score_due(self, room: Any, now_ms: int, grace_ms: int) -> bool:
        audience = self.rooms.get(room.code)
        question = audience.question if audience is not None else None
        if audience is None or question is None or question.scored or question.closed_at is None:
            return False
        if now_ms < question.closed_at + grace_ms:
            return False
        self._score(room.code, audience, question)
        # a question nobody in the audience answered, in a room whose audience never scored, changes nothing any
        # screen shows: no broadcast (a tenth of a party's broadcasts went to rooms without an audience)
        return bool(question.answers) or bool(audience.standings)

    def _score(self, code: str, audience: RoomAudience, question: Question) -> None:
        if any(row["room_code"] == code for row in self.pending):
            self.flush()  # what is scored is on disk first
        answered = question.kind in ANSWERED_KINDS and (question.kind == "poll" or question.correct is not None)
        question.results = score_question(question, question.correct, question.margin) if answered else {}
        question.scored = True
        audience.questions.append({
            "key": question.key, "kind": question.kind, "answered": len(question.results),
            "right": None if question.kind == "poll" or not answered else sum(r.right for r in question.results.values())})
        for result in question.results.values():
            standing = audience.standings.setdefault(result.seat, Standing(result.seat))
            standing.answered += 1
            standing.right += result.right
            if result.points:
                standing.points += result.points
                standing.ms += result.ms
        audience.board = [s.seat for s in sorted(audience.standings.values(),
                                                 key=lambda s: (-s.points, s.ms, s.seat))]
        audience.places = {seat: place + 1 for place, seat in enumerate(audience.board)}

    # ----- answering -----

    def answer(self, room: Any, seat_id: int, payload: Any, now_ms: int, measure: Any, grace_ms: int,
               wall_ms: int) -> dict[str, Any]:
        """Take a spectator's answer ``{action: {answer: n} | {choice: i}, step?, ms?}``; AudienceError if refused.
        ``measure(unlock_ms, claimed)`` is the room service's fair timing for this socket."""
        if not isinstance(payload, dict) or "action" not in payload:
            raise AudienceError("invalid", "payload must be an object with an action", "action")
        step = payload.get("step")
        if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
            raise AudienceError("invalid", "step must be a whole number", "step")
        claimed = payload.get("ms")
        if claimed is not None and (isinstance(claimed, bool) or not isinstance(claimed, (int, float))
                                    or not 0 <= claimed <= 3_600_000):
            raise AudienceError("invalid", "ms must be a number of milliseconds", "ms")
        seat = room.seats.get(seat_id)
        session = room.session
        if seat is None or seat.kicked or (session is not None and session.slot_of(seat_id) is not None):
            raise AudienceError("not_audience", "only people who watch this game answer with the audience")
        if session is None or session.is_over or not session.game.audience_play_along:
            raise AudienceError("no_question", "no question is open")
        try:
            kind, value = session.game.parse_action(payload["action"])
        except Exception as error:  # the engine's InvalidAction, with its field
            raise AudienceError("invalid", getattr(error, "message", str(error)),
                                getattr(error, "field", "action")) from error
        audience = self.rooms.get(room.code)
        question = audience.question if audience is not None and audience.game == room.games_started else None
        asked = session.game.audience_question(session.state)
        if question is None or asked is None or asked["key"] != question.key:
            raise AudienceError("no_question", "no question is open")
        if step is not None and step not in self._steps(session, asked):
            raise AudienceError("stale", "the game has moved on: look again", "step")
        if room.paused:
            raise AudienceError("paused", "the game is paused")
        if now_ms < question.opens_ms:
            raise AudienceError("not_yet", "the question is not open yet")
        closed_at = question.closed_at if question.closed_at is not None else now_ms
        if question.scored or (not asked["open"] and now_ms > closed_at + grace_ms):
            raise AudienceError("too_late", "too late: the question has closed")
        if seat_id in question.answers:
            raise AudienceError("already_answered", "you have already answered")
        if question.kind not in ANSWERED_KINDS:
            raise AudienceError("watch", "the audience does not answer this question: watch it on the TV", "action")
        if kind not in ("answer", "choice") or (kind == "answer") != (question.kind == "numeric"):
            raise AudienceError("invalid", "this question wants a number" if question.kind == "numeric"
                                else "pick an option", "action")
        if kind == "choice" and value >= question.options:
            raise AudienceError("invalid", "no such option", "action")
        if len(self.pending) >= self.max_waiting:
            raise AudienceError("storage_busy", "the server could not save that: try again")
        timing: Timing = measure(question.opens_ms, claimed)
        if not asked["open"] and question.opens_ms + timing.effective > min(closed_at, question.closes_ms):
            raise AudienceError("too_late", "too late: the question has closed")  # tapped after the close
        question.answers[seat_id] = AudienceAnswer(seat_id, value, timing)
        self.pending.append({"room_code": room.code, "game": room.games_started, "question": question.key,
                             "seat": seat_id, "value": value, "wall_ms": wall_ms,
                             "timing": json.dumps(timing.to_json(), separators=(",", ":"))})
        self.waiting_since.setdefault(room.code, time.monotonic())
        return {"ms": timing.effective}

    def flush_due(self) -> bool:
        """Whether so many answers wait that the handler of the last one should write them (``flush(wait=False)``,
        once it no longer holds the room's lock) rather than leave them to the ticker."""
        return len(self.pending) >= FLUSH_AT

    @staticmethod
    def _steps(session: Any, asked: dict[str, Any]) -> set[int]:
        """The game steps an answer to the open question may carry: the unlocked question's, or the preview's just
        before it (a phone that unlocked on its own clock before the unlock's update arrived)."""
        step = session.game.step(session.state)
        if step is None:
            return set()
        if asked["open"]:
            return {step, step - 1}
        return {step - 1, step - 2}  # just closed: the answer phase's step and its preview's

    # ----- views -----

    def public_view(self, room: Any) -> dict[str, Any] | None:
        """What everyone may see: how many answered the open question, and after a reveal the top five."""
        audience = self.rooms.get(room.code)
        if audience is None or room.session is None or audience.game != room.games_started:
            return None
        question = audience.question
        top = []
        for seat_id in audience.board[:TOP_SHOWN]:
            standing = audience.standings[seat_id]
            seat = room.seats.get(seat_id)
            if seat is None:
                continue
            gained = question.results.get(seat_id) if question is not None and question.scored else None
            top.append({**seat.public(), "points": standing.points, "place": audience.places[seat_id],
                        "gained": gained.points if gained else 0})
        return {
            "answered": len(question.answers) if question is not None and not question.scored else 0,
            "revealed": question is not None and question.scored,
            "top": top,
            "playing": len(audience.standings),
            "kind": question.kind if question is not None else None,
            "watch": question is not None and question.kind not in ANSWERED_KINDS,  # phones: watch it on the TV
        }

    def personal_view(self, room: Any, seat_id: int) -> dict[str, Any] | None:
        """A spectator's own part: the answer given to the open question, the last result, place and points."""
        audience = self.rooms.get(room.code)
        if audience is None or room.session is None or audience.game != room.games_started:
            return None
        question = audience.question
        own = question.answers.get(seat_id) if question is not None else None
        result = question.results.get(seat_id) if question is not None and question.scored else None
        standing = audience.standings.get(seat_id)
        return {
            "key": question.key if question is not None else None,
            "yours": own.value if own is not None and not (question and question.scored) else None,
            "result": result.to_json() if result is not None else None,
            "of": len(question.answers) if question is not None and question.scored else 0,
            "points": standing.points if standing else 0,
            "place": audience.places.get(seat_id),
            "players": len(audience.standings),
        }

    def _summary(self, room: Any, audience: RoomAudience) -> dict[str, Any]:
        """One game's audience in the report: each scored question's count of answers and right ones, how many
        played along, and the leaderboard's top as the TV showed it (``TOP_SHOWN``, names as they are now)."""
        top = []
        for seat_id in audience.board[:TOP_SHOWN]:
            standing = audience.standings[seat_id]
            seat = room.seats.get(seat_id)
            top.append({"seat": seat_id, "name": seat.name if seat is not None else "?", "points": standing.points,
                        "place": audience.places[seat_id], "answered": standing.answered, "right": standing.right})
        return {"questions": [dict(q) for q in audience.questions], "playing": len(audience.standings), "top": top}

    def summary(self, room: Any, game: int) -> dict[str, Any] | None:
        """The audience of the room's game number ``game`` (``GameSession.number``), the current or one of the last
        ``KEPT_GAMES``: see ``_summary``; None if no one played along (or it is no longer kept)."""
        audience = self.rooms.get(room.code)
        if audience is None:
            return None
        if audience.game == game:
            return self._summary(room, audience)
        return audience.kept.get(game)

    def standings(self, code: str) -> list[dict[str, Any]]:
        """The current game's leaderboard, best first (for tests and the benchmark)."""
        audience = self.rooms.get(code)
        if audience is None:
            return []
        return [{"seat": s, "points": audience.standings[s].points, "place": audience.places[s]}
                for s in audience.board]
