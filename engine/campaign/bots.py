"""Short Campaign bots: they answer like people of a given level and choose territories with some sense.

Bots act through the same actions as people (the payloads a phone sends), after a delay that looks human: a share
of the step's time window, shorter for stronger bots. Their randomness comes from the generator the room hands
them; their moves are logged, so a replay never asks a bot again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from engine.bots import guess, uniform
from engine.core import Rng

if TYPE_CHECKING:
    from engine.campaign.game import CampaignGame, CampaignState


class Level(TypedDict):
    """How well a bot of one level plays."""

    spread: float  # the relative error of its numeric guesses (standard deviation)
    knows: float  # its chance to know a multiple-choice answer
    think: tuple[float, float]  # the share of the answer window it takes (from, to)


LEVELS: dict[str, Level] = {
    "easy": {"spread": 0.30, "knows": 0.45, "think": (0.40, 0.90)},
    "normal": {"spread": 0.12, "knows": 0.65, "think": (0.25, 0.70)},
    "hard": {"spread": 0.04, "knows": 0.85, "think": (0.12, 0.50)},
}


def thinking(rng: Rng, window_ms: int, share: tuple[float, float]) -> int:
    """A delay inside the window: a share of it, never closer than 150 ms to its end."""
    low, high = share
    delay = int(window_ms * (low + (high - low) * uniform(rng)))
    return max(0, min(delay, window_ms - 150))


def decide(game: CampaignGame, state: CampaignState, seat: int, rng: Rng) -> tuple[dict[str, Any], int] | None:
    """The bot's action for this seat now, with its delay in ms; None when it has nothing to do."""
    level = LEVELS.get(state.bot_level, LEVELS["normal"])
    legal = game.legal_actions(state, seat)
    if not legal:
        return None
    kind = legal[0][0]
    if kind in ("answer", "choice"):
        asking = state.asking
        assert asking is not None  # an answer is legal only while a question is asked
        if kind == "answer":
            numeric = state.numeric[asking.question]
            delay = thinking(rng, state.timers.numeric, level["think"])
            return {"answer": guess(rng, numeric.answer, level["spread"])}, delay
        choice = state.choice[asking.question]
        delay = thinking(rng, state.timers.choice, level["think"])
        if uniform(rng) < level["knows"]:
            return {"choice": choice.correct}, delay
        return {"choice": rng.randbelow(len(choice.options))}, delay
    # the legal picks and targets, as territory indices in the order legal_actions lists their ids
    if kind == "pick":
        territory = best_pick(state, seat, game.legal_picks(state, seat), rng)
        return {"pick": state.game_map.territories[territory].id}, thinking(rng, state.timers.pick, (0.15, 0.45))
    territory = best_target(state, seat, game.legal_targets(state, seat), level, rng)
    return {"target": state.game_map.territories[territory].id}, thinking(rng, state.timers.target, (0.15, 0.45))


def best_pick(state: CampaignState, seat: int, options: list[int], rng: Rng) -> int:
    """Grow a compact empire: prefer territories touching many of one's own and many still free."""
    neighbours = state.game_map.neighbours

    def worth(t: int) -> float:
        own = sum(1 for n in neighbours[t] if state.owner[n] == seat)
        free = sum(1 for n in neighbours[t] if state.owner[n] is None)
        enemy_castle = any(state.castle_of[s] in neighbours[t] for s in range(len(state.names)) if s != seat)
        return 2.0 * own + free - (0.5 if enemy_castle else 0.0) + uniform(rng) * 0.9

    return max(options, key=worth)


def best_target(state: CampaignState, seat: int, options: list[int], level: Level, rng: Rng) -> int:
    """The attack with the best expected swing: big values, weak castles, and the leader before the others."""
    p_win = level["knows"] * (1 - level["knows"] * 0.5)  # rough chance to win one duel
    leader = max((s for s in state.alive() if s != seat), key=lambda s: state.score[s])

    def worth(t: int) -> float:
        owner = state.owner[t]
        assert owner is not None  # a target is an opponent's territory
        if state.is_intact_castle(t):
            towers = state.towers[owner]
            gain = (state.score[owner] + 1000) * p_win ** towers
        elif t in state.demolished:
            gain = 2000 * p_win
        else:
            gain = (400 + state.value[t]) * p_win
        return gain * (1.25 if owner == leader else 1.0) + uniform(rng) * 40

    return max(options, key=worth)
