"""Question packs: every format, every kind of error with its place, round trips, all-or-nothing, fuzzing."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from engine.campaign.game import DECK_SIZE, CampaignGame
from engine.core import InvalidSettings
from host.store import Store
from questions.formats import read_pack
from questions.library import Entry, Library, builtin_packs
from questions.model import Pack, PackError, Question
from questions.store import list_packs, load_pack, save_pack
from tests.conftest import ROOT, Harness, every_entry

EXAMPLES = ROOT / "questions" / "examples"


def problems(data: bytes | str, filename: str, **kw) -> list[str]:
    with pytest.raises(PackError) as error:
        read_pack(data.encode() if isinstance(data, str) else data, filename, **kw)
    return [str(p) for p in error.value.problems if not p.warning]


@pytest.mark.parametrize("name,numeric,choice", [
    ("example.json", 2, 2), ("example.yaml", 2, 2), ("example.csv", 2, 2), ("example.opentdb.json", 0, 2),
    ("example.kahoot.xlsx", 0, 2), ("example.gift", 1, 2), ("example.aiken.txt", 0, 2), ("every-kind.json", 1, 3),
    ("every-kind.gift", 2, 3)])
def test_every_example_file_imports(name, numeric, choice):
    pack = read_pack((EXAMPLES / name).read_bytes(), name)
    assert sum(q.type == "numeric" for q in pack.questions) == numeric
    assert sum(q.type == "choice" for q in pack.questions) == choice
    planet = next(q for q in pack.questions if q.type == "choice" and "closest" in q.prompt)
    assert planet.options[planet.correct] == "Mercury"


def test_own_format_round_trips_exactly(tmp_path: Path):
    original = read_pack((EXAMPLES / "example.json").read_bytes(), "example.json")
    again = read_pack(json.dumps(original.to_json()).encode(), "again.json")
    assert again.to_json() == original.to_json()
    store = Store(f"sqlite:///{tmp_path / 'p.db'}")
    pack_id = save_pack(store.engine, original)
    assert load_pack(store.engine, pack_id).to_json() == original.to_json()
    for name in ("example.csv", "example.gift", "example.kahoot.xlsx"):
        pack = read_pack((EXAMPLES / name).read_bytes(), name)
        assert read_pack(json.dumps(pack.to_json()).encode(), "x.json").to_json() == pack.to_json()


def test_csv_errors_name_their_row_and_field():
    header = "type,prompt,answer,option1,option2,option3,correct,difficulty\n"
    found = problems(header + "numeric,Spider legs?,8,,,,,\n"  # row 2: fine
                              "numeric,Bad number,12a,,,,,\n"  # row 3
                              "choice,No correct,,a,b,c,,\n"  # row 4
                              "choice,Out of range,,a,b,c,4,\n"  # row 5
                              "choice,Two right,,a,b,c,\"1,2\",\n"  # row 6
                              "choice,Empty option,,a,,c,1,\n"  # row 7
                              "numeric,Spider legs?,8,,,,,\n"  # row 8: duplicate of row 2
                              "essay,Tell me,,,,,,\n"  # row 9
                              "numeric,Level,3,,,,,expert\n", "bad.csv")  # row 10
    expected = [("row 3", "answer"), ("row 4", "correct"), ("row 5", "correct"), ("row 6", "correct"),
                ("row 7", "options[2]"), ("row 8", "prompt"), ("row 9", "type"), ("row 10", "difficulty")]
    for where, field in expected:
        assert any(p.startswith(f"{where}, {field}") for p in found), (where, field, found)
    assert problems("prompt,answer\nX,1\n", "h.csv")[0].startswith("row 1, header")
    assert problems("type,prompt,colour\nnumeric,X,red\n", "h.csv")[0].startswith("row 1, header")


def test_csv_with_bom_and_semicolons_and_persian_digits():
    pack = read_pack("\ufefftype;prompt;answer\nnumeric;سال؟;۱۳۵۷\nnumeric;Marathon?;\"42.195\"\n".encode(), "fa.csv",
                     language="fa")
    assert [q.answer for q in pack.questions] == [1357, 42195] and pack.language == "fa"


def test_encoding_size_and_json_errors():
    assert "wrong encoding" in problems("type,prompt\nnumeric,café".encode("latin-1"), "l.csv")[0]
    assert problems(b"\x00\x01binary", "b.csv")
    assert "larger than 5 MB" in problems(b" " * (5 * 1024 * 1024 + 1), "big.json")[0]
    assert problems('{"format": "throneroom-pack/1",\n "name": }', "x.json")[0].startswith("line 2")
    found = problems(json.dumps({"format": "throneroom-pack/1", "name": "", "language": "de", "questions": [
        {"type": "choice", "prompt": "Q", "options": ["a", "a"], "correct": 0},
        {"type": "numeric", "prompt": "N", "answer": 1.5}]}), "x.json")
    assert any(p.startswith("pack, name") for p in found) and any(p.startswith("pack, language") for p in found)
    assert any(p.startswith("questions[1], options") for p in found)
    assert any(p.startswith("questions[2], answer") for p in found)
    assert problems("nothing to see here", "x.txt")[0].startswith("x.txt: error: unknown format")


def test_opentdb_decodes_entities_and_reports_unknown_types():
    data = {"response_code": 0, "results": [
        {"type": "multiple", "difficulty": "easy", "category": "Sports", "question": "Who&#039;s &quot;fast&quot;?",
         "correct_answer": "A &amp; B", "incorrect_answers": ["C", "D", "E"]},
        {"type": "matching", "question": "?"}]}
    found = problems(json.dumps(data), "o.json")
    assert found == [("results[2], type: error: unsupported question type 'matching': use numeric, choice, multi, "
                     "poll, order, text")]
    data["results"].pop()
    pack = read_pack(json.dumps(data).encode(), "o.json")
    q = pack.questions[0]
    assert q.prompt == 'Who\'s "fast"?' and q.options[q.correct] == "A & B" and q.category == "sport"


def test_gift_errors_name_their_line():
    text = ("// quiz\n"
            "Good {=yes ~no}\n"
            "\n"
            "No right one {~%0%half ~%-50%none}\n"  # line 4
            "\n"
            "Range down {#42..2}\n"  # line 6
            "\n"
            "Matching {=a -> x =b -> y}\n"  # line 8: only places 1, 2, ... make an ordering question
            "\n"
            "No braces here\n"  # line 10
            "\n"
            "Essay {}\n")  # line 12
    found = problems(text, "q.gift")
    for line, field in (("line 4", "correct"), ("line 6", "answer"), ("line 8", "type"), ("line 10", "answer"),
                        ("line 12", "type")):
        assert any(p.startswith(f"{line}, {field}") for p in found), (line, found)


def test_aiken_errors_name_their_line():
    found = problems("Q1?\nA. a\nB. b\nANSWER: B\n\nQ2?\nA. a\nB. b\n\nQ3?\nA. a\nnonsense\nANSWER: A\n", "a.txt")
    assert any(p.startswith("line 6, correct") for p in found), found
    assert any(p.startswith("line 12, options") for p in found), found


def kahoot(rows: list[list]) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.append(["", "Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
                  "Answer 3 - max 75 characters", "Answer 4 - max 75 characters", "Time limit (sec)",
                  "Correct answer(s) - choose at least one"])
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_kahoot_rows_with_several_correct_answers_are_multi_questions():
    found = problems(kahoot([[1, "Fine?", "a", "b", "", "", 20, 1], [2, "Both?", "a", "b", "c", "d", 20, "1,3"],
                             [3, "None?", "a", "b", "", "", 20, ""]]), "k.xlsx")
    assert found == ["row 4, correct: error: exactly one option must be marked correct"], found
    pack = read_pack(kahoot([[1, "Fine?", "a", "b", "", "", 7, 2], [2, "Both?", "a", "b", "c", "d", 20, "1,3"]]),
                     "k.xlsx")
    assert pack.questions[0].options == ("a", "b") and pack.warnings and "time limit" in pack.warnings[0].field
    assert pack.questions[1].type == "multi" and pack.questions[1].rights == (0, 2)  # tests/test_pack_kinds.py
    assert problems(b"PK\x03\x04not really a zip", "k.xlsx")[0].startswith("file")
    book = Workbook()
    buffer = io.BytesIO()
    book.save(buffer)
    assert problems(buffer.getvalue(), "empty.xlsx")[0].startswith("file, header")


def test_yaml_errors_name_their_line():
    assert problems("format: throneroom-pack/1\nname: [oops\n", "y.yaml")[0].startswith("line")


def test_warnings_do_not_block():
    pack = read_pack(("type,prompt,answer,category\nnumeric," + "x" * 150 + ",3,astrology\n").encode(), "w.csv")
    assert len(pack.questions) == 1 and pack.questions[0].category == "general"
    assert {w.field for w in pack.warnings} == {"prompt", "category"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.sampled_from(["a.json", "a.csv", "a.gift", "a.txt", "a.yaml", "a.xlsx"]))
def test_no_bytes_crash_the_importer(data: bytes, name: str):
    try:
        pack = read_pack(data, name)
    except PackError:
        return
    assert isinstance(pack, Pack) and pack.questions  # a pack comes whole or not at all


CSV_LINES = st.lists(st.text(alphabet=st.sampled_from(list("numeric,choice;\"\n12a-=~#{}:ABCD. ANSWER:")), max_size=40),
                     max_size=8)


@settings(max_examples=300, deadline=None)
@given(CSV_LINES, st.sampled_from(["a.csv", "a.gift", "a.txt", "a.json"]))
def test_no_text_crashes_the_importer(lines: list[str], name: str):
    text = "type,prompt,answer,option1,option2,correct\n" + "\n".join(lines) if name == "a.csv" else "\n".join(lines)
    try:
        read_pack(text.encode(), name)
    except PackError:
        pass


def test_cli_import_is_all_or_nothing(tmp_path: Path):
    db = tmp_path / "cli.db"
    bad = tmp_path / "bad.csv"
    bad.write_text("type,prompt,answer\nnumeric,Good,1\nnumeric,Bad,x\n", encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "host.cli", "pack", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, check=False)

    rejected = cli("import", str(bad), "--db", str(db))
    assert rejected.returncode == 1 and "row 3, answer" in rejected.stderr and "nothing imported" in rejected.stderr
    assert list_packs(Store(f"sqlite:///{db}").engine) == []
    assert cli("import", str(EXAMPLES / "example.gift"), "--db", str(db), "--name", "Mine").returncode == 0
    listing = cli("list", "--db", str(db))
    assert "Mine" in listing.stdout and "2 multiple choice, 1 number)" in listing.stdout
    kinds = cli("import", str(EXAMPLES / "every-kind.json"), "--db", str(db))  # every kind counted, not only two
    assert kinds.returncode == 0 and "9 questions: 3 multiple choice, 1 number, 1 several right, 1 poll, 1 ordering, " \
        "2 typed answers" in kinds.stdout
    assert "2 typed answers" in cli("list", "--db", str(db)).stdout
    pack_id = listing.stdout.split()[0]  # db:<uuid>, as the TV knows it too
    assert pack_id.startswith("db:") and len(pack_id) == 35
    out = tmp_path / "out.json"
    assert cli("export", pack_id, str(out), "--db", str(db)).returncode == 0
    assert json.loads(out.read_text())["name"] == "Mine"
    assert cli("export", "1", str(out), "--db", str(db)).returncode == 1  # a number is only a pack from before uuids
    assert cli("delete", pack_id, "--db", str(db)).returncode == 0
    assert cli("delete", pack_id, "--db", str(db)).returncode == 1
    assert cli("validate", str(bad)).returncode == 1


def entries(kind: str, count: int, prefix: str = "p") -> list[Entry]:
    categories = ("science", "history", "sport")
    return [Entry(f"{prefix}:{i}", "en", Question(kind, f"{kind} {prefix} {i}", categories[i % 3], "easy",
                                                  answer=i if kind == "numeric" else None,
                                                  options=("a", "b") if kind == "choice" else (),
                                                  correct=0 if kind == "choice" else None))
            for i in range(count)]


def test_campaign_draws_unseen_questions_first_and_mixes_categories():
    # CAMP-D15
    game = CampaignGame()
    pool = entries("numeric", 80) + entries("choice", 80, "c")
    first = game.prepare(game.info.default_settings(), 1, {"questions": pool, "seen": set()})
    assert len(first["numeric"]) == DECK_SIZE and len({q["id"] for q in first["numeric"]}) == DECK_SIZE
    seen = {q["id"] for q in first["numeric"]} | {q["id"] for q in first["choice"]}
    second = game.prepare(game.info.default_settings(), 2, {"questions": pool, "seen": seen})
    fresh = [q for q in second["numeric"] if q["id"] not in seen]
    assert len(fresh) == 80 - DECK_SIZE  # every unseen question comes before any seen one
    assert [q["id"] for q in second["numeric"][:len(fresh)]] == [q["id"] for q in fresh]
    top = [int(q["id"].split(":")[1]) % 3 for q in first["numeric"][:6]]
    assert len(set(top)) == 3  # categories take turns
    small = game.prepare(game.info.default_settings(), 1, {"questions": entries("numeric", 10) + pool[80:]})
    assert len(small["numeric"]) == 10  # any number plays (tests/test_question_draw.py: top-up and repeats)
    with pytest.raises(InvalidSettings) as error:
        game.prepare({**game.info.default_settings(), "top_up": False}, 1, {"questions": pool[80:], "seen": set()})
    assert error.value.code == "game.campaign.no_numeric" and "no numeric" in error.value.message


def test_the_built_in_packs_are_valid_and_large_enough():
    packs = builtin_packs()
    counts = {}
    for pack in packs.values():
        for q in pack.questions:
            counts[(pack.language, q.type)] = counts.get((pack.language, q.type), 0) + 1
            assert q.source, (pack.name, q.prompt)
    assert counts.get(("en", "numeric"), 0) >= 300 and counts.get(("en", "choice"), 0) >= 300
    for language in ("fa", "ro"):
        assert counts.get((language, "numeric"), 0) >= 100 and counts.get((language, "choice"), 0) >= 100
    library = Library(None)
    for language in ("en", "fa", "ro"):
        chosen = every_entry(library, library.default_packs(language))
        assert {e.language for e in chosen} == {language}


def test_upload_preview_and_delete_over_http_need_the_host_token(harness: Harness):
    code, token = harness.service.create_room()
    client = harness.app.test_client()
    data = (EXAMPLES / "example.csv").read_bytes()
    assert client.post("/api/packs", data={"file": (io.BytesIO(data), "x.csv")}).status_code == 403
    headers = {"X-Room-Code": code, "X-Host-Token": token}
    bad = client.post("/api/packs", headers=headers,
                      data={"file": (io.BytesIO(b"type,prompt,answer\nnumeric,X,y\n"), "bad.csv")})
    assert bad.status_code == 422 and bad.get_json()["problems"][0]["where"] == "row 2"
    assert list_packs(harness.service.store.engine) == []
    good = client.post("/api/packs", headers=headers, data={"file": (io.BytesIO(data), "x.csv"), "name": "Mine"})
    assert good.status_code == 201
    pack_id = good.get_json()["pack"]["id"]
    preview = client.get(f"/api/packs/{pack_id}", headers=headers).get_json()
    assert preview["count"] == 4 and "answer" not in preview["questions"][0] and "correct" not in preview["questions"][2]
    assert client.get(f"/api/packs/{pack_id}").status_code == 403
    assert client.delete("/api/packs/builtin:en-numbers", headers=headers).status_code == 400
    assert client.delete(f"/api/packs/{pack_id}", headers=headers).get_json()["ok"] is True
    assert client.get(f"/api/packs/{pack_id}", headers=headers).status_code == 404


def test_the_lobby_chooses_packs_and_says_when_they_are_too_few(harness: Harness):
    from tests.conftest import control

    code, tv = harness.host_room()
    room = harness.service.room(code)
    small = read_pack((EXAMPLES / "example.json").read_bytes(), "example.json")
    pack_id = f"db:{save_pack(harness.service.store.engine, small)}"
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "packs", packs=["db:999"])["error"]["code"] == "unknown_pack"
    assert control(tv, "packs", packs="all")["error"]["field"] == "packs"
    assert control(tv, "packs", packs=[pack_id])["ok"]
    view = harness.service.view(room, None)
    assert view["questions"]["selected"] == [pack_id] and view["questions"]["numeric"] == 2
    started = control(tv, "start")  # a small pack plays: the built-in questions top it up (CAMP-D15)
    assert started["ok"] and room.phase == "playing", started
