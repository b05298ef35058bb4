"""Issue [16], packs and costly actions: a request reads only what it shows or draws, never a whole pack (a pack may
hold 20,000 questions); previews, renames, a phone's other seat changes and the host's controls are rate-limited per
address; phones and other screens learn only the ids of the packs their room plays, and a pack's images are served
only to a room that plays it; over-long prompts, options and units are refused at import.

Rows are counted where the database hands them to Python (the DB-API cursor's row factory): that is the work a
request does on the server's loop, whatever the SQL."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from engine.core import Draw, Rng
from questions.formats import read_pack
from questions.library import Library
from questions.model import CATEGORIES, Pack, PackError, Question
from questions.store import save_pack
from tests.conftest import Harness, control, last_state
from tests.test_pack_archive import QUESTIONS, jpeg, own_pack, png

BIG = 20_000  # the most a pack may hold (questions.model.MAX_QUESTIONS)


@contextmanager
def rows_read(engine: Any) -> Iterator[list[int]]:
    """Count every row the database hands to Python while the block runs (``[count]``)."""
    count = [0]

    def factory(cursor: Any, row: tuple[Any, ...]) -> tuple[Any, ...]:
        count[0] += 1
        return row

    def before(connection: Any, cursor: Any, *_: Any) -> None:
        cursor.row_factory = factory

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield count
    finally:
        event.remove(engine, "before_cursor_execute", before)


@contextmanager
def database_work(engine: Any) -> Iterator[list[int]]:
    """Count the work SQLite does while the block runs, in thousands of its virtual machine's steps (``[count]``):
    a scan of 20,000 rows shows there even when it hands back one count."""
    count = [0]

    def step() -> int:
        count[0] += 1
        return 0

    def before(connection: Any, *_: Any) -> None:
        connection.connection.driver_connection.set_progress_handler(step, 1000)

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield count
    finally:
        event.remove(engine, "before_cursor_execute", before)


def big_pack(name: str, count: int = BIG) -> Pack:
    """A pack of ``count`` questions, numeric and multiple choice in turn, over every category."""
    questions = []
    for i in range(count):
        category = CATEGORIES[i % len(CATEGORIES)]
        if i % 2:
            questions.append(Question("choice", f"{name} choice {i}?", category, "easy", options=(f"a{i}", f"b{i}"),
                                      correct=0))
        else:
            questions.append(Question("numeric", f"{name} number {i}?", category, "easy", answer=i))
    return Pack(name, "en", questions)


def host(harness: Harness) -> tuple[str, Any, dict[str, str]]:
    """A room watched by its host's TV: (code, tv, the headers of its HTTP requests)."""
    code, token = harness.service.create_room()
    tv = harness.tv()
    assert tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)["ok"]
    return code, tv, {"X-Room-Code": code, "X-Host-Token": token}


def stored(harness: Harness, code: str, pack: Pack) -> str:
    """The pack stored as the room's host's own upload; its id."""
    return f"db:{save_pack(harness.service.store.engine, pack, owner=harness.service.room(code).owner)}"


def position(question_id: str) -> tuple[str, int]:
    pack_id, place = question_id.rsplit(":", 1)
    return pack_id, int(place)


# ----- reading: the preview and the draw -----

def test_a_preview_of_a_pack_of_20000_reads_only_the_questions_it_shows():
    harness = Harness()
    code, _, headers = host(harness)
    pack_id = stored(harness, code, big_pack("Huge"))
    client = harness.app.test_client()
    with rows_read(harness.service.store.engine) as rows:
        preview = client.get(f"/api/packs/{pack_id}", headers=headers)
    assert preview.status_code == 200, preview.get_json()
    body = preview.get_json()
    assert body["count"] == BIG and body["name"] == "Huge" and len(body["questions"]) == 20
    assert [q["prompt"] for q in body["questions"][:2]] == ["Huge number 0?", "Huge choice 1?"]
    assert body["questions"][1]["options"] == ["a1", "b1"] and "correct" not in body["questions"][1]
    print(f"\nrows read by one preview of a pack of {BIG:,}: {rows[0]}")
    assert rows[0] <= 30, rows[0]  # the pack's row, its count, its first 20 questions
    builtin = client.get("/api/packs/builtin:en-numbers", headers=headers).get_json()
    assert builtin["count"] == 344 and len(builtin["questions"]) == 20


