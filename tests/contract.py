"""How the engine contract test (tests/test_engine_contract.py) plays each registered game: small per-game adapters
(seats, settings, the questions a room would supply, a concrete payload where ``legal_actions`` leaves a value open,
and what counts as a secret) and random legal play through the generic simulator (engine/simulate.py).

A game without an adapter gets the default one, so a new game is covered as soon as it is registered; it needs an
adapter only for what the contract cannot guess. Secrets are written as *disguises*: ``disguises(state, viewer)``
returns states that differ from ``state`` only in what ``viewer`` (a seat, or None for the TV) may not know (another
seat's hidden answer, the deck order, the RNG...). The contract asserts that the viewer's view of each disguise is
exactly its view of the state, which catches a leak in any form, not just a copied value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from engine import registry
from engine.core import Game, Rng, evolve
from engine.simulate import Event, Played, Policy, Table, play, setup

Viewer = int | None


def rng_hidden(state: Any) -> list[Any]:
    """The state's RNG, which no one may know (it decides timeouts' random picks): changed."""
    if not hasattr(state, "rng_state"):
        return []
    return [evolve(state, rng_state=state.rng_state ^ 0x5EC2E75EC2E7)]


def default_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """What any game hides from everyone: its RNG."""
    return rng_hidden(state)


def default_payload(game: Game, state: Any, seat: int, action: Any, rng: Rng) -> Any:
    """A legal action as a client sends it."""
    return game.action_to_json(action)


def default_is_legal(game: Game, state: Any, seat: int, action: Any) -> bool:
    """Whether a parsed action is one of the seat's legal actions now."""
    return action in game.legal_actions(state, seat)


def answer_is_legal(game: Game, state: Any, seat: int, action: Any) -> bool:
    """As ``default_is_legal``, where ``("answer", None)`` in the legal actions stands for any number."""
    legal = game.legal_actions(state, seat)
    return action in legal or (action[0] == "answer" and ("answer", None) in legal)


@dataclass(frozen=True)
class Adapter:
    """What the contract needs to know about one game beyond the engine API."""

    seats: int | None = None  # how many seats play (default: see ``seats_of``)
    settings: Callable[[int], Mapping[str, Any]] = lambda seed: {}  # per seed, over the defaults
    supply: Callable[[int], Any] = lambda seed: None  # what a room offers ``prepare`` (the quiz games' questions)
    timer_scale: float = 1.0
    payload: Callable[[Game, Any, int, Any, Rng], Any] = default_payload
    is_legal: Callable[[Game, Any, int, Any], bool] = default_is_legal  # for a parsed action (bots are checked)
    disguises: Callable[[Any, Viewer], Iterable[Any]] = default_disguises
    owned_secrets: bool = False  # some disguise hides from one viewer what another one sees (a seat's own secret)
    seeds: int = 40  # random games the contract plays to their end
    max_events: int = 5000  # the bound within which a random game must end
    delay_ms: int = 3000  # a random move comes 0 to this many ms after the state changed
    wait_odds: int = 6  # one decision in this many waits for the next event, so that timeouts fire too


# ----- per-game parts -----

def numeric_answer(truth: int, rng: Rng) -> int:
    """A number near or far from the truth, never negative."""
    return max(0, truth + rng.randint(-3, 3) * rng.choice((0, 1, 10, 1000)))


def campaign_payload(game: Game, state: Any, seat: int, action: Any, rng: Rng) -> Any:
    kind, value = action
    if kind == "answer":
        return {"answer": numeric_answer(state.numeric[state.asking.question].answer, rng)}
    return {kind: value}


def campaign_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """CAMP-D5, CAMP-R16: before the reveal, the right answer and every other seat's answer; at any time, every
    question of the decks but the one on screen (what comes next, and what was asked, whose copy the history keeps)."""
    result = rng_hidden(state)
    asking = state.asking
    current = (asking.kind, asking.question) if asking is not None else None
    numeric = tuple(q if ("numeric", i) == current else replace(q, prompt=f"{q.prompt}?", answer=q.answer + 7)
                    for i, q in enumerate(state.numeric))
    choice = tuple(q if ("choice", i) == current else replace(q, prompt=f"{q.prompt}?",
                                                                 correct=(q.correct + 1) % len(q.options))
                   for i, q in enumerate(state.choice))
    result.append(evolve(state, numeric=numeric, choice=choice))
    if asking is not None and not asking.revealed:
        if asking.kind == "numeric":
            q = state.numeric[asking.question]
            truth = evolve(state, numeric=state.numeric[:asking.question] + (replace(q, answer=q.answer + 11),)
                           + state.numeric[asking.question + 1:])
        else:
            q = state.choice[asking.question]
            truth = evolve(state, choice=state.choice[:asking.question] + (
                replace(q, correct=(q.correct + 1) % len(q.options)),) + state.choice[asking.question + 1:])
        result.append(truth)
        others = tuple(a if a.seat == viewer else replace(a, value=a.value + 1, ms=a.ms + 123) for a in asking.answers)
        result.append(evolve(state, asking=replace(asking, answers=others)))
    return result


