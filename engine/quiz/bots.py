"""Quiz bots: they answer like people, at a human pace, and are right with a probability.

Bots act through the same payloads as phones, after a delay that is a share of the answer window (never closer than
150 ms to its end). Their randomness comes from the generator the room hands them; their moves are logged, so a
replay never asks a bot again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.bots import guess, uniform
from engine.core import Rng
from engine.questions import MAX_NUMBER

if TYPE_CHECKING:
    from engine.quiz.game import QuizGame, QuizState

KNOWS = 0.6  # the chance a bot knows a multiple-choice answer (otherwise it guesses among the options)
SPREAD = 0.12  # relative error of a numeric guess (standard deviation)
THINK = (0.15, 0.75)  # the share of the window a bot takes to answer, from, to
MIN_THINK_MS = 1000  # nobody reads a question and answers faster


def delay_ms(rng: Rng, window_ms: int) -> int:
    """A human-looking delay inside the window."""
    low, high = THINK
    delay = int(window_ms * (low + (high - low) * uniform(rng)))
    return max(0, min(max(delay, MIN_THINK_MS), window_ms - 150))


def decide(game: QuizGame, state: QuizState, seat: int, rng: Rng) -> tuple[dict[str, Any], int] | None:
    """The bot's answer for this seat now, with its delay in ms; None when it has nothing to answer."""
    if not game.legal_actions(state, seat):
        return None
    question = state.questions[state.index]
    delay = delay_ms(rng, state.closes_ms - state.opens_ms)
    if question.kind == "numeric":
        return {"answer": min(guess(rng, question.truth, SPREAD), MAX_NUMBER)}, delay
    if uniform(rng) < KNOWS:
        return {"choice": question.correct}, delay
    return {"choice": rng.randbelow(len(question.options))}, delay
