"""The Quiz's question kinds of issue [17] (multi, poll, order, text; numbers with a margin), per-question points and
shuffled options: content, actions and scoring, QUIZ-S2 and QUIZ-S8..S13 (docs/rules/quiz.md)."""

from __future__ import annotations

import json

import pytest

from engine.core import IllegalAction, InvalidAction, InvalidSettings
from engine.quiz.game import MAX_OPTIONS, parse_content
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


def content_of(*entries, **chosen):
    return GAME.prepare(settings(**chosen), 1, {"questions": list(entries), "seen": set()})


def reveal(state):
    return view(state)["reveal"]


# ----- content -----


def test_every_kind_is_logged_with_its_own_fields():
    # the contract's logged content: id, kind, prompt, seconds, image, unit, points, and each kind's fields
    content = content_of(choice(0, correct=1, points=2), multi(1, rights=(1, 3)), poll(2), order(3, items=3),
                         numeric(4, answer=1440, margin=60, low=0, high=3000, points=0), text(5, ("Paris", "Paryż")))
    assert json.loads(json.dumps(content)) == content
    got = {q["kind"]: q for q in content["questions"]}
    common = {"id", "kind", "prompt", "seconds", "image", "unit", "points"}
    assert set(got["choice"]) == common | {"options", "correct"} and got["choice"]["points"] == 2
    assert set(got["multi"]) == common | {"options", "rights"} and got["multi"]["rights"] == [1, 3]
    assert set(got["poll"]) == common | {"options"} and len(got["poll"]["options"]) == 3
    assert set(got["order"]) == common | {"options"} and got["order"]["options"] == ["item 0", "item 1", "item 2"]
    assert set(got["numeric"]) == common | {"answer", "margin", "low", "high"}
    assert (got["numeric"]["margin"], got["numeric"]["low"], got["numeric"]["high"]) == (60, 0, 3000)
    assert got["numeric"]["points"] == 0
    assert set(got["text"]) == common | {"accepted"} and got["text"]["accepted"] == ["Paris", "Paryż"]
    questions = parse_content(content)
    assert [q.kind for q in questions] == ["choice", "multi", "poll", "order", "numeric", "text"]
    assert questions[1].rights == (1, 3) and questions[5].accepted == ("Paris", "Paryż")


def test_content_logged_before_issue_17_still_reads_and_plays():
    # replay: a game logged with the old content (choice and numeric, no points, margin or bounds) still plays; only
    # its numbers score by the new QUIZ-S2 (docs/quiz.md, "Replaying older games")
    old = {"questions": [
        {"id": "a", "kind": "choice", "prompt": "Q?", "options": ["x", "y", "z", "w"], "correct": 2, "unit": None,
         "seconds": None, "image": None},
        {"id": "b", "kind": "numeric", "prompt": "N?", "answer": 1440, "unit": "min", "seconds": 30, "image": None}]}
    first, second = parse_content(old)
    assert first.points == 1 and second.points == 1 and second.margin is None
    from engine.core import Context, Slot

    state = GAME.setup([Slot(0, "A"), Slot(1, "B")], Context(3, settings(), 1.0, old), 0)
    state = close(answer(unlock(state), 0, 2, 0))
    assert results(state)[0]["points"] == 1000
    state = unlock(onwards(onwards(state)))
    state = answer(answer(state, 0, 1440, 0), 1, 100_000, 0)  # finding 6: far off scores nothing now
    assert [results(state)[s]["points"] for s in (0, 1)] == [1100, 0]
    assert reveal(state)["margin"] == 144


