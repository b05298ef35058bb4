"""The report of a Quiz (issue [17]): what the host downloads from the TV after a game, as CSV and as an Excel
workbook, and what ``throneroom report ROOM`` writes from the database: every player's answer, fair time, points and
rank per question, the final places (teams, bot marks), the audience's summary; nothing a phone could not see; formulas
never run; the host only."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from host.cli import main
from host.report import tables, to_csv, to_xlsx
from tests.conftest import Harness, control, last_state
from tests.test_quiz_room import PACK, act, audience, is_open, quiz_room, state_of, truth, until, wrong

SNEAKY = '=HYPERLINK("x","y")'  # a player's name a spreadsheet must not run


def csv_rows(data: bytes) -> list[list[str]]:
    assert data.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte order mark, for Excel"
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def block(rows: list[list[str]], title: str) -> list[dict[str, str]]:
    """The CSV block whose sheet name is ``title``: its rows as dicts by header."""
    at = rows.index([title])
    header = rows[at + 1]
    found = []
    for row in rows[at + 2:]:
        if not row:
            break
        found.append(dict(zip(header, row, strict=True)))
    return found


def sheet(book: Any, name: str) -> list[dict[str, Any]]:
    """A workbook sheet's rows as dicts by its header (the first row whose first cell is a column title)."""
    values = [list(r) for r in book[name].iter_rows(values_only=True)]
    at = next(i for i, r in enumerate(values) if r[0] in ("No.", "Place"))
    header = values[at]
    return [dict(zip(header, r, strict=True)) for r in values[at + 1:]]


def download(harness: Harness, code: str, fmt: str, headers: dict[str, str] | None) -> Any:
    return harness.app.test_client().get(f"/api/rooms/{code}/report.{fmt}", headers=headers or {})


def play_quiz(harness: Harness, **settings: Any) -> tuple[str, Any, dict[str, Any], list[dict[str, Any]]]:
    """A whole 4-question quiz: Ana right and quick, Ben wrong, the sneaky name right and slower; Sam (a spectator)
    right each time, Tea (a spectator) wrong on the first question only. Returns (code, tv, phones, the TV's reveal
    of each question)."""
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben", SNEAKY), spectators=("Sam", "Tea"), **settings)
    assert control(tv, "start")["ok"]
    reveals = []
    for index in range(4):
        until(harness, code, is_open)
        harness.clock.advance(300 + 100 * index)
        assert audience(phones["Sam"], truth(harness, code))["ok"]
        assert audience(phones["Tea"], wrong(harness, code) if index == 0 else truth(harness, code))["ok"]
        assert act(phones["Ana"], truth(harness, code))["ok"]
        harness.clock.advance(700)
        assert act(phones[SNEAKY], truth(harness, code))["ok"]
        assert act(phones["Ben"], wrong(harness, code))["ok"]
        view = last_state(tv, "/tv")["game"]["view"]
        assert view["phase"] == "reveal"
        reveals.append(view["reveal"])
        harness.clock.advance(300)  # the grace: the audience is scored
        harness.service.tick()
        if index < 3:
            assert control(tv, "next")["ok"]  # the reveal's wait cut short (then the leaderboard's)
    until(harness, code, lambda room: room.phase == "finished")
    return code, tv, phones, reveals


