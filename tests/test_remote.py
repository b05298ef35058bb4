"""The host on the sofa (issue [18], host/remote.py, docs/remote.md), over sockets with a fake clock: the TV hands its
controls to a phone with a one-time code, the phone runs a host-paced Quiz with the TV's own controls and sees each
answer before its reveal, which no other phone and no TV ever receives; the TV takes the remote back with one tap.
Refusals (``not_host``, a used, expired or foreign code, bad input), one remote at a time, a phone coming back, a
kick and a restart."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import socketio

from host.remote import HANDOVER_TTL_MS
from host.service import RoomService
from tests.conftest import Harness, control, last_state
from tests.test_quiz_room import is_open, quiz_room, state_of, truth, until

# What a state must never carry while a question is open: the quizmaster card and the names of the right answer.
SECRET_KEYS = {"notes", "correct", "rights", "accepted", "sequence"}


def emit(client: Any, event: str, data: Any) -> dict[str, Any]:
    answer: dict[str, Any] = client.emit(event, data, namespace="/play", callback=True)
    return answer


def remote(phone: Any, control_name: str, **extra: Any) -> dict[str, Any]:
    return emit(phone, "remote_control", {"control": control_name, **extra})


def error(answer: dict[str, Any]) -> tuple[str, str | None]:
    assert not answer["ok"], answer
    return answer["error"]["code"], answer["error"]["field"]


def handover(tv: Any) -> str:
    """The TV's "Hand controls to a phone": the code its QR carries, read from the URL in the fragment."""
    answer = control(tv, "handover")
    assert answer["ok"], answer
    url = answer["handover"]["url"]
    assert answer["handover"]["qr"].startswith("<?xml") or "<svg" in answer["handover"]["qr"]
    fragment = urlsplit(url).fragment
    assert fragment.startswith("remote=")
    return fragment.removeprefix("remote=")


def inbox(client: Any, namespace: str = "/play") -> list[dict[str, Any]]:
    """Every message this client received so far (kept: the test client hands each out once)."""
    kept: list[dict[str, Any]] = client.__dict__.setdefault("inbox", [])
    kept.extend(client.get_received(namespace))
    return kept


def remote_views(phone: Any) -> list[dict[str, Any]]:
    """Every ``remote`` message this phone received."""
    return [m["args"][0] for m in inbox(phone) if m["name"] == "remote"]