@pytest.mark.parametrize("item, says", [
    ({"kind": "riddle"}, "kind"),
    ({"kind": "multi", "options": ["a", "b", "c"], "rights": [0, 1, 2]}, "wrong option"),
    ({"kind": "multi", "options": ["a", "b"], "rights": []}, "rights"),
    ({"kind": "multi", "options": ["a", "b"], "rights": [2]}, "rights"),
    ({"kind": "multi", "options": ["a", "b"], "rights": [0, 0]}, "rights"),
    ({"kind": "poll", "options": ["a"]}, "options"),
    ({"kind": "order", "options": [f"o{i}" for i in range(MAX_OPTIONS + 1)]}, "options"),
    ({"kind": "text", "accepted": []}, "accepted"),
    ({"kind": "text", "accepted": ["x" * 101]}, "accepted"),
    ({"kind": "text", "accepted": ["?!"]}, "accepted"),
    ({"kind": "text", "accepted": "Paris"}, "accepted"),
    ({"kind": "numeric", "answer": 10, "margin": -1}, "margin"),
    ({"kind": "numeric", "answer": 10, "low": 20, "high": 30}, "low"),
    ({"kind": "numeric", "answer": 10, "low": 0}, "low"),
    ({"kind": "choice", "options": ["a", "b"], "correct": 0, "points": 3}, "points"),
    ({"kind": "choice", "options": ["a", "b"], "correct": 0, "points": True}, "points"),
])
def test_bad_content_is_refused_naming_the_field(item, says):
    with pytest.raises(InvalidSettings) as refused:
        parse_content({"questions": [{"id": "x", "prompt": "P?", **item}]})
    assert says in refused.value.message and "questions[0]" in refused.value.message


# ----- actions -----


@pytest.mark.parametrize("payload, action", [
    ({"multi": [2, 0]}, ("multi", (0, 2))),
    ({"multi": [5]}, ("multi", (5,))),
    ({"order": [2, 0, 1]}, ("order", (2, 0, 1))),
    ({"text": "  Paris \n"}, ("text", "Paris")),
    ({"text": "می\u200cخواهم"}, ("text", "می\u200cخواهم")),  # the ZWNJ is part of the word
    ({"text": "\u202eevil\u202c"}, ("text", "evil")),  # a bidi override is not
    ({"choice": 5}, ("choice", 5)),
])
def test_each_kind_s_answer_parses_and_logs_back(payload, action):
    assert GAME.parse_action(payload) == action
    assert GAME.parse_action(GAME.action_to_json(action)) == action
    assert json.dumps(GAME.action_to_json(action))


@pytest.mark.parametrize("payload", [
    {"multi": []}, {"multi": [0, 0]}, {"multi": [6]}, {"multi": [0, 1, 2, 3, 4, 5, 0]}, {"multi": list(range(7))},
    {"multi": "0,1"}, {"multi": [True]}, {"multi": [1.0]}, {"multi": None}, {"multi": {"0": 1}},
    {"order": [0]}, {"order": [0, 0]}, {"order": [1, 2]}, {"order": [0, 2, 1, 4]}, {"order": list(range(7))},
    {"order": "012"}, {"order": [0, "1"]},
    {"text": ""}, {"text": "   "}, {"text": "x" * 101}, {"text": "x" * 10_000}, {"text": 5}, {"text": None},
    {"text": ["Paris"]}, {"text": "\u202e\u202c"},
], ids=repr)
def test_malformed_answers_of_the_new_kinds_are_refused(payload):
    # every guest is a possible attacker: bounded sizes, exact shapes
    with pytest.raises(InvalidAction) as refused:
        GAME.parse_action(payload)
    assert refused.value.message and refused.value.field in ("multi", "order", "text")


def test_an_answer_must_fit_the_question_s_kind_and_size():
    state = unlock(start([multi(0, options=3), order(1, items=3), text(2), poll(3, options=2)], players=2))
    with pytest.raises(IllegalAction, match="one or more"):
        GAME.apply(state, 0, ("choice", 0), 10)
    with pytest.raises(IllegalAction, match="option"):
        GAME.apply(state, 0, ("multi", (0, 3)), 10)  # the question has 3 options
    assert len(GAME.legal_actions(state, 0)) == 7  # every non-empty set of 3 options
    state = unlock(onwards(onwards(close(state))))
    with pytest.raises(IllegalAction, match="all 3"):
        GAME.apply(state, 0, ("order", (1, 0)), 10)
    assert len(GAME.legal_actions(state, 0)) == 6 and ("order", (2, 1, 0)) in GAME.legal_actions(state, 0)
    state = unlock(onwards(onwards(close(state))))
    assert GAME.legal_actions(state, 0) == [("text", None)]
    with pytest.raises(InvalidAction):
        GAME.apply(state, 0, ("text", None), 10)  # the listed kind without its value is no answer
    with pytest.raises(IllegalAction, match="type"):
        GAME.apply(state, 0, ("answer", 5), 10)
    state = unlock(onwards(onwards(close(state))))
    assert GAME.legal_actions(state, 0) == [("choice", 0), ("choice", 1)]
    with pytest.raises(IllegalAction, match="option"):
        GAME.apply(state, 0, ("choice", 2), 10)


