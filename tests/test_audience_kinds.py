"""The audience play-along of the Quiz's question kinds (issue [17]): spectators answer choice, poll (no points) and
numeric questions (scored by the margin, QUIZ-S2), and watch multi, order and text questions on the TV; the report's
audience summary follows."""

from __future__ import annotations

import io
import json
from typing import Any

from engine.core import Timing
from host.audience import CHOICE_POINTS, NUMERIC_POINTS, SPEED_POINTS, AudienceAnswer, Question, score_question
from tests.conftest import Harness, control, last_state
from tests.test_quiz_room import act, audience, is_open, until
from tests.test_report import block, csv_rows, download

KINDS_PACK = {
    "format": "throneroom-pack/1", "name": "Kinds", "language": "en",
    "questions": [
        {"type": "poll", "prompt": "Tea or coffee?", "options": ["Tea", "Coffee"], "category": "fun",
         "difficulty": "easy"},
        {"type": "numeric", "prompt": "How many keys does a piano have?", "answer": 88, "margin": 8,
         "category": "music", "difficulty": "easy"},
        {"type": "multi", "prompt": "Which are planets?", "options": ["Mars", "Moon", "Venus"], "rights": [0, 2],
         "category": "science", "difficulty": "easy"},
        {"type": "text", "prompt": "The capital of France?", "accepted": ["Paris"], "category": "geography",
         "difficulty": "easy"},
        {"type": "order", "prompt": "Smallest first", "options": ["1", "10", "100"], "category": "maths",
         "difficulty": "easy"},
    ],
}
PLAYER_ANSWERS = [{"choice": 0}, {"answer": 88}, {"multi": [0, 2]}, {"text": "Paris"}, {"order": [0, 1, 2]}]


def kinds_room(harness: Harness) -> tuple[str, Any, dict[str, Any]]:
    """Ana plays; Sam and Tea watch and play along: (code, tv, {name: phone})."""
    code, token = harness.service.create_room()
    tv = harness.tv()
    assert tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)["ok"]
    tv.host_headers = {"X-Room-Code": code, "X-Host-Token": token}
    upload = harness.app.test_client().post(
        "/api/packs", headers=tv.host_headers,
        data={"file": (io.BytesIO(json.dumps(KINDS_PACK).encode()), "kinds.json")})
    assert upload.status_code == 201, upload.get_json()
    phones = {"Ana": harness.join(code, "Ana")[0]}
    phones.update({name: harness.join(code, name, "spectator")[0] for name in ("Sam", "Tea")})
    assert control(tv, "packs", packs=[upload.get_json()["pack"]["id"]])["ok"]
    assert control(tv, "select_game", game="quiz")["ok"]
    assert control(tv, "settings", game="quiz", settings={"order": "pack"})["ok"]
    return code, tv, phones


