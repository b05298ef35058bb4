"""Headless Hierarchy games between bots, driven through the engine exactly as a room would drive it.

``python -m engine.hierarchy.simulate --games 200 --seed 1 --bots strong,random`` prints one JSON line per game
and a summary line (wins per bot level, and the slowest strong decision measured on this machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from engine.core import Context, Rng, Slot
from engine.hierarchy import bots as hbots
from engine.hierarchy.game import HierarchyGame, HierarchyState

GAME = HierarchyGame()


def new_game(seed: int, settings: dict[str, Any] | None = None, timer_scale: float = 1.0
             ) -> tuple[HierarchyState, Context]:
    """A fresh game with both seats played by bots."""
    chosen = GAME.info.parse_settings(settings or {})
    ctx = Context(seed, chosen, timer_scale)
    slots = [Slot(i, f"Bot {i + 1}", True) for i in range(2)]
    return GAME.setup(slots, ctx, 0), ctx


def play(seed: int, bots: Sequence[str] = ("strong", "random"), settings: dict[str, Any] | None = None,
         max_steps: int = 200, timings: list[float] | None = None) -> dict[str, Any]:
    """One game to the end: seat i is played by a bot of level ``bots[i]``; a move is made when its delay is due,
    a timeout fires at the deadline. ``timings`` (optional) collects the wall time of each strong decision."""
    state, _ = new_game(seed, settings)
    rng = Rng(seed ^ 0xB07)
    now = 0
    log: list[tuple[str, int, Any, int]] = []
    for _ in range(max_steps):
        if state.winner is not None:
            break
        seat = state.actor
        level = bots[seat]
        started = time.perf_counter() if timings is not None else 0.0
        action = hbots.choose(state, level, rng)
        if timings is not None and level == "strong":
            timings.append(time.perf_counter() - started)
        payload = GAME.action_to_json(action)
        at = now + 600 + rng.randbelow(1201)
        deadline = GAME.deadline(state)
        if deadline is not None and at >= deadline:
            now = deadline
            state = GAME.on_timeout(state, now)
            log.append(("timeout", -1, None, now))
        else:
            now = at
            state = GAME.apply(state, seat, GAME.parse_action(payload), now)
            log.append(("action", seat, payload, now))
    else:
        raise RuntimeError(f"game {seed} did not end in {max_steps} steps")
    return {
        "seed": seed,
        "bots": list(bots),
        "winner": state.winner,
        "winner_bot": bots[state.winner],
        "first": state.first,
        "turns": state.plays,  # the move log is bounded (LOG_CAP); the count is not
        "actions": len(log),
        "burned": len(state.burned),
        "log": log,
        "state": state,
    }


def replay(seed: int, log: Sequence[tuple[str, int, Any, int]], settings: dict[str, Any] | None = None
           ) -> HierarchyState:
    """The state a log leads to from the same seed and settings."""
    state, _ = new_game(seed, settings)
    for kind, seat, payload, at in log:
        state = GAME.on_timeout(state, at) if kind == "timeout" else GAME.apply(state, seat, GAME.parse_action(payload), at)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """Play ``--games`` games from ``--seed`` on; one JSON line each, then a summary line."""
    parser = argparse.ArgumentParser(prog="hierarchy-simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="strong,random", help="two levels: random, greedy or strong")
    args = parser.parse_args(argv)
    levels = tuple(args.bots.split(","))
    if len(levels) != 2 or any(level not in hbots.LEVELS for level in levels):
        parser.error("--bots takes two of random, greedy, strong, e.g. strong,random")
    wins = {f"seat{i}:{level}": 0 for i, level in enumerate(levels)}
    timings: list[float] = []
    turns = []
    for n in range(args.games):
        seed = args.seed + n
        result = play(seed, levels, timings=timings)
        wins[f"seat{result['winner']}:{levels[result['winner']]}"] += 1
        turns.append(result["turns"])
        print(json.dumps({k: v for k, v in result.items() if k not in ("log", "state")}))
    summary = {"summary": True, "games": args.games, "seed": args.seed, "bots": list(levels), "wins": wins,
               "win_rate_seat0": round(wins[f"seat0:{levels[0]}"] / max(1, args.games), 3),
               "mean_turns": round(sum(turns) / max(1, len(turns)), 2), "max_turns": max(turns, default=0),
               "strong_decisions": len(timings),
               "slowest_strong_ms": round(max(timings, default=0.0) * 1000, 1),
               "mean_strong_ms": round(sum(timings) / max(1, len(timings)) * 1000, 2)}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
