"""Seizing the Crown rules, one compact day at a time (rules/crown.md; IDs cited per test).

Unless a test gives aid, the ruler gave none and loses 10 at PRE (CROWN-R59): expected values include it."""

from __future__ import annotations

import pytest

from engine.core import IllegalAction, InvalidAction
from engine.crown.game import DAY, JUDGMENT, OVER, REACTIONS, TRANSFER, VETO, CrownGame
from engine.crown.rules import ENEMY, LOYAL, RULER, crowns_for_reign_day, ranks, resolve_attacks, same_front
from tests.crown.fixtures import (
    GAME,
    act,
    chron,
    close,
    day,
    feed,
    pre,
    prestige,
    start,
    statuses,
    votes,
)

# ----- setup, info, fronts -----


def test_info_settings_and_setup_initial_council():
    # CROWN-R1 (five houses), CROWN-R13 (50 prestige), CROWN-A1 (initial council), CROWN-A34 (crowns announced),
    # CROWN-D1 (day_minutes), CROWN-D6 (last_day)
    # CROWN-M1: the initial state (50 prestige, 0 crowns, no ruler before the initial council)
    info = CrownGame.info
    assert (info.id, info.min_players, info.max_players, info.teams) == ("crown", 1, 12, True)
    specs = {s.key: s for s in info.settings}
    assert (specs["day_minutes"].default, specs["day_minutes"].minimum, specs["day_minutes"].maximum) == (4, 1, 20)
    assert (specs["council_seconds"].default, specs["council_seconds"].minimum) == (60, 20)
    assert (specs["last_day"].default, specs["last_day"].maximum) == (0, 50)
    state = start(day_minutes=2)
    assert state.day_ms == 120_000 and state.council_ms == 60_000 and state.react_ms == 20_000
    assert state.phase == "initial" and state.ruler is None
    assert prestige(state) == [50] * 5 and [h["crowns"] for h in state.houses] == [0] * 5
    assert feed(state)[:2] == ["crowns_announced", "initial_opened"]
    assert state.feed[0]["params"]["crowns"] == [0] * 5
    assert state.council["weights"] == [5] * 5 and state.council["voters"] == [0, 1, 2, 3, 4]
    with pytest.raises(IllegalAction):
        from engine.core import Context, Slot
        GAME.setup([Slot(i, "x") for i in range(4)], Context(1, info.default_settings()), 0)


def test_same_front_and_opposing():
    # CROWN-R11, CROWN-R12
    assert same_front(LOYAL, LOYAL) and same_front(LOYAL, RULER) and same_front(RULER, LOYAL)
    assert same_front(ENEMY, ENEMY)
    assert not same_front(LOYAL, ENEMY) and not same_front(ENEMY, RULER)


def test_crown_schedule_and_ranks():
    # CROWN-R73, CROWN-A11 (competition ranking, ties share)
    assert [crowns_for_reign_day(n) for n in range(1, 7)] == [1, 2, 4, 6, 6, 6]
    assert ranks([70, 70, 50, 40, 40]) == [1, 1, 3, 4, 4]


def test_initial_council_installs_ruler_with_debts_and_all_loyal():
    # CROWN-R3, CROWN-R7, CROWN-A1 (debts arise, no self-votes), CROWN-R27, CROWN-A3
    state = start()
    with pytest.raises(IllegalAction):
        act(state, 2, "vote", choice=2)  # no self-vote (CROWN-A29)
    state = votes(state, {0: 2, 1: 2, 3: 2, 4: 1, 2: None})
    assert state.ruler == 2 and state.phase == DAY and state.day == 1
    assert statuses(state) == "L L R L L"
    assert [state.debts[2][c] for c in range(5)] == [1, 1, 0, 1, 0]  # owes its three voluntary voters
    assert state.houses[2]["crowns"] == 1 and state.reign_day == 1  # CROWN-R73 day 1
    assert "debt_vote_owing" in chron(state, 2) and "debt_vote_owed" in chron(state, 0)


def test_initial_council_tie_revote_then_prestige_then_lot():
    # CROWN-A31: a re-vote among the tied, then prestige, then the seeded lot
    state = start()
    state = votes(state, {0: 1, 1: 0, 2: 3, 3: 4, 4: None})
    assert state.phase == "initial" and state.council["round"] == 2
    assert sorted(state.council["candidates"]) == [0, 1, 3, 4] and "revote" in feed(state)
    state = votes(state, {0: 1, 1: 0, 2: 3, 3: 4, 4: None})
    assert state.phase == DAY and state.ruler in (0, 1, 3, 4)  # all at 50 prestige: drawn by lot
    again = votes(votes(start(), {0: 1, 1: 0, 2: 3, 3: 4, 4: None}), {0: 1, 1: 0, 2: 3, 3: 4, 4: None})
    assert again.ruler == state.ruler  # the lot comes from the seeded state


# ----- the attack table (M4), row by row -----


def test_m4_row1_loyal_attacks_loyal():
    # CROWN-R30 (row 1)
    assert pre(act(day("R L L E E"), 1, "attack", target=2)) == [40, 45, 45, 50, 50]


