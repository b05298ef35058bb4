"""The question kinds of issue [17] in packs: numeric with a margin and a slider, choice (true/false included),
multi, poll, order and text, with double or no points. Every format that carries them reads them (own JSON/YAML,
CSV, GIFT, the Kahoot! sheet as far as it goes), the export reads back to the same pack, the store keeps every field,
bad input is refused naming its place and field, and a game's ``Draw.kinds`` keeps the Short Campaign to the kinds
it asks (docs/packs.md: the kinds are described at its top)."""

from __future__ import annotations

import io
import json
import sqlite3
import time
from pathlib import Path

import pytest
import yaml

from engine.campaign.game import CampaignGame
from engine.campaign.game import to_content as campaign_content
from engine.core import Draw, Rng
from engine.quiz.game import QuizGame
from host.store import Store
from questions.formats import read_pack
from questions.isolate import parse_isolated
from questions.library import Entry, Library, MemoryPack
from questions.model import Pack, PackError, Question
from questions.store import list_packs, load_pack, preview_pack, save_pack, stored_pack
from tests.conftest import ROOT, Harness, control
from tests.test_packs import kahoot

EXAMPLES = ROOT / "questions" / "examples"
EVERY_KIND = EXAMPLES / "every-kind.json"


def every_kind() -> Pack:
    return read_pack(EVERY_KIND.read_bytes(), EVERY_KIND.name)


def refused(data: bytes | str, filename: str, **kw) -> list[tuple[str, str, str]]:
    """The errors of a file that does not import, as (where, field, code)."""
    with pytest.raises(PackError) as error:
        read_pack(data.encode() if isinstance(data, str) else data, filename, **kw)
    return [(p.where, p.field, p.code) for p in error.value.problems if not p.warning]


def own(*questions: dict, language: str = "en") -> str:
    return json.dumps({"format": "throneroom-pack/1", "name": "Kinds", "language": language,
                       "questions": list(questions)})


def test_the_example_pack_holds_every_kind_with_its_fields():
    pack = every_kind()
    assert [q.type for q in pack.questions] == ["numeric", "choice", "choice", "multi", "poll", "order", "text",
                                                "choice", "text"]
    minutes, planet, pacific, colours, season, planets, paris, river, sky = pack.questions
    assert (minutes.answer, minutes.margin, minutes.low, minutes.high, minutes.unit) == (1440, 60, 0, 3000, "minutes")
    assert planet.options[planet.correct] == "Mercury" and planet.points == 1
    assert pacific.options == ("True", "False") and pacific.correct == 0  # "truefalse": a choice question
    assert colours.rights == (0, 2, 3) and len(colours.options) == 5
    assert season.options == ("Spring", "Summer", "Autumn", "Winter") and season.correct is None
    assert planets.options == ("Mercury", "Venus", "Earth", "Mars")  # listed in the right order
    assert paris.accepted == ("Paris",)
    assert river.points == 2 and len(river.options) == 6  # double points
    assert sky.points == 0 and sky.accepted == ("blue", "light blue")  # no points
    assert not pack.warnings


def test_every_kind_round_trips_through_the_export_yaml_the_reader_process_and_the_store(tmp_path: Path):
    pack = every_kind()
    exported = pack.to_json()
    assert exported["format"] == "throneroom-pack/1"  # the same format, with fields added: older packs still read
    kinds: dict[str, dict] = {}
    for q in exported["questions"]:
        kinds.setdefault(q["type"], q)  # the first of each kind
    assert kinds["numeric"]["margin"] == 60 and kinds["numeric"]["low"] == 0 and kinds["numeric"]["high"] == 3000
    assert kinds["multi"]["rights"] == [0, 2, 3] and "correct" not in kinds["multi"]
    assert kinds["poll"]["options"] and "correct" not in kinds["poll"]
    assert kinds["text"]["accepted"] == ["Paris"] and "answer" not in kinds["text"]
    assert [q.get("points", 1) for q in exported["questions"]] == [1, 1, 1, 1, 1, 1, 1, 2, 0]
    again = read_pack(json.dumps(exported).encode(), "again.json")
    assert again.questions == pack.questions and again.to_json() == exported
    from_yaml = read_pack(yaml.safe_dump(exported, allow_unicode=True).encode(), "again.yaml")
    assert from_yaml.questions == pack.questions
    isolated = parse_isolated(EVERY_KIND.read_bytes(), EVERY_KIND.name, None, None, sleep=time.sleep)
    assert isolated.questions == pack.questions  # what an upload goes through: a reader process, then rebuilt
    store = Store(f"sqlite:///{tmp_path / 'kinds.db'}")
    key = save_pack(store.engine, pack)
    assert load_pack(store.engine, key).questions == pack.questions
    preview = preview_pack(store.engine, key, 20)
    assert preview["count"] == 9 and preview["questions"] == pack.questions
    source = stored_pack(store.engine, key)
    assert list(source.questions(list(range(9))).values()) == pack.questions
    assert load_pack(store.engine, key).to_json() == exported


