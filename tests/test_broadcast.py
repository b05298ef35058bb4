"""host/broadcast.py ``Broadcaster``, through Flask-SocketIO's test clients on a fake clock: every socket of a room gets
its own view when the room changes, at once in a party-sized room and coalesced in a big one; a phone is not sent
what it already shows; round trips are probed as often as fair timing needs; a kicked seat's phones are told
and let go; a room that moved to another worker has its sockets closed, so that they reconnect there."""

from __future__ import annotations

from typing import Any

import pytest

from host.broadcast import COALESCE_FROM, HEARTBEAT_SLACK_MS, PLAYER_PROBE_PASSES, PROBE_WAIT_PASSES, WARM_SAMPLES
from tests.conftest import Harness, control
from tests.test_quiz_room import act, is_open, quiz_room, truth, until


def sid_of(harness: Harness, client: Any, namespace: str = "/play") -> str:
    """The server's Socket.IO sid of a test client's socket."""
    return harness.rt.socketio.server.manager.sid_from_eio_sid(client.eio_sid, namespace)


def states(client: Any, namespace: str = "/play") -> list[dict[str, Any]]:
    """The state messages a client received since the last look."""
    return [m["args"][0] for m in client.get_received(namespace) if m["name"] == "state"]


def record_tasks(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[Any, ...]]]:
    """Background tasks the app starts are recorded instead of run (the test runs them when it chooses)."""
    tasks: list[tuple[Any, tuple[Any, ...]]] = []
    monkeypatch.setattr(harness.rt.socketio, "start_background_task", lambda task, *args: tasks.append((task, args)))
    return tasks


def test_a_party_room_is_sent_at_once_and_every_socket_gets_its_own_view(monkeypatch: pytest.MonkeyPatch):
    harness = Harness(COALESCE_BROADCASTS=True)  # coalescing on: a small room is still told at once
    tasks = record_tasks(harness, monkeypatch)
    code, tv = harness.host_room()
    viewer = harness.tv()
    assert viewer.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    ana, _ = harness.join(code, "Ana")
    bob, _ = harness.join(code, "Bob")
    fan, _ = harness.join(code, "Fan", "spectator")
    assert control(tv, "select_game", game="tally")["ok"] and control(tv, "start")["ok"]
    for client, namespace in ((tv, "/tv"), (viewer, "/tv"), (ana, "/play"), (bob, "/play"), (fan, "/play")):
        client.get_received(namespace)
    assert control(tv, "pause")["ok"]
    room = harness.service.room(code)
    got = {name: states(client, namespace) for name, client, namespace in
           (("tv", tv, "/tv"), ("viewer", viewer, "/tv"), ("Ana", ana, "/play"), ("Bob", bob, "/play"),
            ("Fan", fan, "/play"))}
    assert tasks == [], "a party-sized room's broadcast was deferred"
    assert {name: len(sent) for name, sent in got.items()} == dict.fromkeys(got, 1)  # each one state, at once
    state = {name: sent[0] for name, sent in got.items()}
    assert all(s["paused"] is True and s["version"] == room.version for s in state.values())
    assert state["tv"]["host"] is True and "claims" in state["tv"]  # the host's screen
    assert state["viewer"]["host"] is False and "claims" not in state["viewer"]
    assert "me" not in state["tv"] and "me" not in state["viewer"]
    slots = {s["name"]: s["index"] for s in state["tv"]["game"]["slots"]}
    for name in ("Ana", "Bob"):  # a player: its own seat and its own game view
        assert state[name]["me"]["name"] == name and state[name]["game"]["you"] == slots[name]
        assert "legal" in state[name]["game"]["view"]
    assert state["Fan"]["me"]["name"] == "Fan" and state["Fan"]["me"]["role"] == "spectator"
    assert state["Fan"]["game"]["you"] is None and "legal" not in state["Fan"]["game"]["view"]
    assert "legal" not in state["tv"]["game"]["view"]


