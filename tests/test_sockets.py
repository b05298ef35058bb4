"""Socket.IO events through Flask-SocketIO's test client: acknowledgements, broadcasts, tokens, host rights."""

from __future__ import annotations

from tests.conftest import Harness, control, last_state


def test_a_phone_joins_and_the_tv_sees_it(harness: Harness):
    code, tv = harness.host_room()
    tv.get_received("/tv")
    _phone, answer = harness.join(code, "Ana")
    assert answer["state"]["me"]["name"] == "Ana" and answer["token"]
    state = last_state(tv, "/tv")
    assert [p["name"] for p in state["players"]] == ["Ana"] and state["players"][0]["connected"]


def test_a_phone_comes_back_to_its_seat_with_its_token(harness: Harness):
    code, tv = harness.host_room()
    phone, answer = harness.join(code, "Ana")
    phone.disconnect(namespace="/play")
    assert last_state(tv, "/tv")["players"][0]["connected"] is False
    again = harness.phone()
    hello = again.emit("hello", {"code": code, "token": answer["token"]}, namespace="/play", callback=True)
    assert hello["ok"] and hello["seat"] == answer["seat"] and hello["state"]["me"]["name"] == "Ana"
    assert last_state(tv, "/tv")["players"][0]["connected"] is True
    wrong = harness.phone().emit("hello", {"code": code, "token": "nope"}, namespace="/play", callback=True)
    assert wrong["error"]["code"] == "bad_token"


def test_only_the_host_token_controls_the_room(harness: Harness):
    code, host_tv = harness.host_room()
    viewer = harness.tv()
    watched = viewer.emit("watch", {"code": code}, namespace="/tv", callback=True)
    assert watched["ok"] and watched["state"]["host"] is False
    assert control(viewer, "lock", locked=True)["error"]["code"] == "not_host"
    bad = harness.tv().emit("watch", {"code": code, "host_token": "guess"}, namespace="/tv", callback=True)
    assert bad["error"]["code"] == "not_host"
    assert control(harness.tv(), "lock", locked=True)["error"]["code"] == "not_watching"
    assert control(host_tv, "lock", locked=True)["ok"]
    assert last_state(viewer, "/tv")["locked"] is True
    assert control(host_tv, "fly")["error"]["field"] == "control"


def test_the_host_runs_a_game_and_everyone_moves_into_it_together(harness: Harness):
    code, tv = harness.host_room()
    ana, _a = harness.join(code, "Ana")
    bob, _b = harness.join(code, "Bob")
    watcher, _w = harness.join(code, "Wes", "spectator")
    assert control(tv, "select_game", game="tally")["ok"]
    assert control(tv, "settings", game="tally", settings={"bots": False})["ok"]
    assert control(tv, "start")["ok"]
    for client, ns in ((tv, "/tv"), (ana, "/play"), (bob, "/play"), (watcher, "/play")):
        assert last_state(client, ns)["phase"] == "playing"
    ana_view = last_state(ana, "/play")["game"]
    assert ana_view["you"] == 0 and "legal" in ana_view["view"]
    assert last_state(watcher, "/play")["game"]["you"] is None
    assert "legal" not in last_state(watcher, "/play")["game"]["view"]
    assert "legal" not in last_state(tv, "/tv")["game"]["view"]
    current = ana_view["view"]["current"]
    mover = ana if current == 0 else bob
    answer = mover.emit("action", {"action": {"add": 2}, "step": 0}, namespace="/play", callback=True)
    assert answer["ok"]
    assert last_state(tv, "/tv")["game"]["view"]["total"] == 2
    assert control(tv, "pause")["ok"] and last_state(bob, "/play")["paused"] is True
    assert control(tv, "resume")["ok"]
    assert control(tv, "end")["ok"] and last_state(ana, "/play")["phase"] == "finished"
    assert control(tv, "lobby")["ok"]
    state = last_state(bob, "/play")
    assert state["phase"] == "lobby" and [p["name"] for p in state["players"]] == ["Ana", "Bob"]