def test_the_lobby_counts_every_kind_of_a_pack(tmp_path: Path):
    store = Store(f"sqlite:///{tmp_path / 'counts.db'}")
    key = save_pack(store.engine, every_kind())
    [row] = list_packs(store.engine)
    assert row["total"] == 9 and row["numeric"] == 1 and row["choice"] == 3
    assert row["kinds"] == {"numeric": 1, "choice": 3, "multi": 1, "poll": 1, "order": 1, "text": 2}
    listed = {p["id"]: p for p in Library(store.engine).packs()}
    assert listed[f"db:{key}"]["total"] == 9 and listed[f"db:{key}"]["kinds"]["text"] == 2
    assert all(p["total"] == sum(p["kinds"].values()) for p in listed.values())
    assert listed["builtin:en-numbers"]["total"] == listed["builtin:en-numbers"]["numeric"]
    assert Library(store.engine).preview(f"db:{key}", None)["count"] == 9


def test_a_database_from_before_the_kinds_is_migrated(tmp_path: Path):
    db = tmp_path / "old.db"
    store = Store(f"sqlite:///{db}")
    old = Pack("Old", "en", [Question("numeric", "How old?", "general", "easy", answer=42),
                             Question("choice", "Which?", "general", "easy", options=("a", "b"), correct=1),
                             Question("choice", "Whose?", "general", "easy", options=("c", "d"), correct=0)])
    key = save_pack(store.engine, old)
    store.engine.dispose()
    with sqlite3.connect(db) as connection:  # the database as it was before [17]
        connection.execute("ALTER TABLE question DROP COLUMN extra")
        connection.execute("ALTER TABLE pack DROP COLUMN kind_counts")
    store = Store(f"sqlite:///{db}")  # a start migrates it: the columns are added, the kinds counted
    [row] = list_packs(store.engine)
    assert row["kinds"] == {"numeric": 1, "choice": 2} and row["total"] == 3
    assert load_pack(store.engine, key).questions == old.questions
    new = save_pack(store.engine, every_kind())
    assert load_pack(store.engine, new).questions == every_kind().questions
    Store(f"sqlite:///{db}")  # a second start changes nothing
    assert {r["total"] for r in list_packs(store.engine)} == {3, 9}


CSV = """type,prompt,answer,unit,margin,low,high,option1,option2,option3,option4,correct,rights,accepted,points,category
numeric,Minutes in a day?,1440,minutes,60,0,3000,,,,,,,,,everyday
slider,Days in a leap year?,366,,,300,400,,,,,,,,2,everyday
choice,Closest planet to the Sun?,,,,,,Venus,Mercury,Mars,,2,,,,science
truefalse,The Pacific is the largest ocean.,true,,,,,,,,,,,,,geography
true_false,The Danube flows into the Baltic Sea.,,,,,,,,,,2,,,,geography
multi,Primary colours of light?,,,,,,Red,Yellow,Green,Blue,1|3|4,,,,science
checkbox,Even numbers?,,,,,,1,2,3,4,,2|4,,,science
survey,Favourite season?,,,,,,Spring,Summer,Autumn,Winter,,,,0,everyday
puzzle,Planets from the Sun?,,,,,,Mercury,Venus,Earth,Mars,,,,,science
short,Capital of France?,,,,,,,,,,,,Paris|Paris France,double,geography
typed,Largest ocean?,Pacific,,,,,,,,,,,,,geography
"""


