"""More Seizing the Crown rule checks (rules/crown.md), for IDs test_rules.py does not cite in full.

Unless a test gives aid, the ruler gave none and loses 10 at PRE (CROWN-R59): expected values include it."""

from __future__ import annotations

import copy

import pytest

from engine.core import IllegalAction, InvalidAction
from engine.crown.game import DAY, JUDGMENT, OVER, REACTIONS, TRANSFER, VETO, view_payloads
from engine.crown.rules import ENEMY
from tests.crown.fixtures import GAME, T0, act, chron, close, day, feed, pre, prestige, statuses, votes
from tests.crown.playout import random_playout

# ----- the ruler and its replacement -----


def test_deposed_ruler_is_replaced_through_the_council():
    # CROWN-R5: deposed by war (R37) or by condemnation (R20), the next ruler is the one the council chooses
    war = day("R L L E E")
    for a in (1, 3, 4):
        war = act(war, a, "attack", target=0)
    war = close(war)
    assert war.phase == TRANSFER and war.ruler is None
    after = votes(war, {1: 3, 2: 3, 3: 1, 4: 3})
    assert after.ruler == 3 and statuses(after) == "L L L R L" and after.phase == DAY and after.day == 4
    assert [(h, d) for h, d in after.rulers] == [(0, 0), (3, 3)] and feed(after).count("new_ruler") == 1
    condemned = act(votes(close(day("R L L E E")), {1: 0, 3: 0, 4: 0}), 0, "pass")
    assert condemned.phase == TRANSFER and condemned.ruler is None
    after = votes(condemned, {1: 2, 2: 4, 3: 2, 4: 2})
    assert after.ruler == 2 and statuses(after) == "L L R L L"


# ----- loyalty and enmity -----


def test_no_free_switch_to_enemy():
    # CROWN-R6 with CROWN-A2: no action declares a house an enemy (or loyal); only the M5 triggers change status
    # CROWN-M5: a status changes only through the listed triggers
    for payload in ({"kind": "declare_enemy"}, {"kind": "become_enemy"}, {"kind": "enemy"},
                    {"kind": "status", "status": "enemy"}, {"kind": "done", "status": "enemy"}):
        with pytest.raises(InvalidAction):
            GAME.parse_action(payload)
    base = day("R L L E E")
    with pytest.raises(IllegalAction) as err:
        act(base, 1, "react", defect=True)  # the R61 defection exists only after a veto
    assert err.value.code == "crown.error.not_now"
    changers = []
    for action in GAME.legal_actions(base, 1):  # a loyal house: every action it may take on its own
        after = GAME.apply(base, 1, action, T0 + 1)
        if statuses(after) != statuses(base):
            changers.append((action, statuses(after)))
    assert changers == [(("attack", 0), "R E L E E"), (("spy", 0), "R E L E E")]  # treason only (R34, R48)
    for action in GAME.legal_actions(base, 3):  # an enemy house cannot turn itself loyal either
        assert statuses(GAME.apply(base, 3, action, T0 + 1)) == "R L L E E", action


def test_treason_makes_the_house_count_as_an_enemy():
    # CROWN-R9: after spying on the ruler (treason, R48) house 1 is scored and treated as an enemy
    state = act(day("R L L E E"), 1, "spy", target=0)
    assert GAME.view(state, 1)["status"] == ENEMY
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "demand_hush", target=3)  # only a loyal house may demand hush money
    assert err.value.code == "crown.error.not_loyal"
    state = act(state, 1, "attack", target=2)  # enemy on loyal: +5 / -5 (a loyal attacker would get -5)
    judged = close(state)
    assert prestige(judged) == [40, 50, 45, 50, 50]  # 1: -5 spy, +5 attack; the ruler ranks last: no refund
    assert [h["enemy_days"] for h in judged.houses] == [0, 1, 0, 1, 1]  # counted as an enemy (CROWN-A20)


# ----- councils: nothing but debt repayment -----


def _refused_day_actions(state, house: int, debtor: int) -> None:
    for kind, fields in (("attack", {"target": 2}), ("spy", {"target": 2}), ("feast", {"option": "a", "when": "pre"}),
                         ("propose_alliance", {"target": 2}), ("propose_conspiracy", {"target": 2}),
                         ("demand_hush", {"target": 2}), ("debt_attack", {"debtor": debtor, "target": 2}),
                         ("done", {})):
        with pytest.raises(IllegalAction) as err:
            act(state, house, kind, **fields)
        assert err.value.code == "crown.error.not_now", kind


