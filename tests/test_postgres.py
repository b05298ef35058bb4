"""The database layer on a real PostgreSQL (issue [14]: several workers share one database), and the test servers of
tests/services.py: Redis answers, HAProxy forwards.

Each test gets a fresh database of one PostgreSQL server started for this module. Epoch milliseconds, 63-bit room
seeds and numeric answers up to 999,999,999,999 (CAMP-D14) do not fit PostgreSQL's 32-bit INTEGER: every such
column is a BIGINT."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from bench.services import HAProxy, PostgresServer, RedisServer, wait_listening
from engine.core import Timing
from host.audience import Audience
from host.room import RoomError
from host.service import FakeClock, RoomService
from host.store import TOUCH_EVERY_MS, Store
from questions.archive import PackImage
from questions.library import Library
from questions.model import MAX_NUMBER, Question
from questions.store import (
    delete_pack,
    list_packs,
    load_image,
    load_pack,
    migrate,
    pack_access,
    save_pack,
    set_shared,
)
from tests.conftest import every_entry
from tests.test_storage import example_pack

EPOCH_MS = 1_767_225_600_000  # 2026-01-01: wall clocks are far beyond 2**31 ms
BIG_SEED = 2**63 - 25  # RoomService draws seeds of 63 bits


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    """The URL of a fresh, empty database."""
    return postgres.new_database()


@pytest.fixture
def stores(database: str) -> Iterator[Callable[..., Store]]:
    """Opens Stores on the test's database; all closed afterwards."""
    opened: list[Store] = []

    def open_store(**options: Any) -> Store:
        opened.append(Store(database, **options))
        return opened[-1]

    yield open_store
    for store in opened:
        store.close()


def test_a_store_creates_its_tables_and_migrating_again_is_harmless(stores: Callable[[], Store]):
    store = stores()
    assert store.engine.dialect.name == "postgresql"
    tables = set(inspect(store.engine).get_table_names())
    assert {"room", "room_event", "room_clock", "pack", "question", "pack_image", "audience_answer"} <= tables
    store.migrate()
    store.migrate()
    assert migrate(store.engine) == 0
    again = stores()  # the next start on the same database
    again.migrate()
    assert store.checkpoint() is True
    columns = {(t, c["name"]): str(c["type"]) for t in tables for c in inspect(store.engine).get_columns(t)}
    for (table, column), kind in columns.items():
        if column.endswith("_ms") or column in ("seed", "answer", "value"):
            assert kind == "BIGINT", f"{table}.{column} is {kind}: it holds numbers beyond 2**31"


def test_workers_starting_together_on_an_empty_database_all_get_their_tables(database: str):
    stores: list[Store] = []
    errors: list[BaseException] = []
    ready = threading.Barrier(4)

    def start() -> None:
        ready.wait(timeout=30)
        try:
            stores.append(Store(database))
        except SQLAlchemyError as error:  # a race creating the tables: the worker would not start
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for store in stores:
        store.close()
    assert errors == [] and len(stores) == 4


def test_columns_an_older_version_made_32_bits_are_widened(postgres: PostgresServer, database: str,
                                                           stores: Callable[[], Store]):
    stores().close()
    with postgres.connect(database.rsplit("/", 1)[1]) as connection:  # as an INTEGER-only version made them
        for table, column in (("room", "seed"), ("room", "created_ms"), ("room", "updated_ms"),
                              ("room_event", "wall_ms"), ("pack", "created_ms"), ("question", "answer")):
            connection.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE INTEGER")
    store = stores()
    store.create_room("ABCD", "h" * 64, BIG_SEED, EPOCH_MS)
    store.append("ABCD", 1, "join", {}, EPOCH_MS + 1)
    assert [e.wall_ms for e in store.events("ABCD")] == [EPOCH_MS + 1]
    pack = example_pack("Big")
    pack.questions.append(Question("numeric", "How far?", "science", "hard", answer=MAX_NUMBER))
    assert load_pack(store.engine, save_pack(store.engine, pack)).questions[-1].answer == MAX_NUMBER