def test_csv_carries_every_kind_and_old_csvs_still_read():
    pack = read_pack(CSV.encode(), "kinds.csv")
    q = pack.questions
    assert [x.type for x in q] == ["numeric", "numeric", "choice", "choice", "choice", "multi", "multi", "poll",
                                   "order", "text", "text"]
    assert (q[0].margin, q[0].low, q[0].high) == (60, 0, 3000) and q[0].unit == "minutes"
    assert (q[1].low, q[1].high, q[1].margin, q[1].points) == (300, 400, None, 2)
    assert q[2].correct == 1
    assert (q[3].options, q[3].correct) == (("True", "False"), 0) and q[4].correct == 1
    assert q[5].rights == (0, 2, 3) and q[6].rights == (1, 3)  # "1|3|4" in correct, or a rights column
    assert q[7].points == 0 and q[7].options[0] == "Spring"
    assert q[8].options == ("Mercury", "Venus", "Earth", "Mars")
    assert q[9].accepted == ("Paris", "Paris France") and q[9].points == 2
    assert q[10].accepted == ("Pacific",)  # a text question's answer column is its accepted answer
    assert read_pack(json.dumps(pack.to_json()).encode(), "x.json").questions == pack.questions
    old = read_pack((EXAMPLES / "example.csv").read_bytes(), "example.csv")  # the columns of before
    assert [x.type for x in old.questions] == ["numeric", "numeric", "choice", "choice"]


def test_gift_short_answer_true_false_tolerance_range_weights_and_matching():
    pack = read_pack((EXAMPLES / "every-kind.gift").read_bytes(), "every-kind.gift")
    minutes, hastings, sun, pacific, danube, colours, planets, paris = pack.questions
    assert (minutes.type, minutes.answer, minutes.margin) == ("numeric", 1440, 60)  # {#1440:60}
    assert (hastings.answer, hastings.margin) == (1066, 50)  # {#1016..1116}: the middle, half the width
    assert sun.type == "choice" and sun.options[sun.correct] == "Mercury"
    assert (pacific.options, pacific.correct, danube.correct) == (("True", "False"), 0, 1)  # {T}, {FALSE}
    assert colours.type == "multi" and colours.rights == (0, 2, 3)  # the positive weights are right
    assert planets.type == "order" and planets.options == ("Mercury", "Venus", "Earth", "Mars")
    assert paris.type == "text" and paris.accepted == ("Paris", "Paris, France")
    assert read_pack(json.dumps(pack.to_json()).encode(), "x.json").questions == pack.questions
    more = read_pack(b"Short {=Paris =paris}\n\nRange {#1400..1500}\n\nOdd range {#1400..1501}\n\nTiny {#1..2}\n\n"
                     b"Also true {TRUE}\n\nFalse {F#no}\n\nReversed match {=c -> 3 =a -> 1 =b -> 2}\n\n"
                     b"One right by weight {~%100%yes ~%50%nearly ~no}\n\nTwo marked {=a =b ~c}\n", "m.gift")
    short, wide, odd, tiny, true, false, match, weighted, two = more.questions
    assert short.accepted == ("Paris", "paris")
    assert (wide.answer, wide.margin) == (1450, 50)
    assert (odd.answer, odd.margin) == (1451, 51)  # 1450.5 rounded half up; a width of 101 halved, rounded up
    assert (tiny.answer, tiny.margin) == (2, 1)
    assert (true.correct, false.correct) == (0, 1)
    assert match.options == ("a", "b", "c")
    assert weighted.type == "choice" and weighted.correct == 0  # the one right answer; partial credit: a warning
    assert any(w.code == "gift_partial" for w in more.warnings)
    assert two.type == "multi" and two.rights == (0, 1)


