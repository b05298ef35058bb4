"""Who may join a house of a running Seizing the Crown (issue [11], finding 4): in the lobby picks are free
(CROWN-D2); in a running game a bot's house takes a latecomer at once, and a house with people takes a new member
only when one of its members lets them in on their phone, so a stranger never receives a rival house's private view
(CROWN-D4, CROWN-D5). The room checks who agreed (``by``), so a replay of the log gives the same houses."""

from __future__ import annotations

import json
from typing import Any

from host.houses import MAX_REQUESTS, REQUEST_TTL_MS
from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, control, last_state

PRIVATE_FIELDS = ("you", "status", "crowns", "debts", "disclosures", "chronicle", "prompts", "actions", "used")


def pick(phone: Any, team: Any) -> dict:
    return phone.emit("team", {"team": team}, namespace="/play", callback=True)


def answer(phone: Any, request: Any, accept: Any) -> dict:
    return phone.emit("house_answer", {"request": request, "accept": accept}, namespace="/play", callback=True)


def pushes(phone: Any, name: str) -> list[dict]:
    """The pushes of one kind a phone received since the last look (the states stay for ``last_state``)."""
    received = phone.get_received("/play")
    states = [m["args"][0] for m in received if m["name"] == "state"]
    if states:
        phone.throneroom_last_state = states[-1]
    phone.throneroom_seen = [*getattr(phone, "throneroom_seen", []), *received]
    return [m["args"][0] for m in received if m["name"] == name]


def seen_states(phone: Any) -> list[dict]:
    """Every state message the phone received so far (all of them, for the secrecy checks)."""
    pushes(phone, "state")
    return [m["args"][0] for m in phone.throneroom_seen if m["name"] == "state"]


def assert_never_private(phone: Any, house: int) -> None:
    """No message to this phone carried the house's private view (CROWN-D5)."""
    for state in seen_states(phone):
        game = state.get("game")
        if game:
            assert game["you"] is None, f"the latecomer received house {game['you']}'s private view"
            assert not set(PRIVATE_FIELDS) & set(game["view"]), set(PRIVATE_FIELDS) & set(game["view"])
            assert "prestige" not in json.dumps(state)


def crown_game(harness: Harness, houses: dict[str, int]) -> tuple[str, Any, dict[str, Any]]:
    """A running Crown game: the TV and a phone per name in its house."""
    code, tv = harness.host_room()
    assert control(tv, "select_game", game="crown")["ok"]
    phones = {name: harness.join(code, name)[0] for name in houses}
    for name, house in houses.items():
        assert pick(phones[name], house)["ok"]  # CROWN-D2: in the lobby a pick is free
    assert control(tv, "start")["ok"]
    return code, tv, phones


def seat_of(harness: Harness, code: str, name: str) -> int:
    return harness.service.room(code).seat_named(name).id


def test_a_latecomer_does_not_get_a_house_with_people_by_picking_it(harness: Harness):
    # CROWN-D2, CROWN-D4, CROWN-D5: the finding: a second phone picked Ana's house and got its private view at once
    code, tv, _phones = crown_game(harness, {"Ana": 1})
    mal, _ = harness.join(code, "Mal")
    answer_ = pick(mal, 1)
    assert_never_private(mal, 1)
    assert answer_["ok"] and answer_.get("request"), answer_  # a request, not a member
    assert last_state(mal, "/play")["game"]["you"] is None
    assert harness.service.room(code).session.slots[1].members == [seat_of(harness, code, "Ana")]
    assert_never_private(mal, 1)
    assert last_state(tv, "/tv").get("house_requests") is None  # the TV shows nothing of it (CROWN-D3)
    ana = seat_of(harness, code, "Ana")
    forged = mal.emit("team", {"team": 1, "by": ana}, namespace="/play", callback=True)  # a pick never carries by
    assert forged["ok"] and forged["request"] != answer_["request"]
    assert harness.service.room(code).session.slots[1].members == [ana]
    assert_never_private(mal, 1)


