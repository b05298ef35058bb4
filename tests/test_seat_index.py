"""A room's seat lookups in a crowd ([14], host/room.py ``SeatIndex``): a join, a hello or a phone's view in a room of
thousands of spectators reads no other seat, and what the index answers is always what a walk over every seat
would answer, through joins, renames, kicks, role changes and takeovers."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from host.names import name_keys
from host.room import COLOURS, SHAPES, TV_SPECTATORS, Room, RoomError, Seat
from tests.conftest import Harness


def token(i: int) -> str:
    return hashlib.sha256(f"phone {i}".encode()).hexdigest()


def look_alike(a: str, b: str) -> bool:
    """Two names are one when they share one of their keys, each in its own place (host/names.py)."""
    return any(x == y for x, y in zip(name_keys(a), name_keys(b), strict=True))


def walked(room: Room) -> tuple[list[Seat], Seat | None]:
    """What the room's queries must answer, by walking every seat: the players and the first free look."""
    active = [s for s in room.seats.values() if not s.kicked]
    taken = {(s.colour, s.shape) for s in active}
    free = next(((i % COLOURS, i % SHAPES) for i in range(COLOURS * SHAPES)
                 if (i % COLOURS, i % SHAPES) not in taken), (0, 0))
    return [s for s in active if s.role == "player"], free


def check(room: Room, names: list[str]) -> None:
    active = [s for s in room.seats.values() if not s.kicked]
    players, free = walked(room)
    assert room.players() == players
    assert room.spectator_count() == sum(s.role == "spectator" for s in active)
    assert room._free_look() == free
    for seat in room.seats.values():
        assert room.seat_by_token_hash(seat.token_hash) is seat
        for old in seat.old_token_hashes:
            assert room.seat_replaced_from(old) is seat
            assert room.seat_by_token_hash(old) is None
    for name in names:
        first = next((s for s in active if look_alike(s.name, name)), None)
        assert room.seat_named(name) is first, name
        assert room.is_name_taken(name) == (first is not None)
        if first is not None:
            others = [s for s in active if s.id != first.id and look_alike(s.name, name)]
            assert room.is_name_taken(name, except_seat=first.id) == bool(others)


def test_the_index_answers_as_a_walk_over_every_seat_through_every_change_of_a_seat():
    rng = random.Random(20261202)
    room = Room("ABCD", 1, "h" * 64)
    names = ["Ana", "ANA", "Bob", "Вов", "Il", "ll", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "شاهین", "Ioana", "Zed"]
    made = 0
    for _ in range(600):
        seats = [s for s in room.seats.values() if not s.kicked]
        kind = rng.choice(["join", "join", "join", "rename", "kick", "sit_out", "lineup", "takeover"])
        if kind == "join" or not seats:
            made += 1
            data: dict[str, Any] = {"name": f"{rng.choice(names)} {made % 7}" if rng.random() < 0.6
                                    else rng.choice(names), "role": rng.choice(["player", "spectator"]),
                                    "language": None, "token_hash": token(made)}
            kind = "join"
        elif kind == "rename":
            data = {"seat": rng.choice(seats).id, "name": rng.choice(names) + rng.choice(["", " 1", " 2"])}
        elif kind == "kick":
            data = {"seat": rng.choice(seats).id}
        elif kind == "sit_out":
            data = {"seat": rng.choice(seats).id, "out": rng.random() < 0.5}
        elif kind == "lineup":
            data = {"seat": rng.choice(seats).id, "play": True, "instead": rng.choice(seats).id}
        else:
            made += 1
            data = {"seat": rng.choice(seats).id, "token_hash": token(made)}
        try:
            room.plan(kind, data)()
        except RoomError:
            pass  # a taken name, a full room, a swap with oneself: refused, nothing changed
        check(room, names + [f"{n} {i}" for n in names[:4] for i in range(3)])
    assert sum(s.kicked for s in room.seats.values()) > 10 and len(room.players()) > 3


class Watched(dict):
    """A room's seats that count every walk over all of them."""

    walks = 0

    def values(self) -> Any:
        Watched.walks += 1
        return super().values()

    def items(self) -> Any:
        Watched.walks += 1
        return super().items()

    def __iter__(self) -> Any:
        Watched.walks += 1
        return super().__iter__()


def test_a_join_and_a_hello_in_a_room_of_a_thousand_spectators_read_no_other_seat():
    """The TV's state lists every spectator and is built once per change for all screens; what each join, hello
    and phone's view costs on its own must not grow with the crowd (no screen watches here)."""
    harness = Harness(MAX_SPECTATORS=5000)
    service = harness.service
    code, _host_token = service.create_room()
    room = service.room(code)
    for i in range(3):
        service.join(room, f"Player {i}", "player")
    for i in range(1000):
        service.join(room, f"Fan {i}", "spectator")
    room.seats = Watched(room.seats)
    Watched.walks = 0
    seat, seat_token = service.join(room, "Late fan", "spectator")
    assert service.seat_by_token(room, seat_token) == seat  # the hello of its phone
    phone_view = service.view(room, seat)
    assert Watched.walks == 0, "a join, a hello or a phone's view walked every seat"
    assert phone_view["spectator_count"] == 1001 and [p["name"] for p in phone_view["players"]] == [
        "Player 0", "Player 1", "Player 2"]
    try:
        service.join(room, "FAN 7", "spectator")
    except RoomError as error:
        assert error.code in ("name_taken", "name_away")
    else:
        raise AssertionError("a look-alike of a spectator's name was let in")
    tv = service.view(room, None, as_host=True)
    assert tv["spectator_count"] == 1001  # the TV counts every spectator and lists the first TV_SPECTATORS by name
    assert [s["name"] for s in tv["spectators"]] == [f"Fan {i}" for i in range(TV_SPECTATORS)]
    assert [p["name"] for p in tv["players"]] == ["Player 0", "Player 1", "Player 2"]


def test_a_seat_counts_as_connected_while_any_of_its_phones_is():
    harness = Harness()
    code, _tv = harness.host_room()
    service = harness.service
    room = service.room(code)
    seat, _ = service.join(room, "Ana", "player")
    service.connections.connect(room, "first", seat)
    service.connections.connect(room, "second", seat)
    service.connections.disconnect("first")
    assert seat in service.connections.connected_seats(code) and (code, seat) not in service.connections.away_since
    service.connections.connect(room, "second", seat)  # the same socket says hello again
    service.connections.disconnect("second")
    assert seat not in service.connections.connected_seats(code) and (code, seat) in service.connections.away_since
    service.connections.connect(room, "third", None)  # a TV socket is no seat's phone
    assert list(service.connections.connected_seats(code)) == []
