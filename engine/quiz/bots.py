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
from engine.quiz.text import matches

if TYPE_CHECKING:
    from engine.quiz.game import QuizGame, QuizState

KNOWS = 0.6  # the chance a bot knows the answer (otherwise it guesses, or slips, as below)
SPREAD = 0.12  # relative error of a numeric guess (standard deviation)
THINK = (0.15, 0.75)  # the share of the window a bot takes to answer, from, to
MIN_THINK_MS = 1000  # nobody reads a question and answers faster
# what a bot types when it does not know a text answer (none of them an accepted answer, which it checks)
WRONG_WORDS = ("Paris", "London", "blue", "seven", "Napoleon", "water", "Mars", "I don't know", "Rome", "Einstein")


def delay_ms(rng: Rng, window_ms: int) -> int:
    """A human-looking delay inside the window."""
    low, high = THINK
    delay = int(window_ms * (low + (high - low) * uniform(rng)))
    return max(0, min(max(delay, MIN_THINK_MS), window_ms - 150))


def decide(game: QuizGame, state: QuizState, seat: int, rng: Rng) -> tuple[dict[str, Any], int] | None:
    """The bot's answer for this seat now, with its delay in ms; None when it has nothing to answer. Choice: right
    60 % of the time, else a random option; poll: a random option; number: a guess near the answer; text: the first
    accepted answer 60 % of the time, else a wrong word; order: right 60 % of the time, else the right order with one
    or two swaps; multi: right 60 % of the time, else the right options with one added or dropped."""
    if game.answer_window(state, seat) is None:
        return None
    question = state.questions[state.index]
    delay = delay_ms(rng, state.closes_ms - state.opens_ms)
    count = len(question.options)
    if question.kind == "numeric":
        return {"answer": min(guess(rng, question.truth, SPREAD), MAX_NUMBER)}, delay
    if question.kind == "poll":
        return {"choice": rng.randbelow(count)}, delay
    knows = uniform(rng) < KNOWS
    if question.kind == "text":
        if knows:
            return {"text": question.accepted[0]}, delay
        wrong = [w for w in WRONG_WORDS if not matches(w, question.accepted)]
        return {"text": rng.choice(wrong)}, delay
    if question.kind == "order":
        order = list(question.sequence)
        for _ in range(0 if knows else 1 + rng.randbelow(2)):
            i, j = rng.randbelow(count), rng.randbelow(count - 1)
            j += j >= i  # another place
            order[i], order[j] = order[j], order[i]
        return {"order": order}, delay
    if question.kind == "multi":
        picks = set(question.rights)
        if not knows:
            flip = rng.randbelow(count)
            picks ^= {flip}
            if not picks:
                picks = {flip}
        return {"multi": sorted(picks)}, delay
    if knows:
        return {"choice": question.correct}, delay
    return {"choice": rng.randbelow(count)}, delay
