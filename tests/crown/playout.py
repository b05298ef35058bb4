"""Random legal playouts of Seizing the Crown, with the log a room would keep and the test's own record of what
happened (who did what, and the prestige at each calculation point), kept independently of the views."""

from __future__ import annotations

from typing import Any

from engine.core import Rng
from engine.crown.game import DAY, OVER, CrownState
from tests.crown.fixtures import GAME, start


class Record:
    """What the test itself saw: every applied action with the state before it, and the PRE/POST snapshots."""

    def __init__(self) -> None:
        self.actions: list[tuple[int, int, tuple, CrownState]] = []  # (day, house, action, state before)
        self.pre: dict[int, list[int]] = {}
        self.post: dict[int, list[int]] = {}
        self.pre_status: dict[int, list[str]] = {}

    def observe(self, before: CrownState, after: CrownState) -> None:
        if before.phase == DAY and after.phase != DAY or (before.phase == DAY and after.day != before.day):
            self.pre[before.day] = [h["prestige"] for h in after.houses]
            self.pre_status[before.day] = [h["status"] for h in after.houses]
        if after.day != before.day or (after.phase == OVER and after.reason == "last_day"
                                       and before.phase != OVER):
            self.post[before.day] = [h["prestige"] for h in after.houses]

    def did(self, day: int, house: int, kind: str) -> list[tuple]:
        return [(a, s) for d, h, a, s in self.actions if d == day and h == house and a[0] == kind]


def random_playout(seed: int, last_day: int = 6, timeout_odds: int = 25, on_state=None, max_events: int = 20000
                   ) -> tuple[CrownState, list, Record]:
    """Random legal actions by random houses, sometimes a timeout; ``on_state(state, record)`` after each event."""
    state = start(seed, last_day=last_day)
    rng = Rng(seed * 7919 + 13)
    record = Record()
    now = 0
    log: list[tuple[str, int | None, Any, int]] = []
    if on_state:
        on_state(state, record)
    for _ in range(max_events):
        if state.phase == OVER:
            return state, log, record
        before = state
        houses = [h for h in range(5) if GAME.legal_actions(state, h)]
        if not houses or rng.randbelow(timeout_odds) == 0:
            now = max(now, state.deadline_ms)
            state = GAME.on_timeout(state, now)
            log.append(("timeout", None, None, now))
        else:
            house = rng.choice(houses)
            legal = GAME.legal_actions(state, house)
            # "done" and votes would end windows at once; keep the days busy enough to see everything
            action = rng.choice(legal)
            payload = GAME.action_to_json(action)
            now += 1 + rng.randbelow(3000)
            now = min(now, state.deadline_ms - 1)
            state = GAME.apply(state, house, GAME.parse_action(payload), now)
            record.actions.append((before.day, house, action, before))
            log.append(("action", house, payload, now))
        record.observe(before, state)
        if on_state:
            on_state(state, record)
    raise AssertionError(f"playout {seed} did not end")


def run_log(seed: int, log: list, last_day: int = 6) -> CrownState:
    """Replay a playout's log."""
    state = start(seed, last_day=last_day)
    for kind, house, payload, at in log:
        state = GAME.on_timeout(state, at) if kind == "timeout" else GAME.apply(state, house,
                                                                                 GAME.parse_action(payload), at)
    return state
