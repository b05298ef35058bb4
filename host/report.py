"""The report of a Quiz (issue [17]): what a host takes home after a game, as CSV or as an Excel workbook.

Its source is the engine's ``QuizGame.report(state)`` (engine/quiz/game.py; the shape is in docs/quiz.md, "Report"):
the questions closed so far with every seat's answer, fair time (capped at the question's time), points and rank;
the final places (and teams); and the audience's summary from the play-along (host/audience.py ``summary``). Only
what the phones already saw goes in: the closed questions (never one not revealed), names, answers, times, points
and places; no question ids (an uploaded pack's id is in them), image URLs, tokens or addresses.

- The room's language names the columns (host/i18n/report.<lang>.json) and picks a prompt's text when it is given by
  language; a Persian report's sheets read right to left.
- Numbers stay numbers in the workbook's cells; the CSV is UTF-8 with a byte order mark, so Excel reads Persian.
- Formula injection: a text cell starting with ``=``, ``+``, ``-``, ``@`` (or a tab or carriage return) is quoted: in
  the CSV with a leading apostrophe, in the workbook as a text cell with Excel's quote prefix. A player named
  ``=HYPERLINK(...)`` stays a name.

``room_report`` is shared by the TV's download (host/web.py, ``GET /api/rooms/<code>/report.<format>``) and the
command line (``throneroom report ROOM``), which replays the room's log as the server does (``replay_room``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from host.audience import Audience, RoomAudience
from host.i18n import translate

FORMATS = ("csv", "xlsx")
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8",
               "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
QUIZ = "quiz"
RISKY_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may read as the start of a formula
KINDS = ("numeric", "choice", "multi", "poll", "order", "text")
MAX_CELL = 1000  # a text cell is cut to this (names are 20, answers 100, prompts a few hundred characters)


class NoReport(Exception):
    """There is no report to give: ``code`` is ``unknown_room`` or ``no_report``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass
class Table:
    """One part of the report: a sheet of the workbook, a block of the CSV."""

    name: str  # the sheet's name (31 characters at most, as Excel wants)
    header: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # lines above the header (the title, how the game ended)


def finished_quiz(room: Any) -> Any:
    """The room's last finished Quiz (a ``GameSession``), the one on the screen or one the room left since; None if
    no Quiz has finished in the room."""
    session = room.session
    if session is not None and session.game_id == QUIZ and session.is_over:
        return session
    return room.finished.get(QUIZ)


def shown(value: Any, language: str) -> Any:
    """A value of the engine's report as one cell: a text by language in the room's language (else English, else
    the first), several texts joined with " | ", a number as it is, nothing as None."""
    if isinstance(value, dict):
        for key in (language, "en"):
            if isinstance(value.get(key), str):
                return value[key]
        return next((v for v in value.values() if isinstance(v, str)), None)
    if isinstance(value, (list, tuple)):
        parts = [shown(v, language) for v in value]
        return " | ".join(str(p) for p in parts if p is not None)
    if isinstance(value, bool):
        return translate(language, "report.yes" if value else "report.no")
    return value


