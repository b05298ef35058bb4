"""Headless all-bot Short Campaigns, played through the engine exactly as a room would drive it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.campaign.game import CampaignGame, CampaignState
from engine.core import Context, Rng, Slot


@dataclass
class Played:
    """A finished game: its final state and the log that reproduces it."""

    state: CampaignState
    log: list[tuple[str, int, Any, int]] = field(default_factory=list)  # (kind, seat, payload, at ms)
    timeouts: int = 0


def new_game(seed: int, settings: dict[str, Any] | None = None, timer_scale: float = 1.0,
             game: CampaignGame | None = None) -> tuple[CampaignGame, CampaignState, Context]:
    """A fresh all-bot game."""
    game = game or CampaignGame()
    chosen = {**game.info.default_settings(), **(settings or {})}
    ctx = Context(seed, chosen, timer_scale, game.prepare(chosen, seed))
    slots = [Slot(i, f"Bot {i + 1}", True) for i in range(3)]
    return game, game.setup(slots, ctx, 0), ctx


def play(seed: int, settings: dict[str, Any] | None = None, max_steps: int = 20_000) -> Played:
    """Play one game to the end: bots act when their delay is due, timeouts fire at deadlines."""
    game, state, _ = new_game(seed, settings)
    rng = Rng(seed ^ 0xB07)
    now = 0
    plans: dict[int, tuple[int, int, Any]] = {}  # seat -> (due ms, step, payload)
    played = Played(state)
    for _ in range(max_steps):
        if state.stage == "over":
            break
        for seat in range(3):
            if not game.legal_actions(state, seat):
                plans.pop(seat, None)
            elif seat not in plans or plans[seat][1] != state.step:
                decision = game.bot_action(state, seat, rng)
                if decision is not None:
                    plans[seat] = (now + decision[1], state.step, decision[0])
        deadline = game.deadline(state)
        due = min(plans.items(), key=lambda item: item[1][0]) if plans else None
        if due is not None and (deadline is None or due[1][0] < deadline):
            seat, (at, _, payload) = due
            now = max(now, at)
            del plans[seat]
            state = game.apply(state, seat, game.parse_action(payload), now)
            played.log.append(("action", seat, payload, now))
        else:
            now = deadline
            state = game.on_timeout(state, now)
            played.log.append(("timeout", -1, None, now))
            played.timeouts += 1
    else:
        raise RuntimeError(f"game {seed} did not end in {max_steps} steps")
    played.state = state
    return played


def replay(seed: int, log: list[tuple[str, int, Any, int]], settings: dict[str, Any] | None = None) -> CampaignState:
    """The state a log leads to from the same seed and settings."""
    game, state, _ = new_game(seed, settings)
    for kind, seat, payload, at in log:
        state = game.on_timeout(state, at) if kind == "timeout" else game.apply(state, seat, game.parse_action(payload), at)
    return state


def summary(seed: int, played: Played) -> dict[str, Any]:
    """One JSON line's worth of a finished game."""
    state = played.state
    return {
        "seed": seed,
        "map": state.map_id,
        "winner": state.final_ranking[0],
        "ranking": list(state.final_ranking),
        "scores": list(state.score),
        "expansion_rounds": sum(1 for h in state.history if h["kind"] == "question" and h["purpose"] == "expansion"),
        "battle_rounds": state.round,
        "eliminations": len(state.eliminated),
        "actions": len(played.log) - played.timeouts,
        "timeouts": played.timeouts,
        "game_ms": played.log[-1][3] if played.log else 0,
    }