def test_the_report_of_a_played_quiz_holds_every_answer_time_points_and_rank():
    harness = Harness()
    code, tv, _phones, reveals = play_quiz(harness)
    response = download(harness, code, "csv", tv.host_headers)
    assert response.status_code == 200, response.get_json()
    assert response.headers["Content-Type"].startswith("text/csv")
    assert f'filename="throneroom-{code}-quiz-1.csv"' in response.headers["Content-Disposition"]
    rows = csv_rows(response.data)
    answers = block(rows, "Answers")
    assert len(answers) == 4 * 3
    names = {0: "Ana", 1: "Ben", 2: "'" + SNEAKY}  # the formula quoted
    for number, reveal in enumerate(reveals, start=1):
        asked = PACK["questions"][number - 1]
        by_points = sorted(reveal["results"], key=lambda r: (-r["points"], r["ms"]))  # the rank: points, then time
        for result in reveal["results"]:
            row = next(r for r in answers if r["No."] == str(number) and r["Player"] == names[result["slot"]])
            assert row["Question"] == asked["prompt"]
            assert row["Points"] == str(result["points"]) and row["Time (ms)"] == str(result["ms"])
            assert row["Rank"] == str(by_points.index(result) + 1)
            assert row["Right"] == ("yes" if result["right"] else "no")
            if asked["type"] == "choice":  # the answers as their options' texts, not their indexes
                assert row["Right answer"] == asked["options"][asked["correct"]]
                assert row["Answer"] == asked["options"][result["value"]]
            else:
                assert str(asked["answer"]) in re.sub(r"\D", "", row["Right answer"])
                assert re.sub(r"\D", "", row["Answer"]) == str(result["value"])
    assert {r["Rank"] for r in answers if r["Player"] == "Ana"} == {"1"}  # the quickest right answer: first
    room = harness.service.room(code)
    final = room.session.game.outcome(room.session.state)
    results = block(rows, "Results")
    assert [r["Player"] for r in results] == [names[s] for s in final.ranking]
    assert [int(r["Place"]) for r in results] == list(final.place_list())
    assert [int(r["Score"]) for r in results] == [final.detail["scores"][s] for s in final.ranking]
    crowd = block(rows, "Audience")
    assert [(r["Spectators who answered"], r["Right (%)"]) for r in crowd] == [("2", "50"), ("2", "100"),
                                                                              ("2", "100"), ("2", "100")]
    top = block(rows, "Audience top")
    assert [r["Spectator"] for r in top] == ["Sam", "Tea"] and top[0]["Place"] == "1"
    text = response.data.decode("utf-8-sig")
    assert tv.pack_id not in text and tv.pack_id.removeprefix("db:") not in text  # no private pack's id
    assert tv.host_headers["X-Host-Token"] not in text


def test_the_workbook_reads_back_with_numbers_as_numbers_and_no_formula():
    harness = Harness()
    code, tv, _phones, reveals = play_quiz(harness)
    response = download(harness, code, "xlsx", tv.host_headers)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    book = openpyxl.load_workbook(io.BytesIO(response.data))
    assert book.sheetnames[:2] == ["Answers", "Results"] and "Audience" in book.sheetnames
    answers = sheet(book, "Answers")
    first = {r["Player"]: r for r in answers if r["No."] == 1}
    assert first["Ana"]["Points"] == reveals[0]["results"][0]["points"] and isinstance(first["Ana"]["Time (ms)"], int)
    assert first[SNEAKY]["Player"] == SNEAKY  # the name as typed, a text: never a formula
    for row in book["Answers"].iter_rows():
        for cell in row:
            assert cell.data_type != "f", cell.coordinate
            if cell.value == SNEAKY:
                assert cell.data_type == "s" and cell.quotePrefix
    results = sheet(book, "Results")
    assert all(isinstance(r["Score"], int) and isinstance(r["Place"], int) for r in results)


