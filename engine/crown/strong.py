"""The strong bot level of Seizing the Crown: it reasons about threats from its own house's view (CROWN-D7).

``decide(view, rng)`` has the same contract as ``bots.decide``: it reads only ``CrownGame.view(state, house)``
(the house's status, crowns, debts, chronicle, the public feed, the council's public votes, the crowns announced
under CROWN-R75 and the ruler's crowns, always computable) and returns one payload among the view's own offers.

What it reasons about:

- **The ruler's clock.** The ruler's crowns and reign day are public (CROWN-R73, R75), so every house can count the
  day starts the ruler still needs to reach 10 (CROWN-R76). With one left, the throne must fall today: by war
  (three attackers, CROWN-R37) or by the council (CROWN-R17, R20). Houses bound to the ruler by a pact
  (CROWN-R52) cannot attack it, so a strong house never lets the ruler gather enough pacts to be safe from war.
- **Free riding on treason.** Attacking the ruler is treason (CROWN-R34) and costs the loyal crown streak
  (CROWN-R74); a strong house attacks only when the attacks already declared today are not enough, in an order
  every strong house computes alike, and otherwise keeps its streak. Voting to condemn the ruler costs nothing
  when the condemnation succeeds (the R21 flip is dropped with the reign, CROWN-A3, A21), so it does so when the
  throne must fall.
- **Power councils.** The crowns are announced before each one (CROWN-R75): it elects the candidate furthest from
  10 crowns (never one that would win at once), prefers the likely winner among those (the new ruler owes it a
  debt, CROWN-R27), and spends its debts to move debtors' votes to itself (CROWN-R70).
- **As ruler** it gathers pacts (alliances, CROWN-R52/R53: two pacts and war cannot depose it), aids a friendly
  house (CROWN-R59), holds banquets when untouched (CROWN-R45), calls in debts for prestige to afford a veto,
  votes last in the council of judgment to split the votes against it, and vetoes its own condemnation (CROWN-R60).
- **No wasted acts**: feasts (b) when its front is large, alliances only with houses not known as enemies, attacks
  only on known enemies (CROWN-R31) or on the ruler when it must fall; it never spies on the ruler while loyal
  (CROWN-R48) and never takes hush money while loyal unless it turns enemy that day anyway (CROWN-R65).
"""

from __future__ import annotations

from typing import Any

from engine.core import Rng
from engine.crown.bots import Knowledge
from engine.crown.bots import decide as simple_decide
from engine.crown.game import view_payloads
from engine.crown.rules import HOUSES, WIN_CROWNS, crowns_for_reign_day

NEEDED_ON_RULER = 3  # CROWN-R37: three attackers depose the ruler


def days_to_win(crowns: int, reign_day: int) -> int:
    """How many more day starts a ruler with these crowns on this reign day needs to reach 10 (CROWN-R73, R76);
    0 when it already has them (a candidate installed with 10 wins at once, CROWN-A7)."""
    days = 0
    while crowns < WIN_CROWNS:
        reign_day += 1
        crowns += crowns_for_reign_day(reign_day)
        days += 1
    return days


