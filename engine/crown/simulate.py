"""Headless all-bot games of Seizing the Crown, driven through the engine exactly as a room drives it: each bot's
move is asked for whenever the state changed, played after its delay, and the window's timeout fires at its deadline.

``python -m engine.crown.simulate --games 50 --seed 1 [--last-day D]`` prints one JSON line per game and a summary
(how many games ended by CROWN-R76 and how many by the last day, CROWN-D6). With no last day, a game still running
after ``--max-days`` (default 60) stops as "unfinished" so the simulator always ends.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from engine.core import Context, IllegalAction, Rng, Slot
from engine.crown.game import OVER, CrownGame, CrownState

GAME = CrownGame()
MAX_DAYS = 60


def new_game(seed: int, settings: dict[str, Any] | None = None, bots: tuple[bool, ...] = (True,) * 5
             ) -> CrownState:
    """A fresh game of five houses."""
    chosen = GAME.info.parse_settings(settings or {})
    slots = [Slot(i, f"Bot {i + 1}", bots[i]) for i in range(5)]
    return GAME.setup(slots, Context(seed, chosen), 0)


def play(seed: int, settings: dict[str, Any] | None = None, log: list | None = None, max_days: int = MAX_DAYS,
         timings: list | None = None) -> dict[str, Any]:
    """Play one all-bot game to the end. Returns winner, days, rulers (in order), reason and counts. ``log``
    collects the room's event log: ("action", house, payload, at ms) and ("timeout", None, None, at ms)."""
    state = new_game(seed, settings)
    now = 0
    plans: dict[int, tuple[int, int, Any]] = {}  # house -> (due ms, step, payload)
    asked: dict[int, int] = {}  # house -> the event number at which it last had nothing to do
    events = refused = 0
    while state.phase != OVER:
        if state.day > max_days:
            return {"seed": seed, "winner": None, "days": state.day, "reason": "unfinished",
                    "rulers": [h for h, _ in state.rulers], "events": events, "refused": refused, "state": state}
        step = GAME.step(state)
        for house in range(5):
            if not GAME.can_act(state, house):
                plans.pop(house, None)
                continue
            plan = plans.get(house)
            if plan is not None and plan[1] == step:
                continue
            if plan is None and asked.get(house) == events:
                continue
            started = time.perf_counter()
            decision = GAME.bot_action(state, house, Rng(seed ^ (events * 1_000_003) ^ (house * 7919)))
            if timings is not None:
                timings.append(time.perf_counter() - started)
            if decision is None:
                plans.pop(house, None)
                asked[house] = events
                continue
            payload, delay = decision
            plans[house] = (now + max(0, int(delay)), step, payload)
        deadline = GAME.deadline(state)
        due = min(plans.items(), key=lambda kv: (kv[1][0], kv[0]), default=None)
        events += 1
        if due is not None and (deadline is None or due[1][0] < deadline):
            house, (at, _step, payload) = due
            del plans[house]
            now = max(now, at)
            try:
                state = GAME.apply(state, house, GAME.parse_action(payload), now)
            except IllegalAction:  # the room drops such a move and asks the bot again (a race inside one window)
                refused += 1
                continue
            if log is not None:
                log.append(("action", house, payload, now))
        else:
            now = max(now, deadline)
            state = GAME.on_timeout(state, now)
            if log is not None:
                log.append(("timeout", None, None, now))
    outcome = GAME.outcome(state)
    return {"seed": seed, "winner": outcome.ranking[0], "days": state.day, "reason": state.reason,
            "rulers": [h for h, _ in state.rulers], "crowns": [h["crowns"] for h in state.houses],
            "events": events, "refused": refused, "state": state}


def replay(seed: int, log: list, settings: dict[str, Any] | None = None) -> CrownState:
    """The state an event log leads to from the same seed and settings."""
    state = new_game(seed, settings)
    for kind, house, payload, at in log:
        if kind == "timeout":
            state = GAME.on_timeout(state, at)
        else:
            state = GAME.apply(state, house, GAME.parse_action(payload), at)
    return state


def main(argv: list[str] | None = None) -> int:
    """Play N games and print a JSON line for each and a summary."""
    parser = argparse.ArgumentParser(prog="crown-simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--last-day", type=int, default=0, help="end the game after this day (0: off, CROWN-D6)")
    parser.add_argument("--max-days", type=int, default=MAX_DAYS, help="stop an unfinished game after this day")
    args = parser.parse_args(argv)
    if not 0 <= args.last_day <= 50:
        parser.error("--last-day must be between 0 and 50")
    settings = {"last_day": args.last_day}
    reasons: dict[str, int] = {}
    wins = [0] * 5
    days = 0
    slowest = 0.0
    for i in range(args.games):
        timings: list[float] = []
        result = play(args.seed + i, settings, max_days=args.max_days, timings=timings)
        result.pop("state")
        reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
        if result["winner"] is not None:
            wins[result["winner"]] += 1
        days += result["days"]
        slowest = max(slowest, max(timings, default=0.0))
        print(json.dumps(result), flush=True)
    games = max(1, args.games)
    print(json.dumps({"summary": True, "games": args.games, "last_day": args.last_day, "reasons": reasons,
                      "throne_rate": round(reasons.get("throne", 0) / games, 3), "wins_by_house": wins,
                      "mean_days": round(days / games, 1), "slowest_decision_ms": round(slowest * 1000, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
