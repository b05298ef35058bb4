"""Conformance: random games always end (HIER-D6), positions never repeat, bots never play illegally (HIER-D8),
seeds decide everything, replays of a log reproduce the state."""

from __future__ import annotations

import random

from engine.core import Rng
from engine.hierarchy import bots, rules
from engine.hierarchy.game import HierarchyState
from engine.hierarchy.simulate import GAME, new_game, play, replay

PLAYOUTS = 1500


def random_playout(seed: int) -> tuple[HierarchyState, list, int]:
    """A game of random legal actions and timeouts; returns the end state, its log and the most plays made."""
    state, _ = new_game(seed, {"turn_seconds": 5})
    rng = Rng(seed * 7919 + 1)
    now, log, seen = 0, [], set()
    for _ in range(200):
        if state.winner is not None:
            return state, log, sum(1 for h in state.history if h["kind"] == "play")
        key = (state.hands, state.line, state.turn, state.pending)
        assert key not in seen, f"position repeated in game {seed}"  # HIER-D6: no position can repeat
        seen.add(key)
        held = [c for hand in state.hands for c in hand] + [e[0] for e in state.line] + [c for c, _ in state.burned]
        assert sorted(held) == sorted(rules.ORDER)  # every card is somewhere, once
        seat = state.actor
        legal = GAME.legal_actions(state, seat)
        assert legal and GAME.legal_actions(state, 1 - seat) == []
        if rng.randbelow(6):
            action = rng.choice(legal)
            now += 1 + rng.randbelow(3000)
            payload = GAME.action_to_json(action)
            state = GAME.apply(state, seat, GAME.parse_action(payload), now)
            log.append(("action", seat, payload, now))
        else:
            now = GAME.deadline(state)
            state = GAME.on_timeout(state, now)
            log.append(("timeout", -1, None, now))
    raise AssertionError(f"playout {seed} did not end")


def test_random_playouts_always_end():
    # HIER-D6 HIER-D4 HIER-R21
    longest = 0
    surgeons = 0
    for seed in range(PLAYOUTS):
        state, _, made = random_playout(seed)
        assert GAME.outcome(state).ranking in ((0, 1), (1, 0))
        assert not GAME.legal_actions(state, 0) and not GAME.legal_actions(state, 1)
        longest = max(longest, made)
        surgeons += any(h["kind"] == "return" for h in state.history)
    assert longest <= 30  # "at most a few plays more than 14"
    assert surgeons > 50  # the Surgeon's returns are exercised


def test_bots_of_every_level_only_play_legal_moves():
    # HIER-D8
    for level in bots.LEVELS:
        for seed in range(15):
            state, _ = new_game(seed, {"bot_level": level})
            rng = Rng(seed)
            while state.winner is None:
                seat = state.actor
                payload, delay = GAME.bot_action(state, seat, rng)
                assert 600 <= delay <= 1800
                assert GAME.parse_action(payload) in GAME.legal_actions(state, seat)
                assert GAME.bot_action(state, 1 - seat, rng) is None
                state = GAME.apply(state, seat, GAME.parse_action(payload), 0)


def test_the_same_seed_gives_the_same_game_whatever_the_global_random_does():
    for seed in (1, 2, 3, 42):
        random.seed(seed)
        first = play(seed, ("strong", "random"))
        random.seed(seed + 1000)
        for _ in range(seed):
            random.random()
        second = play(seed, ("strong", "random"))
        assert first["state"] == second["state"] and first["log"] == second["log"]
    # disturbed between every step of a playout too
    state_a, log_a, _ = random_playout(9)
    original = GAME.apply

    def disturbed(*args, **kwargs):
        random.random()
        random.shuffle(list(range(10)))
        return original(*args, **kwargs)

    GAME.apply = disturbed
    try:
        state_b, log_b, _ = random_playout(9)
    finally:
        del GAME.apply
    assert state_a == state_b and log_a == log_b


def test_replaying_the_log_reproduces_the_state():
    for seed in range(60):
        state, log, _ = random_playout(seed)
        assert replay(seed, log, {"turn_seconds": 5}) == state
    played = play(77, ("greedy", "strong"))
    assert replay(77, played["log"]) == played["state"]
    # a different log does not: the check can fail
    state, log, _ = random_playout(3)
    assert replay(4, log[:0], {"turn_seconds": 5}) != state
