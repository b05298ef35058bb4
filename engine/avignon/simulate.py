"""Headless all-bot games of Avignon 1378, driven through the engine as a room would drive it.

``python -m engine.avignon.simulate --games 200 --seed 1 --bots strong,random`` prints one JSON line per game and a
summary line. Seat 0 plays the first bot level, seat 1 the second; the roles (Rome, Avignon) are drawn per game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from engine.avignon.bots import decide
from engine.avignon.game import ROLE_NAMES, AvignonGame, AvignonState
from engine.core import Context, Rng, Slot

GAME = AvignonGame()
MAX_ACTIONS = 2000


def new_game(seed: int, settings: dict[str, Any] | None = None) -> AvignonState:
    """A fresh two-bot game."""
    chosen = GAME.info.parse_settings(settings or {})
    return GAME.setup([Slot(0, "Bot 1", True), Slot(1, "Bot 2", True)], Context(seed, chosen), 0)


def play(seed: int, bots: tuple[str, str] = ("strong", "random"), settings: dict[str, Any] | None = None,
         log: list | None = None, timings: list | None = None, max_actions: int = MAX_ACTIONS) -> dict[str, Any]:
    """Play one game to the end; seat i plays at level ``bots[i]``. Returns winner (seat), its level, the reason, the
    number of turns and actions. A game still running after ``max_actions`` (two bots in a stand-off; AVIG-D9
    bounds every game, but the bound is astronomically large) is returned with winner None, reason "unfinished". ``log`` collects (seat, payload, at ms); ``timings`` each decision's seconds."""
    state = new_game(seed, settings)
    rng = Rng(seed ^ 0xA716)
    now = 0
    actions = 0
    while state.winner is None:
        if actions >= max_actions:
            return {"seed": seed, "winner": None, "winner_bot": None, "winner_role": None, "reason": "unfinished",
                    "turns": state.turn_no, "actions": actions, "state": state}
        seat = state.seat_of[state.to_move]
        started = time.perf_counter()
        action = decide(GAME, state, bots[seat], rng)
        if timings is not None:
            timings.append(time.perf_counter() - started)
        payload = GAME.action_to_json(action)
        now += 600 + rng.randbelow(1201)
        state = GAME.apply(state, seat, GAME.parse_action(payload), now)
        if log is not None:
            log.append((seat, payload, now))
        actions += 1
    outcome = GAME.outcome(state)
    winner = outcome.ranking[0]
    return {"seed": seed, "winner": winner, "winner_bot": bots[winner], "winner_role": ROLE_NAMES[state.winner],
            "reason": state.reason, "turns": state.turn_no, "actions": actions, "state": state}


def replay(seed: int, log: list, settings: dict[str, Any] | None = None) -> AvignonState:
    """The state a log of (seat, payload, at ms) leads to from the same seed and settings."""
    state = new_game(seed, settings)
    for seat, payload, at in log:
        state = GAME.apply(state, seat, GAME.parse_action(payload), at)
    return state


def main(argv: list[str] | None = None) -> int:
    """Play N games and print a JSON line for each and a summary."""
    parser = argparse.ArgumentParser(prog="avignon-simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="strong,random", help="two levels: random, greedy, strong")
    args = parser.parse_args(argv)
    bots = tuple(args.bots.split(","))
    if len(bots) != 2 or any(b not in ("random", "greedy", "strong") for b in bots):
        parser.error("--bots takes two levels among random, greedy, strong, e.g. strong,random")
    wins = [0, 0]
    reasons: dict[str, int] = {}
    turns = 0
    slowest = 0.0
    for i in range(args.games):
        timings: list[float] = []
        result = play(args.seed + i, bots, timings=timings)  # type: ignore[arg-type]
        result.pop("state")
        if result["winner"] is not None:
            wins[result["winner"]] += 1
        reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
        turns += result["turns"]
        slowest = max(slowest, max(timings, default=0.0))
        result["slowest_ms"] = round(max(timings, default=0.0) * 1000, 1)
        print(json.dumps(result), flush=True)
    games = max(1, args.games)
    print(json.dumps({"summary": True, "games": args.games, "bots": list(bots), "wins": wins,
                      "win_rate": [round(w / games, 3) for w in wins], "reasons": reasons,
                      "mean_turns": round(turns / games, 1), "slowest_decision_ms": round(slowest * 1000, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
