"""Seats through a game night (issue [10], docs/seats.md) at the level of the room service, with a fake clock: the
lineup and its controls, "that's me" takeovers, and what a restart keeps, each with the errors bad input gets."""

from __future__ import annotations

from typing import Any

import pytest

from host.service import RoomService
from tests.conftest import Harness, control, last_state


def errcode(answer: dict[str, Any]) -> str | None:
    return None if answer["ok"] else answer["error"]["code"]


def emit(client: Any, event: str, data: Any) -> dict[str, Any]:
    return client.emit(event, data, namespace="/play", callback=True)


def lobby(harness: Harness, names: tuple[str, ...], game: str = "campaign") -> tuple[str, Any, dict[str, Any]]:
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name) for name in names}
    assert control(tv, "select_game", game=game)["ok"]
    return code, tv, phones


def seated(harness: Harness, code: str) -> list[str]:
    room = harness.service.room(code)
    return [room.seats[s].name for s in harness.service.lineup(room)]


def test_the_lineup_is_the_first_connected_players_and_a_player_may_watch_one_game():
    harness = Harness()
    code, tv, phones = lobby(harness, ("Ana", "Bob", "Cy", "Dan"))
    assert seated(harness, code) == ["Ana", "Bob", "Cy"]  # three seats in joining order
    bob = phones["Bob"][0]
    assert errcode(emit(bob, "sit_out", {"out": "yes"})) == "invalid"
    assert errcode(emit(bob, "sit_out", {})) == "invalid"
    assert emit(bob, "sit_out", {"out": True})["ok"]
    assert seated(harness, code) == ["Ana", "Cy", "Dan"]
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    assert [s.name for s in room.session.slots] == ["Ana", "Cy", "Dan"]
    assert not room.seats[2].sits_out  # "I'll watch this one" is for one game


def test_the_host_swaps_who_plays_and_bad_swaps_are_refused():
    harness = Harness()
    code, tv, _ = lobby(harness, ("Ana", "Bob", "Cy"))
    harness.join(code, "Eve", "spectator")
    assert errcode(control(tv, "lineup", seat=4, play=True)) == "lineup_full"  # whom would she replace?
    assert errcode(control(tv, "lineup", seat=4, play="yes")) == "invalid"
    assert errcode(control(tv, "lineup", seat=4, play=True, instead=4)) == "invalid"
    assert errcode(control(tv, "lineup", seat=99, play=True)) == "unknown_seat"
    assert errcode(control(tv, "lineup", seat=[4], play=True)) == "unknown_seat"
    assert errcode(control(tv, "lineup", seat=4, play=True, instead={"a": 1})) == "unknown_seat"
    assert errcode(control(tv, "lineup", seat=4, play=False, instead=1)) == "invalid"
    assert seated(harness, code) == ["Ana", "Bob", "Cy"]  # nothing half-applied
    assert control(tv, "lineup", seat=4, play=True, instead=2)["ok"]
    assert seated(harness, code) == ["Ana", "Eve", "Cy"]  # Eve plays where Bob would have
    room = harness.service.room(code)
    assert room.seats[4].role == "player" and room.seats[2].sits_out
    assert control(tv, "lineup", seat=1, play=False)["ok"]
    assert seated(harness, code) == ["Eve", "Cy"]


def test_a_phone_gone_past_the_seat_grace_gets_no_seat_and_the_grace_is_checked():
    harness = Harness()
    code, tv, phones = lobby(harness, ("Ana", "Bob", "Cy", "Dan"))
    for bad in ("10", -1, 3601, True, 2.5, None):
        assert errcode(control(tv, "seat_grace", seconds=bad)) == "invalid", bad
    assert control(tv, "seat_grace", seconds=10)["ok"]
    phones["Ana"][0].disconnect(namespace="/play")
    harness.clock.advance(9_000)
    assert seated(harness, code) == ["Ana", "Bob", "Cy"]  # still within the grace
    harness.clock.advance(1_000)
    assert seated(harness, code) == ["Bob", "Cy", "Dan"]
    state = harness.service.view(harness.service.room(code), None)
    assert state["lineup"] == {"seats": [2, 3, 4], "gone": [1]}


def test_a_start_logs_its_lineup_so_a_replay_seats_the_same_people():
    harness = Harness()
    code, tv, phones = lobby(harness, ("Ana", "Bob", "Cy", "Dan"))
    assert emit(phones["Ana"][0], "sit_out", {"out": True})["ok"]
    assert control(tv, "start")["ok"]
    replayed = RoomService(harness.service.store, harness.clock).room(code)
    assert [s.name for s in replayed.session.slots] == ["Bob", "Cy", "Dan"]