# ----- QUIZ-S8: text -----


def test_a_typed_answer_is_right_by_its_normal_form_or_a_small_typo():
    # QUIZ-S8: right: S(t); wrong or none: 0
    state = unlock(start([text(0, ("București", "Bucharest"))], players=5))
    state = answer(state, 0, "bucuresti", 0)
    state = answer(state, 1, "Bucureşti", 10_000)
    state = answer(state, 2, "Bucharets", 0)
    state = answer(state, 3, "Budapest", 0)
    state = close(state)
    got = results(state)
    assert [got[s]["points"] for s in range(5)] == [1000, 750, 1000, 0, 0]
    assert [got[s]["right"] for s in range(5)] == [True, True, True, False, False]
    assert got[0]["value"] == "bucuresti" and got[4]["value"] is None
    assert reveal(state)["correct"] == ["București", "Bucharest"] and reveal(state)["kind"] == "text"


def test_the_reveal_groups_what_people_typed():
    # QUIZ-S8, the reveal: grouped by normal form, as first typed, most first, at most 12 and a count of the others
    state = unlock(start([text(0, ("Paris",))], players=12))
    typed = ["paris", "PARIS", "Paris!", "Lyon", "Lyon", "Pari"] + [f"town {k}" for k in range(6)]
    for slot, word in enumerate(typed):
        state = answer(state, slot, word, 100 + slot)
    groups = reveal(state)["groups"]
    assert groups[0] == {"text": "paris", "count": 3, "right": True}
    assert groups[1] == {"text": "Lyon", "count": 2, "right": False}
    assert {"text": "Pari", "count": 1, "right": True} in groups
    assert len(groups) == 9 and reveal(state)["others"] == 0
    many = unlock(start([text(0, ("Paris",))], players=12))
    for slot in range(12):
        many = answer(many, slot, f"word{slot:02d}" if slot < 11 else "word00", 100 + slot)
    assert len(reveal(many)["groups"]) == 11 and reveal(many)["groups"][0]["count"] == 2
    crowd = unlock(start([text(0, ("Paris",))], players=12))
    for slot in range(12):
        crowd = answer(crowd, slot, f"town {chr(97 + slot)}", 100)
    assert len(reveal(crowd)["groups"]) == 12 and reveal(crowd)["others"] == 0


# ----- QUIZ-S9: poll -----


def test_a_poll_scores_nothing_and_changes_no_streak_right_count_or_average():
    # QUIZ-S9
    state = start([choice(0), poll(1, options=3), choice(2)], players=2, speed=False)
    state = close(answer(unlock(state), 0, 0, 1000))
    state = unlock(onwards(onwards(state)))
    state = answer(answer(state, 0, 2, 7000), 1, 2, 50)
    got = results(state)
    assert [got[s]["points"] for s in (0, 1)] == [0, 0]
    assert [got[s]["right"] for s in (0, 1)] == [None, None] and got[0]["rank"] is None
    assert reveal(state)["counts"] == [0, 0, 2] and reveal(state)["correct"] is None
    players = view(state)["players"]
    assert players[0]["streak"] == 1 and players[0]["right"] == 1 and players[0]["answered"] == 1
    assert players[0]["avg_ms"] == 1000 and players[1]["answered"] == 0
    state = close(answer(unlock(onwards(onwards(state))), 0, 0, 1000))
    assert results(state)[0]["points"] == 1100  # the streak went on over the poll (QUIZ-S3)


# ----- QUIZ-S10: order -----


def in_order(state, places):
    """Option indexes (of the view's options) putting the items logged at ``places`` first, second, ..."""
    options = view(state)["question"]["options"]
    return [options.index(f"item {p}") for p in places]


