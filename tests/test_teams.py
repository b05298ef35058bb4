"""Games played in teams (Seizing the Crown's houses, CROWN-D2): people pick a team in the lobby, the host can move
them, every team is one game seat that any of its phones may move, a bot plays a team no one joined, and a
latecomer joins a team in a running game. Tested with the unlisted three-team Tally."""

from __future__ import annotations

from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, control, last_state


def team_room(harness: Harness, names: list[str]) -> tuple[str, object, dict[str, object]]:
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name)[0] for name in names}
    assert control(tv, "select_game", game="teamtally")["ok"]
    return code, tv, phones


def pick(phone: object, team: object) -> dict:
    return phone.emit("team", {"team": team}, namespace="/play", callback=True)  # type: ignore[attr-defined]


def act(phone: object, amount: int, step: int | None = None) -> dict:
    payload = {"action": {"add": amount}} if step is None else {"action": {"add": amount}, "step": step}
    return phone.emit("action", payload, namespace="/play", callback=True)  # type: ignore[attr-defined]


def test_players_pick_teams_in_the_lobby_and_bad_choices_are_refused(harness: Harness):  # CROWN-D2
    code, tv, phones = team_room(harness, ["Ana", "Bob", "Cy"])
    watcher, _ = harness.join(code, "Wes", "spectator")
    assert pick(phones["Ana"], 0)["ok"] and pick(phones["Bob"], 0)["ok"]
    for bad in (3, -1, True, "red", 1.5):
        answer = pick(phones["Cy"], bad)
        assert not answer["ok"] and answer["error"]["code"] == "invalid_team" and answer["error"]["field"] == "team"
    assert pick(watcher, 1)["error"]["code"] == "not_a_player"
    assert phones["Cy"].emit("team", {}, namespace="/play", callback=True)["error"]["field"] == "team"
    lobby = last_state(tv, "/tv")
    assert {p["name"]: p["team"] for p in lobby["players"]} == {"Ana": 0, "Bob": 0, "Cy": None}
    chosen = next(g for g in lobby["games"] if g["id"] == "teamtally")
    assert chosen["teams"] and len(chosen["team_keys"]) == 3 and len(chosen["team_colours"]) == 3
    # the host rebalances: Bob moves to the third team
    bob_seat = next(p["id"] for p in lobby["players"] if p["name"] == "Bob")
    assert control(tv, "team", seat=bob_seat, team=2)["ok"]
    assert {p["name"]: p["team"] for p in last_state(tv, "/tv")["players"]}["Bob"] == 2
    assert pick(phones["Ana"], None)["ok"]  # no preference any more
    # a game not played in teams has no teams to pick
    assert control(tv, "select_game", game="tally")["ok"]
    assert pick(phones["Ana"], 1)["error"]["code"] == "no_teams"


def test_a_team_is_one_game_seat_any_member_moves_and_a_bot_plays_an_empty_team(harness: Harness):  # CROWN-D2
    code, tv, phones = team_room(harness, ["Ana", "Bob", "Cy"])
    assert pick(phones["Ana"], 1)["ok"] and pick(phones["Bob"], 1)["ok"]
    assert control(tv, "settings", game="teamtally", settings={"turn_seconds": 60})["ok"]
    assert control(tv, "start")["ok"]
    game = last_state(tv, "/tv")["game"]
    slots = game["slots"]
    assert len(slots) == 3
    assert slots[1]["name"] == "Ana, Bob" and len(slots[1]["members"]) == 2 and not slots[1]["bot"]
    assert slots[0]["name"] == "Cy" and not slots[0]["bot"]  # Cy had no team: put in the smallest, the first
    assert slots[2]["bot"] and slots[2]["members"] == []
    assert {p["name"]: p["team"] for p in last_state(tv, "/tv")["players"]}["Cy"] == 0
    ana, bob = last_state(phones["Ana"], "/play")["game"], last_state(phones["Bob"], "/play")["game"]
    assert ana["you"] == bob["you"] == 1 and ana["view"] == bob["view"]  # one private view for the whole team

    room = harness.service.room(code)
    state = room.session.state
    while state.current != 1:  # let the others move until it is the team's turn
        mover = state.current
        if mover == 0:
            assert act(phones["Cy"], 1)["ok"]
        else:
            harness.service.submit(room, "action", {"slot": mover, "action": {"add": 1}})
        state = room.session.state
    step = harness.service.room(code).session.game.step(state)
    assert act(phones["Bob"], 1, step)["ok"]  # any member may act for the team
    late = act(phones["Ana"], 2, step)  # the first valid action wins; the teammate's is refused
    assert not late["ok"] and late["error"]["code"] in ("not_your_turn", "stale")
    assert last_state(phones["Ana"], "/play")["game"]["view"]["history"][-1][:2] == [1, 1]


