"""Bots for Seizing the Crown (CROWN-D7): a simple policy that decides from its house's view alone.

``decide(view, rng)`` reads only what ``CrownGame.view(state, house)`` shows that house (its status, chronicle,
disclosures, the public feed, its prompts and actions) and returns one payload among the view's own offers, so a
bot never takes an illegal action and never peeks at hidden state. The policy: answer prompts first; the ruler aids
a house it does not know as an enemy; otherwise, one optional act at a time (spy, feast, banquet, alliances,
conspiracies among enemies, hush money on known enemies, calling in debts, attacks when they pay: enemies pile onto
a ruler already under attack, loyal houses and the ruler hit known enemies), then "done". In councils enemies
condemn the ruler, loyal houses condemn known enemies, and power goes to a house with few crowns.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.core import Rng
from engine.crown.game import view_payloads
from engine.crown.rules import WIN_CROWNS, crowns_for_reign_day

DONE_CHANCE = 0.3

T = TypeVar("T")


def chance(rng: Rng, p: float) -> bool:
    """True with probability p."""
    return rng.randbelow(10_000) < int(p * 10_000)


def weighted(rng: Rng, options: list[tuple[float, T]]) -> T | None:
    """One option drawn by weight (None when there is none)."""
    options = [(w, o) for w, o in options if w > 0]
    if not options:
        return None
    total = sum(int(w * 1000) for w, _ in options)
    pick = rng.randbelow(max(1, total))
    for w, o in options:
        pick -= int(w * 1000)
        if pick < 0:
            return o
    return options[-1][1]


class Knowledge:
    """What a house can tell from its view: known enemies of this reign, its conspiracy partners."""

    def __init__(self, view: dict[str, Any]):
        self.me = view["you"]
        self.ruler = view["ruler"]
        feed = view["feed"]
        start = max((i for i, e in enumerate(feed) if e["key"] == "crown.log.new_ruler"), default=-1)
        reign = feed[start + 1:]
        enemies: set[int] = set()
        for e in reign:
            p = e["params"]
            if e["key"] == "crown.log.hush_refusal":
                enemies.add(p["house"])
            elif e["key"] in ("crown.log.attack", "crown.log.attack_forced") and p["target"] == self.ruler:
                enemies.add(p["attacker"])
            elif e["key"] in ("crown.log.vote", "crown.log.debt_vote") and p["choice"] == self.ruler \
                    and self.ruler is not None:
                enemies.add(p.get("voter", p.get("debtor")))
        since = view["rulers"][-1]["day"] if view["rulers"] else -1
        self.partners = {e["params"]["partner"] for e in view["chronicle"]
                         if e["key"] == "crown.log.conspiracy_accepted" and e["day"] > since}
        enemies |= self.partners if view["status"] == "enemy" else set()
        enemies.discard(self.me)
        enemies.discard(self.ruler)
        self.enemies = enemies
        self.crowns = (view.get("crowns_announced") or {}).get("crowns") or [0] * 5
        # the ruler's crowns are public (CROWN-R75): how close it is to winning at the next day start
        self.threat = 0
        if self.ruler is not None and self.ruler != self.me:
            soon = view["ruler_crowns"] + crowns_for_reign_day(view["reign_day"] + 1)
            self.threat = 2 if soon >= WIN_CROWNS else 1 if soon + 6 >= WIN_CROWNS else 0


def decide(view: dict[str, Any], rng: Rng) -> dict[str, Any] | None:
    """The bot's next payload for this house view, or None when it has nothing to do now."""
    offers = view_payloads(view)
    if not offers:
        return None
    know = Knowledge(view)
    for prompt in view["prompts"]:
        answer = _answer(prompt, view, know, rng)
        if answer is not None:
            return answer
    if view["phase"] == "day":
        return _day(view, know, rng, offers)
    if any(o["kind"] == "debt_take" for o in offers) and chance(rng, 0.25):
        return rng.choice([o for o in offers if o["kind"] == "debt_take"])
    return None


def _answer(prompt: dict[str, Any], view: dict[str, Any], know: Knowledge, rng: Rng) -> dict[str, Any] | None:
    status, me, ruler = view["status"], view["you"], view["ruler"]
    kind = prompt["kind"]
    if kind == "alliance":
        p = prompt["proposer"]
        if status == "enemy":
            odds = 0.9 if p == ruler else 0.6 if p in know.enemies else 0.4
        else:
            odds = 0.3 if p in know.enemies else 0.75
        return {"kind": "answer_alliance", "proposer": p, "accept": chance(rng, odds)}
    if kind == "conspiracy":
        return {"kind": "answer_conspiracy", "offer": prompt["offer"],
                "accept": chance(rng, 0.8 if status == "enemy" else 0.15)}
    if kind == "hush":
        return {"kind": "answer_hush", "demander": prompt["demander"], "pay": chance(rng, 0.5)}
    if kind == "reaction":
        return {"kind": "react", "defect": chance(rng, 0.15)}
    if kind == "veto":
        if not prompt["refused"] and prompt["condemned"] == me and prompt["replacements"] and chance(rng, 0.9):
            known = [r for r in prompt["replacements"] if r in know.enemies]
            return {"kind": "veto", "replacement": rng.choice(known or prompt["replacements"])}
        return {"kind": "pass"}
    if kind == "vote":
        return {"kind": "vote", "choice": _vote(prompt, view, know, rng)}
    return None


