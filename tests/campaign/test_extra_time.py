"""Extended time in the Short Campaign (CAMP-X1): an asked seat's own longer window, scaled times, longer turns."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.campaign.game import CampaignState
from engine.core import Context, Slot, Timing, TooLate
from tests.campaign.fixtures import GAME, grid_map

T = 10_000  # numeric_seconds and pick_seconds default


def start_x(factors: tuple[float, ...], seed: int = 1, **settings: object) -> CampaignState:
    game_map = grid_map(3, 3)
    chosen = {**GAME.info.default_settings(), "map": game_map.id, **settings}
    ctx = Context(seed, chosen, 1.0, GAME.prepare(chosen, seed), factors)
    state = GAME.setup([Slot(i, "ABC"[i]) for i in range(3)], ctx, 0)
    return GAME.on_timeout(state, state.deadline_ms)  # the preview passes: the expansion question is open


def answer(state: CampaignState, seat: int, value: int, ms: int) -> CampaignState:
    opens = state.asking.opens_ms
    return GAME.apply(state, seat, ("answer", value), opens + ms, Timing(ms, opens + ms, opens))


def truth(state: CampaignState) -> int:
    return state.numeric[state.asking.question].answer


def test_a_seat_with_double_time_answers_after_the_standard_window_the_others_cannot():
    # CAMP-X1: seat 0 has x2; at T the others' windows end, the question stays open for seat 0 until 2T
    state = start_x((2.0, 1.0, 1.0))
    opens = state.asking.opens_ms
    assert GAME.answer_window(state, 0) == (opens, opens + 2 * T)
    assert GAME.answer_window(state, 1) == (opens, opens + T) and GAME.deadline(state) == opens + T
    state = answer(state, 2, truth(state) + 3, 2_000)
    state = GAME.on_timeout(state, opens + T + 250)
    assert state.phase == "answer" and GAME.deadline(state) == opens + 2 * T
    with pytest.raises(TooLate):
        answer(state, 1, truth(state), T + 300)
    assert GAME.view(state, 1)["question"]["time_up"] and "time_up" not in GAME.view(state, 0)["question"]
    assert "time_up" not in GAME.view(state, None)["question"]
    state = answer(state, 0, truth(state), 15_000)  # in its own window: taken; nobody else may answer: closed
    assert state.phase == "reveal" and state.asking.ranking == (0, 2, 1)


def test_speed_tiebreaks_compare_the_scaled_reaction():
    # CAMP-X1 with CAMP-D5: equal distances go to the quicker reaction, t / f: 8 s at x2 (4 s) beats 5 s at x1
    state = start_x((2.0, 1.0, 1.0))
    value = truth(state) + 7
    state = answer(answer(answer(state, 0, value, 8_000), 1, value, 5_000), 2, value + 50, 1_000)
    assert state.asking.ranking[:2] == (0, 1) and not state.asking.drawn
    shown = {a["seat"]: a for a in GAME.view(state, None)["question"]["answers"]}
    assert shown[0]["ms"] == 4_000 and shown[0]["timing"]["effective"] == 4_000  # the log shows the reaction
    assert shown[0]["timing"]["receipt"] - shown[0]["timing"]["unlock"] == 4_000


def test_the_question_closes_when_the_longest_remaining_window_passes():
    # CAMP-X1: nobody answers: T closes the standard seats, 1.5T the last one
    state = start_x((1.0, 1.5, 1.0))
    opens = state.asking.opens_ms
    state = GAME.on_timeout(state, opens + T + 250)
    assert state.phase == "answer" and GAME.deadline(state) == opens + 15_000
    state = GAME.on_timeout(state, opens + 15_250)
    assert state.phase == "reveal"


def test_the_tv_and_the_others_see_the_standard_window():
    # CAMP-X1: only the seat's own view holds its longer window
    state = start_x((2.0, 1.0, 1.0))
    opens = state.asking.opens_ms
    assert GAME.view(state, None)["question"]["closes_ms"] == opens + T == GAME.view(state, 1)["question"]["closes_ms"]
    assert GAME.view(state, 0)["question"]["closes_ms"] == opens + 2 * T
    assert GAME.view(state, None)["deadline_ms"] == opens + T and GAME.view(state, 0)["deadline_ms"] == opens + 2 * T


def test_an_extended_pickers_turn_lasts_longer_and_the_tv_shows_the_standard_turn():
    # CAMP-X1: the pick turn of a x1.5 seat lasts 1.5 x the pick time
    state = start_x((1.0, 1.5, 1.0))
    t = truth(state)
    state = answer(answer(answer(state, 1, t, 1_000), 0, t + 10, 1_000), 2, t + 20, 1_000)
    state = GAME.on_timeout(state, state.deadline_ms)  # past the reveal: seat 1 picks first
    assert state.phase == "pick" and state.picks[0] == 1
    now = state.clock_ms - T
    assert GAME.deadline(state) == now + 15_000
    assert GAME.clock(state, 1) == now + 15_000 and GAME.clock(state, None) == GAME.clock(state, 0) == now + T


def test_a_replay_of_the_same_moves_gives_the_same_game():
    # CAMP-X1: deterministic: factors live in the state and change by logged events
    def play() -> CampaignState:
        state = start_x((1.0, 1.0, 2.0), seed=3)
        state = GAME.set_time_factor(state, 0, 1.5, state.asking.opens_ms)
        state = answer(state, 2, truth(state), 12_000)
        state = GAME.on_timeout(state, state.deadline_ms + 250)
        return replace(state)

    assert play() == play()