def test_gift_what_cannot_be_carried_is_refused_naming_the_line():
    found = refused("Essay? {}\n\n"  # line 1
                    "Match {=cat -> animal =rose -> flower}\n\n"  # line 3
                    "Down {#1500..1400}\n\n"  # line 5
                    "Several {#=1440:60 =%50%1440:200}\n\n"  # line 7
                    "None right {~a ~b}\n\n"  # line 9
                    "Not a number {#ten}\n\n"  # line 11
                    "Bad margin {#10:x}\n", "bad.gift")  # line 13
    assert found == [("line 1", "type", "gift_type"), ("line 3", "type", "gift_matching"),
                     ("line 5", "answer", "gift_range_order"), ("line 7", "answer", "gift_numeric_several"),
                     ("line 9", "correct", "gift_no_correct"), ("line 11", "answer", "answer_not_whole"),
                     ("line 13", "margin", "bad_margin")]


def test_a_kahoot_row_with_several_correct_answers_is_a_multi_question():
    pack = read_pack(kahoot([[1, "One?", "a", "b", "c", "", 20, 2], [2, "Several?", "a", "b", "c", "d", 30, "1,3"],
                             [3, "Spaced?", "a", "b", "c", "d", 20, "2, 4"]]), "k.xlsx")
    one, several, spaced = pack.questions
    assert (one.type, one.correct) == ("choice", 1)
    assert (several.type, several.rights, several.time) == ("multi", (0, 2), 30)
    assert spaced.rights == (1, 3)
    assert read_pack(json.dumps(pack.to_json()).encode(), "x.json").questions == pack.questions
    assert refused(kahoot([[1, "All?", "a", "b", "", "", 20, "1,2"]]), "k.xlsx") == [("row 2", "rights", "all_right")]
    assert refused(kahoot([[1, "Ghost?", "a", "b", "c", "", 20, "1,4"]]), "k.xlsx") == [
        ("row 2", "rights", "rights_range")]


def test_bad_input_is_refused_naming_the_place_and_the_field():
    found = refused(own(
        {"type": "multi", "prompt": "No right", "options": ["a", "b", "c"], "rights": []},  # 1
        {"type": "order", "prompt": "One item", "options": ["a"]},  # 2
        {"type": "text", "prompt": "Eleven", "accepted": [f"a{i}" for i in range(11)]},  # 3
        {"type": "text", "prompt": "Long", "accepted": ["ok", "x" * 300]},  # 4
        {"type": "numeric", "prompt": "Negative margin", "answer": 5, "margin": -1},  # 5
        {"type": "numeric", "prompt": "Low above high", "answer": 5, "low": 10, "high": 3},  # 6
        {"type": "choice", "prompt": "Three points", "options": ["a", "b"], "correct": 0, "points": 3},  # 7
        {"type": "numeric", "prompt": "Only low", "answer": 5, "low": 1},  # 8
        {"type": "numeric", "prompt": "Outside", "answer": 50, "low": 0, "high": 10},  # 9
        {"type": "poll", "prompt": "Poll with a right one", "options": ["a", "b"], "correct": 1},  # 10
        {"type": "multi", "prompt": "All right", "options": ["a", "b"], "rights": [0, 1]},  # 11
        {"type": "multi", "prompt": "Twice", "options": ["a", "b", "c"], "rights": [0, 0]},  # 12
        {"type": "multi", "prompt": "Out of range", "options": ["a", "b", "c"], "rights": [5]},  # 13
        {"type": "text", "prompt": "Nothing accepted"},  # 14
        {"type": "text", "prompt": "Punctuation only", "accepted": ["?!"]},  # 15
        {"type": "truefalse", "prompt": "Maybe", "answer": "maybe"},  # 16
        {"type": "order", "prompt": "Order with a right one", "options": ["a", "b"], "correct": 0},  # 17
        {"type": "poll", "prompt": "Seven", "options": list("abcdefg")},  # 18
        {"type": "essay", "prompt": "Essay"},  # 19
        {"type": "numeric", "prompt": "Text margin", "answer": 5, "margin": "about ten"},  # 20
        {"type": "order", "prompt": "Same items", "options": ["a", "A"]}), "bad.json")  # 21
    expected = [("questions[1]", "rights", "no_rights"), ("questions[2]", "options", "item_count"),
                ("questions[3]", "accepted", "accepted_count"), ("questions[4]", "accepted", "accepted_too_long"),
                ("questions[5]", "margin", "bad_margin"), ("questions[6]", "high", "low_high"),
                ("questions[7]", "points", "bad_points"), ("questions[8]", "high", "bounds_pair"),
                ("questions[9]", "answer", "answer_outside"), ("questions[10]", "correct", "poll_right"),
                ("questions[11]", "rights", "all_right"), ("questions[12]", "rights", "rights_twice"),
                ("questions[13]", "rights", "rights_range"), ("questions[14]", "accepted", "no_accepted"),
                ("questions[15]", "accepted", "empty_accepted"), ("questions[16]", "answer", "no_truth"),
                ("questions[17]", "correct", "order_right"), ("questions[18]", "options", "option_count"),
                ("questions[19]", "type", "unsupported_type"), ("questions[20]", "margin", "bad_margin"),
                ("questions[21]", "options", "same_options")]
    assert found == expected
    csv_found = refused("type,prompt,option1,option2,option3,correct,accepted,points\n"
                        "multi,No right,a,b,c,,,\n"  # row 2
                        "text,Too long,,,,," + "y" * 101 + ",\n"  # row 3
                        "choice,Two right,a,b,c,1|2,,\n"  # row 4: a choice question has one
                        "poll,Triple,a,b,,,,3\n", "bad.csv")  # row 5
    assert csv_found == [("row 4", "correct", "several_correct"), ("row 2", "rights", "no_rights"),
                         ("row 3", "accepted", "accepted_too_long"), ("row 5", "points", "bad_points")]


