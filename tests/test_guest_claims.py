"""A stranger's "That's me" and seats nobody uses (issue [16], docs/seats.md): a claim ends the moment the owner's
phone is back, a locked room takes none, one name has one claim waiting, and the seats of players who joined, never
played and left are freed for a newcomer once the seat grace has passed."""

from __future__ import annotations

from typing import Any

import socketio
from playwright.sync_api import expect

from host.room import MAX_PLAYERS
from host.service import RoomService
from tests.conftest import Harness, LiveServer, control, last_state
from tests.e2e import open_tv, shot


def errcode(answer: dict[str, Any]) -> str | None:
    return None if answer["ok"] else answer["error"]["code"]


def emit(client: Any, event: str, data: Any) -> dict[str, Any]:
    return client.emit(event, data, namespace="/play", callback=True)


def received(client: Any, name: str) -> list[Any]:
    return [m["args"][0] if m["args"] else None for m in client.get_received("/play") if m["name"] == name]


def lobby(harness: Harness, *names: str) -> tuple[str, Any, dict[str, tuple[Any, dict[str, Any]]]]:
    code, tv = harness.host_room()
    return code, tv, {name: harness.join(code, name) for name in names}


def two_away(harness: Harness) -> tuple[str, Any, dict[str, tuple[Any, dict[str, Any]]]]:
    """A lobby of Ana, Bob and Cy in which Bob's and Cy's phones are gone (someone may say "that's me")."""
    code, tv, phones = lobby(harness, "Ana", "Bob", "Cy")
    phones["Bob"][0].disconnect(namespace="/play")
    phones["Cy"][0].disconnect(namespace="/play")
    return code, tv, phones


def tv_claims(harness: Harness, tv: Any) -> list[dict[str, Any]]:
    state = last_state(tv, "/tv")
    assert state is not None
    return state["claims"]


# ----- "That's me" -----

def test_a_claim_ends_the_moment_the_owners_phone_is_back():
    harness = Harness()
    code, tv, phones = lobby(harness, "Ana", "Bob")
    bob, joined = phones["Bob"]
    bob.disconnect(namespace="/play")
    stranger = harness.phone()
    asked = emit(stranger, "claim", {"code": code, "name": "Bob"})
    assert asked["ok"], asked
    assert [c["name"] for c in tv_claims(harness, tv)] == ["Bob"]
    back = harness.phone()  # Bob's own phone reconnects with its token
    assert emit(back, "hello", {"code": code, "token": joined["token"]})["ok"]
    assert tv_claims(harness, tv) == [], "the stranger's claim stayed on the TV after Bob was back"
    assert received(stranger, "claim_refused") == [{"code": code, "reason": "back"}]
    assert errcode(control(tv, "claim", claim=asked["claim"], accept=True)) == "no_claim"  # a stale tap gives nothing
    assert received(stranger, "claimed") == []
    assert harness.service.seat_by_token(harness.service.room(code), joined["token"]) == 2


def test_a_locked_room_takes_no_claim_and_locking_ends_those_waiting():
    harness = Harness()
    code, tv, _phones = two_away(harness)  # (Ana's phone stays connected while it is held)
    early = harness.phone()
    asked = emit(early, "claim", {"code": code, "name": "Cy"})
    assert asked["ok"], asked
    assert control(tv, "lock", locked=True)["ok"]
    late = harness.phone()
    answer = emit(late, "claim", {"code": code, "name": "Bob"})
    assert errcode(answer) == "room_locked", answer
    assert tv_claims(harness, tv) == [], "a claim kept waiting in a locked room"
    assert received(early, "claim_refused") == [{"code": code, "reason": "locked"}]
    assert errcode(control(tv, "claim", claim=asked["claim"], accept=True)) == "no_claim"
    assert control(tv, "lock", locked=False)["ok"]
    assert emit(late, "claim", {"code": code, "name": "Bob"})["ok"]  # unlocked: asking works again


def test_one_name_has_one_claim_waiting_and_the_tv_gets_one_entry_per_name():
    harness = Harness()
    code, tv, _phones = two_away(harness)  # (Ana's phone stays connected while it is held)
    first = harness.phone()
    asked = emit(first, "claim", {"code": code, "name": "Bob"})
    assert asked["ok"]
    strangers = [harness.phone() for _ in range(11)]
    answers = [emit(s, "claim", {"code": code, "name": "bob"}) for s in strangers]
    assert {errcode(a) for a in answers} == {"claim_waiting"}, answers
    assert {a["error"]["field"] for a in answers} == {"name"}
    assert emit(first, "claim", {"code": code, "name": "BOB"})["ok"]  # the same phone asking again replaces its own
    assert emit(strangers[0], "claim", {"code": code, "name": "Cy"})["ok"]  # another name waits beside it
    claims = tv_claims(harness, tv)
    assert sorted(c["name"] for c in claims) == ["Bob", "Cy"], claims
    bob_claim = next(c["id"] for c in claims if c["name"] == "Bob")
    assert control(tv, "claim", claim=bob_claim, accept=False)["ok"]
    assert emit(strangers[1], "claim", {"code": code, "name": "Bob"})["ok"]  # answered: the name may be asked again


