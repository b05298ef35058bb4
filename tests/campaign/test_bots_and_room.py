"""Campaign bots behave like players of their level; the game runs in a room and survives a restart."""

from __future__ import annotations

from dataclasses import replace
from statistics import mean

from engine.campaign.bots import LEVELS, best_pick, best_target, decide
from engine.campaign.game import Attack
from engine.core import Rng
from host.cli import campaign_game
from host.service import FakeClock, RoomService
from host.store import Store
from tests.campaign.fixtures import GAME, board, grid_map, start
from tests.campaign.test_rules import unlock


def test_stronger_bots_guess_closer_know_more_and_answer_sooner():
    # CAMP-R7 CAMP-D5
    state = unlock(start(seed=3))
    truth = state.numeric[state.asking.question].answer
    results = {}
    for level in LEVELS:
        leveled = replace(state, bot_level=level)
        rng = Rng(99)
        guesses, delays = [], []
        for _ in range(400):
            action, delay = decide(GAME, leveled, 0, rng)
            guesses.append(abs(action["answer"] - truth) / max(truth, 1))
            delays.append(delay)
            assert 0 <= delay <= state.timers.numeric - 150
        results[level] = (mean(guesses), mean(delays))
    assert results["hard"][0] < results["normal"][0] < results["easy"][0]
    assert results["hard"][1] < results["normal"][1] < results["easy"][1]


def test_multiple_choice_accuracy_follows_the_level():
    # CAMP-R17
    state = start()
    state = board(state, "A a b / b B c / c a C", stage="battle", round=1, orders=((0, 1, 2),) * 3, turn=0,
                  phase="target", attack=Attack(0), asking=None, deadline_ms=1)
    state = unlock(GAME.apply(state, 0, ("target", "t1-0"), 0))
    correct = state.choice[state.asking.question].correct
    for level, (low, high) in {"easy": (0.45, 0.70), "hard": (0.82, 0.97)}.items():
        rng = Rng(5)
        right = sum(decide(GAME, replace(state, bot_level=level), 0, rng)[0]["choice"] == correct
                    for _ in range(1000))
        assert low <= right / 1000 <= high, (level, right)


def test_bots_pick_next_to_their_empire_and_attack_the_richest_target():
    # CAMP-R10 CAMP-D6
    state = board(start(), "A a . / a . . / B . C", phase="pick", picks=(0,), stage="expansion")
    legal = GAME.legal_picks(state, 0)
    assert sorted(legal) == [2, 4]
    assert {best_pick(state, 0, legal, Rng(s)) for s in range(20)} == {4}  # it touches two of its own
    battle = board(start(), "A a b / b B c / c a C", stage="battle", round=4, orders=((0, 1, 2),) * 4, turn=0,
                   phase="target", attack=Attack(0), demolished=frozenset({8}), towers=(3, 3, 0))
    level = LEVELS["normal"]
    picks = {best_target(battle, 0, [2, 3, 4, 8], level, Rng(s)) for s in range(20)}
    assert picks == {8}  # the demolished castle: a 2000-point swing


def run(service: RoomService, clock: FakeClock, room, limit: int = 40_000) -> None:
    for _ in range(limit):
        if room.phase != "playing":
            return
        clock.advance(100)
        service.tick()


def test_a_campaign_runs_in_a_room_and_is_rebuilt_after_a_restart():
    # CAMP-D13 CAMP-D15
    store, clock = Store("sqlite://"), FakeClock()
    seeds = iter(range(10, 99))
    service = RoomService(store, clock, include_unlisted=True, seed_source=lambda: next(seeds), timer_scale=0.2)
    room = service.room(service.create_room()[0])
    _seat, _ = service.join(room, "Ana", "player")
    service.host_event(room, "select_game", {"game": "campaign"})
    service.host_event(room, "start", {})
    assert [s.is_bot for s in room.session.slots] == [False, True, True]
    start_event = next(e for e in store.events(room.code) if e.kind == "start")
    assert len(start_event.data["content"]["numeric"]) >= 30  # the questions are in the log
    for _ in range(300):
        clock.advance(100)
        service.tick()
    middle = room.session.state
    assert middle.stage in ("expansion", "battle")
    again = RoomService(store, clock, include_unlisted=True, timer_scale=0.2)
    assert again.room(room.code).session.state == middle
    run(service, clock, room)
    assert room.phase == "finished" and sorted(room.session.game.outcome(room.session.state).ranking) == [0, 1, 2]


def test_bots_on_every_level_finish_games():
    # (moved from the former test_conformance.py) all-bot games, as throneroom simulate campaign plays them
    grid_map(4, 4)
    for level in ("easy", "normal", "hard"):
        for seed in range(10):
            assert campaign_game(seed, {"map": "grid-4x4", "bot_level": level}).state.stage == "over"
