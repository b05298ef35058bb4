"""Room leases (host/lease.py): one worker at a time acts on a room, a worker whose lease was taken cannot write, and a
room another worker asks for is handed over (docs/scaling.md). Two workers' leases on one database file, with a
clock the test moves; tests/test_scale.py does the same with real processes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from host.lease import TTL_MS, LeaseLost, Leases
from host.room import RoomError
from host.service import FakeClock, RoomService
from host.store import Store


class Wall:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


def workers(tmp_path: Path) -> tuple[Store, Store, Wall]:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    wall = Wall()
    a, b = Store(url), Store(url)
    a.leases = Leases(a.engine, "wa", wall)
    b.leases = Leases(b.engine, "wb", wall)
    a.create_room("ABCD", "hash", 1, wall.now)
    return a, b, wall


def test_a_held_lease_is_not_taken_but_asked_for_and_an_expired_one_is_taken(tmp_path: Path) -> None:
    a, b, wall = workers(tmp_path)
    assert a.leases.acquire("ABCD")
    assert not b.leases.acquire("ABCD")  # held and renewed: b asks for it
    assert a.leases.renew().wanted == ["ABCD"]
    wall.now += TTL_MS + 1  # a stops renewing (dead, or paused)
    assert b.leases.acquire("ABCD")
    assert b.leases.held["ABCD"] == a.leases.held["ABCD"] + 1  # a new epoch
    renewal = a.leases.renew()
    assert renewal.lost == ["ABCD"] and "ABCD" not in a.leases.held


def test_a_worker_whose_lease_was_taken_cannot_append_and_writes_nothing(tmp_path: Path) -> None:
    a, b, wall = workers(tmp_path)
    assert a.leases.acquire("ABCD")
    a.append("ABCD", 1, "lock", {"locked": True}, wall.now)
    wall.now += TTL_MS + 1  # a is paused past its lease (SIGSTOP); b takes the room over
    assert b.leases.acquire("ABCD")
    b.append("ABCD", 2, "lock", {"locked": False}, wall.now)
    with pytest.raises(LeaseLost):  # a resumes and tries to write what it had in hand
        a.append("ABCD", 3, "lock", {"locked": True}, wall.now)
    with pytest.raises(LeaseLost):  # and the room's clock
        raise_lost(a.save_clocks({"ABCD": 99_999})[1])
    assert [(e.seq, e.data) for e in a.events("ABCD")] == [(1, {"locked": True}), (2, {"locked": False})]
    assert a.clock("ABCD") is None


def raise_lost(lost: list[str]) -> None:
    if lost:
        raise LeaseLost(lost[0])


def test_a_fenced_write_renews_the_lease_so_an_active_room_never_expires_between_renewals(tmp_path: Path) -> None:
    a, b, wall = workers(tmp_path)
    assert a.leases.acquire("ABCD")
    for seq in range(1, 6):
        wall.now += TTL_MS - 100  # no renewal in between, but an event each time
        a.append("ABCD", seq, "lock", {"locked": seq % 2 == 0}, wall.now)
    assert not b.leases.acquire("ABCD")


def test_a_hand_over_writes_the_clock_and_frees_the_lease_at_once(tmp_path: Path) -> None:
    a, b, _wall = workers(tmp_path)
    assert a.leases.acquire("ABCD")
    assert not b.leases.acquire("ABCD")
    assert a.save_clocks({"ABCD": 4_321}, release="ABCD") == (["ABCD"], [])
    assert "ABCD" not in a.leases.held
    assert b.leases.acquire("ABCD")  # no wait for the lease to expire
    assert b.clock("ABCD") == 4_321


def test_a_service_that_lost_its_room_refuses_the_event_and_forgets_the_room(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    clock_a, clock_b = FakeClock(), FakeClock()
    store_a, store_b = Store(url), Store(url)
    store_a.leases = Leases(store_a.engine, "wa", clock_a.wall_ms)
    store_b.leases = Leases(store_b.engine, "wb", clock_b.wall_ms)
    a, b = RoomService(store_a, clock_a), RoomService(store_b, clock_b)
    b.sleep = lambda seconds: clock_b.advance(int(seconds * 1000))  # b waits for a's lease to run out
    code, token = a.create_room()
    assert code not in a.rooms  # a worker leaves a new room to the worker its code routes to
    room_a = a.room(code)
    a.host_event(room_a, "lock", {"locked": True})
    room_b = b.room(code)  # a stops renewing (paused): b waits until the lease runs out, then replays the log
    assert room_b.locked and store_b.leases.held[code] == 2
    b.host_event(room_b, "lock", {"locked": False})
    with pytest.raises(RoomError) as refused:  # a resumes with the room still in memory
        a.host_event(room_a, "lock", {"locked": True})
    assert refused.value.code == "room_moved"
    assert code not in a.rooms
    assert [e.data["locked"] for e in store_a.events(code)] == [True, False]
    assert b.is_host(room_b, token)


def test_on_postgresql_a_row_being_written_is_skipped_not_waited_for(postgres: Any) -> None:
    # Found by the 500-room benchmark: the renewal of all leases waited on a row locked by the worker's own fenced write
    # in progress, past the lock timeout, and that write then failed as storage_busy.
    from sqlalchemy import text

    url = postgres.new_database()
    wall = Wall()
    store = Store(url)
    store.leases = Leases(store.engine, "wa", wall)
    for code in ("ABCD", "EFGH"):
        store.create_room(code, "hash", 1, wall.now)
        assert store.leases.acquire(code)
    with store.engine.connect() as writing, writing.begin():  # a write of ABCD in progress, its lease row locked
        store.leases.fence(writing, "ABCD")
        assert store.leases.renew().lost == []  # done at once: ABCD skipped, EFGH renewed
        written, lost = store.save_clocks({"ABCD": 10, "EFGH": 20})
        assert written == ["EFGH"] and lost == []  # ABCD's clock waits for the next tick; nothing counted as lost
        writing.execute(text("SELECT 1"))
    assert store.clock("EFGH") == 20 and store.clock("ABCD") is None
    assert store.save_clocks({"ABCD": 10}) == (["ABCD"], [])
    store.close()


def test_a_request_for_a_room_this_process_no_longer_holds_is_answered_room_moved():
    """A handler that was waiting while its room went to another worker (or expired) reaches for the room's lock
    and finds none: the phone is told ``room_moved`` (it reconnects and finds the room), not an internal error
    (the 5,000-phone benchmark on workers: every join in flight at a takeover failed so)."""
    from tests.conftest import Harness

    harness = Harness()
    code, _tv = harness.host_room()
    room = harness.service.room(code)
    harness.service.room_moved(code)
    with pytest.raises(RoomError) as refused:
        harness.service.join(room, "Ana", "player")
    assert refused.value.code == "room_moved"
