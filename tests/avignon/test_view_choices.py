"""What the view tells the player to move: each legal action with its effects and whether it ends the turn, and each
choice the no-undo rule (AVIG-D4) or the repetition limit (AVIG-D9) removes, with the reason as an i18n key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.avignon.game import REFUSALS, replace
from host.i18n import catalog
from tests.avignon.fixtures import AVIGNON, GAME, ROME, act, banish, board, card, pull, push, start


class AlwaysTwice(dict):
    """A position memory in which every position has already occurred twice."""

    def get(self, key, default=None):
        return 2


def seed_example():
    """AVIG-R14: Rome pushed lane 1 toward Avignon and pulled lane 2 toward Rome; now Avignon moves."""
    return board("M1 A3 B2 K2 N2", to_move=AVIGNON, prev="M2 A2 B2 K2 N2")


def removed_of(state, seat=None):
    seat = state.seat_of[state.to_move] if seat is None else seat
    return {json.dumps(r["action"], sort_keys=True): r for r in GAME.view(state, seat)["removed"]}


def key(payload):
    return json.dumps(payload, sort_keys=True)


def test_the_undo_the_rules_forbid_is_listed_with_its_reason():
    # AVIG-R13, AVIG-R14, AVIG-D4: after pushing lane 1 back, pulling lane 2 back would undo Rome's whole turn
    state = act(seed_example(), push(1))
    view = GAME.view(state, 0)
    assert pull(2) not in view["legal"]
    removed = removed_of(state)
    entry = removed[key(pull(2))]
    assert entry["reason"] == "undo" and entry["key"] == "avig.why.undo"
    assert entry["params"] == {"opponent": "rome"}
    assert entry["effects"] == [{"kind": "move", "lane": 2, "card": card("A"), "location": "genoa", "from": "florence"}]
    # only the choices that recreate the earlier board are removed: a partial undo stays (AVIG-R13)
    assert all(r["reason"] == "undo" for r in removed.values())
    assert pull(3) in view["legal"] and key(pull(3)) not in removed


def test_nothing_is_removed_when_nothing_is_undone():
    # AVIG-D4: a first turn has no previous turn; the opponent's view carries no choices at all
    state = start(2)
    rome, avignon = state.seat_of[ROME], state.seat_of[AVIGNON]
    assert GAME.view(state, rome)["removed"] == []
    assert GAME.view(state, avignon)["legal"] == [] and GAME.view(state, avignon)["removed"] == []
    assert "removed" not in GAME.view(state, None) and "plans" not in GAME.view(state, None)


def test_a_third_repetition_is_listed_with_its_reason():
    # AVIG-D9: ending the turn on a position that has occurred twice is removed, with the "repeat" reason
    state = board("M2 A2 B2 K2 N2", to_move=AVIGNON)
    end = act(state, pull(1), push(2))
    twice = board("M2 A2 B2 K2 N2", to_move=AVIGNON, seen={((end.lanes, ((), ())), ROME): 2})
    mid = act(twice, pull(1))
    removed = removed_of(mid)
    assert removed[key(push(2))]["reason"] == "repeat"
    assert removed[key(push(2))]["key"] == "avig.why.repeat"
    assert push(2) not in GAME.view(mid, 0)["legal"]


def test_a_banish_that_could_draw_a_repetition_is_listed_with_its_reason():
    # AVIG-D9 with the Banish's secret draw (judged on every card it could draw)
    lanes = ((card("M"), 1), (card("A"), 2), (card("B"), 2), (card("K"), 2), (card("P"), 2))
    risky = board("M2 A2 B2 K2 N2", to_move=AVIGNON, deck="nP", seen={(((lanes, ((), ()))), ROME): 2})
    mid = act(risky, pull(1))
    entry = removed_of(mid)[key(banish(5))]
    assert entry["reason"] == "repeat_banish" and entry["key"] == "avig.why.repeat_banish"
    assert entry["effects"][0] == {"kind": "banish", "lane": 5, "card": card("N"), "location": "genoa"}
    assert entry["effects"][1] == {"kind": "draw", "lane": 5, "location": "genoa"}  # never which card (AVIG-D6)


def test_a_first_action_with_no_allowed_way_to_finish_the_turn_says_which_rules_close_it():
    # AVIG-D3, AVIG-D4, AVIG-D9: a first action is removed when no second action completes an allowed turn and the
    # turn may not end after it either; the reason names the rules that block every ending
    state = replace(seed_example(), seen=AlwaysTwice())
    view = GAME.view(state, 0)
    assert view["legal"] == []
    removed = removed_of(state)
    assert {r["reason"] for r in removed.values()} == {"dead_end"}
    assert removed[key(push(1))]["key"] == "avig.why.dead_end_both"  # then pull(2) undoes, the rest repeat
    assert removed[key(pull(1))]["key"] == "avig.why.dead_end_repeat"
    assert removed[key(push(1))]["params"] == {"opponent": "rome", "rule": "both"}


def test_plans_say_whether_an_action_ends_the_turn():
    # AVIG-R8, AVIG-D3: Rome's first turn has one action, later turns two
    state = start(4)
    rome = state.seat_of[ROME]
    view = GAME.view(state, rome)
    assert view["plans"] and all(p["ends_turn"] for p in view["plans"])
    assert view["legal"] == [p["action"] for p in view["plans"]]
    assert view["legal"] == [GAME.action_to_json(a) for a in GAME.legal_actions(state, rome)]
    two = board("M2 A2 B2 K2 N2", to_move=AVIGNON)
    assert not any(p["ends_turn"] for p in GAME.view(two, 0)["plans"])
    assert all(p["ends_turn"] for p in GAME.view(act(two, pull(1)), 0)["plans"])


def test_plans_show_effects_without_revealing_the_draw_and_the_win():
    # AVIG-R15, AVIG-R16, AVIG-D2: past Rome into Rome's conclave, a new card at Genoa; AVIG-D6: which card stays
    # secret; AVIG-D5: the win is announced
    state = board("M4 A2 B2 K2 N2", rome="kn", to_move=AVIGNON)
    plans = {key(p["action"]): p for p in GAME.view(state, 0)["plans"]}
    effects = plans[key(push(1))]["effects"]
    assert effects == [{"kind": "conclave", "lane": 1, "card": card("M"), "role": "rome", "from": "rome"},
                       {"kind": "win", "role": "rome", "reason": "three"}]
    assert plans[key(push(1))]["ends_turn"]
    calm = board("M4 A2 B2 K2 N2", to_move=ROME)
    plans = {key(p["action"]): p for p in GAME.view(calm, 1)["plans"]}
    assert plans[key(pull(1))]["effects"] == [
        {"kind": "conclave", "lane": 1, "card": card("M"), "role": "rome", "from": "rome"},
        {"kind": "draw", "lane": 1, "location": "genoa"}]
    reversed_deck = replace(calm, deck=tuple(reversed(calm.deck)))
    assert GAME.view(calm, 1) == GAME.view(reversed_deck, 1)


def test_history_events_say_where_each_card_came_from():
    # the TV explains each action from these: from where to where, and the swap's two places (AVIG-D1 Noble)
    state = act(board("M2 A2 B2 K2 N4", to_move=ROME), pull(1), {"action": "petition", "lane": 5, "target": 1})
    moves = [e for e in state.history if e["kind"] in ("move", "swap")]
    assert moves[0] == {"kind": "move", "lane": 1, "card": card("M"), "location": "florence", "from": "genoa"}
    assert moves[1] == {"kind": "swap", "lane": 5, "target": 1, "card": card("N"), "other": card("M"),
                        "location": "florence", "other_location": "rome"}


def test_every_view_carries_each_cards_petition_text_in_three_languages():
    # AVIG-A11: a digital version shows the card text to both players (and the TV); AVIG-D1: texts from the card data
    state = start(6)
    for seat in (None, 0, 1):
        texts = GAME.view(state, seat)["texts"]
        assert len(texts) == 12 and all(set(text) == {"en", "fa", "ro"} for text in texts)
        assert texts[card("K")]["en"].startswith("Push this Knight two locations")


@pytest.mark.parametrize("language", ["en", "fa", "ro"])
def test_every_reason_key_the_engine_sends_is_translated(language):
    # the phone shows these keys; the JavaScript builds some from prefixes, so the test lists them
    messages = catalog(language)
    keys = [f"avig.why.{code}" for code in REFUSALS] + [f"avig.why.dead_end_{r}" for r in ("undo", "repeat", "both")]
    keys += [f"avig.{p}.{k}" for p in ("say", "do") for k in ("pull", "push", "banish", "petition", "petition_target",
                                                              "petition_toward")]
    for k in keys:
        assert k in messages, k
    script = Path(__file__).resolve().parents[2] / "host/static/games/avignon.js"
    for k in re.findall(r'"(avig\.[a-z_.]+)"', script.read_text()):
        if not k.endswith("."):
            assert k in messages, k