def number(value: Any) -> int | float | None:
    """A number of the report (None stays None: no answer has no time)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def safe_text(text: str) -> str:
    """A text cell of the CSV that no spreadsheet reads as a formula."""
    text = text[:MAX_CELL]
    return "'" + text if text.startswith(RISKY_STARTS) else text


def rank(result: dict[str, Any], results: list[dict[str, Any]]) -> int:
    """An answer's place among the question's answers: by points (the streak bonus included), then by time; answers
    with the same points and time share it (1 = best). Counted here from the report's points and times: the reveal's
    own ``rank`` leaves the streak bonus and the question's multiplier out (the answer's own worth), the report
    ranks what each player took home from the question."""
    def key(r: dict[str, Any]) -> tuple[int, int]:
        return (-(number(r.get("points")) or 0), number(r.get("ms")) or 0)

    mine = key(result)
    return 1 + sum(1 for r in results if r.get("answer") is not None and key(r) < mine)


def tables(report: dict[str, Any], language: str, *, code: str, names: dict[int, str], bots: set[int],
           aborted: bool, audience: dict[str, Any] | None) -> list[Table]:
    """The report's tables in the room's language: the answers (one row per question and seat), the final places,
    the teams (if any) and the audience."""
    def tr(key: str, **params: Any) -> str:
        return translate(language, key, **params)

    def who(slot: int, fallback: Any = None) -> str:
        name = names.get(slot) or (fallback if isinstance(fallback, str) else None) or f"#{slot + 1}"
        return tr("report.bot_mark", name=name) if slot in bots else name

    players = {p["slot"]: p for p in report.get("players") or []}

    def team_name(index: Any) -> str | None:
        return None if index is None else tr("quiz.team_n", n=index + 1)

    title = tr("report.title", code=code)
    questions = report.get("questions") or []
    notes = [title, tr("report.asked", n=len(questions))]
    if aborted:
        notes.append(tr("report.ended_by_host"))

    answers = Table(tr("report.sheet.answers"), [tr(f"report.col.{c}") for c in (
        "number", "question", "kind", "right_answer", "worth", "player", "answer", "ms", "points", "rank", "right")],
        notes=notes)
    for question in questions:
        kind = question.get("kind")
        common = [number(question.get("number")), shown(question.get("prompt"), language),
                  tr(f"report.kind.{kind}") if kind in KINDS else shown(kind, language),
                  shown(question.get("answer"), language), number(question.get("points"))]
        results = question.get("results") or []
        for result in results:
            slot = result.get("slot")
            answered = result.get("answer") is not None
            answers.rows.append([*common, who(slot, players.get(slot, {}).get("name")),
                                 shown(result.get("answer"), language), number(result.get("ms")),
                                 number(result.get("points")), rank(result, results) if answered else None,
                                 None if kind == "poll" or not answered else shown(bool(result.get("right")),
                                                                                   language)])

    final = report.get("final") or {}
    order = list(final.get("order") or sorted(players, key=lambda s: players[s].get("place") or 0))
    places = list(final.get("places") or [players[s].get("place") for s in order])
    results = Table(tr("report.sheet.results"), [tr(f"report.col.{c}") for c in (
        "place", "player", "team", "score", "right_count", "answered", "avg_ms", "best_streak", "joined")],
        notes=[title])
    for slot, place in zip(order, places, strict=False):
        player = players.get(slot, {})
        joined = player.get("joined")
        results.rows.append([number(place), who(slot, player.get("name")), team_name(player.get("team")),
                             number(player.get("score")), number(player.get("right")), number(player.get("answered")),
                             number(player.get("avg_ms")), number(player.get("best_streak")),
                             number(joined + 1) if isinstance(joined, int) else None])
    parts = [answers, results]

    teams = report.get("teams")
    if teams:
        table = Table(tr("report.sheet.teams"), [tr(f"report.col.{c}") for c in ("place", "team", "score", "members")],
                      notes=[title])
        for team in sorted(teams, key=lambda t: (t.get("place") or 0, t.get("index") or 0)):
            table.rows.append([number(team.get("place")), team_name(team.get("index")), number(team.get("score")),
                               ", ".join(who(m, players.get(m, {}).get("name")) for m in team.get("members") or [])])
        parts.append(table)

    crowd = Table(tr("report.sheet.audience"), [tr(f"report.col.{c}") for c in (
        "number", "question", "audience_answered", "audience_right")],
        notes=[title, tr("report.audience_playing", n=(audience or {}).get("playing", 0))])
    by_key = {q["key"]: q for q in (audience or {}).get("questions", [])}
    for question in questions:
        seen = by_key.get((question.get("number") or 0) - 1)
        kind = question.get("kind")
        if kind in ("multi", "order", "text"):
            crowd.rows.append([number(question.get("number")), shown(question.get("prompt"), language),
                               tr("report.audience_watched"), None])
            continue
        count = seen["answered"] if seen else 0
        right = seen.get("right") if seen else None
        share = round(100 * right / count) if right is not None and count else None
        crowd.rows.append([number(question.get("number")), shown(question.get("prompt"), language), count, share])
    parts.append(crowd)
    top = Table(tr("report.sheet.audience_top"), [tr(f"report.col.{c}") for c in (
        "place", "spectator", "points", "right_count", "answered")], notes=[title])
    for spectator in (audience or {}).get("top", []):
        top.rows.append([spectator["place"], spectator["name"], spectator["points"], spectator["right"],
                         spectator["answered"]])
    parts.append(top)
    return parts


def to_csv(parts: list[Table]) -> bytes:
    """The tables one after the other, a blank line between them: UTF-8 with a byte order mark (Excel then reads
    Persian and Romanian letters right), every risky text quoted (``safe_text``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    written: set[str] = set()
    for i, part in enumerate(parts):
        if i:
            writer.writerow([])
        for note in part.notes:  # the title once, at the top
            if note not in written:
                writer.writerow([safe_text(note)])
                written.add(note)
        writer.writerow([part.name])
        writer.writerow([safe_text(h) for h in part.header])
        for row in part.rows:
            writer.writerow(["" if v is None else safe_text(v) if isinstance(v, str) else v for v in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def sheet_name(name: str, taken: set[str]) -> str:
    """A valid, unused sheet name: without the characters Excel refuses, at most 31 characters."""
    clean = "".join("_" if c in "[]:*?/\\" else c for c in name).strip("'")[:31] or "Sheet"
    candidate, n = clean, 2
    while candidate.lower() in taken:
        candidate = f"{clean[:28]} {n}"
        n += 1
    taken.add(candidate.lower())
    return candidate


def to_xlsx(parts: list[Table], rtl: bool = False) -> bytes:
    """One sheet per table: its notes, its header in bold, then its rows; numbers as numbers; every text a text cell
    (never a formula: a risky one carries Excel's quote prefix); right to left for Persian."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    book.remove(book.active)
    taken: set[str] = set()
    bold = Font(bold=True)

    def put(sheet: Any, row: int, column: int, value: Any) -> Any:
        cell = sheet.cell(row=row, column=column)
        if isinstance(value, str):
            cell.value = value[:MAX_CELL]
            cell.data_type = "s"  # openpyxl takes a text starting with "=" for a formula: never here
            if value.startswith(RISKY_STARTS):
                cell.quotePrefix = True  # and Excel keeps it text when someone edits it
        else:
            cell.value = value
        return cell

    for part in parts:
        sheet = book.create_sheet(sheet_name(part.name, taken))
        sheet.sheet_view.rightToLeft = rtl
        row = 1
        for note in part.notes:
            put(sheet, row, 1, note)
            row += 1
        if part.notes:
            row += 1
        for column, title in enumerate(part.header, start=1):
            put(sheet, row, column, title).font = bold
        sheet.freeze_panes = sheet.cell(row=row + 1, column=1)
        for values in part.rows:
            row += 1
            for column, value in enumerate(values, start=1):
                if value is not None:
                    put(sheet, row, column, value)
        for column, title in enumerate(part.header, start=1):
            longest = max([len(title)] + [len(str(r[column - 1])) for r in part.rows if r[column - 1] is not None])
            sheet.column_dimensions[sheet.cell(row=1, column=column).column_letter].width = min(60, longest + 2)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@dataclass(frozen=True)
class Source:
    """What a report is made of, taken from a room at one moment (under its lock, the web route): the finished
    Quiz (its state is never changed again), the room's language and code, and the audience's summary."""

    session: Any
    code: str
    language: str
    audience: dict[str, Any] | None


def source_of(room: Any, audience: Any) -> Source:
    """The room's last finished Quiz to report; NoReport ``no_report`` if no Quiz has finished in the room."""
    session = finished_quiz(room)
    if session is None:
        raise NoReport("no_report", f"no quiz has finished in room {room.code} yet")
    summary = audience.summary(room, session.number) if audience is not None else None
    return Source(session, room.code, room.language, summary)


def render(source: Source, fmt: str) -> tuple[bytes, str, str]:
    """The report as a file: (its bytes, its name, its media type); ``fmt`` is csv or xlsx. A finished game's
    report never changes: each format is made once per language and kept with the game (``GameSession.reports``)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    session = source.session
    kept = getattr(session, "reports", None)
    key = f"{fmt}:{source.language}"  # the room's language names the columns (the host may change it after the game)
    if kept is not None and key in kept:
        return kept[key]
    made = _render(source, fmt)
    if kept is not None:
        kept[key] = made
    return made


def _render(source: Source, fmt: str) -> tuple[bytes, str, str]:
    session = source.session
    report = session.game.report(session.state)
    names = {s.index: s.name for s in session.slots}
    marked = getattr(session, "bot_marked", None)  # a bot played the seat at any time of the game (QUIZ-S15)
    bots = {s.index for s in session.slots if (marked(s.index) if marked is not None else s.is_bot)}
    bots |= {p["slot"] for p in report.get("players") or [] if p.get("bot")}  # or plays it at the end
    parts = tables(report, source.language, code=source.code, names=names, bots=bots, aborted=session.aborted,
                   audience=source.audience)
    data = to_csv(parts) if fmt == "csv" else to_xlsx(parts, rtl=source.language == "fa")
    return data, f"throneroom-{source.code}-quiz-{session.number}.{fmt}", MEDIA_TYPES[fmt]


def room_report(room: Any, audience: Any, fmt: str) -> tuple[bytes, str, str]:
    """The report of the room's last finished Quiz (``source_of``, ``render``)."""
    return render(source_of(room, audience), fmt)


class ReplayAudience(Audience):
    """The audience of a room replayed for its report (``replay_room``): it reads the stored answers and writes
    nothing: no table created, no spill file read, nothing flushed."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.rooms = {}
        self.pending = []
        self.waiting_since = {}
        self.trouble_shown = set()

    def flush(self, force: bool = False, wait: bool = True) -> int:
        return 0


def replay_room(store: Any, code: str) -> tuple[Any, Audience]:
    """A room rebuilt from its log as the server rebuilds it (host/service.py ``RoomService._load``), with its
    audience scored again from the stored answers, changing nothing in the database (nothing written, no expired
    room deleted): (room, audience). NoReport ``unknown_room`` if there is no such room."""
    from host.room import Room, RoomError, normalise_code

    try:
        code = normalise_code(code)
    except RoomError as error:
        raise NoReport("unknown_room", f"{code!r} is not a room code: {error.message}") from None
    record = store.room(code)
    if record is None or record.closed:
        raise NoReport("unknown_room", f"there is no room {code}")
    room = Room(code, record.seed, record.host_token_hash, 1.0, True, record.owner_hash)
    audience = ReplayAudience(store.engine)
    try:
        audience.preload(code)
    except SQLAlchemyError:  # a database without the audience's table: nobody played along
        audience.rooms[code] = RoomAudience()
    room.replaying = True
    for event in store.events(code):
        try:
            room.plan(event.kind, event.data)()
        except RoomError:  # as the server does: keep what replays
            break
        audience.observe(room, room.game_ms, replaying=True)
    room.replaying = False
    return room, audience