def test_an_order_scores_the_share_of_items_in_their_place():
    # QUIZ-S10: credit = items in their right place / n; right only when all are
    state = unlock(start([order(0, items=4)], players=4))
    sequences = ([0, 1, 2, 3], [0, 1, 3, 2], [1, 0, 2, 3], [3, 2, 1, 0])
    answers = [in_order(state, places) for places in sequences]
    state = answer(state, 0, answers[0], 0)  # all in place
    state = answer(state, 1, answers[1], 0)  # 2 of 4
    state = answer(state, 2, answers[2], 10_000)  # 2 of 4, later: 750 x 1/2
    state = answer(state, 3, answers[3], 0)  # none
    got = results(state)
    assert [got[s]["points"] for s in range(4)] == [1000, 500, 375, 0]
    assert [got[s]["right"] for s in range(4)] == [True, False, False, False]
    assert [got[s]["credit"] for s in range(4)] == [1.0, 0.5, 0.5, 0.0]
    assert [got[s]["streak"] for s in range(4)] == [1, 0, 0, 0]
    assert got[1]["value"] == answers[1] and reveal(state)["correct"] == answers[0]
    options = view(state)["question"]["options"]
    assert [options[i] for i in reveal(state)["correct"]] == ["item 0", "item 1", "item 2", "item 3"]


def test_an_order_question_s_items_are_never_in_the_right_order_in_any_view_before_the_reveal():
    # QUIZ-S10: the logged content lists the items in the right order; the view (what a phone's own data holds)
    # lists them scrambled from the seed, so reading it gives nothing away
    content = content_of(order(0, items=3))
    assert content["questions"][0]["options"] == ["item 0", "item 1", "item 2"]
    orders = set()
    for seed in range(30):
        state = start([order(0, items=3)], players=2, seed=seed)
        for seat in (None, 0, 1):
            options = view(state, seat)["question"]["options"]
            assert options != ["item 0", "item 1", "item 2"] and sorted(options) == ["item 0", "item 1", "item 2"]
            assert "correct" not in view(state, seat)["question"] and view(state, seat)["reveal"] is None
        orders.add(tuple(view(state)["question"]["options"]))
    assert len(orders) > 2


# ----- QUIZ-S11: multi -----


def test_several_right_options_score_right_picks_less_wrong_ones():
    # QUIZ-S11: credit = max(0, right picks - wrong picks) / right options; right only when exactly the right ones
    state = unlock(start([multi(0, rights=(0, 2), options=4)], players=6, speed=False))
    for slot, picks in enumerate(([0, 2], [0], [0, 1, 2], [0, 1], [1, 3], [0, 1, 2, 3])):
        state = answer(state, slot, picks, 100)
    got = results(state)
    assert [got[s]["points"] for s in range(6)] == [1000, 500, 500, 0, 0, 0]
    assert [got[s]["right"] for s in range(6)] == [True, False, False, False, False, False]
    assert [got[s]["credit"] for s in range(6)] == [1.0, 0.5, 0.5, 0.0, 0.0, 0.0]
    assert reveal(state)["counts"] == [5, 4, 3, 2] and reveal(state)["correct"] == [0, 2]


# ----- QUIZ-S12: points per question -----


def test_double_points_double_the_question_s_points_not_the_streak_bonus():
    # QUIZ-S12
    state = start([choice(0), choice(1, points=2)], players=1, speed=False)
    state = answer(unlock(state), 0, 0, 100)
    state = answer(unlock(onwards(onwards(state))), 0, 0, 100)
    assert results(state)[0]["points"] == 2100 and results(state)[0]["bonus"] == 100
    assert view(state)["question"]["points"] == 2 and scores(state) == [3100]


def test_a_no_points_question_changes_no_score_streak_or_right_count():
    # QUIZ-S12: it is still answered and revealed
    state = start([choice(0), choice(1, points=0), choice(2, points=0)], players=2)
    state = close(answer(unlock(state), 0, 0, 100))
    state = unlock(onwards(onwards(state)))
    assert view(state)["question"]["points"] == 0
    state = answer(answer(state, 0, 0, 100), 1, 0, 100)
    got = results(state)
    assert got[0]["right"] and got[0]["points"] == 0 and got[0]["streak"] == 1 and got[1]["streak"] == 0
    state = close(answer(unlock(onwards(onwards(state))), 0, 1, 100))  # wrong, but it counts for nothing
    assert results(state)[0]["streak"] == 1
    players = view(state)["players"]
    assert [p["score"] for p in players] == [998, 0] and [p["right"] for p in players] == [1, 0]
    assert [p["answered"] for p in players] == [1, 0]


# ----- QUIZ-S2: the margin -----