def test_thats_me_moves_a_seat_to_another_phone_once_the_host_says_yes():
    harness = Harness()
    code, tv, phones = lobby(harness, ("Ana", "Bob"))
    old_token = phones["Bob"][1]["token"]
    new = harness.phone()
    assert errcode(emit(new, "join", {"code": code, "name": "bob"})) == "name_taken"  # Bob's phone is connected
    assert errcode(emit(new, "claim", {"code": code, "name": "Bob"})) == "name_taken"
    phones["Bob"][0].disconnect(namespace="/play")
    assert errcode(emit(new, "join", {"code": code, "name": "bob"})) == "name_away"
    assert errcode(emit(new, "claim", {"code": code, "name": "Zed"})) == "no_such_name"
    assert errcode(emit(new, "claim", {"code": code, "name": ""})) == "invalid_name"
    assert errcode(emit(new, "claim", {"code": code})) == "invalid"
    asked = emit(new, "claim", {"code": code, "name": " BOB "})
    assert asked["ok"] and asked["seat"] == 2
    host_view = last_state(tv, "/tv")
    assert host_view is not None and host_view["claims"] == [{"id": asked["claim"], "seat": 2, "name": "Bob"}]
    assert errcode(control(tv, "claim", claim=asked["claim"], accept="yes")) == "invalid"
    assert errcode(control(tv, "claim", claim=asked["claim"] + 1, accept=True)) == "no_claim"
    assert control(tv, "claim", claim=asked["claim"], accept=True)["ok"]
    claimed = [e["args"][0] for e in new.get_received("/play") if e["name"] == "claimed"]
    assert claimed and claimed[0]["seat"] == 2
    hello = emit(new, "hello", {"code": code, "token": claimed[0]["token"]})
    assert hello["ok"] and hello["seat"] == 2
    stale = harness.phone()
    assert errcode(emit(stale, "hello", {"code": code, "token": old_token})) == "replaced"
    replayed = RoomService(harness.service.store, harness.clock)  # the takeover is logged: a restart keeps it
    with pytest.raises(Exception) as refused:
        replayed.seat_by_token(replayed.room(code), old_token)
    assert getattr(refused.value, "code", None) == "replaced"
    assert replayed.seat_by_token(replayed.room(code), claimed[0]["token"]) == 2


def test_a_refused_or_abandoned_claim_changes_nothing():
    harness = Harness()
    code, tv, phones = lobby(harness, ("Ana", "Bob"))
    phones["Bob"][0].disconnect(namespace="/play")
    first = harness.phone()
    asked = emit(first, "claim", {"code": code, "name": "Bob"})
    assert control(tv, "claim", claim=asked["claim"], accept=False)["ok"]
    assert any(e["name"] == "claim_refused" for e in first.get_received("/play"))
    second = harness.phone()
    asked = emit(second, "claim", {"code": code, "name": "Bob"})
    second.disconnect(namespace="/play")  # the phone gave up: its request goes
    assert harness.service.claims.view(harness.service.room(code)) == []
    assert errcode(control(tv, "claim", claim=asked["claim"], accept=True)) == "no_claim"
    assert harness.service.seat_by_token(harness.service.room(code), phones["Bob"][1]["token"]) == 2


def test_a_restart_resumes_the_game_clock_and_counts_every_seat_as_just_dropped():
    harness = Harness()
    code, tv, _ = lobby(harness, ("Ana",))
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    assert control(tv, "start")["ok"]
    service = harness.service
    room = service.room(code)
    harness.clock.advance(1_234)
    service.clocks.save(0)
    running = service.clocks.game_now(room)
    harness.clock.advance(60_000)  # the server is down for a minute
    restarted = RoomService(service.store, harness.clock)
    back = restarted.room(code)
    restarted.clocks.resume()
    assert restarted.clocks.game_now(back) == running  # not a millisecond of the minute down
    assert not restarted.connections.is_away(back, 1)
    harness.clock.advance(15_000)
    assert restarted.connections.is_away(back, 1)  # no phone came back: a bot plays the seat, as before the restart


def test_two_joins_at_once_each_get_their_own_seat():
    """A join's seat id is what applying it gave, under the room's lock. It was read afterwards as "the last seat
    id", and a join that came in between (another green thread, while the first one's broadcast or database write
    waited) gave both phones the newer seat: the benchmark saw four phones seated as one player, each able to act
    as that player."""
    harness = Harness()
    code, _tv = harness.host_room()
    room = harness.service.room(code)
    service = harness.service
    real_notify = service.notify
    other: dict[str, Any] = {}

    def notify(changed: str) -> None:  # the moment between the first join's lock and its answer
        service.notify = real_notify
        other["seat"], other["token"] = service.join(room, "Bea", "player")
        real_notify(changed)

    service.notify = notify
    seat, token = service.join(room, "Ana", "player")
    assert other, "the second join did not come in between"
    assert room.seats[seat].name == "Ana", "Ana was given Bea's seat"
    assert room.seats[other["seat"]].name == "Bea"
    assert service.seat_by_token(room, token) == seat and service.seat_by_token(room, other["token"]) == other["seat"]
