"""Issue [12], "Questions may carry an image": a pack may be a .zip holding one pack file and its images
(questions/archive.py); the images are checked to be images, stored with the pack and served to the TV; export
writes the same archive; packs keep their own time per question (Kahoot! "Time limit", a JSON/CSV ``time``).

Every image here is made by hand (PNG through zlib and struct, JPEG, GIF and WebP headers), so nothing binary is
committed; ``example_archive`` is the archive docs/packs.md describes."""

from __future__ import annotations

import io
import json
import sqlite3
import struct
import time
import zipfile
import zlib
from pathlib import Path

import pytest
from openpyxl import Workbook

from engine.core import Draw, Rng
from host import cli
from host.store import Store
from questions.archive import MAX_IMAGES, MAX_SIDE, image_size, write_archive
from questions.formats import read_pack
from questions.isolate import parse_isolated
from questions.library import Library
from questions.model import PackError
from questions.store import delete_pack, load_image, load_images, load_pack, save_pack
from tests.conftest import Harness


def png(width: int = 2, height: int = 2, colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A valid PNG of one colour, written by hand."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    row = b"\x00" + bytes(colour) * width
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def jpeg(width: int = 3, height: int = 2) -> bytes:
    """The header of a baseline JPEG (SOI, APP0, SOF0, EOI): what the checks read."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def gif(width: int = 4, height: int = 5) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00;"


def webp_lossless(width: int = 6, height: int = 7) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    body = b"\x2f" + struct.pack("<I", bits) + b"\x00" * 8
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(body)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(body)) + body


def own_pack(questions: list[dict], name: str = "Pictures") -> bytes:
    return json.dumps({"format": "throneroom-pack/1", "name": name, "language": "en",
                       "questions": questions}).encode()


QUESTIONS = [
    {"type": "choice", "prompt": "Which flag is this?", "options": ["Red", "Blue"], "correct": 0, "image": "flag.png",
     "time": 20},
    {"type": "numeric", "prompt": "How many pixels wide is this picture?", "answer": 3, "image": "wide.jpg"},
    {"type": "choice", "prompt": "No picture here?", "options": ["Yes", "No"], "correct": 0},
]


def archive(entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as out:
        for name, data in entries.items():
            out.writestr(name, data)
    return buffer.getvalue()


def example_archive() -> bytes:
    """The example of docs/packs.md: a JSON pack and two images."""
    return archive({"pack.json": own_pack(QUESTIONS), "flag.png": png(), "wide.jpg": jpeg()})


def codes(data: bytes, filename: str = "quiz.zip") -> list[str]:
    with pytest.raises(PackError) as error:
        read_pack(data, filename)
    return [p.code for p in error.value.problems if not p.warning]


def refusal(data: bytes, filename: str = "quiz.zip") -> list:
    with pytest.raises(PackError) as error:
        read_pack(data, filename)
    return [p for p in error.value.problems if not p.warning]


def test_image_headers_are_read_by_hand():
    assert image_size(png(5, 9)) == ("image/png", 5, 9)
    assert image_size(jpeg(640, 480)) == ("image/jpeg", 640, 480)
    assert image_size(gif(4, 5)) == ("image/gif", 4, 5)
    assert image_size(webp_lossless(6, 7)) == ("image/webp", 6, 7)
    for bad in (b"", b"not an image at all", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"RIFF\x00\x00",
                png()[:20], b"\xff\xd8" + b"\xff\xe0\xff\xff" * 10):
        assert image_size(bad) is None, bad


def test_a_zip_with_json_and_two_images_imports_and_the_tv_gets_the_images(harness: Harness):
    pack = read_pack(example_archive(), "quiz.zip")
    assert pack.name == "Pictures" and [q.image for q in pack.questions] == ["flag.png", "wide.jpg", None]
    assert [q.time for q in pack.questions] == [20, None, None]
    assert {i.name: i.media_type for i in pack.images} == {"flag.png": "image/png", "wide.jpg": "image/jpeg"}

    code, token = harness.service.create_room()
    client = harness.app.test_client()
    headers = {"X-Room-Code": code, "X-Host-Token": token}
    answer = client.post("/api/packs", headers=headers,  # read in the child process, like every upload
                         data={"file": (io.BytesIO(example_archive()), "quiz.zip")})
    assert answer.status_code == 201, answer.get_json()
    pack_id = answer.get_json()["pack"]["id"]
    # as the room draws them: their image URLs name the room, to which alone the images are served once it has
    # chosen the pack (tests/test_pack_limits.py)
    entries = Library(harness.service.store.engine).draw([pack_id], Draw(10, in_order=True), set(), Rng(1), code)
    assert [e.question.time for e in entries] == [20, None, None]
    url = entries[0].image_url
    assert url == f"/packs/{pack_id}/media/flag.png?room={code}" and entries[2].image_url is None
    harness.service.host_event(harness.service.room(code), "packs", {"packs": []})  # the upload chose it: untick it
    assert client.get(url).status_code == 404
    harness.service.host_event(harness.service.room(code), "packs", {"packs": [pack_id]})
    served = client.get(url)
    assert served.status_code == 200 and served.data == png()
    assert served.headers["Content-Type"] == "image/png"
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert "max-age=31536000" in served.headers["Cache-Control"]
    assert client.get(entries[1].image_url).headers["Content-Type"] == "image/jpeg"
    assert client.get(f"/packs/{pack_id}/media/other.png").status_code == 404
    assert client.get(f"/packs/db:{'0' * 32}/media/flag.png").status_code == 404
    assert client.get("/packs/builtin:en-numbers/media/flag.png").status_code == 404
    assert client.get("/packs/nonsense/media/flag.png").status_code == 404
    assert client.delete(f"/api/packs/{pack_id}", headers=headers).get_json()["ok"] is True
    assert client.get(url).status_code == 404  # deleted with the pack
    engine = harness.service.store.engine
    with engine.connect() as connection:
        from sqlalchemy import text
        assert connection.execute(text("SELECT COUNT(*) FROM pack_image")).scalar() == 0


def test_csv_yaml_and_kahoot_packs_in_a_zip_name_their_images():
    csv = b"type,prompt,option1,option2,correct,image,time\nchoice,Which one?,A,B,1,a.gif,30\n"
    pack = read_pack(archive({"quiz/questions.csv": csv, "quiz/a.gif": gif()}), "My quiz.zip")
    assert pack.name == "My quiz" and pack.questions[0].image == "a.gif" and pack.questions[0].time == 30
    yaml = (b"format: throneroom-pack/1\nname: Y\nlanguage: ro\nquestions:\n"
            b"  - {type: choice, prompt: Ce?, options: [a, b], correct: 1, image: w.webp, time: 240}\n")
    pack = read_pack(archive({"pack.yaml": yaml, "w.webp": webp_lossless()}), "y.zip")
    assert pack.questions[0].image == "w.webp" and pack.questions[0].time == 240 and pack.language == "ro"
    sheet = kahoot([[1, "Fine?", "a", "b", "", "", 20, 1, "k.png"]], image_column=True)
    pack = read_pack(archive({"quiz.xlsx": sheet, "k.png": png()}), "k.zip")
    assert pack.questions[0].image == "k.png" and pack.questions[0].time == 20


def test_a_missing_image_is_an_error_named_by_its_place_and_an_unused_one_a_warning():
    questions = [dict(QUESTIONS[0]), dict(QUESTIONS[1], image="nowhere.png")]
    found = refusal(archive({"pack.json": own_pack(questions), "flag.png": png()}))
    assert [(p.where, p.field, p.code, p.args.get("name")) for p in found] == \
        [("questions[2]", "image", "zip_image_missing", "nowhere.png")]
    csv = b"type,prompt,option1,option2,correct,image\nchoice,Q1?,A,B,1,a.png\nchoice,Q2?,A,B,1,b.png\n"
    found = refusal(archive({"q.csv": csv, "a.png": png()}))
    assert [(p.where, p.code) for p in found] == [("row 3", "zip_image_missing")]
    found = refusal(own_pack(QUESTIONS), "plain.json")  # a pack file alone has no images to name
    assert [p.where for p in found] == ["questions[1]", "questions[2]"]
    pack = read_pack(archive({"pack.json": own_pack(QUESTIONS), "flag.png": png(), "wide.jpg": jpeg(),
                              "spare.gif": gif(), "__MACOSX/._flag.png": b"junk", ".DS_Store": b"junk"}), "q.zip")
    assert [(w.code, w.args.get("name")) for w in pack.warnings] == [("zip_image_unused", "spare.gif")]
    assert sorted(i.name for i in pack.images) == ["flag.png", "wide.jpg"]  # the unused one is left out


def test_image_names_and_times_are_checked():
    bad = [dict(QUESTIONS[0], image="../flag.png"), dict(QUESTIONS[1], image=7, time=3),
           dict(QUESTIONS[2], time="soon")]
    found = refusal(archive({"pack.json": own_pack(bad), "flag.png": png()}))
    assert [(p.where, p.field, p.code) for p in found] == [
        ("questions[1]", "image", "question_image"), ("questions[2]", "time", "question_time"),
        ("questions[2]", "image", "question_image"), ("questions[3]", "time", "question_time")]
    csv = b"type,prompt,option1,option2,correct,time\nchoice,Q1?,A,B,1,241\nchoice,Q2?,A,B,1,\n"
    assert [(p.where, p.code) for p in refusal(csv, "t.csv")] == [("row 2", "question_time")]


def kahoot(rows: list[list], image_column: bool = False) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.append(["", "Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
                  "Answer 3 - max 75 characters", "Answer 4 - max 75 characters", "Time limit (sec)",
                  "Correct answer(s) - choose at least one", *(["Image link"] if image_column else [])])
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_kahoot_time_limits_are_kept_and_odd_ones_warned():
    pack = read_pack(kahoot([[1, "Fast?", "a", "b", "", "", 5, 1], [2, "Slow?", "a", "b", "", "", 240, 2],
                             [3, "Odd?", "a", "b", "", "", 7, 1], [4, "None?", "a", "b", "", "", "", 1]]), "k.xlsx")
    assert [q.time for q in pack.questions] == [5, 240, None, None]
    assert [(w.where, w.field) for w in pack.warnings] == [("row 4", "time limit")]
    pack = read_pack(kahoot([[1, "Linked?", "a", "b", "", "", 20, 1, "https://example.org/x.png"]],
                            image_column=True), "k.xlsx")
    assert pack.questions[0].image is None and [w.code for w in pack.warnings] == ["zip_image_link"]


def test_the_store_keeps_time_and_image_and_the_images_all_or_nothing(store: Store):
    pack = read_pack(example_archive(), "quiz.zip")
    key = save_pack(store.engine, pack)
    back = load_pack(store.engine, key)
    assert back.questions == pack.questions
    assert load_image(store.engine, key, "flag.png") == ("image/png", png())
    assert load_image(store.engine, key, "nothing.png") is None
    assert sorted(load_images(store.engine, key)) == ["flag.png", "wide.jpg"]

    calls = []

    def fail_on_the_images() -> None:  # the pause before the images are written
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the server stops")
    with pytest.raises(RuntimeError):
        save_pack(store.engine, pack, pause=fail_on_the_images)
    with store.engine.connect() as connection:
        from sqlalchemy import text
        assert connection.execute(text("SELECT COUNT(*) FROM pack_image")).scalar() == 2  # only the first pack's
        assert connection.execute(text("SELECT COUNT(*) FROM pack")).scalar() == 1
    assert delete_pack(store.engine, key)
    assert load_image(store.engine, key, "flag.png") is None


def hostile() -> dict[str, tuple[bytes, str]]:
    """Archive -> the code it is refused with."""
    many = {"pack.json": own_pack([dict(QUESTIONS[2])])} | {f"i{n}.png": png() for n in range(MAX_IMAGES + 1)}
    traversal = io.BytesIO()
    with zipfile.ZipFile(traversal, "w") as out:
        out.writestr("pack.json", own_pack([dict(QUESTIONS[2])]))
        out.writestr(zipfile.ZipInfo("../../etc/evil.png"), png())
    return {
        "traversal": (traversal.getvalue(), "zip_path"),
        "absolute": (archive({"pack.json": own_pack([dict(QUESTIONS[2])]), "/tmp/evil.png": png()}), "zip_path"),
        "backslash": (archive({"pack.json": own_pack([dict(QUESTIONS[2])]), "..\\evil.png": png()}), "zip_path"),
        "bomb": (archive({"pack.json": own_pack([dict(QUESTIONS[2])]) + b" " * (4 * 1024 * 1024)}), "zip_ratio"),
        "image bomb": (archive({"pack.json": own_pack([dict(QUESTIONS[0])]),
                                "flag.png": png() + b"\x00" * (1024 * 1024 + 1)}), "zip_ratio"),
        "too many images": (archive(many), "zip_too_many_images"),
        "not a png": (archive({"pack.json": own_pack([dict(QUESTIONS[0])]), "flag.png": b"<svg onload=x>"}),
                      "zip_not_image"),
        "huge": (archive({"pack.json": own_pack([dict(QUESTIONS[0])]), "flag.png": png(MAX_SIDE + 1, 1)}),
                 "zip_image_dimensions"),
        "nested": (archive({"pack.json": own_pack([dict(QUESTIONS[2])]), "more.zip": example_archive()}),
                   "zip_nested"),
        "zip as pack": (archive({"pack.json": example_archive()}), "zip_nested"),
        "big image": (archive({"pack.json": own_pack([dict(QUESTIONS[0])]), "flag.png": png() + bytes(range(256))
                               * (8 * 1024 + 1)}, zipfile.ZIP_STORED), "zip_image_size"),
        "no pack": (archive({"flag.png": png()}), "zip_no_pack"),
        "two packs": (archive({"a.json": own_pack([dict(QUESTIONS[2])]), "b.csv": b"type,prompt\n"}),
                      "zip_several_packs"),
        "same name twice": (archive({"pack.json": own_pack([dict(QUESTIONS[0])]), "flag.png": png(),
                                     "x/flag.png": png()}), "zip_duplicate"),
        "not a zip": (b"PK\x03\x04" + b"\x00" * 100, "zip_unreadable"),
    }


@pytest.mark.parametrize("case", sorted(hostile()))
def test_hostile_archives_are_refused_with_their_code(case: str):
    data, code = hostile()[case]
    assert code in codes(data), case


def test_hostile_archives_are_refused_in_the_child_process_too():
    data, code = hostile()["bomb"]
    with pytest.raises(PackError) as error:
        parse_isolated(data, "bomb.zip", None, None, sleep=time.sleep)
    assert [p.code for p in error.value.problems] == [code]
    data, code = hostile()["traversal"]
    with pytest.raises(PackError) as error:
        parse_isolated(data, "evil.zip", None, None, sleep=time.sleep)
    assert [p.code for p in error.value.problems] == [code]


def test_export_writes_the_same_archive_which_imports_back_to_the_same_pack(tmp_path: Path, capsys):
    db = tmp_path / "packs.db"
    source = tmp_path / "quiz.zip"
    source.write_bytes(example_archive())
    assert cli.main(["pack", "import", str(source), "--db", str(db)]) == 0
    key = capsys.readouterr().out.split("db:")[1].split(":")[0]
    out = tmp_path / "out.zip"
    assert cli.main(["pack", "export", key, str(out), "--db", str(db)]) == 0
    with zipfile.ZipFile(out) as written:
        assert sorted(written.namelist()) == ["flag.png", "pack.json", "wide.jpg"]
    again = read_pack(out.read_bytes(), "out.zip")
    original = read_pack(example_archive(), "quiz.zip")
    assert again.questions == original.questions and again.name == original.name
    assert {i.name: i.data for i in again.images} == {i.name: i.data for i in original.images}
    assert cli.main(["pack", "export", key, str(tmp_path / "out.json"), "--db", str(db)]) == 1
    assert ".zip" in capsys.readouterr().err
    assert write_archive(again, again.images) == out.read_bytes()  # the same archive every time


OLD_SCHEMA = """
CREATE TABLE pack (id INTEGER NOT NULL PRIMARY KEY, uuid VARCHAR(32) NOT NULL, legacy_id INTEGER,
    ready BOOLEAN NOT NULL, name VARCHAR NOT NULL, language VARCHAR NOT NULL, author VARCHAR NOT NULL,
    licence VARCHAR NOT NULL, description VARCHAR NOT NULL, created_ms INTEGER NOT NULL);
CREATE TABLE question (id INTEGER NOT NULL PRIMARY KEY, pack_id INTEGER NOT NULL REFERENCES pack (id),
    position INTEGER NOT NULL, type VARCHAR NOT NULL, prompt VARCHAR NOT NULL, answer INTEGER, unit VARCHAR,
    options VARCHAR, correct INTEGER, category VARCHAR NOT NULL, difficulty VARCHAR NOT NULL, source VARCHAR);
INSERT INTO pack VALUES (1, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', NULL, 1, 'Old', 'en', '', '', '', 0);
INSERT INTO question VALUES (1, 1, 0, 'numeric', 'How old?', 42, NULL, NULL, NULL, 'general', 'easy', NULL);
"""


def test_an_old_database_migrates_and_keeps_working(tmp_path: Path):
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(OLD_SCHEMA)
    store = Store(f"sqlite:///{db}")
    old = load_pack(store.engine, "a" * 32)
    assert old.questions[0].prompt == "How old?" and old.questions[0].time is None and old.questions[0].image is None
    key = save_pack(store.engine, read_pack(example_archive(), "quiz.zip"))
    assert load_pack(store.engine, key).questions[0].time == 20
    assert load_image(store.engine, key, "wide.jpg") == ("image/jpeg", jpeg())
    Store(f"sqlite:///{db}")  # a second start changes nothing
    assert load_pack(store.engine, key).questions[0].image == "flag.png"