def test_judgment_council_allows_only_debt_repayment():
    # CROWN-R23 (CROWN-A33: the veto and the R61 reactions are part of the council procedure)
    # CROWN-M3: the "when" column of the action catalogue during the councils
    judged = close(day("R L L E E", prestige=[60, 50, 50, 50, 50], debts={(3, 1): 2}))
    assert judged.phase == JUDGMENT
    _refused_day_actions(judged, 1, 3)
    with pytest.raises(IllegalAction):
        act(judged, 0, "banquet", when="post")
    with pytest.raises(IllegalAction):
        act(judged, 0, "aid", target=2)
    kinds = {a[0] for h in range(5) for a in GAME.legal_actions(judged, h)}
    assert kinds == {"vote", "debt_take", "debt_vote"}
    took = act(judged, 1, "debt_take", debtor=3)
    assert took.debts[3][1] == 1 and feed(took)[-1] == "debt_take"
    forced = act(took, 1, "debt_vote", debtor=3, choice=4)
    assert forced.debts[3][1] == 0 and forced.council["forced"][3] == 1
    veto = votes(close(day("R L L E E", prestige=[60, 50, 50, 50, 50], debts={(3, 1): 2})), {1: 3, 2: 3})
    assert veto.phase == VETO
    _refused_day_actions(veto, 1, 3)
    assert {a[0] for h in range(5) for a in GAME.legal_actions(veto, h)} == {"veto", "pass", "debt_take"}
    assert act(veto, 1, "debt_take", debtor=3).debts[3][1] == 1
    reactions = act(veto, 0, "veto", replacement=4)
    assert reactions.phase == REACTIONS
    _refused_day_actions(reactions, 1, 3)
    assert {a[0] for h in range(5) for a in GAME.legal_actions(reactions, h)} == {"react", "debt_take"}
    assert act(reactions, 1, "debt_take", debtor=3).debts[3][1] == 1


def test_transfer_council_allows_only_debt_repayment():
    # CROWN-R28
    state = act(votes(close(day("R L L E E", debts={(3, 1): 1, (2, 4): 1})), {1: 0, 3: 0, 4: 0}), 0, "pass")
    assert state.phase == TRANSFER
    _refused_day_actions(state, 1, 3)
    _refused_day_actions(state, 0, 3)  # the former ruler too
    assert {a[0] for h in range(5) for a in GAME.legal_actions(state, h)} == {"vote", "debt_take", "debt_vote"}
    took = act(state, 1, "debt_take", debtor=3)
    assert took.debts[3][1] == 0 and feed(took)[-1] == "debt_take"
    forced = act(took, 4, "debt_vote", debtor=2, choice=3)
    assert forced.debts[2][4] == 0 and forced.council["votes"][2] == 3 and forced.council["forced"][2] == 4


# ----- banquet timing, spying on the first -----


def test_banquet_before_or_after_the_council():
    # CROWN-R46 (with CROWN-A9, A12): "post" resolves and discloses after the council, "pre" before it
    base = act(day("R L L E E"), 0, "aid", target=3)
    early = close(act(base, 0, "banquet", when="pre"))
    assert prestige(early)[0] == 55 and early.chron[0][-1]["params"] == {"prestige": 55, "point": "pre"}
    late = close(act(base, 0, "banquet", when="post"))
    assert prestige(late)[0] == 45 and "banquet_value" not in chron(late, 0)
    nxt = close(late)  # no condemnation: R22 +10, then the banquet +5 x 2 loyal houses at POST
    assert nxt.day == 4 and prestige(nxt)[0] == 65
    assert GAME.view(nxt, 0)["disclosures"] == [
        {"house": 0, "prestige": 65, "day": 3, "point": "post", "source": "banquet"}]