def test_m4_row2_enemy_attacks_enemy():
    # CROWN-R30 (row 2)
    assert pre(act(day("R L L E E"), 3, "attack", target=4)) == [40, 50, 50, 45, 45]


def test_m4_row3_loyal_attacks_enemy():
    # CROWN-R31 (row 3)
    assert pre(act(day("R L L E E"), 1, "attack", target=3)) == [40, 55, 50, 45, 50]


def test_m4_row4_enemy_attacks_loyal_and_r32_pile_on():
    # CROWN-R31 (row 4), CROWN-R32 (2 enemies on one loyal house: ruler -10 once), CROWN-A27
    assert pre(act(day("R L L E E"), 3, "attack", target=1)) == [40, 45, 50, 55, 50]
    state = act(act(day("R L L E E"), 3, "attack", target=1), 4, "attack", target=1)
    assert pre(state) == [30, 40, 50, 55, 55]


def test_m4_row5_loyal_attacks_ruler_becomes_enemy_at_once():
    # CROWN-R34, M5 T1: the attacker is an enemy right after declaring; scored as same-front
    state = act(day("R L L E E"), 1, "attack", target=0)
    assert statuses(state) == "R E L E E" and "treason_attack" in chron(state, 1)
    assert pre(state) == [35, 45, 50, 50, 50]


def test_m4_row6_lone_enemy_on_ruler_refund():
    # CROWN-R35, CROWN-A25 (row 6): the ruler gets its 5 back
    assert pre(act(day("R L L E E"), 3, "attack", target=0)) == [40, 50, 50, 55, 50]


def test_m4_row7_two_enemies_on_ruler_get_ten():
    # CROWN-R36, CROWN-A25 (row 7)
    state = act(act(day("R L L E E"), 3, "attack", target=0), 4, "attack", target=0)
    assert pre(state) == [30, 50, 50, 60, 60]


def test_m4_row8_two_mixed_attackers_general_case():
    # CROWN-A25 (row 8): a loyal and an enemy attacker: general cases only, plus R34
    state = act(act(day("R L L E E"), 1, "attack", target=0), 3, "attack", target=0)
    assert pre(state) == [30, 45, 50, 55, 50]


def test_m4_row9_three_attackers_depose_and_skip_judgment():
    # CROWN-R37, CROWN-A25, CROWN-A28: deposition detected at PRE, no council of judgment, straight to transfer;
    # CROWN-M2: step 3 leads to step 5, skipping step 4
    # no R20 bonus on deposition by war (CROWN-A20)
    state = day("R L L E E", enemy_days=[0, 0, 0, 3, 3])
    for a in (1, 3, 4):
        state = act(state, a, "attack", target=0)
    after = close(state)
    assert after.phase == TRANSFER and after.ruler is None
    assert prestige(after) == [25, 45, 50, 55, 55]
    assert "deposed_war" in feed(after) and "judgment_opened" not in feed(after)
    assert after.council["voters"] == [1, 2, 3, 4] and 0 not in after.council["candidates"]  # CROWN-R25
    assert feed(after)[-2:] == ["crowns_announced", "transfer_opened"]  # CROWN-R75 before the council


def test_m4_row10_ruler_attacks_loyal():
    # CROWN-R38 (row 10)
    assert pre(act(day("R L L E E"), 0, "attack", target=1)) == [30, 40, 50, 50, 50]


def test_m4_row11a_ruler_attacks_enemy_alone():
    # CROWN-R39, CROWN-A26 (row 11a): -10 replaces the +5
    assert pre(act(day("R L L E E"), 0, "attack", target=3)) == [30, 50, 50, 45, 50]


def test_m4_row11b_ruler_with_one_loyal_on_enemy():
    # CROWN-R31 (row 11b)
    state = act(act(day("R L L E E"), 0, "attack", target=3), 1, "attack", target=3)
    assert pre(state) == [45, 55, 50, 40, 50]


def test_m4_row11c_ruler_with_two_loyal_on_enemy():
    # CROWN-R33, CROWN-A27 (row 11c): +10 on top of +5
    state = day("R L L E E")
    for a in (0, 1, 2):
        state = act(state, a, "attack", target=3)
    assert pre(state) == [55, 55, 55, 35, 50]


def test_attack_statuses_judged_at_declaration():
    # CROWN-A24: an attack scores with the statuses at declaration, even if they change later that day
    # CROWN-A40: actions handled in order of receipt; the status change is immediate, the prestige waits for PRE
    state = act(day("R L L E E"), 1, "attack", target=2)  # loyal on loyal
    state = act(state, 2, "spy", target=0)  # 2 becomes an enemy afterwards (CROWN-R48)
    assert statuses(state) == "R L E E E"
    assert pre(state)[1] == 45  # still scored as same-front


def test_resolve_attacks_pure_function():
    # CROWN-M4: the pure table, with a debt-forced attack (CROWN-A35)
    attacks = [{"a": 1, "t": 3, "sa": LOYAL, "st": ENEMY, "forced_by": 2}]
    deltas, deposed, notes = resolve_attacks(attacks, 0)
    assert deltas == [0, 0, 10, -5, 0] and not deposed and notes[0]["g"] == 5


