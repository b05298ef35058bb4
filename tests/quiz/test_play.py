"""The Quiz over a whole game after issue [17]: times capped at T (finding 7), teams' places (findings 4, 7), the count
of closed questions (finding 5), latecomers (QUIZ-S14), gone players (QUIZ-S15), bots for every kind, the history
of reveals and the report, and the replay of a game of every kind."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.core import Context, Game, IllegalAction, Rng, Slot, Timing
from engine.quiz.game import MAX_PLAYERS
from tests.quiz.fixtures import (
    GAME,
    answer,
    choice,
    close,
    multi,
    numeric,
    onwards,
    order,
    poll,
    results,
    scores,
    settings,
    start,
    text,
    unlock,
    view,
)

EVERY_KIND = [choice(0, correct=1), multi(1, rights=(0, 2)), poll(2), order(3, items=3),
              numeric(4, answer=1440, margin=60), text(5, ("Paris",))]


# ----- finding 7: times capped at T -----


def test_an_answer_in_the_grace_shows_and_averages_as_taken_at_the_last_moment():
    # QUIZ-S1, finding 7: "20,100 ms" on a 20-second question; t is capped at T in shown times and averages
    state = unlock(start([choice(0)], players=2))
    state = close(answer(state, 0, 0, 20_100))
    assert results(state)[0]["ms"] == 20_000 and results(state)[0]["points"] == 500
    assert view(state)["players"][0]["avg_ms"] == 20_000


def test_the_tiebreak_uses_capped_times():
    # QUIZ-S5, finding 7: the uncapped time no longer decides: 20,300 (taken in the grace) and 20,000 are both T
    state = unlock(start([choice(0)], players=2))
    state = answer(state, 1, 0, 20_000)
    state = answer(state, 0, 0, 20_300)
    assert scores(state) == [500, 500] and [p["avg_ms"] for p in view(state)["players"]] == [20_000, 20_000]
    assert view(state)["ranking"] == [0, 1]  # equal times: the seat order (QUIZ-S5), not the later answer first


def test_tied_teams_list_their_members_together_by_quiz_s5():
    # QUIZ-S4 fixed, finding 7: tied teams' members are ordered together by QUIZ-S5, not team by team
    state = unlock(start([numeric(0, answer=100)], players=4, teams="2", speed=False))
    state = answer(state, 0, 100, 100)  # team 0: 1000 ...
    state = answer(state, 2, 500, 100)  # ... and 0: mean 500
    state = answer(state, 1, 90, 100)  # team 1: 500 ...
    state = answer(state, 3, 110, 200)  # ... and 500: mean 500
    assert [(t["score"], t["place"]) for t in view(state)["teams"]] == [(500, 1), (500, 1)]
    state = onwards(state)
    outcome = GAME.outcome(state)
    assert outcome.ranking == (0, 1, 3, 2) and outcome.places == (1, 1, 1, 1)


# ----- findings 4 and 5: the final table and the count of closed questions -----


def test_the_view_s_final_is_the_outcome_so_every_screen_agrees():
    # finding 4 (the engine's side): `final` is null until the end, then exactly the Outcome's order and places
    state = unlock(start([choice(0), choice(1)], players=3, teams="2", speed=False))
    state = answer(answer(answer(state, 0, 0, 10), 1, 1, 10), 2, 1, 10)  # Ana right, Bob and Cy wrong
    assert view(state)["final"] is None
    state = answer(answer(answer(unlock(onwards(onwards(state))), 0, 1, 10), 1, 0, 10), 2, 1, 10)  # Bob right
    state = onwards(state)
    outcome = GAME.outcome(state)
    final = view(state)["final"]
    assert final == {"order": list(outcome.ranking), "places": outcome.place_list()}
    assert final == view(state, 2)["final"]
    # Ana and Cy (team 0: mean 500) and Bob (team 1: 1000): Bob first; Ana and Cy share second, by QUIZ-S5
    assert final == {"order": [1, 0, 2], "places": [1, 2, 2]}


def test_closed_counts_the_questions_revealed_so_far():
    # finding 5: "Right 3 of 3" after End game at 3 of 6
    state = start([choice(i) for i in range(6)], players=1)
    for i in range(3):
        assert view(state)["closed"] == i
        state = answer(unlock(state), 0, 0, 10)
        assert view(state)["closed"] == i + 1
        state = onwards(onwards(state))
    assert view(state)["closed"] == 3 and view(state)["total"] == 6
    assert view(state)["players"][0]["right"] == 3
    ended = GAME.standings(state, 1)
    assert ended.ranking == (0,)


# ----- QUIZ-S14: latecomers -----


def test_a_latecomer_plays_the_rest_from_the_open_question():
    # QUIZ-S14: joins during the question: may answer it; earlier questions score 0 and do not count as answered
    state = start([choice(0), choice(1), choice(2)], players=2)
    assert GAME.takes_latecomers(state)
    state = answer(answer(unlock(state), 0, 0, 10), 1, 1, 10)
    state = unlock(onwards(onwards(state)))
    state = answer(state, 0, 0, 10)
    state = GAME.add_seat(state, "Late", 5_000)
    assert view(state)["players"][2] == {**view(state)["players"][2], "name": "Late", "score": 0, "joined": 1,
                                         "answered": 0, "avg_ms": None}
    assert view(state)["phase"] == "question" and GAME.legal_actions(state, 2)
    state = answer(state, 1, 0, 10)
    assert view(state)["phase"] == "question"  # the latecomer may still answer: no early close without them
    state = answer(state, 2, 0, 3000)
    assert view(state)["phase"] == "reveal" and results(state)[2]["points"] > 0
    assert view(state)["players"][2]["answered"] == 1 and view(state)["players"][2]["right"] == 1
    report = GAME.report(state)
    assert [r["slot"] for r in report["questions"][0]["results"]] == [0, 1]  # QUIZ-S14: not theirs, no row
    assert [r["slot"] for r in report["questions"][1]["results"]] == [0, 1, 2]
    assert report["players"][2]["joined"] == 1


def test_a_latecomer_after_a_reveal_starts_with_the_next_question():
    # QUIZ-S14
    state = close(unlock(start([choice(0), choice(1)], players=1)))
    state = GAME.add_seat(state, "Late", 30_000)
    assert view(state)["players"][1]["joined"] == 1 and not GAME.legal_actions(state, 1)
    assert view(state)["previous_places"] == [1, 1]
    state = answer(unlock(onwards(onwards(state))), 1, 0, 10)
    assert view(state)["phase"] == "question"
    state = answer(state, 0, 0, 10)
    assert view(state)["phase"] == "reveal"


def test_no_latecomers_with_teams_when_over_or_full():
    # QUIZ-S14: the default Game takes none; the Quiz none with teams, with no question left, or at 12 players
    assert not GAME.takes_latecomers(start(players=2, teams="2"))
    with pytest.raises(IllegalAction):
        GAME.add_seat(start(players=2, teams="2"), "Late", 0)
    last = answer(unlock(start([choice(0)], players=1)), 0, 0, 10)
    assert view(last)["phase"] == "reveal" and not GAME.takes_latecomers(last)  # no question left for them
    over = onwards(last)
    assert view(over)["phase"] == "over" and not GAME.takes_latecomers(over)
    with pytest.raises(IllegalAction):
        GAME.add_seat(over, "Late", 0)
    full = start(players=MAX_PLAYERS)
    assert not GAME.takes_latecomers(full)
    assert not Game.takes_latecomers(GAME, full)


# ----- QUIZ-S15: gone players -----


def test_a_bot_stands_in_for_a_gone_player_only_with_the_bots_setting_and_is_marked():
    # QUIZ-S15
    state = start(players=3)
    assert GAME.stands_in(state) is False and view(state)["settings"]["bots"] is False
    with_bots = start(players=3, bots=True)
    assert GAME.stands_in(with_bots) is True
    with_bots = GAME.seats_changed(unlock(with_bots), frozenset({2}), 100)
    assert [p["bot"] for p in view(with_bots)["players"]] == [False, False, True]
    action, _ = GAME.bot_action(with_bots, 2, Rng(1))
    with_bots = close(GAME.apply(with_bots, 2, GAME.parse_action(action), 5000, Timing(4000, 5000, 1000)))
    assert results(with_bots)[2]["bot"] is True and results(with_bots)[0]["bot"] is False
    assert GAME.report(with_bots)["players"][2]["bot"] is True


# ----- bots answer every kind -----


@pytest.mark.parametrize("entry", EVERY_KIND, ids=lambda e: e.question.type)
def test_bots_answer_every_kind_plausibly(entry):
    state = unlock(start([entry], players=1))
    values = []
    for seed in range(60):
        payload, delay = GAME.bot_action(state, 0, Rng(seed))
        action = GAME.parse_action(payload)
        assert 1000 <= delay <= 20_000 - 150
        after = GAME.apply(state, 0, action, 1000 + delay, Timing(delay, 1000 + delay, 1000))
        values.append((action[1], results(after)[0]))
    kind = entry.question.type
    rights = sum(1 for _, r in values if r["right"])
    distinct = len({json.dumps(r["value"]) for _, r in values})
    if kind == "poll":
        assert distinct == 3 and rights == 0  # a random option
    elif kind == "text":
        assert 20 < rights < 55 and distinct > 1  # the accepted answer about 60 % of the time, else a wrong word
    elif kind == "numeric":
        assert distinct > 5
    else:
        assert 20 < rights < 60 and distinct > 1  # mostly right, not always


# ----- history and the report -----


def play_every_kind(**chosen: Any) -> Any:
    """A quiz of one question of each kind, three players, answers fixed; over at the end."""
    state = start(EVERY_KIND, players=3, **chosen)
    plan = {
        0: [(0, 1, 1000), (1, 0, 2000), (2, None, 0)],
        1: [(0, [0, 2], 1000), (1, [0], 1000)],
        2: [(0, 1, 500), (1, 1, 700), (2, 0, 900)],
        3: [(0, (0, 1, 2), 3000), (1, (1, 0, 2), 2000), (2, (2, 1, 0), 1000)],  # items logged at these places
        4: [(0, 1440, 1000), (1, 1500, 1000), (2, 3000, 1000)],
        5: [(0, "paris", 1000), (1, "Lyon", 500), (2, "Pariss", 1500)],
    }
    for index in range(len(EVERY_KIND)):
        state = unlock(state)
        for slot, value, ms in plan[index]:
            if isinstance(value, tuple):  # an order: the view's option indexes of the items logged at these places
                options = view(state)["question"]["options"]
                value = [options.index(f"item {p}") for p in value]
            if value is not None:
                state = answer(state, slot, value, ms)
        if view(state)["phase"] == "question":
            state = close(state)
        state = onwards(state) if index == len(EVERY_KIND) - 1 else onwards(onwards(state))
    return state


def test_the_report_holds_every_closed_question_in_the_contract_s_shape():
    state = play_every_kind()
    assert view(state)["phase"] == "over" and len(state.history) == 6
    report = GAME.report(state)
    assert json.loads(json.dumps(report)) == report
    assert set(report) == {"questions", "players", "teams", "final"}
    assert report["teams"] is None
    outcome = GAME.outcome(state)
    assert report["final"] == {"order": list(outcome.ranking), "places": outcome.place_list()}
    questions = report["questions"]
    assert [q["number"] for q in questions] == [1, 2, 3, 4, 5, 6]
    assert [q["kind"] for q in questions] == ["choice", "multi", "poll", "order", "numeric", "text"]
    for q in questions:
        assert set(q) == {"number", "id", "kind", "prompt", "options", "answer", "points", "results"}
        for row in q["results"]:
            assert set(row) == {"slot", "answer", "ms", "points", "right", "rank"}
    answers = [[row["answer"] for row in q["results"]] for q in questions]
    assert answers[0] == ["option 1", "option 0", None]
    assert answers[1] == ["option 0; option 2", "option 0", None]
    assert answers[2] == ["option 1", "option 1", "option 0"]
    assert answers[3] == ["item 0 → item 1 → item 2", "item 1 → item 0 → item 2", "item 2 → item 1 → item 0"]
    assert answers[4] == [1440, 1500, 3000]
    assert answers[5] == ["paris", "Lyon", "Pariss"]
    assert [q["answer"] for q in questions] == ["option 1", "option 0; option 2", None, "item 0 → item 1 → item 2",
                                                1440, "Paris"]
    assert [q["options"] for q in questions][4:] == [[], []]
    first = questions[0]["results"]
    assert [(r["points"], r["right"], r["rank"], r["ms"]) for r in first] == [
        (975, True, 1, 1000), (0, False, 2, 2000), (0, False, None, None)]
    assert [r["rank"] for r in questions[2]["results"]] == [None, None, None]  # a poll ranks no one
    assert [r["right"] for r in questions[5]["results"]] == [True, False, True]
    players = report["players"]
    assert [p["score"] for p in players] == scores(state)
    assert set(players[0]) == {"slot", "name", "team", "score", "place", "right", "answered", "avg_ms",
                               "best_streak", "joined", "bot"}
    assert players[0]["right"] == 5 and players[0]["best_streak"] == 5 and players[0]["place"] == 1


def test_the_report_of_a_game_ended_early_holds_only_what_was_revealed():
    state = start(EVERY_KIND, players=2)
    state = unlock(onwards(onwards(answer(answer(unlock(state), 0, 1, 10), 1, 1, 10))))
    state = answer(state, 0, [0, 2], 10)  # the second question is open: not in the report
    report = GAME.report(state)
    assert [q["number"] for q in report["questions"]] == [1]
    assert report["final"]["order"] == [0, 1] and report["final"]["places"] == [1, 1]
    assert "[0, 2]" not in json.dumps(report) and "option 0; option 2" not in json.dumps(report)


def test_a_game_of_every_kind_replays_from_its_log():
    # replay: every answer logged in its JSON form gives the same states
    state = start(EVERY_KIND, players=2, seed=4, shuffle="phone")
    content = GAME.prepare(settings(shuffle="phone"), 4, {"questions": EVERY_KIND, "seen": set()})
    log: list[Any] = []
    rng = Rng(9)
    while GAME.outcome(state) is None:
        if GAME.answer_window(state, 0) is not None or GAME.answer_window(state, 1) is not None:
            for slot in (0, 1):
                decision = GAME.bot_action(state, slot, rng)
                if decision is None:
                    continue
                payload, delay = decision
                opens = view(state)["question"]["opens_ms"]
                log.append(("act", slot, payload, opens + delay, Timing(delay, opens + delay, opens).to_json()))
                state = GAME.apply(state, slot, GAME.parse_action(payload), opens + delay,
                                   Timing(delay, opens + delay, opens))
        else:
            log.append(("timeout", GAME.deadline(state)))
            state = GAME.on_timeout(state, GAME.deadline(state))
    again = GAME.setup([Slot(i, f"P{i}") for i in range(2)], Context(4, settings(shuffle="phone"), 1.0,
                                                                          json.loads(json.dumps(content))), 0)
    for event in json.loads(json.dumps(log)):
        if event[0] == "timeout":
            again = GAME.on_timeout(again, event[1])
        else:
            _, slot, payload, at, timing = event
            again = GAME.apply(again, slot, GAME.parse_action(payload), at, Timing.from_json(timing))
    assert again == state and GAME.report(again) == GAME.report(state)
    assert all(view(again, s) == view(state, s) for s in (None, 0, 1))


# ----- secrets -----


def other_order(state: Any) -> tuple[int, ...]:
    """Another right order for the open order question, among those the rules leave possible: what the screens show
    is never the right order (QUIZ-S13), nor is the order of the view's options (QUIZ-S10); that much is public."""
    import itertools

    count = len(state.question.options)
    public = {tuple(range(count)), state.question.sequence}
    public |= {tuple(GAME.shown(state, state.index, seat)) for seat in (None, *range(len(state.names)))}
    return next((p for p in itertools.permutations(range(count)) if p not in public), state.question.sequence)


