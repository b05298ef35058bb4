"""Headless all-bot games of Seizing the Crown, driven through the engine exactly as a room drives it: each bot's
move is asked for whenever the state changed, played after its delay, and the window's timeout fires at its deadline.

``python -m engine.crown.simulate --games 50 --seed 1 [--last-day D] [--bots strong|simple|mix|L,L,L,L,L]``
prints one JSON line per game and a summary (how many games ended by CROWN-R76 and how many by the last day,
CROWN-D6; wins by starting house and by the house that first held the throne; for a mixed table, the strong house's
win rate; the slowest bot decision). With no last day, a game still running after ``--max-days`` (default 60) stops
as "unfinished" so the simulator always ends.

Bot levels (CROWN-D7): ``strong`` (engine/crown/strong.py, the default), ``simple`` (engine/crown/bots.py), ``mix``
(one strong house against four simple ones; the strong seat rotates with the game, game i has it at seat
(seed + i) mod 5, so seat advantages cancel), or five comma-separated levels, one per house.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from engine.core import Context, IllegalAction, Rng, Slot, evolve
from engine.crown.game import BOT_LEVELS, OVER, CrownGame, CrownState

GAME = CrownGame()
MAX_DAYS = 60


def new_game(seed: int, settings: dict[str, Any] | None = None, bots: tuple[bool, ...] = (True,) * 5,
             levels: tuple[str, ...] | None = None) -> CrownState:
    """A fresh game of five houses; ``levels`` gives each house its own bot level (else the bot_level setting)."""
    chosen = GAME.info.parse_settings(settings or {})
    slots = [Slot(i, f"Bot {i + 1}", bots[i]) for i in range(5)]
    state = GAME.setup(slots, Context(seed, chosen), 0)
    return evolve(state, bot_levels=tuple(levels)) if levels is not None else state


def table(spec: str, game: int) -> tuple[str, ...]:
    """The five houses' bot levels for one game of a ``--bots`` spec (see the module docstring)."""
    if spec in BOT_LEVELS:
        return (spec,) * 5
    if spec == "mix":
        return tuple("strong" if h == game % 5 else "simple" for h in range(5))
    levels = tuple(x.strip() for x in spec.split(","))
    if len(levels) != 5 or any(x not in BOT_LEVELS for x in levels):
        raise ValueError(f"bots must be strong, simple, mix or five levels like strong,simple,simple,simple,simple "
                         f"(got {spec[:60]!r})")
    return levels


def play(seed: int, settings: dict[str, Any] | None = None, log: list | None = None, max_days: int = MAX_DAYS,
         timings: list | None = None, levels: tuple[str, ...] | None = None, cpu_timings: list | None = None
         ) -> dict[str, Any]:
    """Play one all-bot game to the end. Returns winner, days, rulers (in order), reason and counts. ``log``
    collects the room's event log: ("action", house, payload, at ms) and ("timeout", None, None, at ms)."""
    state = new_game(seed, settings, levels=levels)
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
            started, cpu = time.perf_counter(), time.thread_time()
            decision = GAME.bot_action(state, house, Rng(seed ^ (events * 1_000_003) ^ (house * 7919)))
            if timings is not None:
                timings.append(time.perf_counter() - started)
            if cpu_timings is not None:
                cpu_timings.append(time.thread_time() - cpu)
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


def summarize(results: list[dict[str, Any]], slowest: float, last_day: int, slowest_cpu: float = 0.0,
              decisions: int = 0) -> dict[str, Any]:
    """The summary line: how games ended, wins by starting house (seat) and by the first ruler, counts and largest
    shares; for tables with strong and simple houses, the strong houses' win rate; the slowest decision (wall
    clock, which includes waiting for a busy CPU, and the CPU time of this thread alone), each building the house's
    view and deciding, as a room does."""
    games = len(results)
    per = max(1, games)
    reasons: dict[str, int] = {}
    wins = [0] * 5
    first_ruler = [0] * 5  # wins of the house that first held the throne, by that house
    strong_games = strong_wins = 0
    for r in results:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        winner = r["winner"]
        if winner is not None:
            wins[winner] += 1
            if r["rulers"] and winner == r["rulers"][0]:
                first_ruler[winner] += 1
        levels = r["levels"]
        if "strong" in levels and "simple" in levels:
            strong_games += 1
            strong_wins += winner is not None and levels[winner] == "strong"
    summary: dict[str, Any] = {
        "summary": True, "games": games, "last_day": last_day, "reasons": reasons,
        "throne_rate": round(reasons.get("throne", 0) / per, 3),
        "wins_by_house": wins, "max_house_share": round(max(wins) / per, 3),
        "first_ruler_wins": sum(first_ruler), "first_ruler_share": round(sum(first_ruler) / per, 3),
        "first_ruler_wins_by_house": first_ruler,
        "mean_days": round(sum(r["days"] for r in results) / per, 1),
        "decisions": decisions,
        "slowest_decision_ms": round(slowest * 1000, 2),
        "slowest_decision_cpu_ms": round(slowest_cpu * 1000, 2),
    }
    if strong_games:
        summary.update({"mixed_games": strong_games, "strong_wins": strong_wins,
                        "strong_share": round(strong_wins / strong_games, 3)})
    return summary


def main(argv: list[str] | None = None) -> int:
    """Play N games and print a JSON line for each and a summary."""
    parser = argparse.ArgumentParser(prog="crown-simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--last-day", type=int, default=0, help="end the game after this day (0: off, CROWN-D6)")
    parser.add_argument("--max-days", type=int, default=MAX_DAYS, help="stop an unfinished game after this day")
    parser.add_argument("--bots", default="strong", metavar="LEVEL",
                        help="strong (default), simple, mix (one strong house, its seat rotating, vs four simple) "
                             "or five levels, one per house, e.g. strong,simple,simple,simple,simple")
    args = parser.parse_args(argv)
    if not 0 <= args.last_day <= 50:
        parser.error("--last-day must be between 0 and 50")
    if args.games < 0:
        parser.error("--games must not be negative")
    try:
        table(args.bots, 0)
    except ValueError as error:
        parser.error(str(error))
    settings = {"last_day": args.last_day}
    results = []
    slowest = slowest_cpu = 0.0
    decisions = 0
    for i in range(args.games):
        timings: list[float] = []
        cpu_timings: list[float] = []
        seed = args.seed + i
        levels = table(args.bots, seed)
        result = play(seed, settings, max_days=args.max_days, timings=timings, levels=levels, cpu_timings=cpu_timings)
        result.pop("state")
        result["levels"] = list(levels)
        slowest = max(slowest, max(timings, default=0.0))
        slowest_cpu = max(slowest_cpu, max(cpu_timings, default=0.0))
        decisions += len(timings)
        results.append(result)
        print(json.dumps(result), flush=True)
    print(json.dumps(summarize(results, slowest, args.last_day, slowest_cpu, decisions)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