def test_fields_of_another_kind_are_ignored_with_a_warning():
    pack = read_pack(own({"type": "choice", "prompt": "Margin?", "options": ["a", "b"], "correct": 0, "margin": 5},
                         {"type": "numeric", "prompt": "Accepted?", "answer": 3, "accepted": ["three"]}).encode(),
                     "w.json")
    assert [(w.where, w.field, w.code) for w in pack.warnings] == [("questions[1]", "margin", "ignored_field"),
                                                                   ("questions[2]", "accepted", "ignored_field")]
    assert pack.questions[0].margin is None and pack.questions[1].accepted == ()


SHAPES = {"numeric": {"answer": 3}, "text": {"accepted": ["x"]}, "multi": {"options": ["a", "b", "c"], "rights": [1]},
          "poll": {"options": ["a", "b"]}, "order": {"options": ["a", "b"]}, "choice": {"options": ["a", "b"], "correct": 0},
          "truefalse": {"answer": True}}


@pytest.mark.parametrize("alias,shape,kind", [
    ("truefalse", "truefalse", "choice"), ("true_false", "truefalse", "choice"), ("True/False", "truefalse", "choice"),
    ("short", "text", "text"), ("type", "text", "text"), ("typed", "text", "text"),
    ("multiple_select", "multi", "multi"), ("checkbox", "multi", "multi"), ("slider", "numeric", "numeric"),
    ("ordering", "order", "order"), ("puzzle", "order", "order"), ("survey", "poll", "poll"),
    ("number", "numeric", "numeric"), ("MC", "choice", "choice")])
def test_the_aliases_other_formats_use(alias: str, shape: str, kind: str):
    pack = read_pack(own({"type": alias, "prompt": "Q?", **SHAPES[shape]}).encode(), "a.json")
    assert pack.questions[0].type == kind


@pytest.mark.parametrize("language,options", [("en", ("True", "False")), ("fa", ("درست", "نادرست")),
                                              ("ro", ("Adevărat", "Fals"))])
def test_a_true_false_question_speaks_the_packs_language(language: str, options: tuple[str, str]):
    pack = read_pack(own({"type": "truefalse", "prompt": "Q?", "answer": "false"}, language=language).encode(),
                     "t.json")
    assert pack.questions[0].options == options and pack.questions[0].correct == 1


def test_the_preview_shows_each_kinds_shape_and_no_answer():
    shown = [q.preview() for q in every_kind().questions]
    assert [s["type"] for s in shown] == ["numeric", "choice", "choice", "multi", "poll", "order", "text", "choice",
                                          "text"]
    assert shown[0]["low"] == 0 and shown[0]["high"] == 3000 and "answer" not in shown[0] and "margin" not in shown[0]
    assert "rights" not in shown[3] and len(shown[3]["options"]) == 5
    assert shown[5]["options"] == ["Earth", "Mars", "Mercury", "Venus"]  # sorted: the pack's order is the answer
    assert shown[6]["accepted"] == 1  # how many answers are accepted, not which
    assert [s["points"] for s in shown] == [1, 1, 1, 1, 1, 1, 1, 2, 0]