def disguises(state: Any, viewer: int | None) -> list[Any]:
    """States that differ from ``state`` only in what ``viewer`` may not know while a question is open: its right
    answer (the right option, options, order, number and margin, accepted texts) and the other seats' answers."""
    from dataclasses import replace

    from engine.core import evolve

    if state.phase not in ("ready", "question"):
        return []
    q = state.question
    count = len(q.options)
    truth = {"choice": lambda: replace(q, correct=(q.correct + 1) % count),
             "multi": lambda: replace(q, rights=(0,) if q.rights != (0,) else (1,)),
             "order": lambda: replace(q, sequence=other_order(state)),
             "numeric": lambda: replace(q, answer=q.answer + 11),
             "text": lambda: replace(q, accepted=("Somewhere else",)),
             "poll": lambda: q}[q.kind]()
    index = state.index
    if q.kind == "order" and state.shuffle != "off":
        # a shuffle that draws the right order draws again (QUIZ-S13): which order a screen shows depends on the right
        # one only through the seed, which no screen knows; the options' order itself is checked with shuffle off
        truth = q
    result = [evolve(state, questions=state.questions[:index] + (truth,) + state.questions[index + 1:],
                     margins=tuple(m if i != index or m is None else m + 7 for i, m in enumerate(state.margins)))]
    others = tuple(a if a.slot == viewer else replace(a, ms=a.ms + 123, value=a.value + 1 if q.kind in (
        "choice", "numeric", "poll") else a.value + "x" if q.kind == "text" else a.value) for a in state.answers)
    result.append(evolve(state, answers=others))
    return result