def test_a_bots_house_takes_a_latecomer_at_once(harness: Harness):
    # CROWN-D2: a house with no players is a bot's; a latecomer takes it as before
    code, tv, _phones = crown_game(harness, {"Ana": 1})
    dan, _ = harness.join(code, "Dan")
    assert pick(dan, 3) == {"ok": True, "joined": True}
    assert last_state(dan, "/play")["game"]["you"] == 3
    assert last_state(tv, "/tv")["game"]["slots"][3]["bot"] is False


def test_a_member_lets_the_latecomer_in_and_the_log_records_who(harness: Harness):
    # CROWN-D2, CROWN-D4: the member's phone is asked; once let in, the latecomer sees the house's private view
    code, _tv, phones = crown_game(harness, {"Ana": 1, "Bob": 1, "Cy": 2})
    for phone in phones.values():
        pushes(phone, "house_request")
    dan, _ = harness.join(code, "Dan")
    request = pick(dan, 1)["request"]
    for name in ("Ana", "Bob"):  # every connected member is asked, by push and in its state
        assert pushes(phones[name], "house_request") == [{"code": code, "request": request, "name": "Dan", "team": 1}]
        asks = last_state(phones[name], "/play")["house_requests"]["asks"]
        assert asks == [{"id": request, "seat": seat_of(harness, code, "Dan"), "name": "Dan"}]
    assert pushes(phones["Cy"], "house_request") == []  # another house is not asked
    assert last_state(phones["Cy"], "/play")["house_requests"] is None
    assert last_state(dan, "/play")["house_requests"] == {"asking": {"id": request, "team": 1}, "asks": []}
    assert answer(phones["Cy"], request, True)["error"]["code"] == "not_your_house"  # a rival cannot let them in
    assert answer(phones["Bob"], request, True) == {"ok": True}
    assert pushes(dan, "house_answered") == [{"code": code, "request": request, "team": 1, "accepted": True,
                                              "reason": None}]
    game = last_state(dan, "/play")["game"]
    assert game["you"] == 1 and "chronicle" in game["view"]
    assert game["view"] == last_state(phones["Ana"], "/play")["game"]["view"]  # the house's one private view
    assert last_state(phones["Ana"], "/play")["house_requests"] is None  # the prompt is gone from both phones
    assert answer(phones["Ana"], request, True)["error"]["code"] == "no_request"  # answered once
    team = [e.data for e in harness.service.store.events(code) if e.kind == "team"][-1]
    assert team["by"] == seat_of(harness, code, "Bob") and team["seat"] == seat_of(harness, code, "Dan")


def test_a_refused_latecomer_is_told_and_never_receives_the_house(harness: Harness):
    # CROWN-D2, CROWN-D5
    code, _tv, phones = crown_game(harness, {"Ana": 1})
    mal, _ = harness.join(code, "Mal")
    request = pick(mal, 1)["request"]
    assert answer(phones["Ana"], request, False) == {"ok": True}
    assert pushes(mal, "house_answered") == [{"code": code, "request": request, "team": 1, "accepted": False,
                                              "reason": "refused"}]
    assert last_state(mal, "/play")["house_requests"] is None  # the picker again
    assert harness.service.room(code).session.slots[1].members == [seat_of(harness, code, "Ana")]
    assert_never_private(mal, 1)
    assert pick(mal, 3)["joined"]  # another house: a bot's, at once
    assert all(state["game"]["you"] in (None, 3) for state in seen_states(mal) if state.get("game"))


def test_a_request_ends_after_a_minute(harness: Harness):
    # CROWN-D2: nobody answered
    code, _tv, phones = crown_game(harness, {"Ana": 1})
    mal, _ = harness.join(code, "Mal")
    request = pick(mal, 1)["request"]
    harness.clock.advance(REQUEST_TTL_MS - 1)
    harness.service.tick()
    assert pushes(mal, "house_answered") == []
    harness.clock.advance(1)
    harness.service.tick()
    assert pushes(mal, "house_answered") == [{"code": code, "request": request, "team": 1, "accepted": False,
                                              "reason": "timeout"}]
    assert last_state(phones["Ana"], "/play")["house_requests"] is None
    assert answer(phones["Ana"], request, True)["error"]["code"] == "no_request"
    assert harness.service.room(code).session.slots[1].members == [seat_of(harness, code, "Ana")]