def test_a_big_rooms_changes_are_coalesced_into_one_send_of_the_newest_state(monkeypatch: pytest.MonkeyPatch):
    harness = Harness(COALESCE_BROADCASTS=True)
    tasks = record_tasks(harness, monkeypatch)
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    fans = [harness.join(code, f"Fan {i}", "spectator")[0] for i in range(COALESCE_FROM - 2)]
    assert len(harness.service.connections.of_room(code)) == COALESCE_FROM
    for task, args in tasks:  # the joins' own broadcasts
        task(*args)
    tasks.clear()
    phones = [ana, *fans]
    for client in phones:
        client.get_received("/play")
    tv.get_received("/tv")
    assert control(tv, "lock", locked=True)["ok"]  # three changes in a row
    assert control(tv, "select_game", game="tally")["ok"]
    assert control(tv, "settings", game="tally", settings={"bots": False})["ok"]
    assert len(tasks) == 1, "each change of a big room started a send of its own"
    assert states(tv, "/tv") == [] and all(states(client) == [] for client in phones)  # nothing sent yet
    task, args = tasks.pop()
    task(*args)
    room = harness.service.room(code)
    for client, namespace in ((tv, "/tv"), *((client, "/play") for client in phones)):
        sent = states(client, namespace)
        assert len(sent) == 1, "a socket of the big room got more (or less) than one state"
        assert sent[0]["version"] == room.version and sent[0]["locked"] is True
        assert sent[0]["selected_game"] == "tally"

    broadcaster = harness.rt.broadcaster  # a change while the room's states go out: the same task sends again
    real = broadcaster.send_states
    sends: list[bool] = []

    def sending(code: str, pace: bool = False) -> None:
        sends.append(pace)
        real(code, pace)
        if len(sends) == 1:
            assert control(tv, "lock", locked=False)["ok"]

    monkeypatch.setattr(broadcaster, "send_states", sending)
    assert control(tv, "settings", game="tally", settings={"bots": True})["ok"]
    task, args = tasks.pop()
    task(*args)
    assert tasks == [] and sends == [True, True]  # paced, as a big room's send is
    assert states(tv, "/tv")[-1]["locked"] is False
    assert all(states(client)[-1]["locked"] is False for client in phones)


def test_a_spectator_whose_view_did_not_change_gets_no_message(harness: Harness):
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    fan, _ = harness.join(code, "Fan", "spectator")
    gil, _ = harness.join(code, "Gil", "spectator")
    for client in (ana, fan, gil):
        client.get_received("/play")
    tv.get_received("/tv")
    viewer = harness.tv()  # another screen starts watching: the room's version moves, a phone shows nothing new
    assert viewer.emit("watch", {"code": code}, namespace="/tv", callback=True)["ok"]
    assert len(states(tv, "/tv")) == 1  # the TV is sent every change
    assert states(ana) == [] and states(fan) == [] and states(gil) == []  # a player's phone neither (below)
    assert fan.emit("rename", {"name": "Fanny"}, namespace="/play", callback=True)["ok"]  # only its own part
    renamed = states(fan)
    assert len(renamed) == 1 and renamed[0]["me"]["name"] == "Fanny"
    assert states(gil) == []
    assert control(tv, "lock", locked=True)["ok"]  # something both phones show
    assert [s["locked"] for s in states(fan)] == [True] and [s["locked"] for s in states(gil)] == [True]


def test_a_player_whose_screen_another_answer_does_not_change_gets_no_message(harness: Harness):
    """A Short Campaign question: each answer changes the TV (who has answered) and the answering phone (its answer
    taken), not the other players' phones, which show only their own answer. They were each sent a whole state
    anyway: a third of the party benchmark's messages."""
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name)[0] for name in ("Ana", "Bob", "Cy")}
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": False, "preview_seconds": 0})["ok"]
    assert control(tv, "start")["ok"]
    tv.get_received("/tv")
    for client in phones.values():
        client.get_received("/play")
    answer = phones["Ana"].emit("action", {"action": {"answer": "12"}}, namespace="/play", callback=True)
    assert answer["ok"], answer
    got = {name: states(client) for name, client in phones.items()}
    shown = states(tv, "/tv")
    assert len(shown) == 1 and shown[0]["game"]["view"]["question"]["answered"] == [0]
    assert len(got["Ana"]) == 1 and got["Ana"][0]["game"]["view"]["question"]["yours"] == 12
    assert got["Bob"] == [] and got["Cy"] == []
    assert phones["Bob"].emit("action", {"action": {"answer": "7"}}, namespace="/play", callback=True)["ok"]
    assert [len(states(client)) for client in phones.values()] == [0, 1, 0]
    assert phones["Cy"].emit("action", {"action": {"answer": "9"}}, namespace="/play", callback=True)["ok"]
    revealed = {name: states(client) for name, client in phones.items()}  # the last answer closes it: everyone
    assert all(len(sent) == 1 and sent[0]["game"]["view"]["question"]["revealed"] for sent in revealed.values())