def test_attack_limits():
    # CROWN-R29 (once a day), CROWN-R40 (irrevocable), CROWN-A15 (not itself), CROWN-A24 (pacts)
    state = act(day("R L L E E", pacts=[(1, 2)]), 1, "attack", target=3)
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "attack", target=4)
    assert err.value.code == "crown.error.already_attack"
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 1, "attack", target=1)
    with pytest.raises(IllegalAction) as err:
        act(day("R L L E E", pacts=[(1, 2)]), 2, "attack", target=1)
    assert err.value.code == "crown.error.pact"
    assert ("attack", 2) not in GAME.legal_actions(day("R L L E E", pacts=[(1, 2)]), 1)


# ----- feasts, banquets, spying -----


def test_feast_option_a_learns_value_and_rank_refund():
    # CROWN-R41, R42, CROWN-A11, A12 (value includes the refund), CROWN-A13 (option secret), CROWN-R15
    state = act(day("R L L E E"), 1, "feast", option="a", when="pre")
    assert "feast" in feed(state) and state.feed[-1]["params"] == {"house": 1}
    assert pre(state) == [40, 50, 50, 50, 50]  # 45 ranks 4th -> +5 back
    after = close(state)
    assert chron(after, 1)[-2:] == ["feast_refund", "feast_value"]
    assert after.chron[1][-1]["params"] == {"prestige": 50, "point": "pre"}
    view = GAME.view(after, 1)
    assert view["disclosures"] == [{"house": 1, "prestige": 50, "day": 3, "point": "pre", "source": "feast"}]


def test_feast_option_a_no_refund_when_ranked_high():
    # CROWN-R42: only 4th or 5th gets the 5 back
    state = act(day("R L L E E", prestige=[50, 80, 50, 50, 50]), 1, "feast", option="a", when="pre")
    assert pre(state)[1] == 75 and "feast_refund" not in chron(close(state), 1)


def test_feast_option_b_counts_same_front_non_rulers():
    # CROWN-R43, CROWN-A17
    assert pre(act(day("R L L L E"), 1, "feast", option="b", when="pre"))[1] == 55  # 2 and 3 loyal
    assert pre(act(day("R L L E E"), 3, "feast", option="b", when="pre"))[3] == 50  # only 4
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 0, "feast", option="a", when="pre")  # CROWN-R41: not the ruler


def test_feast_after_council_resolves_at_post():
    # CROWN-R44, CROWN-A9: a Feast chosen "after" resolves at POST; its cost is counted at PRE
    state = act(day("R L L E E", prestige=[50, 90, 50, 50, 50]), 1, "feast", option="a", when="post")
    judged = close(state)
    assert prestige(judged)[1] == 85 and "feast_value" not in chron(judged, 1)
    nxt = close(judged)  # nobody voted: no condemnation, then POST and the next day
    assert nxt.day == 4
    values = [e for e in nxt.chron[1] if e["key"] == "crown.log.feast_value"]
    assert values[0]["params"] == {"prestige": 85, "point": "post"} and values[0]["day"] == 3


def test_banquet_gains_per_loyal_house_and_is_disclosed():
    # CROWN-R45, R46, CROWN-A12
    state = act(act(day("R L L E E"), 0, "aid", target=3), 0, "banquet", when="pre")
    assert "banquet" in feed(state)
    after = close(state)
    assert prestige(after)[0] == 55  # -5 aid, +5 x 2 loyal houses
    assert after.chron[0][-1]["params"] == {"prestige": 55, "point": "pre"}


def test_banquet_void_when_ruler_attacked():
    # CROWN-A16: checked at resolution against all of the day's attacks; free, so nothing refunded
    state = act(act(day("R L L E E"), 0, "banquet", when="post"), 3, "attack", target=0)
    after = close(close(state))
    assert "banquet_void" in chron(after, 0) and "banquet_value" not in chron(after, 0)
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 1, "banquet", when="pre")


def test_banquet_void_when_holder_lost_the_throne():
    # CROWN-A16: a Banquet "after" whose holder is no longer ruler at POST is void
    state = act(day("R L L E E"), 0, "banquet", when="post")
    state = votes(close(state), {1: 0, 2: 0, 3: 0, 4: 0, 0: None})
    state = act(state, 0, "pass")
    assert state.phase == TRANSFER
    state = votes(state, {1: 2, 2: 1, 3: 2, 4: 2})
    assert state.ruler == 2 and "banquet_void" in chron(state, 0)


def test_feast_b_of_a_new_ruler_counts_loyal_houses():
    # CROWN-A17: a holder that became ruler during the councils counts the loyal houses at POST
    state = act(day("R L L E E"), 1, "feast", option="b", when="post")
    state = votes(close(state), {1: 0, 2: 0, 3: 0, 4: 0, 0: None})
    state = act(state, 0, "pass")
    before = prestige(state)[1]
    state = votes(state, {1: 2, 2: 1, 3: 1, 4: 1})
    assert state.ruler == 1
    assert prestige(state)[1] == before + 5 * 4 + 0  # four loyal houses after the reset (CROWN-A3)