def test_a_kicked_phone_is_told_and_cannot_come_back(harness: Harness):
    code, tv = harness.host_room()
    phone, answer = harness.join(code, "Ana")
    assert control(tv, "kick", seat=answer["seat"])["ok"]
    assert any(m["name"] == "kicked" for m in phone.get_received("/play"))
    assert phone.emit("rename", {"name": "X"}, namespace="/play", callback=True)["error"]["code"] == "not_joined"
    again = harness.phone().emit("hello", {"code": code, "token": answer["token"]}, namespace="/play", callback=True)
    assert again["error"]["code"] == "kicked"
    assert last_state(tv, "/tv")["players"] == []


def test_rename_and_language_from_the_phone(harness: Harness):
    code, _tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    harness.join(code, "Bob")
    assert ana.emit("rename", {"name": "bob"}, namespace="/play", callback=True)["error"]["code"] == "name_taken"
    assert ana.emit("rename", {"name": "Ana Maria"}, namespace="/play", callback=True)["ok"]
    assert ana.emit("language", {"language": "fa"}, namespace="/play", callback=True)["ok"]
    assert ana.emit("language", {"language": "de"}, namespace="/play", callback=True)["error"]["field"] == "language"
    state = last_state(ana, "/play")
    assert state["me"]["name"] == "Ana Maria" and state["me"]["language"] == "fa"
    assert ana.emit("join", {"code": code, "name": "Z"}, namespace="/play", callback=True)["error"]["code"] \
        == "already_seated"


def test_ping_answers_with_the_server_clock(harness: Harness):
    phone = harness.phone()
    answer = phone.emit("ping", {"t": 12.5}, namespace="/play", callback=True)
    assert answer["ok"] and answer["t"] == 12.5 and answer["server_ms"] == harness.clock.now
    assert phone.emit("ping", {"t": "x"}, namespace="/play", callback=True)["error"]["field"] == "t"


def test_every_event_is_acknowledged_even_unknown_or_without_payload(harness: Harness):
    phone = harness.phone()
    for event, payload in (("nope", None), ("hello", None), ("join", "x"), ("action", [1]), ("_attach", {}),
                           ("trigger_event", {}), ("rename", {"name": "x"})):
        answer = phone.emit(event, payload, namespace="/play", callback=True)
        assert answer["ok"] is False and answer["error"]["code"], (event, answer)


def test_host_rights_do_not_follow_a_socket_into_another_room(harness: Harness):
    code_a, tv = harness.host_room()
    code_b, _ = harness.service.create_room()
    assert tv.emit("watch", {"code": code_b}, namespace="/tv", callback=True)["ok"]
    assert control(tv, "lock", locked=True)["error"]["code"] == "not_host"
    assert harness.service.room(code_b).locked is False and harness.service.room(code_a).locked is False


def test_only_a_controls_own_fields_reach_the_log(harness: Harness):
    code, tv = harness.host_room()
    assert control(tv, "lock", locked=True, junk="x" * 1000, seat=3)["ok"]
    assert control(tv, "start", anything={"big": [1, 2, 3]})["error"]["code"] == "no_game"
    logged = list(harness.service.store.events(code))
    assert logged[-1].kind == "lock" and set(logged[-1].data) == {"locked", "gt"}


def test_skip_is_refused_while_paused_and_lobby_in_the_lobby(harness: Harness):
    code, tv = harness.host_room()
    assert control(tv, "lobby")["error"]["message"] == "the room is already in the lobby"
    harness.join(code, "Ana")
    assert control(tv, "select_game", game="tally")["ok"] and control(tv, "start")["ok"]
    assert control(tv, "pause")["ok"]
    assert control(tv, "skip")["error"]["code"] == "paused"
    assert harness.service.room(code).session.actions == 0
