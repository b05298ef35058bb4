"""Extended time in the Quiz (QUIZ-X1): a seat given x1.5 or x2 answers in a longer window, its time scaled back."""

from __future__ import annotations

import pytest

from engine.core import Context, IllegalAction, InvalidAction, Slot, Timing, TooLate
from tests.quiz.fixtures import GAME, answer, choice, results, settings, view

T = 20_000  # the default answer time


def start_x(factors: tuple[float, ...], players: int = 3, questions: int = 3, **chosen: object) -> object:
    """A quiz whose seats have these time factors, at its first question."""
    picked = settings(**chosen)
    content = GAME.prepare(picked, 1, {"questions": [choice(i) for i in range(questions)], "seen": set()})
    ctx = Context(1, picked, 1.0, content, factors)
    return GAME.setup([Slot(i, f"P{i}") for i in range(players)], ctx, 0)


def opened(state: object) -> object:
    return GAME.on_timeout(state, GAME.deadline(state))


def test_a_seat_with_double_time_answers_after_the_standard_window_the_others_cannot():
    # QUIZ-X1: seat 0 has x2: its window is 2T; at T the others' windows close, the question stays open for seat 0
    state = opened(start_x((2.0, 1.0, 1.0)))
    opens = view(state)["question"]["opens_ms"]
    assert GAME.answer_window(state, 0) == (opens, opens + 2 * T)
    assert GAME.answer_window(state, 1) == (opens, opens + T)
    assert GAME.deadline(state) == opens + T  # the first window to end
    state = answer(state, 2, 0, 5_000)
    state = GAME.on_timeout(state, opens + T + 250)  # the standard window ran out (with the room's grace)
    assert view(state)["phase"] == "question"
    assert GAME.deadline(state) == opens + 2 * T
    assert GAME.answer_window(state, 1) is None and view(state, 1)["time_up"]
    assert not view(state, 0)["time_up"] and not view(state)["time_up"]
    with pytest.raises(TooLate):
        answer(state, 1, 0, T + 300)
    state = answer(state, 0, 0, 30_000)  # inside its own window: taken, and the question closes (no one else left)
    assert view(state)["phase"] == "reveal"
    assert results(state)[0]["right"] and results(state)[1]["value"] is None


def test_points_and_shown_times_come_from_the_time_scaled_back_to_the_standard_window():
    # QUIZ-X1: a x2 seat answering at 2t scores what a standard seat scores at t; the reveal shows t, never 2t
    state = opened(start_x((2.0, 1.0, 1.5)))
    state = answer(state, 0, 0, 20_000)  # t = 10 s
    state = answer(state, 1, 0, 10_000)
    state = answer(state, 2, 0, 15_000)  # x1.5: t = 10 s
    points = {s: r["points"] for s, r in results(state).items()}
    assert points == {0: 750, 1: 750, 2: 750}
    assert {s: r["ms"] for s, r in results(state).items()} == {0: 10_000, 1: 10_000, 2: 10_000}


def test_the_scaled_time_is_capped_at_T_like_everyone_elses():
    # QUIZ-X1 with QUIZ-S1: an answer in the grace after a x2 window counts as at the last moment, t = T
    state = opened(start_x((2.0, 1.0), players=2))
    opens = view(state)["question"]["opens_ms"]
    state = answer(state, 1, 0, 1_000)
    assert GAME.deadline(state) == opens + 2 * T  # only the x2 seat is left
    state = answer(state, 0, 0, 2 * T + 200)
    assert results(state)[0]["ms"] == T and results(state)[0]["points"] == 500


def test_tiebreaks_compare_scaled_reactions_not_windows():
    # QUIZ-X1 with QUIZ-S5: equal scores and right answers: the lower average scaled time ranks first
    state = opened(start_x((2.0, 1.0), players=2, questions=2, speed=False))
    state = answer(state, 0, 0, 11_000)  # x2: 5.5 s
    state = answer(state, 1, 0, 6_000)  # 6 s
    assert results(state)[0]["points"] == results(state)[1]["points"] == 1000
    assert GAME.ranking(state)[0] == 0  # slower on the clock, quicker as a reaction
    assert [p["avg_ms"] for p in view(state)["players"]] == [5_500, 6_000]


def test_the_question_closes_when_the_longest_remaining_window_passes():
    # QUIZ-X1: nobody answers: the standard windows close at T, the x1.5 one at 1.5T, then the reveal
    state = opened(start_x((1.5, 1.0)))
    opens = view(state)["question"]["opens_ms"]
    state = GAME.on_timeout(state, opens + T + 250)
    assert view(state)["phase"] == "question" and GAME.deadline(state) == opens + 30_000
    state = GAME.on_timeout(state, opens + 30_250)
    assert view(state)["phase"] == "reveal"


