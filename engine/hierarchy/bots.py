"""Hierarchy bots: random, greedy (one-ply mobility) and strong (alpha-beta over the full public state).

All information is public (HIER-D7), so the strong bot searches the real game tree: iterative deepening alpha-beta
with a transposition table, bounded by a node budget (not wall time), so a decision is deterministic and the same
on any machine. Bots act through the same payloads as people, after a human-looking delay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core import Rng
from engine.hierarchy import rules
from engine.hierarchy.rules import Action, Hands, Line, Pending

if TYPE_CHECKING:
    from engine.hierarchy.game import HierarchyGame, HierarchyState

LEVELS = ("random", "greedy", "strong")
WIN = 1000
NODE_BUDGET = 6000  # nodes per strong decision; at most about 0.3 s here (see tests/hierarchy/test_bots.py)

Position = tuple[Hands, Line, int, Pending | None]  # (hands, line, turn, pending)


def actor(pos: Position) -> int:
    """The seat that moves in a search position."""
    return pos[3][1] if pos[3] is not None else pos[2]


def moves(pos: Position) -> list[Action]:
    """The legal moves of a search position, as engine actions."""
    hands, line, turn, pending = pos
    if pending is not None:
        return [("return", c) for c in rules.return_options(line, pending)]
    return [("play", *p) for p in rules.plays(hands[turn], line, turn)]


def child(pos: Position, move: Action) -> Position:
    """The position after a move (the same transitions the engine uses)."""
    hands, line, turn, pending = pos
    if move[0] == "return":
        assert pending is not None  # a return is a move only while one is pending
        hands, line, new_pending = rules.do_return(hands, line, pending, move[1])
        return hands, line, (1 - pending[2]) if new_pending is None else turn, new_pending
    _, card, copy, burn = move
    hands, line, new_pending = rules.do_play(hands, line, turn, card, copy, burn)
    return hands, line, turn if new_pending is not None else 1 - turn, new_pending


def evaluate(pos: Position, root: int) -> float:
    """A heuristic for a position the search does not finish: the root's mobility against the opponent's, each
    counted as if it were their turn, plus a little for cards held (more cards, more options later)."""
    hands, line = pos[0], pos[1]
    mine = len(rules.plays(hands[root], line, root))
    theirs = len(rules.plays(hands[1 - root], line, 1 - root))
    return (mine - theirs) + 0.25 * (len(hands[root]) - len(hands[1 - root]))


class OutOfNodes(Exception):
    """The node budget ran out inside an iteration."""


@dataclass
class SearchResult:
    """The chosen move, its value for the searching seat, the depth completed and the nodes visited."""

    move: Action
    value: float
    depth: int
    nodes: int
    solved: bool


def search(pos: Position, budget: int = NODE_BUDGET) -> SearchResult:
    """Iterative-deepening alpha-beta for the seat to move; the last completed iteration decides."""
    root = actor(pos)
    root_moves = moves(pos)
    if not root_moves:
        raise ValueError("no legal move to search")
    table: dict[Position, tuple[int, float, int]] = {}  # pos -> (depth, value, flag: 0 exact, 1 lower, 2 upper)
    nodes = 0
    cutoff = False  # whether any leaf was judged by the heuristic in this iteration

    def alphabeta(p: Position, depth: int, alpha: float, beta: float) -> float:
        nonlocal nodes, cutoff
        nodes += 1
        if nodes > limit:
            raise OutOfNodes
        entry = table.get(p)
        if entry is not None and entry[0] >= depth:
            _, value, flag = entry
            if entry[0] != 99:
                cutoff = True  # a heuristic value from an earlier iteration may stand in
            if flag == 0 or (flag == 1 and value >= beta) or (flag == 2 and value <= alpha):
                return value
        options = moves(p)
        if not options:
            value = float(-WIN if actor(p) == root else WIN)  # HIER-D4: who cannot play loses
            table[p] = (99, value, 0)
            return value
        if depth == 0:
            cutoff = True
            return evaluate(p, root)
        maximizing = actor(p) == root
        start_alpha, start_beta = alpha, beta
        best = -float("inf") if maximizing else float("inf")
        for move in options:
            value = alphabeta(child(p, move), depth - 1, alpha, beta)
            if maximizing:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        flag = 0
        if best <= start_alpha:
            flag = 2
        elif best >= start_beta:
            flag = 1
        table[p] = (depth if abs(best) < WIN else 99, best, flag)
        return best

    best_move, best_value, done_depth, solved = root_moves[0], 0.0, 0, False
    for depth in range(1, 40):
        limit = budget if depth > 1 else budget + 100  # depth 1 (one node per root move) always completes
        cutoff = False
        try:
            ordered = [best_move] + [m for m in root_moves if m != best_move]
            alpha, beta = -float("inf"), float("inf")
            iteration_move, iteration_value = ordered[0], -float("inf")
            for move in ordered:
                value = alphabeta(child(pos, move), depth - 1, alpha, beta)
                if value > iteration_value:
                    iteration_move, iteration_value = move, value
                alpha = max(alpha, value)
        except OutOfNodes:
            break
        best_move, best_value, done_depth = iteration_move, iteration_value, depth
        if not cutoff or abs(best_value) >= WIN:
            solved = not cutoff or best_value >= WIN
            break
    return SearchResult(best_move, best_value, done_depth, nodes, solved)


def swindle(pos: Position, budget: int = NODE_BUDGET) -> tuple[Action, int]:
    """In a position lost against perfect play: the move after which the most opponent replies are not proven
    wins for them (a fallible opponent may still go wrong), ties to the longer game; and the nodes used."""
    me = actor(pos)
    options = moves(pos)
    scored: list[tuple[float, int, Action]] = []
    used = 0
    for move in options:
        after = child(pos, move)
        if actor(after) == me:  # our own Surgeon return follows: judge it by the search
            replies = [after]
        else:
            replies = [child(after, r) for r in moves(after)] or [after]
        share = max(100, budget // (len(options) * len(replies)))
        good = 0
        for reply in replies:
            if not moves(reply):
                good += actor(reply) != me
                continue
            result = search(reply, share)
            used += result.nodes
            value = result.value if actor(reply) == me else -result.value
            good += value > -WIN
        scored.append((good / len(replies), len(replies), move))
    best = max(scored, key=lambda s: (s[0], s[1]))
    return best[2], used


def greedy(pos: Position, rng: Rng) -> Action:
    """A winning move if there is one, else the move leaving the opponent the fewest plays (ties at random)."""
    root = actor(pos)
    scored: list[tuple[float, Action]] = []
    for move in moves(pos):
        after = child(pos, move)
        if after[3] is None and not moves(after) and actor(after) != root:
            return move
        scored.append((evaluate(after, root), move))
    best = max(score for score, _ in scored)
    return rng.choice([move for score, move in scored if score == best])


def position_of(state: HierarchyState) -> Position:
    """The search position of an engine state."""
    return state.hands, state.line, state.turn, state.pending


def choose(state: HierarchyState, level: str, rng: Rng, budget: int = NODE_BUDGET) -> Action:
    """The move a bot of this level makes now (an engine action)."""
    return choose_counted(state, level, rng, budget)[0]


def choose_counted(state: HierarchyState, level: str, rng: Rng, budget: int = NODE_BUDGET) -> tuple[Action, int]:
    """The move and the search nodes it took (the deterministic measure of a decision's cost)."""
    pos = position_of(state)
    if level == "random":
        return rng.choice(moves(pos)), 0
    if level == "greedy":
        return greedy(pos, rng), len(moves(pos))
    result = search(pos, budget)
    if result.value <= -WIN and len(moves(pos)) > 1:
        move, used = swindle(pos, budget)
        return move, result.nodes + used
    return result.move, result.nodes


def decide(game: HierarchyGame, state: HierarchyState, seat: int, rng: Rng, level: str
           ) -> tuple[dict[str, Any], int] | None:
    """The bot's payload for this seat now and its delay in ms (600-1800); None when it has nothing to do."""
    if state.actor != seat:
        return None
    action = choose(state, level if level in LEVELS else "strong", rng)
    return game.action_to_json(action), 600 + rng.randbelow(1201)
