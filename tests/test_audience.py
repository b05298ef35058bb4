"""Audience play-along over sockets (issue [8]): spectators answer every Short Campaign question, measured with
the players' fair timing, scored per question and on a running leaderboard, never changing the game, never told
an answer before the reveal, and all of it back after a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import registry
from engine.core import Game, Timing
from host.audience import CHOICE_POINTS, NUMERIC_POINTS, SPEED_POINTS, AudienceAnswer, Question, score_question
from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, control, last_state


def campaign_room(harness: Harness, spectators: tuple[str, ...] = ("Sam", "Tea")) -> tuple[str, Any, dict[str, Any]]:
    """A Short Campaign of three bots watched by the TV and the given spectators: (code, tv, {name: phone})."""
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name, "spectator")[0] for name in spectators}
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    assert control(tv, "start")["ok"]
    return code, tv, phones


def asked(harness: Harness, code: str) -> dict[str, Any] | None:
    room = harness.service.room(code)
    return room.session.game.audience_question(room.session.state)


def until(harness: Harness, code: str, ready: Any, limit: int = 20_000) -> dict[str, Any]:
    """Let the game run (bots playing) in 50 ms steps until ``ready(question)``; returns that question."""
    for _ in range(limit):
        question = asked(harness, code)
        if question is not None and ready(question):
            return question
        harness.clock.advance(50)
        harness.service.tick()
    raise AssertionError("the game never got there")


def open_question(harness: Harness, code: str, kind: str | None = None, after: int | None = None) -> dict[str, Any]:
    return until(harness, code, lambda q: q["open"] and (kind is None or q["kind"] == kind)
                 and (after is None or q["key"] != after))


def revealed(harness: Harness, code: str, key: int) -> dict[str, Any]:
    """Run on until the question is revealed and, the grace for answers in flight over, the audience scored."""
    audience = harness.service.audience.rooms[code]
    return until(harness, code, lambda q: audience.question.key != key or audience.question.scored)


def send(phone: Any, action: Any, **extra: Any) -> dict[str, Any]:
    return phone.emit("audience", {"action": action, **extra}, namespace="/play", callback=True)


def errcode(answer: dict[str, Any]) -> str | None:
    return None if answer["ok"] else answer["error"]["code"]


def step_of(phone: Any) -> int:
    return last_state(phone, "/play")["game"]["step"]


def correct_of(harness: Harness, code: str) -> int:
    """The open question's answer, read on the server (the test's side, never a client's)."""
    state = harness.service.room(code).session.state
    asking = state.asking
    return state.numeric[asking.question].answer if asking.kind == "numeric" else state.choice[asking.question].correct


