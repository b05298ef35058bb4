"""A Short Campaign question's preview, or a Quiz question's "get ready", that ends at its own time (engine/core.py ``Game.foreseen``): every screen
already counts down to that instant and unlocks the question by itself (host/static/games/campaign.js ``current``),
so the room sends no state for it and the game's step stays the one the phones saw. Before, the unlock was a new
step sent to every screen: a phone whose buttons unlocked by the clock, tapped before that state reached it, was
refused ``stale`` ("the game has moved on"), and the party benchmark spent a sixth of its messages on it.

A host's *Skip* during the preview opens the question earlier than shown: that is still a new step, sent to all."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlmodel import Session, select

from host.service import FakeClock, RoomService
from host.store import EventRecord, Store
from tests.conftest import Harness, control
from tests.test_quiz_room import act, quiz_room, truth
from tests.test_room_service import errcode, make_service

TIMERS = {"bots": False, "preview_seconds": 3, "numeric_seconds": 10, "choice_seconds": 10, "reveal_seconds": 3}


def campaign(service: RoomService, players: int = 3) -> tuple[object, list[int], list[str]]:
    """A Short Campaign started with a preview before each question; the room, its seats, and a list that records
    each room the service announced (``notify``)."""
    code, _ = service.create_room()
    room = service.room(code)
    seats = [service.join(room, f"P{i}", "player")[0] for i in range(players)]
    service.host_event(room, "select_game", {"game": "campaign"})
    service.host_event(room, "settings", {"game": "campaign", "settings": TIMERS})
    service.host_event(room, "start", {})
    told: list[str] = []
    service.notify = told.append
    return room, seats, told


def opens_in(service: RoomService, room) -> int:
    view = room.session.game.view(room.session.state, None)
    assert view["phase"] == "preview", view["phase"]
    return view["question"]["opens_ms"] - service.clocks.game_now(room)


def test_a_phone_that_unlocked_by_the_clock_answers_with_the_step_it_saw():  # CAMP-D2
    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats, told = campaign(service)
    seen = service.view(room, seats[0])["game"]["step"]  # the preview, as the phone got it
    clock.advance(opens_in(service, room) + 40)  # its buttons unlocked 40 ms ago; the ticker has not run yet
    service.act(room, seats[0], {"action": {"answer": "12"}, "step": seen})  # was refused "stale"
    assert room.session.state.phase == "answer" and room.session.state.asking.answers[0].seat == 0
    assert room.session.state.asking.answers[0].ms == 40
    assert told == [room.code]  # the answer is announced; the unlock it caught up with is not


def test_the_unlock_on_time_sends_no_state_and_keeps_the_step():  # CAMP-D2
    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats, told = campaign(service)
    step, version = room.session.game.step(room.session.state), room.version
    clock.advance(opens_in(service, room))
    service.tick()
    assert room.session.state.phase == "answer"
    assert room.session.game.step(room.session.state) == step and room.version == version + 1
    assert told == []
    service.act(room, seats[1], {"action": {"answer": "7"}, "step": step})
    assert told == [room.code]


def test_a_skipped_preview_is_a_new_step_sent_to_every_screen():  # CAMP-D2
    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats, told = campaign(service)
    step = room.session.game.step(room.session.state)
    clock.advance(1000)
    service.skip(room)  # the host opens it two seconds early
    assert room.session.state.phase == "answer" and told == [room.code]
    assert room.session.game.step(room.session.state) == step + 1
    assert errcode(service.act, room, seats[0], {"action": {"answer": "3"}, "step": step}) == "stale"


def test_a_log_written_when_the_unlock_was_a_step_of_its_own_still_replays():
    """Rooms logged before this change carry, in each answer after an unlock, the step the unlock made then (one
    more per question). A restart must rebuild them all the same: a replayed action was checked when it came."""
    store = Store("sqlite://")
    clock = FakeClock()
    first = make_service(store, clock)
    room, seats, _ = campaign(first)
    for round_ in range(2):  # two questions answered, each after its preview ended on time
        clock.advance(opens_in(first, room))
        first.tick()
        step = room.session.game.step(room.session.state)
        for seat in seats:
            first.act(room, seat, {"action": {"answer": str(10 + seat)}, "step": step})
        while room.session.state.phase != "preview":  # the reveal, the picks, the next question
            state = room.session.state
            if state.phase == "pick":
                mover = room.session.slots[state.picks[0]].seat_id
                first.act(room, mover, {"action": {"pick": first.view(room, mover)["game"]["view"]["options"][0]}})
            else:
                clock.advance(room.session.game.deadline(state) - first.clocks.game_now(room))
                first.tick()
    with Session(store.engine) as session:  # as the old rule logged them: each unlock had moved the step on
        answers = [e for e in session.exec(select(EventRecord).where(EventRecord.room_code == room.code))
                   if e.kind == "action" and "answer" in json.loads(e.data)["action"]]
        assert len(answers) == 6
        for i, event in enumerate(answers):
            data = json.loads(event.data)
            data["step"] += 1 + i // 3
            event.data = json.dumps(data)
            session.add(event)
        session.commit()
    second = make_service(store, clock)
    assert second.restore_all() == 1
    again = second.room(room.code)
    assert again.seq == room.seq and again.session.state == room.session.state


def quiz_told(harness: Harness) -> tuple[str, object, dict[str, object], list[str]]:
    """A Quiz started in its first "get ready": (code, tv, phones, the rooms the service announced from now on)."""
    code, tv, phones = quiz_room(harness)
    assert control(tv, "start")["ok"]
    assert harness.service.room(code).session.state.phase == "ready"
    told: list[str] = []
    harness.service.notify = told.append
    return code, tv, phones, told


def test_a_quiz_get_ready_that_ends_on_time_sends_no_state():  # QUIZ-S6
    """The Quiz's pages already open the question by the clock (quiz.js ``locked``) and its step never moved at the
    unlock; the unlock was still sent to every screen of the room."""
    harness = Harness()
    code, _tv, phones, told = quiz_told(harness)
    room = harness.service.room(code)
    step, version = room.session.game.step(room.session.state), room.version
    harness.clock.advance(room.session.state.opens_ms - harness.service.clocks.game_now(room))
    harness.service.tick()
    assert room.session.state.phase == "question" and room.version == version + 1
    assert told == [], "the unlock on time was sent"
    assert act(phones["Ana"], truth(harness, code))["ok"]  # tapped as the phone's own countdown unlocked it
    assert told == [code] and room.session.game.step(room.session.state) == step


def test_a_quiz_get_ready_the_host_skips_is_sent_to_every_screen():  # QUIZ-S6
    harness = Harness()
    code, tv, _phones, told = quiz_told(harness)
    harness.clock.advance(200)
    assert control(tv, "skip")["ok"]  # the host opens it before the time every screen showed
    assert harness.service.room(code).session.state.phase == "question" and told == [code]


def race(service: RoomService, decided: Callable[[str, dict], bool], first: Callable[[], object]) -> list[str]:
    """Let ``first`` (a phone's event) take the room's lock between the ticker's look and its submit of the first event
    ``decided`` picks (by kind and data): the ticker looks without the lock. Returns the kinds raced (one at most);
    ``del service.submit`` ends it."""
    submit, raced = service.submit, []

    def racing(room, kind, data, *args, **kwargs):
        if decided(kind, data) and not raced:
            raced.append(kind)
            first()
        return submit(room, kind, data, *args, **kwargs)

    service.submit = racing
    return raced


def test_a_timeout_the_ticker_saw_due_is_not_fired_again_after_a_phone_caught_up_with_it():  # CAMP-D2, CAMP-D3
    """The ticker looks at a room without its lock and then asks for it to fire what it saw due; a player's answer
    that held the lock meanwhile had already caught up with the same unlock (``Clocks.catch_up``). The ticker's
    timeout then fell on the open question and closed it, 300 ms after it opened, as a host's Skip would: every
    answer after it was refused (the big-room benchmark on two workers, under load: the players ``not_your_turn``,
    the audience ``too_late``)."""
    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats, _told = campaign(service)
    seen = service.view(room, seats[0])["game"]["step"]
    clock.advance(opens_in(service, room) + 5)
    raced = race(service, lambda kind, data: kind == "timeout",  # the ticker's, decided: a phone's answer comes first
                 lambda: service.act(room, seats[0], {"action": {"answer": "12"}, "step": seen}))
    service.tick()
    assert raced, "the ticker fired nothing"
    state = room.session.state
    assert state.phase == "answer", state.phase  # the question stays open for its whole time
    assert [a.seat for a in state.asking.answers] == [0]
    del service.submit  # (the race's wrapper)
    service.act(room, seats[1], {"action": {"answer": "7"}, "step": seen})  # was refused not_your_turn
    assert [a.seat for a in room.session.state.asking.answers] == [0, 1]


def test_a_bot_move_the_ticker_found_due_waits_for_its_next_look_if_an_answer_came_meanwhile():  # CAMP-D3
    """The same race for a bot's move: decided on the state the ticker saw, it goes in only if nothing came into the
    room's log since (its plan is made again on the state after)."""
    clock = FakeClock()
    service = make_service(clock=clock)
    code, _ = service.create_room()
    room = service.room(code)
    seats = [service.join(room, f"P{i}", "player")[0] for i in range(2)]  # and a bot
    service.host_event(room, "select_game", {"game": "campaign"})
    service.host_event(room, "settings", {"game": "campaign", "settings": {**TIMERS, "bots": True,
                                                                            "preview_seconds": 0}})
    service.host_event(room, "start", {})
    assert [s.is_bot for s in room.session.slots] == [False, False, True]
    step = room.session.game.step(room.session.state)
    raced = race(service, lambda kind, data: data.get("by") == "bot",  # the bot's move, decided: a phone's answer
                 lambda: service.act(room, seats[0], {"action": {"answer": "12"}, "step": step}))  # comes first
    for _ in range(100):
        clock.advance(100)
        service.tick()
        if raced:
            break
    assert raced, "the bot never moved"
    assert [a.seat for a in room.session.state.asking.answers] == [0]  # the bot's stale move did not go in
    del service.submit
    for _ in range(100):  # it looks again and answers
        clock.advance(100)
        service.tick()
        if len(room.session.state.asking.answers) == 2:
            break
    assert sorted(a.seat for a in room.session.state.asking.answers) == [0, 2]