def test_a_question_s_own_margin_wins_over_the_setting():
    # QUIZ-S2: the question's margin in its units, else `margin` % of the answer (rounded half up), 0: exact only
    state = unlock(start([numeric(0, answer=1440, margin=60)], players=3, speed=False, margin=50))
    state = answer(state, 0, 1500, 0)  # d = 60 = m: half
    state = answer(state, 1, 1380, 0)
    state = answer(state, 2, 1501, 0)  # outside
    assert [results(state)[s]["points"] for s in range(3)] == [500, 500, 0] and reveal(state)["margin"] == 60
    wide = unlock(start([numeric(0, answer=1440)], players=1, speed=False, margin=50))
    wide = answer(wide, 0, 2000, 0)  # m = 720, d = 560: 1000 x (1 - 560/1440) = 611.1
    assert results(wide)[0]["points"] == 611 and reveal(wide)["margin"] == 720
    exact = unlock(start([numeric(0, answer=1440)], players=2, speed=False, margin=0))
    exact = answer(answer(exact, 0, 1441, 0), 1, 1440, 0)
    assert [results(exact)[s]["points"] for s in (0, 1)] == [0, 1000] and reveal(exact)["margin"] == 0


def test_finding_6_far_answers_score_nothing_even_alone_and_the_closest_is_marked():
    # QUIZ-S2, finding 6: 100,000 for 1,440 scored +179; 0 typed alone for Everest was "Right!" with 988 points
    state = unlock(start([numeric(0, answer=1440)], players=3))
    state = answer(state, 0, 100_000, 0)
    state = answer(state, 1, 2000, 0)
    state = close(state)
    got = results(state)
    assert [got[s]["points"] for s in range(3)] == [0, 0, 0]
    assert [got[s]["right"] for s in range(3)] == [False, False, False]
    assert got[1]["closest"] is True and got[0]["closest"] is False  # "Closest!", but 0 points
    alone = start([numeric(i, answer=8849) for i in range(3)], players=1)
    for i in range(3):
        alone = answer(unlock(alone), 0, 0, 10)  # alone: closed at once
        assert results(alone)[0] == {**results(alone)[0], "right": False, "points": 0, "closest": True}
        if i < 2:
            alone = onwards(onwards(alone))
    assert view(alone)["players"][0]["right"] == 0 and scores(alone) == [0]


def test_the_margin_and_the_answer_are_not_in_the_view_before_the_reveal():
    # QUIZ-S2: the margin shows with the reveal only
    state = unlock(start([numeric(0, answer=1440, margin=60)], players=2))
    for seat in (None, 0, 1):
        shown = view(state, seat)
        assert "margin" not in shown["question"] and shown["reveal"] is None
        assert "answer" not in shown["question"] and "1440" not in json.dumps(shown["question"])


# ----- the slider -----


def test_a_number_question_has_a_slider_from_the_pack_or_the_seed():
    # the view's question.slider: the pack's bounds, else 0 to a 1/2/5 x 10^k at least the answer x f (1.5-4.0)
    state = start([numeric(0, answer=1440, low=1000, high=2000)], players=1)
    assert view(state)["question"]["slider"] == {"low": 1000, "high": 2000, "step": 10}
    highs = set()
    for seed in range(30):
        slider = view(start([numeric(0, answer=1440)], players=1, seed=seed))["question"]["slider"]
        assert slider["low"] == 0 and 1440 * 1.5 <= slider["high"] <= 10_000 and slider["high"] in (5000, 10_000)
        assert slider["step"] == slider["high"] // 100
        highs.add(slider["high"])
    assert highs == {5000, 10_000}  # the answer is not always at the same place
    small = view(start([numeric(0, answer=3)], players=1))["question"]["slider"]
    assert small["high"] >= 10 and small["step"] == 1
    assert view(start([choice(0)], players=1))["question"]["slider"] is None


# ----- QUIZ-S13: shuffle -----


def test_options_show_in_the_logged_order_with_shuffle_off():
    # QUIZ-S13: "off" (the default)
    state = start([choice(0, options=6), multi(1, options=5)], players=2)
    assert GAME.info.default_settings()["shuffle"] == "off"
    assert view(state, 0)["question"]["shown"] == list(range(6)) == view(state)["question"]["shown"]


def test_shuffle_per_question_is_one_order_for_every_screen_from_the_seed():
    # QUIZ-S13: "question"
    orders = set()
    for seed in range(12):
        state = start([choice(0, options=6)], players=3, seed=seed, shuffle="question")
        shown = [view(state, seat)["question"]["shown"] for seat in (None, 0, 1, 2)]
        assert all(s == shown[0] for s in shown) and sorted(shown[0]) == list(range(6))
        assert shown[0] == view(start([choice(0, options=6)], players=3, seed=seed,
                                      shuffle="question"))["question"]["shown"]
        orders.add(tuple(shown[0]))
    assert len(orders) > 6