def test_spy_learns_target_and_rank_refunds():
    # CROWN-R47, R49 (+10 on the first), R50 (+5 on the second), CROWN-A11, A14
    state = act(day("R L L E E", prestige=[60, 50, 70, 40, 30]), 1, "spy", target=2)
    assert state.feed == ()  # CROWN-R47: nothing public
    after = close(state)
    assert prestige(after)[1] == 55
    assert after.chron[1][-2]["params"] == {"target": 2, "prestige": 70, "point": "pre"}
    assert after.chron[1][-1]["params"] == {"target": 2, "amount": 10}
    state = act(day("R L L E E", prestige=[60, 50, 70, 40, 30]), 1, "spy", target=3)
    assert pre(state)[1] == 45  # third: no refund


def test_spy_on_ruler_is_treason():
    # CROWN-R48, M5 T2 (secret), CROWN-R50 (ruler second: +5)
    state = act(act(day("R L L E E", prestige=[60, 50, 70, 40, 30]), 0, "aid", target=4), 1, "spy", target=0)
    assert statuses(state) == "R E L E E" and "treason_spy" in chron(state, 1)
    assert GAME.view(state, None) == GAME.view(act(day("R L L E E", prestige=[60, 50, 70, 40, 30]), 0, "aid",
                                                   target=4), None)
    assert pre(state)[1] == 50


# ----- alliances, conspiracies, hush money, aid -----


def test_alliance_same_front_accepted_both_gain_and_pact():
    # CROWN-R51, R52, CROWN-A19 (the acceptor is told its status)
    state = act(day("R L L E E"), 1, "propose_alliance", target=2)
    assert feed(state) == ["alliance_proposed"]
    state = act(state, 2, "answer_alliance", proposer=1, accept=True)
    assert feed(state)[-1] == "alliance_accepted" and state.pacts == ((1, 2),)
    assert state.chron[2][-1]["params"] == {"status": LOYAL}
    with pytest.raises(IllegalAction):
        act(state, 1, "attack", target=2)
    assert pre(state)[1:3] == [55, 55]


def test_alliance_rejected_or_unanswered_costs_proposer():
    # CROWN-R51 (unanswered = rejected by the end of the day), CROWN-R54
    state = act(act(day("R L L E E"), 1, "propose_alliance", target=2), 2, "answer_alliance", proposer=1,
                accept=False)
    assert pre(state)[1] == 45
    state = act(day("R L L E E"), 1, "propose_alliance", target=3)
    after = close(state)
    assert prestige(after)[1] == 45 and "alliance_expired" in feed(after)


def test_alliance_opposing_acceptor_switches_side():
    # CROWN-R53, M5 T6, CROWN-R10 (an enemy becomes loyal only by alliance or a new ruler)
    state = act(act(day("R L L E E"), 3, "propose_alliance", target=1), 1, "answer_alliance", proposer=3,
                accept=True)
    assert statuses(state) == "R E L E E" and state.chron[1][-1]["params"] == {"status": ENEMY}
    state = act(act(day("R L L E E"), 1, "propose_alliance", target=3), 3, "answer_alliance", proposer=1,
                accept=True)
    assert statuses(state) == "R L L L E" and pre(state)[1] == 50  # no +5 when opposing


def test_alliance_with_ruler_non_ruler_changes_side():
    # CROWN-A18: whoever proposed, the non-ruling party changes sides
    state = act(act(day("R L L E E"), 3, "propose_alliance", target=0), 0, "answer_alliance", proposer=3,
                accept=True)
    assert statuses(state) == "R L L L E" and state.chron[3][-1]["params"] == {"status": LOYAL}
    state = act(act(day("R L L E E"), 0, "propose_alliance", target=4), 4, "answer_alliance", proposer=0,
                accept=True)
    assert statuses(state) == "R L L E L"


def test_conspiracy_offer_is_anonymous_and_acceptance_makes_both_enemies():
    # CROWN-R55 (target not told who), CROWN-R56, CROWN-A39, M5 T5
    state = act(day("R L L E E"), 1, "propose_conspiracy", target=2)
    offer = state.chron[2][-1]
    assert offer["key"] == "crown.log.conspiracy_offer" and offer["params"] == {"offer": 0}
    view = GAME.view(state, 2)
    assert view["prompts"] == [{"kind": "conspiracy", "offer": 0, "deadline_ms": state.deadline_ms,
                                "public": False}]
    assert state.feed == ()
    state = act(state, 2, "answer_conspiracy", offer=0, accept=True)
    assert statuses(state) == "R E E E E"
    assert state.chron[1][-1]["params"] == {"partner": 2} and state.chron[2][-1]["params"] == {"partner": 1}
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 1, "propose_conspiracy", target=0)  # CROWN-A18: not the ruler
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 0, "propose_conspiracy", target=1)  # CROWN-R55: not by the ruler


def test_conspiracy_rejections():
    # CROWN-R57 (opposing: proposer -5), CROWN-R58 (same-front: both -5), unanswered = rejected (CROWN-R55)
    same = act(act(day("R L L E E"), 1, "propose_conspiracy", target=2), 2, "answer_conspiracy", offer=0,
               accept=False)
    assert pre(same)[1:3] == [45, 45] and "conspiracy_rejected" in chron(same, 1)
    opp = act(act(day("R L L E E"), 1, "propose_conspiracy", target=3), 3, "answer_conspiracy", offer=0,
              accept=False)
    assert pre(opp)[1] == 45 and pre(opp)[3] == 50
    late = close(act(day("R L L E E"), 3, "propose_conspiracy", target=4))
    assert prestige(late)[3:] == [45, 45] and "conspiracy_expired" in chron(late, 4)