def test_only_the_host_downloads_it_and_only_after_a_quiz():
    harness = Harness()
    code, tv, _phones = quiz_room(harness)
    assert download(harness, code, "csv", tv.host_headers).status_code == 404  # no quiz has finished yet
    assert download(harness, code, "csv", tv.host_headers).get_json()["error"]["code"] == "no_report"
    code2, token2 = harness.service.create_room()  # another room, and its host's token
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    assert control(tv, "end")["ok"]
    assert download(harness, code, "csv", tv.host_headers).status_code == 200
    assert download(harness, code, "csv", None).status_code == 403  # a phone: no host credentials
    assert download(harness, code, "csv", {"X-Room-Code": code, "X-Host-Token": "guess"}).status_code == 403
    assert download(harness, code, "csv", {"X-Room-Code": code2, "X-Host-Token": token2}).status_code == 403
    assert download(harness, code2, "csv", {"X-Room-Code": code, "X-Host-Token": tv.host_headers["X-Host-Token"]}
                    ).status_code == 403  # this room's host asks for another room's report
    assert download(harness, code, "pdf", tv.host_headers).status_code == 404
    assert control(tv, "lobby")["ok"]
    assert download(harness, code, "csv", tv.host_headers).status_code == 200  # still there from the lobby
    assert control(tv, "start")["ok"]  # a second quiz runs: the report is still the first one's
    running = download(harness, code, "csv", tv.host_headers)
    assert running.status_code == 200 and "quiz-1.csv" in running.headers["Content-Disposition"]


def test_after_end_game_only_the_closed_questions_are_in_it():
    harness = Harness()
    code, tv, phones = quiz_room(harness)
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    for name in ("Ana", "Ben", "Cai"):
        assert act(phones[name], truth(harness, code))["ok"]
    assert control(tv, "next")["ok"]
    assert control(tv, "next")["ok"]
    until(harness, code, is_open)
    assert state_of(harness, code).index == 1
    assert act(phones["Ana"], truth(harness, code))["ok"]
    assert control(tv, "end")["ok"]  # question 2 open, never revealed
    rows = csv_rows(download(harness, code, "csv", tv.host_headers).data)
    text = "\n".join(",".join(r) for r in rows)
    assert "Ended by the host" in text
    assert {r["No."] for r in block(rows, "Answers")} == {"1"}
    assert PACK["questions"][1]["prompt"] not in text  # asked, never revealed: not in it
    assert str(PACK["questions"][1]["answer"]) not in text


def test_the_rooms_language_names_the_columns_and_persian_reads_right_to_left():
    harness = Harness()
    code, tv, _phones = quiz_room(harness)
    assert control(tv, "language", language="fa")["ok"]
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    assert control(tv, "end")["ok"]
    rows = csv_rows(download(harness, code, "csv", tv.host_headers).data)
    assert ["پاسخ‌ها"] in rows and "بازیکن" in rows[rows.index(["پاسخ‌ها"]) + 1]
    book = openpyxl.load_workbook(io.BytesIO(download(harness, code, "xlsx", tv.host_headers).data))
    assert book["پاسخ‌ها"].sheet_view.rightToLeft


def test_downloads_are_rate_limited_per_address():
    harness = Harness(REPORT_RATE="2/minute")
    code, tv, _phones = quiz_room(harness)
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    assert control(tv, "end")["ok"]
    assert [download(harness, code, "csv", tv.host_headers).status_code for _ in range(3)] == [200, 200, 429]


def test_the_command_line_writes_the_same_report_from_the_database(tmp_path: Path, capsys: Any):
    db = tmp_path / "throneroom.db"
    harness = Harness(DATABASE_URL=f"sqlite:///{db}")
    code, tv, _phones, _reveals = play_quiz(harness)
    served = {fmt: download(harness, code, fmt, tv.host_headers).data for fmt in ("csv", "xlsx")}
    harness.service.audience.flush(force=True)
    assert main(["report", code.lower(), "--db", str(db), "--output", str(tmp_path / "r.csv")]) == 0
    assert (tmp_path / "r.csv").read_bytes() == served["csv"]  # replayed from the log: the same file
    assert main(["report", code, "--db", f"sqlite:///{db}", "--format", "xlsx", "-o", str(tmp_path / "r.xlsx")]) == 0
    replayed = openpyxl.load_workbook(tmp_path / "r.xlsx")
    live = openpyxl.load_workbook(io.BytesIO(served["xlsx"]))
    for name in live.sheetnames:
        assert list(replayed[name].values) == list(live[name].values)
    capsys.readouterr()
    assert main(["report", code, "--db", str(db), "--output", str(tmp_path / "r.csv")]) == 1  # exists
    assert "--force" in capsys.readouterr().err
    assert main(["report", "ZZZZ", "--db", str(db), "-o", str(tmp_path / "z.csv")]) == 1
    assert "there is no room ZZZZ" in capsys.readouterr().err
    empty, _ = harness.host_room()
    assert main(["report", empty, "--db", str(db), "-o", str(tmp_path / "e.csv")]) == 1
    assert "no quiz has finished" in capsys.readouterr().err
    assert main(["report", code, "--db", str(db), "--format", "csv", "-o", str(tmp_path / "x.xlsx")]) == 2
    assert main(["report", code, "--db", str(tmp_path / "none.db")]) == 1
    assert "there is no database" in capsys.readouterr().err
    assert main(["report", code, "--db", f"sqlite:///{tmp_path / 'none.db'}"]) == 1
    assert not (tmp_path / "none.db").exists()
    for bad in (["report", "AB1"], ["report", code, "--format", "pdf"]):
        with pytest.raises(SystemExit) as refused:
            main(bad)
        assert refused.value.code == 2
    assert "a room code is 4 letters" in capsys.readouterr().err