def test_the_short_campaign_draws_only_numeric_and_choice_questions_the_quiz_every_kind(tmp_path: Path,
                                                                                          monkeypatch):
    pack = every_kind()
    pack = Pack(pack.name, pack.language, pack.questions * 1)
    campaign = CampaignGame().draw(CampaignGame().info.default_settings())
    quiz = QuizGame().draw(QuizGame().info.default_settings())
    assert campaign.kinds == ("numeric", "choice") and quiz.kinds is None
    store = Store(f"sqlite:///{tmp_path / 'draw.db'}")
    key = save_pack(store.engine, pack)
    from questions import library as library_module

    monkeypatch.setattr(library_module, "builtin_packs", lambda: {"builtin:kinds": pack})
    library = Library(store.engine)
    for pack_id in ("builtin:kinds", f"db:{key}"):  # a pack in memory and a stored one
        for seen in (set(), {f"{pack_id}:3", f"{pack_id}:6", f"{pack_id}:0"}):  # a seen multi, text, numeric
            drawn = library.draw([pack_id], campaign, seen, Rng(7))
            assert sorted(e.question.type for e in drawn) == ["choice", "choice", "choice", "numeric"], (pack_id, seen)
            everything = library.draw([pack_id], quiz, seen, Rng(7))
            assert len(everything) == 9 and {e.question.type for e in everything} == {
                "numeric", "choice", "multi", "poll", "order", "text"}
        only_text = library.draw([pack_id], Draw(5, in_order=True, kinds=("text",)), set(), Rng(1))
        assert [e.question.accepted[0] for e in only_text] == ["Paris", "blue"]
        two = library.draw([pack_id], Draw(1, categories=True, kinds=("poll", "order")), set(), Rng(3))
        assert len(two) == 1 and two[0].question.type in ("poll", "order")
    source = MemoryPack(pack)
    assert source.at_ranks((("multi", "text"), None), [0, 1, 2]) == [3, 6, 8]


def test_a_campaign_start_with_a_pack_of_every_kind_gets_only_numeric_and_choice(harness: Harness):
    code, tv = harness.host_room()
    room = harness.service.room(code)
    pack_id = f"db:{save_pack(harness.service.store.engine, every_kind())}"
    drawn: list[list[Entry]] = []
    library = harness.service.library
    real = library.draw

    def spy(*args, **kwargs):
        drawn.append(real(*args, **kwargs))
        return drawn[-1]

    library.draw = spy
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "packs", packs=[pack_id])["ok"]
    started = control(tv, "start")
    assert started["ok"] and room.phase == "playing", started
    chosen = [e for e in drawn[0] if e.id.startswith(pack_id)]
    assert sorted(e.question.type for e in chosen) == ["choice", "choice", "choice", "numeric"]
    assert all(e.question.type in ("numeric", "choice") for entries in drawn for e in entries)


def test_six_options_reach_the_short_campaign_whole():
    # finding 8: a question of six options is not cut; the Short Campaign shows all six (its phones lay out more
    # than four in a grid: host/static/games/campaign.js), so the import has nothing to warn about
    river = every_kind().questions[7]
    content = campaign_content(Entry("p:7", "en", river))
    assert content["options"] == list(river.options) and content["correct"] == 1 and len(content["options"]) == 6
    warnings = read_pack(EVERY_KIND.read_bytes(), EVERY_KIND.name).warnings
    assert not warnings


def test_the_schema_describes_every_kind_as_exported():
    schema = json.loads((ROOT / "questions" / "pack.schema.json").read_text(encoding="utf-8"))
    branches = {b["properties"]["type"]["const"]: b for b in schema["properties"]["questions"]["items"]["oneOf"]}
    assert tuple(branches) == ("numeric", "choice", "multi", "poll", "order", "text")
    for question in every_kind().to_json()["questions"]:
        branch = branches[question["type"]]
        assert set(branch["required"]) <= set(question) <= set(branch["properties"]), question


