"""The generic simulator (engine/simulate.py): it drives a game as a room does, and its log replays. What it does
for every game is in tests/test_engine_contract.py; here the corners: human seats, the host's Next, refused moves,
early stops, the event cap and a stuck game."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import Rng, Slot
from engine.quiz.game import QuizGame
from engine.simulate import ACTION, NEXT, TIMEOUT, GameDidNotEnd, apply_event, bot_slots, play, replay, setup
from tests.games.tally import TallyGame
from tests.quiz.fixtures import choice

TALLY = TallyGame()


def test_a_seat_no_one_plays_moves_only_by_timeouts():
    table = setup(TALLY, [Slot(0, "Ann"), Slot(1, "Bot", True)], 3, {"target": 9, "turn_seconds": 5})
    played = play(table)
    assert played.finished and table.slots == (Slot(0, "Ann"), Slot(1, "Bot", True))
    assert {seat for kind, seat, _, _ in played.log if kind == ACTION} == {1}  # the bot's moves
    assert all(seat is None and payload is None for kind, seat, payload, _ in played.log if kind == TIMEOUT)
    assert played.timeouts > 0 and played.actions + played.timeouts == len(played.log)
    assert [h[2] for h in played.state.history] == [kind == TIMEOUT for kind, *_ in played.log]  # Ann's turns timed out
    assert replay(table, played.log) == played.state and played.game_ms == played.log[-1][3]


def test_bots_decide_with_the_rooms_generator_or_a_shared_one():
    table = setup(TALLY, 3, 11, {"target": 30})
    assert table.slots == bot_slots(3) and all(s.is_bot for s in table.slots)
    by_room = play(table)
    assert play(table).log == by_room.log  # the same seed, the same game
    shared = play(table, rng=Rng(5))
    assert shared.log != by_room.log and play(table, rng=Rng(5)).log == shared.log
    assert replay(table, shared.log) == shared.state


def test_a_host_paced_quiz_goes_on_with_the_hosts_next_and_replays():
    game = QuizGame()
    table = setup(game, 2, 4, {"paced": "host", "order": "pack"},
                  supply={"questions": [choice(i, options=2) for i in range(3)], "seen": set()})
    played = play(table)
    nexts = [event for event in played.log if event[0] == NEXT]
    assert played.finished and len(nexts) == 5  # after each reveal, and after the standings between questions
    assert replay(table, played.log) == played.state
    with pytest.raises(ValueError, match="not an event"):
        apply_event(game, table.state, ("undo", None, None, 0))


def test_a_move_refused_when_due_is_dropped_and_counted():
    game = QuizGame()
    table = setup(game, 2, 4, {"order": "pack"}, supply={"questions": [choice(i, options=2) for i in range(2)],
                                                       "seen": set()})

    def third_option(state: Any, seat: int, rng: Rng) -> tuple[Any, int]:
        return {"choice": 2}, 100  # the questions have two options: the rules refuse it

    played = play(table, {0: third_option})
    assert played.finished and played.refused > 0
    assert all(seat != 0 for kind, seat, _, _ in played.log if kind == ACTION)  # never logged
    assert played.attempts == len(played.log) + played.refused
    assert replay(table, played.log) == played.state


def test_a_stop_ends_the_simulation_unfinished_and_the_cap_raises():
    table = setup(TALLY, 2, 1, {"target": 50})
    stopped = play(table, stop=lambda state, played: state.total >= 10)
    assert not stopped.finished and 10 <= stopped.state.total < 50 and TALLY.outcome(stopped.state) is None
    assert replay(table, stopped.log) == stopped.state
    with pytest.raises(GameDidNotEnd, match="did not end in 5 events"):
        play(table, max_events=5)


def test_a_game_waiting_for_nothing_is_reported_stuck():
    class Untimed(TallyGame):
        def deadline(self, state: Any) -> int | None:
            return None

    table = setup(Untimed(), [Slot(0, "Ann"), Slot(1, "Bob")], 1)
    with pytest.raises(GameDidNotEnd, match="stuck at 0 ms"):
        play(table)