def test_spy_on_the_first_ranked_gets_ten_back():
    # CROWN-R49, CROWN-A11 (rank after the PRE deltas; ties share first), CROWN-A14 (literal +10)
    # CROWN-A40: at PRE the ranks come after the summed changes and before the refunds and disclosures
    state = act(day("R L L E E", prestige=[60, 50, 58, 40, 30]), 1, "spy", target=2)  # 2 is first only after PRE
    after = close(state)
    assert prestige(after)[1] == 55
    assert list(after.chron[1][-2:]) == [
        {"key": "crown.log.spy_result", "params": {"target": 2, "prestige": 58, "point": "pre"}, "day": 3},
        {"key": "crown.log.spy_refund", "params": {"target": 2, "amount": 10}, "day": 3}]
    tied = act(day("R L L E E", prestige=[40, 50, 70, 50, 70]), 3, "spy", target=2)  # 2 and 4 tie for first
    assert pre(tied) == [30, 50, 70, 55, 70]


# ----- alliances, hush money, debts -----


def test_same_front_alliance_of_two_enemies_gains_and_pact_until_ruler_changes():
    # CROWN-R52: two enemies are same-front (R11): both +5, and no attack between them until the ruler changes
    state = act(act(day("R L L E E", debts={(3, 1): 1}), 3, "propose_alliance", target=4), 4, "answer_alliance",
                proposer=3, accept=True)
    assert state.pacts == ((3, 4),) and statuses(state) == "R L L E E"
    assert state.chron[4][-1]["params"] == {"status": ENEMY}
    for a, t in ((3, 4), (4, 3)):
        with pytest.raises(IllegalAction) as err:
            act(state, a, "attack", target=t)
        assert err.value.code == "crown.error.pact"
    with pytest.raises(IllegalAction) as err:
        act(state, 1, "debt_attack", debtor=3, target=4)
    assert err.value.code == "crown.error.pact"
    judged = close(state)
    assert prestige(judged) == [40, 50, 50, 55, 55]
    nxt = close(judged)  # same ruler on the next day: the pact holds
    assert nxt.day == 4 and nxt.ruler == 0 and nxt.pacts == ((3, 4),)
    assert ("attack", 4) not in GAME.legal_actions(nxt, 3)
    moved = act(votes(close(nxt), {1: 0, 3: 0, 4: 0}), 0, "pass")
    moved = votes(moved, {1: 2, 2: 1, 3: 2, 4: 2})
    assert moved.ruler == 2 and moved.pacts == () and ("attack", 4) in GAME.legal_actions(moved, 3)


def test_paying_hush_money_creates_a_debt_and_the_demander_turns_enemy():
    # CROWN-R65, M5 T4: the payer owes the demander 1 debt; the demander is an enemy at once; all secret
    state = act(day("R L L E E"), 2, "demand_hush", target=4)
    paid = act(state, 4, "answer_hush", demander=2, pay=True)
    assert statuses(paid) == "R L E E E" and paid.debts[4][2] == 1 and sum(map(sum, paid.debts)) == 1
    assert GAME.view(paid, 2)["debts"] == {"owed_to_you": [{"house": 4, "count": 1}], "you_owe": []}
    assert GAME.view(paid, 4)["debts"] == {"owed_to_you": [], "you_owe": [{"house": 2, "count": 1}]}
    assert paid.feed == () and GAME.view(paid, None) == GAME.view(day("R L L E E"), None)
    assert pre(paid) == [40, 50, 50, 50, 50]  # the payment is the debt, not prestige
    assert act(paid, 2, "debt_take", debtor=4).debts[4][2] == 0  # the debt can be called in


def test_only_a_creditor_may_call_in_a_debt():
    # CROWN-R67: a house owed a debt may use option (a), (b) or (c); the debtor and third houses may not
    # CROWN-M6: only the creditor calls a debt in, and each use settles one debt
    state = day("R L L E E", debts={(1, 3): 1})
    creditor = {a[0] for a in GAME.legal_actions(state, 3)} & {"debt_attack", "debt_take", "debt_vote"}
    assert creditor == {"debt_attack", "debt_take"}
    for h in (0, 1, 2, 4):
        assert not {a[0] for a in GAME.legal_actions(state, h)} & {"debt_attack", "debt_take", "debt_vote"}
    for h, debtor in ((1, 3), (2, 1)):
        with pytest.raises(IllegalAction) as err:
            act(state, h, "debt_take", debtor=debtor)
        assert err.value.code == "crown.error.no_debt"
    judged = close(state)
    assert ("debt_vote", 1, 4) in GAME.legal_actions(judged, 3)
    with pytest.raises(IllegalAction) as err:
        act(judged, 2, "debt_vote", debtor=1, choice=4)
    assert err.value.code == "crown.error.no_debt"
    for used in (act(state, 3, "debt_attack", debtor=1, target=2), act(state, 3, "debt_take", debtor=1),
                 act(judged, 3, "debt_vote", debtor=1, choice=4)):
        assert used.debts[1][3] == 0