def test_hush_money_on_enemy_paid_creates_debt_and_treason():
    # CROWN-R62, R63, R65, CROWN-A22 (demander named), M5 T4, CROWN-R72 (automatic cancellation)
    # CROWN-M6: a debt arises from hush money and mutual debts cancel after it is created
    state = act(day("R L L E E"), 1, "demand_hush", target=3)
    assert state.chron[3][-1]["params"] == {"demander": 1} and state.feed == ()
    paid = act(state, 3, "answer_hush", demander=1, pay=True)
    assert paid.debts[3][1] == 1 and statuses(paid) == "R E L E E"
    assert "hush_paid" in chron(paid, 3) and "hush_collected" in chron(paid, 1)
    mutual = act(act(day("R L L E E", debts={(1, 3): 1}), 1, "demand_hush", target=3), 3, "answer_hush",
                 demander=1, pay=True)
    assert mutual.debts[3][1] == 0 and mutual.debts[1][3] == 0 and "debts_cancelled" in chron(mutual, 1)


def test_hush_money_refused_or_unanswered_is_announced_at_pre():
    # CROWN-R64, M5 T9, CROWN-A22 (no answer = refusal; only if still an enemy at PRE)
    refused = act(act(day("R L L E E"), 1, "demand_hush", target=3), 3, "answer_hush", demander=1, pay=False)
    assert "hush_refusal" not in feed(refused)
    after = close(refused)
    assert "hush_refusal" in feed(after) and after.feed[-2]["params"] == {"house": 3} or \
        any(e["params"] == {"house": 3} for e in after.feed if e["key"] == "crown.log.hush_refusal")
    assert "hush_refusal" in feed(close(act(day("R L L E E"), 1, "demand_hush", target=4)))
    turned = act(act(day("R L L E E"), 1, "demand_hush", target=3), 0, "propose_alliance", target=3)
    turned = act(turned, 3, "answer_alliance", proposer=0, accept=True)  # loyal again before PRE
    assert "hush_refusal" not in feed(close(turned))


def test_hush_money_on_loyal_target_costs_demander_silently():
    # CROWN-R66: the loyal target is told nothing
    base = day("R L L E E")
    state = act(base, 1, "demand_hush", target=2)
    assert GAME.view(state, 2) == GAME.view(base, 2) and GAME.view(state, None) == GAME.view(base, None)
    assert pre(state)[1] == 40
    with pytest.raises(IllegalAction) as err:
        act(base, 3, "demand_hush", target=4)  # CROWN-A22: the demander must be loyal
    assert err.value.code == "crown.error.not_loyal"
    with pytest.raises(IllegalAction):
        act(base, 1, "demand_hush", target=0)  # CROWN-R62: not the ruler


def test_aid_is_public_and_mandatory():
    # CROWN-R59, CROWN-A23
    state = act(day("R L L E E"), 0, "aid", target=3)
    assert state.feed[-1]["params"] == {"ruler": 0, "target": 3}
    assert pre(state) == [45, 50, 50, 55, 50]
    with pytest.raises(IllegalAction):
        act(state, 0, "aid", target=1)
    with pytest.raises(IllegalAction):
        act(day("R L L E E"), 1, "aid", target=2)
    assert "no_aid" in feed(close(day("R L L E E")))


def test_daily_limits():
    # CROWN-A15: spy, alliance, conspiracy and hush money once a day each; feast once (CROWN-R41)
    # CROWN-M3: the limit column of the action catalogue
    state = act(day("R L L E E"), 1, "spy", target=2)
    for kind, fields in (("spy", {"target": 3}),):
        with pytest.raises(IllegalAction):
            act(state, 1, kind, **fields)
    state = act(act(state, 1, "propose_alliance", target=2), 1, "feast", option="b", when="pre")
    for kind, fields in (("propose_alliance", {"target": 3}), ("feast", {"option": "a", "when": "pre"})):
        with pytest.raises(IllegalAction):
            act(state, 1, kind, **fields)


# ----- debts (M6) -----


def test_debt_option_a_names_the_debtors_attack_and_doubles_the_gain():
    # CROWN-R68, CROWN-A35 (G > 0: creditor +2G, debtor 0; G <= 0: the debtor bears it), CROWN-R71
    state = act(day("R L L E E", debts={(1, 2): 1}), 2, "debt_attack", debtor=1, target=3)
    assert state.debts[1][2] == 0 and feed(state) == ["attack_forced"]
    with pytest.raises(IllegalAction):
        act(state, 1, "attack", target=4)  # the debtor's daily attack is used up
    assert pre(state) == [40, 50, 60, 45, 50]
    state = act(day("R L L E E", debts={(1, 3): 1}), 3, "debt_attack", debtor=1, target=2)
    assert pre(state) == [40, 45, 45, 50, 50]


def test_debt_option_a_forced_attack_on_ruler_is_treason():
    # CROWN-A21 (forcedActsAreTreason), CROWN-R34
    state = act(day("R L L E E", debts={(1, 3): 1}), 3, "debt_attack", debtor=1, target=0)
    assert statuses(state) == "R E L E E"


