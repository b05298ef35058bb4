"""Seats in a running Quiz (issue [17], docs/seats.md), at the level of the room service with a fake clock: a player
whose phone is gone stops scoring unless the host turned bots on, a seat a bot played is marked in the game's slots and
results (from the log, so a replay agrees), and a player who joins during a quiz plays the rest of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from host.room import RoomError
from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, control
from tests.test_quiz_room import act, is_open, quiz_room, truth, until


def bot_events(harness: Harness, code: str) -> list[Any]:
    return [e for e in harness.service.store.events(code) if e.kind == "action" and e.data.get("by") == "bot"]


def at_question(index: int) -> Any:
    return lambda room: is_open(room) and room.session.state.index == index


def closed(room: Any) -> bool:
    return room.phase == "finished" or room.session.state.phase != "question"


def score_of(view: dict[str, Any], slot: int) -> int:
    return next(p["score"] for p in view["view"]["players"] if p["slot"] == slot)


def test_a_player_whose_phone_is_gone_answers_nothing_more_when_bots_are_off():
    # QUIZ-S15 (finding 2): Cai's page closed for good at question 1; a bot used to answer for Cai, unmarked, and
    # Cai won. With bots off (the Quiz's default) the seat answers nothing and scores nothing from then on.
    harness = Harness()
    code, tv, phones = quiz_room(harness)
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    phones["Cai"].disconnect(namespace="/play")
    left = harness.service.clocks.game_now(room)
    for index in range(4):
        until(harness, code, at_question(index))
        harness.clock.advance(300)
        assert act(phones["Ana"], truth(harness, code))["ok"]
        assert act(phones["Ben"], truth(harness, code))["ok"]
        if index == 0:  # Cai's phone may be back any moment (the bot grace): the question waits, at most its time
            harness.service.tick()
            assert is_open(room)
            until(harness, code, closed)
            assert left + 15_000 <= room.game_ms < room.session.state.closes_ms
        else:  # everyone here answered, and Cai answers nothing: no need to wait for the time to run out
            harness.service.tick()
            assert closed(room)
        assert room.session.state.answer_of(2) is None
    until(harness, code, lambda r: r.phase == "finished")
    assert bot_events(harness, code) == []
    game = harness.service.view(harness.service.room(code), None)["game"]
    cai = game["slots"][2]
    assert cai["offline"] and not cai["away"] and not cai["bot"] and cai["bot_moves"] == 0  # no "(bot)" anywhere
    assert score_of(game, 2) == 0 and score_of(game, 0) > 0
    assert game["outcome"]["ranking"][-1] == 2 and game["outcome"]["bot"] == [False, False, False]


def test_with_bots_on_a_bot_answers_for_a_gone_player_and_the_seat_is_marked_in_the_slots_and_results():
    # QUIZ-S15: with the bots setting on a bot answers for the seat; the room knows from the logged moves which seats a
    # bot played (slots[].bot_moves, outcome.bot per ranked seat), and a replay of the log agrees
    harness = Harness()
    code, tv, phones = quiz_room(harness, bots=True)
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert [s.is_bot for s in room.session.slots] == [False, False, False]  # three people: no bot fills a seat
    phones["Cai"].disconnect(namespace="/play")
    for index in range(4):
        until(harness, code, at_question(index))
        harness.clock.advance(300)
        assert act(phones["Ana"], truth(harness, code))["ok"]
        assert act(phones["Ben"], truth(harness, code))["ok"]
        until(harness, code, closed)
    until(harness, code, lambda r: r.phase == "finished")
    moves = bot_events(harness, code)
    assert moves and {e.data["slot"] for e in moves} == {2}
    game = harness.service.view(room, None)["game"]
    cai = game["slots"][2]
    assert cai["offline"] and cai["away"] and cai["bot_moves"] == len(moves)
    assert [s["bot_moves"] for s in game["slots"][:2]] == [0, 0]
    outcome = game["outcome"]
    assert [slot for slot, flag in zip(outcome["ranking"], outcome["bot"], strict=True) if flag] == [2]
    replayed = RoomService(harness.service.store, harness.clock)
    again = replayed.room(code).game_view(None, 0)
    assert again is not None
    assert [s["bot_moves"] for s in again["slots"]] == [s["bot_moves"] for s in game["slots"]]
    assert again["outcome"]["bot"] == outcome["bot"]


def test_bots_that_fill_the_quiz_are_marked_in_the_results():
    # QUIZ-S15: a bot's own seat is a bot's in the results too
    harness = Harness()
    code, tv, _ = quiz_room(harness, players=("Ana",), bots=True, count=1)
    assert control(tv, "start")["ok"]
    until(harness, code, lambda r: r.phase == "finished", step_ms=200)
    game = harness.service.view(harness.service.room(code), None)["game"]
    marks = dict(zip(game["outcome"]["ranking"], game["outcome"]["bot"], strict=True))
    assert marks == {0: False, 1: True, 2: True}
    assert game["slots"][1]["bot"] and game["slots"][1]["bot_moves"] == 1


def test_a_player_who_joins_at_question_3_plays_the_rest_and_is_in_the_final_standings():
    # QUIZ-S14: the latecomer gets a game seat through a logged event, may answer the open question, scores nothing
    # for the questions before (not counted as answered), and is ranked with everyone at the end
    harness = Harness()
    code, tv, phones = quiz_room(harness)
    assert control(tv, "start")["ok"]
    for index in range(2):
        until(harness, code, at_question(index))
        for name in ("Ana", "Ben", "Cai"):
            assert act(phones[name], truth(harness, code))["ok"]
    until(harness, code, at_question(2))
    harness.clock.advance(500)
    dan, joined = harness.join(code, "Dan")
    assert joined["state"]["game"]["you"] == 3  # the phone shows the quiz as a player, at once
    room = harness.service.room(code)
    assert [s.name for s in room.session.slots] == ["Ana", "Ben", "Cai", "Dan"]
    assert [e.kind for e in harness.service.store.events(code)][-2:] == ["join", "latecomer"]
    assert act(dan, truth(harness, code))["ok"]  # the question open when they joined
    for name in ("Ana", "Ben", "Cai"):
        assert act(phones[name], truth(harness, code))["ok"]
    until(harness, code, at_question(3))
    phones["Dan"] = dan
    for name in ("Ana", "Ben", "Cai", "Dan"):
        assert act(phones[name], truth(harness, code))["ok"]
    until(harness, code, lambda r: r.phase == "finished")
    game = harness.service.view(room, None)["game"]
    players = {p["name"]: p for p in game["view"]["players"]}
    assert players["Dan"]["answered"] == 2 and players["Dan"]["right"] == 2 and players["Dan"]["score"] > 0
    assert players["Dan"]["joined"] == 2 and players["Ana"]["joined"] == 0
    assert players["Dan"]["score"] < players["Ana"]["score"]  # two questions missed score nothing
    assert sorted(game["outcome"]["ranking"]) == [0, 1, 2, 3] and game["outcome"]["bot"] == [False] * 4
    assert game["slots"][3]["seat"] == room.seat_named("Dan").id and not game["slots"][3]["bot"]


def test_a_restart_after_a_latecomer_joined_keeps_their_seat(tmp_path: Path):
    # QUIZ-S14: the latecomer's seat is logged, so a restart (a replay of the log) seats them again
    url = f"sqlite:///{tmp_path / 'late.db'}"
    harness = Harness(DATABASE_URL=url)
    code, tv, phones = quiz_room(harness, paced="host")
    assert control(tv, "start")["ok"]
    until(harness, code, at_question(0))
    dan, joined = harness.join(code, "Dan")
    assert act(dan, truth(harness, code))["ok"]
    assert act(phones["Ana"], truth(harness, code))["ok"]
    room = harness.service.room(code)
    before = harness.service.view(room, None)["game"]["view"]
    again = RoomService(Store(url), FakeClock(harness.clock.now))
    assert again.restore_all() == 1
    restored = again.room(code)
    assert [(s.name, s.seat_id) for s in restored.session.slots] == [(s.name, s.seat_id) for s in room.session.slots]
    assert restored.session.state == room.session.state
    assert again.view(restored, None)["game"]["view"] == before
    dan_id = joined["seat"]
    for name in ("Ben", "Cai"):
        seat = restored.seat_named(name)
        assert seat is not None
        again.act(restored, seat.id, {"action": truth(harness, code)})
    after = again.view(restored, dan_id)["game"]
    assert after["you"] == 3 and after["view"]["phase"] == "reveal"
    assert next(p for p in after["view"]["players"] if p["slot"] == 3)["score"] > 0


def test_latecomers_watch_games_that_take_none_and_a_full_quiz():
    # QUIZ-S14: only a game that takes latecomers seats them (the Short Campaign does not: they play along with the
    # audience as before), and never beyond the game's max_players (12 in the Quiz)
    harness = Harness()
    code, tv = harness.host_room()
    for name in ("Ana", "Ben", "Cai"):
        harness.join(code, name)
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "start")["ok"]
    _, joined = harness.join(code, "Dan")
    assert joined["state"]["game"]["you"] is None
    assert "latecomer" not in [e.kind for e in harness.service.store.events(code)]
    room = harness.service.room(code)
    with pytest.raises(RoomError) as refused:
        harness.service.submit(room, "latecomer", {"seat": joined["seat"]})
    assert refused.value.code == "no_latecomers"

    names = tuple(f"P{i}" for i in range(12))
    full, full_tv, _ = quiz_room(harness, players=names)
    assert control(full_tv, "start")["ok"]
    assert control(full_tv, "kick", seat=harness.service.room(full).seat_named("P11").id)["ok"]
    _, late = harness.join(full, "Zoe")  # the room has a free place again, the game none: Zoe watches
    assert late["state"]["game"]["you"] is None and len(harness.service.room(full).session.slots) == 12


def test_a_latecomer_event_with_bad_data_is_refused_and_changes_nothing():
    # every field is checked: a seat that is no seat, a spectator, a player already in the game
    harness = Harness()
    code, tv, _ = quiz_room(harness, players=("Ana",), spectators=("Sam",))
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    sam = room.seat_named("Sam").id
    ana = room.seat_named("Ana").id
    for data, expected in (({"seat": "1"}, "unknown_seat"), ({"seat": 99}, "unknown_seat"), ({}, "unknown_seat"),
                           ({"seat": True}, "unknown_seat"), ({"seat": sam}, "not_a_player"),
                           ({"seat": ana}, "already_playing")):
        seq = room.seq
        with pytest.raises(RoomError) as refused:
            harness.service.submit(room, "latecomer", data)
        assert refused.value.code == expected, data
        assert room.seq == seq and len(room.session.slots) == 1
    _, joined = harness.join(code, "Eve", "spectator")  # a spectator who joins watches
    assert joined["state"]["game"]["you"] is None and len(room.session.slots) == 1


def test_a_quiz_whose_phones_are_all_gone_runs_its_timers_out():
    # QUIZ-S15: a question closes early only when everyone with a phone here answered; with no phone here at all (a
    # router restarting) it runs its time as before, and no bot answers
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    for phone in phones.values():
        phone.disconnect(namespace="/play")
    until(harness, code, at_question(0))
    deadline = room.session.state.closes_ms
    until(harness, code, closed)
    assert room.game_ms >= deadline and bot_events(harness, code) == []
