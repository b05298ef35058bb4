"""Secrecy (CROWN-D5, D3, D4, M8, R14, R15): every view, after every action and timeout of many random games, is
checked against what its audience is entitled to, judged from the test's own record of the game (who did what,
and the prestige at each calculation point), not from anything the view claims about itself.

The views are built so that this is structural: a fixed set of fields per audience, public entries in ``feed`` and
private ones only in the house's ``chronicle``, each entry an i18n key with a known set of parameters, and prestige
values only under the ``prestige`` parameter of the three disclosure entries (and their ``disclosures`` digest).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.crown.game import NIGHT_OUTCOMES, CrownGame
from engine.crown.rules import ENEMY, RULER, crowns_for_reign_day
from tests.crown.fixtures import act, day
from tests.crown.playout import Record, random_playout

PUBLIC_FIELDS = {"game", "day", "phase", "phase_key", "deadline_ms", "window_ms", "ruler", "reign_day",
                 "ruler_crowns", "houses", "pacts", "attacks", "council", "crowns_announced", "rulers", "feed",
                 "feed_total", "winner", "reason", "last_day"}
HOUSE_FIELDS = PUBLIC_FIELDS | {"you", "status", "crowns", "debts", "disclosures", "chronicle", "done", "used",
                                "prompts", "actions", "today_log", "overnight"}
HOUSE_ENTRY = {"index", "name_key", "colour", "crest", "player", "bot", "done"}
COUNCIL_FIELDS = {"kind", "round", "former", "voters", "candidates", "votes", "condemned", "vetoed", "final"}

# public entries and their parameters
PUBLIC = {
    "initial_opened": {"former"}, "transfer_opened": {"former"}, "crowns_announced": {"crowns"},
    "day_started": {"number"}, "attack": {"attacker", "target"}, "attack_forced": {"creditor", "attacker", "target"},
    "feast": {"house"}, "banquet": {"house"}, "aid": {"ruler", "target"}, "no_aid": {"ruler"},
    "alliance_proposed": {"proposer", "target"}, "alliance_accepted": {"proposer", "target"},
    "alliance_rejected": {"proposer", "target"}, "alliance_expired": {"proposer", "target"},
    "debt_take": {"creditor", "debtor"}, "debt_vote": {"creditor", "debtor", "choice", "council"},
    "debt_vote_abstain": {"creditor", "debtor", "council"}, "hush_refusal": {"house"}, "deposed_war": {"ruler"},
    "judgment_opened": set(), "vote": {"voter", "choice", "council"}, "vote_abstain": {"voter", "council"}, "no_condemnation": set(),
    "condemned": {"house"}, "veto": {"ruler", "vetoed", "replacement"}, "no_veto": {"ruler"},
    "ruler_removed": {"ruler"}, "revote": {"candidates"}, "new_ruler": {"house"}, "won": {"house", "crowns"},
    "last_day_over": set(), "final_crowns": {"crowns"},
}
# private entries and their parameters
PRIVATE = {
    "treason_attack": set(), "spy_sent": {"target"}, "treason_spy": set(), "spy_result": {"target", "prestige", "point"},
    "spy_refund": {"target", "amount"}, "feast_held": {"option", "when"}, "feast_value": {"prestige", "point"},
    "feast_refund": {"amount"}, "banquet_held": {"when"}, "banquet_value": {"prestige", "point"},
    "banquet_void": set(), "alliance_status": {"status"}, "conspiracy_sent": {"target"},
    "conspiracy_offer": {"offer"}, "conspiracy_accepted": {"partner"}, "conspiracy_rejected": {"target"},
    "conspiracy_declined": {"offer"}, "conspiracy_expired": {"offer"}, "hush_sent": {"target"},
    "hush_demand": {"demander"}, "hush_paid": {"demander"}, "hush_collected": {"payer"},
    "hush_refused": {"demander"}, "hush_expired": {"demander"}, "debts_cancelled": {"house", "count"},
    "veto_refused": set(), "defected": set(), "stayed_loyal": set(), "vote_treason": set(), "became_enemy": set(),
    "debt_vote_owed": {"debtor"}, "debt_vote_owing": {"creditor"}, "crown_loyal": {"crowns"},
    "crown_reign": {"amount", "crowns", "reign_day"},
}


class Leak(AssertionError):
    """A view holds something its audience may not know."""


def need(condition: bool, why: str) -> None:
    if not condition:
        raise Leak(why)


def find_keys(value: Any, path: str = "") -> list[str]:
    """Every dict key in a nested value, with its path."""
    found = []
    if isinstance(value, dict):
        for k, v in value.items():
            found.append(f"{path}.{k}")
            found += find_keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += find_keys(v, f"{path}[{i}]")
    return found


def conspiracy_partner(record: Record, day: int, target: int, n: int) -> int:
    """The proposer of the n-th conspiracy offer made to ``target`` on ``day``, from the test's record."""
    proposers = [h for d, h, a, _s in record.actions if d == day and a[0] == "propose_conspiracy" and a[1] == target]
    return proposers[n]