def test_the_audience_answers_polls_and_numbers_and_watches_the_other_kinds():
    harness = Harness()
    code, tv, phones = kinds_room(harness)
    assert control(tv, "start")["ok"]
    service = harness.service
    for index, player in enumerate(PLAYER_ANSWERS):
        until(harness, code, is_open)
        assert service.room(code).session.state.index == index
        harness.clock.advance(400)
        kind = KINDS_PACK["questions"][index]["type"]
        shared = service.view(service.room(code), None)["audience"]
        assert shared["kind"] == kind and shared["watch"] == (kind in ("multi", "order", "text"))
        if kind == "poll":
            assert audience(phones["Sam"], {"choice": 1})["ok"]
            assert audience(phones["Tea"], {"choice": 0})["ok"]
        elif kind == "numeric":  # QUIZ-S2: 88, margin 8
            assert audience(phones["Sam"], {"answer": 92})["ok"]  # 4 off: right, 3/4 of the points
            harness.clock.advance(100)
            assert audience(phones["Tea"], {"answer": 97})["ok"]  # 9 off: outside the margin, nothing
        else:
            refused = audience(phones["Sam"], player)
            assert not refused["ok"] and refused["error"]["code"] == "watch", refused
            assert audience(phones["Tea"], {"choice": 0})["error"]["code"] == "watch"
        assert act(phones["Ana"], player)["ok"]  # the only player: the question closes
        harness.clock.advance(300)
        service.tick()
        question = service.audience.rooms[code].question
        assert question.scored
        results = question.results
        if kind == "poll":
            assert {s: (r.points, r.right) for s, r in results.items()} == {2: (0, False), 3: (0, False)}  # QUIZ-S9
        elif kind == "numeric":
            full = CHOICE_POINTS + SPEED_POINTS  # Sam: the only right answer, so the quickest
            assert (results[2].right, results[2].points) == (True, (2 * full * 12 + 16) // 32)  # x (1 - 4/16)
            assert (results[3].right, results[3].points, results[3].rank) == (False, 0, 2)
        else:
            assert results == {}
        phone_state = last_state(phones["Sam"], "/play")
        assert phone_state["audience"]["watch"] == (kind in ("multi", "order", "text"))
        if index < len(PLAYER_ANSWERS) - 1:
            assert control(tv, "next")["ok"]
    until(harness, code, lambda room: room.phase == "finished")
    crowd = block(csv_rows(download(harness, code, "csv", tv.host_headers).data), "Audience")
    assert [(r["Spectators who answered"], r["Right (%)"]) for r in crowd] == [
        ("2", ""), ("2", "50"), ("watched on the TV", ""), ("watched on the TV", ""), ("watched on the TV", "")]


def answer(seat: int, value: int, ms: int) -> AudienceAnswer:
    return AudienceAnswer(seat, value, Timing(ms, ms, 0, ms, 20, ""))


def test_a_number_scores_by_its_margin_and_nothing_outside_it():
    question = Question(1, "numeric", 0, 0, 20_000)
    for seat, value, ms in ((1, 100, 900), (2, 95, 300), (3, 111, 100), (4, 90, 200)):
        question.answers[seat] = answer(seat, value, ms)
    results = score_question(question, 100, margin=10)  # QUIZ-S2
    # within: seat 1 (exact), 2 (5 off), 4 (10 off, on the edge); seat 3 is 11 off
    assert [s for s, _ in sorted(results.items(), key=lambda r: r[1].rank)] == [1, 2, 4, 3]
    assert {s: r.right for s, r in results.items()} == {1: True, 2: True, 3: False, 4: True}
    bonus = {4: SPEED_POINTS, 2: round(SPEED_POINTS * 2 / 3), 1: round(SPEED_POINTS / 3)}  # by time, right ones
    assert results[1].points == CHOICE_POINTS + bonus[1]
    assert results[2].points == (2 * (CHOICE_POINTS + bonus[2]) * 15 + 20) // 40  # x (1 - 5/20), half up
    assert results[4].points == (2 * (CHOICE_POINTS + bonus[4]) * 10 + 20) // 40  # x 1/2
    assert results[3].points == 0
    exact = score_question(question, 100, margin=0)  # 0 %: only the exact number
    assert {s: (r.right, r.points > 0) for s, r in exact.items()} == {1: (True, True), 2: (False, False),
                                                                      3: (False, False), 4: (False, False)}
    closest = score_question(question, 100)  # no margin (the Campaign): closest wins, everyone scores
    assert closest[1].points == NUMERIC_POINTS and all(r.points > 0 for r in closest.values())


def test_a_poll_scores_nothing_and_nobody_is_right():
    question = Question(1, "poll", 2, 0, 20_000)
    question.answers[5] = answer(5, 1, 700)
    question.answers[6] = answer(6, 0, 200)
    results = score_question(question, None)  # QUIZ-S9
    assert {s: (r.points, r.right, r.rank) for s, r in results.items()} == {5: (0, False, 2), 6: (0, False, 1)}