def test_rooms_events_clocks_and_expiry(stores: Callable[[], Store]):
    store = stores()
    store.create_room("ABCD", "h" * 64, BIG_SEED, EPOCH_MS, owner_hash="o" * 64)
    store.create_room("EFGH", "g" * 64, 7, EPOCH_MS + 5)
    record = store.room("ABCD")
    assert (record.seed, record.created_ms, record.updated_ms, record.owner_hash) == (
        BIG_SEED, EPOCH_MS, EPOCH_MS, "o" * 64)
    assert store.room("ZZZZ") is None
    for seq in (1, 2, 3):
        store.append("ABCD", seq, "join", {"name": f"P{seq}", "n": MAX_NUMBER, "fa": "سلام"}, EPOCH_MS + 1000 * seq)
    with pytest.raises(IntegrityError):
        store.append("ABCD", 2, "join", {"name": "again"}, EPOCH_MS + 9000)
    store.append("ABCD", 4, "start", {}, EPOCH_MS + 4000)  # the refused write left the store working
    events = list(store.events("ABCD"))
    assert [(e.seq, e.kind, e.wall_ms) for e in events] == [
        (1, "join", EPOCH_MS + 1000), (2, "join", EPOCH_MS + 2000), (3, "join", EPOCH_MS + 3000),
        (4, "start", EPOCH_MS + 4000)]
    assert events[0].data == {"name": "P1", "n": MAX_NUMBER, "fa": "سلام"}
    # the room's activity date (its expiry counts from it) moves with an event at most once a minute
    assert store.room("ABCD").updated_ms == EPOCH_MS + 1000
    store.append("ABCD", 5, "start", {}, EPOCH_MS + 1000 + TOUCH_EVERY_MS)
    assert store.room("ABCD").updated_ms == EPOCH_MS + 1000 + TOUCH_EVERY_MS

    store.save_clocks({"ABCD": 1234})
    store.save_clocks({"ABCD": 2**40, "EFGH": 5})  # one updated, one new
    assert (store.clock("ABCD"), store.clock("EFGH"), store.clock("ZZZZ")) == (2**40, 5, None)
    assert sorted(store.room_codes()) == ["ABCD", "EFGH"]
    assert store.room_codes(EPOCH_MS + 100) == ["ABCD"]

    assert store.expire_rooms(EPOCH_MS + 100, keep={"EFGH"}) == []
    assert store.expire_rooms(EPOCH_MS + 100) == ["EFGH"]
    assert store.room("EFGH") is None and store.clock("EFGH") is None
    store.delete_rooms(["ABCD"])
    assert store.room("ABCD") is None and list(store.events("ABCD")) == [] and store.clock("ABCD") is None
    store.create_room("ABCD", "h" * 64, 1, EPOCH_MS)  # its code can be drawn again
    store.append("ABCD", 1, "join", {}, EPOCH_MS)


def test_a_write_that_finds_the_room_locked_elsewhere_is_refused_as_busy(postgres: PostgresServer, database: str,
                                                                         stores: Callable[[], Store]):
    store = stores()
    store.create_room("ABCD", "h" * 64, 1, EPOCH_MS)
    other = postgres.connect(database.rsplit("/", 1)[1])
    other.autocommit = False
    other.execute("LOCK TABLE room_event IN ACCESS EXCLUSIVE MODE")  # a backup, a migration, another worker
    release = threading.Timer(30.0, other.rollback)  # at the latest: a store that waits for ever fails, not hangs
    release.start()
    try:
        with pytest.raises(RoomError) as refused:
            store.append("ABCD", 1, "join", {"name": "P"}, EPOCH_MS)
        assert refused.value.code == "storage_busy"
    finally:
        release.cancel()
        other.rollback()
        other.close()
    assert list(store.events("ABCD")) == []  # nothing was written
    store.append("ABCD", 1, "join", {"name": "P"}, EPOCH_MS)  # and once the lock is gone it works again
    assert [e.seq for e in store.events("ABCD")] == [1]


def test_a_write_waits_out_a_lock_held_for_a_moment_as_a_loaded_worker_holds_its_leases(
        postgres: PostgresServer, database: str, stores: Callable[..., Store]):
    # A worker's clock tick or lease renewal holds the room's lease row while it writes; on a loaded machine that can
    # take a few tenths of a second, and a join fenced on that row then waited only 0.2 s: "could not save, try again"
    # at a join (seen in CI). A worker waits on PostgreSQL cooperatively (host/green.py), so it may wait longer.
    store = stores(cooperative=True)
    store.create_room("ABCD", "h" * 64, 1, EPOCH_MS)
    other = postgres.connect(database.rsplit("/", 1)[1])
    other.autocommit = False
    other.execute("LOCK TABLE room_event IN ACCESS EXCLUSIVE MODE")
    release = threading.Timer(0.6, other.rollback)
    release.start()
    try:
        store.append("ABCD", 1, "join", {"name": "P"}, EPOCH_MS)
    finally:
        release.cancel()
        other.rollback()
        other.close()
    assert [e.seq for e in store.events("ABCD")] == [1]


