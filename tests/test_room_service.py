"""The room service with a fake clock: seats, tokens, lobby, the game loop, and rebuilding from the log."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from host.room import CODE_ALPHABET, MAX_PLAYERS, RoomError, hash_token
from host.service import FakeClock, RoomService
from host.store import EventRecord, RoomRecord, Store


def make_service(store: Store | None = None, clock: FakeClock | None = None) -> RoomService:
    seeds = iter(range(500, 5000))
    return RoomService(store or Store("sqlite://"), clock or FakeClock(), include_unlisted=True,
                       seed_source=lambda: next(seeds))


def errcode(call, *args, **kwargs) -> str:
    with pytest.raises(RoomError) as error:
        call(*args, **kwargs)
    return error.value.code


def started(service: RoomService, players: int = 2, **settings):
    code, _host = service.create_room()
    room = service.room(code)
    seats = [service.join(room, f"P{i}", "player")[0] for i in range(players)]
    service.host_event(room, "select_game", {"game": "tally"})
    if settings:
        service.host_event(room, "settings", {"game": "tally", "settings": settings})
    service.host_event(room, "start", {})
    return room, seats


def test_room_codes_are_four_letters_without_look_alikes():
    service = make_service()
    codes = {service.create_room()[0] for _ in range(40)}
    assert len(codes) == 40
    for code in codes:
        assert len(code) == 4 and all(c in CODE_ALPHABET for c in code)
        assert not set(code) & set("ILOQ01")
    assert service.room(next(iter(codes)).lower()).code in codes  # typed in lower case


def test_tokens_have_enough_entropy_and_only_hashes_are_stored():
    store = Store("sqlite://")
    service = make_service(store)
    code, host_token = service.create_room()
    room = service.room(code)
    _, token = service.join(room, "Ana", "player")
    assert len(token) >= 32 and len(host_token) >= 32  # 24 random bytes in URL-safe base64: 192 bits
    with Session(store.engine) as session:
        dump = json.dumps([r.model_dump() for r in session.exec(select(EventRecord))])
        dump += json.dumps([r.model_dump() for r in session.exec(select(RoomRecord))])
    assert token not in dump and host_token not in dump
    assert hash_token(token) in dump and hash_token(host_token) in dump
    assert service.is_host(room, host_token) and not service.is_host(room, token)
    assert service.seat_by_token(room, token) == 1
    assert errcode(service.seat_by_token, room, "x" * 32) == "bad_token"
    assert errcode(service.seat_by_token, room, None) == "bad_token"


@pytest.mark.parametrize("name,code", [("", "invalid_name"), ("   ", "invalid_name"), ("x" * 21, "name_too_long"),
                                       (42, "invalid_name"), (None, "invalid_name"), ("\u200b\u200b", "invalid_name")])
def test_bad_names_are_refused(name, code):
    service = make_service()
    room = service.room(service.create_room()[0])
    assert errcode(service.join, room, name, "player") == code
    assert room.seq == 0  # nothing logged


def test_names_are_unique_ignoring_case_and_normalised():
    service = make_service()
    room = service.room(service.create_room()[0])
    service.join(room, "  Zoë   Ann ", "player")
    assert room.seats[1].name == "Zoë Ann"
    assert errcode(service.join, room, "zoe\u0308 ann", "spectator") == "name_away"  # NFD form; no phone holds it
    service.connections.connect(room, "phone-1", 1)
    assert errcode(service.join, room, "zoe\u0308 ann", "spectator") == "name_taken"  # held by a connected phone
    seat, _ = service.join(room, "w" * 20, "player")
    assert errcode(service.submit, room, "rename", {"seat": seat, "name": "ZOË ANN"}) == "name_taken"
    service.submit(room, "rename", {"seat": seat, "name": "<b>Bold</b>"})
    assert room.seats[seat].name == "<b>Bold</b>"  # kept as typed; every page shows it escaped


def test_a_persian_name_keeps_its_zero_width_non_joiner():
    """U+200C is Persian spelling between two letters ("شاهنوازی‌پور"); stray ones around a name are dropped."""
    service = make_service()
    room = service.room(service.create_room()[0])
    seat, _ = service.join(room, "محمدرضا شاهنوازی\u200cپور", "player")
    assert room.seats[seat].name == "محمدرضا شاهنوازی\u200cپور"
    seat, _ = service.join(room, "\u200cAna\u200c", "player")
    assert room.seats[seat].name == "Ana"


def test_twelve_players_then_spectators_and_the_lock():
    service = make_service()
    room = service.room(service.create_room()[0])
    for i in range(MAX_PLAYERS):
        service.join(room, f"P{i}", "player")
    assert errcode(service.join, room, "Late", "player") == "room_full"
    service.join(room, "Watcher", "spectator")
    assert errcode(service.join, room, "Bad role", "admin") == "invalid_role"
    service.host_event(room, "lock", {"locked": True})
    assert errcode(service.join, room, "Another", "spectator") == "room_locked"
    assert errcode(service.host_event, room, "lock", {"locked": "yes"}) == "invalid"
    looks = {(s.colour, s.shape) for s in room.players()}
    assert len(looks) == MAX_PLAYERS  # every player has their own colour-and-shape pair


def test_kicked_seat_loses_its_token_and_a_bot_takes_its_game_seat():
    service = make_service()
    room, seats = started(service, players=2)
    token_hash = room.seats[seats[0]].token_hash
    service.host_event(room, "kick", {"seat": seats[0]})
    assert room.seats[seats[0]].kicked
    assert room.seat_by_token_hash(token_hash).kicked
    assert room.session.slots[0].is_bot
    assert errcode(service.host_event, room, "kick", {"seat": 99}) == "unknown_seat"
    assert errcode(service.host_event, room, "kick", {"seat": "1"}) == "unknown_seat"


def test_start_needs_a_playable_game_and_enough_players(monkeypatch):
    from engine import registry
    from engine.core import GameInfo

    monkeypatch.setitem(registry.ANNOUNCED, "future", GameInfo("future", "game.tally.name", "game.tally.blurb", 2, 4))
    monkeypatch.setattr(registry, "LOBBY_ORDER", (*registry.LOBBY_ORDER, "future"))
    service = make_service()
    code, _ = service.create_room()
    room = service.room(code)
    assert errcode(service.host_event, room, "start", {}) == "no_game"
    service.host_event(room, "select_game", {"game": "future"})  # announced, no engine yet
    assert errcode(service.host_event, room, "start", {}) == "game_unavailable"
    assert errcode(service.host_event, room, "select_game", {"game": "chess"}) == "unknown_game"
    service.host_event(room, "select_game", {"game": "tally"})
    service.host_event(room, "settings", {"game": "tally", "settings": {"bots": False}})
    service.join(room, "Solo", "player")
    assert errcode(service.host_event, room, "start", {}) == "not_enough_players"
    assert errcode(service.host_event, room, "settings", {"game": "tally", "settings": {"target": 999}}) \
        == "invalid_settings"
    service.host_event(room, "settings", {"game": "tally", "settings": {"bots": True}})
    service.host_event(room, "start", {})
    assert room.phase == "playing" and room.session.slots[1].is_bot
    assert errcode(service.host_event, room, "select_game", {"game": "tally"}) == "not_now"


def test_unlisted_games_cannot_be_selected_by_a_normal_room():
    service = RoomService(Store("sqlite://"), FakeClock())
    room = service.room(service.create_room()[0])
    assert errcode(service.host_event, room, "select_game", {"game": "tally"}) == "unknown_game"
    assert "tally" not in [g["id"] for g in room.lobby_view(set())["games"]]
    service.join(room, "A", "player")
    service.join(room, "B", "player")
    assert [g["playable"] for g in room.lobby_view(set())["games"] if g["id"] == "crown"] == [True]


def test_an_engine_whose_screens_are_not_ready_starts_only_in_tests(monkeypatch):
    from dataclasses import replace as dc_replace

    from engine import registry
    from tests.games.tally import TallyGame

    class Draft(TallyGame):
        info = dc_replace(TallyGame.info, id="draft", listed=True, ready=False)

    monkeypatch.setitem(registry.GAMES, "draft", Draft())
    monkeypatch.setattr(registry, "LOBBY_ORDER", (*registry.LOBBY_ORDER, "draft"))
    for in_tests, expected in ((False, "game_unavailable"), (True, None)):
        service = RoomService(Store("sqlite://"), FakeClock(), include_unlisted=in_tests)
        room = service.room(service.create_room()[0])
        service.join(room, "A", "player")
        service.join(room, "B", "player")
        service.host_event(room, "select_game", {"game": "draft"})
        assert [g["playable"] for g in room.lobby_view(set())["games"] if g["id"] == "draft"] == [in_tests]
        if expected:
            assert errcode(service.host_event, room, "start", {}) == expected
        else:
            service.host_event(room, "start", {})
            assert room.phase == "playing"


def test_timeouts_fire_from_tick_and_the_clock_stops_while_paused():
    clock = FakeClock()
    service = make_service(clock=clock)
    room, _ = started(service, players=2, bots=False, turn_seconds=5)
    deadline = room.session.game.deadline(room.session.state)
    clock.advance(4999)
    service.tick()
    assert room.session.actions == 0
    service.host_event(room, "pause", {})
    clock.advance(60_000)
    service.tick()
    assert room.session.actions == 0 and service.clocks.game_now(room) == deadline - 1
    assert errcode(service.act, room, 1, {"action": {"add": 1}}) in ("paused", "not_your_turn")
    service.host_event(room, "resume", {})
    clock.advance(1)
    service.tick()
    assert room.session.actions == 1 and room.session.state.history[-1][2] is True


def test_skip_ends_the_timer_now_and_end_then_lobby():
    service = make_service()
    room, _ = started(service, players=2, bots=False)
    service.skip(room)
    assert room.session.actions == 1
    assert errcode(service.host_event, room, "lobby", {}) == "not_now"
    service.host_event(room, "end", {})
    assert room.phase == "finished" and room.session.aborted
    assert errcode(service.skip, room) == "no_game_running"
    service.host_event(room, "lobby", {})
    assert room.phase == "lobby" and len(room.players()) == 2  # everyone is still in the room


def test_bots_play_a_whole_game_through_the_log():
    clock = FakeClock()
    service = make_service(clock=clock)
    room, _ = started(service, players=0)  # two bots
    for _ in range(500):
        if room.phase != "playing":
            break
        clock.advance(100)
        service.tick()
    assert room.phase == "finished"
    assert sum(1 for e in service.store.events(room.code) if e.data.get("by") == "bot") >= 4


def test_actions_go_through_the_checks_in_order():
    service = make_service()
    room, seats = started(service, players=2, bots=False)
    state = room.session.state
    mover = room.session.slots[state.current].seat_id
    waiter = next(s for s in seats if s != mover)
    assert errcode(service.act, room, waiter, {"action": {"add": 1}}) == "not_your_turn"
    assert errcode(service.act, room, mover, {"action": {"add": 5}}) == "invalid_action"
    assert errcode(service.act, room, mover, {"action": {"add": 1}, "step": 9}) == "stale"
    assert errcode(service.act, room, mover, {"action": {"add": 1}, "step": "0"}) == "invalid"
    assert errcode(service.act, room, mover, "add") == "invalid"
    spectator, _ = service.join(room, "Viewer", "spectator")
    assert errcode(service.act, room, spectator, {"action": {"add": 1}}) == "not_in_game"
    seq = room.seq
    service.act(room, mover, {"action": {"add": 1}, "step": 0})
    assert room.seq == seq + 1


def test_a_new_service_rebuilds_every_room_from_the_log():
    store = Store("sqlite://")
    clock = FakeClock()
    first = make_service(store, clock)
    room, seats = started(first, players=3, bots=False, turn_seconds=8)
    first.join(room, "Viewer", "spectator")
    clock.advance(3000)
    first.tick()
    first.skip(room)
    mover = room.session.slots[room.session.state.current].seat_id
    first.act(room, mover, {"action": {"add": 2}})
    first.host_event(room, "lock", {"locked": True})
    clock.advance(2500)
    before = {seat: first.view(room, seat) for seat in [None, *seats, 4]}
    game_time = first.clocks.game_now(room)

    clock.advance(3_600_000)  # the server was down for an hour
    second = make_service(store, clock)
    assert second.restore_all() == 1
    again = second.room(room.code)
    assert again.seq == room.seq and again.session.state == room.session.state
    for seat, view in before.items():
        after = second.view(again, seat)
        assert after["game"]["view"] == view["game"]["view"]
        assert after["players"] == view["players"] and after["locked"] is True
    # downtime does not count against the player to move: the clock resumes from the last event
    assert second.clocks.game_now(again) <= game_time
    assert second.clocks.game_now(again) >= game_time - 2500


def test_an_unknown_or_malformed_code_is_refused():
    service = make_service()
    assert errcode(service.room, "ZZZZ") == "unknown_room"
    assert errcode(service.room, "AB") == "invalid_code"
    assert errcode(service.room, None) == "invalid_code"
    assert errcode(service.room, "IOLQ") == "invalid_code"


def test_every_event_is_in_the_database_before_anyone_hears_of_it():
    store = Store("sqlite://")
    service = make_service(store)
    code, _ = service.create_room()
    room = service.room(code)
    heard = []

    def notify(changed: str) -> None:
        logged = list(store.events(changed))
        heard.append((room.seq, logged[-1].seq if logged else 0))

    service.notify = notify
    service.join(room, "Ana", "player")
    service.join(room, "Bob", "player")
    service.host_event(room, "select_game", {"game": "tally"})
    service.host_event(room, "start", {})
    assert heard and all(applied == logged for applied, logged in heard)
    assert [e.kind for e in store.events(code)] == ["join", "join", "select_game", "start"]


def test_a_player_who_left_is_played_by_a_bot_until_the_phone_is_back():
    # CAMP-D13
    clock = FakeClock()
    service = make_service(clock=clock)
    room, seats = started(service, players=2, bots=False, turn_seconds=60)
    service.connections.connect(room, "sid-a", seats[0])
    service.connections.connect(room, "sid-b", seats[1])
    state = room.session.state
    mover = room.session.slots[state.current].seat_id
    sid = "sid-a" if mover == seats[0] else "sid-b"
    service.connections.disconnect(sid)
    clock.advance(5_000)
    service.tick()
    assert room.session.actions == 0  # still within the grace
    clock.advance(11_000)
    for _ in range(30):
        clock.advance(100)
        service.tick()
    assert room.session.actions >= 1  # a bot moved for the absent player
    slots = service.view(room, None)["game"]["slots"]
    assert [s["away"] for s in slots if s["seat"] == mover] == [True]  # and the TV can say so
    by = [e.data.get("by") for e in service.store.events(room.code) if e.kind == "action"]
    assert by[0] == "bot"
    service.connections.connect(room, sid, mover)
    assert not service.connections.is_away(room, mover)


def test_a_game_keeps_its_timer_scale_when_the_server_restarts_with_another():
    store, clock = Store("sqlite://"), FakeClock()
    fast = RoomService(store, clock, include_unlisted=True, timer_scale=0.1, seed_source=iter(range(7, 99)).__next__)
    room, _ = started(fast, players=2, bots=False, turn_seconds=10)
    assert room.session.state.turn_ms == 1000
    slow = RoomService(store, clock, include_unlisted=True, timer_scale=1.0)
    assert slow.room(room.code).session.state.turn_ms == 1000


def test_the_running_clocks_are_written_together_once_every_save_interval():
    """``Clocks.save``: one pass every CLOCK_SAVE_MS writes the clock of every running room in one transaction, so
    that a restart resumes each timer at most that long (and a tick) ago. A pass at every tick that wrote the rooms
    whose own interval had run out made four commits of a quarter of the rooms where one does."""
    from host.clocks import CLOCK_SAVE_MS

    clock = FakeClock()
    service = make_service(clock=clock)
    rooms = []
    for _ in range(3):
        rooms.append(started(service, players=2, bots=False, turn_seconds=120)[0])
        clock.advance(70)  # games started at different moments: their own intervals end at different ticks
    writes: list[dict[str, int]] = []
    save_clocks = service.store.save_clocks
    service.store.save_clocks = lambda clocks, release=None: (writes.append(dict(clocks)), save_clocks(clocks))[1]
    for _ in range(4 * CLOCK_SAVE_MS // 50):  # the ticker's pace: a tick every 50 ms
        service.tick()
        clock.advance(50)
    assert len(writes) == 4, writes  # one write a CLOCK_SAVE_MS, not one at every tick where a room's interval ended
    assert all(set(w) == {r.code for r in rooms} for w in writes)  # every running room each time
    for room in rooms:
        assert service.store.clock(room.code) == writes[-1][room.code]
        assert service.clocks.game_now(room) - writes[-1][room.code] <= CLOCK_SAVE_MS