def test_shuffle_per_phone_gives_each_seat_its_own_order_and_answers_use_the_logged_indexes():
    # QUIZ-S13: "phone"; the TV shows the logged order
    state = unlock(start([choice(0, correct=3, options=6)], players=4, shuffle="phone"))
    shown = [view(state, seat)["question"]["shown"] for seat in range(4)]
    assert len({tuple(s) for s in shown}) > 1 and all(sorted(s) == list(range(6)) for s in shown)
    assert view(state)["question"]["shown"] == list(range(6))
    state = answer(state, 0, 3, 100)  # the option's own index, wherever the phone showed it
    assert results(close(state))[0]["right"]


def test_an_order_question_is_never_shown_in_its_right_order():
    # QUIZ-S13: on every screen, with any shuffle setting
    for seed in range(40):
        for shuffle in ("off", "question", "phone"):
            count = 2 + seed % 5
            state = start([order(0, items=count)], players=2, seed=seed, shuffle=shuffle)
            for seat in (None, 0, 1):
                question = view(state, seat)["question"]
                shown = [question["options"][i] for i in question["shown"]]
                assert shown != [f"item {k}" for k in range(count)] and sorted(question["shown"]) == list(range(count))


# ----- the view's new parts -----


def test_the_view_of_each_kind_before_and_after_the_reveal():
    state = unlock(start([multi(0, rights=(1,), options=3, points=2)], players=2))
    question = view(state, 0)["question"]
    assert question["kind"] == "multi" and question["options"] == ["option 0", "option 1", "option 2"]
    assert question["points"] == 2 and question["shown"] == [0, 1, 2] and question["slider"] is None
    assert "rights" not in question and "correct" not in question
    state = answer(state, 0, [1], 100)
    assert view(state, 0)["yours"] == [1] and view(state, 1)["yours"] is None and view(state)["yours"] is None
    state = close(state)
    shown = reveal(state)
    assert set(shown) == {"kind", "correct", "margin", "counts", "groups", "others", "results"}
    assert set(shown["results"][0]) == {"slot", "value", "right", "closest", "credit", "points", "bonus", "ms",
                                        "streak", "rank", "bot"}
    assert shown["results"][0]["points"] == 2 * 998 and shown["results"][0]["credit"] == 1.0


def test_the_new_settings_have_their_labels_in_every_language():
    # QUIZ-S2 `margin` (0-100 %, default 10) and QUIZ-S13 `shuffle` (off, question, phone) in the lobby, en/fa/ro
    from host.i18n import catalog

    specs = {s.key: s for s in GAME.info.settings}
    assert (specs["margin"].default, specs["margin"].minimum, specs["margin"].maximum) == (10, 0, 100)
    assert specs["shuffle"].choices == ("off", "question", "phone") and specs["shuffle"].default == "off"
    for language in ("en", "fa", "ro"):
        messages = catalog(language)
        for spec in GAME.info.settings:
            assert messages[spec.label_key] and all(messages[f"choice.{c}"] for c in spec.choices)


def test_can_act_agrees_with_the_legal_answers_without_listing_them():
    # the room asks can_act for every bot's seat on each tick: it must say what legal_actions says (an order question
    # of six items has 720 orders) in every phase, for a seat that answered and one that did not
    state = start([order(0, items=6), multi(1, rights=(0, 3)), text(2, ("Paris",))], players=2)
    for _ in range(3):
        for phase_state in (state, unlock(state)):
            for seat in (0, 1, 5):
                assert GAME.can_act(phase_state, seat) is bool(GAME.legal_actions(phase_state, seat))
        state = unlock(state)
        kind = view(state)["question"]["kind"]
        state = answer(state, 0, {"order": list(range(6)), "multi": [0], "text": "Paris"}[kind], 100)
        assert GAME.can_act(state, 0) is False and GAME.can_act(state, 1) is True
        state = close(state)
        assert not GAME.can_act(state, 1) and not GAME.legal_actions(state, 1)
        if view(state)["phase"] != "over":
            state = onwards(state)
            if view(state)["phase"] == "standings":
                state = onwards(state)