def test_the_tvs_preview_shows_each_kind_without_its_answer(harness: Harness):
    code, token = harness.service.create_room()
    client = harness.app.test_client()
    headers = {"X-Room-Code": code, "X-Host-Token": token}
    upload = client.post("/api/packs", headers=headers,
                         data={"file": (io.BytesIO(EVERY_KIND.read_bytes()), "every-kind.json")})
    assert upload.status_code == 201, upload.get_json()
    # the upload's answer counts every kind, as the lobby's list does (it counted all but numbers as "choice")
    counted = upload.get_json()["pack"]
    assert {k: counted[k] for k in ("numeric", "choice", "total", "kinds")} == {"numeric": 1, "choice": 3, "total": 9,
        "kinds": {"numeric": 1, "choice": 3, "multi": 1, "poll": 1, "order": 1, "text": 2}}
    preview = client.get(f"/api/packs/{upload.get_json()['pack']['id']}", headers=headers).get_json()
    assert preview["count"] == 9
    questions = preview["questions"]
    assert [q["type"] for q in questions] == ["numeric", "choice", "choice", "multi", "poll", "order", "text",
                                              "choice", "text"]
    assert all(not {"answer", "correct", "rights", "margin"} & set(q) for q in questions)
    assert questions[0]["unit"] == "minutes" and questions[0]["high"] == 3000 and questions[0]["options"] == []
    assert questions[5]["options"] == ["Earth", "Mars", "Mercury", "Venus"]
    assert questions[6]["accepted"] == 1 and [q["points"] for q in questions][-2:] == [2, 0]


def test_every_kind_on_postgresql_stored_drawn_and_migrated():
    from sqlalchemy import text

    from bench.services import PostgresServer

    with PostgresServer() as server:
        store = Store(server.new_database())
        try:
            pack = every_kind()
            key = save_pack(store.engine, pack)
            assert load_pack(store.engine, key).questions == pack.questions
            assert preview_pack(store.engine, key, 20)["questions"] == pack.questions
            library = Library(store.engine)
            campaign = library.draw([f"db:{key}"], CampaignGame().draw({}), {f"db:{key}:3"}, Rng(5))
            assert sorted(e.question.type for e in campaign) == ["choice", "choice", "choice", "numeric"]
            texts = library.draw([f"db:{key}"], Draw(9, kinds=("text", "order")), set(), Rng(5))
            assert sorted(e.question.type for e in texts) == ["order", "text", "text"]
            with store.engine.begin() as connection:  # a database from before [17]
                connection.execute(text("ALTER TABLE question DROP COLUMN extra"))
                connection.execute(text("ALTER TABLE pack DROP COLUMN kind_counts"))
            store.migrate()
            [row] = list_packs(store.engine)
            assert row["total"] == 9 and row["kinds"]["text"] == 2
            again = save_pack(store.engine, pack)
            assert load_pack(store.engine, again).questions == pack.questions
        finally:
            store.close()


def test_a_quiz_start_with_a_pack_of_every_kind_logs_every_kind_with_its_fields(harness: Harness):
    code, tv = harness.host_room()
    pack_id = f"db:{save_pack(harness.service.store.engine, every_kind())}"
    harness.join(code, "Ana")
    assert control(tv, "select_game", game="quiz")["ok"]
    assert control(tv, "packs", packs=[pack_id])["ok"]
    assert control(tv, "settings", game="quiz", settings={"order": "pack"})["ok"]
    assert control(tv, "start")["ok"]
    content = [e.data["content"] for e in harness.service.store.events(code) if e.kind == "start"][-1]
    questions = content["questions"]
    assert [q["kind"] for q in questions] == ["numeric", "choice", "choice", "multi", "poll", "order", "text",
                                              "choice", "text"]
    minutes, _, _, colours, _, planets, paris, river, sky = questions
    assert (minutes["answer"], minutes["margin"], minutes["low"], minutes["high"]) == (1440, 60, 0, 3000)
    assert colours["rights"] == [0, 2, 3] and planets["options"] == ["Mercury", "Venus", "Earth", "Mars"]
    assert paris["accepted"] == ["Paris"] and (river["points"], sky["points"]) == (2, 0)
    assert len(river["options"]) == 6  # the Quiz shows all six options (finding 8)