def test_the_lobby_costs_the_database_as_much_with_packs_of_20000_as_with_packs_of_20():
    work = {}
    for size in (20, BIG):
        harness = Harness()
        code, _, headers = host(harness)
        packs = [stored(harness, code, big_pack(f"S{i}", size)) for i in range(3)]
        with database_work(harness.service.store.engine) as steps:
            listed = harness.service.library.packs(harness.service.room(code).owner)
            preview = harness.app.test_client().get(f"/api/packs/{packs[0]}", headers=headers).get_json()
        assert [(p["numeric"], p["choice"]) for p in listed if p["id"] in packs] == [(size // 2, size // 2)] * 3
        assert preview["count"] == size
        work[size] = steps[0]
    print(f"\nthousands of SQLite steps for the lobby's list and a preview: {work}")
    assert work[BIG] <= work[20] + 5, work  # no pass over the packs' questions


def five_big_packs(harness: Harness) -> tuple[str, Any, list[str]]:
    code, tv, _ = host(harness)
    packs = [stored(harness, code, big_pack(f"P{i}")) for i in range(5)]
    assert control(tv, "packs", packs=packs)["ok"]
    return code, tv, packs


def started_content(harness: Harness, code: str) -> Any:
    return [e.data["content"] for e in harness.service.store.events(code) if e.kind == "start"][-1]


def test_a_quiz_start_with_five_packs_of_20000_reads_only_the_questions_it_draws():
    harness = Harness()
    code, tv, packs = five_big_packs(harness)
    harness.join(code, "Ana")
    assert control(tv, "select_game", game="quiz")["ok"]
    assert control(tv, "settings", game="quiz", settings={"count": 0, "order": "shuffled"})["ok"]  # all: 200
    with rows_read(harness.service.store.engine) as rows:
        assert control(tv, "start")["ok"]
    asked = [q["id"] for q in started_content(harness, code)["questions"]]
    print(f"\nrows read by a quiz start from 5 packs of {BIG:,}: {rows[0]}")
    assert len(asked) == 200 == len(set(asked))
    assert {position(q)[0] for q in asked} <= set(packs) and len({position(q)[0] for q in asked}) >= 3
    assert max(position(q)[1] for q in asked) > BIG // 2  # drawn from the whole of the packs, not their start
    assert rows[0] <= 200 + 300, rows[0]  # the 200 drawn, and a few rows of counts per pack

    assert control(tv, "end")["ok"] and control(tv, "lobby")["ok"]
    assert control(tv, "settings", game="quiz", settings={"count": 30, "order": "pack"})["ok"]
    with rows_read(harness.service.store.engine) as rows:
        assert control(tv, "start")["ok"]
    in_order = [q["id"] for q in started_content(harness, code)["questions"]]
    seen_first = sorted(position(q)[1] for q in asked if position(q)[0] == packs[0])
    expected = [f"{packs[0]}:{i}" for i in range(BIG) if i not in seen_first][:30]  # unseen ones first, in order
    assert in_order == expected, in_order[:5]
    assert rows[0] <= 30 + 200 + 300, rows[0]


def test_a_campaign_start_with_five_packs_of_20000_reads_only_its_decks():
    harness = Harness()
    code, tv, packs = five_big_packs(harness)
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    with rows_read(harness.service.store.engine) as rows:
        started = control(tv, "start")
    assert started["ok"], started
    content = started_content(harness, code)
    print(f"\nrows read by a campaign start from 5 packs of {BIG:,}: {rows[0]}")
    for kind in ("numeric", "choice"):
        deck = [q["id"] for q in content[kind]]
        assert len(deck) == 48 == len(set(deck)), kind
        assert {position(q)[0] for q in deck} <= set(packs)
        assert all(position(q)[1] % 2 == (kind == "choice") for q in deck), kind  # the right kind
    assert rows[0] <= 2 * 48 + 400, rows[0]


def test_the_draw_is_reproducible_from_the_seed_puts_unseen_questions_first_and_lets_categories_take_turns():
    harness = Harness()
    code, _, _ = host(harness)
    packs = [stored(harness, code, big_pack(f"Q{i}", 3000)) for i in range(2)]
    library = harness.service.library
    campaign = Draw(48, by_kind=True, categories=True)
    first = library.draw(packs, campaign, set(), Rng(7))
    assert [e.id for e in library.draw(packs, campaign, set(), Rng(7))] == [e.id for e in first]
    assert [e.id for e in library.draw(packs, campaign, set(), Rng(8))] != [e.id for e in first]
    for kind in ("numeric", "choice"):
        drawn = [e for e in first if e.question.type == kind]
        assert len(drawn) == 48
        per_category = [sum(e.question.category == c for e in drawn) for c in CATEGORIES]
        assert max(per_category) - min(per_category) <= 1, per_category  # as many of each (48 over 7)
    # a room that has seen almost all of a kind gets the unseen ones, then seen ones to fill the deck
    seen = {f"{packs[0]}:{i}" for i in range(0, 3000, 2)} | {f"{packs[1]}:{i}" for i in range(0, 2990, 2)}
    drawn = [e.id for e in library.draw(packs, campaign, seen, Rng(7)) if e.question.type == "numeric"]
    unseen = {f"{packs[1]}:{i}" for i in range(2990, 3000, 2)}
    assert unseen <= set(drawn) and len(drawn) == 48 and len(set(drawn)) == 48
    in_order = library.draw(packs, Draw(10, in_order=True), {f"{packs[0]}:0", f"{packs[0]}:3"}, Rng(1))
    assert [e.id for e in in_order] == [f"{packs[0]}:{i}" for i in (1, 2, 4, 5, 6, 7, 8, 9, 10, 11)]
    builtin = library.draw(["builtin:en-numbers"], Draw(5, in_order=True), set(), Rng(1))
    assert [e.id for e in builtin] == [f"builtin:en-numbers:{i}" for i in range(5)]


def test_postgresql_previews_and_draws_the_same_as_sqlite(postgres: Any):
    # the same SQL on both databases (window functions, expanding IN lists): the same seed draws the same questions
    from host.store import Store

    samples = []
    for url in ("sqlite://", postgres.new_database()):
        store = Store(url)
        try:
            packs = [f"db:{save_pack(store.engine, big_pack(f'R{i}', 1500))}" for i in range(2)]
            library = Library(store.engine)
            preview = library.preview(packs[0], None)
            assert preview is not None and preview["count"] == 1500 and len(preview["questions"]) == 20
            seen = {f"{packs[0]}:{i}" for i in range(0, 1500, 5)}
            key = {p: f"pack{i}" for i, p in enumerate(packs)}  # the uuids differ from one database to the other
            samples.append([(how, [f"{key[e.pack_id]}:{e.id.rsplit(':', 1)[1]}" for e in library.draw(packs, how, seen,
                                                                                                     Rng(5))])
                            for how in (Draw(48, by_kind=True, categories=True), Draw(60), Draw(60, in_order=True))])
        finally:
            store.close()
    assert samples[0] == samples[1]
    assert all(len(drawn) in (60, 96) for _, drawn in samples[0])


# ----- rate limits -----

def test_the_fourth_preview_a_minute_is_refused_with_retry_after():
    harness = Harness(PREVIEW_RATE="3/minute")
    _, _, headers = host(harness)
    client = harness.app.test_client()
    answers = [client.get("/api/packs/builtin:en-numbers", headers=headers) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].get_json()["error"]["code"] == "rate_limited"
    assert 1 <= int(answers[3].headers["Retry-After"]) <= 60


def test_renames_and_other_seat_changes_are_limited_per_address():
    harness = Harness(RENAME_RATE="3/minute", SEAT_RATE="4/minute")
    code, _, _ = host(harness)
    phone, _ = harness.join(code, "Ana")

    def emit(event_name: str, data: dict[str, Any]) -> dict[str, Any]:
        return phone.emit(event_name, data, namespace="/play", callback=True)

    assert [emit("rename", {"name": f"Ana {i}"})["ok"] for i in range(3)] == [True, True, True]
    refused = emit("rename", {"name": "Ana 9"})
    assert refused["error"]["code"] == "rate_limited" and "wait" in refused["error"]["message"]
    room = harness.service.room(code)
    assert [s.name for s in room.seats.values()] == ["Ana 2"]  # nothing applied
    changes = [emit("language", {"language": "fa"}), emit("sit_out", {"out": True}),
               emit("sit_out", {"out": False}), emit("language", {"language": "ro"})]
    assert all(a["ok"] for a in changes), changes
    assert emit("sit_out", {"out": True})["error"]["code"] == "rate_limited"


def test_host_controls_are_limited_per_address():
    harness = Harness(CONTROL_RATE="5/minute")
    _, tv, _ = host(harness)
    answers = [control(tv, "lock", locked=i % 2 == 0) for i in range(6)]
    assert [a["ok"] for a in answers] == [True] * 5 + [False]
    assert answers[5]["error"]["code"] == "rate_limited"


# ----- who learns a pack's id, and who gets its images -----

def test_phones_and_other_screens_learn_only_the_ids_of_the_packs_the_room_plays():
    harness = Harness()
    code, tv, _ = host(harness)
    private = stored(harness, code, big_pack("Secret", 10))
    chosen = stored(harness, code, big_pack("Chosen", 10))
    phone, _ = harness.join(code, "Ana")
    watcher = harness.tv()
    assert watcher.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    assert control(tv, "packs", packs=[chosen])["ok"]
    host_ids = {p["id"] for p in last_state(tv, "/tv")["questions"]["packs"]}
    assert {private, chosen} <= host_ids  # the host chooses among everything it is offered
    for client, namespace in ((phone, "/play"), (watcher, "/tv")):
        questions = last_state(client, namespace)["questions"]
        assert [p["id"] for p in questions["packs"]] == [chosen], namespace
        assert questions["selected"] == [chosen] and questions["numeric"] == 5
        assert private not in json.dumps(last_state(client, namespace))


def test_a_packs_images_are_served_only_to_a_room_that_plays_it():
    harness = Harness()
    code, tv, headers = host(harness)
    client = harness.app.test_client()
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as out:
        out.writestr("pack.json", own_pack(QUESTIONS))
        out.writestr("flag.png", png())
        out.writestr("wide.jpg", jpeg())
    upload = client.post("/api/packs", headers=headers, data={"file": (io.BytesIO(data.getvalue()), "quiz.zip")})
    assert upload.status_code == 201, upload.get_json()
    pack_id = upload.get_json()["pack"]["id"]
    other, _, _ = host(harness)
    assert control(tv, "packs", packs=[])["ok"]  # the upload chose it for the next game (docs/packs.md): untick it
    assert client.get(f"/packs/{pack_id}/media/flag.png").status_code == 404  # the id alone is not enough
    assert client.get(f"/packs/{pack_id}/media/flag.png?room={code}").status_code == 404  # offered, not chosen
    assert control(tv, "packs", packs=[pack_id])["ok"]
    served = client.get(f"/packs/{pack_id}/media/flag.png?room={code}")
    assert served.status_code == 200 and served.data == png()
    assert client.get(f"/packs/{pack_id}/media/flag.png?room={other}").status_code == 404  # another room's
    assert client.get(f"/packs/{pack_id}/media/flag.png?room=nonsense").status_code == 404
    harness.join(code, "Ana")
    assert control(tv, "select_game", game="quiz")["ok"]
    assert control(tv, "settings", game="quiz", settings={"order": "pack"})["ok"]
    assert control(tv, "start")["ok"]
    image = started_content(harness, code)["questions"][0]["image"]
    assert image == f"/packs/{pack_id}/media/flag.png?room={code}"  # what the Quiz shows carries its room
    assert client.get(image).status_code == 200


# ----- what a pack may hold -----

def test_an_over_long_prompt_option_or_unit_is_refused_naming_its_row_and_field():
    rows = ["type,prompt,answer,unit,option1,option2,correct",
            f"numeric,{'How many? ' * 51},3,,,,",
            f"choice,Which one?,,,{'x' * 201},y,1",
            f"numeric,How far?,3,{'km' * 21},,,",
            f"choice,{'Fine? ' * 80},,,{'o' * 200},p,1"]
    with pytest.raises(PackError) as refused:
        read_pack(("\n".join(rows) + "\n").encode(), "long.csv")
    problems = [(p.where, p.field, p.code) for p in refused.value.problems if not p.warning]
    assert problems == [("row 2", "prompt", "prompt_too_long"), ("row 3", "options[1]", "option_too_long"),
                        ("row 4", "unit", "unit_too_long")], problems
    message = next(p for p in refused.value.problems if p.code == "prompt_too_long")
    assert message.args == {"n": 509, "max": 500} and "500" in message.message
    huge = json.dumps({"format": "throneroom-pack/1", "name": "Huge", "language": "en",
                       "questions": [{"type": "numeric", "prompt": "x" * 4_000_000, "answer": 1}]}).encode()
    with pytest.raises(PackError) as refused:
        read_pack(huge, "huge.json")
    assert [(p.where, p.field, p.code) for p in refused.value.problems if not p.warning] == \
        [("questions[1]", "prompt", "prompt_too_long")]
    assert len(json.dumps([p.to_json() for p in refused.value.problems])) < 2000


def test_the_built_in_packs_are_within_the_caps():
    library = Library(None)
    for pack_id in ("builtin:en-numbers", "builtin:en-choice", "builtin:fa-general", "builtin:ro-general"):
        assert library.pack(pack_id) is not None, pack_id  # a built-in pack over a cap would not load