def test_outside_the_lobby_no_screen_is_sent_the_games_settings(harness: Harness):
    """The lobby's game cards and their settings are drawn in the lobby only. A TV's state in a game carried them all
    the same: 10 of its 14 KB, encoded and sent at every answer. Outside the lobby each screen gets each game's id
    and name; back in the lobby the TV gets the cards again."""
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    fan, _ = harness.join(code, "Fan", "spectator")
    lobby = states(tv, "/tv")[-1]
    cards = {g["id"]: g for g in lobby["games"]}
    assert {"values", "settings"} <= set(cards["campaign"])  # the lobby: whole cards
    assert control(tv, "select_game", game="tally")["ok"] and control(tv, "start")["ok"]
    for client, namespace in ((tv, "/tv"), (ana, "/play"), (fan, "/play")):
        playing = states(client, namespace)[-1]
        assert playing["phase"] == "playing", namespace
        assert [set(g) for g in playing["games"]] == [{"id", "name_key"}] * len(cards), namespace
        assert [g["id"] for g in playing["games"]] == list(cards), namespace
    assert control(tv, "end")["ok"] and control(tv, "lobby")["ok"]
    assert {"values", "settings"} <= set(next(g for g in states(tv, "/tv")[-1]["games"] if g["id"] == "campaign"))


def test_a_quiz_answer_is_sent_to_the_tv_the_answering_phone_and_the_spectators_only():
    """A Quiz question in a room of twelve: each answer went to all thirteen screens, as every player's view listed
    who had answered, though a phone shows only its own answer (quiz.js ``screenKey``). Now a player's view does not
    list them: the TV, the answering phone and the spectators (whose strip shows who answered) get it."""
    harness = Harness()
    names = tuple(f"Player {i:02d} of tonight"[:20] for i in range(12))  # 20 characters each
    code, tv, phones = quiz_room(harness, players=names, spectators=("Sam",))
    assert control(tv, "start")["ok"]
    until(harness, code, is_open)
    tv.get_received("/tv")
    for client in phones.values():
        client.get_received("/play")
    first, second = names[0], names[1]
    assert act(phones[first], truth(harness, code))["ok"]
    shown = states(tv, "/tv")
    assert len(shown) == 1 and shown[0]["game"]["view"]["answered"] == [0]
    got = {name: states(client) for name, client in phones.items()}
    assert len(got[first]) == 1 and got[first][0]["game"]["view"]["yours"] is not None
    assert got[first][0]["game"]["view"]["answered"] is None  # not who else answered
    assert len(got["Sam"]) == 1 and got["Sam"][0]["game"]["view"]["answered"] == [0]
    assert [name for name, sent in got.items() if sent] == [first, "Sam"], "another's answer reached other players"
    assert act(phones[second], truth(harness, code))["ok"]
    assert [name for name, client in phones.items() if states(client)] == [second, "Sam"]


def test_a_preview_that_opens_on_time_counts_as_shown_on_every_phone(harness: Harness):
    """The preview's end is sent to no one (engine/core.py ``Game.foreseen``): each page opens the question by its
    clock. The phones' views after it are noted as shown, so the first answer, too, goes only where it changes
    something: the TV and the answering phone. A spectator, too, sees the question open by itself."""
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name)[0] for name in ("Ana", "Bob", "Cy")}
    fan, _ = harness.join(code, "Fan", "spectator")
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": False, "preview_seconds": 3})["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert room.session.state.phase == "preview"
    tv.get_received("/tv")
    for client in (*phones.values(), fan):
        client.get_received("/play")
    harness.clock.advance(3000)
    harness.service.tick()
    assert room.session.state.phase == "answer"
    assert states(tv, "/tv") == [] and all(states(c) == [] for c in (*phones.values(), fan))  # told nobody
    assert phones["Ana"].emit("action", {"action": {"answer": "12"}}, namespace="/play", callback=True)["ok"]
    assert len(states(tv, "/tv")) == 1 and len(states(phones["Ana"])) == 1
    assert states(phones["Bob"]) == [] and states(phones["Cy"]) == []
    assert len(states(fan)) == 1  # the public view shows who has answered