# ----- random games (moved from the former tests/crown/test_conformance.py; the engine contract test,
# tests/test_engine_contract.py, checks what every game shares: ending, seeds, replays, secrets, validation) -----


def test_random_playouts_end_within_the_last_day():
    # CROWN-D6: with a last day set every game ends by then; CROWN-R76 may end it sooner
    reasons = set()
    for seed in range(40):
        state, _log, _rec = random_playout(seed, last_day=4)
        assert state.phase == OVER and state.day <= 4 and GAME.outcome(state) is not None
        assert sorted(GAME.outcome(state).ranking) == [0, 1, 2, 3, 4]
        reasons.add(state.reason)
    assert "last_day" in reasons


def test_menus_equal_legal_actions_and_apply_never_mutates():
    # the phones (and bots) build their menus from the view: it must offer exactly the legal actions
    checked = {"n": 0}

    def on_state(state, _record):
        for h in range(5):
            view = GAME.view(state, h)
            offered = sorted(GAME.parse_action(p) for p in view_payloads(view))
            assert offered == sorted(GAME.legal_actions(state, h)), (state.phase, h)
        if state.phase != OVER and checked["n"] % 7 == 0:
            frozen = copy.deepcopy(state)
            for h in range(5):
                for action in GAME.legal_actions(state, h)[:3]:
                    GAME.apply(state, h, action, (state.deadline_ms or 1) - 1)
            GAME.on_timeout(state, state.deadline_ms)
            assert state == frozen
        checked["n"] += 1

    for seed in range(6):
        random_playout(seed, on_state=on_state)
    assert checked["n"] > 200


def test_step_changes_only_with_the_window():
    state = day("R L L E E")
    step = GAME.step(state)
    for h, kind, fields in ((1, "attack", {"target": 3}), (2, "spy", {"target": 0}), (3, "feast", {
            "option": "a", "when": "post"}), (0, "aid", {"target": 1}), (4, "propose_conspiracy", {"target": 3})):
        state = act(state, h, kind, **fields)
        assert GAME.step(state) == step
    assert GAME.step(GAME.on_timeout(state, state.deadline_ms)) != step


def test_every_text_the_engine_produces_is_in_the_three_catalogs():
    # the views carry i18n keys only; every one of them (and every refusal code) exists in en, fa and ro
    import re
    from pathlib import Path

    from engine.crown.game import HOUSE_DATA, KINDS
    from host.i18n import catalog

    used = set()
    for seed in range(15):
        state, _log, _rec = random_playout(seed)
        used |= {e["key"] for e in state.feed} | {e["key"] for c in state.chron for e in c}
        used |= {GAME.view(state, None)["phase_key"]}
    source = Path("engine/crown/game.py").read_text()
    used |= {f"crown.log.{k}" for k in re.findall(r'w\.(?:public|tell)\((?:[^,()]+, )?"([a-z_]+)"', source)}
    used |= {f"crown.error.{k}" for k in re.findall(r'check\([^;]*?, "([a-z_]+)", "', source, re.DOTALL)}
    used |= {f"crown.error.already_{k}" for k in re.findall(r'_use\(w, h, "([a-z]+)"', source)}
    used |= {f"crown.phase.{p}" for p in ("initial", "day", "judgment", "veto", "reactions", "transfer", "over")}
    used |= {d["name_key"] for d in HOUSE_DATA} | {f"crown.status.{s}" for s in ("loyal", "enemy", "ruler")}
    used |= {"crown.option.a", "crown.option.b", "crown.when.pre", "crown.when.post", "game.crown.howto",
             "outcome.crown.throne", "outcome.crown.last_day"}
    used |= {f"crown.action.{k}" for k in KINDS if not k.startswith("answer_")}
    for language in ("en", "fa", "ro"):
        missing = used - set(catalog(language))
        assert not missing, (language, sorted(missing))
    assert len(used) > 120
    assert len(catalog("en")["game.crown.howto"].split("|")) >= 4