def test_the_tv_shows_the_claims_waiting_on_one_line(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url)
    phones: list[socketio.Client] = []

    def phone() -> socketio.Client:
        client = socketio.Client(reconnection=False)
        client.connect(server.url, namespaces=["/play"], transports=["websocket"], wait_timeout=10)
        phones.append(client)
        return client

    try:
        names = ("Bogdan", "Cyrus", "Dana", "Ecaterina")
        for name in names:
            joined = phone()
            assert joined.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play")["ok"]
            if name != "Bogdan":
                joined.disconnect()
        for name in names[1:]:
            assert phone().call("claim", {"code": code, "name": name}, namespace="/play")["ok"]
        box = tv.locator("#claims")
        expect(box).to_contain_text("Cyrus")
        expect(tv.locator("#claims-more")).to_contain_text("2")
        expect(box.locator(".claim")).to_have_count(1)
        area = box.bounding_box()
        assert area is not None and area["height"] < 0.1 * 1080, area  # one line, not a stack over the game
        shot(tv, "claims-one-line")
        tv.click("[data-claim-no]")  # held a moment when shown, then answers the request it shows
        expect(box).to_contain_text("Dana")
        expect(tv.locator("#claims-more")).to_contain_text("1")
    finally:
        for client in phones:
            client.disconnect()


# ----- seats of players who left without playing -----

def test_players_who_joined_and_left_without_playing_free_their_seats_after_the_grace():
    harness = Harness()
    code, _ = harness.host_room()
    left = [harness.join(code, f"Guest {i}") for i in range(MAX_PLAYERS)]
    for phone, _ in left:
        phone.disconnect(namespace="/play")
    newcomer = harness.phone()
    assert errcode(emit(newcomer, "join", {"code": code, "name": "Zoe"})) == "room_full"  # within the grace
    harness.clock.advance(59_000)
    assert errcode(emit(newcomer, "join", {"code": code, "name": "Zoe"})) == "room_full"
    harness.clock.advance(1_000)
    joined = emit(newcomer, "join", {"code": code, "name": "Zoe"})
    assert joined["ok"], joined
    room = harness.service.room(code)
    assert len(room.players()) == MAX_PLAYERS
    freed = [s for s in room.seats.values() if s.kicked]
    assert [s.name for s in freed] == ["Guest 0"], "the seat gone longest is freed, one for one newcomer"
    again = harness.phone()
    answer = emit(again, "hello", {"code": code, "token": left[0][1]["token"]})
    assert errcode(answer) == "seat_freed", answer
    assert emit(again, "join", {"code": code, "name": "Guest 0"})["ok"]  # the name is free, the next seat freed
    assert [s.name for s in room.seats.values() if s.kicked] == ["Guest 0", "Guest 1"]
    replayed = RoomService(harness.service.store, harness.clock).room(code)  # the freeing is logged
    assert [s.name for s in replayed.players()] == [s.name for s in room.players()]


def test_a_player_who_played_a_game_keeps_the_seat_and_a_spectator_may_take_a_freed_one():
    harness = Harness()
    code, tv = harness.host_room()
    phones = [harness.join(code, f"Guest {i}") for i in range(MAX_PLAYERS)]
    eve, _ = harness.join(code, "Eve", "spectator")
    assert control(tv, "select_game", game="tally")["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    played = {s.seat_id for s in room.session.slots if s.seat_id is not None}
    assert len(played) == 4
    assert control(tv, "end")["ok"] and control(tv, "lobby")["ok"]
    for phone, _ in phones:
        phone.disconnect(namespace="/play")
    harness.clock.advance(61_000)
    assert emit(eve, "sit_out", {"out": False})["ok"]  # a spectator asking to play takes a freed seat too
    joined = [emit(harness.phone(), "join", {"code": code, "name": f"New {i}"}) for i in range(8)]
    assert [errcode(a) for a in joined] == [None] * 7 + ["room_full"], joined
    assert {s.id for s in room.players()} >= played, "a seat that played a game was freed"
    assert len(room.players()) == MAX_PLAYERS