def test_spectators_are_ranked_by_distance_then_fair_time_and_scored():
    harness = Harness(TIMER_SCALE=0.5)
    code, tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    question = open_question(harness, code, "numeric")
    truth = correct_of(harness, code)
    harness.clock.advance(600)  # the server saw 600 ms since the unlock; honest claims near that are taken as given
    assert send(phones["Sam"], {"answer": truth + 7}, ms=520, step=step_of(phones["Sam"])) == {"ok": True, "ms": 520}
    assert send(phones["Tea"], {"answer": truth + 7}, ms=450)["ok"]  # as close as Sam, 70 ms quicker: ahead
    assert send(phones["Uma"], {"answer": str(truth)}, ms=700)["ok"]  # exact (typed as text): first, however slow
    revealed(harness, code, question["key"])
    board = harness.service.audience.standings(code)
    names = {s.id: s.name for s in harness.service.room(code).seats.values()}
    assert [names[s["seat"]] for s in board] == ["Uma", "Tea", "Sam"]
    assert [s["points"] for s in board] == [NUMERIC_POINTS, NUMERIC_POINTS * 2 // 3, NUMERIC_POINTS // 3]
    mine = last_state(phones["Sam"], "/play")["audience"]["you"]
    assert mine["result"] == {"value": truth + 7, "ms": 520, "rank": 3, "points": NUMERIC_POINTS // 3,
                              "right": False, "distance": 7}
    assert (mine["place"], mine["players"], mine["of"]) == (3, 3, 3)
    top = last_state(tv, "/tv")["audience"]["top"]
    assert [p["name"] for p in top] == ["Uma", "Tea", "Sam"] and top[0]["gained"] == NUMERIC_POINTS


def test_multiple_choice_right_answers_first_then_the_quickest():
    harness = Harness(TIMER_SCALE=0.5)
    code, _tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    question = open_question(harness, code, "choice")
    truth = correct_of(harness, code)
    wrong = (truth + 1) % question["options"]
    harness.clock.advance(700)
    assert send(phones["Sam"], {"choice": wrong}, ms=300)["ok"]  # quickest, but wrong: no points
    assert send(phones["Tea"], {"choice": truth}, ms=650)["ok"]
    assert send(phones["Uma"], {"choice": truth}, ms=600)["ok"]
    revealed(harness, code, question["key"])
    results = harness.service.audience.rooms[code].question.results
    by_name = {harness.service.room(code).seats[s].name: r for s, r in results.items()}
    assert (by_name["Uma"].rank, by_name["Tea"].rank, by_name["Sam"].rank) == (1, 2, 3)
    assert by_name["Uma"].points == CHOICE_POINTS + SPEED_POINTS
    assert by_name["Tea"].points == CHOICE_POINTS + SPEED_POINTS // 2
    assert by_name["Sam"].points == 0 and not by_name["Sam"].right


def test_a_claim_faster_than_the_network_allows_gains_nothing():
    harness = Harness(TIMER_SCALE=0.5)
    code, _, phones = campaign_room(harness, ("Liar", "Honest"))
    question = open_question(harness, code, "numeric")
    truth = correct_of(harness, code)
    harness.clock.advance(900)
    liar = send(phones["Liar"], {"answer": truth}, ms=5)  # claims 5 ms, the server saw 900
    honest = send(phones["Honest"], {"answer": truth}, ms=880)
    assert liar["ms"] > honest["ms"] == 880
    revealed(harness, code, question["key"])
    names = {s.id: s.name for s in harness.service.room(code).seats.values()}
    assert [names[s["seat"]] for s in harness.service.audience.standings(code)] == ["Honest", "Liar"]


def test_a_player_with_a_game_seat_does_not_answer_with_the_audience():
    harness = Harness(TIMER_SCALE=0.5)
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    assert control(tv, "start")["ok"]
    open_question(harness, code, "numeric")
    assert errcode(send(ana, {"answer": 5})) == "not_audience"


def test_only_a_game_that_declares_audience_play_along_is_followed():
    """``Game.audience_play_along`` (engine/core.py) is off by default and on for the Campaign and the Quiz; the room
    follows and scores the questions of those games only. A card game's spectators get no audience part and their
    answers are refused as no question, before the game is asked to read them."""
    assert Game.audience_play_along is False
    assert {g: registry.get(g).audience_play_along for g in ("campaign", "quiz", "hierarchy", "avignon", "crown")} \
        == {"campaign": True, "quiz": True, "hierarchy": False, "avignon": False, "crown": False}
    harness = Harness(TIMER_SCALE=0.5)
    code, tv = harness.host_room()
    sam, _ = harness.join(code, "Sam", "spectator")
    assert control(tv, "select_game", game="hierarchy")["ok"]
    assert control(tv, "settings", game="hierarchy", settings={"bots": True})["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert room.session.game.audience_question(room.session.state) is None  # the declared default: no question
    for _ in range(100):  # the bots play a few cards
        harness.clock.advance(50)
        harness.service.tick()
    assert room.session.state.plays > 0
    assert errcode(send(sam, {"answer": 5})) == "no_question"  # not "invalid": the game never parsed it
    assert code not in harness.service.audience.rooms
    assert last_state(tv, "/tv")["audience"] is None and last_state(sam, "/play")["audience"] is None
    # the Campaign, which plays along: followed from its first question on
    other, other_tv, _ = campaign_room(harness, ("Tea",))
    open_question(harness, other)
    harness.service.tick()
    assert other in harness.service.audience.rooms and last_state(other_tv, "/tv")["audience"] is not None


def test_refused_when_closed_twice_malformed_or_not_a_spectator():
    harness = Harness(TIMER_SCALE=0.5)
    code, _tv, phones = campaign_room(harness, ("Sam",))
    player, _ = harness.join(code, "Late player")  # joined after the start: a player seat with no game seat
    sam = phones["Sam"]
    question = until(harness, code, lambda q: not q["open"] and not q["revealed"])  # the preview: still locked
    assert errcode(send(sam, {"answer": 5})) == "not_yet"
    question = open_question(harness, code, "numeric")
    harness.clock.advance(300)
    assert errcode(send(sam, {"choice": 1})) == "invalid"  # a number is asked
    assert errcode(send(sam, {"answer": "twelve"})) == "invalid"
    assert errcode(send(sam, {"answer": -3})) == "invalid"
    assert errcode(send(sam, {"answer": 5}, ms="fast")) == "invalid"
    assert errcode(send(sam, {"answer": 5}, step="one")) == "invalid"
    assert errcode(send(sam, {"answer": 5}, step=step_of(sam) + 5)) == "stale"
    assert errcode(sam.emit("audience", ["not", "an", "object"], namespace="/play", callback=True)) == "invalid"
    assert errcode(sam.emit("audience", {"ms": 100}, namespace="/play", callback=True)) == "invalid"
    assert send(player, {"answer": 5}, ms=250)["ok"]  # a latecomer without a game seat plays along ([10] #2)
    assert send(sam, {"answer": 5}, ms=250)["ok"]
    assert errcode(send(sam, {"answer": 6}, ms=250)) == "already_answered"
    revealed(harness, code, question["key"])
    harness.clock.advance(1000)
    assert errcode(send(sam, {"answer": 7})) in ("too_late", "no_question")
    stranger = harness.phone()
    assert errcode(stranger.emit("audience", {"action": {"answer": 1}}, namespace="/play", callback=True)) == "not_joined"


def test_an_answer_in_flight_when_the_players_close_the_question_counts_if_tapped_before_the_close():
    harness = Harness(TIMER_SCALE=0.5)
    code, tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    question = open_question(harness, code, "numeric")
    truth = correct_of(harness, code)
    room = harness.service.room(code)
    for _ in range(2000):  # the bots answer in time, and the last one's answer closes the question at once
        if asked(harness, code)["revealed"]:
            break
        harness.clock.advance(10)
        harness.service.tick()
    closed_after = harness.service.clocks.game_now(room) - question["opens_ms"]
    assert question["opens_ms"] + closed_after < question["closes_ms"]  # closed early, by the players
    assert last_state(tv, "/tv")["audience"]["revealed"] is False  # not scored yet: answers may be in flight
    harness.clock.advance(100)  # within the grace
    assert send(phones["Sam"], {"answer": truth}, ms=closed_after - 150)["ok"]  # tapped before the close
    assert errcode(send(phones["Tea"], {"answer": truth}, ms=closed_after + 80)) == "too_late"  # after it
    harness.clock.advance(200)  # the grace is over
    assert errcode(send(phones["Uma"], {"answer": truth}, ms=closed_after - 150)) == "too_late"
    harness.service.tick()
    state = last_state(tv, "/tv")
    assert state["audience"]["revealed"] is True and [p["name"] for p in state["audience"]["top"]] == ["Sam"]


def test_the_game_and_its_players_are_not_affected():
    plain, watched = Harness(TIMER_SCALE=0.5), Harness(TIMER_SCALE=0.5)
    code_a, _, _ = campaign_room(plain, ("Sam", "Tea"))  # the same people, who never answer here
    code_b, _, phones = campaign_room(watched, ("Sam", "Tea"))
    for harness, code in ((plain, code_a), (watched, code_b)):
        for _ in range(4):  # a few questions, the spectators of the watched room answering each of them
            question = open_question(harness, code)
            harness.clock.advance(350)
            if harness is watched:
                action = {"answer": 10} if question["kind"] == "numeric" else {"choice": 0}
                for phone in phones.values():
                    assert send(phone, action, ms=300)["ok"]
            revealed(harness, code, question["key"])
    room_a, room_b = plain.service.room(code_a), watched.service.room(code_b)
    assert len(watched.service.audience.standings(code_b)) == 2
    assert room_b.seq == room_a.seq
    state_a, state_b = room_a.session.state, room_b.session.state
    assert state_a.history == state_b.history and state_a.score == state_b.score
    kinds = [e.kind for e in watched.service.store.events(code_b)]
    assert "audience" not in kinds and kinds == [e.kind for e in plain.service.store.events(code_a)]
    assert all(a["seat"] in (0, 1, 2) for h in state_b.history if h["kind"] == "question" for a in h["answers"])


def test_no_phone_is_told_an_answer_before_the_reveal():
    harness = Harness(TIMER_SCALE=0.5)
    code, tv, phones = campaign_room(harness, ("Sam", "Tea"))
    checked = 0
    for _ in range(3):
        question = open_question(harness, code)
        truth = correct_of(harness, code)
        harness.clock.advance(300)
        action = {"answer": 4242} if question["kind"] == "numeric" else {"choice": 1}
        assert send(phones["Sam"], action, ms=250)["ok"]
        harness.service.notify(code)  # everyone gets a state while Sam's answer is in
        for name, client, ns in (("Sam", phones["Sam"], "/play"), ("Tea", phones["Tea"], "/play"), ("tv", tv, "/tv")):
            for message in client.get_received(ns):
                if message["name"] != "state" or not message["args"][0].get("game"):
                    continue
                state = message["args"][0]
                q = state["game"]["view"]["question"]
                if not q or q["revealed"]:
                    continue
                checked += 1
                assert "correct" not in q and "answers" not in q
                aud = state.get("audience") or {}
                assert "correct" not in str(aud) and "answers" not in str(aud)
                yours = (aud.get("you") or {}).get("yours")
                assert yours is None or (name == "Sam" and yours == next(iter(action.values())))
        assert truth is not None
        revealed(harness, code, question["key"])
    assert checked >= 3


def test_a_restart_keeps_the_leaderboard(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'audience.db'}"
    harness = Harness(TIMER_SCALE=0.5, DATABASE_URL=url)
    code, _, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    for round_ in range(3):
        question = open_question(harness, code)
        harness.clock.advance(300 + round_)
        for i, phone in enumerate(phones.values()):
            action = {"answer": 50 * i} if question["kind"] == "numeric" else {"choice": i % question["options"]}
            assert send(phone, action, ms=220 + 10 * i)["ok"]
        revealed(harness, code, question["key"])
    question = open_question(harness, code)  # one more answered but not yet revealed when the server stops
    harness.clock.advance(300)
    action = {"answer": 1} if question["kind"] == "numeric" else {"choice": 0}
    assert send(phones["Tea"], action, ms=250)["ok"]
    harness.service.tick()  # the ticker writes what arrived
    before = harness.service.audience.standings(code)
    assert len(before) == 3 and before[0]["points"] > 0
    seat_tea = next(s.id for s in harness.service.room(code).seats.values() if s.name == "Tea")

    again = RoomService(Store(url), FakeClock(harness.clock.now))
    assert again.restore_all() == 1
    assert again.audience.standings(code) == before
    again.room(code)
    assert again.audience.rooms[code].question.answers[seat_tea].value == next(iter(action.values()))
    for _ in range(2000):  # the open question goes on to its reveal and is scored with Tea's answer
        if again.audience.rooms[code].question.scored:
            break
        again.clock.advance(50)
        again.tick()
    assert seat_tea in again.audience.rooms[code].question.results


def test_scoring_ties_go_to_the_earlier_joiner_and_empty_questions_score_nothing():
    question = Question(1, "numeric", 0, 0, 1000)
    assert score_question(question, 10) == {}
    for seat in (7, 3):
        question.answers[seat] = AudienceAnswer(seat, 12, Timing(400, 400, 0, 400, 20, ""))
    results = score_question(question, 10)
    assert (results[3].rank, results[7].rank) == (1, 2)


def test_a_burst_of_spectator_states_builds_the_public_view_once_per_room_version():
    """Every spectator's answer and hello is acknowledged with its state, whose public part is O(n) to build in a
    room of n spectators: at one room version it is built once (for PUBLIC_VIEW_FRESH_MS), and again as soon as
    the room changes."""
    from host.service import PUBLIC_VIEW_FRESH_MS

    harness = Harness()
    code, _tv = harness.host_room()
    room = harness.service.room(code)
    fans = [harness.service.join(room, f"Fan {i}", "spectator")[0] for i in range(5)]
    built = []
    real = harness.service._view
    harness.service._view = lambda *a, **k: (k.get("spectators") is False and built.append(1)) or real(*a, **k)
    states = [harness.service.view(room, seat) for seat in fans]
    assert len(built) == 1, "each spectator's state built the public view again"
    assert [s["me"]["name"] for s in states] == [f"Fan {i}" for i in range(5)]  # each its own part
    harness.service.join(room, "Late", "spectator")  # its broadcast builds it again: the room changed
    assert harness.service.view(room, fans[0])["spectator_count"] == 6 and len(built) == 2
    harness.clock.advance(PUBLIC_VIEW_FRESH_MS)
    harness.service.view(room, fans[0])
    assert len(built) == 3  # and after a moment anyway (counts that change without a new version)


def test_a_spectators_own_state_reuses_the_encoded_public_view_with_the_clock_of_now(monkeypatch: Any):
    """host/sockets.py ``spectator_state`` (an answer's "Sent"): the public part is encoded once per kept public
    view, and what goes on the wire is exactly the state, its game clock that of the moment it is sent."""
    import json

    import host.sockets
    from host.sockets import spectator_state

    harness = Harness()
    code, tv = harness.host_room()
    harness.join(code, "Ana")
    harness.join(code, "Bob")
    room = harness.service.room(code)
    fans = [harness.service.join(room, f"Fan {i}", "spectator")[0] for i in range(3)]
    encoded = []
    real = host.sockets.shared_json
    monkeypatch.setattr(host.sockets, "shared_json", lambda state: encoded.append(1) or real(state))
    lobby = spectator_state(harness.service, room, fans[0])
    assert json.loads(lobby.encoded()) == json.loads(json.dumps(dict(lobby))) and lobby["game"] is None
    assert control(tv, "select_game", game="tally")["ok"] and control(tv, "start")["ok"]
    states = []
    for seat in fans:
        states.append(spectator_state(harness.service, room, seat))
        harness.clock.advance(40)
    assert len(encoded) == 2, "the public view was encoded again for each spectator"
    for seat, state in zip(fans, states, strict=True):
        wire = json.loads(state.encoded())
        assert wire == json.loads(json.dumps(dict(state))) and wire["me"]["id"] == seat
    clocks = [json.loads(s.encoded())["game"]["now_ms"] for s in states]
    assert clocks[1] - clocks[0] == 40 and clocks[2] - clocks[1] == 40  # the clock of each moment, not the kept one


def test_a_crowds_piled_up_answers_are_written_outside_the_rooms_lock(monkeypatch: Any):
    """When FLUSH_AT answers wait (the ticker late under a crowd), the handler of the last one writes them, after it
    let go of the room's lock: it wrote them under the lock, and the room's other answers all waited for the
    database (the 5,000-phone benchmark: acks after seconds, storage_busy). A write already in progress is not
    waited for."""
    import host.audience

    monkeypatch.setattr(host.audience, "FLUSH_AT", 2)
    harness = Harness(TIMER_SCALE=0.5)
    code, _tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma", "Vic"))
    open_question(harness, code, "numeric")
    audience = harness.service.audience
    lock = harness.service.locks[code]
    held: list[bool] = []
    real = audience._flush
    monkeypatch.setattr(audience, "_flush", lambda force: held.append(lock._is_owned()) or real(force))
    assert send(phones["Sam"], {"answer": 5}, ms=400)["ok"] and held == []  # one waits: the ticker's
    assert send(phones["Tea"], {"answer": 6}, ms=400)["ok"]
    assert held == [False] and audience.pending == [], "the piled-up answers were not written, or under the lock"
    audience._write_lock.acquire()  # another task is writing
    try:
        assert send(phones["Uma"], {"answer": 7}, ms=400)["ok"] and send(phones["Vic"], {"answer": 8}, ms=400)["ok"]
    finally:
        audience._write_lock.release()
    assert held == [False] and len(audience.pending) == 2  # left to that task, or the ticker


def test_on_the_wire_a_spectators_state_is_exactly_its_state_with_the_audience_part_encoded_once():
    """host/sockets.py ``Spliced``: the public audience part is encoded once per broadcast and each spectator's
    ``you`` spliced in; a state relayed by another worker is sent on as it came (``Spliced.relayed``)."""
    import json

    from host.sockets import Spliced, audience_json, shared_json, spectator_state

    harness = Harness(TIMER_SCALE=0.5)
    code, _tv, phones = campaign_room(harness, ("Sam", "Tea"))
    service = harness.service
    room = service.room(code)
    question = open_question(harness, code, "numeric")
    assert send(phones["Sam"], {"answer": 5}, ms=400)["ok"]

    def check(seat: int) -> Spliced:
        shared = service.phone_public_view(room)
        encoded = audience_json(shared)
        assert encoded is not None and '"you"' not in encoded
        state = Spliced(service.spectator_view(room, seat, shared), shared_json(shared), encoded)
        assert json.loads(state.encoded()) == json.loads(json.dumps(dict(state)))
        assert state.own_json() == json.dumps({"me": state["me"], "audience": state["audience"]},
                                              separators=(",", ":"))
        again = spectator_state(service, room, seat)
        assert json.loads(again.encoded()) == json.loads(json.dumps(dict(again)))
        relayed = Spliced.relayed(state.shared_json, state.own_json())
        assert relayed.encoded() == state.encoded()
        return state

    seats = {s.name: s.id for s in room.seats.values() if s.role == "spectator"}
    assert check(seats["Sam"])["audience"]["you"]["yours"] is not None  # answered: its answer in its own part
    assert check(seats["Tea"])["audience"]["you"]["yours"] is None
    revealed(harness, code, question["key"])
    assert check(seats["Sam"])["audience"]["you"]["result"] is not None  # scored: its result