def test_a_pack_is_stored_listed_read_back_and_deleted(stores: Callable[[], Store]):
    store = stores()
    engine = store.engine
    pack = example_pack("Big numbers")
    pack.questions.append(Question("numeric", "How many millimetres from here to there?", "science", "hard",
                                   answer=MAX_NUMBER, unit="mm", time=45, image="far.png"))
    pack.images = [PackImage("far.png", "image/png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))]
    key = save_pack(engine, pack, owner="o" * 64)
    other = save_pack(engine, example_pack("Other"))
    loaded = load_pack(engine, key)
    assert (loaded.name, loaded.language, loaded.author, loaded.licence, loaded.description, loaded.questions) == (
        pack.name, pack.language, pack.author, pack.licence, pack.description, pack.questions)
    assert load_image(engine, key, "far.png") == ("image/png", pack.images[0].data)
    listed = list_packs(engine)
    assert [p["id"] for p in listed] == [key, other]
    numeric = sum(q.type == "numeric" for q in pack.questions)
    assert (listed[0]["numeric"], listed[0]["choice"]) == (numeric, len(pack.questions) - numeric)
    assert pack_access(engine, key) == (key, "o" * 64, False)

    library = Library(engine)
    assert [p["id"] for p in library.packs("x" * 64) if not p["builtin"]] == [f"db:{other}"]  # not the viewer's
    mine = [p for p in library.packs("o" * 64) if not p["builtin"]]
    assert [(p["id"], p["name"], p["mine"]) for p in mine] == [(f"db:{key}", "Big numbers", True),
                                                               (f"db:{other}", "Other", False)]
    assert set_shared(engine, key, True)
    assert f"db:{key}" in [p["id"] for p in library.packs("x" * 64)]
    entries = every_entry(library, [f"db:{key}"])
    assert entries[-1].question.answer == MAX_NUMBER and entries[-1].image_url == f"/packs/db:{key}/media/far.png"
    assert library.pack("db:999999999999999999") is None  # an old-style number beyond any id: no such pack

    assert delete_pack(engine, key) and not delete_pack(engine, key)
    assert load_pack(engine, key) is None and load_image(engine, key, "far.png") is None
    assert [p["id"] for p in list_packs(engine)] == [other]


def test_a_pack_left_half_written_is_deleted_at_the_next_start(stores: Callable[[], Store]):
    store = stores()

    def crash() -> None:
        raise KeyboardInterrupt  # the process stops in the middle of writing the pack

    with pytest.raises(KeyboardInterrupt):
        save_pack(store.engine, example_pack("Cut short"), pause=crash)
    assert list_packs(store.engine) == []
    store.migrate()
    assert list_packs(store.engine) == []


def test_audience_answers_are_written_and_read_back(stores: Callable[[], Store]):
    store = stores()
    audience = Audience(store.engine)
    timing = json.dumps(Timing(250, 1300, 1000, 240, 60, "").to_json())
    audience.pending = [{"room_code": "ABCD", "game": 1, "question": 3, "seat": seat, "value": value,
                         "wall_ms": EPOCH_MS + seat, "timing": timing}
                        for seat, value in ((2, MAX_NUMBER), (3, 0))]
    audience.waiting_since["ABCD"] = 0.0
    assert audience.flush() == 2 and audience.pending == [] and audience.trouble("ABCD") is None
    again = Audience(store.engine)
    again.preload("ABCD")
    stored = {a.seat: (a.value, a.timing.effective) for a in again.rooms["ABCD"].preloaded[(1, 3)]}
    assert stored == {2: (MAX_NUMBER, 250), 3: (0, 250)}
    store.delete_rooms(["ABCD"])  # a room's deletion takes its audience's answers along
    emptied = Audience(store.engine)
    emptied.preload("ABCD")
    assert emptied.rooms["ABCD"].preloaded == {}


def test_a_second_service_on_the_same_database_rebuilds_a_room_from_its_log(stores: Callable[[], Store]):
    clock = FakeClock()
    first = RoomService(stores(), clock, include_unlisted=True)  # real 63-bit seeds, epoch-ms wall clock
    code, _token = first.create_room()
    room = first.room(code)
    seats = [first.join(room, name, "player")[0] for name in ("Ana", "Bo", "Cy")]
    first.join(room, "Dee", "spectator")
    first.host_event(room, "select_game", {"game": "tally"})
    first.host_event(room, "settings", {"game": "tally", "settings": {"bots": False, "turn_seconds": 8}})
    first.host_event(room, "start", {})
    clock.advance(2000)
    first.tick()
    mover = room.session.slots[room.session.state.current].seat_id
    first.act(room, mover, {"action": {"add": 2}})
    first.host_event(room, "lock", {"locked": True})
    clock.advance(1500)
    first.tick()
    first.store.save_clocks({code: first.clocks.game_now(room)})
    before = {seat: first.view(room, seat) for seat in [None, *seats]}

    second = RoomService(stores(), FakeClock(clock.now), include_unlisted=True)
    again = second.room(code)
    assert again is not room and again.seq == room.seq and again.seed == room.seed
    assert again.session.state == room.session.state
    for seat, view in before.items():
        after = second.view(again, seat)
        assert after["game"]["view"] == view["game"]["view"]
        assert after["players"] == view["players"] and after["locked"] is True
    assert second.clocks.game_now(again) == first.clocks.game_now(room)


def test_the_audience_leaderboard_survives_on_postgres(stores: Callable[[], Store]):
    clock = FakeClock()
    first = RoomService(stores(), clock, include_unlisted=True, timer_scale=0.5)
    code, _token = first.create_room()
    room = first.room(code)
    watchers = [first.join(room, name, "spectator")[0] for name in ("Sam", "Tea")]
    first.host_event(room, "select_game", {"game": "campaign"})
    first.host_event(room, "settings", {"game": "campaign", "settings": {"bots": True}})
    first.host_event(room, "start", {})

    def asked() -> dict[str, Any] | None:
        return room.session.game.audience_question(room.session.state)

    answered = 0
    for _ in range(20_000):
        question = asked()
        if answered == 2:
            break
        if question is not None and question["open"]:
            clock.advance(300)
            for i, seat in enumerate(watchers):
                action = {"answer": MAX_NUMBER - i} if question["kind"] == "numeric" else {"choice": i}
                first.audience_answer(room, seat, {"action": action, "ms": 250 + 10 * i})
            answered += 1
            while asked() is not None and asked()["key"] == question["key"]:
                clock.advance(50)
                first.tick()
        clock.advance(50)
        first.tick()
    assert answered == 2, "the campaign never asked two questions"
    first.tick()
    before = first.audience.standings(code)
    assert len(before) == 2 and before[0]["points"] > 0

    second = RoomService(stores(), FakeClock(clock.now), include_unlisted=True, timer_scale=0.5)
    assert second.restore_all() == 1
    assert second.audience.standings(code) == before


@pytest.mark.slow
def test_a_redis_server_answers_and_is_gone_once_stopped():
    server = RedisServer()
    with server:
        client = server.client()
        try:
            assert client.ping() is True
            client.set("throneroom", "ٹ")
            assert client.get("throneroom").decode() == "ٹ"
        finally:
            client.close()
        process, tmp = server.process, server.tmp
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
    assert process.poll() is not None and not tmp.exists()


@pytest.mark.slow
def test_haproxy_forwards_a_request_to_a_backend():
    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"hello from the backend, you asked {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=backend.serve_forever, daemon=True)
    thread.start()
    config = f"""
global
    maxconn 64

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind {{bind}}
    default_backend app

backend app
    server one 127.0.0.1:{backend.server_address[1]}
"""
    try:
        with HAProxy(lambda bind: config.format(bind=bind)) as proxy:
            wait_listening(proxy.front_port)
            with urllib.request.urlopen(f"http://127.0.0.1:{proxy.front_port}/through?x=1", timeout=10) as answer:
                assert answer.status == 200
                assert answer.read() == b"hello from the backend, you asked /through?x=1"
            assert proxy.running
    finally:
        backend.shutdown()
        backend.server_close()
