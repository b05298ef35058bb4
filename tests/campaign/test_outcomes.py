"""Every outcome told (issue [18]): the facts the screens put in words, straight from the engine's views.

A duel's result says who took what from whom (or who kept it), until the next question is revealed; the statistics
count right answers and closest ones apart; the view says which tied groups a final quick question decided."""

from __future__ import annotations

from dataclasses import replace

from tests.campaign.fixtures import GAME, start, tid
from tests.campaign.test_rules import (
    answer,
    battle,
    choose,
    correct_number,
    correct_option,
    duel,
    lose_duel,
    past_reveal,
    unlock,
    win_duel,
)


def test_a_won_duel_is_told_as_the_attacker_taking_the_territory_from_the_defender():
    # CAMP-R17 CAMP-R18
    state = duel(battle("A a b / b B c / c a C"), 3)  # seat 0 attacks seat 1's t1-0
    assert GAME.view(state, None)["result"] is None  # nothing settled yet
    won = win_duel(state)
    result = GAME.view(won, None)["result"]
    assert {k: result[k] for k in ("kind", "attacker", "defender", "territory")} == {
        "kind": "taken", "attacker": 0, "defender": 1, "territory": tid(state, 3)}
    assert GAME.view(won, 1)["result"] == result  # the same facts for every seat: each phone says "you" itself


def test_a_lost_duel_is_told_as_the_defender_keeping_the_territory():
    # CAMP-R17 CAMP-R20 CAMP-D9
    state = duel(battle("A a b / b B c / c a C"), 3)
    result = GAME.view(lose_duel(state), None)["result"]
    assert (result["kind"], result["attacker"], result["defender"], result["territory"]) == ("held", 0, 1, tid(state, 3))


def test_a_duel_decided_by_its_tiebreak_is_told_the_same_way():
    # CAMP-R17 CAMP-D10
    state = duel(battle("A a b / b B c / c a C"), 3)
    state = unlock(past_reveal(choose(choose(state, 0, correct_option(state)), 1, correct_option(state))))
    assert GAME.view(state, None)["result"] is None  # the tiebreak is on: not decided yet
    truth = correct_number(state)
    won = past_reveal(answer(answer(state, 0, truth, 3000), 1, truth + 5, 100))
    assert GAME.view(won, None)["result"]["kind"] == "taken"


def test_a_tower_and_an_elimination_are_told_with_the_castle():
    # CAMP-R21 CAMP-D7 CAMP-D8
    state = duel(battle("A a b / b B c / c a C"), 4)  # seat 1's castle
    state = win_duel(state)
    result = GAME.view(state, None)["result"]
    assert (result["kind"], result["towers"], result["territory"]) == ("tower", 2, tid(state, 4))
    last = battle("A a b / b B c / c a C", towers=(3, 1, 3), scores=(1600, 2100, 1400))
    last = win_duel(duel(last, 4))
    result = GAME.view(last, None)["result"]
    assert (result["kind"], result["attacker"], result["defender"], result["territory"]) == ("eliminated", 0, 1, tid(last, 4))


def test_a_result_is_old_news_once_the_next_question_is_revealed():
    # CAMP-R17
    state = win_duel(duel(battle("A a b / b B c / c a C"), 3))
    key = GAME.view(state, None)["result"]["key"]
    assert state.phase == "target"  # the next attacker chooses: the result is on
    nxt = duel(state, GAME.legal_targets(state, state.attack.attacker)[0])
    assert GAME.view(nxt, None)["result"]["key"] == key  # the next duel's question is open: the last result stands
    nxt = choose(choose(nxt, nxt.attack.attacker, correct_option(nxt)), nxt.attack.defender, correct_option(nxt))
    assert nxt.phase == "reveal" and GAME.view(nxt, None)["result"] is None  # both right: a tiebreak, no result yet


def test_the_statistics_count_the_closest_apart_from_the_right():
    # CAMP-D5 CAMP-R7: the closest wins the round without being right; an exact answer is right

    state = unlock(start())
    truth = correct_number(state)
    state = answer(answer(answer(state, 0, truth + 649, 500), 1, truth + 900, 400), 2, truth + 1000, 300)
    over = replace(state, stage="over", phase="over", final_ranking=(0, 1, 2))
    stats = {s["seat"]: s for s in GAME.view(over, None)["stats"]}
    assert (stats[0]["right"], stats[0]["closest"], stats[0]["answers"]) == (0, 1, 1)
    assert (stats[1]["right"], stats[1]["closest"]) == (0, 0)
    exact = unlock(start())
    truth = correct_number(exact)
    exact = answer(answer(answer(exact, 0, truth, 500), 1, truth + 1, 400), 2, truth + 2, 300)
    over = replace(exact, stage="over", phase="over", final_ranking=(0, 1, 2))
    stats = {s["seat"]: s for s in GAME.view(over, None)["stats"]}
    assert (stats[0]["right"], stats[0]["closest"]) == (1, 0)  # exact: right, not counted again as closest


def test_the_view_says_which_tie_the_final_question_decided():
    # CAMP-R24 CAMP-D12
    state = battle("A a b / b B c / c a C", attacker=2, round_=4, scores=(2000, 1900, 1200))
    state = replace(state, orders=((0, 1, 2),) * 4, turn=2)
    state = lose_duel(duel(state, 3))  # seat 1's +100 ties it with seat 0 on 2000
    assert GAME.view(state, None)["settled"] == []
    state = unlock(state)
    truth = correct_number(state)
    state = past_reveal(answer(answer(state, 1, truth, 800), 0, truth + 3, 200))
    view = GAME.view(state, None)
    assert view["stage"] == "over" and view["settled"] == [{"seats": [1, 0], "score": 2000}]
    untied = win_duel(duel(battle("A a b / b B c / c a C", attacker=2, round_=4, scores=(2000, 1900, 1200)), 7))
    assert GAME.view(untied, None)["settled"] == []


def test_the_final_questions_answers_stay_twice_as_long_as_a_reveal():
    # CAMP-D12 CAMP-D2: the question that decides the standings is read before the results replace it
    state = battle("A a b / b B c / c a C", attacker=2, round_=4, scores=(2000, 1900, 1200))
    state = replace(state, orders=((0, 1, 2),) * 4, turn=2)
    state = unlock(lose_duel(duel(state, 3)))
    assert state.asking.purpose == "final"
    truth = correct_number(state)
    closed_at = state.asking.opens_ms + 200  # the last of the two answers closes the question
    state = answer(answer(state, 1, truth, 800), 0, truth + 3, 200)
    assert state.phase == "reveal" and state.deadline_ms == closed_at + 2 * state.timers.reveal
    ordinary = duel(battle("A a b / b B c / c a C"), 3)  # a duel's reveal keeps its time
    closed_at = ordinary.asking.opens_ms + 1000
    ordinary = choose(choose(ordinary, 0, correct_option(ordinary)), 1, correct_option(ordinary))
    assert ordinary.phase == "reveal" and ordinary.deadline_ms == closed_at + ordinary.timers.reveal