def keys_of(value: Any) -> set[str]:
    """Every key at any depth of a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def test_a_phone_without_the_remote_is_refused_and_nothing_changes():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), spectators=("Sam",), paced="host")
    for phone in phones.values():
        assert error(remote(phone, "start")) == ("not_host", None)
        assert error(emit(phone, "remote_release", {})) == ("not_host", None)
    assert harness.service.room(code).phase == "lobby"
    stranger = harness.phone()  # a socket with no seat at all
    assert error(remote(stranger, "start")) == ("not_joined", None)
    assert error(emit(stranger, "remote_claim", {"handover": handover(tv)})) == ("not_joined", None)
    assert error(emit(phones["Ana"], "remote_control", {})) == ("invalid", "control")
    assert error(emit(phones["Ana"], "remote_control", "start")) == ("invalid", None)
    assert control(tv, "take_back")["ok"]  # a code was waiting: taking back voids it
    assert error(control(tv, "take_back")) == ("not_now", None)  # nothing left to take back


def test_the_tv_hands_its_controls_to_a_phone_that_runs_a_host_paced_quiz_and_sees_each_answer_first():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), spectators=("Sam",), paced="host")
    token = tv.host_headers["X-Host-Token"]
    ana, ben, sam = phones["Ana"], phones["Ben"], phones["Sam"]
    answer = control(tv, "handover")
    assert answer["ok"] and answer["handover"]["expires_in_ms"] == HANDOVER_TTL_MS
    url = answer["handover"]["url"]
    assert url.startswith(f"http://127.0.0.1:9999/join/{code}#remote=") and token not in url
    assert last_state(tv, "/tv")["remote"] == {"seat": None, "name": None, "waiting": True}
    assert emit(sam, "remote_claim", {"handover": urlsplit(url).fragment.removeprefix("remote=")})["ok"]
    assert last_state(tv, "/tv")["remote"] == {"seat": 3, "name": "Sam", "waiting": False}
    views = remote_views(sam)
    assert views and views[-1]["on"] and views[-1]["seat"] == 3 and views[-1]["notes"] is None
    for phone in (ana, ben):
        assert not remote_views(phone)
        states = [m["args"][0] for m in inbox(phone) if m["name"] == "state"]
        assert states and not any("remote" in state for state in states)
    for phone in (ana, ben, tv):
        inbox(phone, "/tv" if phone is tv else "/play").clear()  # what follows is the game

    # The spectator's phone runs the whole quiz: Start, Pause and Resume, Next after each reveal and standings.
    assert remote(sam, "start")["ok"]
    room = harness.service.room(code)
    assert room.phase == "playing"
    questions = len(state_of(harness, code).questions)
    seen_by_others: list[tuple[str, dict[str, Any]]] = []
    for index in range(questions):
        until(harness, code, is_open)
        quiz = state_of(harness, code)
        notes = remote_views(sam)[-1]["notes"]
        right = quiz.question.right_answer()
        assert notes["index"] == index and notes["answer"] == right and not notes["revealed"]
        assert notes["prompt"] == quiz.question.prompt
        if index == 0:
            assert remote(sam, "pause")["ok"] and room.paused
            assert error(remote(sam, "pause")) == ("not_now", None)
            assert remote(sam, "resume")["ok"] and not room.paused
        assert notes["answered"] == 0
        for count, phone in enumerate((ana, ben), start=1):
            assert emit(phone, "action", {"action": truth(harness, code)})["ok"]
            if count < 2:  # the remote's "1 of 2 answered", which no player's phone state lists any more
                assert remote_views(sam)[-1]["notes"]["answered"] == count
        assert state_of(harness, code).phase == "reveal"
        for who, phone, namespace in (("Ana", ana, "/play"), ("Ben", ben, "/play"), ("TV", tv, "/tv")):
            for message in inbox(phone, namespace):
                assert message["name"] != "remote", who
                seen_by_others.append((who, message["args"][0]))
            inbox(phone, namespace).clear()
        assert remote(sam, "next")["ok"]
        if index + 1 < questions:
            assert state_of(harness, code).phase == "standings"
            assert remote(sam, "next")["ok"]
    assert room.phase == "finished" and not room.session.aborted
    open_states = [(who, s) for who, s in seen_by_others if isinstance(s, dict) and s.get("game")
                   and s["game"]["view"]["phase"] == "question"]
    assert len(open_states) >= questions * 3  # each saw every question open, none of them with its answer
    for who, state in open_states:
        assert state["game"]["view"]["reveal"] is None, who
        assert not keys_of(state) & SECRET_KEYS, (who, keys_of(state) & SECRET_KEYS)
    logged = [e for e in harness.service.store.events(code) if e.data.get("remote") == 3]
    assert [e.kind for e in logged].count("next") == 2 * questions - 1
    assert {"start", "pause", "resume"} <= {e.kind for e in logged}
    assert [e.data["seat"] for e in harness.service.store.events(code) if e.kind == "remote"] == [3]

    # The TV kept its own controls throughout, and takes the remote back with one tap.
    assert control(tv, "lobby")["ok"]
    assert control(tv, "take_back")["ok"]
    assert remote_views(sam)[-1] == {"code": code, "on": False}
    assert error(remote(sam, "start")) == ("not_host", None)
    assert room.remote_seat is None and harness.service.view(room, None, True)["remote"] is None
    assert error(control(tv, "take_back")) == ("not_now", None)


def test_a_handover_code_works_once_for_two_minutes_in_its_own_room_only():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    other, _, others = quiz_room(harness, players=("Olga",))
    ana, ben = phones["Ana"], phones["Ben"]
    first = handover(tv)
    assert error(emit(others["Olga"], "remote_claim", {"handover": first})) == ("bad_handover", "handover")
    assert error(emit(ana, "remote_claim", {"handover": first + "x"})) == ("bad_handover", "handover")
    for bad in (None, 7, "", "x" * 65, ["a"]):
        assert error(emit(ana, "remote_claim", {"handover": bad})) == ("invalid", "handover")
    assert error(emit(ana, "remote_claim", {})) == ("invalid", "handover")
    assert emit(ana, "remote_claim", {"handover": first})["ok"]
    assert error(emit(ben, "remote_claim", {"handover": first})) == ("bad_handover", "handover")  # used
    assert harness.service.room(code).remote_seat == 1 and harness.service.room(other).remote_seat is None
    assert error(emit(others["Olga"], "remote_control", {"control": "start"})) == ("not_host", None)

    late = handover(tv)
    harness.clock.advance(HANDOVER_TTL_MS)
    assert error(emit(ben, "remote_claim", {"handover": late})) == ("bad_handover", "handover")  # expired
    replaced, newer = handover(tv), handover(tv)
    assert error(emit(ben, "remote_claim", {"handover": replaced})) == ("bad_handover", "handover")
    assert harness.service.room(code).remote_seat == 1  # the old remote works until a new code is used
    assert remote(ana, "select_game", game="quiz")["ok"]

    # One remote at a time: Ben's phone takes it, Ana's is told at once and refused from then on.
    remote_views(ana)
    assert emit(ben, "remote_claim", {"handover": newer})["ok"]
    assert remote_views(ana)[-1] == {"code": code, "on": False}
    assert error(remote(ana, "select_game", game="quiz")) == ("not_host", None)
    assert remote_views(ben)[-1]["on"]
    assert error(remote(ben, "select_game", game="nope")) == ("unknown_game", "game")  # validated as the TV's
    assert error(remote(ben, "fly")) == ("invalid", "control")
    assert error(remote(ben, "handover")) == ("invalid", "control")  # only the host's TV hands it over
    assert error(remote(ben, "kick", seat=99)) == ("unknown_seat", "seat")
    assert [e.data["seat"] for e in harness.service.store.events(code) if e.kind == "remote"] == [1, 2]


def test_the_remote_belongs_to_the_seat_through_a_reconnect_a_restart_and_ends_with_a_kick_or_a_give_back():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    phone = harness.phone()
    joined = emit(phone, "join", {"code": code, "name": "Cat", "role": "spectator"})
    cat_token, cat = joined["token"], phone
    assert emit(cat, "remote_claim", {"handover": handover(tv)})["ok"]
    cat.disconnect(namespace="/play")  # the phone's connection drops; it says hello again on a new socket
    again = harness.phone()
    assert emit(again, "hello", {"code": code, "token": cat_token})["ok"]
    assert remote_views(again)[-1]["on"]
    assert remote(again, "select_game", game="quiz")["ok"]

    restarted = RoomService(harness.service.store, harness.clock)  # the hand-over is logged: a restart keeps it
    assert restarted.room(code).remote_seat == joined["seat"]

    assert emit(again, "remote_release", {})["ok"]  # the phone gives it back
    assert remote_views(again)[-1] == {"code": code, "on": False}
    assert error(remote(again, "start")) == ("not_host", None)

    ben = phones["Ben"]
    assert emit(ben, "remote_claim", {"handover": handover(tv)})["ok"]
    assert control(tv, "kick", seat=2)["ok"]  # a kicked seat's phone runs nothing
    assert harness.service.room(code).remote_seat is None and last_state(tv, "/tv")["remote"] is None


def test_a_code_the_tv_closed_unused_works_no_more_and_leaves_the_holder_alone():
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    assert emit(phones["Ana"], "remote_claim", {"handover": handover(tv)})["ok"]
    unused = handover(tv)
    assert control(tv, "handover_cancel")["ok"]
    assert error(control(tv, "handover_cancel")) == ("not_now", None)
    assert error(emit(phones["Ben"], "remote_claim", {"handover": unused})) == ("bad_handover", "handover")
    assert harness.service.room(code).remote_seat == 1 and remote(phones["Ana"], "select_game", game="quiz")["ok"]
    assert error(emit(phones["Ana"], "remote_control", {"control": "take_back"})) == ("invalid", "control")


def test_the_remote_answers_a_that_s_me_and_every_bad_payload_is_refused_with_nothing_changed():
    import random

    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"))
    ana = phones["Ana"]
    assert emit(ana, "remote_claim", {"handover": handover(tv)})["ok"]
    phones["Ben"].disconnect(namespace="/play")
    newcomer = harness.phone()
    asked = emit(newcomer, "claim", {"code": code, "name": "Ben"})
    assert asked["ok"]
    assert remote_views(ana)[-1]["claims"] == [{"id": asked["claim"], "seat": 2, "name": "Ben"}]
    assert remote(ana, "claim", claim=asked["claim"], accept=True)["ok"]
    assert [m for m in newcomer.get_received("/play") if m["name"] == "claimed"]
    assert remote_views(ana)[-1]["claims"] == []

    room = harness.service.room(code)
    seq = room.seq
    rng = random.Random(18)
    junk = [None, True, 0, -1, 2**70, 1.5, "", "x" * 300, [], {}, ["start"], {"control": "fly"}, "\u202e"]
    for _ in range(400):
        payload = rng.choice(junk) if rng.random() < 0.2 else {
            "control": rng.choice(["kick", "settings", "select_game", "lineup", "team", "claim", "lock", "nuke",
                                   "handover", "take_back", None, 3]),
            **{rng.choice(["seat", "game", "settings", "play", "instead", "team", "claim", "accept", "locked"]):
               rng.choice(junk) for _ in range(rng.randrange(3))}}
        for event in ("remote_control", "remote_claim", "remote_release"):
            if event == "remote_release" and isinstance(payload, dict):
                continue  # any object is a well-formed release (its keys are not read)
            answer = emit(ana if event != "remote_claim" else harness.phone(), event, payload)
            assert isinstance(answer, dict) and "ok" in answer
            if not answer["ok"]:
                assert answer["error"]["code"] != "internal", (event, payload, answer)
    assert room.remote_seat == 1  # no junk gave it away or took it
    changed = [e.kind for e in harness.service.store.events(code)][seq:]
    assert set(changed) <= {"lock", "kick", "team", "lineup", "settings", "select_game"}, changed
    assert emit(ana, "remote_release", {"anything": 1})["ok"] and room.remote_seat is None


def test_the_remote_survives_a_restart_of_the_real_server_and_a_used_code_stays_used(servers: Any):
    from tests.live import HostedRoom, client

    server = servers.start()
    room = HostedRoom(server.url)
    phone = client(server.url + f"?room={room.code}", "/play")
    joined = phone.call("join", {"code": room.code, "name": "Quinn", "role": "spectator"}, namespace="/play")
    assert joined["ok"]
    offered = room.control(control="handover")["handover"]["url"]
    code = urlsplit(offered).fragment.removeprefix("remote=")
    assert phone.call("remote_claim", {"handover": code}, namespace="/play")["ok"]
    spare = room.control(control="handover")["handover"]["url"]  # waits, unused, when the server goes down
    room.close()
    phone.disconnect()
    server.kill()  # a power cut: nothing written at the end
    server.start()

    views: list[dict[str, Any]] = []
    again = socketio.Client(reconnection=False)
    again.on("remote", views.append, namespace="/play")
    again.connect(server.url + f"?room={room.code}", namespaces=["/play"], transports=["websocket"])
    try:
        assert again.call("hello", {"code": room.code, "token": joined["token"]}, namespace="/play")["ok"]
        assert again.call("remote_control", {"control": "select_game", "game": "quiz"}, namespace="/play")["ok"]
        assert views and views[-1]["on"] and views[-1]["seat"] == joined["seat"]
        for used in (code, urlsplit(spare).fragment.removeprefix("remote=")):  # used, and voided by the restart
            refused = again.call("remote_claim", {"handover": used}, namespace="/play")
            assert refused["error"]["code"] == "bad_handover"
    finally:
        again.disconnect()
    host = HostedRoom.__new__(HostedRoom)  # the TV comes back with its host token: still the host, and sees who
    host.url, host.code, host.token, host.host = server.url, room.code, room.token, client(server.url, "/tv")
    try:
        state = host.watch()["state"]
        assert state["host"] and state["remote"] == {"seat": joined["seat"], "name": "Quinn", "waiting": False}
        assert host.control(control="take_back")["ok"]
    finally:
        host.close()


def test_the_remote_has_the_tv_s_room_controls_too_lock_language_packs_and_extended_time():
    """The remote offers every control of the TV (issue [18]): besides the game's, the room's lock and language, the
    packs the next game draws from (with the host's own uploads, which only the host's screens may list) and each
    seat's extended time, which the remote's own view carries and no other phone's state."""
    harness = Harness()
    code, tv, phones = quiz_room(harness, players=("Ana", "Ben"), spectators=("Sam",), paced="host")
    sam, ana = phones["Sam"], phones["Ana"]
    url = control(tv, "handover")["handover"]["url"]
    assert emit(sam, "remote_claim", {"handover": urlsplit(url).fragment.removeprefix("remote=")})["ok"]
    view = remote_views(sam)[-1]
    assert view["locked"] is False and view["language"] == "en" and view["extra_time"] == {}
    assert view["packs"] is not None and view["packs"]["packs"] and "selected" in view["packs"]
    room = harness.service.room(code)
    assert remote(sam, "lock", locked=True)["ok"] and room.locked
    assert remote_views(sam)[-1]["locked"] is True
    assert remote(sam, "language", language="ro")["ok"] and room.language == "ro"
    first = view["packs"]["packs"][0]["id"]
    assert remote(sam, "packs", packs=[first])["ok"]
    assert remote_views(sam)[-1]["packs"]["selected"] == [first]
    seat = last_state(ana, "/play")["me"]["id"]
    ben = last_state(phones["Ben"], "/play")["me"]["id"]
    assert remote(sam, "extra_time", seat=seat, factor=2)["ok"]
    assert remote_views(sam)[-1]["extra_time"] == {str(seat): 2}
    for phone, seat_id in ((ana, seat), (phones["Ben"], ben)):  # a player's phone shows nothing new: it is sent
        states = [m["args"][0] for m in inbox(phone) if m["name"] == "state"]  # nothing (host/broadcast.py), and
        assert not any("extra_time" in state for state in states)  # its state, as the server builds it, has none
        assert "extra_time" not in harness.service.view(room, seat_id)
    assert harness.service.view(room, None, as_host=True)["extra_time"] == {str(seat): 2}
    assert error(remote(sam, "extra_time", seat=seat, factor=3))[1] == "factor"
    assert remote_views(sam)[-1]["extra_time"] == {str(seat): 2}