def check_entry(e: dict[str, Any], audience: int | None, record: Record, private: bool) -> None:
    key = e["key"]
    need(set(e) == {"key", "params", "day"}, f"entry fields {sorted(e)}")
    need(key.startswith("crown.log."), key)
    name = key.removeprefix("crown.log.")
    table = PRIVATE if private else PUBLIC
    need(name in table, f"{name} in the {'chronicle' if private else 'feed'}")
    p = e["params"]
    need(set(p) == table[name], f"{name} params {sorted(p)}")
    d = e["day"]
    if not private:
        if name == "hush_refusal":  # CROWN-R64: only a refused (or unanswered) demand on a house still an enemy
            y = p["house"]
            demands = [(a, s) for dd, _h, a, s in record.actions if dd == d and a[0] == "demand_hush" and a[1] == y]
            need(any(s.houses[y]["status"] == ENEMY for _a, s in demands), "hush refusal without a demand")
            need(record.pre_status[d][y] == ENEMY, "hush refusal of a house no longer an enemy")
        return
    h = audience
    if name == "spy_result":  # CROWN-R47: the spy, about its target, the PRE value
        need(record.did(d, h, "spy") and record.did(d, h, "spy")[0][0][1] == p["target"], "spy result unearned")
        need(p["point"] == "pre" and p["prestige"] == record.pre[d][p["target"]], "spy value")
    elif name in ("spy_refund", "spy_sent"):
        need(any(a[1] == p["target"] for a, _s in record.did(d, h, "spy")), f"{name} unearned")
    elif name == "feast_value":  # CROWN-R42: the holder, its own value, at the point it chose
        feasts = record.did(d, h, "feast")
        need(feasts and feasts[0][0][1] == "a" and feasts[0][0][2] == p["point"], "feast value unearned")
        need(p["prestige"] == (record.pre if p["point"] == "pre" else record.post)[d][h], "feast value")
    elif name == "banquet_value":  # CROWN-R45: the ruler, its own value
        banquets = record.did(d, h, "banquet")
        need(banquets and banquets[0][0][1] == p["point"], "banquet value unearned")
        need(p["prestige"] == (record.pre if p["point"] == "pre" else record.post)[d][h], "banquet value")
    elif name == "conspiracy_offer":  # CROWN-R55: the target, without the proposer's name
        need(any(a[1] == h for dd, _x, a, _s in record.actions if dd == d and a[0] == "propose_conspiracy"),
             "conspiracy offer without a proposal")
    elif name == "conspiracy_accepted":  # CROWN-R56, A39: only the accepted pair learn each other
        partner = p["partner"]
        mine = [a for a, _s in record.did(d, h, "answer_conspiracy") if a[2]]
        theirs = [a for a, _s in record.did(d, partner, "answer_conspiracy") if a[2]]
        need(any(conspiracy_partner(record, d, h, a[1]) == partner for a in mine)
             or any(conspiracy_partner(record, d, partner, a[1]) == h for a in theirs), "conspiracy pair unearned")
    elif name == "conspiracy_rejected":
        need(any(a[1] == p["target"] for a, _s in record.did(d, h, "propose_conspiracy")), "rejection unearned")
    elif name == "hush_demand":  # CROWN-R63, R66: only an enemy target is told, with the demander's name
        x = p["demander"]
        need(any(a[1] == h and s.houses[h]["status"] == ENEMY for a, s in record.did(d, x, "demand_hush")),
             "hush demand told to a house that was not an enemy target")
    elif name == "hush_collected":
        need(any(a[1] == h and a[2] for a, _s in record.did(d, p["payer"], "answer_hush")), "payment unearned")
    elif name == "hush_paid":
        need(any(a[1] == p["demander"] and a[2] for a, _s in record.did(d, h, "answer_hush")), "payment unearned")
    elif name == "veto_refused":  # CROWN-A10: only the ruler who tried
        need(record.did(d, h, "veto"), "veto refusal unearned")
    elif name in ("defected", "stayed_loyal"):
        need(record.did(d, h, "react"), "reaction unearned")


