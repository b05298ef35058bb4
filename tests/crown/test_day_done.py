"""The day-actions window and who it waits for (CROWN-D1): the houses with people, never the bot houses, and any
prompt still open; the houses' people change during a game (a latecomer takes a bot's house, the last member of a
house is kicked, CROWN-D2) through ``seats_changed``, and the room replays those changes from its log."""

from __future__ import annotations

from engine.core import Context, Slot, evolve
from engine.crown.game import DAY, INITIAL, JUDGMENT
from host.service import FakeClock, RoomService
from host.store import Store
from tests.crown.fixtures import GAME, T0, act, day

PEOPLE = (0, 1)
BOTS = frozenset({2, 3, 4})


def with_bots(state, bots=BOTS):
    """The same position with these houses played by bots (set directly, as ``setup`` would)."""
    return evolve(state, bots=tuple(h in bots for h in range(5)))


def test_setup_learns_the_bot_houses_from_the_slots():
    # CROWN-D2: a house with no players is played by a bot
    state = GAME.setup([Slot(i, f"P{i}", i in BOTS) for i in range(5)], Context(1, GAME.info.default_settings()), 0)
    assert state.bots == (False, False, True, True, True)
    assert [h["bot"] for h in GAME.view(state, None)["houses"]] == [False, False, True, True, True]


def test_the_day_ends_when_every_house_with_people_is_done():
    # CROWN-D1: bot houses are never waited for
    state = with_bots(day("R L L E E"))
    state = act(state, 0, "done")
    assert state.phase == DAY
    state = act(state, 1, "done")
    assert state.phase == JUDGMENT, "the day waited for the bot houses"


def test_a_bot_that_pressed_done_does_not_end_the_day_for_the_people():
    # CROWN-D1: only the houses with people end the day early
    state = with_bots(day("R L L E E"))
    for h in (2, 3, 4, 0):
        state = act(state, h, "done")
        assert state.phase == DAY
    assert act(state, 1, "done").phase == JUDGMENT


def test_an_open_prompt_for_a_bot_house_keeps_the_window_open_until_answered():
    # CROWN-D1: a prompt still open for a house (here a bot's) keeps the window open
    state = with_bots(day("R L L E E"))
    state = act(state, 1, "propose_alliance", target=3)
    state = act(act(state, 0, "done"), 1, "done")
    assert state.phase == DAY
    state = act(state, 3, "answer_alliance", proposer=1, accept=False)
    assert state.phase == JUDGMENT


def test_an_open_prompt_for_a_house_with_people_keeps_the_window_open():
    # CROWN-D1: a bot's conspiracy offer and hush demand to people's houses are answered before the day ends
    state = with_bots(day("R E L E E"))
    state = act(state, 3, "propose_conspiracy", target=1)
    state = act(state, 2, "demand_hush", target=1)
    state = act(act(state, 0, "done"), 1, "done")
    assert state.phase == DAY
    state = act(state, 1, "answer_conspiracy", offer=0, accept=False)
    assert state.phase == DAY
    state = act(state, 1, "answer_hush", demander=2, pay=False)
    assert state.phase == JUDGMENT


def test_a_latecomer_in_a_bots_house_is_waited_for():
    # CROWN-D1, CROWN-D2: a latecomer who joins a bot's house makes it a house with people
    state = with_bots(day("R L L E E"))
    state = act(state, 3, "done")  # the bot pressed done for house 3 before the latecomer came
    joined = GAME.seats_changed(state, frozenset({2, 4}), T0 + 5)
    assert joined.bots == (False, False, True, False, True)
    assert GAME.view(joined, None)["houses"][3]["bot"] is False
    assert GAME.view(joined, 3)["done"] is False and ("done",) in GAME.legal_actions(joined, 3)
    joined = act(act(joined, 0, "done"), 1, "done")
    assert joined.phase == DAY, "the day ended without the latecomer"
    assert act(joined, 3, "done").phase == JUDGMENT
    assert state.bots == (False, False, True, True, True) and state.today["done"][3]  # the given state is unchanged