def test_debt_option_a_limits():
    # CROWN-R68, CROWN-A35: not when the debtor is the ruler, nor in councils, nor after the debtor attacked
    with pytest.raises(IllegalAction) as err:
        act(day("R L L E E", debts={(0, 1): 1}), 1, "debt_attack", debtor=0, target=3)
    assert err.value.code == "crown.error.debtor_ruler"
    with pytest.raises(IllegalAction):
        act(act(day("R L L E E", debts={(1, 2): 1}), 1, "attack", target=3), 2, "debt_attack", debtor=1, target=4)
    with pytest.raises(IllegalAction):
        act(day("R L L E E", debts={(1, 2): 1}), 2, "debt_attack", debtor=1, target=2)
    with pytest.raises(IllegalAction):
        act(close(day("R L L E E", debts={(1, 2): 1})), 2, "debt_attack", debtor=1, target=3)


def test_debt_option_b_any_time_applied_at_next_calculation():
    # CROWN-R69, CROWN-A36 (any time, next calculation point), CROWN-A32 (not in this council's weights)
    state = act(day("R L L E E", debts={(3, 1): 2}), 1, "debt_take", debtor=3)
    assert state.debts[3][1] == 1 and feed(state) == ["debt_take"]
    judged = close(state)
    assert prestige(judged)[1] == 60 and prestige(judged)[3] == 40
    during = act(judged, 1, "debt_take", debtor=3)
    assert prestige(during) == prestige(judged) and during.council["weights"] == judged.council["weights"]
    nxt = close(during)
    assert prestige(nxt)[1] == 70 and prestige(nxt)[3] == 30 and nxt.debts[3][1] == 0
    ruler = act(day("R L L E E", debts={(0, 1): 1}), 1, "debt_take", debtor=0)  # the only option on a ruler
    assert pre(ruler)[0] == 30


def test_debt_option_c_overrides_a_vote_and_counts_as_treason():
    # CROWN-R70, CROWN-A37, CROWN-A21 (a forced vote against the ruler is treason, M5 T3)
    judged = close(day("R L L E E", debts={(1, 3): 1}))
    state = act(judged, 3, "debt_vote", debtor=1, choice=0)
    assert state.council["votes"][1] == 0 and state.council["forced"][1] == 3 and state.debts[1][3] == 0
    with pytest.raises(IllegalAction):
        act(state, 1, "vote", choice=4)
    state = close(act(state, 2, "vote", choice=4))
    assert state.houses[1]["pending_enemy"] or statuses(state).split()[1] == "E"
    with pytest.raises(IllegalAction) as err:
        act(close(day("R L L E E", debts={(0, 3): 1})), 3, "debt_vote", debtor=0, choice=1)
    assert err.value.code == "crown.error.debtor_ruler"


def test_forced_transfer_vote_creates_no_debt():
    # CROWN-R27 (voluntary voters only), CROWN-A37
    state = votes(close(day("R L L E E", debts={(2, 4): 1})), {1: 0, 2: 0, 3: 0, 4: 0, 0: None})
    state = act(state, 0, "pass")
    assert state.phase == TRANSFER
    state = act(state, 4, "debt_vote", debtor=2, choice=3)
    state = votes(state, {1: 3, 3: 1, 4: 3})
    assert state.ruler == 3
    assert state.debts[3][1] == 1 and state.debts[3][4] == 1 and state.debts[3][2] == 0


# ----- councils -----


def test_judgment_weights_floor_of_prestige_and_condemnation_of_an_enemy():
    # CROWN-R16 (1 vote per 10, no halves), CROWN-R17, CROWN-R19, CROWN-A32 (weights after PRE)
    judged = close(day("R L L E E", prestige=[50, 29, 50, 50, 50]))
    assert judged.phase == JUDGMENT and judged.council["weights"] == [4, 2, 5, 5, 5]
    state = votes(judged, {1: 3, 2: 3, 0: 4, 3: None, 4: None})  # 3 has 7 votes, 4 has 4
    assert state.phase == VETO and state.council["condemned"] == 3 and "condemned" in feed(state)
    nxt = act(state, 0, "pass")
    assert nxt.phase == DAY and nxt.day == 4
    assert prestige(nxt) == [45, 34, 55, 40, 50]


def test_condemning_a_loyal_house_pays_enemies():
    # CROWN-R18
    state = act(votes(close(day("R L L E E")), {3: 1, 4: 1}), 0, "pass")
    assert prestige(state) == [40, 40, 50, 55, 55]  # someone was condemned: no R22 for the ruler


def test_condemning_the_ruler_removes_it_with_enemy_day_bonus():
    # CROWN-R20, CROWN-A20 (enemyDays +1 at each council of judgment), CROWN-R24, CROWN-A9 (4b before transfer)
    # CROWN-M2: steps 4, 4b and 5 in order
    judged = close(day("R L L E E", enemy_days=[0, 0, 0, 2, 0]))
    assert [h["enemy_days"] for h in judged.houses] == [0, 0, 0, 3, 1]
    state = act(votes(judged, {1: 0, 3: 0, 4: 0}), 0, "pass")
    assert state.phase == TRANSFER and "ruler_removed" in feed(state)
    assert prestige(state) == [30, 50, 50, 65, 55]  # applied before the transfer council (CROWN-A32)
    assert state.council["weights"] == [3, 5, 5, 6, 5] and state.council["former"] == 0