def test_a_request_ends_when_its_phone_leaves(harness: Harness):
    code, _tv, phones = crown_game(harness, {"Ana": 1})
    mal, _ = harness.join(code, "Mal")
    request = pick(mal, 1)["request"]
    assert last_state(phones["Ana"], "/play")["house_requests"]["asks"][0]["id"] == request
    mal.disconnect(namespace="/play")
    assert last_state(phones["Ana"], "/play")["house_requests"] is None
    assert answer(phones["Ana"], request, True)["error"]["code"] == "no_request"
    assert harness.service.room(code).session.slots[1].members == [seat_of(harness, code, "Ana")]


def test_no_member_connected_refuses_at_once_and_the_last_member_leaving_ends_a_request(harness: Harness):
    # CROWN-D2: nobody of the house can let anyone in
    code, _tv, phones = crown_game(harness, {"Ana": 1, "Bob": 2})
    phones["Ana"].disconnect(namespace="/play")
    mal, _ = harness.join(code, "Mal")
    refused = pick(mal, 1)
    assert refused["error"]["code"] == "house_nobody_here" and refused["error"]["field"] == "team"
    assert last_state(mal, "/play")["house_requests"] is None
    request = pick(mal, 2)["request"]
    phones["Bob"].disconnect(namespace="/play")
    assert pushes(mal, "house_answered") == [{"code": code, "request": request, "team": 2, "accepted": False,
                                              "reason": "nobody_here"}]
    assert last_state(mal, "/play")["house_requests"] is None


def test_a_new_pick_replaces_the_request_and_requests_are_bounded(harness: Harness):
    code, _tv, phones = crown_game(harness, {"Ana": 1, "Bob": 2})
    mal, _ = harness.join(code, "Mal")
    first = pick(mal, 1)["request"]
    second = pick(mal, 2)["request"]
    assert first != second
    assert last_state(phones["Ana"], "/play")["house_requests"] is None
    assert [a["id"] for a in last_state(phones["Bob"], "/play")["house_requests"]["asks"]] == [second]
    assert answer(phones["Ana"], first, True)["error"]["code"] == "no_request"
    late = [harness.join(code, f"Late{i}")[0] for i in range(MAX_REQUESTS)]
    answers = [pick(phone, 1) for phone in late]
    assert all(a["ok"] for a in answers[: MAX_REQUESTS - 1])
    assert answers[-1]["error"]["code"] == "too_many_requests"
    for bad in ("x", None, 1.5, 1):
        assert not answer(phones["Bob"], second, bad)["ok"]
    assert answer(phones["Bob"], "nope", True)["error"]["code"] == "no_request"
    assert pick(late[0], 9)["error"]["code"] == "invalid_team"


# ----- the room's own rule: a mid-game enlist into a house with people needs a valid ``by`` -----


def crown_room() -> tuple[Store, FakeClock, RoomService, Any, dict[str, int]]:
    store, clock = Store("sqlite://"), FakeClock()
    service = RoomService(store, clock)
    room = service.room(service.create_room()[0])
    seats = {name: service.join(room, name, "player")[0] for name in ("Ana", "Bob", "Cy")}
    service.host_event(room, "select_game", {"game": "crown"})
    service.submit(room, "team", {"seat": seats["Ana"], "team": 1})
    service.submit(room, "team", {"seat": seats["Bob"], "team": 1})
    service.submit(room, "team", {"seat": seats["Cy"], "team": 2})
    service.host_event(room, "start", {})
    return store, clock, service, room, seats


