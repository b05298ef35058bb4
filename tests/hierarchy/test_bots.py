"""The bots: strong beats random, searches are bounded by node count, forced wins are found.

Measured with ``throneroom simulate hierarchy --games 200 --seed 1 --bots strong,random`` on this 2-core
machine: the strong bot won 187 of 200 games (93.5%); every loss was a deal already lost against perfect play at
its first decision. Slowest strong decision 148 ms wall time (mean 26 ms), about 11.5 microseconds per search node.
The test below plays the first 80 of those games (about 9 s) and asks for at least 90% there too.
"""

from __future__ import annotations

from engine import simulate
from engine.core import Rng
from engine.hierarchy import bots
from host.cli import hierarchy_game
from tests.hierarchy.fixtures import GAME, pos

GAMES = 80


def test_strong_beats_random_in_at_least_90_percent():
    wins = sum(hierarchy_game(seed, ("strong", "random")).state.winner == 0 for seed in range(1, GAMES + 1))
    assert wins >= 0.9 * GAMES, wins


def test_strong_beats_greedy_more_often_than_not():
    wins = sum(hierarchy_game(seed, ("strong", "greedy")).state.winner == 0 for seed in range(1, 31))
    assert wins >= 18, wins


def test_bots_of_every_level_only_play_legal_moves():
    # HIER-D8 (moved from the former test_conformance.py)
    for level in bots.LEVELS:
        for seed in range(15):
            state = simulate.setup(GAME, 2, seed, {"bot_level": level}).state
            rng = Rng(seed)
            while state.winner is None:
                seat = state.actor
                payload, delay = GAME.bot_action(state, seat, rng)
                assert 600 <= delay <= 1800
                assert GAME.parse_action(payload) in GAME.legal_actions(state, seat)
                assert GAME.bot_action(state, 1 - seat, rng) is None
                state = GAME.apply(state, seat, GAME.parse_action(payload), 0)


def test_the_slowest_decision_stays_within_the_node_cap():
    # a search never goes past its budget by more than the first iteration (one node per root move)
    for seed in range(5):
        state = simulate.setup(GAME, 2, seed).state
        for budget in (50, 500):
            assert bots.search(bots.position_of(state), budget).nodes <= budget + 100
    slowest = 0
    for seed in range(1, 21):
        state = simulate.setup(GAME, 2, seed).state
        rng = Rng(seed)
        while state.winner is None:
            level = "strong" if state.actor == 0 else "random"
            move, nodes = bots.choose_counted(state, level, rng)
            assert move in GAME.legal_actions(state, state.actor)
            slowest = max(slowest, nodes)
            state = GAME.apply(state, state.actor, move, 0)
    cap = 2 * bots.NODE_BUDGET + 2000  # the search, and at most one more budget to swindle a lost position
    assert 0 < slowest <= cap  # what a decision costs in time is measured, not asserted: `throneroom simulate
    # hierarchy` prints the slowest strong decision on the machine at hand (about 11.5 µs a node here)


def test_strong_and_greedy_take_an_immediate_win_random_may_not():
    # HIER-D4: the King leaves the opponent without a play; the Assassin does not
    state = pos("king assassin", "queen peasant", "b:dragon")
    result = bots.search(bots.position_of(state))
    assert result.move == ("play", "king", None, None) and result.value == bots.WIN and result.solved
    assert bots.choose(state, "greedy", Rng(1)) == ("play", "king", None, None)
    assert {bots.choose(state, "random", Rng(s)) for s in range(20)} == {("play", "king", None, None),
                                                                         ("play", "assassin", None, None)}


def test_strong_sees_a_win_three_plies_deep():
    # HIER-D10 HIER-D11: only the Tower on the Dragon burning the High Priest wins. b must answer with the Sorcerer;
    # the Queen goes on it by number (its condition silenced) and the Leper cannot follow an even 12. Burning the
    # Queen instead keeps the High Priest (11), on which the odd-loving Leper can go; the Queen now fails her
    # condition. The greedy bot (one ply) does not find it.
    state = pos("queen high_priest tower", "leper sorcerer", "b:dragon")
    result = bots.search(bots.position_of(state))
    assert result.move == ("play", "tower", None, "high_priest") and result.value == bots.WIN and result.solved
    assert bots.choose(state, "greedy", Rng(1)) != result.move