def _vote(prompt: dict[str, Any], view: dict[str, Any], know: Knowledge, rng: Rng) -> int | None:
    choices: list[int] = [c for c in prompt["choices"] if c is not None]
    if not choices:
        return None
    ruler: int | None = view["ruler"]
    status: str = view["status"]
    if prompt["council"] == "judgment":
        if ruler in choices and chance(rng, 0.8 if status == "enemy" else (0, 0.35, 0.9)[know.threat]):
            return ruler
        known = [c for c in choices if c in know.enemies and c != ruler]
        if known and chance(rng, 0.75):
            return rng.choice(known)
        return None
    # a power council: partners first, else a house with few crowns (so nobody wins at once)
    partners = [c for c in choices if c in know.partners]
    if partners and chance(rng, 0.6):
        return rng.choice(partners)
    return weighted(rng, [(1 + max(0, 9 - know.crowns[c]), c) for c in choices])


def _day(view: dict[str, Any], know: Knowledge, rng: Rng, offers: list[dict[str, Any]]) -> dict[str, Any] | None:
    me, ruler, status = view["you"], view["ruler"], view["status"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for o in offers:
        by_kind.setdefault(o["kind"], []).append(o)
    if view["done"]:
        return None
    if "aid" in by_kind:  # the ruler's duty (CROWN-R59)
        friendly = [o for o in by_kind["aid"] if o["target"] not in know.enemies]
        return rng.choice(friendly or by_kind["aid"])
    attacks_today = view["attacks"]
    targets = [o["target"] for o in by_kind.get("attack", [])]
    if know.threat == 2 and ruler in targets and chance(rng, 0.85):  # stop a ruler about to win
        return {"kind": "attack", "target": ruler}
    if chance(rng, DONE_CHANCE) and "done" in by_kind:
        return {"kind": "done"}
    options: list[tuple[float, dict[str, Any]]] = []
    if targets:
        if ruler in targets and (status == "enemy" or know.threat):
            on_ruler = sum(1 for a in attacks_today if a["target"] == ruler)
            base = 1.0 if status == "enemy" else 0.5
            options.append((base * (0.5, 1.5, 5.0)[min(on_ruler, 2)], {"kind": "attack", "target": ruler}))
        known = [t for t in targets if t in know.enemies]
        if known and status in ("loyal", "ruler"):
            t = rng.choice(known)
            piled = sum(1 for a in attacks_today if a["target"] == t)
            options.append((0.4 + 0.6 * min(piled, 2), {"kind": "attack", "target": t}))
    if "banquet" in by_kind:
        touched = any(a["attacker"] == me or a["target"] == me for a in attacks_today)
        options.append((0.3 if touched else 3.0, rng.choice(by_kind["banquet"])))
    if "feast" in by_kind:
        recent = [d for d in view["disclosures"] if d["house"] == me and d["day"] >= view["day"] - 2]
        option = "b" if recent else "a"
        options.append((1.0, {"kind": "feast", "option": option, "when": rng.choice(["pre", "post"])}))
    if "spy" in by_kind:
        targets = [o["target"] for o in by_kind["spy"] if status != "loyal" or o["target"] != ruler]
        if targets:
            options.append((0.8, {"kind": "spy", "target": rng.choice(targets)}))
    if "propose_alliance" in by_kind:
        targets = [o["target"] for o in by_kind["propose_alliance"]]
        if status == "enemy" and ruler in targets:
            options.append((0.6, {"kind": "propose_alliance", "target": ruler}))
        else:
            options.append((0.4, {"kind": "propose_alliance", "target": rng.choice(targets)}))
    if "propose_conspiracy" in by_kind:
        targets = [o["target"] for o in by_kind["propose_conspiracy"]]
        options.append((1.0 if status == "enemy" else 0.1,
                        {"kind": "propose_conspiracy", "target": rng.choice(targets)}))
    if "demand_hush" in by_kind:
        known = [o["target"] for o in by_kind["demand_hush"] if o["target"] in know.enemies]
        if known:
            options.append((0.6, {"kind": "demand_hush", "target": rng.choice(known)}))
    if "debt_take" in by_kind:
        options.append((1.5, rng.choice(by_kind["debt_take"])))
    if "debt_attack" in by_kind:
        options.append((0.3, rng.choice(by_kind["debt_attack"])))
    choice = weighted(rng, options)
    if choice is not None:
        return choice
    return {"kind": "done"} if "done" in by_kind else None