class Picture:
    """What the house sees of the game: the ruler's clock, pacts, today's attacks, crowns and votes."""

    def __init__(self, view: dict[str, Any]):
        self.view = view
        self.know = Knowledge(view)
        self.me = view["you"]
        self.ruler = view["ruler"]
        self.status = view["status"]
        self.day = view["day"]
        self.pacts = {tuple(p) for p in view["pacts"]}
        self.attacks = view["attacks"]
        self.all_bots = all(h["bot"] for h in view["houses"])
        self.done = [h["done"] for h in view["houses"]]
        self.clock = days_to_win(view["ruler_crowns"], view["reign_day"]) if self.ruler is not None else 99
        announced = view.get("crowns_announced") or {"day": 0, "crowns": [0] * HOUSES}
        since = max(0, self.day - announced["day"])
        # other houses' crowns: the last announcement plus at most one loyal crown a day since (CROWN-R74, R75)
        self.crowns = [c + since for c in announced["crowns"]]
        self.crowns[self.me] = view["crowns"]
        if self.ruler is not None:
            self.crowns[self.ruler] = view["ruler_crowns"]
        self.enemies = set(self.know.enemies)
        for e in self.attacks:  # today's attackers of the ruler are enemies now (CROWN-R34)
            if e["target"] == self.ruler:
                self.enemies.add(e["attacker"])
        self.enemies.discard(self.me)
        self.enemies.discard(self.ruler)
        # prestige as last disclosed to this house (CROWN-D4), else the starting 50
        self.prestige = [50] * HOUSES
        for d in view["disclosures"]:
            self.prestige[d["house"]] = d["prestige"]

    def pact(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self.pacts

    def free_attackers(self) -> list[int]:
        """The houses that may attack the ruler (no pact with it, CROWN-R52)."""
        return [x for x in range(HOUSES) if x != self.ruler and not self.pact(x, self.ruler)]

    def on_ruler(self) -> list[int]:
        return [a["attacker"] for a in self.attacks if a["target"] == self.ruler]

    def order_key(self, x: int) -> tuple[int, int]:
        """The order in which strong houses volunteer for treason: known enemies first (it costs them nothing),
        then a rotation by day, the same for every house."""
        return (0 if x in self.enemies else 1, (x - self.day) % HOUSES)


def decide(view: dict[str, Any], rng: Rng) -> dict[str, Any] | None:
    """The strong bot's next payload for this house view (one of its offers), or None when it waits."""
    offers = view_payloads(view)
    if not offers:
        return None
    pic = Picture(view)
    choice = _decide(pic, offers, rng)
    if choice is not None and choice not in offers:  # never anything but an offer (CROWN-D7)
        choice = simple_decide(view, rng)
    return choice


def _decide(pic: Picture, offers: list[dict[str, Any]], rng: Rng) -> dict[str, Any] | None:
    view = pic.view
    for prompt in view["prompts"]:
        if prompt["kind"] == "vote":
            continue
        answer = _answer(pic, prompt, rng)
        if answer is not None:
            return answer
    if view["phase"] == "day":
        return _day(pic, offers, rng)
    vote = next((p for p in view["prompts"] if p["kind"] == "vote"), None)
    council = view["council"]
    if council is not None and council["kind"] in ("transfer", "initial"):
        forced = _force_votes_for_me(pic, offers)
        if forced is not None:
            return forced
    if council is not None and council["kind"] == "judgment" and pic.clock <= 1:
        debt_votes = [o for o in offers if o["kind"] == "debt_vote" and o["choice"] == pic.ruler]
        if debt_votes:
            return debt_votes[0]
    take = _take_from_ruler(pic, offers)
    if take is not None:
        return take
    if vote is not None:
        return _vote(pic, vote, rng)
    return None


# ----- prompts -----

def _answer(pic: Picture, prompt: dict[str, Any], rng: Rng) -> dict[str, Any] | None:
    kind, me = prompt["kind"], pic.me
    if kind == "alliance":
        p = prompt["proposer"]
        return {"kind": "answer_alliance", "proposer": p, "accept": _accept_alliance(pic, p)}
    if kind == "conspiracy":  # both become enemies (CROWN-R56): free when already an enemy
        return {"kind": "answer_conspiracy", "offer": prompt["offer"], "accept": pic.status == "enemy"}
    if kind == "hush":  # paying hands the demander a debt on us (CROWN-R65); refusing only exposes us (R64)
        return {"kind": "answer_hush", "demander": prompt["demander"], "pay": False}
    if kind == "reaction":  # defecting costs the crown streak (CROWN-R61, R74)
        return {"kind": "react", "defect": False}
    if kind == "veto":
        if not prompt["refused"] and prompt["condemned"] == me and prompt["replacements"]:
            return {"kind": "veto", "replacement": _worst(pic, prompt["replacements"], rng)}
        return {"kind": "pass"}
    return None


def _accept_alliance(pic: Picture, p: int) -> bool:
    if pic.status == "ruler":
        return True  # a pact is one attacker fewer (CROWN-R37, R52); an enemy proposer turns loyal (A18)
    if p == pic.ruler:
        # a pact shields the ruler from our attack: accept only while the others can still depose it by war
        others = [x for x in pic.free_attackers() if x != pic.me]
        if pic.status == "enemy":  # becoming loyal again (CROWN-R53, A18) restarts the crown streak
            return len(others) >= NEEDED_ON_RULER or pic.clock >= 3
        return len(others) >= NEEDED_ON_RULER and pic.clock >= 2
    if pic.status == "enemy":
        return p not in pic.enemies  # a loyal proposer brings us back to loyalty (CROWN-R53)
    return p not in pic.enemies and pic.clock >= 2  # same front: +5 each (CROWN-R52)


def _worst(pic: Picture, houses: list[int], rng: Rng) -> int:
    """The house to condemn: a known enemy (CROWN-R19 pays the loyal side), else the one closest to winning."""
    enemies = [x for x in houses if x in pic.enemies]
    pool = enemies or houses
    top = max(pic.crowns[x] for x in pool)
    return rng.choice([x for x in pool if pic.crowns[x] == top])


# ----- councils -----

def _force_votes_for_me(pic: Picture, offers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """In a power council, move each debtor's vote to us (CROWN-R70, A37) before the votes are all in."""
    mine = [o for o in offers if o["kind"] == "debt_vote" and o["choice"] == pic.me]
    return mine[0] if mine else None


def _take_from_ruler(pic: Picture, offers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Take 10 prestige from a ruling debtor (CROWN-R69: its only way to repay), so it cannot afford a veto."""
    takes = [o for o in offers if o["kind"] == "debt_take" and o["debtor"] == pic.ruler]
    if takes and pic.ruler != pic.me:
        return takes[0]
    return None


def _vote(pic: Picture, prompt: dict[str, Any], rng: Rng) -> dict[str, Any] | None:
    choices = [c for c in prompt["choices"] if c is not None]
    council = pic.view["council"]
    if not choices:
        return {"kind": "vote", "choice": None}
    if prompt["council"] == "judgment":
        return _judgment_vote(pic, choices, council, rng)
    return {"kind": "vote", "choice": _power_vote(pic, choices, council, rng)}


def _tally(pic: Picture, council: dict[str, Any]) -> dict[int, int]:
    """The votes cast so far, weighted by the prestige we last saw (CROWN-R16: one vote per 10)."""
    totals: dict[int, int] = {}
    for v in council["votes"]:
        if v["choice"] is not None:
            totals[v["choice"]] = totals.get(v["choice"], 0) + max(1, pic.prestige[v["voter"]] // 10)
    return totals


def _judgment_vote(pic: Picture, choices: list[int], council: dict[str, Any], rng: Rng) -> dict[str, Any] | None:
    me, ruler = pic.me, pic.ruler
    if me == ruler:
        cast = {v["voter"] for v in council["votes"]}
        waiting = [v for v in council["voters"] if v != me and v not in cast]
        if waiting:
            return None  # the ruler votes last, when it sees every choice (CROWN-A29)
        totals = _tally(pic, council)
        against = totals.get(me, 0)
        others = {c: t for c, t in totals.items() if c != me and c in choices}
        if against and others:  # split: a tie condemns nobody and pays the ruler 10 (CROWN-A30, R22)
            return {"kind": "vote", "choice": max(others, key=lambda c: (others[c], -c))}
        if against:
            return {"kind": "vote", "choice": _worst(pic, choices, rng)}
        return {"kind": "vote", "choice": None}  # nobody condemned: +10 to the ruler (CROWN-R22)
    must_fall = ruler is not None and ruler in choices and (
        pic.clock <= 1 or (pic.clock <= 2 and len(pic.free_attackers()) < NEEDED_ON_RULER))
    if must_fall or (ruler in choices and pic.status == "enemy" and pic.clock <= 2):
        return {"kind": "vote", "choice": ruler}
    enemies = [c for c in choices if c in pic.enemies and c != ruler]
    if enemies and pic.status in ("loyal", "ruler"):  # an enemy condemned pays the loyal side (CROWN-R19)
        return {"kind": "vote", "choice": _worst(pic, enemies, rng)}
    return {"kind": "vote", "choice": None}


def _power_vote(pic: Picture, choices: list[int], council: dict[str, Any], rng: Rng) -> int | None:
    """Elect the candidate furthest from winning; among those, the likeliest winner (it will owe us, CROWN-R27)."""
    crowns = (pic.view.get("crowns_announced") or {}).get("crowns") or [0] * HOUSES
    clocks = {c: days_to_win(crowns[c], 0) for c in choices}
    best = max(clocks.values())
    if best <= 1:  # everyone would win at once: the house that owes us most, else anyone
        pool = choices
    else:
        pool = [c for c in choices if clocks[c] >= min(best, 3)]
    totals = _tally(pic, council)
    if pic.me in council["candidates"] and min(clocks.values()) >= 2:
        # a vote for a rival can only beat us; abstaining leaves ties, which the most prestigious house wins in the
        # end (CROWN-A31), and our weight is our own prestige
        return None
    owes = {d["house"]: d["count"] for d in pic.view["debts"]["you_owe"]}
    luck = {c: rng.randbelow(1000) for c in pool}  # no seat is favoured among equals
    return max(pool, key=lambda c: (clocks[c], totals.get(c, 0), -owes.get(c, 0), luck[c]))


# ----- the day -----

def _day(pic: Picture, offers: list[dict[str, Any]], rng: Rng) -> dict[str, Any] | None:
    view = pic.view
    me, status = pic.me, pic.status
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for o in offers:
        by_kind.setdefault(o["kind"], []).append(o)
    used = set(view["used"])
    if "aid" in by_kind:  # the ruler's duty (CROWN-R59): a friend that is far from the throne
        targets = [o["target"] for o in by_kind["aid"]]
        friends = [t for t in targets if t not in pic.enemies] or targets
        partners = [t for t in friends if pic.pact(t, me)]
        pool = partners or friends
        low = min(pic.crowns[t] for t in pool)
        return {"kind": "aid", "target": rng.choice([t for t in pool if pic.crowns[t] == low])}
    take = _take_from_ruler(pic, offers)
    if take is not None:
        return take
    if status == "ruler":
        return _ruler_day(pic, by_kind, used, rng)
    attack = _attack_ruler(pic, by_kind)
    if isinstance(attack, dict):  # an attack to make now (else None, or "wait" for others to attack first)
        return attack
    return _optional(pic, by_kind, used, rng, finish=attack != "wait")


def _attack_ruler(pic: Picture, by_kind: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | str | None:
    """When the ruler would win at the next day start, make sure three houses attack it (CROWN-R37)."""
    ruler, me = pic.ruler, pic.me
    if ruler is None or pic.clock > 1:
        return None
    free = pic.free_attackers()
    if len(free) < NEEDED_ON_RULER:
        return None  # war cannot depose it: the council must (see _judgment_vote)
    on = pic.on_ruler()
    missing = NEEDED_ON_RULER - len(on)
    if missing <= 0:
        return None
    forced = [o for o in by_kind.get("debt_attack", []) if o["target"] == ruler]
    if forced:  # a debtor's attack counts as much as ours, and it bears the treason (CROWN-R68, A35)
        return forced[0]
    can = "attack" in by_kind and any(o["target"] == ruler for o in by_kind["attack"])
    if not can:
        return None
    if pic.status == "enemy" or not pic.all_bots:
        return {"kind": "attack", "target": ruler}  # an enemy loses nothing; with people, no waiting
    # houses that may still attack the ruler today, in the order every strong house computes
    undecided = [x for x in free if x not in on and not pic.done[x]]
    if me not in undecided:
        undecided.append(me)
    undecided.sort(key=pic.order_key)
    if me in undecided[:missing]:
        hush = by_kind.get("demand_hush", [])
        known = [o for o in hush if o["target"] in pic.enemies]
        if known:  # treason anyway: collect hush money first (CROWN-R62, R65)
            return known[0]
        return {"kind": "attack", "target": ruler}
    return "wait"


def _ruler_day(pic: Picture, by_kind: dict[str, list[dict[str, Any]]], used: set[str], rng: Rng
               ) -> dict[str, Any] | None:
    me = pic.me
    takes = by_kind.get("debt_take", [])
    if takes:  # prestige for a veto (CROWN-R69, A10)
        return takes[0]
    if "propose_alliance" in by_kind:  # pacts: two and war cannot depose us (CROWN-R37, R52)
        targets = [o["target"] for o in by_kind["propose_alliance"] if not pic.pact(o["target"], me)]
        loyal = [t for t in targets if t not in pic.enemies and t not in pic.on_ruler()]
        pool = loyal or targets
        if pool:
            low = min(pic.crowns[t] for t in pool)
            return {"kind": "propose_alliance", "target": rng.choice([t for t in pool if pic.crowns[t] == low])}
    if "banquet" in by_kind:
        touched = any(a["attacker"] == me or a["target"] == me for a in pic.attacks)
        if not touched:  # CROWN-R45, A16: void if attacked today; "pre" so the prestige counts for a veto
            return {"kind": "banquet", "when": "pre"}
    return {"kind": "done"} if "done" in by_kind else None


def _optional(pic: Picture, by_kind: dict[str, list[dict[str, Any]]], used: set[str], rng: Rng,
              finish: bool = True) -> dict[str, Any] | None:
    """One useful act at a time, then "done" (not while waiting to see whether the ruler must be attacked)."""
    me, ruler, status = pic.me, pic.ruler, pic.status
    view = pic.view
    if "feast" in by_kind:  # (b) +5 per same-front non-ruler house at POST (CROWN-R43, A17), cost 5
        front = [x for x in range(HOUSES) if x not in (me, ruler)
                 and ((x in pic.enemies) == (status == "enemy"))]
        if len(front) >= 2 or status == "enemy":
            return {"kind": "feast", "option": "b", "when": "post"}
    if status == "enemy":
        attack = _enemy_attack(pic, by_kind)
        if attack is not None:
            return attack
        if "spy" in by_kind and ruler is not None and any(o["target"] == ruler for o in by_kind["spy"]):
            return {"kind": "spy", "target": ruler}  # the ruler usually ranks first: +10 back (CROWN-R49)
        if "propose_conspiracy" in by_kind:  # partners vote for each other in power councils
            targets = [o["target"] for o in by_kind["propose_conspiracy"] if o["target"] in pic.enemies]
            if targets:
                return {"kind": "propose_conspiracy", "target": rng.choice(targets)}
        if ruler is not None and pic.clock >= 3 and any(o["target"] == ruler
                                                        for o in by_kind.get("propose_alliance", [])):
            return {"kind": "propose_alliance", "target": ruler}  # back to loyalty (CROWN-R53, A18)
    else:
        if "attack" in by_kind and pic.clock >= 2:
            known = [o["target"] for o in by_kind["attack"] if o["target"] in pic.enemies]
            if known:  # a loyal house attacking an enemy gains 5 (CROWN-R31)
                return {"kind": "attack", "target": _worst(pic, known, rng)}
        if "propose_alliance" in by_kind:
            targets = [o["target"] for o in by_kind["propose_alliance"]
                       if o["target"] != ruler and o["target"] not in pic.enemies and not pic.pact(o["target"], me)]
            if targets:  # same front: +5 each (CROWN-R52)
                return {"kind": "propose_alliance", "target": rng.choice(targets)}
    takes = [o for o in by_kind.get("debt_take", []) if _debts_to(view, o["debtor"]) > 1]
    if takes:  # keep one debt per debtor for a power council (CROWN-R70); the rest as prestige (R69)
        return takes[0]
    return {"kind": "done"} if finish and "done" in by_kind and not view["done"] else None


def _enemy_attack(pic: Picture, by_kind: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """An enemy joins an attack on the ruler when it pays (CROWN-R35, R36) or helps depose it (R37)."""
    ruler = pic.ruler
    if ruler is None or "attack" not in by_kind or not any(o["target"] == ruler for o in by_kind["attack"]):
        return None
    on = pic.on_ruler()
    if len(on) in (1, 2) or pic.clock <= 2:
        return {"kind": "attack", "target": ruler}
    return None


def _debts_to(view: dict[str, Any], debtor: int) -> int:
    return next((d["count"] for d in view["debts"]["owed_to_you"] if d["house"] == debtor), 0)
