"""Avignon 1378 bots: random, greedy (one action ahead) and strong (a two-ply search over whole turns).

Bots see only what a player sees (AVIG-D6): the board, the conclaves, the discard pile and the deck's size. They
simulate on a public copy of the board whose deck holds the unseen cards in a fixed canonical order, never the real
order. A Banish draw is treated as chance over the unseen cards' classes; other draws (after a character leaves)
use the canonical order, a guess that is the same for every deck order. Every search is capped by a node count,
never by the clock, so a bot's choice depends only on the position and the generator the room hands it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.avignon.game import (
    AVIGNON,
    CARDS,
    CLASSES,
    ROME,
    AvignonAction,
    Table,
    basic_actions,
    resolve,
    turn_ok,
)
from engine.core import Rng

if TYPE_CHECKING:
    from engine.avignon.game import AvignonGame, AvignonState

WIN = 100_000.0
NODE_CAP = 12_000  # board simulations per decision (strong)
TOP_FIRST = 5  # first actions refined with the opponent's reply
TOP_SECOND = 3  # second actions refined per outcome
REPEAT_PENALTY = 8.0
CLOSE = (0.0, 30.0, 12.0, 5.0, 2.0, 1.0)  # value of a card by its distance (1-5 moves) to a player's conclave

Outcomes = list[tuple[float, Table]]  # the boards an action may lead to, with their chances
# a second action's line: its expected static value, its board when it has one outcome only, and its outcomes
Second = tuple[float, Table | None, Outcomes]


class Budget:
    """Counts simulated boards; the search stops refining when the cap is reached."""

    __slots__ = ("left", "used")

    def __init__(self, cap: int):
        self.left = cap
        self.used = 0

    def count(self) -> None:
        """Count a simulation that is always made (the first level of the search)."""
        self.left -= 1
        self.used += 1

    def take(self) -> bool:
        """Count a refining simulation if the cap allows one."""
        if self.left <= 0:
            return False
        self.left -= 1
        self.used += 1
        return True


def public_table(state: AvignonState) -> Table:
    """The board as a player knows it: the unseen cards form the deck in canonical order, the RNG is a constant."""
    known = {c for cell in state.lanes if cell is not None for c in (cell[0],)}
    known |= set(state.conclaves[0]) | set(state.conclaves[1]) | set(state.discard)
    unseen = [c for c in range(len(CARDS)) if c not in known]
    return Table(state.lanes, state.conclaves, unseen, state.discard, 0x5EED, state.to_move, CLASSES)


def worth(t: Table, card: int, role: int) -> float:
    """How much the role gains if this card enters its conclave (AVIG-D5 combinations included)."""
    mine = {CLASSES[c] for c in t.conclaves[role]}
    theirs = {CLASSES[c] for c in t.conclaves[1 - role]}
    cls = CLASSES[card]
    value = 3.0 if len(t.conclaves[role]) >= 2 else 1.0
    if cls == "noble" and "knight" in theirs:
        value += -6.0 if "peasant" in mine else 5.0
    elif cls == "knight" and "noble" in theirs:
        value += 5.0 if "peasant" in theirs else -6.0
    elif cls == "peasant" and "noble" in mine:
        value -= 0.5
    return value


def evaluate(t: Table, me: int) -> float:
    """A static score of the board for ``me`` (antisymmetric between the players)."""
    if t.winner is not None:
        return WIN if t.winner == me else -WIN
    opp = 1 - me
    score = 100.0 * (len(t.conclaves[me]) - len(t.conclaves[opp]))
    for cell in t.lanes:
        if cell is None:
            continue
        card, loc = cell
        to_rome, to_avignon = 5 - loc, loc + 1
        d_me, d_opp = (to_rome, to_avignon) if me == ROME else (to_avignon, to_rome)
        score += worth(t, card, me) * CLOSE[d_me] - worth(t, card, opp) * CLOSE[d_opp]
    return score


def stale(state: AvignonState, end: Table) -> float:
    """A small penalty for ending a turn on a position seen before: it steers the bot away from stand-offs."""
    return REPEAT_PENALTY * state.seen.get((end.position(), 1 - state.to_move), 0)


def outcomes(t: Table, role: int, action: AvignonAction) -> Outcomes:
    """The boards an action may lead to, with their chances: a Banish draws any unseen class."""
    if action[0] == "banish" and t.deck:
        counts = Counter(CLASSES[c] for c in t.deck)
        firsts: dict[str, int] = {}
        for c in t.deck:
            firsts.setdefault(CLASSES[c], c)
        result = []
        for cls, n in counts.items():
            work = t.copy()
            work.deck.remove(firsts[cls])
            work.deck.insert(0, firsts[cls])
            resolve(work, role, action)
            result.append((n / len(t.deck), work))
        return result
    work = t.copy()
    resolve(work, role, action)
    return [(1.0, work)]


def reply_value(t: Table, me: int, budget: Budget) -> float:
    """The board's value for ``me`` after the opponent's best whole turn (searched with the static score)."""
    if t.winner is not None:
        return evaluate(t, me)
    opp = 1 - me
    base = t.copy()
    base.active = opp
    worst = evaluate(t, me)
    first_any = False
    for a1 in basic_actions(base, opp, ()):
        if not budget.take():
            return worst if first_any else evaluate(t, me)
        first_any = True
        w1 = base.copy()
        resolve(w1, opp, a1)
        if w1.winner is not None:
            return evaluate(w1, me) if w1.winner != me else min(worst, evaluate(w1, me))
        for a2 in basic_actions(w1, opp, (a1[0],)):
            if not budget.take():
                return worst
            w2 = w1.copy()
            resolve(w2, opp, a2)
            worst = min(worst, evaluate(w2, me))
            if worst <= -WIN:
                return worst
    return worst


def choose_random(game: AvignonGame, state: AvignonState, rng: Rng) -> AvignonAction:
    """Any legal action."""
    return rng.choice(game.legal_actions(state, state.seat_of[state.to_move]))


def choose_greedy(game: AvignonGame, state: AvignonState, rng: Rng) -> AvignonAction:
    """The action with the best expected static score right after it."""
    me = state.to_move
    t = public_table(state)
    best, best_value = None, -2 * WIN
    for action in game.legal_actions(state, state.seat_of[me]):
        value = sum(p * evaluate(w, me) for p, w in outcomes(t, me, action)) + rng.randbelow(100) / 1000.0
        if value > best_value:
            best, best_value = action, value
    assert best is not None, "no legal action to choose"
    return best


class StrongChooser:
    """The strong bot's choice, ``choose_strong(game, state, rng)``; ``choose_strong.last_nodes`` records the
    simulations its last decision took (the tests hold it to NODE_CAP)."""

    def __init__(self) -> None:
        self.last_nodes = 0

    def __call__(self, game: AvignonGame, state: AvignonState, rng: Rng, cap: int = NODE_CAP) -> AvignonAction:
        """Expectimax over the player's remaining actions this turn, then the opponent's best reply for the most
        promising lines. Returns the chosen action."""
        return self.choose(game, state, cap)

    def choose(self, game: AvignonGame, state: AvignonState, cap: int) -> AvignonAction:
        """The search itself (the strong bot draws nothing from the generator)."""
        me = state.to_move
        legal = game.legal_actions(state, state.seat_of[me])
        if len(legal) == 1:
            return legal[0]
        t = public_table(state)
        budget = Budget(cap)
        two_left = state.allowed - len(state.used) >= 2

        def leaves(first: AvignonAction) -> list[tuple[float, Table, list[Second]]]:
            """Per outcome of ``first``: its chance, its board, and the lines of each second action (static-sorted)."""
            result = []
            for p, w in outcomes(t, me, first):
                budget.count()
                seconds: list[Second] = []
                if two_left and w.winner is None:
                    used = state.used + (first[0],)
                    banished = state.banished or first[0] == "banish"
                    for a2 in basic_actions(w, me, used):
                        budget.count()
                        end_p = outcomes(w, me, a2)
                        end = end_p[0][1]
                        if end.winner is None and turn_ok(state, end, banished or a2[0] == "banish",
                                                          a2[1] - 1 if a2[0] == "banish" else None):
                            continue
                        value = sum(q * evaluate(e, me) for q, e in end_p) - stale(state, end)
                        seconds.append((value, end_p[0][1] if len(end_p) == 1 else None, end_p))
                    seconds.sort(key=lambda s: -s[0])
                result.append((p, w, seconds))
            return result

        scored: list[tuple[float, int]] = []
        plans: dict[int, list[tuple[float, Table, list[Second]]]] = {}
        for index, first in enumerate(legal):
            plan = leaves(first)
            plans[index] = plan
            value = 0.0
            for p, w, seconds in plan:
                value += p * (seconds[0][0] if seconds else evaluate(w, me))
            scored.append((value, index))
        scored.sort(key=lambda s: (-s[0], s[1]))

        best_index, best_value = scored[0][1], -3 * WIN
        for static_value, index in scored[:TOP_FIRST]:
            if static_value >= WIN:
                best_index = index
                break
            value = 0.0
            for p, w, seconds in plans[index]:
                if not seconds:
                    value += p * reply_value(w, me, budget)
                    continue
                best_second = -3 * WIN
                for s_value, _end, end_p in seconds[:TOP_SECOND if p == 1.0 else 1]:
                    v = sum(q * reply_value(e, me, budget) for q, e in end_p) - stale(state, end_p[0][1])
                    best_second = max(best_second, v)
                value += p * best_second
            if value > best_value:
                best_index, best_value = index, value
        self.last_nodes = budget.used
        return legal[best_index]


choose_strong = StrongChooser()

CHOOSERS: dict[str, Callable[[AvignonGame, AvignonState, Rng], AvignonAction]] = {
    "random": choose_random, "greedy": choose_greedy, "strong": choose_strong}


def decide(game: AvignonGame, state: AvignonState, level: str, rng: Rng) -> AvignonAction:
    """The bot's action for the player to move at this level."""
    return CHOOSERS.get(level, choose_strong)(game, state, rng)


__all__ = ["AVIGNON", "NODE_CAP", "ROME", "choose_greedy", "choose_random", "choose_strong", "decide", "evaluate"]