def test_once_the_standard_seats_answered_the_deadline_moves_to_the_extended_window():
    # QUIZ-X1: the question waits for the x2 seat alone after the others answered
    state = opened(start_x((1.0, 2.0), players=2))
    opens = view(state)["question"]["opens_ms"]
    state = answer(state, 0, 0, 1_000)
    assert GAME.deadline(state) == opens + 2 * T


def test_the_host_skip_closes_the_question_for_everyone():
    # QUIZ-X1: the host's Skip (a timeout before the deadline) ends every window at once
    state = opened(start_x((2.0, 1.0)))
    opens = view(state)["question"]["opens_ms"]
    state = GAME.on_timeout(state, opens + 3_000)
    assert view(state)["phase"] == "reveal"


def test_the_tv_and_the_other_phones_see_the_standard_clock_only_the_seat_its_own():
    # QUIZ-X1: shown to nobody but the host and the seat itself
    state = opened(start_x((2.0, 1.0)))
    opens = view(state)["question"]["opens_ms"]
    assert view(state)["question"]["closes_ms"] == opens + T == GAME.clock(state, None) == GAME.clock(state, 1)
    assert view(state, 1)["question"]["closes_ms"] == opens + T
    assert view(state, 0)["question"]["closes_ms"] == opens + 2 * T == GAME.clock(state, 0)
    public = str(view(state)) + str(view(state, 1))
    assert "2.0" not in public and str(opens + 2 * T) not in public


def test_a_factor_set_during_a_question_counts_from_the_next_one():
    # QUIZ-X1: a window already open keeps its length
    state = opened(start_x((1.0, 1.0), players=2))
    opens = view(state)["question"]["opens_ms"]
    state = GAME.set_time_factor(state, 0, 2.0, opens + 1_000)
    assert GAME.answer_window(state, 0) == (opens, opens + T)
    state = answer(answer(state, 0, 0, 1_000), 1, 0, 1_000)
    state = GAME.on_timeout(state, GAME.deadline(state))  # reveal -> standings
    state = GAME.on_timeout(state, GAME.deadline(state))  # standings -> next question
    state = opened(state)
    opens = view(state)["question"]["opens_ms"]
    assert GAME.answer_window(state, 0) == (opens, opens + 2 * T)
    state = GAME.set_time_factor(state, 0, 1, opens)  # back to x1: from the question after
    assert GAME.answer_window(state, 0) == (opens, opens + 2 * T)


def test_bad_factors_and_seats_are_refused_naming_the_field():
    # QUIZ-X1: 1, 1.5 or 2 only; a seat of this game
    state = start_x((1.0, 1.0))
    for bad in (3, 0, 1.25, True, "2", None):
        with pytest.raises(InvalidAction) as error:
            GAME.set_time_factor(state, 0, bad, 0)  # type: ignore[arg-type]
        assert error.value.field == "factor"
    for seat in (5, -1, True):
        with pytest.raises(IllegalAction) as refused:
            GAME.set_time_factor(state, seat, 2, 0)
        assert refused.value.field == "seat"


def test_a_replay_of_the_same_moves_gives_the_same_game():
    # QUIZ-X1: deterministic: the factors are in the state, set by logged events
    def play() -> object:
        state = opened(start_x((1.0, 1.0, 1.0)))
        state = GAME.set_time_factor(state, 2, 1.5, 100)
        opens = view(state)["question"]["opens_ms"]
        for slot in range(3):
            state = GAME.apply(state, slot, ("choice", 0), opens + 2_000, Timing(2_000, opens + 2_000, opens))
        state = GAME.on_timeout(state, GAME.deadline(state))
        state = GAME.on_timeout(state, GAME.deadline(state))
        state = opened(state)
        opens = view(state)["question"]["opens_ms"]
        state = GAME.apply(state, 2, ("choice", 0), opens + 25_000, Timing(25_000, opens + 25_000, opens))
        return GAME.on_timeout(state, opens + T + 250)

    first, second = play(), play()
    assert first == second
    assert view(first)["phase"] == "reveal" and results(first)[2]["ms"] == 16_667


def test_the_audience_keeps_the_standard_window():
    # QUIZ-X1: the audience play-along closes when only seats with extended time are left to answer
    state = opened(start_x((2.0, 1.0), players=2))
    opens = view(state)["question"]["opens_ms"]
    assert GAME.audience_question(state)["open"] and GAME.audience_question(state)["closes_ms"] == opens + T
    state = GAME.on_timeout(state, opens + T + 250)
    assert view(state)["phase"] == "question" and not GAME.audience_question(state)["open"]