def test_round_trips_are_probed_only_where_no_heartbeat_measures_them():
    """``probe_all``: a phone's heartbeat measures its round trip (tests/test_heartbeat_rtt.py), so a phone measured
    lately is probed no more; a player's phone is probed at every pass until it has WARM_SAMPLES measures (a phone
    that joined a moment before the start had honest claims judged against one round trip, and flagged:
    tests/test_fair_timing.py), a spectator's every PLAYER_PROBE_PASSES passes until it has one, and any phone whose
    newest round trip is older than the heartbeat's interval and HEARTBEAT_SLACK_MS is probed again (a test client
    has no heartbeat; a phone may stop answering it in time)."""
    harness = Harness()
    code, _tv = harness.host_room()
    player, player_joined = harness.join(code, "Ana")
    newcomer, _ = harness.join(code, "Bob")
    fan, fan_joined = harness.join(code, "Fan", role="spectator")
    new_fan, _ = harness.join(code, "New", role="spectator")
    connections = harness.service.connections
    sid_of_seat = {seat: sid for sid, (c, seat) in connections.sids.items()}
    for _ in range(WARM_SAMPLES):
        connections.record_rtt(sid_of_seat[player_joined["seat"]], 40)  # measured enough already
    connections.record_rtt(sid_of_seat[fan_joined["seat"]], 40)  # measured once already
    for client in (player, newcomer, fan, new_fan):
        client.get_received("/play")
    passes = 5 * PLAYER_PROBE_PASSES
    broadcaster = harness.rt.broadcaster
    broadcaster.passes = 0
    for _ in range(passes):
        broadcaster.probe_all()

    def probes(client: Any) -> int:  # a player's last probe waits for its next state, or the next pass
        due = sid_of(harness, client) in broadcaster.due
        return sum(m["name"] == "sync" for m in client.get_received("/play")) + due

    assert probes(player) == 0, "a phone measured lately was probed"
    assert probes(newcomer) == passes, "a player's phone with too few round trips was not probed at every pass"
    assert probes(fan) == 0, "a spectator's phone measured lately was probed"
    assert probes(new_fan) == passes // PLAYER_PROBE_PASSES  # until its first measure comes back
    stale_ms = 5000 + HEARTBEAT_SLACK_MS  # host/app.py ping_interval: 5 s
    harness.clock.advance(stale_ms)  # no heartbeat measured in time: the measured phones are probed again
    for _ in range(PLAYER_PROBE_PASSES):
        broadcaster.probe_all()
    assert probes(player) == 0 and probes(fan) == 0, "a round trip just as old as a heartbeat's was probed"
    harness.clock.advance(1)
    for _ in range(PLAYER_PROBE_PASSES):
        broadcaster.probe_all()
    assert probes(player) == 1 and probes(fan) == 1, "a phone whose round trip went stale was not probed"