@pytest.mark.parametrize("shuffle", ["off", "question", "phone"])
def test_no_view_holds_an_open_question_s_answer_or_another_seat_s_answer(shuffle):
    # the view before the reveal (QUIZ-S2: no margin; QUIZ-S10: no right order; no accepted texts, no rights)
    checked = 0
    for seed in range(6):
        state = start(EVERY_KIND, players=3, seed=seed, shuffle=shuffle)
        rng = Rng(seed)
        while GAME.outcome(state) is None:
            for viewer in (None, 0, 1, 2):
                plain = view(state, viewer)
                for other in disguises(state, viewer):
                    if other != state:
                        assert view(other, viewer) == plain, (seed, viewer, state.question.kind)
                        checked += 1
            decision = GAME.bot_action(state, rng.randbelow(3), rng) if GAME.answer_window(state, 0) else None
            if decision is not None and rng.randbelow(3):
                payload, delay = decision
                seat = [s for s in range(3) if GAME.answer_window(state, s) is not None]
                opens = state.opens_ms
                state = GAME.apply(state, seat[0], GAME.parse_action(payload), opens + delay,
                                   Timing(delay, opens + delay, opens)) if seat else state
            else:
                state = GAME.on_timeout(state, GAME.deadline(state))
    assert checked > 100