def test_the_room_refuses_an_enlist_into_a_house_with_people_without_a_valid_by():
    # CROWN-D2, CROWN-D5: checked in the room, so no path around the phones' consent (the host's included)
    _store, _clock, service, room, seats = crown_room()
    dan = service.join(room, "Dan", "player")[0]
    eve = service.join(room, "Eve", "player")[0]
    for by in (None, seats["Cy"], dan, eve, 999, "1", True, float(seats["Ana"])):
        data = {"seat": dan, "team": 1} if by is None else {"seat": dan, "team": 1, "by": by}
        try:
            service.submit(room, "team", data)
        except Exception as error:  # noqa: BLE001 - the room's refusal
            assert getattr(error, "code", None) == "house_consent", (by, error)
        else:
            raise AssertionError(f"an enlist with by={by!r} was taken")
    try:
        service.host_event(room, "team", {"seat": dan, "team": 1})  # the host's move counts like a phone's pick
    except Exception as error:  # noqa: BLE001
        assert error.code == "house_consent"
    else:
        raise AssertionError("the host moved a latecomer into a house with people")
    service.host_event(room, "kick", {"seat": seats["Bob"]})
    try:
        service.submit(room, "team", {"seat": dan, "team": 1, "by": seats["Bob"]})  # a kicked member agrees no more
    except Exception as error:  # noqa: BLE001
        assert error.code == "house_consent"
    else:
        raise AssertionError("a kicked member let someone in")
    try:
        service.submit(room, "team", {"seat": dan, "team": 3, "by": seats["Ana"]})  # Ana is not of the bot's house
    except Exception as error:  # noqa: BLE001
        assert error.code == "house_consent"
    else:
        raise AssertionError("a forged by was taken for a bot's house")
    assert room.session.slots[1].members == [seats["Ana"]]
    service.submit(room, "team", {"seat": dan, "team": 1, "by": seats["Ana"]})
    service.host_event(room, "team", {"seat": eve, "team": 4})  # a bot's house: at once, by anyone
    assert room.session.slots[1].members == [seats["Ana"], dan] and room.session.slots[4].members == [eve]


def test_the_lobby_stays_free_and_a_replay_gives_the_same_houses():
    # CROWN-D2: in the lobby nobody has secrets yet; the log replays enlists with who agreed
    store, clock, service, room, seats = crown_room()
    dan = service.join(room, "Dan", "player")[0]
    service.submit(room, "team", {"seat": dan, "team": 2, "by": seats["Cy"]})
    again = RoomService(store, clock)
    assert again.restore_all() == 1
    rebuilt = again.room(room.code)
    assert [s.members for s in rebuilt.session.slots] == [s.members for s in room.session.slots]
    assert rebuilt.session.state == room.session.state
    service.host_event(room, "end", {})
    service.host_event(room, "lobby", {})
    service.submit(room, "team", {"seat": dan, "team": 1})  # a lobby pick needs no one's consent
    service.host_event(room, "team", {"seat": seats["Ana"], "team": 0})
    assert room.seats[dan].team == 1 and room.seats[seats["Ana"]].team == 0


def test_a_log_from_before_consent_still_replays():
    # CROWN-D2: a room logged before this rule (an enlist into a house with people without ``by``) restores whole
    store, clock, service, room, seats = crown_room()
    dan = service.join(room, "Dan", "player")[0]
    store.append(room.code, room.seq + 1, "team", {"seat": dan, "team": 1, "gt": room.game_ms}, clock.wall_ms())
    again = RoomService(store, clock)
    assert again.restore_all() == 1
    assert again.room(room.code).session.slots[1].members == [seats["Ana"], seats["Bob"], dan]
    try:
        again.submit(again.room(room.code), "team", {"seat": again.join(again.room(room.code), "Eve", "player")[0],
                                                     "team": 1})
    except Exception as error:  # noqa: BLE001 - live, the rule holds again
        assert error.code == "house_consent"
    else:
        raise AssertionError("a live enlist without by was taken after a replay")