def test_no_condemnation_on_tie_or_no_votes_gives_ruler_ten():
    # CROWN-A30, CROWN-R22
    tie = votes(close(day("R L L E E")), {1: 3, 2: 4})
    assert tie.phase == DAY and "no_condemnation" in feed(tie) and prestige(tie)[0] == 50
    empty = close(close(day("R L L E E")))
    assert prestige(empty)[0] == 50


def test_vote_treason_takes_effect_next_day_and_day_still_loyal():
    # CROWN-R21, CROWN-A21 (still loyal on day d, including its crown), M5 T3
    state = votes(close(day("R L L E E", streak=[0, 3, 0, 0, 0])), {1: 0, 2: 3})  # a 5-5 tie: no one condemned
    assert state.day == 4 and statuses(state) == "R E L E E"
    assert state.houses[1]["crowns"] == 1  # day 3 still counted as loyal
    assert "vote_treason" in chron(state, 1) and "became_enemy" in chron(state, 1)


def test_vote_treason_dropped_when_ruler_changes():
    # CROWN-A21, CROWN-A3
    state = act(votes(close(day("R L L E E")), {1: 0, 2: 0, 3: 0}), 0, "pass")
    state = votes(state, {1: 2, 2: 1, 3: 2, 4: 2})
    assert state.ruler == 2 and statuses(state) == "L L R L L" and not state.houses[1]["pending_enemy"]


def test_veto_replaces_the_condemned_then_reactions():
    # CROWN-R60, CROWN-R61, CROWN-A33 (replacement bears the effects with pre-veto statuses; flips after), M5 T7
    state = votes(close(day("R L L E E", prestige=[60, 50, 50, 50, 50])), {1: 3, 2: 3})
    assert state.phase == VETO
    with pytest.raises(IllegalAction):
        act(state, 0, "veto", replacement=3)  # not the condemned house
    with pytest.raises(IllegalAction):
        act(state, 1, "veto", replacement=4)  # only the ruler
    vetoed = act(state, 0, "veto", replacement=1)
    assert vetoed.phase == REACTIONS and vetoed.council["react"] == [1, 2] and "veto" in feed(vetoed)
    defect = act(vetoed, 2, "react", defect=True)
    assert statuses(defect) == "R L E E E" and "defected" in chron(defect, 2)
    assert defect.step == vetoed.step  # a secret answer changes nothing anyone else can see
    nxt = close(defect)
    # ruler 60-10(no aid)=50, -20 veto; 1 condemned -10; enemies 3,4 +5 (2 was loyal at the payout)
    assert prestige(nxt) == [30, 40, 50, 55, 55] and nxt.day == 4
    assert nxt.houses[2]["streak"] == 0  # an enemy at the end of the day: no crown (CROWN-A33)


def test_veto_of_own_condemnation_keeps_the_throne():
    # CROWN-A33: no transfer council, no R20 bonus
    state = votes(close(day("R L L E E", prestige=[60, 50, 50, 50, 50], enemy_days=[0, 0, 0, 5, 5])),
                  {1: 0, 3: 0, 4: 0})
    state = close(act(state, 0, "veto", replacement=3))
    assert state.ruler == 0 and state.phase == DAY and prestige(state) == [35, 55, 55, 40, 50]


def test_veto_refused_below_twenty_privately():
    # CROWN-A10: refused, which tells the ruler only that it has less than 20
    state = votes(close(day("R L L E E", prestige=[25, 50, 50, 50, 50])), {1: 3, 2: 3})
    refused = act(state, 0, "veto", replacement=1)
    assert refused.phase == VETO and "veto_refused" in chron(refused, 0)
    assert GAME.view(refused, None) == GAME.view(state, None)
    assert GAME.legal_actions(refused, 0) == [("pass",)]
    assert act(refused, 0, "pass").phase == DAY


def test_transfer_council_tie_revote_and_prestige():
    # CROWN-R26, CROWN-A31
    state = act(votes(close(day("R L L L L", prestige=[50, 50, 58, 50, 50])), {1: 0, 3: 0, 4: 0}), 0, "pass")
    assert state.council["weights"][1:] == [5, 5, 5, 5]
    state = votes(state, {1: 2, 2: 1, 3: 4, 4: 3})
    assert state.council["round"] == 2 and state.phase == TRANSFER
    state = votes(state, {1: 2, 2: 1, 3: 4, 4: 3})
    assert state.ruler == 2  # tied again: the most prestige
    with pytest.raises(IllegalAction):
        act(act(votes(close(day("R L L E E")), {1: 0, 3: 0, 4: 0}), 0, "pass"), 0, "vote", choice=1)  # CROWN-R25


