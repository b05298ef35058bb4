"""The Quiz in a room, over sockets with a fake clock: a whole game from an uploaded pack with players and the
audience, questions seen per room, the host's Next, bots, and a restart in the middle of a question."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from host.audience import CHOICE_POINTS, NUMERIC_POINTS, SPEED_POINTS
from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, control, last_state

PACK = {
    "format": "throneroom-pack/1", "name": "Office quiz", "language": "en",
    "questions": [
        {"type": "choice", "prompt": "Which planet is closest to the Sun?", "options": ["Venus", "Mercury", "Mars",
                                                                                      "Earth"],
         "correct": 1, "category": "science", "difficulty": "easy", "source": "NASA: Mercury"},
        {"type": "numeric", "prompt": "How many keys does a standard piano have?", "answer": 88, "unit": None,
         "category": "culture", "difficulty": "medium", "source": "Britannica: piano"},
        {"type": "choice", "prompt": "The Pacific is the largest ocean.", "options": ["True", "False"], "correct": 0,
         "category": "geography", "difficulty": "easy", "source": "NOAA: ocean facts"},
        {"type": "numeric", "prompt": "How long is a marathon, in metres?", "answer": 42195, "unit": "metres",
         "category": "sport", "difficulty": "hard", "source": "World Athletics: marathon"},
    ],
}


def quiz_room(harness: Harness, players: tuple[str, ...] = ("Ana", "Ben", "Cai"), spectators: tuple[str, ...] = (),
              **settings: Any) -> tuple[str, Any, dict[str, Any]]:
    """A room with the pack uploaded and chosen and the Quiz selected: (code, tv, {name: phone})."""
    code, token = harness.service.create_room()
    tv = harness.tv()
    assert tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)["ok"]
    upload = harness.app.test_client().post(
        "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
        data={"file": (io.BytesIO(json.dumps(PACK).encode()), "office.json")})
    assert upload.status_code == 201, upload.get_json()
    phones = {name: harness.join(code, name)[0] for name in players}
    phones.update({name: harness.join(code, name, "spectator")[0] for name in spectators})
    assert control(tv, "packs", packs=[upload.get_json()["pack"]["id"]])["ok"]
    assert control(tv, "select_game", game="quiz")["ok"]
    assert control(tv, "settings", game="quiz", settings={"order": "pack", **settings})["ok"]
    tv.host_headers = {"X-Room-Code": code, "X-Host-Token": token}
    tv.pack_id = upload.get_json()["pack"]["id"]
    return code, tv, phones


def state_of(harness: Harness, code: str) -> Any:
    return harness.service.room(code).session.state


def until(harness: Harness, code: str, ready: Any, step_ms: int = 50, limit: int = 20_000) -> None:
    """Let time pass in small steps until ``ready(room)``."""
    room = harness.service.room(code)
    for _ in range(limit):
        if ready(room):
            return
        harness.clock.advance(step_ms)
        harness.service.tick()
    raise AssertionError("the room never got there")


def is_open(room: Any) -> bool:
    return room.session is not None and room.session.state.phase == "question"


def act(phone: Any, action: dict[str, Any]) -> dict[str, Any]:
    return phone.emit("action", {"action": action}, namespace="/play", callback=True)


def audience(phone: Any, action: dict[str, Any]) -> dict[str, Any]:
    return phone.emit("audience", {"action": action}, namespace="/play", callback=True)


def truth(harness: Harness, code: str) -> dict[str, int]:
    """The open question's right answer as an action (read on the server, never from a client)."""
    question = state_of(harness, code).question
    return {"choice": question.correct} if question.kind == "choice" else {"answer": question.answer}


def wrong(harness: Harness, code: str) -> dict[str, int]:
    question = state_of(harness, code).question
    if question.kind == "choice":
        return {"choice": (question.correct + 1) % len(question.options)}
    return {"answer": 2 * question.answer + 100}  # outside the default margin of 10 % (QUIZ-S2)