def quiz_payload(game: Game, state: Any, seat: int, action: Any, rng: Rng) -> Any:
    kind, value = action
    if kind == "answer":
        return {"answer": numeric_answer(state.question.answer, rng)}
    return {kind: value}


def quiz_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """QUIZ: until the reveal, the right answer and every other seat's answer; every question but the current one."""
    def changed(q: Any) -> Any:
        if q.kind == "numeric":
            return replace(q, prompt=f"{q.prompt}?", answer=q.answer + 7)
        return replace(q, prompt=f"{q.prompt}?", correct=(q.correct + 1) % len(q.options))

    questions = state.questions
    result = [evolve(state, questions=tuple(q if i == state.index else changed(q) for i, q in enumerate(questions)))]
    if state.phase in ("ready", "question"):
        current = questions[state.index]
        truth = replace(current, answer=current.answer + 11) if current.kind == "numeric" else \
            replace(current, correct=(current.correct + 1) % len(current.options))
        result.append(evolve(state, questions=questions[:state.index] + (truth,) + questions[state.index + 1:]))
        others = tuple(a if a.slot == viewer else replace(a, value=a.value + 1, ms=a.ms + 123) for a in state.answers)
        result.append(evolve(state, answers=others))
    return result


def quiz_supply(seed: int) -> Any:
    """Pack questions for odd seeds (a mix of both kinds, some with their own time), the generated set for even."""
    if seed % 2 == 0:
        return None
    from tests.quiz.fixtures import choice, numeric

    entries = [choice(i, correct=i % 3, options=2 + i % 3, time=5 if i % 4 == 0 else None) if i % 3 else
               numeric(i, answer=10 * i + 3) for i in range(7)]
    return {"questions": entries, "seen": {entries[0].id}}


def quiz_settings(seed: int) -> Mapping[str, Any]:
    """Auto- and host-paced, with and without speed, streaks and teams, in turn."""
    return {"paced": ("auto", "host")[seed % 2], "speed": seed % 3 != 0, "streak": seed % 4 != 1,
            "teams": ("0", "2", "0", "3")[seed % 4], "count": 4 if seed % 4 == 1 else 0}


def crown_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """CROWN-D5, R14: every other house's prestige (the TV: every house's), and the RNG."""
    houses = tuple(h if i == viewer else {**h, "prestige": (h["prestige"] + 37) % 101}
                   for i, h in enumerate(state.houses))
    return [*rng_hidden(state), evolve(state, houses=houses)]


def avignon_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """AVIG-D6: of the deck only its size is known, never its order; and the RNG."""
    result = rng_hidden(state)
    if len(state.deck) >= 2:
        result.append(evolve(state, deck=tuple(reversed(state.deck))))
    return result


def buzz_payload(game: Game, state: Any, seat: int, action: Any, rng: Rng) -> Any:
    return {"answer": rng.randbelow(100)}


def buzz_disguises(state: Any, viewer: Viewer) -> list[Any]:
    """The open round's answers (their times) show only when it closes, to no one before (not even the answerer)."""
    if state.phase != "answer":
        return []
    return [evolve(state, answers=tuple(a if a[0] == viewer else (a[0], a[1] + 123, a[2]) for a in state.answers))]


def campaign_maps() -> None:
    """The small grid maps the campaign adapter plays on (faster than the built-in maps, and other shapes)."""
    from tests.campaign.fixtures import grid_map

    grid_map(3, 3)
    grid_map(4, 4)


def levels(seed: int, *choices: str) -> str:
    """A bot level per seed, in turn (the bots test plays seeds 0, 1, 2: every level once)."""
    return choices[seed % len(choices)]