# ----- the formatter alone (a hand-made report of the engine's shape: docs/quiz.md, "Report") -----

HANDMADE = {
    "questions": [
        {"number": 1, "id": "db:0123456789abcdef0123456789abcdef:7", "kind": "choice",
         "prompt": {"en": "Capital of Iran?", "fa": "پایتخت ایران؟"}, "options": ["Tehran", "Tabriz"],
         "answer": "Tehran", "points": 2,
         "results": [{"slot": 0, "answer": "Tehran", "ms": 1234, "points": 1940, "right": True, "rank": 1},
                     {"slot": 1, "answer": None, "ms": None, "points": 0, "right": False, "rank": None}]},
        {"number": 2, "id": "q2", "kind": "poll", "prompt": "Tea or coffee?", "options": ["Tea", "Coffee"],
         "answer": None, "points": 0,
         "results": [{"slot": 0, "answer": "-1+Coffee", "ms": 20000, "points": 0, "right": False, "rank": 1},
                     {"slot": 1, "answer": "Tea", "ms": 900, "points": 0, "right": False, "rank": 2}]},
    ],
    "players": [{"slot": 0, "name": SNEAKY, "team": None, "score": 1940, "place": 1, "right": 1, "answered": 2,
                 "avg_ms": 10617, "best_streak": 1, "joined": 0},
                {"slot": 1, "name": "Cy", "team": None, "score": 0, "place": 2, "right": 0, "answered": 1,
                 "avg_ms": 900, "best_streak": 0, "joined": 1}],
    "teams": None, "final": {"order": [0, 1], "places": [1, 2]},
}


def test_the_formatter_quotes_risky_texts_keeps_numbers_and_marks_bots():
    parts = tables(HANDMADE, "fa", code="ABCD", names={0: SNEAKY, 1: "Cy"}, bots={1}, aborted=False, audience=None)
    rows = csv_rows(to_csv(parts))
    answers = block(rows, "پاسخ‌ها")
    assert answers[0]["پرسش"] == "پایتخت ایران؟"  # the prompt in the room's language
    assert answers[0]["بازیکن"] == "'" + SNEAKY and answers[1]["بازیکن"] == "Cy (ربات)"
    assert answers[2]["پاسخ"] == "'-1+Coffee" and answers[2]["درست"] == ""  # a poll has no right answer
    assert "db:0123456789abcdef" not in to_csv(parts).decode("utf-8-sig")  # a question's id is never shown
    results = block(rows, "نتیجه‌ها")
    assert results[1]["شروع بازی از پرسش"] == "2"  # a latecomer, from question 2
    book = openpyxl.load_workbook(io.BytesIO(to_xlsx(parts, rtl=True)))
    cells = {c.value: c for row in book["پاسخ‌ها"].iter_rows() for c in row if c.value is not None}
    assert cells[SNEAKY].data_type == "s" and cells[SNEAKY].quotePrefix
    assert cells["-1+Coffee"].data_type == "s" and cells["-1+Coffee"].quotePrefix
    assert cells[1234].data_type == "n" and cells[20000].data_type == "n"