def test_a_room_plays_a_whole_quiz_with_three_players_and_the_audience():
    harness = Harness()
    code, tv, phones = quiz_room(harness, spectators=("Sam",))
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert [s.name for s in room.session.slots] == ["Ana", "Ben", "Cai"]  # bots are off by default
    gained = {name: 0 for name in ("Ana", "Ben", "Cai")}
    for index in range(4):
        until(harness, code, is_open)
        view = last_state(tv, "/tv")["game"]["view"]
        assert view["index"] == index and view["total"] == 4 and view["phase"] == "question"
        assert view["question"]["prompt"] == PACK["questions"][index]["prompt"]
        harness.clock.advance(400)
        assert audience(phones["Sam"], truth(harness, code))["ok"]
        assert act(phones["Ana"], truth(harness, code))["ok"]
        assert last_state(tv, "/tv")["game"]["view"]["answered"] == [0]
        harness.clock.advance(400)
        assert act(phones["Cai"], truth(harness, code))["ok"]
        assert act(phones["Ben"], wrong(harness, code))["ok"]  # the last answer: revealed at once
        assert act(phones["Ben"], wrong(harness, code))["error"]["code"] == "not_your_turn"
        view = last_state(tv, "/tv")["game"]["view"]
        assert view["phase"] == "reveal"
        points = {r["slot"]: r["points"] for r in view["reveal"]["results"]}
        if index == 0:
            assert points == {0: 990, 1: 0, 2: 980}  # QUIZ-S1: 1000 x (1 - t / 40000)
        assert points[0] > points[2] > 0 and points[1] < points[2]
        for slot, name in enumerate(gained):
            gained[name] += points[slot]
        harness.clock.advance(300)  # the grace for answers in flight: the audience's answer is scored
        harness.service.tick()
        mine = last_state(phones["Ana"], "/play")["game"]["view"]
        assert mine["yours"] == next(iter(truth(harness, code).values()))
    until(harness, code, lambda r: r.phase == "finished")
    view = last_state(tv, "/tv")["game"]
    assert view["view"]["phase"] == "over"
    assert [p["score"] for p in view["view"]["players"]] == list(gained.values())
    assert view["outcome"]["ranking"] == [0, 2, 1] and view["outcome"]["places"] == [1, 2, 3]
    assert view["view"]["players"][0]["right"] == 4 and view["view"]["players"][0]["best_streak"] == 4
    board = harness.service.audience.standings(code)
    # the audience played along: right every time and alone, so the best points for each question
    assert len(board) == 1 and board[0]["points"] == 2 * (CHOICE_POINTS + SPEED_POINTS) + 2 * NUMERIC_POINTS
    assert last_state(phones["Sam"], "/play")["audience"]["you"]["points"] == board[0]["points"]


def test_a_second_game_plays_the_questions_the_room_has_not_seen_first():
    # QUIZ-S6, QUIZ-S7: seen per room, when asked
    harness = Harness()
    code, tv, _ = quiz_room(harness, players=("Ana",), count=2, order="shuffled")
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    first = [q.id for q in room.session.state.questions]
    assert room.seen_questions == {first[0]}  # the first question is on screen; the second is not seen yet
    until(harness, code, lambda r: r.phase == "finished", step_ms=500)
    assert room.seen_questions == set(first)
    assert control(tv, "lobby")["ok"] and control(tv, "start")["ok"]
    second = [q.id for q in room.session.state.questions]
    assert not set(second) & set(first) and len(second) == 2
    until(harness, code, lambda r: r.phase == "finished", step_ms=500)
    assert control(tv, "lobby")["ok"] and control(tv, "start")["ok"]  # all seen: they come round again
    assert {q.id for q in room.session.state.questions} <= set(first) | set(second)


def test_a_host_paced_quiz_waits_for_next_after_the_reveal():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), paced="host")
    assert control(tv, "start")["ok"]
    assert control(tv, "next")["error"]["code"] == "illegal_action"  # nothing to advance yet
    until(harness, code, is_open)
    for phone in phones.values():
        assert act(phone, truth(harness, code))["ok"]
    harness.clock.advance(120_000)  # nobody presses Next: the reveal stays
    harness.service.tick()
    view = last_state(tv, "/tv")
    assert view["game"]["view"]["phase"] == "reveal" and view["game"]["view"]["waiting_for_host"]
    assert view["game"]["deadline_ms"] is None
    assert control(tv, "skip")["error"]["code"] == "not_now"
    assert control(tv, "next")["ok"]
    assert last_state(tv, "/tv")["game"]["view"]["phase"] == "standings"
    harness.clock.advance(120_000)
    harness.service.tick()
    assert last_state(tv, "/tv")["game"]["view"]["phase"] == "standings"
    assert control(tv, "next")["ok"]
    view = last_state(tv, "/tv")["game"]["view"]
    assert view["phase"] == "question" and view["index"] == 1 and not view["waiting_for_host"]
    assert [e.kind for e in harness.service.store.events(code)].count("next") == 2
    assert control(tv, "pause")["ok"]
    assert control(tv, "next")["error"]["code"] == "paused"