def test_new_ruler_resets_statuses_pacts_enemy_days_keeps_debts():
    # CROWN-A3, M5 T8, CROWN-A38 (debts survive), CROWN-R7
    # CROWN-M5 (T8), CROWN-M6 (debts survive a change of ruler)
    state = day("R L L E E", pacts=[(3, 4)], debts={(4, 3): 1}, enemy_days=[0, 0, 0, 2, 2])
    state = act(votes(close(state), {1: 0, 3: 0, 4: 0}), 0, "pass")
    state = votes(state, {1: 3, 2: 3, 3: 1, 4: None})
    assert state.ruler == 3 and statuses(state) == "L L L R L" and state.pacts == ()
    assert [h["enemy_days"] for h in state.houses] == [0] * 5 and state.debts[4][3] == 1
    assert state.day == 4 and state.reign_day == 1 and state.houses[3]["crowns"] == 1


# ----- crowns, winning, ending -----


def test_loyal_crowns_from_the_second_loyal_day():
    # CROWN-R74, CROWN-A5, CROWN-A6; CROWN-R4 (the ruler gets crowns every day), CROWN-R8 and CROWN-A4 (a house
    # loyal for more than one day gets crowns, fewer than the ruler's)
    state = votes(start(), {0: 2, 1: 2, 3: 2, 4: 2, 2: 0})
    state = close(close(state))  # day 1 ends (no votes)
    assert state.day == 2 and [h["crowns"] for h in state.houses] == [0, 0, 3, 0, 0]
    state = close(close(state))
    assert state.day == 3 and [h["crowns"] for h in state.houses] == [1, 1, 7, 1, 1]
    assert all(state.houses[h]["crowns"] < state.houses[2]["crowns"] for h in (0, 1, 3, 4))
    assert "crown_loyal" in chron(state, 0) and "crown_reign" in chron(state, 2)


def test_ruler_wins_at_the_start_of_its_fourth_day():
    # CROWN-R73, CROWN-R76, CROWN-A7, M7: 1 + 2 + 4 + 6 = 13
    # CROWN-M7: the reign-day table and the win at the start of the fourth day
    state = votes(start(), {0: 2, 1: 2, 3: 2, 4: 2, 2: 0})
    for _ in range(3):
        assert state.phase == DAY
        state = close(close(state))
    assert state.phase == OVER and state.day == 4 and state.winner == 2 and state.houses[2]["crowns"] == 13
    outcome = GAME.outcome(state)
    assert outcome.ranking[0] == 2 and outcome.reason_key == "outcome.crown.throne"
    assert "won" in feed(state) and feed(state)[-1] == "final_crowns"
    assert GAME.deadline(state) is None and GAME.legal_actions(state, 0) == []


def test_banked_crowns_win_on_installation():
    # CROWN-A7, M7: a house holding 10 crowns wins as soon as it is installed; CROWN-R76: not before
    # CROWN-M7: banked loyal crowns win at installation
    state = day("R L L E E", crowns=[3, 12, 0, 0, 0])
    assert state.phase == DAY  # 12 crowns but not ruler: no win
    state = act(votes(close(state), {1: 0, 3: 0, 4: 0}), 0, "pass")
    state = votes(state, {2: 1, 3: 1, 4: 1})
    assert state.phase == OVER and state.winner == 1


def test_last_day_ends_with_most_crowns_then_prestige():
    # CROWN-D6
    state = day("R L L E E", crowns=[3, 5, 5, 0, 0], prestige=[50, 40, 60, 50, 50], number=5, last_day=5)
    state = close(close(state))
    assert state.phase == OVER and state.reason == "last_day"
    outcome = GAME.outcome(state)
    assert outcome.ranking[:3] == (2, 1, 0) and outcome.reason_key == "outcome.crown.last_day"
    assert outcome.detail["crowns"][2] == 5


# ----- the window machinery (CROWN-D1) -----


def test_day_window_ends_when_every_house_is_done_and_step_is_stable():
    # CROWN-D1: done ends the window early; step changes only with the phase
    state = day("R L L E E")
    step = GAME.step(state)
    state = act(state, 1, "attack", target=3)
    state = act(state, 2, "spy", target=4)
    assert GAME.step(state) == step
    for h in range(4):
        state = act(state, h, "done")
        assert state.phase == DAY and GAME.step(state) == step
    with pytest.raises(IllegalAction):
        act(state, 0, "done")
    state = act(state, 4, "done")
    assert state.phase == JUDGMENT and GAME.step(state) > step


def test_council_closes_when_all_have_voted_and_deadlines():
    # CROWN-D1: council window; veto and reaction windows 20 s
    judged = close(day("R L L E E"))
    assert judged.deadline_ms - judged.window_ms > 0 and judged.window_ms == judged.council_ms
    state = votes(judged, {0: 3, 1: 3, 2: 3, 3: None, 4: None})
    assert state.phase == VETO and state.window_ms == 20_000


def test_invalid_payloads():
    for payload in (None, [], {"kind": "fly"}, {"kind": "attack"}, {"kind": "attack", "target": 7},
                    {"kind": "attack", "target": True}, {"kind": "feast", "option": "c", "when": "pre"},
                    {"kind": "vote", "choice": "x"}, {"kind": "done", "extra": 1}):
        with pytest.raises(InvalidAction):
            GAME.parse_action(payload)
    assert GAME.parse_action({"kind": "vote", "choice": None}) == ("vote", -1)
    assert GAME.action_to_json(("vote", -1)) == {"kind": "vote", "choice": None}
