"""Compact Seizing the Crown positions: a day in progress, built directly.

``day("R L L E E", prestige=[60, 50, 50, 40, 30])`` is day 3 (the ruler's second day of reign) with house 0 ruling,
houses 1 and 2 loyal, 3 and 4 enemies, in the day-actions window. ``debts={(debtor, creditor): n}``,
``pacts=[(a, b)]``. ``act(state, house, "attack", target=2)`` applies a payload parsed like a client's;
``close(state)`` lets the window's deadline pass (the defaults, PRE, and the next window opens).
"""

from __future__ import annotations

from typing import Any

from engine.core import Context, Slot, evolve
from engine.crown.game import DAY, CrownGame, CrownState, new_house, new_today
from engine.crown.rules import ENEMY, LOYAL, RULER

GAME = CrownGame()
LETTER = {"R": RULER, "L": LOYAL, "E": ENEMY}
T0 = 1_000_000


def start(seed: int = 1, **settings: Any) -> CrownState:
    """A new game in its initial council."""
    chosen = GAME.info.parse_settings(settings)
    return GAME.setup([Slot(i, f"P{i}", False) for i in range(5)], Context(seed, chosen), 0)


def day(statuses: str = "R L L L L", prestige: list[int] | None = None, crowns: list[int] | None = None,
        debts: dict[tuple[int, int], int] | None = None, pacts: list[tuple[int, int]] = (), number: int = 3,
        reign_day: int = 2, enemy_days: list[int] | None = None, streak: list[int] | None = None,
        seed: int = 1, **settings: Any) -> CrownState:
    """A state in the day-actions window of day ``number``."""
    letters = statuses.split()
    assert len(letters) == 5 and letters.count("R") <= 1
    houses = []
    for i, letter in enumerate(letters):
        h = new_house()
        h["status"] = LETTER[letter]
        h["prestige"] = prestige[i] if prestige else 50
        h["crowns"] = crowns[i] if crowns else 0
        h["enemy_days"] = enemy_days[i] if enemy_days else 0
        h["streak"] = streak[i] if streak else 0
        h["nlt"] = letter != "L"
        houses.append(h)
    table = [[0] * 5 for _ in range(5)]
    for (debtor, creditor), n in (debts or {}).items():
        table[debtor][creditor] = n
    ruler = letters.index("R") if "R" in letters else None
    base = start(seed, **settings)
    return evolve(base, houses=tuple(houses), debts=tuple(tuple(r) for r in table),
                  pacts=tuple(sorted((min(a, b), max(a, b)) for a, b in pacts)), ruler=ruler, reign_day=reign_day,
                  day=number, phase=DAY, deadline_ms=T0 + base.day_ms, window_ms=base.day_ms, step=10,
                  today=new_today(), council=None, feed=(), chron=((),) * 5,
                  rulers=((ruler, 0),) if ruler is not None else ())


def act(state: CrownState, house: int, kind: str, at: int = T0 + 1, **fields: Any) -> CrownState:
    """Apply one payload for a house."""
    return GAME.apply(state, house, GAME.parse_action({"kind": kind, **fields}), at)


def close(state: CrownState) -> CrownState:
    """The current window's deadline passes."""
    return GAME.on_timeout(state, state.deadline_ms)


def prestige(state: CrownState) -> list[int]:
    return [h["prestige"] for h in state.houses]


def statuses(state: CrownState) -> str:
    back = {v: k for k, v in LETTER.items()}
    return " ".join(back[h["status"]] for h in state.houses)


def votes(state: CrownState, choices: dict[int, int | None]) -> CrownState:
    """Cast votes (None: abstain) in the open council; the houses not named let the window run out."""
    step = state.step
    for house, choice in choices.items():
        state = act(state, house, "vote", choice=choice)
    return close(state) if state.step == step else state


def keys(entries) -> list[str]:
    return [e["key"].removeprefix("crown.log.") for e in entries]


def chron(state: CrownState, house: int) -> list[str]:
    return keys(state.chron[house])


def feed(state: CrownState) -> list[str]:
    return keys(state.feed)


def pre(state: CrownState) -> list[int]:
    """Prestige after PRE: close the day window and read (the judgment council is then open)."""
    return prestige(close(state))