def test_a_latecomer_joins_a_running_team_game_and_cannot_switch(harness: Harness):  # CROWN-D2
    code, tv, phones = team_room(harness, ["Ana"])
    assert pick(phones["Ana"], 0)["ok"] and control(tv, "start")["ok"]
    dan, _ = harness.join(code, "Dan")
    assert last_state(dan, "/play")["game"]["you"] is None
    request = pick(dan, 0)["request"]  # a team with people lets a latecomer in only when a member agrees ([11])
    assert phones["Ana"].emit("house_answer", {"request": request, "accept": True}, namespace="/play",
                              callback=True)["ok"]
    game = last_state(dan, "/play")["game"]
    assert game["you"] == 0 and game["slots"][0]["name"] == "Ana, Dan"
    assert pick(dan, 1)["error"]["code"] == "already_in_team"
    eve, _ = harness.join(code, "Eve")
    assert pick(eve, 2)["ok"]  # a team a bot played is now Eve's
    assert last_state(tv, "/tv")["game"]["slots"][2]["bot"] is False


def test_kicking_members_keeps_the_team_until_no_one_is_left_and_the_log_rebuilds_teams():  # CROWN-D2
    store, clock = Store("sqlite://"), FakeClock()
    service = RoomService(store, clock, include_unlisted=True)
    room = service.room(service.create_room()[0])
    seats = [service.join(room, name, "player")[0] for name in ("Ana", "Bob", "Cy")]
    service.host_event(room, "select_game", {"game": "teamtally"})
    for seat in seats:
        service.submit(room, "team", {"seat": seat, "team": 2})
    service.host_event(room, "start", {})
    assert room.session.slots[2].members == seats
    service.host_event(room, "kick", {"seat": seats[0]})
    slot = room.session.slots[2]
    assert slot.members == seats[1:] and slot.seat_id == seats[1] and slot.name == "Bob, Cy" and not slot.is_bot
    service.submit(room, "rename", {"seat": seats[2], "name": "Cyrus"})
    assert slot.name == "Bob, Cyrus"
    again = RoomService(store, clock, include_unlisted=True)
    assert again.restore_all() == 1
    rebuilt = again.room(room.code).session.slots[2]
    assert rebuilt.members == seats[1:] and rebuilt.name == "Bob, Cyrus"
    for seat in seats[1:]:
        service.host_event(room, "kick", {"seat": seat})
    assert slot.is_bot and slot.seat_id is None and slot.name == "Bot"


def test_a_team_is_away_only_when_all_its_phones_are(harness: Harness):  # CROWN-D2, CROWN-D7
    code, tv, phones = team_room(harness, ["Ana", "Bob"])
    assert pick(phones["Ana"], 0)["ok"] and pick(phones["Bob"], 0)["ok"] and control(tv, "start")["ok"]
    room = harness.service.room(code)
    members = room.session.slots[0].members
    phones["Ana"].disconnect(namespace="/play")
    harness.clock.advance(60_000)
    assert not harness.service.connections.team_away(room, members)
    phones["Bob"].disconnect(namespace="/play")
    harness.clock.advance(60_000)
    assert harness.service.connections.team_away(room, members)