def check_view(game: CrownGame, state, audience: int | None, record: Record) -> None:
    """Assert the view of ``audience`` (None: the TV) holds only what it may know."""
    view = game.view(state, audience)
    need(set(view) == (PUBLIC_FIELDS if audience is None else HOUSE_FIELDS), f"fields {sorted(view)}")
    for house in view["houses"]:
        need(set(house) == HOUSE_ENTRY, f"house fields {sorted(house)}")
    if view["council"] is not None:
        need(set(view["council"]) == COUNCIL_FIELDS, f"council fields {sorted(view['council'])}")
        for v in view["council"]["votes"]:
            need(set(v) == {"voter", "choice", "forced_by"}, "vote fields")  # CROWN-A29: no weights, no tallies
    for a in view["attacks"]:
        need(set(a) == {"attacker", "target", "forced_by"}, "attack fields")
    for e in view["feed"]:
        check_entry(e, audience, record, private=False)
    if view["ruler"] is not None:  # CROWN-R75: computable from the last announcement and the schedule
        start_day = state.rulers[-1][1]
        announced = [e for e in state.feed if e["key"] in ("crown.log.crowns_announced",) and e["day"] <= start_day]
        base = announced[-1]["params"]["crowns"][view["ruler"]]
        need(view["ruler_crowns"] == base + sum(crowns_for_reign_day(n) for n in range(1, view["reign_day"] + 1)),
             "ruler crowns not computable from public information")
    # prestige may sit only under the disclosure entries (CROWN-R14, D5)
    allowed = ("chronicle[", "disclosures[", "today_log.secret[", "overnight.secret[")  # its own chronicle, read again
    for path in find_keys(view):
        if path.endswith(".prestige"):
            need(audience is not None and path.lstrip(".").startswith(allowed), f"prestige at {path}")
        own_status = audience is not None and (path == ".status" or (path.startswith((".chronicle[", ".today_log.secret[",
                                                                                     ".overnight.secret["))
                                                                     and path.endswith(".params.status")))
        need(not path.endswith((".weights", ".weight", ".totals", ".tally", ".rng_state", ".status")) or own_status,
             f"secret field {path}")
    if audience is None:
        return
    h = audience
    need(view["you"] == h and view["status"] == state.houses[h]["status"], "own status")
    for e in view["chronicle"]:
        check_entry(e, h, record, private=True)
    need(set(view["today_log"]) == {"public", "secret"}, "today fields")  # issue 15: the house's day, nothing more
    for e in view["today_log"]["public"]:
        check_entry(e, h, record, private=False)
        need(h in e["params"].values(), "a public entry of another house's day")
    for e in view["today_log"]["secret"]:
        check_entry(e, h, record, private=True)
    night = view["overnight"]  # issue [18]: the house's night, nothing more
    need(night is None or (set(night) == {"day", "public", "secret"} and night["day"] == state.day), "overnight fields")
    for e in night["public"] if night else []:
        check_entry(e, h, record, private=False)
        need(e["key"] in NIGHT_OUTCOMES or h in e["params"].values(), "a public entry of another house's night")
    for e in night["secret"] if night else []:
        check_entry(e, h, record, private=True)
        need(e in view["chronicle"], "a night entry that is not in the house's own chronicle")
    for d in view["disclosures"]:
        need(set(d) == {"house", "prestige", "day", "point", "source"}, "disclosure fields")
    for prompt in view["prompts"]:
        if prompt["kind"] == "conspiracy":
            need(set(prompt) == {"kind", "offer", "deadline_ms", "public"}, "conspiracy prompt names someone")
        if prompt["kind"] == "hush":
            x = prompt["demander"]
            need(any(a[1] == h and s.houses[h]["status"] == ENEMY for a, s in record.did(state.day, x, "demand_hush")),
                 "hush prompt to a house that was not an enemy target")
        if prompt["kind"] == "reaction":
            need(state.council["react"] and h in state.council["react"], "reaction prompt")
        need("deadline_ms" in prompt and prompt["deadline_ms"] == state.deadline_ms, "prompt deadline")