def test_a_house_whose_last_member_is_kicked_is_no_longer_waited_for():
    # CROWN-D1, CROWN-D2: a house with no players left is a bot's, so the day ends if everyone else with people
    # is already done
    state = with_bots(day("R L L E E"))
    state = act(state, 0, "done")
    kicked = GAME.seats_changed(state, frozenset({1, 2, 3, 4}), T0 + 7)
    assert kicked.phase == JUDGMENT and kicked.deadline_ms == T0 + 7 + kicked.council_ms
    assert GAME.view(kicked, None)["houses"][1]["bot"] is True
    # nobody done yet: the house simply stops being waited for
    fresh = GAME.seats_changed(with_bots(day("R L L E E")), frozenset({1, 2, 3, 4}), T0 + 7)
    assert fresh.phase == DAY
    assert act(fresh, 0, "done").phase == JUDGMENT


def test_seats_changed_outside_the_day_only_records_the_bots():
    # CROWN-D2: the council waits for every voter as before; the bots are recorded for the next day
    state = GAME.setup([Slot(i, f"P{i}", i in BOTS) for i in range(5)], Context(1, GAME.info.default_settings()), 0)
    assert state.phase == INITIAL
    changed = GAME.seats_changed(state, frozenset({4}), 10)
    assert changed.phase == INITIAL and changed.bots == (False, False, False, False, True)
    assert changed.step == state.step and changed.deadline_ms == state.deadline_ms
    assert GAME.seats_changed(changed, frozenset({4}), 20) == changed


def test_a_game_of_bots_only_waits_for_every_house():
    # CROWN-D1 does not say what a day with no people waits for: then every house (so the simulator and a room
    # whose people were all kicked still let the bots play their day)
    state = with_bots(day("R L L E E"), frozenset(range(5)))
    for h in range(4):
        state = act(state, h, "done")
        assert state.phase == DAY
    assert act(state, 4, "done").phase == JUDGMENT


# ----- the room: enlist and kick change the game's houses, and the log replays them -----


def crown_room():
    store, clock = Store("sqlite://"), FakeClock()
    service = RoomService(store, clock)
    room = service.room(service.create_room()[0])
    ana, bob = (service.join(room, name, "player")[0] for name in ("Ana", "Bob"))
    service.host_event(room, "select_game", {"game": "crown"})
    service.submit(room, "team", {"seat": ana, "team": 0})
    service.submit(room, "team", {"seat": bob, "team": 1})
    service.host_event(room, "start", {})
    for house in range(5):  # the first council: four votes for house 0, so day 1 starts at once
        service.submit(room, "action", {"slot": house, "action": {"kind": "vote", "choice": 1 if house == 0 else 0}})
    assert room.session.state.phase == DAY and room.session.state.bots == (False, False, True, True, True)
    return store, clock, service, room


def rebuilt(store, clock, room):
    again = RoomService(store, clock)
    assert again.restore_all() == 1
    return again.room(room.code).session.state


def done(service, room, house):
    service.submit(room, "action", {"slot": house, "action": {"kind": "done"}})


def test_room_a_latecomer_enlisting_in_a_bots_house_is_waited_for_and_the_log_replays_it():
    # CROWN-D1, CROWN-D2: room-level enlist calls seats_changed inside the event's effect
    store, clock, service, room = crown_room()
    cy = service.join(room, "Cy", "player")[0]
    service.submit(room, "team", {"seat": cy, "team": 3})
    assert room.session.state.bots == (False, False, True, False, True)
    done(service, room, 0)
    done(service, room, 1)
    assert room.session.state.phase == DAY, "the day ended without the latecomer of house 3"
    assert rebuilt(store, clock, room) == room.session.state
    done(service, room, 3)
    assert room.session.state.phase == JUDGMENT
    assert rebuilt(store, clock, room) == room.session.state


def test_room_kicking_the_last_member_of_a_house_ends_a_day_that_waited_only_for_it():
    # CROWN-D1, CROWN-D2: the kicked house becomes a bot's; Ana was done, so the day ends at the kick
    store, clock, service, room = crown_room()
    seat_of_bob = room.session.slots[1].seat_id
    done(service, room, 0)
    assert room.session.state.phase == DAY
    service.host_event(room, "kick", {"seat": seat_of_bob})
    state = room.session.state
    assert state.bots == (False, True, True, True, True) and state.phase == JUDGMENT
    assert rebuilt(store, clock, room) == state
