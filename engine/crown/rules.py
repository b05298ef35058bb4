"""Pure rule functions of Seizing the Crown (docs/rules/crown.md): fronts, the attack table (M4), ranks and the
crown schedule. No state here: the game module calls these with plain values, and the tests call them directly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

LOYAL, ENEMY, RULER = "loyal", "enemy", "ruler"
HOUSES = 5
PRESTIGE_START, PRESTIGE_MIN, PRESTIGE_MAX = 50, 0, 100  # CROWN-R13
WIN_CROWNS = 10  # CROWN-R76
VETO_COST = 20  # CROWN-R60, A10


def same_front(a: str, b: str) -> bool:
    """Two loyal houses, a loyal house and the ruler, or two enemies (CROWN-R11)."""
    return (a == LOYAL and b in (LOYAL, RULER)) or (a == RULER and b == LOYAL) or (a == ENEMY and b == ENEMY)


def crowns_for_reign_day(n: int) -> int:
    """The ruler's crowns on day n of its reign: 1, 2, 4, then 6 (CROWN-R73, M1)."""
    return (1, 2, 4)[n - 1] if 1 <= n <= 3 else 6


def clamp(value: int) -> int:
    """Prestige stays within 0..100 (CROWN-R13, A10)."""
    return max(PRESTIGE_MIN, min(PRESTIGE_MAX, value))


def ranks(prestige: Sequence[int]) -> list[int]:
    """Competition ranks over all houses, ties sharing a rank (CROWN-A11)."""
    return [1 + sum(1 for q in prestige if q > p) for p in prestige]


def resolve_attacks(attacks: Sequence[dict[str, Any]], ruler: int | None) -> tuple[list[int], bool, list[dict[str, Any]]]:
    """The prestige deltas of one day's attacks (CROWN-M4), whether the ruler is deposed by war (CROWN-R37), and
    one note per attack with its attacker delta ``g`` before debt redirection.

    Each attack is ``{"a": attacker, "t": target, "sa": attacker status, "st": target status, "forced_by": creditor
    or None}``, statuses as they were at declaration (CROWN-A24)."""
    deltas = [0] * HOUSES
    deposed = False
    by_target: dict[int, list[dict[str, Any]]] = {}
    for atk in attacks:
        by_target.setdefault(atk["t"], []).append(atk)
    gains: dict[int, int] = {}  # index in ``attacks`` -> the attacker's delta G
    index = {id(atk): i for i, atk in enumerate(attacks)}
    for t, atks in by_target.items():
        n = len(atks)
        ruler_attacks_t = ruler is not None and any(x["a"] == ruler for x in atks)
        for atk in atks:
            i = index[id(atk)]
            sa, st = atk["sa"], atk["st"]
            if sa == RULER and st == LOYAL:  # CROWN-R38 (row 10)
                g, d = -10, -10
            elif same_front(sa, st):  # CROWN-R30 (rows 1, 2, 5: a loyal attacker of the ruler scores as same-front)
                g, d = -5, -5
            else:  # CROWN-R31 (rows 3, 4, 6-8, 11)
                g, d = 5, -5
            if sa == RULER and st == ENEMY and n == 1:  # CROWN-R39, A26 (row 11a): -10 replaces the +5
                g = -10
            gains[i] = g
            deltas[t] += d
        if t == ruler:
            if n == 1 and atks[0]["sa"] == ENEMY:  # CROWN-R35, A25 (row 6)
                deltas[t] += 5
            if n == 2 and all(x["sa"] == ENEMY for x in atks):  # CROWN-R36, A25 (row 7)
                for atk in atks:
                    gains[index[id(atk)]] += 5
            if n >= 3:  # CROWN-R37, A25 (row 9)
                deposed = True
        enemies_on_loyal = sum(1 for x in atks if x["sa"] == ENEMY and x["st"] == LOYAL)
        if ruler is not None and enemies_on_loyal in (2, 3):  # CROWN-R32, A27: once per target
            deltas[ruler] -= 10
        loyal_on_enemy = sum(1 for x in atks if x["sa"] == LOYAL and x["st"] == ENEMY)
        if ruler is not None and ruler_attacks_t and loyal_on_enemy in (2, 3) and \
                any(x["a"] == ruler and x["st"] == ENEMY for x in atks):  # CROWN-R33, A27 (row 11c)
            deltas[ruler] += 10
    notes = []
    for i, atk in enumerate(attacks):
        g = gains[i]
        creditor = atk.get("forced_by")
        if creditor is not None and g > 0:  # CROWN-R68, A35: the creditor gets double, the debtor nothing
            deltas[creditor] += 2 * g
        else:
            deltas[atk["a"]] += g
        notes.append({"a": atk["a"], "t": atk["t"], "g": g})
    return deltas, deposed, notes