def checker(game: CrownGame, counter: dict[str, int]):
    def on_state(state, record):
        for audience in (None, 0, 1, 2, 3, 4):
            check_view(game, state, audience, record)
        counter["views"] += 6
    return on_state


def test_no_view_leaks_in_random_games():
    # CROWN-D5, CROWN-D3, CROWN-D4, M8: every view after every action and timeout
    counter = {"views": 0}
    kinds: set[str] = set()
    for seed in range(30):
        state, _log, _record = random_playout(seed, last_day=5, on_state=checker(CrownGame(), counter))
        kinds |= {e["key"] for c in state.chron for e in c}
    assert counter["views"] > 10_000
    for needed in ("spy_result", "feast_value", "banquet_value", "conspiracy_offer", "conspiracy_accepted",
                   "hush_demand", "hush_collected", "veto_refused", "defected", "alliance_status"):
        assert f"crown.log.{needed}" in kinds, needed  # the random games really exercised the secrets


def test_secret_actions_change_no_other_audience():
    # CROWN-M8: spying, conspiracies, hush money and veto reactions are seen by their parties only
    game = CrownGame()
    base = day("R L L E E")
    cases = [(1, "spy", {"target": 3}, {1}), (1, "spy", {"target": 0}, {1}),
             (1, "propose_conspiracy", {"target": 2}, {1, 2}), (1, "demand_hush", {"target": 2}, {1}),
             (1, "demand_hush", {"target": 3}, {1, 3})]
    for house, kind, fields, parties in cases:
        after = act(base, house, kind, **fields)
        for audience in [None] + [x for x in range(5) if x not in parties]:
            assert game.view(after, audience) == game.view(base, audience), (kind, fields, audience)
    offered = act(base, 3, "propose_conspiracy", target=4)
    accepted = act(offered, 4, "answer_conspiracy", offer=0, accept=True)
    for audience in (None, 0, 1, 2):
        assert game.view(accepted, audience) == game.view(offered, audience)


def test_views_ignore_hidden_values():
    # CROWN-R14: changing every house's current prestige and the other houses' statuses changes no other view
    # CROWN-A8: other houses' statuses are hidden from every house and from the TV
    game = CrownGame()
    state = act(act(day("R L L E E"), 1, "spy", target=3), 2, "feast", option="a", when="pre")
    judged = game.on_timeout(state, state.deadline_ms)
    houses = [dict(x) for x in judged.houses]
    for x in houses:
        x["prestige"] = 100 - x["prestige"]
    houses[4]["status"] = "loyal" if houses[4]["status"] == ENEMY else ENEMY
    other = type(judged)(**{**judged.__dict__, "houses": tuple(houses)})
    for audience in (None, 0, 1, 2, 3):
        assert game.view(other, audience) == game.view(judged, audience)


class LeakyPrestige(CrownGame):
    """A deliberately broken view: tells each house the others' prestige."""

    def view(self, state, seat):
        result = super().view(state, seat)
        if seat is not None:
            result["actions"] = result["actions"] + [{"kind": "hint", "prestige": state.houses[(seat + 1) % 5][
                "prestige"]}]
        return result


class LeakyProposer(CrownGame):
    """A deliberately broken view: names the conspiracy proposer to its target."""

    def view(self, state, seat):
        result = super().view(state, seat)
        for prompt in result.get("prompts", []):
            if prompt["kind"] == "conspiracy":
                offer = next(o for o in state.today["conspiracies"] if o["t"] == seat and o["n"] == prompt["offer"])
                prompt["proposer"] = offer["p"]
        return result


class LeakyStatus(CrownGame):
    """A deliberately broken TV view: shows the statuses."""

    def view(self, state, seat):
        result = super().view(state, seat)
        if seat is None:
            for i, house in enumerate(result["houses"]):
                house["status"] = state.houses[i]["status"]
        return result


@pytest.mark.parametrize("leaky", [LeakyPrestige, LeakyProposer, LeakyStatus])
def test_the_checker_catches_a_leaking_view(leaky):
    counter = {"views": 0}
    with pytest.raises(Leak):
        for seed in range(20):
            random_playout(seed, last_day=5, on_state=checker(leaky(), counter))
    assert RULER  # the honest game passes the same games (test_no_view_leaks_in_random_games)