def test_teams_and_the_seats_bots_played_are_in_it():
    harness = Harness()
    code, tv, _phones = quiz_room(harness, players=("Ana", "Ben"), bots=True, teams="2")
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    assert control(tv, "skip")["ok"]  # the first question closes; the bot's seat is Bot 1
    until(harness, code, lambda room: room.session.state.phase != "question")
    assert control(tv, "end")["ok"]
    room = harness.service.room(code)
    assert [s.name for s in room.session.slots] == ["Ana", "Ben", "Bot 1"]
    rows = csv_rows(download(harness, code, "csv", tv.host_headers).data)
    results = {r["Player"]: r for r in block(rows, "Results")}
    assert set(results) == {"Ana", "Ben", "Bot 1 (bot)"}  # QUIZ-S15: a seat a bot played says so
    assert {r["Team"] for r in results.values()} == {"Team 1", "Team 2"}
    teams = block(rows, "Teams")
    assert sorted(t["Team"] for t in teams) == ["Team 1", "Team 2"]
    assert sorted(", ".join(sorted(t["Members"].split(", "))) for t in teams) == ["Ana, Bot 1 (bot)", "Ben"]


def test_a_latecomer_is_in_it_from_the_question_they_joined_at():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    for name in ("Ana", "Ben"):
        assert act(phones[name], truth(harness, code))["ok"]
    until(harness, code, lambda room: room.session.state.index == 1 and is_open(room))
    late = harness.join(code, "Lia")[0]  # QUIZ-S14: plays the rest
    harness.clock.advance(500)
    assert act(late, truth(harness, code))["ok"]
    harness.clock.advance(500)
    for name in ("Ana", "Ben"):
        assert act(phones[name], truth(harness, code))["ok"]
    assert control(tv, "end")["ok"]
    rows = csv_rows(download(harness, code, "csv", tv.host_headers).data)
    answers = {(r["No."], r["Player"]): r for r in block(rows, "Answers")}
    assert ("1", "Lia") not in answers and ("1", "Ana") in answers  # before she joined: no row of hers
    assert answers["2", "Lia"]["Answer"] == "88" and answers["2", "Lia"]["Right"] == "yes"
    # the rank: by points (Ana and Ben have a streak bonus on question 2), then time: Lia, the quickest, is third
    assert int(answers["2", "Ana"]["Points"]) > int(answers["2", "Lia"]["Points"])
    assert [answers["2", n]["Rank"] for n in ("Ana", "Ben", "Lia")] == ["1", "1", "3"]
    results = {r["Player"]: r for r in block(rows, "Results")}
    assert results["Lia"]["Played from question"] == "2" and results["Ana"]["Played from question"] == "1"


def test_a_finished_games_report_is_made_once_per_format(monkeypatch: Any):
    # an .xlsx of 200 questions and 12 players takes openpyxl about half a second of the server's loop: a host's
    # repeated downloads get the file made the first time (the game is over: its report never changes)
    import host.report

    made = []
    real = host.report._render
    monkeypatch.setattr(host.report, "_render", lambda source, fmt: made.append(fmt) or real(source, fmt))
    harness = Harness()
    code, tv, _phones, _reveals = play_quiz(harness)
    first = [download(harness, code, fmt, tv.host_headers).data for fmt in ("xlsx", "csv", "xlsx", "csv")]
    assert made == ["xlsx", "csv"]
    assert first[0] == first[2] and first[1] == first[3]
    assert control(tv, "language", language="fa")["ok"]  # the host changes the room's language after the game
    persian = download(harness, code, "csv", tv.host_headers).data.decode("utf-8-sig")
    assert made == ["xlsx", "csv", "csv"] and "بازیکن" in persian