def test_a_players_probe_rides_on_its_next_state_and_times_its_acknowledgement(harness: Harness):
    """A player's round trip due at a probe pass is timed on the next state the phone gets (sent with an ack asked
    for), not on a ``sync`` of its own: two messages fewer per probe while the game moves (the party benchmark sent
    1.8 probes per action). A phone that got no state within PROBE_WAIT_PASSES passes gets its ``sync`` then.
    Spectators keep theirs."""
    code, _tv = harness.host_room()
    ana, ana_joined = harness.join(code, "Ana")
    fan, _ = harness.join(code, "Fan", role="spectator")
    broadcaster, connections = harness.rt.broadcaster, harness.service.connections
    manager = harness.rt.socketio.server.manager
    ana_sid = sid_of(harness, ana)
    stale_ms = 5000 + HEARTBEAT_SLACK_MS + 1  # a test client has no heartbeat: its round trip goes stale
    for _ in range(WARM_SAMPLES):
        connections.record_rtt(ana_sid, 40)  # measured enough already, but long ago
    harness.clock.advance(stale_ms)
    for client in (ana, fan):
        client.get_received("/play")
    broadcaster.passes = 0
    broadcaster.probe_all()  # a pass that probes everyone
    assert ana_sid in broadcaster.due
    assert [m["name"] for m in ana.get_received("/play")] == [], "the player's probe did not wait for a state"
    assert [m["name"] for m in fan.get_received("/play")] == ["sync"]
    waiting = dict(manager.callbacks.get(ana_sid, {}))
    harness.join(code, "Bob")  # the room changes: Ana's phone gets a state, which carries her probe
    assert "state" in [m["name"] for m in ana.get_received("/play")]
    assert ana_sid not in broadcaster.due
    acks = {k: v for k, v in manager.callbacks[ana_sid].items() if k and k not in waiting}
    assert len(acks) == 1, "the state was not sent with an acknowledgement asked for"
    before = list(connections.rtts.get(ana_sid, ()))
    harness.clock.advance(37)  # the ack comes back 37 ms after the state went
    manager.trigger_callback(ana_sid, next(iter(acks)), [{}])  # the phone acknowledges (phone.js does so at once)
    assert list(connections.rtts[ana_sid]) == [*before, 37]
    broadcaster.probe_all()  # the next pass: the probe was taken, so no sync
    assert "sync" not in [m["name"] for m in ana.get_received("/play")]
    harness.clock.advance(stale_ms)
    broadcaster.passes = 0
    broadcaster.probe_all()
    for _ in range(PROBE_WAIT_PASSES - 1):  # no state for Ana: her probe waits a while for one
        broadcaster.probe_all()
        assert "sync" not in [m["name"] for m in ana.get_received("/play")]
    broadcaster.probe_all()  # then it is a sync of its own, at the same rate as before
    assert [m["name"] for m in ana.get_received("/play")].count("sync") == 1
    assert ana_joined["seat"] in connections.connected_seats(code)


def test_a_kicked_seat_is_told_on_each_of_its_phones_and_let_go(harness: Harness):
    code, tv = harness.host_room()
    ana, joined = harness.join(code, "Ana")
    again = harness.phone()  # Ana's second phone, on the same seat
    assert again.emit("hello", {"code": code, "token": joined["token"]}, namespace="/play", callback=True)["ok"]
    bob, bob_joined = harness.join(code, "Bob")
    for client in (ana, again, bob):
        client.get_received("/play")
    assert control(tv, "kick", seat=joined["seat"])["ok"]
    connections = harness.service.connections
    for client in (ana, again):
        kicked = [m["args"][0] for m in client.get_received("/play") if m["name"] == "kicked"]
        assert kicked == [{"code": code}]
        assert connections.where(sid_of(harness, client)) is None  # no longer the seat's phone
    assert joined["seat"] not in connections.connected_seats(code)
    assert not any(m["name"] == "kicked" for m in bob.get_received("/play"))
    assert connections.where(sid_of(harness, bob)) == (code, bob_joined["seat"])


def test_a_moved_rooms_sockets_are_closed_so_that_they_reconnect_to_its_new_holder(harness: Harness):
    """A room handed over or taken by another worker (``RoomService.room_moved``): its sockets are closed at the
    Engine.IO level, as a stop closes them, and the pages reconnect by themselves (docs/scaling.md). The test
    clients have no Engine.IO sockets of their own: stand-ins record how each is closed."""
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    other, other_tv = harness.host_room()
    eio = harness.rt.socketio.server.eio
    closed: list[tuple[str, bool, Any]] = []

    class Socket:
        def __init__(self, name: str):
            self.name = name

        def close(self, wait: bool = True, abort: bool = False, reason: Any = None) -> None:
            closed.append((self.name, wait, reason))

    for name, client in (("tv", tv), ("Ana", ana), ("other tv", other_tv)):
        eio.sockets[client.eio_sid] = Socket(name)
    tv_sid = sid_of(harness, tv, "/tv")
    assert tv_sid in harness.rt.host_sids
    harness.service.room_moved(code)
    assert sorted(closed) == [("Ana", False, eio.reason.SERVER_DISCONNECT), ("tv", False, eio.reason.SERVER_DISCONNECT)]
    assert tv_sid not in harness.rt.host_sids  # host rights stay with the room's new holder
    assert code not in harness.service.rooms and harness.service.connections.where(sid_of(harness, ana)) is None
    assert harness.service.connections.where(sid_of(harness, other_tv, "/tv")) == (other, None)  # untouched
