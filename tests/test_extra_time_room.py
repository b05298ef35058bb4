"""Extended time over sockets (docs/decisions.md, "Extended time"; QUIZ-X1): the host's ``extra_time`` control is
validated, logged, replayed after a restart, and shown to the host's screen only."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session, select

from host.service import FakeClock, RoomService
from host.store import EventRecord, Store
from tests.conftest import Harness, control, last_state
from tests.test_quiz_room import act, is_open, quiz_room, truth, until


def seat_of(harness: Harness, code: str, name: str) -> int:
    return next(s.id for s in harness.service.room(code).seats.values() if s.name == name)


def test_the_control_is_refused_with_the_field_named_and_nothing_changes():
    # QUIZ-X1: factor 1, 1.5 or 2; a seat of the room; only the host's screen
    harness = Harness()
    code, tv, _ = quiz_room(harness)
    ana = seat_of(harness, code, "Ana")
    seq = harness.service.room(code).seq
    for bad in (3, 0.5, "2", True, None, 1.25):
        answer = control(tv, "extra_time", seat=ana, factor=bad)
        assert not answer["ok"] and answer["error"]["field"] == "factor", answer
    for seat in (999, "1", None, True):
        answer = control(tv, "extra_time", seat=seat, factor=2)
        assert not answer["ok"] and answer["error"]["field"] == "seat", answer
    watcher = harness.tv()
    assert watcher.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    assert control(watcher, "extra_time", seat=ana, factor=2)["error"]["code"] == "not_host"
    room = harness.service.room(code)
    assert room.seq == seq and room.time_factors == {}


def test_only_the_hosts_screen_is_told_and_the_extended_phone_alone_sees_its_longer_window(tmp_path: Path):
    # QUIZ-X1: logged; replayed after a restart; the phones, the spectators and a watching TV never see it
    url = f"sqlite:///{tmp_path / 'x.db'}"
    harness = Harness(DATABASE_URL=url)
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), spectators=("Sam",), seconds=10)
    ana, ben = seat_of(harness, code, "Ana"), seat_of(harness, code, "Ben")
    watcher = harness.tv()
    assert watcher.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    assert control(tv, "extra_time", seat=ana, factor=2)["ok"]
    assert control(tv, "extra_time", seat=ben, factor=1.5)["ok"]
    assert control(tv, "extra_time", seat=ben, factor=1)["ok"]  # back to x1
    assert last_state(tv, "/tv")["extra_time"] == {str(ana): 2.0}
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    service = harness.service
    room = service.room(code)
    opens = room.session.state.opens_ms
    assert service.view(room, ana)["game"]["deadline_ms"] == opens + 20_000
    assert service.view(room, ana)["game"]["view"]["question"]["closes_ms"] == opens + 20_000
    for seat in (None, ben, seat_of(harness, code, "Sam")):
        view = service.view(room, seat)
        assert "extra_time" not in view and view["game"]["deadline_ms"] == opens + 10_000
        assert str(opens + 20_000) not in json.dumps(view)
    for client, namespace in ((phones["Ben"], "/play"), (phones["Sam"], "/play"), (watcher, "/tv")):
        for message in client.get_received(namespace):
            assert "extra_time" not in json.dumps(message["args"]), (namespace, message["name"])
    with Session(service.store.engine) as session:
        logged = [json.loads(e.data) if isinstance(e.data, str) else e.data
                  for e in session.exec(select(EventRecord).where(EventRecord.kind == "extra_time")).all()]
    assert [(e["seat"], e["factor"]) for e in logged] == [(ana, 2), (ben, 1.5), (ben, 1)]

    harness.clock.advance(10_400)  # the standard window and its grace passed: Ben is too late, Ana is not
    service.tick()
    assert room.session.state.phase == "question"
    state_before = room.session.state
    refused = act(phones["Ben"], truth(harness, code))  # the room: Ben may no longer act (the engine: TooLate)
    assert not refused["ok"] and refused["error"]["code"] == "not_your_turn"
    assert room.session.state == state_before and service.view(room, ben)["game"]["view"]["time_up"]

    again = RoomService(Store(url), FakeClock(harness.clock.now))
    assert again.restore_all() == 1
    restored = again.room(code)
    assert restored.time_factors == {ana: 2.0} and restored.session.state == state_before
    again.act(restored, ana, {"action": truth(harness, code)})
    assert restored.session.state.phase == "reveal"
    result = {r["slot"]: r for r in restored.session.state.reveal["results"]}
    assert result[0]["right"] and result[0]["ms"] <= 10_000  # scaled back: never more than the standard T


def test_a_factor_given_during_a_game_reaches_the_players_next_question():
    # QUIZ-X1: allowed during a game, from the seat's next window
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), seconds=10, paced="host")
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    ana = seat_of(harness, code, "Ana")
    assert control(tv, "extra_time", seat=ana, factor=1.5)["ok"]
    room = harness.service.room(code)
    assert room.session.state.factors == (1.5, 1.0) and room.session.state.window_factors == (1.0, 1.0)
    for name in ("Ana", "Ben"):
        assert act(phones[name], truth(harness, code))["ok"]
    assert control(tv, "next")["ok"] and control(tv, "next")["ok"]
    until(harness, code, is_open)
    opens = room.session.state.opens_ms
    assert harness.service.view(room, ana)["game"]["deadline_ms"] == opens + 15_000