def test_bots_fill_the_quiz_up_to_three_players_only_when_asked():
    harness = Harness()
    code, tv, _ = quiz_room(harness, players=("Ana",), bots=True, count=2)
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert [s.is_bot for s in room.session.slots] == [False, True, True]
    until(harness, code, lambda r: r.phase == "finished", step_ms=200)
    bot_moves = [e for e in harness.service.store.events(code) if e.kind == "action" and e.data.get("by") == "bot"]
    assert len(bot_moves) == 4  # two bots, two questions
    alone, alone_tv, _ = quiz_room(harness, players=("Bo",))
    assert control(alone_tv, "start")["ok"] and len(harness.service.room(alone).session.slots) == 1


def test_packs_without_questions_are_refused_at_the_start_naming_the_packs():
    harness = Harness()
    code, tv, _ = quiz_room(harness, players=("Ana",))
    room = harness.service.room(code)
    deleted = harness.app.test_client().delete(f"/api/packs/{tv.pack_id}", headers=tv.host_headers)
    assert deleted.get_json()["ok"]  # chosen, then gone: the room plays no other pack instead
    refused = control(tv, "start")
    assert refused["error"]["code"] == "invalid_settings" and refused["error"]["field"] == "packs"
    assert room.phase == "lobby"


def test_a_restart_in_the_middle_of_a_question_keeps_the_question_and_the_scores(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'quiz.db'}"
    harness = Harness(DATABASE_URL=url)
    code, tv, phones = quiz_room(harness, spectators=("Sam",), paced="host")
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    harness.clock.advance(500)
    for name in ("Ana", "Ben", "Cai"):
        assert act(phones[name], truth(harness, code))["ok"]
    assert control(tv, "next")["ok"] and control(tv, "next")["ok"]
    until(harness, code, is_open)
    harness.clock.advance(700)
    assert audience(phones["Sam"], truth(harness, code))["ok"]
    assert act(phones["Ana"], truth(harness, code))["ok"]  # Ben and Cai still to answer when the server stops
    harness.service.tick()
    room = harness.service.room(code)
    before = harness.service.view(room, None)["game"]["view"]
    assert before["index"] == 1 and before["answered"] == [0] and before["players"][0]["score"] > 0

    again = RoomService(Store(url), FakeClock(harness.clock.now))
    assert again.restore_all() == 1
    restored = again.room(code)
    assert restored.session.state == room.session.state
    assert again.view(restored, None)["game"]["view"] == before
    assert restored.seen_questions == room.seen_questions
    ben = next(s.id for s in restored.seats.values() if s.name == "Ben")
    cai = next(s.id for s in restored.seats.values() if s.name == "Cai")
    again.act(restored, ben, {"action": truth(harness, code)})
    again.act(restored, cai, {"action": {"answer": 1}})
    after = again.view(restored, None)["game"]["view"]
    assert after["phase"] == "reveal" and after["players"][0]["score"] > before["players"][0]["score"]
    assert again.audience.rooms[code].question.answers  # the audience's answer came back with the room


def test_a_host_skip_of_the_get_ready_opens_the_question_to_the_audience_too():
    # QUIZ-S1: the host may skip the "get ready"; the question then opens now, for the players and for the audience
    # alike (the audience kept the first opening time, and answered "not_yet" until then)
    harness = Harness()
    code, tv, phones = quiz_room(harness, spectators=("Sam",))
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert room.session.state.phase == "ready"
    harness.clock.advance(100)
    harness.service.tick()
    assert audience(phones["Sam"], truth(harness, code))["error"]["code"] == "not_yet"  # locked: "get ready"
    assert control(tv, "skip")["ok"]
    assert is_open(room)
    assert act(phones["Ana"], truth(harness, code))["ok"]
    assert audience(phones["Sam"], truth(harness, code))["ok"]
