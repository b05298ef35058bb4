"""Hierarchy rules, one scenario each, from compact positions (tests/hierarchy/fixtures.py). Each test cites the
HIER IDs it checks (docs/rules/hierarchy.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import simulate
from engine.core import IllegalAction, InvalidAction, Rng
from engine.hierarchy import bots, rules
from engine.hierarchy.game import HierarchyGame, HierarchyState, replace
from engine.hierarchy.rules import Reason, card_param, cards_param, why
from tests.hierarchy.fixtures import GAME, can, give_back, line_ids, play, plays, pos, refusal, render, start


def c(card: str, copy: str | None = None, bare: bool = False) -> dict:
    """A card param, short."""
    return card_param(card, copy, bare)


# ----- the cards and the deal -----


def test_the_fourteen_cards_come_from_the_data_file():
    # HIER-D1 HIER-R1 HIER-R22 HIER-A10 (one Impostor, numbered ?) HIER-A13 (the Tower is royal)
    data = json.loads((Path(rules.__file__).with_name("cards.json")).read_text(encoding="utf-8"))
    numbers = {c["id"]: c["number"] for c in data["cards"]}
    assert numbers == {"impostor": "?", "assassin": 1, "leper": 2, "peasant": 3, "tower": 4, "surgeon": 5,
                       "knight": 6, "usurper": 7, "sorcerer": 8, "dragon": 9, "prince": 10, "high_priest": 11,
                       "queen": 12, "king": 13}
    assert {c for c, card in rules.CARDS.items() if card.royal} == {"tower", "prince", "queen", "king"}
    for card in data["cards"]:
        assert set(card["name"]) == set(card["text"]) == {"en", "fa", "ro"}
    assert [c["id"] for c in data["cards"] if c["house_rule"]] == ["leper", "dragon", "king"]


def test_a_bad_card_file_is_refused(tmp_path):
    # HIER-D1: the data file is checked (unknown ability kinds cannot slip through)
    data = json.loads((Path(rules.__file__).with_name("cards.json")).read_text(encoding="utf-8"))
    data["cards"][1]["ability"]["kind"] = "fly"
    bad = tmp_path / "cards.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown kind"):
        rules.load_cards(bad)
    data["cards"][1]["ability"]["kind"] = "play_on_except"
    data["cards"][1]["bare"] = {"de": "Attentäter"}  # a bare name (Romanian "Asasin") only for a known language
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="bare name"):
        rules.load_cards(bad)


def test_deal_seven_each_and_the_impostor_holder_starts():
    # HIER-R4 HIER-R8 HIER-D3 HIER-R11
    colours = set()
    for seed in range(30):
        state = start(seed)
        assert len(state.hands[0]) == len(state.hands[1]) == 7
        assert sorted(state.hands[0] + state.hands[1]) == sorted(rules.ORDER)
        assert "impostor" in state.hands[state.first] and state.turn == state.first == state.actor
        assert state.line == () and state.winner is None
        colours.add(state.colours)
    assert colours == {("gold", "purple"), ("purple", "gold")}  # colours at random (HIER-D3)


def test_everything_is_public_in_every_view():
    # HIER-D7 HIER-R7 HIER-A11 (a hand is the cards face up in front of a player)
    # HIER-R6 HIER-A8: each card shows its owner's colour, in the line and in the burned pile too
    state = play(pos("knight prince", "dragon assassin", "a:tower b:dragon", burned="king"), "knight")
    views = [GAME.view(state, s) for s in (None, 0, 1)]
    for view in views:
        assert [c["id"] for c in view["players"][0]["hand"]] == ["prince"]
        assert [c["id"] for c in view["players"][1]["hand"]] == ["assassin", "dragon"]
        assert [(c["card"], c["owner"]) for c in view["line"]] == [("tower", 0), ("dragon", 1), ("knight", 0)]
        assert view["line_count"] == 4 and view["burned"][0]["card"] == "king" and view["turn"] == 1
        assert [p["colour"] for p in view["players"]] == list(state.colours)
        assert [e["colour"] for e in view["line"]] == [state.colours[o] for o in (0, 1, 0)]
        assert view["burned"][0]["colour"] == state.colours[0]
        assert view["history"][-1]["message"] == {
            "key": "hier.log.ability", "params": {"by": c("knight", bare=True), "card": c("knight"),
                                                  "top": c("dragon", bare=True)}}
    strip = [{k: v for k, v in view.items() if k not in ("you", "legal", "blocked")} for view in views]
    assert strip[0] == strip[1] == strip[2]
    assert views[2]["legal"] == [{"play": "assassin"}, {"play": "dragon"}] and views[2]["blocked"] == {}
    assert "blocked" not in views[1] and views[1]["legal"] == []


# ----- the order of the checks -----


def test_the_seed_examples():
    # HIER-R17: the Prince on the Dragon (higher, 7 or fewer in the line)
    assert can(pos("prince", "x", "b:dragon"), "prince")
    # HIER-R18: the Knight on the Dragon, by its ability (6 < 9)
    state = play(pos("knight", "king", "b:dragon"), "knight")
    assert line_ids(state)[-1] == "knight"
    assert render(state.history[-1]["message"]) == "The Knight on the Dragon: allowed by the Knight"
    # HIER-R19: the Sorcerer not on the Usurper
    assert refusal(pos("sorcerer", "king", "b:usurper"), "sorcerer") == \
        why("lower_than", top=c("usurper"), limit=7, card=c("sorcerer"), number=8)
    # HIER-R20 HIER-R27: the High Priest only on the Queen or the King
    assert refusal(pos("high_priest", "king", "b:dragon"), "high_priest") == \
        why("only_on", card=c("high_priest"), cards=cards_param(("queen", "king"), "or", bare=True))
    assert can(pos("high_priest", "x", "b:queen"), "high_priest")
    assert can(pos("high_priest", "x", "b:king"), "high_priest")
    # HIER-R23: the Peasant and the Knight can never be played on each other
    assert not can(pos("knight", "x", "b:peasant"), "knight")
    assert not can(pos("peasant", "x", "b:knight"), "peasant")


def test_higher_number_is_strict_and_lower_needs_an_ability():
    # HIER-R14 HIER-D2 HIER-A3: strict comparison; the Usurper cannot go on the Peasant (7 = 7)
    assert can(pos("king", "x", "b:queen"), "king")
    assert refusal(pos("queen", "x", "a:prince b:king"), "queen") == \
        why("not_higher", card=c("queen"), number=12, top=c("king"), top_number=13)
    assert not can(pos("usurper", "x", "b:peasant"), "usurper")
    assert can(pos("usurper", "x", "b:surgeon"), "usurper")  # lower, by number


def test_condition_is_checked_first_then_the_top_card_then_the_number():
    # HIER-D2 HIER-R16 HIER-A5: the Prince under the Usurper fails on its condition before the restriction
    long_line = "a:tower b:assassin a:peasant b:surgeon a:knight b:usurper"  # 7 cards, the Tower as two
    state = pos("prince", "x", "b:leper " + long_line.replace("b:assassin ", ""))
    assert rules.line_count(state.line) == 7
    assert refusal(state, "prince").key == "hier.why.lower_than"  # condition met, then the restriction
    state = pos("prince", "x", "a:sorcerer b:leper " + long_line)
    assert refusal(state, "prince") == why("line_too_long", card=c("prince"), limit=7, count=9)


def test_empty_line_only_conditions_apply():
    # HIER-D2 HIER-A5: on an empty line any card without a failing condition opens it
    state = pos("assassin high_priest queen prince impostor", "king")
    assert plays(state) == {"assassin", "prince"}
    assert refusal(state, "high_priest").key == "hier.why.only_on"
    assert refusal(state, "queen") == why("needs_in_line", card=c("queen"), cards=cards_param(("prince",), "and"))
    assert refusal(state, "impostor", copy="king") == why("nothing_to_copy")
    assert refusal(state, "impostor") == why("nothing_to_copy")


def test_top_card_restriction_wins_over_the_new_cards_ability():
    # HIER-R15 HIER-D2: the Tower's burn ability cannot beat the Leper's odd-only rule
    state = pos("tower king", "x", "b:leper")
    assert refusal(state, "tower", burn="king") == why("odd_only", top=c("leper"), card=c("tower"), number=4)
    # the Knight's ability names the Dragon, but a Usurper on top is not a Dragon; fine. Under the Usurper the
    # Assassin (1) may go by its ability, the Knight (6) is lower than 7 but neither higher nor allowed
    state = pos("assassin knight", "x", "b:usurper")
    assert plays(state) == {"assassin"}


def test_line_top_is_the_last_card_played():
    # HIER-R12 HIER-R13
    state = play(pos("peasant king", "sorcerer"), "peasant")
    assert GAME.view(state, None)["top"] == "peasant" and state.turn == 1
    state = play(state, "sorcerer")
    assert GAME.view(state, None)["top"] == "sorcerer" and line_ids(state) == ["peasant", "sorcerer"]


# ----- each card -----


def test_assassin_on_anything_but_the_leper_and_the_tower():
    # HIER-D1 Assassin HIER-D9: also not on an Impostor copying the Tower
    for top in ("king", "queen", "dragon", "peasant", "surgeon", "sorcerer"):
        expected = top != "sorcerer"  # the Sorcerer silences the ability (HIER-R26)
        assert can(pos("assassin", "x", f"a:prince b:{top}"), "assassin") == expected, top
    assert refusal(pos("assassin", "x", "b:leper"), "assassin") == \
        why("except", card=c("assassin"), cards=cards_param(("leper", "tower"), "and", bare=True))
    assert not can(pos("assassin", "x", "b:tower"), "assassin")
    assert not can(pos("assassin", "x", "a:tower b:impostor=tower"), "assassin")


def test_leper_on_odd_cards_and_only_odd_cards_on_it():
    # HIER-D1 Leper (house rule for the second half) HIER-R28
    assert can(pos("leper", "x", "b:king"), "leper")
    assert can(pos("leper", "x", "b:peasant"), "leper")  # the Peasant counts 7 in the line (odd)
    assert not can(pos("leper", "x", "b:queen"), "leper")
    state = pos("assassin peasant tower surgeon knight usurper sorcerer dragon king", "x", "b:leper")
    assert plays(state) == {"peasant", "surgeon", "usurper", "dragon", "king"}


def test_peasant_is_played_as_three_and_counts_seven_in_the_line():
    # HIER-D1 Peasant HIER-R23 HIER-D9 HIER-A7 (the seed's "Lion" is the line: 7 whatever card is below it)
    assert can(pos("peasant", "x", "b:leper"), "peasant")  # 3 > 2 and odd
    assert not can(pos("peasant", "x", "b:tower"), "peasant")  # played as 3, not 7
    state = pos("usurper sorcerer knight", "x", "b:peasant")
    assert plays(state) == {"sorcerer"}  # only higher than 7
    assert GAME.view(state, None)["line"][0]["number"] == 7
    # a copied Peasant is played as 3 and counts as 7
    state = pos("impostor sorcerer", "knight", "b:peasant a:king b:leper")
    assert can(state, "impostor", copy="peasant")
    after = play(state, "impostor", copy="peasant")
    assert after.winner == 0  # the Knight (6) cannot go on a 7
    assert plays(replace_turn(replace(after, winner=None), "knight", "sorcerer")) == {"sorcerer"}


def replace_turn(state, *hand):
    """The seat to move now holds these cards."""
    from engine.hierarchy.game import replace
    hands = list(state.hands)
    hands[state.turn] = rules.sort_hand(hand)
    return replace(state, hands=tuple(hands))


def test_tower_on_lower_cards_or_on_higher_ones_by_burning():
    # HIER-D1 Tower HIER-R24 HIER-D10 HIER-A6 HIER-A14
    assert can(pos("tower king", "x", "b:assassin"), "tower")
    assert refusal(pos("tower king", "x", "b:assassin"), "tower", burn="king") == why("no_burn")
    state = pos("tower king assassin", "x", "b:dragon")
    assert refusal(state, "tower") == why("needs_burn", card=c("tower"))
    assert {a for a in GAME.legal_actions(state, 0)} == {("play", "tower", None, "king"),
                                                          ("play", "tower", None, "assassin"),
                                                          ("play", "assassin", None, None),
                                                          ("play", "king", None, None)}
    after = play(state, "tower", burn="king")
    assert after.hands[0] == ("assassin",) and after.burned == (("king", 0),)
    burned = GAME.view(after, None)["burned"]
    assert [{k: b[k] for k in ("card", "owner", "colour")} for b in burned] == [{"card": "king", "owner": 0, "colour": after.colours[0]}]
    assert burned[0]["name"]["en"] == "King"
    assert refusal(state, "tower", burn="tower") == why("burn_own")
    assert refusal(state, "tower", burn="queen") == why("burn_own")
    # the last card cannot be played on a higher card
    assert refusal(pos("tower", "x", "b:dragon"), "tower") == why("last_card", card=c("tower"))
    # counts as two cards in the line, wherever it is (HIER-D5)
    assert rules.line_count(pos("", "", "a:tower b:dragon a:king").line) == 4


def test_line_count_counts_cards_now_in_the_line_tower_as_two():
    # HIER-D5 HIER-A12 HIER-D1 Prince HIER-R28
    seven = pos("prince", "x", "a:tower b:assassin a:peasant b:surgeon a:knight b:dragon")
    assert rules.line_count(seven.line) == 7 and can(seven, "prince")
    eight = pos("prince", "x", "a:tower b:assassin a:leper a:peasant b:surgeon a:knight b:dragon")
    assert rules.line_count(eight.line) == 8
    assert refusal(eight, "prince") == why("line_too_long", card=c("prince"), limit=7, count=8)
    # HIER-R28: the Impostor cannot copy the Prince in a long line
    eight_b = pos("impostor", "x", "b:prince a:tower b:assassin a:leper b:peasant b:surgeon a:knight b:dragon")
    assert refusal(eight_b, "impostor", copy="prince") == \
        why("line_too_long", card=c("impostor", "prince"), limit=7, count=9)


def test_surgeon_two_returns_each_player_choosing():
    # HIER-D1 Surgeon HIER-R25 HIER-A8
    state = pos("surgeon king", "queen", "a:assassin b:leper a:peasant b:tower")
    state = play(state, "surgeon")
    assert state.pending == (1, 0, 0) and state.actor == 0
    assert GAME.legal_actions(state, 1) == []
    assert GAME.legal_actions(state, 0) == [("return", "leper"), ("return", "tower")]
    with pytest.raises(IllegalAction, match="opponent's cards"):
        give_back(state, "peasant")
    with pytest.raises(IllegalAction, match="Surgeon return must be chosen first"):
        GAME.apply(state, 0, ("play", "king", None, None), 1000)
    state = give_back(state, "tower")
    assert state.hands[1] == ("tower", "queen") and rules.line_count(state.line) == 4
    assert state.pending == (2, 1, 0) and state.actor == 1
    assert GAME.legal_actions(state, 1) == [("return", "assassin"), ("return", "peasant")]  # never the Surgeon
    state = give_back(state, "assassin")
    assert line_ids(state) == ["leper", "peasant", "surgeon"]  # closes up, keeps its order
    assert state.hands[0] == ("assassin", "king") and state.pending is None and state.turn == 1
    assert GAME.view(state, None)["top"] == "surgeon"


def test_surgeon_returns_are_skipped_when_nothing_is_eligible():
    # HIER-R25 HIER-D1 Surgeon: each return is mandatory when possible and skipped otherwise
    state = play(pos("surgeon king", "queen", "a:leper", turn="a"), "surgeon")  # no opponent card; own card only the Leper
    assert state.pending == (2, 1, 0)
    state = play(pos("surgeon king", "queen", "b:leper"), "surgeon")
    assert state.pending == (1, 0, 0)
    state = give_back(state, "leper")
    assert state.pending is None and state.turn == 1 and line_ids(state) == ["surgeon"]
    state = play(pos("surgeon king", "queen", ""), "surgeon")
    assert state.pending is None and state.turn == 1


def test_usurper_on_higher_cards_and_lower_next():
    # HIER-D1 Usurper HIER-R19 HIER-D9
    assert can(pos("usurper", "x", "b:king"), "usurper")
    assert can(pos("usurper", "x", "b:leper"), "usurper")
    state = pos("assassin leper peasant tower surgeon knight sorcerer dragon king queen", "x", "a:prince b:usurper")
    assert {a[1] for a in GAME.legal_actions(state, 0)} == {"assassin", "leper", "tower"}  # Tower by burning
    # a copied Usurper restricts the same way
    state = pos("x", "king assassin", "b:usurper a:impostor=usurper", turn="b")
    assert plays(state) == {"assassin"}


def test_sorcerer_silences_hand_text_and_conditions():
    # HIER-D1 Sorcerer HIER-R26 HIER-D11 HIER-A4 HIER-A9
    state = pos("impostor knight dragon prince high_priest queen king", "",
                "b:tower a:assassin b:leper a:peasant b:surgeon a:usurper b:sorcerer")
    assert rules.line_count(state.line) > 7
    assert plays(state) == {"dragon", "prince", "high_priest", "queen", "king"}  # by number, conditions ignored
    assert refusal(state, "impostor", copy="usurper") == why("silenced_impostor", top=c("sorcerer"))
    assert refusal(state, "knight") == why("silenced", top=c("sorcerer"), card=c("knight"), number=6, top_number=8)
    # only while it is the top card (HIER-A4): under a King, the High Priest works again
    assert can(pos("high_priest", "x", "b:sorcerer b:king"), "high_priest")


def test_dragon_on_royal_cards():
    # HIER-D1 Dragon (house rule) HIER-R22 HIER-D9
    for top, ok in (("tower", True), ("prince", True), ("queen", True), ("king", True), ("high_priest", False)):
        assert can(pos("dragon", "x", f"a:prince b:{top}"), "dragon") == ok, top
    assert can(pos("dragon", "x", "b:tower a:impostor=tower", turn="a"), "dragon")  # the copy is royal


def test_queen_needs_the_prince_in_the_line():
    # HIER-D1 Queen HIER-D9: an Impostor copying the Prince counts
    assert refusal(pos("queen", "x", "b:dragon"), "queen").key == "hier.why.needs_in_line"
    assert can(pos("queen", "x", "b:prince b:dragon"), "queen")
    assert can(pos("queen", "x", "b:prince a:impostor=prince b:dragon"), "queen")
    assert can(pos("queen", "prince", "b:dragon a:impostor=prince", turn="a"), "queen")  # the Prince was returned
    assert not can(pos("queen", "prince", "b:dragon a:impostor=knight", turn="a"), "queen")


def test_king_has_no_ability():
    # HIER-D1 King (house rule)
    assert can(pos("king", "x", "b:queen"), "king")
    assert not can(pos("king", "x", "b:usurper"), "king")


# ----- the Impostor -----


def test_impostor_copies_an_opponent_card_in_the_line_with_its_conditions_and_costs():
    # HIER-D1 Impostor HIER-R28 HIER-D9 HIER-D10 HIER-A9
    state = pos("impostor king", "x", "b:tower a:assassin b:dragon")
    assert {a for a in GAME.legal_actions(state, 0) if a[1] == "impostor"} == {
        ("play", "impostor", "tower", "king")}  # only a copied Tower, paying the burn
    assert refusal(state, "impostor", copy="tower") == why("needs_burn", card=c("impostor", "tower"))
    assert refusal(state, "impostor", copy="assassin") == why("not_copyable", card=c("assassin"))
    assert refusal(state, "impostor") == why("must_copy")
    after = play(state, "impostor", copy="tower", burn="king")
    assert after.line[-1] == ("impostor", 0, "tower") and rules.line_count(after.line) == 6
    assert after.history[-2]["message"] == Reason("hier.log.burn", {
        "by": c("tower", bare=True), "burn": c("king"), "card": c("impostor", "tower"),
        "top": c("dragon", bare=True)}).to_json()
    assert render(after.history[-2]["message"]) == \
        "The Impostor as the Tower on the Dragon: allowed by the Tower, burning the King"
    # HIER-R28: a copied Tower goes on anything but the Leper
    assert not can(pos("impostor king", "x", "b:tower a:king b:leper"), "impostor", copy="tower", burn="king")
    # the copy is judged as the copied card under the top card: a copied Knight is 6 (even) under the Leper
    assert not can(pos("impostor", "x", "b:knight b:leper"), "impostor", copy="knight")
    assert can(pos("impostor", "x", "b:king b:leper"), "impostor", copy="king")


def test_impostor_keeps_its_copy_in_the_line_and_reverts_in_hand():
    # HIER-D1 Impostor HIER-A9: returned by the Surgeon, it is "?" again
    state = pos("queen", "surgeon x", "b:prince a:impostor=prince b:assassin a:leper", turn="b")
    state = play(state, "surgeon")
    assert GAME.legal_actions(state, 1) == [("return", "impostor"), ("return", "leper")]
    state = give_back(state, "impostor")
    assert "impostor" in state.hands[0] and all(e[0] != "impostor" for e in state.line)
    view = GAME.view(state, None)
    assert next(c for c in view["players"][0]["hand"] if c["id"] == "impostor")["number"] == "?"


def test_impostor_copying_the_surgeon_can_return_the_real_surgeon():
    # HIER-D1 Impostor + Surgeon HIER-D6 (the only way to return the real Surgeon)
    state = pos("impostor king", "queen", "b:surgeon a:assassin b:leper", turn="a")
    state = play(state, "impostor", copy="surgeon")
    assert state.pending == (1, 0, 0)
    state = give_back(state, "surgeon")
    assert state.hands[1] == ("surgeon", "queen")
    assert state.pending == (2, 1, 0) and GAME.legal_actions(state, 1) == [("return", "assassin")]


# ----- turns, losing, payloads -----


def test_turns_alternate_and_there_is_no_passing():
    # HIER-D3 HIER-A2
    state = pos("king assassin", "queen leper", "b:dragon")
    with pytest.raises(IllegalAction, match="not your turn"):
        GAME.apply(state, 1, ("play", "leper", None, None), 0)
    with pytest.raises(InvalidAction):
        GAME.parse_action({"pass": True})
    state = play(state, "king")
    assert state.turn == 1


def test_a_player_without_a_legal_play_loses_at_the_start_of_the_turn():
    # HIER-R21 HIER-D4 HIER-A15 HIER-A1 (the winner is decided by R21 alone)
    state = play(pos("king assassin", "queen peasant", "b:dragon"), "king")
    assert state.winner == 0 and GAME.outcome(state).ranking == (0, 1)  # the Queen needs the Prince; 3 < 13
    assert state.history[-1]["kind"] == "lost" and GAME.deadline(state) is None
    state = play(pos("king", "leper", "b:dragon"), "king")
    assert state.winner is None  # the Leper goes on the odd King
    state = play(state, "leper")
    assert state.winner == 1 and state.history[-1]["reason"] == "no_cards"
    assert render(state.history[-1]["message"]) == "Ann cannot play (no cards left): Bob wins"
    with pytest.raises(IllegalAction, match="game is over"):
        GAME.apply(state, 0, ("play", "king", None, None), 0)


def test_parse_action_checks_shape_and_names_the_field():
    cases = [([], "action"), ({"play": "joker"}, "play"), ({"play": 3}, "play"), ({"play": "tower", "burn": 1}, "burn"),
             ({"play": "impostor", "copy": "x"}, "copy"), ({"play": "king", "why": 1}, "why"),
             ({"return": None}, "return"), ({"return": "king", "play": "king"}, "play"), ({}, "action")]
    for payload, field in cases:
        with pytest.raises(InvalidAction) as caught:
            GAME.parse_action(payload)
        assert caught.value.field == field, payload
    assert GAME.parse_action({"play": "impostor", "copy": "dragon"}) == ("play", "impostor", "dragon", None)
    assert GAME.action_to_json(GAME.parse_action({"play": "tower", "burn": "peasant"})) == \
        {"play": "tower", "burn": "peasant"}


def test_apply_never_mutates_its_input():
    state = pos("surgeon king", "queen", "a:assassin b:leper")
    before = (state.hands, state.line, state.history, state.__dict__.copy())
    after = play(state, "surgeon")
    assert (state.hands, state.line, state.history, state.__dict__) == before and after is not state


def test_explain_gives_the_reason_or_none():
    # HIER-D2 (for the phone)
    state = pos("impostor tower knight king", "x", "b:usurper")
    assert GAME.explain(state, 0, "knight") == why("not_higher", card=c("knight"), number=6, top=c("usurper"),
                                                   top_number=7)
    assert GAME.explain(state, 0, "tower") is None  # by burning
    assert GAME.explain(state, 0, "king") == why("lower_than", top=c("usurper"), limit=7, card=c("king"), number=13)
    assert GAME.explain(state, 0, "impostor") == why("lower_than", top=c("usurper"), limit=7,
                                                     card=c("impostor", "usurper"), number=7)
    assert GAME.explain(state, 1, "king") == why("not_your_turn")
    assert GAME.explain(pos("tower king", "x", "b:assassin"), 0, "tower") is None


def test_timeouts_play_a_random_legal_move_and_resolve_returns():
    # HIER-D8: never an illegal move; deadlines from turn_seconds x timer_scale
    from engine.core import Context, Slot
    state = GAME.setup([Slot(0, "A"), Slot(1, "B")], Context(5, GAME.info.default_settings(), 0.5), 100)
    assert GAME.deadline(state) == 100 + 30_000
    for _ in range(40):
        if state.winner is not None:
            break
        state = GAME.on_timeout(state, GAME.deadline(state))
        assert state.history[-1]["kind"] == "lost" or state.history[-1]["timed_out"]
    assert state.winner is not None
    state = play(pos("surgeon king", "queen", "a:assassin b:leper"), "surgeon")
    state = GAME.on_timeout(state, 70_000)
    assert state.pending == (2, 1, 0) and line_ids(state) == ["assassin", "surgeon"]
    assert GAME.deadline(state) == 70_000 + state.turn_ms


def test_engine_info():
    info = HierarchyGame.info
    assert (info.id, info.min_players, info.max_players, info.ready) == ("hierarchy", 2, 2, True)  # its screens are in
    assert info.default_settings() == {"bots": True, "bot_level": "strong", "turn_seconds": 60}


def test_the_title_card_marks_who_started_and_never_turns():
    # HIER-R9 HIER-A1: the title card shows the starting player's colour on every screen, all game long, whoever
    # leads the line
    for seed in range(6):
        state = simulate.setup(GAME, 2, seed).state
        first, rng = state.first, Rng(seed)
        assert "impostor" in state.hands[first]
        for _ in range(200):
            for seat in (None, 0, 1):
                view = GAME.view(state, seat)
                assert view["first"] == first and view["players"][first]["colour"] == state.colours[first]
            if state.winner is not None:
                break
            action = GAME.parse_action(GAME.action_to_json(bots.choose(state, "random", rng)))
            state = GAME.apply(state, state.actor, action, 1000)
        assert state.winner is not None and state.plays > 2


# ----- random games (moved from the former tests/hierarchy/test_conformance.py; the engine contract test,
# tests/test_engine_contract.py, checks what every game shares: ending, seeds, replays, secrets, validation) -----

def random_playout(seed: int) -> tuple[HierarchyState, int]:
    """A game of random legal actions and timeouts, checking every position on the way; returns the end state and
    the most plays made."""
    state = simulate.setup(GAME, 2, seed, {"turn_seconds": 5}).state
    rng = Rng(seed * 7919 + 1)
    now, seen = 0, set()
    for _ in range(200):
        if state.winner is not None:
            return state, sum(1 for h in state.history if h["kind"] == "play")
        key = (state.hands, state.line, state.turn, state.pending)
        assert key not in seen, f"position repeated in game {seed}"  # HIER-D6: no position can repeat
        seen.add(key)
        held = [c for hand in state.hands for c in hand] + [e[0] for e in state.line] + [c for c, _ in state.burned]
        assert sorted(held) == sorted(rules.ORDER)  # every card is somewhere, once
        seat = state.actor
        legal = GAME.legal_actions(state, seat)
        assert legal and GAME.legal_actions(state, 1 - seat) == []
        if rng.randbelow(6):
            now += 1 + rng.randbelow(3000)
            state = GAME.apply(state, seat, GAME.parse_action(GAME.action_to_json(rng.choice(legal))), now)
        else:
            now = GAME.deadline(state)
            state = GAME.on_timeout(state, now)
    raise AssertionError(f"playout {seed} did not end")


def test_random_playouts_always_end():
    # HIER-D6 HIER-D4 HIER-R21
    longest = 0
    surgeons = 0
    for seed in range(1500):
        state, made = random_playout(seed)
        assert GAME.outcome(state).ranking in ((0, 1), (1, 0))
        assert not GAME.legal_actions(state, 0) and not GAME.legal_actions(state, 1)
        longest = max(longest, made)
        surgeons += any(h["kind"] == "return" for h in state.history)
    assert longest <= 30  # "at most a few plays more than 14"
    assert surgeons > 50  # the Surgeon's returns are exercised