ADAPTERS: dict[str, Adapter] = {
    "campaign": Adapter(settings=lambda seed: {"map": ("grid-3x3", "grid-4x4", "verdant")[seed % 3],
                                               "preview_seconds": seed % 2 * 3,
                                               "bot_level": levels(seed, "easy", "normal", "hard")},
                        payload=campaign_payload, is_legal=answer_is_legal, disguises=campaign_disguises,
                        owned_secrets=True, seeds=300),
    "quiz": Adapter(seats=3, settings=quiz_settings, supply=quiz_supply, payload=quiz_payload,
                    is_legal=answer_is_legal, disguises=quiz_disguises, owned_secrets=True, seeds=100, delay_ms=8000),
    "crown": Adapter(settings=lambda seed: {"last_day": 3 + seed % 2, "bot_level": levels(seed, "simple", "strong")},
                     seeds=40, max_events=20_000, disguises=crown_disguises, delay_ms=20_000),
    "hierarchy": Adapter(settings=lambda seed: {"turn_seconds": 5,
                                                "bot_level": levels(seed, "random", "greedy", "strong")},
                         seeds=400, delay_ms=6000),
    # two strong bots may play a stand-off of many hundred moves (30 s): tests/avignon/test_rules.py has the strong one
    "avignon": Adapter(settings=lambda seed: {"bot_level": levels(seed, "random", "greedy")}, seeds=150,
                       delay_ms=20_000, disguises=avignon_disguises),
    "tally": Adapter(seats=3, settings=lambda seed: {"target": 5 + seed % 10, "turn_seconds": 2}, seeds=100),
    "teamtally": Adapter(settings=lambda seed: {"target": 7, "turn_seconds": 2}, seeds=50),
    "buzz": Adapter(seats=3, settings=lambda seed: {"rounds": 3}, payload=buzz_payload,
                    is_legal=lambda game, state, seat, action: bool(game.legal_actions(state, seat)),
                    disguises=buzz_disguises, seeds=50, delay_ms=2000),
}


def adapter_of(game_id: str) -> Adapter:
    """The game's adapter, or the default one."""
    return ADAPTERS.get(game_id, Adapter())


def seats_of(game: Game) -> int:
    """How many seats the contract plays: the adapter's, one per team, or the minimum (at least two if allowed)."""
    info = game.info
    wanted = adapter_of(info.id).seats
    if wanted is not None:
        return wanted
    if info.teams:
        return len(info.team_keys)
    return max(info.min_players, min(2, info.max_players))


def contract_games() -> list[str]:
    """Every registered game's id (the test games are registered by tests/conftest.py)."""
    return sorted(registry.GAMES)


# ----- random legal play -----

def random_policy(game: Game, adapter: Adapter) -> Policy:
    """A bot that picks any legal action blindly, or now and then waits (so that deadlines pass)."""
    def decide(state: Any, seat: int, rng: Rng) -> tuple[Any, int] | None:
        legal = game.legal_actions(state, seat)
        if not legal or rng.randbelow(adapter.wait_odds) == 0:
            return None
        return adapter.payload(game, state, seat, rng.choice(legal), rng), rng.randbelow(adapter.delay_ms)
    return decide


def new_table(game_id: str, seed: int) -> Table[Any]:
    """A game set up by its adapter for this seed."""
    game = registry.GAMES[game_id]
    adapter = adapter_of(game_id)
    if game_id == "campaign":
        campaign_maps()
    return setup(game, seats_of(game), seed, adapter.settings(seed), adapter.timer_scale, adapter.supply(seed))


@dataclass
class RandomGame:
    """A random legal game to its end, with every state it went through and the game time it was reached at."""

    played: Played[Any]
    states: list[tuple[Any, int]]  # (state, ms) from the initial state on: states[i + 1] follows played.log[i]


def random_game(game_id: str, seed: int, on_event: Callable[[Any, Event], None] | None = None) -> RandomGame:
    """Play a random legal game (every seat by ``random_policy``) from the adapter's setup."""
    table = new_table(game_id, seed)
    adapter = adapter_of(game_id)
    policy = random_policy(table.game, adapter)
    states = [(table.state, table.now_ms)]

    def seen(state: Any, event: Event) -> None:
        states.append((state, event[3]))
        if on_event is not None:
            on_event(state, event)

    played = play(table, dict.fromkeys(range(len(table.slots)), policy), max_events=adapter.max_events,
                  on_event=seen)
    return RandomGame(played, states)


@cache
def cached_game(game_id: str, seed: int) -> RandomGame:
    """``random_game``, played once per process for the checks that only read it."""
    return random_game(game_id, seed)
